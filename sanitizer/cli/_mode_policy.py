"""``sanitizer check --policy PROFILE`` on UTF-8 (a profile other than SOURCE): the ``policy`` mode.

``sanitizer._policy.inspect`` on each piece of a proven input (``_judge``); a policy that
judges whole values (a byte limit of its own, '.' and '..', the identifier checks) gets
the first bytes it judges, all at once.  A byte order mark at the start is judged as
the ``bom`` category, as the policy layer judges it in a value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._categories import Category
from .._policy import Action, inspect
from .._policy.compiled import judges_lines_alone
from ._inputs import Opened
from ._judge import (
    Listed,
    Region,
    capped,
    placed,
    prove,
    release,
    unlisted_failing,
    unlisted_refused,
)
from ._report import Outcome

if TYPE_CHECKING:
    from .._policy import Policy, Report
    from ._check_args import Settings
    from ._report import Progress

_BOM = b"\xef\xbb\xbf"


def policy_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """A UTF-8 input under a profile other than SOURCE."""
    region = prove(opened, settings, progress)
    if isinstance(region, Outcome):
        return region
    policy, strict = settings.policy, settings.strict
    assert policy is not None, "chosen with --policy"
    listed = Listed(settings.limit)
    if not judges_lines_alone(policy):
        _whole_value(region, policy, listed, settings)
    else:
        listing, counting = capped(policy, settings.limit)
        for at, piece in region.pieces():
            shift = 0
            if at == 0 and piece.startswith(_BOM):  # a signature (RFC 3629 §6)
                shift = len(_BOM)
                action = policy.action(Category.BOM)
                if action in (Action.REJECT, Action.ALLOW):
                    reason = "U+FEFF ZERO WIDTH NO-BREAK SPACE at the start: a byte order mark"
                    details = {"category": "bom", "code_point": "U+FEFF"}
                    fails = strict or action is Action.REJECT
                    item = (0, shift, "bom", "U+FEFF", action.value, reason, details, (), fails)
                    listed.add(item)
            text = piece[shift:]
            report = inspect(text, counting if listed.full else listing)
            _add(listed, report, text, at + shift, policy, settings)
    findings = placed(region, listed.items, False, settings.columns, opened.label)
    release(opened)
    return Outcome(findings, region.size, listed.more, listed.more_failing)


def _whole_value(region: Region, policy: Policy, listed: Listed, settings: Settings) -> None:
    """A policy that judges whole values (a byte limit of its own, '.' and '..', the
    identifier checks): ``inspect`` on the input, of which it reads no more than its
    byte limit and one (larger is too long: a finding over the whole input)."""
    want = region.size if policy.max_bytes is None else min(region.size, policy.max_bytes + 1)
    region.stream.seek(region.origin)
    data = region.stream.read(want)
    report = inspect(data, capped(policy, listed.limit)[0])
    _add(listed, report, data, 0, policy, settings, region.size)


def _add(
    listed: Listed,
    report: Report,
    text: str | bytes,
    at: int,
    policy: Policy,
    settings: Settings,
    size: int | None = None,
) -> None:
    """The findings of ``report`` (``inspect`` on ``text``, which starts at ``at``) added
    to ``listed``, with the refused ones its cap counted without listing
    (``unlisted_refused``: a failing finding is listed before allowed ones); ``size``:
    a finding over the whole of ``text`` is over the whole input, of this size."""
    strict = settings.strict
    extra = [] if strict else unlisted_refused(text, report, policy, settings.limit)
    for f in (*report.findings, *extra):
        d = f.as_dict()
        details = {k: v for k, v in d.items() if k not in ("start", "end")}
        end = f.end
        if size is not None and (f.start, f.end) == (0, len(text)):
            end = size
        fails = strict or f.action is Action.REJECT
        listed.add((at + f.start, at + end, d["category"], d.get("code_point") or "",
                    d["action"], d["reason"], details, (), fails))  # fmt: skip
    more_failing = unlisted_failing(report, strict)
    listed.count(report.more_findings - len(extra), more_failing - len(extra))
