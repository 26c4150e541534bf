"""The errors the strict decoder raises and reports, and how each is classified.

A ``Utf8Error`` is one maximal subpart of an ill-formed sequence (Unicode §3.9), with the
same ``start``/``end`` CPython gives.  On top it says *what* the bytes were (``kind``,
decided by the first byte and the second byte when it is a continuation byte), what a lax
RFC 2279 decoder would have read from them (``naive``), and a sentence for a security log
(``reason``).  All three are computed lazily from the bytes, so finding a million errors
costs little more than creating the exception objects.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import gc
from collections.abc import Callable, Iterator
from itertools import repeat

from ._charnames import describe
from ._grammar import (
    BOM,
    MAX_SCALAR,
    SURROGATES,
    is_tail,
    lax_capacity,
    lax_length,
    row_for_lead,
)

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _E = TypeVar("_E", bound=UnicodeDecodeError)


class ErrorKind(enum.Enum):
    """What an ill-formed subpart is, by its first byte (and second, when a continuation)."""

    UNEXPECTED_CONTINUATION = "unexpected-continuation"  # 80..BF with no lead before it
    INVALID_BYTE = "invalid-byte"  # FE, FF: never in any UTF-8 (RFC 3629 §1)
    OVERLONG = "overlong"  # non-shortest form (RFC 3629 §3, §10)
    SURROGATE = "surrogate"  # ED A0..BF: U+D800..DFFF, CESU-8 (RFC 3629 §3)
    OUT_OF_RANGE = "out-of-range"  # beyond U+10FFFF, 5- and 6-byte forms (RFC 3629 §3, §12)
    TRUNCATED = "truncated"  # valid lead cut short by a byte that cannot continue it
    INCOMPLETE = "incomplete"  # valid lead cut short by the end of the input

    @property
    def description(self) -> str:
        """What the subpart is, in a phrase (problem titles, rule descriptions)."""
        return _DESCRIPTIONS[self]

    @property
    def rationale(self) -> str:
        """Why it matters, citing the specification."""
        return _RATIONALES[self]


_DESCRIPTIONS = {
    ErrorKind.UNEXPECTED_CONTINUATION: "continuation byte 80..BF with no lead byte before it",
    ErrorKind.INVALID_BYTE: "byte FE or FF, which never appears in UTF-8",
    ErrorKind.OVERLONG: "longer-than-shortest encoding, can smuggle '/', '.' or NUL",
    ErrorKind.SURROGATE: "UTF-16 surrogate encoded as UTF-8 (CESU-8, WTF-8)",
    ErrorKind.OUT_OF_RANGE: "code point beyond U+10FFFF, incl. 5- and 6-byte forms",
    ErrorKind.TRUNCATED: "multi-byte sequence cut short by a byte that cannot continue it",
    ErrorKind.INCOMPLETE: "multi-byte sequence cut short by the end of the input",
}
_LAX = "Lax decoders read such bytes as characters a check never saw (RFC 3629 §10)."
_RATIONALES = {
    ErrorKind.UNEXPECTED_CONTINUATION: _LAX,
    ErrorKind.INVALID_BYTE: "FE and FF never appear in UTF-8 (RFC 3629 §1). " + _LAX,
    ErrorKind.OVERLONG: "An overlong form smuggles a character such as '/' or NUL past a "
    "check on its shortest form (RFC 3629 §10, CVE-2000-0884).",
    ErrorKind.SURROGATE: "Surrogates are not scalar values (RFC 3629 §3). " + _LAX,
    ErrorKind.OUT_OF_RANGE: "UTF-8 ends at U+10FFFF (RFC 3629 §3). " + _LAX,
    ErrorKind.TRUNCATED: _LAX,
    ErrorKind.INCOMPLETE: _LAX,
}


def _shortest_from(length: int) -> int:
    """The smallest value an RFC 2279 ``length``-byte form is the shortest for: below
    it the form is overlong (RFC 3629 §3)."""
    return 0 if length == 1 else lax_capacity(length - 1) + 1


@functools.cache  # at most 256 * 65 * 2 keys
def classify(first: int, second: int | None, at_end: bool) -> ErrorKind:
    """Kind of a subpart starting with ``first``; ``second`` only if it is a continuation.

    Derived from the grammar, not tabled: the values an RFC 2279 decoder could read from
    a form starting with these bytes (``grammar.LAX_LENGTH``) are all overlong, all beyond
    ``MAX_SCALAR``, or all ``SURROGATES`` (RFC 3629 §3), or else the bytes are a lead of
    ``UTF8_CHAR`` cut short.  A lead that starts no row and is not overlong (F5..FD: 5-
    and 6-byte forms) is out of range.
    """
    if is_tail(first):
        return ErrorKind.UNEXPECTED_CONTINUATION
    length = lax_length(first)
    if length == 0:  # FE, FF (RFC 3629 §1)
        return ErrorKind.INVALID_BYTE
    unknown = 6 * (length - 1)  # payload bits of the continuation bytes not yet seen
    low = (first & (0x7F >> length)) << unknown
    if second is not None and unknown:
        unknown -= 6
        low |= (second & 0x3F) << unknown
    high = low | ((1 << unknown) - 1)
    if high < _shortest_from(length):
        return ErrorKind.OVERLONG
    if low > MAX_SCALAR or row_for_lead(first) is None:
        return ErrorKind.OUT_OF_RANGE
    if SURROGATES[0] <= low and high <= SURROGATES[1]:
        return ErrorKind.SURROGATE
    return ErrorKind.INCOMPLETE if at_end else ErrorKind.TRUNCATED


def lax_read(data: bytes, start: int) -> tuple[int | None, int]:
    """What an RFC 2279 decoder reads at ``data[start]``: (code point or None, bytes taken).

    It takes the lead and then continuation bytes up to the length the lead announces; the
    value is None when the lead starts nothing (80..BF, FE, FF) or the bytes run out first.
    """
    lead = data[start]
    length = lax_length(lead)
    if length == 0:
        return None, 1
    value = lead & (0x7F >> length)
    taken = 1
    while taken < length and start + taken < len(data) and is_tail(data[start + taken]):
        value = (value << 6) | (data[start + taken] & 0x3F)
        taken += 1
    return (value if taken == length else None), taken


class Utf8Error(UnicodeDecodeError):
    """One ill-formed maximal subpart; a ``UnicodeDecodeError`` and so a ``ValueError``.

    Construct it as CPython does: ``Utf8Error("utf-8", data, start, end, "")``.
    ``object[start:end]`` is always the bad bytes, as for CPython's errors (error handlers
    and ``UnicodeDecodeError.__str__`` read them so).  An error from
    ``IncrementalDecoder`` holds in ``object`` only the decoder's buffer, which begins at
    stream offset ``base``: ``stream_start``/``stream_end`` are the offsets in the whole
    stream (``base + start``, ``base + end``; equal to ``start``/``end`` for one-shot
    decoding), and ``str()`` and ``as_dict()`` give those.
    """

    __module__ = "sanitizer"  # its public home, as tracebacks and pickles name it

    base: int = 0  # stream offset of object[0]
    final: bool = True  # whether object ends where the input ends

    # -- derived facts, computed on first use -------------------------------------------

    @property
    def stream_start(self) -> int:
        """Offset of the first bad byte in the whole stream (``base + start``)."""
        return self.base + self.start

    @property
    def stream_end(self) -> int:
        """Offset after the last bad byte in the whole stream (``base + end``)."""
        return self.base + self.end

    @property
    def sequence(self) -> bytes:
        """The bytes of the maximal subpart."""
        obj: bytes = self.object
        return obj[self.start : self.end]

    @property
    def hex(self) -> str:
        return self.sequence.hex(" ").upper()

    @property
    def kind(self) -> ErrorKind:
        obj: bytes = self.object
        rel = self.start
        second = obj[rel + 1] if rel + 1 < len(obj) and is_tail(obj[rel + 1]) else None
        return classify(obj[rel], second, self.final and self.end >= len(obj))

    def _lax(self) -> tuple[int | None, int]:
        cached: tuple[int | None, int] | None = self.__dict__.get("_lax_cache")
        if cached is None:
            cached = self.__dict__["_lax_cache"] = lax_read(self.object, self.start)
        return cached

    @property
    def naive(self) -> int | None:
        """The code point a lax RFC 2279 decoder reads here, or None if it reads none."""
        return self._lax()[0]

    @property
    def naive_end(self) -> int:
        """End offset of the bytes a lax decoder swallows here (>= ``end``; in ``object``,
        as ``end`` is)."""
        return max(self.end, self.start + self._lax()[1])

    @property
    def reason(self) -> str:
        return self.__dict__.get("_reason") or _explain(self)

    @reason.setter
    def reason(self, value: str) -> None:
        self.__dict__["_reason"] = value

    def __str__(self) -> str:
        return f"invalid UTF-8 at byte {self.stream_start} ({self.hex}): {self.reason}"

    def __repr__(self) -> str:
        at = f"base={self.base}, " if self.base else ""
        return (
            f"Utf8Error({at}start={self.start}, end={self.end}, kind={self.kind.name}, "
            f"bytes={self.hex!r}, naive={self.naive if self.naive is None else hex(self.naive)})"
        )

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (used by ``sanitizer check --json``); ``start`` and ``end``
        are the offsets in the stream (``stream_start``, ``stream_end``)."""
        naive = self.naive
        return {
            "start": self.stream_start,
            "end": self.stream_end,
            "bytes": self.hex,
            "kind": self.kind.value,
            "naive": None if naive is None else f"U+{naive:04X}",
            "reason": self.reason,
        }


def _explain(err: Utf8Error) -> str:
    kind = err.kind
    obj: bytes = err.object
    rel = err.start
    lead = obj[rel]
    naive, taken = err._lax()
    length = lax_length(lead)
    seen = obj[rel : rel + taken].hex(" ").upper()
    if kind is ErrorKind.UNEXPECTED_CONTINUATION:
        return f"unexpected continuation byte 0x{lead:02X} with no lead byte before it"
    if kind is ErrorKind.INVALID_BYTE:
        return f"byte 0x{lead:02X} never appears in UTF-8 (RFC 3629 §1)"
    if kind is ErrorKind.OVERLONG:
        if naive is not None:
            return f"overlong {length}-byte encoding of {describe(naive)}"
        return (
            f"overlong {length}-byte form {seen} cut short "
            f"(lead 0x{lead:02X} only starts overlongs)"
        )
    if kind is ErrorKind.SURROGATE:
        if naive is not None:
            return f"encoded surrogate {describe(naive)} (CESU-8/WTF-8; RFC 3629 §3 forbids it)"
        return f"encoded surrogate {seen} cut short (ED A0..BF encodes U+D800..DFFF)"
    if kind is ErrorKind.OUT_OF_RANGE:
        form = "RFC 2279 " if length > 4 else ""
        if naive is not None:
            return (
                f"out-of-range {form}{length}-byte sequence for U+{naive:04X}, "
                f"beyond U+{MAX_SCALAR:04X} (RFC 3629 §3)"
            )
        return f"out-of-range {form}{length}-byte form {seen} cut short, beyond U+{MAX_SCALAR:04X}"
    if kind is ErrorKind.TRUNCATED:
        cutter = obj[err.end]
        return f"{length}-byte sequence {err.hex} cut short by byte 0x{cutter:02X}"
    return f"incomplete {length}-byte sequence {err.hex} at end of input"


class BomError(ValueError):
    """Raised by ``decode(..., bom="reject")`` for input that starts with EF BB BF."""

    __module__ = "sanitizer"  # its public home, as tracebacks and pickles name it

    def __init__(self) -> None:
        super().__init__(
            f"input starts with a byte order mark ({BOM.hex(' ').upper()}, U+FEFF) "
            "and bom='reject' (RFC 3629 §6)"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # BaseException's would call BomError(message): made again without arguments.
        return type(self), (), self.__dict__


class EncodeError(UnicodeEncodeError):
    """``encode`` met a lone surrogate (e.g. from surrogateescape): RFC 3629 §3 forbids it."""

    __module__ = "sanitizer"  # its public home, as tracebacks and pickles name it

    def __str__(self) -> str:
        cp = ord(self.object[self.start])
        return (
            f"cannot encode lone surrogate U+{cp:04X} at index {self.start} as UTF-8 (RFC 3629 §3)"
        )


@contextlib.contextmanager
def gc_paused(many: bool) -> Iterator[None]:
    """The cyclic GC paused while ``many`` exceptions are built: they are GC-tracked, so
    collections set off on the way would traverse all the earlier ones (cost growing
    faster than the input); they form no cycles."""
    pause = many and gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if pause:
            gc.enable()


def errors_for_spans(
    make: Callable[[str, bytes, int, int, str], _E],
    encoding: str,
    raw: bytes,
    spans: list[int],
    base: int = 0,
) -> list[_E]:
    """Decode errors for flat ``spans`` [start, end, ...] (offsets into ``raw``, which
    starts at stream offset ``base``: each error's ``base``), built by ``map`` without a
    Python-level loop."""
    n = len(spans) // 2
    with gc_paused(n > 1000):
        found = list(
            map(make, repeat(encoding, n), repeat(raw, n), spans[0::2], spans[1::2], repeat("", n))
        )
        if base:
            for err in found:
                err.base = base  # type: ignore[attr-defined]
    return found
