"""Worker processes for ``sanitizer check --jobs``: many files on every core, output in order.

The gate's per-file work is CPU-bound Python, so threads would not help (the GIL);
ruff and ripgrep spread files over cores, and so does this, with processes.  Workers
are forked after the parent has imported and compiled everything (policy tables,
patterns), so each starts warm and shares those pages; where ``fork`` is missing or
unsafe (Windows, macOS) the run stays in one process.

Results come back in submission order (``ordered``), so output is the same for any
``--jobs``; at most ``2 * jobs`` chunks are in flight, so memory stays bounded when the
output is slow (``| less``).  Workers ignore SIGINT: Ctrl-C reaches the parent, which
stops them (``Pool.terminate``) and prints its one line; a closed output pipe is seen
by the parent only, since workers write nothing.
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.pool
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

MAX_AUTO_JOBS = 8  # beyond this, reading files and writing output dominate
# Automatic workers from this many bytes on: starting, feeding and draining them costs
# about 0.3 s of CPU, while the gate checks mostly-ASCII source at about 150 MiB/s (CPython's
# standard library, 30 MiB: 0.36 s in one process, 0.52 s in two).
AUTO_MIN_BYTES = 128 << 20


def can_fork() -> bool:
    """Whether workers can be forked warm: POSIX ``fork``, macOS left out (forking a
    process that used system frameworks is unsafe there)."""
    return sys.platform != "darwin" and "fork" in multiprocessing.get_all_start_methods()


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
    return max(1, min(_cores(), MAX_AUTO_JOBS, files))


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))  # what this process may use (taskset, cgroups)
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def ordered(
    work: Callable[[Sequence[T]], R], items: Sequence[T], jobs: int, chunk: int
) -> Iterator[R]:
    """``work(items[i : i + chunk])`` for each chunk, run in ``jobs`` forked processes,
    yielded in order.  ``work`` must be a module-level function; what it needs beyond
    its items it finds in module globals set before this is called (inherited by fork)."""
    context = multiprocessing.get_context("fork")
    gc.freeze()  # the collector must not touch (and so copy) the pages workers share
    try:
        pool = context.Pool(jobs, initializer=_ignore_sigint)
    finally:
        gc.unfreeze()
    with pool:  # exit: terminate()
        pending: deque[multiprocessing.pool.AsyncResult[R]] = deque()
        for start in range(0, len(items), chunk):
            pending.append(pool.apply_async(work, (items[start : start + chunk],)))
            if len(pending) >= 2 * jobs:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()
