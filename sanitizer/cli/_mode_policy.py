"""``sanitizer check --policy PROFILE`` on UTF-8 (a profile other than SOURCE): the ``policy`` mode.

``sanitizer._policy.inspect`` on each piece of a proven input (``_judge``); a policy that
judges whole values (a byte limit of its own, '.' and '..', the identifier checks) gets
the first bytes it judges, all at once.  A byte order mark at the start is judged as
the ``bom`` category, as the policy layer judges it in a value.
"""

from __future__ import annotations

from .._categories import Category
from .._policy import Action, inspect
from .._policy.compiled import judges_lines_alone
from ._inputs import Opened
from ._judge import Listed, Region, capped, placed, prove, release, unlisted_failing
from ._report import Outcome

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from .._policy import Policy
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
        _whole_value(region, policy, listed, strict)
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
            report = inspect(piece[shift:], counting if listed.full else listing)
            for f in report.findings:
                d = f.as_dict()
                details = {k: v for k, v in d.items() if k not in ("start", "end")}
                what = d.get("code_point") or ""
                start, end = at + shift + f.start, at + shift + f.end
                fails = strict or f.action is Action.REJECT
                kind, action, reason = d["category"], d["action"], d["reason"]
                listed.add((start, end, kind, what, action, reason, details, (), fails))
            listed.more += report.more_findings
            listed.more_failing += unlisted_failing(report, strict)
    findings = placed(region, listed.items, False, settings.columns, opened.label)
    release(opened)
    return Outcome(findings, region.size, listed.more, listed.more_failing)


def _whole_value(region: Region, policy: Policy, listed: Listed, strict: bool) -> None:
    """A policy that judges whole values (a byte limit of its own, '.' and '..', the
    identifier checks): ``inspect`` on the input, of which it reads no more than its
    byte limit and one (larger is too long: a finding over the whole input)."""
    want = region.size if policy.max_bytes is None else min(region.size, policy.max_bytes + 1)
    region.stream.seek(region.origin)
    data = region.stream.read(want)
    report = inspect(data, capped(policy, listed.limit)[0])
    for f in report.findings:
        d = f.as_dict()
        details = {k: v for k, v in d.items() if k not in ("start", "end")}
        end = region.size if (f.start, f.end) == (0, len(data)) else f.end
        fails = strict or f.action is Action.REJECT
        listed.add((f.start, end, d["category"], d.get("code_point") or "", d["action"],
                    d["reason"], details, (), fails))  # fmt: skip
    listed.more += report.more_findings
    listed.more_failing += unlisted_failing(report, strict)
