"""The inputs a scan reads: PATH arguments turned into files, with nothing skipped unsaid.

A scan that silently leaves out what it could not read would let an uploader hide an
attack file from the gate (a folder without read permission, a name past PATH_MAX).
So every folder and file that cannot be read is reported, one line each, and makes the
run exit 2, as grep does.  A PATH argument that is not a folder is read whatever kind of
file it is: a FIFO, a device or a process substitution (``<(cmd)``, ``/dev/fd/63``) is
input like any other.  Inside folders only regular files are read (a FIFO met while
walking could block the scan forever); any other kind is reported as skipped.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass

STDIN = "-"


@dataclass(frozen=True)
class Problem:
    """Something the walk could not read (``error``) or chose not to (``skipped``)."""

    path: str
    message: str
    error: bool = True


def expand(paths: list[str], report: Callable[[Problem], None]) -> Iterator[str]:
    """Files to scan, in order: folders walked recursively with entries sorted; '-' is
    stdin.  ``report`` gets every path that cannot be read or is left out, with why."""
    for path in paths:
        if path == STDIN:
            yield path
            continue
        try:
            mode = os.stat(path).st_mode
        except OSError as exc:
            report(Problem(path, _reason(exc)))
            continue
        if stat.S_ISDIR(mode):
            yield from _walk(path, report)
        else:
            yield path  # named explicitly: read whatever it is


def _walk(top: str, report: Callable[[Problem], None]) -> Iterator[str]:
    def failed(exc: OSError) -> None:
        report(Problem(exc.filename if exc.filename is not None else top, _reason(exc)))

    for root, dirs, files in os.walk(top, onerror=failed):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(root, name)
            try:
                mode = os.stat(full).st_mode
            except OSError as exc:  # a dangling symlink, a name past PATH_MAX, ...
                report(Problem(full, _reason(exc)))
                continue
            if stat.S_ISREG(mode):
                yield full
            else:
                report(Problem(full, f"skipped: {_kind(mode)}, not a regular file", False))


def size_of(path: str) -> int:
    """Size in bytes for the progress bar (0 when unknown: stdin, pipes, vanished)."""
    if path == STDIN:
        return 0
    try:
        st = os.stat(path)
    except OSError:
        return 0
    return st.st_size if stat.S_ISREG(st.st_mode) else 0


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)
