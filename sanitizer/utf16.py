"""Strict UTF-16 (RFC 2781, Unicode §3.9 D91): decode, is_valid, find_errors, and an
incremental decoder, with the diagnostics of the UTF-8 API.

Well-formed UTF-16 pairs every high surrogate D800..DBFF with a following low surrogate
DC00..DFFF and has no other surrogate.  Valid input costs one call of CPython's strict
codec.  Input it refuses is walked here, over the high byte of each code unit mapped to
flags by ``bytes.translate`` and combined as big integers: linear, and with no Python
code per unit.  ``byte_order``: ``"le"``, ``"be"``, or ``"bom"`` (the default:
FF FE or FE FF, skipped; neither raises ``ByteOrderError`` unless ``default_endian``).
Errors and replacement follow CPython's ``utf-16-le``/``-be`` codecs, which here agree with
the WHATWG Encoding Standard's UTF-16 decoders: one U+FFFD per ill-formed code unit, and
one for a high surrogate cut off by the end of input together with an odd last byte.
"""

from __future__ import annotations

from ._wide import (
    ByteOrderError,
    UnitErrorKind,
    WideCodec,
    WideError,
    WideIncrementalDecoder,
    describe_unit,
    flagged,
)

__all__ = [
    "ByteOrderError",
    "IncrementalDecoder",
    "UnitErrorKind",
    "Utf16Error",
    "decode",
    "find_errors",
    "is_valid",
]

_K = UnitErrorKind
# the high byte of a unit -> 1 for a high surrogate D800..DBFF (or a low DC00..DFFF)
_IS_HIGH = bytes(1 if 0xD8 <= b <= 0xDB else 0 for b in range(256))
_IS_LOW = bytes(1 if 0xDC <= b <= 0xDF else 0 for b in range(256))


class Utf16Error(WideError):
    """One ill-formed UTF-16 code unit: a lone surrogate, a high surrogate cut off by the
    end of input (with the odd byte after it, if any), or an odd last byte."""

    __module__ = "sanitizer"  # its public home, as tracebacks and pickles name it

    unit = 2

    @property
    def kind(self) -> UnitErrorKind:
        rel = self.start
        if self.end - self.start < 2:
            return _K.TRUNCATED_UNIT
        value = self._value(rel)
        assert value is not None
        if value >= 0xDC00:
            return _K.LONE_LOW_SURROGATE
        return _K.LONE_HIGH_SURROGATE if self._value(rel + 2) is not None else _K.TRUNCATED_PAIR

    def _explain(self) -> str:
        kind = self.kind
        rel = self.start
        value = self._value(rel)
        following = self._value(rel + 2)
        if kind is _K.TRUNCATED_UNIT:
            return f"odd trailing byte 0x{self.sequence[0]:02X}: UTF-16 code units are 2 bytes"
        assert value is not None
        if kind is _K.TRUNCATED_PAIR:
            return (
                f"high surrogate U+{value:04X} cut off by the end of input, "
                "its low surrogate missing"
            )
        if kind is _K.LONE_HIGH_SURROGATE:
            assert following is not None
            return (
                f"lone high surrogate U+{value:04X}, followed by {describe_unit(following)} "
                "instead of a low surrogate DC00..DFFF (RFC 2781 §2.2)"
            )
        # Nothing after the unit is read: a stream reports it before the next unit
        # arrives, and says the same (a reversed pair's high half is an error of its own).
        return f"lone low surrogate U+{value:04X} with no high surrogate before it (RFC 2781 §2.2)"


def _walk(data: bytes, big: bool, pos: int, limit: int) -> list[int]:
    """Flat [start, end, ...] of the errors in data[pos:] (``pos`` even from the start of
    the units), the input ending where ``data`` ends; ``limit`` -1 for all.

    A high surrogate pairs with the unit after it when that one is a low surrogate, and
    a low one with the unit before it when that one is a high surrogate (RFC 2781 §2.2):
    nothing further away matters.  So the high byte of each unit is mapped to 0/1 flags
    (``bytes.translate``), the flags combined as big integers, one byte per unit, shifted
    by one unit for the neighbour, and no Python code runs per unit."""
    n = len(data)
    stop = pos + ((n - pos) & ~1)  # end of the whole code units
    highs = data[pos:stop:2] if big else data[pos + 1 : stop : 2]
    count = len(highs)
    high = int.from_bytes(highs.translate(_IS_HIGH), "big")  # unit i is byte count-1-i
    low = int.from_bytes(highs.translate(_IS_LOW), "big")
    lone = (high ^ (high & (low << 8))) | (low ^ (low & (high >> 8)))
    starts = flagged(lone.to_bytes(count, "big"), pos, 2, limit)
    out = [0] * (2 * len(starts))
    out[0::2] = starts
    out[1::2] = [start + 2 for start in starts]
    if starts and starts[-1] == stop - 2 and highs[-1] <= 0xDB:
        out[-1] = n  # a high surrogate cut off by the end: one error, odd byte included
    elif stop < n and (limit < 0 or len(starts) < limit):
        out += (stop, n)  # an odd last byte
    return out


CODEC = WideCodec("utf-16", 2, (b"\xff\xfe", b"\xfe\xff"), _walk, Utf16Error)


# The entry points: one definition for both encodings (``WideCodec``), bound to this one.
decode = CODEC.decode
is_valid = CODEC.is_valid
find_errors = CODEC.find_errors


class IncrementalDecoder(WideIncrementalDecoder[Utf16Error]):
    """UTF-16 in chunks: text and errors equal one-shot decoding for every split; at
    most 3 bytes are held back (a high surrogate and an odd byte)."""

    codec = CODEC
