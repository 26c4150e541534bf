"""RFC 3629 §4 as data: the one byte-range table the whole decoder is built from.

Every other part of the core derives from ``UTF8_CHAR`` below: the state machine that
decodes and finds maximal subparts (``MACHINE``), the optional C runner (which is handed
the same transition table at import), the error classification, and the tests.  Change
the table and everything follows; nothing else spells out a byte range.

RFC 3629 §4 (ABNF, RFC 2234)::

    UTF8-octets = *( UTF8-char )
    UTF8-char   = UTF8-1 / UTF8-2 / UTF8-3 / UTF8-4
    UTF8-1      = %x00-7F
    UTF8-2      = %xC2-DF UTF8-tail
    UTF8-3      = %xE0 %xA0-BF UTF8-tail / %xE1-EC 2( UTF8-tail ) /
                  %xED %x80-9F UTF8-tail / %xEE-EF 2( UTF8-tail )
    UTF8-4      = %xF0 %x90-BF 2( UTF8-tail ) / %xF1-F3 3( UTF8-tail ) /
                  %xF4 %x80-8F 2( UTF8-tail )
    UTF8-tail   = %x80-BF
"""

from __future__ import annotations

import itertools

from ._frozen import Frozen  # a frozen dataclass without importing dataclasses

ByteRange = tuple[int, int]  # inclusive, like ABNF's %xLO-HI

TAIL: ByteRange = (0x80, 0xBF)  # UTF8-tail = %x80-BF


class Row(Frozen):
    """One alternative of RFC 3629 §4: a lead byte range and the ranges that follow it."""

    __slots__ = ("lead", "tails", "abnf")  # noqa: RUF023 (in the constructor's order)
    lead: ByteRange
    tails: tuple[ByteRange, ...]
    abnf: str

    def __init__(self, lead: ByteRange, tails: tuple[ByteRange, ...], abnf: str) -> None:
        object.__setattr__(self, "lead", lead)
        object.__setattr__(self, "tails", tails)
        object.__setattr__(self, "abnf", abnf)


# RFC 3629 §4, one row per ABNF alternative, in the RFC's order.
UTF8_CHAR: tuple[Row, ...] = (
    Row((0x00, 0x7F), (), "UTF8-1 = %x00-7F"),
    Row((0xC2, 0xDF), (TAIL,), "UTF8-2 = %xC2-DF UTF8-tail"),
    Row((0xE0, 0xE0), ((0xA0, 0xBF), TAIL), "UTF8-3 = %xE0 %xA0-BF UTF8-tail"),  # no overlongs
    Row((0xE1, 0xEC), (TAIL, TAIL), "UTF8-3 = %xE1-EC 2( UTF8-tail )"),
    Row((0xED, 0xED), ((0x80, 0x9F), TAIL), "UTF8-3 = %xED %x80-9F UTF8-tail"),  # no surrogates
    Row((0xEE, 0xEF), (TAIL, TAIL), "UTF8-3 = %xEE-EF 2( UTF8-tail )"),
    Row((0xF0, 0xF0), ((0x90, 0xBF), TAIL, TAIL), "UTF8-4 = %xF0 %x90-BF 2( UTF8-tail )"),
    Row((0xF1, 0xF3), (TAIL, TAIL, TAIL), "UTF8-4 = %xF1-F3 3( UTF8-tail )"),
    # F4 80..8F: nothing beyond U+10FFFF (RFC 3629 §3)
    Row((0xF4, 0xF4), ((0x80, 0x8F), TAIL, TAIL), "UTF8-4 = %xF4 %x80-8F 2( UTF8-tail )"),
)

# Secure Programming HOWTO §5.9.4: Java's "Modified UTF-8" writes U+0000 as C0 80.  Only
# this exact pair is added when a caller opts in; every other overlong stays ill-formed.
MODIFIED_UTF8_NUL = Row((0xC0, 0xC0), ((0x80, 0x80),), "Modified UTF-8: %xC0 %x80 = U+0000")

# RFC 2279 §2: the lax, pre-2003 reading a naive decoder applies.  The lead byte alone
# fixes the length; any continuation bytes are accepted and the bits concatenated, so
# overlongs, surrogates and values up to 7FFFFFFF all "decode".  Used only to say what
# such a decoder would have read (``Utf8Error.naive``), never to accept input.
#   0000 0000-0000 007F   0xxxxxxx
#   0000 0080-0000 07FF   110xxxxx 10xxxxxx
#   0000 0800-0000 FFFF   1110xxxx 10xxxxxx 10xxxxxx
#   0001 0000-001F FFFF   11110xxx 10xxxxxx 10xxxxxx 10xxxxxx
#   0020 0000-03FF FFFF   111110xx 10xxxxxx 10xxxxxx 10xxxxxx 10xxxxxx
#   0400 0000-7FFF FFFF   1111110x 10xxxxxx ... (6 bytes)
LAX_LENGTH: tuple[tuple[ByteRange, int], ...] = (
    ((0x00, 0x7F), 1),
    ((0xC0, 0xDF), 2),
    ((0xE0, 0xEF), 3),
    ((0xF0, 0xF7), 4),
    ((0xF8, 0xFB), 5),
    ((0xFC, 0xFD), 6),
)
MAX_SCALAR = 0x10FFFF  # RFC 3629 §3: "restricted to U+0000..U+10FFFF"
SURROGATES: ByteRange = (0xD800, 0xDFFF)  # RFC 3629 §3: MUST NOT be encoded
BOM = b"\xef\xbb\xbf"  # RFC 3629 §6: U+FEFF as a signature


_LAX_BY_BYTE = bytes(
    next((n for (lo, hi), n in LAX_LENGTH if lo <= byte <= hi), 0) for byte in range(256)
)


def lax_length(lead: int) -> int:
    """Sequence length an RFC 2279 decoder infers from ``lead``; 0 if it cannot start one."""
    return _LAX_BY_BYTE[lead]


def lax_lead(length: int) -> int:
    """The smallest lead byte of an RFC 2279 ``length``-byte form (its length marker)."""
    return next(lo for (lo, _), n in LAX_LENGTH if n == length)


def lax_capacity(length: int) -> int:
    """The largest value an RFC 2279 ``length``-byte form holds: 7 bits in one byte, else
    6 - ``length`` bits in the lead and 6 in each continuation byte (RFC 2279 §2)."""
    return (1 << (7 if length == 1 else 5 * length + 1)) - 1


def _scalar_bounds(row: Row) -> ByteRange:
    """The code points a row of UTF8_CHAR encodes: its lowest and highest bytes decoded."""
    lead_bits = 0x7F >> (len(row.tails) + 1 if row.tails else 0)
    lo, hi = row.lead[0] & lead_bits, row.lead[1] & lead_bits
    for tail_lo, tail_hi in row.tails:
        lo, hi = lo << 6 | tail_lo & 0x3F, hi << 6 | tail_hi & 0x3F
    return lo, hi


# The code points encoded in 1, 2, 3 and 4 bytes (RFC 3629 §3's table), from the rows.
LENGTH_BOUNDS: tuple[ByteRange, ...] = tuple(
    (
        min(_scalar_bounds(r)[0] for r in UTF8_CHAR if len(r.tails) == n),
        max(_scalar_bounds(r)[1] for r in UTF8_CHAR if len(r.tails) == n),
    )
    for n in range(4)
)


def is_tail(byte: int) -> bool:
    return TAIL[0] <= byte <= TAIL[1]


def row_for_lead(lead: int, *, modified_nul: bool = False) -> Row | None:
    """The RFC 3629 §4 alternative that ``lead`` starts, or None for a byte that starts none."""
    for row in rows(modified_nul):
        if row.lead[0] <= lead <= row.lead[1]:
            return row
    return None


def rows(modified_nul: bool = False) -> tuple[Row, ...]:
    return (*UTF8_CHAR, MODIFIED_UTF8_NUL) if modified_nul else UTF8_CHAR


# ---------------------------------------------------------------------------------------
# The state machine, compiled from the rows above.
#
# State 0 is "between characters" (ACCEPT).  Every other state is "inside a character,
# these ranges still to come", one state per distinct remaining suffix of a row.  A byte
# that its state cannot take ends a maximal subpart (Unicode §3.9, "U+FFFD substitution of
# maximal subparts"): the decoder reports the bytes so far as one error and feeds the byte
# again from ACCEPT.  In ACCEPT, a byte that starts no row is a one-byte error.
# ---------------------------------------------------------------------------------------

ACCEPT = 0
REJECT = 0xFF  # transition marker: this state cannot take this byte


class Machine(Frozen):
    """A DFA over byte classes, packed for both the Python and the C runner.

    ``table`` is ``classes`` (256 bytes: byte -> class) + ``masks`` (256 bytes: the
    payload bits a byte contributes when it starts a character, RFC 3629 §3 "x" bits) +
    ``transitions`` (``nstates * nclasses`` bytes: state * nclasses + class -> state or
    REJECT).  ``nclasses`` is needed to index the transitions.
    """

    __slots__ = ("classes", "masks", "transitions", "nclasses", "nstates", "table")  # noqa: RUF023
    classes: bytes
    masks: bytes
    transitions: bytes
    nclasses: int
    nstates: int
    table: bytes  # classes + masks + transitions, packed once

    def __init__(
        self,
        classes: bytes,
        masks: bytes,
        transitions: bytes,
        nclasses: int,
        nstates: int,
        table: bytes,
    ) -> None:
        values = (classes, masks, transitions, nclasses, nstates, table)
        for name, value in zip(self.__slots__, values, strict=True):
            object.__setattr__(self, name, value)


def _compile(table_rows: tuple[Row, ...]) -> Machine:
    # Byte classes: split 00..FF at every range boundary the rows mention.
    cuts = {0, 256}
    for row in table_rows:
        for lo, hi in (row.lead, *row.tails):
            cuts.update((lo, hi + 1))
    bounds = sorted(cuts)
    classes = bytearray(256)
    for index, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        for byte in range(lo, hi):
            classes[byte] = index
    nclasses = len(bounds) - 1

    # States: ACCEPT plus one per distinct non-empty remaining suffix.
    suffixes: dict[tuple[ByteRange, ...], int] = {(): ACCEPT}
    for row in table_rows:
        for k in range(len(row.tails)):
            suffixes.setdefault(row.tails[k:], len(suffixes))
    nstates = len(suffixes)
    transitions = bytearray([REJECT]) * (nstates * nclasses)
    masks = bytearray(256)

    def covers(rng: ByteRange, cls: int) -> bool:
        return rng[0] <= bounds[cls] and bounds[cls + 1] - 1 <= rng[1]

    for row in table_rows:
        for cls in range(nclasses):
            if covers(row.lead, cls):
                transitions[ACCEPT * nclasses + cls] = suffixes[row.tails]
        for byte in range(row.lead[0], row.lead[1] + 1):
            masks[byte] = 0x7F >> len(row.tails) + (1 if row.tails else 0)
    for suffix, state in suffixes.items():
        if not suffix:
            continue
        for cls in range(nclasses):
            if covers(suffix[0], cls):
                transitions[state * nclasses + cls] = suffixes[suffix[1:]]
    packed = bytes(classes + masks + transitions)
    return Machine(bytes(classes), bytes(masks), bytes(transitions), nclasses, nstates, packed)


MACHINE = _compile(UTF8_CHAR)
MACHINE_MODIFIED_NUL = _compile(rows(modified_nul=True))


def machine(modified_nul: bool = False) -> Machine:
    return MACHINE_MODIFIED_NUL if modified_nul else MACHINE
