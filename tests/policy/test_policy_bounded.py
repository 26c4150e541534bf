"""Bounded memory: ``Policy.max_findings`` caps the findings a report lists
(ill-formed bytes included: no object per unlisted error), and the cap changes nothing
else.  A capped report's ``ok`` and ``text`` are the uncapped report's, its findings are
a prefix of the uncapped ones (input order), and listed + ``more_findings`` is the total.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer import find_errors, profiles
from sanitizer._policy import Action, Category, Finding, Policy, inspect, sanitize
from tests.support.settings import examples

# Bytes that make ill-formed subparts (leads cut short, lone continuations, overlongs,
# surrogates, FF), a literal U+FFFD, and characters policies act on (NUL, controls,
# marks, joiners, selectors, astral emoji, full-width solidus).
PIECES = [
    b"a", b" ", b"\x00", b"\x07", b"\xff", b"\x80", b"\xbf", b"\xbd", b"\xc0\xae",
    b"\xc2", b"\xe0\x80", b"\xed\xa0\x80", b"\xef", b"\xef\xbf", b"\xef\xbf\xbd",
    b"\xf0\x9f", b"\xf4\x90\x80\x80", b"\xf8\x88\x80\x80\x80", b"\xcc\x81", b"\xe2\x80\x8d",
    b"\xef\xb8\x8f", b"\xf0\x9f\x98\x80", b"\xef\xbc\x8f", b"\xc3\xa9", b"\xe2\x80\xae",
]  # fmt: skip
inputs = st.lists(st.sampled_from(PIECES), max_size=30).map(b"".join)
raw_bytes = st.one_of(st.binary(max_size=40), inputs)

POLICIES: list[Policy] = [
    *profiles.PROFILES.values(),
    profiles.TEXT.with_actions(ILL_FORMED=Action.REPLACE),
    profiles.TEXT.with_actions(ILL_FORMED=Action.REPLACE, CONTROL=Action.STRIP),
    profiles.TEXT.with_actions(ILL_FORMED=Action.REPLACE, NUL=Action.REPLACE),
    profiles.TEXT.replace(max_combining=1),
    profiles.TEXT.replace(allow_sequences=False),
]


@settings(deadline=None)
@given(raw_bytes, st.sampled_from(POLICIES), st.integers(0, 5), st.booleans())
def test_cap_lists_a_prefix_and_counts_the_rest(
    raw: bytes, policy: Policy, cap: int, as_text: bool
) -> None:
    data: bytes | str = raw.decode("utf-8", "replace") if as_text else raw
    full = inspect(data, policy.replace(max_findings=None))
    capped = inspect(data, policy.replace(max_findings=cap))
    assert full.more_findings == 0
    assert (capped.ok, capped.text) == (full.ok, full.text)
    assert same(capped.findings, full.findings[:cap])
    assert len(capped.findings) + capped.more_findings == len(full.findings)
    assert sanitize_or_none(data, policy.replace(max_findings=cap)) == full.text


def same(a: tuple[Finding, ...], b: tuple[Finding, ...]) -> bool:
    """Findings equal but for the identity of their Utf8Error (exceptions compare by id)."""
    return [f.as_dict() for f in a] == [f.as_dict() for f in b]


def sanitize_or_none(data: bytes | str, policy: Policy) -> str | None:
    try:
        return sanitize(data, policy)
    except ValueError:
        return None


@settings(max_examples=examples(500), deadline=None)
@given(raw_bytes)
def test_replacement_characters_count_the_subparts(data: bytes) -> None:
    """A literal EF BF BD is never part of a maximal subpart (RFC 3629 §4, Unicode §3.9),
    so the U+FFFDs that replacing adds are exactly the subparts."""
    replaced = data.decode("utf-8", "replace")
    added = replaced.count("\ufffd") - data.count(b"\xef\xbf\xbd")
    assert added == len(find_errors(data))


@pytest.mark.parametrize("offending", [b"\xff", b"\x00"])
def test_a_megabyte_of_offending_input_lists_the_cap(offending: bytes) -> None:
    n = 1 << 20
    report = inspect(offending * n)
    assert not report.ok
    assert len(report.findings) == 1000
    assert report.more_findings == n - 1000
    cat = Category.ILL_FORMED if offending == b"\xff" else Category.NUL
    assert report.findings[-1].category is cat and report.findings[-1].start == 999


def test_findings_past_the_listed_errors_are_counted() -> None:
    """Character findings after the cap-th error are counted, never placed."""
    data = b"\xff\xff\x00\xff\x00\x00"
    report = inspect(data, profiles.TEXT.replace(max_findings=2))
    assert [(f.category, f.start) for f in report.findings] == [
        (Category.ILL_FORMED, 0),
        (Category.ILL_FORMED, 1),
    ]
    assert report.more_findings == 4


@settings(max_examples=examples(300), deadline=None)
@given(raw_bytes, st.sampled_from(POLICIES), st.integers(0, 5), st.booleans())
def test_cap_counts_the_allowed_findings_it_does_not_list(
    raw: bytes, policy: Policy, cap: int, as_text: bool
) -> None:
    """``more_allowed``: of the unlisted findings, those whose action is ALLOW, exactly as
    the uncapped report lists them (what ``sanitizer check`` needs to count failures)."""
    data: bytes | str = raw.decode("utf-8", "replace") if as_text else raw
    full = inspect(data, policy.replace(max_findings=None))
    capped = inspect(data, policy.replace(max_findings=cap))
    unlisted = full.findings[len(capped.findings) :]
    assert capped.more_allowed == sum(f.action is Action.ALLOW for f in unlisted)
    assert full.more_allowed == 0


@pytest.mark.parametrize(
    "text",
    ["\x00" + "\u200da" * 5000, "\x00" + "\u200e\x00" * 3000, "\x00" + "\x07\xad\x85\x01" * 4000],
)
def test_counting_fast_path_tells_allowed_from_refused(text: str) -> None:
    """The fast counting past the cap (a refused input, Latin-1 or not) still tells the
    allowed findings apart."""
    policy = profiles.TEXT.with_actions(CONTROL=Action.ALLOW)  # joiners, LRM allowed too
    for data in (text, text.encode()):
        full = inspect(data, policy.replace(max_findings=None))
        capped = inspect(data, policy.replace(max_findings=10))
        unlisted = full.findings[10:]
        assert capped.more_findings == len(unlisted)
        assert capped.more_allowed == sum(f.action is Action.ALLOW for f in unlisted) > 0
