"""The public hypothesis strategies generate what their docstrings promise."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

import sanitizer
from sanitizer import ErrorKind
from sanitizer.strategies import (
    attack_bytes,
    chunkings,
    encode_lax,
    encoded_surrogates,
    invalid_bytes,
    lone_continuations,
    out_of_range,
    overlong,
    truncated,
    valid_utf8,
)

FAST = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


def _kinds(data: bytes) -> set[ErrorKind]:
    return {e.kind for e in sanitizer.find_errors(data)}


def test_encode_lax() -> None:
    assert encode_lax(0x2F, 2) == b"\xc0\xaf"
    assert encode_lax(0x2F, 6) == b"\xfc\x80\x80\x80\x80\xaf"
    assert encode_lax(0x10FFFF, 4) == "\U0010ffff".encode()
    assert encode_lax(0xD800, 3) == b"\xed\xa0\x80"
    with pytest.raises(ValueError, match="does not fit"):
        encode_lax(0x800, 2)


@FAST
@given(valid_utf8())
def test_valid_utf8_is_valid(data: bytes) -> None:
    assert sanitizer.is_valid(data)


@FAST
@given(overlong())
def test_overlong_is_overlong(data: bytes) -> None:
    assert sanitizer.find_errors(data)[0].kind is ErrorKind.OVERLONG


@FAST
@given(overlong(ord("/")))
def test_overlong_of_given_code_point(data: bytes) -> None:
    err = sanitizer.find_errors(data)[0]
    assert err.naive == ord("/") and len(data) >= 2


@FAST
@given(encoded_surrogates())
def test_encoded_surrogates(data: bytes) -> None:
    assert _kinds(data) == {ErrorKind.SURROGATE, ErrorKind.UNEXPECTED_CONTINUATION}


@FAST
@given(out_of_range())
def test_out_of_range(data: bytes) -> None:
    first = sanitizer.find_errors(data)[0]
    assert first.kind is ErrorKind.OUT_OF_RANGE
    assert first.naive is not None and first.naive > 0x10FFFF


@FAST
@given(truncated())
def test_truncated(data: bytes) -> None:
    assert _kinds(data) == {ErrorKind.INCOMPLETE}
    assert len(sanitizer.find_errors(data)) == 1


@FAST
@given(lone_continuations(), invalid_bytes())
def test_lone_continuations_and_invalid_bytes(cont: bytes, bad: bytes) -> None:
    assert _kinds(cont) == {ErrorKind.UNEXPECTED_CONTINUATION}
    assert _kinds(bad) == {ErrorKind.INVALID_BYTE}


@pytest.mark.parametrize("kind", list(ErrorKind))
def test_attack_bytes_yields_every_error_kind(kind: ErrorKind) -> None:
    found = find(
        attack_bytes(),
        lambda d: kind in _kinds(d),
        settings=settings(
            max_examples=2000, database=None, suppress_health_check=list(HealthCheck)
        ),
    )
    assert kind in _kinds(found)


def test_attack_bytes_is_frequently_ill_formed() -> None:
    samples: list[bytes] = []

    @settings(max_examples=200, database=None, suppress_health_check=list(HealthCheck))
    @given(attack_bytes())
    def collect(data: bytes) -> None:
        samples.append(data)

    collect()
    ill = sum(not sanitizer.is_valid(d) for d in samples)
    assert ill >= len(samples) // 3, (ill, len(samples))
    assert any(sanitizer.is_valid(d) and d for d in samples)  # valid text is mixed in


@FAST
@given(st.data())
def test_chunkings_concatenate_to_data(data: st.DataObject) -> None:
    raw = data.draw(attack_bytes())
    chunks = data.draw(chunkings(raw))
    assert b"".join(chunks) == raw
    limited = data.draw(chunkings(raw, max_chunks=2))
    assert b"".join(limited) == raw and len(limited) <= 2


@FAST
@given(st.data())
def test_incremental_decoder_with_chunkings(data: st.DataObject) -> None:
    raw = data.draw(attack_bytes())
    dec = sanitizer.IncrementalDecoder()
    text = "".join(dec.feed(c)[0] for c in data.draw(chunkings(raw))) + dec.feed(b"", True)[0]
    assert text == raw.decode("utf-8", "replace")
