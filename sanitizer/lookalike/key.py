"""identifier_key: what an application stores in a unique column so that a new name that
is the same identifier as an existing one, or looks like it, is refused.

Two relations matter: *the same identifier* (NFKC_Casefold equality, UAX #31 §5; see
sanitizer.identifiers) and *looks the same* (equal UTS #39 skeletons).  A stored key can
only express an equivalence, so a key that respected both relations for every string would
have to identify whole chains of them, and the chains are absurd: U+017F ſ has the
skeleton of "f" and casefolds to "s", so "ſun" would force key("fun") == key("sun");
Β/β/ß chain "B" to "ss".  This key therefore:

* respects NFKC_Casefold exactly: ``identifiers_equal(a, b, form="NFKC_CASEFOLD")``
  implies ``identifier_key(a) == identifier_key(b)``, for every string;
* respects skeletons after casefolding: ``skeleton(a) == skeleton(b)`` implies equal keys
  for casefolded strings (``a == normalize_identifier(a, form="NFKC_CASEFOLD")``, as an
  application that folds names before storing them has), except for the 67 combining marks
  whose prototype has another combining class (U+0315 -> U+0313, see below).  So
  "g00gle", "GOOGLE" and "gооgle" (Cyrillic о) all meet "google", and "ɑdmin" meets
  "admin"; but "Il" (capital I) does not meet "ll": it is "il" once folded.  Catch that
  pair by comparing ``skeleton`` of the names as displayed, or by folding at signup.

Construction.  K(x) = NFD(N(d1) N(d2) ...) for the characters d of NFKD(x), where N is a
per-character map computed once by tools/gen_lookalike.py: N(c) is K(NFKC_Casefold(c))
when casefolding changes c, else K(prototype of c) when confusables.txt maps c, else c (a
fixpoint; the two cycles of one character, e.g. U+A779 -> U+A77A -> U+A779, take their
smallest member).  The generator checks, for every code point: (a) K(NFKC_Casefold(c)) =
N(c) and, where the skeleton step applies, K(prototype(c)) = N(c); (b) wherever NFD can
reorder the marks of an image against a neighbour's, N of the two marks commute under NFD.
Then for any x, K(toNFKC_Casefold(x)) = NFD of the K of each casefolded character of
NFKD(x), in order (by (b), reordering changes nothing) = NFD(N(d) ...) (by (a)) = K(x): the
key is a function of the casefolded string.  The same argument with the skeleton map gives
the second property.  Marks whose prototype changes class are not mapped, because K must
not depend on the order of canonically equivalent marks.

Use: store ``identifier_key(name)`` in a unique column next to the name as entered, and
``IDENTIFIER_KEY_VERSION`` beside it (or once per table).  The key depends on the Unicode
and UTS #39 data: when IDENTIFIER_KEY_VERSION changes after an upgrade, recompute every
key (in a migration: ``UPDATE ... SET key = identifier_key(name)``), and resolve new
collisions by hand.  A key is never shown to users and never used as a name.
"""

from __future__ import annotations

import unicodedata2

from .._arguments import exact_str
from . import _lookups, _tables_data

IDENTIFIER_KEY_VERSION: str = f"{_tables_data.UTS39_VERSION}.{_tables_data.IDENTIFIER_KEY_REVISION}"

_normalize = unicodedata2.normalize
_ascii_key = _lookups.ascii_mapper(_lookups.ASCII_KEY)


def identifier_key(s: str) -> str:
    """The unique-column key of ``s`` (see the module documentation): equal for names
    equal under NFKC_Casefold, and for casefolded names with equal skeletons."""
    if type(s) is not str:
        s = exact_str(s, "s", "identifier_key")
    if s.isascii():  # the generator checks ASCII keys are NFKD and mark-free
        return _ascii_key(s)
    return str(_normalize("NFD", _lookups.key_mapper()(_normalize("NFKD", s))))


__all__ = ["IDENTIFIER_KEY_VERSION", "identifier_key"]
