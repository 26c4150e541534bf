"""Names code points for humans and security logs ("U+002E FULL STOP '.'").

Character names come from unicodedata2 (see ``UNICODE_VERSION``), never the interpreter's
own ``unicodedata``, so a log line reads the same on every Python.  Values a lax decoder
can produce but Unicode never assigns (surrogates, > U+10FFFF) get a bracketed label.
"""

from __future__ import annotations

import unicodedata2

from ._arguments import check_int

UNICODE_VERSION: str = str(unicodedata2.unidata_version)

# Unicode has no names for controls, only aliases; these are the usual abbreviations.
_C0 = (
    "NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI "
    "DLE DC1 DC2 DC3 DC4 NAK SYN ETB CAN EM SUB ESC FS GS RS US"
).split()
_C1 = (
    "PAD HOP BPH NBH IND NEL SSA ESA HTS HTJ VTS PLD PLU RI SS2 SS3 "
    "DCS PU1 PU2 STS CCH MW SPA EPA SOS SGC SCI CSI ST OSC PM APC"
).split()
_SHOWN_CATEGORIES = ("L", "N", "P", "S")  # letters, numbers, punctuation, symbols


def label(cp: int) -> str:
    """The name of ``cp``, or a bracketed label for code points without one."""
    if cp < 0x20:
        return f"<control {_C0[cp]}>"
    if cp == 0x7F:
        return "<control DEL>"
    if 0x80 <= cp <= 0x9F:
        return f"<control {_C1[cp - 0x80]}>"
    if 0xD800 <= cp <= 0xDBFF:
        return "<high surrogate>"
    if 0xDC00 <= cp <= 0xDFFF:
        return "<low surrogate>"
    if cp > 0x10FFFF:
        return "<beyond U+10FFFF>"
    char = chr(cp)
    name = str(unicodedata2.name(char, ""))
    if name:
        return name
    category = unicodedata2.category(char)
    if 0xFDD0 <= cp <= 0xFDEF or cp & 0xFFFE == 0xFFFE:
        return "<noncharacter>"
    if category == "Co":
        return "<private use>"
    return "<unassigned>"


def describe(cp: int) -> str:
    """``U+XXXX NAME 'c'``; the glyph only for visible letters, digits, punctuation, symbols.

    ``cp`` is an int in 0..0x7FFFFFFF: a lax (RFC 2279) reading can be any 31-bit value.
    """
    if type(cp) is not int:
        cp = check_int(cp, "cp", "describe")  # an int subclass read by int's own slot
    if not 0 <= cp <= 0x7FFFFFFF:
        raise ValueError(f"describe() argument 'cp' must be in 0..0x7FFFFFFF, not {cp}")
    text = f"U+{cp:04X} {label(cp)}"
    if cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF:
        char = chr(cp)
        if cp == 0x20 or unicodedata2.category(char)[0] in _SHOWN_CATEGORIES:
            text += f" {char!r}" if char not in "'\\" else f' "{char}"'
    return text
