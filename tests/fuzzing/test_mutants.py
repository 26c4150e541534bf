"""Mutation testing of the harness: each deliberately broken decoder is caught.

If ``check_decode`` plus the seed corpus missed one of these classic bugs, the fuzzing
setup would be giving false confidence.  Each mutant must be flagged by replaying
corpus/decode/, for no more work than a clean replay (bytes given to the candidate,
counted); correct decoders must never be flagged.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import pytest

import sanitizer
from sanitizer._fuzzing.mutants import MUTANTS
from sanitizer._fuzzing.oracles import Divergence, check_decode

SEEDS = [
    p.read_bytes()
    for p in sorted((Path(__file__).resolve().parents[2] / "corpus" / "decode").glob("*.bin"))
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


def _replay_work(candidate: Callable[[bytes], str]) -> tuple[int, list[Divergence]]:
    """Replay the corpus against ``candidate``: (bytes it was given, divergences).  The
    bytes are the harness's work on a candidate, counted instead of timed (the long tier
    re-runs every seed at 1-64 KiB, so they dwarf the seeds)."""
    given = 0

    @functools.wraps(candidate)
    def counted(data: bytes) -> str:
        nonlocal given
        given += len(data)
        return candidate(data)

    found = _flagged(counted)
    return given, found


@pytest.fixture(scope="module")
def clean_replay_work() -> int:
    """The bytes a correct decoder is given by a replay of the corpus: the yardstick."""
    work, found = _replay_work(sanitizer.decode)
    assert not found
    return work


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_is_flagged_by_corpus(name: str, clean_replay_work: int) -> None:
    work, found = _replay_work(MUTANTS[name])
    assert found, f"mutant {name} ({MUTANTS[name].__doc__}) survives the seed corpus"
    # "within a few seconds", in work: flagging a mutant never makes the harness give the
    # candidate more than a clean replay does (a divergence ends that seed's checks)
    assert work <= clean_replay_work, (work, clean_replay_work)
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
    from sanitizer._fuzzing.candidate import load

    for name, func in MUTANTS.items():
        assert load(f"sanitizer._fuzzing.mutants:{name.replace('-', '_')}") is func
