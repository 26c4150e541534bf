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

from .chardata import NORMAL_FORMS, NormalForm, normalize


def _check(form: str) -> None:
    if form not in NORMAL_FORMS:
        raise ValueError(f"form must be one of {', '.join(NORMAL_FORMS)}, not {form!r}")


def normalize_identifier(s: str, *, form: NormalForm = "NFC") -> str:
    """``s`` in normal form ``form``: "NFC" (default), "NFKC" or "NFKC_CASEFOLD"."""
    if not isinstance(s, str):
        raise TypeError(f"normalize_identifier() takes a str, not {type(s).__name__}")
    _check(form)
    return normalize(form, s)


def identifiers_equal(a: str, b: str, *, form: NormalForm = "NFC") -> bool:
    """Whether ``a`` and ``b`` are the same identifier under ``form``."""
    if a == b:
        _check(form)
        if not isinstance(a, str):
            raise TypeError(f"identifiers_equal() takes str, not {type(a).__name__}")
        return True
    return normalize_identifier(a, form=form) == normalize_identifier(b, form=form)


__all__ = ["identifiers_equal", "normalize_identifier"]
