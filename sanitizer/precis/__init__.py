"""PRECIS (RFC 8264, RFC 8265, RFC 8266): usernames, passwords and nicknames prepared,
enforced and compared as the protocols that cite PRECIS require, on Unicode 18.

    from sanitizer import precis

    username = precis.get_profile("UsernameCaseMapped")
    username.enforce("Juliet")              # 'juliet'
    username.compare("JULIET", "juliet")    # True
    username.enforce("ju\u202eliet")        # PrecisError: DISALLOWED/precis_ignorable_properties

Profiles and names are precis-i18n's (``get_profile``, ``PROFILE_NAMES``), and so are the
refusal reasons (``PrecisError.reason``, e.g. ``"DISALLOWED/bidi_rule"``): code written
for precis-i18n moves by changing the import, and gets the same answers on its golden
tests, with Unicode 18 data rather than the interpreter's (see docs/identifiers.md).
``derived_property(cp)`` is the RFC 8264 §8 derived property of one code point.
"""

from __future__ import annotations

from ._error import PrecisError
from ._lookups import UNICODE_VERSION
from ._lookups import derived_property as _derived_property
from ._profile import PROFILE_NAMES, Profile, UnknownProfileError, get_profile
from ._rules import CONTEXT_RULES as _CONTEXT_RULES

__all__ = [
    "PROFILE_NAMES",
    "UNICODE_VERSION",
    "PrecisError",
    "Profile",
    "UnknownProfileError",
    "contextj_allows",
    "derived_property",
    "get_profile",
]


# RFC 5892 A.1 (ZWNJ) and A.2 (ZWJ): the CONTEXTJ code points' rules
_CONTEXTJ = {cp: _CONTEXT_RULES[cp][1] for cp in (0x200C, 0x200D)}


def contextj_allows(text: str, i: int) -> bool:
    """Whether ``text[i]``, ZWNJ (U+200C) or ZWJ (U+200D), stands where RFC 5892
    Appendix A.1/A.2 (CONTEXTJ) allows it: after a virama, or for ZWNJ between a
    left-joining and a right-joining character (Joining_Type L or D, then R or D,
    Transparent characters skipped) -- the contexts UAX #31 §2.3 allows them in
    identifiers.  False for any other character."""
    rule = _CONTEXTJ.get(ord(text[i]))
    return rule is not None and rule(text, i)


def derived_property(cp: int) -> tuple[str, str]:
    """The PRECIS derived property of code point ``cp`` (RFC 8264 §8) as (value, reason):
    value "PVALID", "FREE_PVAL" (RFC 8264's "ID_DIS or FREE_PVAL": refused by
    IdentifierClass, allowed by FreeformClass), "CONTEXTJ", "CONTEXTO", "DISALLOWED" or
    "UNASSIGNED"; reason the rule that decided it, in precis-i18n's words ("ascii7",
    "letter_digits", "has_compat", "controls", ...)."""
    if type(cp) is not int:
        if isinstance(cp, bool) or not isinstance(cp, int):
            kind = type(cp).__name__
            raise TypeError(f"derived_property() argument 'cp' must be int, not {kind}")
        cp = int(cp)
    if not 0 <= cp <= 0x10FFFF:
        raise ValueError(f"derived_property() argument 'cp' must be in 0..0x10FFFF, not {cp}")
    return _derived_property(cp)
