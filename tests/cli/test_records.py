"""``sanitizer check`` and ``sanitizer reveal`` on records files: JSON Lines read as
``json.loads`` reads them, Parquet and Arrow cells as bytes, one record at a time."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer.cli._mode_jsonl import lines
from sanitizer.cli._records import printable
from tests.support.cli_runner import child_env, run_cli

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "tests/data/sarif/sarif-schema-2.1.0.json").read_text())

TAGS = "hi \U000e0049\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065"  # 'Ignore'
RECORDS = [
    {"text": TAGS},
    {"a": ["x\u202ey", {"k": "lone \ud800"}]},
    {"\u202ekey": "v"},
]


def jsonl(tmp_path: Path, lines: list[str], name: str = "d.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines), encoding="ascii")
    return path


def records(*args: str | Path) -> tuple[int, list[dict[str, Any]]]:
    code, out, _ = run_cli("check", "--format", "json", *args, text=True)
    return code, [json.loads(line) for line in out.split("\n")[:-1]]  # NEL, LS: no ends


def findings(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (r.get("line", r.get("row")), r.get("pointer", r.get("field")), r["rule"])
        for r in rows
        if "rule" in r
    ]


@pytest.mark.slow  # child processes reading pyarrow: seconds on a loaded machine
def test_json_dumps_escapes_are_read_as_the_consumer_reads_them(tmp_path: Path) -> None:
    path = jsonl(tmp_path, [json.dumps(r) for r in RECORDS])  # ensure_ascii: all escaped
    assert path.read_bytes().isascii()
    code, rows = records("--policy", "PROMPT", path)
    assert code == 1
    assert findings(rows) == [
        (1, "/text", "hidden-payload"),
        (2, "/a/0", "bidi-control"),
        (2, "/a/1/k", "surrogate"),
        (3, "/\u202ekey", "bidi-control"),
    ]
    assert [r.get("key", False) for r in rows if "rule" in r] == [False, False, False, True]
    # without a policy the lone surrogate is still ill-formed once written as UTF-8
    code, rows = records(path)
    assert (code, findings(rows)) == (1, [(2, "/a/1/k", "surrogate")])


def test_one_bad_record_hides_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "d.ndjson"
    path.write_bytes(
        b'{"a": "\xc0\xae"}\n{not json\n\n' + json.dumps({"b": ["\u202e"]}).encode() + b"\n"
    )
    code, rows = records("--policy", "TEXT", path)
    assert code == 1
    assert findings(rows) == [
        (1, None, "overlong"),
        (2, "", "not-json"),
        (4, "/b/0", "bidi-control"),
    ]
    assert [r["column"] for r in rows if r.get("rule") == "overlong"] == [8]


def test_every_string_of_every_line_is_read(tmp_path: Path) -> None:
    path = tmp_path / "edge.jsonl"
    lines = [
        '{"a/b": {"c~d": "\\u202e"}}',  # RFC 6901 escapes in the pointer
        '{"dup": "\\u202e", "dup": "ok"}',  # json.loads keeps the last; both are judged
        "[" * 100000 + "]" * 100000,  # too deep for json.loads
        '{"n": ' + "9" * 5000 + "}",  # an integer json.loads refuses
        '{"crlf": "\\u200b"}\r',
        "   ",  # blank: no record
        '"\\udb40\\udc41\\udb40\\udc42"',  # a string record, no final newline
    ]
    path.write_text("\n".join(lines), encoding="ascii")
    code, rows = records("--policy", "PROMPT", path)
    assert code == 1
    assert findings(rows) == [
        (1, "/a~1b/c~0d", "bidi-control"),
        (2, "/dup", "bidi-control"),
        (3, "", "not-json"),
        (4, "", "not-json"),
        (5, "/crlf", "invisible"),
        (7, "", "hidden-payload"),
    ]
    # the same from stdin, named by --records; --jobs gives the same output
    code, out, _ = run_cli("check", "--policy", "PROMPT", "--records", "jsonl", "-",
                           stdin=path.read_bytes(), text=True)  # fmt: skip
    assert len(out.splitlines()) == 6 + 4  # the findings and a line a field
    _, in_workers = records("--policy", "PROMPT", "--jobs", "2", path, path)
    assert findings(in_workers) == findings(rows) * 2


def test_a_line_over_the_cap_is_a_finding(tmp_path: Path) -> None:
    path = jsonl(tmp_path, [json.dumps({"a": "x" * 5000}), json.dumps({"b": "\u202e"})])
    code, rows = records("--policy", "TEXT", "--max-bytes", "1000", path)
    assert code == 1
    assert findings(rows) == [(1, "", "too-long"), (2, "/b", "bidi-control")]


def table(tmp_path: Path, name: str) -> Path:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.feather
    import pyarrow.parquet

    offsets = pa.py_buffer(bytes([0, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 8, 0, 0, 0]))
    text = pa.Array.from_buffers(  # a "string" column holding C0 AE: pyarrow keeps it
        pa.string(), 3, [None, offsets, pa.py_buffer(b"ok\xc0\xaeA\xe2\x80\xae")]
    )
    t = pa.table(
        {
            "text": text,
            "n": [1, 2, 3],
            "tags": [["a", "b\U000e0041\U000e0042"], [], None],
            "s": [{"x": "y\u202e"}, None, {"x": "z"}],
        }
    )
    path = tmp_path / name
    if name.endswith(".parquet"):
        pyarrow.parquet.write_table(t, path, row_group_size=2)
    else:
        pyarrow.feather.write_feather(t, path)
    return path


@pytest.mark.slow  # child processes reading pyarrow: seconds on a loaded machine
@pytest.mark.parametrize("name", ["d.parquet", "d.feather"])
def test_tables_are_judged_cell_by_cell(tmp_path: Path, name: str) -> None:
    path = table(tmp_path, name)
    code, rows = records(path)
    assert (code, findings(rows)) == (1, [(1, "text", "overlong")])
    code, rows = records("--policy", "PROMPT", path)
    assert code == 1
    assert sorted(findings(rows)) == [
        (0, "s.x", "bidi-control"),
        (0, "tags[]", "hidden-payload"),
        (1, "text", "overlong"),
        (2, "text", "bidi-control"),
    ]
    fields = {r["field"]: r["findings"] for r in rows if "values" in r}
    assert fields == {"text": 2, "tags[]": 1, "s.x": 1}
    code, _, err = run_cli("check", "--progress", "always", path, text=True)
    assert code == 1 and "\r[#" in err  # the bar, forced though stderr is no terminal


@pytest.mark.slow  # child processes reading pyarrow: seconds on a loaded machine
@pytest.mark.slow  # child processes reading pyarrow: seconds on a loaded machine
def test_nested_and_typed_columns(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.ipc

    t = pa.table(
        {
            "sv": pa.array(["a\u202e", "ok"], pa.string_view()),
            "bv": pa.array([b"ok", b"\xed\xa0\x80"], pa.binary_view()),
            "ls": pa.array(["\U000e0041\U000e0042", None], pa.large_string()),
            "dict": pa.array(["ok", "\u202e"]).dictionary_encode(),
            "m": pa.array([[("k\u202e", "v")], []], pa.map_(pa.string(), pa.string())),
            "fixed": pa.array([b"\xc0\xae", b"ab"], pa.binary(2)),
        }
    )
    stream = tmp_path / "t.arrows"
    with pyarrow.ipc.new_stream(stream, t.schema) as writer:
        writer.write_table(t)
    expected = [
        (0, "sv", "bidi-control"),
        (1, "bv", "surrogate"),
        (0, "ls", "hidden-payload"),
        (1, "dict", "bidi-control"),
        (0, "m.key", "bidi-control"),
        (0, "fixed", "overlong"),
    ]
    for args in ((stream,), ("--records", "arrow", "-")):
        proc = run_cli("check", "--policy", "PROMPT", "--format", "json", *args,
                       stdin=stream.read_bytes(), text=True)  # fmt: skip
        rows = [json.loads(line) for line in proc.stdout.splitlines()]
        assert proc.returncode == 1
        assert findings(rows) == expected


def test_sarif_of_records_is_valid(tmp_path: Path) -> None:
    files = [jsonl(tmp_path, [json.dumps(r) for r in RECORDS]), table(tmp_path, "d.parquet")]
    names = [f.name for f in files]
    code, out, _ = run_cli(
        "check", "--policy", "PROMPT", "--format", "sarif", *names, cwd=tmp_path, text=True
    )
    log = json.loads(out)
    jsonschema.Draft7Validator(SCHEMA).validate(log)
    results = log["runs"][0]["results"]
    assert code == 1 and len(results) == 8
    assert all(loc["logicalLocations"] for r in results for loc in r["locations"])
    fields = log["runs"][0]["properties"]["fields"]
    assert {(f["uri"], f["field"], f["findings"]) for f in fields} >= {
        ("d.jsonl", "text", 1),
        ("d.parquet", "text", 2),
    }


@pytest.mark.slow  # child processes reading pyarrow: seconds on a loaded machine
def test_reveal_reads_records(tmp_path: Path) -> None:
    path = jsonl(tmp_path, [json.dumps(r) for r in RECORDS])
    code, out, err = run_cli("reveal", path, text=True)
    assert out.splitlines() == [f"{path}:1:/text:4: tags  6 tag characters spelling 'Ignore'"]
    assert code == 2 and "/a/1/k: not UTF-8" in err  # the lone surrogate, said
    code, out, _ = run_cli("reveal", table(tmp_path, "d.feather"), text=True)
    assert "d.feather:0:tags[]:2: tags  2 tag characters spelling 'AB'" in out


@pytest.mark.slow  # child processes: seconds on a loaded machine
def test_without_pyarrow_one_line_names_the_extra(tmp_path: Path) -> None:
    path = table(tmp_path, "d.parquet")
    script = (
        "import sys; sys.modules['pyarrow'] = None\n"
        "from sanitizer.cli import main\n"
        f"sys.exit(main(['check', {str(path)!r}]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=child_env(), check=False
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "pip install 'utf8-sanitizer[parquet]'" in proc.stderr.splitlines()[0]
    # found in a folder, it is what it was before: a binary file, skipped (--verbose says so)
    folder = f"'--verbose', {str(tmp_path)!r}"
    proc = subprocess.run(
        [sys.executable, "-c", script.replace(repr(str(path)), folder)],
        capture_output=True,
        text=True,
        env=child_env(),
        check=False,
    )
    assert (proc.returncode, proc.stdout.split(": ")[1]) == (0, "skipped")


@given(
    st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=8),
    st.booleans(),
    st.integers(0, 50),
    st.integers(1, 30),
)
def test_lines_are_cut_as_split_cuts_them_within_the_cap(
    parts: list[bytes], final_newline: bool, cut: int, cap: int
) -> None:
    """``_mode_jsonl.lines`` over any chunking: the lines of ``bytes.split``, a line
    longer than the cap given as None (never held), sizes and offsets exact."""
    data = b"\n".join(parts) + (b"\n" if final_newline and parts else b"")
    stream = io.BytesIO(data[cut:])
    got = list(lines(stream, data[:cut], cap))
    expected = []
    offset = 0
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    for number, piece in enumerate(pieces, 1):
        size = len(piece) + (offset + len(piece) < len(data))
        expected.append((number, offset, piece if len(piece) <= cap else None, size))
        offset += size
    assert got == expected


NASTY = ["\ud800", "\udc41", "\U000e0041", "\u202e", "\u200d", "a", "~", "/", "\\", '"']


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.text() | st.lists(st.sampled_from(NASTY)).map("".join),  # type: ignore[operator]
        max_size=3,
    ),
    st.booleans(),
)
def test_each_string_gets_the_scalar_findings(
    tmp_path_factory: pytest.TempPathFactory, values: list[str], ensure_ascii: bool
) -> None:
    """Any strings (lone surrogates too), escaped or raw: a record's findings are
    ``inspect``'s on each string as ``json.loads`` reads it, key and value alike."""
    from sanitizer import profiles
    from sanitizer._policy import inspect
    from sanitizer.cli import main

    path = tmp_path_factory.mktemp("p") / "v.jsonl"
    record = {f"k{i}{v}": v for i, v in enumerate(values)}
    text = json.dumps(record, ensure_ascii=ensure_ascii)
    try:  # raw (ensure_ascii=False), a lone surrogate is no UTF-8: the line is ill-formed
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = json.dumps(record).encode("ascii")  # escaped, as json.dumps writes it
    path.write_bytes(data + b"\n")
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["check", "--policy", "PROMPT", "--format", "json", "--limit", "0", str(path)])
    got = sorted(
        (r["pointer"], r.get("key", False), r["start"], r["end"])
        for r in map(json.loads, raw.getvalue().decode().split("\n")[:-1])
        if r.get("rule") not in (None, "surrogate")
    )
    expected = []
    for name, value in json.loads(
        data
    ).items():  # as the consumer reads them: "\\ud800\\udc41" is one
        at = printable("/" + name.replace("~", "~0").replace("/", "~1"))
        for text, key in ((name, True), (value, False)):
            data = text.encode("utf-8", "surrogatepass")
            found = inspect(data, profiles.PROMPT).findings
            expected += [
                (at, key, f.start, f.end) for f in found if f.category.value != "ill-formed"
            ]
    assert got == sorted(expected)
