"""Comparing identifiers the way people read them (RFC 3629 §10; HOWTO §5.9.5).

The same visible name can be spelled with different code points (precomposed U+00C5 or
A + U+030A; the Angstrom sign U+212B).  Before two identifiers are compared they must be
brought to one normal form (UAX #15).  ``NFC`` and ``NFKC`` are exactly Unicode
normalization with unicodedata2's data; ``NFKC_CASEFOLD`` is toNFKC_Casefold (Unicode
§3.13, UAX #31 §5) from a generated NFKC_Casefold table of the same Unicode version, so
the result does not depend on the interpreter's own Unicode data (see
docs/normalization.md).  Filtering (what characters are allowed) is the job of
``profiles.IDENTIFIER``; these functions only normalize.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._arguments import choice_list, exact_str
from ._categories import NORMAL_FORMS, normalize

if TYPE_CHECKING:
    from ._categories import NormalForm


def _form(form: object, where: str) -> str:
    """``form`` as the exact str of NORMAL_FORMS it names (TypeError for a non-str)."""
    if type(form) is str and form in NORMAL_FORMS:
        return form
    text = exact_str(form, "form", where)
    if text not in NORMAL_FORMS:
        raise ValueError(
            f"{where}() argument 'form' must be {choice_list(NORMAL_FORMS)}, not {text!r}"
        )
    return text


def normalize_identifier(s: str, *, form: NormalForm = "NFC") -> str:
    """``s`` in normal form ``form``: "NFC" (default), "NFKC" or "NFKC_CASEFOLD"."""
    s = exact_str(s, "s", "normalize_identifier")
    return normalize(_form(form, "normalize_identifier"), s)


def identifiers_equal(a: str, b: str, *, form: NormalForm = "NFC") -> bool:
    """Whether ``a`` and ``b`` are the same identifier under ``form``."""
    if type(a) is not str or type(b) is not str or type(form) is not str:
        a = exact_str(a, "a", "identifiers_equal")
        b = exact_str(b, "b", "identifiers_equal")
    name = _form(form, "identifiers_equal")
    return a == b or normalize(name, a) == normalize(name, b)


__all__ = ["identifiers_equal", "normalize_identifier"]
