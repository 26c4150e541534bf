"""The identifier checks of UTS #39, judged on a policy's output (after normalization).

Four categories say what UTS #39 says an identifier must not be, each about the text as
it will be stored, so they run on the engine's output, never per input character:

- ``RESTRICTED``: a character with Identifier_Status=Restricted (§3.1: not in the
  General Security Profile -- obsolete, technical, limited-use or excluded scripts,
  symbols, emoji, compatibility variants);
- ``MIXED_SCRIPT``: a script mix over the policy's ``max_restriction_level`` (§5.2).
  Judged by scripts alone (``script_level``): Identifier_Status is ``RESTRICTED``'s job,
  so one character is never reported twice, and the two together are §5.2 exactly;
- ``MIXED_NUMBERS``: decimal digits of more than one system, "1২3" (§5.3);
- ``HIDDEN_OVERLAY``: marks a reader cannot see or count (§5.4, on NFD): a mark hidden
  by its base (i + U+0307), the same nonspacing mark twice in a row, more than four
  nonspacing marks in a row.

This module imports ``sanitizer._lookalike`` (the UTS #39 data), so ``compiled`` imports
it only for a policy that scans one of these categories: other policies never load it.
Each check yields ``Spot``s in increasing order of position, in code points of the text
it is given; ``IdentifierChecks`` is what one compiled policy runs.

Cost: each check is a search or two in C over the text, with ``re`` classes built once
from the UTS #39 and UCD ranges; Python work is per finding (at most ``cap`` built per
category, the rest counted in C), per distinct digit, or per combining character sequence
(short ones cached by their text).  Clean text with no mark, no digit other than ASCII,
no Restricted and no supplementary character costs one search and one script mask.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import unicodedata2

from .._categories import MARKS, Category, char_class, quick_class
from .._lookalike import (
    RestrictionLevel,
    identifier_types,
    script_extensions,
    script_name,
)
from .._lookalike.overlay import DOT_LEAD_RANGES
from .._lookalike.scripts import resolved_from, resolved_mask
from .._lookalike.status import ALLOWED_RANGES
from ._model import IDENTIFIER_CATEGORIES

_C = Category
__all__ = ["IDENTIFIER_CATEGORIES", "IdentifierChecks", "Spot", "restricted_ascii"]
_NONSPACING = ("Mn", "Me")  # §5.4: "nonspacing marks (gc=Mn or gc=Me)"
MAX_NONSPACING = 4  # §5.4: more than 4 nonspacing marks in a row is refused
_DOT_ABOVE = "\u0307"
_CACHED_SEQUENCE = 16  # combining sequences up to this long have their verdict cached
_SEQUENCE_CACHE = 4096
Ranges = list[tuple[int, int]]


def _union(*parts: Iterable[tuple[int, int]]) -> Ranges:
    """The union of range lists, as sorted disjoint (first, last) ranges."""
    out: Ranges = []
    for lo, hi in sorted(r for part in parts for r in part):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(hi, out[-1][1]))
        else:
            out.append((lo, hi))
    return out


def _complement(ranges: Iterable[tuple[int, int]]) -> Ranges:
    out: Ranges = []
    pos = 0
    for lo, hi in _union([*ranges, (0x110000, 0x110000)]):
        if lo > pos:
            out.append((pos, lo - 1))
        pos = hi + 1
    return out


def _select(ranges: Iterable[tuple[int, int]], test: Callable[[str], bool]) -> Ranges:
    """The code points of ``ranges`` for which ``test(ch)`` is true, as ranges."""
    return _union((cp, cp) for lo, hi in ranges for cp in range(lo, hi + 1) if test(chr(cp)))


def digit_ranges() -> Ranges:
    """gc=Nd (UCD, via unicodedata2): Unicode keeps decimal digits in runs of ten, zero
    to nine (stability policy), so a look at every tenth code point finds every run."""
    runs: Ranges = []
    decimal = unicodedata2.decimal
    for cp in range(0, 0x110000, 10):
        value = decimal(chr(cp), -1)
        if value >= 0:
            runs.append((cp - value, cp - value + 9))
    return runs


@dataclass(frozen=True)
class _Patterns:
    """The searches of the checks, built once (``_patterns``)."""

    restricted: re.Pattern[str]  # one Identifier_Status=Restricted character (§3.1)
    other_digit: re.Pattern[str]  # one decimal digit (gc=Nd) that is not ASCII
    not_digits: re.Pattern[str]  # a run of characters that are not digits
    first_mark: re.Pattern[str]  # a mark (or any supplementary character)
    sequences: re.Pattern[str]  # a combining character sequence (see _sequence_class)
    hidden: re.Pattern[str]  # a U+0307 hidden by its base (overlay.py's rule)
    long_run: re.Pattern[str]  # more than MAX_NONSPACING nonspacing marks in a row
    repeat: re.Pattern[str]  # a nonspacing mark followed by itself (group 1)
    look: re.Pattern[str]  # anything but a clean character (see ``passes``)


@functools.cache
def _patterns() -> _Patterns:
    restricted = _complement(ALLOWED_RANGES)
    digits = digit_ranges()
    other_digits = [r for r in digits if r[0] > 0x7F]
    category, combining = unicodedata2.category, unicodedata2.combining
    nonspacing = char_class(_select(MARKS, lambda ch: category(ch) in _NONSPACING))
    # Combining class 0 or 230 (U+0307's) moves the lead; every other class is a mark's.
    passing = char_class(_select(MARKS, lambda ch: combining(ch) not in (0, 230)))
    marks = quick_class(MARKS)
    # Combining character sequences (a base, or nothing at the start, then marks): the
    # only places §5.4 can find anything (no character's own NFD breaks a rule, except the
    # three Gurung Khema vowel signs, whose repeated AA is discounted: see
    # ``_mark_problem``).  The class is exact below U+10000 and takes every supplementary
    # character as a candidate (``re`` tests supplementary ranges one by one): a sequence
    # may then run on over a supplementary non-mark, which the checks see as a base.
    return _Patterns(
        restricted=re.compile(
            f"[^{char_class(ALLOWED_RANGES)}]"
        ),  # negated: re keeps the BMP a bitmap
        other_digit=re.compile(f"[{char_class(other_digits)}]"),
        not_digits=re.compile(f"[^{char_class(digits)}]+"),
        first_mark=re.compile(f"[{marks}]"),
        sequences=re.compile(f"[^{marks}]?[{marks}]+"),
        hidden=re.compile(f"[{char_class(DOT_LEAD_RANGES)}][{passing}]*\u0307"),
        long_run=re.compile(f"[{nonspacing}]{{{MAX_NONSPACING + 1}}}"),
        repeat=re.compile(f"([{nonspacing}])(?=\\1)"),
        look=re.compile(f"[{quick_class(_union(restricted, other_digits, MARKS))}]"),
    )


# §5.2 step 3: Latin + Han + Hiragana + Katakana, + Han + Hangul, + Han + Bopomofo, as the
# augmented scripts of §5.1.
_HIGHLY = frozenset({"Jpan", "Kore", "Hanb"})
# §5.2 step 4: Latin + one other script, not these (Cherokee too, as ICU: it looks Latin).
_NOT_MODERATE = frozenset({"Cyrl", "Grek", "Cher"})


@dataclass(frozen=True, slots=True)
class Spot:
    """One problem in the text checked: ``start``..``end`` in its code points; ``more``:
    how many more problems of its category follow it, counted but not built (the check
    was given a ``cap``: no later one can be among the listed findings)."""

    category: Category
    start: int
    end: int
    detail: str
    codepoint: int | None = None  # the character, for a one-character finding
    more: int = 0


def _level_name(level: RestrictionLevel) -> str:
    return level.name.lower().replace("_", " ")


def restricted(text: str, cap: int | None = None) -> Iterator[Spot]:
    """RESTRICTED: each character with Identifier_Status=Restricted (§3.1), and why; the
    ``cap``-th one (if any) counts the rest, found by the same search in C."""
    pattern = _patterns().restricted
    for n, m in enumerate(pattern.finditer(text), 1):
        i, ch = m.start(), m.group()
        more = 0 if cap is None or n < cap else pattern.subn("", text[i + 1 :])[1]
        yield Spot(_C.RESTRICTED, i, i + 1, _why_restricted(ch), ord(ch), more)
        if more:
            return


@functools.lru_cache(maxsize=1024)
def _why_restricted(ch: str) -> str:
    return "Identifier_Type " + " ".join(sorted(t.value for t in identifier_types(ch)))


def script_level(text: str) -> RestrictionLevel:
    """The UTS #39 §5.2 restriction level of ``text`` judged by its scripts alone, as if
    every character had Identifier_Status=Allowed (which ``RESTRICTED`` checks): with
    every character Allowed this is ``_lookalike.restriction_level`` (tests check it)."""

    if text.isascii():
        return RestrictionLevel.ASCII_ONLY
    if resolved_mask(text):  # §5.1: one script covers it (Common alone: every script)
        return RestrictionLevel.SINGLE_SCRIPT
    # Steps 3 and 4: the characters that are not Latin must resolve to one (augmented)
    # script: Japanese, Korean or Han with Bopomofo; else one that is not Cyrillic or Greek.
    others = resolved_from(text, skip="Latn")
    if others & _HIGHLY:
        return RestrictionLevel.HIGHLY_RESTRICTIVE
    if others and not others & _NOT_MODERATE:
        return RestrictionLevel.MODERATELY_RESTRICTIVE
    return RestrictionLevel.MINIMALLY_RESTRICTIVE


def scripts_in(text: str) -> list[str]:
    """The scripts of ``text`` by their full names, in order of appearance: a character
    with several Script_Extensions adds one only if it shares none already named."""

    named: set[str] = set()
    out: list[str] = []
    for ch in dict.fromkeys(text):
        found = script_extensions(ch) - {"Zyyy", "Zinh", "Zzzz"}
        if found and not found & named:
            code = min(found)
            named.add(code)
            out.append(script_name(code))
    return out


def mixed_script(text: str, limit: RestrictionLevel) -> Iterator[Spot]:
    """MIXED_SCRIPT: ``text``'s script level is over ``limit``."""

    if text.isascii():
        return  # ASCII_ONLY, the lowest level
    level = script_level(text)
    if level > limit:
        names = scripts_in(text) or [script_name("Zyyy")]  # Common and Inherited only
        what = f"mixed scripts {' + '.join(names)}" if len(names) > 1 else f"script {names[0]}"
        detail = f"{what} ({_level_name(level)}, over {_level_name(limit)})"
        yield Spot(_C.MIXED_SCRIPT, 0, len(text), detail)


def _digit_system(zero: str) -> str:
    """A decimal system by the name of its zero: "Bengali", "Fullwidth", "ASCII"."""
    if zero == "0":
        return "ASCII"
    name = str(unicodedata2.name(zero, f"U+{ord(zero):04X}")).replace(" DIGIT ZERO", "")
    return name.title()


def mixed_numbers(text: str) -> Iterator[Spot]:
    """MIXED_NUMBERS: decimal digits (gc=Nd) of more than one system (§5.3): the zero of
    each digit (its code point minus its value) is not the same for all."""
    patterns = _patterns()
    if text.isascii() or patterns.other_digit.search(text) is None:
        return  # one system at most: ASCII
    digits = patterns.not_digits.sub("", text)  # in C; then each distinct digit once
    decimal = unicodedata2.decimal
    zeros = dict.fromkeys(chr(ord(ch) - decimal(ch)) for ch in dict.fromkeys(digits))
    if len(zeros) > 1:
        systems = " + ".join(_digit_system(z) for z in zeros)
        yield Spot(_C.MIXED_NUMBERS, 0, len(text), f"mixed numbers: {systems} digits")


_problems: dict[str, str | None] = {}


def _mark_problem(sequence: str) -> str | None:
    """What §5.4 finds in one combining character sequence (None: nothing); a short
    sequence's answer is remembered (a bounded dict, emptied when full)."""
    if len(sequence) > _CACHED_SEQUENCE:
        return _sequence_problem(sequence)
    try:
        return _problems[sequence]
    except KeyError:
        pass
    if len(_problems) >= _SEQUENCE_CACHE:
        _problems.clear()
    problem = _problems[sequence] = _sequence_problem(sequence)
    return problem


def _sequence_problem(sequence: str) -> str | None:
    """What §5.4 finds in one combining character sequence, on NFD (None: nothing)."""
    patterns = _patterns()
    why: list[str] = []
    # As given, as ICU does: a precomposed U+0130 'İ' shows its dot; 'I' + U+0307 hides it.
    hidden = patterns.hidden.search(sequence) if _DOT_ABOVE in sequence else None
    if hidden:  # named by its base: the sequence's first character (or the dot's lead)
        first = sequence[0]
        base = sequence[hidden.end() - 2] if unicodedata2.category(first)[0] == "M" else first
        why.append(f"U+0307 COMBINING DOT ABOVE hidden by {_describe(base)}")
    decomposed = unicodedata2.normalize("NFD", sequence)
    if patterns.long_run.search(decomposed):
        why.append(f"more than {MAX_NONSPACING} nonspacing marks in a row")
    pairs = patterns.repeat.findall(decomposed)
    if pairs:  # a repeat inside one character's NFD is that character's own
        repeated = Counter(pairs)
        for ch in sequence:
            for a, b in itertools.pairwise(unicodedata2.normalize("NFD", ch)):
                if a == b:
                    repeated[a] -= 1
        why += [f"{_describe(ch)} twice in a row" for ch, n in repeated.items() if n > 0]
    return "; ".join(why) or None


def _describe(ch: str) -> str:
    return f"U+{ord(ch):04X} {unicodedata2.name(ch, '<unnamed>')}"


def hidden_overlay(text: str, cap: int | None = None) -> Iterator[Spot]:
    """HIDDEN_OVERLAY: one finding per combining character sequence that breaks §5.4;
    the ``cap``-th one (if any) counts the rest."""
    if text.isascii():
        return
    patterns = _patterns()
    mark = patterns.first_mark.search(text)
    if mark is None:
        return
    found = 0
    sequences = patterns.sequences.finditer(text, max(mark.start() - 1, 0))
    for m in sequences:
        problem = _mark_problem(m.group())
        if problem is None:
            continue
        found += 1
        more = 0
        if cap is not None and found >= cap:
            more = sum(1 for m in sequences if _mark_problem(m.group()) is not None)
        yield Spot(_C.HIDDEN_OVERLAY, m.start(), m.end(), problem, more=more)
        if more:
            return


class IdentifierChecks:
    """The identifier checks of one policy: the categories it scans (``report``, for
    inspect) and refuses (``verdict``, for sanitize and accepts), and its level limit."""

    __slots__ = ("ascii_restricted", "limit", "look", "report", "verdict")

    def __init__(
        self,
        report: frozenset[Category],
        verdict: frozenset[Category],
        limit: RestrictionLevel | None,
    ) -> None:
        self.report = report
        self.verdict = verdict
        self.limit = RestrictionLevel.HIGHLY_RESTRICTIVE if limit is None else limit
        # In ASCII only a Restricted character can be found: one search for them.
        bad = "".join(chr(cp) for cp in sorted(restricted_ascii()))
        self.ascii_restricted = re.compile(f"[{re.escape(bad)}]").search
        self.look = _patterns().look.search

    def spots(self, text: str, verdict: bool, cap: int | None = None) -> Iterator[Spot]:
        """Every problem in ``text``, category by category (each in increasing order of
        position); ``verdict``: of the refused categories only.  ``cap``: at most this
        many spots of one category are built (the last one counts the rest): no others
        can be among the first ``cap`` findings."""
        cats = self.verdict if verdict else self.report
        if _C.RESTRICTED in cats:
            yield from restricted(text, cap)
        if _C.MIXED_SCRIPT in cats:
            yield from mixed_script(text, self.limit)
        if _C.MIXED_NUMBERS in cats:
            yield from mixed_numbers(text)
        if _C.HIDDEN_OVERLAY in cats:
            yield from hidden_overlay(text, cap)

    def passes(self, text: str, verdict: bool) -> bool:
        """Whether ``text`` has no problem (the fast paths' check).  Text with no
        Restricted character, no digit but ASCII ones, no mark and no supplementary
        character (one search) can only mix scripts: one script mask in C says it does
        not; anything else is decided by ``spots``."""
        cats = self.verdict if verdict else self.report
        if not cats:
            return True
        if text.isascii():
            return _C.RESTRICTED not in cats or self.ascii_restricted(text) is None
        if self.look(text) is None:
            if _C.MIXED_SCRIPT not in cats:
                return True
            if self.limit >= RestrictionLevel.SINGLE_SCRIPT and resolved_mask(text):
                return True
            return script_level(text) <= self.limit
        return next(self.spots(text, verdict), None) is None


def restricted_ascii() -> frozenset[int]:
    """The ASCII code points with Identifier_Status=Restricted (for ``ascii_allowed``)."""
    return frozenset(cp for cp in range(0x80) if not _in(cp, ALLOWED_RANGES))


def _in(cp: int, ranges: Iterable[tuple[int, int]]) -> bool:
    return any(lo <= cp <= hi for lo, hi in ranges)
