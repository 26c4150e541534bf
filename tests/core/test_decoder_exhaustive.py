"""Every short input over the boundary bytes, checked against CPython and the issue's tables.

Inputs: every sequence of length 0..3 over the 30 boundary bytes (27,931 inputs) and every
4-byte sequence over them (810,000).  For each: the strict verdict, the strict/replace text
and every error's (start, end) agree with CPython's codec; every error's ``kind`` follows
the issue's kind table and its ``naive``/``naive_end`` follow the lax RFC 2279 decoder in
conftest.py.  Length <= 3 runs the full public API on both runners; the 4-byte inputs go
through the C runner in one pass (and the public API on it), and a deterministic sample
of them through the pure-Python runner.
"""

from __future__ import annotations

import codecs
from types import ModuleType

import pytest

from sanitizer import ErrorKind, Utf8Error, find_errors, is_valid
from sanitizer._grammar import MACHINE
from tests.core.oracles import (
    BOUNDARY,
    MIN_FOR_LENGTH,
    cpython_spans,
    expected_kind,
    inputs_over,
    lax_decode,
)
from tests.support.backends import RUNNERS, decode, use_backend

SHORT = [data for n in range(4) for data in inputs_over(BOUNDARY, n)]
PYTHON_SAMPLE_STEP = 23  # every 23rd 4-byte input (35,218 of them) on the Python runner
C_SAMPLE_STEP = 41  # and every 41st, offset by one, through the public API on the C runner


def test_input_counts() -> None:
    assert len(BOUNDARY) == len(set(BOUNDARY)) == 30
    assert len(SHORT) == 27_931


def check_error(data: bytes, err: Utf8Error) -> None:
    """kind, naive, naive_end, sequence of one error against the independent oracles."""
    start, end = err.start, err.end
    assert err.sequence == data[start:end]
    kind = err.kind
    assert kind is expected_kind(data, start, end), (data.hex(" "), start, end, kind)
    naive, taken, length = lax_decode(data, start)
    assert err.naive == naive, (data.hex(" "), start, err.naive, naive)
    assert err.naive_end == max(end, start + taken)
    if naive is not None:
        # OVERLONG with a complete lax reading <=> the value is below that length's minimum.
        assert (kind is ErrorKind.OVERLONG) == (naive < MIN_FOR_LENGTH[length]), data.hex(" ")


def check_public(data: bytes) -> None:
    """The public entry points (on whatever runner is installed) against CPython."""
    spans = cpython_spans(data)
    replaced = data.decode("utf-8", "replace")
    assert is_valid(data) is (not spans)
    if spans:
        with pytest.raises(Utf8Error) as info:
            decode(data)
        assert (info.value.start, info.value.end) == spans[0]
    else:
        assert decode(data) == data.decode("utf-8")
    assert decode(data, errors="replace") == replaced
    errors = find_errors(data)
    assert [(e.start, e.end) for e in errors] == spans, data.hex(" ")
    literal = data.decode("utf-8", "ignore").count("\ufffd")  # U+FFFD in the input itself
    assert len(errors) == replaced.count("\ufffd") - literal
    for err in errors:
        check_error(data, err)


def check_runner(runner: ModuleType, data: bytes) -> None:
    flat = [x for span in cpython_spans(data) for x in span]
    table, nclasses = MACHINE.table, MACHINE.nclasses
    assert runner.spans(data, table, nclasses, 0, -1) == flat, data.hex(" ")
    out: list[int] = []
    assert runner.replace(data, table, nclasses, 0, out) == data.decode("utf-8", "replace")
    assert out == flat


@pytest.mark.slow
def test_short_inputs_public_api(backend: ModuleType) -> None:
    for data in SHORT:
        check_public(data)
        check_runner(backend, data)


@pytest.mark.slow
def test_four_byte_inputs_python_runner_sample() -> None:
    runner = RUNNERS["python"]
    with use_backend("python"):
        for index, data in enumerate(inputs_over(BOUNDARY, 4)):
            if index % PYTHON_SAMPLE_STEP == 0:
                check_runner(runner, data)
                check_public(data)


@pytest.mark.skipif("c" not in RUNNERS, reason="C runner not built or SANITIZER_PURE_PYTHON=1")
@pytest.mark.slow
def test_four_byte_inputs_c_runner() -> None:
    """All 810,000 4-byte inputs.  One C-runner pass over them joined by 'A' (an ASCII byte
    ends an open sequence at the offset where the end of input would), against CPython
    decoding each input on its own; then the public verdict and every error's kind and
    naive reading."""
    runner = RUNNERS["c"]
    inputs = list(inputs_over(BOUNDARY, 4))
    assert len(inputs) == 810_000
    stride = 5  # each input and its separator
    joined = b"A".join(inputs) + b"A"
    table, nclasses = MACHINE.table, MACHINE.nclasses
    machine_flat = runner.spans(joined, table, nclasses, 0, -1)
    machine_texts = runner.replace(joined, table, nclasses, 0, None).split("A")
    assert machine_texts.pop() == ""

    # CPython, one input at a time; the handler records each error shifted to `joined`.
    cpython_flat: list[int] = []
    base = [0]

    def record(exc: UnicodeError) -> tuple[str, int]:
        assert isinstance(exc, UnicodeDecodeError)
        cpython_flat.extend((base[0] + exc.start, base[0] + exc.end))
        return "\ufffd", exc.end

    codecs.register_error("test-decoder-exhaustive-record", record)
    cpython_texts = []
    for index, data in enumerate(inputs):
        base[0] = index * stride
        cpython_texts.append(data.decode("utf-8", "test-decoder-exhaustive-record"))
    assert machine_texts == cpython_texts
    assert machine_flat == cpython_flat
    assert len(cpython_flat) == 2 * 2_800_224  # a regression guard on the oracle itself

    # Public verdict, and kind/naive of every error.  Errors at offset 0 are checked on
    # every input.  One at offset >= 1 starts in the ACCEPT state and kind/naive read only
    # forwards from it, so those are checked once per (offset, end, bytes from offset on).
    first = 0
    checked: set[tuple[int, int, bytes]] = set()
    kinds: dict[tuple[int, int, bool], ErrorKind] = {}
    with use_backend("c"):
        for index, data in enumerate(inputs):
            lo = index * stride
            hi = lo + stride
            assert is_valid(data) is not (first < len(cpython_flat) and cpython_flat[first] < hi)
            while first < len(cpython_flat) and cpython_flat[first] < hi:
                start, end = cpython_flat[first] - lo, cpython_flat[first + 1] - lo
                first += 2
                if start:
                    key = (start, end, data[start:])
                    if key in checked:
                        continue
                    checked.add(key)
                    want = expected_kind(data, start, end)
                else:
                    kind_key = (data[0], data[1], end == 4)
                    want = kinds.get(kind_key) or kinds.setdefault(
                        kind_key, expected_kind(data, start, end)
                    )
                err = Utf8Error("utf-8", data, start, end, "")
                assert err.kind is want, (data.hex(" "), start, end)
                naive, taken, length = lax_decode(data, start)
                assert err.naive == naive, (data.hex(" "), start, end)
                assert err.naive_end == max(end, start + taken)
                if naive is not None:
                    assert (want is ErrorKind.OVERLONG) == (naive < MIN_FOR_LENGTH[length])
    # The public API on the C runner, one call per entry point, for a deterministic sample.
    with use_backend("c"):
        for data in inputs[1::C_SAMPLE_STEP]:
            check_public(data)


def test_overlong_iff_below_minimum_for_5_and_6_byte_forms() -> None:
    """RFC 2279 5- and 6-byte forms: OVERLONG exactly when the lax value is too small."""
    seen = set()
    for lead in (0xF8, 0xF9, 0xFB, 0xFC, 0xFD):
        length = 5 if lead < 0xFC else 6
        for second in range(0x80, 0xC0):
            for last in (0x80, 0xBF):
                data = bytes([lead, second, *[0x80] * (length - 3), last])
                err = find_errors(data)[0]
                check_error(data, err)
                assert err.naive is not None
                assert err.naive_end == length
                seen.add(err.kind)
    assert seen == {ErrorKind.OVERLONG, ErrorKind.OUT_OF_RANGE}


def test_runner_spans_limit(runner: ModuleType) -> None:
    """``limit`` caps the number of subparts reported; < 0 means all, 0 means none."""
    table, nclasses = MACHINE.table, MACHINE.nclasses
    data = b"\x80a\xc0\xaf\xe0\x80\xff\xe1"  # 80 | C0 | AF | E0 | 80 | FF | E1 (incomplete)
    every = [x for span in cpython_spans(data) for x in span]
    assert len(every) == 14
    assert runner.spans(data, table, nclasses, 0, -1) == every
    for limit in range(10):
        assert runner.spans(data, table, nclasses, 0, limit) == every[: 2 * limit], limit
    assert runner.spans(b"", table, nclasses, 0, -1) == []
    assert runner.spans(b"\xe1", table, nclasses, 0, 0) == []


def test_runner_start_position(runner: ModuleType) -> None:
    table, nclasses = MACHINE.table, MACHINE.nclasses
    data = b"ab\xc3\xa9\xff\xe2\x82"
    for pos in (0, 2, 4, 5, 7):
        want = data[pos:].decode("utf-8", "replace")
        out: list[int] = []
        assert runner.replace(data, table, nclasses, pos, out) == want
        assert out == [pos + x for span in cpython_spans(data[pos:]) for x in span]
        assert runner.spans(data, table, nclasses, pos, -1) == out
