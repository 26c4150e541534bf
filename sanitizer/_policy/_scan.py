"""Finding the characters a policy scans for, and runs of combining marks, in C loops.

Candidates are found in C.  With the C extension, its class-table scan
(``_speedups.scan``, the policy fast path's loop) stops at each one, from tables that flag
exactly the scanned categories (and apply the neighbour rules of ``_sequences``): no regex
is compiled, which a command such as ``sanitizer check`` would pay for at every start.
Without it, a bytes.translate decides Latin-1 input; otherwise one ``re`` search with a
bitmap class covers the BMP and, only when the input has supplementary
characters, a byte-class pattern runs over its UTF-8 (_categories.utf8_pattern).  The
patterns are compiled on first use.  Clean input never reaches Python code per
character.  Each hit is classified with category_of and, for the categories with
sequence exemptions, by its neighbours (``_sequences``).  One scanner per distinct set
of scanned categories.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .._categories import (
    CHARACTER_CATEGORIES,
    MARKS,
    Category,
    category_of,
    char_class,
    in_ranges,
    quick_class,
    utf8_pattern,
)
from .._native import speedups
from . import _classtable as ct
from ._offsets import IndexOfByte
from ._reveal import CARRIER_CATEGORIES
from ._sequences import (
    EXEMPTIBLE,
    NEIGHBOUR_RULES,
    SequenceCache,
    _without,
    c_rule_id,
    c_rule_tables,
    in_sequence,
    lookarounds,
    merge_ranges,
)

_LEADS_4 = (b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")  # RFC 3629 §4: 4-byte leads
_str_kind = None if speedups is None else speedups.str_kind
_NEIGHBOUR_CATEGORIES = frozenset(rule.category for rule in NEIGHBOUR_RULES)


@dataclass(frozen=True)
class Scanner:
    """The search for one set of categories; its patterns are compiled on first use."""

    cats: frozenset[Category]
    sequences: bool  # BMP candidates inside well-formed sequences are dropped
    latin1_allowed: bytes  # U+0000..00FF not scanned (bytes.translate fast path)
    # The C scan's arguments after ``text`` and before ``start`` (None without the C
    # extension): class tables flagging exactly ``cats``, mark runs not counted.
    c_args: tuple[bytes, bytes, bytes, int] | None

    @functools.cached_property
    def bmp(self) -> re.Pattern[str] | None:
        """Scanned characters below U+10000 (a bitmap class)."""
        bmp = [(lo, min(hi, 0xFFFF)) for lo, hi in self._ranges() if lo <= 0xFFFF]
        exempt = lookarounds() if self.sequences and self.cats & _NEIGHBOUR_CATEGORIES else ""
        return re.compile(f"[{char_class(bmp)}]{exempt}") if bmp else None

    @functools.cached_property
    def astral(self) -> re.Pattern[bytes] | None:
        """Scanned supplementary characters, over UTF-8."""
        astral = [(max(lo, 0x10000), hi) for lo, hi in self._ranges() if hi > 0xFFFF]
        return re.compile(utf8_pattern(astral).encode("ascii")) if astral else None

    def _ranges(self) -> list[tuple[int, int]]:
        return sorted(r for c in CHARACTER_CATEGORIES if c in self.cats for r in c.ranges)


@functools.lru_cache(maxsize=64)
def scanner(cats: frozenset[Category], sequences: bool) -> Scanner:
    """The scanner for ``cats``; ``sequences``: BMP candidates inside well-formed
    sequences are dropped by lookarounds (``allow_sequences``)."""
    ranges = sorted(r for c in CHARACTER_CATEGORIES if c in cats for r in c.ranges)
    low = {cp for lo, hi in ranges if lo <= 0xFF for cp in range(lo, min(hi, 0xFF) + 1)}
    return Scanner(
        cats,
        sequences,
        bytes(b for b in range(0x100) if b not in low),
        _c_scan_args(cats, sequences) if speedups is not None else None,
    )


def _c_scan_args(cats: frozenset[Category], sequences: bool) -> tuple[bytes, bytes, bytes, int]:
    """``_speedups.scan``'s tables (layout at ``_classtable.RULES_OFFSET``) flagging the
    classes of ``cats``, each with its neighbour rule when ``sequences``: the scan stops
    exactly where the patterns would match (both follow ``_sequences``'s rules)."""
    table = ct.class_table()
    flags = bytearray(256)
    rule = bytearray(256)
    for c, (cat, fl) in enumerate(table.info):
        if cat is not None and cat in cats:
            flags[c] = 1
            if sequences:
                rule[c] = c_rule_id(cat, fl)
    prefilter = ct.prefilter([b for b in range(0x7F) if flags[table.class_of(b)]])
    tables = bytes(flags + rule + prefilter) + c_rule_tables(table.info)
    return (table.stage1, table.stage2, tables, -1)


def has_astral(utf8: bytes) -> bool:
    """Whether UTF-8 ``utf8`` holds a supplementary character (memchr-fast)."""
    return any(lead in utf8 for lead in _LEADS_4)


def fits_latin1(text: str) -> bool:
    """Whether every character of ``text`` is below U+0100: the str's kind in C (O(1)),
    else whether it encodes to Latin-1."""
    if _str_kind is not None:
        return _str_kind(text) == 1
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


def hits(
    text: str,
    scan: Scanner,
    sequences: bool,
    utf8: bytes | None = None,
    contexts: bool = False,
) -> Iterator[tuple[Category, int]]:
    """(category, index) of every scanned character in ``text``; ``utf8`` is its UTF-8
    when the caller has it; ``contexts``: a joiner where RFC 5892 A.1/A.2 allows it is no
    finding (``Policy.joiner_contexts``).  Candidates come from the C scan or the two
    patterns; Python code runs only per candidate."""
    if contexts and Category.JOINER in scan.cats:
        yield from _out_of_context(text, hits(text, scan, sequences, utf8))
        return
    if scan.c_args is not None:
        yield from _c_hits(text, scan, sequences)
        return
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


def _out_of_context(
    text: str, found: Iterator[tuple[Category, int]]
) -> Iterator[tuple[Category, int]]:
    """``found`` without the joiners that stand where a script needs them (RFC 5892
    Appendix A.1/A.2, UAX #31 §2.3: ``precis.contextj_allows``)."""
    from ..precis import contextj_allows  # (the PRECIS tables load only when asked)

    for cat, i in found:
        if cat is not Category.JOINER or not contextj_allows(text, i):
            yield cat, i


def _c_hits(text: str, scan: Scanner, sequences: bool) -> Iterator[tuple[Category, int]]:
    """``hits`` through the C scan: it skips what the tables do not flag (and BMP or
    supplementary characters that a neighbour rule exempts), then each stop is judged as
    the patterns' matches are."""
    assert speedups is not None and scan.c_args is not None
    c_scan = speedups.scan
    stage1, stage2, tables, no_runs = scan.c_args
    n = len(text)
    i = c_scan(text, stage1, stage2, tables, no_runs, 0)
    cache = SequenceCache()
    while i < n:
        cat = category_of(ord(text[i]))
        if cat is not None and cat in scan.cats:
            if not (sequences and cat in EXEMPTIBLE and in_sequence(text, i, cat, cache)):
                yield cat, i
        i = c_scan(text, stage1, stage2, tables, no_runs, i + 1)


def counted_mark(cat: Category | None, flags: frozenset[str]) -> bool:
    """Whether a class of the class table counts toward a combining run: a mark (General
    Category M) that is no carrier of hidden payloads.  Variation selectors, U+17B4/17B5
    and U+034F COMBINING GRAPHEME JOINER are marks of canonical combining class 0 (starters,
    UAX #15 §13, which inserts U+034F to end a run); a run of them is a carrier run,
    reported once as such (``_carrier_runs``), never a second time as a combining run."""
    return ct.MARK in flags and cat not in CARRIER_CATEGORIES


# The marks counted in a combining run (``counted_mark``), as ranges.
COUNTED_MARKS = _without(MARKS, merge_ranges(*(c.ranges for c in CARRIER_CATEGORIES if c.ranges)))


@functools.lru_cache(maxsize=16)
def _mark_run(limit: int, astral: bool) -> re.Pattern[str]:
    """Candidates for more than ``limit`` combining marks in a row (see quick_class; BMP
    marks only when the text has no supplementary characters).  The leading single class
    lets ``re`` skip other characters in its C search loop; the lookbehind tries each
    run of candidates from its start only (else a run of ``limit`` marks is retried at
    each of its characters: ``limit`` times the work)."""
    bmp = [(lo, min(hi, 0xFFFF)) for lo, hi in COUNTED_MARKS if lo <= 0xFFFF]
    mark = f"[{quick_class(COUNTED_MARKS) if astral else char_class(bmp)}]"
    return re.compile(f"{mark}(?<!{mark}{mark}){mark}{{{limit},}}")


@functools.cache
def _marks() -> re.Pattern[str]:
    """Counted marks (``COUNTED_MARKS``), any number of them."""
    return re.compile(f"[{char_class(COUNTED_MARKS)}]*")


@functools.lru_cache(maxsize=1)
def _c_mark_tables() -> tuple[bytes, bytes, bytes]:
    """``_speedups.scan``'s tables flagging only counted marks (``counted_mark``) for run
    counting: nothing else stops the scan."""
    table = ct.class_table()
    flags = bytes(2 if counted_mark(cat, fl) else 0 for cat, fl in table.info).ljust(256, b"\0")
    return table.stage1, table.stage2, flags + bytes(256) + ct.prefilter([])


def count_mark_runs(text: str, limit: int, start: int) -> int | None:
    """How many runs ``mark_runs`` yields from ``start`` on (a place it goes on from: the
    text's start or the end of a run), counted in one C pass; None without the C
    extension (the caller counts what ``mark_runs`` yields)."""
    if speedups is None or limit < 0:
        return None
    return speedups.count_mark_runs(text, *_c_mark_tables(), limit, start)


def mark_runs(text: str, limit: int, astral: bool = True) -> Iterator[tuple[int, int]]:
    """(start, end) of every run of more than ``limit`` combining marks (UAX #15 §13).
    With the C extension its scan counts the runs (it stops at a run's ``limit + 1``-th
    mark); else a pattern finds candidates."""
    if speedups is not None and limit >= 0:
        c_scan = speedups.scan
        stage1, stage2, tables = _c_mark_tables()
        n = len(text)
        i = c_scan(text, stage1, stage2, tables, limit, 0)
        while i < n:
            run = _marks().match(text, i + 1)  # its end: by ``re`` in C, not a mark a step
            assert run is not None  # (any number of marks: it always matches)
            end = run.end()
            yield i - limit, end
            i = c_scan(text, stage1, stage2, tables, limit, end)
        return
    for m in _mark_run(limit, astral).finditer(text):
        start = None
        for i in range(m.start(), m.end() + 1):
            is_mark = i < m.end() and in_ranges(ord(text[i]), COUNTED_MARKS)
            if is_mark and start is None:
                start = i
            elif not is_mark and start is not None:
                if i - start > limit:
                    yield start, i
                start = None
