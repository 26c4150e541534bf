"""Generate ``sanitizer/_native_src/normalize_data.h``: the tables of the C NFC and NFKC.

Why generated: ``unicodedata.normalize`` composes by a linear search of its composition
ranges and decomposes the whole text first, tens of nanoseconds a character on text that
must change (Vietnamese in NFD, mark floods), against the clean path's one or two.  The C
normalizer (normalize.c) copies every stretch between two stable code points unchanged
and decomposes, orders and composes only the segments between them (UAX #15 §9, §14),
with these tables, all derived from unicodedata2 (the package's Unicode data) and
checked here before they are written:

* per code point (a two-stage table): Canonical_Combining_Class, whether it is a
  boundary for NFC and for NFKC (Quick_Check Yes, held equal to
  ``NFC_QC_NOT_YES``/``NFKC_QC_NOT_YES`` of ``_chartables_data``, and its decomposition
  begins with a starter that composes with nothing before it: ICU's "boundary before";
  Quick_Check Yes and ccc 0 alone is not enough since Unicode 16, see ``_starts``), and
  its full canonical and compatibility decompositions (Hangul syllables aside: Unicode
  §3.12 decomposes them arithmetically);
* its Quick_Check: Yes for NFC, for NFKC (UAX #15 §9: text whose code points are all
  Yes, the non-starters of each run in canonical order, is in that form already);
* whether it is a mark a combining run counts (``COUNTED_MARKS`` of the policy layer:
  General Category M, carriers of hidden payloads aside), so that the pass that
  normalizes can count the runs (UAX #15 §13) where it reads the records anyway;
* the primary composites: the pairs whose composition NFC makes (canonical
  decompositions of two code points, Full_Composition_Exclusion left out), in a table
  of a row per first code point and a column per second one (the records give both).

Run through the one entry point: ``python tools/generate.py normalize``;
``tests/core/test_normalize.py`` compares the C normalizer with unicodedata2 over every code
point and over sequences of marks.
"""

from __future__ import annotations

from pathlib import Path

import unicodedata2

from sanitizer import _chartables_data as data
from sanitizer._policy._scan import COUNTED_MARKS

TARGET = Path("sanitizer/_native_src/normalize_data.h")
BLOCK = 128  # code points a stage-2 block
HANGUL = range(0xAC00, 0xAC00 + 11172)
NFC_BOUNDARY, NFKC_BOUNDARY, COUNTED_MARK, NFC_YES, NFKC_YES = 1, 2, 4, 8, 16


def _in(ranges: tuple[tuple[int, int], ...]) -> set[int]:
    return {cp for lo, hi in ranges for cp in range(lo, hi + 1)}


def _scalar(cp: int) -> bool:
    return not 0xD800 <= cp <= 0xDFFF


def pairs() -> dict[tuple[int, int], int]:
    """(first, second) -> primary composite: two-code-point canonical decompositions that
    NFC leaves composed (not Full_Composition_Exclusion), Hangul aside."""
    out: dict[tuple[int, int], int] = {}
    for cp in range(0x110000):
        if cp in HANGUL or not _scalar(cp):
            continue
        d = unicodedata2.decomposition(chr(cp))
        if not d or d.startswith("<"):
            continue
        parts = [int(x, 16) for x in d.split()]
        if len(parts) == 2 and unicodedata2.normalize("NFC", chr(cp)) == chr(cp):
            out[parts[0], parts[1]] = cp
    return out


Record = tuple[int, int, int, int, int, int, int, int]


def composition_axes() -> tuple[dict[int, int], dict[int, int]]:
    """The rows (first code points) and columns (second ones) of the composition table,
    from 1."""
    comp = pairs()
    firsts = {a: i for i, a in enumerate(sorted({a for a, _ in comp}), 1)}
    seconds = {b: i for i, b in enumerate(sorted({b for _, b in comp}), 1)}
    return firsts, seconds


def _starts(decomposed: str, seconds: set[int]) -> bool:
    """Whether a code point whose full decomposition is ``decomposed`` starts a segment:
    that decomposition begins with a starter that composes with nothing before it.  A
    Quick_Check Yes code point of ccc 0 can fail this: since Unicode 16, U+16123 GURUNG
    KHEMA VOWEL SIGN E decomposes to U+1611E U+1611F, and U+1611E composes after U+1611E
    (U+16121), so U+1611E U+16123 is U+16126 in NFC."""
    first = decomposed[0]
    return unicodedata2.combining(first) == 0 and ord(first) not in seconds


def records() -> tuple[list[int], list[Record], list[int]]:
    """The per-code-point record index, the records (ccc, flags, canonical offset and
    length, compatibility offset and length, its row as the first of a pair and its column
    as the second, 0: none) and the decompositions' code points."""
    firsts, seconds_at = composition_axes()
    # the second of a pair, or a Hangul vowel or trailing consonant (Unicode §3.12)
    seconds = {b for _, b in pairs()} | set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))
    nfc_not_yes, nfkc_not_yes = _in(data.NFC_QC_NOT_YES), _in(data.NFKC_QC_NOT_YES)
    counted = _in(COUNTED_MARKS)
    assert min(counted) >= 0x300  # above both lowest unstable code points (see normalize.c)
    ccc_nonzero = _in(data.CCC_NONZERO)
    pool: list[int] = []
    where: dict[str, int] = {}

    def put(s: str) -> tuple[int, int]:
        if s not in where:
            where[s] = len(pool)
            pool.extend(map(ord, s))
        return where[s], len(s)

    table: list[int] = []
    recs: list[Record] = []
    index: dict[Record, int] = {}
    for cp in range(0x110000):
        ch = chr(cp)
        ccc = unicodedata2.combining(ch) if _scalar(cp) else 0
        assert (ccc != 0) == (cp in ccc_nonzero), hex(cp)
        flags = 0
        canon = compat = (0, 0)
        if _scalar(cp):
            nfc_yes = unicodedata2.normalize("NFC", ch) == ch and cp not in seconds
            nfkc_yes = unicodedata2.normalize("NFKC", ch) == ch and cp not in seconds
            assert nfc_yes == (cp not in nfc_not_yes), hex(cp)  # UAX #15 §9
            assert nfkc_yes == (cp not in nfkc_not_yes), hex(cp)
            nfd, nfkd = unicodedata2.normalize("NFD", ch), unicodedata2.normalize("NFKD", ch)
            flags = (
                (NFC_BOUNDARY if nfc_yes and _starts(nfd, seconds) else 0)
                | (NFKC_BOUNDARY if nfkc_yes and _starts(nfkd, seconds) else 0)
                | (COUNTED_MARK if cp in counted else 0)
                | (NFC_YES if nfc_yes else 0)
                | (NFKC_YES if nfkc_yes else 0)
            )
            if cp not in HANGUL:
                canon = put(nfd) if nfd != ch else (0, 0)
                compat = put(nfkd) if nfkd != ch else (0, 0)
        rec = (ccc, flags, *canon, *compat, firsts.get(cp, 0), seconds_at.get(cp, 0))
        table.append(index.setdefault(rec, len(index)))
        if len(index) > len(recs):
            recs.append(rec)
    return table, recs, pool


def lowest(table: list[int], recs: list[Record], flag: int) -> int:
    """The lowest code point whose record lacks ``flag``."""
    return next(cp for cp, k in enumerate(table) if not recs[k][1] & flag)


def _rows(values: list[int], per: int, fmt: str) -> str:
    lines = []
    for i in range(0, len(values), per):
        lines.append("    " + ", ".join(fmt.format(v) for v in values[i : i + per]) + ",")
    return "\n".join(lines)


def render() -> str:
    table, recs, pool = records()
    blocks: dict[tuple[int, ...], int] = {}
    stage1: list[int] = []
    stage2: list[int] = []
    for start in range(0, 0x110000, BLOCK):
        block = tuple(table[start : start + BLOCK])
        if block not in blocks:
            blocks[block] = len(blocks)
            stage2.extend(block)
        stage1.append(blocks[block])
    assert len(recs) < 1 << 16 and len(blocks) < 1 << 16 and len(pool) < 1 << 16
    assert max(max(r[3], r[5], r[7]) for r in recs) < 256
    firsts, seconds = composition_axes()
    width = len(seconds) + 1
    grid = [0] * ((len(firsts) + 1) * width)
    for (a, b), c in pairs().items():
        grid[firsts[a] * width + seconds[b]] = c | firsts.get(c, 0) << 21
    assert len(firsts) < 1 << 11
    rec_rows = "\n".join("    {" + ", ".join(map(str, rec)) + "}," for rec in recs)
    return f"""\
/*
 * GENERATED by tools/gen_normalize.py from unicodedata2 {unicodedata2.unidata_version}:
 * do not edit; run `python tools/generate.py normalize`.
 * Unicode {unicodedata2.unidata_version}.
 *
 * The tables of the C NFC and NFKC (normalize.c): a record per code point (two stages of
 * {BLOCK}), the decompositions' code points and the primary composites by pair.
 */
#ifndef SANITIZER_NORMALIZE_DATA_H
#define SANITIZER_NORMALIZE_DATA_H

#include <stdint.h>

#define NORM_UNICODE_VERSION "{unicodedata2.unidata_version}"
#define NORM_BLOCK {BLOCK}
#define NORM_NFC_BOUNDARY {NFC_BOUNDARY}
#define NORM_NFKC_BOUNDARY {NFKC_BOUNDARY}
#define NORM_COUNTED_MARK {COUNTED_MARK} /* a mark a combining run counts */
#define NORM_NFC_YES {NFC_YES} /* NFC_Quick_Check=Yes */
#define NORM_NFKC_YES {NFKC_YES} /* NFKC_Quick_Check=Yes */
/* the lowest code point that is no boundary, for NFC and NFKC */
#define NORM_NFC_LOWEST_UNSTABLE 0x{lowest(table, recs, NFC_BOUNDARY):04X}
#define NORM_NFKC_LOWEST_UNSTABLE 0x{lowest(table, recs, NFKC_BOUNDARY):04X}
#define NORM_MAX_DECOMPOSITION {max(r[5] for r in recs)}

typedef struct {{
    uint8_t ccc;
    uint8_t flags;        /* NORM_*_BOUNDARY: a segment starts here (see the generator);
                           * NORM_COUNTED_MARK, NORM_*_YES */
    uint16_t canon;       /* full canonical decomposition: norm_pool[canon..+canon_len] */
    uint8_t canon_len;    /* 0: none */
    uint16_t compat;      /* full compatibility decomposition */
    uint8_t compat_len;
    uint16_t first;       /* its row in norm_compose as a pair's first, 0: none */
    uint8_t second;       /* its column as a pair's second, 0: none */
}} norm_record;

static const uint16_t norm_stage1[{len(stage1)}] = {{
{_rows(stage1, 16, "{}")}
}};

static const uint16_t norm_stage2[{len(stage2)}] = {{
{_rows(stage2, 16, "{}")}
}};

static const norm_record norm_records[{len(recs)}] = {{
{rec_rows}
}};

static const uint32_t norm_pool[{len(pool)}] = {{
{_rows(pool, 10, "0x{:04X}")}
}};

/* the primary composite of the pair (row of the first, column of the second), 0: none;
 * bits 21 and up: the composite's own row */
#define NORM_COMPOSE_WIDTH {width}
static const uint32_t norm_compose[{len(grid)}] = {{
{_rows(grid, 12, "{:#x}")}
}};

#endif /* SANITIZER_NORMALIZE_DATA_H */
"""


def outputs() -> dict[Path, str]:
    """Repo-relative path -> the exact text of each file this generator writes."""
    return {TARGET: render()}
