"""Lookups over the generated PRECIS data (``_precis_data``, Unicode 18): the derived property
of a code point (RFC 8264 §8), membership in the sets the rules read, and code point maps
applied in one call (C ``map_code_points`` when the extension is built, ``str.translate``
otherwise).  Range arithmetic lets the profiles derive their fast-path classes from these
facts instead of keeping copies.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Iterable

from .._categories import in_ranges
from .._code_point_map import CodePointMap
from .._code_point_map import mapper as code_point_mapper
from . import _precis_data as _d

Ranges = tuple[tuple[int, int], ...]

UNICODE_VERSION: str = _d.UNICODE_VERSION
DERIVED_KINDS: tuple[tuple[str, str], ...] = _d.DERIVED_KINDS
PVALID, FREE_PVAL, CONTEXTJ, CONTEXTO = "PVALID", "FREE_PVAL", "CONTEXTJ", "CONTEXTO"
DISALLOWED, UNASSIGNED = "DISALLOWED", "UNASSIGNED"
MAX_CP = 0x10FFFF


def derived_property(cp: int) -> tuple[str, str]:
    """(value, reason) of ``cp`` (0..0x10FFFF): RFC 8264 §8 with precis-i18n's names."""
    return _d.DERIVED_KINDS[_d.DERIVED_RUNS[bisect.bisect_right(_d.DERIVED_STARTS, cp) - 1]]


def derived_ranges(values: Iterable[str]) -> Ranges:
    """The code points whose derived property value is one of ``values``."""
    wanted = set(values)
    starts, runs, kinds = _d.DERIVED_STARTS, _d.DERIVED_RUNS, _d.DERIVED_KINDS
    ends = [*starts[1:], MAX_CP + 1]
    return merge(
        (lo, end - 1)
        for lo, end, run in zip(starts, ends, runs)  # noqa: B905 - ends: one per start
        if kinds[run][0] in wanted
    )


def merge(ranges: Iterable[tuple[int, int]]) -> Ranges:
    """Sorted, disjoint, non-adjacent ranges covering the same code points."""
    out: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((lo, hi) for lo, hi in out)


def ranges_of(cps: Iterable[int]) -> Ranges:
    return merge((cp, cp) for cp in cps)


def subtract(keep: Ranges, drop: Ranges) -> Ranges:
    """The code points of ``keep`` that are not in ``drop`` (both merged)."""
    out: list[tuple[int, int]] = []
    holes = iter(drop)
    hole = next(holes, None)
    for lo, hi in keep:
        while hole is not None and hole[1] < lo:
            hole = next(holes, None)
        while hole is not None and hole[0] <= hi:
            if hole[0] > lo:
                out.append((lo, hole[0] - 1))
            lo = hole[1] + 1
            if lo > hi:
                break
            hole = next(holes, None)
        if lo <= hi:
            out.append((lo, hi))
    return tuple(out)


# -- sets the rules read (RFC 5892 Appendix A, RFC 5893, Unicode §3.13) --------------------
# Bidi_Class groups of the Bidi Rule (RFC 5893 §2), and the right-to-left ones (§1.4)
BIDI_GROUPS: dict[str, Ranges] = {
    "L": _d.BIDI_L,
    "R_AL": _d.BIDI_R_AL,
    "AN": _d.BIDI_AN,
    "EN": _d.BIDI_EN,
    "NEUTRAL": _d.BIDI_NEUTRAL,
    "NSM": _d.BIDI_NSM,
}
RTL: Ranges = merge([*_d.BIDI_R_AL, *_d.BIDI_AN])
VIRAMA: Ranges = _d.VIRAMA
GREEK: Ranges = _d.GREEK
HEBREW: Ranges = _d.HEBREW
HIRAGANA_KATAKANA_HAN: Ranges = _d.HIRAGANA_KATAKANA_HAN
SPACES: Ranges = _d.SPACES
JOINING_DUAL: Ranges = _d.JOINING_DUAL
JOINING_RIGHT: Ranges = _d.JOINING_RIGHT
JOINING_LEFT: Ranges = _d.JOINING_LEFT
JOINING_TRANSPARENT: Ranges = _d.JOINING_TRANSPARENT
WIDTH: dict[int, str] = _d.WIDTH


def joining_type(cp: int) -> str:
    """Joining_Type of ``cp``: "D", "R", "L", "T", or "U" for the others."""
    for value, ranges in (
        ("D", JOINING_DUAL),
        ("R", JOINING_RIGHT),
        ("L", JOINING_LEFT),
        ("T", JOINING_TRANSPARENT),
    ):
        if in_ranges(cp, ranges):
            return value
    return "U"


def is_greek(cp: int) -> bool:
    return in_ranges(cp, GREEK)


def is_hebrew(cp: int) -> bool:
    return in_ranges(cp, HEBREW)


def is_hiragana_katakana_han(cp: int) -> bool:
    return in_ranges(cp, HIRAGANA_KATAKANA_HAN)


def is_cased(cp: int) -> bool:
    return in_ranges(cp, _d.CASED)


def is_case_ignorable(cp: int) -> bool:
    return in_ranges(cp, _d.CASE_IGNORABLE)


# -- code point maps -------------------------------------------------------------------------


@functools.cache
def lower_table() -> dict[int, str]:
    """Full Lowercase_Mapping where it is not the identity (U+03A3 -> U+03C3: Final_Sigma
    is the caller's, see ``_mapping.to_lower``)."""
    return CodePointMap.parse(_d.LOWER_SOURCES, _d.LOWER_LENGTHS, _d.LOWER_VALUES).table()


@functools.cache
def fold_table() -> dict[int, str]:
    """Full Case_Folding (C and F) where it is not the identity."""
    return CodePointMap.parse(_d.FOLD_SOURCES, _d.FOLD_LENGTHS, _d.FOLD_VALUES).table()


def mapper(table: dict[int, str]) -> Callable[[str], str]:
    """``s -> s`` with each code point of ``table`` replaced by its value, in one call
    (``sanitizer._code_point_map.mapper``: C when built, else ``str.translate``)."""
    return code_point_mapper(CodePointMap.of(table))
