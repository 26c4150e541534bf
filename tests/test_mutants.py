"""Mutation testing of the harness: each deliberately broken decoder is caught.

If ``check_decode`` plus the seed corpus missed one of these classic bugs, the fuzzing
setup would be giving false confidence.  Each mutant must be flagged by replaying
corpus/decode/ within a few seconds; correct decoders must never be flagged.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

import sanitizer
from sanitizer.fuzzing.mutants import MUTANTS
from sanitizer.fuzzing.oracles import Divergence, check_decode

SEEDS = [
    p.read_bytes()
    for p in sorted((Path(__file__).parent.parent / "corpus" / "decode").glob("*.bin"))
]


def _flagged(candidate: Callable[[bytes], str]) -> list[Divergence]:
    found = []
    for data in SEEDS:
        try:
            check_decode(data, candidate=candidate)
        except Divergence as exc:
            found.append(exc)
    return found


def test_there_are_many_narrow_mutants() -> None:
    assert len(MUTANTS) >= 30
    for name, func in MUTANTS.items():
        assert (func.__doc__ or "").startswith("Bug:"), name


def _replay_seconds(candidate: Callable[[bytes], str]) -> tuple[float, list[Divergence]]:
    start = time.perf_counter()
    found = _flagged(candidate)
    return time.perf_counter() - start, found


@pytest.fixture(scope="module")
def clean_replay_seconds() -> float:
    """Replaying the corpus against a correct decoder: the yardstick for a mutant's replay
    (a ratio, not seconds: a shared machine's speed is not the harness's)."""
    return min(_replay_seconds(sanitizer.decode)[0] for _ in range(3))


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_is_flagged_by_corpus(name: str, clean_replay_seconds: float) -> None:
    elapsed, found = _replay_seconds(MUTANTS[name])
    assert found, f"mutant {name} ({MUTANTS[name].__doc__}) survives the seed corpus"
    # "within a few seconds": 10x a correct decoder's replay, but never under 3 s, since a
    # pure-Python mutant pays the oracle's long-input tier (seeds re-run at 1-64 KiB) at
    # Python speed where the C decoder does not
    bound = max(10 * clean_replay_seconds, 3.0)
    if elapsed > bound:  # measure again before blaming the code
        elapsed = min(elapsed, _replay_seconds(MUTANTS[name])[0])
    assert elapsed < bound, (
        f"replaying the corpus took {elapsed:.2f}s, {clean_replay_seconds:.2f}s when correct"
    )
    assert "input (" in str(found[0])


@pytest.mark.parametrize(
    "candidate",
    [lambda b: b.decode("utf-8"), sanitizer.decode],
    ids=["bytes.decode", "sanitizer.decode"],
)
def test_correct_decoders_are_never_flagged(candidate: Callable[[bytes], str]) -> None:
    assert _flagged(candidate) == []


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("accepts-overlong-2byte", b"\xc0\xae"),
        ("accepts-overlong-3byte", b"\xe0\x80\xaf"),
        ("accepts-overlong-4byte", b"\xf0\x80\x80\xaf"),
        ("accepts-surrogates", b"\xed\xa0\x80"),
        ("accepts-cesu8-pairs", b"\xed\xa0\x80\xed\xb0\x80"),
        ("accepts-above-10ffff", b"\xf4\x90\x80\x80"),
        ("accepts-f5-f7-leads", b"\xf5\x80\x80\x80"),
        ("accepts-5-6-byte-forms", b"\xf8\x88\x80\x80\x80"),
        ("modified-utf8", b"\xc0\x80"),
        ("drops-truncated-tail", b"ab\xe1\x80"),
        ("drops-truncated-before-ascii", b"\xe1\x80/"),
        ("lone-continuation-as-latin1", b"\xa9"),
        ("error-offset-off-by-one", b"a\xff"),
        ("rejects-noncharacters", "\ufffe".encode()),
        ("rejects-4byte", "\U0001f600".encode()),
        ("strips-bom", b"\xef\xbb\xbfa"),
    ],
)
def test_mutant_bug_on_its_own_input(name: str, data: bytes) -> None:
    with pytest.raises(Divergence):
        check_decode(data, candidate=MUTANTS[name])
    check_decode(b"plain ascii", candidate=MUTANTS[name])  # otherwise a decoder


def test_mutants_are_loadable_as_candidate_specs() -> None:
    # The campaign runner and bench/bench_fuzz.py pass mutants as MODULE:FUNCTION specs.
    from sanitizer.fuzzing.candidate import load

    for name, func in MUTANTS.items():
        assert load(f"sanitizer.fuzzing.mutants:{name.replace('-', '_')}") is func
