"""``count_errors`` and ``IncrementalDecoder.count_errors``: the errors and their groups,
counted without building them, equal ``find_errors`` and ``group_errors`` on every input
and every way of cutting a stream; and counting builds no error object (bounded work)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanitizer import _decoder as decoder
from sanitizer._decoder import IncrementalDecoder, count_errors, find_errors, group_errors
from sanitizer.strategies import attack_bytes

# The bytes whose roles differ: ASCII, each tail range E0/ED/F0/F4 split on, leads of
# every lax length, FE FF, and the literal U+FFFD's bytes.
ALPHABET = [0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xE0, 0xE1, 0xED,
            0xEF, 0xF0, 0xF4, 0xF5, 0xF8, 0xFC, 0xFE, 0xFF, 0xBD]  # fmt: skip


def expected(data: bytes, nul: bool = False) -> tuple[int, int]:
    errors = find_errors(data, allow_overlong_nul=nul)
    return len(errors), len(group_errors(errors))


def test_every_two_byte_input() -> None:
    for combo in itertools.product(range(256), repeat=2):
        data = bytes(combo)
        assert count_errors(data) == expected(data), data
    for second in range(256):  # Modified UTF-8's C0 80 (HOWTO §5.9.4) beside the others
        data = bytes([0xC0, second, 0xC0])
        assert count_errors(data, allow_overlong_nul=True) == expected(data, True), data


def test_every_three_byte_input_over_the_alphabet() -> None:
    for combo in itertools.product(ALPHABET, repeat=3):
        data = bytes(combo)
        assert count_errors(data) == expected(data), data


@pytest.mark.slow
def test_every_four_byte_input_over_the_alphabet() -> None:
    for combo in itertools.product(ALPHABET, repeat=4):
        data = bytes(combo)
        assert count_errors(data) == expected(data), data


@given(attack_bytes(max_pieces=12), st.booleans())
def test_attack_bytes(data: bytes, nul: bool) -> None:
    assert count_errors(data, allow_overlong_nul=nul) == expected(data, nul)


@given(attack_bytes(max_pieces=12), st.lists(st.integers(0, 60), max_size=6))
def test_chunks_add_up_to_one_shot(data: bytes, cuts: list[int]) -> None:
    """Any cut of a stream: the counts of the chunks (mixed with ``find_errors`` calls,
    as a reader that lists some errors and counts the rest) add up to one-shot decoding."""
    points = sorted({min(c, len(data)) for c in cuts})
    pieces = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    counting = IncrementalDecoder()
    listing = IncrementalDecoder()
    errors = groups = 0
    for k, piece in enumerate(pieces):
        final = k == len(pieces) - 1
        if k % 2:
            found = listing.find_errors(piece, final)
            counting.find_errors(piece, final)
            errors += len(found)
            groups += len(group_errors(found))
        else:
            e, g = counting.count_errors(piece, final)
            listing.count_errors(piece, final)
            errors, groups = errors + e, groups + g
        assert counting.position == listing.position
    assert (errors, groups) == expected(data)


def test_counting_builds_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_objects(*args: object) -> list[object]:
        raise AssertionError("an error object was built")

    monkeypatch.setattr(decoder, "errors_for_spans", no_objects)
    data = b"\xff\xc0\xae\xe0\x80\x80 \xf8\x88\x80\x80\x80" * 20_000
    stream = IncrementalDecoder()
    totals = [stream.count_errors(data[i : i + 4096]) for i in range(0, len(data), 4096)]
    assert sum(e for e, _ in totals) == 11 * 20_000
    assert sum(g for _, g in totals) == 4 * 20_000
