"""Strict UTF-32 against CPython's codecs, exhaustively at the boundaries and by property.

Reference: CPython's strict ``utf-32-le``/``-be`` (verdict, first error), its ``replace``
(text) and a recording error handler (every error span).  Kinds are read from the bytes
here, independently of ``sanitizer.utf32``.
"""

from __future__ import annotations

import codecs
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanitizer import utf32
from sanitizer._wide import ByteOrder, ByteOrderError, UnitErrorKind
from sanitizer._wide_codecs import codec

K = UnitErrorKind
# The boundary values, and the neighbours on the valid side of each boundary.
BOUNDARY = (0x0, 0x10FFFF, 0x110000, 0xD800, 0xDFFF, 0xFFFFFFFF, 0xD7FF, 0xE000, 0xFEFF)
ORDERS: dict[ByteOrder, str] = {"le": "utf-32-le", "be": "utf-32-be"}

_recorded: list[tuple[int, int]] = []


def _record(exc: UnicodeError) -> tuple[str, int]:
    assert isinstance(exc, UnicodeDecodeError)
    _recorded.append((exc.start, exc.end))
    return "\ufffd", exc.end


codecs.register_error("test-utf32-record", _record)


def cpython_spans(data: bytes, name: str) -> list[tuple[int, int]]:
    _recorded.clear()
    data.decode(name, "test-utf32-record")
    return list(_recorded)


def expected_kind(data: bytes, start: int, end: int, big: bool) -> UnitErrorKind:
    if end - start < 4:
        return K.TRUNCATED_UNIT
    value = int.from_bytes(data[start:end], "big" if big else "little")
    return K.SURROGATE_CODE_POINT if 0xD800 <= value <= 0xDFFF else K.OUT_OF_RANGE


def units(values: tuple[int, ...], order: ByteOrder) -> bytes:
    return b"".join(v.to_bytes(4, "big" if order == "be" else "little") for v in values)


def check(data: bytes, order: ByteOrder) -> None:
    name = ORDERS[order]
    spans = cpython_spans(data, name)
    assert utf32.is_valid(data, byte_order=order) == (not spans)
    assert utf32.decode(data, byte_order=order, errors="replace") == data.decode(name, "replace")
    flat = [x for span in spans for x in span]  # the walk's own text (decode uses CPython's)
    assert utf32.CODEC.replaced(data, order == "be", 0, flat) == data.decode(name, "replace")
    errors = utf32.find_errors(data, byte_order=order)
    assert [(e.start, e.end) for e in errors] == spans, data.hex(" ")
    for err in errors:
        assert err.kind is expected_kind(data, err.start, err.end, order == "be")
        assert err.reason
    if spans:
        with pytest.raises(UnicodeDecodeError) as cpython:
            data.decode(name)
        with pytest.raises(utf32.Utf32Error) as ours:
            utf32.decode(data, byte_order=order)
        assert (ours.value.start, ours.value.end) == (cpython.value.start, cpython.value.end)
    else:
        assert utf32.decode(data, byte_order=order) == data.decode(name)


def check_chunked(data: bytes, order: ByteOrder) -> None:
    text = utf32.decode(data, byte_order=order, errors="replace")
    spans = [(e.start, e.end) for e in utf32.find_errors(data, byte_order=order)]
    for cuts in [[k] for k in range(len(data) + 1)] + [list(range(1, len(data)))]:
        dec = utf32.IncrementalDecoder(byte_order=order)
        got, found = "", []
        for a, b in zip([0, *cuts, len(data)], [*cuts, len(data), len(data)], strict=False):
            part, errs = dec.feed(data[a:b], final=a == b == len(data))
            got += part
            found += errs
            assert b - dec.position <= 3
        assert got == text, (data.hex(" "), cuts)
        assert [(e.stream_start, e.stream_end) for e in found] == spans
        assert all(e.object[e.start : e.end] == e.sequence != b"" for e in found)


SHORT = [v for n in range(4) for v in itertools.product(BOUNDARY, repeat=n)]


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_exhaustive_boundary_values(order: ByteOrder) -> None:
    for values in SHORT:
        data = units(values, order)
        for tail in (b"", b"\x00", b"\x00\x00", b"\xff\xff\xff"):  # and 1..3 cut-off bytes
            check(data + tail, order)


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_exhaustive_chunk_splits(order: ByteOrder) -> None:
    for values in SHORT[: 1 + 9 + 81]:
        data = units(values, order)
        check_chunked(data, order)
        check_chunked(data + b"\x00\x00", order)


def test_bom_mode() -> None:
    for values in SHORT[:100]:
        orders: tuple[tuple[bytes, ByteOrder], ...] = (
            (codecs.BOM_UTF32_LE, "le"),
            (codecs.BOM_UTF32_BE, "be"),
        )
        for bom, order in orders:
            data = bom + units(values, order)
            assert utf32.decode(data, errors="replace") == data.decode("utf-32", "replace")
            assert [(e.start, e.end) for e in utf32.find_errors(data)] == cpython_spans(
                data, "utf-32"
            )
            check_chunked(data, "bom")
    with pytest.raises(ByteOrderError):
        utf32.decode(units((0x41,), "le"))
    assert utf32.decode(units((0x41,), "be"), default_endian="be") == "A"
    assert codec("UTF-32BE") == (utf32.CODEC, "be")


def test_kinds_and_reasons() -> None:
    cases = {
        units((0x110000,), "le"): (K.OUT_OF_RANGE, "0x00110000 is beyond U+10FFFF"),
        units((0xDFFF,), "le"): (K.SURROGATE_CODE_POINT, "U+DFFF is a surrogate"),
        b"A\x00\x00\x00\x01\x02": (K.TRUNCATED_UNIT, "2 trailing bytes"),
    }
    for data, (kind, words) in cases.items():
        err = utf32.find_errors(data, byte_order="le")[0]
        assert err.kind is kind and words in err.reason, err.reason


@given(
    st.one_of(
        st.binary(max_size=64),
        st.lists(st.sampled_from(BOUNDARY), max_size=12).map(lambda v: units(tuple(v), "le")),
    ),
    st.sampled_from(sorted(ORDERS)),
)
def test_agrees_with_cpython(data: bytes, order: ByteOrder) -> None:
    check(data, order)


@given(st.text(max_size=40))
def test_round_trip(text: str) -> None:
    for order, name in ORDERS.items():
        assert utf32.decode(text.encode(name), byte_order=order) == text
    assert utf32.decode(text.encode("utf-32")) == text
