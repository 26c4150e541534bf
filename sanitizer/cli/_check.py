"""``sanitizer check``: the gate for files, folders and stdin, in bounded memory.

An adapter: it reads bytes and prints what the core (and, with ``--policy``, the policy
layer) reports.  Folders are walked like ripgrep walks them (``_walk``: VCS folders
skipped, ``.gitignore``/``.ignore`` honoured, binary files skipped); each input is
checked by one input mode (``MODES``: UTF-8 streamed in fixed-size chunks or proven
valid in big reads, a declared encoding, UTF-16/32, a policy profile), whose findings
are printed once complete, one line each::

    PATH:LINE:COLUMN: KIND  WHAT  ACTION  REASON  | EXCERPT

At most ``--limit`` findings a file are listed, the rest counted without being built.
``--format json`` prints JSON Lines and a summary object, ``--format sarif`` one SARIF
2.1.0 log: one emitter a format (``_output``, ``_sarif``) behind the ``Sink``
(``_report``).  Exit 0 when nothing fails the check, 1 when a finding the profile
refuses was found (allowed ones too with ``--strict``), 2 on usage or I/O errors.

This module is the command: ``register`` adds its parser (``_check_args``), ``run``
resolves the settings (``_check_args.Settings``), expands the inputs (``_inputs``), and
checks each one (``_check_one``: open, choose the mode, record, close), in worker
processes with ``--jobs`` (``_jobs``).

An input mode is a function ``(opened, settings, progress) -> Outcome`` (``_report``)
that reads one open input and says what it found.  Each lives in a module of its own
(``_mode_*``), registered in ``MODES`` by name and imported only when a run first needs
it (a UTF-8 check never loads the policy layer or the UTF-16/32 codecs); ``name_for``
picks the mode of an input from the settings and its first bytes.  No mode imports this
module; a mode that reports what another reports calls that one (``policy`` reports an
ill-formed file as ``stream`` does).
"""

from __future__ import annotations

import functools
import importlib
import os
import sys

from . import _check_args, _inputs, _jobs, _suppress, _walk
from ._declared import HEAD, declared_encoding
from ._inputs import BINARY_SNIFF, CHUNK, STDIN, Opened, looks_binary
from ._kinds import BINARY, kind_of, known, records_of
from ._output import FileFinding, OutputError, Place, Writer, display_path, end_of_output
from ._report import Outcome, Progress, Sink, Totals, summary, summary_line

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Iterable, Iterator
    from typing import IO, Any

    from ._check_args import Settings

    Mode = Callable[[Opened, Settings, Progress], Outcome]

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2


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

    def report(problem: _walk.WalkNotice) -> None:
        if problem.error:
            totals.io_error(problem.path, problem.message)
        else:
            print(
                f"sanitizer check: {display_path(problem.path)}: {problem.message}", file=sys.stderr
            )

    files = list(_inputs.expand(args.paths, report, rules, counts, tuple(args.as_text)))
    try:  # the configuration of every input and the baseline, read once, here
        for item in files:
            _suppress.config_for(item.path)
        suppressor(settings)
    except _suppress.ConfigError as exc:
        print(f"sanitizer check: {exc}", file=sys.stderr)
        return EXIT_USAGE
    enabled = args.progress == "always" or (args.progress == "auto" and _isatty(sys.stderr))
    # The total is for the progress bar and for choosing --jobs 0 (enough past its mark).
    enough = _jobs.AUTO_MIN_BYTES if settings.policy is not None and settings.jobs == 0 else 0
    total_size = _inputs.total_size(files, None if enabled else enough)
    progress = Progress(total_size, enabled)
    sink = Sink(out, args.limit, settings.columns, settings.quiet, settings.verbose)
    if args.write_baseline:
        sink.kept = []
    if args.statistics:
        sink.statistics = {}
    try:
        _check_all(files, total_size, settings, totals, progress, sink)
    finally:
        progress.close()
    code = EXIT_USAGE if totals.io_errors else EXIT_FOUND if totals.failing else EXIT_OK
    if args.write_baseline and not totals.io_errors:
        try:
            written = _suppress.write_baseline(args.write_baseline, sink.kept or ())
        except OSError as exc:
            print(f"sanitizer check: --write-baseline: {exc}", file=sys.stderr)
            return EXIT_USAGE
        where = display_path(args.write_baseline)
        print(f"sanitizer check: {written} finding(s) written to {where}", file=sys.stderr)
        code = EXIT_OK
    result = summary(totals, counts.symlinks, counts.excluded, settings.columns)
    sink.close(not totals.io_errors, code, result)
    out.flush()
    listed = out.as_json or (settings.verbose and not settings.quiet)  # each skipped file
    print(summary_line(totals, counts.symlinks, counts.excluded, listed), file=sys.stderr)
    return code


@functools.cache
def suppressor(settings: Settings) -> _suppress.Suppressor:
    """The suppressor of a run (its baseline read once, before workers are forked)."""
    baseline = _suppress.Baseline(settings.baseline) if settings.baseline else None
    return _suppress.Suppressor(baseline, settings.max_bytes)


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
        warm_up(settings)
        _jobs.check_in_workers(_check_one, files, jobs, settings, totals, progress, sink)


def _check_one(
    item: _inputs.Input, settings: Settings, totals: Totals, progress: Progress, sink: Sink
) -> None:
    """Open ``item``, check it in the mode ``mode_for`` chooses, give its findings
    to ``sink``, record its outcome in ``totals``, close it."""
    label = item.label
    if not item.text and _suppress.text_for(item.path):  # as-text in [tool.sanitizer]
        item = item._replace(text=True)
    try:
        stream = _inputs.open_input(item.path)
    except OSError as exc:
        totals.io_error(label, exc.strerror or str(exc))
        return
    opened = None
    try:
        opened = Opened(item.path, label, stream, stream.read(CHUNK))
        mode = mode_for(item, opened, settings)
        if mode is None:  # binary, skipped: said in every output format
            totals.skip_binary()
            progress.advance(_inputs.size_of(item.path), label)
            sink.emit_file(label, Outcome(note=_inputs.BINARY_NOTE))
            return
        outcome = mode(opened, settings, progress)
        if settings.policy is not None and not label.isascii():
            outcome.findings = _named(label, outcome.findings)
        outcome.findings = suppressor(settings)(item.path, outcome.findings)
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


# Bidi_Control (PropList.txt): in a file name they reorder how it displays, as
# "invoice\u202egpj.exe" shows as "invoiceexe.jpg" (Trojan Source, CVE-2021-42574).
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def _named(label: str, findings: Iterable[FileFinding]) -> Iterator[FileFinding]:
    """The findings of the input's own name (the path itself judged), then ``findings``."""
    for ch in sorted(set(label) & _BIDI_CONTROLS):
        reason = (
            f"U+{ord(ch):04X} in the file name: a bidi control reorders how the name "
            "displays (Trojan Source, CVE-2021-42574)"
        )
        place = Place(label, 0, 0)
        yield FileFinding("bidi-control", f"U+{ord(ch):04X}", "reject", reason, place,
                          display_path(label), details={"in": "file name"})  # fmt: skip
    yield from findings


# name -> (module, function)
MODES = {
    "stream": ("_mode_utf8", "stream_mode"),  # UTF-8 read once: stdin, a pipe
    "file": ("_mode_utf8", "file_mode"),  # UTF-8 proven valid in big reads, else streamed
    "declared": ("_mode_declared", "declared_mode"),  # a file declaring another encoding
    "binary": ("_mode_binary", "binary_mode"),  # --binary fail: one failing finding
    "policy": ("_mode_policy", "policy_mode"),  # --policy PROFILE on UTF-8
    "source": ("_mode_source", "source_mode"),  # --policy SOURCE on UTF-8
    "wide": ("_mode_wide", "wide_mode"),  # --encoding utf-16/32
    "wide-policy": ("_mode_wide_policy", "wide_policy_mode"),  # the same, with --policy
    # records files (``_kinds.RECORDS``, --records), with or without --policy
    "jsonl": ("_mode_jsonl", "jsonl_mode"),  # JSON Lines: each string as json.loads reads it
    "parquet": ("_mode_table", "parquet_mode"),  # each binary or string cell (pyarrow)
    "arrow": ("_mode_table", "arrow_mode"),  # the same, of an Arrow IPC file or stream
}


@functools.cache
def load(name: str) -> Mode:
    """The mode registered as ``name``, its module imported on first use."""
    module, function = MODES[name]
    mode: Mode = getattr(importlib.import_module(f"{__package__}.{module}"), function)
    return mode


def name_for(item: _inputs.Input, opened: Opened, settings: Settings) -> str | None:
    """The name of the mode for ``opened``; None for a binary file found in a folder
    (skipped with ``--binary skip``, the default): a file of no known kind (``_kinds``)
    whose first bytes look binary (``_inputs.looks_binary``).  A records file
    (``_kinds.RECORDS`` by its name, or ``--records``) is read as records.  Sets
    ``opened.kind``, and ``opened.declared`` for a declared encoding."""
    first = opened.first
    path = "" if item.path == STDIN else item.path
    records = records_of(path, settings.records)
    if records is not None and (settings.utf8 or records != "jsonl"):
        if records == "jsonl" or item.named or _has_pyarrow():
            return records
        # found in a folder, and pyarrow is absent: judged as any other file (a Parquet
        # file is binary, skipped and said so) rather than failing a tree that has one
    kind = kind_of(path, first)
    if item.path != STDIN and not kind.code and os.path.islink(item.path):
        # A link is what its target is too: "notes.md" -> "evil.py" is code.
        target = kind_of(os.path.realpath(item.path), first)
        kind = target if target.code else kind
    opened.kind = kind
    if not settings.utf8:  # UTF-16/32: no sniffing, no cookies
        return "wide" if settings.policy is None else "wide-policy"
    if settings.declared_encoding != "ignore":
        declared = declared_encoding(first[:HEAD], kind)
        if declared is not None:
            opened.declared = declared
            return "declared"
    if (
        not item.named
        and settings.binary != "check"
        and not known(kind)
        and looks_binary(first[:BINARY_SNIFF], kind is BINARY, whole=len(first) <= BINARY_SNIFF)
    ):
        return "binary" if settings.binary == "fail" else None
    if item.text and kind.code:  # --as-text: the identifier rules do not apply
        opened.kind = kind._replace(code=False)
    if settings.policy is not None:
        return "source" if settings.source else "policy"
    return "file" if opened.stream.seekable() else "stream"


@functools.cache
def _has_pyarrow() -> bool:
    from importlib.util import find_spec

    try:
        return find_spec("pyarrow") is not None
    except (ImportError, ValueError):
        return False


def mode_for(item: _inputs.Input, opened: Opened, settings: Settings) -> Mode | None:
    """The input mode for ``opened`` (``name_for``), loaded."""
    name = name_for(item, opened, settings)
    return None if name is None else load(name)


def warm_up(settings: Settings) -> None:
    """Build what checking with a policy needs before worker processes are forked
    (``_jobs``), so that each starts with it instead of building it again."""
    from ._judge import warm_up as build  # the policy layer: workers are for --policy alone

    build(settings)
