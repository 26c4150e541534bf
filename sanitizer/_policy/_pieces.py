"""Where a long UTF-8 text may be cut so that its pieces are judged as the whole would be.

A reader that judges a file a piece at a time (``sanitizer check --policy``: memory
bounded by a piece, not by the file) must cut where no rule looks across the cut.
``piece_end`` chooses, in a window of the text:

1. just after the last line feed: U+000A composes with nothing and is a starter
   (UAX #15 §9: NFC and NFKC of the pieces are the pieces of the whole's), belongs to
   no emoji, variation or tag sequence (UTS #51), ends every run of marks, every bidi
   scope (UAX #9 BD7: a paragraph separator) and every identifier;
2. else, inside a line longer than the window, before an ASCII character that is
   not an identifier character ``[A-Za-z0-9_]`` (a space, punctuation), or between two
   ASCII characters that are not both identifier characters; never after a backslash
   (which escapes the next: ``\\u0041``) or a ``%`` before an identifier character (a
   printf conversion), nor inside ``//``, ``/*`` or ``*/`` (comment delimiters that
   ``sanitizer._source_gate`` looks for, also beside a character that is not ASCII: a
   look-alike of one) or a CR LF (a CR alone is one of its findings).  An ASCII
   character starts no sequence that the character before it belongs to, composes
   with nothing before it and is no mark, so no character rule, sequence, mark run,
   identifier, escape or delimiter spans such a cut;
3. else (a window with neither: only hostile or generated input, such as a flood of
   one non-ASCII character) before the last character that continues nothing: not a
   mark, joiner, variation selector, tag, regional indicator, emoji modifier or Hangul
   vowel or final jamo, not just after a joiner or regional indicator, nor between two
   characters of one carrier run (``cut_inside``).  Such a cut is *forced*: an
   identifier may span it, which ``check_source_pieces`` reports.  A window of
   ``_FORCED_LOOKBACK`` characters without such a place (a run of marks or joiners
   longer than that) is cut before its last character, inside a sequence: every reader
   refuses that cut (a ``too-long`` finding at it, ``CUT_SEQUENCE``), since the rules
   would judge the sequence -- a joiner's context, a run of marks against a policy's
   limit, an emoji or flag sequence, a run of carriers -- in two parts, which could
   pass what the whole is refused for; a reader that carries a carrier run over the
   cut (``carried``) reads that run whole.

Whichever rule cut, the cut is then moved back before a carrier structure of hidden
payloads (``_reveal``) that it would split or leave without the neighbour it is read
with (``open_start``): a run of tags, selectors or bit symbols with the character on
each side of it, an interlinear annotation open on its line, a stretch of marks after
words; with ``blanks`` (``sanitizer reveal``) also a stretch of lines with trailing
whitespace and a paragraph holding a space character other than U+0020 (``_blank_bits``).
So a payload is read, and reported, whole -- unless the structure began at the piece's
start (longer than a piece): then the cut stays, and a reader carries a run over the
cut (``carried``: the run's payload is read from its first ``_reveal.RUN_CAP``
characters, which a piece holds, its span is the whole run).

``judges_lines_alone(policy)`` says whether ``inspect`` may be given the pieces one by
one: a policy that judges whole values (a byte or code-point limit, '.' and '..',
emptiness, the identifier checks of UTS #39) must see the whole text.
"""

from __future__ import annotations

import functools
import re

from .._categories import MARKS, Category, category_of, in_ranges
from . import _blank_bits, _reveal

_WORD = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_DELIMITERS = frozenset({b"//", b"/*", b"*/", b"\r\n"})
# What the gate looks for after a look-alike of '/' or '*' (a comment's delimiter drawn
# with other punctuation): never cut off from the character before it.
_COMMENT_NEAR = frozenset(b"/*")
# Characters that continue the one before them (UAX #29 GB9, GB9c, GB12/13; UTS #51),
# beside marks and the categories below: regional indicators, emoji modifiers, and the
# Hangul vowel and final jamo that NFC composes with the syllable before (UAX #15 §1.1).
_CONTINUING_RANGES = ((0x1160, 0x11FF), (0xD7B0, 0xD7FF), (0x1F1E6, 0x1F1FF), (0x1F3FB, 0x1F3FF))
_CONTINUING_CATEGORIES = frozenset({Category.JOINER, Category.VARIATION_SELECTOR, Category.TAG})
_JOINING_BEFORE = ((0x200C, 0x200D), (0x1F1E6, 0x1F1FF))  # ZWNJ, ZWJ; regional indicators
# Why a reader refuses a cut inside a sequence (``cut_inside``): a ``too-long`` finding.
CUT_SEQUENCE = "a sequence longer than a piece of the text is cut here: judged in parts"
_SEARCH = 1 << 12  # bytes searched backwards at a time for a cut inside a line
_FORCED_LOOKBACK = 64  # characters tried before a forced cut is taken as it comes


@functools.cache
def _safe_after(x: int) -> bytes:
    """The ASCII bytes that may follow byte ``x`` across a cut (rule 2): ``x`` is ASCII
    or the last byte of a character."""
    if x == 0x5C:  # a backslash escapes what follows
        return b""
    # A non-ASCII character: as if a letter; '%' too (a printf conversion's letter
    # glued to a word is judged with it).
    word = x in _WORD or x >= 0x80 or x == 0x25
    return bytes(
        y
        for y in range(0x80)
        if not (word and y in _WORD)
        and bytes((x, y)) not in _DELIMITERS
        and not (x >= 0x80 and y in _COMMENT_NEAR)
    )


def _class(values: bytes) -> str:
    return "[" + "".join(f"\\x{b:02x}" for b in values) + "]"


_SAFE_PAIR: re.Pattern[bytes] | None = None  # compiled on first use (start-up)


def _safe_pair() -> re.Pattern[bytes]:
    """A byte that may end a piece inside a line: ASCII ``x`` followed by a ``y`` of
    ``_safe_after(x)`` (each distinct follower set once)."""
    global _SAFE_PAIR
    if _SAFE_PAIR is None:
        by_followers: dict[bytes, list[int]] = {}
        for x in range(0x100):
            followers = _safe_after(x)
            if followers:
                by_followers.setdefault(followers, []).append(x)
        alternatives = [f"{_class(bytes(xs))}(?={_class(ys)})" for ys, xs in by_followers.items()]
        _SAFE_PAIR = re.compile("|".join(alternatives).encode("ascii"))
    return _SAFE_PAIR


def continues(cp: int) -> bool:
    """Whether code point ``cp`` continues the character before it (rule 3)."""
    if cp < 0x80:
        return False
    if in_ranges(cp, MARKS) or in_ranges(cp, _CONTINUING_RANGES):
        return True
    return category_of(cp) in _CONTINUING_CATEGORIES


def cut_inside(before: int, after: int, carries: bool = False) -> bool:
    """Whether a cut between code points ``before`` and ``after`` (-1: none) falls inside
    a sequence that a rule judges whole: ``after`` continues ``before`` (``continues``),
    ``before`` joins with it (a joiner or regional indicator before a character that is
    not ASCII), both are of one carrier run (tags, selectors, bit symbols: a run is one
    finding), or ``after`` is ASCII where rule 2 never cuts (an escape, a comment
    delimiter, CR LF), but inside a word (an identifier: ``sanitizer._source_gate``
    judges that cut itself, in code).  Only a forced cut (rule 3) can: a line feed ends
    every sequence (rule 1).  ``carries``: the reader carries a carrier run over a cut
    (``carried``), so a cut between two characters of one run is not inside."""
    if before in (-1, 0x0A):
        return False
    if after < 0x80:  # where rule 2 would not cut, but inside a word (``_in_word``)
        x = before if before < 0x80 else 0x80
        word = x in _WORD or x >= 0x80 or x == 0x25
        return after not in _safe_after(x) and not (word and after in _WORD)
    run = _reveal.channel_of(before)
    if run is not None and run < _RUNS and run == _reveal.channel_of(after):
        return not carries
    return continues(after) or in_ranges(before, _JOINING_BEFORE)


def piece_end(
    data: bytes | memoryview, start: int, window: int, blanks: bool = False
) -> tuple[int, bool]:
    """``(end, forced)``: where the piece of UTF-8 ``data`` that starts at ``start`` ends,
    at most ``window`` (> 4) bytes on (the module's rules); ``forced`` for a rule 3 cut.
    The end of ``data`` when it is that near.  ``blanks``: also never inside a structure
    of ``_blank_bits`` (what ``reveal`` reads, not a policy)."""
    if start + window >= len(data):
        return len(data), False
    raw = data if isinstance(data, bytes) else bytes(data)
    stop = start + window
    end, forced = first = _rule_cut(raw, start, stop)
    split_first = False
    for moves in range(_MOVES):
        before, splits = open_start(raw, start, end, blanks, stop)
        if not moves:
            split_first = splits
        elif splits and not split_first:  # moved back into a structure begun at the
            return first  # piece's start: no better than where the rules cut
        if before >= end:
            break  # nothing open
        if raw[before - 1] == 0x0A or _safe_pair().match(raw, before - 1, before + 1):
            end = before  # a cut of rule 1 or 2 right there
        else:
            end, forced = _rule_cut(raw, start, before)
    return end, forced


def _rule_cut(raw: bytes, start: int, stop: int) -> tuple[int, bool]:
    """Rules 1-3: the cut at or before ``stop`` (> ``start``)."""
    newline = raw.rfind(b"\n", start, stop)
    if newline >= 0:
        return newline + 1, False
    pair = _safe_pair()
    last_x = stop - 1  # the byte before a cut (matched, its follower looked ahead at)
    while last_x >= start:
        first_x = max(start, last_x - _SEARCH + 1)
        found = None
        for found in pair.finditer(raw, first_x, last_x + 2):  # noqa: B007 (the last one)
            pass
        if found is not None:
            return found.end(), False
        last_x = first_x - 1
    return _forced(raw, start, stop), True


def _forced(raw: bytes, start: int, stop: int) -> int:
    """Rule 3 (``piece_end`` then moves it back before a carrier structure)."""
    return _forced_cut(raw, start, stop)


@functools.cache
def _carrier_chars(channel: int) -> str:
    """The characters of one channel of ``_reveal`` (tags, selectors, bit symbols)."""
    return "".join(
        chr(cp) for lo, hi in _reveal.CHANNEL_RANGES[channel] for cp in range(lo, hi + 1)
    )


def carried(piece: bytes, before: int) -> int:
    """How many bytes at the start of ``piece`` continue a run of tags, selectors or
    bit symbols that ``before`` (the code point that ends the piece before, -1: none)
    is in: a run longer than a piece, cut inside (``piece_end``)."""
    k = _reveal.channel_of(before) if before >= 0 else None
    if k is None or k >= _RUNS or not piece:
        return 0
    chars = _carrier_chars(k)
    head = piece[: 4 * _reveal.RUN_CAP + 4].decode("utf-8", "ignore")
    rest = head.lstrip(chars)
    if rest or len(head.encode("utf-8")) < len(piece):  # the run ends in the piece
        if not rest:  # the head was all carriers: count the rest, a bounded view at a time
            return _carried_long(piece, chars)
        return len(head[: len(head) - len(rest)].encode("utf-8"))
    return len(piece)


def carried_text(piece: str, before: int) -> int:
    """``carried`` for decoded text (the UTF-16/32 readers): how many characters at the
    start of ``piece`` continue the run that ``before`` is in."""
    k = _reveal.channel_of(before) if before >= 0 else None
    if k is None or k >= _RUNS or not piece:
        return 0
    return len(piece) - len(piece.lstrip(_carrier_chars(k)))


def _carried_long(piece: bytes, chars: str) -> int:
    """``carried`` for a piece whose first ``4 * RUN_CAP`` bytes continue the run."""
    at = 0
    step = 1 << 16
    while at < len(piece):
        view = piece[at : at + step + 4]
        cut = len(view) if at + len(view) >= len(piece) else step
        while cut < len(view) and 0x80 <= view[cut] <= 0xBF:
            cut += 1
        text = view[:cut].decode("utf-8")
        rest = text.lstrip(chars)
        if rest:
            return at + len(text[: len(text) - len(rest)].encode("utf-8"))
        at += cut
    return len(piece)


_RUNS = 3  # channels 0..2 of ``_reveal.CHANNEL_RANGES``: runs of characters
_MOVES = 16  # structures a cut is moved back over, at most (then cut as it is)


def open_start(
    raw: bytes, start: int, cut: int, blanks: bool = False, stop: int | None = None
) -> tuple[int, bool]:
    """``(before, splits)``: the byte offset a piece that starts at ``start`` must end at
    (or before) so as not to split a carrier structure that a cut at ``cut`` would
    split or touch (see the module docstring; ``cut`` when there is none), and whether
    the cut splits one that began at the piece's start (which no cut in the piece can
    avoid: it asks nothing).  ``stop``: the end of the window, what is seen after the
    cut (the blanks' stretches look a few gaps ahead)."""
    text = raw[start:cut].decode("utf-8", "surrogateescape")  # (a web body may be none)
    n = len(text)
    if not n:
        return cut, False
    limits = [n]
    last = _reveal.channel_of(ord(text[-1]))
    if last is not None and last < _RUNS:  # a run ends the piece: before it and its base
        limits.append(len(text.rstrip(_carrier_chars(last))) - 1)
    elif cut < len(raw):
        after = _reveal.channel_of(_code_point(raw, cut))
        if after is not None and after < _RUNS:  # a run starts the next: with its base
            limits.append(n - 1)
    line = text.rfind("\n") + 1
    note = _open_note().search(text, max(line, text.rfind("\ufffb", line) + 1))
    if note is not None:
        limits.append(note.start())
    limits.append(_marks_start(text))
    if blanks:
        ahead = raw[cut : max(cut, stop or cut)].decode("utf-8", "ignore")
        limits += _blank_bits.open_start(text + ahead, n)
    at = min(x for x in limits if x > 0)
    splits = min(limits) <= 0
    if at >= n:
        return cut, splits
    return start + len(text[:at].encode("utf-8", "surrogateescape")), splits


@functools.cache
def _open_note() -> re.Pattern[str]:
    """An interlinear annotation anchor or separator (open until its terminator)."""
    return re.compile("[\ufff9\ufffa]")


def _marks_start(text: str) -> int:
    """Where the stretch of marks after words (``_reveal._word_marks``) that may go on
    past the end of ``text`` begins: before the word of its first mark, or ``len(text)``
    when no mark is within ``MAX_WORD_GAP`` + 2 words of the end."""
    n = len(text)
    reach = _reveal.MAX_WORD_GAP + 2
    tail = _reveal.words_back(text, n, reach)
    last = None
    for m in _reveal.word_end_marks(text, tail):
        last = m
    if last is None:
        return n
    first = last
    while True:  # back mark by mark while the one before is near enough
        lo = _reveal.words_back(text, first, reach)
        found = None
        for m in _reveal.word_end_marks(text, lo, first):
            found = m
            break
        if found is None:
            break
        first = found
    return _reveal.words_back(text, first, 1)


def _forced_cut(raw: bytes, start: int, stop: int) -> int:
    """Rule 3: before the last character in ``raw[start + 1:stop + 1]`` that no cut
    before is inside a sequence at (``cut_inside``); after ``_FORCED_LOOKBACK``
    characters without one, before the last character, whatever it is (a piece is never
    empty: the readers then report the cut)."""
    at = stop
    first = None
    for _ in range(_FORCED_LOOKBACK):
        while at > start and 0x80 <= raw[at] <= 0xBF:  # back to a character's first byte
            at -= 1
        if at <= start:
            break
        if first is None:
            first = at
        prev = at - 1
        while prev > start and 0x80 <= raw[prev] <= 0xBF:
            prev -= 1
        if not cut_inside(_code_point(raw, prev), _code_point(raw, at)):
            return at
        at -= 1
    return first if first is not None else stop


def _code_point(raw: bytes, at: int) -> int:
    """The code point whose UTF-8 starts at ``raw[at]`` (valid text; U+FFFD for one that
    ``raw`` ends inside of)."""
    lead = raw[at]
    n = 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    return ord(raw[at : at + n].decode("utf-8", "replace")[0])
