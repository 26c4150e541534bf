"""Arrow columns read and written in place, through the Arrow C Data Interface.

Why it exists: corpora come as Arrow columns (pyarrow, polars, pandas, DuckDB, nanoarrow
all speak the PyCapsule interface), and judging them value by value from Python costs
far more than the judging.  This module reads a column's buffers where they are, without
importing pyarrow (``ctypes`` over the C structs of the Arrow C Data Interface
specification: ``ArrowSchema``, ``ArrowArray``, ``ArrowArrayStream``), hands them to
the buffer walks (``_speedups.column_check`` in C, ``column_check_py`` its twin), and
exports results the same way: objects with ``__arrow_c_array__`` (or
``__arrow_c_stream__`` for a chunked input) whose buffers are Python ``bytes`` lent to
the consumer until it calls the release callback, so ``pyarrow.array(result)`` and
``polars.Series(result)`` take them without a copy.

Layouts read: ``binary`` (``z``), ``large_binary`` (``Z``), ``binary_view`` (``vz``),
``string`` (``u``), ``large_string`` (``U``), ``string_view`` (``vu``), with their
``offset`` and validity bitmap (a null stays null whatever its slot holds).  Everything
here is the core's: no policy; ``sanitizer.columns`` is the public API over it.
"""

from __future__ import annotations

import codecs
import ctypes
import itertools
import struct
import sys
from array import array
from collections.abc import Callable, Iterator, Sequence
from ctypes import CFUNCTYPE, POINTER, Structure, c_char_p, c_int, c_int64, c_void_p
from typing import TYPE_CHECKING

from ._native import speedups

if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "LAYOUTS",
    "Chunk",
    "ChunkedResult",
    "Column",
    "Node",
    "Result",
    "bool_node",
    "column_check",
    "column_check_py",
    "column_gather",
    "column_gather_py",
    "column_translate",
    "column_translate_py",
    "int_node",
    "list_node",
    "make_result",
    "node_values",
    "null_count",
    "nullable_ints",
    "read_column",
    "string_node",
    "struct_node",
]

# format string -> (layout, is a string type); layout 0: int32 offsets, 1: int64 offsets,
# 2: 16-byte views (Arrow columnar format, "Variable-size Binary View Layout")
LAYOUTS: dict[bytes, tuple[int, bool]] = {
    b"z": (0, False),
    b"u": (0, True),
    b"Z": (1, False),
    b"U": (1, True),
    b"vz": (2, False),
    b"vu": (2, True),
}
_FLAG_NULLABLE = 2  # ARROW_FLAG_NULLABLE


class ArrowSchema(Structure):
    pass


class ArrowArray(Structure):
    pass


class ArrowArrayStream(Structure):
    pass


_SCHEMA_RELEASE = CFUNCTYPE(None, POINTER(ArrowSchema))
_ARRAY_RELEASE = CFUNCTYPE(None, POINTER(ArrowArray))
_GET_SCHEMA = CFUNCTYPE(c_int, POINTER(ArrowArrayStream), POINTER(ArrowSchema))
_GET_NEXT = CFUNCTYPE(c_int, POINTER(ArrowArrayStream), POINTER(ArrowArray))
_GET_LAST_ERROR = CFUNCTYPE(c_void_p, POINTER(ArrowArrayStream))
_STREAM_RELEASE = CFUNCTYPE(None, POINTER(ArrowArrayStream))

ArrowSchema._fields_ = [
    ("format", c_char_p),
    ("name", c_char_p),
    ("metadata", c_void_p),
    ("flags", c_int64),
    ("n_children", c_int64),
    ("children", POINTER(POINTER(ArrowSchema))),
    ("dictionary", POINTER(ArrowSchema)),
    ("release", _SCHEMA_RELEASE),
    ("private_data", c_void_p),
]
ArrowArray._fields_ = [
    ("length", c_int64),
    ("null_count", c_int64),
    ("offset", c_int64),
    ("n_buffers", c_int64),
    ("n_children", c_int64),
    ("buffers", POINTER(c_void_p)),
    ("children", POINTER(POINTER(ArrowArray))),
    ("dictionary", POINTER(ArrowArray)),
    ("release", _ARRAY_RELEASE),
    ("private_data", c_void_p),
]
ArrowArrayStream._fields_ = [
    ("get_schema", _GET_SCHEMA),
    ("get_next", _GET_NEXT),
    ("get_last_error", _GET_LAST_ERROR),
    ("release", _STREAM_RELEASE),
    ("private_data", c_void_p),
]

_SCHEMA_NAME = b"arrow_schema"
_ARRAY_NAME = b"arrow_array"
_STREAM_NAME = b"arrow_array_stream"

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, c_char_p]
_capsule_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_is_valid.restype = c_int
_capsule_is_valid.argtypes = [ctypes.py_object, c_char_p]
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [c_void_p, c_char_p, c_void_p]
# in a capsule's destructor the capsule is dying: read it by address, never as an object
_capsule_pointer_raw = ctypes.PYFUNCTYPE(c_void_p, c_void_p, c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi)
)


def _pointer_of(capsule: object, name: bytes) -> int:
    if not _capsule_is_valid(capsule, name):
        raise TypeError(
            f"the Arrow PyCapsule interface returned {type(capsule).__name__}, "
            f"not a capsule named {name.decode()!r}"
        )
    address = _capsule_pointer(capsule, name)
    assert address is not None
    return int(address)


# ---- reading ---------------------------------------------------------------------------


def _view(address: int | None, size: int) -> memoryview:
    """``size`` bytes at ``address``, read in place (read-only)."""
    if size == 0:
        return memoryview(b"")
    if not address:
        raise ValueError("malformed Arrow array: a buffer that holds data is NULL")
    return memoryview((ctypes.c_ubyte * size).from_address(address)).cast("B").toreadonly()


class Chunk:
    """One Arrow array of a binary or string type, its buffers viewed in place: valid
    while the column it came from is open.  ``values`` is the offsets buffer (layouts 0
    and 1) or the views buffer (2); ``data`` the data buffer, or the tuple of the views'
    variadic buffers."""

    __slots__ = (
        "addresses",
        "data",
        "layout",
        "length",
        "lent",
        "null_count",
        "offset",
        "validity",
        "values",
    )

    def __init__(self, arr: ArrowArray, layout: int) -> None:
        self.lent = False  # a result holds its buffers (Node.lent)
        self.layout = layout
        self.length = length = int(arr.length)
        self.offset = offset = int(arr.offset)
        if length < 0 or offset < 0:
            raise ValueError("malformed Arrow array: negative length or offset")
        n_buffers = int(arr.n_buffers)
        if (layout < 2 and n_buffers != 3) or (layout == 2 and n_buffers < 3):
            raise ValueError(f"malformed Arrow array: {n_buffers} buffers for its type")
        buffers = arr.buffers
        self.addresses = [buffers[i] for i in range(n_buffers)]
        end = offset + length
        self.validity: memoryview | None = None
        if buffers[0] and arr.null_count != 0:
            self.validity = _view(buffers[0], (end + 7) // 8)
        if layout < 2:
            width = 4 << layout
            self.values = _view(buffers[1], (end + 1) * width if length else 0)
            last = (
                int.from_bytes(self.values[end * width :], sys.byteorder, signed=True)
                if length
                else 0
            )
            if last < 0:
                raise ValueError("malformed Arrow array: a negative offset")
            self.data: memoryview | tuple[memoryview, ...] = _view(buffers[2], last)
        else:
            self.values = _view(buffers[1], 16 * end)
            count = n_buffers - 3
            sizes = _view(buffers[n_buffers - 1], 8 * count).cast("q") if count else []
            if any(size < 0 for size in sizes):
                raise ValueError("malformed Arrow array: a negative buffer size")
            self.data = tuple(_view(buffers[2 + i], sizes[i]) for i in range(count))
        null_count = int(arr.null_count)
        if null_count < 0:  # unknown: counted
            null_count = length - _set_bits(self.validity, offset, length) if self.validity else 0
        self.null_count = null_count if self.validity is not None else 0

    @classmethod
    def of(
        cls, layout: int, length: int, validity: bytes | None, values: bytes, data: bytes
    ) -> Chunk:
        """A chunk over buffers made here (offsets layouts, offset 0)."""
        chunk = cls.__new__(cls)
        chunk.lent = False
        chunk.layout, chunk.length, chunk.offset = layout, length, 0
        chunk.addresses = []
        chunk.validity = None if validity is None else memoryview(validity)
        chunk.values, chunk.data = memoryview(values), memoryview(data)
        chunk.null_count = null_count(validity, length)
        return chunk

    def value(self, row: int) -> memoryview:
        """Row ``row``'s bytes (whatever its validity)."""
        k = self.offset + row
        data = self.data
        if isinstance(data, memoryview):
            offsets = self.values.cast("i" if self.layout == 0 else "q")
            return _slice(data, offsets[k], offsets[k + 1], row)
        return _view_value(self.values, data, k, row)

    def is_null(self, row: int) -> bool:
        if self.validity is None:
            return False
        k = self.offset + row
        return not (self.validity[k >> 3] >> (k & 7)) & 1

    def validity_bits(self) -> bytes | None:
        """The validity bitmap from row 0 (a copy, shifted), or None when no row is null."""
        if self.validity is None or self.null_count == 0:
            return None
        return _shifted(self.validity, self.offset, self.length)


def _slice(data: memoryview, start: int, end: int, row: int) -> memoryview:
    if not 0 <= start <= end <= len(data):
        raise ValueError(f"malformed Arrow array: row {row}'s bytes are outside its buffer")
    return data[start:end]


def _shifted(bits: memoryview, offset: int, length: int) -> bytes:
    """``length`` bits of ``bits`` from bit ``offset``, as a bitmap from bit 0."""
    first = offset >> 3
    value = int.from_bytes(bits[first : (offset + length + 7) >> 3], "little") >> (offset & 7)
    value &= (1 << length) - 1
    return value.to_bytes((length + 7) // 8, "little")


def _set_bits(bits: memoryview, offset: int, length: int) -> int:
    return int.from_bytes(_shifted(bits, offset, length), "little").bit_count()


class Column:
    """A column read through the PyCapsule interface: its chunks (one for
    ``__arrow_c_array__``, each of the stream's for ``__arrow_c_stream__``, read one at
    a time and released once done with, so a long stream costs one chunk's memory), its
    layout, whether its type is a string type, and whether it came as a stream.  Close
    it (or use it as a context manager) to release what the producer lent."""

    def __init__(self, column: object, where: str) -> None:
        self.lent = False  # a result holds its buffers: closed when that result goes
        self._keep: list[object] = []
        self._owned: list[ArrowArray] = []
        self._array: ArrowArray | None = None
        self._stream: ArrowArrayStream | None = None
        array_method = getattr(type(column), "__arrow_c_array__", None)
        stream_method = getattr(type(column), "__arrow_c_stream__", None)
        if array_method is not None:
            pair = column.__arrow_c_array__()  # type: ignore[attr-defined]
            if type(pair) is not tuple or len(pair) != 2:
                raise TypeError("__arrow_c_array__() must return (schema, array) capsules")
            self._keep.append(pair)
            schema = ArrowSchema.from_address(_pointer_of(pair[0], _SCHEMA_NAME))
            self.layout, self.is_string = _layout(schema, where)
            self.streamed = False
            self._array = ArrowArray.from_address(_pointer_of(pair[1], _ARRAY_NAME))
        elif stream_method is not None:
            capsule = column.__arrow_c_stream__()  # type: ignore[attr-defined]
            self._keep.append(capsule)
            self.streamed = True
            stream = ArrowArrayStream.from_address(_pointer_of(capsule, _STREAM_NAME))
            schema = ArrowSchema()
            self._check(stream, stream.get_schema(ctypes.byref(stream), ctypes.byref(schema)))
            try:
                self.layout, self.is_string = _layout(schema, where)
            finally:
                if schema.release:
                    schema.release(ctypes.byref(schema))
            self._stream = stream
        else:
            raise TypeError(
                f"{where}() argument 'column' must be an Arrow array (an object with "
                f"__arrow_c_array__ or __arrow_c_stream__), not {type(column).__name__}"
            )

    def _chunk(self, arr: ArrowArray) -> Chunk:
        if not arr.release:
            raise ValueError("malformed Arrow array: it was released already")
        if arr.n_children != 0 or arr.dictionary:
            raise ValueError("malformed Arrow array: children in a binary array")
        return Chunk(arr, self.layout)

    def chunks(self) -> Iterator[Chunk]:
        """The chunks, in order: each valid until the next is asked for (a stream's is
        released then, unless a result lends its buffers: ``Node.lent``)."""
        if self._array is not None:
            yield self._chunk(self._array)
            return
        stream = self._stream
        while stream is not None:
            arr = ArrowArray()
            self._check(stream, stream.get_next(ctypes.byref(stream), ctypes.byref(arr)))
            if not arr.release:
                return  # the end of the stream
            chunk = self._chunk(arr)
            try:
                yield chunk
            finally:
                if chunk.lent:
                    self._owned.append(arr)
                elif arr.release:
                    arr.release(ctypes.byref(arr))

    @staticmethod
    def _check(stream: ArrowArrayStream, status: int) -> None:
        if status:
            message = stream.get_last_error(ctypes.byref(stream))
            text = ctypes.string_at(message).decode("utf-8", "replace") if message else ""
            raise ValueError(f"the Arrow stream failed (errno {status}): {text}")

    def close(self) -> None:
        self._array = self._stream = None
        for arr in self._owned:
            if arr.release:
                arr.release(ctypes.byref(arr))
        self._owned = []
        self._keep = []  # the producer's capsules release their arrays

    def __enter__(self) -> Column:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.lent:
            self.close()

    def __del__(self) -> None:
        self.close()


def _layout(schema: ArrowSchema, where: str) -> tuple[int, bool]:
    fmt = schema.format or b""
    if schema.dictionary or fmt not in LAYOUTS:
        kind = "dictionary-encoded" if schema.dictionary else repr(fmt.decode("ascii", "replace"))
        raise TypeError(
            f"{where}() argument 'column' must be of type binary, large_binary, "
            f"binary_view, string, large_string or string_view, not Arrow format {kind}"
        )
    return LAYOUTS[fmt]


def read_column(column: object, where: str) -> Column:
    """``column`` opened (the caller closes it); TypeError for anything but a binary or
    string Arrow column."""
    return Column(column, where)


# ---- the buffer walks (C: columns.c; these are the twins) --------------------------------


def _offsets(chunk_values: memoryview, layout: int) -> memoryview:
    return chunk_values.cast("i" if layout == 0 else "q")


def _check_offsets_py(
    values: memoryview,
    layout: int,
    offset: int,
    length: int,
    data: memoryview | tuple[memoryview, ...],
) -> memoryview:
    """The offsets of the rows, checked as columns.c's check_offsets does: monotonic,
    within the data buffer."""
    offsets = _offsets(values, layout)
    if length:
        if offsets[offset] < 0:
            raise ValueError("malformed Arrow array: offsets are negative")
        for row in range(length):
            if offsets[offset + row + 1] < offsets[offset + row]:
                raise ValueError(f"malformed Arrow array: row {row}'s offsets decrease")
        if offsets[offset + length] > len(data):
            raise ValueError(
                f"malformed Arrow array: row {length - 1}'s bytes are outside its buffer"
            )
    return offsets


def _row_value(
    layout: int,
    offsets: memoryview,
    values: memoryview,
    data: memoryview | tuple[memoryview, ...],
    k: int,
    row: int,
) -> memoryview:
    if isinstance(data, memoryview):
        return data[offsets[k] : offsets[k + 1]]
    return _view_value(values, data, k, row)


def column_check_py(
    layout: int,
    length: int,
    offset: int,
    validity: memoryview | None,
    values: memoryview,
    data: memoryview | tuple[memoryview, ...],
) -> tuple[bytes, list[int]]:
    """The reference of ``_speedups.column_check``: a bitmap with bit ``k`` set when row
    ``k`` is not null and well-formed UTF-8 (RFC 3629 §4), and the rows that are not null
    and ill-formed, in order.  ValueError for offsets that are not monotonic or bytes
    outside their buffer."""
    bits = bytearray((length + 7) // 8)
    bad: list[int] = []
    decode = codecs.utf_8_decode
    offsets = _check_offsets_py(values, layout, offset, length, data) if layout < 2 else values
    for row in range(length):
        k = offset + row
        value = _row_value(layout, offsets, values, data, k, row)
        if validity is not None and not (validity[k >> 3] >> (k & 7)) & 1:
            continue
        try:
            decode(value, "strict", True)
        except UnicodeDecodeError:
            bad.append(row)
        else:
            bits[row >> 3] |= 1 << (row & 7)
    return bytes(bits), bad


def _view_value(values: memoryview, data: tuple[memoryview, ...], k: int, row: int) -> memoryview:
    view = values[16 * k : 16 * k + 16]
    size, _, index, start = view.cast("i")
    if size < 0:
        raise ValueError(f"malformed Arrow array: row {row}'s bytes are outside its buffer")
    if size <= 12:
        return view[4 : 4 + size]
    if not 0 <= index < len(data) or start < 0:
        raise ValueError(f"malformed Arrow array: row {row}'s bytes are outside its buffer")
    return _slice(data[index], start, start + size, row)


def column_gather_py(
    layout: int,
    length: int,
    offset: int,
    validity: memoryview | None,
    values: memoryview,
    data: memoryview | tuple[memoryview, ...],
    rows: list[int],
    pieces: list[bytes | None],
    out_layout: int,
) -> tuple[bytes, bytes]:
    """The reference of ``_speedups.column_gather``: the rows' bytes as new buffers of
    ``out_layout`` (0: int32 offsets and data, 1: int64 offsets and data, 2: views and the
    data of the values longer than 12 bytes, in one buffer), row ``rows[i]`` (ascending)
    replaced by ``pieces[i]`` (None: no bytes), a null row empty.  OverflowError when
    int32 offsets would pass 2**31 - 1."""
    offsets = _check_offsets_py(values, layout, offset, length, data) if layout < 2 else values
    if any(b <= a for a, b in itertools.pairwise(rows)) or any(not 0 <= r < length for r in rows):
        raise ValueError("column_gather: rows must ascend within the column")
    replace = dict(zip(rows, pieces, strict=False))
    out: list[bytes | memoryview] = []
    for row in range(length):
        k = offset + row
        if row in replace:
            out.append(replace[row] or b"")
        elif validity is not None and not (validity[k >> 3] >> (k & 7)) & 1:
            out.append(b"")
        else:
            out.append(_row_value(layout, offsets, values, data, k, row))
    if out_layout == 2:
        views = bytearray()
        at = 0
        for piece in out:
            n = len(piece)
            if n <= 12:
                views += struct.pack("=i12s", n, bytes(piece))
            else:
                views += struct.pack("=i4sii", n, bytes(piece[:4]), 0, at)
                at += n
        return bytes(views), b"".join(p for p in out if len(p) > 12)
    joined = b"".join(out)
    if out_layout == 0 and len(joined) > 0x7FFFFFFF:
        raise OverflowError("the column's chunk would pass 2 GiB of data: read it as large_binary")
    ends = array("i" if out_layout == 0 else "q", itertools.accumulate(map(len, out), initial=0))
    return ends.tobytes(), joined


def column_translate_py(
    layout: int,
    length: int,
    offset: int,
    validity: memoryview | None,
    values: memoryview,
    data: memoryview | tuple[memoryview, ...],
    table: tuple[bytes, ...],
) -> tuple[bytes, bytes, list[int]]:
    """The reference of ``_speedups.column_translate``: each row that is not null and
    ASCII with every byte mapped to ``table[byte]``, as int64 offsets and data; the other
    rows that are not null left empty and listed."""
    offsets = _check_offsets_py(values, layout, offset, length, data) if layout < 2 else values
    out: list[bytes] = []
    rows: list[int] = []
    for row in range(length):
        k = offset + row
        if validity is not None and not (validity[k >> 3] >> (k & 7)) & 1:
            out.append(b"")
            continue
        value = bytes(_row_value(layout, offsets, values, data, k, row))
        if not value.isascii():
            rows.append(row)
            out.append(b"")
        else:
            out.append(b"".join(table[b] for b in value))
    ends = array("q", itertools.accumulate(map(len, out), initial=0))
    return ends.tobytes(), b"".join(out), rows


if speedups is not None:
    column_check: Callable[..., tuple[bytes, list[int]]] = speedups.column_check
    column_gather: Callable[..., tuple[bytes, bytes]] = speedups.column_gather
    column_translate: Callable[..., tuple[bytes, bytes, list[int]]] = speedups.column_translate
else:
    column_check = column_check_py
    column_gather = column_gather_py
    column_translate = column_translate_py


# ---- writing ---------------------------------------------------------------------------


class Node:
    """One array to export: its format, name, length, null count, buffers (bytes, or
    None for an absent validity bitmap) and children."""

    __slots__ = (
        "buffers",
        "children",
        "format",
        "length",
        "name",
        "null_count",
        "offset",
        "source",
    )

    def __init__(
        self,
        format: bytes,
        length: int,
        buffers: Sequence[bytes | None],
        null_count: int = 0,
        children: Sequence[Node] = (),
        name: bytes = b"",
    ) -> None:
        self.format = format
        self.length = length
        self.buffers: list[bytes | int | None] = list(buffers)
        self.null_count = null_count
        self.children = list(children)
        self.name = name
        self.offset = 0
        self.source: tuple[Column, Chunk] | None = None

    @classmethod
    def lent(cls, format: bytes, column: Column, chunk: Chunk) -> Node:
        """``chunk``'s own buffers under another format (binary read as string, once
        every value is proven well-formed): no copy; ``column`` stays open until the
        consumer releases the result."""
        node = cls(format, chunk.length, [], chunk.null_count)
        node.buffers = list(chunk.addresses)
        node.offset = chunk.offset
        node.source = (column, chunk)
        column.lent = chunk.lent = True
        return node

    def named(self, name: str) -> Node:
        self.name = name.encode()
        return self


def null_count(validity: bytes | None, length: int) -> int:
    if validity is None:
        return 0
    return length - (int.from_bytes(validity, "little") & ((1 << length) - 1)).bit_count()


def bool_node(values: bytes, length: int, validity: bytes | None = None) -> Node:
    return Node(b"b", length, [validity, values], null_count(validity, length))


def int_node(values: Sequence[int] | bytes, code: str, validity: bytes | None = None) -> Node:
    """int64 (``code`` "q") or int32 ("i") values; ``values`` as bytes already packed."""
    packed = values if isinstance(values, bytes) else array(code, values).tobytes()
    length = len(packed) // array(code).itemsize
    return Node(
        b"l" if code == "q" else b"i", length, [validity, packed], null_count(validity, length)
    )


def nullable_ints(values: Sequence[int | None], code: str) -> Node:
    """int32/int64 values with None as null."""
    bits = 0
    for i, v in enumerate(values):
        if v is not None:
            bits |= 1 << i
    length = len(values)
    validity = bits.to_bytes((length + 7) // 8, "little") if None in values else None
    return int_node([0 if v is None else v for v in values], code, validity)


def string_node(values: Sequence[str | bytes | None], binary: bool = False) -> Node:
    """A string (or binary) array of ``values``, None as null."""
    length = len(values)
    encoded = [
        b"" if v is None else v if isinstance(v, bytes) else v.encode("utf-8", "surrogatepass")
        for v in values
    ]
    data = b"".join(encoded)
    large = len(data) > 0x7FFFFFFF
    ends = array("q" if large else "i", itertools.accumulate(map(len, encoded), initial=0))
    validity = None
    if None in values:
        bits = sum(1 << i for i, v in enumerate(values) if v is not None)
        validity = bits.to_bytes((length + 7) // 8, "little")
    fmt = (b"Z" if large else b"z") if binary else (b"U" if large else b"u")
    return Node(fmt, length, [validity, ends.tobytes(), data], null_count(validity, length))


def struct_node(length: int, fields: Sequence[Node], validity: bytes | None = None) -> Node:
    return Node(b"+s", length, [validity], null_count(validity, length), fields)


def list_node(ends: bytes, child: Node, validity: bytes | None = None) -> Node:
    """A list array: row ``k`` is ``child[ends[k]:ends[k + 1]]`` (``ends``: int32, packed)."""
    length = len(ends) // 4 - 1
    item = child.named("item")
    return Node(b"+l", length, [validity, ends], null_count(validity, length), [item])


# What is lent to consumers: private_data -> what must stay alive until its release.
_LIVE: dict[int, tuple[object, ...]] = {}
_CAPSULE_STRUCTS: dict[int, Structure] = {}
_next_key = itertools.count(1)


def _fill_schema(node: Node, out: ArrowSchema) -> None:
    children = [ArrowSchema() for _ in node.children]
    for child, part in zip(node.children, children, strict=False):
        _fill_schema(child, part)
    pointers = (POINTER(ArrowSchema) * len(children))(*map(ctypes.pointer, children))
    key = next(_next_key)
    fmt, name = ctypes.c_char_p(node.format), ctypes.c_char_p(node.name)
    _LIVE[key] = (children, pointers, fmt, name, node.format, node.name)
    out.format = node.format
    out.name = node.name
    out.metadata = None
    out.flags = _FLAG_NULLABLE
    out.n_children = len(children)
    out.children = ctypes.cast(pointers, POINTER(POINTER(ArrowSchema)))
    out.dictionary = None
    out.private_data = key
    out.release = _release_schema


def _fill_array(node: Node, out: ArrowArray) -> None:
    children = [ArrowArray() for _ in node.children]
    for child, part in zip(node.children, children, strict=False):
        _fill_array(child, part)
    pointers = (POINTER(ArrowArray) * len(children))(*map(ctypes.pointer, children))
    buffers = (c_void_p * len(node.buffers))(
        *[
            b
            if b is None or isinstance(b, int)
            else ctypes.cast(ctypes.c_char_p(b), c_void_p).value
            for b in node.buffers
        ]
    )
    key = next(_next_key)
    _LIVE[key] = (children, pointers, buffers, node.buffers, node.source)
    out.length = node.length
    out.null_count = node.null_count
    out.offset = node.offset
    out.n_buffers = len(node.buffers)
    out.n_children = len(children)
    out.buffers = ctypes.cast(buffers, POINTER(c_void_p))
    out.children = ctypes.cast(pointers, POINTER(POINTER(ArrowArray)))
    out.dictionary = None
    out.private_data = key
    out.release = _release_array


def _release_schema_fn(pointer: ctypes._Pointer[ArrowSchema]) -> None:
    struct = pointer.contents
    for i in range(struct.n_children):
        child = struct.children[i].contents
        if child.release:
            child.release(struct.children[i])
    _LIVE.pop(struct.private_data or 0, None)
    struct.release = _SCHEMA_RELEASE()


def _release_array_fn(pointer: ctypes._Pointer[ArrowArray]) -> None:
    struct = pointer.contents
    for i in range(struct.n_children):
        child = struct.children[i].contents
        if child.release:
            child.release(struct.children[i])
    _LIVE.pop(struct.private_data or 0, None)
    struct.release = _ARRAY_RELEASE()


_release_schema = _SCHEMA_RELEASE(_release_schema_fn)
_release_array = _ARRAY_RELEASE(_release_array_fn)


def _destructor(name: bytes, kind: type[Structure]) -> Callable[[int], None]:
    def destroy(capsule: int) -> None:
        address = _capsule_pointer_raw(capsule, name)
        held: Any = _CAPSULE_STRUCTS.pop(address or 0, None)
        if held is not None and held.release:
            held.release(ctypes.byref(held))

    return destroy


_DESTRUCTOR = ctypes.CFUNCTYPE(None, c_void_p)
_destroy_schema = _DESTRUCTOR(_destructor(_SCHEMA_NAME, ArrowSchema))
_destroy_array = _DESTRUCTOR(_destructor(_ARRAY_NAME, ArrowArray))
_destroy_stream = _DESTRUCTOR(_destructor(_STREAM_NAME, ArrowArrayStream))


def _capsule(struct: Structure, name: bytes, destructor: Any) -> object:
    address = ctypes.addressof(struct)
    _CAPSULE_STRUCTS[address] = struct
    return _capsule_new(address, name, ctypes.cast(destructor, c_void_p))


def _schema_capsule(node: Node) -> object:
    schema = ArrowSchema()
    _fill_schema(node, schema)
    return _capsule(schema, _SCHEMA_NAME, _destroy_schema)


def _array_capsule(node: Node) -> object:
    arr = ArrowArray()
    _fill_array(node, arr)
    return _capsule(arr, _ARRAY_NAME, _destroy_array)


# streams: private_data -> [schema node, chunks, next index]
_STREAMS: dict[int, list[object]] = {}


def _get_schema_fn(
    stream: ctypes._Pointer[ArrowArrayStream], out: ctypes._Pointer[ArrowSchema]
) -> int:
    state = _STREAMS.get(stream.contents.private_data or 0)
    if state is None:
        return 22  # EINVAL
    _fill_schema(state[0], out.contents)  # type: ignore[arg-type]
    return 0


def _get_next_fn(
    stream: ctypes._Pointer[ArrowArrayStream], out: ctypes._Pointer[ArrowArray]
) -> int:
    state = _STREAMS.get(stream.contents.private_data or 0)
    if state is None:
        return 22
    chunks, index = state[1], state[2]
    assert isinstance(chunks, list) and isinstance(index, int)
    if index >= len(chunks):
        out.contents.release = _ARRAY_RELEASE()
        return 0
    state[2] = index + 1
    _fill_array(chunks[index], out.contents)
    return 0


def _get_last_error_fn(stream: ctypes._Pointer[ArrowArrayStream]) -> int | None:
    return None


def _release_stream_fn(stream: ctypes._Pointer[ArrowArrayStream]) -> None:
    _STREAMS.pop(stream.contents.private_data or 0, None)
    stream.contents.release = _STREAM_RELEASE()


_get_schema = _GET_SCHEMA(_get_schema_fn)
_get_next = _GET_NEXT(_get_next_fn)
_get_last_error = _GET_LAST_ERROR(_get_last_error_fn)
_release_stream = _STREAM_RELEASE(_release_stream_fn)


class ChunkedResult:
    """A result column of a chunked input: ``__arrow_c_stream__``, one chunk per chunk of
    the input, made here and lent without a copy.  ``to_pylist`` gives its values
    without pyarrow (for tests and small results)."""

    def __init__(self, chunks: list[Node], values: Callable[[], list[object]]) -> None:
        self._chunks = chunks
        self._values = values
        self.type_format = chunks[0].format.decode()

    def __len__(self) -> int:
        return sum(chunk.length for chunk in self._chunks)

    def to_pylist(self) -> list[object]:
        """The values as Python objects (None for null)."""
        return self._values()

    def __repr__(self) -> str:
        return (
            f"<sanitizer.columns.{type(self).__name__} of {len(self)} in "
            f"{len(self._chunks)} chunk(s), Arrow format {self.type_format!r}>"
        )

    def __arrow_c_schema__(self) -> object:
        return _schema_capsule(self._chunks[0])

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        stream = ArrowArrayStream()
        key = next(_next_key)
        _STREAMS[key] = [self._chunks[0], list(self._chunks), 0]
        stream.get_schema = _get_schema
        stream.get_next = _get_next
        stream.get_last_error = _get_last_error
        stream.release = _release_stream
        stream.private_data = key
        return _capsule(stream, _STREAM_NAME, _destroy_stream)


class Result(ChunkedResult):
    """A result column of one array: ``__arrow_c_array__`` (and ``__arrow_c_stream__``
    of one chunk)."""

    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[object, object]:
        node = self._chunks[0]
        return _schema_capsule(node), _array_capsule(node)


def node_values(nodes: list[Node]) -> list[object]:
    """The values of ``nodes`` (one column's chunks) as Python objects, None for null:
    bool, int, str, bytes, dict (struct) and list."""
    out: list[object] = []
    for node in nodes:
        out += _values_of(node)
    return out


def _values_of(node: Node) -> list[object]:
    fmt, length = node.format, node.length
    values: list[object]
    if node.source is not None:
        chunk = node.source[1]
        raw = [None if chunk.is_null(i) else bytes(chunk.value(i)) for i in range(length)]
        if fmt in (b"u", b"U", b"vu"):
            return [None if r is None else r.decode("utf-8") for r in raw]
        return list(raw)
    buffers = [b if isinstance(b, bytes) else b"" for b in node.buffers]
    if fmt == b"b":
        bits = int.from_bytes(buffers[1], "little")
        values = [bool((bits >> i) & 1) for i in range(length)]
    elif fmt in (b"l", b"i"):
        values = [v for v in array("q" if fmt == b"l" else "i", buffers[1])[:length]]
    elif fmt in (b"u", b"U", b"z", b"Z"):
        ends = array("i" if fmt in (b"u", b"z") else "q", buffers[1])
        data = buffers[2]
        pieces = [data[ends[i] : ends[i + 1]] for i in range(length)]
        values = [p.decode("utf-8") for p in pieces] if fmt in (b"u", b"U") else [*pieces]
    elif fmt in (b"vu", b"vz"):
        views = memoryview(buffers[1])
        datas = tuple(memoryview(b) for b in buffers[2:-1])
        pieces = [bytes(_view_value(views, datas, i, i)) for i in range(length)]
        values = [p.decode("utf-8") for p in pieces] if fmt == b"vu" else [*pieces]
    elif fmt == b"+s":
        columns = [(child.name.decode(), _values_of(child)) for child in node.children]
        values = [{name: vals[i] for name, vals in columns} for i in range(length)]
    elif fmt == b"+l":
        ends = array("i", buffers[1])
        items = _values_of(node.children[0])
        values = [items[ends[i] : ends[i + 1]] for i in range(length)]
    else:
        raise ValueError(f"no values for Arrow format {fmt!r}")
    if node.buffers[0] is not None:
        bits = int.from_bytes(buffers[0], "little")
        values = [v if (bits >> i) & 1 else None for i, v in enumerate(values)]
    return values


def make_result(
    chunks: list[Node], streamed: bool, values: Callable[[], list[object]]
) -> ChunkedResult:
    return (ChunkedResult if streamed else Result)(chunks, values)


def chunk_rows(column: Column) -> Iterator[tuple[int, Chunk]]:
    """Each chunk with the column row of its first row."""
    base = 0
    for chunk in column.chunks():
        yield base, chunk
        base += chunk.length
