"""Confusable detection: UTS #39 §4 skeletons, and whether two strings are confusable.

skeleton(X): (1) NFD, (2) remove Default_Ignorable_Code_Point characters, (3) replace each
character by its prototype in confusables.txt, (4) NFD again.  Two strings are confusable
when their skeletons are equal.  A skeleton is for comparison only, never for display or
storage as a name: it mixes scripts ("paypal" with Cyrillic а has the skeleton "paypal",
"m" has "rn") and is not an identifier (UTS #39 §4).

§4 then qualifies a confusable pair by the resolved script sets of §5.1 (scripts.py):
single-script when they intersect, mixed-script when they don't, whole-script when
mixed-script and each string is single-script on its own.  These are the verdicts of
ICU's ``uspoof_areConfusable``.

Speed (bench/bench_confusable.py): with the C extension, ``skeleton`` and ``confusable``
are one native call each (``_speedups.skeleton`` / ``confusable``): NFD from generated
decomposition and combining-class tables, the map, NFD again and both script masks, with no
intermediate str.  That path is taken only when the installed unicodedata2 has the Unicode
version the tables were generated from, so both paths always agree.  The pure-Python path
(the reference): steps 2-3 are one ``str.translate`` (``_lookups.skeleton_mapper``), step 4 is
skipped for ASCII (which is NFD), and ``confusable`` takes both skeletons of a non-ASCII
pair in one pass across a U+0000 separator, with script sets as bit masks.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable

import unicodedata2

from .._arguments import exact_str
from .._native import speedups
from . import _lookups, scripts

_normalize = unicodedata2.normalize
_ascii_skeleton = _lookups.ascii_mapper(_lookups.ASCII_SKELETON)
_ascii_letter = scripts.ASCII_LETTER
_resolved_mask = scripts.resolved_mask
_ALL, _LATIN = scripts.ALL_MASK, scripts.LATIN_MASK
_skeleton_mapper = _lookups.skeleton_mapper


class Confusability(enum.Enum):
    """How two confusable strings relate by script (UTS #39 §4)."""

    SINGLE_SCRIPT = "single-script"  # same skeleton, resolved script sets intersect
    MIXED_SCRIPT = "mixed-script"  # same skeleton, resolved script sets disjoint
    WHOLE_SCRIPT = "whole-script"  # mixed-script, and each string is single-script

    __hash__ = object.__hash__

    @property
    def mixed_script(self) -> bool:
        """True for MIXED_SCRIPT and WHOLE_SCRIPT (whole-script is a kind of mixed)."""
        return self is not Confusability.SINGLE_SCRIPT


def skeleton(s: str) -> str:
    """The UTS #39 §4 skeleton of ``s``: NFD, drop Default_Ignorable, map by
    confusables.txt, NFD."""
    return _skeleton(s)


def skeleton_py(s: str) -> str:
    """skeleton() without the C extension (the reference).  ASCII maps in one translate
    (the generator checks that ASCII prototypes have no marks, so the final NFD changes
    nothing)."""
    if type(s) is not str:
        s = exact_str(s, "s", "skeleton")
    if s.isascii():
        return _ascii_skeleton(s)
    return _skeleton_of(s)


def _skeleton_of(s: str) -> str:
    """skeleton() of non-ASCII ``s``; the final NFD only where needed (ASCII is NFD)."""
    mapped = _skeleton_mapper()(_normalize("NFD", s))
    return mapped if mapped.isascii() else str(_normalize("NFD", mapped))


def confusable(a: str, b: str) -> Confusability | None:
    """Whether ``a`` and ``b`` are confusable (equal skeletons, UTS #39 §4), and how their
    scripts relate; None when the skeletons differ."""
    return _confusable(a, b)


def confusable_py(a: str, b: str) -> Confusability | None:
    """confusable() without the C extension (the reference)."""
    if type(a) is not str:
        a = exact_str(a, "a", "confusable")
    if type(b) is not str:
        b = exact_str(b, "b", "confusable")
    # skeleton() and resolved_scripts() inlined (the latter as bit masks, scripts.py):
    # this is the hot path of signup checks
    a_ascii, b_ascii = a.isascii(), b.isascii()
    if a != b:
        if a_ascii and b_ascii:
            if _ascii_skeleton(a) != _ascii_skeleton(b):
                return None
        elif not (a_ascii or b_ascii) and (joined := f"{a}\0{b}").count("\0") == 1:
            # Both skeletons at once: U+0000 is a starter that nothing maps to or from, so
            # NFD and the map treat each side of it alone (canonical reordering stops at a
            # starter).  The final NFD only where the mapped text is not ASCII.
            both = _skeleton_mapper()(_normalize("NFD", joined))
            if not both.isascii():
                both = _normalize("NFD", both)
            sa, _, sb = both.partition("\0")
            if sa != sb:
                return None
        else:
            sa = _ascii_skeleton(a) if a_ascii else _skeleton_of(a)
            sb = _ascii_skeleton(b) if b_ascii else _skeleton_of(b)
            if sa != sb:
                return None
    ra = (_LATIN if _ascii_letter(a) else _ALL) if a_ascii else _resolved_mask(a)
    rb = (_LATIN if _ascii_letter(b) else _ALL) if b_ascii else _resolved_mask(b)
    if ra & rb:
        return Confusability.SINGLE_SCRIPT
    if ra and rb:
        return Confusability.WHOLE_SCRIPT
    return Confusability.MIXED_SCRIPT


_VERDICTS = (
    None,
    Confusability.SINGLE_SCRIPT,
    Confusability.MIXED_SCRIPT,
    Confusability.WHOLE_SCRIPT,
)


@functools.cache
def native_tables() -> object | None:
    """The C extension's checked tables (a capsule), or None: no extension, or a
    unicodedata2 of another Unicode version than the generated NFD tables (the C path
    would then disagree with unicodedata2.normalize)."""
    if speedups is None:
        return None
    if unicodedata2.unidata_version != _lookups.normalization_version():
        return None
    return speedups.skeleton_tables(
        _lookups.skeleton_map().native(),
        _lookups.decomposition_map().native(),
        _lookups.combining_map().native(),
        scripts.native_script_tables(),
        _VERDICTS,
    )


@functools.cache
def native() -> tuple[Callable[[str], str], Callable[[str, str], Confusability | None]] | None:
    """(skeleton, confusable) in C, or None (see ``native_tables``)."""
    if unicodedata2.unidata_version != _lookups.normalization_version():
        return None
    tables = native_tables()
    if tables is None or speedups is None:
        return None
    return (
        functools.partial(speedups.skeleton, tables),
        functools.partial(speedups.confusable, tables),  # type: ignore[return-value]
    )


# The implementations, chosen on first use (loading the tables then, not at import).
def _first_skeleton(s: str) -> str:
    _choose()
    return _skeleton(s)


def _first_confusable(a: str, b: str) -> Confusability | None:
    _choose()
    return _confusable(a, b)


def _choose() -> None:
    global _skeleton, _confusable
    found = native()
    _skeleton, _confusable = found if found is not None else (skeleton_py, confusable_py)


_skeleton: Callable[[str], str] = _first_skeleton
_confusable: Callable[[str, str], Confusability | None] = _first_confusable


__all__ = ["Confusability", "confusable", "skeleton"]
