"""``sanitizer check``: scan files, folders and stdin for ill-formed UTF-8, in bounded memory.

An adapter: it reads bytes and prints what the core reports.  Files stream through
``IncrementalDecoder.feed`` in fixed-size chunks; errors are grouped as a person reads them
(``group_errors``: ``C0 AE`` is one overlong '.', not two stray bytes) and printed as soon
as each group is complete, one line each::

    PATH:OFFSET: HEX  KIND  REASON

``--json`` prints the same as JSON Lines, then one summary object.  With ``--policy`` the
decoded text is also checked against a profile (see ``sanitizer.profiles``).  Exit 0 when
everything is clean, 1 when anything was found, 2 on usage or I/O errors.
"""

from __future__ import annotations

import argparse
import errno
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from ..decoder import ErrorGrouper, IncrementalDecoder
from ..errors import Utf8Error
from . import _inputs
from ._output import OutputError, Writer, display_path, end_of_output, json_path_fields

CHUNK = 1 << 16
EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2


def register(sub: Any) -> None:
    p = sub.add_parser(
        "check",
        help="report ill-formed UTF-8 (and, with --policy, unwanted characters)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="file, folder (recursive) or -")
    p.add_argument("--json", action="store_true", help="JSON Lines output for machines")
    p.add_argument(
        "--policy",
        metavar="PROFILE",
        help="also apply a policy profile after strict decoding (e.g. TEXT, SINGLE_LINE)",
    )
    p.add_argument(
        "--max-bytes",
        type=int,
        default=64 << 20,
        metavar="N",
        help="with --policy: files larger than N bytes are reported too-long, not loaded "
        "(default 64 MiB; strict UTF-8 checking streams and has no limit)",
    )
    p.add_argument(
        "--allow-overlong-nul",
        action="store_true",
        help="accept exactly C0 80 as U+0000 (Java Modified UTF-8, HOWTO §5.9.4)",
    )
    p.add_argument(
        "--limit",
        type=int,
        default=0,
        metavar="N",
        help="report at most N findings per file (0: all)",
    )
    p.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="progress bar on stderr (auto: only when stderr is a terminal)",
    )
    p.set_defaults(func=run)


@dataclass
class _Totals:
    files: int = 0
    bytes: int = 0
    findings: int = 0
    dirty_files: int = 0
    io_errors: int = 0
    dirty: list[str] = field(default_factory=list)


class _Progress:
    """A one-line progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total = total
        self.done = 0
        self.enabled = enabled and total > 0
        self._last = 0.0

    def advance(self, n: int, label: str) -> None:
        self.done += n
        now = time.monotonic()
        if not self.enabled or now - self._last < 0.1:
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


def _scan_stream(
    stream: IO[bytes], decoder: IncrementalDecoder, progress: _Progress, label: str
) -> Iterator[tuple[Utf8Error, ...]]:
    """Yield groups of errors (``ErrorGrouper``) as soon as no later error can join them."""
    grouper = ErrorGrouper()
    while True:
        chunk = stream.read(CHUNK)
        final = not chunk
        _, errors = decoder.feed(chunk, final=final)
        progress.advance(len(chunk), label)
        for err in errors:
            done = grouper.add(err)
            if done is not None:
                yield done
        last = grouper.close(None if final else decoder.position)
        if last is not None:
            yield last
        if final:
            return


def _group_record(path: str, group: tuple[Utf8Error, ...]) -> dict[str, Any]:
    head = group[0]
    record = {"path": path, **head.as_dict()}
    record["end"] = group[-1].end
    record["bytes"] = " ".join(err.hex for err in group)
    record["subparts"] = len(group)
    return record


def _emit(out: Writer, record: dict[str, Any]) -> None:
    if out.as_json:
        out.record({**record, **json_path_fields(record["path"])})
    else:
        where = f"{display_path(record['path'])}:{record['start']}"
        out.line(f"{where}: {record['bytes']}  {record['kind']}  {record['reason']}")


def run(args: argparse.Namespace) -> int:
    out = Writer(args.json)
    try:
        return _run(args, out)
    except OutputError as exc:
        return end_of_output(exc, "sanitizer check")


def _run(args: argparse.Namespace, out: Writer) -> int:
    totals = _Totals()
    policy = None
    if args.policy:
        from .. import profiles  # policy layer: only loaded when asked for

        try:
            policy = profiles.get(args.policy)
        except ValueError as exc:
            print(f"sanitizer check: {exc}", file=sys.stderr)
            return EXIT_USAGE
    if args.limit < 0 or args.max_bytes < 0:
        print("sanitizer check: --limit and --max-bytes must be >= 0", file=sys.stderr)
        return EXIT_USAGE
    files = list(_inputs.expand(args.paths, lambda problem: _walk_problem(problem, totals)))
    total_size = sum(_inputs.size_of(f) for f in files)
    enabled = args.progress == "always" or (args.progress == "auto" and _isatty(sys.stderr))
    progress = _Progress(total_size, enabled)
    try:
        for path in files:
            _check_one(path, args, policy, totals, progress, out)
    finally:
        progress.close()
    if args.json:
        summary = {
            "files": totals.files,
            "bytes": totals.bytes,
            "findings": totals.findings,
            "files_with_findings": totals.dirty_files,
            "io_errors": totals.io_errors,
        }
        out.record({"summary": summary})
    out.flush()
    if not args.json:
        print(
            f"sanitizer check: {totals.files} file(s), {_size(totals.bytes)}: "
            f"{totals.findings} finding(s) in {totals.dirty_files} file(s)"
            + (f", {totals.io_errors} unreadable" if totals.io_errors else ""),
            file=sys.stderr,
        )
    if totals.io_errors:
        return EXIT_USAGE
    return EXIT_FOUND if totals.findings else EXIT_OK


def _isatty(stream: IO[str] | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False


def _open(path: str) -> IO[bytes]:
    if path == _inputs.STDIN:
        if sys.stdin is None:  # started with stdin closed (<&-)
            raise OSError(errno.EBADF, "standard input is closed")
        return sys.stdin.buffer
    return open(path, "rb")


def _read_at_most(stream: IO[bytes], limit: int) -> bytes:
    """Up to ``limit`` + 1 bytes, read in chunks (never one allocation of ``limit``)."""
    parts: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = stream.read(min(CHUNK, limit + 1 - size))
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


def _check_one(
    path: str,
    args: argparse.Namespace,
    policy: Any,
    totals: _Totals,
    progress: _Progress,
    out: Writer,
) -> None:
    label = "<stdin>" if path == _inputs.STDIN else path
    try:
        stream = _open(path)
    except OSError as exc:
        _io_error(label, exc.strerror or str(exc), totals)
        return
    found = 0
    try:
        if policy is not None:
            data = _read_at_most(stream, args.max_bytes)  # a policy needs the whole text
            progress.advance(len(data), label)
            totals.bytes += len(data)
            if len(data) > args.max_bytes:
                found = 1
                record = {
                    "path": label,
                    "category": "too-long",
                    "start": 0,
                    "end": len(data),
                    "action": "reject",
                    "reason": f"larger than --max-bytes {args.max_bytes}: policy not applied",
                }
                _emit_policy(out, record)
            else:
                found = _apply_policy(label, data, policy, args, out)
        else:
            decoder = IncrementalDecoder(allow_overlong_nul=args.allow_overlong_nul)
            for group in _scan_stream(stream, decoder, progress, label):
                found += 1
                if not args.limit or found <= args.limit:
                    _emit(out, _group_record(label, group))
            totals.bytes += decoder.position
            if args.limit and found > args.limit and not args.json:
                more = found - args.limit
                out.line(f"{display_path(label)}: ... {more} more finding(s) not shown")
    except OSError as exc:  # reading the input: writing raises OutputError instead
        _io_error(label, exc.strerror or str(exc), totals)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    totals.files += 1
    totals.findings += found
    totals.dirty_files += bool(found)


def _apply_policy(
    label: str, data: bytes, policy: Any, args: argparse.Namespace, out: Writer
) -> int:
    from ..policy import inspect  # policy layer: loaded only with --policy

    report = inspect(data, policy)
    shown = 0
    for finding in report.findings:
        shown += 1
        if args.limit and shown > args.limit:
            continue
        _emit_policy(out, {"path": label, **finding.as_dict()})
    found = len(report.findings) + report.more_findings  # the policy lists max_findings
    unshown = found - (min(shown, args.limit) if args.limit else shown)
    if unshown and not args.json:
        out.line(f"{display_path(label)}: ... {unshown} more finding(s) not shown")
    return found


def _emit_policy(out: Writer, record: dict[str, Any]) -> None:
    if out.as_json:
        out.record({**record, **json_path_fields(record["path"])})
    else:
        what = record.get("bytes") or record.get("code_point", "")
        out.line(
            f"{display_path(record['path'])}:{record['start']}: {what}  {record['category']}  "
            f"{record['action']}  {record.get('reason', '')}"
        )
