"""Strict UTF-32 (Unicode §3.9 D90): decode, is_valid, find_errors, and an incremental
decoder, with the diagnostics of the UTF-8 API.

A UTF-32 code unit is a Unicode scalar value: at most U+10FFFF and not a surrogate
D800..DFFF.  Valid input costs one call of CPython's strict codec; input it refuses is
walked here: every unit is judged at once from its bytes (``bytes.translate`` over
strided slices), so the cost is linear and no Python code runs per unit.
``byte_order``: ``"le"``, ``"be"``, or ``"bom"`` (the default: FF FE 00 00 or
00 00 FE FF, skipped; neither raises ``ByteOrderError`` unless ``default_endian``).  One
U+FFFD per ill-formed unit, and one for 1..3 trailing bytes, as CPython's
``utf-32-le``/``-be`` codecs put.
"""

from __future__ import annotations

from collections.abc import Callable

from ._wide import (
    ByteOrderError,
    UnitErrorKind,
    WideCodec,
    WideError,
    WideIncrementalDecoder,
    flagged,
)

__all__ = [
    "ByteOrderError",
    "IncrementalDecoder",
    "UnitErrorKind",
    "Utf32Error",
    "decode",
    "find_errors",
    "is_valid",
]

_K = UnitErrorKind
_MAX_SCALAR = 0x10FFFF


class Utf32Error(WideError):
    """One ill-formed UTF-32 unit: beyond U+10FFFF, a surrogate, or 1..3 trailing bytes."""

    __module__ = "sanitizer"  # its public home, as tracebacks and pickles name it

    unit = 4

    @property
    def kind(self) -> UnitErrorKind:
        value = self._value(self.start)
        if self.end - self.start < 4 or value is None:
            return _K.TRUNCATED_UNIT
        return _K.OUT_OF_RANGE if value > _MAX_SCALAR else _K.SURROGATE_CODE_POINT

    def _explain(self) -> str:
        kind = self.kind
        if kind is _K.TRUNCATED_UNIT:
            count = self.end - self.start
            plural = "s" if count > 1 else ""
            return f"{count} trailing byte{plural} ({self.hex}): UTF-32 code units are 4 bytes"
        value = self._value(self.start)
        assert value is not None
        if kind is _K.OUT_OF_RANGE:
            return f"value 0x{value:08X} is beyond U+10FFFF (Unicode §3.9 D90)"
        return (
            f"value U+{value:04X} is a surrogate code point, not a scalar value (Unicode §3.9 D90)"
        )


def _table(bad: Callable[[int], bool]) -> bytes:
    return bytes(1 if bad(b) else 0 for b in range(256))


# Per-byte flags (bytes.translate tables), for the bytes of a unit from the most
# significant: the top byte is nonzero, the plane byte is above 0x10 (beyond U+10FFFF), or
# the plane byte is zero and the next byte is D8..DF (a surrogate, Unicode §3.9 D90).
_NONZERO = _table(lambda b: b != 0)
_ABOVE_10 = _table(lambda b: b > 0x10)
_ZERO = _table(lambda b: b == 0)
_SURROGATE_HIGH_BYTE = _table(lambda b: 0xD8 <= b <= 0xDF)


def _walk(data: bytes, big: bool, pos: int, limit: int) -> list[int]:
    """Flat [start, end, ...] of the errors in data[pos:] (``pos`` on a unit boundary),
    the input ending where ``data`` ends; ``limit`` -1 for all.  Each unit's verdict is
    computed for all units at once: byte planes (strided slices) mapped to 0/1 flags by
    ``bytes.translate`` and combined as big integers, so no Python code runs per unit."""
    n = len(data)
    count = (n - pos) // 4
    stop = pos + 4 * count
    if count:
        top, plane, high = (pos, pos + 1, pos + 2) if big else (pos + 3, pos + 2, pos + 1)

        def flags(first: int, table: bytes) -> int:
            return int.from_bytes(data[first:stop:4].translate(table), "big")

        bad = (
            flags(top, _NONZERO)
            | flags(plane, _ABOVE_10)
            | (flags(plane, _ZERO) & flags(high, _SURROGATE_HIGH_BYTE))
        ).to_bytes(count, "big")
        starts = flagged(bad, pos, 4, limit)
    else:
        starts = []
    out = [0] * (2 * len(starts))
    out[0::2] = starts
    out[1::2] = [start + 4 for start in starts]
    if stop < n and (limit < 0 or len(starts) < limit):
        out += (stop, n)
    return out


CODEC = WideCodec("utf-32", 4, (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff"), _walk, Utf32Error)


# The entry points: one definition for both encodings (``WideCodec``), bound to this one.
decode = CODEC.decode
is_valid = CODEC.is_valid
find_errors = CODEC.find_errors


class IncrementalDecoder(WideIncrementalDecoder[Utf32Error]):
    """UTF-32 in chunks: text and errors equal one-shot decoding for every split; at
    most 3 bytes are held back."""

    codec = CODEC
