"""A harness that cannot pass silently.

A candidate that exits, interrupts, hangs, kills itself, hides its bug behind one
multi-byte sequence or is only wrong past a 1,024-byte block boundary must end up as a
finding with a report, never as "no findings" and exit 0.  The fast tests here check the
oracle and helpers in process; the ``slow`` ones run ``sanitizer fuzz`` for real (atheris
workers) on the campaign-only mutants of ``sanitizer._fuzzing.mutants``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

import sanitizer
from sanitizer._fuzzing import breadcrumb, mutants, oracles, replay
from sanitizer._fuzzing.campaign import DIED_HEADLINE
from sanitizer._fuzzing.libfuzzer import TIMEOUT_HEADLINE
from sanitizer._fuzzing.oracles import Divergence, check_decode, check_policy

ROOT = Path(__file__).resolve().parents[2]
ILL_FORMED = b"ab\xc0\xaf"


# -- escapes caught in process ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "how"),
    [
        ("exits-on-ill-formed", "raised SystemExit(3)"),
        ("os-exit-on-ill-formed", "called os._exit(0)"),
        ("interrupts-on-ill-formed", "raised KeyboardInterrupt()"),
    ],
)
def test_candidate_leaving_the_process_is_a_divergence(name: str, how: str) -> None:
    real_exit = os._exit
    with pytest.raises(Divergence) as caught:
        check_decode(ILL_FORMED, candidate=mutants.MUTANTS[name], deep=None)
    assert f"tried to end the process: {how}" in str(caught.value)
    assert os._exit is real_exit  # the stand-in is gone once the candidate returned
    check_decode(b"plain", candidate=mutants.MUTANTS[name], deep=None)


def test_generator_exit_is_an_escape_too() -> None:
    def closes(data: bytes) -> str:
        raise GeneratorExit

    answer = oracles.call_candidate(closes, b"x")
    assert isinstance(answer, oracles.CandidateEscape) and "GeneratorExit" in str(answer)


def test_replay_helper_survives_what_the_candidate_raises() -> None:
    def leaves(data: bytes) -> None:
        raise SystemExit(4)

    failure = replay._fails_how(leaves, b"x")
    assert failure is not None and failure.startswith("SystemExit: 4")


def test_replay_helper_times_out_a_hanging_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(replay.TIMEOUT_ENV, "0.05")
    # the helper's own timer, recorded (no wall-clock assert): armed with the limit for
    # the input, disarmed after it
    timers: list[float] = []
    real_setitimer = signal.setitimer

    def setitimer(which: int, seconds: float, interval: float = 0.0) -> tuple[float, float]:
        timers.append(seconds)
        return real_setitimer(which, seconds, interval)

    monkeypatch.setattr(replay.signal, "setitimer", setitimer)

    def hangs(data: bytes) -> None:
        while True:
            pass

    failure = replay._fails_how(hangs, b"x")
    assert failure is not None and failure.startswith(TIMEOUT_HEADLINE)
    assert "over 0.05 s for one input" in failure
    assert timers == [0.05, 0]
    # through the oracle: the alarm is the helper's, not the candidate's escape
    hanging = mutants.CAMPAIGN_MUTANTS["hangs-on-ill-formed"]
    failure = replay._fails_how(lambda data: check_decode(data, hanging), b"\xff")
    assert failure is not None and failure.startswith(TIMEOUT_HEADLINE), failure
    assert replay._fails_how(lambda data: None, b"x") is None  # the alarm is off again


# -- long inputs ---------------------------------------------------------------------------


@pytest.mark.parametrize("data", [b"\xc3\xa9", b"ab\xe2\x82\xaccd", b"x\xf0\x9f\x98\x80"])
def test_long_variants_cut_the_first_sequence_at_each_block(data: bytes) -> None:
    lead = next(i for i, b in enumerate(data) if b >= 0x80)
    variants = oracles.long_variants(data)
    assert [block for block, _ in variants] == list(oracles.BLOCK_SIZES)
    for block, long in variants:
        assert long.endswith(data + data) and long.decode("utf-8")  # still well-formed
        start = len(long) - 2 * len(data) + lead  # where the sequence begins
        assert start < block < start + 4  # the boundary falls inside it
        assert long[block - 1] >= 0x80 or long[block] >= 0x80
    assert oracles.long_variants(b"ascii only") == []


def test_block_decoder_is_flagged_and_correct_ones_are_not() -> None:
    block = mutants.MUTANTS["decodes-1024-byte-blocks"]
    with pytest.raises(Divergence, match="block boundary"):
        check_decode("caf\u00e9".encode(), candidate=block)
    check_decode("caf\u00e9".encode(), candidate=sanitizer.decode)
    check_decode("caf\u00e9".encode(), candidate=lambda b: b.decode("utf-8"))


def test_long_tier_is_sampled_in_campaigns() -> None:
    calls: list[int] = []

    def counting(data: bytes) -> str:
        calls.append(len(data))
        return data.decode("utf-8")

    inputs = [f"{i}\u00e9".encode() for i in range(2000)]
    for data in inputs:
        check_decode(data, candidate=counting, deep=None)
    sampled = sum(1 for d in inputs if zlib.crc32(d) % oracles.LONG_EVERY == 0)
    assert sampled > 0
    assert sum(1 for n in calls if n > 1000) == 2 * sampled  # two block sizes each


# -- the FILENAME/TOO_LONG rule ------------------------------------------------------------


def test_over_the_byte_limit_too_long_alone_is_enough() -> None:
    # "Limits apply before the costly steps": 256 ill-formed bytes through FILENAME
    # (max_bytes 255) are refused as TOO_LONG without being decoded, and the oracle agrees.
    data = b"\xff" * 256
    report = sanitizer.inspect(data, sanitizer.profiles.FILENAME)
    assert [f.category for f in report.findings] == [sanitizer.Category.TOO_LONG]
    assert not report.ok
    check_policy(data)
    # one byte less: decoded, so ILL_FORMED findings are required (and present)
    shorter = sanitizer.inspect(data[:255], sanitizer.profiles.FILENAME)
    assert sanitizer.Category.ILL_FORMED in {f.category for f in shorter.findings}
    check_policy(data[:255])


def test_policy_campaign_tier_is_cheaper_and_consistent(monkeypatch: pytest.MonkeyPatch) -> None:
    """The campaign tier (``deep=None``) makes far fewer ``inspect`` calls than the full
    check (counted, not timed: bench/bench_fuzz.py measures exec/s), and every seed passes
    both tiers."""
    seeds = [p.read_bytes() for p in sorted((ROOT / "corpus" / "policy").iterdir())][:60]
    calls = [0]
    real = oracles._inspect

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(oracles, "_inspect", counted)

    def inspections(deep: bool | None) -> int:
        calls[0] = 0
        for data in seeds:
            check_policy(data, deep=deep)
        return calls[0]

    full, sampled = inspections(True), inspections(None)
    assert sampled * 4 < full, (full, sampled)


# -- breadcrumb and shrink -----------------------------------------------------------------


def test_breadcrumb_keeps_the_last_input(tmp_path: Path) -> None:
    path = tmp_path / "crumb"
    crumb = breadcrumb.Breadcrumb(path, capacity=16)
    assert breadcrumb.read_last(path) is None  # nothing run yet
    crumb.record(b"")
    assert breadcrumb.read_last(path) == b""
    crumb.record(b"a long first input")
    crumb.record(b"short")
    assert breadcrumb.read_last(path) == b"short"
    crumb.record(b"x" * 40)
    assert breadcrumb.read_last(path) == b"x" * 16  # truncated to capacity
    assert breadcrumb.read_last(tmp_path / "missing") is None


def test_shrink_tries_unaligned_cuts() -> None:
    # Fails while the input is well-formed and holds a euro sign: removing any single
    # byte breaks it, so only cuts of whole sequences at odd offsets make progress.
    def fails(data: bytes) -> bool:
        return b"\xe2\x82\xac" in data and sanitizer.is_valid(data)

    data = b"x\xe2\x82\xac\xe2\x82\xac\xc3\xa9"
    assert replay.shrink(data, fails) == b"\xe2\x82\xac"


# -- real campaigns (atheris workers) ------------------------------------------------------

atheris = pytest.importorskip("atheris")


def _fuzz(tmp_path: Path, candidate: str, *extra: str) -> tuple[int, str, list[Path]]:
    corpus = tmp_path / "corpus"
    corpus.mkdir(exist_ok=True)
    (corpus / "seed").write_bytes(b"abc")  # well-formed: the workers must find the bug
    art = tmp_path / "art"
    cmd = [
        sys.executable,
        "-m",
        "sanitizer",
        "fuzz",
        "decode",
        "--candidate",
        f"sanitizer._fuzzing.mutants:{candidate}",
        "--corpus",
        str(corpus),
        "--no-seeds",
        "--artifacts",
        str(art),
        "--minimize-time",
        "2",
        "--no-progress",
        *extra,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300)
    reports = sorted(art.glob("*.txt")) if art.is_dir() else []
    return proc.returncode, proc.stdout + proc.stderr, reports


@pytest.mark.slow
@pytest.mark.parametrize(
    ("candidate", "title"),
    [
        ("hangs_on_ill_formed", TIMEOUT_HEADLINE),
        ("kills_itself_on_ill_formed", f"{DIED_HEADLINE}: killed by SIGKILL"),
        ("bound_exit_on_ill_formed", f"{DIED_HEADLINE}: exit status 0"),
        ("exits_on_ill_formed", "tried to end the process: raised SystemExit(3)"),
    ],
)
def test_campaign_flags_a_candidate_that_leaves(tmp_path: Path, candidate: str, title: str) -> None:
    code, out, reports = _fuzz(
        tmp_path, candidate, "--max-time", "8", "--timeout", "1", "--stop-on-first"
    )
    assert code == 1, out
    assert title in out and "no findings" not in out
    assert reports and title in reports[0].read_text()


@pytest.mark.slow
def test_campaign_reaches_a_needle_in_the_candidates_own_branches(tmp_path: Path) -> None:
    # E9 BE 8D then an ill-formed byte, tested byte by byte in the candidate: found from a
    # 3-byte corpus in ~120k executions because the candidate is coverage-instrumented
    # (without it, 10 million executions miss it; see bench/bench_fuzz.py --needle).
    code, out, reports = _fuzz(
        tmp_path, "needle_after_multibyte", "--max-time", "240", "--stop-on-first"
    )
    assert code == 1, out
    assert "needle_after_multibyte accepts ill-formed UTF-8" in out
    assert "E9 BE 8D" in reports[0].read_text()
