"""``sanitizer check --policy SOURCE`` on UTF-8: the ``source`` mode.

``sanitizer._source_gate.check_source_pieces`` over the pieces of a proven input
(``_judge``): Trojan Source, invisibles, look-alike identifiers (UTS #55), the identifier
rules only for code (``_kinds``; ``--as-text`` turns them off for data written as code).
A finding about an identifier names it, its middle left out when it is long, and a
look-alike pair points at the other spelling.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._inputs import Opened
from ._judge import capped, placed, prove, release
from ._kinds import UNKNOWN
from ._locate import visible
from ._report import Outcome

if TYPE_CHECKING:
    from typing import Any

    from ._check_args import Settings
    from ._report import Progress

_check_source_pieces: Any = None  # sanitizer._source_gate.check_source_pieces, on first use
_SHOWN = 80  # characters of an identifier shown in WHAT and in details


def source_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """A UTF-8 input under SOURCE: ``check_source_pieces`` over its pieces, with the
    identifier rules when it is code (``_kinds``)."""
    region = prove(opened, settings, progress)
    if isinstance(region, Outcome):
        return region
    global _check_source_pieces
    if _check_source_pieces is None:  # policy layer: only loaded with --policy SOURCE
        from .._source_gate import check_source_pieces as _check_source_pieces

    policy = capped(settings.policy, settings.limit)[0]
    kind = getattr(opened, "kind", None) or UNKNOWN

    def texts() -> Iterator[str]:
        return (piece.decode("utf-8") for _, piece in region.pieces())

    report = _check_source_pieces(texts, policy, code=kind.code)
    if not report.findings:
        release(opened)
    strict = settings.strict
    more = report.more_findings  # counted, not listed
    more_failing = more - (0 if strict else report.more_allowed)
    if not report.findings:  # the usual file: nothing to place
        return Outcome((), region.size, more, more_failing)
    items = []
    for f in report.findings:
        related: tuple[tuple[int, int, str], ...] = ()
        if f.other is not None:
            o_start, o_end, spelling = f.other
            related = ((o_start, o_end, f"the other spelling {_short(spelling)!r}"),)
        if f.identifier is not None:
            what = _short(f.identifier)
        else:
            what = f"U+{f.codepoint:04X}" if f.codepoint is not None else ""
        details = {k: v for k, v in f.as_dict().items() if k not in ("start", "end", "other")}
        if "identifier" in details:
            details["identifier"] = _short(f.identifier or "")
        reason = visible(f.reason.encode())
        fails = strict or f.refused
        items.append(
            (f.start, f.end, f.kind, what, f.action.value, reason, details, related, fails)
        )
    findings = placed(region, items, True, settings.columns, opened.label)
    release(opened)
    return Outcome(findings, region.size, more, more_failing)


def _short(identifier: str) -> str:
    """An identifier made visible, its middle left out when it is long."""
    if len(identifier) > _SHOWN:
        half = _SHOWN // 2
        identifier = f"{identifier[:half]}...{identifier[-half:]}"
    return visible(identifier.encode())
