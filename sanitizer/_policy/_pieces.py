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
   (which escapes the next: ``\\u0041``), nor inside ``//``, ``/*`` or ``*/`` (comment
   delimiters that ``sanitizer._source_gate`` looks for).  An ASCII character starts no
   sequence that the character before it belongs to, composes with nothing before it
   and is no mark, so no character rule, sequence, mark run, identifier, escape or
   delimiter spans such a cut;
3. else (a window with neither: only hostile or generated input, such as a flood of
   one non-ASCII character) before the last character that continues nothing: not a
   mark, joiner, variation selector, tag, regional indicator, emoji modifier or Hangul
   vowel or final jamo, and not just after a joiner or regional indicator.  Such a cut
   is *forced*: an identifier may span it, which ``check_source_pieces`` reports.
   A forced cut is moved back to the start of a carrier run of hidden payloads
   (tags, selectors, bit symbols: ``_reveal``) it would split, so a payload is read
   and reported whole, unless the run began before the piece (longer than a piece).

``judges_lines_alone(policy)`` says whether ``inspect`` may be given the pieces one by
one: a policy that judges whole values (a byte or code-point limit, '.' and '..',
emptiness, the identifier checks of UTS #39) must see the whole text.
"""

from __future__ import annotations

import functools
import re

from .._categories import MARKS, Category, category_of, in_ranges
from . import _reveal

_WORD = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_DELIMITERS = frozenset({b"//", b"/*", b"*/"})
# Characters that continue the one before them (UAX #29 GB9, GB9c, GB12/13; UTS #51),
# beside marks and the categories below: regional indicators, emoji modifiers, and the
# Hangul vowel and final jamo that NFC composes with the syllable before (UAX #15 §1.1).
_CONTINUING_RANGES = ((0x1160, 0x11FF), (0xD7B0, 0xD7FF), (0x1F1E6, 0x1F1FF), (0x1F3FB, 0x1F3FF))
_CONTINUING_CATEGORIES = frozenset({Category.JOINER, Category.VARIATION_SELECTOR, Category.TAG})
_JOINING_BEFORE = ((0x200C, 0x200D), (0x1F1E6, 0x1F1FF))  # ZWNJ, ZWJ; regional indicators
_SEARCH = 1 << 12  # bytes searched backwards at a time for a cut inside a line
_FORCED_LOOKBACK = 64  # characters tried before a forced cut is taken as it comes


def _safe_after(x: int) -> bytes:
    """The ASCII bytes that may follow byte ``x`` across a cut (rule 2): ``x`` is ASCII
    or the last byte of a character."""
    if x == 0x5C:  # a backslash escapes what follows
        return b""
    word = x in _WORD or x >= 0x80  # a non-ASCII character: as if a letter
    return bytes(
        y for y in range(0x80) if not (word and y in _WORD) and bytes((x, y)) not in _DELIMITERS
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


def piece_end(data: bytes | memoryview, start: int, window: int) -> tuple[int, bool]:
    """``(end, forced)``: where the piece of UTF-8 ``data`` that starts at ``start`` ends,
    at most ``window`` (> 4) bytes on (the module's rules); ``forced`` for a rule 3 cut.
    The end of ``data`` when it is that near."""
    stop = start + window
    if stop >= len(data):
        return len(data), False
    raw = data if isinstance(data, bytes) else bytes(data)
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
    """Rule 3, and never inside a carrier run of hidden payloads when the run starts in
    the piece (``_before_carrier_run``: a payload is read, and reported, whole)."""
    at = _forced_cut(raw, start, stop)
    return _before_carrier_run(raw, start, at)


@functools.cache
def _carrier_chars(channel: int) -> str:
    """The characters of one channel of ``_reveal`` (tags, selectors, bit symbols)."""
    return "".join(
        chr(cp) for lo, hi in _reveal.CHANNEL_RANGES[channel] for cp in range(lo, hi + 1)
    )


def _before_carrier_run(raw: bytes, start: int, at: int) -> int:
    """``at``, or the start of the carrier run (``_reveal.channel_of``) that a cut at
    ``at`` would split, when that run starts after ``start`` (a run longer than a piece
    is cut all the same: memory is bounded by a piece)."""
    if at <= start or at >= len(raw):
        return at
    channel = _reveal.channel_of(_code_point(raw, at))
    if channel is None:
        return at
    prefix = raw[start:at].decode("utf-8")
    if not prefix or _reveal.channel_of(ord(prefix[-1])) != channel:
        return at
    kept = prefix.rstrip(_carrier_chars(channel))
    if not kept:
        return at
    return start + len(kept.encode("utf-8"))


def _forced_cut(raw: bytes, start: int, stop: int) -> int:
    """Rule 3: before the last character in ``raw[start + 1:stop + 1]`` that continues
    nothing and follows no joiner; after ``_FORCED_LOOKBACK`` characters without one,
    before the last character, whatever it is (a piece is never empty)."""
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
        if not continues(_code_point(raw, at)) and not in_ranges(
            _code_point(raw, prev), _JOINING_BEFORE
        ):
            return at
        at -= 1
    return first if first is not None else stop


def _code_point(raw: bytes, at: int) -> int:
    """The code point whose UTF-8 starts at ``raw[at]`` (valid text; U+FFFD for one that
    ``raw`` ends inside of)."""
    lead = raw[at]
    n = 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    return ord(raw[at : at + n].decode("utf-8", "replace")[0])
