"""is_valid / find_errors / IncrementalDecoder.find_errors on every buffer type, and what
their work costs: a memoryview or bytearray is read in place (no copy), and after each
error the SIMD validator takes over again (the machine reads a bounded window).

Cost is counted, not timed: the bytes the machine is handed (a wrapper around the
runner), and the memory tracemalloc sees allocated.
"""

from __future__ import annotations

import array
import codecs
import mmap
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanitizer import _decoder as decoder
from sanitizer import _native
from tests.support.backends import BACKENDS, use_backend

ERRORS = [b"\x80", b"\xc0", b"\xc0\xaf", b"\xe0\x80", b"\xed\xa0\x80", b"\xf4\x90", b"\xff"]


class CountingRunner:
    """A runner that counts the bytes its ``spans`` walks (to the end of the last span
    it reports when it stops at its limit, else to the end of the data)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.walked = 0

    def spans(self, data: Any, table: bytes, nclasses: int, pos: int, limit: int) -> list[int]:
        found: list[int] = self.inner.spans(data, table, nclasses, pos, limit)
        stopped = limit >= 0 and len(found) // 2 == limit and found
        self.walked += (found[-1] if stopped else len(data)) - pos
        return found

    def replace(self, *args: Any) -> str:
        text: str = self.inner.replace(*args)
        return text


@pytest.fixture(params=sorted(BACKENDS))
def counted(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The entry points on one backend (the pure one with the pure validator too), with
    the machine's work counted."""
    if request.param == "python":
        monkeypatch.setattr(decoder, "utf8_valid_prefix", _native.utf8_valid_prefix_py)
    with use_backend(request.param) as runner:  # restores the runner on the way out
        counting = CountingRunner(runner)
        decoder._runner = counting
        yield counting


def reference_spans(data: bytes) -> list[tuple[int, int]]:
    """CPython's maximal subparts (one U+FFFD each), by its incremental codec's errors."""
    out: list[tuple[int, int]] = []

    def record(exc: UnicodeError) -> tuple[str, int]:
        assert isinstance(exc, UnicodeDecodeError)
        out.append((exc.start, exc.end))
        return "\ufffd", exc.end

    codecs.register_error("test_decoder_buffers.record", record)
    data.decode("utf-8", "test_decoder_buffers.record")
    return out


CLEAN = ("héllo wörld, 日本語 " * 4000).encode()  # ~100 KiB


@pytest.mark.parametrize("bad", ERRORS)
@pytest.mark.parametrize("where", [0, 100, len(CLEAN) // 2])
def test_one_error_returns_to_the_validator(counted: Any, bad: bytes, where: int) -> None:
    # the machine reads a bounded window per error, whatever the error's subparts
    where = CLEAN.index(b" ", where) + 1  # on a character boundary
    data = CLEAN[:where] + bad + CLEAN[where:]
    found = [(e.start, e.end) for e in decoder.find_errors(data)]
    assert found == reference_spans(data)
    assert counted.walked <= 4096
    counted.walked = 0
    dec = decoder.IncrementalDecoder()
    inc = [
        (e.stream_start, e.stream_end)
        for e in dec.find_errors(data[: where + 1]) + dec.find_errors(data[where + 1 :], True)
    ]
    assert inc == found
    assert counted.walked <= 4096 * 2
    counted.walked = 0
    assert decoder.is_valid(data) is False
    assert counted.walked <= 4096


def test_overlong_nul_allowed_returns_to_the_validator(counted: Any) -> None:
    data = b"\xc0\x80" + CLEAN
    assert decoder.is_valid(data, allow_overlong_nul=True)
    assert decoder.find_errors(data, allow_overlong_nul=True) == []
    assert counted.walked <= 4096


def test_dense_errors_cost_linear_work(counted: Any) -> None:
    data = b"\xe0\x80a" * 20000 + CLEAN
    assert len(decoder.find_errors(data)) == 40000
    assert counted.walked <= 3 * len(data)


# Values split mid-character across windows, every error kind, dense and sparse.
PIECES = st.sampled_from(
    [b"a", b"\xc3\xa9", b"\xe6\x97\xa5", b"\xf0\x9f\x98\x80", *ERRORS, b"\xbf", b"a" * 70]
)


@given(st.lists(PIECES, max_size=200), st.integers(0, 3))
def test_windows_change_no_error(pieces: list[bytes], limit: int) -> None:
    data = b"".join(pieces)
    expected = reference_spans(data)
    for name in BACKENDS:
        with use_backend(name):
            assert [(e.start, e.end) for e in decoder.find_errors(data)] == expected
            got = decoder.find_errors(data, limit=limit or None)
            assert [(e.start, e.end) for e in got] == expected[: limit or None]
            assert decoder.is_valid(data) is (not expected)


def buffers(data: bytes) -> list[object]:
    return [bytearray(data), memoryview(data), memoryview(bytearray(data))]


@given(st.lists(PIECES, max_size=60))
def test_every_buffer_type_gives_the_same_answers(pieces: list[bytes]) -> None:
    data = b"".join(pieces)
    errors = [(e.start, e.end, e.kind) for e in decoder.find_errors(data)]
    for buf in buffers(data):
        assert decoder.is_valid(buf) is (not errors)  # type: ignore[arg-type]
        got = decoder.find_errors(buf)  # type: ignore[arg-type]
        assert [(e.start, e.end, e.kind) for e in got] == errors
        assert all(type(e.object) is bytes for e in got)
        assert decoder.count_errors(buf) == decoder.count_errors(data)  # type: ignore[arg-type]
        dec = decoder.IncrementalDecoder()
        assert [(e.start, e.end) for e in dec.find_errors(buf, True)] == [
            (s, e) for s, e, _ in errors
        ]


def test_other_buffers_and_strided_views() -> None:
    data = "é".encode() * 8
    strided = memoryview(data)[::2]  # not contiguous: copied, same answers as its bytes
    assert decoder.is_valid(strided) is decoder.is_valid(strided.tobytes()) is False
    assert len(decoder.find_errors(strided)) == len(decoder.find_errors(strided.tobytes()))
    wide = array.array("H", [0x61C3] * 4)  # a buffer of another item size: its bytes
    assert decoder.is_valid(memoryview(wide)) is decoder.is_valid(wide.tobytes())
    with pytest.raises(TypeError):
        decoder.is_valid("text")  # type: ignore[arg-type]


BIG = CLEAN * 100  # ~10 MiB


class BytesSubclass(bytes):
    pass


def _buffer(kind: str) -> Any:
    """BIG as a buffer of kind ``kind`` (made before memory is traced)."""
    if kind == "bytearray":
        return bytearray(BIG)
    if kind == "memoryview":
        return memoryview(BIG)
    if kind == "bytearray view":
        return memoryview(bytearray(BIG))
    if kind == "array of bytes":
        return array.array("B", BIG)
    if kind == "array of 2-byte items":
        return array.array("H", BIG[: len(BIG) // 2 * 2])
    if kind == "bytes subclass":
        return BytesSubclass(BIG)
    if kind == "mmap":
        anonymous = mmap.mmap(-1, len(BIG))
        anonymous.write(BIG)
        return anonymous
    pyarrow = pytest.importorskip("pyarrow")
    return pyarrow.py_buffer(BIG)


@pytest.mark.parametrize(
    "kind",
    [
        "bytearray",
        "memoryview",
        "bytearray view",
        "array of bytes",
        "array of 2-byte items",
        "bytes subclass",
        "mmap",
        "Arrow buffer",
    ],
)
def test_buffers_are_read_in_place(kind: str) -> None:
    data = _buffer(kind)
    tracemalloc.start()
    try:
        assert decoder.is_valid(data)
        assert decoder.find_errors(data) == []
        assert decoder.count_errors(data) == (0, 0)
        assert decoder.IncrementalDecoder().find_errors(data) == []
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # no copy of the 10 MiB (the pure validator decodes 64 KiB at a time: a str of those)
    assert peak < 64 * 1024 + 4 * _native._VALID_PREFIX_CHUNK


def test_bytearray_stays_resizable_afterwards() -> None:
    data = bytearray(b"abc\xff")
    assert decoder.is_valid(data) is False
    assert len(decoder.find_errors(data)) == 1
    data.extend(b"x")  # no export left behind
