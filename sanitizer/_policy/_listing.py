"""The findings ``inspect`` lists from one C pass, made in C at their final offsets.

On text dense in findings (German soft hyphens, Thai ZWSP, floods of controls) the
engine lists ``Policy.max_findings`` of them, and building each one in Python, then
again at byte offsets, cost ten times the decode of the input.  So
``_speedups.list_findings`` makes each listed ``Finding`` once, in the walk that groups
them (``_speedups.list_groups``), at byte offsets for bytes input (the UTF-8 lengths of
the characters before it, an ill-formed subpart counting its own bytes) and at text
indices for str input.  It fills each one's instance dict from a template per class
(``templates``: every field in the dataclass's order, as ``_model.new_finding`` does),
so a Finding made in C is the Finding made in Python (equality, repr, pickle,
``dataclasses.replace``).  What a carrier run spells (its ``detail``) is said in Python,
only for the findings kept (``pending``), once per distinct run in its context
(``details``: a flood repeats one run a thousand times).  ``findings_reference`` is its
pure-Python statement, which the tests hold it to.  Runs of marks over the limit are
listed the same way (``_speedups.list_mark_runs``, stated by ``mark_runs_reference``):
a flood of them costs no Python step a run either.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable

from .._categories import Category, char_class
from . import _classtable as ct
from ._carrier_runs import span_detail
from ._model import Action, Finding, Policy, new_finding
from ._reveal import BITS, SELECTORS, TAGS
from ._scan import mark_runs

# A Finding's fields, in order: the keys of each template (one fact: the dataclass).
FIELDS = tuple(f.name for f in dataclasses.fields(Finding))

# (findings, pending, more, allowed, worst, bar): see ``_speedups.list_findings``.
Listed = tuple[list[Finding], list[tuple[Finding, int, int]], int, int, int, tuple[int, int] | None]


@functools.lru_cache(maxsize=64)
def templates(policy: Policy) -> tuple[type[Finding], tuple[dict[str, object] | None, ...]]:
    """``list_findings``' ``made`` for ``policy``: Finding and, by class, the fields of a
    finding of that class's category under ``policy`` (None: a class of no category),
    start and end to be set."""
    acts = policy.actions
    by_class: list[dict[str, object] | None] = []
    for cat, _ in ct.class_table().info:
        if cat is None:
            by_class.append(None)
            continue
        fields: dict[str, object] = dict.fromkeys(FIELDS)
        fields.update(category=cat, start=0, end=0, action=acts[cat])
        by_class.append(fields)
    return Finding, tuple(by_class)


def findings_reference(
    text: str,
    stage1: bytes,
    stage2: bytes,
    tables: bytes,
    limit: int,
    groups: bytes,
    edits_matter: bool,
    made: tuple[type[Finding], tuple[dict[str, object] | None, ...]],
    anchors: tuple[list[int], list[int]] | None,
    last: int,
) -> Listed | None:
    """Pure-Python statement of ``_speedups.list_findings``: of the groups
    ``groups_reference`` makes, the first ``limit`` (-1: all) that start at or before
    text index ``last`` as Findings (the rest counted), each made with its class's
    template; at text indices, or with ``anchors`` (the text index of each U+FFFD that
    stands for an ill-formed subpart, and each one's length in bytes) at byte offsets
    into the input; the multi-character ones also as (finding, start, end) in ``pending``.
    Then how many more, how many of all are ALLOW, the highest severity, and the last
    listed group's (start, end) in text indices."""
    walked = ct.groups_reference(text, stage1, stage2, tables, -1, groups, edits_matter)
    if walked is None:
        return None
    every, _, _, worst = walked
    listed = [g for g in every if g[0] <= last]
    if limit >= 0:
        listed = listed[:limit]
    place = _placer(text, anchors)
    kind, by_class = made
    assert kind is Finding
    findings: list[Finding] = []
    pending: list[tuple[Finding, int, int]] = []
    for start, end, c, _ in listed:
        fields = by_class[c]
        assert fields is not None
        cat, act = fields["category"], fields["action"]
        if end - start == 1:
            f = new_finding(cat, place(start), place(end), act, ord(text[start]))  # type: ignore[arg-type]
        else:
            f = new_finding(cat, place(start), place(end), act)  # type: ignore[arg-type]
            pending.append((f, start, end))
        findings.append(f)
    allowed = sum(g[3] == 0 for g in every)
    bar = (listed[-1][0], listed[-1][1]) if listed else None
    return findings, pending, len(every) - len(listed), allowed, worst, bar


def _placer(text: str, anchors: tuple[list[int], list[int]] | None) -> Callable[[int], int]:
    """Text index to place (reference only: a pass over the text a call): the index itself
    without ``anchors``, else the byte offset into the input (``list_findings``')."""
    subparts = list(zip(*anchors, strict=True)) if anchors else []

    def place(i: int) -> int:
        if anchors is None:
            return i
        size = len(text[:i].encode("utf-8", "surrogatepass"))
        return size + sum(n - 3 for at, n in subparts if at < i)  # U+FFFD: 3 bytes

    return place


@functools.lru_cache(maxsize=8)
def run_template(action: Action) -> tuple[type[Finding], dict[str, object]]:
    """``list_mark_runs``' ``made``: Finding and the fields of a COMBINING_RUN finding of
    ``action`` (as ``new_finding`` sets them), start and end to be set."""
    fields: dict[str, object] = dict.fromkeys(FIELDS)
    fields.update(category=Category.COMBINING_RUN, start=0, end=0, action=action)
    return Finding, fields


def mark_runs_reference(
    text: str,
    limit: int,
    start: int,
    cap: int,
    made: tuple[type[Finding], dict[str, object]],
    anchors: tuple[list[int], list[int]] | None,
    last: int,
) -> tuple[list[Finding], int]:
    """Pure-Python statement of ``_speedups.list_mark_runs`` (with ``_scan``'s mark tables):
    of the runs ``_scan.mark_runs`` yields from ``start`` on (a place it goes on from),
    the first ``cap`` (-1: all) that start at or before text index ``last``, as the
    COMBINING_RUN findings ``new_finding`` makes, at text indices or (``anchors``) byte
    offsets; and how many others."""
    kind, fields = made
    assert kind is Finding
    place = _placer(text, anchors)
    findings: list[Finding] = []
    more = 0
    for s, e in mark_runs(text, limit):
        if s < start:
            continue
        if (cap < 0 or len(findings) < cap) and s <= last:
            act = fields["action"]
            findings.append(new_finding(Category.COMBINING_RUN, place(s), place(e), act))  # type: ignore[arg-type]
        else:
            more += 1
    return findings, more


# The characters ``_reveal.carrier_run`` reads a run through (its ``_is_carrier``), and
# the longest stretch of them around a run that ``details`` remembers it by.
CARRIERS = (*TAGS, *SELECTORS, *BITS)
_REACH = 256


@functools.cache
def _carrier_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    body = char_class(sorted(CARRIERS))
    return re.compile(f"[{body}]"), re.compile(f"[{body}]*")


@functools.cache
def _carrier_set() -> frozenset[str]:
    """``CARRIERS``' characters (what ``_carrier_patterns``' first pattern matches)."""
    return frozenset(chr(cp) for lo, hi in CARRIERS for cp in range(lo, hi + 1))


def details(text: str, pending: list[tuple[Finding, int, int]]) -> None:
    """Set the detail of each (finding, start, end) of ``pending`` (text indices, in
    order): ``span_detail(text, start, end)``, worked out once per distinct run in its
    context.  What a run spells depends on the run, on the stretch of carrier
    characters it lies in (``carrier_run`` reads every run of the stretch that meets it,
    from where the stretch begins, a reader each run: ``_reveal._READERS``) and on the
    one character on either side of the stretch (a tag base, a selector's base, a bit
    symbol's neighbour); so those characters and the run's place among them are its key.
    A stretch longer than ``_REACH`` on either side is not remembered (no key is longer
    than the run and twice that)."""
    stretch = _carrier_patterns()[1]
    carrier = _carrier_set()
    memo: dict[tuple[str, int, int], str] = {}
    n = len(text)
    for finding, start, end in pending:
        a = start
        while a > 0 and start - a <= _REACH and text[a - 1] in carrier:
            a -= 1
        if end == n or text[end] not in carrier:
            b = end  # (a flood's runs: one lookup)
        else:
            b = stretch.match(text, end, end + _REACH + 1).end()  # type: ignore[union-attr]
        if start - a > _REACH or b - end > _REACH:
            finding.__dict__["detail"] = span_detail(text, start, end)
            continue
        lo = a - 1 if a else 0  # (a slice or a match past the text's end stops at it)
        key = (text[lo : b + 1], start - lo, end - lo)
        detail = memo.get(key)
        if detail is None:
            detail = memo[key] = span_detail(text, start, end)
        finding.__dict__["detail"] = detail
