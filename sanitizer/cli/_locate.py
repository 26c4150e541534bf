"""Where a finding is, as people click on it: ``line:column``, and a short visible excerpt.

Findings carry byte offsets (exact, kept in JSON); editors, compilers and linters place
things by ``path:line:column``.  This module holds the one rule every input mode of
``sanitizer check`` counts by (``Position``), whatever the file's encoding:

- a line ends at CR LF, LF or a lone CR, as Python reads source (its universal
  newlines; the language reference, "Physical lines") and as the Language Server
  Protocol counts lines (``Position``), so a file with old Mac line ends numbers its
  lines as an editor shows them; the run's SARIF log declares the three
  (``newlineSequences``, ``NEWLINES``);
- columns are 1-based and counted on the decoded line: in code points by default, or
  in UTF-16 code units (``--columns utf16``: LSP, VS Code, SARIF's default column kind),
  where a character above U+FFFF counts two;
- each ill-formed part (a maximal subpart of UTF-8, Unicode §3.9 "U+FFFD Substitution of
  Maximal Subparts"; an ill-formed UTF-16/32 code unit) counts one column, as the
  U+FFFD an editor shows for it.

UTF-8 is counted on its bytes, never decoded: one code point per byte that is not a
continuation byte (RFC 3629 §3), by ``bytes.count``/``bytes.translate`` on whole
segments, never byte by byte in Python.  ``Locator`` is fed an input in chunks and asked
about increasing byte offsets, so a stream of any size is located in one pass and
bounded memory.  UTF-16/32 (``_mode_wide``) is counted on its decoded text.

The excerpt shows the line around a finding with everything a terminal would not show
honestly made visible (``<U+202E>``, ``<C0 AF>`` for ill-formed bytes): never the raw
control, so a report line can neither hide nor reorder what it reports.  A long finding
(a run of invisible characters is one) shows its two ends, not all of it.
"""

from __future__ import annotations

import codecs
import re

import unicodedata2

CODEPOINTS, UTF16 = "codepoints", "utf16"
NEWLINES = ("\r\n", "\n", "\r")  # what ends a line (the module docstring)
CONTEXT = 48  # bytes of context kept on each side of a finding for its excerpt
# Ill-formed bytes, decoded as PEP 383 escapes; compiled on first use (``re`` keeps it): a
# valid file has no excerpt to show, and its check should not pay for compiling it.
_ESCAPED = "([\udc80-\udcff]+)"

_CONTINUATION = bytes(range(0x80, 0xC0))
_FOUR_BYTE_LEADS = bytes(range(0xF0, 0xF5))  # RFC 3629 §4: lead bytes of U+10000..10FFFF
# Characters shown as <U+XXXX>: controls, format characters (bidi controls, zero-width,
# tags), separators, surrogates, private use, unassigned, spaces other than U+0020, and
# the default-ignorable code points that are not Cf (variation selectors, fillers, CGJ).
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Zs", "Cs", "Co", "Cn"})
_IGNORABLE_RANGES = (
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x115F, 0x1160),  # HANGUL CHOSEONG/JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ/AA
    (0x180B, 0x180F),  # MONGOLIAN FREE VARIATION SELECTORS
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFE00, 0xFE0F),  # VARIATION SELECTOR-1..16
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xE0100, 0xE01EF),  # VARIATION SELECTOR-17..256
)


class Position:
    """Line and column (1-based) just after what has been counted, by the module's rule:
    ``count_utf8`` for well-formed UTF-8 bytes, ``count_text`` for decoded text,
    ``count_ill_formed`` for one ill-formed part."""

    __slots__ = ("_col", "_cr", "line", "utf16")

    def __init__(self, columns: str = CODEPOINTS) -> None:
        self.utf16 = columns == UTF16
        self.line = 1
        self._col = 0  # columns since the start of the line
        # The last character counted is a CR whose line end is not yet counted: it ends
        # its line unless a LF follows (CR LF is one line end, and the place between the
        # two is on the CR's line); ``next_is`` settles it once the next one is known.
        self._cr = False

    @property
    def column(self) -> int:
        return self._col + 1

    def next_is(self, ch: str) -> None:
        """The next character (to be counted) is ``ch`` ("" unknown): after a CR, any
        but LF starts a new line."""
        if self._cr and ch and ch != "\n":
            self.line += 1
            self._col = 0
            self._cr = False

    def count_utf8(self, segment: bytes) -> None:
        """Count ``segment``, UTF-8 bytes (a byte that is neither ASCII nor a continuation
        byte starts one character; a four-byte one is two UTF-16 code units)."""
        if not segment:
            return
        if self._cr:
            self.next_is(chr(segment[0]))
            self._cr = False  # a LF next: it ends the line (counted below)
        pending = segment[-1] == 0x0D
        if pending:
            segment = segment[:-1]
        last = max(segment.rfind(b"\n"), segment.rfind(b"\r"))
        if last >= 0:
            self.line += segment.count(b"\n") + segment.count(b"\r") - segment.count(b"\r\n")
            segment = segment[last + 1 :]
            self._col = 0
        n = len(segment.translate(None, _CONTINUATION))
        if self.utf16:
            n += len(segment) - len(segment.translate(None, _FOUR_BYTE_LEADS))
        self._col += n + pending
        self._cr = pending

    def count_text(self, text: str) -> None:
        """Count ``text``, decoded (a character above U+FFFF is two UTF-16 code units)."""
        if not text:
            return
        if self._cr:
            self.next_is(text[0])
            self._cr = False
        pending = text[-1] == "\r"
        if pending:
            text = text[:-1]
        last = max(text.rfind("\n"), text.rfind("\r"))
        if last >= 0:
            self.line += text.count("\n") + text.count("\r") - text.count("\r\n")
            text = text[last + 1 :]
            self._col = 0
        if self.utf16:
            self._col += len(text.encode("utf-16-le", "surrogatepass")) >> 1
        else:
            self._col += len(text)
        self._col += pending
        self._cr = pending

    def count_ill_formed(self) -> None:
        """Count one ill-formed part: one column, as the U+FFFD shown for it."""
        self.next_is("\ufffd")
        self._col += 1


class Locator(Position):
    """Line and column of increasing byte offsets in one UTF-8 input, fed in chunks.

    ``feed`` appends a chunk; ``at(offset)`` gives ``(line, column)``;
    ``ill_formed(start, end)`` steps over one ill-formed maximal subpart (one column).
    Offsets must not go backwards; bytes before ``keep`` are dropped on each ``feed``.
    """

    __slots__ = ("_pos", "buffer", "buffer_start")

    def __init__(self, columns: str = CODEPOINTS) -> None:
        super().__init__(columns)
        self.buffer = b""
        self.buffer_start = 0  # absolute offset of buffer[0]
        self._pos = 0  # counted up to here

    @property
    def end(self) -> int:
        return self.buffer_start + len(self.buffer)

    def feed(self, chunk: bytes, keep: int | None = None) -> None:
        """Append ``chunk``; keep bytes from ``keep - CONTEXT`` (or what is not yet
        counted, if earlier) for excerpts and later offsets."""
        lo = self._pos if keep is None else min(self._pos, keep)
        drop = max(0, lo - CONTEXT - self.buffer_start)
        if drop:
            self.buffer = self.buffer[drop:]
            self.buffer_start += drop
        self.buffer = self.buffer + chunk if self.buffer else chunk

    def _advance(self, offset: int) -> None:
        if offset <= self._pos:
            return
        start = self.buffer_start
        self.count_utf8(self.buffer[self._pos - start : offset - start])
        self._pos = offset

    def at(self, offset: int) -> tuple[int, int]:
        """``(line, column)`` of byte ``offset``, both 1-based."""
        self._advance(offset)
        if self._cr:
            i = offset - self.buffer_start
            self.next_is(chr(self.buffer[i]) if 0 <= i < len(self.buffer) else "")
        return self.line, self._col + 1

    def ill_formed(self, start: int, end: int) -> None:
        """Step over the ill-formed subpart ``start..end``: it shows as one U+FFFD."""
        self._advance(start)
        if end > self._pos:
            self.count_ill_formed()
            self._pos = end

    def excerpt(self, start: int, end: int) -> str:
        """The line around ``start..end`` (from the kept bytes), made visible."""
        return excerpt(self.buffer, start - self.buffer_start, end - self.buffer_start)


def locate_all(
    data: bytes, offsets: list[int], ill_formed: list[tuple[int, int]], columns: str
) -> dict[int, tuple[int, int]]:
    """``{offset: (line, column)}`` for offsets into ``data``, given its ill-formed
    subparts in order: one pass over the sorted offsets."""
    locator = Locator(columns)
    locator.feed(data)
    spans = iter(ill_formed)
    pending = next(spans, None)
    out: dict[int, tuple[int, int]] = {}
    for offset in sorted(set(offsets)):
        while pending is not None and pending[0] < offset:
            locator.ill_formed(*pending)
            pending = next(spans, None)
        out[offset] = locator.at(offset)
    return out


def _line_bounds(data: bytes, start: int, end: int) -> tuple[int, int]:
    lo = max(0, start - CONTEXT)
    left = max(data.rfind(b"\n", lo, start), data.rfind(b"\r", lo, start))  # NEWLINES
    left = lo if left < 0 else left + 1
    for _ in range(3):  # do not start inside a character (at most 3 continuation bytes)
        if left < start and 0x80 <= data[left] < 0xC0:
            left += 1
    hi = min(len(data), end + CONTEXT)
    ends = [at for at in (data.find(b"\n", end, hi), data.find(b"\r", end, hi)) if at >= 0]
    right = min(ends) if ends else hi
    return left, right


def excerpt(data: bytes, start: int, end: int) -> str:
    """Up to ``CONTEXT`` bytes each side of ``data[start:end]`` on its line, decoded,
    with invisible characters as ``<U+XXXX>`` and ill-formed bytes as ``<C0 AF>``.  A
    finding longer than ``2 * CONTEXT`` bytes (a long identifier) shows its first and
    last ``CONTEXT`` bytes around ``<... N bytes ...>``: an excerpt is short whatever the
    input, and costs the same."""
    start = max(0, min(start, len(data)))
    end = max(start, min(end, len(data)))
    left, right = _line_bounds(data, start, end)
    trim_tail = right < len(data) and right == end + CONTEXT
    if end - start <= 3 * CONTEXT:
        # Well-formed throughout (the usual case): the three parts made visible at once
        # (they meet at character boundaries, and ``_show`` reads a character at a time).
        try:
            text = codecs.utf_8_decode(data[left:right], "strict", not trim_tail)[0]
        except UnicodeDecodeError:
            pass
        else:
            return (text if text.isascii() and text.isprintable() else _show(text)).strip()
    right_text = visible(data[end:right], trim_tail=trim_tail)
    return (visible(data[left:start]) + _middle(data, start, end) + right_text).strip()


def _middle(data: bytes, start: int, end: int) -> str:
    """``data[start:end]`` made visible; a long one (a run of thousands of invisible
    characters is one finding) as its first and last ``CONTEXT`` bytes around
    ``<... N bytes ...>``, each cut at a character boundary."""
    if end - start <= 3 * CONTEXT:
        return visible(data[start:end])
    head = visible(data[start : start + CONTEXT], trim_tail=True)
    tail_start = end - CONTEXT
    while tail_start < end and 0x80 <= data[tail_start] < 0xC0:  # RFC 3629 §3: a lead
        tail_start += 1
    return f"{head}<... {end - start} bytes ...>{visible(data[tail_start:end])}"


def visible(raw: bytes, trim_tail: bool = False) -> str:
    """``raw`` decoded as UTF-8 with nothing hidden: see the module docstring.
    ``trim_tail`` drops a character cut short at the end (by the excerpt's edge).
    Ill-formed bytes decode as PEP 383 escapes (one lone surrogate a byte, which valid
    UTF-8 never decodes to), so one C decode does the work; adjacent ones show as one
    ``<C0 AF>``."""
    text = codecs.utf_8_decode(raw, "surrogateescape", not trim_tail)[0]
    if text.isascii() and text.isprintable():
        return text
    parts = re.split(_ESCAPED, text)  # odd items: runs of escaped bytes
    for k, part in enumerate(parts):
        if k % 2:
            parts[k] = "<" + " ".join(f"{ord(c) - 0xDC00:02X}" for c in part) + ">"
        else:
            parts[k] = _show(part)
    return "".join(parts)


def _hidden(ch: str) -> bool:
    cp = ord(ch)
    if cp < 0x7F:
        return cp < 0x20
    if unicodedata2.category(ch) in _HIDDEN_CATEGORIES:
        return True
    return any(lo <= cp <= hi for lo, hi in _IGNORABLE_RANGES)


class _Shown(dict[int, str]):
    """Code point -> how an excerpt shows it, filled as characters are met (``str.translate``
    then runs in C, looking each character up; a miss is judged once), and emptied when
    it grows past ``_SHOWN_MOST`` (bounded whatever the input)."""

    def __missing__(self, cp: int) -> str:
        ch = chr(cp)
        if ch == "\t":
            shown = " "
        elif ch == " " or not _hidden(ch):
            shown = ch
        else:
            shown = f"<U+{cp:04X}>"
        if len(self) >= _SHOWN_MOST:
            self.clear()
        self[cp] = shown
        return shown


_SHOWN_MOST = 4096
_SHOWN = _Shown()


def _show(text: str) -> str:
    if text.isascii() and text.isprintable():
        return text
    return text.translate(_SHOWN)
