"""The source gate's C pass: ``source.c``'s ``source_lines`` against its
pure-Python twin ``sanitizer._source_gate._source_lines_py``, and ``check_source`` with the
C pass against ``check_source`` with the twin, on Hypothesis texts built from what the
rules look at (line feeds, bidi controls, joiners, selectors, look-alike letters,
escapes) and of every str kind (1, 2 and 4 bytes a character)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import sanitizer._source_gate as source
from sanitizer._native import speedups
from tests.support.settings import examples

needs_c = pytest.mark.skipif(speedups is None, reason="no C extension")

_PIECES = st.sampled_from(
    ["a", "x", "_", "1", " ", "\n", "\n", "\r", "\\", "\\u0430", "\\N{", "}", '"', "#",
     "é", "\xff", "\x85", "\u0430", "\u0440", "\u2028", "\u2029", "\ufe00", "\ufe0f",
     "\u20e3", "\u200d", "\u200c", "\u202e", "\u202c", "\u2066", "\u2069", "\u094d",
     "\u01c3", "日", "\U0001f600", "\U000e0041", "\U000e0100", "post", "pоst", "ab" * 5]
)  # fmt: skip
_texts = st.lists(_PIECES, max_size=60).map("".join)
_long_ascii = st.text(st.sampled_from("ab \n"), min_size=0, max_size=40)


def _lines_of(text: str) -> list[tuple[int, int]]:
    """The oracle, by definition: for each line (split at "\\n") holding a character
    >= U+0080, its (start, end); consecutive ones joined."""
    spans: list[tuple[int, int]] = []
    start = 0
    for line in text.split("\n"):
        end = start + len(line)
        if not line.isascii():
            if spans and spans[-1][1] + 1 == start:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
        start = end + 1
    return spans


def _flat(spans: list[tuple[int, int]]) -> list[int]:
    return [i for span in spans for i in span]


def _rare_of(text: str) -> list[int]:
    rare = "\x85\u2028\u2029" + "".join(map(chr, range(0xFE00, 0xFE10)))
    return [i for i, ch in enumerate(text) if ch in rare]


@settings(max_examples=examples(400))
@given(st.lists(st.one_of(_texts, _long_ascii), max_size=4).map("".join))
@example("")
@example("é")
@example("\n\n\u2028\n")
@example("a" * 20 + "é" + "b" * 20 + "\n" + "c" * 17 + "\U0001f600")
def test_twin_is_the_definition(text: str) -> None:
    assert source._source_lines_py(text) == (_flat(_lines_of(text)), _rare_of(text))


@needs_c
@settings(max_examples=examples(500))
@given(st.lists(st.one_of(_texts, _long_ascii), max_size=4).map("".join))
@example("é" + "a" * 9 + "\n" * 9 + "\u0430")  # the word-at-a-time loop on each kind
@example("a" * 15 + "\x85")
@example("a" * 7 + "\u2029" + "a" * 7)
@example("\U0001f600" + "a" * 9 + "\ufe0f")
def test_c_is_its_twin(text: str) -> None:
    assert speedups is not None
    assert speedups.source_lines(text) == source._source_lines_py(text), ascii(text)


@needs_c
@given(st.integers(0, 40), st.integers(0, 40), st.sampled_from(["é", "\u0430", "😀", "\x85"]))
def test_c_finds_a_character_at_every_offset(before: int, after: int, ch: str) -> None:
    for filler in ("a", "\xe9", "\u0101", "\U00010000"):  # every str kind
        text = filler * before + ch + "a" * after
        assert speedups is not None
        assert speedups.source_lines(text) == source._source_lines_py(text), ascii(text)


@needs_c
def test_c_refuses_what_is_not_str() -> None:
    assert speedups is not None
    with pytest.raises(TypeError):
        speedups.source_lines(b"abc")  # type: ignore[arg-type]


@needs_c
@settings(deadline=None)
@given(text=st.lists(_texts, max_size=3).map("\n".join))
def test_check_source_is_the_same_with_the_twin(text: str) -> None:
    with_c = source.check_source(text)
    saved = source._source_lines
    source._source_lines = source._source_lines_py
    try:
        with_twin = source.check_source(text)
    finally:
        source._source_lines = saved
    assert [f.as_dict() for f in with_c.findings] == [f.as_dict() for f in with_twin.findings]
    assert (with_c.ok, with_c.more_findings) == (with_twin.ok, with_twin.more_findings)


_WORD_PIECES = st.sampled_from(
    ["a", "o", "p", "c", "e", "x", "l", "I", "1", "0", "_", "é", "ï", "ø", "ı", "\u0430",
     "\u043e", "\u0440", "\u0441", "\u0435", "\u03bf", "\u03b1", "\u0391", "日", "ア",
     "\u0301", "\u01c3", "\u13aa", " ", " ", "\n", "=", "#", '"']
)  # fmt: skip


@settings(deadline=None)
@given(st.lists(_WORD_PIECES, max_size=50).map("".join))
@example("post = 1\np\u043est = 2\n")  # a Cyrillic look-alike: compared
@example("caf\u00e9 = cafe\n")  # accented Latin only: the shortcut
@example("\u0430\u0440 = 1\nap = 2\n")  # whole-script Cyrillic against ASCII
def test_the_latin_shortcut_changes_nothing(text: str) -> None:
    """``_may_cross_scripts`` only skips work: forced to True, the findings are equal."""
    fast = source.check_source(text)
    saved = source._may_cross_scripts
    source._may_cross_scripts = lambda wide: True
    try:
        full = source.check_source(text)
    finally:
        source._may_cross_scripts = saved
    assert [f.as_dict() for f in fast.findings] == [f.as_dict() for f in full.findings]


# -- identifiers: C against the pattern -------------------------------------------------------

_ID_PIECES = st.sampled_from(
    ["a", "Z", "_", "1", "\u0661", "\u00b2", "\u2167", " ", "\n", "\t", "\\", "\\", "u", "U",
     "x", "N", "{", "}", "0", "f", "F", "9", "g", "é", "ß", "\u0301", "\u0903", "\u20dd",
     "\u0430", "\u094d", "\u200d", "日", "\U0001f600", "\U0001d400", "\U000e0100", "\u3007",
     "\\u0430", "\\N{DASH}", "\\x4", "\\xe9", "\\U0001F600a"]
)  # fmt: skip


@needs_c
@settings(max_examples=examples(700), deadline=None)
@given(st.lists(_ID_PIECES, max_size=50).map("".join), st.data())
@example("\\u00e9t\u00e9 \\N{x}\u00e9 \\\u00e9 a\\\n\u00e9", None)
def test_identifiers_c_is_the_pattern(text: str, data: st.DataObject | None) -> None:
    assert speedups is not None
    spans = [source._source_lines(text)[0], [0, len(text)]]
    if data is not None:  # any spans, in order, not only whole lines
        cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=6)))
        spans.append(cuts[: len(cuts) // 2 * 2])
    for lines in spans:
        for wide in (True, False):
            expected = source._identifiers_py(text, lines, wide)
            got = source._identifiers_c(text, lines, wide)
            assert list(got.items()) == list(expected.items()), (ascii(text), lines, wide)


@needs_c
@pytest.mark.slow
def test_identifiers_c_reads_every_character() -> None:
    """Every code point as the first and as a later character of a word, against the
    pattern: \\w, \\d and the marks of C and of re agree over all of Unicode."""
    assert speedups is not None
    chars = [chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c < 0xE000]
    for k in range(0, len(chars), 4096):
        block = chars[k : k + 4096]
        text = " ".join(c + "a" + c for c in block) + "\n" + " ".join("b" + c for c in block)
        lines = [0, len(text)]
        assert source._identifiers_c(text, lines, True) == source._identifiers_py(text, lines, True)


@needs_c
def test_identifiers_c_refuses_bad_arguments() -> None:
    assert speedups is not None
    marks = source._marks_table()
    with pytest.raises(ValueError):
        speedups.identifiers("abc", [0, 9], marks, True)
    with pytest.raises(ValueError):
        speedups.identifiers("abc", [0], marks, True)
    with pytest.raises(ValueError):
        speedups.identifiers("abc", [0, 3], marks[:-1], True)
    with pytest.raises(TypeError):
        speedups.identifiers(b"abc", [0, 3], marks, True)  # type: ignore[arg-type]
    assert speedups.identifiers("ab \u00e9t\u00e9 b", [0, 8], marks, False) == {"ab": 0, "b": 7}
