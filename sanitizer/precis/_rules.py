"""The checks of PRECIS after the mappings: the string classes' per-character rule with
the contextual rules (RFC 8264 §8, RFC 5892 Appendix A) and the Bidi Rule (RFC 5893 §2).

Each check returns where the string fails (an index, with the reason in precis-i18n's
vocabulary) or None; ``_profile`` turns that into a ``PrecisError``.  Written for
clarity over speed: the profiles reach these only when their fast path could not
decide.
"""

from __future__ import annotations

import unicodedata2

from .._categories import in_ranges
from . import _lookups
from ._lookups import CONTEXTJ, CONTEXTO

VIRAMA = 9  # Canonical_Combining_Class=Virama (RFC 5892 A.1, A.2)
MIDDLE_DOT_NEIGHBOUR = 0x6C  # 'l', for the Catalan ela geminada (A.3)
ARABIC_INDIC = range(0x0660, 0x066A)  # A.8
EXTENDED_ARABIC_INDIC = range(0x06F0, 0x06FA)  # A.9


# -- RFC 5892 Appendix A: the contextual rules, each on the whole string and an index ------
def _zero_width_nonjoiner(s: str, i: int) -> bool:
    """A.1: after a virama, or between a left- and a right-joining character (Joining_Type
    L or D before, R or D after, Transparent characters skipped)."""
    if i == 0:
        return False
    if unicodedata2.combining(s[i - 1]) == VIRAMA:
        return True
    return _joins(s, range(i - 1, -1, -1), "L") and _joins(s, range(i + 1, len(s)), "R")


def _joins(s: str, indices: range, side: str) -> bool:
    """Whether the first character at ``indices`` that is not Transparent joins on ``side``
    (Joining_Type ``side`` or D)."""
    for j in indices:
        joining = _lookups.joining_type(ord(s[j]))
        if joining in (side, "D"):
            return True
        if joining != "T":
            return False
    return False


def _zero_width_joiner(s: str, i: int) -> bool:
    """A.2: after a virama."""
    return i > 0 and unicodedata2.combining(s[i - 1]) == VIRAMA


def _middle_dot(s: str, i: int) -> bool:
    """A.3: between two 'l'."""
    return 0 < i < len(s) - 1 and ord(s[i - 1]) == ord(s[i + 1]) == MIDDLE_DOT_NEIGHBOUR


def _greek_keraia(s: str, i: int) -> bool:
    """A.4: followed by a Greek character."""
    return i < len(s) - 1 and _lookups.is_greek(ord(s[i + 1]))


def _hebrew_punctuation(s: str, i: int) -> bool:
    """A.5, A.6: preceded by a Hebrew character."""
    return i > 0 and _lookups.is_hebrew(ord(s[i - 1]))


def _katakana_middle_dot(s: str, i: int) -> bool:
    """A.7: the string has a Hiragana, Katakana or Han character."""
    return any(_lookups.is_hiragana_katakana_han(ord(c)) for c in s)


def _arabic_indic(s: str, i: int) -> bool:
    """A.8: no Extended Arabic-Indic digit in the string."""
    return not any(ord(c) in EXTENDED_ARABIC_INDIC for c in s)


def _extended_arabic_indic(s: str, i: int) -> bool:
    """A.9: no Arabic-Indic digit in the string."""
    return not any(ord(c) in ARABIC_INDIC for c in s)


# code point -> (the rule's name as precis-i18n reports it, the rule)
CONTEXT_RULES = {
    0x200C: ("zero_width_nonjoiner", _zero_width_nonjoiner),
    0x200D: ("zero_width_joiner", _zero_width_joiner),
    0x00B7: ("middle_dot", _middle_dot),
    0x0375: ("greek_keraia", _greek_keraia),
    0x05F3: ("hebrew_punctuation", _hebrew_punctuation),
    0x05F4: ("hebrew_punctuation", _hebrew_punctuation),
    0x30FB: ("katakana_middle_dot", _katakana_middle_dot),
    **dict.fromkeys(ARABIC_INDIC, ("arabic_indic", _arabic_indic)),
    **dict.fromkeys(EXTENDED_ARABIC_INDIC, ("extended_arabic_indic", _extended_arabic_indic)),
}


# Rules about the whole string: decided once per string, however many characters ask.
_WHOLE_STRING = frozenset({"katakana_middle_dot", "arabic_indic", "extended_arabic_indic"})


def context_refuses(s: str, i: int, decided: dict[str, bool]) -> str:
    """The name of the contextual rule of ``s[i]`` (CONTEXTJ or CONTEXTO) when it fails,
    else "".  ``decided``: the whole-string rules already read for ``s`` (so a string
    of many such characters is read once)."""
    name, rule = CONTEXT_RULES[ord(s[i])]
    if name not in _WHOLE_STRING:
        return "" if rule(s, i) else name
    passed = decided.get(name)
    if passed is None:
        passed = decided[name] = rule(s, i)
    return "" if passed else name


def first_refused(s: str, allowed: frozenset[str]) -> tuple[int, str] | None:
    """RFC 8264 §8 for a string class allowing the derived property values ``allowed``:
    the first character whose value is not allowed, or whose contextual rule fails, as
    (index, reason); None when every character passes.  Linear in ``len(s)``."""
    decided: dict[str, bool] = {}
    for i, char in enumerate(s):
        value, reason = _lookups.derived_property(ord(char))
        if value in allowed:
            continue
        if value in (CONTEXTJ, CONTEXTO):
            reason = context_refuses(s, i, decided)
            if not reason:
                continue
        return i, reason
    return None


# -- RFC 5893 §2: the Bidi Rule ----------------------------------------------------------
_LTR_FIRST = frozenset({"L"})
_LTR_ALLOWED = frozenset({"L", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"})  # condition 5
_LTR_LAST = frozenset({"L", "EN"})  # condition 6
_RTL_FIRST = frozenset({"R", "AL"})
_RTL_ALLOWED = frozenset({"R", "AL", "AN", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"})  # 2
_RTL_LAST = frozenset({"R", "AL", "EN", "AN"})  # condition 3
_NUMBERS = frozenset({"EN", "AN"})  # condition 4: not both in an RTL string


def has_rtl(s: str) -> bool:
    """Whether ``s`` has a character of Bidi_Class R, AL or AN (RFC 5893 §1.4): precis-i18n
    holds only such strings to the Bidi Rule."""
    return any(in_ranges(ord(c), _lookups.RTL) for c in s)


def bidi_violation(s: str) -> tuple[int, str] | None:
    """Where ``s`` (not empty) breaks the Bidi Rule, as (index, which condition), or None.

    Conditions 1 (first character), 6/3 (last character but trailing NSM), 5/2 (every
    character between), 4 (EN and AN together in an RTL string)."""
    classes = [unicodedata2.bidirectional(c) for c in s]
    if classes[0] in _LTR_FIRST:
        allowed, last, numbers = _LTR_ALLOWED, _LTR_LAST, frozenset[str]()
    elif classes[0] in _RTL_FIRST:
        allowed, last, numbers = _RTL_ALLOWED, _RTL_LAST, _NUMBERS
    else:
        return 0, "the first character must be left-to-right (L) or right-to-left (R, AL)"
    end = len(classes) - 1
    while end > 0 and classes[end] == "NSM":
        end -= 1
    direction = "a left-to-right" if numbers == frozenset() else "a right-to-left"
    if classes[end] not in last:
        return end, f"{direction} string cannot end with Bidi_Class {classes[end] or 'Cn'}"
    seen = classes[end] if classes[end] in numbers else None
    for i in range(1, end):
        bidi = classes[i]
        if bidi not in allowed:
            return i, f"{direction} string cannot contain Bidi_Class {bidi or 'Cn'}"
        if bidi in numbers and bidi != seen:
            if seen is not None:
                return i, "a right-to-left string cannot mix European and Arabic digits"
            seen = bidi
    return None
