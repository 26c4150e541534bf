"""A slow build is never a silent one: ``sanitizer --version`` names the backend that runs
(the C extension and its UTF-8 kernel, or the pure-Python paths and why), and setup.py
ends a build whose optional C extension failed with a warning saying so."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sanitizer import _native

ROOT = Path(__file__).resolve().parents[2]


def version(*, env: dict[str, str] | None = None, block_extension: bool = False) -> str:
    code = "from sanitizer.cli import main; main(['--version'])"
    if block_extension:  # as if no C compiler had been there at install time
        code = "import sys; sys.modules['sanitizer._speedups'] = None; " + code
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SANITIZER_")}
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env={**environ, **(env or {})},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return proc.stdout


@pytest.mark.skipif(_native.speedups is None, reason="the C extension is not built here")
def test_version_names_the_c_backend_and_its_kernel() -> None:
    out = version()
    assert out.splitlines()[0].startswith("utf8-sanitizer ")
    assert f"backend: c; UTF-8 validator kernel: {_native.utf8_kernel()}\n" in out
    forced = version(env={"SANITIZER_UTF8_KERNEL": "scalar"})
    assert "UTF-8 validator kernel: scalar" in forced


def test_version_says_why_the_pure_python_paths_run() -> None:
    out = version(env={"SANITIZER_PURE_PYTHON": "1"})
    assert "backend: pure (forced by SANITIZER_PURE_PYTHON); UTF-8 validator kernel: python" in out
    missing = version(block_extension=True)
    assert "backend: pure (the C extension is missing: " in missing
    assert "sanitizer._speedups" in missing


@pytest.mark.slow  # runs setuptools: about a second
def test_setup_warns_when_the_optional_extension_fails_to_build(tmp_path: Path) -> None:
    """CC=/bin/false: every compile fails; the build still succeeds (the extension is
    optional) and ends with a warning naming the extension and what to do."""
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "sanitizer" / "_native_src", tmp_path / "sanitizer" / "_native_src")
    shutil.copy(ROOT / "sanitizer" / "_version.py", tmp_path / "sanitizer" / "_version.py")
    (tmp_path / "sanitizer" / "__init__.py").write_text("", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
        cwd=tmp_path,
        env={**os.environ, "CC": "/bin/false"},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "WARNING: the optional extension sanitizer._speedups did not build" in proc.stderr
    assert "pure-Python paths, about ten times slower" in proc.stderr
    assert "sanitizer --version" in proc.stderr
    assert not list((tmp_path / "sanitizer").glob("_speedups*.so"))
