"""text/* bodies, and ``TextStream``: a policy applied to a stream in bounded memory.

``TextStream`` is also what multipart fields are read with.  It cuts the stream just
before ASCII bytes, where no check of the policy can see a difference between the
pieces and the whole (see the class), so a body of any size is judged as if whole.
"""

from __future__ import annotations

import codecs
import functools

import unicodedata2

from .._categories import Category, category_of
from .._policy import Policy, PolicyError, accepts, sanitize
from .._policy.compiled import compiled_for, open_start
from ._body import GATHER, BodyCheck
from ._problems import Problem, cut_sequence, first_rejection, from_finding, too_long


@functools.lru_cache(maxsize=64)
def _unbounded(policy: Policy) -> Policy:
    """The policy without its length limits (TextStream counts those over the whole
    stream, not per piece)."""
    if policy.max_bytes is None and policy.max_code_points is None:
        return policy
    return policy.replace(max_bytes=None, max_code_points=None)


_NON_ASCII = bytes(range(0x80, 0x100))
_HOLD_MAX = 1 << 20  # longest run without an ASCII byte held whole (then cut: _safe_cut)
_CUT_SCAN = 4096  # characters searched back for a safe cut in such a run


class TextStream:
    """A policy applied to a byte stream in pieces, with the same verdict as on the whole.

    Pieces are cut just before an ASCII byte: that byte can neither continue a UTF-8
    sequence (RFC 3629 §3) nor be the second element of a canonical composition, a
    combining run or an emoji sequence (UAX #15, UTS #51), so every check of a piece
    sees what it would see in the whole.  Length limits are counted across pieces.
    """

    def __init__(self, policy: Policy, part: str, where: str) -> None:
        self.policy = policy
        self._piece_policy = _unbounded(policy)
        self.part = part
        self.where = where
        # The run since the last cut, as the pieces it came in: joined once, when it is
        # cut, so each byte is copied and scanned a bounded number of times whatever the
        # chunking (joining on every chunk was quadratic in the chunk count).
        self._held: list[bytes] = []
        self._held_size = 0
        self._base = 0  # stream offset of the held run: every byte before it passed
        # A policy that reveals hidden payloads: a cut must not split their carriers.
        self._payloads = Category.HIDDEN_PAYLOAD in compiled_for(policy).scanned
        self._points = 0

    @property
    def judged(self) -> int:
        """Bytes of the stream already checked (the held run is not)."""
        return self._base

    def feed(self, data: bytes) -> Problem | None:
        return self.feed_pieces([data], len(data))

    def feed_pieces(self, pieces: list[bytes], size: int) -> Problem | None:
        """The next ``size`` bytes of the stream, as consecutive pieces (a body's gathered
        chunks).  The run is cut before the last ASCII byte of the last piece; when that
        piece has none, the pieces are held as they are, uncopied and unscanned, so a run
        held whole is copied once, when it is cut (1 MiB without an ASCII byte
        in 4,096 chunks was joined twice).  A held run over ``_HOLD_MAX`` is joined and cut
        at its last ASCII byte, or else where no sequence spans the cut (``_safe_cut``:
        never inside an emoji tag or ZWJ sequence, a flag, a combining sequence), so the
        verdict does not depend on where the run crossed the limit, that is on the
        chunking; a run with no such place in its last characters is refused as too long
        (judged in parts, a run of marks over ``max_combining`` would pass, and an emoji
        tag sequence cut in two would be refused for its tags; where the cut would fall
        depends on the chunking)."""
        last = pieces[-1]
        cut = _last_ascii(last)  # only the new bytes are scanned, and usually one of them
        if cut < 0:
            self._held.extend(pieces)
            self._held_size += size
            if self._held_size <= _HOLD_MAX:
                return None
            held = b"".join(self._held)
            cut = _last_ascii(held)
            if cut <= 0:
                cut = _safe_cut(held)
            if cut <= 0:
                # No place leaves every sequence whole: judged in parts, the run could be
                # judged otherwise than whole, and where the limit falls in it depends on
                # the chunking, so it is refused whatever falls there.
                return cut_sequence(self.part, self.where)
            self._held, self._held_size = [held[cut:]], len(held) - cut
            return self._check(held[:cut], held[cut : cut + 1])
        if self._held or len(pieces) > 1:
            piece = b"".join([*self._held, *pieces[:-1], last[:cut]])
        else:
            piece = last[:cut]
        rest = last[cut:]
        if self._payloads and len(piece) <= _HOLD_MAX:  # not inside a hidden payload's carrier
            back = _open_start(piece, rest)
            if back < len(piece):
                piece, rest = piece[:back], piece[back:] + rest
        self._held, self._held_size = [rest], len(rest)
        return self._check(piece, rest[:1])

    def close(self) -> Problem | None:
        held = b"".join(self._held)
        self._held, self._held_size = [], 0
        return self._check(held)

    def _check(self, piece: bytes, following: bytes = b"") -> Problem | None:
        """Judge ``piece``; ``following`` is the stream's next byte (none at its end),
        which cannot continue a UTF-8 sequence: a sequence the piece leaves open is
        then cut short there, not by the end of the input (RFC 3629 §3)."""
        base = self._base
        self._base += len(piece)
        policy = self.policy
        if policy.max_bytes is not None and self._base > policy.max_bytes:
            return too_long(self.part, self.where)
        if not piece:
            return None
        if policy.max_code_points is None:
            if accepts(piece, self._piece_policy):
                return None
        else:  # the output's length is counted: one run makes it, or refuses
            try:
                self._points += len(sanitize(piece, self._piece_policy))
            except PolicyError:
                pass  # refused: named below
            else:
                return (
                    too_long(self.part, self.where)
                    if self._points > policy.max_code_points
                    else None
                )
        first = first_rejection(piece, self._piece_policy)
        assert first is not None  # (the policy refused it)
        if following and first.error is not None and first.end == len(piece):
            # the whole stream reads the open sequence with the byte after it
            first = first_rejection(piece + following, self._piece_policy)
            assert first is not None
        return from_finding(first, self.part, self.where, base)


_LOOKBACK = 1 << 16  # bytes before a cut searched for a carrier structure it would split


def _open_start(piece: bytes, rest: bytes) -> int:
    """Where ``piece`` (then ``rest``) may be cut at its end or before, so that no
    carrier structure of a hidden payload (``open_start``: a run with its neighbours,
    an annotation, marks after words) is split, looked for in the last ``_LOOKBACK``
    bytes: 0 (hold it all) for one that began with ``piece``; one that began before
    those bytes is split where it comes (each part of so long a structure is a
    payload of its own, refused as the whole is)."""
    start = max(0, len(piece) - _LOOKBACK)
    while start < len(piece) and 0x80 <= piece[start] <= 0xBF:
        start += 1
    back, splits = open_start(piece + rest[:4], start, len(piece))
    if splits and start == 0:
        return 0  # one begun with what is held: held on, up to _HOLD_MAX
    return back if back > start else len(piece)


def _last_ascii(data: bytes) -> int:
    """Index of the last ASCII byte, or -1.  In C: deleting every byte >= 0x80 leaves the
    ASCII bytes in order, and the last one's value occurs last where that byte is."""
    if data and data[-1] < 0x80:  # text with spaces or line breaks: usually at once
        return len(data) - 1
    for window in (data[-64:], data):  # the last ASCII byte is usually near the end
        ascii_bytes = window.translate(None, _NON_ASCII)
        if ascii_bytes:
            return data.rfind(ascii_bytes[-1:])
    return -1


_RI = range(0x1F1E6, 0x1F200)  # regional indicators: a flag is a pair (UTS #51 ED-14)
_JAMO_VT = (range(0x1160, 0x1200), range(0xD7B0, 0xD800))  # compose after L (UAX #15 §3)
# General categories of characters that continue what comes before them (marks,
# modifiers), or that checks read in runs (format characters), or that may be anything
# (unassigned, surrogates: bytes that are not UTF-8, read back by surrogateescape).
_CONTINUING = frozenset({"Mn", "Mc", "Me", "Sk", "Cf", "Cn", "Cs", "Co"})


def _starts_afresh(c: str) -> bool:
    """``c`` begins a new grapheme cluster that no sequence or composition reaches into
    (UAX #29 §3.1, UTS #51, UAX #15): not a mark, modifier, format character or joiner,
    not a character a policy flags, not a regional indicator or a medial jamo."""
    cp = ord(c)
    return (
        unicodedata2.category(c) not in _CONTINUING
        and unicodedata2.combining(c) == 0
        and category_of(cp) is None
        and cp not in _RI
        and not any(cp in r for r in _JAMO_VT)
    )


_JAMO_L = (range(0x1100, 0x1160), range(0xA960, 0xA980))  # compose with a following V


def _waits(c: str) -> bool:
    """``c`` may make one thing with the character after it: a joiner (an emoji ZWJ
    sequence, RFC 5892's contexts), a regional indicator (half a flag), a leading jamo,
    or a byte that is not UTF-8 (an open sequence, read back by surrogateescape)."""
    cp = ord(c)
    return (
        category_of(cp) is Category.JOINER
        or cp in _RI
        or any(cp in r for r in _JAMO_L)
        or 0xD800 <= cp <= 0xDFFF
    )


def _safe_cut(data: bytes) -> int:
    """A place in ``data`` (a run without ASCII) to cut it so that each check of the
    pieces sees what it sees in the whole: before a character that starts afresh
    (``_starts_afresh``) after one that waits for nothing (``_waits``), the two left
    apart by NFC -- so after a whole emoji tag sequence, never inside one.  Searched in
    the last ``_CUT_SCAN`` characters; 0 if there is none."""
    start = max(0, len(data) - 4 * _CUT_SCAN)
    while start < len(data) and 0x80 <= data[start] <= 0xBF:
        start += 1  # a continuation byte: the character began before the window
    text = data[start:].decode("utf-8", "surrogateescape")
    at = len(data)  # where text[i + 1] starts in data, then text[i] (one pass: linear)
    for i in range(len(text) - 1, 0, -1):
        before, after = ord(text[i - 1]), ord(text[i])
        at -= _utf8_length(after)
        if before in _RI or after in _RI:
            # regional indicators pair from the start of their run (UAX #29 GB12/13): a
            # cut is safe after a whole pair, before an indicator that starts one
            if before in _RI and _indicators_before(data, at) % 2:
                continue
            if after not in _RI and not _starts_afresh(text[i]):
                continue
        elif not _starts_afresh(text[i]):
            continue
        if _waits(text[i - 1]) and before not in _RI:
            continue
        pair = text[i - 1 : i + 1]
        if unicodedata2.normalize("NFC", pair) == pair:
            return at
    return 0


def _utf8_length(cp: int) -> int:
    """Bytes of code point ``cp`` in the data ``surrogateescape`` decoded it from: a
    surrogate is one undecodable byte (valid UTF-8 holds none, RFC 3629 §3)."""
    if cp < 0x80 or 0xD800 <= cp <= 0xDFFF:
        return 1
    return 2 if cp < 0x800 else 3 if cp < 0x10000 else 4


def _indicators_before(data: bytes, end: int) -> int:
    """How many regional indicators (F0 9F 87 A6..BF) stand in a row before ``end``."""
    n = 0
    while end >= 4 and data[end - 4 : end - 1] == b"\xf0\x9f\x87" and data[end - 1] >= 0xA6:
        n, end = n + 1, end - 4
    return n


class TextBody(BodyCheck):
    """text/* (the charset was checked with the headers)."""

    gather = GATHER

    def __init__(self, policy: Policy, limit: int | None) -> None:
        super().__init__(limit)
        self._text = TextStream(policy, "text", "text body")

    def _feed_pieces(self, pieces: list[bytes], size: int) -> Problem | None:
        return self._text.feed_pieces(pieces, size)

    def _close(self) -> Problem | None:
        return self._text.close()

    def _judged_size(self) -> int:
        return self._text.judged


class TextByContent(BodyCheck):
    """A body an accessor decodes whatever its label (``_readings``: "text"; aiohttp's
    and BlackSheep's ``request.text()``: the declared charset, else UTF-8, strictly).  It
    is text only if it decodes: one that does not is text to no one (the accessor
    raises), and neither is one over ``bound`` bytes (aiohttp's ``client_max_size``, past
    which ``read()`` raises).  So the policy's first problem is a verdict only once the
    body has ended decodable within the bound.

    ``hold``: nothing is handed over before then (at most ``bound`` bytes, or the body
    size limit, are held: aiohttp, whose ``content`` stream would otherwise hand the app
    what ``text()`` is refused).  Without it (ASGI: BlackSheep's ``text()`` decodes only
    once the last message has come, and adapters hold that one until ``close()``), bytes
    pass on as they are looked at, as bytes to every reader, and memory stays bounded
    whatever the body's size.  ``charset``: the declared one, when not UTF-8 (a policy's
    ``charsets`` widened): the text is decoded with it and judged as UTF-8."""

    gather = GATHER
    __slots__ = ("_bound", "_decoder", "_found", "_hold", "_recode", "_stream", "_void")

    def __init__(
        self,
        policy: Policy,
        limit: int | None,
        bound: int | None,
        *,
        hold: bool = True,
        charset: str = "utf-8",
    ) -> None:
        super().__init__(limit)
        self._stream: TextStream | None = TextStream(policy, "text", "body read as text")
        self._recode = charset != "utf-8"
        self._void = False  # not text: undecodable, or over the bound
        try:
            self._decoder = codecs.getincrementaldecoder(charset)("strict")  # the accessor's
        except LookupError:  # a charset the accessor cannot decode: text() raises
            self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
            self._void = True
        self._found: Problem | None = None
        self._bound = bound
        self._hold = hold

    def _feed_pieces(self, pieces: list[bytes], size: int) -> Problem | None:
        for piece in pieces:
            self._take(piece, final=False)
        return None

    def _take(self, piece: bytes, final: bool) -> None:
        if self._void:
            return
        if self._bound is not None and self.size > self._bound:
            self._void = True
            return
        try:
            text = self._decoder.decode(piece, final)
        except UnicodeDecodeError:
            self._void = True
            return
        stream = self._stream
        if stream is not None:
            if self._recode:  # the decoded text, as the UTF-8 the stream judges
                piece = text.encode("utf-8", "surrogatepass")
            found = stream.close() if final else stream.feed(piece)
            if found is not None:
                self._found, self._stream = found, None  # decoding goes on: it may void it

    def _close(self) -> Problem | None:
        self._take(b"", final=True)
        return None if self._void else self._found

    def _judged_size(self) -> int:
        return self.checked if self._void or not self._hold else 0
