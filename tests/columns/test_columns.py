"""sanitizer.columns: every function over Arrow columns gives, value by value, exactly the
scalar function's answer, on both backends, for all six layouts, slices, chunks, nulls
over garbage bytes and values split mid-character; results go into pyarrow and polars.

Columns are built from raw buffers (``pyarrow.Array.from_buffers``), so a null slot can
hold ill-formed bytes and a string column can hold what no string may: the module must
not trust either.
"""

from __future__ import annotations

import gc
import itertools
import struct
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sanitizer
from sanitizer import _arrow, _machine, _native, columns, profiles
from sanitizer import _decoder as decoder
from sanitizer._errors import ErrorKind, Utf8Error
from tests.support.settings import examples

pa = pytest.importorskip("pyarrow")
pl = pytest.importorskip("polars")

TYPES = ["binary", "large_binary", "binary_view", "string", "large_string", "string_view"]


@pytest.fixture(params=["c", "python"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The column walks and the scalar decoder on one backend."""
    if request.param == "c":
        if _native.speedups is None:
            pytest.skip("the C extension is not in use")
    else:
        monkeypatch.setattr(_arrow, "column_check", _arrow.column_check_py)
        monkeypatch.setattr(_arrow, "column_gather", _arrow.column_gather_py)
        monkeypatch.setattr(decoder, "_runner", _machine)
        monkeypatch.setattr(decoder, "utf8_valid_prefix", _native.utf8_valid_prefix_py)
        monkeypatch.setattr(decoder, "decode", decoder.decode_py)
    yield request.param


def bitmap(flags: list[bool]) -> Any:
    bits = sum(1 << i for i, f in enumerate(flags) if f)
    return pa.py_buffer(bits.to_bytes((len(flags) + 8) // 8, "little"))


def make_column(values: list[bytes], nulls: list[bool], kind: str) -> Any:
    """An Arrow array of ``kind`` whose slots hold ``values`` (null slots too: the bytes
    stay under the null)."""
    n = len(values)
    validity = bitmap([not x for x in nulls]) if any(nulls) else None
    data = pa.py_buffer(b"".join(values))
    if kind.endswith("view"):
        views = b""
        at = 0
        for v in values:
            if len(v) <= 12:
                views += struct.pack("<i12s", len(v), v)
            else:
                views += struct.pack("<i4sii", len(v), v[:4], 0, at)
            at += len(v)
        typ = pa.binary_view() if kind == "binary_view" else pa.string_view()
        return pa.Array.from_buffers(typ, n, [validity, pa.py_buffer(views), data])
    ends = [0]
    for v in values:
        ends.append(ends[-1] + len(v))
    code = "<q" if kind.startswith("large") else "<i"
    offsets = pa.py_buffer(b"".join(struct.pack(code, e) for e in ends))
    typ = {
        "binary": pa.binary(),
        "large_binary": pa.large_binary(),
        "string": pa.string(),
        "large_string": pa.large_string(),
    }[kind]
    return pa.Array.from_buffers(typ, n, [validity, offsets, data])


PIECES = [
    b"a",
    b"\xc3\xa9",
    b"\xe6\x97\xa5",
    b"\xf0\x9f\x98\x80",
    b"\xc0\xaf",  # overlong
    b"\xe0\x80",
    b"\xed\xa0\x80",  # surrogate
    b"\xf4\x90\x80\x80",  # out of range
    b"\xf8\x88\x80\x80\x80",
    b"\xff",  # invalid byte
    b"\x80",  # unexpected continuation
    b"\xe6\x97",  # truncated / incomplete
    b"long ascii run of text",
    "a longer run of ünïcödé text ".encode(),
    b"\xe2\x80\xae",  # RLO
    "\U000e0041\U000e0042".encode(),  # tags
]


@st.composite
def raw_columns(draw: st.DrawFn) -> tuple[list[bytes], list[bool]]:
    """One byte stream cut at arbitrary points (values split mid-character), some of the
    values null over whatever bytes they hold."""
    stream = b"".join(draw(st.lists(st.sampled_from(PIECES), max_size=30)))
    cuts = sorted(draw(st.lists(st.integers(0, len(stream)), max_size=16)))
    bounds = [0, *cuts, len(stream)]
    values = [stream[a:b] for a, b in itertools.pairwise(bounds)]
    nulls = draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values)))
    return values, nulls


@st.composite
def arrow_columns(draw: st.DrawFn) -> tuple[Any, list[bytes | None]]:
    """(column, its values or None), sliced and chunked at random, of any of the six
    types."""
    values, nulls = draw(raw_columns())
    kind = draw(st.sampled_from(TYPES))
    arr = make_column(values, nulls, kind)
    expected: list[bytes | None] = [None if x else v for v, x in zip(values, nulls, strict=False)]
    start = draw(st.integers(0, len(values)))
    stop = draw(st.integers(start, len(values)))
    arr = arr.slice(start, stop - start)
    expected = expected[start:stop]
    if draw(st.booleans()):
        cuts = sorted(draw(st.lists(st.integers(0, len(arr)), max_size=3)))
        bounds = [0, *cuts, len(arr)]
        chunks = [arr.slice(a, b - a) for a, b in itertools.pairwise(bounds)]
        return pa.chunked_array(chunks, type=arr.type), expected
    return arr, expected


def to_list(result: Any) -> list[Any]:
    """A result's values through pyarrow (its own importer), and checked equal to
    ``to_pylist``."""
    if hasattr(result, "__arrow_c_array__"):
        got = pa.array(result).to_pylist()
    else:
        got = pa.chunked_array(result).to_pylist()
    assert got == result.to_pylist()
    return got


def scalar_errors(value: bytes) -> list[dict[str, Any]]:
    return [
        {"start": e.start, "end": e.end, "kind": e.kind.name, "naive": e.naive}
        for e in decoder.find_errors(value)
    ]


@given(arrow_columns())
@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_validity_matches_the_scalar_functions(backend: str, case: Any) -> None:
    col, expected = case
    assert to_list(columns.is_valid(col)) == [
        None if v is None else decoder.is_valid(v) for v in expected
    ]
    assert columns.all_valid(col) is all(v is None or decoder.is_valid(v) for v in expected)
    errors = [
        {"row": row, **e}
        for row, v in enumerate(expected)
        if v is not None
        for e in scalar_errors(v)
    ]
    assert to_list(columns.find_errors(col)) == errors
    assert to_list(columns.find_errors(col, limit=2)) == errors[:2]
    assert to_list(columns.decode(col, "replace")) == [
        None if v is None else v.decode("utf-8", "replace") for v in expected
    ]
    bad_rows = [row for row, v in enumerate(expected) if v is not None and not decoder.is_valid(v)]
    if bad_rows:
        with pytest.raises(Utf8Error) as info:
            columns.decode(col)
        assert info.value.row == bad_rows[0]  # type: ignore[attr-defined]
        assert f"row {bad_rows[0]}" in str(info.value)
        first = decoder.find_errors(expected[bad_rows[0]] or b"")[0]
        assert (info.value.start, info.value.end) == (first.start, first.end)
    else:
        assert to_list(columns.decode(col)) == [None if v is None else v.decode() for v in expected]


def walk_args(chunk: Any) -> tuple[Any, ...]:
    """The six leading arguments of every C walk over ``chunk`` (and of its twin)."""
    return (chunk.layout, chunk.length, chunk.offset, chunk.validity, chunk.values, chunk.data)


@given(raw_columns(), st.sampled_from(TYPES), st.integers(0, 9))
@settings(max_examples=60)
def test_c_walk_equals_its_twin(case: Any, kind: str, cut: int) -> None:
    if _native.speedups is None:
        pytest.skip("the C extension is not in use")
    values, nulls = case
    arr = make_column(values, nulls, kind)
    arr = arr.slice(min(cut, len(arr)))
    with _arrow.read_column(arr, "test") as col:
        for chunk in col.chunks():
            args = walk_args(chunk)
            assert _native.speedups.column_check(*args) == _arrow.column_check_py(*args)
            rows = list(range(0, chunk.length, 3))
            pieces = [None if i % 2 else b"x" * i for i in range(len(rows))]
            table = tuple(bytes([b]) * (b % 3) for b in range(128))
            assert _native.speedups.column_translate(*args, table) == (
                _arrow.column_translate_py(*args, table)
            )
            for out_layout in (0, 1, 2):
                assert _native.speedups.column_gather(*args, rows, pieces, out_layout) == (
                    _arrow.column_gather_py(*args, rows, pieces, out_layout)
                )


@given(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=12),
    st.lists(st.integers(0, 2**20), max_size=300),
    st.sampled_from(["string", "large_binary"]),
    st.integers(0, 3),
)
@settings(max_examples=examples(12), deadline=None)
def test_c_walk_equals_its_twin_across_stretches(
    pieces: list[bytes], cuts: list[int], kind: str, nulls_every: int
) -> None:
    """Columns of ~100 KiB: the C walk validates a stretch of many rows at a time and
    judges each row by its first byte; rows that start mid-character, empty rows and
    nulls at any place, in any stretch, get the answers the twin gives value by value."""
    if _native.speedups is None:
        pytest.skip("the C extension is not in use")
    unit = b"".join(pieces)
    stream = unit * (100_000 // len(unit) + 1)
    bounds = [0, *sorted(c % (len(stream) + 1) for c in cuts), len(stream)]
    values = [stream[a:b] for a, b in itertools.pairwise(bounds)]
    nulls = [bool(nulls_every) and i % (nulls_every + 1) == 0 for i in range(len(values))]
    arr = make_column(values, nulls, kind)
    with _arrow.read_column(arr, "test") as col:
        for chunk in col.chunks():
            args = walk_args(chunk)
            assert _native.speedups.column_check(*args) == _arrow.column_check_py(*args)


def test_every_error_kind(backend: str) -> None:
    samples = {
        ErrorKind.UNEXPECTED_CONTINUATION: b"a\x80",
        ErrorKind.INVALID_BYTE: b"\xff",
        ErrorKind.OVERLONG: b"\xc0\xaf",
        ErrorKind.SURROGATE: b"\xed\xa0\x80",
        ErrorKind.OUT_OF_RANGE: b"\xf4\x90\x80\x80",
        ErrorKind.TRUNCATED: b"\xe6\x97a",
        ErrorKind.INCOMPLETE: b"ok\xe6\x97",
    }
    for kind in TYPES:
        col = make_column(list(samples.values()), [False] * len(samples), kind)
        found = to_list(columns.find_errors(col))
        assert {e["kind"] for e in found} == {k.name for k in samples}
        assert found[2] == {"row": 2, "start": 0, "end": 1, "kind": "OVERLONG", "naive": 0x2F}


def test_value_split_mid_character_across_a_boundary(backend: str) -> None:
    # each half is ill-formed though the data buffer as a whole is valid UTF-8
    values = [b"caf\xc3", b"\xa9", "日本".encode()[:4], "日本".encode()[4:], b"", b"ok"]
    for kind in TYPES:
        col = make_column(values, [False] * 6, kind)
        assert to_list(columns.is_valid(col)) == [False, False, False, False, True, True]


def test_nulls_over_garbage_stay_null(backend: str) -> None:
    values = [b"\xc0\xaf", b"fine", b"\xff\xfe", "é".encode()]
    for kind in TYPES:
        col = make_column(values, [True, False, True, False], kind)
        assert to_list(columns.is_valid(col)) == [None, True, None, True]
        assert columns.all_valid(col)
        assert to_list(columns.find_errors(col)) == []
        out = columns.decode(col)
        assert to_list(out) == [None, "fine", None, "é"]
        assert pl.Series(out).to_list() == [None, "fine", None, "é"]  # polars reads it


def test_attack_payloads_are_reported_where_they_are(backend: str) -> None:
    # an overlong '.', overlong dots of a traversal, a CESU-8 surrogate pair
    values = [
        b"/.\xc0\xae/etc/passwd",
        b"/\xc0\xae\xc0\xae/etc",
        b"\xed\xa0\x80\xed\xb0\x80",
        b"ok",
    ]
    found = to_list(columns.find_errors(pa.array(values, pa.binary())))
    assert [(e["row"], e["start"], e["kind"], e["naive"]) for e in found][:3] == [
        (0, 2, "OVERLONG", ord(".")),
        (0, 3, "UNEXPECTED_CONTINUATION", None),
        (1, 1, "OVERLONG", ord(".")),
    ]
    assert {e["kind"] for e in found if e["row"] == 2} == {"SURROGATE", "UNEXPECTED_CONTINUATION"}
    assert found == [{"row": row, **e} for row, v in enumerate(values) for e in scalar_errors(v)]
    assert to_list(columns.decode(pa.array(values, pa.binary()), "replace")) == [
        v.decode("utf-8", "replace") for v in values
    ]


def test_polars_columns_and_results(backend: str) -> None:
    series = pl.Series("s", ["plain", "ünï", None, ""])
    assert to_list(columns.is_valid(series)) == [True, True, None, True]
    binary = pl.Series("b", [b"ok", b"\xc0\xaf", None], dtype=pl.Binary)
    result = columns.is_valid(binary)
    assert pl.Series(result).to_list() == [True, False, None]
    assert pl.Series(columns.find_errors(binary)).to_list() == [
        {"row": 1, "start": 0, "end": 1, "kind": "OVERLONG", "naive": 0x2F},
        {"row": 1, "start": 1, "end": 2, "kind": "UNEXPECTED_CONTINUATION", "naive": None},
    ]
    assert pl.Series(columns.decode(binary, "replace")).to_list() == ["ok", "\ufffd\ufffd", None]


def test_chunks_are_preserved(backend: str) -> None:
    a = pa.array([b"a", b"\xff"], pa.binary())
    chunked = pa.chunked_array([a, a.slice(1), pa.array([], pa.binary())])
    result = columns.is_valid(chunked)
    assert not hasattr(result, "__arrow_c_array__")
    got = pa.chunked_array(result)
    assert [len(c) for c in got.chunks] == [2, 1, 0]
    assert got.to_pylist() == [True, False, False]
    errors = pa.chunked_array(columns.find_errors(chunked))
    assert [len(c) for c in errors.chunks] == [1, 1, 0]
    assert [e["row"] for e in errors.to_pylist()] == [1, 2]  # rows counted across chunks


def test_results_are_not_copied_on_import() -> None:
    a = pa.array(["x" * 100] * 1000)
    result = columns.decode(a)
    imported = pa.array(result)
    assert imported.buffers()[2].address == a.buffers()[2].address  # the input's own data
    assert imported.to_pylist() == a.to_pylist()
    flags = columns.is_valid(a)
    address = flags._chunks[0].buffers[1]
    imported = pa.array(flags)
    assert imported.buffers()[1].to_pybytes() == address
    del result, imported, flags
    gc.collect()


def test_released_results_free_what_they_held() -> None:
    gc.collect()
    before = len(_arrow._LIVE), len(_arrow._CAPSULE_STRUCTS), len(_arrow._STREAMS)
    a = pa.array([b"x", b"\xff", None])
    for _ in range(3):
        pa.array(columns.is_valid(a)).to_pylist()
        pa.chunked_array(columns.find_errors(pa.chunked_array([a, a]))).to_pylist()
        columns.decode(a, "replace").__arrow_c_array__()  # capsules never consumed
        pl.Series(columns.is_valid(a)).to_list()
    gc.collect()
    assert (len(_arrow._LIVE), len(_arrow._CAPSULE_STRUCTS), len(_arrow._STREAMS)) == before


@pytest.mark.parametrize("bad", [None, 42, "text", pa.array([1, 2]) if pa else None])
def test_wrong_input_is_a_clear_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match="is_valid\\(\\) argument 'column'"):
        columns.is_valid(bad)


def test_dictionary_column_is_refused() -> None:
    with pytest.raises(TypeError, match="dictionary"):
        columns.is_valid(pa.array(["a", "b", "a"]).dictionary_encode())


def test_bad_arguments() -> None:
    a = pa.array([b"x"])
    with pytest.raises(ValueError, match="errors"):
        columns.decode(a, "ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="limit"):
        columns.find_errors(a, limit=-1)


def test_malformed_offsets_are_refused_not_read(backend: str) -> None:
    offsets = pa.py_buffer(struct.pack("<4i", 0, 5, 2, 6))  # decreasing
    arr = pa.Array.from_buffers(pa.binary(), 3, [None, offsets, pa.py_buffer(b"abcdef")])
    with pytest.raises(ValueError, match="malformed Arrow array"):
        columns.is_valid(arr)
    views = struct.pack("<i4sii", 40, b"abcd", 0, 0)  # past its buffer's end
    arr = pa.Array.from_buffers(
        pa.binary_view(), 1, [None, pa.py_buffer(views), pa.py_buffer(b"abcd" * 4)]
    )
    with pytest.raises(ValueError, match="malformed Arrow array"):
        columns.is_valid(arr)


def test_no_copy_of_a_64_mib_column(backend: str) -> None:
    if backend == "python":
        pytest.skip("the twin reads value by value: its cost is time, not memory")
    value = ("héllo wörld " * 6).encode()
    n = (64 << 20) // len(value)
    data = pa.py_buffer(value * n)
    offsets = pa.py_buffer(struct.pack(f"<{n + 1}i", *range(0, (n + 1) * len(value), len(value))))
    arr = pa.Array.from_buffers(pa.binary(), n, [None, offsets, data])
    tracemalloc.start()
    try:
        assert columns.all_valid(arr)
        flags = columns.is_valid(arr)
        assert len(columns.find_errors(arr)) == 0
        text = columns.decode(arr)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20  # the result bitmap (n bits) and bookkeeping, no copy
    assert len(flags) == len(text) == n


# -- the policy layer's functions ---------------------------------------------------------

POLICY_PIECES = [
    *PIECES,
    "\u202eevil\u202c".encode(),  # bidi controls
    "\u200b\u200c\u200d\u2060".encode(),  # invisibles (zero-width bits)
    "\ufe00\ufe01\U000e0100".encode(),  # variation selectors
    "pаypal".encode(),  # Cyrillic а
    "e\u0301\u0301\u0301\u0301\u0301".encode(),  # stacked marks
    b"Admin_User",
    "\U000e0001\U000e0068\U000e0069\U000e007f".encode(),  # tag payload 'hi'
    # characters whose verdict depends on a neighbour (sequence rules), at value ends
    "\u200d".encode(),
    "\U0001f469".encode(),
    "\ufe0f".encode(),
    "\u20e3".encode(),
    "\U0001f3fb".encode(),
    "\u0301".encode(),
    b"1",
]


@st.composite
def policy_columns(draw: st.DrawFn, well_formed: bool = False) -> tuple[Any, list[bytes | None]]:
    values = draw(st.lists(st.lists(st.sampled_from(POLICY_PIECES), max_size=4), max_size=12))
    raw = [b"".join(v) for v in values]
    if well_formed:
        raw = [v.decode("utf-8", "replace").encode() for v in raw]
    nulls = draw(
        st.just([False] * len(raw))  # no nulls: the chunk is scanned joined first
        | st.lists(st.booleans(), min_size=len(raw), max_size=len(raw))
    )
    kind = draw(st.sampled_from(TYPES))
    arr = make_column(raw, nulls, kind)
    expected = [None if x else v for v, x in zip(raw, nulls, strict=True)]
    start = draw(st.integers(0, len(raw)))
    arr, expected = arr.slice(start), expected[start:]
    if draw(st.booleans()) and len(arr) > 1:
        return pa.chunked_array([arr.slice(0, 1), arr.slice(1)], type=arr.type), expected
    return arr, expected


def report_dict(value: bytes, policy: Any) -> dict[str, Any]:
    report = sanitizer.inspect(value, policy)
    return {
        "ok": report.ok,
        "text": report.text,
        "findings": [
            {
                "category": f.category.name,
                "start": f.start,
                "end": f.end,
                "action": f.action.name,
                "detail": f.detail,
            }
            for f in report.findings
        ],
    }


@pytest.fixture(params=["c", "scalar only"])
def policy_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """With the C marking of clean rows, or every row asked of the scalar function."""
    if request.param == "c" and _native.speedups is None:
        pytest.skip("the C extension is not in use")
    if request.param != "c":
        monkeypatch.setattr(columns, "speedups", None)
    return str(request.param)


POLICIES = ["TEXT", "PROMPT", "IDENTIFIER", "SINGLE_LINE", "FILENAME", "SOURCE"]


@given(policy_columns(), st.sampled_from(POLICIES))
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_inspect_and_sanitize_match_the_scalar_functions(
    policy_backend: str, case: Any, name: str
) -> None:
    col, expected = case
    policy = getattr(profiles, name)
    assert to_list(columns.inspect(col, policy)) == [
        None if v is None else report_dict(v, policy) for v in expected
    ]

    def sanitized(value: bytes) -> str | None:
        try:
            return sanitizer.sanitize(value, policy)
        except sanitizer.PolicyError:
            return None

    assert to_list(columns.sanitize(col, policy)) == [
        None if v is None else sanitized(v) for v in expected
    ]


@given(policy_columns(well_formed=True))
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_reveal_and_identifier_key_match_the_scalar_functions(
    policy_backend: str, case: Any
) -> None:
    col, expected = case
    assert to_list(columns.reveal(col)) == [
        None
        if v is None
        else [
            {
                "channel": h.channel.name,
                "start": h.start,
                "end": h.end,
                "payload": h.payload,
                "text": h.text,
            }
            for h in sanitizer.reveal(v)
        ]
        for v in expected
    ]
    assert to_list(columns.identifier_key(col)) == [
        None if v is None else sanitizer.identifier_key(v.decode()) for v in expected
    ]


def test_ill_formed_values_in_reveal_and_identifier_key_name_the_row() -> None:
    col = pa.array([b"fine", None, b"x\xc0\xafy"], pa.binary())
    for fn in (columns.reveal, columns.identifier_key):
        with pytest.raises(Utf8Error, match="row 2") as info:
            fn(col)
        assert info.value.row == 2  # type: ignore[attr-defined]
    assert to_list(columns.inspect(col))[2]["findings"][0]["category"] == "ILL_FORMED"


def test_policy_argument_is_checked() -> None:
    with pytest.raises(TypeError, match="inspect\\(\\) argument 'policy'"):
        columns.inspect(pa.array(["x"]), "TEXT")  # type: ignore[arg-type]


def test_policy_results_go_to_polars() -> None:
    col = pl.Series(["ok", "a\u202eb", None])
    got = pl.Series(columns.inspect(col)).to_list()
    assert got[0] == {"ok": True, "text": "ok", "findings": []}
    assert got[1]["ok"] is False and got[1]["findings"][0]["category"] == "BIDI_CONTROL"
    assert got[2] is None
    assert pl.Series(columns.sanitize(col)).to_list() == ["ok", None, None]


@pytest.mark.parametrize("kind", TYPES)
@pytest.mark.parametrize(
    "values",
    [["👩\u200d", "👩", "a"], ["👩", "\u200d👩"], ["x\ufe0f", "\ufe0f"], ["ok", "fine"]],
)
def test_sequences_across_value_boundaries_are_judged_per_value(
    policy_backend: str, kind: str, values: list[str]
) -> None:
    # joined, "👩 ZWJ" + "👩" is a clean emoji sequence; alone, each ZWJ is a finding
    col = make_column([v.encode() for v in values], [False] * len(values), kind)
    for name in POLICIES:
        policy = getattr(profiles, name)
        assert to_list(columns.inspect(col, policy)) == [
            report_dict(v.encode(), policy) for v in values
        ]


def test_a_stream_is_read_one_chunk_at_a_time() -> None:
    # a stream of this library's own results: each chunk it hands out is released (its
    # entry leaves _arrow._LIVE) before the next one is asked for
    source = columns.decode(pa.chunked_array([pa.array([b"x" * 50, b"\xff"])] * 6), "replace")
    live: list[int] = []
    checked = _arrow.column_check

    def counting(*args: Any) -> Any:
        live.append(len(_arrow._LIVE))
        return checked(*args)

    gc.collect()
    base = len(_arrow._LIVE)
    try:
        _arrow.column_check = counting
        result = columns.is_valid(source)
    finally:
        _arrow.column_check = checked
    assert len(live) == 6 and max(live) <= base + 1  # one chunk lent at a time
    assert pa.chunked_array(result).to_pylist() == [True, True] * 6


def _key_column_cases() -> list[str]:
    """Every code point the C keyer does not copy as it is (identifier_key's per-character
    map, every mark, the odd ones), alone and between a base and marks of other classes
    with U+0307 (so canonical ordering and the hidden dot both act)."""
    from sanitizer._lookalike import _lookups
    from sanitizer._lookalike.key import column_tables

    tables = column_tables()
    assert tables is not None
    special = {ord(c) for c in tables[1][0] + tables[3][0] + _lookups.combining_map().sources}
    return [s for cp in sorted(special) for s in (chr(cp), f"i{chr(cp)}\u0307\u0316A")]


def test_identifier_key_column_equals_the_scalar_for_every_special_character() -> None:
    if _native.speedups is None:
        pytest.skip("the C extension is not in use")
    values = _key_column_cases()
    got = to_list(columns.identifier_key(pa.array(values, pa.string())))
    assert got == [sanitizer.identifier_key(v) for v in values]


KEY_PIECES = [
    *'aIm%"0İijıßſﬁΩǄ①ｶ\u0307\u0301\u0316\u0323\u0345\u0344\u0f73\u0f71\u0f72한东\U0001d400',
    *"\u00ad\u200dÄọ\u0e48",
    "\u1100\u1161",
]


@given(
    st.lists(st.lists(st.sampled_from(KEY_PIECES), max_size=8).map("".join), max_size=12),
    st.sampled_from(["string", "large_string", "string_view"]),
)
@settings(max_examples=40)
def test_identifier_key_column_equals_the_scalar_on_mixed_marks(
    values: list[str], kind: str
) -> None:
    """The C keyer's one ordering at the end, its hidden dots and its odd marks (U+0345,
    which N maps to a starter) against the scalar function's NFKD, map and NFD."""
    if _native.speedups is None:
        pytest.skip("the C extension is not in use")
    col = make_column([v.encode() for v in values], [False] * len(values), kind)
    assert to_list(columns.identifier_key(col)) == [sanitizer.identifier_key(v) for v in values]
