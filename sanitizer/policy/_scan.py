"""Finding the characters a policy scans for, and runs of combining marks, in C loops.

Candidates are found in C: a bytes.translate decides Latin-1 input; otherwise one ``re``
search with a bitmap class covers the BMP and, only when the input has supplementary
characters, a byte-class pattern runs over its UTF-8 (chardata.utf8_pattern).  Clean
input never reaches Python code per character.  Each hit is classified with category_of
and, for the categories with sequence exemptions, by its neighbours (``_sequences``).
One compiled scanner per distinct set of scanned categories.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..chardata import (
    CHARACTER_CATEGORIES,
    MARKS,
    Category,
    category_of,
    char_class,
    in_ranges,
    quick_class,
    utf8_pattern,
)
from ._offsets import IndexOfByte
from ._sequences import EXEMPTIBLE, NEIGHBOUR_RULES, SequenceCache, in_sequence, lookarounds

_LEADS_4 = (b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")  # RFC 3629 §4: 4-byte leads
_NEIGHBOUR_CATEGORIES = frozenset(rule.category for rule in NEIGHBOUR_RULES)


@dataclass(frozen=True)
class Scanner:
    """The compiled search for one set of categories."""

    cats: frozenset[Category]
    bmp: re.Pattern[str] | None  # scanned characters below U+10000 (a bitmap class)
    astral: re.Pattern[bytes] | None  # scanned supplementary characters, over UTF-8
    latin1_allowed: bytes  # U+0000..00FF not scanned (bytes.translate fast path)


@functools.lru_cache(maxsize=64)
def scanner(cats: frozenset[Category], sequences: bool) -> Scanner:
    """The scanner for ``cats``; ``sequences``: BMP candidates inside well-formed
    sequences are dropped by lookarounds (``allow_sequences``)."""
    ranges = sorted(r for c in CHARACTER_CATEGORIES if c in cats for r in c.ranges)
    bmp = [(lo, min(hi, 0xFFFF)) for lo, hi in ranges if lo <= 0xFFFF]
    astral = [(max(lo, 0x10000), hi) for lo, hi in ranges if hi > 0xFFFF]
    low = {cp for lo, hi in bmp if lo <= 0xFF for cp in range(lo, min(hi, 0xFF) + 1)}
    exempt = lookarounds() if sequences and cats & _NEIGHBOUR_CATEGORIES else ""
    return Scanner(
        cats,
        re.compile(f"[{char_class(bmp)}]{exempt}") if bmp else None,
        re.compile(utf8_pattern(astral).encode("ascii")) if astral else None,
        bytes(b for b in range(0x100) if b not in low),
    )


def has_astral(utf8: bytes) -> bool:
    """Whether UTF-8 ``utf8`` holds a supplementary character (memchr-fast)."""
    return any(lead in utf8 for lead in _LEADS_4)


def fits_latin1(text: str) -> bool:
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


def hits(
    text: str, scan: Scanner, sequences: bool, utf8: bytes | None = None
) -> Iterator[tuple[Category, int]]:
    """(category, index) of every scanned character in ``text``; ``utf8`` is its UTF-8
    when the caller has it.  Candidates come from the two patterns; Python code runs only
    per candidate."""
    try:
        low = utf8 if utf8 is not None and utf8.isascii() else text.encode("latin-1")
    except UnicodeEncodeError:
        pass
    else:  # every character below U+0100: one translate decides (no marks, no sequences)
        if not low.translate(None, scan.latin1_allowed):
            return
        assert scan.bmp is not None
        for m in scan.bmp.finditer(text):
            cat = category_of(ord(m.group()))
            if cat is not None:
                yield cat, m.start()
        return
    found: list[int] = [m.start() for m in scan.bmp.finditer(text)] if scan.bmp else []
    if scan.astral is not None:
        data = utf8 if utf8 is not None else text.encode("utf-8", "surrogatepass")
        if has_astral(data):
            index = IndexOfByte(data)
            more = [index(m.start()) for m in scan.astral.finditer(data)]
            if more:
                found = sorted(found + more)
    cache = SequenceCache()
    for i in found:
        cat = category_of(ord(text[i]))
        if cat is None or cat not in scan.cats:  # pragma: no cover - classes are exact
            continue
        if sequences and cat in EXEMPTIBLE and in_sequence(text, i, cat, cache):
            continue
        yield cat, i


@functools.lru_cache(maxsize=16)
def _mark_run(limit: int, astral: bool) -> re.Pattern[str]:
    """Candidates for more than ``limit`` combining marks in a row (see quick_class; BMP
    marks only when the text has no supplementary characters).  The leading single class
    lets ``re`` skip other characters in its C search loop; the lookbehind tries each
    run of candidates from its start only (else a run of ``limit`` marks is retried at
    each of its characters: ``limit`` times the work)."""
    bmp = [(lo, min(hi, 0xFFFF)) for lo, hi in MARKS if lo <= 0xFFFF]
    mark = f"[{quick_class(MARKS) if astral else char_class(bmp)}]"
    return re.compile(f"{mark}(?<!{mark}{mark}){mark}{{{limit},}}")


def mark_runs(text: str, limit: int, astral: bool = True) -> Iterator[tuple[int, int]]:
    """(start, end) of every run of more than ``limit`` combining marks (UAX #15 §13)."""
    for m in _mark_run(limit, astral).finditer(text):
        start = None
        for i in range(m.start(), m.end() + 1):
            is_mark = i < m.end() and in_ranges(ord(text[i]), MARKS)
            if is_mark and start is None:
                start = i
            elif not is_mark and start is not None:
                if i - start > limit:
                    yield start, i
                start = None
