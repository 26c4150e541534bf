"""The input a fuzz worker is running right now, kept in a file its campaign can read.

libFuzzer saves the input of a crash it sees (a Python exception, a deadly signal, a
timeout), but not of a process that ends without telling it: ``os._exit`` in native code,
``SIGKILL`` (the kernel's OOM killer, a candidate killing itself), an ``exit()`` that
skips its handlers.  A campaign would then see a worker gone with no artifact and report
"no findings".  Each worker therefore copies every input into a memory-mapped file
before running it (a ``memcpy``, well under a microsecond); when a worker dies without a
report, the campaign reads the last input from that file and makes it a finding.

File layout: 8 bytes little-endian, the length plus one (0: nothing recorded yet), then
the input (truncated to ``CAPACITY``).  The campaign names the file in
``$SANITIZER_FUZZ_BREADCRUMB``; without it nothing is kept.
"""

from __future__ import annotations

import mmap
import os
from pathlib import Path

__all__ = ["BREADCRUMB_ENV", "CAPACITY", "Breadcrumb", "from_env", "read_last"]

BREADCRUMB_ENV = "SANITIZER_FUZZ_BREADCRUMB"
# Inputs longer than this are kept truncated (libFuzzer's -max_len is far below it).
CAPACITY = 1 << 20
_HEADER = 8


class Breadcrumb:
    """A memory-mapped file holding the last input given to ``record``."""

    def __init__(self, path: Path, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            os.ftruncate(fd, _HEADER + capacity)
            self._map = mmap.mmap(fd, _HEADER + capacity)
        finally:
            os.close(fd)
        self._map[:_HEADER] = bytes(_HEADER)

    def record(self, data: bytes) -> None:
        size = min(len(data), self.capacity)
        self._map[_HEADER : _HEADER + size] = data[:size]
        self._map[:_HEADER] = (size + 1).to_bytes(_HEADER, "little")


def from_env() -> Breadcrumb | None:
    """The breadcrumb the campaign asked for, if any (never fails a target's start)."""
    path = os.environ.get(BREADCRUMB_ENV, "")
    if not path:
        return None
    try:
        return Breadcrumb(Path(path))
    except (OSError, ValueError):
        return None


def read_last(path: Path) -> bytes | None:
    """The last input recorded in ``path``; None if the file is missing or was never
    written (the worker died before its first input)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    if len(raw) < _HEADER:
        return None
    stored = int.from_bytes(raw[:_HEADER], "little")
    if stored == 0:
        return None
    return raw[_HEADER : _HEADER + stored - 1]
