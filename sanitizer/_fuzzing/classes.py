"""The ill-formed classes a candidate decoder may accept, in the order a report ranks them.

A campaign against someone else's decoder must say *what* it accepts: an overlong '/' is
a path-traversal bypass, a stray FF is a nuisance.  The classes come from the library's
own error kinds (``sanitizer.ErrorKind``, ``Utf8Error.naive``) and its grouping of errors
into what a lax decoder reads as one sequence (``sanitizer.group_errors``): each group is
classified by its first error, so ``C0 AE`` is one overlong '.' and not an overlong lead
plus a stray continuation.  Where a kind holds several attacks it is split (overlong NUL,
5/6-byte forms, a CESU-8 pair); where it does not matter it is merged (truncated and
incomplete).

``CLASSES`` is in the order of severity (docs/fuzzing.md, "What the summary shows"):

1. second spellings of ASCII that byte-level filters miss (RFC 3629 §10): overlong forms,
   then the overlong NUL of Modified UTF-8 (``C0 80``: hides U+0000 from C strings);
2. text that is not Unicode scalar values: an encoded surrogate (CESU-8, WTF-8; it breaks
   every encoder downstream), then a CESU-8 pair (a second spelling of an astral
   character when joined);
3. a lead cut short: a decoder that accepts it may swallow the next byte (a quote or a
   delimiter: the "eats the quote" injection);
4. code points that do not exist: beyond U+10FFFF, then RFC 2279's 5- and 6-byte forms;
5. bytes that start nothing: stray continuation bytes, then FE and FF.

An input with several groups accepted as a whole is filed under its most severe class
(``worst_class``); a refusal at the wrong offsets under the class of its first error
(``first_class``).
"""

from __future__ import annotations

from dataclasses import dataclass

import sanitizer
from sanitizer import ErrorKind, Utf8Error

__all__ = [
    "CLASSES",
    "WELL_FORMED",
    "IllFormedClass",
    "by_key",
    "first_class",
    "groups",
    "worst_class",
]


@dataclass(frozen=True)
class IllFormedClass:
    """One row of a candidate's table: a kind of ill-formed input."""

    key: str  # stable, for JSON and headlines' grouping
    label: str  # what a report calls it
    kinds: tuple[ErrorKind, ...]  # the error kinds its groups start with
    why: str  # what accepting it lets an attacker do

    @property
    def rank(self) -> int:
        """0 for the most severe class (``CLASSES`` order)."""
        return CLASSES.index(self)


_K = ErrorKind
CLASSES: tuple[IllFormedClass, ...] = (
    IllFormedClass(
        "overlong",
        "overlong form",
        (_K.OVERLONG,),
        "a second spelling of '/', '.' or '<' that byte-level filters miss (RFC 3629 §10)",
    ),
    IllFormedClass(
        "overlong-nul",
        "overlong NUL (C0 80)",
        (_K.OVERLONG,),
        "Modified UTF-8's NUL: hides U+0000 from C-string checks, truncates downstream",
    ),
    IllFormedClass(
        "surrogate",
        "encoded surrogate",
        (_K.SURROGATE,),
        "a lone surrogate (CESU-8/WTF-8): text that no strict encoder writes back",
    ),
    IllFormedClass(
        "cesu8-pair",
        "CESU-8 surrogate pair",
        (_K.SURROGATE,),
        "an astral character spelled as two 3-byte surrogates: a second spelling",
    ),
    IllFormedClass(
        "truncated",
        "truncated sequence",
        (_K.TRUNCATED, _K.INCOMPLETE),
        "a lead cut short: a lax decoder swallows the byte after it (a quote, a delimiter)",
    ),
    IllFormedClass(
        "beyond-10ffff",
        "beyond U+10FFFF",
        (_K.OUT_OF_RANGE,),
        "a code point that does not exist (4-byte forms past U+10FFFF, RFC 3629 §3)",
    ),
    IllFormedClass(
        "five-six-byte",
        "5/6-byte form",
        (_K.OVERLONG, _K.OUT_OF_RANGE),
        "RFC 2279's 5- and 6-byte forms (leads F8..FD), gone since RFC 3629 §3",
    ),
    IllFormedClass(
        "stray-continuation",
        "stray continuation byte",
        (_K.UNEXPECTED_CONTINUATION,),
        "a continuation byte 80..BF with no lead before it",
    ),
    IllFormedClass(
        "fe-ff",
        "FE/FF byte",
        (_K.INVALID_BYTE,),
        "bytes that never occur in UTF-8 (RFC 3629 §1)",
    ),
)
# The table's last row: what a candidate must decode exactly as CPython does.
WELL_FORMED = "well-formed"

_BY_KEY = {c.key: c for c in CLASSES}
_FIVE_SIX_LEAD = 0xF8  # F8..FB start 5-byte, FC..FD 6-byte forms (RFC 2279 §2)
_HIGH = range(0xD800, 0xDC00)
_LOW = range(0xDC00, 0xE000)


def by_key(key: str) -> IllFormedClass:
    return _BY_KEY[key]


def _class_of(group: tuple[Utf8Error, ...], paired: bool) -> IllFormedClass:
    head = group[0]
    kind, lead = head.kind, head.sequence[0]
    if kind in (_K.OVERLONG, _K.OUT_OF_RANGE) and lead >= _FIVE_SIX_LEAD:
        return _BY_KEY["five-six-byte"]
    if kind is _K.OVERLONG:
        return _BY_KEY["overlong-nul" if head.naive == 0 else "overlong"]
    if kind is _K.SURROGATE:
        return _BY_KEY["cesu8-pair" if paired else "surrogate"]
    return next(c for c in CLASSES if kind in c.kinds)


def groups(data: bytes) -> list[tuple[IllFormedClass, int, int]]:
    """Each group of ``data``'s errors as (class, start, end), in input order; a CESU-8
    pair is one entry spanning both surrogates."""
    found = sanitizer.group_errors(sanitizer.find_errors(data))
    out: list[tuple[IllFormedClass, int, int]] = []
    i = 0
    while i < len(found):
        group = found[i]
        head = group[0]
        end = max(e.naive_end for e in group)
        following = found[i + 1][0] if i + 1 < len(found) else None
        paired = (
            head.kind is _K.SURROGATE
            and head.naive in _HIGH
            and following is not None
            and following.kind is _K.SURROGATE
            and following.start == end
            and following.naive in _LOW
        )
        if paired:
            assert following is not None
            out.append((_class_of(group, True), head.start, following.naive_end))
            i += 2
            continue
        out.append((_class_of(group, False), head.start, end))
        i += 1
    return out


def first_class(data: bytes) -> IllFormedClass | None:
    """The class of ``data``'s first ill-formed group (None: well-formed)."""
    found = groups(data)
    return found[0][0] if found else None


def worst_class(data: bytes) -> IllFormedClass | None:
    """The most severe class among ``data``'s groups (None: well-formed)."""
    found = groups(data)
    return min((c for c, _, _ in found), key=lambda c: c.rank, default=None)
