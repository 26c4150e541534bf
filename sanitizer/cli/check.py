"""``sanitizer check``: the gate for files, folders and stdin, in bounded memory.

An adapter: it reads bytes and prints what the core (and, with ``--policy``, the policy
layer) reports.  Folders are walked like ripgrep walks them (``_walk``: VCS folders
skipped, ``.gitignore``/``.ignore`` honoured, binary files skipped); each file streams
through ``IncrementalDecoder.feed`` in fixed-size chunks, errors grouped as a person reads
them (``C0 AE`` is one overlong '.') and printed once complete, one line each::

    PATH:LINE:COLUMN: KIND  WHAT  ACTION  REASON  | EXCERPT

A file that declares another encoding, where its kind of file reads such a declaration
(``_declared``, ``_kinds``), is one ``declared-encoding`` finding.  ``--policy SOURCE``
runs ``sanitizer._source_gate.check_source_pieces`` (Trojan Source, invisibles,
look-alike identifiers, UTS #55; the identifier rules on code only) on each UTF-8 file.
At most ``--limit`` findings a file are listed, the rest counted without being built.
``--format json`` prints JSON Lines and a summary object, ``--format sarif`` one SARIF
2.1.0 log (``_sarif``).  Exit 0 when nothing fails the check, 1 when a finding the
profile refuses was found (allowed ones too with ``--strict``), 2 on usage or I/O errors.

Each input is checked by one input mode, a function ``(opened, settings, progress) ->
Outcome`` (``_report``) chosen from the settings and the input's first bytes
(``_mode_for``): UTF-8 read once as a stream (``_stream_mode``: stdin, pipes), UTF-8
that can be read again (``_file_mode``: proven valid by ``_verdict``, else streamed), a
declared encoding (``_declared_mode``), UTF-16/32 (``_wide``), and a policy profile
(``_policy_modes``, ``_wide``).  ``_check_one`` opens, dispatches, records and closes;
the options are parsed in ``_check_args``.
"""

from __future__ import annotations

import functools
import sys
from collections import deque
from collections.abc import Iterator

from .._decoder import ErrorGrouper, IncrementalDecoder
from .._errors import Utf8Error
from . import _check_args, _inputs, _jobs, _verdict, _walk
from ._declared import HEAD, Declaration, declared_encoding
from ._inputs import BINARY_SNIFF, CHUNK, Opened
from ._kinds import BINARY, kind_of, known
from ._locate import CONTEXT, Locator, excerpt, locate_all
from ._output import Finding, OutputError, Place, Writer, display_path, end_of_output
from ._report import Outcome, Progress, Sink, Totals, summary, summary_line

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import IO, Any

    from ._check_args import Settings

    Mode = Callable[[Opened, Settings, Progress], Outcome]

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
SLICE = 4096  # bytes decoded at a time while findings are listed (see _utf8_findings)
_Progress = Progress  # the name tests of ``_utf8_findings`` build one by


def register(sub: Any) -> None:
    """Add ``check`` to an argparse subparsers object (the parser: ``_check_args``)."""
    description = __doc__.split("\n\n")[0] if __doc__ else None
    _check_args.add_parser(sub, description).set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out = Writer(fmt=args.format)
    try:
        return _run(args, out)
    except OutputError as exc:
        return end_of_output(exc, "sanitizer check")


def _run(args: argparse.Namespace, out: Writer) -> int:
    settings = _check_args.resolve(args)
    if isinstance(settings, str):
        print(f"sanitizer check: {settings}", file=sys.stderr)
        return EXIT_USAGE
    totals = Totals()
    rules = _walk.Rules(
        ignore_files=not args.no_ignore,
        use_git=not args.no_git,
        include=tuple(args.include),
        exclude=tuple(args.exclude),
        follow=args.follow,
    )
    counts = _walk.Counts()

    def report(problem: _walk.Problem) -> None:
        if problem.error:
            totals.io_error(problem.path, problem.message)
        else:
            print(
                f"sanitizer check: {display_path(problem.path)}: {problem.message}", file=sys.stderr
            )

    files = list(_inputs.expand(args.paths, report, rules, counts, tuple(args.as_text)))
    enabled = args.progress == "always" or (args.progress == "auto" and _isatty(sys.stderr))
    # The total is for the progress bar and for choosing --jobs 0 (enough past its mark).
    enough = _jobs.AUTO_MIN_BYTES if settings.policy is not None and settings.jobs == 0 else 0
    total_size = _inputs.total_size(files, None if enabled else enough)
    progress = Progress(total_size, enabled)
    sink = Sink(out, settings.limit, settings.columns, settings.quiet)
    try:
        _check_all(files, total_size, settings, totals, progress, sink)
    finally:
        progress.close()
    code = EXIT_USAGE if totals.io_errors else EXIT_FOUND if totals.failing else EXIT_OK
    result = summary(totals, counts.symlinks, counts.excluded, settings.columns)
    if sink.sarif is not None:
        sink.sarif.close(not totals.io_errors, code, result)
    elif args.format == "json":
        out.record({"summary": result})
    out.flush()
    print(summary_line(totals, counts.symlinks, counts.excluded), file=sys.stderr)
    return code


def _isatty(stream: IO[str] | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False


def _check_all(
    files: list[_inputs.Input],
    total_size: int,
    settings: Settings,
    totals: Totals,
    progress: Progress,
    sink: Sink,
) -> None:
    """``_check_one`` on each file, in worker processes (``--jobs``) when a policy is
    applied: then each file is read whole anyway, while strict UTF-8 checking streams
    (bounded memory, C speed) and stays in this process, as does stdin."""
    jobs = 1
    if settings.policy is not None and all(item.path != _inputs.STDIN for item in files):
        jobs = _jobs.choose(settings.jobs, len(files), total_size)
    if jobs == 1:
        for item in files:
            _check_one(item, settings, totals, progress, sink)
    else:
        _jobs.check_in_workers(_check_one, files, jobs, settings, totals, progress, sink)


def _check_one(
    item: _inputs.Input, settings: Settings, totals: Totals, progress: Progress, sink: Sink
) -> None:
    """Open ``item``, check it in the mode ``_mode_for`` chooses, give its findings to
    ``sink``, record its outcome in ``totals``, close it."""
    label = item.label
    try:
        stream = _inputs.open_input(item.path)
    except OSError as exc:
        totals.io_error(label, exc.strerror or str(exc))
        return
    opened = None
    try:
        opened = Opened(item.path, label, stream, stream.read(CHUNK))
        mode = _mode_for(item, opened, settings)
        if mode is None:  # binary, skipped: said in every output format
            totals.skip_binary()
            progress.advance(_inputs.size_of(item.path), label)
            sink.emit_file(label, Outcome(note=_inputs.BINARY_NOTE))
            return
        outcome = mode(opened, settings, progress)
        sink.emit_file(label, outcome)
    except OSError as exc:  # reading the input: writing raises OutputError instead
        totals.io_error(label, exc.strerror or str(exc))
    else:
        totals.add(outcome)
    finally:
        if opened is not None and opened.spool is not None:
            opened.spool.close()
        if item.path != _inputs.STDIN:
            stream.close()


def _mode_for(item: _inputs.Input, opened: Opened, settings: Settings) -> Mode | None:
    """The input mode for ``opened``; None for a binary file found in a folder (skipped
    with ``--binary skip``, the default): a file of no known kind (``_kinds``) whose
    first bytes look binary (``_inputs.looks_binary``)."""
    first = opened.first
    opened.kind = kind = kind_of("" if item.path == _inputs.STDIN else item.path, first)
    if not settings.utf8:  # UTF-16/32: no sniffing, no cookies
        return _imported_mode(settings)
    if settings.declared_encoding != "ignore":
        declared = declared_encoding(first[:HEAD], kind)
        if declared is not None:
            return functools.partial(_declared_mode, declared)
    if (
        not item.named
        and settings.binary != "check"
        and not known(kind)
        and _inputs.looks_binary(first[:BINARY_SNIFF], kind is BINARY)
    ):
        return _binary_mode if settings.binary == "fail" else None
    if item.text and kind.code:  # --as-text: the identifier rules do not apply
        opened.kind = kind._replace(code=False)
    if settings.policy is not None:
        return _imported_mode(settings)
    return _file_mode if opened.stream.seekable() else _stream_mode


def _binary_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """``--binary fail``: a file that looks binary is one failing ``binary`` finding."""
    size = _inputs.size_of(opened.path) or len(opened.first)
    progress.advance(size, opened.label)
    place = Place(opened.label, 0, 0)
    finding = Finding("binary", "", "reject", _inputs.BINARY_NOTE, place)
    return Outcome([finding], size)


@functools.cache
def _imported_mode(settings: Settings) -> Mode:
    """The mode of every input of a run whose modes live in a module imported only when
    needed (once a run, not once a file): UTF-16/32 (``_wide``), or a policy
    (``_policy_modes``, which loads the policy layer)."""
    if not settings.utf8:
        from . import _wide

        return _wide.wide_mode if settings.policy is None else _wide.wide_policy_mode
    from . import _policy_modes

    return _policy_modes.source_mode if settings.source else _policy_modes.policy_mode


def _stream_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """UTF-8 read once (stdin, a pipe, a device; a file the verdict pass did not prove):
    every ill-formed group, reported as it is read; past ``--limit``, counted only."""
    decoder = IncrementalDecoder(allow_overlong_nul=settings.allow_overlong_nul)
    outcome = Outcome(size=lambda: decoder.position)
    stream, first, label = opened.stream, opened.first, opened.label
    outcome.findings = _utf8_findings(
        stream, first, decoder, settings.columns, progress, label, settings.limit, outcome
    )
    return outcome


def _file_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """UTF-8 that can be read again (a regular file, stdin redirected from one): proven
    valid by the verdict pass (``_verdict``: no line or column counted), else read again
    by ``_stream_mode``."""
    shown = progress.done
    advance = lambda n: progress.advance(n, opened.label)  # noqa: E731
    valid = _verdict.valid_size(opened.stream, opened.first, advance, settings.jobs)
    if valid is not None:  # nothing to report
        return Outcome((), valid)
    progress.done = shown  # the stream is back after ``first``: its bytes count again
    return _stream_mode(opened, settings, progress)


def _declared_mode(
    declared: Declaration, opened: Opened, settings: Settings, progress: Progress
) -> Outcome:
    """A file that declares another encoding: one ``declared-encoding`` finding, the
    rest not read."""
    first, label, start, end = opened.first, opened.label, declared.start, declared.end
    progress.advance(_inputs.size_of(opened.path) or len(first), label)
    line, column = locate_all(first, [start], [], settings.columns)[start]
    place = Place(label, start, end, line, column, line, column + end - start)  # ASCII
    finding = Finding(
        "declared-encoding",
        declared.name,
        settings.declared_encoding,
        declared.reason(),
        place,
        excerpt(first, start, end),
        fails=settings.strict or settings.declared_encoding == "reject",
    )
    return Outcome([finding], len(first))


def _utf8_findings(
    stream: IO[bytes],
    first: bytes,
    decoder: IncrementalDecoder,
    columns: str,
    progress: Progress,
    label: str,
    limit: int = 0,
    outcome: Outcome | None = None,
) -> Iterator[Finding]:
    """Groups of errors (``ErrorGrouper``) as findings, each once the bytes after it
    (for its excerpt) have been read; memory stays bounded by two chunks.  After
    ``limit`` findings (0: none) the rest are counted in ``outcome.more`` without being
    built, located or shown (``IncrementalDecoder.count_errors``: C loops)."""
    grouper = ErrorGrouper()
    locator = Locator(columns)
    where: dict[int, tuple[int, int, int, int]] = {}  # err.start -> line, col, end line/col
    ready: deque[tuple[Utf8Error, ...]] = deque()
    unemitted: deque[int] = deque()  # starts of located errors not yet reported
    listed = 0
    read = first
    at = 0  # where the next slice of ``read`` starts
    while True:
        # Slices of a read: an error object is built for every error of a slice, so a
        # slice bounds what dense errors cost before the limit turns to counting.
        chunk = read[at : at + SLICE] if at or len(read) > SLICE else read
        at += len(chunk)
        if at >= len(read):
            read, at = stream.read(CHUNK) if read else b"", 0
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
            if limit and listed == limit:
                if outcome is not None:
                    rest = read[at:] if read else b""
                    _count_rest(stream, rest, decoder, progress, label, len(ready), final, outcome)
                return
            group = ready.popleft()
            for _ in group:
                unemitted.popleft()
            listed += 1
            yield _utf8_finding(label, group, where, locator)
        if final:
            return


def _count_rest(
    stream: IO[bytes],
    chunk: bytes,
    decoder: IncrementalDecoder,
    progress: Progress,
    label: str,
    pending: int,
    final: bool,
    outcome: Outcome,
) -> None:
    """Past the limit: ``pending`` groups found already (every error of the chunks read
    is in a closed group: a lead whose lax reading a chunk ends inside of is held back),
    and the groups of the rest of the stream, counted in C loops."""
    more = pending
    while not final:
        chunk = chunk or stream.read(CHUNK)
        final = not chunk
        more += decoder.count_errors(chunk, final=final)[1]
        progress.advance(len(chunk), label)
        chunk = b""
    outcome.more = outcome.more_failing = more


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
