"""Smoke test: every atheris target really runs under libFuzzer (idna-style).

Each fuzz/fuzz_*.py runs for a short budget from a temporary copy of its seed corpus (so
the checked-in corpus is never modified) and must exit 0 after libFuzzer prints "Done".
Skipped when atheris is not installed (it is in the ``fuzz`` extra).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.fuzz,
    pytest.mark.skipif(
        importlib.util.find_spec("atheris") is None,
        reason="atheris is not installed (pip install 'utf8-sanitizer[fuzz]')",
    ),
]


def _run(cmd: list[str], corpus: Path, env: dict[str, str] | None = None) -> str:
    # A count of executions, never a time: with -max_total_time a loaded machine ended
    # the run while the seeds still ran (no INITED line, "cov 0").  The timeout is a
    # generous deadline, not an assert.
    proc = subprocess.run(
        [
            *cmd,
            str(corpus),
            "-runs=300",
            f"-artifact_prefix={corpus.parent}/",  # a crash file must not land in the repo
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, **(env or {})},
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    assert "Done" in output, output[-3000:]
    return output


SCRIPTS = sorted(p.stem.removeprefix("fuzz_") for p in (ROOT / "fuzz").glob("fuzz_*.py"))


def test_every_script_is_a_campaign_target() -> None:
    from sanitizer._fuzzing.targets import TARGET_NAMES

    assert sorted(TARGET_NAMES) == SCRIPTS  # `sanitizer fuzz all` runs every one


@pytest.mark.parametrize("target", SCRIPTS)
def test_fuzz_target_runs(target: str, tmp_path: Path) -> None:
    script = ROOT / "fuzz" / f"fuzz_{target}.py"
    assert os.access(script, os.X_OK), f"{script} is not executable"
    assert script.read_text().startswith("#!/usr/bin/env python3\n")
    corpus = tmp_path / target
    shutil.copytree(ROOT / "corpus" / target, corpus)
    before = {p.name for p in (ROOT / "corpus" / target).iterdir()}
    output = _run([sys.executable, str(script)], corpus)
    assert "Instrumenting sanitizer" in output
    assert _coverage(output) > 0, output[-3000:]  # the code under test is instrumented
    _check_scope(target, output)
    assert {p.name for p in (ROOT / "corpus" / target).iterdir()} == before


def _check_scope(target: str, output: str) -> None:
    """The policy target instruments the policy layer and not the core (docs/fuzzing.md:
    instrumenting the core too made each execution a third slower)."""
    if target == "policy":
        assert "Instrumenting sanitizer._policy._run" in output
        assert "Instrumenting sanitizer._decoder" not in output


def _coverage(output: str) -> int:
    """The last ``cov: N`` libFuzzer printed (0 when it printed none: no feedback)."""
    found = re.findall(r"\bcov: (\d+)", output)
    return int(found[-1]) if found else 0


def test_candidate_env_var_reaches_the_target(tmp_path: Path) -> None:
    corpus = tmp_path / "decode"
    shutil.copytree(ROOT / "corpus" / "decode", corpus)
    _run(
        [sys.executable, str(ROOT / "fuzz" / "fuzz_decode.py")],
        corpus,
        env={"SANITIZER_FUZZ_CANDIDATE": "sanitizer:decode"},
    )
    # A broken candidate makes the run fail with the Divergence report.
    proc = subprocess.run(
        [sys.executable, str(ROOT / "fuzz" / "fuzz_decode.py"), str(corpus), "-runs=50"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SANITIZER_FUZZ_CANDIDATE": "sanitizer._fuzzing.mutants:modified_utf8"},
    )
    assert proc.returncode != 0
    assert "Divergence" in proc.stderr + proc.stdout
    assert "input (" in proc.stderr + proc.stdout


@pytest.mark.parametrize("target", ["identifiers", "policy", "utf16", "utf7", "web"])
def test_in_package_entry_point(target: str, tmp_path: Path) -> None:
    corpus = tmp_path / target
    shutil.copytree(ROOT / "corpus" / target, corpus)
    output = _run([sys.executable, "-m", "sanitizer.fuzzing", target], corpus)
    assert _coverage(output) > 0, output[-3000:]  # lazily loaded modules instrumented too
    _check_scope(target, output)


def test_in_package_entry_point_refuses_other_targets() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "sanitizer.fuzzing", "nope"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert "TARGET: one of decode, policy, identifiers, utf16, utf7, web" in proc.stderr
