"""``sanitizer reveal`` on a records file: what each value's invisible characters spell.

Each JSON string of a JSON Lines file (as ``json.loads`` reads it, keys too) and each
binary or string cell of a Parquet or Arrow file is revealed on its own
(``sanitizer.reveal``) and each payload printed at ``PATH:LINE:/json/pointer:COLUMN``
or ``PATH:ROW:FIELD:COLUMN``.  A value that is not UTF-8 (a lone surrogate, ill-formed
bytes) or a line that is not JSON is one line on stderr and makes the run exit 2, and
the other records are still read.  Loaded only when a records file is named.
"""

from __future__ import annotations

import sys
from typing import Any

from .._decoder import find_errors
from .._policy import reveal
from ._inputs import CHUNK, Opened, open_input
from ._output import Writer, display_path, json_path_fields
from ._records import Where, text_bytes

SHOWN = 64


def reveal_records(path: str, label: str, fmt: str, args: Any, out: Writer) -> tuple[int, int]:
    """``(payloads, problems)`` of the records file ``path``; OSError when unreadable."""
    stream = open_input(path)
    try:
        opened = Opened(path, label, stream, stream.read(CHUNK))
        values = _jsonl(opened, args) if fmt == "jsonl" else _table(opened, fmt)
        found = problems = 0
        for where, data in values:
            if isinstance(data, str):  # why the record or value was not read
                print(f"sanitizer reveal: {_where(where)}: {data}", file=sys.stderr)
                problems += 1
                continue
            for h in reveal(data):
                found += 1
                place = where.place(data, h.start, h.end, args.columns)
                if out.as_json:
                    record: dict[str, Any] = {**json_path_fields(label), **place.as_dict()}
                    record.update(h.as_dict())
                    out.record(record)
                else:
                    width = len(data[h.start : h.end].decode("utf-8"))
                    out.line(f"{place.where()}: {h.channel.value}  {width} {h.describe(SHOWN)}")
        return found, problems
    finally:
        if path != "-":
            stream.close()


def _where(where: Where) -> str:
    """``PATH:LINE[:POINTER]`` or ``PATH:ROW:FIELD`` of a value not read."""
    first = where.line if where.row is None else where.row
    field = f":{display_path(where.field)}" if where.field else ""
    key = " (key)" if where.key else ""
    return f"{display_path(where.label)}:{first}{field}{key}"


def _jsonl(opened: Opened, args: Any) -> Any:
    from ._mode_jsonl import records, strings

    for number, _, raw, _, value, problem in records(opened, args.max_bytes, lambda n: None):
        where = Where(opened.label, number, "")
        if raw is not None and find_errors(raw, limit=1):
            yield where, "not UTF-8: read with U+FFFD in place of its ill-formed bytes"
        if problem is not None:
            yield where, problem
            continue
        for at, text, key in strings(value):
            data = text_bytes(text)
            where = Where(opened.label, number, at, key=key)
            if find_errors(data, limit=1):
                yield where, "not UTF-8: a lone surrogate"
            else:
                yield where, data


def _table(opened: Opened, fmt: str) -> Any:
    from .. import columns
    from ._mode_table import batches, leaves, pyarrow

    pa = pyarrow()
    pc = pa.compute
    base = 0
    for batch, _ in batches(opened, fmt):
        if batch is None:
            continue
        for index, field in enumerate(batch.schema):
            for path, arr, rows in leaves(pa, batch.column(index), field.name):
                valid = pa.array(columns.is_valid(arr)).fill_null(True)
                for item in pc.indices_nonzero(pc.invert(valid)).to_pylist():
                    row = base + (item if rows is None else rows[item].as_py())
                    yield Where(opened.label, 0, path, row), "not UTF-8: ill-formed bytes"
                clean = pc.if_else(valid, arr, pa.scalar(None, arr.type))
                counts = pc.list_value_length(pa.array(columns.reveal(clean))).fill_null(0)
                for item in pc.indices_nonzero(counts).to_pylist():
                    row = base + (item if rows is None else rows[item].as_py())
                    yield Where(opened.label, 0, path, row), arr[item].as_py()
        base += batch.num_rows
