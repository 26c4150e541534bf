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

Opening an input is here too (``open_input``), and what makes a file found in a folder
binary (``looks_binary``): a NUL byte in its first 8 KiB, as for git and ripgrep, asked
only of a file of no known kind of text (``_kinds``).
"""

from __future__ import annotations

import errno
import io
import os
import stat
import sys
from collections.abc import Callable, Iterator

from .._decoder import find_errors
from .._errors import ErrorKind
from . import _walk
from ._kinds import UNKNOWN, Kind
from ._walk import WalkNotice, reason_of

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from typing import IO, NamedTuple

    from ._declared import Declaration
else:
    from ._record import NamedTuple

STDIN = "-"
CHUNK = 1 << 16  # bytes a read: the first one decides binary and declared encodings
BINARY_SNIFF = 8192  # a NUL byte in the first 8 KiB means binary, as for git and ripgrep
# (unless those are the whole file and well-formed UTF-8: ``looks_binary``)
_CONTROLS = bytes([*range(0x20), 0x7F])
BINARY_NOTE = (
    "binary: a NUL byte in its first 8 KiB (or bytes that are not UTF-8, for a name "
    "such as .tar or .png), and no known kind of text by its name"
)

__all__ = [
    "BINARY_NOTE",
    "BINARY_SNIFF",
    "CHUNK",
    "STDIN",
    "Input",
    "Opened",
    "WalkNotice",
    "expand",
    "looks_binary",
    "open_input",
    "size_of",
    "total_size",
]


class Input(NamedTuple):
    """One file to read; ``named`` when it was a PATH argument (always read as it is:
    ignore rules, globs and binary detection apply only to files found in folders)."""

    path: str
    named: bool
    text: bool = False  # matched by --as-text: checked as text that is not code

    @property
    def label(self) -> str:
        """How reports name it: the path, or ``<stdin>``."""
        return "<stdin>" if self.path == STDIN else self.path


class Opened:
    """One input, open, its first ``CHUNK`` bytes read already (``first``); ``label`` is
    how reports name it (``<stdin>`` for '-').  (Slotted, not a NamedTuple: its mode
    sets what it learns, ``kind``, ``declared``, ``spool``, ``origin``.)"""

    __slots__ = ("declared", "first", "kind", "label", "origin", "path", "spool", "stream")

    def __init__(self, path: str, label: str, stream: IO[bytes], first: bytes) -> None:
        self.path = path
        self.label = label
        self.stream = stream
        self.first = first
        self.kind: Kind = UNKNOWN  # what the file is by its name (``_kinds``)
        self.declared: Declaration | None = None  # the encoding it declares (``_declared``)
        self.spool: IO[bytes] | None = None  # a copy of a pipe, closed with it
        self.origin = 0  # where ``first`` began in ``stream`` (read again from there)


def expand(
    paths: list[str],
    report: Callable[[WalkNotice], None],
    rules: _walk.Rules | None = None,
    counts: _walk.Counts | None = None,
    as_text: tuple[str, ...] = (),
) -> Iterator[Input]:
    """Files to scan, in order: folders walked as ``_walk`` says, '-' is stdin.
    ``report`` gets every path that cannot be read or is left out, with why.  A file
    whose path below its folder (or, named, whose path as given) matches a glob of
    ``as_text`` is marked ``text``."""
    rules = rules if rules is not None else _walk.Rules()
    counts = counts if counts is not None else _walk.Counts()
    text = None
    if as_text:
        from ._ignore import globs

        text = globs(as_text)
    for path in paths:
        if path == STDIN:
            yield Input(path, True)
            continue
        try:
            mode = os.stat(path).st_mode
        except OSError as exc:
            report(WalkNotice(path, reason_of(exc)))
            continue
        if stat.S_ISDIR(mode):
            for found in _walk.walk(path, rules, counts, report):
                rel = os.path.relpath(found, path).replace(os.sep, "/")
                yield Input(found, False, text is not None and text.match_file(rel))
        else:  # named explicitly: read whatever it is
            yield Input(path, True, text is not None and text.match_file(path))


def size_of(path: str) -> int:
    """Size in bytes for the progress bar (0 when unknown: stdin, pipes, vanished)."""
    if path == STDIN:
        return 0
    try:
        st = os.stat(path)
    except OSError:
        return 0
    return st.st_size if stat.S_ISREG(st.st_mode) else 0


def total_size(files: list[Input], enough: int | None) -> int:
    """The size of ``files`` in all, or once it reaches ``enough`` (None: all) that far:
    one ``stat`` a file read, none when ``enough`` is 0."""
    total = 0
    for item in files:
        if enough is not None and total >= enough:
            break
        total += size_of(item.path)
    return total


def open_input(path: str) -> IO[bytes]:
    """The input as a stream: a regular file with a size unbuffered (one ``read()`` a
    call, no copy through a buffer: half the cost of opening and reading a small file),
    anything else buffered (pipes, devices, and files of size 0 such as those of /proc,
    whose reads may stop short of their end)."""
    if path == STDIN:
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


def looks_binary(sample: bytes, named_binary: bool = False, whole: bool = False) -> bool:
    """A NUL byte in ``sample``, as for git and ripgrep, unless ``sample`` is the whole
    file (``whole``), well-formed UTF-8 and not only C0 controls and DEL: then every byte
    is known to be text, U+0000 included (a decoder's test file), and the file is read
    as text.  For a file named as
    binary (``_kinds.BINARY``: an archive, an image) also bytes that are not UTF-8 (an
    incomplete character at its end aside).  Asked only of files of no known kind of
    text (``_kinds``): a C file with a NUL (gcc compiles it, with a warning) is always
    read, so that a byte cannot take a source file out of the gate."""
    if b"\0" in sample:
        text = whole and not named_binary and bool(sample.translate(None, _CONTROLS))
        return not (text and not find_errors(sample, limit=1))
    if not named_binary:
        return False
    errors = find_errors(sample, limit=2)
    cut_short = len(errors) == 1 and errors[0].kind is ErrorKind.INCOMPLETE  # at the end
    return bool(errors) and not cut_short
