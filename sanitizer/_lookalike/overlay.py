"""Hidden overlays: a U+0307 COMBINING DOT ABOVE that its base already shows (UTS #39 §5.4).

"i" + U+0307 renders like "i": the dot of a Soft_Dotted letter and the combining dot are
drawn in the same place, so the mark is invisible and two different strings look alike.
ICU flags this as USPOOF_HIDDEN_OVERLAY, with this rule, on the string as given (not
normalized): a U+0307 is hidden when the last preceding character of combining class 0
or 230 (the class of U+0307; marks of other classes do not move it) is Soft_Dotted, "l",
U+0131 ı, U+0237 ȷ, or a character whose confusables.txt prototype ends with one of these
("1", "I", "|" -> "l").  The generator precomputes that set.

Precomposed characters are not decomposed: U+0130 İ is one letter (Turkish "İstanbul")
and is not flagged, while "I" + U+0307, which NFC composes to it, is.  So a check on NFC
text never flags a dotted capital I (ICU 78: check("\\u0130") = 0, check("I\\u0307") =
HIDDEN_OVERLAY).
"""

from __future__ import annotations

import unicodedata2

from .._arguments import exact_str
from . import _lookups, _tables_data

# The characters that hide a following U+0307 (the rule above), as sorted inclusive
# (first, last) ranges; all of combining class 0.
DOT_LEAD_RANGES: tuple[tuple[int, int], ...] = _tables_data.DOT_LEADS

_DOT_ABOVE = "\u0307"
_combining = unicodedata2.combining


def hidden_overlays(s: str) -> tuple[int, ...]:
    """The indices in ``s`` of the U+0307 characters that their base hides (ICU's rule,
    applied to ``s`` as given)."""
    if type(s) is not str:
        s = exact_str(s, "s", "hidden_overlays")
    if _DOT_ABOVE not in s:
        return ()
    found: list[int] = []
    lead = False
    for i, ch in enumerate(s):
        if lead and ch == _DOT_ABOVE:
            found.append(i)
        if _combining(ch) in (0, 230):
            lead = _lookups.is_dot_lead(ord(ch))
    return tuple(found)


__all__ = ["DOT_LEAD_RANGES", "hidden_overlays"]
