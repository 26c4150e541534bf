"""Sorting more records than fit in memory: sorted runs in temporary files, then a merge.

``sanitizer collisions`` groups millions of lines in bounded memory, so it cannot hold
them in a dict.  It sorts small fixed-size records instead (a key digest, a line
number, a byte offset) with a textbook external merge sort (Knuth, TAOCP vol. 3,
§5.4.1): records are gathered ``run_records`` at a time, each batch is sorted and
written to an anonymous temporary file (a *run*), and the runs are merged with a heap.

Records are ``bytes`` of one fixed size compared as bytes, so big-endian unsigned
fields (``struct`` ``>Q``) sort numerically, field by field.  Memory is bounded by the
run in memory (``run_records`` records) plus one read buffer per merged run; at most
``fan_in`` runs are merged at once (more are first merged into longer runs), so the
number of open files is bounded too.  Disk use is one copy of the records.
"""

from __future__ import annotations

import contextlib
import heapq
import tempfile
from collections.abc import Iterator
from typing import IO, Any

RUN_RECORDS = 1 << 15  # records sorted in memory at a time
FAN_IN = 32  # runs merged at once
READ_BUFFER = WRITE_BUFFER = 1 << 16  # bytes read from or written to a run at a time


class TemporaryFileError(Exception):
    """A temporary file could not be created, written or read (``.exc``: the OSError):
    a full or missing ``TMPDIR``, never the fault of the input being sorted."""

    def __init__(self, exc: OSError) -> None:
        super().__init__(exc.strerror or str(exc))
        self.exc = exc

    def __reduce__(self) -> tuple[Any, ...]:
        # BaseException's would call this class with the message: made again from .exc.
        return type(self), (self.exc,), self.__dict__


@contextlib.contextmanager
def temporary_files() -> Iterator[None]:
    """Turn an ``OSError`` raised inside into a ``TemporaryFileError``."""
    try:
        yield
    except OSError as exc:
        raise TemporaryFileError(exc) from exc


def temporary_file(prefix: str) -> IO[bytes]:
    """An anonymous (unlinked where the OS allows) temporary file: nothing is left
    behind on a crash."""
    with temporary_files():
        return tempfile.TemporaryFile(prefix=prefix)


class ExternalSorter:
    """Collect fixed-size records with ``add``, then iterate them in order with
    ``sorted_records`` (once).  Use as a context manager: it closes its temporary files."""

    def __init__(
        self,
        record_size: int,
        *,
        run_records: int | None = None,
        fan_in: int | None = None,
        tmpdir: str | None = None,
    ) -> None:
        run_records = RUN_RECORDS if run_records is None else run_records
        fan_in = FAN_IN if fan_in is None else fan_in
        if record_size < 1 or run_records < 1 or fan_in < 2:
            raise ValueError("record_size >= 1, run_records >= 1 and fan_in >= 2")
        self.record_size = record_size
        self.run_records = run_records
        self.fan_in = fan_in
        self.tmpdir = tmpdir
        self.count = 0
        self._batch: list[bytes] = []
        self._runs: list[IO[bytes]] = []

    def __enter__(self) -> ExternalSorter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for run in self._runs:
            run.close()
        self._runs.clear()
        self._batch.clear()

    def add(self, record: bytes) -> None:
        if len(record) != self.record_size:
            raise ValueError(f"record of {len(record)} bytes, expected {self.record_size}")
        self._batch.append(record)
        self.count += 1
        if len(self._batch) >= self.run_records:
            self._spill()

    def _spill(self) -> None:
        batch = self._batch
        batch.sort()
        run = self._new_run()
        self._runs.append(run)
        step = max(1, WRITE_BUFFER // self.record_size)
        with temporary_files():
            for i in range(0, len(batch), step):  # never a second copy of the whole run
                run.write(b"".join(batch[i : i + step]))
        batch.clear()

    def _new_run(self) -> IO[bytes]:
        with temporary_files():
            return tempfile.TemporaryFile(dir=self.tmpdir, prefix="sanitizer-sort-")

    def _read(self, run: IO[bytes]) -> Iterator[bytes]:
        size = self.record_size
        chunk_size = max(1, READ_BUFFER // size) * size
        with temporary_files():
            run.seek(0)
            chunk = run.read(chunk_size)
        while chunk:
            for i in range(0, len(chunk), size):
                yield chunk[i : i + size]
            with temporary_files():
                chunk = run.read(chunk_size)

    def sorted_records(self) -> Iterator[bytes]:
        """Every record added, in ascending byte order (stable for equal records)."""
        if not self._runs:  # everything fit in memory: no file at all
            self._batch.sort()
            batch, self._batch = self._batch, []
            yield from batch
            return
        if self._batch:
            self._spill()
        while len(self._runs) > self.fan_in:  # merge passes keep open files <= fan_in
            group, self._runs = self._runs[: self.fan_in], self._runs[self.fan_in :]
            merged = self._new_run()
            with temporary_files():
                for record in heapq.merge(*map(self._read, group)):
                    merged.write(record)
            for run in group:
                run.close()
            self._runs.append(merged)
        yield from heapq.merge(*map(self._read, self._runs))
