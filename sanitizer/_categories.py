"""Character classes for policies: which category a code point is in, as data.

Policies are tables: each ``Category`` maps to a set of code points (from the generated
``_chartables_data``; Unicode version = ``UNICODE_VERSION``) and each set compiles into a
regular-expression character class, so finding hits runs in ``re``'s C loop, never in a
Python loop over characters.  This module also carries the derived properties that
unicodedata2 lacks (Default_Ignorable_Code_Point, NFKC_Casefold) and the normalization
entry point every other module uses (always unicodedata2, never the stdlib).
"""

from __future__ import annotations

import bisect
import enum
import functools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

import unicodedata2

from . import _chartables_data as _t
from ._category_meanings import MEANINGS
from ._charnames import UNICODE_VERSION
from ._grammar import LENGTH_BOUNDS
from ._native import speedups as _speedups

if _t.UNICODE_VERSION != UNICODE_VERSION:  # pragma: no cover - caught by test_categories
    raise ImportError(
        f"sanitizer/_chartables_data.py is for Unicode {_t.UNICODE_VERSION} but unicodedata2 has "
        f"{UNICODE_VERSION}: run tools/generate.py"
    )

NORMAL_FORMS: tuple[str, ...] = ("NFC", "NFKC", "NFKC_CASEFOLD")
if TYPE_CHECKING:
    from typing import Literal

    NormalForm = Literal["NFC", "NFKC", "NFKC_CASEFOLD"]
else:

    def __getattr__(name: str) -> object:
        """``NormalForm`` (the ``Literal`` of NORMAL_FORMS), made on first use (PEP 562):
        loading the policy layer does not import ``typing``."""
        if name != "NormalForm":
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from typing import Literal

        alias = globals()[name] = Literal[NORMAL_FORMS]
        return alias


Ranges = tuple[tuple[int, int], ...]


class Category(enum.Enum):
    """What a finding is.  Character categories are disjoint: a code point is in the first
    one that lists it, in the order below (so U+200D is JOINER, not INVISIBLE).  What each
    means, in words, is ``description``, ``members`` and ``rationale``
    (``sanitizer._category_meanings``)."""

    # -- input-level ----------------------------------------------------------------
    ILL_FORMED = "ill-formed"
    TOO_LONG = "too-long"
    # -- character categories, in priority order --------------------------------------
    NUL = "nul"
    LINE_BREAK = "line-break"
    CONTROL = "control"
    PATH_SEPARATOR = "path-separator"
    BIDI_CONTROL = "bidi-control"
    BIDI_MARK = "bidi-mark"
    TAG = "tag"
    VARIATION_SELECTOR = "variation-selector"
    BOM = "bom"
    JOINER = "joiner"
    NONCHARACTER = "noncharacter"
    PRIVATE_USE = "private-use"
    SURROGATE = "surrogate"
    INVISIBLE = "invisible"
    FORMAT = "format"
    UNASSIGNED = "unassigned"
    WHITESPACE = "whitespace"
    # -- sequence-level ----------------------------------------------------------------
    COMBINING_RUN = "combining-run"
    DOT_SEGMENT = "dot-segment"
    EMPTY = "empty"
    HIDDEN_PAYLOAD = "hidden-payload"
    # -- identifiers (UTS #39), judged on the output ------------------------------------
    RESTRICTED = "restricted"
    MIXED_SCRIPT = "mixed-script"
    MIXED_NUMBERS = "mixed-numbers"
    HIDDEN_OVERLAY = "hidden-overlay"

    # Members are singletons compared by identity: hash them in C (Enum's is Python).
    __hash__ = object.__hash__

    @property
    def ranges(self) -> Ranges:
        """The code points of a character category (empty for the others)."""
        return _t.CATEGORIES.get(self.name, ())

    @property
    def description(self) -> str:
        """A short phrase for a log line or a problem title: "NUL character, which
        truncates C strings"."""
        return MEANINGS[self.value][0]

    @property
    def members(self) -> str:
        """Which code points (or inputs) the category holds, in words (Markdown)."""
        return MEANINGS[self.value][1]

    @property
    def rationale(self) -> str:
        """Why the category matters, citing the specification (Markdown)."""
        return MEANINGS[self.value][2]


CHARACTER_CATEGORIES: tuple[Category, ...] = tuple(Category[name] for name in _t.CATEGORIES)

# Flat table for category_of: sorted range starts, ends and categories.
_FLAT = sorted((lo, hi, cat) for cat in CHARACTER_CATEGORIES for lo, hi in cat.ranges)
_STARTS = [lo for lo, _, _ in _FLAT]


def category_of(cp: int) -> Category | None:
    """The character category of ``cp``, or None for ordinary characters."""
    i = bisect.bisect_right(_STARTS, cp) - 1
    if i >= 0 and cp <= _FLAT[i][1]:
        return _FLAT[i][2]
    return None


def char_class(ranges: Iterable[tuple[int, int]]) -> str:
    """A regex character class body (no brackets) for the given code point ranges."""
    parts = []
    for lo, hi in ranges:
        a = re.escape(chr(lo))
        parts.append(a if lo == hi else f"{a}-{re.escape(chr(hi))}")
    return "".join(parts)


def in_ranges(cp: int, ranges: Ranges) -> bool:
    i = bisect.bisect_right(ranges, (cp, 0x10FFFF)) - 1
    return i >= 0 and ranges[i][0] <= cp <= ranges[i][1]


MARKS: Ranges = _t.MARKS
GRAPHIC: Ranges = _t.GRAPHIC
EMOJI: Ranges = _t.EMOJI
IDEOGRAPHIC: Ranges = _t.IDEOGRAPHIC
MONGOLIAN: Ranges = _t.MONGOLIAN
# Normalization-sensitive characters (UAX #15 §9): NFC / NFKC Quick_Check No or Maybe, and
# Canonical_Combining_Class != 0 (the policy fast path's class table paints them).
NFC_QC_NOT_YES: Ranges = _t.NFC_QC_NOT_YES
NFKC_QC_NOT_YES: Ranges = _t.NFKC_QC_NOT_YES
CCC_NONZERO: Ranges = _t.CCC_NONZERO
DEFAULT_IGNORABLE: Ranges = _t.DEFAULT_IGNORABLE
MAX_NFD_EXPANSION: int = _t.MAX_NFD_EXPANSION
MAX_NFKD_EXPANSION: int = _t.MAX_NFKD_EXPANSION
MAX_NFKC_CF_EXPANSION: int = _t.MAX_NFKC_CF_EXPANSION


def is_default_ignorable(cp: int) -> bool:
    """Default_Ignorable_Code_Point (DerivedCoreProperties; generated, see module doc)."""
    return in_ranges(cp, DEFAULT_IGNORABLE)


@functools.lru_cache(maxsize=1)
def nfkc_casefold_table() -> dict[int, str]:
    """NFKC_Casefold as a ``str.translate`` table: code point -> its mapping ("" erases).

    Only code points that change (Changes_When_NFKC_Casefolded) are listed, with the
    Default_Ignorable ones (mapped to "") as ranges; built on first use.
    """
    table: dict[int, str] = {}
    for lo, hi in _t.NFKC_CF_ERASED:
        table.update(dict.fromkeys(range(lo, hi + 1), ""))
    for item in "".join(_t.NFKC_CF_PACKED).split(";"):
        cp, _, mapped = item.partition(":")
        table[int(cp, 16)] = "".join(chr(int(h, 16)) for h in mapped.split())
    return table


def nfkc_casefold(text: str) -> str:
    """toNFKC_Casefold (Unicode §3.13; UAX #44 NFKC_CF): map each code point by NFKC_Casefold,
    then NFC.  For ASCII this is ``str.lower``.

    The text is brought to NFKD first.  Mapped one code point at a time, canonically
    equivalent inputs can differ: U+0345 (ccc 240) folds to the starter U+03B9, so
    "\u03b1\u0345\u0301" and "\u03b1\u0301\u0345" (the same string under NFC) would fold
    apart.  After NFKD the marks are in canonical order and compatibility variants are
    decomposed, so any two inputs equal under NFC or NFKC are equal here (the forms nest);
    NFKC_Casefold(c) = NFKC_Casefold(NFKD(c)) per character, so the mapping is unchanged
    for every input already in NFKD."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata2.normalize("NFKD", text)
    return str(unicode_normalize("NFC", decomposed.translate(nfkc_casefold_table())))


def _normalizer() -> Callable[[str, str], str]:
    """``unicodedata2.normalize``, NFC and NFKC in C when the extension is on
    (``_speedups.normalize``: the same answers, tests/core/test_normalize.py; it composes
    only the segments between boundaries, UAX #15 §9; docs/normalization.md)."""
    slow: Callable[[str, str], str] = unicodedata2.normalize
    if _speedups is None:
        return slow
    fast = _speedups.normalize

    def unicode_normalize(form: str, text: str) -> str:
        if form == "NFC":
            return fast(text, False)
        if form == "NFKC":
            return fast(text, True)
        return str(slow(form, text))

    return unicode_normalize


unicode_normalize = _normalizer()


def normalize(form: str, text: str) -> str:
    """``text`` in normal form ``form`` ("NFC", "NFKC", "NFKC_CASEFOLD", also "NFD",
    "NFKD"), with unicodedata2's data.  ASCII is invariant under all but casefolding."""
    if form == "NFKC_CASEFOLD":
        return nfkc_casefold(text)
    if text.isascii():
        if form not in ("NFC", "NFD", "NFKC", "NFKD"):
            raise ValueError(f"unknown normalization form {form!r}")
        return text
    return str(unicode_normalize(form, text))


def min_normalized_length(form: str | None, length: int) -> int:
    """A lower bound on ``len(normalize(form, s))`` for ``len(s) == length``, for a cheap
    length check before normalizing.  Decomposition never shortens text, and each composed
    output code point stands for at most MAX_NFD_EXPANSION decomposed ones (UAX #15 §1.3);
    NFKC_Casefold can erase ignorables, so it has no bound but 0."""
    if form is None:
        return length
    if form in ("NFC", "NFKC"):
        return -(-length // MAX_NFD_EXPANSION)
    return 0


def max_normalized_length(form: str | None, length: int) -> int:
    """An upper bound on ``len(normalize(form, s))`` for ``len(s) == length``."""
    if form is None:
        return length
    if form == "NFC":
        return length * MAX_NFD_EXPANSION
    return length * max(MAX_NFKD_EXPANSION, MAX_NFKC_CF_EXPANSION)


__all__ = [
    "CHARACTER_CATEGORIES",
    "NORMAL_FORMS",
    "UNICODE_VERSION",
    "Category",
    "NormalForm",
    "category_of",
    "char_class",
    "is_default_ignorable",
    "nfkc_casefold",
    "normalize",
    "unicode_normalize",
]


# -- fast classes for ``re`` -------------------------------------------------------------
# ``re`` compiles the BMP part of a character class to a bitmap, but tests every range
# above U+FFFF one by one, for every character it looks at.  So a quick class is exact
# for the BMP and takes all of U+10000..10FFFF as candidates (one range); candidates are
# then classified exactly with category_of (bisect).


def quick_class(ranges: Iterable[tuple[int, int]]) -> str:
    """A regex class body: ``ranges`` exactly below U+10000, any supplementary character."""
    bmp = [(lo, min(hi, 0xFFFF)) for lo, hi in ranges if lo <= 0xFFFF]
    astral = any(hi > 0xFFFF for _, hi in ranges)
    return char_class(bmp) + (char_class([(0x10000, 0x10FFFF)]) if astral else "")


# -- UTF-8 byte patterns for supplementary characters ------------------------------------
# Over UTF-8 bytes every class is a 256-bit bitmap, so the exact test for supplementary
# code points runs on bytes: sets become byte-range sequences (RFC 3629 §4; the method of
# RE2 and Rust's regex-syntax ``Utf8Sequences``), merged into a trie.


def _utf8(cp: int) -> bytes:
    return chr(cp).encode("utf-8", "surrogatepass")


def utf8_sequences(lo: int, hi: int) -> Iterator[tuple[tuple[int, int], ...]]:
    """Byte-range sequences whose UTF-8 strings are exactly the code points lo..hi."""
    for a, b in LENGTH_BOUNDS:
        if max(lo, a) <= min(hi, b):
            yield from _same_length(max(lo, a), min(hi, b))


def _same_length(lo: int, hi: int) -> Iterator[tuple[tuple[int, int], ...]]:
    for i in range(1, 4):
        m = (1 << (6 * i)) - 1
        if lo & ~m != hi & ~m:
            if lo & m:
                yield from _same_length(lo, lo | m)
                yield from _same_length((lo | m) + 1, hi)
                return
            if hi & m != m:
                yield from _same_length(lo, (hi & ~m) - 1)
                yield from _same_length(hi & ~m, hi)
                return
    yield tuple(zip(_utf8(lo), _utf8(hi), strict=True))


Trie = dict[tuple[int, int], "Trie"]


def _byte_class(spans: list[tuple[int, int]]) -> str:
    body = "".join(f"\\x{a:02x}" if a == b else f"\\x{a:02x}-\\x{b:02x}" for a, b in sorted(spans))
    return f"[{body}]"


def _grouped(node: Trie) -> dict[str, list[tuple[int, int]]]:
    """Children with equal subtrees share one byte class."""
    by_sub: dict[str, list[tuple[int, int]]] = {}
    for span, child in node.items():
        by_sub.setdefault(_render(child), []).append(span)
    return by_sub


def _render(node: Trie) -> str:
    if not node:
        return ""
    alts = [_byte_class(spans) + sub for sub, spans in _grouped(node).items()]
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"


def utf8_pattern(ranges: Iterable[tuple[int, int]]) -> str:
    """A bytes-regex source matching one UTF-8 encoded code point from ``ranges``.

    It starts with one class of lead bytes, so ``re`` skips other bytes in its C search
    loop; a one-byte lookbehind on the lead then picks the continuation pattern."""
    trie: Trie = {}
    for lo, hi in ranges:
        for seq in utf8_sequences(lo, hi):
            node = trie
            for span in seq:
                node = node.setdefault(span, {})
    if not trie:
        return "(?!)"
    groups = _grouped(trie)
    leads = _byte_class([s for spans in groups.values() for s in spans])
    alts = [f"(?<={_byte_class(spans)}){sub}" for sub, spans in groups.items()]
    return leads if list(groups) == [""] else f"{leads}(?:{'|'.join(alts)})"
