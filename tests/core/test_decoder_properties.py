"""Property tests against CPython, on both runners, and linear-work checks."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer import IncrementalDecoder, encode, find_errors, is_valid
from sanitizer import _decoder as decoder
from sanitizer._grammar import MACHINE
from tests.core.oracles import BOUNDARY, cpython_spans, expected_kind, lax_decode
from tests.support.backends import RUNNERS, decode, use_backend

SETTINGS = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])

# Bytes biased towards the interesting ones: boundary bytes, ASCII, whole characters.
interesting_bytes = st.one_of(
    st.binary(max_size=40),
    st.lists(
        st.one_of(
            st.sampled_from(BOUNDARY).map(lambda b: bytes([b])),
            st.sampled_from([b"a", b"/", b".", b"\xef\xbb\xbf"]),
            st.characters().map(lambda c: c.encode("utf-8", "surrogatepass")),
        ),
        max_size=30,
    ).map(b"".join),
)


@SETTINGS
@given(st.text())
def test_valid_text_round_trips(backend: ModuleType, text: str) -> None:
    data = encode(text)
    assert data == text.encode("utf-8")
    assert is_valid(data)
    assert decode(data) == text
    assert decode(data, errors="replace") == text
    assert find_errors(data) == []
    assert decode(bytearray(data)) == text
    assert decode(memoryview(data)) == text


@SETTINGS
@given(interesting_bytes)
def test_arbitrary_bytes_agree_with_cpython(backend: ModuleType, data: bytes) -> None:
    spans = cpython_spans(data)
    replaced = data.decode("utf-8", "replace")
    assert is_valid(data) is (not spans)
    try:
        text = decode(data)
    except UnicodeDecodeError as exc:
        assert spans
        assert (exc.start, exc.end) == spans[0]
    else:
        assert not spans
        assert text == data.decode("utf-8")
    assert decode(data, errors="replace") == replaced
    errors = find_errors(data)
    assert [(e.start, e.end) for e in errors] == spans
    literal = data.decode("utf-8", "ignore").count("\ufffd")  # U+FFFD in the input itself
    assert len(errors) == replaced.count("\ufffd") - literal
    for err in errors:
        assert err.kind is expected_kind(data, err.start, err.end)
        assert err.naive == lax_decode(data, err.start)[0]
    # the runner on its own, from an arbitrary starting point
    table, nclasses = MACHINE.table, MACHINE.nclasses
    flat = [x for s in spans for x in s]
    assert backend.spans(data, table, nclasses, 0, -1) == flat
    out: list[int] = []
    assert backend.replace(data, table, nclasses, 0, out) == replaced
    assert out == flat


@SETTINGS
@given(interesting_bytes, st.integers(0, 3))
def test_find_errors_limit_is_a_prefix(backend: ModuleType, data: bytes, limit: int) -> None:
    every = [(e.start, e.end) for e in find_errors(data)]
    assert [(e.start, e.end) for e in find_errors(data, limit=limit)] == every[:limit]


@given(interesting_bytes)
def test_runners_agree(data: bytes) -> None:
    if "c" not in RUNNERS:
        pytest.skip("C runner not built or SANITIZER_PURE_PYTHON=1")
    table, nclasses = MACHINE.table, MACHINE.nclasses
    for pos in {0, len(data) // 2}:
        for limit in (-1, 0, 1, 2):
            args = (data, table, nclasses, pos, limit)
            assert RUNNERS["c"].spans(*args) == RUNNERS["python"].spans(*args)
        a: list[int] = []
        b: list[int] = []
        assert RUNNERS["c"].replace(data, table, nclasses, pos, a) == RUNNERS["python"].replace(
            data, table, nclasses, pos, b
        )
        assert a == b


# -- linear work ----------------------------------------------------------------------
# Counted, not timed: wall time on a shared machine is noise, and adversarial timings live
# in bench/bench_linear.py (T(4n) / T(n) per entry point, kind and runner).

KIB = 1 << 10
PACKAGE_DIR = str(Path(decoder.__file__).parent)


def _adversarial(size: int) -> dict[str, bytes]:
    rng = random.Random(3629)
    return {
        "80": b"\x80" * size,
        "C2": b"\xc2" * size,
        "F0": b"\xf0" * size,
        "random": rng.randbytes(size),
        "E0A0": b"\xe0\xa0" * (size // 2),
        "EDA0": b"\xed\xa0" * (size // 2),
    }


def _decode_py_fails(data: bytearray) -> None:
    with pytest.raises(UnicodeDecodeError):
        decoder.decode_py(data, bom="strip")


def _feed_all(data: bytes, chunk: int = 256) -> None:
    dec = IncrementalDecoder("replace")
    for i in range(0, len(data), chunk):
        dec.feed(data[i : i + chunk])
        assert len(dec._pending) <= 3  # held bytes stay bounded (RFC 3629 §3: at most 3)
    dec.feed(b"", final=True)


def _find_errors_fed(data: bytes, chunk: int = 256) -> None:
    dec = IncrementalDecoder("replace")
    for i in range(0, len(data), chunk):
        dec.find_errors(data[i : i + chunk])
        assert len(dec._pending) <= 3
    dec.find_errors(b"", final=True)


ENTRY_POINTS: dict[str, Callable[[bytes], object]] = {
    "decode-replace": lambda data: decode(data, errors="replace"),
    "decode_py-strict-bytearray": lambda data: _decode_py_fails(bytearray(data)),
    "find_errors": find_errors,
    "is_valid": is_valid,
    "feed-256B": _feed_all,
    "find_errors-fed-256B": _find_errors_fed,
}


def _lines_run(func: Callable[[bytes], object], data: bytes) -> int:
    """Python lines the package runs for ``func(data)``: an exact, repeatable measure of
    the Python-level work (the pure-Python runner's whole cost; the C runner's glue)."""
    count = 0

    def local(frame: FrameType, event: str, arg: object) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        return local if frame.f_code.co_filename.startswith(PACKAGE_DIR) else None

    sys.settrace(tracer)
    try:
        func(data)
    finally:
        sys.settrace(None)
    return count


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RUNNERS))
def test_linear_work(name: str) -> None:
    """W(4n) <= 4.5 W(n) + a constant for every adversarial input and entry point, where W
    counts the Python lines run: linear is 4x, quadratic 16x.  Work inside the C runner is
    not counted here; bench/bench_linear.py times it."""
    small = KIB if name == "python" else 16 * KIB
    small_inputs, big_inputs = _adversarial(small), _adversarial(4 * small)
    failures = []
    with use_backend(name):
        for entry, func in ENTRY_POINTS.items():
            for kind, data in small_inputs.items():
                w_small = _lines_run(func, data)
                w_big = _lines_run(func, big_inputs[kind])
                if w_big > 4.5 * w_small + 200:
                    failures.append((entry, kind, w_small, w_big))
    assert not failures
