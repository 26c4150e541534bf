"""Restriction levels and mixed numbers: UTS #39 §5.2 and §5.3.

A restriction level says how much script mixing an identifier shows, from ASCII_ONLY to
UNRESTRICTED.  Levels 1-5 require every character to be Identifier_Status=Allowed (§3.1,
the General Security Profile); then, in order (§5.2):

1. ASCII_ONLY: every character is ASCII;
2. SINGLE_SCRIPT: the resolved script set (§5.1) is not empty;
3. HIGHLY_RESTRICTIVE: covered by Latin + Han + Hiragana + Katakana, Latin + Han +
   Bopomofo or Latin + Han + Hangul (the characters other than Latin resolve to Jpan,
   Hanb or Kore);
4. MODERATELY_RESTRICTIVE: covered by Latin and one other Recommended script, except
   Cyrillic and Greek (and Cherokee, as ICU: it looks Latin too);
5. MINIMALLY_RESTRICTIVE: anything else made of Allowed characters;
6. UNRESTRICTED: some character is Restricted.

The steps follow ICU's ``SpoofImpl::getRestrictionLevel``.  Mixed numbers (§5.3): decimal
digits (gc=Nd) from more than one system of ten, such as "1" and "١" or "৪" (Bengali 4)
beside "8", which can make a number read as another.
"""

from __future__ import annotations

import enum
import re

import unicodedata2

from .._arguments import exact_str
from . import _lookups
from .scripts import resolved_from

_ASCII_RESTRICTED = re.compile(r"[^'\-.0-:A-Z_a-z]").search  # IdentifierStatus.txt, ASCII
_HAN_COMBINATIONS = frozenset({"Hanb", "Jpan", "Kore"})
_LOOK_LATIN = frozenset({"Cyrl", "Grek", "Cher"})
_decimal = unicodedata2.decimal


class RestrictionLevel(enum.IntEnum):
    """UTS #39 §5.2 restriction levels; a higher value is less restrictive."""

    ASCII_ONLY = 1
    SINGLE_SCRIPT = 2
    HIGHLY_RESTRICTIVE = 3
    MODERATELY_RESTRICTIVE = 4
    MINIMALLY_RESTRICTIVE = 5
    UNRESTRICTED = 6


def restriction_level(s: str) -> RestrictionLevel:
    """The most restrictive level of UTS #39 §5.2 that ``s`` satisfies."""
    if type(s) is not str:
        s = exact_str(s, "s", "restriction_level")
    if s.isascii():
        if _ASCII_RESTRICTED(s):
            return RestrictionLevel.UNRESTRICTED
        return RestrictionLevel.ASCII_ONLY
    if _lookups.restricted_search().search(s):
        return RestrictionLevel.UNRESTRICTED
    if resolved_from(s):
        return RestrictionLevel.SINGLE_SCRIPT
    # The characters that are not Latin (nor Common/Inherited), resolved.
    others = resolved_from(s, skip="Latn")
    if not others.isdisjoint(_HAN_COMBINATIONS):
        return RestrictionLevel.HIGHLY_RESTRICTIVE
    if others and others.isdisjoint(_LOOK_LATIN):
        return RestrictionLevel.MODERATELY_RESTRICTIVE
    return RestrictionLevel.MINIMALLY_RESTRICTIVE


def mixed_numbers(s: str) -> bool:
    """Whether ``s`` has decimal digits (gc=Nd) of more than one system (UTS #39 §5.3):
    the zero of each digit (its code point minus its value) is not the same for all."""
    if type(s) is not str:
        s = exact_str(s, "s", "mixed_numbers")
    if s.isascii():
        return False
    zero = -1
    for ch in s:
        value = _decimal(ch, -1)
        if value >= 0:
            this = ord(ch) - value
            if zero < 0:
                zero = this
            elif this != zero:
                return True
    return False


__all__ = ["RestrictionLevel", "mixed_numbers", "restriction_level"]
