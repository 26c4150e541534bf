"""Unit tests of the campaign runner: libFuzzer output parsing, commands, reports, and the
worker loop driven by a fake libFuzzer (no atheris needed, a few seconds in all).

The parsers are tested against output captured from atheris 3.0.0 runs, so a change in
libFuzzer's format shows up here rather than as a silently frozen progress line.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from sanitizer._fuzzing import campaign, libfuzzer, replay
from sanitizer._fuzzing import seeds as seed_table
from sanitizer._fuzzing.campaign import CampaignConfig, UsageError
from sanitizer._fuzzing.candidate import CANDIDATE_ENV
from sanitizer._fuzzing.layout import Layout, detect_layout, fuzzer_command, shim_source, write_shim
from sanitizer._fuzzing.libfuzzer import (
    Artifact,
    CrashStart,
    Done,
    FinalStat,
    PythonException,
    RunStats,
    Status,
    extract_failure,
    parse_line,
    parse_size,
)
from sanitizer._fuzzing.progress import Progress, human_count
from sanitizer._fuzzing.results import (
    NOT_REPRODUCED,
    FuzzFinding,
    TargetResult,
    format_duration,
    format_report,
    format_summary,
    format_table,
)

# Captured from `python fuzz_x.py corp -max_total_time=20 -artifact_prefix=art/
# -print_final_stats=1` with atheris 3.0.0 (stdout and stderr merged).
CRASH_LOG = """\
INFO: Using built-in libfuzzer
WARNING: Failed to find function "__sanitizer_acquire_crash_state".
INFO: Running with entropic power schedule (0xFF, 100).
INFO: Seed: 683223028
INFO:        0 files found in corp
INFO: -max_len is not provided; libFuzzer will not generate inputs larger than 4096 bytes
INFO: A corpus is not provided, starting from an empty corpus
#2\tINITED cov: 2 ft: 2 corp: 1/1b exec/s: 0 rss: 40Mb
#36\tNEW    cov: 4 ft: 4 corp: 2/5b lim: 4 exec/s: 0 rss: 40Mb L: 4/4 MS: 4 CopyPart-InsertByte-
#2743\tREDUCE cov: 6 ft: 6 corp: 3/11b lim: 29 exec/s: 0 rss: 40Mb L: 6/6 MS: 1 EraseBytes-
#16384\tpulse  cov: 8 ft: 9 corp: 4/13b lim: 163 exec/s: 8192 rss: 40Mb

 === Uncaught Python exception: ===
Divergence: candidate decode accepts ill-formed UTF-8
  input (3 bytes): ED A0 80
  strict : raises UnicodeDecodeError: invalid continuation byte [start=0, end=1]
  decode : '\\ud800'
Traceback (most recent call last):
  File "/work/main/fuzz/fuzz_decode.py", line 36, in TestOneInput
    check_decode(data, _CANDIDATE)
Divergence: candidate decode accepts ill-formed UTF-8

==4942== ERROR: libFuzzer: fuzz target exited
SUMMARY: libFuzzer: fuzz target exited
MS: 1 InsertByte-; base unit: e2b14aadfb935c825be17c1b951cdb58b2f38e19
0xed,0xa0,0x80,
\\355\\240\\200
artifact_prefix='art/'; Test unit written to art/crash-456362760c19dc4a3166041bb0fa38ac036d69d1
Base64: 7aCA
stat::number_of_executed_units: 22059
stat::average_exec_per_sec:     0
stat::new_units_added:          9
stat::slowest_unit_time_sec:    0
stat::peak_rss_mb:              40
"""

CLEAN_LOG = """\
#2\tINITED cov: 105 ft: 105 corp: 1/1b exec/s: 0 rss: 43Mb
#4096\tpulse  cov: 326 ft: 837 corp: 98/452b lim: 8 exec/s: 1365 rss: 43Mb
#9686\tDONE   cov: 334 ft: 1007 corp: 147/1234Kb lim: 17 exec/s: 880 rss: 43Mb
Done 9686 runs in 11 second(s)
stat::number_of_executed_units: 9686
stat::average_exec_per_sec:     880
"""


# -- parsing ----------------------------------------------------------------------------


def test_parse_status_new() -> None:
    line = "#1234\tNEW    cov: 56 ft: 78 corp: 9/100b lim: 4 exec/s: 2000 rss: 40Mb L: 4/4"
    assert parse_line(line) == Status(
        execs=1234,
        kind="NEW",
        cov=56,
        ft=78,
        corpus_units=9,
        corpus_bytes=100,
        exec_per_sec=2000,
    )


def test_parse_status_without_coverage() -> None:
    # An uninstrumented target prints no cov/ft fields.
    event = parse_line("#4194304\tpulse  corp: 1/1b lim: 4096 exec/s: 1398101 rss: 42Mb")
    assert isinstance(event, Status)
    assert (event.kind, event.execs, event.cov, event.exec_per_sec) == (
        "pulse",
        4194304,
        None,
        1398101,
    )


@pytest.mark.parametrize(
    ("text", "size"),
    [("100b", 100), ("45Kb", 45 * 1024), ("3Mb", 3 << 20), ("1.5Kb", 1536)],
)
def test_parse_size(text: str, size: int) -> None:
    assert parse_size(text) == size


def test_parse_size_rejects_garbage() -> None:
    with pytest.raises(ValueError):
        parse_size("lots")


@pytest.mark.parametrize(
    ("line", "event"),
    [
        ("==4942== ERROR: libFuzzer: fuzz target exited", CrashStart("fuzz target exited")),
        ("==77== ERROR: libFuzzer: deadly signal", CrashStart("deadly signal")),
        (
            "==9== ERROR: libFuzzer: timeout after 25 seconds",
            CrashStart("timeout after 25 seconds"),
        ),
        (" === Uncaught Python exception: ===", PythonException()),
        (
            "artifact_prefix='a/'; Test unit written to a/crash-0123abcd",
            Artifact("a/crash-0123abcd"),
        ),
        ("stat::number_of_executed_units: 22059", FinalStat("number_of_executed_units", 22059)),
        ("stat::average_exec_per_sec:     880", FinalStat("average_exec_per_sec", 880)),
        ("Done 13767957 runs in 11 second(s)", Done(13767957, 11)),
        ("INFO: Seed: 683223028", None),
        ("MS: 1 InsertByte-; base unit: e2b14aadfb935c825be17c1b951cdb58b2f38e19", None),
        ("", None),
    ],
)
def test_parse_other_lines(line: str, event: object) -> None:
    assert parse_line(line) == event


def test_run_stats_crash_log() -> None:
    run = RunStats(started=0.0)
    for line in CRASH_LOG.splitlines(keepends=True):
        run.feed(line, 1.0)
    assert run.inited
    assert (run.execs, run.final_execs, run.total_execs) == (16384, 22059, 22059)
    assert (run.cov, run.ft, run.corpus_units, run.corpus_bytes) == (8, 9, 4, 13)
    assert run.exec_per_sec == 8192
    assert run.crash_reason == "fuzz target exited"
    assert run.artifacts == ["art/crash-456362760c19dc4a3166041bb0fa38ac036d69d1"]


def test_run_stats_clean_log() -> None:
    run = RunStats(started=0.0)
    for line in CLEAN_LOG.splitlines():
        run.feed(line, 2.0)
    assert run.total_execs == 9686
    assert run.corpus_bytes == 1234 * 1024
    assert run.crash_reason is None and run.artifacts == []


def test_run_stats_estimate_extrapolates() -> None:
    run = RunStats(started=0.0)
    run.feed("#1000\tpulse  cov: 1 ft: 1 corp: 1/1b exec/s: 500 rss: 1Mb", 2.0)
    assert run.estimate(4.0) == 2000  # 1000 + 500/s * 2 s
    run.feed("stat::number_of_executed_units: 1800", 5.0)
    assert run.estimate(10.0) == 1800


def test_extract_failure_python_exception() -> None:
    text = extract_failure(CRASH_LOG.splitlines())
    assert text.startswith("Divergence: candidate decode accepts ill-formed UTF-8")
    assert "input (3 bytes): ED A0 80" in text
    assert "Traceback" in text
    assert "ERROR: libFuzzer" not in text
    assert libfuzzer.headline(text) == "Divergence: candidate decode accepts ill-formed UTF-8"


def test_extract_failure_native_crash() -> None:
    log = [
        "#5\tNEW cov: 1 ft: 1 corp: 1/1b exec/s: 0 rss: 1Mb",
        "==12== ERROR: libFuzzer: deadly signal",
        "    #0 0x4f5 in __sanitizer_print_stack_trace",
        "SUMMARY: libFuzzer: deadly signal",
        "artifact_prefix='./'; Test unit written to ./crash-00",
    ]
    text = extract_failure(log)
    assert text.splitlines()[0] == "==12== ERROR: libFuzzer: deadly signal"
    assert "Test unit written" not in text


def test_extract_failure_none() -> None:
    assert extract_failure(CLEAN_LOG.splitlines()) == ""


# -- commands -----------------------------------------------------------------------------


def _source_tree(tmp_path: Path) -> Layout:
    (tmp_path / "fuzz").mkdir(parents=True)
    (tmp_path / "fuzz" / "fuzz_decode.py").write_text("print('x')\n")
    (tmp_path / "corpus" / "decode").mkdir(parents=True)
    (tmp_path / "corpus" / "utf8.dict").write_text('"\\xC0\\xAE"\n')
    (tmp_path / "sanitizer").mkdir()
    layout = detect_layout(tmp_path / "sanitizer")
    assert layout.source_root == tmp_path
    return layout


def test_fuzzer_command_source_tree(tmp_path: Path) -> None:
    layout = _source_tree(tmp_path)
    assert fuzzer_command("decode", layout, "py") == [
        "py",
        str(tmp_path / "fuzz" / "fuzz_decode.py"),
    ]
    # the dictionary is package data, wherever the scripts are
    assert layout.dictionary("decode") == Path(libfuzzer.__file__).with_name("utf8.dict")
    # No script for this target in the tree: fall back to the in-package entry.
    assert fuzzer_command("policy", layout, "py") == [
        "py",
        "-m",
        "sanitizer.fuzzing",
        "policy",
    ]


def test_fuzzer_command_installed(tmp_path: Path) -> None:
    (tmp_path / "site" / "sanitizer").mkdir(parents=True)
    layout = detect_layout(tmp_path / "site" / "sanitizer")
    assert layout.source_root is None
    assert layout.script("decode") is None
    assert layout.dictionary("web") == Path(libfuzzer.__file__).with_name("utf8.dict")
    assert fuzzer_command("identifiers", layout, "py") == [
        "py",
        "-m",
        "sanitizer.fuzzing",
        "identifiers",
    ]


def test_shim_sources_compile(tmp_path: Path) -> None:
    layout = _source_tree(tmp_path)
    script_shim = shim_source("decode", layout, "/opt/py/bin/python")
    assert script_shim.startswith("#!/opt/py/bin/python\n")
    assert str(tmp_path / "fuzz" / "fuzz_decode.py") in script_shim
    compile(script_shim, "shim", "exec")
    module_shim = shim_source("policy", Layout(None), "/opt/py/bin/python")
    assert "run_module('sanitizer.fuzzing'" in module_shim and "'policy'" in module_shim
    compile(module_shim, "shim", "exec")
    path = write_shim(tmp_path, "decode", layout, "/opt/py/bin/python")
    assert os.access(path, os.X_OK)


def test_worker_command(tmp_path: Path) -> None:
    cmd = libfuzzer.worker_command(
        ["py", "fuzz_decode.py"],
        max_time=29.7,
        artifacts=tmp_path / "art",
        corpus_dirs=[tmp_path / "new", tmp_path / "corpus"],
        dictionary=tmp_path / "utf8.dict",
        extra=["-max_len=64"],
    )
    assert cmd == [
        "py",
        "fuzz_decode.py",
        "-max_total_time=29",
        f"-artifact_prefix={tmp_path / 'art'}{os.sep}",
        "-print_final_stats=1",
        f"-dict={tmp_path / 'utf8.dict'}",
        "-timeout=10",  # libFuzzer's own default is 1200 s: a hang would spin
        "-max_len=64",
        str(tmp_path / "new"),
        str(tmp_path / "corpus"),
    ]
    # Never -max_total_time=0 (which means "no limit" to libFuzzer).
    short = libfuzzer.worker_command(["py"], max_time=0.4, artifacts=tmp_path, corpus_dirs=[])
    assert "-max_total_time=1" in short and not any(c.startswith("-dict") for c in short)
    assert "-max_len=256" in short and "-timeout=10" in short
    long = libfuzzer.worker_command(
        ["py"],
        max_time=5,
        artifacts=tmp_path,
        corpus_dirs=[],
        max_len=4096,
        timeout=3,
        extra=["-timeout=7"],
    )
    assert "-max_len=4096" in long and "-timeout=3" not in long and "-timeout=7" in long


def test_max_len_schedule_reaches_long_inputs() -> None:
    lens = {libfuzzer.scheduled_max_len(w, 0) for w in range(4)}
    assert lens == {libfuzzer.DEFAULT_MAX_LEN, libfuzzer.LONG_MAX_LEN}
    assert libfuzzer.scheduled_max_len(0, 1) == libfuzzer.LONG_MAX_LEN  # restarts alternate
    assert libfuzzer.LONG_MAX_LEN > 1024  # past the first block boundary of BLOCK_SIZES


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("==123== ERROR: libFuzzer: deadly signal", "==98765== ERROR: libFuzzer: deadly signal"),
        ("==1== ERROR: libFuzzer: timeout after 4 seconds", "==2== ERROR: libFuzzer: timeout"),
    ],
)
def test_headline_groups_without_pid_or_seconds(first: str, second: str) -> None:
    assert libfuzzer.headline(first) == libfuzzer.headline(second)
    assert "==" not in libfuzzer.headline(first)


def test_minimize_merge_reproduce_commands(tmp_path: Path) -> None:
    shim = tmp_path / "fuzz_decode"
    art = tmp_path / "crash-ab"
    assert libfuzzer.minimize_command(
        shim, art, tmp_path / "crash-ab.min", runs=10, max_time=5
    ) == [
        str(shim),
        "-minimize_crash=1",
        "-runs=10",
        "-max_total_time=5",
        f"-exact_artifact_path={tmp_path / 'crash-ab.min'}",
        str(art),
    ]
    assert libfuzzer.merge_command(shim, tmp_path / "c", [tmp_path / "n0"], tmp_path / "x") == [
        str(shim),
        "-merge=1",
        f"-artifact_prefix={tmp_path / 'x'}{os.sep}",
        str(tmp_path / "c"),
        str(tmp_path / "n0"),
    ]
    here = Path.cwd()
    repro = libfuzzer.reproduce_command(["python", "/f/fuzz_decode.py"], Path("a b"), "m:f", ["."])
    assert repro == (
        f"SANITIZER_FUZZ_CANDIDATE=m:f PYTHONPATH={here} python /f/fuzz_decode.py '{here}/a b'"
    )  # from any folder: the input and the candidate's folder by absolute paths
    assert libfuzzer.reproduce_command(["python"], Path("/x"), None) == "python /x"


# -- results ------------------------------------------------------------------------------


def test_format_duration() -> None:
    assert format_duration(5.04) == "5.0s"
    assert format_duration(125) == "2m05s"
    assert format_duration(3725) == "1h02m05s"


def test_format_table_is_markdown() -> None:
    table = format_table(["a", "bb"], [["1", "22222"]])
    assert table.splitlines() == ["| a | bb    |", "|---|-------|", "| 1 | 22222 |"]


def test_format_summary(tmp_path: Path) -> None:
    finding = FuzzFinding(
        "decode",
        tmp_path / "crash-ab",
        minimized=tmp_path / "crash-ab.min",
        report=tmp_path / "crash-ab.txt",
        failure="Divergence: candidate decode accepts ill-formed UTF-8\n  input",
        size=7,
        minimized_size=3,
        duplicates=[tmp_path / "duplicates" / "crash-cd"],
    )
    results = [
        TargetResult("decode", 2, 20.0, 40_000, 335, 958, 10, 42, findings=[finding]),
        TargetResult("policy", 2, 20.0, 1_000, 3, 4, 5, 5),
    ]
    text = format_summary(results, cwd=tmp_path)
    lines = text.splitlines()
    assert [c.strip() for c in lines[0].split("|")[1:-1]] == [
        "target",
        "jobs",
        "time",
        "execs",
        "exec/s",
        "cov",
        "ft",
        "corpus",
        "findings",
        "first finding",
    ]
    assert (
        "| decode | 2    | 20.0s | 40,000 | 2,000  | 335 | 958 | 10 -> 42 | 1 (+1 dup) |"
        in (lines[2])
    )
    assert "finding (decode): Divergence: candidate decode accepts ill-formed UTF-8" in text
    assert "minimized: crash-ab.min (3 bytes)" in text
    assert "report:    crash-ab.txt" in text
    assert lines[-1] == "1 finding(s)"
    clean = format_summary(results[1:], cwd=tmp_path)
    assert clean.splitlines()[-1].startswith("no findings")


def test_format_report(tmp_path: Path) -> None:
    # The headline is the original input's failure; the minimized input's failure is the
    # one shown as the reproduce command prints it, the original's below.
    finding = FuzzFinding(
        "decode",
        tmp_path / "crash-ab",
        minimized=tmp_path / "crash-ab.min",
        failure="Divergence: x differs\n  input (5 bytes): 41 42 ED A0 80",
        minimized_failure="Divergence: x differs\n  input (3 bytes): ED A0 80",
    )
    text = format_report(
        finding,
        data=b"\xed\xa0\x80",
        original=b"AB\xed\xa0\x80",
        candidate="examples.my_decoder:decode",
        reproduce="python fuzz/fuzz_decode.py crash-ab.min",
    )
    assert text.splitlines()[1] == "failure:   Divergence: x differs"
    assert "input hex (3 bytes): ED A0 80" in text
    assert "original hex (5 bytes): 41 42 ED A0 80" in text
    assert "candidate: examples.my_decoder:decode" in text
    assert "--- reproduce ---\npython fuzz/fuzz_decode.py crash-ab.min" in text
    assert "as printed by the fuzz target) ---\nDivergence: x differs\n  input (3 bytes)" in text
    assert "failure of the original (unminimized) input ---\nDivergence: x differs\n  input (5" in (
        text
    )


def test_config_validation(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="unknown target 'nope'"):
        CampaignConfig(targets=["nope"]).validate()
    with pytest.raises(UsageError, match="corpus directory not found"):
        CampaignConfig(targets=["decode"], corpus=tmp_path / "missing").validate()
    with pytest.raises(UsageError, match="only applies to the decode"):
        CampaignConfig(targets=["policy"], candidate="m:f").validate()
    with pytest.raises(UsageError, match="--jobs"):
        CampaignConfig(targets=["decode"], jobs=0).validate()
    with pytest.raises(UsageError, match="--max-time"):
        CampaignConfig(targets=["decode"], max_time=0).validate()
    CampaignConfig(targets=["decode"], corpus=tmp_path, candidate="m:f").validate()


# -- progress -----------------------------------------------------------------------------


def test_progress_plain_lines_are_periodic() -> None:
    now = [0.0]
    out = io.StringIO()
    progress = Progress(out, interactive=False, interval=10, clock=lambda: now[0])
    for t in (0.0, 1.0, 9.0, 10.5, 12.0, 21.0):
        now[0] = t
        progress.update(f"t={t}")
    progress.note("finding!")
    progress.update("final", force=True)
    progress.close()
    assert out.getvalue().splitlines() == ["t=0.0", "t=10.5", "t=21.0", "finding!", "final"]


def test_progress_tty_rewrites_one_line() -> None:
    now = [0.0]
    out = io.StringIO()
    progress = Progress(out, interactive=True, min_redraw=0, clock=lambda: now[0])
    progress.update("one")
    progress.update("two")
    progress.note("note")
    progress.close()
    assert out.getvalue() == "\r\x1b[2Kone\r\x1b[2Ktwo\r\x1b[2Knote\ntwo\n"


def test_progress_disabled_and_counts() -> None:
    out = io.StringIO()
    progress = Progress(out, interactive=True, enabled=False)
    progress.update("x")
    progress.note("y")
    progress.close()
    assert out.getvalue() == ""
    assert [human_count(n) for n in (5, 1234, 2_500_000, 3e9)] == ["5", "1.23k", "2.5M", "3G"]


# -- the worker loop, against a fake libFuzzer ---------------------------------------------

FAKE_FUZZER = textwrap.dedent(
    '''\
    """Speaks enough libFuzzer for the runner: fuzzing, replay, minimize, merge."""
    import hashlib, os, shutil, sys, time
    args = sys.argv[1:]
    flags = dict(a[1:].split("=", 1) for a in args if a.startswith("-") and "=" in a)
    paths = [a for a in args if not a.startswith("-")]
    mode = os.environ.get("FAKE_MODE", "clean")
    BUG = b"\\xed\\xa0\\x80XYZ"

    def fail(data):
        print(" === Uncaught Python exception: ===")
        if os.environ.get("FAKE_SHORTER_FAILS_OTHERWISE") and len(data) < len(BUG):
            print("Divergence: candidate decode reports the wrong error offsets (offsets only)")
        else:
            print("Divergence: candidate decode accepts ill-formed UTF-8: encoded surrogate")
        print("  input (%d bytes): %s" % (len(data), data.hex(" ").upper()), flush=True)
        print("==1== ERROR: libFuzzer: fuzz target exited", file=sys.stderr, flush=True)

    if flags.get("merge") == "1":
        dest, *srcs = paths
        for src in srcs:
            for name in os.listdir(src):
                shutil.copy(os.path.join(src, name), os.path.join(dest, name))
        print("MERGE-OUTER: 1 new files with 1 new features added")
        sys.exit(0)
    if flags.get("minimize_crash") == "1":
        if os.environ.get("FAKE_MINIMIZE") == "hang":
            time.sleep(3600)
        with open(paths[0], "rb") as f:
            data = f.read()
        with open(flags["exact_artifact_path"], "wb") as f:
            f.write(data[:3])
        sys.exit(0)
    if paths and os.path.isfile(paths[0]):
        with open(paths[0], "rb") as f:
            data = f.read()
        if data == b"DIE":
            os._exit(0)
        if data.startswith(BUG[:3]) and mode != "flaky":
            fail(data)
            sys.exit(1)
        print("Executed %s in 0 ms" % paths[0])
        sys.exit(0)
    err = sys.stderr
    if mode == "blind":  # fuzzes, but nothing it runs is instrumented
        print("#2\\tINITED cov: 0 ft: 0 corp: 1/1b exec/s: 0 rss: 40Mb", file=err, flush=True)
        print("Done 500 runs in 1 second(s)", file=err)
        sys.exit(0)
    print("#2\\tINITED cov: 10 ft: 12 corp: 1/1b exec/s: 0 rss: 40Mb", file=err, flush=True)
    if mode == "few":  # its seeds, then 8 inputs of its own: start-up ate the budget
        print("Done 10 runs in 0 second(s)", file=err)
        print("stat::number_of_executed_units: 10", file=err)
        sys.exit(0)
    with open(os.path.join(paths[0], "0" * 40), "wb") as f:
        f.write(b"new unit")
    print("#100\\tNEW    cov: 11 ft: 13 corp: 2/9b exec/s: 100 rss: 40Mb", file=err, flush=True)
    if mode in ("crash", "flaky"):
        prefix = flags["artifact_prefix"]
        path = prefix + "crash-" + hashlib.sha1(BUG).hexdigest()
        with open(path, "wb") as f:
            f.write(BUG)
        fail(BUG)
        print("artifact_prefix='%s'; Test unit written to %s" % (prefix, path), file=err)
        print("stat::number_of_executed_units: 150", file=err)
        sys.exit(1)
    if mode == "die":  # os._exit in the middle of an input: only the breadcrumb knows it
        from sanitizer._fuzzing import breadcrumb
        breadcrumb.from_env().record(b"DIE")
        os._exit(0)
    if mode == "hang":  # deaf to SIGTERM, in its own session: only SIGKILL ends it
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        while True:
            time.sleep(0.1)
    if mode == "slow":  # 3 executions in its whole run (the test's clock skips its time)
        print("Done 3 runs in 6 second(s)", file=err)
        print("stat::number_of_executed_units: 3", file=err)
        sys.exit(0)
    print("#500\\tDONE   cov: 11 ft: 13 corp: 2/9b exec/s: 500 rss: 40Mb", file=err)
    print("Done 500 runs in 1 second(s)", file=err)
    print("stat::number_of_executed_units: 500", file=err)
    '''
)


@pytest.fixture
def fake_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    layout = _source_tree(tmp_path / "src")
    (tmp_path / "src" / "fuzz" / "fuzz_decode.py").write_text(FAKE_FUZZER)
    monkeypatch.chdir(tmp_path)
    return layout


class SkippingClock:
    """A campaign's clock (``CampaignConfig.clock``): real time plus the seconds the test
    skipped, so that a campaign can spend its budget without the test waiting for it."""

    def __init__(self) -> None:
        self.skipped = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.skipped

    def skip_to(self, when: float) -> None:
        self.skipped += max(0.0, when - self())


def _workers_end_after_a_restart(monkeypatch: pytest.MonkeyPatch, clock: SkippingClock) -> None:
    """Once a worker has been restarted, ``clock`` skips to just before the workers' end
    (less than the second a worker needs to start is left): no worker starts again, and
    minimizing and merging keep the rest of the budget, in real seconds."""
    real_on_closed = campaign._TargetCampaign._on_closed

    def on_closed(self: Any, key: Any, minimizer: Any) -> None:
        real_on_closed(self, key, minimizer)
        if self.restarts:
            clock.skip_to(self.workers_end - campaign.WORKER_STARTUP - 0.5)

    monkeypatch.setattr(campaign._TargetCampaign, "_on_closed", on_closed)


def _config(layout: Layout, tmp_path: Path, **kw: object) -> CampaignConfig:
    base: dict[str, object] = {
        "targets": ["decode"],
        "max_time": 5.0,
        "jobs": 2,
        "artifacts": tmp_path / "art",
        "state_dir": tmp_path / "state",
        "layout": layout,
        "python": sys.executable,
        "minimize_time": 5,
    }
    base.update(kw)
    return CampaignConfig(**base)  # type: ignore[arg-type]


def test_campaign_clean(fake_tree: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_MODE", "clean")
    out = io.StringIO()
    results = campaign.run_campaign(
        _config(fake_tree, tmp_path), Progress(out, interactive=False, interval=0)
    )
    (result,) = results
    assert result.findings == [] and result.errors == []
    assert result.execs == 1000  # 2 workers x 500
    assert (result.cov, result.ft) == (11, 13)
    working = tmp_path / "state" / "corpus" / "decode" / "sanitizer"  # no candidate
    assert result.corpus_dir == working
    seeds = seed_table.files("decode")
    assert result.corpus_before == len(seeds)  # the package's seeds, copied in
    assert sorted(p.name for p in working.iterdir()) == sorted([*seeds, "0" * 40])
    assert result.corpus_after == len(seeds) + 1
    assert "[decode]" in out.getvalue()


def test_campaign_crash_minimize_report_restart(
    fake_tree: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MODE", "crash")
    clock = SkippingClock()
    _workers_end_after_a_restart(monkeypatch, clock)
    config = _config(fake_tree, tmp_path, max_time=20.0, jobs=1, candidate="m:f")
    config.clock = clock
    out = io.StringIO()
    results = campaign.run_campaign(config, Progress(out, interactive=False))
    (result,) = results
    (finding,) = result.findings
    assert result.restarts >= 1  # the crashed worker was restarted while time remained
    assert finding.artifact.read_bytes() == b"\xed\xa0\x80XYZ"
    assert finding.minimized is not None and finding.minimized.read_bytes() == b"\xed\xa0\x80"
    assert finding.report is not None
    report = finding.report.read_text()
    assert finding.report.name == finding.artifact.name + ".txt"
    assert "input hex (3 bytes): ED A0 80" in report
    assert "Divergence: candidate decode accepts ill-formed UTF-8" in report
    assert "SANITIZER_FUZZ_CANDIDATE=m:f" in report
    assert "finding: Divergence" in out.getvalue()
    # filed under its class; the class table has it, though the candidate (m:f) could
    # not be probed
    assert (finding.verdict, finding.klass) == ("accepted", "surrogate")
    rows = {row.key: row for row in result.classes}
    assert rows["surrogate"].verdict == "accepted"
    assert rows["surrogate"].example == b"\xed\xa0\x80"
    assert rows["overlong"].verdict == "not probed"
    assert result.first_finding is not None and result.first_finding <= result.seconds


def test_campaign_stop_on_first(
    fake_tree: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MODE", "crash")
    results = campaign.run_campaign(
        _config(fake_tree, tmp_path, max_time=30.0, jobs=1, stop_on_first=True),
        Progress(io.StringIO(), enabled=False),
    )
    (result,) = results
    assert len(result.findings) == 1 and result.restarts == 0
    assert result.seconds < 20


def test_a_reports_replay_command_works_from_any_folder(
    fake_tree: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The campaign ran with a relative --artifacts in its folder; the command its report
    prints replays the finding from another folder (the fake libFuzzer fails again only
    when it finds the input file)."""
    monkeypatch.setenv("FAKE_MODE", "crash")
    config = _config(fake_tree, tmp_path, max_time=30.0, jobs=1, stop_on_first=True)
    config.artifacts = Path("art")  # relative to the campaign's folder (tmp_path)
    (result,) = campaign.run_campaign(config, Progress(io.StringIO(), enabled=False))
    (finding,) = result.findings
    assert finding.report is not None
    lines = finding.report.read_text().splitlines()
    command = lines[lines.index("--- reproduce ---") + 1 :]
    command = [line for line in command if line.strip() and not line.startswith("WARNING")]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "FAKE_MODE"}
    proc = subprocess.run(
        command[0], shell=True, cwd=elsewhere, capture_output=True, text=True, env=env,
        timeout=60,
    )  # fmt: skip
    assert proc.returncode == 1, (command[0], proc.stdout, proc.stderr)
    assert "Divergence: candidate decode accepts ill-formed UTF-8" in proc.stdout


def test_campaign_worker_that_cannot_start(
    fake_tree: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "src" / "fuzz" / "fuzz_decode.py"
    script.write_text("import sys\nprint('ImportError: no module named boom')\nsys.exit(3)\n")
    results = campaign.run_campaign(
        _config(fake_tree, tmp_path, jobs=1), Progress(io.StringIO(), enabled=False)
    )
    (result,) = results
    assert result.findings == []
    assert result.errors and "failed to start" in result.errors[0]
    assert "no module named boom" in result.errors[0]


def test_campaign_worker_dying_silently_is_a_finding(
    fake_tree: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # os._exit(0) mid-input: no artifact, no "Done" line, exit status 0.  The input comes
    # from the worker's breadcrumb; never "no findings".
    monkeypatch.setenv("FAKE_MODE", "die")
    clock = SkippingClock()
    _workers_end_after_a_restart(monkeypatch, clock)
    config = _config(fake_tree, tmp_path, jobs=1, max_time=20.0)
    config.clock = clock
    results = campaign.run_campaign(config, Progress(io.StringIO(), enabled=False))
    (result,) = results
    (finding,) = result.findings
    assert finding.title == f"{campaign.DIED_HEADLINE}: exit status 0"
    assert finding.artifact.read_bytes() == b"DIE"
    assert finding.reproduced  # the replay exits 0 too, but without "Executed FILE"
    assert finding.report is not None and "breadcrumb" in finding.report.read_text()
    assert "no findings" not in format_summary(results)


def test_campaign_finding_that_does_not_reproduce_says_so(
    fake_tree: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MODE", "flaky")  # crashes while fuzzing, passes on replay
    results = campaign.run_campaign(
        _config(fake_tree, tmp_path, jobs=1, max_time=5.0, stop_on_first=True),
        Progress(io.StringIO(), enabled=False),
    )
    (finding,) = results[0].findings
    assert finding.reproduced is False
    assert finding.report is not None
    report = finding.report.read_text()
    assert NOT_REPRODUCED in report
    assert report.index(NOT_REPRODUCED) < report.index("fuzz_decode.py")  # before the command
    assert NOT_REPRODUCED in format_summary(results)


def test_campaign_far_below_its_time_is_incomplete(
    fake_tree: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The worker runs 3 inputs and ends; the campaign's clock then says its whole run has
    # passed, as a worker that crawled through its time would have it.
    monkeypatch.setenv("FAKE_MODE", "slow")
    clock = SkippingClock()
    real_on_closed = campaign._TargetCampaign._on_closed

    def on_closed(self: Any, key: Any, minimizer: Any) -> None:
        clock.skip_to(self.workers_end)
        real_on_closed(self, key, minimizer)

    monkeypatch.setattr(campaign._TargetCampaign, "_on_closed", on_closed)
    config = _config(fake_tree, tmp_path, jobs=1, max_time=campaign.SHORTFALL_MIN_SECONDS + 4)
    config.clock = clock
    results = campaign.run_campaign(config, Progress(io.StringIO(), enabled=False))
    (result,) = results
    assert result.seconds >= campaign.SHORTFALL_MIN_SECONDS  # judged, on the campaign's clock
    assert result.findings == [] and result.execs == 3
    assert result.shortfall is not None and "3 executions" in result.shortfall
    summary = format_summary(results)
    assert "incomplete (decode)" in summary and "every input met" not in summary


@pytest.mark.parametrize(
    ("mode", "why"),
    [
        ("few", "inputs made by the fuzzer, under the 100"),  # judged by what it ran
        ("blind", "no coverage feedback (cov 0)"),
    ],
)
def test_campaign_that_could_not_fuzz_is_incomplete(
    fake_tree: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, why: str
) -> None:
    monkeypatch.setenv("FAKE_MODE", mode)
    results = campaign.run_campaign(
        _config(fake_tree, tmp_path, jobs=1), Progress(io.StringIO(), enabled=False)
    )
    (result,) = results
    assert result.findings == [] and result.seconds < campaign.SHORTFALL_MIN_SECONDS
    assert result.shortfall is not None and why in result.shortfall, result.shortfall
    summary = format_summary(results)
    assert "incomplete (decode)" in summary and "every input met" not in summary


def test_campaign_no_seeds_starts_empty(
    fake_tree: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MODE", "clean")
    empty = tmp_path / "empty"
    empty.mkdir()
    results = campaign.run_campaign(
        _config(fake_tree, tmp_path, jobs=1, corpus=empty, seeds=False),
        Progress(io.StringIO(), enabled=False),
    )
    assert results[0].corpus_before == 0
    assert not list(empty.glob("*.bin"))  # the bundled seeds stayed out


def test_minimizing_never_changes_the_headline(
    fake_tree: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # libFuzzer's -minimize_crash keeps "it crashes": its 3-byte result fails with another
    # headline, so the finding keeps the input as found, and its own headline.
    monkeypatch.setenv("FAKE_MODE", "crash")
    monkeypatch.setenv("FAKE_SHORTER_FAILS_OTHERWISE", "1")
    results = campaign.run_campaign(
        _config(fake_tree, tmp_path, max_time=5.0, jobs=1, candidate="m:f", stop_on_first=True),
        Progress(io.StringIO(), enabled=False),
    )
    (finding,) = results[0].findings
    wanted = "Divergence: candidate decode accepts ill-formed UTF-8: encoded surrogate"
    assert finding.title == wanted
    assert finding.minimized is not None
    assert finding.minimized.read_bytes() == finding.artifact.read_bytes()
    assert finding.minimized_failure.startswith(wanted)
    assert finding.klass == "surrogate"


@pytest.mark.slow  # runs to its deadline (6 s); the fast tier has the fake-clock test below
def test_max_time_bounds_every_step_of_the_campaign(
    fake_tree: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Minimizing hangs and --minimize-time is huge: still, every helper the campaign
    # starts gets a timeout the budget granted (at most what was left when asked), and
    # every worker's -max_total_time ends before the workers' stop -- all read on the
    # campaign's own clock, no wall-clock assert.
    monkeypatch.setenv("FAKE_MODE", "crash")
    monkeypatch.setenv("FAKE_MINIMIZE", "hang")
    grants: list[tuple[float, float, float]] = []
    helper_timeouts: list[float] = []
    workers: list[tuple[float, float]] = []
    real_limit = campaign.Deadline.limit
    real_helper = campaign._TargetCampaign._run_helper
    real_worker_command = campaign.worker_command

    def limit(self: campaign.Deadline, seconds: float) -> float:
        before = self.clock()
        granted = real_limit(self, seconds)
        grants.append((before, granted, self.end))
        return granted

    def recording_helper(self: Any, cmd: Sequence[str], timeout: float) -> tuple[int | None, str]:
        helper_timeouts.append(timeout)
        return real_helper(self, cmd, timeout)

    def recording_worker(base: Sequence[str], **kw: Any) -> list[str]:
        workers.append((readings[-1], float(kw["max_time"])))
        return real_worker_command(base, **kw)

    readings: list[float] = []

    def clock() -> float:
        readings.append(time.monotonic())
        return readings[-1]

    monkeypatch.setattr(campaign.Deadline, "limit", limit)
    monkeypatch.setattr(campaign._TargetCampaign, "_run_helper", recording_helper)
    monkeypatch.setattr(campaign, "worker_command", recording_worker)
    config = _config(fake_tree, tmp_path, max_time=6.0, jobs=1, candidate="m:f")
    config.minimize_time = 600
    config.clock = clock
    (result,) = campaign.run_campaign(config, Progress(io.StringIO(), enabled=False))
    end = readings[0] + 6.0  # run_campaign's first reading: the campaign's end
    assert result.findings and helper_timeouts and workers
    granted = {g for _, g, _ in grants}
    assert all(timeout in granted for timeout in helper_timeouts)
    for before, timeout, deadline in grants:
        assert deadline <= end
        assert timeout == 0 or before + timeout <= deadline
    workers_end = end - campaign.finish_reserve(6.0)
    for at, max_time in workers:
        assert at + max_time + campaign.WORKER_STARTUP <= workers_end


def test_out_of_time_findings_are_reported_as_found(
    fake_tree: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A patched clock jumps past the deadline as the first finding arrives: nothing more
    # is started (no minimizing, replay or merge), the finding keeps its input as found
    # and gets its report, saying why.
    monkeypatch.setenv("FAKE_MODE", "crash")
    jump = [0.0]
    started_late: list[Sequence[str]] = []
    real_register = campaign._TargetCampaign._register
    real_popen = campaign._TargetCampaign._popen

    def register(self: Any, *args: Any) -> None:
        jump[0] = 10_000.0
        real_register(self, *args)

    def popen(self: Any, cmd: Sequence[str], env: Any = None) -> Any:
        if jump[0]:
            started_late.append(cmd)
        return real_popen(self, cmd, env)

    monkeypatch.setattr(campaign._TargetCampaign, "_register", register)
    monkeypatch.setattr(campaign._TargetCampaign, "_popen", popen)
    config = _config(fake_tree, tmp_path, max_time=20.0, jobs=1, candidate="m:f")
    config.clock = lambda: time.monotonic() + jump[0]
    (result,) = campaign.run_campaign(config, Progress(io.StringIO(), enabled=False))
    (finding,) = result.findings
    assert started_late == []
    assert finding.note == campaign.OUT_OF_TIME
    assert finding.minimized is not None
    assert finding.minimized.read_bytes() == finding.artifact.read_bytes()
    assert finding.report is not None and campaign.OUT_OF_TIME in finding.report.read_text()
    assert campaign.OUT_OF_TIME in format_summary([result])


def _processes_mentioning(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to list processes")
def test_sigterm_stops_every_worker_and_removes_the_workspace(
    fake_tree: Layout, tmp_path: Path
) -> None:
    # The runner gets SIGTERM while its workers (own sessions, deaf to SIGTERM) spin.
    import signal
    import subprocess
    import time

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    artifacts = tmp_path / "art"
    driver = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from sanitizer._fuzzing import campaign
        from sanitizer._fuzzing.layout import detect_layout
        from sanitizer._fuzzing.progress import Progress
        config = campaign.CampaignConfig(
            targets=["decode"], max_time=60, jobs=2, artifacts=Path({str(artifacts)!r}),
            state_dir=Path({str(tmp_path / "state")!r}),
            layout=detect_layout(Path({str(tmp_path / "src" / "sanitizer")!r})),
        )
        try:
            campaign.run_campaign(config, Progress(sys.stderr, enabled=False))
        except KeyboardInterrupt:
            sys.exit(130)
        """
    )
    env = {**os.environ, "FAKE_MODE": "hang", "TMPDIR": str(scratch)}
    runner = subprocess.Popen([sys.executable, "-c", driver], env=env)
    try:
        deadline = time.monotonic() + 30
        while (
            len(_processes_mentioning(f"-artifact_prefix={artifacts}")) < 2
            and time.monotonic() < deadline
        ):
            time.sleep(0.2)
        assert len(_processes_mentioning(f"-artifact_prefix={artifacts}")) == 2, (
            "the workers did not start"
        )
        assert any(scratch.iterdir())  # the private workspace exists while it runs
        runner.send_signal(signal.SIGTERM)
        assert runner.wait(timeout=30) == 130
    finally:
        runner.kill()
    deadline = time.monotonic() + 30  # a wait for /proc to catch up, not a time limit
    while _processes_mentioning(f"-artifact_prefix={artifacts}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_mentioning(f"-artifact_prefix={artifacts}") == []
    assert list(scratch.iterdir()) == []


# -- helpers: shrink and screen ----------------------------------------------------------


def test_shrink_keeps_the_failure() -> None:
    def fails(data: bytes) -> bool:
        return b"\xed\xa0" in data

    assert replay.shrink(b"hello \xed\xa0\x80 world", fails) == b"\xed\xa0"
    assert replay.shrink(b"anything", lambda d: True) == b""
    assert replay.shrink(b"abc", lambda d: d == b"abc") == b"abc"


def test_shrink_respects_budget() -> None:
    calls = []

    def fails(data: bytes) -> bool:
        calls.append(data)
        return b"x" in data

    replay.shrink(b"a" * 500 + b"x" + b"b" * 500, fails, budget=10)
    assert len(calls) <= 10


ROOT = Path(__file__).resolve().parents[2]


def test_helper_screen_and_shrink(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv(CANDIDATE_ENV, "examples.my_decoder:decode")
    pool = tmp_path / "pool"
    pool.mkdir()
    (pool / "ok").write_bytes("caf\u00e9".encode())
    (pool / "bad").write_bytes(b"A\xed\xa0\x80Z")
    assert replay.main(["screen", "decode", str(pool)]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    item = json.loads(line)
    assert item["path"] == str(pool / "bad")
    wanted = "Divergence: candidate decode accepts ill-formed UTF-8: encoded surrogate"
    assert item["failure"].startswith(wanted + "\n")
    assert "Traceback" in item["failure"]
    out = tmp_path / "min"
    assert replay.main(["shrink", "decode", str(pool / "bad"), str(out), wanted]) == 0
    assert out.read_bytes() == b"\xed\xa0\x80"
    # An input that does not fail that way is left alone.
    assert replay.main(["shrink", "decode", str(pool / "ok"), str(out), wanted]) == 1
