"""sanitizer.precis: the API (names, arguments, errors), the rules on examples that show
each one, and the implementations against each other.

``enforce`` has three implementations that must agree on every input, refusals included
(reason, index, string, message): the C extension's (``Profile._native()``), the Python
path (``Profile._enforce_py``: fast paths, then the rules) and the rules taken one by one
(``Profile._enforce_exact``).  Hypothesis draws strings from characters that exercise
every rule.  Run under ``SANITIZER_PURE_PYTHON=1`` too (the Python twin of the C code
point map is then what the Python path uses).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sanitizer
from sanitizer import Utf8Error, precis
from sanitizer.precis import _lookups, _mapping, _rules

USERNAME = precis.get_profile("UsernameCaseMapped")
NICKNAME = precis.get_profile("NicknameCaseMapped")
OPAQUE = precis.get_profile("OpaqueString")


def outcome(enforce: Callable[[str], str], s: str) -> object:
    try:
        return ("ok", enforce(s))
    except precis.PrecisError as error:
        return ("refused", error.reason, error.index, error.string, str(error))


# -- names ---------------------------------------------------------------------------------
def test_the_profiles_are_precis_i18ns() -> None:
    import precis_i18n

    assert precis.PROFILE_NAMES == (
        "IdentifierClass",
        "FreeFormClass",
        "UsernameCasePreserved",
        "UsernameCaseMapped",
        "UsernameCaseMapped:ToLower",
        "UsernameCaseMapped:CaseFold",
        "OpaqueString",
        "NicknameCasePreserved",
        "NicknameCaseMapped",
        "NicknameCaseMapped:ToLower",
        "NicknameCaseMapped:CaseFold",
    )
    for name in precis.PROFILE_NAMES:
        assert precis.get_profile(name).name == name == precis_i18n.get_profile(name).name


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("usernamecasemapped", "UsernameCaseMapped"),
        ("USERNAMECASEMAPPED:CASEFOLD", "UsernameCaseMapped:CaseFold"),
        ("UsernameCaseMapped_ToLower", "UsernameCaseMapped:ToLower"),
        ("Nickname", "NicknameCaseMapped"),  # precis-i18n's alias
        ("freeformclass", "FreeFormClass"),
    ],
)
def test_names_are_read_as_precis_i18n_reads_them(spelling: str, name: str) -> None:
    assert precis.get_profile(spelling) is precis.get_profile(name)


def test_an_unknown_name_is_a_key_error_and_a_value_error_listing_the_names() -> None:
    with pytest.raises(KeyError) as caught:
        precis.get_profile("Username")
    assert isinstance(caught.value, ValueError)
    assert str(caught.value).startswith("unknown PRECIS profile 'Username'; the profiles are: ")
    assert all(name in str(caught.value) for name in precis.PROFILE_NAMES)
    with pytest.raises(TypeError, match="get_profile\\(\\) argument 'name' must be str, not int"):
        precis.get_profile(3)  # type: ignore[arg-type]


def test_profiles_pickle_as_themselves() -> None:
    assert pickle.loads(pickle.dumps(USERNAME)) is USERNAME
    assert repr(USERNAME) == "<PRECIS profile UsernameCaseMapped>"


def test_the_package_exports_precis_lazily() -> None:
    assert sanitizer.precis is precis
    assert "precis" in dir(sanitizer)


# -- arguments -------------------------------------------------------------------------------
@pytest.mark.parametrize("value", [None, 3, ["a"], memoryview(b"a"), bytearray(b"a")])
def test_other_types_are_refused_naming_the_parameter(value: object) -> None:
    kind = type(value).__name__
    with pytest.raises(
        TypeError, match=f"enforce\\(\\) argument 's' must be str or bytes, not {kind}"
    ):
        USERNAME.enforce(value)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=f"compare\\(\\) argument 'b' must be str or bytes, not {kind}"
    ):
        USERNAME.compare("a", value)  # type: ignore[arg-type]


def test_bytes_are_read_as_utf8_by_the_librarys_decoder() -> None:
    assert USERNAME.enforce("Jürgen".encode()) == "jürgen"
    assert USERNAME.enforce(type("B", (bytes,), {})(b"Abc")) == "abc"  # a bytes subclass
    assert USERNAME.compare(b"ABC", "abc")
    with pytest.raises(Utf8Error) as caught:  # ill-formed: not a string at all
        USERNAME.enforce(b"ab\xc0\xafc")
    assert caught.value.start == 2
    with pytest.raises(Utf8Error):
        USERNAME.compare(b"\xff", "a")


def test_a_str_subclass_is_enforced_as_its_value() -> None:
    class Name(str):
        pass

    out = USERNAME.enforce(Name("Juliet"))
    assert out == "juliet" and type(out) is str


# -- compare -----------------------------------------------------------------------------------
def test_compare_enforces_both_then_compares() -> None:
    assert USERNAME.compare("JULIET", "juliet")
    assert USERNAME.compare("\uff2aULIET", "juliet")  # fullwidth J: width mapping
    assert not precis.get_profile("UsernameCasePreserved").compare("JULIET", "juliet")
    assert NICKNAME.compare("  Juliet   Capulet ", "juliet capulet")
    assert OPAQUE.compare("correct\u00a0horse", "correct horse")  # non-ASCII space
    assert not OPAQUE.compare("Secret", "secret")


def test_a_refused_string_equals_nothing_not_even_itself() -> None:
    assert not USERNAME.compare("a\u202eb", "a\u202eb")
    assert not USERNAME.compare("", "")


# -- the rules, on examples ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "given", "expected"),
    [
        ("UsernameCaseMapped", "Juliet", "juliet"),
        ("UsernameCaseMapped", "\uff2a\uff55\uff4c\uff49\uff45\uff54", "juliet"),  # width
        ("UsernameCaseMapped", "\u0130stanbul", "i\u0307stanbul"),  # full lowercase
        ("UsernameCaseMapped:CaseFold", "Stra\u00dfe", "strasse"),  # full case folding
        ("UsernameCaseMapped", "Stra\u00dfe", "stra\u00dfe"),
        ("UsernameCaseMapped", "\u0392\u03cc\u03bb\u03bf\u03c2", "\u03b2\u03cc\u03bb\u03bf\u03c2"),
        ("UsernameCaseMapped", "\u039f\u0394\u039f\u03a3", "\u03bf\u03b4\u03bf\u03c2"),  # final
        ("UsernameCaseMapped", "\u03a3\u0391", "\u03c3\u03b1"),  # not final
        ("UsernameCasePreserved", "A\u030a", "\u00c5"),  # NFC
        ("UsernameCaseMapped", "\u05d0\u05d1", "\u05d0\u05d1"),  # RTL, Bidi Rule holds
        ("OpaqueString", "correct\u2003horse", "correct horse"),
        ("OpaqueString", "  Pass word ", "  Pass word "),
        ("NicknameCaseMapped", "\u2003 Romeo\u3000\u00a0Montague  ", "romeo montague"),
        ("NicknameCasePreserved", "\u2163", "IV"),  # NFKC
        ("NicknameCaseMapped", "\u00a8a", "\u0308a"),  # NFKC gives a space; pass 2 strips it
        ("IdentifierClass", "", ""),  # a string class alone allows the empty string
        ("FreeFormClass", "Hello World!", "Hello World!"),
        ("UsernameCaseMapped", "l\u00b7l", "l\u00b7l"),  # RFC 5892 A.3
        ("UsernameCaseMapped", "\u0915\u094d\u200d", "\u0915\u094d\u200d"),  # A.2 virama
        ("UsernameCaseMapped", "\u0628\u200c\u0628", "\u0628\u200c\u0628"),  # A.1 joining
        ("UsernameCaseMapped", "\u30a2\u30fb\u30a4", "\u30a2\u30fb\u30a4"),  # A.7
    ],
)
def test_enforce(name: str, given: str, expected: str) -> None:
    profile = precis.get_profile(name)
    for enforce in implementations(profile).values():
        assert enforce(given) == expected
        assert enforce(expected) == expected


@pytest.mark.parametrize(
    ("name", "given", "reason", "index", "where"),
    [
        ("UsernameCaseMapped", "", "DISALLOWED/empty", None, "empty string is refused"),
        ("NicknameCaseMapped", "   ", "DISALLOWED/empty", None, "nothing is left"),
        (
            "UsernameCaseMapped",
            "abc\u202e",
            "DISALLOWED/precis_ignorable_properties",
            3,
            "U+202E RIGHT-TO-LEFT OVERRIDE at index 3 is a default-ignorable",
        ),
        (
            "UsernameCaseMapped",
            "Foo Bar",
            "DISALLOWED/spaces",
            3,
            "U+0020 SPACE ' ' at index 3 after the profile's mappings is a space",
        ),
        (
            "UsernameCasePreserved",
            "a\tb",
            "DISALLOWED/controls",
            1,
            "U+0009 <control HT> at index 1 is a control character (RFC 8264 §9.12)",
        ),
        ("UsernameCaseMapped", "\u2163", "DISALLOWED/has_compat", 0, "RFC 8264 §9.17"),
        ("OpaqueString", "pass\u0378", "DISALLOWED/unassigned", 4, "Unicode 18.0.0"),
        (
            "UsernameCaseMapped",
            "\u05d0a",
            "DISALLOWED/bidi_rule",
            1,
            "a right-to-left string cannot end with Bidi_Class L",
        ),
        (
            "UsernameCaseMapped",
            "\u05d0a\u05d0",
            "DISALLOWED/bidi_rule",
            1,
            "a right-to-left string cannot contain Bidi_Class L",
        ),
        ("UsernameCaseMapped", "1\u05d0", "DISALLOWED/bidi_rule", 0, "first character"),
        (
            "UsernameCaseMapped",
            "\u0627\u0661\u06f1\u0627",
            "DISALLOWED/bidi_rule",
            2,
            "cannot mix European and Arabic digits",
        ),
        ("UsernameCaseMapped", "a\u00b7b", "DISALLOWED/middle_dot", 1, "between two 'l'"),
        ("UsernameCaseMapped", "a\u200db", "DISALLOWED/zero_width_joiner", 1, "A.2"),
        ("UsernameCaseMapped", "a\u200cb", "DISALLOWED/zero_width_nonjoiner", 1, "A.1"),
        ("UsernameCaseMapped", "\u0375a", "DISALLOWED/greek_keraia", 0, "A.4"),
        ("NicknameCaseMapped", "a\u05f3", "DISALLOWED/hebrew_punctuation", 1, "A.5"),
        ("UsernameCaseMapped", "a\u05f3", "DISALLOWED/bidi_rule", 1, "Bidi_Class R"),
        ("UsernameCaseMapped", "a\u30fb", "DISALLOWED/katakana_middle_dot", 1, "A.7"),
        ("NicknameCaseMapped", "\u0661\u06f1", "DISALLOWED/arabic_indic", 0, "A.8"),
        ("NicknameCaseMapped", "\u06f1\u0661", "DISALLOWED/extended_arabic_indic", 0, "A.9"),
        ("UsernameCaseMapped", "\u1100", "DISALLOWED/old_hangul_jamo", 0, "§9.9"),
        ("NicknameCaseMapped", "a\u0640", "DISALLOWED/exceptions", 1, "RFC 5892 §2.6"),
        ("NicknameCaseMapped", "a\u2028b", "DISALLOWED/other", 1, "no category"),
        ("UsernameCaseMapped", "\U0001f600", "DISALLOWED/symbols", 0, "§9.15"),
        ("UsernameCaseMapped", "\ud800", "DISALLOWED/other", 0, "<high surrogate>"),
    ],
)
def test_refusals_say_where_and_why(
    name: str, given: str, reason: str, index: int | None, where: str
) -> None:
    profile = precis.get_profile(name)
    for enforce in implementations(profile).values():
        with pytest.raises(precis.PrecisError) as caught:
            enforce(given)
        error = caught.value
        assert isinstance(error, ValueError)
        assert (error.profile, error.reason, error.index) == (name, reason, index)
        assert str(error).startswith(f"{name}: ") and str(error).endswith(f"[{reason}]")
        assert where in str(error)
        if index is not None:
            assert error.code_point == ord(error.string[index])
        assert repr(error) == f"PrecisError({str(error)!r})"
        copy = pickle.loads(pickle.dumps(error))
        assert (copy.reason, copy.index, copy.string, str(copy)) == (
            error.reason,
            error.index,
            error.string,
            str(error),
        )


def test_a_password_is_never_in_the_message() -> None:
    with pytest.raises(precis.PrecisError) as caught:
        OPAQUE.enforce("hunter2\x00")
    assert "hunter" not in str(caught.value)
    assert "U+0000 <control NUL> at index 7" in str(caught.value)


# -- derived_property --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cp", "expected"),
    [
        (0x61, ("PVALID", "ascii7")),
        (0x20, ("FREE_PVAL", "spaces")),
        (0x00DF, ("PVALID", "exceptions")),
        (0x200C, ("CONTEXTJ", "join_control")),
        (0x00B7, ("CONTEXTO", "exceptions")),
        (0x0378, ("UNASSIGNED", "unassigned")),
        (0xFDD0, ("DISALLOWED", "precis_ignorable_properties")),
        (0x2163, ("FREE_PVAL", "has_compat")),
        (0xE000, ("DISALLOWED", "other")),
        (0x10FFFF, ("DISALLOWED", "precis_ignorable_properties")),
    ],
)
def test_derived_property(cp: int, expected: tuple[str, str]) -> None:
    assert precis.derived_property(cp) == expected


def test_derived_property_arguments() -> None:
    with pytest.raises(TypeError, match="argument 'cp' must be int, not str"):
        precis.derived_property("a")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not bool"):
        precis.derived_property(True)
    with pytest.raises(ValueError, match=r"must be in 0\.\.0x10FFFF, not 1114112"):
        precis.derived_property(0x110000)


# -- the implementations against each other ------------------------------------------------------
def implementations(profile: precis.Profile) -> dict[str, Callable[[str], str]]:
    found: dict[str, Callable[[str], str]] = {
        "python": profile._enforce_py,
        "exact": profile._enforce_exact,
    }
    native = profile._native()
    if native is not None:
        found["c"] = native
    return found


# Characters that exercise every rule, and their neighbourhoods.
INTERESTING = (
    "aAzZ09 !~lL\t\x00\x7f\u0085\u00a0\u1680\u2000\u2003\u200a\u202f\u205f\u3000"
    "\u00df\u1e9e\u0130\u0131\u212a\u00b5\u0345\u03a3\u03c2\u03c3\u0392\u03ac\u1fb7\u1f88"
    "\u0300\u0301\u0308\u0323\u0307\u00a8\u00b4\u037a\u0384\u2163\u2460\ufb01\u3300\u00bd"
    "\uff21\uff41\uff10\uff01\uff5e\uff61\uff76\uff9e\uffa0\uffe0\uffe8\uffef"
    "\u05d0\u05d1\u05f3\u05f4\u0627\u0628\u0644\u0661\u0662\u06f1\u06f2\u064b\u0640\u06fd"
    "\u0915\u094d\u0924\u200c\u200d\u00b7\u0375\u03b1\u30fb\u30a2\u3042\u4e00\u3007"
    "\u1100\u1161\u11a8\uac00\u00ad\u200b\u2060\ufeff\u202e\u2066\u061c\u200e\u0378\ufdd0"
    "\U0001f600\U0001f1fa\U0001d400\U0001d6ba\U00010400\U00010428\U0001e900\U00010d00"
    "\U0001e922\u2028\u2029\ue000\ud800\u088e\u07fd.'\u2019:-_"
)
strings = st.text(alphabet=st.sampled_from(INTERESTING), max_size=12) | st.text(max_size=8)


@pytest.mark.parametrize("name", precis.PROFILE_NAMES)
@given(s=strings)
def test_every_implementation_gives_the_same_answer(name: str, s: str) -> None:
    profile = precis.get_profile(name)
    answers = {how: outcome(enforce, s) for how, enforce in implementations(profile).items()}
    assert len(set(answers.values())) == 1, answers
    answer = answers["exact"]
    if answer[0] == "ok":  # RFC 8264 §7: enforcing the result gives it back
        assert isinstance(answer, tuple)
        assert profile.enforce(answer[1]) == answer[1]


MAPS = {
    "lower": (_lookups.mapper(_lookups.lower_table()), _lookups.lower_table()),
    "fold": (_lookups.mapper(_lookups.fold_table()), _lookups.fold_table()),
}


@given(s=strings)
def test_the_code_point_maps_c_and_translate_agree(s: str) -> None:
    """``_lookups.mapper`` (C ``map_code_points`` when built) against ``str.translate``."""
    for mapped, table in MAPS.values():
        assert mapped(s) == s.translate(table)


def test_a_string_of_many_contextual_characters_reads_its_whole_string_rules_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Linear cost: A.7, A.8, A.9 read the whole string; 10,000 of them read it once."""
    calls = []
    name, rule = _rules.CONTEXT_RULES[0x30FB]

    def counted(s: str, i: int) -> bool:
        calls.append(i)
        return rule(s, i)

    monkeypatch.setitem(_rules.CONTEXT_RULES, 0x30FB, (name, counted))
    assert _rules.first_refused("\u30a2" + "\u30fb" * 10_000, frozenset({"PVALID"})) is None
    assert calls == [1]


# -- Final_Sigma against CPython (data unchanged since Unicode 1.1 for these characters) --------
GREEK_AND_CO = "\u0391\u0392\u0393\u03a3\u03c3\u03c2\u03b1\u03b2 .'\u0301\u0308aA1-"


@settings(max_examples=2 * settings().max_examples)
@given(s=st.text(alphabet=st.sampled_from(GREEK_AND_CO), max_size=10))
def test_lowercase_with_final_sigma_is_cpythons(s: str) -> None:
    assert _mapping.to_lower(s) == s.lower()
    assert _mapping.to_casefold(s) == s.casefold()


# -- Final_Sigma in the C path ---------------------------------------------------------------
SIGMA_NEIGHBOURS = GREEK_AND_CO + "\uff21\uff07\u3000\u00a0\u00ad\u0345\u1fbe"


@pytest.mark.parametrize("name", ["UsernameCaseMapped", "NicknameCaseMapped"])
@given(s=st.text(alphabet=st.sampled_from(SIGMA_NEIGHBOURS), max_size=10))
def test_capital_sigma_every_implementation_agrees(name: str, s: str) -> None:
    """U+03A3 stays in the C path (Final_Sigma read from the table's Cased and
    Case_Ignorable bits): the same answer as the rules one by one."""
    answers = set()
    for enforce in implementations(precis.get_profile(name)).values():
        try:
            answers.add(enforce(s))
        except precis.PrecisError as e:
            answers.add(f"refused: {e}")
    assert len(answers) == 1, answers


def test_width_and_space_mappings_keep_final_sigma_context() -> None:
    """The C path reads Final_Sigma's context before the width and space mappings (its
    lowercase step comes after them, RFC 8265 §3.3.1): every code point they map keeps
    Cased and Case_Ignorable (Unicode §3.13), exhaustively."""
    mapped = [*_lookups.WIDTH, *(cp for lo, hi in _lookups.SPACES for cp in range(lo, hi + 1))]
    assert mapped
    for cp in mapped:
        image = _mapping.map_spaces(_mapping.width_map(chr(cp)))
        assert len(image) == 1, hex(cp)
        for prop in (_lookups.is_cased, _lookups.is_case_ignorable):
            assert prop(cp) == prop(ord(image)), (hex(cp), prop.__name__)
