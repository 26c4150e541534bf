"""IncrementalDecoder.feed(..., limit=N): stopping after N errors, for readers that refuse a
stream at its first error (sanitizer.web's JSON bodies), with any chunking giving what
one-shot ``find_errors(data, limit=N)`` gives, on both runners."""

from __future__ import annotations

import itertools
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer import IncrementalDecoder, Utf8Error, find_errors
from sanitizer.strategies import attack_bytes, chunkings
from tests.core.oracles import BOUNDARY, error_facts
from tests.support.backends import decode

SETTINGS = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])

pieces = st.one_of(
    st.sampled_from(BOUNDARY).map(lambda b: bytes([b])),
    st.sampled_from([b"a", b"\xef\xbb\xbf", b"\xfc\x80\x80\x80\x80\xaf", b"\xc0\xae", b"\xf8\x88"]),
    st.characters().map(lambda c: c.encode("utf-8", "surrogatepass")),
)
streams = st.lists(pieces, max_size=25).map(b"".join) | attack_bytes()


def feed_until(
    chunks: list[bytes], limit: int, **options: object
) -> tuple[str, list[Utf8Error], IncrementalDecoder]:
    """Feed ``chunks`` with ``limit`` until that many errors were returned."""
    dec = IncrementalDecoder(**options)  # type: ignore[arg-type]
    text, errors = "", list[Utf8Error]()
    for i, chunk in enumerate([*chunks, b""]):
        part, errs = dec.feed(chunk, final=i == len(chunks), limit=limit - len(errors))
        text += part
        errors += errs
        if len(errors) == limit:
            break
    return text, errors, dec


@SETTINGS
@given(streams, st.data())
def test_first_error_is_one_shot_first_error(
    backend: ModuleType, data: bytes, draw: st.DataObject
) -> None:
    chunks = draw.draw(chunkings(data))
    text, errors, _ = feed_until(chunks, 1)
    one_shot = find_errors(data)
    if not one_shot:
        assert errors == [] and text == decode(data)
    else:
        assert [error_facts(e) for e in errors] == [error_facts(one_shot[0])]
        # the text ends with the error's U+FFFD, as decoding up to its end gives
        assert text == decode(data[: one_shot[0].stream_end], errors="replace")


@SETTINGS
@given(streams, st.data(), st.integers(1, 4))
def test_limit_is_find_errors_limit(
    backend: ModuleType, data: bytes, draw: st.DataObject, limit: int
) -> None:
    chunks = draw.draw(chunkings(data))
    text, errors, _ = feed_until(chunks, limit)
    want = find_errors(data, limit=limit)
    assert [error_facts(e) for e in errors] == [error_facts(e) for e in want]
    end = want[-1].stream_end if len(want) == limit else len(data)
    assert text == decode(data[:end], errors="replace")


@SETTINGS
@given(st.lists(st.sampled_from([b"a", b"\xc0\x80", b"\xc0", b"\x80", b"\xc3\xa9"]), max_size=12))
def test_limit_with_allow_overlong_nul(backend: ModuleType, parts: list[bytes]) -> None:
    data = b"".join(parts)
    for cuts in itertools.islice(itertools.combinations(range(len(data) + 1), 2), 20):
        chunks = [data[: cuts[0]], data[cuts[0] : cuts[1]], data[cuts[1] :]]
        text, errors, _ = feed_until(chunks, 1, allow_overlong_nul=True)
        want = find_errors(data, limit=1, allow_overlong_nul=True)
        assert [error_facts(e) for e in errors] == [error_facts(e) for e in want]
        if not want:
            assert text == decode(data, allow_overlong_nul=True)


def test_valid_input_is_one_decode_per_chunk(backend: ModuleType) -> None:
    dec = IncrementalDecoder()
    assert dec.feed(b"caf\xc3", limit=1) == ("caf", [])  # an incomplete sequence waits
    assert dec.feed(b"\xa9 ok", limit=1) == ("\xe9 ok", [])
    assert dec.position == 8
    assert dec.feed(b"", final=True, limit=1) == ("", [])


def test_stops_at_the_error_with_absolute_offsets(backend: ModuleType) -> None:
    dec = IncrementalDecoder()
    assert dec.feed(b"abc", limit=1) == ("abc", [])
    text, errs = dec.feed(b"d\xc0\xafe\xff", limit=1)
    assert text == "d\ufffd"  # up to the end of the first error; the rest is skipped
    assert [(e.stream_start, e.stream_end, e.kind.value) for e in errs] == [(4, 5, "overlong")]
    assert dec.position == 8  # the chunk was consumed
    # without a limit, every error of the chunk
    text, errs = IncrementalDecoder().feed(b"abcd\xc0\xafe\xff", final=True)
    assert len(errs) == 3 and text == "abcd\ufffd\ufffde\ufffd"


def test_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="limit"):
        IncrementalDecoder().feed(b"a", limit=0)
