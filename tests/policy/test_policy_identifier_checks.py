"""The identifier checks (UTS #39 in the IDENTIFIER profile) against a plain reference.

``sanitizer._policy._identifier`` finds problems with searches in C over classes built
from the UTS #39 and UCD ranges, counts what lies past ``max_findings`` without building
it, and caches the verdict of short combining sequences (linear at C speed).
The reference here is the direct reading of the spec, one character at a time, through
the public ``sanitizer._lookalike`` functions: both must find the same spots, in the same
order, with the same details.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
import unicodedata2
from hypothesis import given
from hypothesis import strategies as st

from sanitizer import profiles
from sanitizer._categories import MARKS, Category
from sanitizer._lookalike import (
    IdentifierStatus,
    RestrictionLevel,
    hidden_overlays,
    identifier_status,
    identifier_types,
    mixed_numbers,
    restriction_level,
)
from sanitizer._lookalike.overlay import DOT_LEAD_RANGES
from sanitizer._lookalike.status import ALLOWED_RANGES
from sanitizer._policy import Policy, inspect
from sanitizer._policy._identifier import (
    IdentifierChecks,
    Spot,
    _patterns,
    digit_ranges,
    mixed_script,
)

_C = Category
Row = tuple[Category, int, int, str, "int | None"]
_ALL = frozenset({_C.RESTRICTED, _C.MIXED_SCRIPT, _C.MIXED_NUMBERS, _C.HIDDEN_OVERLAY})


def _describe(ch: str) -> str:
    return f"U+{ord(ch):04X} {unicodedata2.name(ch, '<unnamed>')}"


def reference_restricted(text: str) -> list[Row]:
    return [
        (_C.RESTRICTED, i, i + 1, "Identifier_Type " + " ".join(
            sorted(t.value for t in identifier_types(ch))), ord(ch))
        for i, ch in enumerate(text)
        if identifier_status(ch) is IdentifierStatus.RESTRICTED
    ]  # fmt: skip


def reference_mixed_numbers(text: str) -> list[Row]:
    if not mixed_numbers(text):
        return []
    zeros = dict.fromkeys(
        chr(ord(ch) - unicodedata2.decimal(ch)) for ch in text if unicodedata2.category(ch) == "Nd"
    )
    names = [
        "ASCII" if z == "0" else unicodedata2.name(z).replace(" DIGIT ZERO", "").title()
        for z in zeros
    ]
    return [(_C.MIXED_NUMBERS, 0, len(text), f"mixed numbers: {' + '.join(names)} digits", None)]


def reference_sequence(sequence: str) -> str | None:
    """§5.4 on one combining character sequence, a character at a time."""
    why: list[str] = []
    hidden = hidden_overlays(sequence)
    if hidden:
        first = sequence[0]
        base = sequence[hidden[0] - 1] if unicodedata2.category(first)[0] == "M" else first
        why.append(f"U+0307 COMBINING DOT ABOVE hidden by {_describe(base)}")
    run = 0
    repeated: Counter[str] = Counter()
    for prev, ch in itertools.pairwise(" " + unicodedata2.normalize("NFD", sequence)):
        if unicodedata2.category(ch) in ("Mn", "Me"):
            run += 1
            repeated[ch] += ch == prev
        else:
            run = 0
        if run == 5:
            why.append("more than 4 nonspacing marks in a row")
    for ch in sequence:  # a repeat inside one character's NFD is its own
        for a, b in itertools.pairwise(unicodedata2.normalize("NFD", ch)):
            repeated[a] -= a == b
    why += [f"{_describe(ch)} twice in a row" for ch, n in repeated.items() if n > 0]
    return "; ".join(dict.fromkeys(why)) or None


def _is_mark(ch: str) -> bool:
    # the sequences' class: exact below U+10000, every supplementary character
    return ord(ch) > 0xFFFF or unicodedata2.category(ch)[0] == "M"


def reference_hidden_overlay(text: str) -> list[Row]:
    """Maximal [base] mark+ sequences, found a character at a time."""
    rows: list[Row] = []
    i = 0
    while i < len(text):
        start = i
        if not _is_mark(text[i]):
            i += 1
        end = i
        while end < len(text) and _is_mark(text[end]):
            end += 1
        if end == i:  # a base with no mark
            continue
        problem = reference_sequence(text[start:end])
        if problem is not None:
            rows.append((_C.HIDDEN_OVERLAY, start, end, problem, None))
        i = end
    return rows


def reference_rows(text: str, limit: RestrictionLevel) -> list[Row]:
    rows = reference_restricted(text)
    rows += [_row(s) for s in mixed_script(text, limit)]  # judged by scripts: same code
    return rows + reference_mixed_numbers(text) + reference_hidden_overlay(text)


def _row(spot: Spot) -> Row:
    return (spot.category, spot.start, spot.end, spot.detail, spot.codepoint)


_PIECES = ["a", "i", "I", "l", "1", "j", "x", "e", "\u0131", "\u0237", "\u0456", "\u0307",
           "\u0301", "\u0300", "\u0316", "\u0308", "\u093f", "\u0903", "\u20dd", "\u0130",
           "\u00e9", "\u01d8", "\u0430", "\u03bf", "\u09e8", "\u0663", "\u0660", "\uff11",
           "5", "李", "た", "민", "ㄅ", "अ", "\u01c3", "@", "\U0001f600", "\U0001d422",
           "\U00016121", "\U00016123", "\U000e0041", "\u200d", "-", "_", "\u1e9b\u0323",
           "\u0f73", "\u0f71\u0f72"]  # fmt: skip
texts = st.lists(st.sampled_from(_PIECES), max_size=16).map("".join) | st.text(max_size=12)
_LEVELS = list(RestrictionLevel)


@given(texts, st.sampled_from(_LEVELS))
def test_spots_are_the_reference_ones(text: str, limit: RestrictionLevel) -> None:
    checks = IdentifierChecks(_ALL, _ALL, limit)
    expected = reference_rows(text, limit)
    assert [_row(s) for s in checks.spots(text, False)] == expected
    assert checks.passes(text, False) is (not expected)
    assert all(s.more == 0 for s in checks.spots(text, False))


@given(texts, st.integers(1, 4))
def test_a_cap_builds_the_first_spots_and_counts_the_rest(text: str, cap: int) -> None:
    checks = IdentifierChecks(_ALL, _ALL, RestrictionLevel.HIGHLY_RESTRICTIVE)
    full = list(checks.spots(text, False))
    capped = list(checks.spots(text, False, cap))
    for category in _ALL:
        every = [s for s in full if s.category is category]
        built = [s for s in capped if s.category is category]
        assert [_row(s) for s in built] == [_row(s) for s in every[:cap]]
        assert sum(s.more for s in built) == len(every) - len(built)


@given(texts)
def test_checks_without_restricted_ignore_it(text: str) -> None:
    cats = _ALL - {_C.RESTRICTED}
    checks = IdentifierChecks(cats, cats, RestrictionLevel.UNRESTRICTED)
    expected = [r for r in reference_rows(text, RestrictionLevel.UNRESTRICTED)
                if r[0] is not _C.RESTRICTED]  # fmt: skip
    assert [_row(s) for s in checks.spots(text, True)] == expected
    assert checks.passes(text, True) is (not expected)


@given(texts)
def test_restricted_search_is_restriction_level(text: str) -> None:
    found = _patterns().restricted.search(text) is not None
    assert found is (restriction_level(text) is RestrictionLevel.UNRESTRICTED)


@given(st.lists(st.sampled_from(_PIECES), max_size=24).map("".join))
def test_hidden_dot_search_is_icus_rule(text: str) -> None:
    ends = [m.end() - 1 for m in _patterns().hidden.finditer(text)]
    assert tuple(ends) == hidden_overlays(text)


def test_tables_the_patterns_are_built_from() -> None:
    every = [chr(cp) for cp in range(0x110000)]
    digits = [ord(ch) for ch in every if unicodedata2.category(ch) == "Nd"]
    assert [cp for lo, hi in digit_ranges() for cp in range(lo, hi + 1)] == digits
    marks = {cp for lo, hi in MARKS for cp in range(lo, hi + 1)}
    assert marks == {ord(ch) for ch in every if unicodedata2.category(ch)[0] == "M"}
    assert all(ord(ch) in marks for ch in every if unicodedata2.combining(ch))
    leads = [cp for lo, hi in DOT_LEAD_RANGES for cp in range(lo, hi + 1)]
    assert all(unicodedata2.combining(chr(cp)) == 0 for cp in leads)
    assert ALLOWED_RANGES == tuple(sorted(ALLOWED_RANGES))


@pytest.mark.parametrize("text", ["\u00b2", "\u2019", "\u0316", "\u2010"])
def test_common_only_over_ascii_only_is_named_common(text: str) -> None:
    # Regression: no script to name raised IndexError from inspect.
    policy = profiles.IDENTIFIER.replace(max_restriction_level=RestrictionLevel.ASCII_ONLY)
    found = [f for f in inspect(text, policy).findings if f.category is _C.MIXED_SCRIPT]
    assert [f.detail for f in found] == ["script Common (single script, over ascii only)"]


@pytest.mark.parametrize(
    ("unit", "category"),
    [
        ("\u01c3", _C.RESTRICTED),
        ("i\u0307", _C.HIDDEN_OVERLAY),
        ("a\u0301\u0301", _C.HIDDEN_OVERLAY),
    ],
)
def test_report_counts_what_the_cap_leaves_out(unit: str, category: Category) -> None:
    policy: Policy = profiles.IDENTIFIER.replace(max_bytes=None, max_code_points=None)
    text = unit * 300
    every = inspect(text, policy.replace(max_findings=None))
    capped = inspect(text, policy.replace(max_findings=7))
    assert len(every.findings) == 300 and every.more_findings == 0
    assert capped.findings == every.findings[:7] and capped.more_findings == 293
    assert {f.category for f in every.findings} == {category}
