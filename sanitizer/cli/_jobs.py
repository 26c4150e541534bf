"""Worker processes for ``sanitizer check --jobs``: many files on every core, output in order.

The gate's per-file work is CPU-bound Python, so threads would not help (the GIL);
ruff and ripgrep spread files over cores, and so does this, with processes.  Workers
are forked after the parent has imported and compiled everything (policy tables,
patterns), so each starts warm and shares those pages; where ``fork`` is missing or
unsafe (Windows, macOS) the run stays in one process.

The work is cut into chunks dealt round-robin: with N jobs, this process checks every
Nth chunk itself and N - 1 forked workers the others, each sending its results back
through its own pipe (pickled), except the last tenth of the chunks, which the workers
share alone: this process also replays every worker's results and exits last, so it
takes a little less (``owners``).  No pool, no helper thread, no process that only
waits: on CPython's standard library (30 MiB) two jobs cost about 0.06 s more CPU time
than one (the fork's copied pages, pickling), a quarter of what they save in wall time.
Results are taken in chunk order (``ordered``), so the output is the same for any
``--jobs``; a worker blocks once its pipe is full, so memory stays bounded when the
output is slow (``| less``).  Workers ignore SIGINT and write nothing but their pipe:
Ctrl-C and a closed output reach this process, which stops them (SIGTERM), reaps them
and prints its one line.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import sys
from collections.abc import Callable, Iterator, Sequence

from ._report import Outcome, Progress, Recorder, Sink, Totals

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any, BinaryIO, TypeVar

    from ._inputs import Input
    from ._output import FileFinding

    T = TypeVar("T")
    R = TypeVar("R")
    S = TypeVar("S")  # the settings, passed through as they are (``_check_args.Settings``)
    CheckOne = Callable[[Input, S, Totals, Progress, Sink], None]
    # What checking one input did in a worker: its label, its ``Totals.counts()``, what
    # it gave the sink (``Recorder.emitted``) and wrote to stderr, and how far it moved
    # the progress bar.  Plain tuples, lists, str and int: pickled by C code alone (a
    # class instance costs a Python-level reduce each, several times the file's check).
    Counts = tuple[int, int, int, int, int, int, int, int]
    # Recorder.emitted
    Emitted = tuple[str, list[FileFinding], int, int, str | None, dict[str, list[int]]]
    Checked = tuple[str, Counts, list[Emitted], str, int]

MAX_AUTO_JOBS = 8  # beyond this, reading files and writing output dominate
# Automatic workers from this many bytes on: below it, checking is too short (the gate
# reads mostly-ASCII source at about 100 MiB/s a process) for half of it to outweigh
# what a worker costs (see above).
AUTO_MIN_BYTES = 16 << 20
_PIPE_SIZE = 1 << 20  # F_SETPIPE_SZ (Linux): a worker can run a few chunks ahead


def can_fork() -> bool:
    """Whether workers can be forked warm: POSIX ``fork``, macOS left out (forking a
    process that used system frameworks is unsafe there)."""
    return sys.platform != "darwin" and hasattr(os, "fork")


def choose(requested: int, files: int, size: int) -> int:
    """The number of processes for ``files`` files of ``size`` bytes in all:
    ``requested``, or with 0 one a core (up to ``MAX_AUTO_JOBS``) from
    ``AUTO_MIN_BYTES`` on, else one."""
    if not can_fork() or files < 2:
        return 1
    if requested:
        return min(requested, files)
    if size < AUTO_MIN_BYTES:
        return 1
    return max(1, min(cores(), MAX_AUTO_JOBS, files))


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))  # what this process may use (taskset, cgroups)
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# What workers check with, set before they are forked (``ordered``).
_SHARED: tuple[CheckOne[Any], Any] | None = None


def check_in_workers(
    check_one: CheckOne[S],
    files: Sequence[Input],
    jobs: int,
    settings: S,
    totals: Totals,
    progress: Progress,
    sink: Sink,
) -> None:
    """``check_one`` on each of ``files`` in ``jobs`` processes, forked once what they
    check with is built (the caller's ``_check.warm_up``); what each did is replayed
    here in order, as if this process had checked it."""
    global _SHARED
    _SHARED = (check_one, settings)
    chunk = max(1, min(16, len(files) // (4 * jobs)))
    for checked in ordered(_check_chunk, files, jobs, chunk):
        for label, counts, emitted, stderr, advanced in checked:
            if stderr:
                sys.stderr.write(stderr)
            for name, findings, more, more_failing, note, tally in emitted:
                outcome = Outcome(findings, 0, more, more_failing, note)
                outcome.tally = tally
                sink.emit_file(name, outcome)
            progress.advance(advanced, label)
            totals.merge(counts)


def _check_chunk(items: Sequence[Input]) -> list[Checked]:
    """In a worker: ``check_one`` on each of ``items``, recorded."""
    assert _SHARED is not None, "set before the workers were forked"
    check_one, settings = _SHARED
    out: list[Checked] = []
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        for item in items:
            totals, recorder = Totals(), Recorder()
            progress = Progress(0, enabled=False)
            check_one(item, settings, totals, progress, recorder)
            stderr = err.getvalue()
            if stderr:
                err.seek(0)
                err.truncate()
            out.append((item.label, totals.counts(), recorder.emitted, stderr, progress.done))
    return out


def ordered(
    work: Callable[[Sequence[T]], R], items: Sequence[T], jobs: int, chunk: int
) -> Iterator[R]:
    """``work(items[i : i + chunk])`` for each chunk, yielded in order: chunk k is run by
    this process when ``owners(...)[k] == 0``, else by forked worker ``owners(...)[k]``.
    ``work`` must be a module-level function; what it needs beyond its items it finds
    in module globals set before this is called (inherited by fork)."""
    import pickle  # here: a run in one process (most) never loads either
    import signal

    starts = range(0, len(items), chunk)
    owner = owners(len(starts), jobs)
    sys.stdout.flush()  # else a worker's copy of the buffers could be written twice
    sys.stderr.flush()
    workers: list[tuple[int, BinaryIO]] = []
    # The collector must not touch (and so copy) the pages workers share, here either:
    # what exists now (modules, tables, the file list) stays out of its reach for good,
    # and the last collection at exit does not walk it.
    gc.freeze()
    for w in range(1, max(owner, default=0) + 1):
        mine = [start for k, start in enumerate(starts) if owner[k] == w]
        workers.append(_fork(work, items, mine, chunk))
    done = False
    try:
        for k, start in enumerate(starts):
            w = owner[k]
            if w == 0:
                yield work(items[start : start + chunk])
                continue
            try:
                ok, value = pickle.load(workers[w - 1][1])
            except EOFError:
                ok, value = False, "it ended early"
            if not ok:
                raise RuntimeError(f"sanitizer check: worker {w} failed: {value}")
            yield value
        done = True
    finally:
        for pid, pipe in workers:
            if not done:  # interrupted, output closed, an error: stop the rest
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGTERM)
            pipe.close()
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def owners(chunks: int, jobs: int) -> list[int]:
    """Which process runs each of ``chunks`` chunks: 0 (this one) or a worker 1..N-1,
    for N = min(jobs, chunks) processes.  Round-robin, but the last tenth of the chunks
    go to the workers alone (this process replays all their results and exits last)."""
    procs = min(jobs, chunks)
    if procs < 2:
        return [0] * chunks
    tail = chunks - chunks // 10
    return [k % procs if k < tail else 1 + (k - tail) % (procs - 1) for k in range(chunks)]


def _fork(
    work: Callable[[Sequence[T]], R], items: Sequence[T], starts: Sequence[int], chunk: int
) -> tuple[int, BinaryIO]:
    """Start a worker running ``work`` on the chunks at ``starts``: (its pid, the read
    end of its pipe)."""
    read_fd, write_fd = os.pipe()
    with contextlib.suppress(AttributeError, OSError):  # Linux only; a bigger buffer
        import fcntl

        fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the worker (coverage is not collected there)
        os.close(read_fd)
        _worker(work, items, starts, chunk, write_fd)
    os.close(write_fd)
    return pid, os.fdopen(read_fd, "rb")


def _worker(  # pragma: no cover - runs in the forked worker
    work: Callable[[Sequence[T]], R],
    items: Sequence[T],
    starts: Sequence[int],
    chunk: int,
    fd: int,
) -> None:
    """The worker's whole life: never returns into the caller's frames (``os._exit``),
    so neither their ``finally`` blocks nor ``atexit`` run twice."""
    import pickle  # imported by the parent already (``ordered``), as signal is
    import signal

    status = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
        with os.fdopen(fd, "wb") as pipe:
            for start in starts:
                try:
                    message: tuple[bool, object] = (True, work(items[start : start + chunk]))
                except Exception as exc:  # reported by the parent, in order
                    import traceback  # here: only a failing worker formats one

                    last = traceback.format_exception_only(type(exc), exc)[-1].strip()
                    message = (False, last)
                pickle.dump(message, pipe, pickle.HIGHEST_PROTOCOL)
                pipe.flush()
                if not message[0]:
                    break
        status = 0
    except BaseException:  # the parent went away (EPIPE) or stopped us
        pass
    finally:
        os._exit(status)
