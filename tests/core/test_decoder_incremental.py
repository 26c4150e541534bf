"""IncrementalDecoder: any chunking equals one-shot decoding, on both runners."""

from __future__ import annotations

import codecs
import itertools
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer import (
    BomError,
    ErrorGrouper,
    ErrorKind,
    IncrementalDecoder,
    Utf8Error,
    find_errors,
    group_errors,
)
from tests.core.oracles import BOUNDARY, error_facts
from tests.support.backends import decode

SETTINGS = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])

pieces = st.one_of(
    st.sampled_from(BOUNDARY).map(lambda b: bytes([b])),
    st.sampled_from([b"a", b"\xef\xbb\xbf", b"\xfc\x80\x80\x80\x80\xaf", b"\xc0\xae"]),
    st.characters().map(lambda c: c.encode("utf-8", "surrogatepass")),
)
streams = st.tuples(st.booleans(), st.lists(pieces, max_size=25).map(b"".join)).map(
    lambda t: (b"\xef\xbb\xbf" if t[0] else b"") + t[1]
)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def feed_all(chunks: list[bytes], **options: object) -> tuple[str, list[Utf8Error]]:
    dec = IncrementalDecoder("replace", **options)  # type: ignore[arg-type]
    text, errors, fed = "", [], 0
    for chunk in chunks:
        part, errs = dec.feed(chunk)
        fed += len(chunk)
        pending, base = dec.getstate()
        assert len(pending) <= 5  # at most an RFC 2279 6-byte form less one is held
        assert base == dec.position == fed - len(pending)
        text += part
        errors += errs
    part, errs = dec.feed(b"", final=True)
    assert dec.getstate()[0] == b""
    assert dec.position == fed
    return text + part, errors + errs


@SETTINGS
@given(streams, st.lists(st.integers(0, 200), max_size=8), st.sampled_from(["keep", "strip"]))
def test_any_chunking_equals_one_shot(
    backend: ModuleType, data: bytes, cuts: list[int], bom: str
) -> None:
    chunks = split(data, cuts)
    text, errors = feed_all(chunks, bom=bom)
    assert text == decode(data, errors="replace", bom=bom)  # type: ignore[arg-type]
    assert [error_facts(e) for e in errors] == [error_facts(e) for e in find_errors(data)]
    assert [[e.stream_start for e in g] for g in group_errors(errors)] == [
        [e.stream_start for e in g] for g in group_errors(find_errors(data))
    ]
    # the codecs-protocol decode() in replace mode gives the same text
    dec = IncrementalDecoder("replace", bom=bom)  # type: ignore[arg-type]
    got = "".join(dec.decode(c) for c in chunks) + dec.decode(b"", final=True)
    assert got == text


@SETTINGS
@given(streams, st.lists(st.integers(0, 200), max_size=8))
def test_strict_chunking_raises_first_error(
    backend: ModuleType, data: bytes, cuts: list[int]
) -> None:
    chunks = split(data, cuts)
    dec = IncrementalDecoder()
    try:
        want = decode(data)
    except Utf8Error as exc:
        first = error_facts(exc)
        with pytest.raises(Utf8Error) as info:
            for chunk in chunks:
                dec.decode(chunk)
            dec.decode(b"", final=True)
        assert error_facts(info.value) == first
        assert isinstance(info.value, UnicodeDecodeError)
    else:
        got = "".join(dec.decode(c) for c in chunks) + dec.decode(b"", final=True)
        assert got == want


@SETTINGS
@given(
    st.lists(st.sampled_from([b"a", b"\xc0\x80", b"\xc0", b"\x80", b"\xc3\xa9"]), max_size=12),
    st.lists(st.integers(0, 30), max_size=5),
)
def test_allow_overlong_nul_chunking(
    backend: ModuleType, parts: list[bytes], cuts: list[int]
) -> None:
    data = b"".join(parts)
    chunks = split(data, cuts)
    text, errors = feed_all(chunks, allow_overlong_nul=True)
    assert text == decode(data, errors="replace", allow_overlong_nul=True)
    want = find_errors(data, allow_overlong_nul=True)
    assert [error_facts(e) for e in errors] == [error_facts(e) for e in want]
    dec = IncrementalDecoder(allow_overlong_nul=True)
    if want:
        with pytest.raises(Utf8Error) as info:
            for chunk in chunks:
                dec.decode(chunk)
            dec.decode(b"", final=True)
        assert (info.value.stream_start, info.value.stream_end) == (
            want[0].stream_start,
            want[0].stream_end,
        )
    else:
        got = "".join(dec.decode(c) for c in chunks) + dec.decode(b"", final=True)
        assert got == decode(data, allow_overlong_nul=True)


def test_strict_allow_overlong_nul_keeps_text(backend: ModuleType) -> None:
    dec = IncrementalDecoder(allow_overlong_nul=True)
    assert dec.decode(b"a\xc0\x80b", final=True) == "a\x00b"
    dec = IncrementalDecoder(allow_overlong_nul=True)
    assert dec.decode(b"x\xc0") == "x"
    assert dec.decode(b"\x80y") == "\x00y"


def test_bytewise_feed_examples(backend: ModuleType) -> None:
    data = bytes.fromhex("EF BB BF 2F C0 AE 2E 2F F0 9F 98 80 E1 80")
    dec = IncrementalDecoder("replace", bom="strip")
    out = [dec.feed(data[i : i + 1]) for i in range(len(data))]
    out.append(dec.feed(b"", final=True))
    assert "".join(t for t, _ in out) == "/\ufffd\ufffd./\U0001f600\ufffd"
    errors = [e for _, errs in out for e in errs]
    assert [(e.stream_start, e.stream_end, e.kind) for e in errors] == [
        (4, 5, ErrorKind.OVERLONG),
        (5, 6, ErrorKind.UNEXPECTED_CONTINUATION),
        (12, 14, ErrorKind.INCOMPLETE),
    ]
    assert errors[0].naive == 0x2E
    assert "U+002E FULL STOP '.'" in errors[0].reason
    assert "incomplete 3-byte sequence E1 80" in errors[2].reason


def test_incomplete_then_more_input(backend: ModuleType) -> None:
    dec = IncrementalDecoder("replace")
    assert dec.feed(b"a\xe2\x82") == ("a", [])
    assert dec.position == 1
    assert dec.feed(b"\xac") == ("\u20ac", [])
    text, errors = dec.feed(b"\xe2\x82", final=False)
    assert (text, errors) == ("", [])
    text, errors = dec.feed(b"b", final=False)
    assert text == "\ufffdb"
    assert [(e.stream_start, e.stream_end, e.kind) for e in errors] == [(4, 6, ErrorKind.TRUNCATED)]
    text, errors = dec.feed(b"\xe2", final=True)
    assert [(e.stream_start, e.stream_end, e.kind) for e in errors] == [
        (7, 8, ErrorKind.INCOMPLETE)
    ]


def test_bom_across_chunks(backend: ModuleType) -> None:
    dec = IncrementalDecoder(bom="strip")
    assert dec.decode(b"\xef") == ""
    assert dec.decode(b"\xbb") == ""
    assert dec.decode(b"\xbfA") == "A"
    assert dec.decode(b"\xef\xbb\xbf", final=True) == "\ufeff"  # only a leading BOM
    dec = IncrementalDecoder(bom="reject")
    assert dec.decode(b"\xef\xbb") == ""
    with pytest.raises(BomError):
        dec.decode(b"\xbf")
    dec = IncrementalDecoder(bom="reject")
    assert dec.decode(b"A\xef\xbb\xbf", final=True) == "A\ufeff"
    dec = IncrementalDecoder(bom="keep")
    assert dec.decode(b"\xef\xbb") + dec.decode(b"\xbf", final=True) == "\ufeff"


def test_reset_state_and_codecs_protocol(backend: ModuleType) -> None:
    dec = IncrementalDecoder()
    assert isinstance(dec, codecs.IncrementalDecoder)
    assert dec.decode(b"\xe2\x82") == ""
    state = dec.getstate()
    assert state == (b"\xe2\x82", 0)
    dec.reset()
    assert dec.getstate() == (b"", 0)
    assert dec.position == 0
    dec.setstate(state)
    assert dec.decode(b"\xac", final=True) == "\u20ac"
    with pytest.raises(Utf8Error) as info:
        IncrementalDecoder().decode(b"ab\xe2\x82", final=True)
    assert (info.value.stream_start, info.value.stream_end, info.value.kind) == (
        2,
        4,
        ErrorKind.INCOMPLETE,
    )


def test_errors_from_later_chunks_have_stream_offsets(backend: ModuleType) -> None:
    """``start``/``end`` index ``object`` (the decoder's buffer, at stream offset
    ``base``), as CPython's errors do; ``stream_start``/``stream_end`` are in the stream."""
    dec = IncrementalDecoder("replace")
    dec.feed(b"x" * 1000)
    _, errors = dec.feed(b"ab\xffcd\xed\xa0\x80", final=True)
    assert [(e.stream_start, e.stream_end, e.hex) for e in errors] == [
        (1002, 1003, "FF"),
        (1005, 1006, "ED"),
        (1006, 1007, "A0"),
        (1007, 1008, "80"),
    ]
    assert errors[1].kind is ErrorKind.SURROGATE
    assert errors[1].naive == 0xD800
    assert errors[1].base + errors[1].naive_end == 1008
    assert errors[0].as_dict()["start"] == 1002
    assert str(errors[0]).startswith("invalid UTF-8 at byte 1002 (FF)")
    for err in errors:
        assert err.object[err.start : err.end] == err.sequence == bytes.fromhex(err.hex)
        assert (err.stream_start, err.stream_end) == (err.base + err.start, err.base + err.end)
    # CPython's own readers of a UnicodeDecodeError: its message and the error handlers.
    assert UnicodeDecodeError.__str__(errors[0]).startswith(
        "'utf-8' codec can't decode byte 0xff in position 2"
    )
    assert codecs.backslashreplace_errors(errors[0]) == ("\\xff", errors[0].end)


def test_invalid_options() -> None:
    with pytest.raises(ValueError, match="errors"):
        IncrementalDecoder("ignore")
    with pytest.raises(ValueError, match="bom"):
        IncrementalDecoder(bom="drop")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bytes-like"):
        IncrementalDecoder().decode("text")  # type: ignore[arg-type]
    dec = IncrementalDecoder()
    assert dec.decode(bytearray(b"\xc3")) + dec.decode(memoryview(b"\xa9"), final=True) == "é"


@SETTINGS
@given(streams, st.lists(st.integers(0, 200), max_size=6))
def test_grouping_a_stream_equals_grouping_one_shot(data: bytes, cuts: list[int]) -> None:
    """ErrorGrouper over a stream (closing a group once the decoder's position has passed
    its reach, as ``sanitizer check`` does) gives group_errors of the one-shot errors, and
    never emits a group that a later error would have joined."""
    dec = IncrementalDecoder("replace")
    grouper = ErrorGrouper()
    streamed: list[tuple[Utf8Error, ...]] = []
    chunks = split(data, cuts)
    for i, chunk in enumerate([*chunks, b""]):
        final = i == len(chunks)
        for err in dec.feed(chunk, final=final)[1]:
            done = grouper.add(err)
            if done is not None:
                streamed.append(done)
        last = grouper.close(None if final else dec.position)
        if last is not None:
            streamed.append(last)
    want = group_errors(find_errors(data))
    assert [[(e.stream_start, e.stream_end) for e in g] for g in streamed] == [
        [(e.stream_start, e.stream_end) for e in g] for g in want
    ]


def test_grouper_keeps_a_group_open_until_its_reach_is_passed() -> None:
    head, tail = find_errors(b"\xe0\x80")  # a lax decoder reads E0 80 as one (cut) form
    assert head.naive_end == 2
    grouper = ErrorGrouper()
    assert grouper.add(head) is None
    assert grouper.close(position=1) is None  # the 80 at offset 1 can still join
    assert grouper.add(tail) is None  # ... and does
    assert grouper.close(position=2) == (head, tail)
    assert grouper.close() is None
