"""``reveal(text)``: every payload hidden in invisible characters, and what it spells.

Text can say one thing to a person and another to a program (HOWTO §5.9.5), today most
often a language model.  Four channels carry bytes in characters nobody sees:

- **tags**: U+E0020..E007E copy ASCII one to one ("ASCII smuggling", UTS #51 §2.8), with or
  without U+E0001 LANGUAGE TAG / U+E007F CANCEL TAG (framing, not payload), also dressed as
  an emoji flag (U+1F3F4, tags, CANCEL TAG) that is not an RGI tag sequence;
- **variation selectors** after any base: one byte each, b < 16 -> U+FE00 + b, else
  U+E0100 + (b - 16) (Paul Butler, 2025);
- **zero-width bits** and **bidi-mark bits**: a run of invisible format characters (the
  categories INVISIBLE, JOINER, BIDI_MARK and BOM: ZWSP, ZWNJ, ZWJ, WJ, U+2062, U+2064,
  LRM, RLM, ALM, ...) holding two symbols for 0 and 1, in groups of 8 bits, or three
  when a separator stands between groups.

A carrier run is a maximal run of one channel's characters (a tag run is also cut after
each CANCEL TAG).  What is legitimate never yields a payload: an RGI emoji tag sequence
(``_sequences_data``), one selector after a base it has a registered sequence with
(StandardizedVariants.txt, emoji-variation-sequences.txt), VS15/VS16 after an emoji,
one of VS17..VS256 after an ideograph it has a registered ideographic variation sequence
with (the Ideographic Variation Database, UTS #37: ``_sequences_data.IVD_VERSION``; any
other is a one-byte payload), a run of fewer than 8 bit symbols or of one symbol only
(joiners in words, a mark beside a number, emoji ZWJ sequences, word-separating ZWSP).
Mongolian free variation selectors carry no bytes and are never a payload.

Bits have no fixed reading: each polarity and bit order (and, with three symbols, each
choice of separator, groups read as bytes or as code points) is tried, on the run and
on the run less a symbol at either end (a joiner of the word the payload was put next
to); the reading chosen yields well-formed UTF-8, then groups of 8, bytes rather than
code points, the most printable text, the most letters and digits, the fewest symbols
left out, most significant bit first and the lower code point as 0
(``Hidden.reading`` says which).  A
symbol left out stays in the run's span unless it is legitimate where it stands (a
joiner beside a letter or mark, a bidi mark beside anything but a carrier).

Cost: one C scan (``_speedups.scan``, tables built here from the class table: carriers
flagged, a lone bit symbol and VS16 after an emoji exempt by rule, so emoji and Persian
text rarely stop it; each VS17..VS256 stops it, as the class table cannot tell a
registered ideographic variation sequence: ``_speedups.reveal_scan`` goes past the
lone ones whose pair is registered) finds candidates; the walk from one carrier run to
the next (each run's extent, the next candidate) is one C pass (``_speedups.reveal_runs``)
up to a candidate only Python reads; a stretch of marks after words is read in one C
pass (``_speedups.word_marks``); Python runs only per carrier run, linear in it.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import itertools
import re
from array import array
from collections.abc import Callable, Iterable, Iterator

import unicodedata2

from .._categories import EMOJI, Category, Ranges, char_class, in_ranges
from .._decoder import decode
from .._native import speedups
from . import _classtable as ct
from ._blank_bits import blank_payloads, may_hold
from ._hidden import Channel, Hidden, Reading
from ._sequences import TAG_SEQUENCE, merge_ranges

__all__ = [
    "BIT_CATEGORIES",
    "CARRIER_CATEGORIES",
    "MIN_BITS",
    "RUN_CAP",
    "carrier_rules",
    "carrier_run",
    "find",
    "iter_find",
    "iter_reveal",
    "ivd_registered",
    "read_run",
    "reveal",
    "word_end_marks",
    "words_back",
]

_C = Category
# The categories whose characters carry bits, and every category a carrier is in (the
# policy engine groups runs of these, and a policy scanning HIDDEN_PAYLOAD flags them).
BIT_CATEGORIES = frozenset({_C.INVISIBLE, _C.JOINER, _C.BIDI_MARK, _C.BOM})
CARRIER_CATEGORIES = BIT_CATEGORIES | {_C.TAG, _C.VARIATION_SELECTOR}
MIN_BITS = 8  # a run of fewer bit symbols holds not one byte: never a payload
# A carrier run longer than this is read from its first RUN_CAP characters (its span is
# the whole run): a reader of pieces holds that much of it, whatever the run's length.
RUN_CAP = 1 << 16

TAGS: Ranges = (TAG_SEQUENCE.block,)
SELECTORS: Ranges = merge_ranges(
    ct.SEQUENCE_SETS[ct.VS_STANDARD], ct.SEQUENCE_SETS[ct.VS_IDEOGRAPHIC]
)
BITS: Ranges = merge_ranges(*(c.ranges for c in BIT_CATEGORIES))
ANNOTATIONS: Ranges = ((0xFFF9, 0xFFFB),)  # interlinear annotation anchor, separator, end
_ANCHOR, _SEPARATOR, _TERMINATOR = "\ufff9", "\ufffa", "\ufffb"
# The characters of each kind of carrier run: a run is a maximal run of one of these
# (an annotation is read from its anchor to its terminator instead).
CHANNEL_RANGES: tuple[Ranges, ...] = (TAGS, SELECTORS, BITS, ANNOTATIONS)
_SELECTORS_AT, _BITS_AT, _ANNOTATION_AT = 1, 2, 3  # their indices
# What ends a word for a bit symbol put after it: a space, a line break, the end.
BLANKS: Ranges = merge_ranges(_C.WHITESPACE.ranges, _C.LINE_BREAK.ranges)
_NEAR = 48  # characters first searched for the next mark after a word (one word on)
MAX_WORD_GAP = 7  # words without a mark between two marks of one stretch (an ASCII
# payload, a mark for each 1 bit, has at most 7 zero bits in a row between letters)
_LANGUAGE_TAG = 0xE0001
_CANCEL_TAG = TAG_SEQUENCE.end
_CANCEL_CHAR = chr(_CANCEL_TAG)
_PRESENTATION = (0xFE0E, 0xFE0F)  # VS15 text, VS16 emoji presentation (UTS #51 §1.4.3)
_SUPPLEMENT = SELECTORS[-1][0]  # U+E0100 VARIATION SELECTOR-17

# -- the tables: registered sequences (generated), byte maps ------------------------------


def _parsed(lines: tuple[str, ...]) -> Ranges:
    """Generated lines of hex code points (``lo`` or ``lo-hi``) as ranges."""
    ranges = []
    for token in " ".join(lines).split():
        lo, _, hi = token.partition("-")
        ranges.append((int(lo, 16), int(hi or lo, 16)))
    return tuple(ranges)


@functools.cache
def _registered() -> dict[int, Ranges]:
    """VS1..VS16 -> the bases it has a registered sequence with (``_sequences_data``)."""
    from . import _sequences_data as data

    return {s: _parsed(lines) for s, lines in data.VARIATION_SEQUENCES.items()}


@functools.cache
def _ivd_bounds(selector: int) -> array[int]:
    """The ideographs VS17..VS256 ``selector`` has a registered ideographic variation
    sequence with (``_sequences_data``, IVD), as flat bounds ``lo0, hi0 + 1, lo1, ...``:
    a base is registered when ``bisect_right`` lands at an odd index.  Parsed per
    selector on first use, 4 bytes a bound."""
    from . import _sequences_data as data

    lines = data.IDEOGRAPHIC_VARIATION_SEQUENCES.get(selector, ())
    return array("I", (b for lo, hi in _parsed(lines) for b in (lo, hi + 1)))


def ivd_registered(base: int, selector: int) -> bool:
    """Whether ``base`` followed by VS17..VS256 ``selector`` is a registered ideographic
    variation sequence (UTS #37; the IVD release ``_sequences_data.IVD_VERSION``)."""
    return bisect.bisect_right(_ivd_bounds(selector), base) % 2 == 1


@functools.cache
def _rgi_tag_specs() -> frozenset[str]:
    from . import _sequences_data as data

    return frozenset(data.RGI_TAG_SPECS)


# Tag characters -> the byte each copies (LANGUAGE TAG and CANCEL TAG frame, carry none);
# selectors -> their byte (Butler): both as latin-1 characters, for str.translate.
_TAG_BYTES = {cp: chr(cp - 0xE0000) for cp in range(TAGS[0][0], TAGS[0][1] + 1)}
_TAG_BYTES.update({_LANGUAGE_TAG: None, _CANCEL_TAG: None})  # type: ignore[dict-item]
_SELECTOR_BYTES = {0xFE00 + b: chr(b) for b in range(16)}
_SELECTOR_BYTES.update({_SUPPLEMENT + b - 16: chr(b) for b in range(16, 256)})
_SELECTOR_BYTE = {cp: c.encode("latin-1") for cp, c in _SELECTOR_BYTES.items()}


@functools.cache
def _run_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """Patterns matching a run of tags, of selectors, of bit symbols (from its start)."""
    return tuple(  # type: ignore[return-value]
        re.compile(f"[{char_class(ranges)}]+") for ranges in (TAGS, SELECTORS, BITS)
    )


# -- the prefilter: candidates, in C or with a pattern ------------------------------------

# A carrier class's rule for the C scan: None (no carrier), () (always a candidate), or
# (prev_ok, next_ok), 257 bytes each by class (256: no such character): a candidate
# unless both allow (the layout of ``_classtable.RULES_OFFSET``).
CarrierRule = tuple[()] | tuple[bytes, bytes] | None


@functools.cache
def carrier_rules(word_ends: bool = True) -> tuple[CarrierRule, ...]:
    """Per class of the class table, whether the C scan must stop there for ``reveal``:
    every class of a carrier category (Mongolian free variation selectors aside, not
    U+180E MONGOLIAN VOWEL SEPARATOR, a bit symbol of their block) and of the interlinear
    annotation characters, a bit symbol unless neither neighbour is one and a letter
    or the like follows (a run of one is no payload, unless it ends a word: one mark
    after each word of a stretch is one), VS16 unless right after an emoji, with
    no selector after it (a legitimate emoji presentation sequence).  VS17..VS256 always:
    whether one makes a registered ideographic variation sequence depends on the pair
    (``ivd_registered``), which no class tells.  What the scan skips, ``find`` would
    find legitimate: the rules only save work.  Not ``word_ends``: a lone bit symbol
    is never a candidate, even before a blank (inside a stretch of marks after words
    read already, where a run of fewer than ``MIN_BITS`` holds nothing).  Shared by
    ``_c_tables`` and by policies that scan HIDDEN_PAYLOAD (``compiled``)."""
    table = ct.class_table()
    info = table.info
    not_bits = bytes(cat not in BIT_CATEGORIES for cat, _ in info).ljust(256, b"\0") + b"\1"
    # after a bit symbol: neither a bit symbol, nor a space, a line break or the end,
    # where a mark put after a word stands (``_word_marks``)
    in_word = (
        bytes(
            cat not in BIT_CATEGORIES and cat not in (_C.WHITESPACE, _C.LINE_BREAK)
            for cat, _ in info
        ).ljust(256, b"\0")
        + b"\0"
    )
    annotation = {table.class_of(cp) for lo, hi in ANNOTATIONS for cp in range(lo, hi + 1)}
    emoji_base = (
        bytes(ct.EMOJI in fl and cat not in CARRIER_CATEGORIES for cat, fl in info).ljust(
            256, b"\0"
        )
        + b"\0"
    )
    no_selector = (
        bytes(cat is not _C.VARIATION_SELECTOR for cat, _ in info).ljust(256, b"\0") + b"\1"
    )
    out: list[CarrierRule] = []
    for c, (cat, fl) in enumerate(info):
        if c in annotation:
            out.append(())
        elif cat not in CARRIER_CATEGORIES or (
            cat is _C.VARIATION_SELECTOR and ct.VS_MONGOLIAN in fl
        ):
            out.append(None)
        elif cat in BIT_CATEGORIES:
            out.append((not_bits, in_word if word_ends else not_bits))
        elif ct.VS16 in fl:
            out.append((emoji_base, no_selector))
        else:
            out.append(())
    return tuple(out)


@functools.cache
def _c_tables(word_ends: bool = True) -> tuple[bytes, bytes, bytes]:
    """``_speedups.scan``'s tables for ``reveal``: ``carrier_rules`` as flags and rules."""
    table = ct.class_table()
    flags = bytearray(256)
    rule = bytearray(256)
    rules: list[bytes] = []
    for c, carrier in enumerate(carrier_rules(word_ends)):
        if carrier is None:
            continue
        flags[c] = 1
        if carrier:
            tables = carrier[0] + carrier[1]
            if tables not in rules:
                rules.append(tables)
            rule[c] = rules.index(tables) + 1
    prefilter = ct.prefilter([b for b in range(0x7F) if flags[table.class_of(b)]])
    return table.stage1, table.stage2, bytes(flags + rule + prefilter) + b"".join(rules)


@functools.cache
def _candidate_pattern(word_ends: bool = True) -> re.Pattern[str]:
    """Without the C extension: every carrier character but a lone bit symbol inside a
    word, or any lone one if not ``word_ends`` (the rules of ``carrier_rules``)."""
    bits, blanks = char_class(BITS), char_class(BLANKS)
    always = char_class(merge_ranges(TAGS, SELECTORS, ANNOTATIONS))
    lone = f"|[{bits}](?=[{blanks}]|\\Z)" if word_ends else ""
    return re.compile(f"[{always}]|[{bits}]{{2,}}{lone}")


@functools.cache
def _word_end_pattern() -> re.Pattern[str]:
    """A bit symbol put after a word: after a character that is no bit symbol nor blank,
    before a blank or the end."""
    bits, blanks = char_class(BITS), char_class(BLANKS)
    return re.compile(f"(?<=[^{bits}{blanks}])[{bits}](?=[{blanks}]|\\Z)")


def word_end_marks(text: str, lo: int, hi: int | None = None) -> Iterator[int]:
    """The indices of the bit symbols put after a word (``_word_end_pattern``) in
    ``text[lo:hi]``, as a piece that ends at ``hi`` sees them."""
    pattern = _word_end_pattern()
    found = pattern.finditer(text, lo) if hi is None else pattern.finditer(text, lo, hi)
    return (m.start() for m in found)


@functools.cache
def _words_back_pattern(k: int) -> re.Pattern[str]:
    blanks = char_class(BLANKS)
    return re.compile(f"[^{blanks}]*(?:[{blanks}]+[^{blanks}]*){{0,{k}}}")


def words_back(text: str, pos: int, k: int) -> int:
    """Where the word before ``pos`` begins when ``k`` = 0, the word ``k`` words before
    it else (words are runs between blanks): looked at in windows that double, so the
    cost is the distance gone back."""
    size = 256
    pattern = _words_back_pattern(k)
    while True:
        lo = max(0, pos - size)
        back = text[lo:pos][::-1]
        m = pattern.match(back)
        assert m is not None  # the pattern matches the empty string
        if m.end() < len(back) or lo == 0:
            return pos - m.end()
        size *= 4


@functools.cache
def _blank_runs() -> re.Pattern[str]:
    return re.compile(f"[{char_class(BLANKS)}]+")


@functools.cache
def _words_ahead() -> re.Pattern[str]:
    """From a blank: up to ``MAX_WORD_GAP`` + 1 words ahead (blanks, then a word)."""
    blanks = char_class(BLANKS)
    return re.compile(f"(?:[{blanks}]+[^{blanks}]*){{1,{MAX_WORD_GAP + 1}}}")


def _after_virama(text: str, i: int) -> bool:
    """Whether the joiner ``text[i]`` follows a virama (UAX #31 §2.3 A2, B: a half form,
    a chillu): where it belongs, no mark after a word."""
    return (
        i > 0
        and unicodedata2.combining(text[i - 1]) == 9
        and in_ranges(ord(text[i]), _C.JOINER.ranges)
    )


def _candidates(text: str, start: int, word_ends: bool = True) -> int:
    """The index of the first candidate at or after ``start``, or ``len(text)``."""
    if speedups is not None:
        return int(speedups.scan(text, *_c_tables(word_ends), -1, start))
    m = _candidate_pattern(word_ends).search(text, start)
    return len(text) if m is None else m.start()


# -- finding ------------------------------------------------------------------------------


def find(text: str) -> list[Hidden]:
    """The payloads of ``text``, in order, with code-point offsets."""
    return list(iter_reveal(text))


def iter_reveal(text: str) -> Iterator[Hidden]:
    """The payloads of ``text`` one at a time, in order: those of ``iter_find``, and
    those in blanks (``_blank_bits``: a few a text at most)."""
    blank = blank_payloads(text, _best_reading, _best_of)
    if not blank:
        return iter_find(text)
    return heapq.merge(iter_find(text), blank, key=lambda h: (h.start, h.end))


def iter_find(text: str) -> Iterator[Hidden]:
    """The payloads of ``text``, in order, one at a time: a caller that stops at the
    first (a refusing policy) reads no further.  Each carrier run is read once; a run
    of one character costs a few dictionary lookups (``_channels``), no search, and
    none inside a stretch of marks after words (``_word_marks``, read in one pass)."""
    n = len(text)
    channels = _channels()
    runs_from: Callable[[bool, int, int, int], tuple[list[tuple[int, int, int]], int, int]] | None
    runs_from = None
    if speedups is not None:
        scan, tables = speedups.scan, _c_tables()
        candidates = functools.partial(scan, text, tables[0], tables[1], tables[2], -1)
        # inside a stretch of marks after words read already: no lone bit symbol
        within = functools.partial(scan, text, *_c_tables(word_ends=False), -1)
        # the runs up to one only Python reads, found in one C pass (at most `limit` a
        # call, doubling: a caller that stops at the first payload reads no further)
        runs_from = functools.partial(speedups.reveal_runs, text, *tables, c_kinds(), ivd_table())
    else:
        candidates = functools.partial(_candidates, text)
        within = functools.partial(_candidates, text, word_ends=False)
    i = candidates(0)
    done = 0  # where the last run read ended
    words_done = 0  # where the last stretch of marks after words ended
    terminator = -1  # the next U+FFFB at or after an annotation character (n: none)
    ivd_on = False  # candidates go past lone registered ideographic variation sequences
    limit = 8
    while i < n:
        if runs_from is not None and i >= words_done:
            runs, i, done = runs_from(ivd_on, i, done, limit)
            limit = min(2 * limit, 4096)
            for run_start, run_end, channel in runs:
                yield from read_run(text, channel, run_start, run_end)
            if i >= n:
                break
        k = channels.get(ord(text[i]))
        if k is None:  # no carrier (the scan's rules stop at nothing else)
            i += 1
        elif k == _ANNOTATION_AT:
            if terminator < i:
                terminator = text.find(_TERMINATOR, i)
                terminator = n if terminator < 0 else terminator
            found, i = _annotation(text, i, terminator)
            yield found
        else:
            start = i
            while start > done and channels.get(ord(text[start - 1])) == k:
                start -= 1  # the scan may stop at a run's second character (U+180E)
            end = i + 1
            if end < n and channels.get(ord(text[end])) == k:
                end = _run_patterns()[k].match(text, end).end()  # type: ignore[union-attr]
            if k == _SELECTORS_AT and ord(text[i]) >= _SUPPLEMENT and speedups is not None:
                ivd = functools.partial(speedups.reveal_scan, text, *_c_tables(), c_kinds())
                candidates = functools.partial(ivd, ivd_table())  # lone registered ones:
                ivd_on = True  # nothing to read, gone past in C from here on
            if k == _BITS_AT and end - start == 1 and start >= words_done:
                if _word_end_pattern().match(text, start):
                    marks, words_done = _word_marks(text, start)
                    if marks is not None:
                        yield marks
            yield from read_run(text, k, start, end)
            i = end
        done = i
        if i < words_done:  # a lone bit symbol there holds nothing: skipped in one scan
            i = within(i)
            if i < words_done:
                continue
            i = words_done
        i = candidates(i)


def _annotation(text: str, i: int, terminator: int) -> tuple[Hidden, int]:
    """The interlinear annotation at ``text[i]`` (Unicode §23.8: anchor U+FFF9, the
    annotated text, separator U+FFFA, the annotation, terminator U+FFFB ``terminator``,
    ``len(text)`` when there is none) and where it ends.  The payload is the annotation
    (from the separator on, to the terminator or, unterminated on its line, to the end
    of the line: what an annotation holds is read within its line, so a reader of
    pieces cut after line feeds reads it whole); a terminator alone carries nothing."""
    n = len(text)
    c = text[i]
    if c == _TERMINATOR:
        return Hidden(i, i + 1, Channel.ANNOTATION, b"", None), i + 1
    eol = text.find("\n", i, terminator)  # an annotation ends its line at the latest
    end = terminator + 1 if terminator < n and eol < 0 else n if eol < 0 else eol
    stop = min(terminator, end)
    sep = i if c == _SEPARATOR else text.find(_SEPARATOR, i, stop)
    note = "" if sep < 0 else text[sep + 1 : stop]
    payload = note.encode("utf-8", "surrogatepass")
    return Hidden(i, end, Channel.ANNOTATION, payload, None), end


def _word_marks(text: str, start: int) -> tuple[Hidden | None, int]:
    """The stretch of bit symbols put after words that begins at ``text[start]`` (one
    after each word carries a bit a word), as a payload when it holds at least
    ``MIN_BITS`` marks, a mark after at least one word in three, and at most
    ``MAX_WORD_GAP`` unmarked words between two marks; and where the stretch ends (the
    next stretch is looked for from there).  A joiner after a virama (UAX #31 §2.3 A2,
    B: a half form, a chillu) is where it belongs, no mark.  When every word has a mark
    and they are two symbols, the marks are read as a run of bits; else the payload is
    empty (the marks carry bits, in a reading that is not tried).  The stretch is read
    in one C pass (``_speedups.word_marks``) when it can tell, else by
    ``_stretch_reference``."""
    if _after_virama(text, start):
        return None, start + 1
    stretch = None
    if speedups is not None:
        stage1, stage2, tables = _c_tables()
        stretch = speedups.word_marks(
            text, stage1, stage2, tables, c_kinds(), start, _NEAR, MAX_WORD_GAP
        )
    if stretch is None:
        stretch = _stretch_reference(text, start)
    symbols, last, words, every_word, stretch_end = stretch
    if len(symbols) < MIN_BITS or 3 * len(symbols) < words:
        return None, stretch_end
    first = start
    # (every mark a bidi mark: one C-speed match, the marks of a stretch can be many)
    marks = _bidi_marks_only().fullmatch(symbols) is not None
    channel = Channel.BIDI_MARK_BITS if marks else Channel.ZERO_WIDTH_BITS
    best = _best_reading(symbols) if every_word and len(set(symbols)) == 2 else None
    if best is None:
        return Hidden(first, last + 1, channel, b"", None), stretch_end
    payload, reading, _, _ = best
    return Hidden(first, last + 1, channel, payload, reading), stretch_end


def _stretch_reference(text: str, start: int) -> tuple[str, int, int, bool, int]:
    """The stretch of marks after words from the mark ``text[start]`` (not after a
    virama): its marks in order, the index of its last, the words it spans, whether
    every word has a mark, and where it ends.  The statement ``_speedups.word_marks`` follows."""
    marks = [start]
    words = 1  # words of the stretch
    every_word = True
    marked, blanks, ahead = _word_end_pattern(), _blank_runs(), _words_ahead()
    pos = start
    n = len(text)
    while True:  # the next mark within MAX_WORD_GAP + 1 words: each search is bounded
        m = marked.search(text, pos + 1, min(n, pos + _NEAR))  # most often the next word
        gap = 0 if m is None else len(blanks.findall(text, pos + 1, m.start()))
        if m is None or gap - 1 > MAX_WORD_GAP or _after_virama(text, m.start()):
            region = ahead.match(text, pos + 1)
            if region is None:
                stretch_end = n
                break
            stop = region.end() + 1  # the lookahead sees what follows the last word
            m = marked.search(text, pos + 1, stop)
            while m is not None and _after_virama(text, m.start()):
                m = marked.search(text, m.start() + 1, stop)
            if m is None:
                stretch_end = region.end()
                break
            gap = len(blanks.findall(text, pos + 1, m.start()))
        j = m.start()
        words += gap
        every_word = every_word and gap == 1
        marks.append(j)
        pos = j
    return "".join(text[j] for j in marks), marks[-1], words, every_word, stretch_end


@functools.cache
def c_kinds() -> bytes:
    """The byte per class of the class table ``_speedups.word_marks``, ``reveal_scan``
    and ``reveal_runs`` read: 1 a bit symbol, 2 a blank (``BLANKS``), 4 a joiner, 8 a
    combining mark (a virama is one), 16 a selector (``SELECTORS``), 32 a tag
    (``TAGS``), 64 a class of the interlinear annotation characters (``ANNOTATIONS``,
    and the other format characters of their class: where ``reveal_runs`` leaves the
    walk to Python)."""
    table = ct.class_table()
    annotation = {table.class_of(cp) for lo, hi in ANNOTATIONS for cp in range(lo, hi + 1)}
    out = bytearray(256)
    for c, (cat, fl) in enumerate(table.info):
        out[c] = (
            (cat in BIT_CATEGORIES)
            | (cat in (_C.WHITESPACE, _C.LINE_BREAK)) << 1
            | (cat is _C.JOINER) << 2
            | (ct.MARK in fl) << 3
            | (ct.VS_STANDARD in fl or ct.VS_IDEOGRAPHIC in fl) << 4
            | (cat is _C.TAG) << 5
            | (c in annotation) << 6
        )
    return bytes(out)


@functools.cache
def ivd_table() -> bytes:
    """``_speedups.reveal_scan``'s table of registered ideographic variation sequences:
    uint32 words, the first selector (VS17), the number m of selectors up to the last
    with a registered sequence, m + 1 offsets, then each one's ``_ivd_bounds``."""
    from . import _sequences_data as data

    m = max(data.IDEOGRAPHIC_VARIATION_SEQUENCES) - _SUPPLEMENT + 1
    offsets = array("I", [0])
    bounds = array("I")
    for selector in range(_SUPPLEMENT, _SUPPLEMENT + m):
        bounds.extend(_ivd_bounds(selector))
        offsets.append(len(bounds))
    assert offsets.itemsize == 4
    return array("I", [_SUPPLEMENT, m]).tobytes() + offsets.tobytes() + bounds.tobytes()


def _lone_registered(text: str, j: int) -> bool:
    """Whether ``text[j]`` is a VS17..VS256 with no selector beside it that makes a
    registered ideographic variation sequence with the character before it: reveal
    finds nothing there."""
    channels = _channels()
    return (
        0 < j < len(text)
        and ord(text[j]) >= _SUPPLEMENT
        and channels.get(ord(text[j])) == 1
        and channels.get(ord(text[j - 1])) != 1
        and (j + 1 == len(text) or channels.get(ord(text[j + 1])) != 1)
        and ivd_registered(ord(text[j - 1]), ord(text[j]))
    )


def reveal_scan_reference(text: str, start: int) -> int:
    """The first candidate of reveal's scan at or after ``start`` (``len(text)``: none)
    that is no lone registered ideographic variation selector (``_lone_registered``): the
    statement ``_speedups.reveal_scan`` follows."""
    while True:
        j = _candidates(text, start)
        if not _lone_registered(text, j):
            return j
        start = j + 1


def reveal_runs_reference(
    text: str, ivd_on: bool, start: int, done: int, limit: int
) -> tuple[list[tuple[int, int, int]], int, int]:
    """The statement ``_speedups.reveal_runs`` follows: ``iter_find``'s walk from the
    candidate ``start`` (``done``: where the last run read ended), as (runs, next, done):
    the carrier runs it reads, (start, end, channel) each, at most ``limit``, and the
    candidate where it stopped: at ``limit``, the end, or one only Python reads (an
    annotation or a character of its class, a lone bit symbol, the first VS17..VS256
    while not ``ivd_on``).  The next candidate is ``reveal_scan_reference``'s when
    ``ivd_on``, ``_candidates``' else."""
    channels = _channels()
    kinds, class_of = c_kinds(), ct.class_table().class_of
    n = len(text)
    runs: list[tuple[int, int, int]] = []
    j = start
    while j < n and len(runs) < limit:
        cp = ord(text[j])
        if kinds[class_of(cp)] & 64:  # (an annotation, or a character of its class)
            break
        k = channels.get(cp)
        if k is None:
            done = j + 1
            j = reveal_scan_reference(text, j + 1) if ivd_on else _candidates(text, j + 1)
            continue
        s, e = j, j + 1
        while s > done and channels.get(ord(text[s - 1])) == k:
            s -= 1
        while e < n and channels.get(ord(text[e])) == k:
            e += 1
        if k == _SELECTORS_AT and not ivd_on and ord(text[j]) >= _SUPPLEMENT:
            break
        if k == _BITS_AT and e - s == 1:
            break
        runs.append((s, e, k))
        done = e
        j = reveal_scan_reference(text, e) if ivd_on else _candidates(text, e)
    return runs, j, done


@functools.cache
def _channels() -> dict[int, int]:
    """Each carrier code point -> the index of its channel in ``CHANNEL_RANGES``."""
    return {
        cp: k
        for k, ranges in enumerate(CHANNEL_RANGES)
        for lo, hi in ranges
        for cp in range(lo, hi + 1)
    }


def channel_of(cp: int) -> int | None:
    """The index into ``CHANNEL_RANGES`` of the carrier runs ``cp`` belongs to, or None."""
    return _channels().get(cp)


def carrier_run(text: str, start: int, end: int) -> list[Hidden]:
    """The payloads whose carrier runs meet ``text[start:end]``, in order: what a run of
    carrier characters that the policy engine reports as one finding carries."""
    i = start
    while i > 0 and _is_carrier(ord(text[i - 1])):
        i -= 1  # the run may begin before the characters the policy reported
    out: list[Hidden] = []
    while i < end:
        i = _run_at(text, i, out)
    return [h for h in out if h.start < end and h.end > start]


def _run_at(text: str, i: int, out: list[Hidden]) -> int:
    """Read the carrier run that starts at ``text[i]``: append its payloads to ``out``
    and return where the run ends."""
    k = channel_of(ord(text[i]))
    if k is None:
        return i + 1
    end: int = _run_patterns()[k].match(text, i).end()  # type: ignore[union-attr]
    out.extend(read_run(text, k, i, end))
    return end


def read_run(text: str, k: int, start: int, end: int) -> Iterable[Hidden]:
    """The payloads of the carrier run ``text[start:end]`` of channel ``k`` (an index
    into ``CHANNEL_RANGES``, not the annotations).  A run longer than ``RUN_CAP``
    characters is one payload over the whole run, read from its first ``RUN_CAP``
    characters: what a reader of a long text in pieces can hold of it (``_pieces``)."""
    if end - start <= RUN_CAP:
        return _READERS[k](text, start, end)
    found = list(_READERS[k](text, start, start + RUN_CAP))
    if not found:
        return ()
    if k == 0:  # a tag run cut at CANCEL TAGs: one payload, their bytes in order
        payload = b"".join(h.payload for h in found)
        return (Hidden(found[0].start, end, Channel.TAGS, payload, None),)
    first = found[0]
    return (Hidden(first.start, end, first.channel, first.payload, first.reading),)


def _is_carrier(cp: int) -> bool:
    return in_ranges(cp, TAGS) or in_ranges(cp, SELECTORS) or in_ranges(cp, BITS)


def _tag_payloads(text: str, start: int, end: int) -> list[Hidden]:
    """The tag run ``text[start:end]``, cut after each CANCEL TAG: every piece but an RGI
    emoji tag sequence (U+1F3F4, an RGI tag_spec, CANCEL TAG) is a payload."""
    run = text[start:end]
    if _CANCEL_CHAR not in run or run == _CANCEL_CHAR:  # one piece, no tag_spec
        payload = run.translate(_TAG_BYTES).encode("latin-1")
        return [Hidden(start, end, Channel.TAGS, payload, None)]
    out = []
    piece = start
    while piece < end:
        stop = text.find(chr(_CANCEL_TAG), piece, end)
        stop = end if stop < 0 else stop + 1
        run = text[piece:stop]
        spec = run[:-1].translate(_TAG_BYTES) if run[-1] == chr(_CANCEL_TAG) else None
        rgi = (
            spec is not None
            and piece > 0
            and ord(text[piece - 1]) == TAG_SEQUENCE.base
            and len(spec) == len(run) - 1
            and spec in _rgi_tag_specs()
        )
        if not rgi:
            payload = run.translate(_TAG_BYTES).encode("latin-1")
            out.append(Hidden(piece, stop, Channel.TAGS, payload, None))
        piece = stop
    return out


def _selector_ok(text: str, i: int) -> bool:
    """Whether the one selector ``text[i]`` makes a legitimate sequence with its base."""
    if i == 0:
        return False
    base, selector = ord(text[i - 1]), ord(text[i])
    if selector >= _SUPPLEMENT:  # an ideographic variation sequence (UTS #37), if registered
        return ivd_registered(base, selector)
    if in_ranges(base, _registered()[selector]):
        return True
    return selector in _PRESENTATION and in_ranges(base, EMOJI)


def _selector_payloads(text: str, start: int, end: int) -> tuple[Hidden, ...]:
    if end - start == 1:  # one selector: its byte, unless its sequence is registered
        if _selector_ok(text, start):
            return ()
        payload = _SELECTOR_BYTE[ord(text[start])]
        return (Hidden(start, end, Channel.VARIATION_SELECTORS, payload, None),)
    found = _selector_payload(text, start, end)
    return () if found is None else (found,)


def _bit_payloads(text: str, start: int, end: int) -> tuple[Hidden, ...]:
    if end - start < MIN_BITS:
        return ()
    found = _bit_payload(text, start, end)
    return () if found is None else (found,)


def _selector_payload(text: str, start: int, end: int) -> Hidden | None:
    """The selector run ``text[start:end]`` as a payload, or None for one selector that
    makes a legitimate sequence.  When the first makes one and more follow, it is left
    out if that makes the rest read better (UTF-8 where the whole run is not, or more
    printable): Butler's payload after an emoji that already had its VS16."""
    first_ok = _selector_ok(text, start)
    if end - start == 1 and first_ok:
        return None
    payload = text[start:end].translate(_SELECTOR_BYTES).encode("latin-1")
    if first_ok:
        whole, rest = _quality(payload)[:2], _quality(payload[1:])[:2]
        if rest[0] and rest > whole:
            return Hidden(start + 1, end, Channel.VARIATION_SELECTORS, payload[1:], None)
    return Hidden(start, end, Channel.VARIATION_SELECTORS, payload, None)


# -- bits ---------------------------------------------------------------------------------

_SAMPLE = 256  # characters of a candidate reading whose printability is weighed


def _quality(payload: bytes) -> tuple[bool, float, float]:
    """(well-formed UTF-8, share of printable characters, share of letters, digits and
    spaces), the shares in its first ``_SAMPLE`` characters: how much it reads as text."""
    try:
        text = payload.decode("utf-8")
        ok = True
    except UnicodeDecodeError:
        text = payload.decode("utf-8", "replace")
        ok = False
    sample = text[:_SAMPLE]
    if not sample:
        return ok, 0.0, 0.0
    if sample.isascii():  # (letters and digits, then spaces: counted in C)
        words = (sum(map(str.isalnum, sample)) + sample.count(" ")) / len(sample)
        if sample.isprintable():
            return ok, 1.0, words
    else:  # spaces of any kind (NBSP, U+3000: not isprintable()) read as text too
        words = sum(1 for c in sample if c.isalnum() or _space(c)) / len(sample)
    shown = sum(1 for c in sample if c.isprintable() or c in "\t\n\r" or _space(c))
    return ok, shown / len(sample), words


def _space(c: str) -> bool:
    """A space a text may hold: SPACE, or a non-ASCII White_Space (NBSP, U+3000, ...)."""
    return c == " " or (c >= "\xa0" and c.isspace())


_Candidate = tuple[tuple[object, ...], bytes, Reading, int, int]


def _fixed_groups(body: str, zero: int, one: int, sep: int | None) -> list[_Candidate]:
    """Readings of ``body`` (two symbols, a multiple of 8) in groups of 8 bits: as bytes,
    and as code points U+0000..00FF (``charCodeAt`` padded to 8 bits: Latin-1 letters are
    one group, which as a byte would be no UTF-8)."""
    bits = body.translate({zero: "0", one: "1"})
    size = len(bits) // 8
    out: list[_Candidate] = []
    for msb in (True, False):
        value = int(bits, 2) if msb else int(bits[::-1], 2)
        payload = value.to_bytes(size, "big" if msb else "little")
        reading = Reading(zero, one, sep, msb, "byte")
        quality = _quality(payload)
        out.append(((*quality, True, True), payload, reading, 0, 0))
        if not quality[0]:  # bytes 80..FF that are no UTF-8: each may be a code point
            as_points = payload.decode("latin-1").encode("utf-8")
            reading = Reading(zero, one, sep, msb, "code point")
            out.append(((*_quality(as_points), False, True), as_points, reading, 0, 0))
    return out


def _code_points(values: list[int]) -> bytes | None:
    """Groups read as code points, UTF-16 surrogate pairs joined (JavaScript's
    ``charCodeAt``), as UTF-8; None when a value is past U+10FFFF."""
    if max(values) > 0x10FFFF:
        return None
    text = "".join(map(chr, values))
    try:  # surrogate pairs -> their character
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        pass
    return text.encode("utf-8", "surrogatepass")


def _one_group(body: str, zero: int, one: int) -> list[_Candidate]:
    """``body`` (two symbols, at most 21) as one code point written without leading
    zeros: what a ``charCodeAt`` encoder writes for a one-character payload, where no
    separator shows."""
    payload = _code_points([int(body.translate({zero: "0", one: "1"}), 2)])
    if payload is None:
        return []
    reading = Reading(zero, one, None, True, "code point")
    return [((*_quality(payload), False, False), payload, reading, 0, 0)]


def _split_groups(body: str, sep: int) -> list[str] | None:
    """``body`` cut at ``sep`` (between groups only: a separator at either end is a
    symbol to leave out, ``_best_reading``), or None if a group is empty or longer than
    a code point's 21 bits."""
    groups = body.split(chr(sep))
    if min(map(len, groups)) == 0 or max(map(len, groups)) > 21:
        return None
    return groups


def _variable_groups(body: str, zero: int, one: int, sep: int) -> list[_Candidate]:
    """Readings of separated groups of any length: as bytes (all of at most 8 bits) and
    as code points (UTF-16 code units pair up: JavaScript's ``charCodeAt``), most
    significant bit first, as a number is written (``toString(2)``: no leading zeros)."""
    out: list[_Candidate] = []
    digits = body.translate({zero: "0", one: "1", sep: " "}).split()
    fits_byte = max(map(len, digits)) <= 8
    for msb in (True,):  # a number written without leading zeros: most significant first
        values = [int(g, 2) for g in digits]
        if fits_byte:
            payload = bytes(values)
            reading = Reading(zero, one, sep, msb, "byte")
            out.append(((*_quality(payload), True, False), payload, reading, 0, 0))
        points = _code_points(values)
        if points is None:
            continue
        payload = points
        reading = Reading(zero, one, sep, msb, "code point")
        out.append(((*_quality(payload), False, False), payload, reading, 0, 0))
    return out


def _readings(body: str) -> list[_Candidate]:
    """Every reading of ``body`` worth scoring (see the module docstring).  With three
    symbols, a separator that leaves groups of 8 is read as such; only when none does,
    the rarest symbol is taken as the separator of groups of any length (a data symbol
    is rarer than the separator only in payloads of nearly all zero or all one bits)."""
    symbols = sorted(map(ord, set(body)))
    out: list[_Candidate] = []
    if len(symbols) == 2:
        for zero, one in itertools.permutations(symbols):
            if len(body) % 8 == 0:
                out += _fixed_groups(body, zero, one, None)
            if len(body) <= 21:
                out += _one_group(body, zero, one)
        return out
    if len(symbols) != 3:
        return out
    variable: list[int] = []
    for sep in symbols:
        groups = _split_groups(body, sep)
        if groups is None:
            continue
        data = [s for s in symbols if s != sep]
        if min(map(len, groups)) == max(map(len, groups)) == 8:
            joined = "".join(groups)
            for zero, one in itertools.permutations(data):
                out += _fixed_groups(joined, zero, one, sep)
        else:
            variable.append(sep)
    if not out and variable:
        sep = min(variable, key=lambda s: body.count(chr(s)))
        data = [s for s in symbols if s != sep]
        for zero, one in itertools.permutations(data):
            out += _variable_groups(body, zero, one, sep)
    return out


def _best_reading(run: str) -> tuple[bytes, Reading, int, int] | None:
    """The reading ``find`` chooses for a run of bit symbols, with how many symbols it
    leaves out at the start and at the end; None when none decodes the run."""
    best: tuple[tuple[object, ...], bytes, Reading, int, int] | None = None
    best_cut = 0
    n = len(run)
    symbols = len(set(run))
    for cut_start, cut_end in ((0, 0), (1, 0), (0, 1), (1, 1)):
        body = run[cut_start : n - cut_end]
        if len(body) < MIN_BITS:
            break
        if best is not None and best[0][:3] == (True, True, 1.0) and best_cut < cut_start + cut_end:
            break  # printable UTF-8 in whole groups: leaving out more never reads better
        # more than three symbols in the body (a symbol left out at an end is gone from
        # it only if it stands nowhere else): no reading (``_readings``), none to score
        lost = (cut_start and run.find(run[0], 1, n - cut_end) < 0) + (
            cut_end
            and run[-1] != (run[0] if cut_start else "")
            and run.find(run[-1], cut_start, n - 1) < 0
        )
        if symbols - lost > 3:
            continue
        for (ok, printable, words, unit_byte, uniform), payload, reading, _, _ in _readings(body):
            key = (
                ok,
                uniform,  # an encoder's structure (8 bits a group) beats what reads well
                printable,
                -(cut_start + cut_end),  # the whole run as code points beats a part
                unit_byte,  # of it as bytes (a symbol left out changes the groups)
                words,
                reading.msb_first,
                reading.zero < reading.one,
            )
            if best is None or key > best[0]:
                best = (key, payload, reading, cut_start, cut_end)
                best_cut = cut_start + cut_end
    if best is None:
        return None
    return best[1], best[2], best[3], best[4]


def _best_of(bodies: list[str]) -> tuple[bytes, Reading, int] | None:
    """The best reading as bytes, most significant bit first (``_best_reading``'s order,
    nothing left out) of any of ``bodies`` (one run aligned several ways), and which
    one it reads: the strict reading of blanks (``_blank_bits``), where legitimate
    spacing must not read as text by chance."""
    best: tuple[tuple[object, ...], bytes, Reading, int] | None = None
    for k, body in enumerate(bodies):
        for (ok, printable, words, unit_byte, uniform), payload, reading, _, _ in _readings(body):
            if not (unit_byte and reading.msb_first):
                continue
            key = (ok, uniform, printable, words)
            if best is None or key > best[0]:
                best = (key, payload, reading, k)
    return None if best is None else (best[1], best[2], best[3])


def _legitimate_here(text: str, i: int, outer: int) -> bool:
    """Whether the bit symbol ``text[i]``, left out of a reading, stands where it belongs:
    a joiner beside a letter or mark (``outer``: the index on its far side), a bidi mark
    beside any character but a carrier."""
    if not 0 <= outer < len(text):
        return False
    cp, neighbour = ord(text[i]), text[outer]
    if in_ranges(cp, _C.JOINER.ranges):
        return str(unicodedata2.category(neighbour))[0] in "LM"
    if in_ranges(cp, _C.BIDI_MARK.ranges):
        return not _is_carrier(ord(neighbour))
    return False


_BIDI_MARKS = _C.BIDI_MARK.ranges


@functools.cache
def _bidi_marks_only() -> re.Pattern[str]:
    return re.compile(f"[{char_class(_BIDI_MARKS)}]*")


def _bit_channel(symbols: set[int]) -> Channel:
    """BIDI_MARK_BITS when every symbol read is a bidi mark, else ZERO_WIDTH_BITS."""
    marks = all(in_ranges(cp, _BIDI_MARKS) for cp in symbols)
    return Channel.BIDI_MARK_BITS if marks else Channel.ZERO_WIDTH_BITS


def _bit_payload(text: str, start: int, end: int) -> Hidden | None:
    """The run of bit symbols ``text[start:end]`` as a payload, or None when it is too
    short (< MIN_BITS) or made of one symbol."""
    if end - start < MIN_BITS:
        return None
    run = text[start:end]
    if len(set(run)) < 2:
        return None
    best = _best_reading(run)
    if best is None:
        return Hidden(start, end, _bit_channel({ord(c) for c in set(run)}), b"", None)
    payload, reading, cut_start, cut_end = best
    channel = _bit_channel({reading.zero, reading.one, reading.separator or reading.zero})
    if cut_start and _legitimate_here(text, start, start - 1):
        start += 1
    if cut_end and _legitimate_here(text, end - 1, end):
        end -= 1
    return Hidden(start, end, channel, payload, reading)


# How each channel's run is read, by its index in ``CHANNEL_RANGES``.
_READERS: tuple[Callable[[str, int, int], Iterable[Hidden]], ...] = (
    _tag_payloads,
    _selector_payloads,
    _bit_payloads,
)

# -- the public function --------------------------------------------------------------------


def reveal(text: str | bytes | bytearray | memoryview) -> tuple[Hidden, ...]:
    """Every payload hidden in ``text``, in order (see the module docstring).

    ``text`` is a str, or bytes decoded strictly first (``sanitizer.decode``: ill-formed
    UTF-8 raises ``Utf8Error``); offsets are then byte offsets, as ``inspect`` gives."""
    if isinstance(text, str):
        return tuple(find(text))
    if not isinstance(text, (bytes, bytearray, memoryview)):
        raise TypeError(f"reveal() argument 'text' must be str or bytes, not {type(text).__name__}")
    if speedups is not None:
        data = bytes(text)
        clean = speedups.clean(data, *_c_tables(), -1)
        if clean is not None and not may_hold(data):
            return ()  # well-formed, the scan found no candidate, and no blank may carry
    decoded = decode(text)
    found = find(decoded)
    if not found:
        return ()
    return tuple(_in_bytes(decoded, found))


def _in_bytes(text: str, found: list[Hidden]) -> list[Hidden]:
    """``found`` with code-point offsets into ``text`` turned into UTF-8 byte offsets."""
    points = sorted({p for h in found for p in (h.start, h.end)})
    to_byte: dict[int, int] = {}
    prev = position = 0
    for point in points:
        position += len(text[prev:point].encode("utf-8"))
        to_byte[point] = position
        prev = point
    return [
        Hidden(to_byte[h.start], to_byte[h.end], h.channel, h.payload, h.reading) for h in found
    ]
