"""What a campaign produced, and how it is told: findings, per-target results, reports.

These are the plain values a campaign returns (``FuzzFinding``, ``TargetResult``) and the
text made from them: the markdown summary table ``sanitizer fuzz`` prints on stdout and the
``<artifact>.txt`` report written next to each finding.  No process or file-system logic
lives here, so the formats are unit-tested on hand-made values.

``FuzzFinding`` is named apart from ``sanitizer.Finding`` (a policy's verdict on one piece
of text): this one is an input that made a fuzz target fail, with its minimized copy and
report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .libfuzzer import headline

__all__ = [
    "NOT_REPRODUCED",
    "FuzzFinding",
    "TargetResult",
    "format_duration",
    "format_report",
    "format_summary",
    "format_table",
]


NOT_REPRODUCED = "WARNING: the saved input does not reproduce the failure on replay"


@dataclass
class FuzzFinding:
    """An input that made a target fail: where it is, its minimized copy and report, and
    the inputs that failed the same way (same headline) after it."""

    target: str
    artifact: Path
    minimized: Path | None = None
    report: Path | None = None
    failure: str = ""
    size: int = 0
    minimized_size: int | None = None
    duplicates: list[Path] = field(default_factory=list)
    # Whether replaying the saved input through the real target failed again (None: not
    # replayed yet).  False: a non-deterministic or stateful target, or memory growth.
    reproduced: bool | None = None

    @property
    def title(self) -> str:
        return headline(self.failure) or "crash"


@dataclass
class TargetResult:
    target: str
    jobs: int
    seconds: float
    execs: int
    cov: int
    ft: int
    corpus_before: int
    corpus_after: int
    findings: list[FuzzFinding] = field(default_factory=list)
    restarts: int = 0
    errors: list[str] = field(default_factory=list)
    candidate: str | None = None
    # Why the campaign ran far fewer executions than its time allows (None: it did not).
    shortfall: str | None = None

    @property
    def exec_per_sec(self) -> float:
        return self.execs / self.seconds if self.seconds > 0 else 0.0

    @property
    def duplicate_count(self) -> int:
        return sum(len(f.duplicates) for f in self.findings)


def format_duration(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A markdown table, columns padded for reading in a terminal too."""
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(headers), sep, *(line(r) for r in rows)])


def format_summary(results: Sequence[TargetResult], cwd: Path | None = None) -> str:
    headers = [
        "target",
        "jobs",
        "time",
        "execs",
        "exec/s",
        "cov",
        "ft",
        "corpus",
        "findings",
    ]
    rows = []
    for r in results:
        found = str(len(r.findings))
        if r.duplicate_count:
            found += f" (+{r.duplicate_count} dup)"
        rows.append(
            [
                r.target,
                str(r.jobs),
                format_duration(r.seconds),
                f"{r.execs:,}",
                f"{r.exec_per_sec:,.0f}",
                str(r.cov),
                str(r.ft),
                f"{r.corpus_before} -> {r.corpus_after}",
                found,
            ]
        )
    out = [format_table(headers, rows)]
    for r in results:
        for finding in r.findings:
            out.append("")
            out.append(f"finding ({r.target}): {finding.title}")
            out.append(f"  input:     {_rel(finding.artifact, cwd)} ({finding.size} bytes)")
            if finding.minimized is not None:
                out.append(
                    f"  minimized: {_rel(finding.minimized, cwd)} ({finding.minimized_size} bytes)"
                )
            if finding.report is not None:
                out.append(f"  report:    {_rel(finding.report, cwd)}")
            if finding.reproduced is False:
                out.append(f"  {NOT_REPRODUCED}")
            if finding.duplicates:
                out.append(f"  same failure also hit by {len(finding.duplicates)} more input(s)")
        for error in r.errors:
            out.append(f"error ({r.target}): {error}")
        if r.shortfall is not None:
            out.append(f"incomplete ({r.target}): {r.shortfall}")
    total = sum(len(r.findings) for r in results)
    out.append("")
    if total:
        out.append(f"{total} finding(s)")
    elif any(r.shortfall for r in results):
        out.append("no findings, but the campaign did not run as asked (see 'incomplete')")
    else:
        out.append("no findings: every input met the target's invariants")
    return "\n".join(out)


def _rel(path: Path, cwd: Path | None) -> str:
    base = cwd or Path.cwd()
    try:
        return str(path.resolve().relative_to(base.resolve()))
    except ValueError:
        return str(path)


def format_report(
    finding: FuzzFinding,
    *,
    data: bytes,
    original: bytes,
    candidate: str | None,
    reproduce: str,
    original_failure: str = "",
) -> str:
    """The ``<artifact>.txt`` written next to a finding.  ``original_failure`` is shown
    too when minimizing led to a different failure than the original input's."""
    lines = [
        f"sanitizer fuzz finding: target {finding.target}",
        f"failure:   {finding.title}",
        f"candidate: {candidate or '(none: the project decoder only)'}",
        f"input:     {finding.artifact.name} ({len(original)} bytes)",
    ]
    if finding.minimized is not None:
        lines.append(f"minimized: {finding.minimized.name} ({len(data)} bytes)")
    lines += [
        "",
        f"input hex ({len(data)} bytes): {data.hex(' ').upper() or '(empty)'}",
        f"input repr: {data!r}",
    ]
    if original != data:
        shown = original[:256].hex(" ").upper()
        if len(original) > 256:
            shown += f" ... ({len(original) - 256} more bytes)"
        lines.append(f"original hex ({len(original)} bytes): {shown}")
    lines += [
        "",
        "--- failure (as printed by the fuzz target) ---",
        finding.failure or "(no Python exception captured; see the fuzzer output)",
        "",
        "--- reproduce ---",
    ]
    if finding.reproduced is False:
        lines += [
            NOT_REPRODUCED,
            "(a non-deterministic or stateful target, or memory growth over many inputs:",
            " the command below may well exit 0)",
        ]
    lines += [reproduce, ""]
    if original_failure and headline(original_failure) != finding.title:
        lines += [
            "--- failure of the original (unminimized) input ---",
            original_failure,
            "",
        ]
    return "\n".join(lines)
