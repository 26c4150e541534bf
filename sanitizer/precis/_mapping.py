"""The mapping rules of the PRECIS profiles, one function per rule, each exact for
Unicode 18 (RFC 8264 §5.2; RFC 8265 §3.3.1, §4.2.1; RFC 8266 §2.1): width mapping, the
additional mapping of spaces, case mapping (lowercase with Final_Sigma, or case folding)
and normalization.  Never the interpreter's ``str.lower`` (as old as its own Unicode):
the generated Unicode 18 maps, applied by ``_lookups.mapper``.

The profiles' fast paths apply several of these maps at once (``composed``); these
step-by-step functions are the reference they are tested against.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from .._categories import char_class, unicode_normalize
from . import _lookups

FINAL_SIGMA_SOURCE = "\u03a3"  # GREEK CAPITAL LETTER SIGMA: the one context-dependent map
_SMALL_SIGMA, _FINAL_SIGMA = "\u03c3", "\u03c2"
_MULTIPLE_SPACES = re.compile("  +")


@functools.cache
def _width_search() -> re.Pattern[str]:
    return re.compile(f"[{char_class(_lookups.ranges_of(_lookups.WIDTH))}]")


def width_map(s: str) -> str:
    """RFC 8265 §3.3.1: fullwidth and halfwidth characters to their decomposition
    (as precis-i18n: U+FF01..FFEF whose NFKC is one character)."""
    if _width_search().search(s) is None:
        return s
    return s.translate(_lookups.WIDTH)


@functools.cache
def _space_search() -> re.Pattern[str]:
    return re.compile(f"[{char_class(_lookups.SPACES)}]")


def map_spaces(s: str) -> str:
    """RFC 8265 §4.2.1 (OpaqueString): non-ASCII spaces (Zs) to U+0020."""
    return _space_search().sub(" ", s)


def nickname_spaces(s: str) -> str:
    """RFC 8266 §2.1: non-ASCII spaces to U+0020, leading and trailing U+0020 removed,
    runs of U+0020 made one."""
    return _MULTIPLE_SPACES.sub(" ", map_spaces(s).strip(" "))


@functools.cache
def _lower_map() -> Callable[[str], str]:
    return _lookups.mapper(_lookups.lower_table())


@functools.cache
def _fold_map() -> Callable[[str], str]:
    return _lookups.mapper(_lookups.fold_table())


def to_lower(s: str) -> str:
    """Full lowercase mapping (Unicode §3.13 toLowercase), with the Final_Sigma condition
    read as CPython's ``str.lower`` reads it (precis-i18n calls that): U+03A3 is U+03C2
    when, skipping Case_Ignorable characters, a Cased one precedes it and none follows."""
    lower = _lower_map()
    if FINAL_SIGMA_SOURCE not in s:
        return lower(s)
    pieces = s.split(FINAL_SIGMA_SOURCE)
    out = [lower(pieces[0])]
    at = len(pieces[0])
    for piece in pieces[1:]:
        out.append(_FINAL_SIGMA if _is_final_sigma(s, at) else _SMALL_SIGMA)
        out.append(lower(piece))
        at += 1 + len(piece)
    return "".join(out)


def _is_final_sigma(s: str, at: int) -> bool:
    j = at - 1
    while j >= 0 and _lookups.is_case_ignorable(ord(s[j])):
        j -= 1
    if j < 0 or not _lookups.is_cased(ord(s[j])):
        return False
    j = at + 1
    while j < len(s) and _lookups.is_case_ignorable(ord(s[j])):
        j += 1
    return j == len(s) or not _lookups.is_cased(ord(s[j]))


def to_casefold(s: str) -> str:
    """Full case folding (Unicode §3.13 toCasefold; no context)."""
    return _fold_map()(s)


def normalize(form: str, s: str) -> str:
    """NFC or NFKC with unicodedata2's (Unicode 18) data (in C when the extension is on);
    ASCII is unchanged."""
    return s if s.isascii() else unicode_normalize(form, s)


CASE_MAPS: dict[str, Callable[[str], str]] = {"lower": to_lower, "fold": to_casefold}


def composed(*, width: bool, spaces: bool, case: str | None) -> dict[int, str]:
    """The per-character part of the mapping rules as one map: width, then spaces, then
    case, each code point's image through all of them.  Exact on strings without
    U+03A3 (whose image depends on its neighbours): ``_profile`` takes those step by step."""
    table: dict[int, str] = {}
    if case is not None:
        table.update(_lookups.lower_table() if case == "lower" else _lookups.fold_table())
    steps: list[Callable[[str], str]] = []
    if width:
        steps.append(width_map)
    if spaces:
        steps.append(map_spaces)
    if case is not None:
        steps.append(CASE_MAPS[case])
    firsts = set(_lookups.WIDTH) if width else set()
    if spaces:
        firsts |= {cp for lo, hi in _lookups.SPACES for cp in range(lo, hi + 1)}
    for cp in firsts:
        image = chr(cp)
        for step in steps:
            image = step(image)
        table[cp] = image
    return {cp: image for cp, image in table.items() if image != chr(cp)}
