"""Files that say they are not UTF-8: one clear finding instead of a flood.

A Python file with ``# -*- coding: latin-1 -*-`` is latin-1 by its own word (PEP 263), so
reading it as UTF-8 reports every accented letter as ill-formed: hundreds of findings
that hide the one fact that matters, "this file declares latin-1".  A declaration means
something only to the readers of its kind of file (``_kinds``), so each is looked for
only there, where its specification puts it:

- PEP 263 coding cookie, in a Python file (``.py``, ``.pyw``, ``.pyi``, or a python
  shebang): a comment matching ``coding[:=]\\s*NAME`` on line 1, or on line 2 when line
  1 is blank or a comment (the rule of ``tokenize.detect_encoding``);
- XML declaration, in an XML file (or a file of no known kind that starts with one,
  which nothing else does): ``<?xml ... encoding="NAME"?>`` at the very start (XML 1.0
  §4.3.3);
- HTML ``<meta charset=NAME>`` or ``<meta http-equiv=... content="...; charset=NAME">``,
  in an HTML file that starts with ``<``: in its first 1024 bytes (the HTML Standard's
  prescan, §13.2.3.2, looks at 1024 bytes).

Anywhere else those words are text: "coding: latin-1" in a Markdown title or a shell
script's comment declares nothing, and the file is checked as UTF-8.  A UTF-16 or UTF-32
byte order mark at the start declares that encoding in any file (Unicode §23.8, Table
23-4; such a file is full of NUL bytes, so it is not taken for binary).

A name counts when Python knows it as a codec (so "# Decoding: base64" is not a
declaration); in a Python file any name counts, since Python itself refuses the file
otherwise.  UTF-8 (any spelling, with or without signature) and ASCII, a subset of it,
are not findings.
"""

from __future__ import annotations

import codecs
import re

from ._kinds import HTML, PEP_263, UNKNOWN, XML, Kind
from ._record import Record

HEAD = 1024  # bytes looked at: enough for all three (the HTML prescan reads 1024)
_BOM = b"\xef\xbb\xbf"
# Patterns, compiled on first use (``re.compile`` keeps them): most files declare nothing,
# and a check of one file should not pay for compiling four (start-up).
_COOKIE = rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)"
_BLANK = rb"^[ \t\f]*(?:[#\r\n]|$)"
_XML = rb"<\?xml[^>]*?\sencoding\s*=\s*[\"']([A-Za-z][\w.:-]*)[\"']"
_META = rb"(?i)<meta\b[^>]*?charset\s*=\s*[\"']?([A-Za-z0-9][\w.:-]*)"
_UTF8_COMPATIBLE = frozenset({"utf-8", "utf-8-sig", "ascii"})
# Longest first: FF FE 00 00 is UTF-32LE, not UTF-16LE followed by U+0000.
_OTHER_BOMS = (
    (b"\x00\x00\xfe\xff", "UTF-32BE"),
    (b"\xff\xfe\x00\x00", "UTF-32LE"),
    (b"\xfe\xff", "UTF-16BE"),
    (b"\xff\xfe", "UTF-16LE"),
)


class Declaration(Record):
    """``name`` as the file spells it, what kind of declaration, and where the name is."""

    name: str
    how: str
    start: int
    end: int

    def reason(self) -> str:
        return f"declares {self.name} ({self.how}), not UTF-8: its bytes are not checked"


def _known(name: bytes) -> str | None:
    try:
        return codecs.lookup(name.decode("ascii")).name
    except (LookupError, UnicodeDecodeError):
        return None


def _found(match: re.Match[bytes], how: str, shift: int, python: bool) -> Declaration | None:
    codec = _known(match.group(1))
    if codec is None and not python:
        return None
    if codec in _UTF8_COMPATIBLE:
        return None
    name = match.group(1).decode("ascii", "backslashreplace")
    return Declaration(name, how, match.start(1) + shift, match.end(1) + shift)


def declared_encoding(head: bytes, kind: Kind = UNKNOWN) -> Declaration | None:
    """The non-UTF-8 encoding the first bytes of a file of ``kind`` declare, if any."""
    for bom, name in _OTHER_BOMS:
        if head.startswith(bom):
            return Declaration(name, "byte order mark", 0, len(bom))
    shift = len(_BOM) if head.startswith(_BOM) else 0
    text = head[shift:HEAD]
    declares = kind.declares
    if declares == XML or (kind is UNKNOWN and text.startswith(b"<?xml")):
        if not text.startswith(b"<?xml"):
            return None
        end = text.find(b"?>")
        match = re.compile(_XML).match(text, 0, end if end >= 0 else len(text))
        return _found(match, XML, shift, False) if match else None
    if declares == HTML:
        if not text.lstrip().startswith(b"<"):
            return None
        match = re.compile(_META).search(text)
        return _found(match, HTML, shift, False) if match else None
    if declares != PEP_263 or b"coding" not in text:  # no cookie can match
        return None
    cookie = re.compile(_COOKIE)
    first, _, rest = text.partition(b"\n")
    match = cookie.match(first)
    if match is None and re.match(_BLANK, first):
        second = rest.partition(b"\n")[0]
        match = cookie.match(second)
        if match is not None:
            return _found(match, PEP_263, shift + len(first) + 1, True)
    return _found(match, PEP_263, shift, True) if match else None
