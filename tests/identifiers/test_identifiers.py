"""normalize_identifier / identifiers_equal: the three forms, and what each one merges."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanitizer import identifiers_equal, normalize_identifier
from sanitizer._categories import NORMAL_FORMS

FORMS = list(NORMAL_FORMS)


def test_angstrom_sign_equals_a_ring_under_nfc() -> None:
    assert identifiers_equal("\u212b", "\u00c5")
    assert identifiers_equal("\u212b", "A\u030a")
    assert normalize_identifier("\u212b") == "\u00c5"


@pytest.mark.parametrize(
    ("form", "equal"), [("NFC", False), ("NFKC", True), ("NFKC_CASEFOLD", True)]
)
def test_fi_ligature_only_under_compatibility(form: str, equal: bool) -> None:
    assert identifiers_equal("\ufb01le", "file", form=form) is equal  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("form", "equal"), [("NFC", False), ("NFKC", False), ("NFKC_CASEFOLD", True)]
)
def test_fullwidth_admin_only_under_casefold(form: str, equal: bool) -> None:
    assert identifiers_equal("ＡＤＭＩＮ", "admin", form=form) is equal  # type: ignore[arg-type]


def test_nfkc_of_fullwidth_is_ascii_uppercase() -> None:
    assert normalize_identifier("ＡＤＭＩＮ", form="NFKC") == "ADMIN"


def test_nfkc_casefold_examples() -> None:
    assert normalize_identifier("Straße", form="NFKC_CASEFOLD") == "strasse"
    assert identifiers_equal("ΣΊΣΥΦΟΣ", "σίσυφος", form="NFKC_CASEFOLD")
    assert identifiers_equal("ad\u200bmin", "admin", form="NFKC_CASEFOLD")  # erases ignorables
    assert not identifiers_equal("ad\u200bmin", "admin", form="NFKC")
    assert normalize_identifier("\ufdfa", form="NFKC") == normalize_identifier(
        "\ufdfa", form="NFKC_CASEFOLD"
    )
    assert len(normalize_identifier("\ufdfa", form="NFKC")) == 18


def test_character_assigned_after_unicode_14() -> None:
    """U+105C9 TODHRI LETTER EI (Unicode 16) = U+105D2 U+0307 canonically: unknown to
    Python 3.11's own data, normalized as Unicode 18 says."""
    assert normalize_identifier("\U000105d2\u0307") == "\U000105c9"
    assert identifiers_equal("\U000105c9", "\U000105d2\u0307")
    # U+A7F1 MODIFIER LETTER CAPITAL S: <super> 0053, new after 14.0.
    assert normalize_identifier("\ua7f1", form="NFKC") == "S"
    assert normalize_identifier("\ua7f1") == "\ua7f1"
    # U+A7CB LATIN CAPITAL LETTER RAMS HORN (Unicode 16) folds to U+0264.
    assert identifiers_equal("\ua7cb", "\u0264", form="NFKC_CASEFOLD")


def test_errors() -> None:
    with pytest.raises(ValueError, match="argument 'form' must be 'NFC', 'NFKC' or"):
        normalize_identifier("x", form="NFD")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="argument 'form' must be 'NFC', 'NFKC' or"):
        identifiers_equal("x", "x", form="nfc")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        normalize_identifier(b"x")  # type: ignore[arg-type]


@given(s=st.text(max_size=20), form=st.sampled_from(FORMS))
def test_idempotent(s: str, form: str) -> None:
    once = normalize_identifier(s, form=form)  # type: ignore[arg-type]
    assert normalize_identifier(once, form=form) == once  # type: ignore[arg-type]


@given(a=st.text(max_size=8), b=st.text(max_size=8), form=st.sampled_from(FORMS))
def test_equal_is_symmetric_and_reflexive(a: str, b: str, form: str) -> None:
    assert identifiers_equal(a, b, form=form) == identifiers_equal(b, a, form=form)  # type: ignore[arg-type]
    assert identifiers_equal(a, a, form=form)  # type: ignore[arg-type]


@given(s=st.text(max_size=12))
def test_forms_are_nested(s: str) -> None:
    """NFC-equal implies NFKC-equal implies NFKC_CASEFOLD-equal."""
    nfc = normalize_identifier(s)
    assert identifiers_equal(s, nfc)
    assert identifiers_equal(s, nfc, form="NFKC")
    assert identifiers_equal(s, normalize_identifier(s, form="NFKC"), form="NFKC_CASEFOLD")
