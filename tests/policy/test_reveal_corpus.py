"""Legitimate text reveals nothing and passes ``profiles.PROMPT``: the corpora of real text.

Sources (``reveal_samples``): every emoji of emoji-test.txt and every RGI, standardized
and emoji variation sequence (tools/unicode-18.0.0/), Django's translations (~100
languages: Persian with ZWNJ, Hindi, Bengali, Tamil, Sinhala, Khmer, Mongolian, Arabic,
Hebrew, ...), CLDR data through babel (names, months, days, dates, numbers and currency
in ~1,100 locales: RLM/LRM/ALM around numbers, ZWNJ in Persian), and hand-picked words
of scripts that need joiners, marks or selectors.  The fast tier checks a sample of each
source; the slow tier all of it.

Django's Central Kurdish translations open some strings with U+202B RIGHT-TO-LEFT
EMBEDDING and never close it: a bidi control, refused by TEXT and PROMPT alike (Trojan
Source, CVE-2021-42574), so those strings are left out of the PROMPT check (they reveal
nothing all the same).
"""

from __future__ import annotations

import pytest

from sanitizer import Category, inspect, profiles, reveal
from sanitizer._policy import accepts
from tests.policy.reveal_samples import (
    LEGITIMATE_PARAGRAPHS,
    SPECIAL_UNITS,
    cldr_strings,
    django_translations,
    emoji_corpus,
)

# Languages whose scripts need the characters reveal looks at, for the fast tier.
_LANGUAGES = ("fa", "hi", "bn", "ta", "si", "km", "mn", "ar", "he", "ml", "kn", "my", "th", "ja")
_LOCALES = ("fa", "fa_AF", "ps", "ur", "ar", "he", "hi", "ml", "kn", "si", "km", "my", "mn", "ja")


def _check_all(lines: tuple[str, ...]) -> None:
    hidden = [(line, reveal(line)) for line in lines if reveal(line)]
    assert hidden == []
    refused = []
    for line in lines:
        report = inspect(line, profiles.PROMPT)
        if report.ok:
            assert accepts(line, profiles.PROMPT)
            continue
        if {f.category for f in report.rejections} == {Category.BIDI_CONTROL}:
            continue  # see the module docstring
        refused.append((line, [str(f) for f in report.rejections]))
    assert refused == []


def test_special_units() -> None:
    _check_all(SPECIAL_UNITS)
    _check_all(("".join(SPECIAL_UNITS),))


def test_paragraphs_dense_in_joiners_marks_spaces_and_selectors() -> None:
    _check_all(LEGITIMATE_PARAGRAPHS)
    _check_all(("\n".join(LEGITIMATE_PARAGRAPHS), " ".join(LEGITIMATE_PARAGRAPHS)))


def test_a_language_as_one_text() -> None:
    """Stretches read across words and lines (marks after words, space characters,
    trailing whitespace): a language's translations as one text reveal nothing."""
    for sep in ("\n", " ", "  \n"):
        for lang in (("fa",), ("he",), ("ar",), ("ml",), ("fr",), ("ja",)):
            text = sep.join(django_translations(lang))
            assert reveal(text) == (), (lang, sep)
            assert reveal(text.encode()) == ()


def test_emoji_sample() -> None:
    _check_all(emoji_corpus()[::25])


def test_django_sample() -> None:
    lines = django_translations(_LANGUAGES)
    assert len(lines) > 5000
    _check_all(lines[::7])


def test_cldr_sample() -> None:
    lines = cldr_strings(_LOCALES)
    assert any("\u200c" in line for line in lines)  # Persian ZWNJ is in there
    assert any("\u200f" in line or "\u061c" in line for line in lines)  # and bidi marks
    _check_all(lines[::5])


@pytest.mark.slow
def test_every_emoji_and_sequence() -> None:
    _check_all(emoji_corpus())


@pytest.mark.slow
def test_every_django_translation() -> None:
    _check_all(django_translations())


@pytest.mark.slow
def test_every_cldr_string() -> None:
    _check_all(cldr_strings())


@pytest.mark.slow
def test_every_source_as_one_text() -> None:
    for sep in ("\n", " ", "\n\n"):
        for lines in (django_translations(), cldr_strings(), emoji_corpus()):
            assert reveal(sep.join(lines)) == ()
