"""What checking one input gave, and where it goes: the output, then the summary's counts.

Every input mode of ``sanitizer check`` returns an ``Outcome``: its findings as an
iterator (consumed once, as they are found: a stream of any size is reported in bounded
memory), the bytes it read, and the findings it counted without listing them.  The
``Sink`` gives the findings, up to ``--limit`` a file, to the emitter of the run's
format (``EMITTERS``: text lines, JSON Lines or a SARIF log); ``Totals`` adds each
outcome to the summary, in the one place the counts are kept; ``Progress`` is the
progress bar on stderr.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator

from ._output import Emitter, FileFinding, JsonLinesEmitter, TextEmitter, Writer, display_path

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def _sarif(out: Writer, columns: str) -> Emitter:
    from ._sarif import SarifLog  # here: only a SARIF run loads json, hashlib, urllib

    return SarifLog(out, columns)


# --format NAME -> its emitter, given the writer and the column unit
EMITTERS: dict[str, Callable[[Writer, str], Emitter]] = {
    "text": TextEmitter,
    "json": JsonLinesEmitter,
    "sarif": _sarif,
}
FORMATS = tuple(EMITTERS)


class Outcome:
    """What one input mode found in one input.

    Iterating gives ``findings`` once and counts them (``listed``, ``listed_failing``);
    ``size`` (bytes read: an int, or a function asked once the findings are exhausted,
    for a mode that reads as they are consumed), ``more`` and ``more_failing``
    (findings counted but not listed, e.g. past ``Policy.max_findings``) are final once
    the findings are exhausted."""

    __slots__ = (
        "_size", "findings", "listed", "listed_failing", "listed_suppressed", "more",
        "more_failing", "note", "tally"
    )  # fmt: skip

    def __init__(
        self,
        findings: Iterable[FileFinding] = (),
        size: int | Callable[[], int] = 0,
        more: int = 0,
        more_failing: int = 0,
        note: str | None = None,
    ) -> None:
        self.findings = findings  # set after construction by a mode that counts into it
        self._size = size
        self.more = more
        self.more_failing = more_failing
        self.listed = self.listed_failing = self.listed_suppressed = 0
        self.note = note  # why the input was skipped (binary), for every output format
        # a records file's summary per field, complete once the findings are exhausted:
        # field -> [values read, values with findings, findings] (``Emitter.tally``)
        self.tally: dict[str, list[int]] = {}

    def __iter__(self) -> Iterator[FileFinding]:
        for finding in self.findings:
            self.listed += 1
            self.listed_failing += finding.fails
            self.listed_suppressed += bool(finding.suppressed)
            yield finding

    @property
    def size(self) -> int:
        return self._size if isinstance(self._size, int) else self._size()

    @property
    def found(self) -> int:
        return self.listed + self.more

    @property
    def failing(self) -> int:
        return self.listed_failing + self.more_failing


def size_text(n: float) -> str:
    """``n`` bytes for people: ``12 B``, ``3.4 KiB``, ``5.6 MiB``."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


class Progress:
    """A one-line progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total = total
        self.done = 0
        self.enabled = enabled and total > 0
        self._last = 0.0

    def advance(self, n: int, label: str) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1:
            return
        self._last = now
        frac = min(1.0, self.done / self.total)
        bar = "#" * int(frac * 30)
        name = label if len(label) <= 40 else "..." + label[-37:]
        sys.stderr.write(f"\r[{bar:<30}] {frac:6.1%} {size_text(self.done)} {name:<40}")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 92 + "\r")
            sys.stderr.flush()


class Totals:
    """The counts of the summary; only ``add``, ``skip_binary``, ``io_error`` and
    ``merge`` change them."""

    __slots__ = ("binary", "bytes", "dirty_files", "failing", "files", "findings", "io_errors",
                 "suppressed")  # fmt: skip

    def __init__(self) -> None:
        self.files = self.bytes = self.findings = self.failing = 0
        self.dirty_files = self.io_errors = self.binary = self.suppressed = 0

    def add(self, outcome: Outcome) -> None:
        """One input checked to its end (its findings consumed)."""
        found = outcome.listed + outcome.more
        self.files += 1
        self.bytes += outcome.size
        self.findings += found
        self.failing += outcome.listed_failing + outcome.more_failing
        self.suppressed += outcome.listed_suppressed
        self.dirty_files += bool(found)

    def skip_binary(self) -> None:
        self.binary += 1

    def io_error(self, path: str, message: str) -> None:
        """An input that could not be read: one line on stderr, and the run exits 2."""
        print(f"sanitizer check: {display_path(path)}: {message}", file=sys.stderr)
        self.io_errors += 1

    def counts(self) -> tuple[int, int, int, int, int, int, int, int]:
        """The counts as a plain tuple (what a worker process sends back)."""
        return (self.files, self.bytes, self.findings, self.failing, self.dirty_files,
                self.io_errors, self.binary, self.suppressed)  # fmt: skip

    def merge(self, counts: tuple[int, int, int, int, int, int, int, int]) -> None:
        """Add the ``counts()`` of the totals of another process."""
        files, size, findings, failing, dirty_files, io_errors, binary, suppressed = counts
        self.suppressed += suppressed
        self.files += files
        self.bytes += size
        self.findings += findings
        self.failing += failing
        self.dirty_files += dirty_files
        self.io_errors += io_errors
        self.binary += binary


class Sink:
    """Where findings go: the emitter of the writer's format (``EMITTERS``); at most
    ``limit`` a file (0: all) that fail and, in the room they leave, allowed ones; the
    others counted (``Emitter.unshown``).  ``quiet``: failing findings only
    (``--quiet``), and no notes of skipped files."""

    def __init__(
        self, out: Writer, limit: int, columns: str, quiet: bool = False, verbose: bool = False
    ) -> None:
        self.out = out
        self.limit = limit
        self.quiet = quiet
        self.verbose = verbose  # text: each skipped file on a line (else counted only)
        self.emitter = EMITTERS[out.format](out, columns)
        self.kept: list[FileFinding] | None = None  # the failing findings (--write-baseline)
        self.statistics: dict[str, list[int]] | None = None  # rule -> failing, allowed, suppressed

    def emit(self, finding: FileFinding) -> None:
        if self.quiet and not finding.fails:
            return
        self.emitter.finding(finding)

    def emit_file(self, label: str, outcome: Outcome) -> None:
        """Write the findings of one input, consuming them (or why it was skipped)."""
        if outcome.note is not None:
            self.note(label, outcome.note)
        limit, quiet = self.limit, self.quiet
        shown = shown_failing = past = 0
        kept, statistics = self.kept, self.statistics
        for finding in outcome:
            fails = finding.fails
            if kept is not None and fails:
                kept.append(finding)
            if statistics is not None:
                row = statistics.setdefault(finding.kind, [0, 0, 0])
                row[0 if fails else 2 if finding.suppressed else 1] += 1
            if quiet and not fails:
                continue
            # A cap on the failing ones apart: allowed ones never crowd out one that fails.
            if not limit or (shown_failing < limit if fails else shown < limit):
                shown += 1
                shown_failing += fails
                self.emitter.finding(finding)
            else:
                past += 1
        unshown = (outcome.more_failing if quiet else outcome.more) + past
        if unshown:
            self.emitter.unshown(label, unshown)
        if outcome.tally:
            self.emitter.tally(label, outcome.tally)

    def note(self, label: str, note: str) -> None:
        """A file not checked, and why (a binary file skipped).  In text, only with
        ``--verbose``: a tree holds thousands of binary files, and the summary line
        counts them; JSON and SARIF list each one."""
        if self.quiet or (not self.verbose and not self.out.as_json):
            return
        self.emitter.skipped(label, note)

    def close(self, successful: bool, exit_code: int, summary: dict[str, Any]) -> None:
        """The end of the run (``Emitter.close``), with the statistics if asked for."""
        if self.statistics is not None:
            rows = sorted(self.statistics.items(), key=lambda kv: (-sum(kv[1]), kv[0]))
            summary = {**summary, "statistics": {
                rule: dict(zip(("failing", "allowed", "suppressed"), row, strict=True))
                for rule, row in rows
            }}  # fmt: skip
            if self.out.format == "text":
                for rule, (failing, allowed, suppressed) in rows:
                    total = failing + allowed + suppressed
                    self.out.line(f"{total:7d}  {rule:<24} {failing} failing, {allowed} "
                                  f"allowed, {suppressed} suppressed")  # fmt: skip
        self.emitter.close(successful, exit_code, summary)


class Recorder(Sink):
    """A sink that keeps what it is given (in a worker process, for the parent to
    emit in order): ``(label, findings, more, more_failing, note, tally)`` an input that
    has any of them."""

    def __init__(self) -> None:
        self.emitted: list[
            tuple[str, list[FileFinding], int, int, str | None, dict[str, list[int]]]
        ] = []

    def emit_file(self, label: str, outcome: Outcome) -> None:
        findings = list(outcome)
        if findings or outcome.more or outcome.note or outcome.tally:  # else nothing written
            self.emitted.append(
                (label, findings, outcome.more, outcome.more_failing, outcome.note, outcome.tally)
            )


def summary(totals: Totals, skipped_symlinks: int, excluded: int, columns: str) -> dict[str, Any]:
    """The run's summary (JSON's last record, SARIF's run properties)."""
    return {
        "files": totals.files,
        "bytes": totals.bytes,
        "findings": totals.findings,
        "failing": totals.failing,
        "suppressed": totals.suppressed,
        "files_with_findings": totals.dirty_files,
        "io_errors": totals.io_errors,
        "skipped_binary": totals.binary,
        "skipped_symlinks": skipped_symlinks,
        "excluded": excluded,
        "columns": columns,
    }


def summary_line(totals: Totals, skipped_symlinks: int, excluded: int, listed: bool = True) -> str:
    """The one line on stderr that ends every run (``listed``: the skipped binary files
    were listed one by one, else it says how to list them)."""
    skipped = [
        f"{n} {what}"
        for n, what in (
            (totals.binary, "binary" if listed else "binary (--verbose lists them)"),
            (skipped_symlinks, "symlink(s)"),
            (excluded, "excluded"),
        )
        if n
    ]
    passed = totals.findings - totals.failing - totals.suppressed
    return (
        f"sanitizer check: {totals.files} file(s), {size_text(totals.bytes)}: "
        f"{totals.findings} finding(s) in {totals.dirty_files} file(s), "
        f"{totals.failing} failing"
        + (f", {passed} allowed" if passed else "")
        + (f", {totals.suppressed} suppressed" if totals.suppressed else "")
        + (f"; skipped {', '.join(skipped)}" if skipped else "")
        + (f"; {totals.io_errors} unreadable" if totals.io_errors else "")
    )
