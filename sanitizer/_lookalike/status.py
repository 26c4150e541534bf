"""Identifier_Status and Identifier_Type: UTS #39 §3.1, the General Security Profile.

Identifier_Status is Allowed for the characters recommended in identifiers (modern
scripts, UAX #31 Table 5, with a few technical and inclusion characters) and Restricted
for every other code point.  Identifier_Type says why a character is restricted:
Limited_Use and Exclusion (scripts), Obsolete, Technical, Uncommon_Use, Deprecated,
Default_Ignorable, Not_NFKC, Not_XID, Not_Character; a character can have several.
"""

from __future__ import annotations

import enum

from .._arguments import check_char
from . import _lookups, _tables_data

# The code points with Identifier_Status=Allowed, as sorted inclusive (first, last)
# ranges (IdentifierStatus.txt): every other code point is Restricted.
ALLOWED_RANGES: tuple[tuple[int, int], ...] = _tables_data.ALLOWED


class IdentifierStatus(enum.Enum):
    """UTS #39 §3.1 Identifier_Status."""

    ALLOWED = "Allowed"
    RESTRICTED = "Restricted"

    __hash__ = object.__hash__


class IdentifierType(enum.Enum):
    """UTS #39 §3.1 Identifier_Type, values spelled as in IdentifierType.txt."""

    RECOMMENDED = "Recommended"
    INCLUSION = "Inclusion"
    LIMITED_USE = "Limited_Use"
    EXCLUSION = "Exclusion"
    OBSOLETE = "Obsolete"
    TECHNICAL = "Technical"
    UNCOMMON_USE = "Uncommon_Use"
    NOT_CHARACTER = "Not_Character"
    DEPRECATED = "Deprecated"
    DEFAULT_IGNORABLE = "Default_Ignorable"
    NOT_NFKC = "Not_NFKC"
    NOT_XID = "Not_XID"

    __hash__ = object.__hash__


def identifier_status(ch: str) -> IdentifierStatus:
    """The Identifier_Status of one character."""
    ch = check_char(ch, "ch", "identifier_status")
    if _lookups.is_allowed(ord(ch)):
        return IdentifierStatus.ALLOWED
    return IdentifierStatus.RESTRICTED


def identifier_types(ch: str) -> frozenset[IdentifierType]:
    """The Identifier_Type values of one character (Not_Character where the file lists
    none: unassigned, private use, surrogates, noncharacters)."""
    ch = check_char(ch, "ch", "identifier_types")
    return frozenset(IdentifierType(name) for name in _lookups.identifier_type_names(ord(ch)))


__all__ = [
    "ALLOWED_RANGES",
    "IdentifierStatus",
    "IdentifierType",
    "identifier_status",
    "identifier_types",
]
