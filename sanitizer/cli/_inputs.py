"""The inputs a scan reads: PATH arguments turned into files, with nothing skipped unsaid.

A scan that silently leaves out what it could not read would let an uploader hide an
attack file from the gate (a folder without read permission, a name past PATH_MAX).
So every folder and file that cannot be read is reported, one line each, and makes the
run exit 2, as grep does.  A PATH argument that is not a folder is read whatever kind of
file it is: a FIFO, a device or a process substitution (``<(cmd)``, ``/dev/fd/63``) is
input like any other, whatever ignore rules, globs or binary detection say.  Folders
are walked by ``_walk`` (what git would not ignore); inside them only regular files are
read (a FIFO met while walking could block the scan forever), any other kind is reported
as skipped and symbolic links are counted, not followed, unless ``--follow``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator

from . import _walk
from ._walk import Problem, reason_of

TYPE_CHECKING = False  # typing's constant without importing typing (start-up: issue #13)
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from ._record import NamedTuple

STDIN = "-"

__all__ = ["STDIN", "Input", "Problem", "expand", "size_of"]


class Input(NamedTuple):
    """One file to read; ``named`` when it was a PATH argument (always read as it is:
    ignore rules, globs and binary detection apply only to files found in folders)."""

    path: str
    named: bool


def expand(
    paths: list[str],
    report: Callable[[Problem], None],
    rules: _walk.Rules | None = None,
    counts: _walk.Counts | None = None,
) -> Iterator[Input]:
    """Files to scan, in order: folders walked as ``_walk`` says, '-' is stdin.
    ``report`` gets every path that cannot be read or is left out, with why."""
    rules = rules if rules is not None else _walk.Rules()
    counts = counts if counts is not None else _walk.Counts()
    for path in paths:
        if path == STDIN:
            yield Input(path, True)
            continue
        try:
            mode = os.stat(path).st_mode
        except OSError as exc:
            report(Problem(path, reason_of(exc)))
            continue
        if stat.S_ISDIR(mode):
            for found in _walk.walk(path, rules, counts, report):
                yield Input(found, False)
        else:
            yield Input(path, True)  # named explicitly: read whatever it is


def size_of(path: str) -> int:
    """Size in bytes for the progress bar (0 when unknown: stdin, pipes, vanished)."""
    if path == STDIN:
        return 0
    try:
        st = os.stat(path)
    except OSError:
        return 0
    return st.st_size if stat.S_ISREG(st.st_mode) else 0
