"""The generated UTS #39 tables, as the lookups the other modules need.

``_tables_data`` (scripts, identifier status, ASCII fast paths) is imported with the package;
``_skeletons_data`` (the skeleton map) and ``_confusables_data`` (the identifier-key map and
Identifier_Type) only when a function first needs them, the way idna loads its big tables.
Every loader is cached, so the work happens once per process; a race only does it twice.

The code point maps come as three parallel strings (``CodePointMap``), which the C
extension reads as they are (``_speedups.map_code_points``, and ``skeleton_tables`` with
NFD's decomposition and combining-class maps, through sanitizer._native) and the
pure-Python path turns into a ``str.translate`` table; both give the same result.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable

from .._code_point_map import CodePointMap, mapper
from .._native import speedups
from . import _tables_data

Ranges = tuple[tuple[int, int], ...]

UTS39_VERSION: str = _tables_data.UTS39_VERSION
ASCII_SKELETON: dict[int, str] = _tables_data.ASCII_SKELETON
ASCII_KEY: dict[int, str] = _tables_data.ASCII_KEY
SCRIPT_SETS: tuple[frozenset[str], ...] = tuple(
    frozenset(value.split()) for value in _tables_data.SCRIPT_VALUES
)


def ascii_mapper(table: dict[int, str]) -> Callable[[str], str]:
    """A fast ``s.translate(table)`` for ASCII ``s``: the C map when the extension is
    built; else bytes.translate for the characters that map to one ASCII character, then
    str.replace for the few that map to more (or to non-ASCII); the generator checks no
    replacement contains another's source."""
    if speedups is not None:
        return mapper(CodePointMap.of(table))
    single = bytearray(range(256))
    longer: dict[str, str] = {}  # value -> the one source standing for all its sources
    for cp, value in sorted(table.items()):
        if len(value) == 1 and value.isascii():
            single[cp] = ord(value)
        else:
            single[cp] = ord(longer.setdefault(value, chr(cp)))
    bytes_table = bytes(single)
    replacements = tuple((source, value) for value, source in longer.items())

    def translate(s: str) -> str:
        out = s.encode().translate(bytes_table).decode()
        for source, value in replacements:
            if source in out:
                out = out.replace(source, value)
        return out

    return translate


def script_set_index(cp: int) -> int:
    """The index in SCRIPT_SETS of the Script_Extensions of ``cp`` (UAX #24)."""
    return _tables_data.SCRIPT_RUNS[bisect.bisect_right(_tables_data.SCRIPT_STARTS, cp) - 1]


def in_ranges(cp: int, ranges: Ranges) -> bool:
    i = bisect.bisect_right(ranges, (cp, 0x10FFFF)) - 1
    return i >= 0 and ranges[i][0] <= cp <= ranges[i][1]


def is_allowed(cp: int) -> bool:
    """Identifier_Status=Allowed (UTS #39 §3.1)."""
    return in_ranges(cp, _tables_data.ALLOWED)


def is_dot_lead(cp: int) -> bool:
    """Whether a following U+0307 is hidden by ``cp`` (ICU's USPOOF_HIDDEN_OVERLAY)."""
    return in_ranges(cp, _tables_data.DOT_LEADS)


def _class(ranges: Ranges) -> str:
    return "".join(
        re.escape(chr(lo)) if lo == hi else f"{re.escape(chr(lo))}-{re.escape(chr(hi))}"
        for lo, hi in ranges
    )


@functools.cache
def restricted_search() -> re.Pattern[str]:
    """A pattern matching any Identifier_Status=Restricted character."""
    return re.compile(f"[^{_class(_tables_data.ALLOWED)}]")


@functools.cache
def skeleton_map() -> CodePointMap:
    """The skeleton map: Default_Ignorable_Code_Point -> "" (UTS #39 §4 step 2), every
    other source of confusables.txt -> its prototype (step 3)."""
    from . import _skeletons_data as s

    return CodePointMap.parse(s.SKELETON_SOURCES, s.SKELETON_LENGTHS, s.SKELETON_VALUES)


@functools.cache
def skeleton_mapper() -> Callable[[str], str]:
    """Steps 2 and 3 of the skeleton on NFD text (see ``mapper``)."""
    return mapper(skeleton_map())


@functools.cache
def decomposition_map() -> CodePointMap:
    """NFD's full canonical decompositions (Hangul syllables aside: arithmetic) for the C
    skeleton, from the unicodedata2 version ``normalization_version()`` names."""
    from . import _skeletons_data as s

    return CodePointMap.parse(
        s.DECOMPOSITION_SOURCES, s.DECOMPOSITION_LENGTHS, s.DECOMPOSITION_VALUES
    )


@functools.cache
def combining_map() -> CodePointMap:
    """Each non-zero Canonical_Combining_Class, as a one-character value (see above)."""
    from . import _skeletons_data as s

    return CodePointMap.parse(s.COMBINING_SOURCES, s.COMBINING_LENGTHS, s.COMBINING_VALUES)


def normalization_version() -> str:
    """The Unicode version of the decomposition tables (that of unicodedata2 at generation)."""
    from . import _skeletons_data

    return _skeletons_data.UNICODE_VERSION


@functools.cache
def key_map() -> CodePointMap:
    """identifier_key's per-character map N over NFKD-stable code points (see key.py)."""
    from . import _confusables_data as c

    return CodePointMap.parse(c.KEY_SOURCES, c.KEY_LENGTHS, c.KEY_VALUES)


@functools.cache
def key_mapper() -> Callable[[str], str]:
    """N applied to each character of NFKD text (see ``mapper``)."""
    return mapper(key_map())


def identifier_type_names(cp: int) -> tuple[str, ...]:
    """The Identifier_Type values of ``cp`` as spelled in IdentifierType.txt."""
    from . import _confusables_data

    i = bisect.bisect_right(_confusables_data.TYPE_STARTS, cp) - 1
    return tuple(_confusables_data.TYPE_VALUES[_confusables_data.TYPE_RUNS[i]].split())
