"""Where a finding is, as people click on it: ``line:column``, and a short visible excerpt.

Findings carry byte offsets (exact, kept in JSON); editors, compilers and linters place
things by ``path:line:column``.  Lines are counted by LF bytes (so CRLF files number as
everyone does; SARIF's default newline sequences are CRLF and LF).  Columns are 1-based,
counted in code points by default or in UTF-16 code units (``--columns utf16``: LSP,
VS Code, SARIF's default column kind) where a character above U+FFFF counts two.  Each
ill-formed maximal subpart counts as one column, as the U+FFFD an editor shows for it
(Unicode §3.9, "U+FFFD Substitution of Maximal Subparts").

``Locator`` is fed the input in chunks and asked about increasing offsets, so a stream of
any size is located in one pass and bounded memory; counting is done on whole segments
by ``bytes.count``/``bytes.translate`` (one code point per byte that is not a
continuation byte, RFC 3629 §3), never byte by byte in Python.

The excerpt shows the line around a finding with everything a terminal would not show
honestly made visible (``<U+202E>``, ``<C0 AF>`` for ill-formed bytes): never the raw
control, so a report line can neither hide nor reorder what it reports.  A long finding
(a run of invisible characters is one) shows its two ends, not all of it.
"""

from __future__ import annotations

import unicodedata2

CODEPOINTS, UTF16 = "codepoints", "utf16"
CONTEXT = 48  # bytes of context kept on each side of a finding for its excerpt

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


class Locator:
    """Line and column of increasing byte offsets in one input, fed in chunks.

    ``feed`` appends a chunk; ``at(offset)`` gives ``(line, column)``;
    ``ill_formed(start, end)`` steps over one ill-formed maximal subpart (one column).
    Offsets must not go backwards; bytes before ``keep`` are dropped on each ``feed``.
    """

    def __init__(self, columns: str = CODEPOINTS) -> None:
        self.utf16 = columns == UTF16
        self.buffer = b""
        self.buffer_start = 0  # absolute offset of buffer[0]
        self._pos = 0  # counted up to here
        self._line = 1
        self._col = 0  # columns since the start of the line, up to _pos

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

    def _units(self, segment: bytes) -> int:
        n = len(segment.translate(None, _CONTINUATION))
        if self.utf16:  # a four-byte sequence is a surrogate pair: two code units
            n += len(segment) - len(segment.translate(None, _FOUR_BYTE_LEADS))
        return n

    def _advance(self, offset: int) -> None:
        if offset <= self._pos:
            return
        segment = self.buffer[self._pos - self.buffer_start : offset - self.buffer_start]
        newline = segment.rfind(b"\n")
        if newline >= 0:
            self._line += segment.count(b"\n")
            segment = segment[newline + 1 :]
            self._col = 0
        self._col += self._units(segment)
        self._pos = offset

    def at(self, offset: int) -> tuple[int, int]:
        """``(line, column)`` of byte ``offset``, both 1-based."""
        self._advance(offset)
        return self._line, self._col + 1

    def ill_formed(self, start: int, end: int) -> None:
        """Step over the ill-formed subpart ``start..end``: it shows as one U+FFFD."""
        self._advance(start)
        if end > self._pos:
            self._col += 1
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
    left = data.rfind(b"\n", lo, start)
    left = lo if left < 0 else left + 1
    for _ in range(3):  # do not start inside a character (at most 3 continuation bytes)
        if left < start and 0x80 <= data[left] < 0xC0:
            left += 1
    hi = min(len(data), end + CONTEXT)
    right = data.find(b"\n", end, hi)
    if right < 0:
        right = hi
    elif right > end and data[right - 1] == 0x0D:  # CRLF: the CR ends the line too
        right -= 1
    return left, right


def excerpt(data: bytes, start: int, end: int) -> str:
    """Up to ``CONTEXT`` bytes each side of ``data[start:end]`` on its line, decoded,
    with invisible characters as ``<U+XXXX>`` and ill-formed bytes as ``<C0 AF>``."""
    start = max(0, min(start, len(data)))
    end = max(start, min(end, len(data)))
    left, right = _line_bounds(data, start, end)
    right_text = visible(data[end:right], trim_tail=right < len(data) and right == end + CONTEXT)
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
    ``trim_tail`` drops a character cut short at the end (by the excerpt's edge)."""
    out: list[str] = []
    bad = bytearray()  # adjacent ill-formed bytes show as one <C0 AF>
    pos = 0
    while pos < len(raw):
        try:
            text = raw[pos:].decode("utf-8")
            pos = len(raw)
        except UnicodeDecodeError as exc:
            text = raw[pos : pos + exc.start].decode("utf-8")
            cut = b""
            if trim_tail and exc.reason == "unexpected end of data":
                pos = len(raw)
            else:
                pos += exc.end
                cut = exc.object[exc.start : exc.end]
        else:
            cut = b""
        if text and bad:
            out.append("<" + " ".join(f"{b:02X}" for b in bad) + ">")
            bad.clear()
        out.append(_show(text))
        bad += cut
    if bad:
        out.append("<" + " ".join(f"{b:02X}" for b in bad) + ">")
    return "".join(out)


def _hidden(ch: str) -> bool:
    cp = ord(ch)
    if cp < 0x7F:
        return cp < 0x20
    if unicodedata2.category(ch) in _HIDDEN_CATEGORIES:
        return True
    return any(lo <= cp <= hi for lo, hi in _IGNORABLE_RANGES)


def _show(text: str) -> str:
    if text.isascii() and text.isprintable():
        return text
    out = []
    for ch in text:
        if ch == "\t":
            out.append(" ")
        elif ch == " " or not _hidden(ch):
            out.append(ch)
        else:
            out.append(f"<U+{ord(ch):04X}>")
    return "".join(out)


def units(text: str, columns: str) -> int:
    """Columns ``text`` takes: code points, or UTF-16 code units."""
    if columns == UTF16:
        return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)
    return len(text)
