"""The policy model: what a policy is and what applying one produces, as plain values.

``Action``, ``Policy``, ``Finding``, ``Report`` and ``PolicyError`` hold data and say it
in words; they know nothing of scanning.  A ``Policy`` is frozen and hashable, so the
fast paths derive their tables from it once (``compiled.compile_policy``) instead of
caching anything on it.  ``profiles`` imports only this module.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from .._arguments import bad_type, exact_str, type_name
from .._categories import NORMAL_FORMS, Category
from .._charnames import describe
from .._errors import Utf8Error

if TYPE_CHECKING:  # imported when a policy names a level: other policies never load it
    from typing import Any

    from .._categories import NormalForm
    from .._lookalike import RestrictionLevel


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
# Actions that refuse or change text (sanitize's answer depends on them; ALLOW's does not).
DROPPING = frozenset({Action.REJECT, Action.STRIP, Action.REPLACE})
_ALL = frozenset(Action)
# Actions each category accepts (a limit cannot be "stripped"; ill-formed bytes have no
# character to keep, so U+FFFD is the only alternative to rejecting).
_VALID_ACTIONS: dict[Category, frozenset[Action]] = {
    _C.ILL_FORMED: frozenset({_A.REJECT, _A.REPLACE}),
    _C.TOO_LONG: frozenset({_A.REJECT}),
    _C.DOT_SEGMENT: frozenset({_A.REJECT, _A.ALLOW, _A.IGNORE}),
    _C.EMPTY: frozenset({_A.REJECT, _A.ALLOW, _A.IGNORE}),
    # UTS #39: judged on the output, after normalization; removing a character there
    # would change what was judged (and the script mix of the rest), so these refuse,
    # report or ignore -- an application that wants them gone asks the user again.
    _C.RESTRICTED: frozenset({_A.REJECT, _A.ALLOW, _A.IGNORE}),
    _C.MIXED_SCRIPT: frozenset({_A.REJECT, _A.ALLOW, _A.IGNORE}),
    _C.MIXED_NUMBERS: frozenset({_A.REJECT, _A.ALLOW, _A.IGNORE}),
    _C.HIDDEN_OVERLAY: frozenset({_A.REJECT, _A.ALLOW, _A.IGNORE}),
    # A payload is refused or reported, never silently removed: removing its run would
    # change what is judged (the runs around it join), and the reader asks what it said.
    _C.HIDDEN_PAYLOAD: frozenset({_A.REJECT, _A.ALLOW, _A.IGNORE}),
}

# The identifier checks of UTS #39 (_policy/_identifier.py), judged on the output.
IDENTIFIER_CATEGORIES = frozenset(
    {_C.RESTRICTED, _C.MIXED_SCRIPT, _C.MIXED_NUMBERS, _C.HIDDEN_OVERLAY}
)

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


def as_category(
    key: Category | str, where: str = "Policy.action", name: str = "category"
) -> Category:
    """``key`` as a Category (a member, or its name in any case, '-' for '_'); errors
    name argument ``name`` of ``where()``."""
    if isinstance(key, Category):
        return key
    if not isinstance(key, str):
        raise TypeError(
            f"{where}() argument '{name}': a category must be a Category or str, "
            f"not {type_name(key)}"
        )
    key = exact_str(key, name, where)
    try:
        return Category[key.upper().replace("-", "_")]
    except KeyError:
        names = ", ".join(c.name for c in Category)
        raise ValueError(
            f"{where}() argument '{name}': unknown category {key!r}; known: {names}"
        ) from None


def _as_level(value: object) -> RestrictionLevel | None:
    """``Policy.max_restriction_level`` as a RestrictionLevel: a member or its name in any
    case ('-' for '_'); None stands for the UTS #39 §5.2 default, HIGHLY_RESTRICTIVE."""
    if value is None:
        return None
    from .._lookalike import RestrictionLevel  # here: only policies that name a level load it

    if isinstance(value, RestrictionLevel):
        return value
    if not isinstance(value, str):
        raise TypeError(
            "Policy() argument 'max_restriction_level' must be None, a RestrictionLevel "
            f"or its name, not {type_name(value)}"
        )
    value = exact_str(value, "max_restriction_level", "Policy")
    try:
        return RestrictionLevel[value.strip().upper().replace("-", "_")]
    except KeyError:
        names = ", ".join(level.name for level in RestrictionLevel)
        raise ValueError(
            f"Policy() argument 'max_restriction_level': unknown restriction level {value!r}; "
            f"known: {names}"
        ) from None


def _as_action(value: Action | str, where: str, name: str) -> Action:
    if isinstance(value, Action):
        return value
    if not isinstance(value, str):
        raise TypeError(
            f"{where}() argument '{name}': an action must be an Action or str, "
            f"not {type_name(value)}"
        )
    value = exact_str(value, name, where)
    try:
        return Action(value.lower())
    except ValueError:
        names = ", ".join(a.value for a in Action)
        raise ValueError(
            f"{where}() argument '{name}': unknown action {value!r}; known: {names}"
        ) from None


@dataclass(frozen=True)
class Policy:
    """An immutable, composable policy.  Derive variants in one line::

        profiles.TEXT.with_actions(CONTROL=Action.STRIP)
        profiles.IDENTIFIER.replace(max_code_points=32, normalization="NFKC_CASEFOLD")

    ``actions`` given to the constructor are merged over ``BASELINE``.  ``normalization``
    is the form of the output; ``also_check`` is a further form the output must also pass
    (FILENAME: a later NFKC step must not create '/' or '..').  ``allow_sequences``
    exempts well-formed emoji ZWJ and tag sequences and variation sequences (UTS #51,
    UTS #37) from JOINER, TAG and VARIATION_SELECTOR; ``joiner_contexts`` exempts ZWNJ
    and ZWJ where a script needs them (RFC 5892 Appendix A.1/A.2) from JOINER.
    ``max_restriction_level`` is the
    highest UTS #39 restriction level the output may have before it is a MIXED_SCRIPT
    finding (a RestrictionLevel or its name; None: HIGHLY_RESTRICTIVE).
    """

    name: str = "custom"
    actions: Mapping[Category, Action] = field(default_factory=dict)
    max_bytes: int | None = None  # UTF-8 length of the input, checked first
    max_code_points: int | None = None  # length of the output (after normalization)
    max_combining: int | None = None  # longest run of combining marks (UAX #15 §13: 30)
    # Findings a Report lists (None: all); the rest are counted in Report.more_findings.
    max_findings: int | None = 1000
    normalization: NormalForm | None = None
    also_check: NormalForm | None = None
    allow_sequences: bool = False
    # ZWNJ and ZWJ where a script needs them (RFC 5892 Appendix A.1/A.2, CONTEXTJ; UAX #31
    # §2.3) are no JOINER finding: names in Persian, Sinhala, Devanagari...
    joiner_contexts: bool = False
    # The highest UTS #39 §5.2 restriction level the output may have (Category.MIXED_SCRIPT);
    # None: HIGHLY_RESTRICTIVE, the level UTS #39 recommends for identifiers.
    max_restriction_level: RestrictionLevel | None = None
    description: str = field(default="", compare=False)
    # hash(self), computed once: policies key the compiled-policy cache on every call.
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Argument rules: a field of the wrong type is a TypeError naming it, a
        # value out of range a ValueError; limits are ints (not bools), flags are bools.
        for text_field in ("name", "description"):
            text = exact_str(getattr(self, text_field), text_field, "Policy")
            object.__setattr__(self, text_field, text)
        if not isinstance(self.actions, Mapping):
            raise TypeError(
                "Policy() argument 'actions' must be a mapping of Category to Action, "
                f"not {type_name(self.actions)}"
            )
        for flag in ("allow_sequences", "joiner_contexts"):
            if not isinstance(getattr(self, flag), bool):
                raise TypeError(
                    f"Policy() argument '{flag}' must be a bool, "
                    f"not {type_name(getattr(self, flag))}"
                )
        merged = dict(BASELINE)
        for key, value in self.actions.items():
            category = as_category(key, "Policy", "actions")  # the key first: it comes first
            merged[category] = _as_action(value, "Policy", "actions")
        for cat, act in merged.items():
            valid = _VALID_ACTIONS.get(cat, _ALL)
            if act not in valid:
                allowed = ", ".join(sorted(a.name for a in valid))
                raise ValueError(f"{cat.name} cannot be {act.name}; use one of {allowed}")
        for form_field in ("normalization", "also_check"):
            form = getattr(self, form_field)
            if form is not None and (type(form) is not str or form not in NORMAL_FORMS):
                text = str.__getitem__(form, slice(None)) if isinstance(form, str) else form
                if text not in NORMAL_FORMS:
                    kind = ValueError if isinstance(form, str) else TypeError
                    raise kind(
                        f"Policy() argument '{form_field}' must be None or "
                        f"one of {NORMAL_FORMS}, not {text!r}"
                    )
                object.__setattr__(self, form_field, text)  # the exact str
        for limit in ("max_bytes", "max_code_points", "max_combining", "max_findings"):
            count = getattr(self, limit)
            if count is None:
                continue
            if type(count) is not int:
                if isinstance(count, bool) or not isinstance(count, int):
                    bad_type(count, "None or an int", limit, "Policy")
                count = int.__int__(count)  # an int subclass's value, by int's own slot
                object.__setattr__(self, limit, count)
            if count < 0:
                raise ValueError(f"Policy() argument '{limit}' must be None or >= 0, not {count}")
        object.__setattr__(self, "max_restriction_level", _as_level(self.max_restriction_level))
        object.__setattr__(self, "actions", MappingProxyType(merged))
        object.__setattr__(self, "_hash", hash(self._key()))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied as its constructor's arguments: ``actions`` is read-only
        (a ``MappingProxyType``, which pickle refuses) and ``_hash`` is per process
        (str hashes are salted), so both are made again by ``__post_init__``."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}
        fields["actions"] = dict(self.actions)
        return _rebuild, (type(self), fields)

    def _key(self) -> tuple[Any, ...]:
        acts = tuple(sorted((c.name, a.name) for c, a in self.actions.items()))
        return (
            acts,
            self.max_bytes,
            self.max_code_points,
            self.max_combining,
            self.max_findings,
            self.normalization,
            self.also_check,
            self.allow_sequences,
            self.joiner_contexts,
            self.max_restriction_level,
        )

    def action(self, category: Category | str) -> Action:
        """The action for ``category``."""
        return self.actions[as_category(category)]

    def with_actions(
        self, changes: Mapping[Category | str, Action | str] | None = None, /, **by_name: Action
    ) -> Policy:
        """A copy with some actions changed: ``p.with_actions(CONTROL=Action.STRIP)``."""
        if changes is not None and not isinstance(changes, Mapping):
            raise TypeError(
                "Policy.with_actions() argument 'changes' must be a mapping, "
                f"not {type_name(changes)}"
            )
        merged: dict[Category, Action] = dict(self.actions)
        for key, value in [*(changes or {}).items(), *by_name.items()]:
            category = as_category(key, "Policy.with_actions", "changes")
            merged[category] = _as_action(value, "Policy.with_actions", "changes")
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
            "max_findings": self.max_findings,
            "allow_sequences": self.allow_sequences,
            "joiner_contexts": self.joiner_contexts,
            "max_restriction_level": (
                None
                if self.max_restriction_level is None
                else self.max_restriction_level.name.lower().replace("_", "-")
            ),
            "actions": {c.value: a.value for c, a in self.actions.items()},
        }


def _rebuild(cls: type[Policy], fields: dict[str, Any]) -> Policy:
    """A policy from its fields (``Policy.__reduce__``)."""
    return cls(**fields)


@dataclass(frozen=True)
class Finding:
    """One thing a policy noticed.  ``start``/``end`` are byte offsets into bytes input and
    code-point indices into str input.  ``codepoint`` is the character (None for
    ill-formed bytes and whole-input findings), ``raw`` the ill-formed bytes and ``error``
    the decoder's ``Utf8Error``.  ``produced`` is set when the problem appears only after
    normalization: it is what ``codepoint`` normalizes to (CWE-180).  ``detail`` says what
    a finding about more than one character found (the identifier checks of UTS #39:
    "mixed scripts Latin + Cyrillic"), or why a character was found."""

    category: Category
    start: int
    end: int
    action: Action
    codepoint: int | None = None
    raw: bytes | None = None
    # Not compared: an exception is equal only to itself, and ``raw`` holds its bytes
    # (a Finding from another process, or a copy, equals the original).
    error: Utf8Error | None = field(default=None, compare=False)
    produced: str | None = None
    form: str | None = None  # the normal form that produced the problem, if any
    detail: str | None = None  # what was found, in words (UTS #39 findings)

    def reason(self) -> str:
        """What was found, in words (without category, offsets and action)."""
        if self.error is not None:
            return f"bytes {self.error.hex}: {self.error.reason}"
        if self.codepoint is not None:
            what = describe(self.codepoint)
            if self.produced is not None:
                made = " ".join(f"U+{ord(c):04X}" for c in self.produced)
                what += f" becomes {made} {self.produced!r} under {self.form}"
            return what if self.detail is None else f"{what}: {self.detail}"
        if self.detail is not None:
            return self.detail
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
        if self.detail is not None:
            out["detail"] = self.detail
        return out


_new = object.__new__


def new_finding(
    category: Category,
    start: int,
    end: int,
    action: Action,
    codepoint: int | None = None,
    raw: bytes | None = None,
    error: Utf8Error | None = None,
    produced: str | None = None,
    form: str | None = None,
    detail: str | None = None,
) -> Finding:
    """``Finding(...)``, equal to it (fields, order, pickle, repr), built as the engine
    needs it up to ``Policy.max_findings`` times a call: its fields set at once, not by
    the frozen dataclass's one ``object.__setattr__`` a field (as ``clean_report``)."""
    finding = _new(Finding)
    finding.__dict__.update(
        category=category,
        start=start,
        end=end,
        action=action,
        codepoint=codepoint,
        raw=raw,
        error=error,
        produced=produced,
        form=form,
        detail=detail,
    )
    return finding


def moved_findings(findings: list[Finding], places: list[tuple[int, int]]) -> list[Finding]:
    """``dataclasses.replace(finding, start=start, end=end)`` for each finding and its
    (start, end) in ``places``, in one call, each one's fields set at once."""
    out = []
    for finding, (start, end) in zip(findings, places, strict=True):
        moved = _new(Finding)
        fields = moved.__dict__
        fields.update(finding.__dict__)
        fields["start"] = start
        fields["end"] = end
        out.append(moved)
    return out


@dataclass(frozen=True)
class Report:
    """What ``inspect`` found: ``ok`` is False when the policy rejects the input, and then
    ``text`` is None (a rejected input never yields partial text)."""

    ok: bool
    text: str | None
    findings: tuple[Finding, ...]
    policy: Policy = field(repr=False)
    # Findings not listed because of ``policy.max_findings`` (bounded memory), and how
    # many of them the policy allows (ALLOW): counted, never built.  ``ok`` and ``text``
    # never depend on the cap.
    more_findings: int = 0
    more_allowed: int = 0

    @property
    def rejections(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.action is Action.REJECT)

    def __bool__(self) -> bool:
        return self.ok


def clean_report(text: str, policy: Policy) -> Report:
    """``Report(True, text, (), policy)``, equal to it, built as the hot path needs it:
    its fields set at once, not by the frozen dataclass's one ``object.__setattr__`` a
    field (``inspect`` returns one for every clean input)."""
    report = object.__new__(Report)
    report.__dict__.update(
        ok=True, text=text, findings=(), policy=policy, more_findings=0, more_allowed=0
    )
    return report


class PolicyError(ValueError):
    """``sanitize`` refused the input; ``.report`` and ``.findings`` say why."""

    __module__ = "sanitizer"  # its public home, as tracebacks and pickles name it

    def __init__(self, report: Report) -> None:
        self.report = report
        self.findings = report.findings
        why = report.rejections or report.findings
        more = f" (and {len(why) - 1} more)" if len(why) > 1 else ""
        first = str(why[0]) if why else "rejected"
        super().__init__(f"rejected by policy {report.policy.name!r}: {first}{more}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Made again from its report (a process pool pickles what a worker raises).
        return type(self), (self.report,), self.__dict__
