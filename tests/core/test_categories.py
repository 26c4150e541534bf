"""The generated character tables: current, consistent with unicodedata2, and honest.

That the file is what ``tools/gen_chartables.py`` makes now is
tests/suites/test_generated_files.py's.  The tests here need only unicodedata2 and the vendored
DerivedAge.txt, and check the derived properties against definitions from UAX #44 and
against Python's own case folding where it is authoritative.
"""

from __future__ import annotations

import itertools
import lzma
import unicodedata
from functools import lru_cache
from pathlib import Path

import pytest
import unicodedata2

from sanitizer import UNICODE_VERSION, _chartables_data
from sanitizer._categories import (
    CHARACTER_CATEGORIES,
    DEFAULT_IGNORABLE,
    MARKS,
    Category,
    category_of,
    in_ranges,
    is_default_ignorable,
    nfkc_casefold,
    nfkc_casefold_table,
)

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parents[1] / "data"


@lru_cache(maxsize=1)
def derived_age() -> dict[int, tuple[int, int]]:
    """Age of every assigned code point, from the vendored DerivedAge-18.0.0.txt."""
    ages: dict[int, tuple[int, int]] = {}
    with lzma.open(DATA / "DerivedAge-18.0.0.txt.xz", "rt", encoding="utf-8") as fh:
        for line in fh:
            body = line.split("#")[0].strip()
            if not body:
                continue
            rng, age = (x.strip() for x in body.split(";"))
            lo, _, hi = rng.partition("..")
            major, minor = age.split(".")
            for cp in range(int(lo, 16), int(hi or lo, 16) + 1):
                ages[cp] = (int(major), int(minor))
    return ages


def test_versions_agree() -> None:
    assert _chartables_data.UNICODE_VERSION == UNICODE_VERSION == unicodedata2.unidata_version
    with lzma.open(DATA / "DerivedAge-18.0.0.txt.xz", "rt", encoding="utf-8") as fh:
        assert fh.readline().strip() == f"# DerivedAge-{UNICODE_VERSION}.txt"


def test_categories_are_disjoint_and_sorted() -> None:
    seen: list[tuple[int, int]] = []
    for cat in CHARACTER_CATEGORIES:
        rngs = cat.ranges
        assert list(rngs) == sorted(rngs)
        seen += rngs
    seen.sort()
    for (_, hi), (lo, _) in itertools.pairwise(seen):
        assert hi < lo


@pytest.mark.slow
def test_categories_match_unicodedata2() -> None:
    """Every general-category-derived class equals its definition over all code points."""
    for cp in range(0x110000):
        gc = unicodedata2.category(chr(cp))
        cat = category_of(cp)
        if gc == "Co":
            assert cat is Category.PRIVATE_USE
        elif gc == "Cs":
            assert cat is Category.SURROGATE
        elif gc == "Cc":
            assert cat in (Category.NUL, Category.LINE_BREAK, Category.CONTROL) or cp == 9
        elif gc == "Cn":
            assert cat in (
                Category.NONCHARACTER,
                Category.INVISIBLE,
                Category.UNASSIGNED,
                Category.TAG,
            )
        elif gc == "Cf":
            assert cat in (
                Category.BIDI_CONTROL,
                Category.BIDI_MARK,
                Category.TAG,
                Category.BOM,
                Category.JOINER,
                Category.INVISIBLE,
                Category.FORMAT,
            )
        elif gc in ("Zs", "Zl", "Zp"):
            assert cat in (Category.WHITESPACE, Category.LINE_BREAK)
        assert in_ranges(cp, MARKS) is (gc[0] == "M")


@pytest.mark.parametrize(
    ("cp", "category"),
    [
        (0x09, Category.WHITESPACE),
        (0x20, Category.WHITESPACE),
        (0x0A, Category.LINE_BREAK),
        (0x85, Category.LINE_BREAK),
        (0x2029, Category.LINE_BREAK),
        (0x1B, Category.CONTROL),
        (0x9B, Category.CONTROL),
        (0x202E, Category.BIDI_CONTROL),
        (0x2069, Category.BIDI_CONTROL),
        (0x061C, Category.BIDI_MARK),
        (0x200D, Category.JOINER),
        (0x200B, Category.INVISIBLE),
        (0x00AD, Category.INVISIBLE),
        (0x2065, Category.INVISIBLE),  # reserved, but Default_Ignorable
        (0xE0080, Category.INVISIBLE),
        (0xE0001, Category.TAG),
        (0xE01EF, Category.VARIATION_SELECTOR),
        (0x180F, Category.VARIATION_SELECTOR),
        (0xFEFF, Category.BOM),
        (0xFFFE, Category.NONCHARACTER),
        (0x10FFFF, Category.NONCHARACTER),
        (0xFFFB, Category.FORMAT),
        (0x41, None),
        (0x1F600, None),
    ],
)
def test_category_of(cp: int, category: Category | None) -> None:
    assert category_of(cp) is category


def test_default_ignorable_definition() -> None:
    """DerivedCoreProperties: DI = ODI + Cf + Variation_Selector - White_Space - FFF9..FFFB
    - 13430..1343F - Prepended_Concatenation_Mark; check the Cf part with unicodedata2."""
    pcm = {*range(0x600, 0x606), 0x6DD, 0x70F, 0x890, 0x891, 0x8E2, 0x110BD, 0x110CD}
    for cp in range(0x110000):
        if unicodedata2.category(chr(cp)) == "Cf":
            excluded = cp in pcm or 0xFFF9 <= cp <= 0xFFFB or 0x13430 <= cp <= 0x1343F
            assert is_default_ignorable(cp) is not excluded, hex(cp)
    assert sum(hi - lo + 1 for lo, hi in DEFAULT_IGNORABLE) == 4174


def _derived_nfkc_casefold(text: str) -> str:
    """NFKC_Casefold from its derivation (DerivedNormalizationProps.txt): close
    NFKC(casefold(NFKC(x))) and remove Default_Ignorable code points, then NFC."""
    x = text
    for _ in range(5):
        y = unicodedata2.normalize("NFKC", unicodedata2.normalize("NFKC", x).casefold())
        y = "".join(c for c in y if not is_default_ignorable(ord(c)))
        if y == x:
            break
        x = y
    return str(unicodedata2.normalize("NFC", x))


@pytest.mark.slow
def test_nfkc_casefold_matches_python_where_python_knows() -> None:
    """For every code point assigned by the interpreter's Unicode version (13.0 on Python
    3.10, 14.0 on 3.11, 15.0 on 3.12/3.13; case folding is stable for assigned
    characters), the generated table equals the derivation using ``str.casefold``.
    Characters added later are covered by the table alone."""
    known = tuple(int(part) for part in unicodedata.unidata_version.split(".")[:2])
    bad = [
        cp
        for cp, age in derived_age().items()
        if age <= known
        and not 0xD800 <= cp <= 0xDFFF
        and nfkc_casefold(chr(cp)) != _derived_nfkc_casefold(chr(cp))
    ]
    assert bad == []


@pytest.mark.parametrize(
    ("cp", "folded"),
    [
        (0xA7CB, "\u0264"),  # LATIN CAPITAL LETTER RAMS HORN (Unicode 16)
        (0x1C89, "\u1c8a"),  # CYRILLIC CAPITAL LETTER TJE (Unicode 16)
        (0xA7DC, "\u019b"),  # LATIN CAPITAL LETTER LAMBDA WITH STROKE (Unicode 16)
        (0xA7F1, "s"),  # MODIFIER LETTER CAPITAL S: compatibility, then case (Unicode 17+)
    ],
)
def test_nfkc_casefold_new_characters(cp: int, folded: str) -> None:
    assert derived_age()[cp] > (14, 0)
    assert nfkc_casefold(chr(cp)) == folded
    assert nfkc_casefold_table()[cp] == folded


def test_nfkc_casefold_erases_default_ignorables() -> None:
    assert nfkc_casefold("ad\u200bmi\u00adn\U000e0041") == "admin"
    assert nfkc_casefold("Straße") == "strasse"
    assert nfkc_casefold("ＡＤＭＩＮ") == "admin"
    assert nfkc_casefold("\u212b") == "\u00e5"


def test_every_category_has_its_meaning_once() -> None:
    """The words of each category (problem titles, SARIF rules, the docs table) come from
    one table, which names every category and nothing else."""
    from sanitizer._category_meanings import MEANINGS

    assert list(MEANINGS) == [c.value for c in Category]
    for c in Category:
        assert c.description and c.members and c.rationale.endswith("."), c
