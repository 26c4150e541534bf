"""``sanitizer check --policy``: the input modes that apply a policy profile to UTF-8 files.

A policy judges a whole text, so these modes read the file whole (at most
``--max-bytes``: a larger one is one ``too-long`` finding, never loaded) and turn the
policy layer's report into findings placed by line and column (``_locate``).
``policy_mode`` runs ``sanitizer.policy.inspect``; ``source_mode`` runs
``sanitizer.source_gate.check_source`` (Trojan Source, invisibles, look-alike
identifiers, UTS #55) on a file that is UTF-8.  Imported only with ``--policy``, as is
the policy layer itself: ``sanitizer check`` without it loads neither.
"""

from __future__ import annotations

from ..categories import Category
from ..decoder import find_errors
from ..policy import Action, inspect
from ..policy.compiled import ByteOffsets
from ._inputs import read_at_most
from ._locate import excerpt, locate_all, visible
from ._output import Finding, Place
from ._report import Outcome

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any

    from ._check_args import Settings
    from ._inputs import Opened
    from ._report import Progress

_BOM = b"\xef\xbb\xbf"
_check_source: Any = None  # sanitizer.source_gate.check_source, imported on first use


def too_long(label: str, data: bytes, max_bytes: int) -> Finding:
    """The one finding of a file larger than ``--max-bytes`` (``data`` holds one more)."""
    place = Place(label, 0, len(data))
    reason = f"larger than --max-bytes {max_bytes}: policy not applied"
    return Finding(
        "too-long", f"{len(data)} bytes", "reject", reason, place,
        details={"category": "too-long"},
    )  # fmt: skip


def _whole(opened: Opened, settings: Settings, progress: Progress) -> bytes:
    data = read_at_most(opened.stream, settings.max_bytes, opened.first)
    progress.advance(len(data), opened.label)
    return data


def policy_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """A UTF-8 input under a profile other than SOURCE."""
    data = _whole(opened, settings, progress)
    if len(data) > settings.max_bytes:
        return Outcome([too_long(opened.label, data, settings.max_bytes)], len(data))
    return _policy_outcome(opened.label, data, settings)


def source_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """A UTF-8 input under SOURCE: ``check_source`` on a file that is UTF-8 (CPython's
    codec accepts exactly RFC 3629 §4), its code-point offsets turned into bytes, lines
    and columns.  A file that is not UTF-8 gets the policy alone (``policy_mode``):
    every bidi control refused, identifiers not compared; it fails either way."""
    label = opened.label
    data = _whole(opened, settings, progress)
    if len(data) > settings.max_bytes:
        return Outcome([too_long(label, data, settings.max_bytes)], len(data))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _policy_outcome(label, data, settings, leading_bom=False)
    global _check_source
    if _check_source is None:  # policy layer: only loaded with --policy SOURCE
        from ..source_gate import check_source as _check_source

    report = _check_source(text, settings.policy)
    strict = settings.strict
    more = report.more_findings  # counted, not listed
    more_failing = more if strict or not report.ok else 0
    if not report.findings:  # the usual file: nothing to place
        return Outcome((), len(data), more, more_failing)
    points = {p for f in report.findings for p in (f.start, f.end)}
    points.update(p for f in report.findings if f.other for p in f.other[:2])
    byte_of = ByteOffsets(text)
    to_byte = {point: byte_of(point) for point in sorted(points)}
    places = locate_all(data, list(to_byte.values()), [], settings.columns)

    def place(start: int, end: int) -> Place:
        lo, hi = to_byte[start], to_byte[end]
        return Place(label, lo, hi, *places[lo], *places[hi])

    findings = []
    for f in report.findings:
        where = place(f.start, f.end)
        related: tuple[tuple[Place, str], ...] = ()
        if f.other is not None:
            o_start, o_end, spelling = f.other
            message = f"the other spelling {visible(spelling.encode())!r}"
            related = ((place(o_start, o_end), message),)
        if f.identifier is not None:
            what = visible(f.identifier.encode())
        else:
            what = f"U+{f.codepoint:04X}" if f.codepoint is not None else ""
        details = {k: v for k, v in f.as_dict().items() if k not in ("start", "end", "other")}
        findings.append(
            Finding(
                f.kind,
                what,
                f.action.value,
                visible(f.reason.encode()),
                where,
                excerpt(data, where.start, where.end),
                fails=strict or f.refused,
                related=related,
                details=details,
            )
        )
    return Outcome(findings, len(data), more, more_failing)


def _policy_outcome(
    label: str, data: bytes, settings: Settings, leading_bom: bool = True
) -> Outcome:
    """The findings of the profile on ``data`` (at most ``Policy.max_findings``), and the
    number of further findings counted but not listed (and how many of them fail).
    ``leading_bom``: report a leading BOM by the profile's action (SOURCE: never)."""
    policy, strict = settings.policy, settings.strict
    found: list[tuple[str, str, str, str, int, int, dict[str, Any]]] = []
    shift = 0
    if data.startswith(_BOM):  # a signature, not text (RFC 3629 §6): reported only if asked
        shift = len(_BOM)
        action = policy.action(Category.BOM)
        if leading_bom and action in (Action.REJECT, Action.ALLOW):
            reason = "U+FEFF ZERO WIDTH NO-BREAK SPACE at the start: a byte order mark"
            found.append(("bom", "U+FEFF", action.value, reason, 0, shift, {"category": "bom"}))
    body = data[shift:]
    report = inspect(body, policy)
    ill_formed: list[tuple[int, int]] = []
    for f in report.findings:
        d = f.as_dict()
        kind = d.get("kind") or d["category"]
        what = d.get("bytes") or d.get("code_point") or ""
        start, end = f.start + shift, f.end + shift
        found.append((kind, what, d["action"], d["reason"], start, end, d))
        if f.category is Category.ILL_FORMED:
            ill_formed.append((start, end))
    if ill_formed:  # exact columns need every ill-formed subpart, listed or not
        ill_formed = [(e.start + shift, e.end + shift) for e in find_errors(body)]
    offsets = [o for item in found for o in item[4:6]]
    places = locate_all(data, offsets, ill_formed, settings.columns)
    findings = []
    for kind, what, action, reason, start, end, details in found:
        place = Place(label, start, end, *places[start], *places[end])
        findings.append(
            Finding(
                kind,
                what,
                action,
                reason,
                place,
                excerpt(data, start, end),
                fails=strict or action != "allow",
                details={k: v for k, v in details.items() if k not in ("start", "end")},
            )
        )
    more = report.more_findings  # counted, not listed; their actions are not known
    return Outcome(findings, len(data), more, more if strict or not report.ok else 0)


def warm_up(settings: Settings) -> None:
    """Build what checking needs (compiled policy, patterns, look-alike tables) before
    workers are forked, so that each starts with it instead of building it again."""
    if settings.source:
        from ..source_gate import check_source

        check_source("p\u043est post \u202e\u202c caf\u00e9\n", settings.policy)
    else:
        inspect("caf\u00e9\n".encode(), settings.policy)
