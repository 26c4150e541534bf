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

from .categories import NORMAL_FORMS, normalize

TYPE_CHECKING = False  # typing's constant without importing typing (start-up: issue #13)
if TYPE_CHECKING:
    from .categories import NormalForm


def _check(form: object, where: str) -> None:
    if form not in NORMAL_FORMS:
        kind = ValueError if isinstance(form, str) else TypeError
        raise kind(f"{where}() form must be one of {', '.join(NORMAL_FORMS)}, not {form!r}")


def _check_str(value: object, name: str, where: str) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{where}() argument '{name}' must be str, not {type(value).__name__}")


def normalize_identifier(s: str, *, form: NormalForm = "NFC") -> str:
    """``s`` in normal form ``form``: "NFC" (default), "NFKC" or "NFKC_CASEFOLD"."""
    _check_str(s, "s", "normalize_identifier")
    _check(form, "normalize_identifier")
    return normalize(form, s)


def identifiers_equal(a: str, b: str, *, form: NormalForm = "NFC") -> bool:
    """Whether ``a`` and ``b`` are the same identifier under ``form``."""
    if type(a) is not str or type(b) is not str or form not in NORMAL_FORMS:
        _check_str(a, "a", "identifiers_equal")
        _check_str(b, "b", "identifiers_equal")
        _check(form, "identifiers_equal")
    return a == b or normalize(form, a) == normalize(form, b)


__all__ = ["identifiers_equal", "normalize_identifier"]
