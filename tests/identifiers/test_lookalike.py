"""sanitizer._lookalike: UTS #39 skeletons, scripts, restriction levels, the identifier key.

The expectations come from UTS #39's text (§4 confusables, §5.1 resolved scripts, §5.2
restriction levels, §5.3 mixed numbers), from the vendored data files read here
independently of the generator, and from properties: confusable() is symmetric, skeleton
is idempotent, identifier_key respects NFKC_Casefold everywhere and skeletons on
casefolded text.
"""

from __future__ import annotations

import hashlib
import importlib.util
import lzma
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
import unicodedata2
from hypothesis import given, settings
from hypothesis import strategies as st

import sanitizer
from sanitizer._categories import is_default_ignorable
from sanitizer._identifiers import identifiers_equal, normalize_identifier
from sanitizer._lookalike import (
    ALL_SCRIPTS,
    IDENTIFIER_KEY_VERSION,
    UTS39_VERSION,
    Confusability,
    IdentifierStatus,
    IdentifierType,
    RestrictionLevel,
    _confusables_data,
    confusable,
    hidden_overlays,
    identifier_key,
    identifier_status,
    identifier_types,
    mixed_numbers,
    resolved_scripts,
    restriction_level,
    script_extensions,
    script_name,
    scripts,
    skeleton,
)
from sanitizer._lookalike.scripts import resolved_from
from tests.support.settings import examples

DATA = Path(__file__).resolve().parents[2] / "tools" / "unicode-18.0.0"
R = RestrictionLevel


@cache
def prototypes() -> dict[str, str]:
    """confusables.txt, parsed here (not by the generator)."""
    table: dict[str, str] = {}
    with lzma.open(DATA / "confusables.txt.xz", "rt", encoding="utf-8-sig") as fh:
        for line in fh:
            fields = line.split("#", 1)[0].split(";")
            if len(fields) >= 3:
                target = "".join(chr(int(h, 16)) for h in fields[1].split())
                table[chr(int(fields[0], 16))] = target
    return table


def nfd(s: str) -> str:
    return str(unicodedata2.normalize("NFD", s))


def reference_skeleton(s: str) -> str:
    """UTS #39 §4, step by step."""
    table = prototypes()
    kept = (c for c in nfd(s) if not is_default_ignorable(ord(c)))
    return nfd("".join(table.get(c, c) for c in kept))


def test_versions() -> None:
    assert UTS39_VERSION == sanitizer.UNICODE_VERSION == unicodedata2.unidata_version
    assert IDENTIFIER_KEY_VERSION.startswith(UTS39_VERSION + ".")
    with lzma.open(DATA / "confusables.txt.xz", "rt", encoding="utf-8-sig") as fh:
        assert f"# Version: {UTS39_VERSION}\n" in fh.read(2000)


def test_public_names_are_top_level_and_lazy() -> None:
    for name in sanitizer._lookalike.__all__:
        assert getattr(sanitizer, name) is getattr(sanitizer._lookalike, name)
        assert name in sanitizer.__all__


# -- §4 skeletons: the ASCII look-alikes as confusables.txt has them, not as folklore ---------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("l", "l"),  # the prototype of the vertical-stroke class
        ("I", "l"),  # capital I -> l
        ("1", "l"),  # digit one -> l
        ("|", "l"),
        ("\u01c0", "l"),  # LATIN LETTER DENTAL CLICK
        ("i", "i"),  # small i is its own class: "i" and "l" are not confusable
        ("m", "rn"),  # m -> r n: "rn" and "m" are confusable
        ("rn", "rn"),
        ("0", "O"),  # zero -> capital O, not small o
        ("O", "O"),
        ("o", "o"),
        ("vv", "vv"),  # folklore, but not in confusables.txt
        ("w", "w"),
        ("cl", "cl"),
        ("d", "d"),
        ("5", "5"),
        ("S", "S"),
        ("`", "'"),
        ('"', "''"),
        ("", ""),
    ],
)
def test_ascii_skeletons(text: str, expected: str) -> None:
    assert skeleton(text) == expected == reference_skeleton(text)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("rn", "m", Confusability.SINGLE_SCRIPT),
        ("Il1", "lll", Confusability.SINGLE_SCRIPT),
        ("g00gle", "gOOgle", Confusability.SINGLE_SCRIPT),
        ("g00gle", "google", None),  # 0 is like O, and O is not o
        ("il", "ll", None),
        ("paypal", "paypa1", Confusability.SINGLE_SCRIPT),
        ("p\u0430ypal", "paypal", Confusability.MIXED_SCRIPT),  # Cyrillic а in Latin
        ("\u0441\u043e\u0440\u0435", "cope", Confusability.WHOLE_SCRIPT),  # all Cyrillic
        ("\u0455\u0441\u043e\u0440\u0435", "scope", Confusability.WHOLE_SCRIPT),
        ("\u03bf", "o", Confusability.WHOLE_SCRIPT),  # Greek omicron
        ("1", "l", Confusability.SINGLE_SCRIPT),  # Common meets Latin
        ("ab", "ab\u200b", Confusability.SINGLE_SCRIPT),  # ZWSP is ignored (§4 step 2)
        ("e\u0301", "\u00e9", Confusability.SINGLE_SCRIPT),  # NFD first
        ("p\u0430yp\u0430l", "\u0440\u0430\u0443\u0440\u0430l", Confusability.MIXED_SCRIPT),
        ("admin", "\u0430dmin", Confusability.MIXED_SCRIPT),
        ("abc", "abd", None),
    ],
)
def test_confusable(a: str, b: str, expected: Confusability | None) -> None:
    assert confusable(a, b) is expected
    assert confusable(b, a) is expected
    if expected is not None:
        assert expected.mixed_script is (expected is not Confusability.SINGLE_SCRIPT)


@pytest.mark.slow
def test_every_code_point_skeleton_matches_the_definition() -> None:
    table = prototypes()
    ignorable = {chr(cp) for cp in range(0x110000) if is_default_ignorable(cp)}
    plain = [chr(cp) for cp in range(0x110000)]
    plain = [c for c in plain if c not in table and c not in ignorable and nfd(c) == c]
    assert [c for c in plain if skeleton(c) != c] == []  # §4 changes nothing here
    rest = sorted(set(map(chr, range(0x110000))) - set(plain))
    assert [f"U+{ord(c):04X}" for c in rest if skeleton(c) != reference_skeleton(c)] == []


# -- §5.1 resolved script sets -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Circle", {"Latn"}),
        ("\u0421ircl\u0435", set()),  # Cyrillic С, е: mixed
        ("Circ1e", {"Latn"}),  # digits are Common
        ("\U0001d5a2\U0001d5c2\U0001d5cb\U0001d5bc\U0001d5c5\U0001d5be", ALL_SCRIPTS),  # math
        ("\u13df\u13a5\u13a1\u13df\u13de\u13ac", {"Cher"}),  # Cherokee
        ("\u14d5\u13a5\u1587\u14d5\u14aa\u156e", set()),  # Canadian syllabics + Cherokee
        ("\u3006\u5207", {"Hani", "Hanb", "Jpan", "Kore"}),  # 〆切: Han, augmented
        ("\u306d\u30ac", {"Jpan"}),  # Hiragana + Katakana resolve to Japanese
        ("\ud55c\uc790\u6f22\u5b57", {"Kore"}),  # Hangul + Han: Korean
        ("\u6f22\u5b57\u3105", {"Hanb"}),  # Han + Bopomofo
        ("\u30fc", {"Hira", "Kana", "Jpan"}),  # prolonged sound mark: two scripts
        ("", ALL_SCRIPTS),
        ("123-_", ALL_SCRIPTS),
        ("a\u0301", {"Latn"}),  # Inherited mark
    ],
)
def test_resolved_scripts(text: str, expected: set[str] | frozenset[str]) -> None:
    assert resolved_scripts(text) == expected


def test_script_extensions_and_names() -> None:
    assert script_extensions("a") == {"Latn"}
    assert script_extensions("1") == {"Zyyy"}
    assert script_extensions("\u0301") >= {"Latn", "Cyrl", "Grek"}
    assert script_extensions("\u0378") == {"Zzzz"}
    assert script_name("Latn") == "Latin"
    assert script_name("Zyyy") == "Common"
    assert script_name("Jpan") == "Japanese"
    assert script_name("Ital") == "Old Italic"
    assert {"Hanb", "Jpan", "Kore", "Latn", "Zyyy", "Zinh", "Zzzz"} <= ALL_SCRIPTS
    assert all(script_name(code) for code in ALL_SCRIPTS)


# -- §5.2 restriction levels ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("", R.ASCII_ONLY),
        ("abc_1.x-y", R.ASCII_ONLY),
        ("a b", R.UNRESTRICTED),  # SPACE is Restricted
        ("caf\u00e9", R.SINGLE_SCRIPT),
        ("\u043c\u043e\u0441\u043a\u0432\u0430", R.SINGLE_SCRIPT),  # москва
        ("\u0391\u03b8\u03ae\u03bd\u03b1", R.SINGLE_SCRIPT),  # Αθήνα
        ("\u6771\u4eac\u3068\u30c8\u30a6\u30ad\u30e7\u30a6", R.SINGLE_SCRIPT),  # Jpan
        ("\ud55c\uad6d\u97d3\u570b", R.SINGLE_SCRIPT),  # Hangul + Han: Kore
        # Latin + Han + Hiragana + Katakana, Latin + Han + Hangul: highly restrictive
        ("abc\u65e5\u672c\u3072\u3089\u30ab\u30bf", R.HIGHLY_RESTRICTIVE),
        ("abc\ud55c\uad6d\u97d3", R.HIGHLY_RESTRICTIVE),
        ("abc\u6f22\u5b57", R.HIGHLY_RESTRICTIVE),  # Latin + Han
        # Latin + one other Recommended script, except Cyrillic and Greek
        ("abc\u0627\u0644\u0639", R.MODERATELY_RESTRICTIVE),  # Arabic
        ("abc\u0939\u093f\u0928\u094d\u0926\u0940", R.MODERATELY_RESTRICTIVE),  # Devanagari
        ("abc\u05e9\u05dc\u05d5\u05dd", R.MODERATELY_RESTRICTIVE),  # Hebrew
        ("p\u0430ypal", R.MINIMALLY_RESTRICTIVE),  # Latin + Cyrillic
        ("abc\u03b1\u03b2", R.MINIMALLY_RESTRICTIVE),  # Latin + Greek
        ("\u0430\u03b1", R.MINIMALLY_RESTRICTIVE),  # Cyrillic + Greek
        ("abc\u0627\u05e9", R.MINIMALLY_RESTRICTIVE),  # Latin + Arabic + Hebrew
        ("\uff50\uff41\uff59", R.UNRESTRICTED),  # fullwidth: Not_NFKC, Restricted
        ("\u13df\u13a5\u13a1", R.UNRESTRICTED),  # Cherokee is Limited_Use
        ("abc\u6f22\u3105", R.UNRESTRICTED),  # Bopomofo letters are Limited_Use in 18.0
    ],
)
def test_restriction_levels(text: str, level: RestrictionLevel) -> None:
    assert restriction_level(text) is level


def test_latin_han_bopomofo_is_a_highly_restrictive_combination() -> None:
    """Bopomofo letters are Restricted in Unicode 18, so the level is UNRESTRICTED; the
    covering test of §5.2 itself still accepts Latin + Han + Bopomofo."""
    assert "Hanb" in resolved_from("abc\u6f22\u3105", skip="Latn")
    assert resolved_from("abc\u0430", skip="Latn") == {"Cyrl"}


def test_restriction_levels_are_ordered() -> None:
    assert R.ASCII_ONLY < R.SINGLE_SCRIPT < R.HIGHLY_RESTRICTIVE < R.MODERATELY_RESTRICTIVE
    assert R.MODERATELY_RESTRICTIVE < R.MINIMALLY_RESTRICTIVE < R.UNRESTRICTED


# -- §5.3 mixed numbers --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "mixed"),
    [
        ("12", False),
        ("\u0661\u0662", False),  # Arabic-Indic digits only
        ("1\u0661", True),
        ("\u09ea8", True),  # Bengali four beside 8 (reads as 8 8)
        ("\u09ea\u09e8", False),
        ("\U0001d7cf\U0001d7d0", False),  # mathematical bold 1 2: one system
        ("\U0001d7cf2", True),
        ("\U0001d7cf\U0001d7d9", True),  # bold 1, double-struck 1: two systems
        ("abc\u0430", False),
        ("\u2460\u2461", False),  # circled digits are No, not Nd
    ],
)
def test_mixed_numbers(text: str, mixed: bool) -> None:
    assert mixed_numbers(text) is mixed


# -- §3.1 Identifier_Status and Identifier_Type --------------------------------------------


def test_identifier_status_and_type() -> None:
    assert identifier_status("a") is IdentifierStatus.ALLOWED
    assert identifier_status("\u0430") is IdentifierStatus.ALLOWED
    assert identifier_status(" ") is IdentifierStatus.RESTRICTED
    assert identifier_status("\uff50") is IdentifierStatus.RESTRICTED
    assert identifier_types("a") == {IdentifierType.RECOMMENDED}
    assert identifier_types("\uff50") == {IdentifierType.NOT_NFKC}
    assert identifier_types("\u0378") == {IdentifierType.NOT_CHARACTER}
    assert identifier_types(" ") == {IdentifierType.NOT_XID}
    assert identifier_types("\u200b") == {IdentifierType.DEFAULT_IGNORABLE}


def test_identifier_status_matches_the_file() -> None:
    allowed: set[int] = set()
    with lzma.open(DATA / "IdentifierStatus.txt.xz", "rt", encoding="utf-8") as fh:
        for line in fh:
            body = line.split("#", 1)[0].strip()
            if body:
                lo, _, hi = body.split(";")[0].strip().partition("..")
                allowed.update(range(int(lo, 16), int(hi or lo, 16) + 1))
    for cp in range(0, 0x110000, 7):
        want = IdentifierStatus.ALLOWED if cp in allowed else IdentifierStatus.RESTRICTED
        assert identifier_status(chr(cp)) is want, hex(cp)


# -- §5.4 hidden overlays (ICU's rule) -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("i\u0307", (1,)),  # Soft_Dotted
        ("j\u0307", (1,)),
        ("\u0456\u0307", (1,)),  # Cyrillic і
        ("l\u0307", (1,)),
        ("\u0131\u0307", (1,)),  # dotless ı
        ("\u0237\u0307", (1,)),
        ("1\u0307", (1,)),  # prototype l
        ("abI\u0307", (3,)),  # I has the prototype l
        ("ab\u0130", ()),  # İ is one letter: ICU checks the string as given, not its NFD
        ("\u0130stanbul", ()),  # Turkish names are not flagged
        ("\u0130brahim \u0130nce", ()),
        ("I\u0307stanbul", (1,)),  # but the decomposed spelling is (ICU: 256)
        ("i\u0316\u0307", (2,)),  # a class-220 mark in between does not matter
        ("i\u0308\u0307", ()),  # a class-230 mark in between does
        ("e\u0307", ()),
        ("i\u0307\u0307", (1,)),  # the second dot sits on the first
        ("i", ()),
        ("\u0117", ()),  # ė
    ],
)
def test_hidden_overlays(text: str, found: tuple[int, ...]) -> None:
    assert hidden_overlays(text) == found


@given(st.text(alphabet=st.sampled_from("iIl1j\u0130\u0131\u0307\u0308\u0316a ")))
def test_hidden_overlays_name_only_dots_with_a_lead_base(s: str) -> None:
    """Every index found is a U+0307 after a lead (class 220 marks skipped), on ``s`` as
    given: a precomposed İ never counts, so NFC text with İ only is never flagged."""
    found = hidden_overlays(s)
    assert all(s[i] == "\u0307" and i > 0 for i in found)
    assert all(s[i - 1] in "iIl1j\u0131\u0316" for i in found)
    assert hidden_overlays(s.replace("\u0307", "")) == ()


# -- identifier_key ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("google", "GOOGLE"),
        ("google", "g00gle"),  # 0 -> O -> o
        ("google", "g\u043e\u043egle"),  # Cyrillic о
        ("admin", "\u0251dmin"),  # ɑ
        ("stra\u00dfe", "STRASSE"),
        ("caf\u00e9", "cafe\u0301"),
        ("paypal", "paypa1"),  # 1 -> l
        ("rn", "m"),
        ("ab", "a\u200bb"),
        ("\u212bngstr\u00f6m", "\u00c5ngstro\u0308m"),
        ("\uff50\uff41\uff59\uff50\uff41\uff4c", "paypal"),  # fullwidth
        # rule 3: the skeleton of case variants ("I" -> "l")
        ("paypaI", "paypal"),
        ("paypaI", "PAYPAL"),
        ("paypaI", "Paypa1"),
        ("PAYPAL", "Paypa1"),
        ("admIn", "admln"),
        ("admin", "admln"),  # "admin" is the identifier "admIn"
        ("il", "ll"),
        ("g0OGLE", "google"),
        ("\U0001df6a", "A"),  # Latin capital phonotypic roundtop A -> A
        ("\ua7b2", "J"),  # Latin capital J with crossed-tail -> J
        ("\u0196", "l"),  # Latin capital iota -> l
        # rule 4 and the dotless i: the dotted capital I of Turkish
        ("\u0130stanbul", "istanbul"),
        ("\u0130STANBUL", "Istanbul"),
        ("i\u0307stanbul", "istanbul"),
        ("I\u0307stanbul", "istanbul"),
        ("\u0131stanbul", "istanbul"),
        ("j\u0307", "j"),
        ("\u0456\u0307", "i"),  # Cyrillic і, Soft_Dotted
        ("i\u0323\u0307", "i\u0323"),  # the dot below does not move the dot above
        ("i\u0307\u0307", "i"),  # a dropped dot does not end the base's reach
    ],
)
def test_identifier_key_collides(a: str, b: str) -> None:
    assert identifier_key(a) == identifier_key(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("google", "gogle"),
        ("fun", "sun"),  # U+017F casefolds to s: its prototype f is not followed
        ("bob", "ssoss"),  # U+A7B4 -> B is left out: its lowercase is ß -> ss
        ("hello", "nello"),  # Greek H -> H and eta -> n: another script, not followed
        ("bob", "\u0432o\u0432"),  # Cyrillic В -> B: another script
        ("user5", "users"),  # U+01BC tone five -> 5: a digit has no script
        ("jam", "3am"),
        ("o\u0307", "o"),  # a dot an o does not hide
        ("\u00f0", "\u0111"),  # eth and d with stroke: U+00D0 -> D + U+0335 is left out
        ("i\u0301", "i"),  # an accent is no hidden dot
    ],
)
def test_identifier_key_separates(a: str, b: str) -> None:
    assert identifier_key(a) != identifier_key(b)


def test_identifier_key_of_ascii_is_exact() -> None:
    """The ASCII fast path equals the general algorithm (NFKD, map, NFD) on all of ASCII."""
    from sanitizer._lookalike import _lookups

    table = _lookups.key_map().table()
    for cp in range(128):
        general = nfd(unicodedata2.normalize("NFKD", chr(cp)).translate(table))
        assert identifier_key(chr(cp)) == general
    text = "".join(map(chr, range(128)))
    assert identifier_key(text) == nfd(text.translate(table))


def _casefolded(s: str) -> str:
    return normalize_identifier(s, form="NFKC_CASEFOLD")


@cache
def same_prototype() -> dict[str, list[str]]:
    """Casefolded characters grouped by prototype (to build skeleton-equal pairs)."""
    groups: dict[str, list[str]] = {}
    for source, proto in prototypes().items():
        if _casefolded(source) == source and unicodedata2.combining(source) == 0:
            groups.setdefault(proto, []).append(source)
    return {proto: [proto, *sources] for proto, sources in groups.items()}


# -- properties ----------------------------------------------------------------------------

names = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs"]) | st.sampled_from("aAlI1|0Oom"),
    max_size=12,
)


@settings(max_examples=examples(200), deadline=None)
@given(names, names)
def test_confusable_is_symmetric(a: str, b: str) -> None:
    assert confusable(a, b) is confusable(b, a)
    assert confusable(a, a) is not None
    assert (confusable(a, b) is None) is (skeleton(a) != skeleton(b))


marked = st.text(
    st.sampled_from("a\u0430l1I\u0315\u0301\u0307\u0316\u0000\u200b\u05d0"), max_size=8
)


@settings(max_examples=examples(300), deadline=None)
@given(marked | names, marked | names)
def test_confusable_is_the_definition(a: str, b: str) -> None:
    """confusable() (both skeletons in one NFD across U+0000, script sets as bit masks) says
    what skeleton() and resolved_scripts() say, also for text with U+0000 and marks whose
    canonical order matters (U+0315 maps to a mark of another class)."""
    ra, rb = resolved_scripts(a), resolved_scripts(b)
    if skeleton(a) != skeleton(b):
        expected = None
    elif ra & rb:
        expected = Confusability.SINGLE_SCRIPT
    elif ra and rb:
        expected = Confusability.WHOLE_SCRIPT
    else:
        expected = Confusability.MIXED_SCRIPT
    assert confusable(a, b) is expected
    assert scripts.resolved_mask(a) == scripts.mask_of(ra) == scripts.resolved_mask_py(a)


@settings(max_examples=examples(200), deadline=None)
@given(names)
def test_skeleton_is_idempotent(s: str) -> None:
    assert skeleton(skeleton(s)) == skeleton(s)


@settings(max_examples=examples(300), deadline=None)
@given(names)
def test_identifier_key_respects_nfkc_casefold(s: str) -> None:
    folded = _casefolded(s)
    assert identifiers_equal(s, folded, form="NFKC_CASEFOLD")
    assert identifier_key(s) == identifier_key(folded)


@settings(max_examples=examples(200), deadline=None)
@given(names, names)
def test_identifier_key_equal_when_identifiers_equal(a: str, b: str) -> None:
    if identifiers_equal(a, b, form="NFKC_CASEFOLD"):
        assert identifier_key(a) == identifier_key(b)


@settings(max_examples=examples(200), deadline=None)
@given(st.data())
def test_identifier_key_respects_skeletons_of_casefolded_names(data: st.DataObject) -> None:
    groups = same_prototype()
    protos = sorted(groups)
    picked = data.draw(st.lists(st.sampled_from(protos), max_size=8))
    a = "".join(data.draw(st.sampled_from(groups[p])) for p in picked)
    b = "".join(data.draw(st.sampled_from(groups[p])) for p in picked)
    a, b = _casefolded(a), _casefolded(b)
    if skeleton(a) == skeleton(b):
        assert identifier_key(a) == identifier_key(b), (a, b)


@cache
def same_prototype_in_any_case() -> dict[str, list[str]]:
    """``same_prototype`` with the uppercase of each casefolded letter (by this Python's
    own case mapping) added where rule 3 follows its prototype."""
    groups = {proto: list(members) for proto, members in same_prototype().items()}
    table = prototypes()
    left_out = _confusables_data.KEY_CASE_VARIANTS_LEFT_OUT
    for members in same_prototype().values():
        for ch in members:
            upper = ch.upper()
            proto = table.get(upper)
            if (
                len(upper) == 1
                and upper != ch
                and proto is not None
                and _casefolded(upper) != upper
                and ord(upper) not in left_out
                and _in_own_script(upper, proto)
            ):
                groups.setdefault(proto, [proto]).append(upper)
    return groups


@settings(max_examples=examples(200), deadline=None)
@given(st.data())
def test_identifier_key_respects_skeletons_of_names_in_any_case(data: st.DataObject) -> None:
    """Rules 1-3 together, on strings: names in mixed case ("paypaI", "ΑΒΓ" forms) with
    equal skeletons have one key, and so do their casefolded forms."""
    groups = same_prototype_in_any_case()
    protos = sorted(groups)
    picked = data.draw(st.lists(st.sampled_from(protos), max_size=8))
    a = "".join(data.draw(st.sampled_from(groups[p])) for p in picked)
    b = "".join(data.draw(st.sampled_from(groups[p])) for p in picked)
    if skeleton(a) == skeleton(b):
        assert identifier_key(a) == identifier_key(b), (a, b)
        assert identifier_key(_casefolded(a)) == identifier_key(b), (a, b)


def test_identifier_key_of_every_casefolded_source_is_its_prototypes() -> None:
    """The per-character form of the skeleton property, over all of confusables.txt
    (marks whose prototype has another combining class are the documented exception)."""
    failures = []
    for source, proto in prototypes().items():
        if _casefolded(source) != source or unicodedata2.normalize("NFKD", source) != source:
            continue
        ccc = unicodedata2.combining(source)
        if ccc and any(unicodedata2.combining(c) != ccc for c in nfd(proto)):
            continue
        if identifier_key(source) != identifier_key(proto):
            failures.append(f"U+{ord(source):04X}")
    assert failures == []


NO_SCRIPT = frozenset({"Zyyy", "Zinh", "Zzzz"})


def _in_own_script(source: str, proto: str) -> bool:
    """Rule 3's condition, from the runtime's Script_Extensions: the prototype has a
    character of a real script and every such one shares a script with ``source``."""
    own = script_extensions(source) - NO_SCRIPT
    theirs = [script_extensions(e) - NO_SCRIPT for e in nfd(proto)]
    theirs = [s for s in theirs if s]
    return bool(own) and bool(theirs) and all(own & s for s in theirs)


@pytest.mark.slow  # all of confusables.txt against the UCD's case mappings
@pytest.mark.skipif(importlib.util.find_spec("ucdinfo") is None, reason="needs ucdinfo==0.3")
def test_identifier_key_follows_the_prototype_of_every_case_variant() -> None:
    """Rule 3 over all of confusables.txt, with the case mappings read here from the UCD
    (not by the generator): a source that is the uppercase, lowercase or titlecase of a
    casefolded character, with a prototype in its own script, has its prototype's key --
    except the few the generated table lists as left out, which do not."""
    from ucdinfo import ucd

    data = ucd._get_local_ucd()

    def mapped(ch: str, key: str) -> str:
        return str(data.get(ord(ch), key)) or ch

    left_out = _confusables_data.KEY_CASE_VARIANTS_LEFT_OUT
    followed, failures = [], []
    for source, proto in prototypes().items():
        if unicodedata2.normalize("NFKD", source) != source or _casefolded(source) == source:
            continue  # casefolded sources: the test below
        of = {_casefolded(source), mapped(source, "lc"), mapped(source, "uc")}
        if not any(
            len(c) == 1
            and _casefolded(c) == c
            and source in {mapped(c, key) for key in ("uc", "lc", "tc")}
            for c in of
        ):
            continue  # not a case variant: its prototype is not followed (U+017F)
        if not _in_own_script(source, proto):
            continue
        if ord(source) in left_out:
            assert left_out[ord(source)] == nfd(proto)
            assert identifier_key(source) != identifier_key(proto), source
        elif identifier_key(source) == identifier_key(proto):
            followed.append(source)
        else:
            failures.append(f"U+{ord(source):04X}")
    assert failures == []
    assert "I" in followed and len(followed) > 50
    assert len(left_out) < 20  # what docs/identifiers.md lists


@settings(max_examples=examples(300), deadline=None)
@given(names | marked)
def test_identifier_key_is_idempotent(s: str) -> None:
    key = identifier_key(s)
    assert identifier_key(key) == key
    assert unicodedata2.normalize("NFD", key) == key


def _reference_hidden_dots(key: str) -> str:
    """Rule 4 as ICU states HIDDEN_OVERLAY, walking the string once: a U+0307 is dropped
    when the last character before it of combining class 0 or 230 that was kept is a
    dot lead (a dropped U+0307 is not kept, so the lead still reaches the next one)."""
    from sanitizer._lookalike import _lookups

    out, lead = [], False
    for ch in key:
        if ch == "\u0307" and lead:
            continue
        out.append(ch)
        if unicodedata2.combining(ch) in (0, 230):
            lead = _lookups.is_dot_lead(ord(ch))
    return "".join(out)


dotted = st.text(
    st.sampled_from("iIlj1oa\u0131\u0130\u0456\u0307\u0307\u0323\u0301\u0335\u0328\u05b0"),
    max_size=10,
)


@settings(max_examples=examples(300), deadline=None)
@given(dotted | names)
def test_identifier_key_drops_exactly_the_hidden_dots(s: str) -> None:
    """Rule 4 against its reference on the key before it, and ICU's own check: no key
    has a U+0307 that ``hidden_overlays`` calls hidden."""
    from sanitizer._lookalike import _lookups

    before = unicodedata2.normalize("NFD", _lookups.key_mapper()(unicodedata2.normalize("NFKD", s)))
    key = identifier_key(s)
    assert key == _reference_hidden_dots(before)
    assert hidden_overlays(key) == ()


def test_identifier_key_of_every_mapped_character_is_idempotent() -> None:
    """Exhaustive over the key map's sources, also with a dot above after each (rule 4)."""
    from sanitizer._lookalike import _lookups

    for cp in _lookups.key_map().table():
        for s in (chr(cp), chr(cp) + "\u0307", "i" + chr(cp) + "\u0307"):
            key = identifier_key(s)
            assert identifier_key(key) == key, (hex(cp), key)


def test_no_key_contains_a_character_the_key_maps() -> None:
    """The key's output alphabet: a key is NFD of values of the per-character map (and
    of characters it leaves alone), less some U+0307; every character of every value is
    its own key (the generator's check (c)), and NFD adds no character (the values are
    NFD).  So a string holding a character the map changes ("R", U+200B) is never a key:
    Django's rekey() relies on it.  U+FFFF, a noncharacter, is no such character."""
    from sanitizer._lookalike import _lookups

    table = _lookups.key_map().table()
    for value in table.values():
        assert unicodedata2.normalize("NFD", value) == value
        for ch in value:
            assert ord(ch) not in table and identifier_key(ch) == ch, (value, ch)
    assert ord("R") in table and ord("\u200b") in table
    assert identifier_key("\uffff") == "\uffff"


# Digests of identifier_key over a fixed sample, per IDENTIFIER_KEY_VERSION: a change of
# any key must come with a new version (stored keys then need rekeying).
KEY_DIGESTS = {"18.0.0.2": "e622e678d4964ddc8a5100d8dc742604c76f565bdeb5f4658eabdccd0aaed7b8"}


def test_keys_are_pinned_to_the_key_version() -> None:
    sample = sorted(prototypes()) + [chr(cp) for cp in range(0x250)]
    sample += ["paypaI", "\u0130stanbul", "Stra\u00dfe", "\u212bngstr\u00f6m", "g00gle"]
    digest = hashlib.sha256("\n".join(map(identifier_key, sample)).encode("utf-8", "surrogatepass"))
    assert KEY_DIGESTS.get(IDENTIFIER_KEY_VERSION) == digest.hexdigest()


# -- argument errors -----------------------------------------------------------------------

STRING_FUNCTIONS: list[tuple[Callable[..., object], str]] = [
    (skeleton, "s"),
    (resolved_scripts, "s"),
    (restriction_level, "s"),
    (mixed_numbers, "s"),
    (hidden_overlays, "s"),
    (identifier_key, "s"),
]
CHAR_FUNCTIONS: list[Callable[[str], object]] = [
    script_extensions,
    identifier_status,
    identifier_types,
]


@pytest.mark.parametrize(("function", "name"), STRING_FUNCTIONS)
@pytest.mark.parametrize("bad", [b"abc", None, 3, ["a"]])
def test_non_str_is_a_type_error(function: Callable[..., object], name: str, bad: object) -> None:
    with pytest.raises(TypeError, match=f"argument '{name}' must be str"):
        function(bad)


def test_confusable_names_the_bad_argument() -> None:
    with pytest.raises(TypeError, match="argument 'a'"):
        confusable(b"a", "a")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="argument 'b'"):
        confusable("a", None)  # type: ignore[arg-type]


@pytest.mark.parametrize("function", CHAR_FUNCTIONS)
def test_char_functions_want_one_character(function: Callable[[str], object]) -> None:
    for bad in ("", "ab", "a\u0301"):
        with pytest.raises(ValueError, match="exactly one character"):
            function(bad)
    with pytest.raises(TypeError, match="argument 'ch' must be str"):
        function(b"a")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a script code"):
        script_name("Nope")
