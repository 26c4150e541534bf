"""Byte offsets <-> code-point indices, computed only when there is something to place.

Findings on bytes input carry byte offsets into the caller's bytes (RFC 3629 §3: between
ill-formed parts the text re-encodes to exactly the input bytes), while the engine works
on the decoded text.  The scanner's byte patterns report byte offsets, which must become
text indices.  Both conversions run per finding or candidate, never per character of
clean input.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from .._errors import Utf8Error
from .._native import speedups


class IndexOfByte:
    """Byte offsets into ``data`` (the UTF-8 of a text) -> indices into that text, for
    non-decreasing queries; each byte is decoded at most once."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.b = 0
        self.i = 0

    def __call__(self, b: int) -> int:
        self.i += len(self.data[self.b : b].decode("utf-8", "surrogatepass"))
        self.b = b
        return self.i


class ByteOffsets:
    """Maps indices into the decoded text to byte offsets into the original bytes: the
    one code-point -> byte offset mapper (``sanitizer._policy.compiled`` lends it to the
    adapters).  Fastest for non-decreasing queries, each costing the text between it
    and the one before.

    Anchors sit at the start and at every ill-formed subpart given (one U+FFFD in the
    text, any number of bytes in the input); between anchors the text is valid and
    re-encodes to exactly the input bytes (RFC 3629 §3: one encoding per scalar value).
    Without ``errors`` the bytes are ``text`` encoded.  ``errors`` may be the first ones
    only (``find_errors(limit=)``: no object per error beyond the listed findings): then
    only indices up to the last one's U+FFFD (and its end) are mapped."""

    def __init__(
        self, text: str, errors: Sequence[Utf8Error] = (), error_index: Sequence[int] = ()
    ) -> None:
        self.text = text
        self.anchors_t = [0]
        self.anchors_b = [0]
        for err, t in zip(errors, error_index, strict=True):
            self.anchors_t += [t, t + 1]
            self.anchors_b += [err.start, err.end]
        self.anchored = bool(errors)  # an anchor after the start
        self.last = (0, 0)  # (index, byte) of the previous query

    def __call__(self, i: int) -> int:
        t, b = self.last  # from the previous query, unless an anchor is nearer
        if i < t or self.anchored:
            k = bisect.bisect_right(self.anchors_t, i) - 1
            if not self.anchors_t[k] <= t <= i:
                t, b = self.anchors_t[k], self.anchors_b[k]
        b += utf8_span(self.text, t, i)
        self.last = (i, b)
        return b

    def spans(self, places: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """``(self(start), self(end))`` for each of ``places``, in one call (the engine
        places up to ``max_findings`` findings: no Python call per finding)."""
        if self.anchored:
            return [(self(start), self(end)) for start, end in places]
        text = self.text
        t, b = self.last
        out = []
        for start, end in places:
            if start < t:  # back to the only anchor, the start
                t = b = 0
            b += utf8_span(text, t, start)
            begin = b
            b += utf8_span(text, start, end)  # end >= start
            t = end
            out.append((begin, b))
        self.last = (t, b)
        return out


def utf8_span(text: str, start: int, end: int) -> int:
    """The UTF-8 length of ``text[start:end]`` (0 <= start <= end <= len(text); a lone
    surrogate: 3 bytes): counted in C with no bytes made (a finding may span most of
    a text: a payload), else the length of its encoding."""
    if speedups is not None:
        return speedups.utf8_length(text, start, end)
    return len(text[start:end].encode("utf-8", "surrogatepass"))


def utf8_length(text: str, limit: int) -> int:
    """UTF-8 length of ``text``, or any value > limit as soon as it must exceed it."""
    if len(text) > limit:
        return len(text)
    if len(text) * 4 <= limit:
        return len(text)  # cannot exceed: a lower bound is enough
    return utf8_span(text, 0, len(text))
