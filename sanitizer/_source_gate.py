"""The source-code gate: what UTS #55 (Unicode Source Code Handling) says code must not hide.

A policy judges characters one by one; source code also needs judgements about where a
character is and what else is in the file.  ``check_source(text)`` applies a policy
(default ``profiles.SOURCE``) and then the gate's own rules: bidi controls judged by
their pairing within a line (``bidi-control``, gcc's ``-Wbidi-chars=unpaired``), joiners
by UAX #31 §2.3 (``joiner``), zero-width characters by the script around them
(``invisible``), NEL, LS and PS (``line-break``), a variation selector after an ASCII
character (``variation-selector``), and the identifiers that are not ASCII
(``mixed-script``, ``confusable``, ``syntax-lookalike``).  A finding's ``kind`` is its
rule's id.  What each rule finds, why, and how it judges code and text that is not code
(``code=False``: prose, catalogues, data) is written once, in the rule registry
(``sanitizer._rule_registry``, shown as docs/rules.md).

Identifiers are runs of letters, digits, marks and ``_`` starting with a letter (an
approximation of XID_Start XID_Continue* that needs no tokenizer, so words in comments
and strings count too).  Each distinct identifier is judged once and a mixed-script or
syntax-lookalike one reported at every occurrence, as is a confusable, with the other
spelling and its first position (``SourceFinding.other``).

A leading U+FEFF is a signature, never a finding.  Sans-IO: ``check_source`` takes a str
and returns code-point offsets; the CLI (``sanitizer check --policy SOURCE``) reads
files, decodes them strictly and maps offsets to lines and columns.  Cost is linear in
the text for the character rules; identifiers cost one skeleton per distinct identifier,
and only in text that is not ASCII.  Memory: one dict entry per distinct identifier.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import unicodedata2

from . import profiles
from ._categories import MARKS, Category, char_class
from ._charnames import describe
from ._identity_cache import IdentityCache
from ._native import speedups
from ._policy import Action, Finding, Policy, Report, inspect, unlisted_refused
from ._policy.compiled import CUT_SEQUENCE, character_groups, cut_inside

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from ._lookalike import RestrictionLevel

__all__ = ["SourceFinding", "SourceReport", "check_source", "check_source_pieces"]

_BIDI_OPENERS = {
    "\u202a": "E",  # LRE
    "\u202b": "E",  # RLE
    "\u202d": "E",  # LRO
    "\u202e": "E",  # RLO
    "\u2066": "I",  # LRI
    "\u2067": "I",  # RLI
    "\u2068": "I",  # FSI
}
_PDF, _PDI = "\u202c", "\u2069"
# Where a string or comment starts or ends in the common languages: a pair straddling
# one of these reorders code around a literal or comment (the Trojan Source attacks).
_DELIMITER = re.compile(r"[\"'`#]|//|/\*|\*/")
_RARE = re.compile("[\x85\u2028\u2029\ufe00-\ufe0f]")  # NEL, LS, PS; VS1..VS16
_ZWNJ = "\u200c"
# Scripts whose letters join (ArabicShaping.txt Joining_Type D/L/R), where UAX #31 §2.3
# A1 allows ZWNJ between letters.
_JOINING_SCRIPTS = frozenset(
    {"Arab", "Syrc", "Mand", "Mong", "Nkoo", "Phag", "Adlm", "Rohg", "Sogd", "Chrs", "Mani",
     "Phlp", "Yezi", "Hmnp"}
)  # fmt: skip
_VIRAMA = 9  # canonical combining class of a virama (UAX #31 §2.3 A2, B)
# ASCII punctuation that changes what code means (quotes left out: IPA and apostrophe
# letters such as U+02C8 and U+02BC look like them in ordinary words).
_SYNTAX = frozenset("!#$%&()*+,-./:;<=>?@[]^{|}~")
_NOT_MODERATE = frozenset({"Cyrl", "Grek"})  # UTS #39 §5.2 step 4
_HIGHLY = frozenset({"Jpan", "Kore", "Hanb"})  # UTS #39 §5.2 step 3 (augmented, §5.1)


@dataclass(frozen=True)
class SourceFinding:
    """One finding of the source gate.  ``kind`` is the rule id (a policy category such as
    ``invisible``, or ``mixed-script``, ``confusable``, ``syntax-lookalike``: each is a
    rule of ``sanitizer._rule_registry``);
    ``start``/``end`` are code-point indices; ``codepoint`` the character, for a
    one-character finding; ``identifier`` the identifier, for the identifier rules;
    ``other`` for ``confusable``: the other spelling's (start, end, spelling)."""

    kind: str
    start: int
    end: int
    action: Action
    reason: str
    codepoint: int | None = None
    identifier: str | None = None
    other: tuple[int, int, str] | None = None

    @property
    def refused(self) -> bool:
        return self.action is not Action.ALLOW and self.action is not Action.IGNORE

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "category": self.kind,
            "start": self.start,
            "end": self.end,
            "action": self.action.value,
            "reason": self.reason,
        }
        if self.codepoint is not None:
            out["code_point"] = f"U+{self.codepoint:04X}"
        if self.identifier is not None:
            out["identifier"] = self.identifier
        if self.other is not None:
            out["other"] = {"start": self.other[0], "end": self.other[1], "spelling": self.other[2]}
        return out


@dataclass(frozen=True)
class SourceReport:
    """``findings`` in order of position (at most ``Policy.max_findings``);
    ``more_findings`` counts the rest, ``more_allowed`` those of them that are allowed;
    ``ok`` is False when anything is refused, listed or not.  A frozen value;
    ``policy`` is shown and pickled but not compared."""

    ok: bool
    findings: tuple[SourceFinding, ...] = ()
    more_findings: int = 0
    policy: Policy = field(default=profiles.SOURCE, compare=False)
    more_allowed: int = 0


# policy -> what _derived gives: looked up once a file, by identity (an lru_cache would
# hash and compare the policy in Python each time); policies are few (profiles,
# --max-restriction-level).
_DERIVED: IdentityCache[tuple[Policy, Policy, SourceReport, frozenset[Category]]] = IdentityCache(8)
# Categories this module judges by context when the policy refuses them: bidi controls
# by their pairing, joiners by UAX #31 §2.3, ZERO WIDTH SPACE by the script around it.
_BY_CONTEXT = (Category.BIDI_CONTROL, Category.JOINER, Category.INVISIBLE)
_MAX_DEPTH = 125  # UAX #9 BD2: max_depth, the deepest nesting of embeddings and isolates
_MAX_IDENTIFIERS = 100_000  # distinct non-ASCII identifiers compared a text (memory)
_SHOWN = 40  # characters of an identifier a reason shows (reasons stay short)


def _derived(policy: Policy) -> tuple[Policy, Policy, SourceReport, frozenset[Category]]:
    """``(characters, counting, clean, judged)``: ``characters`` is ``policy`` with the
    categories it refuses that this module judges by context (``judged``: bidi controls,
    joiners, invisibles) ignored, since they are found and judged here; ``counting`` the
    same listing nothing (for a piece whose findings come after the listed ones);
    ``clean`` the report of a text with nothing to report, one frozen value a policy."""
    got = _DERIVED.lookup(id(policy))
    if got is not None:
        return got
    judged = frozenset(c for c in _BY_CONTEXT if policy.action(c) is Action.REJECT)
    changes: dict[Category | str, Action | str] = dict.fromkeys(judged, Action.IGNORE)
    characters = policy.with_actions(changes) if changes else policy
    counting = characters.replace(max_findings=0)
    clean = SourceReport(True, (), 0, policy)
    return _DERIVED.store(policy, (characters, counting, clean, judged))


@functools.lru_cache(maxsize=8)
def _policy_or_default(policy: object, where: str) -> Policy:
    if policy is None:
        return profiles.SOURCE
    if not isinstance(policy, Policy):
        raise TypeError(
            f"{where}() argument 'policy' must be a sanitizer.Policy or None, "
            f"not {type(policy).__name__}"
        )
    return policy


def check_source(text: str, policy: Policy | None = None, *, code: bool = True) -> SourceReport:
    """Check source code ``text`` against ``policy`` (default ``profiles.SOURCE``) and the
    rules of this module; offsets are code-point indices into ``text``.  ``code=False``
    leaves out the identifier rules, for text that is not code (prose, translation
    catalogues, data): its words are not identifiers."""
    if not isinstance(text, str):
        raise TypeError(f"check_source() argument 'text' must be str, not {type(text).__name__}")
    return _Check(_policy_or_default(policy, "check_source"), code).run(lambda: (text,))


def check_source_pieces(
    pieces: Callable[[], Iterable[str]], policy: Policy | None = None, *, code: bool = True
) -> SourceReport:
    """``check_source`` on the text that the pieces ``pieces()`` yields make, in memory
    that does not grow with the text (a piece, the findings listed, and one entry per
    distinct non-ASCII identifier, at most ``_MAX_IDENTIFIERS``).  Each piece but the
    last must end where ``sanitizer._policy.compiled.piece_end`` cuts (after a line
    feed, or where no rule looks across); ``pieces`` is called once, and a second time
    (for the same pieces) only when ASCII identifiers must be compared with a non-ASCII
    one, or when a lone CR comes before the first line feed of a later piece.  A cut
    inside a sequence (``cut_inside``: only a forced cut, in a line with no other place)
    is a refused ``too-long`` finding at the cut.  Offsets are code-point indices into
    the whole text."""
    if not callable(pieces):
        raise TypeError(
            "check_source_pieces() argument 'pieces' must be a callable returning an "
            f"iterable of str, not {type(pieces).__name__}"
        )
    return _Check(_policy_or_default(policy, "check_source_pieces"), code).run(pieces)


class _Found:
    """The findings of a text under a cap (``Policy.max_findings``, None: all): the first
    ``cap`` are kept, refused ones before allowed ones and each by (start, end, rule
    order), so an allowed finding never crowds out a refused one; every one is counted,
    and so is every one that is allowed.  Findings come mostly in order, so once trimmed
    most are refused by one comparison before they are built."""

    __slots__ = ("allowed", "bar", "cap", "count", "items")

    def __init__(self, cap: int | None) -> None:
        self.cap = cap
        self.items: list[tuple[tuple[int, int, int, int], SourceFinding]] = []
        self.count = self.allowed = 0
        self.bar: tuple[int, int, int, int] | None = None if cap != 0 else (-1, -1, -1, -1)

    def wants(self, key: tuple[int, int, int, int], allowed: bool) -> bool:
        """``key``: (allowed, start, end, order)."""
        self.count += 1
        self.allowed += allowed
        return self.bar is None or key < self.bar

    def keep(self, key: tuple[int, int, int, int], finding: SourceFinding) -> None:
        self.items.append((key, finding))
        if self.cap is not None and len(self.items) > 2 * self.cap:
            self.final()

    def unlisted(self, count: int, allowed: int) -> None:
        self.count += count
        self.allowed += allowed

    def full_before(self, position: int) -> bool:
        """Whether nothing at or after ``position`` can be listed any more."""
        return self.bar is not None and self.bar[0] <= 0 and self.bar[1] < position

    def final(self) -> list[SourceFinding]:
        self.items.sort(key=lambda item: item[0])
        if self.cap is not None and len(self.items) >= self.cap > 0:
            del self.items[self.cap :]
            self.bar = self.items[-1][0]
        return [finding for _, finding in sorted(self.items, key=lambda item: item[0][1:])]


class _Check:
    """One application of the gate to one text, given in pieces (``check_source_pieces``).
    Character findings come from ``inspect`` on each piece, the categories judged by
    context from their own scans (``character_groups``: every one judged, listed or not),
    identifiers from ``_Identifiers``; ``_Found`` keeps what is listed."""

    def __init__(self, policy: Policy, code: bool) -> None:
        self.policy = policy
        self.characters, self.counting, self.clean, self.judged = _derived(policy)
        self.found = _Found(policy.max_findings)
        self.ok = True
        self.bidi = _BidiJudge() if Category.BIDI_CONTROL in self.judged else None
        self.idents = _Identifiers(_max_level(policy)) if code else None
        self.line_busy = False  # the line the next piece goes on with holds something
        self.lf_seen = False  # a piece read so far holds a line feed
        self.cr_before_lf = False  # a lone CR is in a piece before the first line feed

    def add(
        self,
        order: int,
        start: int,
        end: int,
        action: Action,
        kind: str,
        reason: str | tuple[int, str | None],
        codepoint: int | None = None,
        identifier: str | None = None,
        other: tuple[int, int, str] | None = None,
    ) -> None:
        """A finding (``order``: 0 characters, 1 separators and selectors, 2 identifiers,
        3 confusables, for findings at the same place); built only if it is listed, its
        ``reason`` too when it is ``(code point, why)``."""
        allowed = action is Action.ALLOW
        if not allowed and action is not Action.IGNORE:
            self.ok = False
        key = (int(allowed), start, end, order)
        found = self.found  # (``_Found.wants``, inlined: a call a finding of a flood)
        found.count += 1
        found.allowed += allowed
        if found.bar is None or key < found.bar:
            why = reason if isinstance(reason, str) else _because(*reason)
            self.found.keep(
                key, SourceFinding(kind, start, end, action, why, codepoint, identifier, other)
            )

    def run(self, pieces: Callable[[], Iterable[str]]) -> SourceReport:
        at = 0
        last = ""  # the last character of the piece before
        for k, piece in enumerate(pieces()):
            if type(piece) is not str:
                raise TypeError(f"a piece of source must be str, not {type(piece).__name__}")
            if not piece:
                continue
            if last and cut_inside(ord(last), ord(piece[0])):
                # Only a forced cut (``piece_end``: a long line with no other place to cut)
                # falls inside a sequence (a joiner's context, a run of marks or carriers,
                # an emoji sequence): its rules would judge it in parts; refused.
                self.add(2, at, at, Action.REJECT, "too-long", CUT_SEQUENCE)
            elif self.idents is not None and _in_word(last) and _in_word(piece[0]):
                # Or inside a word: its identifier is judged in parts; say so.
                why = "a word longer than a piece of the text is cut here: judged in parts"
                self.add(2, at, at, Action.REJECT, "too-long", why)
            shift = 1 if k == 0 and piece.startswith("\ufeff") else 0  # a signature
            self.piece(piece[shift:] if shift else piece, at + shift)
            at += len(piece)
            last = piece[-1]
        if self.bidi is not None:
            self.bidi_verdicts(self.bidi.end())
        if self.cr_before_lf and self.lf_seen:
            self.lone_crs(pieces)
        if self.idents is not None:
            self.idents.compare(pieces, self)
        return self.report()

    def piece(self, body: str, at: int) -> None:
        """The findings of one piece, ``body``, whose first character is at ``at``."""
        plain = body.isascii()  # O(1): CPython knows whether a str is ASCII
        lines: list[int] = []
        rare: list[int] = []
        if not plain:
            lines, rare = _source_lines(body)
            body, rare = _without_tables(body, lines, rare)
        if self.idents is not None:
            self.ascii_breaks(body, at)
        policy = self.counting if self.found.full_before(at) else self.characters
        report = inspect(body, policy)
        self.ok = self.ok and report.ok
        extra = self.unlisted_refused(body, report, policy)
        for f in (*report.findings, *extra):
            why = f.reason()
            self.add(0, at + f.start, at + f.end, f.action, f.category.value, why, f.codepoint)
        self.found.unlisted(report.more_findings - len(extra), report.more_allowed)
        if self.bidi is not None and (not plain or self.bidi.pending):
            self.bidi_feed(self.bidi, body, at)
        if plain:
            return
        zero_width = self.judged & _ZERO_WIDTH
        if zero_width:
            code = self.idents is not None
            for g in character_groups(body, self.policy, zero_width):
                start, end, cp = g.start, g.end, g.codepoint
                if cp is None and not code and _one_character(body, start, end):
                    cp = ord(body[start])  # in text, one character repeated carries no bits
                if cp is None:  # a run is one finding (``_carrier_runs``): no context helps
                    why = f"{g.detail}: in a row, invisible"
                    self.add(0, at + start, at + end, Action.REJECT, g.category.value, why)
                elif g.category is Category.JOINER:
                    if code:
                        action, because = _joiner_verdict(body, start)
                    else:
                        action, because = _text_joiner_verdict(body, start, end)
                    self.add(0, at + start, at + end, action, "joiner", (cp, because), cp)
                elif body[start] == _ZWSP and _separates_words(body, start, end):
                    pass  # ordinary writing (UAX #14 class SA)
                elif not code and cp in _TEXT_BREAKS:
                    why = _TEXT_BREAKS[cp]
                    self.add(0, at + start, at + end, Action.ALLOW, "invisible", (cp, why), cp)
                else:
                    self.add(0, at + start, at + end, g.action, "invisible", (cp, None), cp)
        for kind, i, why in _separators_and_selectors(body, rare):
            cp = ord(body[i])
            self.add(1, at + i, at + i + 1, Action.REJECT, kind, why, cp)
        if self.idents is not None:
            for i, why in _syntax_twins(body, lines):
                self.add(
                    1, at + i, at + i + 1, Action.REJECT, "syntax-lookalike", why, ord(body[i])
                )
            self.idents.feed(body, at, lines, self)

    def ascii_breaks(self, body: str, at: int) -> None:
        """``_ascii_breaks`` in a piece, told what the pieces before hold: something on
        the line the piece goes on with, a line feed (a lone CR in a piece before the
        first one is found when it is: ``lone_crs``)."""
        busy, has_lf = self.line_busy, "\n" in body
        self.line_busy = _line_busy(body, busy)
        if "\r" in body or "\x0b" in body or "\x0c" in body:
            mixed = self.lf_seen or has_lf
            for i, why in _ascii_breaks(body, busy, mixed):
                self.add(1, at + i, at + i + 1, Action.REJECT, "line-break", why, ord(body[i]))
            if not mixed and _LONE_CR.search(body):
                self.cr_before_lf = True
        self.lf_seen = self.lf_seen or has_lf

    def lone_crs(self, pieces: Callable[[], Iterable[str]]) -> None:
        """The lone CRs of the pieces before the first line feed, which a later piece
        holds: the pieces read again (as the first time) up to it."""
        for at, body, _ in _read_again(pieces):
            if "\n" in body:
                return
            for m in _LONE_CR.finditer(body):
                i = at + m.start()
                self.add(1, i, i + 1, Action.REJECT, "line-break", _LONE_CR_WHY, 0x0D)

    def idents_first(self, ident: str) -> int:
        """The index of the first use of the non-ASCII identifier ``ident``."""
        return -1 if self.idents is None else self.idents.first.get(ident, -1)

    def unlisted_refused(self, body: str, report: Report, policy: Policy) -> list[Finding]:
        """The refused findings ``report`` counted without listing them (its cap was
        reached by allowed ones): ``body`` judged again, listing refused ones alone."""
        if policy is self.counting:
            return []
        return unlisted_refused(body, report, policy, policy.max_findings, failing=False)

    def bidi_feed(self, judge: _BidiJudge, body: str, at: int) -> None:
        """The bidi verdicts of a piece: those that may be listed given one by one (the
        cap's bar moves as they are kept), the rest counted in bulk."""
        found, start = self.found, 0
        while start >= 0:
            # (no cap: no bound, -1; else what ``_Found.keep`` holds before it trims)
            room = -1 if found.cap is None else max(2 * found.cap - len(found.items), 0)
            verdicts, start, counted, allowed, refused = judge.feed(
                body, at, start, found.bar, room
            )
            self.bidi_verdicts(verdicts)
            if counted:  # past what can be listed: counted, never built
                found.unlisted(counted, allowed)
            if refused:
                self.ok = False

    def bidi_verdicts(self, verdicts: Iterable[Verdict]) -> None:
        """``add`` for each verdict, inlined: a flood of bidi controls is a finding a
        character."""
        found, paired = self.found, _PAIRED
        for index, cp, code, crossing in verdicts:
            allowed = code == paired
            if not allowed:
                self.ok = False
            key = (int(allowed), index, index + 1, 0)
            if found.wants(key, allowed):
                action, why = bidi_reason(code, crossing)
                finding = SourceFinding(
                    "bidi-control", index, index + 1, action, _because(cp, why), cp
                )
                found.keep(key, finding)

    def report(self) -> SourceReport:
        listed = self.found.final()
        if not listed and self.ok and not self.found.count:
            return self.clean
        more = self.found.count - len(listed)
        more_allowed = self.found.allowed - sum(f.action is Action.ALLOW for f in listed)
        return SourceReport(self.ok, tuple(listed), more, self.policy, more_allowed)


def _in_word(ch: str) -> bool:
    """Whether ``ch`` may be inside an identifier (``_identifier_pattern``)."""
    return bool(ch) and (ch.isalnum() or ch == "_" or unicodedata2.category(ch)[0] == "M")


_ZERO_WIDTH = frozenset({Category.JOINER, Category.INVISIBLE})


def _because(cp: int, why: str | None = None) -> str:
    """A finding's reason: the character, and why."""
    return describe(cp) if why is None else f"{describe(cp)}: {why}"


# -- bidi pairing (gcc -Wbidi-chars=unpaired; UAX #9 BD7, X5a-X6a) -------------------------

_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]+")  # a run of bidi controls
_OPENERS = re.compile("[\u202a\u202b\u202d\u202e\u2066-\u2068]+")
_CLOSERS = re.compile("[\u202c\u2069]+")
_EOL = re.compile("[\n\x0b\x0c\r\x85\u2028\u2029]")


# A verdict's code (``_BidiJudge.feed``): what it says and why.  The C twin
# (``_native_src/source.c``, ``bidi_feed``) gives the same codes.
_PAIRED, _TOO_DEEP, _CLOSES_TOO_DEEP, _NOT_CLOSED_BY_PDF, _CLOSES_NOTHING = range(5)
_CROSSES, _UNCLOSED_E, _UNCLOSED_I = 5, 6, 7
_WHY: dict[int, tuple[Action, str]] = {
    _PAIRED: (Action.ALLOW, "paired within its line"),
    _TOO_DEEP: (Action.REJECT, "nested deeper than UAX #9 allows (max_depth 125)"),
    _CLOSES_TOO_DEEP: (Action.REJECT, "closes an opener nested too deep (UAX #9 max_depth)"),
    _NOT_CLOSED_BY_PDF: (Action.REJECT, "not closed by PDF before PDI"),
    _CLOSES_NOTHING: (Action.REJECT, "closes nothing on its line"),
    _UNCLOSED_E: (Action.REJECT, "not closed by PDF on its line (Trojan Source, CVE-2021-42574)"),
    _UNCLOSED_I: (Action.REJECT, "not closed by PDI on its line (Trojan Source, CVE-2021-42574)"),
}
# (index, code point, code, the delimiter a pair crosses or None)
Verdict = tuple[int, int, int, "str | None"]
# What ``feed`` gives back: the verdicts wanted, where to go on (-1: done), and how many
# were counted without being given: all of them, those allowed, those refused.
Fed = tuple[list[Verdict], int, int, int, int]


def bidi_reason(code: int, crossing: str | None) -> tuple[Action, str]:
    """A verdict code's action and why."""
    if code == _CROSSES:
        why = f"its pair crosses {crossing!r}, a string or comment delimiter (Trojan Source)"
        return Action.REJECT, why
    return _WHY[code]


def _wanted(bar: tuple[int, int, int, int] | None, allowed: bool, index: int) -> bool:
    """Whether a verdict at ``index`` may still be listed under ``bar`` (``_Found.bar``)."""
    return bar is None or (int(allowed), index, index + 1, 0) < bar


class _BidiJudge:
    """Pairs the bidi controls of a text line by line, read piece by piece: each control
    gets its verdict once its pair or the end of its line is read, in memory bounded by
    UAX #9's max_depth: an opener nested deeper is refused at once, and so is the closer
    that would close it.  Only the text between two controls is searched (for a line
    end, then for a delimiter that the open pairs then straddle), and only while one is
    open.

    ``feed`` gives the verdicts that ``_Found`` may still list (under its ``bar``), at
    most about ``room`` a call, and only counts the others: a flood of controls past the
    cap costs no object a control.  With the C extension ``feed`` is ``bidi_feed``
    (``_native_src/source.c``), a pass with no Python work a control; ``_feed_py`` is its
    pure-Python twin, and the tests hold the two equal."""

    __slots__ = ("crossed", "isolates", "overflow", "stack")

    def __init__(self) -> None:
        # [kind ("E": embedding or override, "I": isolate), index, code point, the first
        # delimiter read since it opened or None]
        self.stack: list[list[object]] = []
        self.isolates = 0  # isolates on the stack
        self.crossed = 0  # stack[:crossed] have their delimiter
        self.overflow = 0  # openers past max_depth on this line, not stacked

    @property
    def pending(self) -> bool:
        return bool(self.stack or self.overflow)

    def feed(
        self,
        text: str,
        at: int,
        start: int = 0,
        bar: tuple[int, int, int, int] | None = None,
        room: int = -1,
    ) -> Fed:
        """The verdicts of the controls in ``text`` (which starts at index ``at``) from
        ``text[start]`` on: those ``bar`` wants, in order, until more than ``room`` are
        given (-1: no bound; then the index to go on from, at a control), and the counts
        of those it does not want."""
        if speedups is not None:
            fed: Fed = speedups.bidi_feed(self, text, at, start, bar, room)
            return fed
        return self._feed_py(text, at, start, bar, room)

    def _feed_py(
        self, text: str, at: int, start: int, bar: tuple[int, int, int, int] | None, room: int
    ) -> Fed:
        out: list[Verdict] = []
        counts = [0, 0, 0]  # counted, allowed, refused

        def give(verdicts: Iterable[Verdict]) -> None:
            for v in verdicts:
                allowed = v[2] == _PAIRED
                if _wanted(bar, allowed, v[0]):
                    out.append(v)
                else:
                    counts[0] += 1
                    counts[1 if allowed else 2] += 1

        # nothing at or after ``index`` can be listed any more (``_Found.full_before``)
        full = bar is not None and bar[0] <= 0
        pos = start  # text[pos:] is not read yet
        for m in _BIDI.finditer(text, start):
            i, j = m.span()
            if (self.stack or self.overflow) and i > pos:
                give(self._between(text, pos, i))
            pos = j
            k = i
            while k < j:
                if room >= 0 and len(out) > room:
                    return out, k, *counts  # type: ignore[return-value]
                if self.overflow and full and bar is not None and bar[1] < at + k:
                    run = _OPENERS.match(text, k, j)
                    n = 0 if run is None else run.end() - k  # nested too deep, as the first
                    if n == 0:
                        run = _CLOSERS.match(text, k, j)  # each closes one nested too deep
                        n = 0 if run is None else min(run.end() - k, self.overflow)
                        self.overflow -= n
                    else:
                        self.overflow += n
                    if n:
                        counts[0] += n
                        counts[2] += n
                        k += n
                        continue
                give(self._control(text[k], at + k))
                k += 1
        if self.stack or self.overflow:
            give(self._between(text, pos, len(text)))
        return out, -1, *counts  # type: ignore[return-value]

    def end(self) -> list[Verdict]:
        """The end of the text ends the last line: the verdicts of what is still open."""
        return list(self._unclosed())

    def _between(self, text: str, lo: int, hi: int) -> Iterator[Verdict]:
        if _EOL.search(text, lo, hi) is not None:
            yield from self._unclosed()
            return
        if self.crossed < len(self.stack):
            crossing = _DELIMITER.search(text, lo, hi)
            if crossing is not None:
                for entry in self.stack[self.crossed :]:
                    entry[3] = crossing.group()
                self.crossed = len(self.stack)

    def _control(self, ch: str, index: int) -> Iterator[Verdict]:
        cp = ord(ch)
        kind = _BIDI_OPENERS.get(ch)
        if kind is not None:
            if len(self.stack) >= _MAX_DEPTH:
                self.overflow += 1
                yield index, cp, _TOO_DEEP, None
                return
            self.stack.append([kind, index, cp, None])
            self.isolates += kind == "I"
        elif self.overflow:
            self.overflow -= 1
            yield index, cp, _CLOSES_TOO_DEEP, None
        elif ch == _PDF and self.stack and self.stack[-1][0] == "E":  # X7: closes E
            yield from self._close(index, cp)
        elif ch == _PDI and self.isolates:  # X6a: closes embeddings inside too
            while self.stack[-1][0] == "E":
                _, inner, inner_cp, _ = self.stack.pop()
                assert isinstance(inner, int) and isinstance(inner_cp, int)
                yield inner, inner_cp, _NOT_CLOSED_BY_PDF, None
            yield from self._close(index, cp)
        else:
            yield index, cp, _CLOSES_NOTHING, None

    def _close(self, index: int, cp: int) -> Iterator[Verdict]:
        kind, opener, opener_cp, crossing = self.stack.pop()
        assert isinstance(opener, int) and isinstance(opener_cp, int)
        assert crossing is None or isinstance(crossing, str)
        self.isolates -= kind == "I"
        self.crossed = min(self.crossed, len(self.stack))
        code = _PAIRED if crossing is None else _CROSSES
        yield opener, opener_cp, code, crossing
        yield index, cp, code, crossing

    def _unclosed(self) -> Iterator[Verdict]:
        for kind, index, cp, _ in self.stack:
            assert isinstance(index, int) and isinstance(cp, int)
            yield index, cp, _UNCLOSED_E if kind == "E" else _UNCLOSED_I, None
        self.stack.clear()
        self.isolates = self.crossed = self.overflow = 0


# -- joiners (UAX #31 §2.3) --------------------------------------------------------------


def _joiner_verdict(text: str, i: int) -> tuple[Action, str]:
    """The verdict on the joiner ``text[i]`` in code, from its context: the character
    before it, the one after, and for ZWNJ the last one before it that is no mark."""
    before = i - 1
    if text[i] == _ZWNJ:
        while before >= 0 and unicodedata2.category(text[before]) in ("Mn", "Me"):
            before -= 1
    return _joiner_in_context(
        text[i - 1] if i else "",
        text[i],
        text[i + 1] if i + 1 < len(text) else "",
        text[before] if before >= 0 else "",
    )


@functools.lru_cache(maxsize=4096)  # a script's few contexts, each judged once
def _joiner_in_context(previous: str, joiner: str, following: str, base: str) -> tuple[Action, str]:
    if previous and unicodedata2.combining(previous) == _VIRAMA:
        return Action.ALLOW, "after a virama (UAX #31 §2.3)"
    if joiner != _ZWNJ and _letter_joiner_virama(previous, following):
        return Action.ALLOW, "between a letter and a virama (Unicode §12.2: ra with ya-phala)"
    if joiner == _ZWNJ and base and unicodedata2.category(base).startswith("L"):
        from ._lookalike import script_extensions

        if script_extensions(base) & _JOINING_SCRIPTS:
            return Action.ALLOW, "between joining letters (UAX #31 §2.3 A1)"
    return Action.REJECT, "outside the contexts where UAX #31 §2.3 allows it: invisible"


def _letter_joiner_virama(letter: str, virama: str) -> bool:
    """A ZWJ between a letter and a virama of one script (Bengali ra + ZWJ + virama +
    ya: the ra keeps its form and the ya becomes a phala, Unicode §12.2; Devanagari's
    eyelash ra, §12.1): the joiner chooses a conjunct's shape, which is what it is for
    in these scripts (UAX #31 §2.3 B allows ZWJ in conjuncts)."""
    if not letter or not virama:
        return False
    if unicodedata2.combining(virama) != _VIRAMA or not unicodedata2.category(letter)[0] == "L":
        return False
    return bool(_scripts_of(letter) & _scripts_of(virama))


def _text_joiner_verdict(text: str, i: int, end: int) -> tuple[Action, str]:
    """A joiner in text that is not code (``text[i:end]``: one, or the same one repeated):
    a shaping control (Unicode §23.2: it joins or separates the cursive forms and
    ligatures of the letters around it), allowed next to any character but ASCII, beside
    which it changes nothing that shows."""
    before = text[i - 1] if i else ""
    after = text[end] if end < len(text) else ""
    if (not before or before.isascii()) and (not after or after.isascii()):
        return Action.REJECT, "between ASCII characters, where it shapes nothing: invisible"
    return Action.ALLOW, "beside the letters it shapes (Unicode §23.2)"


# -- line separators and selectors ----------------------------------------------------------


def _separators_and_selectors(text: str, rare: list[int]) -> Iterator[tuple[str, int, str]]:
    """NEL, LS, PS anywhere, and a variation selector right after an ASCII character
    other than a keycap's (``rare``: where ``_source_lines`` found those characters;
    then a look around each): ``(kind, index, why)``, the reason built lazily."""
    for i in rare:
        ch = text[i]
        if ch in "\x85\u2028\u2029":
            yield (
                "line-break", i,
                f"{describe(ord(ch))}: a line end for some languages and editors, not for "
                "others: code can hide in what looks like a comment (UTS #55)",
            )  # fmt: skip
        elif i and "\x21" <= text[i - 1] <= "\x7e" and text[i + 1 : i + 2] != "\u20e3":
            yield (
                "variation-selector", i,
                f"{describe(ord(ch))} after {text[i - 1]!r}: an invisible difference inside "
                "an identifier",
            )  # fmt: skip


_ASCII_BREAK = re.compile("\r(?!\n)|[\x0b\x0c]")
_LONE_CR = re.compile("\r(?!\n)")
_LONE_CR_WHY = (
    "U+000D CARRIAGE RETURN alone, in a file whose lines end otherwise: "
    "a line end for Python, a return over the same line for a terminal"
)


def _line_busy(text: str, busy: bool) -> bool:
    """Whether the last line of ``text`` holds something before a VT or FF would be met
    (``_ascii_breaks``); ``busy``: whether the line ``text`` goes on with does."""
    line_start = max(text.rfind("\n"), text.rfind("\r")) + 1
    if not line_start and busy:
        return True
    return bool(text[line_start:].strip(" \t\x0b\x0c"))


def _ascii_breaks(
    text: str, busy: bool = False, mixed: bool | None = None
) -> Iterator[tuple[int, str]]:
    """In code: a lone CR in a text whose lines end otherwise (Python and LSP end a line
    there, ``cat`` and some viewers return to the start of the line and draw what
    follows over it, so a comment can hide code or code a comment), and a VT or FF
    after something on its line (some editors draw a line break there, Python does not:
    what looks like a new line is still the comment).  A FF at the start of a line
    (a page break, PEP 8) and a file whose every line ends in CR are ordinary.
    ``busy``: the line ``text`` starts in (a piece's) holds something already;
    ``mixed``: the file holds a line feed (None: ``text`` does)."""
    if mixed is None:
        mixed = "\n" in text
    for m in _ASCII_BREAK.finditer(text):
        i = m.start()
        ch = text[i]
        if ch == "\r":
            if mixed:
                yield i, _LONE_CR_WHY
            continue
        line_start = max(text.rfind("\n", 0, i), text.rfind("\r", 0, i)) + 1
        if (busy and not line_start) or text[line_start:i].strip(" \t\x0b\x0c"):
            yield (
                i,
                f"{describe(ord(ch))} inside a line: a line break for some editors, "
                "not for the language (code can hide in what looks like a comment)",
            )


@functools.lru_cache(maxsize=4096)
def _syntax_twin(ch: str) -> str:
    """The ASCII punctuation that ``ch``, a punctuation mark or symbol that is not
    ASCII, looks like (its UTS #39 §4 skeleton: "∕" is "/"), or ""."""
    if ch.isascii() or unicodedata2.category(ch)[0] not in "PS":
        return ""
    from ._lookalike import skeleton

    looks = skeleton(ch)
    return looks if looks and all(c in _SYNTAX for c in looks) else ""


class _Twins(dict[int, "str | None"]):
    """Code point -> the character if it has a syntax twin (``_syntax_twin``), else None
    (``str.translate`` deletes it): filled as characters are met, so a run is sifted in C
    and only its look-alikes are looked at; emptied past ``_TWINS_MOST`` entries."""

    def __missing__(self, cp: int) -> str | None:
        ch = chr(cp)
        twin = ch if cp >= 0x80 and _syntax_twin(ch) else None  # (ASCII has no twin)
        if len(self) >= _TWINS_MOST:
            self.clear()
        self[cp] = twin
        return twin


_TWINS_MOST = 1 << 14
_TWINS = _Twins()


@functools.cache
def _twin_candidates() -> re.Pattern[str]:
    """A pattern matching every character that may have a syntax twin (``_syntax_twin``:
    a punctuation mark or symbol that is not ASCII), and fewer others than the non-ASCII
    characters: none that is ASCII, a word character (``\\w``: letters and digits), or a
    mark or invisible character (checked here: none of General Category P or S).  A block
    with none of them is passed over by one search in C (runs of marks, of selectors, of
    invisible operators between letters)."""
    others = [
        (cp, cp)
        for cat in (Category.INVISIBLE, Category.JOINER)
        for lo, hi in cat.ranges
        for cp in range(lo, hi + 1)
        if unicodedata2.category(chr(cp))[0] not in "PS"
    ]
    marks = [
        (cp, cp)
        for lo, hi in MARKS
        for cp in range(lo, hi + 1)
        if unicodedata2.category(chr(cp))[0] not in "PS"
    ]
    return re.compile(f"[^\\w\\x00-\\x7f{char_class(sorted(marks + others))}]")


@functools.lru_cache(maxsize=256)
def _twins_pattern(chars: frozenset[str]) -> re.Pattern[str]:
    """A pattern matching any of ``chars``."""
    return re.compile("[" + "".join(re.escape(c) for c in sorted(chars)) + "]")


_BRACKETS = frozenset("()[]{}")
# What a stand-in fakes: a comment's end or start ("*∕" beside "*"), and a statement's
# "=", ";", "|", "&" (a compatibility form: "＝", U+037E).  Other look-alikes of ASCII
# punctuation ("–" in "1–10", "～" in a date range, "‹" in a regex) are writing.
_COMMENT, _COMMENT_NEAR = frozenset("/*"), frozenset("/*")
_STATEMENT = frozenset("=;|&")
_QUOTES = frozenset("'\"`")


class _LineWords:
    """Whether the line of ``text[i]`` holds a letter that is not ASCII (then its
    punctuation is writing's: fullwidth parentheses in Chinese, a Greek question mark),
    asked for increasing ``i``: each line is read once."""

    __slots__ = ("end", "start", "text", "words")

    def __init__(self, text: str) -> None:
        self.text = text
        self.start = self.end = -1
        self.words = False

    def __call__(self, i: int) -> bool:
        if i >= self.end:
            text = self.text
            lo = max(self.end, 0)
            self.start = max(text.rfind("\n", lo, i), text.rfind("\r", lo, i), lo - 1) + 1
            end = min(e for e in (text.find("\n", i), text.find("\r", i), len(text)) if e >= 0)
            self.end = end + 1
            self.words = any(ch.isalpha() and not ch.isascii() for ch in text[self.start : end])
        return self.words


def _next_to(text: str, i: int, step: int) -> str:
    """The nearest character to ``text[i]`` on its line in direction ``step``, spaces
    and tabs skipped ("" at the line's end)."""
    j = i + step
    while 0 <= j < len(text) and text[j] in " \t":
        j += step
    return text[j] if 0 <= j < len(text) and text[j] not in "\n\r" else ""


def _syntax_twins(text: str, lines: list[int]) -> Iterator[tuple[int, str]]:
    """Punctuation that stands in for code's ASCII punctuation, next to code: "*∕"
    (U+2215 closing a C comment to the eye only), "x ＝ 1", "echo hi;" (U+037E), "rm
    ‐rf".  Refused when it looks like '/' or '*' beside '/' or '*' (a comment's
    delimiter), when it is a compatibility form of '=', ';', '|' or '&' (NFKC) between
    ASCII characters, or when it looks like '-' before an ASCII letter at the start of
    a word (an option); never in a line that holds letters of another script.
    Punctuation in prose ("1–10", "well‐known", a Greek question mark after a Greek
    word) is none of these."""
    in_words = _LineWords(text)
    # A block of a line at a time, sifted in C (one translate: its look-alikes alone; a
    # look-alike is not ASCII, so an ASCII block has none), not a run of non-ASCII
    # characters at a time: text dense in short runs (math with invisible operators)
    # costs no Python step a run.
    blocks = (
        (lo, min(lo + _BLOCK, lines[k + 1]))
        for k in range(0, len(lines), 2)
        for lo in range(lines[k], lines[k + 1], _BLOCK)
    )
    maybe = _twin_candidates().search
    for lo, hi in blocks:
        block = text[lo:hi]
        if block.isascii() or maybe(block) is None:
            continue
        twins = block.translate(_TWINS)
        if not twins:
            continue
        for m in _twins_pattern(frozenset(twins)).finditer(text, lo, hi):
            i = m.start()
            ch = text[i]
            looks = _syntax_twin(ch)
            if not looks:
                continue
            before, after = text[i - 1] if i else "", text[i + 1 : i + 2]
            near_before, near_after = _next_to(text, i, -1), _next_to(text, i, 1)
            if len(looks) > 1 or looks in _BRACKETS or in_words(i):
                continue  # "…", "（", or punctuation of a sentence in another script
            if before in _QUOTES and after in _QUOTES:
                continue  # the character itself, quoted: a table's entry
            if looks in _COMMENT and (before in _COMMENT_NEAR or after in _COMMENT_NEAR):
                how = f"beside {(before if before in _COMMENT_NEAR else after)!r}"
            elif (
                looks in _STATEMENT
                and unicodedata2.normalize("NFKC", ch) == looks
                and near_before.isascii()
                and near_after.isascii()
                and (near_before or near_after)
            ):
                how = "between ASCII code"
            elif looks == "-" and before in ("", " ", "\t") and after.isascii() and after.isalpha():
                how = "before an option's name"
            else:
                continue
            yield (
                i,
                (
                    f"{describe(ord(ch))} looks like {looks!r} {how}: it reads as code's "
                    "punctuation and is not (UTS #39 §4 skeleton)"
                ),
            )


# -- words written without spaces (UAX #14 class SA) ---------------------------------------

_ZWSP = "\u200b"
_ZWSP_CP = 0x200B
# Scripts written without spaces between words, where ZERO WIDTH SPACE marks a word
# boundary (UAX #14, line breaking class SA: Thai, Lao, Myanmar, Khmer, Tai Le, New Tai
# Lue, Tai Tham, Tai Viet): ordinary writing, not hidden text.
_SPACELESS = frozenset({"Thai", "Laoo", "Mymr", "Khmr", "Tale", "Talu", "Lana", "Tavt"})
# ZWSP in text that is not code, outside those scripts: reported, allowed.
_BREAK = "a line-break opportunity (UAX #14 class ZW): in text, not code, it hides nothing"
# Invisible characters that mark where a line may break, allowed in text that is not
# code (where no word is an identifier): ZERO WIDTH SPACE, and SOFT HYPHEN, a
# hyphenation point (UAX #14 class BA; Unicode §23.2) that prose and character tables
# of Latin-1 hold.
_TEXT_BREAKS = {
    _ZWSP_CP: _BREAK,
    0xAD: "a hyphenation point (UAX #14 class BA): in text, not code, it hides nothing",
}


def _separates_words(text: str, i: int, end: int) -> bool:
    """Whether ``text[i:end]`` is a ZERO WIDTH SPACE (or several) between two characters
    of a script written without spaces (``_SPACELESS``): a word separator."""
    if text[i] != _ZWSP or i == 0 or end >= len(text):
        return False
    from ._lookalike import script_extensions

    before, after = script_extensions(text[i - 1]), script_extensions(text[end])
    return bool(before & _SPACELESS) and bool(after & _SPACELESS)


def _one_character(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is one character repeated."""
    return text.count(text[start], start, end) == end - start


# -- generated character tables ------------------------------------------------------------

# A string literal on one line ("...", '...', `...`), backslash escapes inside.
_LITERAL = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\\n]|\\.)*`""")
# An escape in a literal, maybe itself escaped for a regular expression (``"\\u2028"``,
# ``"\\*"`` in JavaScript source): the code point it stands for.
_TABLE_ESCAPE = re.compile(
    r"\\(?:\\)?(?:u\{([0-9A-Fa-f]{1,6})\}|u([0-9A-Fa-f]{4})|x([0-9A-Fa-f]{2})|U([0-9A-Fa-f]{8})"
    r"|(\\\\|.))"
)
_SIMPLE_ESCAPES = {"0": 0, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, "\\\\": 0x5C}
_MIN_ITEMS = 8  # characters and ranges of a table that vouches for bidi controls


def _table_item(content: str, i: int) -> tuple[int, int]:
    """The code point of the character or escape at ``content[i]`` (-1 for a class
    shorthand such as ``\\w``, which has none), and where it ends."""
    if content[i] != "\\":
        return ord(content[i]), i + 1
    m = _TABLE_ESCAPE.match(content, i)
    if m is None:
        return -1, i + 1
    braced, u4, x2, u8, other = m.groups()
    digits = braced or u4 or x2 or u8
    if digits is not None:
        return int(digits, 16), m.end()
    if other in _SHORTHANDS:
        return -1, m.end()
    return _SIMPLE_ESCAPES.get(other, ord(other[-1])), m.end()


_SHORTHANDS = frozenset("wWdDsSbBpP")  # regex class shorthands: no one code point


def _table(content: str, bracketed: bool = False) -> list[int] | None:
    """When ``content`` (a string literal's, or a regex class's inside one when
    ``bracketed``) is a character class, the indices in it of the bidi controls it does
    not vouch for (judged still); else None.  A class is characters, escapes and
    ranges ``X-Y``: at least two ranges, each item above the one before, as tools write
    Unicode property tables for regular expressions (``"A-Za-zªµºÀ-Ö"``); in brackets
    also unsorted (``[_a-zA-Z\\u03b1-\\u03c9]``) or ``_MIN_ITEMS`` sorted characters.  Sorted sets
    of code points are data, not words or code.  A bidi control in one is vouched for
    only as the end of a range (``"\u202a-\u202e"``) in a sorted class of at least
    ``_MIN_ITEMS`` items: a short literal that reorders a line stays a finding."""
    n, i, last, items, ranges = len(content), 0, -1, 0, 0
    ascending = True
    alone: list[int] = []
    ends: list[int] = []
    while i < n:
        at = i
        lo, i = _table_item(content, i)
        hi = lo
        if i + 1 < n and content[i] == "-":
            dash = i
            hi, i = _table_item(content, i + 1)
            ranges += 1
            if hi <= lo:
                return None
            for j in (at, dash + 1):
                if content[j] in _BIDI_CONTROLS:
                    ends.append(j)
        elif content[at] in _BIDI_CONTROLS:
            alone.append(at)
        if lo >= 0:
            ascending = ascending and lo > last
            last = hi
        items += 1
    if bracketed:
        if ranges < 2 and not (ascending and items >= _MIN_ITEMS):
            return None
    elif ranges < 2 or not ascending:
        return None
    return alone if ascending and items >= _MIN_ITEMS else sorted(alone + ends)


_CLASS = re.compile(r"\[\^?((?:[^\]\\]|\\.)+)\]")  # a regex character class


_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _blank(blanks: list[tuple[int, int]], start: int, end: int, kept: list[int]) -> None:
    """Add ``start..end`` to ``blanks``, less the characters at ``kept`` (relative)."""
    pos = start
    for j in kept:
        blanks.append((pos, start + j))
        pos = start + j + 1
    blanks.append((pos, end))


def _without_tables(body: str, lines: list[int], rare: list[int]) -> tuple[str, list[int]]:
    """``body`` with the content of each generated character table (``_table``) on its
    lines that hold a non-ASCII character (``lines``) blanked out but for the bidi
    controls it judges (same length: indices do not move), and ``rare`` without the
    characters blanked."""
    blanks: list[tuple[int, int]] = []
    for k in range(0, len(lines), 2):
        for m in _LITERAL.finditer(body, lines[k], lines[k + 1]):
            start, end = m.start() + 1, m.end() - 1
            if end - start < 5:
                continue
            whole = _table(body[start:end]) if body.count("-", start, end) >= 2 else None
            if whole is not None:
                _blank(blanks, start, end, whole)
                continue
            for c in _CLASS.finditer(body, start, end):
                alone = _table(c.group(1), bracketed=True)
                if alone is not None:
                    _blank(blanks, c.start(1), c.end(1), alone)
    if not blanks:
        return body, rare
    parts: list[str] = []
    pos = 0
    for start, end in blanks:
        parts += [body[pos:start], " " * (end - start)]
        pos = end
    parts.append(body[pos:])
    rare = [i for i in rare if not any(lo <= i < hi for lo, hi in blanks)]
    return "".join(parts), rare


# -- identifiers (UTS #39 §4, §5.2) -------------------------------------------------------


# An escape sequence first (``\n``, ``\u0345``, ``\N{...}``), so that "\nМир" is the
# escape and the word "Мир", not an identifier "nМир" that mixes scripts.
_ESCAPE = r"\\(?:[uU][0-9A-Fa-f]{4,8}|x[0-9A-Fa-f]{2}|N\{[^}\n]*\}|.)"


@functools.lru_cache(maxsize=1)
def _identifier_pattern() -> re.Pattern[str]:
    """A letter or '_' then letters, digits, marks, '_': XID_Start XID_Continue*, close
    enough without a tokenizer (``\\w`` lacks marks, so they are added)."""
    marks = char_class(MARKS)
    return re.compile(rf"{_ESCAPE}|([^\W\d][\w{marks}]*)")


def _max_level(policy: Policy) -> RestrictionLevel:
    from ._lookalike import RestrictionLevel

    level = policy.max_restriction_level
    return RestrictionLevel.HIGHLY_RESTRICTIVE if level is None else level


@functools.lru_cache(maxsize=4096)
def _scripts_of(ch: str) -> frozenset[str]:
    from ._lookalike import resolved_scripts

    return resolved_scripts(ch)


def script_level(identifier: str) -> RestrictionLevel:
    """UTS #39 §5.2 judged by scripts alone (Identifier_Status left out): the level of
    ``identifier``'s script mix, ASCII_ONLY .. MINIMALLY_RESTRICTIVE."""
    from ._lookalike import ALL_SCRIPTS, RestrictionLevel

    if identifier.isascii():
        return RestrictionLevel.ASCII_ONLY
    common = ALL_SCRIPTS
    rest: frozenset[str] | None = None  # scripts shared by every non-Latin character
    for ch in _bases(identifier):
        scripts = _scripts_of(ch)
        common = common & scripts
        if "Latn" not in scripts:
            rest = scripts if rest is None else rest & scripts
    if common:
        return RestrictionLevel.SINGLE_SCRIPT
    if rest and rest & _HIGHLY:
        return RestrictionLevel.HIGHLY_RESTRICTIVE
    if rest and rest - _NOT_MODERATE:
        return RestrictionLevel.MODERATELY_RESTRICTIVE
    return RestrictionLevel.MINIMALLY_RESTRICTIVE


_NOT_SCRIPTS = frozenset({"Zyyy", "Zinh"})  # Common and Inherited: no script of their own


def _bases(identifier: str) -> set[str]:
    """The distinct characters of ``identifier`` that are not combining marks: a mark
    takes the script of the letter it is on (UAX #24 §5.1: Inherited), whatever its
    Script_Extensions list ("τ\u0302", a circumflex on a Greek letter, is Greek)."""
    return {ch for ch in set(identifier) if unicodedata2.category(ch)[0] != "M"}


def _script_names(identifier: str) -> str:
    from ._lookalike import script_extensions, script_name

    names: list[str] = []
    bases = _bases(identifier)
    for ch in identifier:
        if ch not in bases:
            continue
        for code in sorted(script_extensions(ch) - _NOT_SCRIPTS):
            name = script_name(code)
            if name not in names:
                names.append(name)
    return " + ".join(names) or "Common"


def _cross_script(a: str, b: str) -> bool:
    """Two spellings with one skeleton that UTS #39 §4 calls mixed- or whole-script
    confusables: a reader takes one script for another (Cyrillic "а" for Latin "a").
    Single-script ones ("ı"/"i", "rn"/"m"), two spellings in the same scripts (a
    fullwidth "Ｂ１" beside "B1" in a table of width variants), and single characters,
    marks included ("ਫ਼" beside "ढ़": tables of characters in comments, tests and
    generated data) are left to linters."""
    if (a.isascii() and b.isascii()) or _letters(a) < 2 or _letters(b) < 2:
        return False
    from ._lookalike import confusable

    if _scripts(a) == _scripts(b):
        return False
    kind = confusable(a, b)
    return kind is not None and kind.mixed_script


def _scripts(word: str) -> set[str]:
    """The scripts of ``word``'s characters (Script_Extensions, Common and Inherited
    left out; a combining mark has its letter's, ``_bases``)."""
    from ._lookalike import script_extensions

    return {code for ch in _bases(word) for code in script_extensions(ch)} - _NOT_SCRIPTS


def _letters(word: str) -> int:
    """How many characters of ``word`` are not combining marks."""
    return sum(unicodedata2.category(ch)[0] != "M" for ch in word)


_NON_ASCII = re.compile("[^\x00-\x7f]+")
_BLOCK = 1024  # characters per str.isascii() test in _non_ascii_runs


def _non_ascii_runs(text: str) -> list[tuple[int, int]]:
    """The spans of the runs of non-ASCII characters in ``text``, as
    ``_NON_ASCII.finditer`` finds them, but the regex (some ns a character) reads only
    the blocks that ``str.isascii`` (a C scan of a copy, a fraction of that) finds
    non-ASCII: source code is mostly ASCII even where it is not all ASCII."""
    runs: list[tuple[int, int]] = []
    for lo in range(0, len(text), _BLOCK):
        if text[lo : lo + _BLOCK].isascii():
            continue
        for m in _NON_ASCII.finditer(text, lo, lo + _BLOCK):
            start, end = m.span()
            if runs and runs[-1][1] == start:  # one run across the block boundary
                runs[-1] = (runs[-1][0], end)
            else:
                runs.append((start, end))
    return runs


def _source_lines_py(text: str) -> tuple[list[int], list[int]]:
    """The pure-Python twin of the C ``source_lines`` (``_native_src/source.c``): the
    lines holding a non-ASCII character, as a flat ``[start, end, ...]`` list
    (consecutive lines one span, a line ending before its line feed), and the indices of
    the rare characters (``_RARE``: NEL, LS, PS, VS1..VS16), all of them non-ASCII."""
    spans: list[int] = []
    rare: list[int] = []
    covered = 0  # where the last span ended: its line feed (or the end of the text)
    for lo, hi in _non_ascii_runs(text):
        rare.extend(m.start() for m in _RARE.finditer(text, lo, hi))
        if hi <= covered:
            continue
        start = max(text.rfind("\n", covered, lo) + 1, covered)
        end = text.find("\n", hi)
        end = len(text) if end < 0 else end
        if spans and start == covered + 1:  # the line right after the last span
            spans[-1] = end
        else:
            spans += (start, end)
        covered = end
    return spans, rare


# (spans, rare) of the lines of a text that is not all ASCII: C (about 2 instructions a
# character, 8 bytes at a time; a tenth of the twin's cost) or the pure-Python twin.
_NATIVE = speedups is not None
_source_lines = speedups.source_lines if speedups is not None else _source_lines_py


def _identifiers_py(text: str, lines: list[int], wide: bool) -> dict[str, int]:
    """``{identifier: first start}`` for the identifiers (``_identifier_pattern``) in
    ``lines`` (a flat ``[start, end, ...]`` list of line spans) that hold a non-ASCII
    character (``wide``) or that are all ASCII (not ``wide``): the pattern reads only
    those lines, not the whole text.

    No match of the pattern holds a line feed (words do not, nor does any escape:
    ``\\.`` and ``\\N{...}`` stop before one), so its matches on a line are the same
    whether it starts there or at the top, or with the lines before and after it: an
    escaped backslash, a ``\\N{...}`` name around a non-ASCII character, all read as in
    the whole text.  Each line is read once, so the cost stays linear."""
    pattern = _identifier_pattern()
    first: dict[str, int] = {}
    for k in range(0, len(lines), 2):
        for w in pattern.finditer(text, lines[k], lines[k + 1]):
            name = w.group(1)
            if name and name.isascii() is not wide and name not in first:
                first[name] = w.start(1)
    return first


@functools.lru_cache(maxsize=1)
def _marks_table() -> bytes:
    """``MARKS`` as the C ``identifiers`` reads it: (lo, hi) pairs of uint32."""
    import struct

    return struct.pack(f"={2 * len(MARKS)}I", *(v for span in MARKS for v in span))


def _identifiers_c(text: str, lines: list[int], wide: bool) -> dict[str, int]:
    assert speedups is not None
    return speedups.identifiers(text, lines, _marks_table(), wide)


# ``_identifiers_py``: in C (``source.c``: the same reading of each character, one str
# per identifier kept instead of a match object per word) or by the pattern itself.
_identifiers = _identifiers_c if _NATIVE else _identifiers_py


@functools.lru_cache(maxsize=1)
def _ascii_words() -> re.Pattern[str]:
    """``_identifier_pattern`` with ASCII words: the same escapes first, then
    ``[A-Za-z_][A-Za-z0-9_]*``, which the regex engine matches faster."""
    return re.compile(rf"{_ESCAPE}|([A-Za-z_][A-Za-z0-9_]*)")


@functools.lru_cache(maxsize=1)
def _ascii_skeletons() -> dict[int, str] | None:
    """``str.translate`` table giving the skeleton of an ASCII string (ASCII is NFD, so
    §4's skeleton is the concatenation of each character's mapping), or None if some
    mapping left ASCII (then ``skeleton`` is called)."""
    from ._lookalike import skeleton

    word = "0123456789_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    table = {ord(c): skeleton(c) for c in word}  # what identifiers are made of
    if not all(v.isascii() for v in table.values()):
        return None
    return {i: v for i, v in table.items() if v != chr(i)}


_WORD_CHARS = "0123456789_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_MAX_SEARCH = 4096  # characters of a spelling search pattern (see _spelling_search)
_MAX_KEYS = 8  # skeletons one search looks for


def _preimages(key: str, table: dict[int, str]) -> str | None:
    """A pattern matching exactly the ASCII words whose skeleton (``translate(table)``)
    is ``key``, or None if it would be longer than ``_MAX_SEARCH`` (each character of
    ``key`` is a class of the characters mapped to it; a longer image, such as "rn" of
    "m", is an alternative that rejoins after it)."""
    if len(key) > _MAX_SEARCH // 8:  # the pattern would be too long (and build too deep)
        return None
    images = [(c, table.get(ord(c), c)) for c in _WORD_CHARS]
    memo: dict[int, str] = {}

    def build(i: int) -> str:
        if i in memo:
            return memo[i]
        ones = "".join(c for c, image in images if len(image) == 1 and key.startswith(image, i))
        longer = [
            (c, i + len(image))
            for c, image in images
            if len(image) > 1 and key.startswith(image, i)
        ]
        branches = [f"[{re.escape(ones)}]{build(i + 1)}"] if ones else []
        branches += [f"{re.escape(c)}{build(j)}" for c, j in longer]
        if i == len(key):
            out = ""
        elif not branches:
            out = "(?!)"  # no ASCII word has this skeleton
        elif len(branches) == 1:
            out = branches[0]
        else:
            out = f"(?:{'|'.join(branches)})"
        if len(out) > _MAX_SEARCH:
            raise OverflowError
        memo[i] = out
        return out

    try:
        return build(0)
    except OverflowError:
        return None


def _spelling_search(keys: set[str], table: dict[int, str] | None) -> re.Pattern[str] | None:
    """A pattern whose matches cover every ASCII word with its skeleton in ``keys`` (it
    matches such a word, or a longer run of word characters ending where it ends), or
    None when ``_ascii_words`` must be used (no translate table; too many keys, whose
    alternatives ``re`` would try at every position, or too long)."""
    if table is None or len(keys) > _MAX_KEYS:
        return None
    parts = []
    for key in sorted(keys, key=lambda k: (-len(k), k)):
        part = _preimages(key, table)
        if part is None:
            return None
        parts.append(part)
    search = f"(?:{'|'.join(parts)})(?![A-Za-z0-9_])"
    return None if len(search) > _MAX_SEARCH else re.compile(search)


def _ascii_spellings(text: str, keys: set[str]) -> dict[str, int]:
    """``{identifier: first start}`` for the ASCII identifiers longer than one character
    whose skeleton is in ``keys``, as ``_identifier_pattern().finditer(text)`` finds
    them, at a fraction of its cost: a search built from ``keys`` (``_spelling_search``:
    usually no match, and no object per word of the text) finds the lines where one may
    occur, and ``_identifiers`` reads only those lines.

    Exact because (1) no match of the pattern or of the search holds a line feed, so a
    line is read alone as in the whole text; (2) such an identifier ends before a
    character that is not ``[A-Za-z0-9_]`` (the pattern is greedy over ``\\w`` and
    marks), so the search matches at its start unless a match that started earlier on its
    line covers it (then ending where it ends): either way its line is read.  Without a
    translate table, the same escapes with ASCII words (``_ascii_words``, read in C by
    ``findall``) give the candidates instead.  Each line is read at most once: linear."""
    from ._lookalike import skeleton

    table = _ascii_skeletons()

    def wanted(word: str) -> bool:
        key = skeleton(word) if table is None else word.translate(table)
        return len(word) > 1 and key in keys

    search = _spelling_search(keys, table)
    if search is None:
        words = {w for w in set(_ascii_words().findall(text)) if w and wanted(w)}
        if not words:
            return {}
        longest_first = sorted(words, key=lambda w: (-len(w), w))
        search = re.compile("|".join(map(re.escape, longest_first)))
    found: dict[str, int] = {}
    line_end = -1  # the lines before it are read
    for m in search.finditer(text):
        if m.start() < line_end:
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.end())
        if line_end < 0:
            line_end = len(text)
        for name, at in _identifiers(text, [line_start, line_end], False).items():
            if name not in found and wanted(name):
                found[name] = at
    return found


def _may_cross_scripts(wide: list[str]) -> bool:
    """Whether two spellings in a file whose non-ASCII identifiers are ``wide`` can be
    mixed- or whole-script confusables (``_cross_script``).  They cannot when each of
    ``wide`` (longer than one character) has Latin in its resolved script set, as every
    ASCII identifier has: then any two share a script, and are at most single-script
    confusables (UTS #39 §4).  Accented Latin words ("café", "naïve") are most of the
    non-ASCII words in code; their files need no skeleton and no search for ASCII
    spellings."""
    from ._lookalike import resolved_scripts

    return any("Latn" not in resolved_scripts(ident) for ident in wide if len(ident) > 1)


def _shown(identifier: str) -> str:
    """An identifier as a reason quotes it: whole, or its ends when it is long."""
    if len(identifier) <= _SHOWN:
        return repr(identifier)
    half = _SHOWN // 2
    return f"{identifier[:half]!r}...{identifier[-half:]!r} ({len(identifier)} characters)"


def _placeholder_and_word(identifier: str) -> bool:
    """One ASCII letter glued to a word of a right-to-left script: a format placeholder
    and its translation (``%sكۆرۈش``, ``בF`` in a date format).  Displayed as two runs
    (UAX #9: strong L beside strong R or AL), it is not one name mixing scripts."""
    if len(identifier) < 2:
        return False
    if identifier[0].isascii() and identifier[0].isalpha():
        rest = identifier[1:]
    elif identifier[-1].isascii() and identifier[-1].isalpha():
        rest = identifier[:-1]
    else:
        return False
    classes = {unicodedata2.bidirectional(ch) for ch in rest}
    return classes <= {"R", "AL", "NSM"} and bool(classes & {"R", "AL"})


def _field_and_word(identifier: str) -> bool:
    """A date or number format's field glued to a word of the locale (moment's Mongolian
    ``MMMMын``, "of the month"): one ASCII letter repeated (``MM``, ``YYYY``, ``dd``: an
    LDML or strftime field) at one end, a word with no Latin letter after or before it.
    Two runs a reader tells apart, not one name mixing scripts; a single Latin letter
    glued to a Cyrillic word ("Васовa") is the typo or spoof it looks like."""
    head, tail = identifier.lstrip(identifier[0]), identifier.rstrip(identifier[-1])
    for letter, repeats, word in (
        (identifier[0], len(identifier) - len(head), head),
        (identifier[-1], len(identifier) - len(tail), tail),
    ):
        if repeats >= 2 and letter.isascii() and letter.isalpha() and word:
            return "Latn" not in _scripts(word) and not any(c.isascii() for c in word)
    return False


_CONVERSIONS = frozenset("diouxXeEfFgGcs")  # printf's conversion letters (C11 §7.21.6.1)
_CONVERSION = "after '%': a format conversion glued to a word that reads as no ASCII word"


def _conversion_and_word(identifier: str) -> bool:
    """A printf conversion's letter glued to a word of another script (dayjs's Mongolian
    ``"%dц"``, "%d hours"), judged where the word follows a ``%``: the letter is the
    conversion, and what follows reads as no ASCII word (``x%dата`` reads as ``data``,
    and stays refused)."""
    from ._lookalike import skeleton

    rest = identifier[1:]
    if identifier[0] not in _CONVERSIONS or not rest or any(c.isascii() for c in rest):
        return False
    return "Latn" not in _scripts(rest) and not skeleton(rest).isascii()


def _problems(
    identifier: str, max_level: RestrictionLevel
) -> Iterator[tuple[str, int, int, Action, str, int | None]]:
    """The identifier rules of one distinct identifier: (kind, start, end within it,
    action, why, code point)."""
    from ._lookalike import IdentifierStatus, identifier_status, skeleton

    level = script_level(identifier)
    if level > max_level and not _placeholder_and_word(identifier):
        words = level.name.lower().replace("_", " ")
        limit = max_level.name.lower().replace("_", " ")
        why = (
            f"identifier {_shown(identifier)} mixes scripts {_script_names(identifier)} "
            f"({words}, over {limit}; UTS #39 §5.2)"
        )
        # Refused: a mixed-script confusable of an ASCII word (UTS #39 §4: "pаypal"
        # reads as "paypal"), and any mix of Latin and Cyrillic, the pair homoglyph
        # attacks use most ("api_кey"; §5.2 step 4 keeps them apart).  A word that reads
        # as no ASCII word and mixes other scripts ("μs", "Δt") is a unit or a formula,
        # not a spoof of code: reported as allowed.
        if skeleton(identifier).isascii():
            reading = _ascii_reading(identifier)
            action, why = Action.REJECT, f"{why}: reads as {_shown(reading)}"
        elif _LATIN_CYRILLIC <= _scripts(identifier) and not _field_and_word(identifier):
            action = Action.REJECT
        else:
            action, why = Action.ALLOW, f"{why}: reads as no ASCII word"
        yield "mixed-script", 0, len(identifier), action, why, None
    # The Restricted characters (UTS #39 §3.1) beside an ASCII letter, digit or '_'
    # (``_beside_ascii_name``; alone or among other letters one reads as no operator
    # between names): a status a distinct character, and in a long identifier one
    # search in C, no Python step a character.
    restricted = frozenset(
        ch
        for ch in set(identifier)
        if not ch.isascii() and identifier_status(ch) is IdentifierStatus.RESTRICTED
    )
    if not restricted:
        return
    if len(identifier) > _LONG_IDENTIFIER:
        found = (
            (m.start(), m.group())
            for m in _beside_ascii_name_pattern(restricted).finditer(identifier)
        )
    else:
        found = (
            (offset, ch)
            for offset, ch in enumerate(identifier)
            if ch in restricted and _beside_ascii_name(identifier, offset)
        )
    for offset, ch in found:
        looks = skeleton(ch)
        if looks and all(c in _SYNTAX for c in looks):
            why = (
                f"{describe(ord(ch))} in identifier {_shown(identifier)} looks like "
                f"{looks!r} (UTS #39 confusables)"
            )
            yield "syntax-lookalike", offset, offset + 1, Action.REJECT, why, ord(ch)
        elif _ascii_twin(ch) and _beside_ascii_letter(identifier, offset):
            why = (
                f"{describe(ord(ch))} in identifier {_shown(identifier)}, beside ASCII: a "
                "Restricted letter (UTS #39 §3.1) styled as an ASCII one, so the name reads "
                "as another (compilers that apply NFKC take them for one, others do not)"
            )
            yield "restricted", offset, offset + 1, Action.REJECT, why, ord(ch)


_LATIN_CYRILLIC = frozenset({"Latn", "Cyrl"})


def _ascii_reading(identifier: str) -> str:
    """What a reader takes ``identifier`` for: each non-ASCII character replaced by the
    ASCII it is confusable with, the ASCII left as written ("cоmmit" with a Cyrillic о
    reads as "commit").  Not the skeleton, which folds ASCII too ("rn" for "m", "l" for
    "I") and is a comparison key never to display (UTS #39 §4)."""
    from ._lookalike import skeleton

    return "".join(ch if ch.isascii() else skeleton(ch) for ch in identifier)


# Styles of a font variant (UnicodeData names) whose letterforms stand apart from the
# plain letter, as mathematics uses them: blackboard bold for sets and the indicator
# ("ℕ", "𝟙"), script and fraktur for spaces and algebras ("ℓ", "𝔤"), outlined and
# segmented digits.  A reader sees another letter, not its ASCII twin.
_DISTINCT_STYLES = frozenset(
    {"DOUBLE-STRUCK", "SCRIPT", "FRAKTUR", "BLACK-LETTER", "OUTLINED", "SEGMENTED"}
)


def _ascii_twin(ch: str) -> bool:
    """Whether ``ch`` is an ASCII letter or digit in another dress, read as that letter:
    a font variant drawn as the plain letter (Unicode's ``<font>`` decomposition, UAX #15:
    mathematical bold "𝐚", italic, sans-serif, monospace, "𝟏"), a fullwidth one
    (``<wide>``: "ａ") or a canonical singleton ("K" KELVIN SIGN).  Not: superscripts and
    modifier letters ("m²", "xⁿ": units and formulas), letters of their own that NFKC
    folds (``<compat>``: the long s "ſ" of historical spelling), nor the styles
    mathematics reads as symbols of their own (``_DISTINCT_STYLES``: "ℕ", "𝟙", "ℓ")."""
    if unicodedata2.category(ch) not in ("Ll", "Lu", "Nd"):
        return False
    twin = unicodedata2.normalize("NFKC", ch)
    if not (len(twin) == 1 and twin.isascii() and twin.isalnum()):
        return False
    tag = unicodedata2.decomposition(ch).partition(" ")[0]
    if tag not in ("<font>", "<wide>") and tag.startswith("<"):
        return False
    return not _DISTINCT_STYLES.intersection(unicodedata2.name(ch, "").split())


def _beside_ascii_letter(identifier: str, i: int) -> bool:
    """Whether ``identifier[i]`` touches an ASCII letter or digit of the same word."""
    near = identifier[max(i - 1, 0) : i] + identifier[i + 1 : i + 2]
    return any(c.isascii() and c.isalnum() for c in near)


_LONG_IDENTIFIER = 64  # characters: longer, its Restricted ones are found by a pattern


@functools.lru_cache(maxsize=256)
def _beside_ascii_name_pattern(chars: frozenset[str]) -> re.Pattern[str]:
    """A pattern matching any of ``chars`` where ``_beside_ascii_name`` holds."""
    one = "[" + "".join(re.escape(c) for c in sorted(chars)) + "]"
    return re.compile(f"(?<=[A-Za-z0-9_]){one}|{one}(?=[A-Za-z0-9_])")


def _beside_ascii_name(identifier: str, i: int) -> bool:
    """Whether ``identifier[i]`` touches an ASCII letter, digit or '_' of the same word
    (``xǃ`` in ``xǃ=y``, which reads as ``x != y``)."""
    near = identifier[max(i - 1, 0) : i] + identifier[i + 1 : i + 2]
    return any(c == "_" or (c.isascii() and c.isalnum()) for c in near)


class _Identifiers:
    """The identifier rules over a text read piece by piece: each distinct non-ASCII
    identifier judged once, its findings reported at each of its occurrences (``feed``),
    then the look-alikes among
    them and the ASCII ones (``compare``, which reads the pieces again only when an
    ASCII spelling may share a skeleton with a non-ASCII one)."""

    __slots__ = ("first", "flagged", "max_level", "overflowed")

    def __init__(self, max_level: RestrictionLevel) -> None:
        self.max_level = max_level
        self.first: dict[str, int] = {}  # non-ASCII identifier -> its first index
        # identifier -> its problems (``_problems``), for the identifiers that have any
        self.flagged: dict[str, list[tuple[str, int, int, Action, str, int | None]]] = {}
        self.overflowed = False

    def feed(self, body: str, at: int, lines: list[int], check: _Check) -> None:
        found = _identifiers(body, lines, True)
        again = False  # a flagged identifier is in this piece: each occurrence is reported
        for ident, local in found.items():
            if ident in self.first:
                again = again or ident in self.flagged
                continue
            start = at + local
            if len(self.first) >= _MAX_IDENTIFIERS:
                if not self.overflowed:  # fail closed: say that the rest are not compared
                    self.overflowed = True
                    why = (
                        f"more than {_MAX_IDENTIFIERS} distinct non-ASCII identifiers: the "
                        "rest are not compared for look-alikes (memory bound)"
                    )
                    check.add(2, start, start + len(ident), Action.REJECT, "too-long", why)
                continue
            self.first[ident] = start
            problems = list(_problems(ident, self.max_level))
            if problems:
                self.flagged[ident] = problems
                again = True
        if again:
            self.occurrences(body, at, lines, check)

    def occurrences(self, body: str, at: int, lines: list[int], check: _Check) -> None:
        """Every occurrence of a flagged identifier in ``body`` reported, as a linter
        reports each use of a bad name (read in lines that hold a non-ASCII character,
        by the pattern ``_identifiers`` reads by: the same words)."""
        pattern = _identifier_pattern()
        flagged = self.flagged
        for k in range(0, len(lines), 2):
            for w in pattern.finditer(body, lines[k], lines[k + 1]):
                ident = w.group(1)
                problems = flagged.get(ident) if ident else None
                if problems is None:
                    continue
                start = at + w.start(1)
                after_percent = w.start(1) > 0 and body[w.start(1) - 1] == "%"
                for kind, lo, hi, action, why, cp in problems:
                    if kind == "mixed-script" and after_percent and _conversion_and_word(ident):
                        action, why = Action.ALLOW, f"{why}; {_CONVERSION}"
                    check.add(2, start + lo, start + hi, action, kind, why, cp, ident)

    def compare(self, pieces: Callable[[], Iterable[str]], check: _Check) -> None:
        """UTS #39 §4: group spellings by skeleton; ASCII ones only join a group a
        non-ASCII one made, so the text is read again for them only when a skeleton
        could be theirs."""
        from ._lookalike import skeleton

        wide = list(self.first)
        groups: dict[str, set[str]] = {}
        for ident in wide if wide and _may_cross_scripts(wide) else ():
            if len(ident) > 1:
                groups.setdefault(skeleton(ident), set()).add(ident)
        first = self.first
        ascii_keys = {key for key in groups if key.isascii()}
        if ascii_keys:
            first = dict(first)
            table = _ascii_skeletons()
            for ident, at in _ascii_spellings_in(pieces, ascii_keys).items():
                groups[skeleton(ident) if table is None else ident.translate(table)].add(ident)
                first[ident] = at
        # confusable identifier -> (action, why, the other spelling), for its later uses
        found: dict[str, tuple[Action, str, tuple[int, int, str]]] = {}
        lookalikes = {s for spellings in groups.values() if len(spellings) > 1 for s in spellings}
        words = _words_by_script(w for w in self.first if w not in lookalikes)
        for spellings in groups.values():
            if len(spellings) < 2:
                continue
            ordered = sorted(spellings, key=first.__getitem__)
            # A clean spelling is the reference, never the suspect: when some spellings
            # mix scripts, those are compared with the ones in one script; else (whole-
            # script look-alikes) an ASCII one is the reference, or the first one.
            single = [s for s in ordered if _one_script(s) is not None]
            ascii_ones = [s for s in ordered if s.isascii()]
            for i, ident in enumerate(ordered):
                if len(single) < len(ordered):
                    if ident in single:
                        continue
                    others = single
                elif ascii_ones:
                    if ident.isascii():
                        continue
                    others = ascii_ones
                else:
                    others = ordered[:i]
                seen = next((s for s in others if _cross_script(s, ident)), None)
                if seen is None:
                    continue
                start, other = first[ident], first[seen]
                why = (
                    f"identifier {_shown(ident)} ({_script_names(ident)}) looks like "
                    f"{_shown(seen)} ({_script_names(seen)}) elsewhere in the file "
                    "(UTS #39 §4 skeleton)"
                )
                action = Action.REJECT
                script = _one_script(ident)
                if script is not None and _one_script(seen) is not None:  # whole-script
                    if words.get(script, 0) >= _LOCALE_WORDS:
                        action = Action.ALLOW
                        why += (
                            f": a word of a script the file writes {words[script]} other "
                            "words in (text of another language, as a locale bundle holds)"
                        )
                check.add(
                    3, start, start + len(ident), action, "confusable", why,
                    identifier=ident, other=(other, other + len(seen), seen),
                )  # fmt: skip
                found[ident] = (action, why, (other, other + len(seen), seen))
        if found:
            _later_uses(pieces, found, check)


_LOCALE_WORDS = 3  # other words in a script that make its look-alikes a language's words


def _one_script(word: str) -> str | None:
    """The one script of ``word`` (its letters', marks taking theirs), or None."""
    scripts = _scripts(word)
    return next(iter(scripts)) if len(scripts) == 1 else None


def _words_by_script(words: Iterable[str]) -> dict[str, int]:
    """How many of ``words`` (of two letters or more) are written in each one script:
    a whole-script look-alike in a script the file writes other words in is a word of
    another language (a locale bundle's "ΑΜ" beside "AM"), one in a script the file uses
    for nothing else is a spoof ("сору" beside "copy")."""
    counts: dict[str, int] = {}
    for word in words:
        script = _one_script(word) if _letters(word) > 1 else None
        if script is not None:
            counts[script] = counts.get(script, 0) + 1
    return counts


def _later_uses(
    pieces: Callable[[], Iterable[str]],
    found: dict[str, tuple[Action, str, tuple[int, int, str]]],
    check: _Check,
) -> None:
    """Each use of a confusable identifier after its first, reported as the first is:
    the pieces read again (as the first time), only in a file that has one.  Such an
    identifier is not ASCII (a clean spelling is never the suspect), so only lines
    holding a non-ASCII character are read."""
    pattern = _identifier_pattern()
    for at, body, lines in _read_again(pieces):
        for j in range(0, len(lines), 2):
            for w in pattern.finditer(body, lines[j], lines[j + 1]):
                ident = w.group(1)
                got = found.get(ident) if ident else None
                if got is None:
                    continue
                start = at + w.start(1)
                if start == check.idents_first(ident):
                    continue  # the first use: reported already
                action, why, other = got
                check.add(3, start, start + len(ident), action, "confusable", why,
                          identifier=ident, other=other)  # fmt: skip


def _ascii_spellings_in(pieces: Callable[[], Iterable[str]], keys: set[str]) -> dict[str, int]:
    """``_ascii_spellings`` over the pieces, read again as the first time (signature,
    generated tables): each spelling at its first index in the whole text."""
    found: dict[str, int] = {}
    for at, body, _ in _read_again(pieces):
        for ident, local in _ascii_spellings(body, keys).items():
            found.setdefault(ident, at + local)
    return found


def _read_again(pieces: Callable[[], Iterable[str]]) -> Iterator[tuple[int, str, list[int]]]:
    """The pieces read again as ``_Check`` first read them: for each, the index of its
    body in the whole text, the body (a leading signature dropped, generated tables
    blanked) and the bounds of its lines that hold a non-ASCII character
    (``_source_lines``; none in an ASCII body)."""
    at = 0
    for k, piece in enumerate(pieces()):
        shift = 1 if k == 0 and piece.startswith("\ufeff") else 0
        body = piece[shift:] if shift else piece
        lines: list[int] = []
        if not body.isascii():
            lines, rare = _source_lines(body)
            body, _ = _without_tables(body, lines, rare)
        yield at + shift, body, lines
        at += len(piece)
