"""Policies for untrusted text: what to do with each kind of character, as data.

A ``Policy`` is an immutable table (``Category`` -> ``Action``) plus limits and an optional
normalization form.  ``inspect`` applies it and reports every finding with its offset in
the caller's input (byte offsets for bytes, code-point indices for str); ``sanitize``
returns the cleaned text or raises ``PolicyError``; ``accepts`` gives only the verdict.

Each entry point first asks the policy's compiled form (``compiled``: one C pass, or an
ASCII check) whether the input is clean; if it cannot tell, the engine (``_run``)
decides everything.  The package's modules, one job each, are listed in docs/design.md
(from their docstrings).  Other packages import this package, ``profiles`` and
``compiled`` (the adapters' view of a policy); the modules with an underscore are its own.
"""

from __future__ import annotations

import functools

from .._arguments import exact_data, exact_str
from .._categories import Category
from .._decoder import is_valid
from . import profiles
from ._hidden import Channel, Hidden, Reading
from ._model import BASELINE, Action, Finding, Policy, PolicyError, Report, clean_report
from ._reveal import reveal
from ._run import Run
from .compiled import CompiledPolicy, by_identity, c_clean, c_clean_edit, compiled_for

__all__ = [
    "BASELINE",
    "Action",
    "Category",
    "Channel",
    "Finding",
    "Hidden",
    "Policy",
    "PolicyError",
    "Reading",
    "Report",
    "accepts",
    "inspect",
    "reveal",
    "sanitize",
]

_DEFAULT = profiles.TEXT
_compiled = by_identity.lookup  # id(policy) -> CompiledPolicy (see compiled.compiled_for)


def _compile(policy: object, where: str) -> CompiledPolicy:
    """``compiled_for(policy)`` once the identity cache missed: the one place a policy of
    the wrong type is noticed, so checking it costs nothing on the hot path."""
    if not isinstance(policy, Policy):
        hint = ""
        if isinstance(policy, str):
            hint = f" (use sanitizer.profiles.get({policy!r}))"
        raise TypeError(
            f"{where}() argument 'policy' must be a sanitizer.Policy or None, "
            f"not {type(policy).__name__}{hint}"
        )
    return compiled_for(policy)


def _check_data(data: object, where: str) -> None:
    """Raised on the slow path only: the fast paths answer None for anything else."""
    if not isinstance(data, (str, bytes, bytearray, memoryview)):
        raise TypeError(
            f"{where}() argument 'data' must be bytes or str, not {type(data).__name__}"
        )


def inspect(
    data: bytes | bytearray | memoryview | str,
    policy: Policy | None = None,
    *,
    encoding: str = "utf-8",
) -> Report:
    """Apply ``policy`` (default ``profiles.TEXT``) to ``data``; never raises for content.

    ``encoding`` names how bytes are encoded: "utf-8", or "utf-16", "utf-16le",
    "utf-16be", "utf-32", "utf-32le", "utf-32be" (``_encoded``: ill-formed
    units are ILL_FORMED findings, offsets are byte offsets into ``data``; "utf-16" and
    "utf-32" need a BOM, else ``ByteOrderError``)."""
    if policy is None:
        policy = _DEFAULT
    if type(encoding) is not str or encoding != "utf-8":
        encoding = exact_str(encoding, "encoding", "inspect")
        if encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
            from ._encoded import inspect_encoded

            return inspect_encoded(data, policy, encoding, inspect)
    compiled = _compiled(id(policy)) or _compile(policy, "inspect")
    args = compiled.direct_report_args
    if args is not None:  # one C call decides: compiled.fast_inspect(data), inlined (hot path)
        text = c_clean(data, *args)  # type: ignore[misc]  # (exact bytes and str only: else None)
    else:
        data = exact_data(data)
        text = compiled.fast_text(data, compiled.report_args)
    if text is not None:
        return clean_report(text, policy)
    data = exact_data(data)
    _check_data(data, "inspect")
    return Run(data, compiled).report()  # (the text clean decoded: Run takes it)


def accepts(data: bytes | bytearray | memoryview | str, policy: Policy | None = None) -> bool:
    """``inspect(data, policy).ok`` without building a Report when the fast path can
    decide: for callers that only need the verdict, many times a request (sanitizer.web)."""
    if policy is None:
        policy = _DEFAULT
    compiled = _compiled(id(policy)) or _compile(policy, "accepts")
    args = compiled.direct_verdict_args
    if args is not None:  # one C call decides: compiled.fast_sanitize(data), inlined (hot path)
        text = c_clean(data, *args)  # type: ignore[misc]  # (exact bytes and str only: else None)
    else:
        data = exact_data(data)
        text = compiled.fast_text(data, compiled.verdict_args)
    if text is not None:
        return True  # nothing to refuse, strip or replace
    edit_args = compiled.direct_edit_args  # (clean_edit takes the text clean decoded)
    if edit_args is not None and c_clean_edit(data, *edit_args) is not None:  # type: ignore[misc]
        return True  # sanitize's one C pass strips or replaces, refusing nothing
    data = exact_data(data)
    _check_data(data, "accepts")
    if (
        not isinstance(data, str)
        and compiled.policy.actions[Category.ILL_FORMED] is Action.REJECT
        and not is_valid(data)
    ):
        return False  # RFC 3629 §4: refused whatever else it holds (one validator pass)
    return Run(data, compiled, verdict=True).accepted()


def sanitize(data: bytes | bytearray | memoryview | str, policy: Policy | None = None) -> str:
    """The cleaned text under ``policy`` (default ``profiles.TEXT``), or ``PolicyError``."""
    if policy is None:
        policy = _DEFAULT
    compiled = _compiled(id(policy)) or _compile(policy, "sanitize")
    edit_args = compiled.direct_edit_args
    if edit_args is not None:  # one C call: clean text, or cleaned by strips and replacements
        text = c_clean_edit(data, *edit_args)  # type: ignore[misc]  # (exact bytes, str only)
    elif (args := compiled.direct_verdict_args) is not None:  # compiled.fast_sanitize(data)
        text = c_clean(data, *args)  # type: ignore[misc]
    else:
        data = exact_data(data)
        text = compiled.fast_text(data, compiled.verdict_args)
    if text is not None:
        return text
    data = exact_data(data)
    _check_data(data, "sanitize")
    report = Run(data, compiled, verdict=True).report()  # stops at the first refusal
    if report.text is None:
        raise PolicyError(report)
    return report.text


@functools.lru_cache(maxsize=16)  # a gate asks once a capped piece: policies are few
def refused_only(policy: Policy, max_findings: int | None) -> Policy:
    """``policy`` with what it allows ignored, listing at most ``max_findings`` findings
    (None: all): it lists the refused findings alone."""
    allowed: dict[Category | str, Action | str] = {
        c: Action.IGNORE for c, a in policy.actions.items() if a is Action.ALLOW
    }
    return policy.replace(max_findings=max_findings).with_actions(allowed)


def unlisted_refused(
    data: bytes | str, report: Report, policy: Policy, max_findings: int | None, *, failing: bool
) -> list[Finding]:
    """The refused findings of ``data`` that ``report`` (``inspect(data, policy)``, its
    cap reached by allowed ones) counted without listing, at most ``max_findings`` of them
    (None: all): ``data`` judged again, listing refused findings alone, only when one
    exists.  ``failing``: REJECT findings only (a gate's failures), else every finding
    the policy does not allow (REJECT, STRIP, REPLACE)."""
    if report.more_findings <= report.more_allowed:
        return []
    again = inspect(data, refused_only(policy, max_findings))
    seen = {(f.start, f.end, f.category) for f in report.findings}
    return [
        f
        for f in again.findings
        if (f.action is Action.REJECT if failing else f.action is not Action.ALLOW)
        and (f.start, f.end, f.category) not in seen
    ]
