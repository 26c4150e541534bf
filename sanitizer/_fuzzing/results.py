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
from .probes import ACCEPTED, DIFFERS, ClassRow, worst_row

__all__ = [
    "NOT_REPRODUCED",
    "FuzzFinding",
    "TargetResult",
    "format_duration",
    "format_report",
    "format_summary",
    "format_table",
    "summary_dict",
]


NOT_REPRODUCED = "WARNING: the saved input does not reproduce the failure on replay"
# Coverage figures of a candidate libFuzzer cannot see inside (docs/fuzzing.md).
NATIVE_NOTE = (
    "the candidate is native code ({kind}): libFuzzer sees no coverage inside it, so cov, "
    "ft and corpus growth say nothing about how much of it was explored (the fuzzer "
    "mutates from the seeds and dictionary; the class table comes from deliberate probes)"
)
UNINSTRUMENTED_NOTE = (
    "the candidate was not coverage-instrumented (--no-instrument-candidate): cov, ft and "
    "corpus growth measure this project's reference decoder, not the candidate"
)


@dataclass
class FuzzFinding:
    """An input that made a target fail: where it is, its minimized copy and report, and
    the inputs that failed the same way (same headline) after it.  The headline (``title``)
    is the original input's failure, never changed by minimizing."""

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
    # The failure of the minimized input, as the reproduce command prints it.
    minimized_failure: str = ""
    # Seconds from the start of the target's campaign to this finding.
    found_after: float = 0.0
    # A candidate's finding: its verdict (accepted, differs) and class key (``classes``).
    verdict: str | None = None
    klass: str | None = None
    # Why the finding was not minimized or replayed (the --max-time budget ran out).
    note: str = ""

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
    # The working corpus the campaign read and grew.
    corpus_dir: Path | None = None
    # Seconds from the start of the target's campaign to its first finding.
    first_finding: float | None = None
    # A candidate's code ("python", "native"; None: unknown, or no candidate) and whether
    # its workers coverage-instrument it.
    candidate_code: str | None = None
    candidate_type: str = ""
    instrumented: bool = True
    # A candidate's verdict per ill-formed class (``probes.class_table``).
    classes: list[ClassRow] = field(default_factory=list)

    @property
    def exec_per_sec(self) -> float:
        return self.execs / self.seconds if self.seconds > 0 else 0.0

    @property
    def duplicate_count(self) -> int:
        return sum(len(f.duplicates) for f in self.findings)

    @property
    def coverage_applies(self) -> bool:
        """Whether cov/ft measure the code under test (not a native or uninstrumented
        candidate)."""
        return self.candidate is None or (self.instrumented and self.candidate_code != "native")

    @property
    def coverage_note(self) -> str | None:
        if self.candidate is None or self.coverage_applies:
            return None
        if self.candidate_code == "native":
            return NATIVE_NOTE.format(kind=self.candidate_type or "not a Python function")
        return UNINSTRUMENTED_NOTE

    @property
    def verdict(self) -> str | None:
        """A candidate's one-line verdict, naming the most severe class it gets wrong."""
        if self.candidate is None or not self.classes:
            return None
        row = worst_row(self.classes)
        if row is None:
            return "refuses every probed ill-formed class as CPython does"
        example = "" if row.example is None else f": {row.example.hex(' ').upper()}"
        answer = f" -> {row.answer}" if row.verdict == ACCEPTED and row.answer else ""
        if row.verdict == ACCEPTED:
            return f"ACCEPTS ILL-FORMED UTF-8 ({row.label}{example}{answer})"
        if row.key == "well-formed":
            return f"differs from CPython on well-formed input{example} ({row.answer})"
        return f"refuses {row.label} differently from CPython{example} ({row.answer})"


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
    headers = ["target", "jobs", "time", "execs", "exec/s", "cov", "ft", "corpus", "findings"]
    headers.append("first finding")
    rows = []
    for r in results:
        found = str(len(r.findings))
        if r.duplicate_count:
            found += f" (+{r.duplicate_count} dup)"
        cov, ft = (str(r.cov), str(r.ft)) if r.coverage_applies else ("n/a", "n/a")
        rows.append(
            [
                r.target,
                str(r.jobs),
                format_duration(r.seconds),
                f"{r.execs:,}",
                f"{r.exec_per_sec:,.0f}",
                cov,
                ft,
                f"{r.corpus_before} -> {r.corpus_after}",
                found,
                "-" if r.first_finding is None else format_duration(r.first_finding),
            ]
        )
    out = [format_table(headers, rows)]
    for r in results:
        out += _candidate_lines(r, cwd)
        for finding in sorted(r.findings, key=_severity):
            out.append("")
            out.append(f"finding ({r.target}): {finding.title}")
            out.append(
                f"  input:     {_rel(finding.artifact, cwd)} ({finding.size} bytes), "
                f"found after {format_duration(finding.found_after)}"
            )
            if finding.minimized is not None:
                out.append(
                    f"  minimized: {_rel(finding.minimized, cwd)} ({finding.minimized_size} bytes)"
                )
            if finding.report is not None:
                out.append(f"  report:    {_rel(finding.report, cwd)}")
            if finding.note:
                out.append(f"  note:      {finding.note}")
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


def _candidate_lines(r: TargetResult, cwd: Path | None) -> list[str]:
    """A candidate's verdict, class table and notes under the summary table."""
    if r.candidate is None:
        return []
    kind = {"python": "Python", "native": "native code"}.get(r.candidate_code or "", "")
    how = ", ".join(
        x
        for x in (
            kind,
            ("coverage-instrumented" if r.coverage_applies else "not instrumented") if kind else "",
        )
        if x
    )
    out = ["", f"candidate ({r.target}): {r.candidate}" + (f" ({how})" if how else "")]
    if r.verdict is not None:
        out.append(f"  verdict:  {r.verdict}")
    if r.corpus_dir is not None:
        out.append(f"  corpus:   {_rel(r.corpus_dir, cwd)}")
    note = r.coverage_note
    if note is not None:
        out.append(f"  note:     {note}")
    if r.classes:
        rows = [
            [
                row.label,
                row.verdict,
                "" if row.example is None else row.example.hex(" ").upper(),
                row.answer if row.verdict in (ACCEPTED, DIFFERS) else "",
            ]
            for row in r.classes
        ]
        out += ["", format_table(["class", "verdict", "example", "answer"], rows)]
    return out


def _severity(finding: FuzzFinding) -> tuple[int, int, float]:
    """Findings in the order a reader acts on them: accepted classes by rank, then
    refused-differently ones, then the rest; earliest first within a class."""
    from .classes import CLASSES

    ranks = {c.key: i for i, c in enumerate(CLASSES)}
    order = {ACCEPTED: 0, DIFFERS: 1}.get(finding.verdict or "", 2)
    return (order, ranks.get(finding.klass or "", len(ranks)), finding.found_after)


def summary_dict(results: Sequence[TargetResult], cwd: Path | None = None) -> dict[str, object]:
    """The summary as JSON-ready data (``sanitizer fuzz --format json``)."""
    targets = []
    for r in results:
        targets.append(
            {
                "target": r.target,
                "jobs": r.jobs,
                "seconds": round(r.seconds, 3),
                "execs": r.execs,
                "exec_per_sec": round(r.exec_per_sec, 1),
                "cov": r.cov if r.coverage_applies else None,
                "ft": r.ft if r.coverage_applies else None,
                "corpus": {
                    "dir": None if r.corpus_dir is None else _rel(r.corpus_dir, cwd),
                    "before": r.corpus_before,
                    "after": r.corpus_after,
                },
                "first_finding_seconds": None
                if r.first_finding is None
                else round(r.first_finding, 3),
                "candidate": None
                if r.candidate is None
                else {
                    "spec": r.candidate,
                    "code": r.candidate_code,
                    "instrumented": r.coverage_applies,
                    "verdict": r.verdict,
                    "note": r.coverage_note,
                    "classes": [row.as_dict() for row in r.classes],
                },
                "findings": [
                    {
                        "headline": f.title,
                        "verdict": f.verdict,
                        "class": f.klass,
                        "input": _rel(f.artifact, cwd),
                        "size": f.size,
                        "minimized": None if f.minimized is None else _rel(f.minimized, cwd),
                        "minimized_size": f.minimized_size,
                        "report": None if f.report is None else _rel(f.report, cwd),
                        "found_after_seconds": round(f.found_after, 3),
                        "reproduced": f.reproduced,
                        "duplicates": len(f.duplicates),
                        "note": f.note or None,
                    }
                    for f in sorted(r.findings, key=_severity)
                ],
                "errors": list(r.errors),
                "incomplete": r.shortfall,
            }
        )
    return {"targets": targets, "findings": sum(len(r.findings) for r in results)}


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
) -> str:
    """The ``<artifact>.txt`` written next to a finding: the headline is the original
    input's failure; the minimized input's failure is shown as the reproduce command
    prints it, and the original's below when the inputs differ."""
    lines = [
        f"sanitizer fuzz finding: target {finding.target}",
        f"failure:   {finding.title}",
        f"candidate: {candidate or '(none: the project decoder only)'}",
    ]
    if finding.klass is not None:
        from .probes import label_of

        lines.append(f"class:     {label_of(finding.klass)} ({finding.verdict})")
    lines.append(f"input:     {finding.artifact.name} ({len(original)} bytes)")
    if finding.minimized is not None:
        lines.append(f"minimized: {finding.minimized.name} ({len(data)} bytes)")
    if finding.note:
        lines.append(f"note:      {finding.note}")
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
    shown_failure = finding.minimized_failure or finding.failure
    lines += [
        "",
        "--- failure (as printed by the fuzz target) ---",
        shown_failure or "(no Python exception captured; see the fuzzer output)",
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
    if original != data and finding.failure and shown_failure != finding.failure:
        lines += [
            "--- failure of the original (unminimized) input ---",
            finding.failure,
            "",
        ]
    return "\n".join(lines)
