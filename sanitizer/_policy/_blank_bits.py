"""Bits hidden in blanks: which space character stands in a gap, and trailing whitespace.

Three channels of ``reveal`` carry bits in characters that show as blank space, where a
reader sees nothing but ordinary spacing:

- **space bits**: U+0020 for one symbol, a space character that looks the same (U+00A0,
  U+2000..200A, U+202F, U+205F, U+3000) for the other, one in each gap between words or
  in a run of blanks;
- **Braille blanks**: the same with U+2800 BRAILLE PATTERN BLANK (So, shown as a space);
- **trailing whitespace**: the spaces and tabs at the ends of consecutive lines, one
  symbol each (whitespace steganography, as ``stegsnow``'s simplest form and the
  "invisible ink" of code review tools).

Ordinary text uses these characters too: French puts U+202F before ``;:!?`` and in
numbers, Japanese U+3000 between sentences, Markdown two spaces at a line's end.  So
a stretch is a payload only when it *reads as text* (``reads_as_text``: well-formed
UTF-8 of at least 4 printable characters, mostly letters or digits, not one repeated),
read as bytes, most significant bit first: legitimate spacing reads as controls (a gap
of 8 plain spaces is a NUL) or as one letter repeated.  The stretches: the blanks of one
paragraph (lines up to an empty line) from its first space character to its last, with
none more than ``_FAR`` plain gaps from the next; the trailing whitespace of
consecutive lines.  Each is read as bits (``_reveal``'s readings, groups of 8), aligned
on up to 7 plain gaps before its first space character (a payload's first bits may be
plain ones).

These channels are ``reveal``'s only: a refusing policy does not look for them (its C
pass would have to stop at every space), see docs/reveal.md.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterator

from .._native import speedups
from . import _classtable as ct
from ._hidden import Channel, Hidden, Reading

__all__ = ["blank_payloads", "reads_as_text"]

_SPACE = " "
_LOOKALIKE_SPACES = "\u00a0" + "".join(map(chr, range(0x2000, 0x200B))) + "\u202f\u205f\u3000"
_BRAILLE_BLANK = "\u2800"
_OTHER = _LOOKALIKE_SPACES + _BRAILLE_BLANK  # a blank that is not U+0020
_SPACES_RE = re.compile(f"[{_LOOKALIKE_SPACES}]")
_OTHER_RE = re.compile(f"[{_OTHER}]")
_SLOT_RE = re.compile(f"[ {_OTHER}]")
_PARAGRAPH_END = re.compile(r"\n[ \t\r]*\n")
# spaces and tabs before a line break (the class table's LINE_BREAK) or the end
_TRAILING_RE = re.compile("[ \t]+(?=[\n\x0b\x0c\r\x85\u2028\u2029]|\\Z)")
_FAR = 16  # plain gaps in a row that end a stretch (two bytes of zero bits)
# A stretch in a paragraph's blanks: space characters with fewer than _FAR plain ones
# between any two.
_STRETCH = re.compile(f"[^ ](?: {{0,{_FAR - 1}}}[^ ])*")
_MIN_CHARACTERS = 4  # a payload reads as text from 4 characters on
_MIN_SLOTS = 8 * _MIN_CHARACTERS  # a shorter stretch is never taken for text
_TRAILING_TEXT_HINTS = (" \n", "\t\n", " \r\n", "\t\r\n")

Reader = Callable[[str], "tuple[bytes, Reading, int, int] | None"]
BestOf = Callable[[list[str]], "tuple[bytes, Reading, int] | None"]


@functools.cache
def _c_space_tables() -> tuple[bytes, bytes, bytes]:
    """``_speedups.scan``'s tables stopping at the space characters other than U+0020
    (their classes of the class table hold nothing else) and at nothing else."""
    table = ct.class_table()
    classes = {table.class_of(ord(c)) for c in _LOOKALIKE_SPACES}  # theirs alone (a test)
    flags = bytearray(256)
    for c in classes:
        flags[c] = 1
    return table.stage1, table.stage2, bytes(flags + bytearray(256)) + ct.prefilter([])


@functools.cache
def _c_trailing_tables() -> tuple[bytes, bytes, bytes]:
    """``_speedups.scan``'s tables stopping at a line break right after a space or tab
    (the class of U+0009, U+0020, U+1680), and at nothing else: line breaks are rare,
    spaces are not, so the scan's ASCII prefilter skips between lines."""
    table = ct.class_table()
    blank, newline = table.class_of(0x20), table.class_of(0x0A)
    assert table.class_of(0x09) == blank and table.class_of(0x0D) == newline
    flags, rule = bytearray(256), bytearray(256)
    flags[newline], rule[newline] = 1, 1
    prev_ok = bytearray(b"\1" * 257)
    prev_ok[blank] = 0
    ascii_breaks = [b for b in range(0x80) if table.class_of(b) == newline]
    tables = bytes(flags + rule) + ct.prefilter(ascii_breaks) + bytes(prev_ok) + b"\1" * 257
    return table.stage1, table.stage2, tables


def has_trailing(text: str) -> bool:
    """Whether a space or tab ends a line of ``text`` (or the text): one C scan."""
    if text.endswith((" ", "\t")):
        return True
    if speedups is not None:
        return int(speedups.scan(text, *_c_trailing_tables(), -1, 0)) < len(text)
    return any(h in text for h in _TRAILING_TEXT_HINTS)


def has_spaces(text: str) -> bool:
    """Whether ``text`` holds a space character other than U+0020 (U+2800 aside): one C
    scan, skipping ASCII, or without it a pattern search."""
    if text.isascii():
        return False
    if speedups is not None:
        return int(speedups.scan(text, *_c_space_tables(), -1, 0)) < len(text)
    return _SPACES_RE.search(text) is not None


_LINE_TRAILING = re.compile("[ \t]+(?=[\x0b\x0c\r\x85\u2028\u2029]|\\Z)")


def open_start(text: str, cut: int) -> tuple[int, int]:
    """Where a piece whose text (to the end of the window it was cut from) is ``text``
    must end, at or before ``cut`` (an index into ``text``), so as not to split a
    stretch (``_pieces``), for each channel: before the trailing whitespace of the first of the
    consecutive lines before ``cut`` that have some (or of the line ``cut`` is in, when
    a blank ends it there); and, in a paragraph holding a space character other than
    U+0020, in a quiet stretch of its blanks (``_quiet_cut``)."""
    at = cut
    line = text.rfind("\n", 0, cut) + 1
    if cut and text[cut - 1] in " \t":
        at = len(text[:cut].rstrip(" \t"))
    while line > 0:  # the line before ``line``: does it end in a blank?
        prev = text.rfind("\n", 0, line - 1) + 1
        m = _LINE_TRAILING.search(text, prev, line - 1)
        if m is None:
            break
        at = m.start()
        line = prev
    para = _paragraph_start(text, cut)
    return at, _quiet_cut(text, para, cut)


# A cut in a paragraph's blanks is safe with _QUIET_BEFORE plain gaps since its last
# other space character (the stretch before has ended, padding included) and
# _QUIET_AFTER before the next (the payload after may begin with 7 plain ones).
_QUIET_BEFORE = _FAR + 8
_QUIET_AFTER = 8
_QUIET = re.compile(f" {{{_QUIET_BEFORE + _QUIET_AFTER},}}")


def _quiet_cut(text: str, para: int, cut: int) -> int:
    """``cut``, or the last index before it in the paragraph from ``para`` (which may go
    on past ``text``) before a blank with ``_QUIET_BEFORE`` plain gaps before it since
    the last other space character and ``_QUIET_AFTER`` after it up to the next: no
    stretch (``_paragraph``) spans a cut there.  Looked for in the ``_QUIET_LOOK``
    characters before ``cut``; else the paragraph's start (a paragraph longer than a
    piece is then cut where it comes)."""
    end = _PARAGRAPH_END.search(text, cut)
    hi = len(text) if end is None else end.start()
    if _OTHER_RE.search(text, para, hi) is None:
        return cut
    lo = max(para, cut - _QUIET_LOOK)
    known = lo == para  # the symbols begin with the paragraph's first blank
    k = len(_SLOT_RE.findall(text, lo, cut))  # the blanks before the cut
    symbols = "".join(_SLOT_RE.findall(text, lo, hi))
    last = max(symbols.rfind(c, 0, k) for c in _OTHER)  # -1: none seen
    following = [i for i in (symbols.find(c, k) for c in _OTHER) if i >= 0]
    nxt = min(following) if following else -1
    safe_before = k - 1 - last >= _QUIET_BEFORE or (last < 0 and known)
    safe_after = (nxt < 0 and end is not None) or (nxt if nxt >= 0 else len(symbols)) - k >= (
        _QUIET_AFTER
    )
    if safe_before and safe_after:
        return cut
    best = -1  # a symbol index to cut before
    lead = len(symbols) - len(symbols.lstrip(" "))  # plain gaps before the first other
    if known and lead >= _QUIET_AFTER and k > 0:
        best = min(lead - _QUIET_AFTER, k - 1)
    for m in _QUIET.finditer(symbols, 0 if not known else 1, k + _QUIET_AFTER):
        q = min(m.end() - _QUIET_AFTER, k - 1)
        if q >= m.start() + _QUIET_BEFORE:
            best = q
    if best < 0:
        return para
    slot = _SLOT_RE.search(text, lo)  # the index of symbol ``best`` in ``text``
    for _ in range(best):
        slot = _SLOT_RE.search(text, slot.end())  # type: ignore[union-attr]
    return slot.start()  # type: ignore[union-attr]


_QUIET_LOOK = 1 << 14  # characters before a cut searched for a quiet stretch of blanks


def _paragraph_start(text: str, end: int) -> int:
    """Where the paragraph that ``text[:end]`` ends in begins: after the last empty
    line (spaces, tabs and CR alone) before ``end``, or 0."""
    line = text.rfind("\n", 0, end)
    while line >= 0:
        prev = text.rfind("\n", 0, line)
        if prev >= 0 and not text[prev + 1 : line].strip(" \t\r"):
            return line + 1
        line = prev
    return 0


def reads_as_text(payload: bytes) -> bool:
    """Whether ``payload`` reads as text: UTF-8, at least ``_MIN_CHARACTERS``, every one
    printable (or a space), at least three letters or digits and three times as many of
    them as other non-space characters, at least three distinct characters and a third
    of its length (legitimate spacing that reads as letters by chance repeats one)."""
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if len(text) < _MIN_CHARACTERS or not all(c.isprintable() or c == " " for c in text):
        return False
    words = sum(1 for c in text if c.isalnum())
    others = sum(1 for c in text if not c.isalnum() and not c.isspace())
    distinct = len(set(text))
    return words >= 3 and words >= 3 * others and distinct >= 3 and 3 * distinct >= len(text)


def blank_payloads(text: str, best_reading: Reader, best_of: BestOf) -> list[Hidden]:
    """The space-bit, Braille-blank and trailing-whitespace payloads of ``text``, in
    order.  ``best_reading`` and ``best_of`` are ``_reveal``'s readings of a run of
    bit symbols (the whole run; the best of several alignments)."""
    out: list[Hidden] = []
    if has_spaces(text) or _BRAILLE_BLANK in text:
        out += _space_payloads(text, best_of)
    if has_trailing(text):
        out += _trailing_payloads(text, best_reading)
    out.sort(key=lambda h: (h.start, h.end))
    return out


def _space_payloads(text: str, best_of: BestOf) -> list[Hidden]:
    out: list[Hidden] = []
    n = len(text)
    pos = 0
    while pos < n:
        m = _OTHER_RE.search(text, pos)
        if m is None:
            break
        start = _paragraph_start(text, m.start())  # the paragraph: empty lines around
        end_m = _PARAGRAPH_END.search(text, m.start())
        para_start = max(pos, start)
        para_end = n if end_m is None else end_m.start()
        out += _paragraph(text, para_start, para_end, best_of)
        pos = para_end + 1
    return out


def _paragraph(text: str, lo: int, hi: int, best_of: BestOf) -> list[Hidden]:
    """The payloads in the blanks of ``text[lo:hi]`` (one paragraph): its blanks as a
    string of symbols, cut into stretches by a pattern (C loops, no Python a blank).
    When some space characters stand where typography puts them (``_typographic``:
    French U+202F before ``;:!?``, a digit group separator, ...), the blanks are also
    read without those (an encoder writes its bits in the gaps it finds, U+0020, around
    them), and the reading that finds more text is kept."""
    symbols = "".join(_SLOT_RE.findall(text, lo, hi))
    found = _stretches(text, symbols, lambda: _slots(text, lo, hi), best_of)
    kinds = set(symbols)
    kinds.discard(" ")
    if len(kinds) < 2 and kinds.isdisjoint(_TYPOGRAPHIC_SPACES):
        return found  # one other space character, which typography does not use: as read
    others = [(m.start(), m.group()) for m in _OTHER_RE.finditer(text, lo, hi)]
    strict = {i for i, _ in others if _typographic(text, i, False)}
    loose = {i for i, _ in others if _typographic(text, i, True)}
    if len(loose) == len(others):
        return found  # typography explains every one: read as they are (nothing left)
    if len(kinds) < 2 and not loose:
        return found
    # Without what typography explains (strictly, or with units too), each also with
    # one other space character alone besides U+0020: the reading that finds the most
    # text wins, the one that leaves out the fewest blanks among equals.
    base = [strict, loose] if strict != loose else [strict]
    dropped = [*base]
    for c in sorted(kinds) if len(kinds) > 1 else ():
        dropped += [d | {i for i, k in others if k != c} for d in base]
    every = _slots(text, lo, hi)
    score = (sum(len(h.payload) for h in found), 0)
    for drop in sorted(dropped, key=len):
        if not drop:
            continue
        kept = [i for i in every if i not in drop]
        other = _stretches(
            text, "".join(text[i] for i in kept), functools.partial(list, kept), best_of
        )
        if (sum(len(h.payload) for h in other), -len(drop)) > score:
            found, score = other, (sum(len(h.payload) for h in other), -len(drop))
    return found


def _slots(text: str, lo: int, hi: int) -> list[int]:
    return [x.start() for x in _SLOT_RE.finditer(text, lo, hi)]


# Where a space character other than U+0020 belongs (French and SI typography): before
# these, after « and ‹, between digits, between a number and its unit.
_TYPOGRAPHIC_SPACES = frozenset("\u00a0\u2007\u2008\u2009\u202f")
_BEFORE_PUNCTUATION = frozenset(";:!?»›%‰—")
_AFTER_PUNCTUATION = frozenset("«‹—")


def _typographic(text: str, i: int, units: bool) -> bool:
    """Whether the space character ``text[i]`` stands where typography puts it: before
    ``;:!?»%``, after ``«``, beside a dash, between digits, before a currency sign, and
    with ``units`` between a number and a word (``10 km``: also a gap where a payload
    may write its bits)."""
    if text[i] not in _TYPOGRAPHIC_SPACES or i == 0 or i + 1 >= len(text):
        return False
    before, after = text[i - 1], text[i + 1]
    if after in _BEFORE_PUNCTUATION or before in _AFTER_PUNCTUATION:
        return True
    if before.isdigit() and (after.isdigit() or (units and after.isalpha())):
        return True
    return unicodedata.category(after) == "Sc"  # a currency sign after its amount


def _stretches(
    text: str, symbols: str, positions: Callable[[], list[int]], best_of: BestOf
) -> list[Hidden]:
    """The payloads of ``symbols`` (blanks, in order; ``positions()`` their indices in
    ``text``, asked only for a payload), stretch by stretch."""
    out: list[Hidden] = []
    slots: list[int] | None = None  # each symbol's index in text: only for a payload
    floor = 0  # symbols before this belong to an earlier payload
    for m in _STRETCH.finditer(symbols):
        a, b = m.start(), m.end() - 1  # its first and last space character
        bodies: list[str] = []
        starts: list[int] = []
        for back in range(8):
            s0 = a - back
            if s0 < floor:
                break
            size = -(-(b - s0 + 1) // 8) * 8
            if size < _MIN_SLOTS or s0 + size > len(symbols):
                continue
            bodies.append(symbols[s0 : s0 + size])
            starts.append(s0)
        best = best_of(bodies) if bodies else None
        if best is None or not reads_as_text(best[0]):
            continue
        payload, reading, k = best
        s0, body = starts[k], bodies[k]
        if slots is None:
            slots = positions()
        channel = Channel.BRAILLE_BITS if _BRAILLE_BLANK in body else Channel.SPACE_BITS
        out.append(Hidden(slots[s0], slots[s0 + len(body) - 1] + 1, channel, payload, reading))
        floor = s0 + len(body)
    return out


def _trailing_payloads(text: str, best_reading: Reader) -> list[Hidden]:
    """Payloads in the trailing spaces and tabs of consecutive lines (found where a line
    break follows a space or tab: ``has_trailing``'s scan, or a pattern without C)."""
    out: list[Hidden] = []
    stretch: list[tuple[int, int]] = []
    prev_end = -1

    def close() -> None:
        if not stretch:
            return
        body = "".join(text[s:e] for s, e in stretch)
        if len(body) >= _MIN_SLOTS and len(set(body)) == 2:
            best = best_reading(body)
            if best is not None and reads_as_text(best[0]):
                payload, reading, _, _ = best
                out.append(
                    Hidden(
                        stretch[0][0],
                        stretch[-1][1],
                        Channel.TRAILING_WHITESPACE_BITS,
                        payload,
                        reading,
                    )
                )
        stretch.clear()

    for start, end in _trailing_runs(text):
        if stretch and text.count("\n", prev_end, start) != 1:
            close()
        stretch.append((start, end))
        prev_end = end
    close()
    return out


def _trailing_runs(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of the spaces and tabs before each line break (CR LF: before
    the CR) and at the end of ``text``, in order."""
    n = len(text)
    if speedups is None:
        for m in _TRAILING_RE.finditer(text):
            yield m.start(), m.end()
        return
    tables = _c_trailing_tables()
    i = int(speedups.scan(text, *tables, -1, 0))  # a line break after a blank
    while i < n:
        start = _run_back(text, i)
        if start < i:
            yield start, i
        i = int(speedups.scan(text, *tables, -1, i + 1))
    start = _run_back(text, n)
    if start < n:
        yield start, n


def _run_back(text: str, end: int) -> int:
    """Where the run of spaces and tabs that ends at ``end`` starts (its length: each
    run is walked once)."""
    start = end
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    return start
