"""``sanitizer compare --confusable``, ``skeleton`` and ``collisions``.

The commands run in-process and as a subprocess on real files; ``collisions`` is checked
against a plain in-memory grouping by the library's own keys (differential), its
external sort against ``sorted``, and its memory against the number of lines in a child
process (``resource.getrusage``)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer import _lookalike as lookalike
from sanitizer.cli import _external_sort, main
from tests.support.cli_runner import SANITIZER, json_records
from tests.support.cli_runner import run_cli as run
from tests.support.settings import examples

CYRILLIC_A = "\u0430"
PAYPAL_CYR = f"p{CYRILLIC_A}ypal"


# -- compare --confusable ----------------------------------------------------------------


def test_compare_confusable_mixed_script(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "--confusable", "paypal", PAYPAL_CYR]) == 0
    out = capsys.readouterr().out
    assert "confusable: mixed-script" in out
    assert "Latin" in out and "Cyrillic" in out
    assert out.count("skeleton: 'paypal'") == 2
    assert "U+0430 CYRILLIC SMALL LETTER A" in out  # where the two strings differ


def test_compare_confusable_subprocess_exit_codes() -> None:
    proc = run("compare", "--confusable", "paypal", PAYPAL_CYR)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "Latin" in out and "Cyrillic" in out and "mixed-script" in out
    different = run("compare", "--confusable", "paypal", "paypa")
    assert different.returncode == 1
    assert "not confusable: the skeletons differ" in different.stdout.decode()


def test_compare_confusable_whole_script(capsys: pytest.CaptureFixture[str]) -> None:
    # UTS #39 §4's example: "ѕсоре" in Cyrillic alone against "scope" in Latin alone.
    cyrillic_scope = "\u0455\u0441\u043e\u0440\u0435"
    assert lookalike.confusable(cyrillic_scope, "scope") == lookalike.Confusability.WHOLE_SCRIPT
    assert main(["compare", "--confusable", cyrillic_scope, "scope"]) == 0
    out = capsys.readouterr().out
    assert "confusable: whole-script" in out


def test_compare_confusable_single_script(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "--confusable", "paypal", "paypal"]) == 0
    out = capsys.readouterr().out
    assert "confusable: single-script" in out and "A and B are the same string" in out


def test_compare_without_confusable_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "paypal", PAYPAL_CYR]) == 1  # normal forms: different
    assert "different:" in capsys.readouterr().out


def test_compare_confusable_escapes_controls() -> None:
    proc = run("compare", "--confusable", "a\u202eb\x1b[2J", "ab")
    assert proc.returncode == 1
    assert "\u202e" not in proc.stdout.decode() and b"\x1b" not in proc.stdout
    assert "\\u202e" in proc.stdout.decode()


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "--confusable", "a"],
        ["compare", "--confusable", "--form", "NFKC", "a", "b"],
        ["collisions", "a", "b"],
        ["collisions"],
        ["collisions", "--key", "nfc", "x"],
        ["collisions", "--max-line-bytes", "0", "x"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    proc = run(*args)
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith(b"sanitizer")


# -- skeleton ----------------------------------------------------------------------------


SAMPLES = ["paypal", PAYPAL_CYR, "rn", "m", "I1l", "\u0455\u0441\u043e\u0440\u0435", "\u212b"]


def test_skeleton_arguments_match_the_library(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["skeleton", *SAMPLES]) == 0
    assert capsys.readouterr().out.splitlines() == [lookalike.skeleton(s) for s in SAMPLES]


def test_skeleton_stdin_lines_and_codepoints() -> None:
    data = "\ufeffp\u0430ypal\r\n\nrn\n".encode()  # BOM, CRLF, an empty line kept
    proc = run("skeleton", "--codepoints", stdin=data)
    assert proc.returncode == 0
    expected = []
    for line in ("p\u0430ypal", "", "rn"):
        skel = lookalike.skeleton(line)
        expected += [skel, "  " + " ".join(f"U+{ord(c):04X}" for c in skel)]
    assert proc.stdout.decode().splitlines() == expected


def test_skeleton_escapes_what_a_terminal_would_run() -> None:
    proc = run("skeleton", "x\u202ey\x1b[31m")
    assert proc.returncode == 0
    assert b"\x1b" not in proc.stdout and "\u202e" not in proc.stdout.decode()


def test_skeleton_ill_formed_stdin_is_one_line_error() -> None:
    proc = run("skeleton", stdin=b"ok\n\xc0\xaf\n")
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == [
        "sanitizer skeleton: stdin: line 2: invalid UTF-8 at byte 0 (C0): "
        "overlong 2-byte encoding of U+002F SOLIDUS '/'"
    ]


# -- collisions --------------------------------------------------------------------------

NAMES = [
    "paypal",
    "alice",
    PAYPAL_CYR,
    "",
    "PayPal",
    "\uff50\uff41\uff59\uff50\uff41\uff4c",  # fullwidth
    "mom",
    "rnorn",
    "bob",
    "\u0455\u0441\u043e\u0440\u0435",
    "scope",
    "Il",  # meets "ll" by skeleton (as written) and by identifier key (I looks like l)
    "ll",
    "\u017fun",  # meets "fun" by skeleton, not by identifier key (U+017F casefolds to s)
    "fun",
]


def write_names(path: Path, names: list[str], bad: dict[int, bytes] | None = None) -> Path:
    """One name a line; ``bad`` puts raw bytes at some 0-based line positions."""
    lines = [n.encode() for n in names]
    for i, raw in (bad or {}).items():
        lines.insert(i, raw)
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def expected_groups(names: list[str], key: Callable[[str], str]) -> list[list[tuple[int, str]]]:
    """The reference: group in memory, by the library's key, lines 1-based."""
    by_key: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for number, name in enumerate(names, 1):
        if name:
            by_key[key(name)].append((number, name))
    return sorted((g for g in by_key.values() if len(g) > 1), key=lambda g: g[0][0])


def groups_of(recs: list[dict[str, Any]]) -> list[list[tuple[int, str]]]:
    groups: list[list[tuple[int, str]]] = []
    for rec in recs:
        if "group" in rec:
            assert rec["group"]["id"] == len(groups) + 1
            groups.append([])
        elif "member" in rec:
            assert rec["member"]["group"] == len(groups)
            groups[-1].append((rec["member"]["line"], rec["member"]["identifier"]))
    return groups


@pytest.mark.parametrize("key", ["identifier", "skeleton"])
def test_collisions_groups_match_an_in_memory_grouping(tmp_path: Path, key: str) -> None:
    path = write_names(tmp_path / "users.txt", NAMES)
    proc = run("collisions", "--json", "--key", key, path)
    assert proc.returncode == 1, proc.stderr
    recs = json_records(proc.stdout)
    key_of = lookalike.identifier_key if key == "identifier" else lookalike.skeleton
    groups = groups_of(recs)
    assert groups == expected_groups(NAMES, key_of)
    assert [(1, "paypal"), (3, PAYPAL_CYR)] == [m for m in groups[0] if m[0] in (1, 3)]
    if key == "identifier":  # case and compatibility variants join the group
        assert {n for _, n in groups[0]} >= {"PayPal", "\uff50\uff41\uff59\uff50\uff41\uff4c"}
    assert [(len(NAMES) - 3, "Il"), (len(NAMES) - 2, "ll")] in groups
    assert ([(len(NAMES) - 1, "\u017fun"), (len(NAMES), "fun")] in groups) == (key == "skeleton")
    for rec in recs:
        if "group" in rec:
            first = rec["group"]["first_line"]
            assert rec["group"]["key"] == key_of(NAMES[first - 1])


def test_collisions_json_schema_is_stable(tmp_path: Path) -> None:
    path = write_names(tmp_path / "u.txt", ["paypal", PAYPAL_CYR, "", "x" * 50], {3: b"b\xc0\xafb"})
    proc = run("collisions", "--json", "--max-line-bytes", "20", path)
    assert proc.returncode == 1
    recs = json_records(proc.stdout)
    assert all(len(rec) == 1 for rec in recs)
    kinds = [next(iter(rec)) for rec in recs]
    assert kinds == ["problem", "problem", "group", "member", "member", "summary"]
    bad, long = recs[0]["problem"], recs[1]["problem"]
    assert bad == {
        "line": 4,
        "offset": len(f"paypal\n{PAYPAL_CYR}\n\n".encode()),
        "error": "ill-formed-utf8",
        "start": 1,
        "end": 2,
        "bytes": "C0",
        "kind": "overlong",
        "naive": "U+002F",
        "reason": "overlong 2-byte encoding of U+002F SOLIDUS '/'",
    }
    assert set(long) == {"line", "offset", "error", "reason"}
    assert (long["line"], long["error"]) == (5, "too-long")
    assert set(recs[2]["group"]) == {"id", "key", "size", "first_line", "exact_duplicates"}
    assert recs[2]["group"]["exact_duplicates"] is False
    assert recs[2]["group"]["size"] == 2 and recs[2]["group"]["first_line"] == 1
    assert recs[3] == {"member": {"group": 1, "line": 1, "identifier": "paypal"}}
    assert recs[4] == {"member": {"group": 1, "line": 2, "identifier": PAYPAL_CYR}}
    assert recs[5]["summary"] == {
        "lines": 5,
        "identifiers": 2,
        "empty_lines": 1,
        "problems": 2,
        "groups": 1,
        "identifiers_in_groups": 2,
        "duplicate_groups": 0,
        "identifiers_in_duplicate_groups": 0,
        "key": "identifier",
        "key_version": lookalike.IDENTIFIER_KEY_VERSION,
    }


def test_collisions_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_names(tmp_path / "u.txt", ["paypal", "bob", PAYPAL_CYR], {1: b"\xff"})
    assert main(["collisions", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "line 2: invalid UTF-8 at byte 0 (FF): byte 0xFF never appears in UTF-8 (RFC 3629 §1)",
        "group 1: 2 look-alike identifiers",
        "  1: 'paypal'",
        f"  4: {PAYPAL_CYR!r}  (U+0430 at 1)",
    ]
    assert "1 group(s)" in captured.err and "1 problem line(s)" in captured.err


def test_collisions_tells_exact_duplicates_from_look_alikes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = ["admin", "paypal", "admin", "paypal", PAYPAL_CYR, "bob", "admin"]
    path = write_names(tmp_path / "u.txt", names)
    assert main(["collisions", str(path)]) == 1  # duplicates collide in a unique column too
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "group 1: 3 identifiers, one spelling repeated",
        "  1: 'admin'",
        "  3: 'admin'",
        "  7: 'admin'",
        "group 2: 3 look-alike identifiers",
        "  2: 'paypal'",
        "  4: 'paypal'",
        f"  5: {PAYPAL_CYR!r}  (U+0430 at 1)",
    ]
    assert "adrnln" not in captured.out  # the key, a skeleton, is never shown
    assert "1 group(s) of look-alikes (3 identifiers)" in captured.err
    assert "1 identifier(s) repeated exactly (3 lines)" in captured.err
    assert main(["collisions", "--json", str(path)]) == 1
    recs = json_records(capsys.readouterr().out.encode())
    headers = [r["group"] for r in recs if "group" in r]
    assert [(h["id"], h["exact_duplicates"]) for h in headers] == [(1, True), (2, False)]
    summary = recs[-1]["summary"]
    assert (summary["groups"], summary["duplicate_groups"]) == (1, 1)


def test_collisions_none_found_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_names(tmp_path / "u.txt", ["alice", "bob", "", "carol"])
    assert main(["collisions", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "1 empty line(s) skipped" in captured.err


def test_collisions_unreadable_file_exits_2(tmp_path: Path) -> None:
    proc = run("collisions", tmp_path / "missing.txt")
    assert proc.returncode == 2
    assert proc.stderr.decode().endswith("missing.txt: No such file or directory\n")
    assert run("collisions", tmp_path).returncode == 2  # a folder
    assert b"Traceback" not in proc.stderr


def test_collisions_crlf_bom_and_no_final_newline(tmp_path: Path) -> None:
    path = tmp_path / "u.txt"
    path.write_bytes(b"\xef\xbb\xbfpaypal\r\nbob\r\n" + PAYPAL_CYR.encode())
    recs = json_records(run("collisions", "--json", path).stdout)
    assert groups_of(recs) == [[(1, "paypal"), (3, PAYPAL_CYR)]]


def test_collisions_stdin_pipe_equals_file(tmp_path: Path) -> None:
    path = write_names(tmp_path / "u.txt", NAMES * 3, {5: b"\xed\xa0\x80"})
    from_file = run("collisions", "--json", path)
    piped = subprocess.run(
        f"cat '{path}' | '{sys.executable}' -m sanitizer collisions --json -",
        shell=True,
        capture_output=True,
        timeout=120,
    )
    redirected = run("collisions", "--json", "-", stdin=path.read_bytes())
    assert from_file.returncode == piped.returncode == redirected.returncode == 1
    assert from_file.stdout == piped.stdout == redirected.stdout


def test_collisions_escapes_invisible_characters(tmp_path: Path) -> None:
    # Both end with the same controls, so their skeletons are equal whatever the key.
    path = write_names(tmp_path / "u.txt", ["paypal\u202e\x1b[2J", f"{PAYPAL_CYR}\u202e\x1b[2J"])
    for env in ({}, {"PYTHONIOENCODING": "ascii"}):
        proc = run("collisions", "--key", "skeleton", path, env=env)
        assert proc.returncode == 1 and b"Traceback" not in proc.stderr
        assert not any(b < 0x20 for b in proc.stdout.replace(b"\n", b""))
        assert "\u202e" not in proc.stdout.decode("utf-8")
        assert b"\\u202e" in proc.stdout


def test_collisions_broken_pipe_is_quiet(tmp_path: Path) -> None:
    path = write_names(tmp_path / "u.txt", ["paypal", PAYPAL_CYR] * 20_000)
    cmd = [*SANITIZER, "collisions", str(path)]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
        assert proc.wait(timeout=120) == 141
    assert b"Traceback" not in err


def test_collisions_many_runs_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Tiny runs and fan-in force temporary files and merge passes for both sorts."""
    monkeypatch.setattr(_external_sort, "RUN_RECORDS", 5)
    monkeypatch.setattr(_external_sort, "FAN_IN", 2)
    names = [f"user{i % 37}" if i % 3 else f"us\u0435r{i % 37}" for i in range(400)]
    path = write_names(tmp_path / "u.txt", names)
    assert main(["collisions", "--json", str(path)]) == 1
    recs = json_records(capsys.readouterr().out.encode())
    assert groups_of(recs) == expected_groups(names, lookalike.identifier_key)


def test_collisions_long_lines_are_skipped_in_pieces(tmp_path: Path) -> None:
    limit = 70_000  # more than one 64 KiB piece of a skipped line
    path = tmp_path / "u.txt"
    path.write_bytes(b"a" * limit + b"\r\n" + b"b" * 200_000 + b"\n" + b"a" * limit + b"\n")
    recs = json_records(run("collisions", "--json", "--max-line-bytes", str(limit), path).stdout)
    assert recs[0]["problem"]["line"] == 2 and recs[0]["problem"]["error"] == "too-long"
    assert groups_of(recs) == [[(1, "a" * limit), (3, "a" * limit)]]
    assert recs[-1]["summary"]["lines"] == 3


def test_collisions_temporary_file_failure_is_not_blamed_on_the_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_space(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_external_sort, "RUN_RECORDS", 2)
    monkeypatch.setattr(tempfile, "TemporaryFile", no_space)
    path = write_names(tmp_path / "u.txt", NAMES)
    assert main(["collisions", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sanitizer collisions: temporary file in ")
    assert "No space left on device" in err and "u.txt" not in err


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.binary(min_size=3, max_size=3), max_size=300),
    st.integers(1, 9),
    st.integers(2, 4),
)
def test_external_sort_equals_sorted(records_: list[bytes], run: int, fan_in: int) -> None:
    with _external_sort.ExternalSorter(3, run_records=run, fan_in=fan_in) as sorter:
        for rec in records_:
            sorter.add(rec)
        assert list(sorter.sorted_records()) == sorted(records_)


# -- memory ------------------------------------------------------------------------------

# The child reports its own peak RSS: VmHWM of /proc/self/status, since getrusage's
# ru_maxrss survives execve on Linux and would include the pytest process it forked from.
PEAK_RSS = textwrap.dedent(
    """
    import sys
    from sanitizer.cli import main
    code = main(sys.argv[1:])
    with open("/proc/self/status") as status:
        hwm = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    print(code, hwm, file=sys.stderr)
    """
)


def peak_rss_kib(path: Path, out: Path) -> tuple[int, int]:
    with open(out, "wb") as stdout:
        proc = subprocess.run(
            [sys.executable, "-c", PEAK_RSS, "collisions", "--json", str(path)],
            stdout=stdout,
            stderr=subprocess.PIPE,
            check=False,
            timeout=600,
        )
    code, rss = proc.stderr.decode().split()
    return int(code), int(rss)


def generated(n: int) -> list[str]:
    """Unique user names, and every 1000th a look-alike of the name before it."""
    return [f"us\u0435r{i - 1}" if i % 1000 == 999 else f"user{i}" for i in range(n)]


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads VmHWM (Linux)")
def test_collisions_memory_does_not_grow_with_lines(tmp_path: Path) -> None:
    small, large = generated(50_000), generated(200_000)
    code_small, rss_small = peak_rss_kib(write_names(tmp_path / "s", small), tmp_path / "s.out")
    code_large, rss_large = peak_rss_kib(write_names(tmp_path / "l", large), tmp_path / "l.out")
    assert code_small == code_large == 1
    # 4x the lines (150,000 more): grouping in memory would take ~30 MiB more (a dict
    # entry, the name and its key per line); the external sort holds one run of records
    # whatever the number of lines, so only the merge's read buffers are added.
    assert rss_large - rss_small < 4 * 1024, (rss_small, rss_large)
    assert rss_large < 64 * 1024, rss_large
    recs = json_records((tmp_path / "l.out").read_bytes())
    assert groups_of(recs) == expected_groups(large, lookalike.identifier_key)
    assert recs[-1]["summary"]["groups"] == 200
