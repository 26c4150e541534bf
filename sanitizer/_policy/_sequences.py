"""The sequence rules of ``allow_sequences``, stated once, and the three forms made from them.

A policy with ``allow_sequences`` does not count a JOINER, VARIATION_SELECTOR or TAG that
is part of a well-formed emoji ZWJ sequence, variation sequence or emoji tag sequence
(UTS #51 ED-14a, ED-16; UTS #37).  The rules are the records ``NEIGHBOUR_RULES`` and
``TAG_SEQUENCE`` below; the engine needs them in three forms, all derived here:

- ``in_sequence``: the check in Python, per candidate character;
- ``lookarounds``: the same neighbour rules as ``re`` lookarounds, so BMP candidates
  inside sequences never leave the regex scanner's C loop;
- ``c_rule_tables``: the neighbour rules as tables over character classes for the C
  fast path (``_classtable``; tag sequences have no table: the C path leaves every tag
  character to the engine).

The characters a rule names are class-table flags, whose code points are
``_classtable.SEQUENCE_SETS`` (the class table paints the same sets).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from .._categories import Category, Ranges, category_of, char_class, in_ranges
from . import _classtable as ct


def merge_ranges(*parts: Ranges) -> Ranges:
    """The union of some range tuples, sorted and coalesced."""
    out: list[list[int]] = []
    for lo, hi in sorted(r for part in parts for r in part):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((lo, hi) for lo, hi in out)


def _intersect(a: Ranges, b: Ranges) -> Ranges:
    return tuple(
        (max(lo, lo2), min(hi, hi2))
        for lo, hi in a
        for lo2, hi2 in b
        if max(lo, lo2) <= min(hi, hi2)
    )


def _without(a: Ranges, b: Ranges) -> Ranges:
    """The code points of ``a`` not in ``b``."""
    out: list[tuple[int, int]] = []
    for lo, hi in a:
        for lo2, hi2 in b:
            if hi2 < lo or lo2 > hi:
                continue
            if lo2 > lo:
                out.append((lo, lo2 - 1))
            lo = hi2 + 1
            if lo > hi:
                break
        if lo <= hi:
            out.append((lo, hi))
    return tuple(out)


def _flagged(flags: tuple[str, ...]) -> Ranges:
    return merge_ranges(*(ct.SEQUENCE_SETS[f] for f in flags))


@dataclass(frozen=True, slots=True)
class NeighbourRule:
    """A character of ``category`` with class-table flag ``flag`` is inside a sequence
    when the character before it has one of the flags ``before`` and the character after
    it one of ``after`` (None: anything, even nothing).  A character of ``category``
    itself never earns the exemption (a run of selectors is not a sequence,
    so at most one selector follows a base), whatever its flags."""

    category: Category
    flag: str
    before: tuple[str, ...]
    after: tuple[str, ...] | None

    @property
    def characters(self) -> Ranges:
        """The code points this rule is for (the flag's set, within the category)."""
        return _intersect(ct.SEQUENCE_SETS[self.flag], self.category.ranges)

    @property
    def before_ranges(self) -> Ranges:
        return _without(_flagged(self.before), self.category.ranges)

    @property
    def after_ranges(self) -> Ranges | None:
        return None if self.after is None else _without(_flagged(self.after), self.category.ranges)

    def earns(self, category: Category | None, flags: frozenset[str], before: bool) -> bool:
        """Whether a character class (category, flags) may stand before (``before``) or
        after a character of this rule: the class-table form of the two range sets."""
        wanted = self.before if before else self.after
        if wanted is None:
            return True
        return category is not self.category and bool(flags.intersection(wanted))


NEIGHBOUR_RULES: tuple[NeighbourRule, ...] = (
    # UTS #51 ED-16: an emoji ZWJ sequence joins emoji, each maybe ending in VS16 or a
    # tag sequence's CANCEL TAG.  (ZWNJ has no rule: it is never exempt.)
    NeighbourRule(Category.JOINER, ct.ZWJ, (ct.EMOJI, ct.VS16, ct.TAG_END), (ct.EMOJI,)),
    # Standardized variation sequences and emoji presentation: FE00..FE0F after a
    # graphic character.
    NeighbourRule(Category.VARIATION_SELECTOR, ct.VS_STANDARD, (ct.GRAPHIC,), None),
    # Ideographic variation sequences (UTS #37): E0100..E01EF after an ideograph.
    NeighbourRule(Category.VARIATION_SELECTOR, ct.VS_IDEOGRAPHIC, (ct.IDEOGRAPHIC,), None),
    # Mongolian free variation selectors after a Mongolian letter.
    NeighbourRule(Category.VARIATION_SELECTOR, ct.VS_MONGOLIAN, (ct.MONGOLIAN,), None),
)


@dataclass(frozen=True, slots=True)
class TagSequence:
    """UTS #51 ED-14a: an emoji tag sequence is ``base``, then a tag_spec of ``length``
    tag characters in ``spec`` (subdivision codes: digits, lowercase letters), then the
    tag ``end``.  Every character of the run (``block``) is exempt when it is one."""

    base: int
    spec: Ranges
    length: tuple[int, int]  # subdivision codes are short; bounds what a "flag" can carry
    end: int
    block: tuple[int, int]  # the tag characters: a run is a maximal stretch of these


TAG_SEQUENCE = TagSequence(
    base=0x1F3F4,  # WAVING BLACK FLAG: the tag_base of subdivision flags
    spec=((0xE0030, 0xE0039), (0xE0061, 0xE007A)),
    length=(2, 7),
    end=ct.SEQUENCE_SETS[ct.TAG_END][0][0],  # CANCEL TAG
    block=(0xE0000, 0xE007F),
)

# Categories with a sequence exemption: the engine asks ``in_sequence`` for these only.
EXEMPTIBLE = frozenset({Category.TAG, *(rule.category for rule in NEIGHBOUR_RULES)})


@functools.cache
def _checks() -> tuple[tuple[Category, Ranges, Ranges, Ranges | None], ...]:
    """The Python form: (category, characters, before, after) per neighbour rule.  Built
    on first use: merging the emoji and graphic ranges is ~5M instructions of start-up,
    and with the C scanner most runs never ask."""
    return tuple(
        (rule.category, rule.characters, rule.before_ranges, rule.after_ranges)
        for rule in NEIGHBOUR_RULES
    )


class SequenceCache:
    """What ``in_sequence`` remembers about one text: the last tag run judged, so that a
    run is walked once however many of its characters are asked about (a
    walk per tag character made 64 KB of tags take seconds).  Ask in increasing order."""

    __slots__ = ("end", "ok", "start")

    def __init__(self) -> None:
        self.start = self.end = -1
        self.ok = False


def in_sequence(text: str, i: int, category: Category, cache: SequenceCache) -> bool:
    """Whether ``text[i]``, of ``category`` (one of EXEMPTIBLE), is inside a well-formed
    sequence of ``text`` as given; ``cache`` is one per ``text``.  The engine also makes
    sure that what earned the exemption stays in the output (``earned_by_previous``)."""
    if category is Category.TAG:
        return _tag_run_ok(text, i, cache)
    cp = ord(text[i])
    for cat, characters, before, after in _checks():
        if cat is category and in_ranges(cp, characters):
            if i == 0 or not in_ranges(ord(text[i - 1]), before):
                return False
            if after is None:
                return True
            return i + 1 < len(text) and in_ranges(ord(text[i + 1]), after)
    return False


def _tag_run_ok(text: str, i: int, cache: SequenceCache) -> bool:
    """Whether the run of tag characters around ``text[i]`` is an emoji tag sequence."""
    if cache.start <= i < cache.end:
        return cache.ok
    tag = TAG_SEQUENCE
    lo, hi = tag.block
    j = i
    while j > 0 and lo <= ord(text[j - 1]) <= hi:
        j -= 1
    k = i + 1
    while k < len(text) and lo <= ord(text[k]) <= hi:
        k += 1
    ok = (
        j > 0
        and ord(text[j - 1]) == tag.base
        and ord(text[k - 1]) == tag.end
        and tag.length[0] <= k - 1 - j <= tag.length[1]
        and all(in_ranges(ord(c), tag.spec) for c in text[j : k - 1])
    )
    cache.start, cache.end, cache.ok = j, k, ok
    return ok


def earned_by_previous(text: str, k: int, cache: SequenceCache) -> range:
    """The characters from ``text[k]`` on whose exemption ``text[k - 1]`` earns: the
    character at ``k`` when a neighbour rule exempts it (its ``before`` is always the
    character just before it), or the whole tag run after a tag base.  When
    ``text[k - 1]`` is not output (stripped or replaced), they are stray.

    Only ``before`` neighbours can be removed: no rule's ``after`` set (emoji) meets a
    category or a combining mark (tests/policy/test_policy_invariants.py checks the data)."""
    cp = ord(text[k])
    category = category_of(cp)
    if category is Category.TAG:
        if ord(text[k - 1]) == TAG_SEQUENCE.base and _tag_run_ok(text, k, cache):
            return range(k, cache.end)
    elif category in EXEMPTIBLE and category is not None and in_sequence(text, k, category, cache):
        return range(k, k + 1)
    return range(k, k)


def _emoji_first(ranges: Ranges) -> str:
    """A class body with the emoji blocks' ranges first: ``re`` tests supplementary ranges
    in order, and emoji are the supplementary characters text is most likely to hold."""
    first = [r for r in ranges if 0x1F000 <= r[0] <= 0x1FBFF]
    return char_class(first + [r for r in ranges if r not in first])


def lookarounds() -> str:
    """Lookarounds to append to a one-character pattern: they drop a BMP candidate that
    a neighbour rule exempts (evaluated by ``re`` at candidate positions only).  Rules
    for supplementary characters are left to ``in_sequence``."""
    out = []
    for rule in NEIGHBOUR_RULES:
        bmp = tuple((lo, min(hi, 0xFFFF)) for lo, hi in rule.characters if lo <= 0xFFFF)
        if not bmp:
            continue
        chars = f"[{char_class(bmp)}]"
        after = rule.after_ranges
        ahead = "" if after is None else f"(?=[{_emoji_first(after)}])"
        out.append(f"(?<!{chars}(?<=[{_emoji_first(rule.before_ranges)}]{chars}){ahead})")
    return "".join(out)


def c_rule_id(category: Category | None, flags: frozenset[str]) -> int:
    """The rule-table number (1-based) of a character class, 0 if no rule applies."""
    for number, rule in enumerate(NEIGHBOUR_RULES, 1):
        if category is rule.category and rule.flag in flags:
            return number
    return 0


def c_rule_tables(info: tuple[tuple[Category | None, frozenset[str]], ...]) -> bytes:
    """Per neighbour rule, prev_ok[257] and next_ok[257] over the character classes
    ``info`` (entry 256: no previous / next character; layout in _classtable)."""
    out = bytearray()
    for rule in NEIGHBOUR_RULES:
        prev_ok = bytes(rule.earns(cat, fl, before=True) for cat, fl in info)
        out += prev_ok.ljust(256, b"\0") + b"\0"
        if rule.after is None:
            out += b"\1" * 257
        else:
            next_ok = bytes(rule.earns(cat, fl, before=False) for cat, fl in info)
            out += next_ok.ljust(256, b"\0") + b"\0"
    assert len(out) == len(NEIGHBOUR_RULES) * ct.RULE_SIZE
    return bytes(out)
