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

__all__ = [
    "PROFILE_NAMES",
    "UNICODE_VERSION",
    "PrecisError",
    "Profile",
    "UnknownProfileError",
    "derived_property",
    "get_profile",
]


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
