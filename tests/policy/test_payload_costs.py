"""The payload search's C passes give the answers of their pure-Python statements, so
that what made them cheaper (no bytes made to count a span's UTF-8 length, one pass per
character over a stretch of marks after words) changes no answer.

- ``_speedups.utf8_length`` is the length of the span's "surrogatepass" encoding, for
  every string width, and ``ByteOffsets`` places indices at the offsets of that encoding
  on both backends;
- a payload's spelling escapes what ``_hidden._escaped``'s per-character statement does.
"""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from sanitizer._native import speedups
from sanitizer._policy import _hidden
from sanitizer._policy._offsets import ByteOffsets, utf8_span

from .test_policy_cliffs import needs_c

# characters of each UTF-8 length and of each str width, lone surrogates included
chars = st.sampled_from(
    [
        "a",
        "\x7f",
        "\x80",
        "é",
        "\u07ff",
        "\u0800",
        "中",
        "\ud800",
        "\uffff",
        "\U00010000",
        "\U0001f600",
        "\U0010ffff",
        "\u200f",
    ]
)
texts = st.lists(chars, max_size=40).map("".join)


@needs_c
@given(texts, st.data())
def test_utf8_length_is_the_encoded_length(text: str, data: st.DataObject) -> None:
    assert speedups is not None
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    want = len(text[start:end].encode("utf-8", "surrogatepass"))
    assert speedups.utf8_length(text, start, end) == want
    assert utf8_span(text, start, end) == want


@given(texts, st.lists(st.integers(0, 40), max_size=6))
def test_byte_offsets_are_those_of_the_encoding(text: str, places: list[int]) -> None:
    """Place by place and in one call, in and out of order (whichever backend runs)."""
    places = [min(i, len(text)) for i in places]
    want = [len(text[:i].encode("utf-8", "surrogatepass")) for i in places]
    to_byte = ByteOffsets(text)
    assert [to_byte(i) for i in places] == want
    pairs = [(min(a, b), max(a, b)) for a, b in itertools.pairwise(places)]
    got = ByteOffsets(text).spans(pairs)
    assert got == [(want_of(text, a), want_of(text, b)) for a, b in pairs]


def want_of(text: str, i: int) -> int:
    return len(text[:i].encode("utf-8", "surrogatepass"))


def _escaped_reference(text: str) -> str:
    """``_hidden._escaped``'s statement: a Python step a character."""
    return "".join(
        "\\\\" if c == "\\" else ascii(c)[1:-1] if _hidden._hidden_char(c) else c for c in text
    )


@given(st.text(st.characters(max_codepoint=0x7F)) | st.text())
def test_escaped_payloads_read_as_the_reference_says(text: str) -> None:
    """A payload's spelling (``Hidden.describe``), ASCII made in one ``str.translate``."""
    assert _hidden._escaped(text) == _escaped_reference(text)


def test_every_ascii_character_is_escaped_as_the_reference_says() -> None:
    for c in map(chr, range(0x80)):
        assert _hidden._escaped(c) == _escaped_reference(c)
        assert _hidden._escaped(f"a{c}\\b") == _escaped_reference(f"a{c}\\b")
