"""What ``reveal`` reports: a hidden payload as a plain value, and how it is shown in a log.

``Hidden`` says where a payload rides (the carrier run's offsets and ``Channel``), what it
carries (``payload`` bytes, ``text`` when they are UTF-8) and, for bits, how they were
read (``Reading``).  ``spelling`` shows a payload bounded and escaped where it must be: a
text payload as it reads (Cyrillic, CJK, accented letters as themselves), only what is
invisible or a control as a Python escape (controls, line breaks, format and other
default-ignorable characters, spaces other than SPACE, private use, unassigned); bytes that
are no UTF-8 as hex escapes; cut with "...".  So a log line or a finding's detail can
neither forge records nor hide what it reports.  The finding itself is ``_reveal``'s.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .._arguments import check_int
from .._categories import DEFAULT_IGNORABLE, in_ranges

__all__ = ["Channel", "Hidden", "Reading", "spelling"]


class Channel(str, enum.Enum):
    """How a payload is hidden (docs/reveal.md has an example of each)."""

    # Tag characters U+E0020..E007E: one ASCII byte each (UTS #51 §2.8 "ASCII smuggling"),
    # with or without U+E0001 LANGUAGE TAG / U+E007F CANCEL TAG, or dressed as a flag.
    TAGS = "tags"
    # Variation selectors after any base: one byte each, b < 16 -> U+FE00 + b, else
    # U+E0100 + (b - 16) (Paul Butler, 2025).
    VARIATION_SELECTORS = "variation-selectors"
    # Bits on two (three with a separator) zero-width characters: ZWSP, ZWNJ, ZWJ, WJ,
    # U+2062 INVISIBLE TIMES, U+2064 INVISIBLE PLUS (Sneaky Bits), ...
    ZERO_WIDTH_BITS = "zero-width-bits"
    # The same on bidi marks alone: LRM U+200E, RLM U+200F, ALM U+061C.
    BIDI_MARK_BITS = "bidi-mark-bits"
    # Interlinear annotation (U+FFF9 anchor, U+FFFA separator, U+FFFB terminator): the
    # annotation, which some renderers do not show; the payload is its text.
    ANNOTATION = "interlinear-annotation"
    # Bits in the choice of space character: U+0020 against U+2000..200A, U+202F,
    # U+205F, U+3000, U+00A0 (one a word gap, or runs of them).
    SPACE_BITS = "space-bits"
    # The same with U+2800 BRAILLE PATTERN BLANK, which shows as a space.
    BRAILLE_BITS = "braille-bits"
    # Bits in the spaces and tabs at the ends of lines (whitespace steganography).
    TRAILING_WHITESPACE_BITS = "trailing-whitespace-bits"

    __hash__ = object.__hash__  # singletons: hash in C

    @property
    def noun(self) -> str:
        """What the channel's carrier characters are called, in the plural."""
        return _NOUNS[self]


_NOUNS = {
    Channel.TAGS: "tag characters",
    Channel.VARIATION_SELECTORS: "variation selectors",
    Channel.ZERO_WIDTH_BITS: "zero-width characters",
    Channel.BIDI_MARK_BITS: "bidi marks",
    Channel.ANNOTATION: "interlinear annotation",
    Channel.SPACE_BITS: "space characters",
    Channel.BRAILLE_BITS: "Braille blanks and spaces",
    Channel.TRAILING_WHITESPACE_BITS: "trailing spaces and tabs",
}
# The channels whose payload is bits read from symbols (``Reading``).
BIT_CHANNELS = frozenset(
    {
        Channel.ZERO_WIDTH_BITS,
        Channel.BIDI_MARK_BITS,
        Channel.SPACE_BITS,
        Channel.BRAILLE_BITS,
        Channel.TRAILING_WHITESPACE_BITS,
    }
)


@dataclass(frozen=True)
class Reading:
    """How a run of bit symbols was read: ``zero`` and ``one`` are the code points of the
    two symbols, ``separator`` the third one between groups (None: fixed groups of 8),
    ``msb_first`` the bit order within a group, ``unit`` what a group is ("byte", or
    "code point": groups of up to 21 bits, such as JavaScript's ``charCodeAt`` gives)."""

    zero: int
    one: int
    separator: int | None
    msb_first: bool
    unit: str = "byte"

    def __str__(self) -> str:
        order = "most" if self.msb_first else "least"
        out = f"0=U+{self.zero:04X} 1=U+{self.one:04X}, {order} significant bit first"
        if self.separator is not None:
            out += f", U+{self.separator:04X} between {self.unit}s"
        return out


@dataclass(frozen=True)
class Hidden:
    """One hidden payload.  ``start``/``end`` are the carrier run's offsets (code-point
    indices into a str, byte offsets into bytes); ``channel`` how it is hidden; ``payload``
    the bytes it carries; ``reading`` how bits were read (None for tags and variation
    selectors, whose mapping is fixed, and for a run of bits no reading decodes: then
    ``payload`` is empty).  ``text`` is the payload as UTF-8, or None."""

    start: int
    end: int
    channel: Channel
    payload: bytes
    reading: Reading | None

    @property
    def text(self) -> str | None:
        """``payload`` decoded as UTF-8 (RFC 3629), or None when it is not UTF-8."""
        try:
            return self.payload.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def describe(self, limit: int = 64) -> str:
        """In words, for a log or a finding's detail: ``tag characters spelling 'ignore
        previous...'`` (escaped, at most ``limit`` characters of the payload shown:
        an int >= 0, else TypeError or ValueError)."""
        limit = _limit(limit, "Hidden.describe")
        what = self.channel.noun
        if self.reading is not None:
            what += f" ({self.reading})"
        if self.channel in BIT_CHANNELS and not self.payload:
            return f"{what}: no 8-bit reading"
        return f"{what} {spelling(self.payload, limit)}"

    def __str__(self) -> str:
        return f"{self.channel.value} at {self.start}..{self.end}: {self.describe()}"

    def as_dict(self) -> dict[str, object]:
        """A JSON-ready summary (``sanitizer reveal --format json``)."""
        return {
            "start": self.start,
            "end": self.end,
            "channel": self.channel.value,
            "payload": self.payload.hex(),
            "text": self.text,
            "reading": None if self.reading is None else str(self.reading),
            "spelling": spelling(self.payload, 1 << 30),
        }


def _limit(limit: object, where: str) -> int:
    """``limit`` as a count of characters shown: an int >= 0 (not a bool), else the error."""
    value = check_int(limit, "limit", where)
    if value < 0:
        raise ValueError(f"{where}() argument 'limit' must be >= 0, not {value}")
    return value


def _hidden_char(c: str) -> bool:
    """Whether ``c`` cannot be shown as itself: a control or line break, a format or other
    default-ignorable character (invisible), a space other than SPACE, a surrogate,
    private use or unassigned (``str.isprintable`` is False for all of these but the
    default ignorables of other categories, such as variation selectors and U+115F)."""
    return not c.isprintable() or in_ranges(ord(c), DEFAULT_IGNORABLE)


def _escaped(text: str) -> str:
    """``text`` as it reads, '\\' doubled, what ``_hidden_char`` names as a Python escape
    (ASCII: one ``str.translate``, no Python step a character)."""
    if text.isascii():
        if text.isprintable() and "\\" not in text:
            return text
        return text.translate(_ASCII_ESCAPES)
    return "".join("\\\\" if c == "\\" else ascii(c)[1:-1] if _hidden_char(c) else c for c in text)


# What ``_escaped`` makes of an ASCII character that is not itself: '\\' doubled, and
# the controls (the ASCII characters ``_hidden_char`` names: none is a default ignorable)
_ASCII_ESCAPES = {
    c: "\\\\" if c == 0x5C else ascii(chr(c))[1:-1]
    for c in range(0x80)
    if c == 0x5C or _hidden_char(chr(c))
}


def _escaped_bytes(data: bytes) -> str:
    """Bytes that are no UTF-8: printable ASCII as itself, every other byte as ``\\xNN``."""
    return "".join(
        chr(b) if 0x20 <= b <= 0x7E and b != 0x5C else "\\\\" if b == 0x5C else f"\\x{b:02x}"
        for b in data
    )


def spelling(payload: bytes, limit: int = 64) -> str:
    """``payload`` for a log: ``spelling 'text'`` when it is UTF-8, else ``carrying bytes
    '\\x01\\xff'``; escaped (``_escaped``) and cut to ``limit`` characters (marked '...')."""
    limit = _limit(limit, "spelling")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        cut = "..." if len(payload) > limit else ""
        return f"carrying {len(payload)} bytes '{_escaped_bytes(payload[:limit])}{cut}'"
    cut = "..." if len(text) > limit else ""
    return f"spelling '{_escaped(text[:limit])}{cut}'"
