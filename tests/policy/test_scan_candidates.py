"""The policy scanner's two ways to find candidates agree: the C class-table
scan (``_speedups.scan`` with tables that flag exactly the scanned categories) and the
regex patterns it replaced, which serve without the extension.  Likewise for runs of
combining marks.  Characters are drawn from the edges and middles of every category's
ranges, plus the pieces of emoji, variation and tag sequences, so that the neighbour
rules (``allow_sequences``) are exercised on both sides."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer import _native, profiles
from sanitizer._categories import CHARACTER_CATEGORIES
from sanitizer._policy import Policy, _scan
from sanitizer._policy.compiled import compiled_for

pytestmark = pytest.mark.skipif(_native.speedups is None, reason="needs the C extension")

_POINTS = {
    cp
    for category in CHARACTER_CATEGORIES
    for lo, hi in category.ranges
    for cp in (lo, hi, (lo + hi) // 2)
}
_POINTS |= {
    0x0A, 0x20, 0x31, 0x61, 0x301, 0x20E3, 0x200D, 0x200C, 0x2764, 0x4E00, 0x180B, 0x1820,
    0xFE0E, 0xFE0F, 0x1F3F4, 0x1F3FB, 0x1F468, 0x1F469, 0xE0067, 0xE007F, 0xE0100,
}  # fmt: skip
ALPHABET = sorted(chr(cp) for cp in _POINTS if not 0xD800 <= cp <= 0xDFFF)
texts = st.text(alphabet=st.sampled_from(ALPHABET), max_size=24) | st.builds(
    lambda t, n: t + "abc" * n, st.text(alphabet=st.sampled_from(ALPHABET), max_size=8),
    st.integers(0, 40),
)  # fmt: skip

_PROFILES: list[Policy] = [
    getattr(profiles, name)
    for name in dir(profiles)
    if name.isupper() and isinstance(getattr(profiles, name), type(profiles.TEXT))
]


@settings(deadline=None)
@given(text=texts, which=st.sampled_from(range(len(_PROFILES))), sequences=st.booleans())
def test_c_candidates_are_the_patterns_matches(text: str, which: int, sequences: bool) -> None:
    compiled = compiled_for(_PROFILES[which])
    for cats in (compiled.scanned, compiled.dropping):
        scan = _scan.scanner(cats, sequences)
        assert scan.c_args is not None
        by_patterns = dataclasses.replace(scan, c_args=None)
        assert list(_scan.hits(text, scan, sequences)) == list(
            _scan.hits(text, by_patterns, sequences)
        )


marks = st.text(alphabet=st.sampled_from("a \u0301\u0302\u0300\u20dd\U0001d167\u0345"))


@settings(deadline=None)
@given(text=marks, limit=st.integers(0, 5))
def test_c_mark_runs_are_the_patterns_runs(text: str, limit: int) -> None:
    by_c = list(_scan.mark_runs(text, limit))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_scan, "speedups", None)
        assert by_c == list(_scan.mark_runs(text, limit))


@settings(deadline=None)
@given(text=marks, limit=st.integers(0, 5))
def test_c_count_of_mark_runs_is_what_mark_runs_yields_from_there(text: str, limit: int) -> None:
    """``count_mark_runs`` from the text's start, and from the end of each run, counts
    the runs ``mark_runs`` yields after it (the engine counts those past its last listed
    run in one C pass)."""
    runs = list(_scan.mark_runs(text, limit))
    assert _scan.count_mark_runs(text, limit, 0) == len(runs)
    for k, (_, end) in enumerate(runs):
        assert _scan.count_mark_runs(text, limit, end) == len(runs) - k - 1
