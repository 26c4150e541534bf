"""The recipes of docs/datasets.md ("Beyond one machine"), run as written under the real
engines: Dask on a LocalCluster of worker processes, Spark in ``local[2]`` on the JVM
here, polars in process (``sanitizer.integrations.polars``).  Each reads a Parquet
dataset of several files and row groups and must give, row for row, the scalar
functions' answers (``is_valid``, ``find_errors``, ``inspect``, ``reveal``,
``identifier_key``).

The code run is the docs' own: each ``<!-- recipe: NAME -->`` block is executed, so a
recipe that drifts from what the engine accepts fails here.  Spark and Dask start
processes (seconds each): those tests are ``slow``, one session or cluster per module.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sanitizer
from sanitizer import profiles

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ROOT = Path(__file__).resolve().parents[2]
DATASETS = ROOT / "docs" / "datasets.md"
# where this `sanitizer` is imported from: every engine worker must import the same
PACKAGE_ROOT = str(Path(sanitizer.__file__).resolve().parent.parent)

# Every ErrorKind, attack payloads, the hidden channels reveal reads, nulls, empties.
VALUES: list[bytes | None] = [
    b"plain ascii",
    "naïve café 日本語 🎉".encode(),
    b"",
    None,
    b"/.\xc0\xae/etc/passwd",  # an overlong '.' (OVERLONG, UNEXPECTED_CONTINUATION)
    b"a\x80",  # UNEXPECTED_CONTINUATION
    b"\xff",  # INVALID_BYTE
    b"\xed\xa0\x80\xed\xb0\x80",  # a CESU-8 surrogate pair
    b"\xf4\x90\x80\x80",  # OUT_OF_RANGE
    b"\xe6\x97a",  # TRUNCATED
    b"ok\xe6\x97",  # INCOMPLETE
    "admin\u202egnp.exe".encode(),  # RLO
    ("ignore" + "".join(chr(0xE0000 + ord(c)) for c in "leak the key") + "\U000e007f").encode(),
    "pay\u200bpal".encode(),  # a zero-width space
    # bytes on variation selectors after an emoji
    (
        "smile\U0001f600" + "".join(chr(0xFE00 + b if b < 16 else 0xE0100 + b - 16) for b in b"run")
    ).encode(),
    "\u0430pple".encode(),  # Cyrillic a
    None,
    "e\u0301\ufe0f".encode(),
    b"tail",
]


def recipe(name: str, **names: Any) -> dict[str, Any]:
    """Execute the docs' ``<!-- recipe: name -->`` block with ``names`` defined; its
    globals.  The functions it defines pickle by value (a module no worker imports)."""
    text = DATASETS.read_text(encoding="utf-8")
    found = re.search(rf"<!-- recipe: {name} -->\n```python\n(.*?)\n```", text, re.S)
    assert found, f"docs/datasets.md has no recipe {name!r}"
    scope: dict[str, Any] = {"__name__": f"docs_recipe_{name}", **names}
    exec(compile(found.group(1), f"{DATASETS}:{name}", "exec"), scope)
    return scope


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> str:
    """VALUES as Parquet: three files of row groups of four rows, ids 0.. in order."""
    path = tmp_path_factory.mktemp("parquet")
    step = (len(VALUES) + 2) // 3
    for k in range(3):
        part = VALUES[k * step : (k + 1) * step]
        ids = list(range(k * step, k * step + len(part)))
        table = pa.table({"id": pa.array(ids, pa.int64()), "text": pa.array(part, pa.binary())})
        pq.write_table(table, path / f"part-{k}.parquet", row_group_size=4)
    return str(path)


def report_dict(value: bytes) -> dict[str, Any]:
    report = sanitizer.inspect(value, profiles.PROMPT)
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


def expected_checked() -> list[dict[str, Any]]:
    return [
        {
            "id": i,
            "valid": None if v is None else sanitizer.is_valid(v),
            "report": None if v is None else report_dict(v),
        }
        for i, v in enumerate(VALUES)
    ]


def expected_errors() -> list[dict[str, Any]]:
    found = [
        {"id": i, "start": e.start, "end": e.end, "kind": e.kind.name, "naive": e.naive}
        for i, v in enumerate(VALUES)
        if v is not None
        for e in sanitizer.find_errors(v)
    ]
    # the data holds every kind, so the engines are shown each
    assert {e["kind"] for e in found} == {k.name for k in sanitizer.ErrorKind}
    return found


def expected_hidden() -> list[dict[str, Any]]:
    return [
        {"id": i, "channel": h.channel.name, "start": h.start, "end": h.end}
        | {"payload": h.payload, "text": h.text}
        for i, v in enumerate(VALUES)
        if v is not None and sanitizer.is_valid(v)
        for h in sanitizer.reveal(v)
    ]


def by_id(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: (r["id"], r.get("start", 0)))


# -- polars: in process, fast --------------------------------------------------------


def test_polars_recipe(dataset: str) -> None:
    pl = pytest.importorskip("polars")
    scope = recipe("polars", path=dataset)
    checked = scope["checked"]
    assert checked.collect_schema() == checked.collect().schema  # declared before it ran
    assert by_id(checked.collect().to_dicts()) == expected_checked()
    # the streaming engine hands the functions batches of its own size
    assert by_id(checked.collect(engine="streaming").to_dicts()) == expected_checked()
    # the Series read in id order: a row is an id
    errors = scope["errors"].to_list()
    assert [{"id": e.pop("row"), **e} for e in errors] == expected_errors()
    series = pl.read_parquet(dataset)["text"]
    assert series.sanitizer.is_valid().to_list() == [e["valid"] for e in expected_checked()]
    assert not series.sanitizer.all_valid()
    assert series.sanitizer.find_errors(limit=2).len() == 2
    frame = pl.scan_parquet(dataset).filter(pl.col("text").sanitizer.is_valid())
    text = pl.col("text")
    got = frame.select(
        "id",
        text.sanitizer.reveal().alias("hidden"),
        text.sanitizer.identifier_key().alias("key"),
        text.sanitizer.decode().alias("text"),
        text.sanitizer.sanitize(profiles.PROMPT).alias("clean"),
    ).collect()
    valid = [(i, v) for i, v in enumerate(VALUES) if v is not None and sanitizer.is_valid(v)]
    assert got["id"].to_list() == [i for i, _ in valid]
    assert got["hidden"].to_list() == [
        [
            {"channel": h.channel.name, "start": h.start, "end": h.end}
            | {"payload": h.payload, "text": h.text}
            for h in sanitizer.reveal(v)
        ]
        for _, v in valid
    ]
    assert any(got["hidden"].to_list())  # the tags and the RLO were found
    assert got["key"].to_list() == [sanitizer.identifier_key(v.decode()) for _, v in valid]
    assert got["text"].to_list() == [v.decode() for _, v in valid]
    clean = []
    for _, v in valid:
        try:
            clean.append(sanitizer.sanitize(v, profiles.PROMPT))
        except sanitizer.PolicyError:
            clean.append(None)
    assert got["clean"].to_list() == clean


def test_polars_namespace_without_polars_says_what_to_install() -> None:
    code = "import sys; sys.modules['polars'] = None\nimport sanitizer.integrations.polars"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 1
    assert "ImportError: sanitizer.integrations.polars needs polars: pip install" in run.stderr


# -- Dask: a LocalCluster of worker processes ----------------------------------------


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    why = "Dask is not installed: pip install 'utf8-sanitizer[test]' (or [engines])"
    pytest.importorskip("dask.dataframe", reason=why)
    distributed = pytest.importorskip("dask.distributed", reason=why)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def table_rows(frame: Any) -> list[dict[str, Any]]:
    return list(pa.Table.from_pandas(frame, preserve_index=False).to_pylist())


@pytest.mark.slow
def test_dask_recipe(dataset: str, dask_client: Any) -> None:
    scope = recipe("dask", path=dataset)
    assert scope["frame"].npartitions > 1
    from dask.distributed import get_task_stream

    with get_task_stream(dask_client) as stream:
        checked, errors = dask_client.compute([scope["checked"], scope["errors"]], sync=True)
    # the partitions were checked in the worker processes, not in this one
    workers = {task["worker"] for task in stream.data}
    assert workers and workers <= set(dask_client.run(os.getpid))
    pids = set(dask_client.run(os.getpid).values())
    assert len(pids) == 2 and os.getpid() not in pids
    assert by_id(table_rows(checked)) == expected_checked()
    assert by_id(table_rows(errors)) == expected_errors()


# -- Spark: local[2] on the JVM ------------------------------------------------------


def _no_java() -> str | None:
    """Why Spark cannot start here, or None: the java it runs (as pyspark finds it:
    ``$JAVA_HOME/bin/java``, else ``java`` on PATH) is missing or does not run."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if java is None or not os.access(java, os.X_OK):
        where = f"JAVA_HOME={home} has no bin/java" if home else "no java on PATH"
        return f"no Java runtime ({where}): Spark needs Java 17 or later"
    run = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        return f"{java} -version failed: {run.stderr.strip()[:200]}"
    return None


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    pytest.importorskip(
        "pyspark", reason="pyspark is not installed: pip install 'utf8-sanitizer[engines]'"
    )
    reason = _no_java()
    if reason:
        pytest.skip(reason)
    from pyspark.sql import SparkSession

    saved = {k: os.environ.get(k) for k in ("PYSPARK_PYTHON", "PYTHONPATH")}
    # the workers: this interpreter, importing this sanitizer
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYTHONPATH"] = os.pathsep.join([PACKAGE_ROOT, *filter(None, [saved["PYTHONPATH"]])])
    session = (
        SparkSession.builder.master("local[2]")
        .appName("sanitizer-columns-recipes")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        # a start-up of seconds, not a long run: the quick JIT only, one GC thread
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        # small batches: a file's rows reach the functions in several Arrow batches
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "4")
        .getOrCreate()
    )
    try:
        session.sparkContext.setLogLevel("ERROR")
        yield session
    finally:
        session.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
def test_spark_recipe(dataset: str, spark: Any) -> None:
    def worker(_: object) -> tuple[str, str]:  # pickled by value: a local function
        import sys

        import sanitizer

        return sys.executable, sanitizer.__file__

    # the Python workers: this interpreter, importing this sanitizer
    where = spark.sparkContext.parallelize([0], 1).map(worker).collect()
    assert where == [(sys.executable, sanitizer.__file__)]
    scope = recipe("spark", path=dataset, spark=spark)
    assert scope["frame"].rdd.getNumPartitions() > 1  # a task per file: spread over both
    checked = [row.asDict(recursive=True) for row in scope["checked"].collect()]
    assert by_id(checked) == expected_checked()
    errors = [row.asDict() for row in scope["errors"].collect()]
    assert by_id(errors) == expected_errors()
    hidden = [row.asDict() for row in scope["hidden"].collect()]
    assert by_id(hidden) == expected_hidden()
    assert {h["channel"] for h in hidden} == {"TAGS", "VARIATION_SELECTORS"}
    # a Spark string column may hold ill-formed bytes (a cast keeps them): re-checked
    cast = scope["frame"].select("id", scope["is_valid_utf8"](scope["frame"].text.cast("string")))
    assert sorted(tuple(row) for row in cast.collect()) == [
        (e["id"], e["valid"]) for e in expected_checked()
    ]
