"""Independent oracles for the decoder-core tests, and what they compare errors on.

They deliberately do not import anything from ``sanitizer._grammar`` or
``sanitizer._errors``: CPython's codec is the reference for verdicts, text and error spans,
and the RFC 2279 lax decoder and the kind table below are written from the issue's text.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import TYPE_CHECKING

# The kind table, spelled out independently of sanitizer._errors.classify (which derives it
# from the grammar): one oracle serves these tests and the fuzz targets alike.
from sanitizer._fuzzing.oracles import expected_kind as expected_kind

if TYPE_CHECKING:  # the type only: nothing here reads the package's error rules
    from sanitizer import Utf8Error

# The boundary bytes of the issue: both ends of every range RFC 3629 §4 / RFC 2279 mention.
BOUNDARY = bytes.fromhex(
    "00 7F 80 8F 90 9F A0 BF C0 C1 C2 DF E0 E1 EC ED EE EF F0 F1 F3 F4 F5 F7 F8 FB FC FD FE FF"
)


def inputs_over(alphabet: bytes, length: int) -> Iterator[bytes]:
    return (bytes(p) for p in itertools.product(alphabet, repeat=length))


# -- CPython as the reference -------------------------------------------------------------


def cpython_spans(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of every error CPython reports, decoding again after each one."""
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        try:
            data[pos:].decode("utf-8")
        except UnicodeDecodeError as exc:
            spans.append((pos + exc.start, pos + exc.end))
            pos += exc.end
        else:
            return spans


def cpython_first_error(data: bytes) -> UnicodeDecodeError | None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc
    return None


# -- an independent RFC 2279 lax decoder -------------------------------------------------

# RFC 2279 §2: the smallest value each sequence length is meant for.
MIN_FOR_LENGTH = {1: 0, 2: 0x80, 3: 0x800, 4: 0x10000, 5: 0x200000, 6: 0x4000000}


def lax_decode(data: bytes, start: int) -> tuple[int | None, int, int]:
    """What an RFC 2279 decoder reads at ``data[start]``: (value or None, bytes taken,
    announced length).  The lead's count of leading 1 bits gives the length (0 -> 1 byte,
    2..6 -> that many); 10xxxxxx, 1111111x start nothing."""
    lead = data[start]
    ones = 0
    while ones < 8 and lead & (0x80 >> ones):
        ones += 1
    if ones == 0:
        return lead, 1, 1
    if ones == 1 or ones > 6:
        return None, 1, 0
    value = lead & ((1 << (7 - ones)) - 1)
    for k in range(1, ones):
        if start + k >= len(data) or data[start + k] >> 6 != 0b10:
            return None, k, ones
        value = (value << 6) | (data[start + k] & 0x3F)
    return value, ones, ones


def error_facts(err: Utf8Error) -> tuple[object, ...]:
    """What two reports of one error must agree on, in a stream read in pieces."""
    return (
        err.stream_start,
        err.stream_end,
        err.kind,
        err.naive,
        err.base + err.naive_end,
        err.reason,
        err.sequence,
    )
