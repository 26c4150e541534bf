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
(``sanitizer._policy``), ``identifier_key`` (``sanitizer.identifier_key``).  Valid
stretches cost one pass of the SIMD validator over the data buffer (``columns.c``);
Python runs only for the values that need an answer of their own.  See docs/datasets.md.
"""

from __future__ import annotations

import functools
import itertools
import re
import struct
from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING

from . import _arrow
from . import _policy as _scalar  # inspect, sanitize, reveal: the per-value answers
from ._arguments import check_choice, check_count
from ._arrow import Chunk, ChunkedResult, Column, Node, Result
from ._decoder import decode as _decode_value
from ._decoder import find_errors as _find_errors_value
from ._errors import Utf8Error
from ._lookalike import identifier_key as _identifier_key
from ._lookalike.key import column_tables as _key_tables
from ._native import speedups
from ._policy import Finding, Hidden, Policy, PolicyError, profiles
from ._policy.compiled import CompiledPolicy, compiled_for, reveal_args

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
        return all(not _checked(chunk)[1] for chunk in col.chunks())


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


def _strings(
    chunk: Chunk, rows: list[int], pieces: list[bytes | None], out: bytes | None = None
) -> Node:
    """``chunk``'s values as a new string column (``out``, a format; by default the
    string type of the chunk's layout: ``string``, ``large_string`` or ``string_view``),
    ``rows[i]`` replaced by ``pieces[i]`` (None: null)."""
    fmt = out or _STRING_OF[chunk.layout]
    layout = _arrow.LAYOUTS[fmt][0]
    values, data = _arrow.column_gather(
        chunk.layout,
        chunk.length,
        chunk.offset,
        chunk.validity,
        chunk.values,
        chunk.data,
        rows,
        pieces,
        layout,
    )
    validity = chunk.validity_bits()
    nulls = [row for row, piece in zip(rows, pieces, strict=True) if piece is None]
    if nulls:
        bits = (1 << chunk.length) - 1 if validity is None else int.from_bytes(validity, "little")
        for row in nulls:
            bits &= ~(1 << row)
        validity = bits.to_bytes((chunk.length + 7) // 8, "little")
    buffers: list[bytes | None] = [validity, values, data]
    if layout == 2:
        buffers.append(struct.pack("=q", len(data)))  # the variadic buffers' sizes
    return _arrow.Node(fmt, chunk.length, buffers, _arrow.null_count(validity, chunk.length))


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
        if not bad:
            return _lent_text(col, chunk)
        pieces: list[bytes | None] = [
            _decode_value(bytes(chunk.value(row)), errors="replace").encode() for row in bad
        ]
        return _strings(chunk, bad, pieces)

    return _result(column, "decode", per_chunk)


# -- the policy layer's functions: C marks the rows whose answer is the clean one, the
# scalar function answers each of the others --------------------------------------------


def _policy(policy: object, where: str) -> tuple[Policy, CompiledPolicy]:
    if policy is None:
        policy = profiles.TEXT
    if not isinstance(policy, Policy):
        raise TypeError(
            f"{where}() argument 'policy' must be a sanitizer.Policy or None, "
            f"not {type(policy).__name__}"
        )
    return policy, compiled_for(policy)


def _present(chunk: Chunk) -> int:
    """The rows that are not null, as a bitmap in an int (bit k: row k)."""
    bits = chunk.validity_bits()
    return (1 << chunk.length) - 1 if bits is None else int.from_bytes(bits, "little")


def _clean(chunk: Chunk, args: tuple[object, ...] | None) -> int:
    """The rows ``clean(value, *args)`` answers with a str (C), as a bitmap in an int; 0
    without the C fast path (every row then goes to the scalar function)."""
    if args is None or speedups is None:
        return 0
    bits = speedups.column_clean(
        chunk.layout,
        chunk.length,
        chunk.offset,
        chunk.validity,
        chunk.values,
        chunk.data,
        *args,  # type: ignore[arg-type]
    )
    return int.from_bytes(bits, "little")


def _rows(bits: int, length: int) -> list[int]:
    """The set bits of ``bits`` (< 2**length), ascending, by skipping zero bytes in C."""
    raw = bits.to_bytes((length + 7) // 8, "little")
    return [
        8 * m.start() + i
        for m in re.finditer(b"[^\x00]", raw)
        for i in range(8)
        if raw[m.start()] >> i & 1
    ]


def _bitmap(bits: int, length: int) -> bytes:
    return bits.to_bytes((length + 7) // 8, "little")


def _list_ends(length: int, counts: dict[int, int]) -> bytes:
    """List offsets (int32, packed) for ``length`` rows, row k holding ``counts.get(k, 0)``
    items."""
    if not counts:
        return bytes(4 * (length + 1))
    sizes = [0] * length
    for row, count in counts.items():
        sizes[row] = count
    return array("i", itertools.accumulate(sizes, initial=0)).tobytes()


def inspect(column: object, policy: Policy | None = None) -> ChunkedResult:
    """``sanitizer.inspect(value, policy)`` for each value (default policy
    ``profiles.TEXT``): a struct column of ``ok`` (bool), ``text`` (string: the policy's
    output, null where refused) and ``findings`` (list of struct: ``category`` and
    ``action``, the enum names; ``start``, ``end``, byte offsets within the value;
    ``detail``, or null); null where the value is null."""
    policy, compiled = _policy(policy, "inspect")
    args = compiled.direct_report_args

    def per_chunk(col: Column, base: int, chunk: Chunk) -> Node:
        length = chunk.length
        present = _present(chunk)
        clean = _clean(chunk, args) & present
        ok = clean
        rows = _rows(present & ~clean, length)
        pieces: list[bytes | None] = []
        counts: dict[int, int] = {}
        findings: list[Finding] = []
        for row in rows:
            report = _scalar.inspect(bytes(chunk.value(row)), policy)
            if report.ok:
                ok |= 1 << row
            pieces.append(None if report.text is None else report.text.encode())
            if report.findings:
                counts[row] = len(report.findings)
                findings += report.findings
        validity = chunk.validity_bits()
        # every value clean: its text is its own bytes (no copy), as decode lends them
        text = _lent_text(col, chunk) if not rows else _strings(chunk, rows, pieces)
        fields = [
            _arrow.bool_node(_bitmap(ok, length), length).named("ok"),
            text.named("text"),
            _arrow.list_node(_list_ends(length, counts), _finding_node(findings)).named("findings"),
        ]
        return _arrow.struct_node(length, fields, validity)

    return _result(column, "inspect", per_chunk)


def _finding_node(findings: list[Finding]) -> Node:
    fields = [
        _arrow.string_node([f.category.name for f in findings]).named("category"),
        _arrow.int_node([f.start for f in findings], "q").named("start"),
        _arrow.int_node([f.end for f in findings], "q").named("end"),
        _arrow.string_node([f.action.name for f in findings]).named("action"),
        _arrow.string_node([f.detail for f in findings]).named("detail"),
    ]
    return _arrow.struct_node(len(findings), fields)


def _lent_text(col: Column, chunk: Chunk) -> Node:
    """``chunk``'s own buffers as a string column (every value that is not null proven
    well-formed), or a copy when a null slot holds bytes a reader would refuse."""
    if chunk.validity is None or not _checked(chunk, nulls=True)[1]:
        return Node.lent(_STRING_OF[chunk.layout], col, chunk)
    return _strings(chunk, [], [])


def sanitize(column: object, policy: Policy | None = None) -> ChunkedResult:
    """``sanitizer.sanitize(value, policy)`` for each value (default policy
    ``profiles.TEXT``): a string column, null where the policy refuses the value (the
    scalar function's ``PolicyError``) or the value is null."""
    policy, compiled = _policy(policy, "sanitize")
    args = compiled.direct_verdict_args

    def per_chunk(col: Column, base: int, chunk: Chunk) -> Node:
        present = _present(chunk)
        rows = _rows(present & ~_clean(chunk, args), chunk.length)
        if not rows:
            return _lent_text(col, chunk)
        pieces: list[bytes | None] = []
        for row in rows:
            try:
                pieces.append(_scalar.sanitize(bytes(chunk.value(row)), policy).encode())
            except PolicyError:
                pieces.append(None)
        return _strings(chunk, rows, pieces)

    return _result(column, "sanitize", per_chunk)


def reveal(column: object) -> ChunkedResult:
    """``sanitizer.reveal(value)`` for each value: a list column of struct ``channel``
    (the ``Channel`` name), ``start``, ``end`` (byte offsets within the value),
    ``payload`` (binary) and ``text`` (the payload as UTF-8, or null); null where the
    value is null.  An ill-formed value raises its ``Utf8Error``, naming the row, as
    ``decode`` does."""
    args = reveal_args()

    def per_chunk(col: Column, base: int, chunk: Chunk) -> Node:
        length = chunk.length
        present = _present(chunk)
        counts: dict[int, int] = {}
        found: list[Hidden] = []
        for row in _rows(present & ~_clean(chunk, args), length):
            try:
                hidden = _scalar.reveal(bytes(chunk.value(row)))
            except Utf8Error:
                raise _row_error(chunk, row, base) from None
            if hidden:
                counts[row] = len(hidden)
                found += hidden
        fields = [
            _arrow.string_node([h.channel.name for h in found]).named("channel"),
            _arrow.int_node([h.start for h in found], "q").named("start"),
            _arrow.int_node([h.end for h in found], "q").named("end"),
            _arrow.string_node([h.payload for h in found], binary=True).named("payload"),
            _arrow.string_node([h.text for h in found]).named("text"),
        ]
        item = _arrow.struct_node(len(found), fields)
        return _arrow.list_node(_list_ends(length, counts), item, chunk.validity_bits())

    return _result(column, "reveal", per_chunk)


@functools.cache
def _ascii_keys() -> tuple[bytes, ...]:
    """The key of each ASCII character, UTF-8: an ASCII text's key is its characters'
    keys in order (lookalike.key's ASCII map is one code point at a time)."""
    return tuple(_identifier_key(chr(b)).encode() for b in range(128))


def identifier_key(column: object) -> ChunkedResult:
    """``sanitizer.identifier_key`` of each value (decoded strictly: an ill-formed value
    raises its ``Utf8Error``, naming the row): a string column, null where the value is
    null.  In C, each value is keyed from the per-character keys without a str
    (``_lookalike.key.column_tables``), the few whose marks N moves across combining
    classes by the scalar function; without C, ASCII values a byte at a time, the
    others one by one."""
    tables = _key_tables()

    def per_chunk(col: Column, base: int, chunk: Chunk) -> Node:
        _, bad = _checked(chunk)
        if bad:
            raise _row_error(chunk, bad[0], base)
        where = (chunk.layout, chunk.length, chunk.offset, chunk.validity, chunk.values)
        if tables is not None and speedups is not None:
            ends, data, rows = speedups.column_keys(*where, chunk.data, *tables)
        else:
            ends, data, rows = _arrow.column_translate(*where, chunk.data, _ascii_keys())
        pieces: list[bytes | None] = [
            _identifier_key(bytes(chunk.value(row)).decode()).encode() for row in rows
        ]
        keyed = Chunk.of(1, chunk.length, chunk.validity_bits(), ends, data)
        return _strings(keyed, rows, pieces, _STRING_OF[chunk.layout])

    return _result(column, "identifier_key", per_chunk)
