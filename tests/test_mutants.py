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
from sanitizer.fuzzing.checks import Divergence, check_decode
from sanitizer.fuzzing.mutants import MUTANTS

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


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_is_flagged_by_corpus(name: str) -> None:
    start = time.perf_counter()
    found = _flagged(MUTANTS[name])
    elapsed = time.perf_counter() - start
    assert found, f"mutant {name} ({MUTANTS[name].__doc__}) survives the seed corpus"
    assert elapsed < 5.0, f"replaying the corpus took {elapsed:.1f}s"
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
