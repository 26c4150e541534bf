"""Fuzzing from a regular install: build the wheel, install it into a fresh virtual
environment outside the checkout, and run campaigns from a temporary directory -- every
target's oracle, seeds and dictionary must come from the package (no ``fuzz/``, no
``corpus/`` in sight).  Slow (a wheel build, an install, two short campaigns: about a
minute), so marked ``slow``; it needs atheris (the ``fuzz`` extra) installable.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.fuzz,
    pytest.mark.skipif(
        importlib.util.find_spec("atheris") is None,
        reason="atheris is not installed (pip install 'utf8-sanitizer[fuzz]')",
    ),
]


def _run(cmd: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "SANITIZER_FUZZ_CANDIDATE", "VIRTUAL_ENV")
    }
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``sanitizer`` script of a fresh venv with the wheel and its ``fuzz`` extra."""
    base = tmp_path_factory.mktemp("install")
    wheels = base / "wheels"
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        cwd=base,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheels.glob("utf8_sanitizer-*.whl")
    env_dir = base / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    done = _run([str(python), "-m", "pip", "install", "-q", f"{wheel}[fuzz]"], cwd=base)
    assert done.returncode == 0, done.stdout + done.stderr
    return env_dir / "bin" / "sanitizer"


@pytest.mark.parametrize("target", ["web", "decode"])
def test_every_target_fuzzes_from_an_installed_wheel_with_its_seeds(
    installed: Path, tmp_path: Path, target: str
) -> None:
    where = _run(
        [str(installed.with_name("python")), "-c", "import sanitizer; print(sanitizer.__file__)"],
        tmp_path,
    )
    assert str(ROOT) not in where.stdout  # the installed copy, not the checkout
    proc = _run(
        [
            str(installed),
            "fuzz",
            target,
            "--max-time",
            "600",
            "--no-progress",
            "--format",
            "json",
            "--",
            "-runs=600",
        ],  # bounded by executions, not by what 5 s allow
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr

    (result,) = json.loads(proc.stdout)["targets"]
    assert result["corpus"]["before"] > 0  # the seeds came with the package
    assert result["execs"] > 0 and result["cov"] > 0  # it fuzzed, instrumented
    corpus = tmp_path / ".sanitizer-fuzz" / "corpus" / target / "sanitizer"
    assert any(corpus.glob("*.bin"))
