"""The library's checks over whole Arrow columns, at the speed of the buffers.

Why it exists: corpora (training data, crawls, logs, Parquet lakes) come as Arrow
columns, and a Python call per value costs far more than judging the value.  Every
function here takes any object with ``__arrow_c_array__`` or ``__arrow_c_stream__`` (the
Arrow PyCapsule interface: pyarrow arrays and chunked arrays, polars Series, pandas
Arrow-backed columns, DuckDB results, nanoarrow) of type ``binary``, ``large_binary``,
``binary_view``, ``string``, ``large_string`` or ``string_view`` (string columns are
re-checked: their type is a claim, not a proof), reads its buffers in place without
importing pyarrow (``_arrow``: the Arrow C Data Interface), and answers with a column of
its own: an object with ``__arrow_c_array__`` (``__arrow_c_stream__`` for a chunked
input, one result chunk per input chunk) that ``pyarrow.array`` and ``polars.Series``
take without a copy.  A null stays null, whatever bytes its slot holds; a slice's
``offset`` is honoured.

Each value's answer is exactly the scalar function's on that value's bytes:
``is_valid`` (``sanitizer.is_valid``), ``find_errors`` (``sanitizer.find_errors``),
``decode`` (``sanitizer.decode``), ``inspect``/``sanitize``/``reveal``
(``sanitizer.policy``), ``identifier_key`` (``sanitizer.identifier_key``).  Valid
stretches cost one pass of the SIMD validator over the data buffer (``columns.c``);
Python runs only for the values that need an answer of their own.  See docs/datasets.md.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from . import _arrow
from ._arguments import check_choice, check_count
from ._arrow import Chunk, ChunkedResult, Column, Node, Result
from .decoder import decode as _decode_value
from .decoder import find_errors as _find_errors_value
from .errors import Utf8Error

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

__all__ = [
    "ChunkedResult",
    "Result",
    "all_valid",
    "decode",
    "find_errors",
    "identifier_key",
    "inspect",
    "is_valid",
    "reveal",
    "sanitize",
]


def _checked(chunk: Chunk, nulls: bool = False) -> tuple[bytes, list[int]]:
    """(bits, bad) of ``chunk``: ``_arrow.column_check`` (C, or its twin); ``nulls``:
    the null slots' bytes judged too."""
    validity = None if nulls else chunk.validity
    return _arrow.column_check(
        chunk.layout, chunk.length, chunk.offset, validity, chunk.values, chunk.data
    )


def _result(
    column: object, where: str, per_chunk: Callable[[Column, int, Chunk], Node]
) -> ChunkedResult:
    """``per_chunk(col, base, chunk)`` for each chunk of ``column`` (``base``: the column
    row of the chunk's first row), as one result."""
    with _arrow.read_column(column, where) as col:
        nodes = [per_chunk(col, base, chunk) for base, chunk in _arrow.chunk_rows(col)]
        streamed = col.streamed
    if not nodes:  # a stream of no chunks: one empty chunk keeps the type
        nodes = [per_chunk(col, 0, _EmptyChunk())]  # type: ignore[arg-type]
    return _arrow.make_result(nodes, streamed, lambda: _arrow.node_values(nodes))


class _EmptyChunk:
    """A chunk of no rows (for a stream of none)."""

    layout = 0
    length = 0
    offset = 0
    null_count = 0
    validity = None
    values = memoryview(b"\0\0\0\0")
    data = memoryview(b"")

    def validity_bits(self) -> None:
        return None


def is_valid(column: object) -> ChunkedResult:
    """Per value: True when it is well-formed UTF-8 (RFC 3629 §4), as
    ``sanitizer.is_valid``; null where the value is null.  An Arrow boolean column."""

    def per_chunk(col: Column, base: int, chunk: Chunk) -> Node:
        bits, _ = _checked(chunk)
        return _arrow.bool_node(bits, chunk.length, chunk.validity_bits())

    return _result(column, "is_valid", per_chunk)


def all_valid(column: object) -> bool:
    """True when every value that is not null is well-formed UTF-8 (RFC 3629 §4)."""
    with _arrow.read_column(column, "all_valid") as col:
        return all(not _checked(chunk)[1] for chunk in col.chunks)


_ERROR_FIELDS = ("row", "start", "end", "kind", "naive")


def find_errors(column: object, limit: int | None = None) -> ChunkedResult:
    """Every ill-formed maximal subpart of every value, in order: a struct column of
    ``row`` (int64: the value's row in the column, counted across chunks), ``start`` and
    ``end`` (int64: byte offsets within the value), ``kind`` (string: the ``ErrorKind``
    name) and ``naive`` (int32: the code point a lax RFC 2279 decoder reads there, or
    null), as ``sanitizer.find_errors`` gives for each value.  ``limit`` stops after that
    many errors in all."""
    if limit is not None:
        limit = check_count(limit, "limit", "find_errors", 0)
    left = [limit]

    def per_chunk(col: Column, base: int, chunk: Chunk) -> Node:
        rows: list[int] = []
        errors: list[Utf8Error] = []
        if left[0] != 0:
            for row in _checked(chunk)[1]:
                found = _find_errors_value(bytes(chunk.value(row)), limit=left[0])
                rows += [base + row] * len(found)
                errors += found
                if left[0] is not None:
                    left[0] -= len(found)
                    if left[0] == 0:
                        break
        return _error_node(rows, errors)

    return _result(column, "find_errors", per_chunk)


def _error_node(rows: list[int], errors: list[Utf8Error]) -> Node:
    fields = [
        _arrow.int_node(rows, "q").named("row"),
        _arrow.int_node([e.start for e in errors], "q").named("start"),
        _arrow.int_node([e.end for e in errors], "q").named("end"),
        _arrow.string_node([e.kind.name for e in errors]).named("kind"),
        _arrow.nullable_ints([e.naive for e in errors], "i").named("naive"),
    ]
    return _arrow.struct_node(len(rows), fields)


def _row_error(chunk: Chunk, row: int, base: int) -> Utf8Error:
    """The first error of ``row``, its reason naming the row (``base + row``)."""
    err = _find_errors_value(bytes(chunk.value(row)), limit=1)[0]
    err.reason = f"row {base + row}: {err.reason}"
    err.row = base + row  # type: ignore[attr-defined]
    return err


def _strings(chunk: Chunk, rows: list[int], pieces: list[bytes | None]) -> Node:
    """``chunk``'s values as a new string column of the same layout (``string``,
    ``large_string`` or ``string_view``), ``rows[i]`` replaced by ``pieces[i]`` (None:
    null)."""
    values, data = _arrow.column_gather(
        chunk.layout,
        chunk.length,
        chunk.offset,
        chunk.validity,
        chunk.values,
        chunk.data,
        rows,
        pieces,
        chunk.layout,
    )
    validity = chunk.validity_bits()
    nulls = [row for row, piece in zip(rows, pieces, strict=False) if piece is None]
    if nulls:
        bits = (1 << chunk.length) - 1 if validity is None else int.from_bytes(validity, "little")
        for row in nulls:
            bits &= ~(1 << row)
        validity = bits.to_bytes((chunk.length + 7) // 8, "little")
    buffers: list[bytes | None] = [validity, values, data]
    if chunk.layout == 2:
        buffers.append(struct.pack("=q", len(data)))  # the variadic buffers' sizes
    return _arrow.Node(
        _STRING_OF[chunk.layout], chunk.length, buffers, _arrow.null_count(validity, chunk.length)
    )


_STRING_OF = {0: b"u", 1: b"U", 2: b"vu"}  # layout -> its string type


def decode(column: object, errors: Literal["strict", "replace"] = "strict") -> ChunkedResult:
    """Each value decoded, as ``sanitizer.decode`` does: a string column.  ``"strict"``
    raises the first ill-formed value's ``Utf8Error`` (its ``row`` attribute and its
    message name the row); ``"replace"`` puts one U+FFFD per maximal subpart, as
    ``bytes.decode(..., "replace")`` (and Spark's ``make_valid_utf8``) do."""
    mode = check_choice(errors, ("strict", "replace"), "errors", "decode")

    def per_chunk(col: Column, base: int, chunk: Chunk) -> Node:
        _, bad = _checked(chunk)
        if bad and mode == "strict":
            raise _row_error(chunk, bad[0], base)
        # the column's own buffers read as strings (no copy), when even its null slots
        # hold well-formed bytes (a consumer may read them: polars does)
        if not bad and (chunk.validity is None or not _checked(chunk, nulls=True)[1]):
            return Node.lent(_STRING_OF[chunk.layout], col, chunk)
        pieces: list[bytes | None] = [
            _decode_value(bytes(chunk.value(row)), errors="replace").encode() for row in bad
        ]
        return _strings(chunk, bad, pieces)

    return _result(column, "decode", per_chunk)


# -- the policy layer's functions, per value (the scalar functions decide) --------------


def inspect(column: object, policy: object = None) -> ChunkedResult:
    raise NotImplementedError


def sanitize(column: object, policy: object = None) -> ChunkedResult:
    raise NotImplementedError


def reveal(column: object) -> ChunkedResult:
    raise NotImplementedError


def identifier_key(column: object) -> ChunkedResult:
    raise NotImplementedError
