"""text/* bodies, and ``TextStream``: a policy applied to a stream in bounded memory.

``TextStream`` is also what multipart fields are read with.  It cuts the stream just
before ASCII bytes, where no check of the policy can see a difference between the
pieces and the whole (see the class), so a body of any size is judged as if whole.
"""

from __future__ import annotations

import functools

from .._policy import Policy, accepts, inspect
from ._body import GATHER, BodyCheck
from ._problems import Problem, from_finding, too_long


@functools.lru_cache(maxsize=64)
def _unbounded(policy: Policy) -> Policy:
    """The policy without its length limits (TextStream counts those over the whole
    stream, not per piece)."""
    if policy.max_bytes is None and policy.max_code_points is None:
        return policy
    return policy.replace(max_bytes=None, max_code_points=None)


_NON_ASCII = bytes(range(0x80, 0x100))
_HOLD_MAX = 1 << 20  # longest run without an ASCII byte held whole (then cut at a lead byte)


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
        at its last ASCII byte, or else before its last lead byte."""
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
                cut = _last_lead(held)
            self._held, self._held_size = [held[cut:]], len(held) - cut
            return self._check(held[:cut], held[cut : cut + 1])
        if self._held or len(pieces) > 1:
            piece = b"".join([*self._held, *pieces[:-1], last[:cut]])
        else:
            piece = last[:cut]
        self._held, self._held_size = [last[cut:]], len(last) - cut
        return self._check(piece, last[cut : cut + 1])

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
        if policy.max_code_points is None and accepts(piece, self._piece_policy):
            return None
        report = inspect(piece, self._piece_policy)
        if not report.ok:
            first = report.rejections[0]
            if following and first.error is not None and first.end == len(piece):
                # the whole stream reads the open sequence with the byte after it
                first = inspect(piece + following, self._piece_policy).rejections[0]
            return from_finding(first, self.part, self.where, base)
        if policy.max_code_points is not None and report.text is not None:
            self._points += len(report.text)
            if self._points > policy.max_code_points:
                return too_long(self.part, self.where)
        return None


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


def _last_lead(data: bytes) -> int:
    """Index of the last byte that is not a continuation byte (80..BF), or len(data)."""
    for i in range(len(data) - 1, max(-1, len(data) - 5), -1):
        if not 0x80 <= data[i] <= 0xBF:
            return i
    return len(data)


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
