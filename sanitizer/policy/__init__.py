"""Policies for untrusted text: what to do with each kind of character, as data.

A ``Policy`` is an immutable table (``Category`` -> ``Action``) plus limits and an optional
normalization form.  ``inspect`` applies it and reports every finding with its offset in
the caller's input (byte offsets for bytes, code-point indices for str); ``sanitize``
returns the cleaned text or raises ``PolicyError``.  Order of work, cheapest first and
limits before costly steps (HOWTO §5.9.5; UAX #15 §13): byte limit, strict decoding
(RFC 3629 §10: ill-formed bytes are findings, never silently decoded), one regex scan per
policy, combining-run limit, a code-point bound, normalization, then the same checks again
on what normalization produced (CWE-180: NFKC turns U+FF0F into '/').  Clean input is
decided first by one C pass over class tables (see "the C fast path" below).
"""

from __future__ import annotations

import bisect
import dataclasses
import enum
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..chardata import (
    CHARACTER_CATEGORIES,
    EMOJI,
    GRAPHIC,
    IDEOGRAPHIC,
    MARKS,
    MAX_NFD_EXPANSION,
    MONGOLIAN,
    NORMAL_FORMS,
    Category,
    NormalForm,
    Ranges,
    category_of,
    char_class,
    in_ranges,
    min_normalized_length,
    normalize,
    quick_class,
    utf8_pattern,
)
from ..charinfo import describe
from ..decoder import BACKEND, _runner, find_errors
from ..errors import Utf8Error

if TYPE_CHECKING:
    from collections.abc import Iterator


class Action(enum.Enum):
    """What a policy does with a finding."""

    REJECT = "reject"  # the whole input is refused: no text at all
    STRIP = "strip"  # the character (or excess marks) is removed
    REPLACE = "replace"  # the character becomes U+FFFD (Unicode §3.9 / §5.22 practice)
    ALLOW = "allow"  # kept, and reported as a finding (for audit logs)
    IGNORE = "ignore"  # kept silently: not even scanned for (the fast path)

    __hash__ = object.__hash__  # singletons: hash in C (Enum's __hash__ is Python)


_A = Action
_C = Category
_DROPPING = frozenset({Action.REJECT, Action.STRIP, Action.REPLACE})
_ALL = frozenset(Action)
# Actions each category accepts (a limit cannot be "stripped"; ill-formed bytes have no
# character to keep, so U+FFFD is the only alternative to rejecting).
_VALID_ACTIONS: dict[Category, frozenset[Action]] = {
    _C.ILL_FORMED: frozenset({_A.REJECT, _A.REPLACE}),
    _C.TOO_LONG: frozenset({_A.REJECT}),
    _C.DOT_SEGMENT: frozenset({_A.REJECT, _A.ALLOW, _A.IGNORE}),
    _C.EMPTY: frozenset({_A.REJECT, _A.ALLOW, _A.IGNORE}),
}

# The baseline every policy starts from: refuse what is never text (RFC 3629 §3, §10),
# keep everything else silently.  Profiles tighten it.
BASELINE: Mapping[Category, Action] = MappingProxyType(
    {
        **dict.fromkeys(Category, _A.IGNORE),
        _C.ILL_FORMED: _A.REJECT,
        _C.SURROGATE: _A.REJECT,
        _C.NUL: _A.REJECT,
        _C.TOO_LONG: _A.REJECT,
        _C.COMBINING_RUN: _A.REJECT,
    }
)


def _as_category(key: Category | str) -> Category:
    if isinstance(key, Category):
        return key
    try:
        return Category[key.upper().replace("-", "_")]
    except KeyError:
        names = ", ".join(c.name for c in Category)
        raise ValueError(f"unknown category {key!r}; known: {names}") from None


def _as_action(value: Action | str) -> Action:
    if isinstance(value, Action):
        return value
    try:
        return Action(value.lower())
    except ValueError:
        names = ", ".join(a.value for a in Action)
        raise ValueError(f"unknown action {value!r}; known: {names}") from None


@dataclass(frozen=True)
class _FastPath:
    ascii_allowed: bytes  # ASCII bytes in no scanned category
    refused_values: frozenset[bytes]  # whole values with a finding ("", ".", "..")


@dataclass(frozen=True)
class Policy:
    """An immutable, composable policy.  Derive variants in one line::

        profiles.TEXT.with_actions(CONTROL=Action.STRIP)
        profiles.IDENTIFIER.replace(max_code_points=32, normalization="NFKC_CASEFOLD")

    ``actions`` given to the constructor are merged over ``BASELINE``.  ``normalization``
    is the form of the output; ``also_check`` is a further form the output must also pass
    (FILENAME: a later NFKC step must not create '/' or '..').  ``allow_sequences``
    exempts well-formed emoji ZWJ and tag sequences and variation sequences (UTS #51,
    UTS #37) from JOINER, TAG and VARIATION_SELECTOR.
    """

    name: str = "custom"
    actions: Mapping[Category, Action] = field(default_factory=dict)
    max_bytes: int | None = None  # UTF-8 length of the input, checked first
    max_code_points: int | None = None  # length of the output (after normalization)
    max_combining: int | None = None  # longest run of combining marks (UAX #15 §13: 30)
    normalization: NormalForm | None = None
    also_check: NormalForm | None = None
    allow_sequences: bool = False
    description: str = field(default="", compare=False)
    _scanned: frozenset[Category] = field(init=False, repr=False, compare=False)
    _strict: frozenset[Category] = field(init=False, repr=False, compare=False)
    _fast: _FastPath = field(init=False, repr=False, compare=False)
    # The C fast path's arguments for sanitize and for inspect, prepared on first use.
    _cfast: tuple[Any, ...] | None = field(init=False, repr=False, compare=False)
    _cinspect: tuple[Any, ...] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        merged = dict(BASELINE)
        for key, value in self.actions.items():
            merged[_as_category(key)] = _as_action(value)
        for cat, act in merged.items():
            valid = _VALID_ACTIONS.get(cat, _ALL)
            if act not in valid:
                allowed = ", ".join(sorted(a.name for a in valid))
                raise ValueError(f"{cat.name} cannot be {act.name}; use one of {allowed}")
        object.__setattr__(self, "actions", MappingProxyType(merged))
        # Derived once: what the scanners look for (policies are values, so this is safe).
        scanned = frozenset(c for c, a in merged.items() if a is not Action.IGNORE)
        strict = frozenset(c for c, a in merged.items() if a in _DROPPING)
        object.__setattr__(self, "_scanned", scanned)
        object.__setattr__(self, "_strict", strict)
        ascii_scanned = {
            cp
            for c in scanned
            for lo, hi in c.ranges
            if lo < 0x80
            for cp in range(lo, min(hi, 0x7F) + 1)
        }
        refused = {b"": _C.EMPTY, b".": _C.DOT_SEGMENT, b"..": _C.DOT_SEGMENT}
        object.__setattr__(
            self,
            "_fast",
            _FastPath(
                bytes(b for b in range(0x80) if b not in ascii_scanned),
                frozenset(v for v, c in refused.items() if merged[c] is not Action.IGNORE),
            ),
        )
        object.__setattr__(self, "_cfast", None)
        object.__setattr__(self, "_cinspect", None)
        for form in (self.normalization, self.also_check):
            if form is not None and form not in NORMAL_FORMS:
                raise ValueError(f"normalization must be None or one of {NORMAL_FORMS}")
        for limit in ("max_bytes", "max_code_points", "max_combining"):
            value = getattr(self, limit)
            if value is not None and (not isinstance(value, int) or value < 0):
                raise ValueError(f"{limit} must be None or an int >= 0, not {value!r}")

    def __hash__(self) -> int:
        # Computed once: policies key caches (lru_cache), and _key() sorts every action.
        cached: int | None = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(self._key())
            object.__setattr__(self, "_hash", cached)
        return cached

    def _key(self) -> tuple[Any, ...]:
        acts = tuple(sorted((c.name, a.name) for c, a in self.actions.items()))
        return (
            acts,
            self.max_bytes,
            self.max_code_points,
            self.max_combining,
            self.normalization,
            self.also_check,
            self.allow_sequences,
        )

    def action(self, category: Category | str) -> Action:
        """The action for ``category``."""
        return self.actions[_as_category(category)]

    def with_actions(
        self, changes: Mapping[Category | str, Action | str] | None = None, /, **by_name: Action
    ) -> Policy:
        """A copy with some actions changed: ``p.with_actions(CONTROL=Action.STRIP)``."""
        merged: dict[Category, Action] = dict(self.actions)
        for key, value in [*(changes or {}).items(), *by_name.items()]:
            merged[_as_category(key)] = _as_action(value)
        return dataclasses.replace(self, actions=merged)

    def replace(self, **changes: Any) -> Policy:
        """A copy with fields changed, like ``dataclasses.replace``."""
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (for docs and ``sanitizer check``)."""
        return {
            "name": self.name,
            "normalization": self.normalization,
            "also_check": self.also_check,
            "max_bytes": self.max_bytes,
            "max_code_points": self.max_code_points,
            "max_combining": self.max_combining,
            "allow_sequences": self.allow_sequences,
            "actions": {c.value: a.value for c, a in self.actions.items()},
        }


@dataclass(frozen=True)
class Finding:
    """One thing a policy noticed.  ``start``/``end`` are byte offsets into bytes input and
    code-point indices into str input.  ``codepoint`` is the character (None for
    ill-formed bytes and whole-input findings), ``raw`` the ill-formed bytes and ``error``
    the decoder's ``Utf8Error``.  ``produced`` is set when the problem appears only after
    normalization: it is what ``codepoint`` normalizes to (CWE-180)."""

    category: Category
    start: int
    end: int
    action: Action
    codepoint: int | None = None
    raw: bytes | None = None
    error: Utf8Error | None = None
    produced: str | None = None
    form: str | None = None  # the normal form that produced the problem, if any

    def reason(self) -> str:
        """What was found, in words (without category, offsets and action)."""
        if self.error is not None:
            return f"bytes {self.error.hex}: {self.error.reason}"
        if self.codepoint is not None:
            what = describe(self.codepoint)
            if self.produced is not None:
                made = " ".join(f"U+{ord(c):04X}" for c in self.produced)
                what += f" becomes {made} {self.produced!r} under {self.form}"
            return what
        if self.category is Category.COMBINING_RUN:
            return "run of combining marks over the limit"
        return "input" if self.form is None else f"input under {self.form}"

    def __str__(self) -> str:
        return (
            f"{self.category.value} at {self.start}..{self.end}: {self.reason()} "
            f"({self.action.value})"
        )

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (used by ``sanitizer check --policy``)."""
        out: dict[str, Any] = {
            "category": self.category.value,
            "start": self.start,
            "end": self.end,
            "action": self.action.value,
            "reason": self.reason(),
        }
        if self.codepoint is not None:
            out["code_point"] = f"U+{self.codepoint:04X}"
        if self.error is not None:
            out["bytes"] = self.error.hex
            out["kind"] = self.error.kind.value
        if self.produced is not None:
            out["produced"] = self.produced
            out["form"] = self.form
        return out


@dataclass(frozen=True)
class Report:
    """What ``inspect`` found: ``ok`` is False when the policy rejects the input, and then
    ``text`` is None (a rejected input never yields partial text)."""

    ok: bool
    text: str | None
    findings: tuple[Finding, ...]
    policy: Policy = field(repr=False)

    @property
    def rejections(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.action is Action.REJECT)

    def __bool__(self) -> bool:
        return self.ok


class PolicyError(ValueError):
    """``sanitize`` refused the input; ``.report`` and ``.findings`` say why."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.findings = report.findings
        why = report.rejections or report.findings
        more = f" (and {len(why) - 1} more)" if len(why) > 1 else ""
        first = str(why[0]) if why else "rejected"
        super().__init__(f"rejected by policy {report.policy.name!r}: {first}{more}")


# -- compiled scanners (one per distinct set of scanned categories) ----------------------
# Candidates are found in C: a bytes.translate decides Latin-1 input; otherwise one ``re``
# search with a bitmap class covers the BMP and, only when the input has supplementary
# characters, a byte-class pattern runs over its UTF-8 (chardata.utf8_pattern).  Clean
# input never reaches Python code per character.  Each hit is classified with
# category_of and, for the three categories with sequence exemptions, by its neighbours.

_CONTEXTUAL = frozenset({_C.JOINER, _C.VARIATION_SELECTOR, _C.TAG})


def _merge(*parts: Ranges) -> Ranges:
    out: list[list[int]] = []
    for lo, hi in sorted(r for part in parts for r in part):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((lo, hi) for lo, hi in out)


# UTS #51 ED-16: an emoji ZWJ sequence joins emoji, each maybe with VS16 or a tag end.
_ZWJ_BEFORE = _merge(EMOJI, ((0xFE0F, 0xFE0F), (0xE007F, 0xE007F)))
# Bases for variation selectors: standardized variation sequences and emoji presentation
# (FE00..FE0F after a graphic character), ideographic variation sequences (UTS #37),
# Mongolian free variation selectors.
_VS_BASES: tuple[tuple[int, int, Ranges], ...] = (
    (0xFE00, 0xFE0F, GRAPHIC),
    (0xE0100, 0xE01EF, IDEOGRAPHIC),
    (0x180B, 0x180F, MONGOLIAN),
)
_TAG_BASE = 0x1F3F4  # UTS #51 ED-14a: tag_base for subdivision flags
_TAG_END = 0xE007F
_TAG_SPEC = ((0xE0030, 0xE0039), (0xE0061, 0xE007A))  # digits, lowercase letters
_TAG_SPEC_LENGTH = (2, 7)  # subdivision codes are short; bounds what a "flag" can carry


def _tag_run_ok(text: str, i: int, cache: dict[int, bool]) -> bool:
    """Whether the run of tag characters around ``text[i]`` is an emoji tag sequence."""
    j = i
    while j > 0 and 0xE0000 <= ord(text[j - 1]) <= 0xE007F:
        j -= 1
    if j in cache:
        return cache[j]
    k = i + 1
    while k < len(text) and 0xE0000 <= ord(text[k]) <= 0xE007F:
        k += 1
    spec = [ord(c) for c in text[j : k - 1]]
    ok = (
        j > 0
        and ord(text[j - 1]) == _TAG_BASE
        and ord(text[k - 1]) == _TAG_END
        and _TAG_SPEC_LENGTH[0] <= len(spec) <= _TAG_SPEC_LENGTH[1]
        and all(in_ranges(c, _TAG_SPEC) for c in spec)
    )
    cache[j] = ok
    return ok


def _in_sequence(text: str, i: int, cat: Category, cache: dict[int, bool]) -> bool:
    """Whether ``text[i]`` (JOINER, VARIATION_SELECTOR or TAG) is inside a well-formed
    sequence that allow_sequences exempts."""
    cp = ord(text[i])
    prev = ord(text[i - 1]) if i > 0 else -1
    if cat is _C.JOINER:
        if cp != 0x200D or i + 1 >= len(text):  # ZWNJ is never exempt
            return False
        return in_ranges(prev, _ZWJ_BEFORE) and in_ranges(ord(text[i + 1]), EMOJI)
    if cat is _C.VARIATION_SELECTOR:
        for lo, hi, bases in _VS_BASES:
            if lo <= cp <= hi:
                return in_ranges(prev, bases)
        return False
    return _tag_run_ok(text, i, cache)


@dataclass(frozen=True)
class _Scanner:
    cats: frozenset[Category]
    bmp: re.Pattern[str] | None  # scanned characters below U+10000 (a bitmap class)
    astral: re.Pattern[bytes] | None  # scanned supplementary characters, over UTF-8
    latin1_allowed: bytes  # U+0000..00FF not scanned (bytes.translate fast path)


def _emoji_first(ranges: Ranges) -> str:
    """A class body with the emoji blocks' ranges first: ``re`` tests supplementary ranges
    in order, and emoji are the supplementary characters text is most likely to hold."""
    first = [r for r in ranges if 0x1F000 <= r[0] <= 0x1FBFF]
    return char_class(first + [r for r in ranges if r not in first])


def _exemptions() -> str:
    """Lookarounds that drop BMP candidates inside well-formed sequences (the same rules
    as _in_sequence, evaluated by ``re`` at candidate positions only)."""
    zwj_before, emoji, graphic = (_emoji_first(r) for r in (_ZWJ_BEFORE, EMOJI, GRAPHIC))
    mongolian = char_class(MONGOLIAN)
    return (
        f"(?<!\u200d(?<=[{zwj_before}]\u200d)(?=[{emoji}]))"
        f"(?<![\ufe00-\ufe0f](?<=[{graphic}][\ufe00-\ufe0f]))"
        f"(?<![\u180b-\u180d\u180f](?<=[{mongolian}][\u180b-\u180d\u180f]))"
    )


@functools.lru_cache(maxsize=64)
def _scanner(cats: frozenset[Category], sequences: bool) -> _Scanner:
    ranges = sorted(r for c in CHARACTER_CATEGORIES if c in cats for r in c.ranges)
    bmp = [(lo, min(hi, 0xFFFF)) for lo, hi in ranges if lo <= 0xFFFF]
    astral = [(max(lo, 0x10000), hi) for lo, hi in ranges if hi > 0xFFFF]
    low = {cp for lo, hi in bmp if lo <= 0xFF for cp in range(lo, min(hi, 0xFF) + 1)}
    exempt = _exemptions() if sequences and cats & {_C.JOINER, _C.VARIATION_SELECTOR} else ""
    return _Scanner(
        cats,
        re.compile(f"[{char_class(bmp)}]{exempt}") if bmp else None,
        re.compile(utf8_pattern(astral).encode("ascii")) if astral else None,
        bytes(b for b in range(0x100) if b not in low),
    )


@functools.lru_cache(maxsize=16)
def _mark_run(limit: int, astral: bool) -> re.Pattern[str]:
    """Candidates for more than ``limit`` combining marks in a row (see quick_class; BMP
    marks only when the text has no supplementary characters).  The leading single class
    lets ``re`` skip other characters in its C search loop."""
    bmp = [(lo, min(hi, 0xFFFF)) for lo, hi in MARKS if lo <= 0xFFFF]
    mark = f"[{quick_class(MARKS) if astral else char_class(bmp)}]"
    return re.compile(f"{mark}{mark}{{{limit},}}")


def _mark_runs(text: str, limit: int, astral: bool = True) -> Iterator[tuple[int, int]]:
    """(start, end) of every run of more than ``limit`` combining marks (UAX #15 §13)."""
    for m in _mark_run(limit, astral).finditer(text):
        start = None
        for i in range(m.start(), m.end() + 1):
            is_mark = i < m.end() and in_ranges(ord(text[i]), MARKS)
            if is_mark and start is None:
                start = i
            elif not is_mark and start is not None:
                if i - start > limit:
                    yield start, i
                start = None


_NON_ASCII = re.compile("[^\\x00-\\x7f]")
_ANY = re.compile(".", re.DOTALL)
_LEADS_4 = (b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")  # RFC 3629 §4: 4-byte leads


class _Indexer:
    """Byte offsets into ``data`` (the UTF-8 of ``text``) -> indices into ``text``, for
    non-decreasing queries; each byte is decoded at most once."""

    def __init__(self, text: str, data: bytes) -> None:
        self.data = data
        self.b = 0
        self.i = 0

    def __call__(self, b: int) -> int:
        self.i += len(self.data[self.b : b].decode("utf-8", "surrogatepass"))
        self.b = b
        return self.i


def _has_astral(utf8: bytes) -> bool:
    """Whether UTF-8 ``utf8`` holds a supplementary character (memchr-fast)."""
    return any(lead in utf8 for lead in _LEADS_4)


def _is_latin1(text: str) -> bool:
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


def _hits(
    text: str, scanner: _Scanner, sequences: bool, utf8: bytes | None = None
) -> Iterator[tuple[Category, int]]:
    """(category, index) of every scanned character in ``text``; ``utf8`` is its UTF-8
    when the caller has it.  Candidates come from the two patterns; Python code runs only
    per candidate."""
    try:
        low = utf8 if utf8 is not None and utf8.isascii() else text.encode("latin-1")
    except UnicodeEncodeError:
        pass
    else:  # every character below U+0100: one translate decides (no marks, no sequences)
        if not low.translate(None, scanner.latin1_allowed):
            return
        assert scanner.bmp is not None
        for m in scanner.bmp.finditer(text):
            cat = category_of(ord(m.group()))
            if cat is not None:
                yield cat, m.start()
        return
    found: list[int] = [m.start() for m in scanner.bmp.finditer(text)] if scanner.bmp else []
    if scanner.astral is not None:
        data = utf8 if utf8 is not None else text.encode("utf-8", "surrogatepass")
        if _has_astral(data):
            index = _Indexer(text, data)
            more = [index(m.start()) for m in scanner.astral.finditer(data)]
            if more:
                found = sorted(found + more)
    cache: dict[int, bool] = {}
    for i in found:
        cat = category_of(ord(text[i]))
        if cat is None or cat not in scanner.cats:  # pragma: no cover - classes are exact
            continue
        if sequences and cat in _CONTEXTUAL and _in_sequence(text, i, cat, cache):
            continue
        yield cat, i


# -- offsets: code-point index -> byte offset, computed only when there are findings ------


class _ByteOffsets:
    """Maps indices into the decoded text to byte offsets into the original bytes.

    Anchors sit at the start and at every ill-formed subpart (one U+FFFD in the text, any
    number of bytes in the input); between anchors the text is valid and re-encodes to
    exactly the input bytes (RFC 3629 §3: one encoding per scalar value)."""

    def __init__(self, text: str, errors: list[Utf8Error], error_index: list[int]) -> None:
        self.text = text
        self.anchors_t = [0]
        self.anchors_b = [0]
        for err, t in zip(errors, error_index, strict=True):
            self.anchors_t += [t, t + 1]
            self.anchors_b += [err.start, err.end]
        self.last = (0, 0)  # (index, byte) of the previous query

    def __call__(self, i: int) -> int:
        k = bisect.bisect_right(self.anchors_t, i) - 1
        t, b = self.anchors_t[k], self.anchors_b[k]
        if t <= self.last[0] <= i:
            t, b = self.last
        b += len(self.text[t:i].encode("utf-8", "surrogatepass"))
        self.last = (i, b)
        return b


def _utf8_length(text: str, limit: int) -> int:
    """UTF-8 length of ``text``, or any value > limit as soon as it must exceed it."""
    if len(text) > limit:
        return len(text)
    if len(text) * 4 <= limit:
        return len(text)  # cannot exceed: a lower bound is enough
    return len(text.encode("utf-8", "surrogatepass"))


def inspect(data: bytes | bytearray | memoryview | str, policy: Policy | None = None) -> Report:
    """Apply ``policy`` (default ``profiles.TEXT``) to ``data``; never raises for content."""
    if policy is None:
        policy = _default_policy()
    text = _fast_text(data, policy, policy._cinspect or _prepare_fast(policy, report=True))
    if text is not None:
        return Report(True, text, (), policy)
    return _Run(data, policy).report()


def accepts(data: bytes | bytearray | memoryview | str, policy: Policy | None = None) -> bool:
    """``inspect(data, policy).ok`` without building a Report when the fast path can
    decide: for callers that only need the verdict, many times a request (sanitizer.web)."""
    if policy is None:
        policy = _default_policy()
    if _fast_text(data, policy, policy._cfast or _prepare_fast(policy)) is not None:
        return True  # nothing to refuse, strip or replace
    return _Run(data, policy).report().ok


def sanitize(data: bytes | bytearray | memoryview | str, policy: Policy | None = None) -> str:
    """The cleaned text under ``policy`` (default ``profiles.TEXT``), or ``PolicyError``."""
    if policy is None:
        policy = _default_policy()
    text = _fast_text(data, policy, policy._cfast or _prepare_fast(policy))
    if text is not None:
        return text
    report = _Run(data, policy).report()
    if report.text is None:
        raise PolicyError(report)
    return report.text


def _fast_text(data: object, policy: Policy, fast: tuple[Any, ...]) -> str | None:
    """The answer for input the fast paths can decide (no finding, nothing to change), or
    None for "take _Run".  ``fast`` is the policy's cached C arguments and whether no
    whole-value check applies (``plain``): then one C call decides (see _prepare_fast)."""
    args, plain = fast
    text: str | None = None
    if plain:
        text = _clean(data, *args)
    elif args is not None:
        text = _clean_checked(data, policy, args)
    return text if text is not None else _fast_ascii(data, policy)


def _fast_ascii(data: object, policy: Policy) -> str | None:
    """The answer for short, clean ASCII input -- most web input -- with no per-call setup;
    None means "take the full path" (which decides everything again)."""
    if isinstance(data, bytes):
        raw = data
    elif isinstance(data, str):
        if not data.isascii():
            return None
        raw = data.encode("ascii")
    else:
        return None
    if not _ascii_clean(raw, policy):
        return None
    text = raw.decode("ascii")
    return text.lower() if policy.normalization == "NFKC_CASEFOLD" else text


def _ascii_clean(raw: bytes, policy: Policy) -> bool:
    """True if ``raw`` is ASCII with nothing ``policy`` scans for and within its limits:
    then it is its own clean text (also used per value by sanitizer.web)."""
    if not raw.isascii() or (policy.max_bytes is not None and len(raw) > policy.max_bytes):
        return False
    fast = policy._fast
    if raw.translate(None, fast.ascii_allowed) or raw in fast.refused_values:
        return False  # a scanned character, or a whole-value finding (EMPTY, DOT_SEGMENT)
    return policy.max_code_points is None or len(raw) <= policy.max_code_points


def _judges_whole_values(policy: Policy) -> bool:
    """Whether a check looks at the value as a whole (a byte or code-point limit, EMPTY,
    DOT_SEGMENT): if not, a text passes iff each piece cut before an ASCII byte passes."""
    return (
        policy.max_bytes is not None
        or policy.max_code_points is not None
        or bool(policy._fast.refused_values)
    )


_DEFAULT: list[Policy] = []


def _default_policy() -> Policy:
    if not _DEFAULT:
        from ..profiles import TEXT

        _DEFAULT.append(TEXT)
    return _DEFAULT[0]


# -- the C fast path ---------------------------------------------------------------------
# Most input breaks no rule.  For it, the answer is the input itself: no finding, no
# edit, and normalization changes nothing when no character is normalization-sensitive
# (UAX #15 §9: a string whose characters all have Quick_Check=Yes and ccc=0 is in that
# form).  So one C pass (_speedups.clean: strict decode, then a class-table scan, see
# _classtable) decides whether a value is clean; anything it flags takes _Run, which
# decides everything again.  The C code only indexes tables built here from the policy.

_clean: Any = getattr(_runner, "clean", None) if BACKEND == "c" else None
_RULE_SIZE = 514  # prev_ok[257] + next_ok[257]


def _c_tables(policy: Policy, report: bool) -> tuple[bytes, int]:
    """The policy as tables over character classes (layout in _classtable.scan_reference)
    and the mark-run limit (-1: none).  ``report``: flag every scanned category (inspect
    lists ALLOW findings); else only the ones that change or refuse text (sanitize
    returns the same text whether or not an ALLOW finding was made)."""
    from .. import _classtable as ct

    info = ct.class_table().info
    forms = {policy.normalization, policy.also_check}
    sensitive = set()
    if "NFC" in forms:
        sensitive.add(ct.NFC)
    if "NFKC" in forms:
        sensitive.add(ct.NFKC)
    if "NFKC_CASEFOLD" in forms:
        sensitive |= {ct.NFKC, ct.CASEFOLD}
    scanned = policy._scanned if report else policy._strict
    runs = policy.max_combining is not None and _C.COMBINING_RUN in scanned
    # Sequence rules (as _in_sequence): the flag a character has, its category, and what
    # the previous / next character must be (None: anything, even nothing).
    rule_defs: list[tuple[str, Category, frozenset[str], frozenset[str] | None]] = [
        (ct.ZWJ, _C.JOINER, frozenset({ct.EMOJI, ct.VS16, ct.TAG_END}), frozenset({ct.EMOJI})),
        (ct.VS_STANDARD, _C.VARIATION_SELECTOR, frozenset({ct.GRAPHIC}), None),
        (ct.VS_IDEOGRAPHIC, _C.VARIATION_SELECTOR, frozenset({ct.IDEOGRAPHIC}), None),
        (ct.VS_MONGOLIAN, _C.VARIATION_SELECTOR, frozenset({ct.MONGOLIAN}), None),
    ]
    flags = bytearray(256)
    rule = bytearray(256)
    for c, (cat, fl) in enumerate(info):
        by_category = cat in scanned
        by_form = bool(fl & sensitive)
        flags[c] = (by_category or by_form) | (2 if runs and ct.MARK in fl else 0)
        if by_category and not by_form and policy.allow_sequences:
            for r, (flag, rcat, _, _) in enumerate(rule_defs, 1):
                if cat is rcat and flag in fl:
                    rule[c] = r
                    break
    rules = bytearray()
    for _, _, prev, nxt in rule_defs:
        prev_ok = bytes(bool(fl & prev) for _, fl in info).ljust(256, b"\0") + b"\0"
        if nxt is None:
            next_ok = b"\1" * 257
        else:
            next_ok = bytes(bool(fl & nxt) for _, fl in info).ljust(256, b"\0") + b"\0"
        rules += prev_ok + next_ok
    assert len(rules) == len(rule_defs) * _RULE_SIZE
    table = ct.class_table()
    prefilter = ct.prefilter([b for b in range(0x7F) if flags[table.class_of(b)]])
    max_run = policy.max_combining if runs and policy.max_combining is not None else -1
    return bytes(flags + rule + prefilter + rules), max_run


def _prepare_fast(policy: Policy, report: bool = False) -> tuple[Any, ...]:
    """(C arguments, plain) for ``policy``, cached on it (``_cinspect`` when ``report``,
    else ``_cfast``); plain means no whole-value check applies (no byte or code-point
    limit, EMPTY and DOT_SEGMENT ignored)."""
    if _clean is None:
        fast: tuple[Any, ...] = (None, False)
    else:
        from .._classtable import class_table

        table = class_table()
        tables, max_run = _c_tables(policy, report)
        plain = not _judges_whole_values(policy)
        fast = ((table.stage1, table.stage2, tables, max_run), plain)
    object.__setattr__(policy, "_cinspect" if report else "_cfast", fast)
    return fast


def _clean_checked(data: object, policy: Policy, args: tuple[Any, ...]) -> str | None:
    """The C fast path plus the whole-value checks _Run would make on clean text: the
    byte limit first, then '' / '.' / '..' (a clean text is its own NFC and NFKC, so
    also_check cannot make it '..') and the code-point limit."""
    limit = policy.max_bytes
    if limit is not None:
        if isinstance(data, bytes):
            if len(data) > limit:
                return None
        elif isinstance(data, str):
            if _utf8_length(data, limit) > limit:
                return None
        else:
            return None
    text: str | None = _clean(data, *args)
    if text is None:
        return None
    if len(text) <= 2 and text.encode("utf-8", "surrogatepass") in policy._fast.refused_values:
        return None
    if policy.max_code_points is not None and len(text) > policy.max_code_points:
        return None
    return text


class _Run:
    """One application of a policy to one input (keeps the state out of the hot path)."""

    def __init__(self, data: object, policy: Policy) -> None:
        if isinstance(data, str):
            self.raw: bytes | None = None
            self.text = data
        elif isinstance(data, (bytes, bytearray, memoryview)):
            self.raw = bytes(data)
            self.text = ""
        else:
            raise TypeError(f"inspect() takes bytes or str, not {type(data).__name__}")
        self.policy = policy
        self.acts = policy.actions
        self.findings: list[Finding] = []  # start/end are text indices until _finish
        self.index_findings: list[Finding] = []
        self.errors: list[Utf8Error] = []
        self.error_index: list[int] = []
        self.edits: dict[int, str] = {}  # text index -> replacement ("" strips)
        self.range_edits: list[tuple[int, int, str]] = []
        self.rejected = False

    def _add(self, finding: Finding, *, is_index: bool = True) -> None:
        (self.index_findings if is_index else self.findings).append(finding)
        if finding.action is Action.REJECT:
            self.rejected = True

    def _input_len(self) -> int:
        return len(self.raw) if self.raw is not None else len(self.text)

    def _whole(self, cat: Category, form: str | None = None) -> None:
        """A finding about the whole input (limits, dot segments, emptiness)."""
        act = self.acts[cat]
        if act is not Action.IGNORE:
            self._add(Finding(cat, 0, self._input_len(), act, form=form), is_index=False)

    def _refuse_whole(self, cat: Category, form: str | None) -> None:
        """A problem no single input character accounts for: the input is refused."""
        finding = Finding(cat, 0, self._input_len(), Action.REJECT, form=form)
        self._add(finding, is_index=False)

    def report(self) -> Report:
        text = self._run()
        findings = self._finish()
        ok = not self.rejected
        return Report(ok, text if ok else None, findings, self.policy)

    # -- steps ---------------------------------------------------------------------------

    def _run(self) -> str | None:
        p = self.policy
        if p.max_bytes is not None:
            size = len(self.raw) if self.raw is not None else _utf8_length(self.text, p.max_bytes)
            if size > p.max_bytes:
                self._whole(_C.TOO_LONG)
                return None
        if self.raw is not None:
            self._decode(self.raw)
        text = self.text
        is_ascii = text.isascii()
        is_latin1 = is_ascii or _is_latin1(text)
        utf8 = self.raw if self.raw is not None and not self.errors else None
        for cat, i in _hits(text, _scanner(p._scanned, p.allow_sequences), p.allow_sequences, utf8):
            act = self.acts[cat]
            self._add(Finding(cat, i, i + 1, act, codepoint=ord(text[i])))
            if act is Action.STRIP or act is Action.REPLACE:
                self.edits[i] = "" if act is Action.STRIP else "\ufffd"
        if not is_latin1:  # no combining marks below U+0300
            self._combining_runs(text)
        if self.rejected:
            return None
        edited = self._edited()
        if p.max_code_points is not None:
            if min_normalized_length(p.normalization, len(edited)) > p.max_code_points:
                self._whole(_C.TOO_LONG, p.normalization)  # cheap bound, before normalizing
                return None
        out = self._normalized_and_rechecked(edited, is_ascii, is_latin1)
        if out is None:
            return None
        return self._final_checks(out)

    def _decode(self, raw: bytes) -> None:
        try:
            self.text = raw.decode("utf-8")  # CPython's codec accepts exactly RFC 3629 §4
            return
        except UnicodeDecodeError:
            pass
        self.errors = find_errors(raw)
        act = self.acts[_C.ILL_FORMED]
        pieces: list[str] = []
        pos = 0
        length = 0
        for err in self.errors:
            piece = raw[pos : err.start].decode("utf-8")
            pieces += [piece, "\ufffd"]
            length += len(piece)
            self.error_index.append(length)
            length += 1
            pos = err.end
            self._add(
                Finding(_C.ILL_FORMED, err.start, err.end, act, raw=err.sequence, error=err),
                is_index=False,
            )
        pieces.append(raw[pos:].decode("utf-8"))
        self.text = "".join(pieces)

    def _combining_runs(self, text: str) -> None:
        limit = self.policy.max_combining
        act = self.acts[_C.COMBINING_RUN]
        if limit is None or act is Action.IGNORE:
            return
        astral = self.raw is None or bool(self.errors) or _has_astral(self.raw)
        for start, end in _mark_runs(text, limit, astral):
            self._add(Finding(_C.COMBINING_RUN, start, end, act))
            if act is Action.STRIP or act is Action.REPLACE:
                repl = "" if act is Action.STRIP else "\ufffd"
                self.range_edits.append((start + limit, end, repl))

    def _edited(self) -> str:
        """The input text with strip/replace edits applied."""
        if not self.edits and not self.range_edits:
            return self.text
        spans = sorted(
            [(i, i + 1, r) for i, r in self.edits.items()] + self.range_edits,
            key=lambda e: (e[0], -e[1]),
        )
        out: list[str] = []
        pos = 0
        for start, end, repl in spans:
            if start < pos:  # inside a span already edited (a char inside a stripped run)
                continue
            out += [self.text[pos:start], repl]
            pos = end
        out.append(self.text[pos:])
        return "".join(out)

    def _normalized_and_rechecked(self, edited: str, is_ascii: bool, is_latin1: bool) -> str | None:
        """Normalize, then check every form the policy names again (CWE-180), attributing
        new problems to the input characters that produce them; at most three rounds."""
        p = self.policy
        forms = [f for f in (p.normalization, p.also_check) if f is not None]
        if not forms or (is_ascii and "NFKC_CASEFOLD" not in forms):
            return edited  # ASCII is invariant under NFC and NFKC (UAX #15 §1.1)
        if is_latin1 and forms == ["NFC"] and "\ufffd" not in edited:
            return edited  # U+0000..00FF: all NFC_Quick_Check=Yes starters (UAX #15 §9)
        scanner = _scanner(p._strict, p.allow_sequences)
        for _ in range(3):
            pending: dict[str, set[Category]] = {}
            values: dict[str, str] = {}
            form: str
            for form in forms:
                value = values[form] = normalize(form, edited)
                if value != edited:
                    hits = {cat for cat, _ in _hits(value, scanner, p.allow_sequences)}
                    if hits:
                        pending[form] = hits
            if not pending:
                return values[p.normalization] if p.normalization else edited
            for form, hits in pending.items():
                self._attribute(form, hits)
            if self.rejected:
                return None
            edited = self._edited()
        for form, hits in pending.items():  # stripping keeps producing problems: refuse
            for cat in hits:
                self._refuse_whole(cat, form)
        return None

    def _attribute(self, form: str, cats: set[Category]) -> None:
        """Find the input characters whose ``form`` contains a character in ``cats``."""
        found = False
        chars = _ANY if form == "NFKC_CASEFOLD" else _NON_ASCII
        for m in chars.finditer(self.text):
            i, ch = m.start(), m.group()
            if i in self.edits:
                continue
            produced = normalize(form, ch)
            if produced == ch:
                continue
            for c in produced:
                cat = category_of(ord(c))
                if cat in cats:
                    act = self.acts[cat]
                    self._add(
                        Finding(cat, i, i + 1, act, codepoint=ord(ch), produced=produced, form=form)
                    )
                    if act is Action.STRIP or act is Action.REPLACE:
                        self.edits[i] = "" if act is Action.STRIP else "\ufffd"
                    found = True
                    break
        if not found:  # made by composition across characters: refuse the whole input
            for cat in cats:
                self._refuse_whole(cat, form)

    def _final_checks(self, out: str) -> str | None:
        p = self.policy
        limit = p.max_combining
        checks_runs = limit is not None and self.acts[_C.COMBINING_RUN] in _DROPPING
        if checks_runs and out != self.text and not _is_latin1(out):
            if any(_mark_runs(out, limit or 0)):  # a run that stripping or normalizing made
                self._refuse_whole(_C.COMBINING_RUN, p.normalization)
        if out in (".", ".."):
            self._whole(_C.DOT_SEGMENT)
        elif (
            p.also_check is not None
            and len(out) <= 2 * MAX_NFD_EXPANSION  # longer never normalizes to '..'
            and normalize(p.also_check, out) in (".", "..")
        ):
            self._whole(_C.DOT_SEGMENT, p.also_check)
        if not out:
            self._whole(_C.EMPTY)
        if p.max_code_points is not None and len(out) > p.max_code_points:
            self._whole(_C.TOO_LONG, p.normalization)
        return None if self.rejected else out

    def _finish(self) -> tuple[Finding, ...]:
        """Index findings to byte offsets (bytes input), merged in input order."""
        found = self.index_findings
        if found and self.raw is not None:
            to_byte = _ByteOffsets(self.text, self.errors, self.error_index)
            found = [
                dataclasses.replace(f, start=to_byte(f.start), end=to_byte(f.end)) for f in found
            ]
        everything = found + self.findings
        everything.sort(key=lambda f: (f.start, f.end))
        return tuple(everything)
