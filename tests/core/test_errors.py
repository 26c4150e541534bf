"""Utf8Error, ErrorKind and the find_errors / argument-checking contract."""

from __future__ import annotations

import json
import pickle
from types import ModuleType

import pytest

from sanitizer import (
    ErrorKind,
    IncrementalDecoder,
    Utf8Error,
    find_errors,
    group_errors,
    is_valid,
)
from tests.core.oracles import cpython_first_error
from tests.support.backends import decode

SAMPLES = [
    b"ab\xc0\xafcd",
    b"\xe2\x82",
    b"x\xed\xa0\x80y",
    b"\xf4\x90\x80\x80",
    b"\xff",
    b"abc\xe1\x80z",
    b"\xfc\x80\x80\x80\x80\xaf",
]


@pytest.mark.parametrize("data", SAMPLES)
def test_utf8error_is_a_unicode_decode_error_like_cpythons(
    backend: ModuleType, data: bytes
) -> None:
    with pytest.raises(Utf8Error) as info:
        decode(data)
    err = info.value
    assert isinstance(err, UnicodeDecodeError)
    assert isinstance(err, ValueError)
    ref = cpython_first_error(data)
    assert ref is not None
    assert (err.start, err.end, err.encoding, err.object) == (ref.start, ref.end, "utf-8", data)
    first = find_errors(data)[0]
    assert (first.start, first.end) == (ref.start, ref.end)
    # catchable as the stdlib exception a caller already handles
    with pytest.raises(UnicodeDecodeError):
        decode(data)


@pytest.mark.parametrize("data", SAMPLES)
def test_pickle_round_trip(data: bytes) -> None:
    for err in find_errors(data):
        copy = pickle.loads(pickle.dumps(err))
        assert type(copy) is Utf8Error
        assert (copy.start, copy.end, copy.object) == (err.start, err.end, err.object)
        assert (copy.kind, copy.naive, copy.naive_end) == (err.kind, err.naive, err.naive_end)
        assert (copy.reason, str(copy), repr(copy)) == (err.reason, str(err), repr(err))


def test_pickle_round_trip_incremental_error() -> None:
    dec = IncrementalDecoder("replace")
    dec.feed(b"0123456789")
    _, (err,) = dec.feed(b"\xe1\x80x", final=True)
    assert (err.stream_start, err.stream_end, err.kind) == (10, 12, ErrorKind.TRUNCATED)
    copy = pickle.loads(pickle.dumps(err))
    assert (copy.stream_start, copy.stream_end, copy.kind) == (10, 12, err.kind)
    assert copy.object[copy.start : copy.end] == copy.sequence == b"\xe1\x80"
    assert (copy.reason, str(copy)) == (err.reason, str(err))


def test_str_repr_as_dict() -> None:
    (err, _) = find_errors(b"/\xc0\xae./")
    assert str(err) == (
        "invalid UTF-8 at byte 1 (C0): overlong 2-byte encoding of U+002E FULL STOP '.'"
    )
    assert repr(err) == ("Utf8Error(start=1, end=2, kind=OVERLONG, bytes='C0', naive=0x2e)")
    assert err.as_dict() == {
        "start": 1,
        "end": 2,
        "bytes": "C0",
        "kind": "overlong",
        "naive": "U+002E",
        "reason": "overlong 2-byte encoding of U+002E FULL STOP '.'",
    }
    json.dumps(err.as_dict())
    (inc,) = find_errors(b"\xf0\x9f\x98")
    assert inc.as_dict()["naive"] is None
    assert inc.as_dict()["kind"] == "incomplete"
    assert "naive=None" in repr(inc)
    assert (
        str(inc)
        == "invalid UTF-8 at byte 0 (F0 9F 98): incomplete 4-byte sequence F0 9F 98 at end of input"
    )


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"\x80", ["unexpected continuation byte 0x80"]),
        (b"\xfe", ["0xFE", "never appears"]),
        (b"\xe0\x80\xaf", ["overlong 3-byte encoding of U+002F SOLIDUS '/'"]),
        (b"\xe0\x80", ["overlong 3-byte form E0 80 cut short"]),
        (b"\xed\xa0\x80", ["encoded surrogate U+D800"]),
        (b"\xf4\x90\x80\x80", ["out-of-range 4-byte sequence for U+110000"]),
        (b"\xf8\x88\x80\x80\x80", ["out-of-range RFC 2279 5-byte sequence for U+200000"]),
        (b"\xc2x", ["2-byte sequence C2 cut short by byte 0x78"]),
        (b"\xc2", ["incomplete 2-byte sequence C2 at end of input"]),
    ],
)
def test_reasons_are_readable(data: bytes, words: list[str]) -> None:
    err = find_errors(data)[0]
    for word in words:
        assert word in err.reason
        assert word in str(err)


def test_reason_can_be_set_and_constructor_is_cpythons() -> None:
    err = Utf8Error("utf-8", b"a\xffb", 1, 2, "")
    assert err.kind is ErrorKind.INVALID_BYTE
    assert err.hex == "FF"
    err.reason = "custom"
    assert err.reason == "custom"
    assert "custom" in str(err)


def test_error_kind_values() -> None:
    assert {k.name: k.value for k in ErrorKind} == {
        "UNEXPECTED_CONTINUATION": "unexpected-continuation",
        "INVALID_BYTE": "invalid-byte",
        "OVERLONG": "overlong",
        "SURROGATE": "surrogate",
        "OUT_OF_RANGE": "out-of-range",
        "TRUNCATED": "truncated",
        "INCOMPLETE": "incomplete",
    }
    assert all(k.description for k in ErrorKind)


# -- find_errors -------------------------------------------------------------------------

MANY = b"\x80a\xc0\xafb\xe0\x80c\xff\xe1"  # 80 | C0 | AF | E0 | 80 | FF | E1


def test_find_errors_limit(backend: ModuleType) -> None:
    every = find_errors(MANY)
    assert len(every) == 7 == decode(MANY, errors="replace").count("\ufffd")
    spans = [(e.start, e.end) for e in every]
    assert [(e.start, e.end) for e in find_errors(MANY, limit=None)] == spans
    assert find_errors(MANY, limit=0) == []
    for n in (1, 2, 6, 7, 8, 100):
        got = find_errors(MANY, limit=n)
        assert [(e.start, e.end) for e in got] == [(e.start, e.end) for e in every[:n]]
    assert find_errors(b"ok", limit=0) == []
    assert find_errors(b"", limit=3) == []
    for bad in (-1, -100):
        with pytest.raises(ValueError, match="limit"):
            find_errors(MANY, limit=bad)
        with pytest.raises(ValueError, match="limit"):
            find_errors(b"valid", limit=bad)


def test_bytes_like_inputs(backend: ModuleType) -> None:
    for wrap in (bytes, bytearray, memoryview):
        data = wrap(MANY)
        assert [(e.start, e.end) for e in find_errors(data)] == [
            (e.start, e.end) for e in find_errors(MANY)
        ]
        assert decode(data, errors="replace") == MANY.decode("utf-8", "replace")
        assert not is_valid(data)
        assert is_valid(wrap(b"caf\xc3\xa9"))
        assert decode(wrap(b"caf\xc3\xa9")) == "café"
        with pytest.raises(Utf8Error) as info:
            decode(data)
        assert (info.value.start, info.value.end) == (0, 1)


def test_str_input_is_a_type_error(backend: ModuleType) -> None:
    for func in (decode, is_valid, find_errors):
        with pytest.raises(
            TypeError, match=r"argument 'data' must be a bytes-like object, not str"
        ):
            func("caf\xe9")  # type: ignore[operator]
    with pytest.raises(TypeError, match="bytes-like"):
        decode(12)
    with pytest.raises(TypeError):
        group_errors(None)  # type: ignore[arg-type]


def test_invalid_options_even_on_valid_input(backend: ModuleType) -> None:
    for data in (b"valid", b"", b"\xff"):
        with pytest.raises(ValueError, match="errors"):
            decode(data, errors="ignore")
        with pytest.raises(ValueError, match="errors"):
            decode(data, errors="surrogateescape", bom="keep")
        with pytest.raises(ValueError, match="bom"):
            decode(data, bom="remove")
        with pytest.raises(ValueError, match="bom"):
            decode(data, errors="replace", bom="")


def test_group_errors_examples() -> None:
    assert group_errors([]) == []
    data = b"\xfc\x80\x80\x80\x80\xaf/\xc0\xae\xff\xff\xe0\x80"
    groups = group_errors(find_errors(data))
    assert [b"".join(e.sequence for e in g) for g in groups] == [
        b"\xfc\x80\x80\x80\x80\xaf",
        b"\xc0\xae",
        b"\xff",
        b"\xff",
        b"\xe0\x80",
    ]
    assert [g[0].naive for g in groups] == [0x2F, 0x2E, None, None, None]


def test_classify_derived_from_the_grammar_equals_the_oracles_table() -> None:
    """Every (first byte, second byte or none, at the end or not) a subpart can start with:
    the kind ``classify`` derives from the grammar is the oracle's spelled-out table."""
    from sanitizer._errors import classify
    from tests.core.oracles import expected_kind

    for first in range(0x80, 0x100):
        for second in (None, *range(0x80, 0xC0)):
            head = bytes([first]) if second is None else bytes([first, second])
            for at_end in (False, True):
                data = head if at_end else head + b"A"  # "A" continues nothing
                expected = expected_kind(data, 0, len(head))
                assert classify(first, second, at_end) == expected, (hex(first), second, at_end)
