"""``sanitizer check --policy PROFILE`` on UTF-8 (a profile other than SOURCE): the ``policy`` mode.

``sanitizer._policy.inspect`` on each piece of a proven input (``_judge``: a forced cut
inside a sequence is refused, ``cut_item``); a policy that
judges whole values (a byte limit of its own, '.' and '..', the identifier checks) gets
the first bytes it judges, all at once.  A byte order mark at the start is judged as
the ``bom`` category, as the policy layer judges it in a value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._categories import Category
from .._policy import Action, inspect
from .._policy.compiled import carried, cut_inside, judges_lines_alone
from ._inputs import Opened
from ._judge import (
    Listed,
    Region,
    capped,
    counted_more,
    cut_item,
    held_run,
    placed,
    prove,
    release,
    unlisted_failing,
    unlisted_refused,
)
from ._report import Outcome

if TYPE_CHECKING:
    from typing import Any

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
        held: tuple[Any, ...] | None = None  # a run's finding the piece's end cut
        before = -1  # the last code point of the piece before
        for at, piece in region.pieces():
            skip = carried(piece, before) if held is not None else 0
            inside = cut_inside(before, _first_code_point(piece), carries=True)
            before = _last_code_point(piece)
            if held is not None:
                held = _longer(held, piece[:skip])
                if skip == len(piece):
                    continue  # all of it the run's rest: not judged again
                listed.add(held)
                held = None
            if inside:  # a forced cut inside a sequence: judged in parts, refused
                listed.add(cut_item(at))
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
            held = _add(listed, report, text, at + shift, policy, settings, skip=skip)
        if held is not None:
            listed.add(held)
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
    skip: int = 0,
) -> tuple[Any, ...] | None:
    """The findings of ``report`` (``inspect`` on ``text``, which starts at ``at``) added
    to ``listed``, with the refused ones its cap counted without listing
    (``unlisted_refused``: a failing finding is listed before allowed ones); ``size``:
    a finding over the whole of ``text`` is over the whole input, of this size.  Those
    in the first ``skip`` bytes (the rest of a run the finding before holds) are left
    out; the finding of a carrier run that ends ``text`` is returned, not added: the
    next piece may go on with the run (``carried``)."""
    strict = settings.strict
    extra = [] if strict else unlisted_refused(text, report, policy, settings.limit)
    held = None
    for f in (*report.findings, *extra):
        if f.start < skip:
            continue
        d = f.as_dict()
        details = {k: v for k, v in d.items() if k not in ("start", "end")}
        end = f.end
        if size is not None and (f.start, f.end) == (0, len(text)):
            end = size
        fails = strict or f.action is Action.REJECT
        item = (at + f.start, at + end, d["category"], d.get("code_point") or "",
                d["action"], d["reason"], details, (), fails)  # fmt: skip
        if size is None and held_run(f, len(text)):
            held = item
            continue
        listed.add(item)
    more_failing = unlisted_failing(report, strict)
    listed.count(report.more_findings - len(extra), more_failing - len(extra))
    return held


def _longer(item: tuple[Any, ...], rest: bytes) -> tuple[Any, ...]:
    """``item`` (a run's finding) spanning ``rest`` too, the characters its reason
    counts first counted with them: the payload named is read from the run's first
    characters (``_reveal.RUN_CAP``), the span is the whole run."""
    if not rest:
        return item
    more = len(rest.decode("utf-8"))
    details = {
        k: counted_more(v, more) if k in ("reason", "detail") else v for k, v in item[6].items()
    }
    return (item[0], item[1] + len(rest), *item[2:5], counted_more(item[5], more), details,
            *item[7:])  # fmt: skip


def _first_code_point(piece: bytes) -> int:
    """The code point that starts UTF-8 ``piece`` (-1: empty)."""
    text = piece[:4].decode("utf-8", "ignore")
    return ord(text[0]) if text else -1


def _last_code_point(piece: bytes) -> int:
    """The code point that ends UTF-8 ``piece`` (-1: empty)."""
    tail = piece[-4:]
    while tail and 0x80 <= tail[0] <= 0xBF:
        tail = tail[1:]
    text = tail.decode("utf-8", "replace")
    return ord(text[-1]) if text else -1
