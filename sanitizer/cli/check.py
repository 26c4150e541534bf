"""``sanitizer check``: the gate for files, folders and stdin, in bounded memory.

An adapter: it reads bytes and prints what the core (and, with ``--policy``, the policy
layer) reports.  Folders are walked like ripgrep walks them (``_walk``: VCS folders
skipped, ``.gitignore``/``.ignore`` honoured, binary files skipped); each file streams
through ``IncrementalDecoder.feed`` in fixed-size chunks, errors grouped as a person reads
them (``C0 AE`` is one overlong '.') and printed once complete, one line each::

    PATH:LINE:COLUMN: KIND  WHAT  ACTION  REASON  | EXCERPT

A file that declares another encoding (``_declared``) is one ``declared-encoding``
finding.  ``--policy SOURCE`` runs ``sanitizer.source_gate.check_source`` (Trojan Source,
invisibles, look-alike identifiers, UTS #55) on each UTF-8 file.  ``--format json``
prints JSON Lines and a summary object, ``--format sarif`` one
SARIF 2.1.0 log (``_sarif``).  Exit 0 when nothing fails the check, 1 when a finding the
profile refuses was found (allowed ones too with ``--strict``), 2 on usage or I/O errors.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import os
import stat
import sys
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence

from ..decoder import ErrorGrouper, IncrementalDecoder, find_errors
from ..errors import ErrorKind, Utf8Error
from . import _inputs, _jobs, _verdict, _walk
from ._declared import HEAD, declared_encoding
from ._locate import CODEPOINTS, CONTEXT, UTF16, Locator, excerpt, locate_all, visible
from ._output import FORMATS, Finding, OutputError, Place, Writer, display_path, end_of_output
from ._wide import check_encoding, is_utf8, wide_findings, wide_policy_findings

TYPE_CHECKING = False  # typing's constant without importing typing (start-up: issue #13)
if TYPE_CHECKING:
    from typing import IO, Any

CHUNK = 1 << 16
BINARY_SNIFF = 8192  # a NUL byte in the first 8 KiB means binary, as for git and ripgrep


def _looks_binary(sample: bytes) -> bool:
    """A NUL byte in ``sample``, which is also not UTF-8 (an incomplete character at its
    end aside).  Valid UTF-8 with a NUL is text with a NUL: gcc, for one, compiles it with
    a warning, so a NUL alone must not take a source file out of the gate."""
    if b"\0" not in sample:
        return False
    errors = find_errors(sample, limit=2)
    cut_short = len(errors) == 1 and errors[0].kind is ErrorKind.INCOMPLETE  # at the end
    return bool(errors) and not cut_short


EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
_BOM = b"\xef\xbb\xbf"
_LEVELS = (  # UTS #39 §5.2, strictest first (sanitizer.RestrictionLevel)
    "ascii-only",
    "single-script",
    "highly-restrictive",
    "moderately-restrictive",
    "minimally-restrictive",
    "unrestricted",
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "check",
        help="the gate: report ill-formed UTF-8 (and, with --policy, unwanted characters)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="file, folder (recursive) or -")
    p.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=0,
        metavar="N",
        help="with --policy, check files in N processes (default 0: one a core, at most "
        f"{_jobs.MAX_AUTO_JOBS}, for {_jobs.AUTO_MIN_BYTES >> 20} MiB or more; 1: one "
        "process); without, prove a valid file of "
        f"{_verdict.PARALLEL_MIN >> 20} MiB or more in N threads (0: one a core, at most "
        f"{_verdict.MAX_PARTS}); the output is the same for any N",
    )
    out = p.add_argument_group("output")
    out.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text lines (default), JSON Lines, or one SARIF 2.1.0 log (code scanning)",
    )
    out.add_argument(
        "--json", action="store_const", const="json", dest="format", help="--format json"
    )
    out.add_argument(
        "--columns",
        choices=(CODEPOINTS, UTF16),
        default=None,
        help="column unit: code points (default for text and JSON) or UTF-16 code units "
        "(LSP editors; the default for SARIF)",
    )
    out.add_argument(
        "--limit",
        type=int,
        default=0,
        metavar="N",
        help="report at most N findings per file (0: all)",
    )
    out.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="progress bar on stderr (auto: only when stderr is a terminal)",
    )
    gate = p.add_argument_group("what fails the check")
    gate.add_argument(
        "--policy",
        metavar="PROFILE",
        help="also apply a policy profile after strict decoding (e.g. TEXT, SINGLE_LINE; "
        "PROMPT: text for a language model, every hidden payload refused; "
        "SOURCE: the source-code gate of UTS #55, see sanitizer.source_gate)",
    )
    gate.add_argument(
        "--max-restriction-level",
        choices=_LEVELS,
        default=None,
        metavar="LEVEL",
        help="with --policy SOURCE: the widest script mix an identifier may have (UTS #39 "
        "§5.2; default highly-restrictive): " + ", ".join(_LEVELS),
    )
    gate.add_argument(
        "--strict",
        action="store_true",
        help="findings the profile allows (and reports) fail the check too",
    )
    gate.add_argument(
        "--declared-encoding",
        choices=("reject", "allow", "ignore"),
        default="reject",
        help="a file declaring a non-UTF-8 encoding (PEP 263 cookie, XML, HTML meta) is one "
        "finding that fails (reject, default) or is only reported (allow); ignore: check "
        "its bytes as UTF-8 anyway",
    )
    gate.add_argument(
        "--max-bytes",
        type=int,
        default=64 << 20,
        metavar="N",
        help="with --policy: files larger than N bytes are reported too-long, not loaded "
        "(default 64 MiB; strict UTF-8 checking streams and has no limit)",
    )
    gate.add_argument(
        "--encoding",
        default="utf-8",
        metavar="NAME",
        help="how the files are encoded: utf-8 (default), utf-16le, utf-16be, utf-32le, "
        "utf-32be, or utf-16 / utf-32 (byte order from the BOM, never guessed)",
    )
    gate.add_argument(
        "--allow-overlong-nul",
        action="store_true",
        help="accept exactly C0 80 as U+0000 (Java Modified UTF-8, HOWTO §5.9.4)",
    )
    walk = p.add_argument_group("which files in folders (files named as PATH are always read)")
    walk.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="only files matching GLOB (gitignore syntax; repeatable)",
    )
    walk.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out files and folders matching GLOB (gitignore syntax; repeatable)",
    )
    walk.add_argument(
        "--binary",
        choices=("skip", "check"),
        default="skip",
        help="files with a NUL byte in their first 8 KiB that are not UTF-8 there are "
        "binary: skipped (default, counted in the summary) or checked",
    )
    walk.add_argument(
        "--no-ignore",
        action="store_true",
        help="do not honour .gitignore and .ignore files",
    )
    walk.add_argument(
        "--no-git",
        action="store_true",
        help="read .gitignore files without asking git (then tracked files that an ignore "
        "rule matches are left out too)",
    )
    walk.add_argument(
        "--follow",
        action="store_true",
        help="follow symbolic links (loops are detected); by default they are counted, not read",
    )
    p.set_defaults(func=run)


class _Totals:
    """The counts of the summary line."""

    __slots__ = ("binary", "bytes", "dirty_files", "failing", "files", "findings", "io_errors")

    def __init__(self) -> None:
        self.files = self.bytes = self.findings = self.failing = 0
        self.dirty_files = self.io_errors = self.binary = 0


class _Progress:
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
        sys.stderr.write(f"\r[{bar:<30}] {frac:6.1%} {_size(self.done)} {name:<40}")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 92 + "\r")
            sys.stderr.flush()


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def _io_error(path: str, message: str, totals: _Totals) -> None:
    print(f"sanitizer check: {display_path(path)}: {message}", file=sys.stderr)
    totals.io_errors += 1


def _walk_problem(problem: _inputs.Problem, totals: _Totals) -> None:
    if problem.error:
        _io_error(problem.path, problem.message, totals)
    else:
        print(f"sanitizer check: {display_path(problem.path)}: {problem.message}", file=sys.stderr)


class _Sink:
    """Where findings go: text lines, JSON Lines or a SARIF log; per-file ``--limit``."""

    def __init__(self, args: argparse.Namespace, out: Writer, columns: str) -> None:
        self.out = out
        self.limit = args.limit
        self.sarif = None
        if args.format == "sarif":
            from ._sarif import SarifLog

            self.sarif = SarifLog(out, columns)

    def emit(self, finding: Finding) -> None:
        if self.sarif is not None:
            self.sarif.result(finding)
        elif self.out.as_json:
            self.out.record(finding.as_record())
        else:
            self.out.line(finding.text_line())

    def emit_file(
        self,
        label: str,
        findings: Iterable[Finding],
        totals: _Totals,
        unlisted: tuple[int, int] = (0, 0),
    ) -> None:
        """Emit ``findings`` of one file; ``unlisted`` counts findings (and failing ones)
        that the policy counted without listing them (``Policy.max_findings``)."""
        found, failing = unlisted
        for finding in findings:
            found += 1
            failing += finding.fails
            if not self.limit or found - unlisted[0] <= self.limit:
                self.emit(finding)
        listed = found - unlisted[0]
        unshown = unlisted[0] + (listed - self.limit if self.limit and listed > self.limit else 0)
        self._count(label, found, failing, unshown, totals)

    def _count(self, label: str, found: int, failing: int, unshown: int, totals: _Totals) -> None:
        if unshown and not self.out.as_json:
            self.out.line(f"{display_path(label)}: ... {unshown} more finding(s) not shown")
        totals.findings += found
        totals.failing += failing
        totals.dirty_files += bool(found)


def run(args: argparse.Namespace) -> int:
    out = Writer(fmt=args.format)
    try:
        return _run(args, out)
    except OutputError as exc:
        return end_of_output(exc, "sanitizer check")


def _run(args: argparse.Namespace, out: Writer) -> int:
    totals = _Totals()
    policy = None
    args.source = False
    if args.policy:
        from .. import profiles  # policy layer: only loaded when asked for

        try:
            policy = profiles.get(args.policy)
        except ValueError as exc:
            print(f"sanitizer check: {exc}", file=sys.stderr)
            return EXIT_USAGE
        args.source = policy is profiles.SOURCE
        if args.max_restriction_level is not None:
            if not args.source:
                print(
                    "sanitizer check: --max-restriction-level needs --policy SOURCE",
                    file=sys.stderr,
                )
                return EXIT_USAGE
            policy = policy.replace(max_restriction_level=args.max_restriction_level)
    problem = check_encoding(args.encoding)
    if problem is None and args.source and not is_utf8(args.encoding):
        problem = "--policy SOURCE reads UTF-8 source files: --encoding must be utf-8"
    if problem is not None:
        print(f"sanitizer check: {problem}", file=sys.stderr)
        return EXIT_USAGE
    if args.limit < 0 or args.max_bytes < 0 or args.jobs < 0:
        print("sanitizer check: --limit, --max-bytes and --jobs must be >= 0", file=sys.stderr)
        return EXIT_USAGE
    columns = args.columns or (UTF16 if args.format == "sarif" else CODEPOINTS)
    rules = _walk.Rules(
        ignore_files=not args.no_ignore,
        use_git=not args.no_git,
        include=tuple(args.include),
        exclude=tuple(args.exclude),
        follow=args.follow,
    )
    counts = _walk.Counts()
    report = lambda problem: _walk_problem(problem, totals)  # noqa: E731
    files = list(_inputs.expand(args.paths, report, rules, counts))
    enabled = args.progress == "always" or (args.progress == "auto" and _isatty(sys.stderr))
    # The total is for the progress bar and for choosing --jobs 0 (enough past its mark).
    enough = _jobs.AUTO_MIN_BYTES if policy is not None and args.jobs == 0 else 0
    total_size = _total_size(files, None if enabled else enough)
    progress = _Progress(total_size, enabled)
    sink = _Sink(args, out, columns)
    try:
        _check_all(files, total_size, args, policy, columns, totals, progress, sink)
    finally:
        progress.close()
    code = EXIT_USAGE if totals.io_errors else EXIT_FOUND if totals.failing else EXIT_OK
    summary = {
        "files": totals.files,
        "bytes": totals.bytes,
        "findings": totals.findings,
        "failing": totals.failing,
        "files_with_findings": totals.dirty_files,
        "io_errors": totals.io_errors,
        "skipped_binary": totals.binary,
        "skipped_symlinks": counts.symlinks,
        "excluded": counts.excluded,
        "columns": columns,
    }
    if sink.sarif is not None:
        sink.sarif.close(not totals.io_errors, code, summary)
    elif args.format == "json":
        out.record({"summary": summary})
    out.flush()
    skipped = [
        f"{n} {what}"
        for n, what in (
            (totals.binary, "binary"),
            (counts.symlinks, "symlink(s)"),
            (counts.excluded, "excluded"),
        )
        if n
    ]
    passed = totals.findings - totals.failing
    print(
        f"sanitizer check: {totals.files} file(s), {_size(totals.bytes)}: "
        f"{totals.findings} finding(s) in {totals.dirty_files} file(s)"
        + (f" ({passed} allowed)" if passed else "")
        + (f"; skipped {', '.join(skipped)}" if skipped else "")
        + (f"; {totals.io_errors} unreadable" if totals.io_errors else ""),
        file=sys.stderr,
    )
    return code


def _total_size(files: list[_inputs.Input], enough: int | None) -> int:
    """The size of ``files`` in all, or once it reaches ``enough`` (None: all) that far:
    one ``stat`` a file read, none when ``enough`` is 0."""
    total = 0
    for item in files:
        if enough is not None and total >= enough:
            break
        total += _inputs.size_of(item.path)
    return total


def _isatty(stream: IO[str] | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False


def _open(path: str) -> IO[bytes]:
    """The input as a stream: a regular file with a size unbuffered (one ``read()`` a
    call, no copy through a buffer: half the cost of opening and reading a small file),
    anything else buffered (pipes, devices, and files of size 0 such as those of /proc,
    whose reads may stop short of their end)."""
    if path == _inputs.STDIN:
        if sys.stdin is None:  # started with stdin closed (<&-)
            raise OSError(errno.EBADF, "standard input is closed")
        return sys.stdin.buffer
    raw = open(path, "rb", buffering=0)
    try:
        st = os.fstat(raw.fileno())
    except OSError:
        raw.close()
        raise
    return raw if stat.S_ISREG(st.st_mode) and st.st_size else io.BufferedReader(raw)


def _read_at_most(stream: IO[bytes], limit: int, data: bytes) -> bytes:
    """``data`` and more, up to ``limit`` + 1 bytes, read in chunks (never one
    allocation of ``limit``).  ``data`` is a first ``read(CHUNK)`` of a stream from
    ``_open``, buffered or a regular file with a size, which returns less only at its
    end: then no read is tried."""
    if len(data) < CHUNK:
        return data[: limit + 1]
    parts: list[bytes] = [data[: limit + 1]]
    size = len(parts[0])
    while size <= limit:
        chunk = stream.read(min(CHUNK, limit + 1 - size))
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


def _check_one(
    item: _inputs.Input,
    args: argparse.Namespace,
    policy: Any,
    columns: str,
    totals: _Totals,
    progress: _Progress,
    sink: _Sink,
) -> None:
    path = item.path
    label = "<stdin>" if path == _inputs.STDIN else path
    try:
        stream = _open(path)
    except OSError as exc:
        _io_error(label, exc.strerror or str(exc), totals)
        return
    size = 0
    try:
        first = stream.read(CHUNK)
        utf8 = is_utf8(args.encoding)
        if policy is not None and not utf8:  # UTF-16/32 (``_wide``)
            data = _read_at_most(stream, args.max_bytes, first)
            progress.advance(len(data), label)
            if len(data) > args.max_bytes:
                findings, unlisted = [_too_long(label, data, args)], (0, 0)
            else:
                findings, unlisted = wide_policy_findings(
                    label, data, policy, args.encoding, columns, args.strict
                )
            sink.emit_file(label, findings, totals, unlisted)
            totals.files += 1  # as the else clause below does (a return skips it)
            totals.bytes += len(data)
            return
        if not utf8:  # UTF-16/32 (``_wide``): no sniffing, no cookies
            read = [0]
            advance = lambda n: progress.advance(n, label)  # noqa: E731
            found = wide_findings(
                stream, first, args.encoding, label, columns, CHUNK, advance, read
            )
            sink.emit_file(label, found, totals)
            totals.files += 1  # as the else clause below does (a return skips it)
            totals.bytes += read[0]
            return
        declared = None
        if args.declared_encoding != "ignore":
            declared = declared_encoding(first[:HEAD], path)
        binary = declared is None and _looks_binary(first[:BINARY_SNIFF])
        if binary and not item.named and args.binary == "skip":
            totals.binary += 1
            progress.advance(_inputs.size_of(path), label)
            return
        if declared is not None:
            size = len(first)
            progress.advance(_inputs.size_of(path) or size, label)
            line, column = locate_all(first, [declared.start], [], columns)[declared.start]
            place = Place(label, declared.start, declared.end, line, column, line, column)
            place = _end_on_line(place, declared.end - declared.start)
            finding = Finding(
                "declared-encoding",
                declared.name,
                args.declared_encoding,
                declared.reason(),
                place,
                excerpt(first, declared.start, declared.end),
                fails=args.strict or args.declared_encoding == "reject",
            )
            sink.emit_file(label, iter([finding]), totals)
        elif policy is not None:
            data = _read_at_most(stream, args.max_bytes, first)  # a policy needs all of it
            size = len(data)
            progress.advance(size, label)
            if args.source:
                findings, unlisted = _source_findings(label, data, policy, args, columns)
            else:
                findings, unlisted = _policy_findings(label, data, policy, args, columns)
            sink.emit_file(label, findings, totals, unlisted)
        else:
            shown = progress.done
            advance = lambda n: progress.advance(n, label)  # noqa: E731
            valid = _verdict.valid_size(stream, first, advance, args.jobs)
            if valid is not None:  # nothing to report: no line or column was counted
                sink.emit_file(label, (), totals)
                size = valid
            else:  # the exact path reads it again
                progress.done = shown
                decoder = IncrementalDecoder(allow_overlong_nul=args.allow_overlong_nul)
                streamed = _utf8_findings(stream, first, decoder, columns, progress, label)
                sink.emit_file(label, streamed, totals)
                size = decoder.position
    except OSError as exc:  # reading the input: writing raises OutputError instead
        _io_error(label, exc.strerror or str(exc), totals)
    else:
        totals.files += 1
        totals.bytes += size
    finally:
        if path != _inputs.STDIN:
            stream.close()


def _check_all(
    files: list[_inputs.Input],
    total_size: int,
    args: argparse.Namespace,
    policy: Any,
    columns: str,
    totals: _Totals,
    progress: _Progress,
    sink: _Sink,
) -> None:
    """``_check_one`` on each file, in worker processes (``--jobs``) when a policy is
    applied: then each file is read whole anyway, while strict UTF-8 checking streams
    (bounded memory, C speed) and stays in this process, as does stdin."""
    jobs = 1
    if policy is not None and all(item.path != _inputs.STDIN for item in files):
        jobs = _jobs.choose(args.jobs, len(files), total_size)
    if jobs == 1:
        for item in files:
            _check_one(item, args, policy, columns, totals, progress, sink)
        return
    global _SHARED
    _warm_up(policy, args.source)
    _SHARED = (args, policy, columns)
    chunk = max(1, min(16, len(files) // (4 * jobs)))
    for checked in _jobs.ordered(_check_chunk, files, jobs, chunk):
        for label, counts, emitted, stderr, advanced in checked:  # as _check_one did
            if stderr:
                sys.stderr.write(stderr)
            for name, findings, unlisted in emitted:
                sink.emit_file(name, iter(findings), totals, unlisted)
            progress.advance(advanced, label)
            totals.files += counts[0]
            totals.bytes += counts[1]
            totals.io_errors += counts[2]
            totals.binary += counts[3]


# What workers check with, set before they are forked (``_jobs.ordered``).
_SHARED: tuple[argparse.Namespace, Any, str] | None = None

# What ``_check_one`` did for one file in a worker: its label, its counts (files, bytes,
# io_errors, binary), what it emitted and wrote to stderr, and how far it moved the
# progress bar.  Plain tuples, lists, str and int: pickled by C code alone (a class
# instance costs a Python-level reduce each, several times the file's own check).
_Checked = tuple[
    str, tuple[int, int, int, int], list[tuple[str, list[Finding], tuple[int, int]]], str, int
]


class _Recorder(_Sink):
    """A sink that keeps what it is given, for the parent to emit in order."""

    def __init__(self) -> None:
        self.emitted: list[tuple[str, list[Finding], tuple[int, int]]] = []

    def emit_file(
        self,
        label: str,
        findings: Iterable[Finding],
        totals: _Totals,
        unlisted: tuple[int, int] = (0, 0),
    ) -> None:
        self.emitted.append((label, list(findings), unlisted))


def _check_chunk(items: Sequence[_inputs.Input]) -> list[_Checked]:
    """In a worker: ``_check_one`` on each of ``items``, recorded."""
    assert _SHARED is not None, "set before the workers were forked"
    args, policy, columns = _SHARED
    out: list[_Checked] = []
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        for item in items:
            totals, recorder = _Totals(), _Recorder()
            progress = _Progress(0, enabled=False)
            _check_one(item, args, policy, columns, totals, progress, recorder)
            stderr = err.getvalue()
            if stderr:
                err.seek(0)
                err.truncate()
            label = "<stdin>" if item.path == _inputs.STDIN else item.path
            counts = (totals.files, totals.bytes, totals.io_errors, totals.binary)
            out.append((label, counts, recorder.emitted, stderr, progress.done))
    return out


def _warm_up(policy: Any, source: bool) -> None:
    """Build what checking needs (compiled policy, patterns, look-alike tables) before
    workers are forked, so that each starts with it instead of building it again."""
    if source:
        from ..source_gate import check_source

        check_source("p\u043est post \u202e\u202c caf\u00e9\n", policy)
    else:
        from ..policy import inspect

        inspect("caf\u00e9\n".encode(), policy)


def _end_on_line(place: Place, width: int) -> Place:
    """``place`` ending ``width`` columns after its start (an ASCII span on one line)."""
    return Place(
        place.path, place.start, place.end, place.line, place.column, place.line,
        place.column + width,
    )  # fmt: skip


def _utf8_findings(
    stream: IO[bytes],
    first: bytes,
    decoder: IncrementalDecoder,
    columns: str,
    progress: _Progress,
    label: str,
) -> Iterator[Finding]:
    """Groups of errors (``ErrorGrouper``) as findings, each once the bytes after it
    (for its excerpt) have been read; memory stays bounded by two chunks."""
    grouper = ErrorGrouper()
    locator = Locator(columns)
    where: dict[int, tuple[int, int, int, int]] = {}  # err.start -> line, col, end line/col
    ready: deque[tuple[Utf8Error, ...]] = deque()
    unemitted: deque[int] = deque()  # starts of located errors not yet reported
    chunk = first
    while True:
        final = not chunk
        locator.feed(chunk, unemitted[0] if unemitted else None)
        errors = decoder.find_errors(chunk, final=final)  # a verdict: no text built
        progress.advance(len(chunk), label)
        for err in errors:
            line, column = locator.at(err.start)
            locator.ill_formed(err.start, err.end)
            where[err.start] = (line, column, *locator.at(err.end))
            unemitted.append(err.start)
            done = grouper.add(err)
            if done is not None:
                ready.append(done)
        last = grouper.close(None if final else decoder.position)
        if last is not None:
            ready.append(last)
        # Later errors start at or after the held-back bytes: count up to them now.
        locator.at(max(0, decoder.position - 8))
        # A byte past the excerpt's edge too, so a character it cuts is known cut (the
        # excerpt drops it) exactly as when the whole file is at hand.
        while ready and (final or ready[0][-1].end + CONTEXT < locator.end):
            group = ready.popleft()
            for _ in group:
                unemitted.popleft()
            yield _utf8_finding(label, group, where, locator)
        if final:
            return
        chunk = stream.read(CHUNK)


def _utf8_finding(
    label: str,
    group: tuple[Utf8Error, ...],
    where: dict[int, tuple[int, int, int, int]],
    locator: Locator,
) -> Finding:
    head, tail = group[0], group[-1]
    line, column = where[head.start][:2]
    end_line, end_column = where[tail.start][2:]
    for err in group:
        del where[err.start]
    hex_bytes = " ".join(err.hex for err in group)
    place = Place(label, head.start, tail.end, line, column, end_line, end_column)
    return Finding(
        head.kind.value,
        hex_bytes,
        "reject",
        head.reason,
        place,
        locator.excerpt(head.start, tail.end),
        details={
            "bytes": hex_bytes,
            "kind": head.kind.value,
            "naive": head.as_dict().get("naive"),
            "subparts": len(group),
        },
    )


def _too_long(label: str, data: bytes, args: argparse.Namespace) -> Finding:
    place = Place(label, 0, len(data))
    reason = f"larger than --max-bytes {args.max_bytes}: policy not applied"
    return Finding(
        "too-long", f"{len(data)} bytes", "reject", reason, place,
        details={"category": "too-long"},
    )  # fmt: skip


_check_source: Any = None  # sanitizer.source_gate.check_source, imported on first use


def _source_findings(
    label: str, data: bytes, policy: Any, args: argparse.Namespace, columns: str
) -> tuple[list[Finding], tuple[int, int]]:
    """``sanitizer.source_gate.check_source`` on a file that is UTF-8 (CPython's codec accepts
    exactly RFC 3629 §4), with its code-point offsets turned into bytes, lines and
    columns.  A file that is not UTF-8 gets the policy alone (``_policy_findings``): every
    bidi control refused, identifiers not compared; it fails either way."""
    if len(data) > args.max_bytes:
        return [_too_long(label, data, args)], (0, 0)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _policy_findings(label, data, policy, args, columns, leading_bom=False)
    global _check_source
    if _check_source is None:  # policy layer: only loaded with --policy SOURCE
        from ..source_gate import check_source as _check_source

    report = _check_source(text, policy)
    more = report.more_findings  # counted, not listed
    unlisted = (more, more if args.strict or not report.ok else 0)
    if not report.findings:  # the usual file: nothing to place
        return [], unlisted
    points = {p for f in report.findings for p in (f.start, f.end)}
    points.update(p for f in report.findings if f.other for p in f.other[:2])
    to_byte = _byte_offsets(text, points)
    places = locate_all(data, list(to_byte.values()), [], columns)

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
                fails=args.strict or f.refused,
                related=related,
                details=details,
            )
        )
    return findings, unlisted


def _byte_offsets(text: str, points: Iterable[int]) -> dict[int, int]:
    """``{code-point index: UTF-8 byte offset}`` for ``points``, in one pass over
    ``text``."""
    out: dict[int, int] = {}
    prev = position = 0
    for point in sorted(points):
        position += len(text[prev:point].encode("utf-8"))
        out[point] = position
        prev = point
    return out


def _policy_findings(
    label: str,
    data: bytes,
    policy: Any,
    args: argparse.Namespace,
    columns: str,
    leading_bom: bool = True,
) -> tuple[list[Finding], tuple[int, int]]:
    """The findings of ``policy`` on ``data`` (at most ``Policy.max_findings``), and the
    number of further findings counted but not listed (and how many of them fail).
    ``leading_bom``: report a leading BOM by the profile's action (SOURCE: never)."""
    if len(data) > args.max_bytes:
        return [_too_long(label, data, args)], (0, 0)
    from ..categories import Category  # policy layer: loaded only with --policy
    from ..policy import Action, inspect

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
    places = locate_all(data, offsets, ill_formed, columns)
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
                fails=args.strict or action != "allow",
                details={k: v for k, v in details.items() if k not in ("start", "end")},
            )
        )
    more = report.more_findings  # counted, not listed; their actions are not known
    return findings, (more, more if args.strict or not report.ok else 0)
