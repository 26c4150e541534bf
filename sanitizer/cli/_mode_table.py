"""``sanitizer check`` on Parquet and Arrow IPC files: the ``parquet`` and ``arrow`` modes.

A table's binary and string cells are bytes, whatever the type annotation says (a
Parquet "string" column may hold ``C0 AE``: pyarrow writes and reads it back without a
word), so each cell is judged as bytes (``_records.judge``) and placed at
``PATH:ROW:COLUMN`` (the 0-based row, as ``sanitizer.columns`` and pyarrow count them;
nested columns by their path, ``a.b``, a list's items by their row).  The columns are
read a row group (Parquet) or a record batch (Arrow) at a time, so memory is bounded by
one of them; ``sanitizer.columns`` finds the cells that need a word in one pass over
each column's buffers, and only those are judged by the scalar functions.  Reading needs
pyarrow (the ``[parquet]`` extra); without it each such file is one line on stderr and
exit 2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._inputs import size_of
from ._records import Where, judge
from ._report import Outcome

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from ._check_args import Settings
    from ._inputs import Opened
    from ._output import FileFinding
    from ._report import Progress

NEEDS_PYARROW = (
    "reading Parquet and Arrow files needs pyarrow: pip install 'utf8-sanitizer[parquet]'"
)
BATCH = 1 << 16  # rows of a Parquet row group read at a time


def pyarrow() -> Any:
    """pyarrow (with its compute, ipc and parquet modules), or OSError naming the extra."""
    import importlib  # pyarrow has no type information: used as Any

    try:
        pa = importlib.import_module("pyarrow")
        for name in ("compute", "ipc", "parquet"):
            importlib.import_module(f"pyarrow.{name}")
    except ImportError:
        raise OSError(NEEDS_PYARROW) from None
    return pa


def batches(opened: Opened, fmt: str) -> Iterator[tuple[Any, int]]:
    """The record batches of a Parquet or Arrow IPC file, each with the bytes of the
    file it stands for (for the progress bar); OSError for a file that is not one."""
    pa = pyarrow()
    if opened.path == "-" or not opened.stream.seekable():
        if fmt == "parquet":
            raise OSError("Parquet is read from a file, not from a pipe")
        try:  # an Arrow IPC stream (the file format needs to seek)
            for batch in pa.ipc.open_stream(pa.PythonFile(_Rest(opened), mode="r")):
                yield batch, batch.nbytes
        except (pa.ArrowException, ValueError) as exc:
            raise OSError(f"not a readable Arrow IPC stream: {exc}") from None
        return
    source: Any = pa.memory_map(opened.path)
    try:
        if fmt == "parquet":
            pf = pa.parquet.ParquetFile(source)
            groups = pf.metadata.num_row_groups
            size = size_of(opened.path)
            done = 0
            for i in range(groups):
                yield from ((batch, 0) for batch in pf.iter_batches(BATCH, row_groups=[i]))
                part = size * (i + 1) // groups - done
                done += part
                yield None, part
            if size > done:
                yield None, size - done
            return
        try:
            reader: Any = pa.ipc.open_file(source)
            count, size, done = reader.num_record_batches, size_of(opened.path), 0
            for i in range(count):
                part = size * (i + 1) // count - done
                done += part
                yield reader.get_batch(i), part
            if size > done:
                yield None, size - done
        except pa.ArrowInvalid:
            if hasattr(source, "seek"):
                source.seek(0)
            for batch in pa.ipc.open_stream(source):
                yield batch, batch.nbytes
    except (pa.ArrowException, ValueError) as exc:
        raise OSError(f"not a readable {fmt} file: {exc}") from None


class _Rest:
    """A pipe as a file: its first bytes (read already), then the rest."""

    def __init__(self, opened: Opened) -> None:
        self.head, self.stream, self.closed = opened.first, opened.stream, False
        self.at = 0

    def read(self, n: int = -1) -> bytes:
        if n >= 0 and len(self.head) >= n:
            data, self.head = self.head[:n], self.head[n:]
        else:
            head, self.head = self.head, b""
            data = head + self.stream.read(-1 if n < 0 else n - len(head))
        self.at += len(data)
        return data

    def tell(self) -> int:
        return self.at

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        self.closed = True


def leaves(pa: Any, array: Any, name: str) -> Iterator[tuple[str, Any, Any]]:
    """``(path, array, rows)``: the binary and string arrays inside ``array`` (itself,
    a struct's fields, a list's or a map's items, a dictionary's values looked up),
    ``rows`` mapping each item to its row (None: one item a row)."""
    stack: list[tuple[str, Any, Any]] = [(name, array, None)]
    types = pa.types
    while stack:
        path, arr, rows = stack.pop()
        t = arr.type
        if types.is_dictionary(t):
            stack.append((path, arr.dictionary_decode(), rows))
        elif types.is_struct(t):
            children = arr.flatten()  # the struct's nulls applied to its fields
            for i in reversed(range(t.num_fields)):
                stack.append((f"{path}.{t.field(i).name}", children[i], rows))
        elif types.is_map(t):  # as two lists over the map's offsets
            for part, child in (("value", arr.items), ("key", arr.keys)):
                entries = pa.ListArray.from_arrays(arr.offsets, child)
                parents = pa.compute.list_parent_indices(entries)
                up = parents if rows is None else rows.take(parents)
                stack.append((f"{path}.{part}", entries.flatten(), up))
        elif (
            types.is_list(t)
            or types.is_large_list(t)
            or types.is_fixed_size_list(t)
            or (
                hasattr(types, "is_list_view")
                and (types.is_list_view(t) or types.is_large_list_view(t))
            )
        ):
            parents = pa.compute.list_parent_indices(arr)
            up = parents if rows is None else rows.take(parents)
            stack.append((f"{path}[]", arr.flatten(), up))
        elif types.is_binary(t) or types.is_large_binary(t) or types.is_binary_view(t):
            yield path, arr, rows
        elif types.is_string(t):  # the same buffers as bytes: their type is only a claim
            yield path, arr.view(pa.binary()), rows
        elif types.is_large_string(t):
            yield path, arr.view(pa.large_binary()), rows
        elif types.is_string_view(t):
            yield path, arr.view(pa.binary_view()), rows
        elif types.is_fixed_size_binary(t):
            yield path, arr.cast(pa.binary()), rows


def flagged(pa: Any, arr: Any, policy: Any) -> list[int]:
    """The items of ``arr`` that are ill-formed, or that ``policy`` finds anything in
    (``sanitizer.columns``: one pass over the buffers; Python only for these)."""
    from .. import columns

    bad = pa.array(columns.is_valid(arr))
    wanted = pa.compute.invert(bad.fill_null(True))
    if policy is not None:
        report = pa.array(columns.inspect(arr, policy))
        count = pa.compute.list_value_length(report.field("findings")).fill_null(0)
        wanted = pa.compute.or_(wanted, pa.compute.greater(count, 0))
    indices: list[int] = pa.compute.indices_nonzero(wanted).to_pylist()
    return indices


def _readable(pa: Any, array: Any, name: str, base: int) -> Iterator[tuple[str, Any, Any]]:
    """``leaves`` of one column, each checked readable (``sanitizer.columns`` refuses
    offsets outside their buffers); OSError naming the column and the batch's first
    row when it is not."""
    try:
        for path, arr, rows in leaves(pa, array, name):
            arr.validate()  # offsets and lengths: cheap, no values read
            yield path, arr, rows
    except (pa.ArrowException, ValueError) as exc:
        raise OSError(f"column {name!r} from row {base} is malformed: {exc}") from None


def table_mode(fmt: str) -> Callable[[Opened, Settings, Progress], Outcome]:
    def mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
        read = [0]
        outcome = Outcome(size=lambda: read[0])
        outcome.findings = _findings(opened, fmt, settings, progress, outcome, read)
        return outcome

    mode.__doc__ = f"A {fmt} file, with or without ``--policy``: every binary or string cell."
    return mode


def _findings(
    opened: Opened,
    fmt: str,
    settings: Settings,
    progress: Progress,
    outcome: Outcome,
    read: list[int],
) -> Iterator[FileFinding]:
    pa = pyarrow()
    label, columns, strict = opened.label, settings.columns, settings.strict
    policy = settings.policy
    if policy is not None:
        from ._judge import capped

        policy = capped(policy, 0)[0]
    tally = outcome.tally
    base = 0  # the row of the batch's first row
    for batch, size in batches(opened, fmt):
        if batch is None:  # the end of a row group (or the file): its bytes are read
            read[0] += size
            progress.advance(size, opened.label)
            continue
        for index, field in enumerate(batch.schema):
            for path, arr, rows in _readable(pa, batch.column(index), field.name, base):
                counts = tally.setdefault(path, [0, 0, 0])
                counts[0] += len(arr) - arr.null_count
                for item in flagged(pa, arr, policy):
                    row = base + (item if rows is None else rows[item].as_py())
                    data = arr[item].as_py()
                    found = 0
                    for finding in judge(data, policy, strict, Where(label, 0, path, row), columns):
                        found += 1
                        yield finding
                    counts[1] += bool(found)
                    counts[2] += found
        base += batch.num_rows
        if size:  # (a Parquet row group's bytes come once its batches are read)
            read[0] += size
            progress.advance(size, opened.label)


parquet_mode = table_mode("parquet")
arrow_mode = table_mode("arrow")
