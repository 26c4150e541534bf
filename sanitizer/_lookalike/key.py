"""identifier_key: what an application stores in a unique column so that a new name that
is the same identifier as an existing one, or looks like it in any case, is refused.

Two relations matter: *the same identifier* (NFKC_Casefold equality, UAX #31 §5; see
sanitizer._identifiers) and *looks the same* (equal UTS #39 skeletons).  A stored key can
only express an equivalence, and a name is shown in whatever case its owner typed, so the
key must also meet the look-alikes of every case form of a name: "paypaI" (capital I) is
the identifier "paypai" and looks like "paypal".  But a key that respected both relations
for every string would identify whole chains of them, and the chains are absurd: U+017F ſ
has the skeleton of "f" and casefolds to "s", so "ſun" would force key("fun") ==
key("sun"); Greek Η looks like H and η like n, which would make "h" and "n" one letter.
This key is the equivalence these rules generate, and no more:

1. NFKC_Casefold: ``identifiers_equal(a, b, form="NFKC_CASEFOLD")`` implies
   ``identifier_key(a) == identifier_key(b)``, for every string;
2. the skeleton map (UTS #39 §4) of every *casefolded* character: "g00gle", "GOOGLE" and
   "gооgle" (Cyrillic о) all meet "google", "ɑdmin" meets "admin";
3. the skeleton map of every *case variant*: a character that is the full uppercase,
   lowercase or titlecase mapping (UCD) of a casefolded character, when its prototype is
   in its own script (a Script_Extensions value in common, Common and Inherited not
   counting).  "I" (uppercase of i) has the prototype "l", so "paypaI", "paypal", "PAYPAL"
   and "Paypa1" share one key -- and therefore so do "admin" and "admln": once "I" and "l"
   are one letter, so are "i" and "l", because "admIn" is the identifier "admin";
4. the hidden dot (UTS #39 §5.4, ICU's HIDDEN_OVERLAY): a U+0307 COMBINING DOT ABOVE whose
   base already shows a dot is dropped, so "İstanbul" (casefolded "i̇stanbul") meets
   "istanbul" and "Istanbul"; dotless ı meets i by rule 2.

Left out, so that no chain joins letters that look different: the skeleton of a character
that is neither casefolded nor a case variant (ſ, ß, ς), of a case variant whose prototype
is in another script (Greek Η -> H, Cyrillic В -> B: whole-script look-alikes, which
``confusable`` and the restriction levels report), and of a case variant whose prototype
contradicts what rules 1-3 already made of the character it is a case of (U+0191 Ƒ -> "F̦"
while ƒ -> f; U+A7B4 Latin capital beta -> "B" while its lowercase -> ß -> "ss"): the
generated _confusables_data.py lists each (KEY_CASE_VARIANTS_LEFT_OUT).  The 67 combining
marks whose prototype has another combining class (U+0315 -> U+0313) are not mapped
either, because the key must not depend on the order of canonically equivalent marks.
docs/identifiers.md lists what collides and measures how often it happens to real names
that differ.

Construction.  K(x) = NFD(N(d1) N(d2) ...) for the characters d of NFKD(x), where N is a
per-character map computed once by tools/gen_lookalike.py: the characters that rules 1-3
join (by steps c -> image: NFKC_Casefold where it changes c, else the prototype; the
prototype of a case variant too) form classes; a class that a step maps to a longer string
takes K of that string (m -> "rn"), any other class the member that most of its steps lead
to ("l" for l, I, 1, |, i, ı), the lowest code point on a tie.  The generator checks, for
every code point: (a) K(image) = N(c) for every step; (b) wherever NFD can reorder the
marks of an image against a neighbour's, N of the two marks commute under NFD; (c) N of
every character of a value is that character.  Then K(toNFKC_Casefold(x)) = K(x) for every
x, and K(skeleton(x)) = K(x) for x (with NFD(x) = NFKD(x)) made of casefolded characters
and the case variants whose step is kept, the 67 marks aside (the proof: K of each
character's image is N of it by (a), and by (b) NFD's reordering changes nothing), and
K(K(x)) = K(x) by (c).  The key is D(K(x)), where D drops each U+0307 whose preceding
character of combining class 0 or 230 (a dropped U+0307 does not count) is a dot lead
(``hidden_overlays``' set); D keeps NFD, and D(K(D(K(x)))) = D(K(x)), so the key is
idempotent: ``identifier_key(identifier_key(x)) == identifier_key(x)``.

Use: store ``identifier_key(name)`` in a unique column next to the name as entered, and
``IDENTIFIER_KEY_VERSION`` beside it (or once per table).  The key depends on the Unicode
and UTS #39 data and on this construction: when IDENTIFIER_KEY_VERSION changes, recompute
every key (in a migration: ``UPDATE ... SET key = identifier_key(name)``, or Django's
``rekey``), and resolve new collisions by hand.  A key is never shown to users and never
used as a name.
"""

from __future__ import annotations

import array
import functools
import sys
from collections.abc import Callable

import unicodedata2

from .._arguments import exact_str
from .._code_point_map import CodePointMap
from . import _lookups, _tables_data, skeletons

IDENTIFIER_KEY_VERSION: str = f"{_tables_data.UTS39_VERSION}.{_tables_data.IDENTIFIER_KEY_REVISION}"

_normalize = unicodedata2.normalize
_combining = unicodedata2.combining
_ascii_key = _lookups.ascii_mapper(_lookups.ASCII_KEY)
_DOT_ABOVE = "\u0307"
_LITTLE = sys.byteorder == "little"
_Native = tuple[str, bytes, bytes, str]  # a CodePointMap as C takes it


def identifier_key(s: str) -> str:
    """The unique-column key of ``s`` (see the module documentation): equal for names
    equal under NFKC_Casefold, and for names that look alike in some case."""
    if type(s) is not str:
        s = exact_str(s, "s", "identifier_key")
    if s.isascii():  # the generator checks ASCII keys are NFKD and mark-free
        return _ascii_key(s)
    key = str(_normalize("NFD", _lookups.key_mapper()(_normalize("NFKD", s))))
    return _drop_hidden_dots(key) if _DOT_ABOVE in key else key


def _drop_hidden_dots(key: str) -> str:
    """``key`` without the U+0307 its base hides (rule 4, ICU's HIDDEN_OVERLAY rule): a
    U+0307 whose nearest preceding character of combining class 0 or 230, U+0307 aside
    (a dropped dot does not end the base's reach; a kept one has a base that hides
    nothing), is a dot lead."""
    kept: list[str] = []
    start = 0
    dot = key.find(_DOT_ABOVE)
    while dot >= 0:
        base = dot - 1
        while base >= 0 and (key[base] == _DOT_ABOVE or _combining(key[base]) not in (0, 230)):
            base -= 1
        if base >= 0 and _lookups.is_dot_lead(ord(key[base])):
            kept.append(key[start:dot])
            start = dot + 1
        dot = key.find(_DOT_ABOVE, dot + 1)
    kept.append(key[start:])
    return "".join(kept)


def _each(fn: Callable[[str], str], chars: list[str]) -> list[str]:
    """``[fn(c) for c in chars]`` in one call of ``fn`` on the characters joined by line
    feeds (a starter that no decomposition or map yields, so nothing moves across it),
    or one call each if the pieces do not come back one per character."""
    pieces = fn("\n".join(chars)).split("\n")
    return pieces if len(pieces) == len(chars) else [fn(c) for c in chars]


def _nfkd(s: str) -> str:
    return str(_normalize("NFKD", s))


def _nfkd_changed() -> set[int]:
    """The code points NFKD changes.  A block whose NFKD is itself holds none: NFKD never
    shortens a character, and a character d that another one decomposes to alone is
    NFKD-stable, so it would show twice (or a code point outside the block would)."""
    changed: set[int] = set()
    for lo in range(0, 0x110000, 4096):
        cps = range(lo, min(lo + 4096, 0xD800) if lo == 0xD000 else lo + 4096)
        block = array.array("I", cps).tobytes().decode("utf-32-le" if _LITTLE else "utf-32-be")
        if _nfkd(block) != block:
            chars = list(block)
            changed.update(
                ord(c) for c, d in zip(chars, _each(_nfkd, chars), strict=True) if c != d
            )
    return changed


@functools.cache
def column_tables() -> tuple[object, _Native, _Native, _Native] | None:
    """What ``_speedups.column_keys`` reads to key a column's values without a str each
    (lookalike.c), or None without the C skeleton tables: (tables, key, dots, odd).
    ``key``: G(c) = NFD(N(NFKD(c))), computed by ``identifier_key``'s own steps, for
    every code point it changes; ``dots``: the dot leads; ``odd``: the code points whose
    NFKD holds a mark (canonical combining class > 0) that G maps to other classes.
    Then a value without an odd code point has the key D(canonical ordering of the
    concatenated G(c)): NFKD's ordering only swaps marks of different classes, each
    mark's G keeps its class, so the one ordering at the end gives what the three
    steps give (Unicode §3.11)."""
    tables = skeletons.native_tables()
    if tables is None:
        return None
    mapper = _lookups.key_mapper()
    changed = sorted(_nfkd_changed() | {ord(c) for c in _lookups.key_map().sources})
    chars = [chr(cp) for cp in changed]
    images = _each(lambda s: str(_normalize("NFD", mapper(_nfkd(s)))), chars)
    key = {ord(c): image for c, image in zip(chars, images, strict=True) if image != c}
    odd_marks = {
        ord(m)
        for m in _lookups.combining_map().sources
        if _normalize("NFKD", m) == m
        and any(_combining(c) != _combining(m) for c in key.get(ord(m), m))
    }
    odd = {
        ord(c)
        for c, d in zip(chars, _each(_nfkd, chars), strict=True)
        if any(ord(x) in odd_marks for x in d)
    }
    odd |= odd_marks
    for cp in odd - odd_marks:  # C looks for odd ones among the mapped and the marks
        key.setdefault(cp, chr(cp))
    dots = {cp: "" for lo, hi in _tables_data.DOT_LEADS for cp in range(lo, hi + 1)}
    return (
        tables,
        CodePointMap.of(key).native(),
        CodePointMap.of(dots).native(),
        CodePointMap.of(dict.fromkeys(odd, "")).native(),
    )


__all__ = ["IDENTIFIER_KEY_VERSION", "identifier_key"]
