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

This module imports ``sanitizer.lookalike`` (the UTS #39 data), so ``compiled`` imports
it only for a policy that scans one of these categories: other policies never load it.
Each check yields ``Spot``s in increasing order of position, in code points of the text
it is given; ``IdentifierChecks`` is what one compiled policy runs.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import unicodedata2

from ..chardata import MARKS, Category, quick_class
from ..lookalike import (
    IdentifierStatus,
    RestrictionLevel,
    hidden_overlays,
    identifier_status,
    identifier_types,
    resolved_scripts,
    restriction_level,
    script_extensions,
    script_name,
)
from ..lookalike import mixed_numbers as has_mixed_numbers
from ._model import IDENTIFIER_CATEGORIES

_C = Category
__all__ = ["IDENTIFIER_CATEGORIES", "IdentifierChecks", "Spot", "restricted_ascii"]
_NONSPACING = ("Mn", "Me")  # §5.4: "nonspacing marks (gc=Mn or gc=Me)"
MAX_NONSPACING = 4  # §5.4: more than 4 nonspacing marks in a row is refused


# Combining character sequences (a base, or nothing at the start, then marks): the only
# places §5.4 can find anything (no character's own NFD breaks a rule, except the three
# Gurung Khema vowel signs, whose repeated AA is discounted: see ``_mark_problem``).  The
# class is exact below U+10000 and takes every supplementary character as a candidate
# (``re`` tests supplementary ranges one by one): a sequence may then run on over a
# supplementary non-mark, which the checks, made per character, see as a base.
@functools.lru_cache(maxsize=1)
def _sequences() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The first mark (a one-class search, fast in ``re``), and sequences."""
    marks = quick_class(MARKS)
    return re.compile(f"[{marks}]"), re.compile(f"[^{marks}]?[{marks}]+")


# §5.2 step 3: Latin + Han + Hiragana + Katakana, + Han + Hangul, + Han + Bopomofo, as the
# augmented scripts of §5.1.
_HIGHLY = frozenset({"Jpan", "Kore", "Hanb"})
# §5.2 step 4: Latin + one other script, not these (Cherokee too, as ICU: it looks Latin).
_NOT_MODERATE = frozenset({"Cyrl", "Grek", "Cher"})


@dataclass(frozen=True, slots=True)
class Spot:
    """One problem in the text checked: ``start``..``end`` in its code points."""

    category: Category
    start: int
    end: int
    detail: str
    codepoint: int | None = None  # the character, for a one-character finding


def _level_name(level: RestrictionLevel) -> str:
    return level.name.lower().replace("_", " ")


def restricted(text: str) -> Iterator[Spot]:
    """RESTRICTED: each character with Identifier_Status=Restricted (§3.1), and why."""
    # §5.2 puts a string with any Restricted character at UNRESTRICTED, and finds that
    # with one search in C: only then look at each character.
    if restriction_level(text) is not RestrictionLevel.UNRESTRICTED:
        return
    for i, ch in enumerate(text):
        if identifier_status(ch) is IdentifierStatus.RESTRICTED:
            yield Spot(_C.RESTRICTED, i, i + 1, _why_restricted(ch), ord(ch))


@functools.lru_cache(maxsize=1024)
def _why_restricted(ch: str) -> str:
    return "Identifier_Type " + " ".join(sorted(t.value for t in identifier_types(ch)))


def script_level(text: str) -> RestrictionLevel:
    """The UTS #39 §5.2 restriction level of ``text`` judged by its scripts alone, as if
    every character had Identifier_Status=Allowed (which ``RESTRICTED`` checks): with
    every character Allowed this is ``lookalike.restriction_level`` (tests check it)."""

    if text.isascii():
        return RestrictionLevel.ASCII_ONLY
    if resolved_scripts(text):  # §5.1: one script covers it (Common alone: every script)
        return RestrictionLevel.SINGLE_SCRIPT
    # Steps 3 and 4: the characters that are not Latin must resolve to one (augmented)
    # script: Japanese, Korean or Han with Bopomofo; else one that is not Cyrillic or Greek.
    chars = dict.fromkeys(text)  # a resolved set does not depend on order or repeats
    others = resolved_scripts("".join(c for c in chars if "Latn" not in script_extensions(c)))
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
        names = scripts_in(text)
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
    """MIXED_NUMBERS: decimal digits (gc=Nd) of more than one system (§5.3)."""
    if text.isascii():
        return  # one system: ASCII

    if not has_mixed_numbers(text):
        return
    zeros: dict[str, None] = {}
    for ch in text:
        if unicodedata2.category(ch) == "Nd":
            zeros[chr(ord(ch) - unicodedata2.decimal(ch))] = None
    systems = " + ".join(_digit_system(z) for z in zeros)
    yield Spot(_C.MIXED_NUMBERS, 0, len(text), f"mixed numbers: {systems} digits")


def _mark_problem(sequence: str) -> str | None:
    """What §5.4 finds in one combining character sequence (None: nothing), on NFD."""

    decomposed = unicodedata2.normalize("NFD", sequence)
    why: list[str] = []
    # As given, as ICU does: a precomposed U+0130 'İ' shows its dot; 'I' + U+0307 hides it.
    hidden = hidden_overlays(sequence)
    if hidden:  # named by its base: the sequence's first character (or the one before)
        first = sequence[0]
        base = sequence[hidden[0] - 1] if unicodedata2.category(first)[0] == "M" else first
        why.append(f"U+0307 COMBINING DOT ABOVE hidden by {_describe(base)}")
    run = 0
    repeated: Counter[str] = Counter()
    for prev, ch in itertools.pairwise(" " + decomposed):
        if unicodedata2.category(ch) in _NONSPACING:
            run += 1
            if ch == prev:
                repeated[ch] += 1
        else:
            run = 0
        if run == MAX_NONSPACING + 1:
            why.append(f"more than {MAX_NONSPACING} nonspacing marks in a row")
    if repeated:  # a repeat inside one character's NFD is that character's own
        for ch in sequence:
            for a, b in itertools.pairwise(unicodedata2.normalize("NFD", ch)):
                if a == b:
                    repeated[a] -= 1
        why += [f"{_describe(ch)} twice in a row" for ch, n in repeated.items() if n > 0]
    return "; ".join(dict.fromkeys(why)) or None


def _describe(ch: str) -> str:
    return f"U+{ord(ch):04X} {unicodedata2.name(ch, '<unnamed>')}"


def hidden_overlay(text: str) -> Iterator[Spot]:
    """HIDDEN_OVERLAY: one finding per combining character sequence that breaks §5.4."""
    if text.isascii():
        return
    first, sequences = _sequences()
    mark = first.search(text)
    if mark is None:
        return
    for m in sequences.finditer(text, max(mark.start() - 1, 0)):
        problem = _mark_problem(m.group())
        if problem is not None:
            yield Spot(_C.HIDDEN_OVERLAY, m.start(), m.end(), problem)


class IdentifierChecks:
    """The identifier checks of one policy: the categories it scans (``report``, for
    inspect) and refuses (``verdict``, for sanitize and accepts), and its level limit."""

    __slots__ = ("ascii_restricted", "limit", "report", "verdict")

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

    def spots(self, text: str, verdict: bool) -> Iterator[Spot]:
        """Every problem in ``text``, category by category (each in increasing order of
        position); ``verdict``: of the refused categories only."""
        cats = self.verdict if verdict else self.report
        if _C.RESTRICTED in cats:
            yield from restricted(text)
        if _C.MIXED_SCRIPT in cats:
            yield from mixed_script(text, self.limit)
        if _C.MIXED_NUMBERS in cats:
            yield from mixed_numbers(text)
        if _C.HIDDEN_OVERLAY in cats:
            yield from hidden_overlay(text)

    def passes(self, text: str, verdict: bool) -> bool:
        """Whether ``text`` has no problem (the fast paths' check).  Clean text costs one
        ``restriction_level`` (a search in C for Restricted characters, then the scripts):
        under UNRESTRICTED it has no Restricted character, and at or under the limit no
        wider script mix (its level is then its script level)."""
        cats = self.verdict if verdict else self.report
        if not cats:
            return True
        if text.isascii():
            return _C.RESTRICTED not in cats or self.ascii_restricted(text) is None
        level = restriction_level(text)  # UNRESTRICTED: a Restricted character, or a mix
        if (_C.RESTRICTED in cats and level is RestrictionLevel.UNRESTRICTED) or (
            _C.MIXED_SCRIPT in cats and level > self.limit
        ):
            return next(self.spots(text, verdict), None) is None
        if _C.MIXED_NUMBERS in cats and has_mixed_numbers(text):
            return False
        return _C.HIDDEN_OVERLAY not in cats or next(hidden_overlay(text), None) is None


def restricted_ascii() -> frozenset[int]:
    """The ASCII code points with Identifier_Status=Restricted (for ``ascii_allowed``)."""
    return frozenset(
        cp for cp in range(0x80) if identifier_status(chr(cp)) is IdentifierStatus.RESTRICTED
    )
