"""Property tests against CPython, on both runners, and linear-time checks."""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Callable
from types import ModuleType

import pytest
from conftest import (
    BOUNDARY,
    RUNNERS,
    cpython_spans,
    decode,
    expected_kind,
    lax_decode,
    use_backend,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer import IncrementalDecoder, decoder, encode, find_errors, is_valid
from sanitizer.grammar import MACHINE

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


# -- linear time -----------------------------------------------------------------------

MIB = 1 << 20


def _adversarial(size: int) -> dict[str, bytes]:
    rng = random.Random(3629)
    return {
        "80": b"\x80" * size,
        "C2": b"\xc2" * size,
        "F0": b"\xf0" * size,
        "random": rng.randbytes(size),
        "E0A0": b"\xe0\xa0" * (size // 2),
    }


def _decode_py_fails(data: bytearray) -> None:
    with pytest.raises(UnicodeDecodeError):
        decoder.decode_py(data, bom="strip")


def _feed_all(data: bytes) -> None:
    dec = IncrementalDecoder("replace")
    for i in range(0, len(data), 4096):
        dec.feed(data[i : i + 4096])
    dec.feed(b"", final=True)


ENTRY_POINTS: dict[str, Callable[[bytes], object]] = {
    "decode-replace": lambda data: decode(data, errors="replace"),
    "decode_py-strict-bytearray": lambda data: _decode_py_fails(bytearray(data)),
    "find_errors": find_errors,
    "is_valid": is_valid,
    "feed-4KiB": _feed_all,
}


def _best_time(func: Callable[[bytes], object], data: bytes, repeat: int = 1) -> float:
    best = float("inf")
    gc.collect()
    for _ in range(repeat):
        start = time.perf_counter()
        func(data)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RUNNERS))
def test_linear_time(name: str) -> None:
    """T(4n) < 8 * T(n) for every adversarial input and entry point: linear is 4x,
    quadratic would be 16x.  The C runner at n = 64 KiB (the public C ``decode`` and
    ``decode_py`` both), the pure-Python one at n = 16 KiB.  Best of three runs each, and
    one re-measurement before failing: a shared machine's noise, not the code, is what a
    single timing mostly shows."""
    small = MIB // 64 if name == "python" else MIB // 16
    small_inputs, big_inputs = _adversarial(small), _adversarial(4 * small)
    failures = []
    with use_backend(name):
        for entry, func in ENTRY_POINTS.items():
            for kind, data in small_inputs.items():
                for _attempt in range(2):
                    t_small = max(_best_time(func, data, 3), 1e-4)
                    t_big = _best_time(func, big_inputs[kind], 3)
                    if t_big <= 8 * t_small or t_big <= 0.01:
                        break
                else:
                    failures.append((entry, kind, t_small, t_big))
    assert not failures
