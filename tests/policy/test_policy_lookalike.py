"""The IDENTIFIER profile: what UTS #39 says identifiers need, as categories.

RESTRICTED (§3.1 Identifier_Status), MIXED_SCRIPT (§5.2 restriction level over
``Policy.max_restriction_level``), MIXED_NUMBERS (§5.3) and HIDDEN_OVERLAY (§5.4), judged
on the output.  Ordinary names in every Recommended script pass, and so do the mixes
UTS #39 calls Highly Restrictive (Japanese, Korean with Han, either with Latin); the
classic look-alikes fail with a finding that names what was found.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanitizer import profiles
from sanitizer._categories import Category
from sanitizer._lookalike import (
    IdentifierStatus,
    RestrictionLevel,
    identifier_status,
    mixed_numbers,
    restriction_level,
)
from sanitizer._policy import Action, Policy, PolicyError, accepts, inspect, sanitize
from sanitizer._policy._identifier import script_level
from sanitizer._policy._run import Run
from sanitizer._policy.compiled import compile_policy

IDENTIFIER = profiles.IDENTIFIER
C = Category
L = RestrictionLevel

# Real names, one or two per script UTS #39 recommends, and the mixes it calls Highly
# Restrictive: Japanese (Han + Hiragana + Katakana, with Latin), Korean (Hangul + Han,
# with Latin), Chinese with Latin; ASCII with digits and the punctuation it allows.
NAMES = [
    # Latin with diacritics
    "José", "Françoise", "Müller", "Łukasz", "Dvořák", "Søren", "Ångström", "Nguyễn",
    "Ibáñez", "Þórður", "Şükrü", "İstanbul", "Iğdır",
    # Cyrillic, Greek
    "Дмитрий", "Олександр", "Ђорђе", "Αλέξανδρος", "Νίκος",
    # Arabic (and Persian), Hebrew, Thaana
    "محمد", "فاطمه", "דוד", "שרה", "ދިވެހި",
    # Indic: Devanagari, Bengali, Tamil; Thai
    "अमित", "प्रिया", "সৌরভ", "முருகன்", "สมชาย",
    # Georgian, Armenian, Ethiopic
    "გიორგი", "Արամ", "አበበ",
    # Han, Japanese mixes, Korean with Han
    "王小明", "李", "山田太郎", "やまだ", "ヤマダ", "山田たろう", "田中タロウ", "ユーザー",
    "yamadaたろう", "Tanakaさん", "東京2024", "김민준", "金민준", "Kim민준", "李Lee",
    # ASCII: digits and the punctuation Identifier_Status allows
    "alice", "user123", "alice_2024", "R2-D2", "O'Brien", "jean-luc", "john.doe", "a:b",
]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_real_names_pass(name: str) -> None:
    report = inspect(name, IDENTIFIER)
    assert report.ok and report.findings == (), report.findings
    assert report.text == name
    assert sanitize(name.encode(), IDENTIFIER) == name
    assert accepts(name, IDENTIFIER)


@pytest.mark.parametrize("name", NAMES)
def test_real_names_are_highly_restrictive_at_most(name: str) -> None:
    """The differential check of ``script_level``: every character of these names is
    Allowed, so their level is ``lookalike.restriction_level``'s."""
    assert all(identifier_status(c) is IdentifierStatus.ALLOWED for c in name)
    assert script_level(name) == restriction_level(name) <= L.HIGHLY_RESTRICTIVE


_SCRIPT_PIECES = "aZé\u0430\u0416\u03b1\u03a9李山たカ민ㄱअকمד0٣·-_\u0301\u0903ー"


@given(st.text(st.sampled_from(_SCRIPT_PIECES), max_size=8))
def test_script_level_is_restriction_level_for_allowed_text(text: str) -> None:
    """Differential: for text of Allowed characters, the policy's script-only level is
    UTS #39 §5.2's (``lookalike.restriction_level``); with a Restricted one, §5.2 says
    UNRESTRICTED and the policy reports RESTRICTED instead."""
    level = restriction_level(text)
    if level is L.UNRESTRICTED:
        assert inspect(text, IDENTIFIER.replace(max_restriction_level=L.UNRESTRICTED)).ok is False
    else:
        assert script_level(text) == level


def _only(report_findings: tuple[object, ...], category: Category) -> None:
    assert {f.category for f in report_findings} == {category}  # type: ignore[attr-defined]


# -- MIXED_SCRIPT (§5.2) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "scripts", "level"),
    [
        ("\u0430dmin", "Cyrillic + Latin", "minimally restrictive"),  # Cyrillic а
        ("p\u0430ypal", "Latin + Cyrillic", "minimally restrictive"),
        ("micr\u03bfsoft", "Latin + Greek", "minimally restrictive"),  # Greek omicron
        ("\u0391pple", "Greek + Latin", "minimally restrictive"),  # Greek capital alpha
        ("Amitअमित", "Latin + Devanagari", "moderately restrictive"),
        ("Дмитрийδ", "Cyrillic + Greek", "minimally restrictive"),
        ("สมชายអ", "Thai + Khmer", "minimally restrictive"),
    ],
)
def test_mixed_scripts_fail_naming_the_scripts(name: str, scripts: str, level: str) -> None:
    report = inspect(name, IDENTIFIER)
    assert not report.ok and report.text is None
    (f,) = report.findings
    assert (f.category, f.start, f.end, f.action) == (C.MIXED_SCRIPT, 0, len(name), Action.REJECT)
    assert f.reason() == f"mixed scripts {scripts} ({level}, over highly restrictive)"
    assert str(f) == f"mixed-script at 0..{len(name)}: {f.reason()} (reject)"
    assert f.as_dict()["detail"] == f.reason()
    assert not accepts(name, IDENTIFIER)
    with pytest.raises(PolicyError, match=re.escape(f"mixed scripts {scripts}")):
        sanitize(name, IDENTIFIER)


def test_issue_example_admin_with_cyrillic_a() -> None:
    assert inspect("\u0430dmin", IDENTIFIER).ok is False
    (f,) = inspect("\u0430dmin".encode(), IDENTIFIER).findings
    assert (f.start, f.end) == (0, 6)  # byte offsets of the whole input


def test_other_profiles_do_not_judge_scripts() -> None:
    for policy in (profiles.TEXT, profiles.SINGLE_LINE, profiles.FILENAME):
        assert inspect("p\u0430ypal", policy).findings == ()


@pytest.mark.parametrize(
    ("level", "passes", "fails"),
    [
        (L.ASCII_ONLY, ["alice", "R2-D2"], ["José", "Дмитрий", "李"]),
        (L.SINGLE_SCRIPT, ["José", "Дмитрий", "山田たろう", "金민준"], ["yamadaたろう", "Kim민준"]),
        (L.HIGHLY_RESTRICTIVE, ["yamadaたろう", "Kim민준", "李Lee"], ["Amitअमित", "p\u0430ypal"]),
        # §5.2: Latin and any one other Recommended script except Cyrillic and Greek.
        (
            L.MODERATELY_RESTRICTIVE,
            ["Amitअमित", "Muhammadمحمد", "Davidדוד", "Nikaნიკა"],
            ["p\u0430ypal", "micr\u03bfsoft", "Amitअमितদ", "अमितদ"],
        ),
        (L.MINIMALLY_RESTRICTIVE, ["p\u0430ypal", "micr\u03bfsoft", "अमितদ"], []),
        (L.UNRESTRICTED, ["p\u0430ypal", "अमितদ"], []),
    ],
)
def test_max_restriction_level(
    level: RestrictionLevel, passes: list[str], fails: list[str]
) -> None:
    policy = IDENTIFIER.replace(max_restriction_level=level)
    for name in passes:
        assert inspect(name, policy).ok, (level, name)
    for name in fails:
        report = inspect(name, policy)
        assert not report.ok, (level, name)
        _only(report.findings, C.MIXED_SCRIPT)
        assert f"over {level.name.lower().replace('_', ' ')}" in report.findings[0].reason()


def test_single_script_over_ascii_only_names_the_script() -> None:
    (f,) = inspect("José", IDENTIFIER.replace(max_restriction_level="ascii-only")).findings
    assert f.reason() == "script Latin (single script, over ascii only)"


def test_max_restriction_level_argument() -> None:
    assert IDENTIFIER.max_restriction_level is None  # None: HIGHLY_RESTRICTIVE
    by_name = IDENTIFIER.replace(max_restriction_level="Moderately_Restrictive")
    assert by_name.max_restriction_level is L.MODERATELY_RESTRICTIVE
    assert by_name == IDENTIFIER.replace(max_restriction_level=L.MODERATELY_RESTRICTIVE)
    assert hash(by_name) == hash(IDENTIFIER.replace(max_restriction_level="moderately-restrictive"))
    assert by_name != IDENTIFIER and len({by_name, IDENTIFIER}) == 2
    assert by_name.as_dict()["max_restriction_level"] == "moderately-restrictive"
    assert IDENTIFIER.as_dict()["max_restriction_level"] is None
    with pytest.raises(TypeError, match="'max_restriction_level' must be None, a RestrictionLevel"):
        Policy(max_restriction_level=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown restriction level 'loose'"):
        Policy(max_restriction_level="loose")  # type: ignore[arg-type]


# -- MIXED_NUMBERS (§5.3) -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "systems"),
    [
        ("1\u09e83", "ASCII + Bengali"),  # "1২3"
        ("\u0967\u0968\u09e9", "Devanagari + Bengali"),  # १२৩: scripts alone would pass
        ("\u0661\u06f2", "Arabic-Indic + Extended Arabic-Indic"),  # ١۲: both Arabic script
        ("agent\u0660\u0667", None),  # one system (Arabic-Indic) after Latin: scripts fail
    ],
)
def test_mixed_numbers(name: str, systems: str | None) -> None:
    report = inspect(name, IDENTIFIER)
    assert not report.ok
    found = {f.category: f for f in report.findings}
    if systems is None:
        assert C.MIXED_NUMBERS not in found and not mixed_numbers(name)
        return
    assert mixed_numbers(name)
    f = found[C.MIXED_NUMBERS]
    assert (f.start, f.end) == (0, len(name))
    assert f.reason() == f"mixed numbers: {systems} digits"


def test_one_digit_system_per_name_passes() -> None:
    for name in ("\u0967\u0968\u0969", "\u09e7\u09e8", "\u0661\u0662", "أحمد\u0661\u0662"):
        assert inspect(name, IDENTIFIER).ok, name


# -- HIDDEN_OVERLAY (§5.4) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "start", "end", "why"),
    [
        ("i\u0307", 0, 2, "U+0307 COMBINING DOT ABOVE hidden by U+0069 LATIN SMALL LETTER I"),
        ("adm\u0131\u0307n", 3, 5, "U+0307 COMBINING DOT ABOVE hidden by U+0131"),
        ("x\u0301\u0301", 0, 3, "U+0301 COMBINING ACUTE ACCENT twice in a row"),
        ("x\u0300\u0301\u0302\u0303\u0304", 0, 6, "more than 4 nonspacing marks in a row"),
    ],
)
def test_hidden_and_stacked_marks(name: str, start: int, end: int, why: str) -> None:
    report = inspect(name, IDENTIFIER)
    assert not report.ok
    found = [f for f in report.findings if f.category is C.HIDDEN_OVERLAY]
    assert len(found) == 1, report.findings
    (f,) = found
    assert (f.start, f.end) == (start, end)
    assert why in f.reason()


def test_marks_judged_on_nfd_of_the_output() -> None:
    """'é' + U+0301 is e + U+0301 U+0301 in NFD; normalization changed the input
    ('e' U+0301 U+0301 composes), so the finding covers the input and names the output."""
    report = inspect("e\u0301\u0301", IDENTIFIER)
    assert not report.ok
    (f,) = report.findings
    assert (f.category, f.start, f.end) == (C.HIDDEN_OVERLAY, 0, 3)
    assert f.reason() == ("U+0301 COMBINING ACUTE ACCENT twice in a row at 0..2 of the NFC output")
    assert not inspect("\u00e9\u0301", IDENTIFIER).ok  # the same, already NFC


def test_ordinary_marks_pass() -> None:
    # Precomposed and decomposed accents, Vietnamese (two marks on one base), Devanagari
    # vowel signs and virama: none hidden, repeated or more than four.
    for name in ("Nguye\u0302\u0303n", "Pho\u031b\u0309", "e\u0301", "क्षत्रिय", "Jir\u030ci\u0301"):
        assert inspect(name, IDENTIFIER).ok, name


# -- RESTRICTED (§3.1) --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "index", "why"),
    [
        ("\u01c3khoisan", 0, "U+01C3 LATIN LETTER RETROFLEX CLICK 'ǃ': Identifier_Type Technical"),
        ("\u1681\u1682\u1683", 0, "U+1681 OGHAM LETTER BEITH 'ᚁ': Identifier_Type Exclusion"),
        ("a@b", 1, "U+0040 COMMERCIAL AT '@': Identifier_Type Not_XID"),
        ("\U0001f600", 0, "U+1F600 GRINNING FACE '😀': Identifier_Type Not_XID"),
        ("\u00b5", 0, "U+00B5 MICRO SIGN 'µ': Identifier_Type Not_NFKC"),
    ],
)
def test_restricted_characters(name: str, index: int, why: str) -> None:
    report = inspect(name, IDENTIFIER)
    assert not report.ok
    found = [f for f in report.findings if f.category is C.RESTRICTED]
    assert found[0].start == index and found[0].end == index + 1
    assert found[0].codepoint == ord(name[index])
    assert found[0].reason() == why
    # Restricted characters are RESTRICTED's: never a script-mix finding of their own.
    assert C.MIXED_SCRIPT not in {f.category for f in report.findings}


def test_restricted_ascii_is_refused_by_every_fast_path() -> None:
    compiled = compile_policy(IDENTIFIER)
    for ch in '@+!#$%&*=?^`|~<>()[]{},;"':
        assert not compiled.ascii_clean(f"a{ch}b".encode()), ch
        assert not accepts(f"a{ch}b", IDENTIFIER), ch
    assert compiled.ascii_clean(b"O'Brien-2.x_y:z")


def test_restricted_after_normalization_names_the_output() -> None:
    # U+212B ANGSTROM SIGN is Restricted, but NFC makes it U+00C5 (Allowed): it passes.
    assert sanitize("\u212b", IDENTIFIER) == "\u00c5"
    # Under NFKC_CASEFOLD, U+00B5 MICRO SIGN becomes Greek mu (Allowed) and passes.
    folded = IDENTIFIER.replace(normalization="NFKC_CASEFOLD")
    assert sanitize("\u00b5", folded) == "\u03bc"
    # A Restricted character next to what NFC composes: whole input, output position.
    (f,) = inspect("e\u0301\u01c3", IDENTIFIER).findings
    assert (f.category, f.start, f.end, f.codepoint) == (C.RESTRICTED, 0, 3, None)
    click = "U+01C3 LATIN LETTER RETROFLEX CLICK 'ǃ': Identifier_Type Technical"
    assert f.reason() == f"{click} at 1..2 of the NFC output"


# -- actions ------------------------------------------------------------------------------

_IDENTIFIER_CATEGORIES = (C.RESTRICTED, C.MIXED_SCRIPT, C.MIXED_NUMBERS, C.HIDDEN_OVERLAY)
_ATTACKS = {
    C.RESTRICTED: "a@b",
    C.MIXED_SCRIPT: "p\u0430ypal",
    C.MIXED_NUMBERS: "1\u09e83",
    C.HIDDEN_OVERLAY: "i\u0307",
}


@pytest.mark.parametrize("category", _IDENTIFIER_CATEGORIES)
def test_allow_reports_and_ignore_skips(category: Category) -> None:
    text = _ATTACKS[category]
    allowed = IDENTIFIER.with_actions({category: Action.ALLOW})
    report = inspect(text, allowed)
    assert report.ok and report.text == text
    assert [f.category for f in report.findings] == [category]
    assert report.findings[0].action is Action.ALLOW
    assert sanitize(text, allowed) == text and accepts(text, allowed)
    ignored = IDENTIFIER.with_actions({category: Action.IGNORE})
    assert inspect(text, ignored).findings == ()


@pytest.mark.parametrize("category", _IDENTIFIER_CATEGORIES)
@pytest.mark.parametrize("action", [Action.STRIP, Action.REPLACE])
def test_identifier_categories_cannot_edit(category: Category, action: Action) -> None:
    with pytest.raises(ValueError, match=f"{category.name} cannot be {action.name}"):
        IDENTIFIER.with_actions({category: action})


def test_policies_without_these_categories_never_judge_them() -> None:
    for policy in (Policy(), profiles.TEXT, profiles.SINGLE_LINE, profiles.FILENAME):
        assert compile_policy(policy).identifier is None
    assert Policy().actions[C.MIXED_SCRIPT] is Action.IGNORE  # the baseline ignores them
    # ... and never load the UTS #39 data (a fresh interpreter).
    code = (
        "import sys, sanitizer; from sanitizer import profiles; "
        "sanitizer.inspect('p\\u0430ypal \\u0307', profiles.TEXT); "
        "sanitizer.sanitize(b'a', profiles.FILENAME); "
        "assert 'sanitizer._lookalike' not in sys.modules, 'loaded'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the fast paths agree with the engine ---------------------------------------------------

_PIECES = ["a", "d", "1", "@", "\u0430", "\u03bf", "\u09e8", "\u0307", "\u0301", "i",
           "\u0131", "李", "た", "민", "अ", "\u01c3", "\U0001f600", "-", "e", "\u212b",
           "\u3131", "\u0660"]  # fmt: skip


@given(
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=12).map("".join),
    st.sampled_from([IDENTIFIER, IDENTIFIER.replace(max_restriction_level=L.MODERATELY_RESTRICTIVE),
                     IDENTIFIER.replace(max_restriction_level=L.UNRESTRICTED),
                     IDENTIFIER.replace(normalization="NFKC_CASEFOLD"),
                     IDENTIFIER.with_actions(RESTRICTED=Action.ALLOW, MIXED_SCRIPT=Action.ALLOW),
                     profiles.TEXT.with_actions(MIXED_SCRIPT=Action.REJECT)]),
    st.booleans(),
)  # fmt: skip
def test_fast_paths_agree_with_the_engine(text: str, policy: Policy, as_bytes: bool) -> None:
    data: str | bytes = text.encode() if as_bytes else text
    compiled = compile_policy(policy)
    engine = Run(data, compiled).report()
    assert inspect(data, policy) == engine
    assert accepts(data, policy) is engine.ok
    if engine.ok:
        assert sanitize(data, policy) == engine.text
        again = inspect(engine.text or "", policy)  # the output invariant
        assert again.ok and not again.rejections
    else:
        with pytest.raises(PolicyError):
            sanitize(data, policy)
