"""The source-code gate: what UTS #55 (Unicode Source Code Handling) says code must not hide.

A policy judges characters one by one; source code also needs judgements about where a
character is and what else is in the file.  ``check_source(text)`` applies a policy
(default ``profiles.SOURCE``) and then these rules, each citing its reason:

* **Bidi formatting characters** (LRE RLE LRO RLO PDF, LRI RLI FSI PDI) are refused when
  unpaired within their line, as gcc's ``-Wbidi-chars=unpaired`` does: an opener never
  closed, a closer that closes nothing, or a pair that straddles a quote or comment
  delimiter (``" ' ` # // /* */``), which is how the Trojan Source attacks (CVE-2021-42574)
  reorder code around strings and comments.  A pair closed on its line without crossing
  one is reported as allowed (UAX #9 keeps its effect inside the pair).  Bidi marks
  (LRM, RLM, ALM) are not reported at all: they have no scope, and UTS #55 recommends
  them to make right-to-left literals display correctly (LRM and RLM are even
  Pattern_White_Space, UAX #31 §4).
* **Joiners** (ZWJ, ZWNJ) outside emoji sequences are allowed only where UAX #31 §2.3
  allows them in identifiers: after a virama (A2, B) or, for ZWNJ, after a letter of a
  joining script (A1: Arabic, Syriac, Mongolian, ...).  Elsewhere they are invisible
  differences between two spellings ("is\\u200dAdmin") and refused.
* **Line separators** NEL, LS and PS are refused: some languages end a line there (JS
  ends a ``//`` comment at U+2028) and some editors draw one while others do not, so code
  can hide in what looks like a comment.  LF, CR, VT and FF are ordinary.
* **A variation selector after an ASCII character** (other than a keycap, ``1\\ufe0f\\u20e3``)
  is refused: selectors are identifier characters (Mn), so ``isA\\ufe00dmin`` is a second,
  invisibly different name.
* **Identifiers** (runs of letters, digits, marks and ``_`` starting with a letter: an
  approximation of XID_Start XID_Continue* that needs no tokenizer, so words in comments
  and strings count too) are checked when not ASCII:

  - ``mixed-script``: scripts beyond ``Policy.max_restriction_level`` (UTS #39 §5.2,
    judged by scripts alone; default Highly Restrictive: Latin with Japanese, Korean or
    Chinese passes, Latin with Cyrillic does not);
  - ``confusable``: the same UTS #39 §4 skeleton as another identifier of the file with
    a different spelling, where the two are mixed- or whole-script confusables (§4: a
    reader takes one script for another) and each is longer than one character.
    Single-script look-alikes (``ı``/``i``, ``l``/``I``, ``rn``/``m``) and single
    characters (tables of characters in comments and tests) are a linter's business
    (PEP 8 E741, ruff RUF001-003);
  - ``syntax-lookalike``: a Restricted letter whose skeleton is ASCII punctuation other
    than quotes (U+01C3 ``ǃ`` looks like ``!``, so ``xǃ=y`` reads as a comparison).

  Each distinct identifier is reported once, at its first occurrence; a confusable
  carries the other spelling and its first position (``SourceFinding.other``).

A leading U+FEFF is a signature, never a finding.  Sans-IO: ``check_source`` takes a str
and returns code-point offsets; the CLI (``sanitizer check --policy SOURCE``) reads
files, decodes them strictly and maps offsets to lines and columns.  Cost is linear in
the text for the character rules; identifiers cost one skeleton per distinct identifier,
and only in text that is not ASCII.  Memory: one dict entry per distinct identifier.
"""

from __future__ import annotations

import functools
import re

import unicodedata2

from . import profiles
from ._frozen import Frozen
from ._identity_cache import IdentityCache
from ._native import speedups
from .categories import MARKS, Category, char_class
from .charnames import describe
from .policy import Action, Policy, Report, inspect

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from .lookalike import RestrictionLevel

__all__ = ["SourceFinding", "SourceReport", "check_source"]

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
# Bidi controls and the line ends that close their scope (gcc: the end of the line; UAX #9
# BD7: a paragraph separator).  Every LINE_BREAK character ends a line here.
_BIDI_OR_EOL = re.compile("[\u202a-\u202e\u2066-\u2069]|[\n\x0b\x0c\r\x85\u2028\u2029]")
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


class SourceFinding(Frozen):
    """One finding of the source gate.  ``kind`` is the rule id (a policy category such as
    ``invisible``, or ``mixed-script``, ``confusable``, ``syntax-lookalike``);
    ``start``/``end`` are code-point indices; ``codepoint`` the character, for a
    one-character finding; ``identifier`` the identifier, for the identifier rules;
    ``other`` for ``confusable``: the other spelling's (start, end, spelling).  A frozen
    value (``_frozen.Frozen``: a frozen dataclass's behaviour without its start-up)."""

    __slots__ = ("kind", "start", "end", "action", "reason", "codepoint", "identifier", "other")  # noqa: RUF023 (in the constructor's order)
    kind: str
    start: int
    end: int
    action: Action
    reason: str
    codepoint: int | None
    identifier: str | None
    other: tuple[int, int, str] | None

    def __init__(
        self,
        kind: str,
        start: int,
        end: int,
        action: Action,
        reason: str,
        codepoint: int | None = None,
        identifier: str | None = None,
        other: tuple[int, int, str] | None = None,
    ) -> None:
        field = object.__setattr__
        field(self, "kind", kind)
        field(self, "start", start)
        field(self, "end", end)
        field(self, "action", action)
        field(self, "reason", reason)
        field(self, "codepoint", codepoint)
        field(self, "identifier", identifier)
        field(self, "other", other)

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


class SourceReport(Frozen):
    """``findings`` in order of position (at most ``Policy.max_findings``);
    ``more_findings`` counts the rest; ``ok`` is False when anything is refused.  A
    frozen value; ``policy`` is shown and pickled but not compared."""

    __slots__ = ("ok", "findings", "more_findings", "policy")  # noqa: RUF023 (in the constructor's order)
    ok: bool
    findings: tuple[SourceFinding, ...]
    more_findings: int
    policy: Policy

    def __init__(
        self,
        ok: bool,
        findings: tuple[SourceFinding, ...] = (),
        more_findings: int = 0,
        policy: Policy = profiles.SOURCE,
    ) -> None:
        object.__setattr__(self, "ok", ok)
        object.__setattr__(self, "findings", findings)
        object.__setattr__(self, "more_findings", more_findings)
        object.__setattr__(self, "policy", policy)

    def __eq__(self, other: object) -> bool:
        if type(other) is not SourceReport:
            return NotImplemented
        return (self.ok, self.findings, self.more_findings) == (
            other.ok, other.findings, other.more_findings
        )  # fmt: skip

    def __hash__(self) -> int:
        return hash((self.ok, self.findings, self.more_findings))


# policy -> what _derived gives: looked up once a file, by identity (an lru_cache would
# hash and compare the policy in Python each time); policies are few (profiles,
# --max-restriction-level).
_DERIVED: IdentityCache[tuple[Policy, Policy, SourceReport]] = IdentityCache(8)


def _derived(policy: Policy) -> tuple[Policy, Policy, SourceReport]:
    """``(policy, characters, clean)``: ``characters`` is ``policy`` with bidi controls
    and joiners reported rather than refused, so that this module can judge each by its
    context (pairing, UAX #31 §2.3); ``clean`` the report of a file with nothing to
    report, one frozen value per policy."""
    got = _DERIVED.lookup(id(policy))
    if got is not None:
        return got
    changes: dict[Category | str, Action | str] = {}
    for category in (Category.BIDI_CONTROL, Category.JOINER):
        if policy.action(category) is Action.REJECT:
            changes[category] = Action.ALLOW
    characters = policy.with_actions(changes) if changes else policy
    return _DERIVED.store(policy, (policy, characters, SourceReport(True, (), 0, policy)))


def check_source(text: str, policy: Policy | None = None) -> SourceReport:
    """Check source code ``text`` against ``policy`` (default ``profiles.SOURCE``) and the
    rules of this module; offsets are code-point indices into ``text``."""
    if not isinstance(text, str):
        raise TypeError(f"check_source() argument 'text' must be str, not {type(text).__name__}")
    if policy is None:
        policy = profiles.SOURCE
    if not isinstance(policy, Policy):
        raise TypeError(
            f"check_source() argument 'policy' must be a sanitizer.Policy or None, "
            f"not {type(policy).__name__}"
        )
    shift = 1 if text.startswith("\ufeff") else 0  # a signature (RFC 3629 §6), not text
    body = text[shift:] if shift else text
    _, characters, clean = _derived(policy)
    report = inspect(body, characters)
    if not report.findings and body.isascii():  # the usual file: no rule below has work
        if report.ok and not report.more_findings:
            return clean
        return SourceReport(report.ok, (), report.more_findings, policy)
    found: list[SourceFinding] = []
    judge_bidi = policy.action(Category.BIDI_CONTROL) is Action.REJECT
    judge_joiners = policy.action(Category.JOINER) is Action.REJECT
    bidi = _bidi_verdicts(body) if judge_bidi and _has(report, Category.BIDI_CONTROL) else {}
    for f in report.findings:
        action, reason = f.action, f.reason()
        if judge_bidi and f.category is Category.BIDI_CONTROL:
            action, why = bidi[f.start]
            reason = f"{reason}: {why}"
        elif judge_joiners and f.category is Category.JOINER:
            if f.end - f.start == 1:
                action, why = _joiner_verdict(body, f.start)
            else:  # a run (one finding): a joiner after a joiner has no UAX #31 context
                action, why = Action.REJECT, "joiners in a row: invisible (UAX #31 §2.3)"
            reason = f"{reason}: {why}"
        found.append(
            SourceFinding(f.category.value, f.start + shift, f.end + shift, action, reason,
                          f.codepoint)
        )  # fmt: skip
    if not body.isascii():  # O(1): CPython knows whether a str is ASCII
        lines, rare = _source_lines(body)
        found.extend(_separators_and_selectors(body, shift, rare))
        found.extend(_identifier_findings(body, shift, _max_level(policy), lines))
    found.sort(key=lambda f: (f.start, f.end))
    limit = policy.max_findings
    listed = found if limit is None else found[:limit]
    more = len(found) - len(listed) + report.more_findings
    # report.ok: nothing refused by the character policy, listed or not (bidi controls and
    # joiners are judged here, so they were only reported there).
    ok = report.ok and not any(f.refused for f in found)
    return SourceReport(ok, tuple(listed), more, policy)


def _has(report: Report, category: Category) -> bool:
    return report.more_findings > 0 or any(f.category is category for f in report.findings)


# -- bidi pairing (gcc -Wbidi-chars=unpaired; UAX #9 BD7, X5a-X6a) -------------------------


def _bidi_verdicts(text: str) -> dict[int, tuple[Action, str]]:
    """For each bidi control's index: REJECT with why, or ALLOW when paired in its line."""
    verdicts: dict[int, tuple[Action, str]] = {}
    stack: list[tuple[str, int]] = []  # ("E" embedding/override or "I" isolate, index)

    def close(opener: int, closer: int) -> None:
        crossing = _DELIMITER.search(text, opener + 1, closer)
        if crossing is None:
            verdicts[opener] = verdicts[closer] = (Action.ALLOW, "paired within its line")
        else:
            why = (
                f"its pair crosses {crossing.group()!r}, a string or comment delimiter "
                "(Trojan Source)"
            )
            verdicts[opener] = verdicts[closer] = (Action.REJECT, why)

    def unclosed() -> None:
        for kind, index in stack:
            closer = "PDF" if kind == "E" else "PDI"
            verdicts[index] = (
                Action.REJECT,
                f"not closed by {closer} on its line (Trojan Source, CVE-2021-42574)",
            )
        stack.clear()

    for m in _BIDI_OR_EOL.finditer(text):
        ch, i = m.group(), m.start()
        kind = _BIDI_OPENERS.get(ch)
        if kind is not None:
            stack.append((kind, i))
        elif ch == _PDF:
            if stack and stack[-1][0] == "E":  # X7: PDF closes an embedding or override
                close(stack.pop()[1], i)
            else:
                verdicts[i] = (Action.REJECT, "closes nothing on its line")
        elif ch == _PDI:
            if any(kind == "I" for kind, _ in stack):  # X6a: closes embeddings inside too
                while stack[-1][0] == "E":
                    _, inner = stack.pop()
                    verdicts[inner] = (Action.REJECT, "not closed by PDF before PDI")
                close(stack.pop()[1], i)
            else:
                verdicts[i] = (Action.REJECT, "closes nothing on its line")
        else:  # end of line
            unclosed()
    unclosed()
    return verdicts


# -- joiners (UAX #31 §2.3) --------------------------------------------------------------


def _joiner_verdict(text: str, i: int) -> tuple[Action, str]:
    before = i - 1
    if before >= 0 and unicodedata2.combining(text[before]) == _VIRAMA:
        return Action.ALLOW, "after a virama (UAX #31 §2.3)"
    if text[i] == _ZWNJ:
        while before >= 0 and unicodedata2.category(text[before]) in ("Mn", "Me"):
            before -= 1
        if before >= 0 and unicodedata2.category(text[before]).startswith("L"):
            from .lookalike import script_extensions

            if script_extensions(text[before]) & _JOINING_SCRIPTS:
                return Action.ALLOW, "between joining letters (UAX #31 §2.3 A1)"
    return Action.REJECT, "outside the contexts where UAX #31 §2.3 allows it: invisible"


# -- line separators and selectors ----------------------------------------------------------


def _separators_and_selectors(text: str, shift: int, rare: list[int]) -> list[SourceFinding]:
    """NEL, LS, PS anywhere, and a variation selector right after an ASCII character
    other than a keycap's (``rare``: where ``_source_lines`` found those characters;
    then a look around each)."""
    found = []
    for i in rare:
        ch = text[i]
        if ch in "\x85\u2028\u2029":
            found.append(
                SourceFinding(
                    "line-break", i + shift, i + 1 + shift, Action.REJECT,
                    f"{describe(ord(ch))}: a line end for some languages and editors, not "
                    "for others: code can hide in what looks like a comment (UTS #55)",
                    ord(ch),
                )
            )  # fmt: skip
        elif i and "\x21" <= text[i - 1] <= "\x7e" and text[i + 1 : i + 2] != "\u20e3":
            found.append(
                SourceFinding(
                    "variation-selector", i + shift, i + 1 + shift, Action.REJECT,
                    f"{describe(ord(ch))} after {text[i - 1]!r}: an invisible difference "
                    "inside an identifier",
                    ord(ch),
                )
            )  # fmt: skip
    return found


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
    from .lookalike import RestrictionLevel

    level = policy.max_restriction_level
    return RestrictionLevel.HIGHLY_RESTRICTIVE if level is None else level


@functools.lru_cache(maxsize=4096)
def _scripts_of(ch: str) -> frozenset[str]:
    from .lookalike import resolved_scripts

    return resolved_scripts(ch)


def script_level(identifier: str) -> RestrictionLevel:
    """UTS #39 §5.2 judged by scripts alone (Identifier_Status left out): the level of
    ``identifier``'s script mix, ASCII_ONLY .. MINIMALLY_RESTRICTIVE."""
    from .lookalike import ALL_SCRIPTS, RestrictionLevel

    if identifier.isascii():
        return RestrictionLevel.ASCII_ONLY
    common = ALL_SCRIPTS
    rest: frozenset[str] | None = None  # scripts shared by every non-Latin character
    for ch in set(identifier):
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


def _script_names(identifier: str) -> str:
    from .lookalike import script_extensions, script_name

    names: list[str] = []
    for ch in identifier:
        for code in sorted(script_extensions(ch) - {"Zyyy", "Zinh"}):
            name = script_name(code)
            if name not in names:
                names.append(name)
    return " + ".join(names) or "Common"


def _cross_script(a: str, b: str) -> bool:
    """Two spellings with one skeleton that UTS #39 §4 calls mixed- or whole-script
    confusables: a reader takes one script for another (Cyrillic "а" for Latin "a").
    Single-script ones ("ı"/"i", "rn"/"m") and pairs of single characters (tables of
    characters in comments and tests) are left to linters."""
    if (a.isascii() and b.isascii()) or len(a) < 2 or len(b) < 2:
        return False
    from .lookalike import confusable

    kind = confusable(a, b)
    return kind is not None and kind.mixed_script


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
# character, 8 bytes at a time; a tenth of the twin's cost) or the pure-Python twin.  An
# extension built before source.c lacks it and ``identifiers``.
_NATIVE = speedups is not None and hasattr(speedups, "identifiers")
_source_lines = speedups.source_lines if _NATIVE and speedups else _source_lines_py


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
    from .lookalike import skeleton

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
    from .lookalike import skeleton

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
    from .lookalike import resolved_scripts

    return any("Latn" not in resolved_scripts(ident) for ident in wide if len(ident) > 1)


def _identifier_findings(
    text: str, shift: int, max_level: RestrictionLevel, lines: list[int]
) -> list[SourceFinding]:
    from .lookalike import IdentifierStatus, identifier_status, skeleton

    first = _identifiers(text, lines, True)  # identifiers that are not ASCII
    wide = list(first)
    if not wide:
        return []
    problems: dict[str, list[tuple[str, int, int, str, int | None]]] = {}
    for ident in wide:
        level = script_level(ident)
        if level > max_level:
            words = level.name.lower().replace("_", " ")
            limit = max_level.name.lower().replace("_", " ")
            why = (
                f"identifier {ident!r} mixes scripts {_script_names(ident)} "
                f"({words}, over {limit}; UTS #39 §5.2)"
            )
            problems.setdefault(ident, []).append(("mixed-script", 0, len(ident), why, None))
        for offset, ch in enumerate(ident):
            if ch.isascii() or identifier_status(ch) is not IdentifierStatus.RESTRICTED:
                continue
            looks = skeleton(ch)
            if looks and all(c in _SYNTAX for c in looks):
                why = (
                    f"{describe(ord(ch))} in identifier {ident!r} looks like {looks!r} "
                    "(UTS #39 §4 skeleton)"
                )
                problems.setdefault(ident, []).append(
                    ("syntax-lookalike", offset, offset + 1, why, ord(ch))
                )
    # §4: group spellings by skeleton; ASCII ones only join a group a wide one made,
    # so the whole text is read for them only when a skeleton could be theirs.
    groups: dict[str, set[str]] = {}
    for ident in wide if _may_cross_scripts(wide) else ():
        if len(ident) > 1:
            groups.setdefault(skeleton(ident), set()).add(ident)
    ascii_keys = {key for key in groups if key.isascii()}
    if ascii_keys:
        table = _ascii_skeletons()
        for ident, at in _ascii_spellings(text, ascii_keys).items():
            groups[skeleton(ident) if table is None else ident.translate(table)].add(ident)
            first[ident] = at
    groups = {k: v for k, v in groups.items() if len(v) > 1}
    if not problems and not groups:
        return []
    found = []
    for ident, items in problems.items():
        at = first[ident] + shift
        for kind, lo, hi, why, cp in items:
            found.append(
                SourceFinding(kind, at + lo, at + hi, Action.REJECT, why, cp, identifier=ident)
            )
    for spellings in groups.values():
        ordered = sorted(spellings, key=first.__getitem__)
        for i, ident in enumerate(ordered):
            seen = next((s for s in ordered[:i] if _cross_script(s, ident)), None)
            if seen is None:
                continue
            start, other = first[ident] + shift, first[seen] + shift
            found.append(
                SourceFinding(
                    "confusable", start, start + len(ident), Action.REJECT,
                    f"identifier {ident!r} ({_script_names(ident)}) looks like {seen!r} "
                    f"({_script_names(seen)}) elsewhere in the file (UTS #39 §4 skeleton)",
                    identifier=ident,
                    other=(other, other + len(seen), seen),
                )
            )  # fmt: skip
    return found
