"""Generate ``sanitizer/_native_src/utf8_tables_data.h``: RFC 3629 §4 as the C code reads it.

Why a generated header: the C validator (validate.c: a scalar kernel, and the three
nibble tables of Keiser & Lemire's lookup algorithm for the SIMD kernels) and the C
decoder of validated bytes (decode_valid.c) need the byte ranges of UTF-8, which
``sanitizer._grammar.UTF8_CHAR`` states once for the whole package.  Spelt again by hand in
C they could drift from it; written by this generator they cannot, and every table is
checked here against the grammar, exhaustively, before it is written:

* by lead byte: the length of the character it starts (0: none) and the range of its
  second byte (the scalar kernel's rules);
* the three nibble tables: each bit is a set of (previous byte, current byte) pairs that
  is a product of a set of high nibbles, a set of low nibbles of the previous byte and a
  set of high nibbles of the current one, the bits together are exactly the pairs the
  grammar forbids (a lead then no continuation, ASCII then a continuation, a lead then a
  second byte outside its row's range) plus, as bit 0x80, two continuations (legal only
  as a 3rd or 4th byte: the kernels decide that with the thresholds below);
* the thresholds: the lowest lead of a 3- and a 4-byte character (the bytes two and three
  back that make a continuation due), the continuation range, and the lowest lead of a
  character >= U+0100 (the decoder's str kind).

Run through the one entry point: ``python tools/generate.py utf8_tables`` (``--check``:
exit 1 when the file is stale, which tests/suites/test_generated_files.py runs);
``tests/core/test_grammar_c_tables.py`` holds the header's tables to the grammar again, byte for
byte.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from sanitizer import _grammar as grammar

TARGET = Path("sanitizer/_native_src/utf8_tables_data.h")
TWO_CONTS = 0x80  # the kernels XOR this bit with "a continuation is due here"
BITS = 8  # the tables hold a byte per nibble


class Tables:
    """Everything the header states, derived from ``grammar.UTF8_CHAR``."""

    def __init__(self, rows: tuple[grammar.Row, ...]) -> None:
        self.rows = rows
        ascii_rows = [r for r in rows if not r.tails]
        assert [r.lead for r in ascii_rows] == [(0x00, 0x7F)], "ASCII: the high bit clear"
        self.tail = grammar.TAIL
        # The vector code tests "continuation" as (b & 0xC0) == 0x80 and ASCII by the
        # sign bit: the grammar must say the same sets.
        assert self.tail == (0x80, 0xBF)
        # after the second byte, every row takes continuations (the kernels check no more)
        assert all(tail == self.tail for row in rows for tail in row.tails[1:])
        self.row_of: dict[int, grammar.Row] = {}
        for row in rows:
            for b in range(row.lead[0], row.lead[1] + 1):
                assert b not in self.row_of, f"{b:#04x} starts two rows"
                self.row_of[b] = row
        self.length = [
            0 if b not in self.row_of else 1 + len(self.row_of[b].tails) for b in range(256)
        ]
        self.second = [
            self.row_of[b].tails[0] if self.length[b] > 1 else (0, 0) for b in range(256)
        ]
        leads = {n: [b for b in range(256) if self.length[b] == n] for n in (2, 3, 4)}
        self.lead3_min, self.lead4_min = leads[3][0], leads[4][0]
        # A byte >= lead3_min (>= lead4_min) makes the byte two (three) after it a due
        # continuation; the kernels test only these thresholds, so the lengths must
        # follow them (the leads of each length contiguous, longer ones above).
        assert leads[2] == list(range(leads[2][0], self.lead3_min))
        assert leads[3] == list(range(self.lead3_min, self.lead4_min))
        assert leads[4] == list(range(self.lead4_min, leads[4][-1] + 1))
        assert leads[2][0] > self.tail[1]
        # decode_valid.c's vectors test these sets by their RFC 3629 §3 bit patterns:
        # 10xxxxxx a continuation, 110xxxxx, 1110xxxx, 11110xxx the leads of 2, 3, 4 bytes.
        for n, (mask, pattern) in {2: (0xE0, 0xC0), 3: (0xF0, 0xE0), 4: (0xF8, 0xF0)}.items():
            assert all(b & mask == pattern for b in leads[n]), n
        assert all((b & 0xC0 == 0x80) == self.is_tail(b) for b in range(256))
        self.lead_max = leads[4][-1]
        # The lowest lead of a character >= U+0100: decode_valid.c picks a 2-byte str
        # kind for bytes holding one (RFC 3629 §3 encodes U+0100 as C4 80).
        self.lead_u0100 = "\u0100".encode()[0]
        self.bits = self._rectangles()
        self.prev_high, self.prev_low, self.cur_high = self._nibble_tables()
        self._check_lookup()

    def is_tail(self, b: int) -> bool:
        return self.tail[0] <= b <= self.tail[1]

    def pair_error(self, p: int, c: int) -> bool:
        """The grammar's verdict on byte c after byte p, leaving aside two continuations
        (whether one is due depends on the bytes before p)."""
        if p <= 0x7F:
            return self.is_tail(c)  # ASCII, then a continuation
        if self.is_tail(p):
            return False  # a continuation then anything: TWO_CONTS and the thresholds
        if not self.is_tail(c):
            return True  # a lead (or a byte starting nothing), then no continuation
        lo, hi = self.second[p]
        return self.length[p] == 0 or not lo <= c <= hi

    def _rectangles(self) -> list[tuple[str, frozenset[int], frozenset[int], frozenset[int]]]:
        """(name, high nibbles of the previous byte, its low nibbles, high nibbles of the
        current byte) for each bit: the carry bits first, then the second-byte errors."""
        cont = frozenset(range(self.tail[0] >> 4, (self.tail[1] >> 4) + 1))
        ascii_nib = frozenset(range(0, 8))
        lead_nib = frozenset(range(16)) - ascii_nib - cont
        every = frozenset(range(16))
        bits = [
            ("a lead then no continuation", lead_nib, every, every - cont),
            ("ASCII then a continuation", ascii_nib, every, cont),
        ]
        # The previous bytes that refuse continuations of high nibble h: each nibble of
        # the continuation range must be all allowed or all refused after a lead.
        refused: dict[tuple[int, frozenset[int]], set[int]] = {}
        for h in sorted(cont):
            for high in sorted(lead_nib):
                lows: set[int] = set()
                for l_ in range(16):
                    p = high << 4 | l_
                    verdicts = {self.pair_error(p, h << 4 | k) for k in range(16)}
                    assert len(verdicts) == 1, f"{p:#04x} then {h:x}_: not nibble-aligned"
                    if verdicts == {True}:
                        lows.add(l_)
                if lows:
                    refused.setdefault((high, frozenset(lows)), set()).add(h)
        for (high, low), hs in sorted(refused.items(), key=lambda kv: (kv[0][0], min(kv[0][1]))):
            bits.append((self._describe(high, low, hs), frozenset({high}), low, frozenset(hs)))
        bits.append(("two continuations", cont, every, cont))  # must be bit 0x80
        assert len(bits) <= BITS, f"{len(bits)} kinds of error: more than a byte holds"
        while len(bits) < BITS:  # unused bits, before TWO_CONTS
            bits.insert(-1, ("unused", frozenset(), frozenset(), frozenset()))
        return bits

    def _describe(self, high: int, low: frozenset[int], hs: set[int]) -> str:
        prev = _ranges(high << 4 | l_ for l_ in low)
        cur = _ranges(b for h in hs for b in range(h << 4, (h << 4) + 16))
        starters = [high << 4 | l_ for l_ in low]
        why = [self.row_of[b].abnf for b in starters if b in self.row_of]
        lone = [b for b in starters if b not in self.row_of]
        if lone:
            why.insert(0, f"{_ranges(lone)} start no character")
        return f"{prev} then {cur} ({'; '.join(why)})"

    def _nibble_tables(self) -> tuple[list[int], list[int], list[int]]:
        ph, pl, ch = [0] * 16, [0] * 16, [0] * 16
        for k, (_, highs, lows, curs) in enumerate(self.bits):
            bit = 1 << k
            for n in highs:
                ph[n] |= bit
            for n in lows:
                pl[n] |= bit
            for n in curs:
                ch[n] |= bit
        return ph, pl, ch

    def _check_lookup(self) -> None:
        """Every byte pair: the tables' AND says what the grammar says."""
        assert self.bits[-1][0] == "two continuations"
        for p in range(256):
            for c in range(256):
                got = self.prev_high[p >> 4] & self.prev_low[p & 15] & self.cur_high[c >> 4]
                assert bool(got & ~TWO_CONTS) == self.pair_error(p, c), (hex(p), hex(c))
                assert bool(got & TWO_CONTS) == (self.is_tail(p) and self.is_tail(c))

    def last_max(self) -> list[int]:
        """A block whose last bytes exceed these is inside a character: the last byte a
        lead, the one before a lead of 3 or 4 bytes, the one before that of 4."""
        return [0xFF] * 13 + [self.lead4_min - 1, self.lead3_min - 1, self.tail[1]]


def _ranges(values: Iterable[int]) -> str:
    out: list[list[int]] = []
    for v in sorted(values):
        if out and out[-1][1] == v - 1:
            out[-1][1] = v
        else:
            out.append([v, v])
    return ", ".join(f"{a:02X}" if a == b else f"{a:02X}..{b:02X}" for a, b in out)


def _array(name: str, values: list[int]) -> list[str]:
    """A C array of bytes, 16 a line (a table by byte: line k holds bytes k0..kF)."""
    lines = [f"static const unsigned char {name}[{len(values)}] = {{"]
    for k in range(0, len(values), 16):
        lines.append("    " + ", ".join(f"0x{v:02X}" for v in values[k : k + 16]) + ",")
    lines.append("};")
    return lines


def _comment(text: str, first: str = "/* ", rest: str = " * ", width: int = 92) -> list[str]:
    """``text`` as a C comment wrapped at ``width`` columns."""
    words, lines, line = text.split(), [], first
    for word in words:
        if len(line) + len(word) + 3 > width and line.strip() not in ("/*", "*"):
            lines.append(line.rstrip())
            line = rest
        line += word + " "
    lines.append(line.rstrip() + " */")
    return lines


def render(t: Tables) -> str:
    lines = [
        "/*",
        " * GENERATED by tools/gen_utf8_tables.py from sanitizer/_grammar.py (UTF8_CHAR, TAIL):",
        " * do not edit; run `python tools/generate.py utf8_tables` after changing the grammar.",
        " * RFC 3629 §4 byte ranges (no Unicode version: UTF-8's ranges do not change with it).",
        " *",
        " * The byte ranges of UTF-8 as the C code reads them: validate.c (the scalar kernel and",
        " * the nibble tables of the SIMD kernels) and decode_valid.c.  The generator checks",
        " * every table against the grammar over every byte pair before writing it.",
        " */",
        "#ifndef SANITIZER_UTF8_TABLES_DATA_H",
        "#define SANITIZER_UTF8_TABLES_DATA_H",
        "",
        "/* UTF8-tail, the continuation bytes (RFC 3629 §4). */",
        f"#define UTF8_TAIL_LO 0x{t.tail[0]:02X}",
        f"#define UTF8_TAIL_HI 0x{t.tail[1]:02X}",
        "/* The lowest lead of a 3-byte and of a 4-byte character, and the highest lead: a byte",
        " * >= UTF8_LEAD3_MIN (UTF8_LEAD4_MIN) makes the byte 2 (3) places on a continuation. */",
        f"#define UTF8_LEAD3_MIN 0x{t.lead3_min:02X}",
        f"#define UTF8_LEAD4_MIN 0x{t.lead4_min:02X}",
        f"#define UTF8_LEAD_MAX 0x{t.lead_max:02X}",
        "/* The lowest lead of a character >= U+0100 (RFC 3629 §3: U+0100 is C4 80). */",
        f"#define UTF8_LEAD_U0100 0x{t.lead_u0100:02X}",
        "",
        "/* By lead byte (16 a line: 00..0F, 10..1F, ...): the length of the character it",
        " * starts (0: it starts none), and the range of its second byte (RFC 3629 §4 rows;",
        " * the bytes after the second are UTF8-tail). */",
        *_array("UTF8_LENGTH", t.length),
        *_array("UTF8_SECOND_LO", [lo for lo, _ in t.second]),
        *_array("UTF8_SECOND_HI", [hi for _, hi in t.second]),
        "",
        "/* Keiser & Lemire's lookup: a pair (previous byte, current byte) shows the errors of",
        " * UTF8_PREV_HIGH[prev >> 4] & UTF8_PREV_LOW[prev & 15] & UTF8_CUR_HIGH[cur >> 4], one",
        " * bit per kind: */",
    ]
    for k, (name, *_) in enumerate(t.bits):
        lines += _comment(f"0x{1 << k:02X}: {name}", first="/*   ", rest=" *         ")
    lines += [
        "/* 0x80 is legal exactly when a continuation is due (the thresholds above): the",
        " * kernels XOR it with that. */",
        f"#define UTF8_TWO_CONTS 0x{TWO_CONTS:02X}",
        *_array("UTF8_PREV_HIGH", t.prev_high),
        *_array("UTF8_PREV_LOW", t.prev_low),
        *_array("UTF8_CUR_HIGH", t.cur_high),
        "/* A block whose last three bytes exceed these (the last 16 bytes of a vector) ends",
        " * inside a character. */",
        *_array("UTF8_LAST_MAX", t.last_max()),
        "",
        "#endif /* SANITIZER_UTF8_TABLES_DATA_H */",
        "",
    ]
    return "\n".join(lines)


def outputs() -> dict[Path, str]:
    """Repo-relative path -> the exact text of each file this generator writes."""
    return {TARGET: render(Tables(grammar.UTF8_CHAR))}
