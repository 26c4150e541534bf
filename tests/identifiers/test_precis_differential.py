"""sanitizer.precis against precis-i18n, the reference implementation (PyPI ``precis-i18n``),
on strings whose answer cannot depend on the Unicode version.

precis-i18n reads the interpreter's ``unicodedata`` (Python 3.11: Unicode 14.0) and its
own tables (Unicode 17.0: Default_Ignorable, Joining_Type, scripts, Hangul jamo); this
library reads Unicode 18.  So the strings are drawn from code points whose every property
a rule reads is the same in both: General_Category, Bidi_Class, combining class,
decomposition, NFC and NFKC, lowercase and case folding (the interpreter's ``str.lower``
and ``casefold``, which precis-i18n calls), the derived property, Joining_Type and
script.  Two references: precis-i18n on the stdlib's ``unicodedata`` (the reference as
people run it), and precis-i18n given unicodedata2 (Unicode 18 for everything but its own
tables and ``str.lower``), which reaches every code point the interpreter knows.
"""

from __future__ import annotations

import functools
import unicodedata

import precis_i18n
import precis_i18n.derived
import precis_i18n.unicode
import pytest
import unicodedata2
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer import precis
from sanitizer.precis import _lookups, _mapping

# U+03A3 is left out: its lowercase depends on the Cased / Case_Ignorable properties of
# its neighbours, which this comparison does not pin down (test_precis.py checks
# Final_Sigma against CPython on characters whose properties are as old as Unicode 1.1).
SIGMA = 0x03A3

# Where to look: the blocks the rules care about, whole (the filter below keeps what
# is the same in both versions).
BLOCKS = [
    (0x0000, 0x058F),  # Latin, IPA, Greek, Cyrillic, Armenian
    (0x0590, 0x08FF),  # Hebrew, Arabic, Syriac, Thaana, NKo, ...
    (0x0900, 0x0DFF),  # Indic scripts (viramas)
    (0x1100, 0x11FF),  # Hangul jamo
    (0x1E00, 0x1FFF),  # Latin extended additional, Greek extended
    (0x2000, 0x2BFF),  # punctuation, symbols, compatibility characters
    (0x3000, 0x33FF),  # CJK symbols, kana, compatibility
    (0x4E00, 0x4E3F),
    (0xAC00, 0xAC3F),
    (0xFB00, 0xFFFF),  # presentation forms, half/fullwidth, specials
    (0x10400, 0x1044F),  # Deseret (case pairs)
    (0x10D00, 0x10D3F),  # Hanifi Rohingya (joining types)
    (0x1D400, 0x1D7FF),  # mathematical alphanumerics
    (0x1F100, 0x1F6FF),  # enclosed alphanumerics, emoji
    (0xE0000, 0xE007F),  # tags
]


def _ref_table_agrees(cp: int) -> bool:
    """precis-i18n's own Unicode 17 tables say of ``cp`` what ours (18) say."""
    ucd = precis_i18n.unicode.UnicodeData(unicodedata2)
    joining = {None: "U", "D": "D", "R": "R", "L": "L", "T": "T"}[ucd._join_type(cp)]
    return (
        joining == _lookups.joining_type(cp)
        and ucd.greek_script(cp) == _lookups.is_greek(cp)
        and ucd.hebrew_script(cp) == _lookups.is_hebrew(cp)
        and ucd.hiragana_katakana_han_script(cp) == _lookups.is_hiragana_katakana_han(cp)
    )


def _case_agrees(c: str) -> bool:
    return c.lower() == _mapping.to_lower(c) and c.casefold() == _mapping.to_casefold(c)


def _unicode_agrees(c: str) -> bool:
    """The interpreter's unicodedata says of ``c`` what unicodedata2 (18) says."""
    old, new = unicodedata, unicodedata2
    return (
        old.category(c) == new.category(c)
        and old.bidirectional(c) == new.bidirectional(c)
        and old.combining(c) == new.combining(c)
        and old.decomposition(c) == new.decomposition(c)
        and old.normalize("NFC", c) == new.normalize("NFC", c)
        and old.normalize("NFKC", c) == new.normalize("NFKC", c)
    )


@functools.cache
def stdlib_pool() -> tuple[str, ...]:
    """Code points precis-i18n on the stdlib and this library must judge alike."""
    stdlib = precis_i18n.unicode.UnicodeData()
    found = []
    for lo, hi in BLOCKS:
        for cp in range(lo, hi + 1):
            c = chr(cp)
            if cp == SIGMA or 0xD800 <= cp <= 0xDFFF:
                continue
            if (
                _unicode_agrees(c)
                and _case_agrees(c)
                and precis_i18n.derived.derived_property(cp, stdlib) == precis.derived_property(cp)
                and _ref_table_agrees(cp)
            ):
                found.append(c)
    return tuple(found)


@functools.cache
def unicodedata2_pool() -> tuple[str, ...]:
    """Every code point precis-i18n given unicodedata2 must judge as this library does:
    its Unicode 17 tables and the interpreter's case mapping agree with Unicode 18."""
    ucd = precis_i18n.unicode.UnicodeData(unicodedata2)
    return tuple(
        chr(cp)
        for cp in range(0x110000)
        if cp != SIGMA
        and not 0xD800 <= cp <= 0xDFFF
        and _case_agrees(chr(cp))
        and precis_i18n.derived.derived_property(cp, ucd) == precis.derived_property(cp)
        and _ref_table_agrees(cp)
    )


def reference_outcome(profile: object, s: str) -> tuple[str | None, str | None]:
    try:
        return profile.enforce(s), None  # type: ignore[attr-defined]
    except UnicodeEncodeError as error:
        return None, error.reason


def ours(name: str, s: str) -> tuple[str | None, str | None]:
    try:
        return precis.get_profile(name).enforce(s), None
    except precis.PrecisError as error:
        return None, error.reason


@functools.cache
def strings_from(pool: tuple[str, ...]) -> st.SearchStrategy[str]:
    chars = st.sampled_from(pool)
    ascii_ = st.characters(min_codepoint=0x20, max_codepoint=0x7E)
    return st.lists(chars | ascii_ | chars, max_size=10).map("".join)


def test_the_stdlib_pool_is_broad() -> None:
    pool = stdlib_pool()
    assert len(pool) > 10_000
    for needed in "A\u00df\u0130\u05d0\u0627\u0661\u06f1\u094d\u200c\u200d\u00b7\u0375\u30fb":
        assert needed in pool, f"U+{ord(needed):04X}"
    if unicodedata.unidata_version < "15.0.0":  # a character Unicode 15 added is not
        assert "\U00011f00" not in pool


@settings(max_examples=max(25, settings().max_examples // 3))  # the slow variant: 2x each
@given(data=st.data())
def test_same_answers_as_precis_i18n_on_the_stdlib(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(precis.PROFILE_NAMES))
    s = data.draw(strings_from(stdlib_pool()))
    expected = reference_outcome(precis_i18n.get_profile(name), s)
    assert ours(name, s) == expected


@pytest.mark.slow
@pytest.mark.parametrize("name", precis.PROFILE_NAMES)
@settings(max_examples=2 * settings().max_examples)
@given(data=st.data())
def test_same_answers_as_precis_i18n_on_the_stdlib_per_profile(
    name: str, data: st.DataObject
) -> None:
    s = data.draw(strings_from(stdlib_pool()))
    expected = reference_outcome(precis_i18n.get_profile(name), s)
    assert ours(name, s) == expected


@pytest.mark.slow
@pytest.mark.parametrize("name", precis.PROFILE_NAMES)
@given(data=st.data())  # the profile's count a profile: 3,300 strings in all under `ci`
def test_same_answers_as_precis_i18n_on_unicodedata2(name: str, data: st.DataObject) -> None:
    s = data.draw(strings_from(unicodedata2_pool()))
    reference = precis_i18n.get_profile(name, unicodedata=unicodedata2)
    assert ours(name, s) == reference_outcome(reference, s)
