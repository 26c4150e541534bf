"""``sanitizer check`` on real files, folders and stdin: output lines and exit codes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sanitizer.cli import main
from tests.support import cli_runner
from tests.support.cli_runner import CliResult

ATTACK = b"GET /scripts/..\xc0\xaf../winnt/system32/cmd.exe"  # CVE-2000-0884 style


def run_cli(*args: str, stdin: bytes = b"") -> CliResult:
    return cli_runner.run_cli("check", *args, stdin=stdin)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "clean.txt").write_bytes("naïve café 日本 🙂\n".encode())
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "traversal.bin").write_bytes(ATTACK)
    (tmp_path / "sub" / "cesu.bin").write_bytes(b"x\xed\xa1\x8c\xed\xbe\xb4y")
    (tmp_path / "tail.bin").write_bytes(b"abc\xe2\x82")
    return tmp_path


def test_clean_file_exits_0(tree: Path) -> None:
    proc = run_cli(str(tree / "clean.txt"))
    assert proc.returncode == 0
    assert proc.stdout == b""
    assert b"0 finding(s)" in proc.stderr


def test_folder_is_scanned_recursively_one_line_per_attack(tree: Path) -> None:
    proc = run_cli(str(tree))
    assert proc.returncode == 1
    lines = proc.stdout.decode().splitlines()
    # sorted walk: sub/cesu.bin, sub/traversal.bin, then tail.bin (files before subfolders
    # is not promised; order within a folder is).
    by_file = {line.split(":")[0]: line for line in lines}
    trav = by_file[str(tree / "sub" / "traversal.bin")]
    assert trav == (
        f"{tree / 'sub' / 'traversal.bin'}:1:16: overlong  C0 AF  reject  "
        "overlong 2-byte encoding of U+002F SOLIDUS '/'  "
        "| GET /scripts/..<C0 AF>../winnt/system32/cmd.exe"
    )
    assert f"{tree / 'tail.bin'}:1:4: incomplete  E2 82" in by_file[str(tree / "tail.bin")]
    cesu = [line for line in lines if "cesu.bin" in line]
    # line:column, the column in code points with one per ill-formed subpart (ED, A1, 8C)
    assert [line.split(":", 3)[1:3] for line in cesu] == [["1", "2"], ["1", "5"]]
    assert "U+D84C" in cesu[0] and "U+DFB4" in cesu[1]
    assert len(lines) == 4
    assert b"4 finding(s) in 3 file(s)" in proc.stderr


def test_json_lines(tree: Path) -> None:
    proc = run_cli("--json", str(tree / "sub" / "traversal.bin"))
    assert proc.returncode == 1
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert records[0] == {
        "path": str(tree / "sub" / "traversal.bin"),
        "start": 15,
        "end": 17,
        "line": 1,
        "column": 16,
        "end_line": 1,
        "end_column": 18,
        "rule": "overlong",
        "what": "C0 AF",
        "action": "reject",
        "fails": True,
        "excerpt": "GET /scripts/..<C0 AF>../winnt/system32/cmd.exe",
        "bytes": "C0 AF",
        "kind": "overlong",
        "naive": "U+002F",
        "reason": "overlong 2-byte encoding of U+002F SOLIDUS '/'",
        "subparts": 2,
    }
    assert records[-1]["summary"]["findings"] == 1


def test_stdin(tree: Path) -> None:
    proc = run_cli("-", stdin=b"ok\xfe")
    assert proc.returncode == 1
    assert (
        proc.stdout.decode()
        == "<stdin>:1:3: invalid-byte  FE  reject  byte 0xFE never appears in UTF-8 "
        "(RFC 3629 §1)  | ok<FE>\n"
    )
    assert run_cli("-", stdin="ok ✓".encode()).returncode == 0


def test_missing_file_is_one_line_and_exit_2(tree: Path) -> None:
    proc = run_cli(str(tree / "nope.txt"), str(tree / "clean.txt"))
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr
    assert f"{tree / 'nope.txt'}: No such file or directory".encode() in proc.stderr


def test_unreadable_file_exit_2(tree: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root can read any file")
    locked = tree / "locked.txt"
    locked.write_bytes(b"x")
    locked.chmod(0)
    assert run_cli(str(locked)).returncode == 2


def test_usage_error_exit_2() -> None:
    proc = run_cli()
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr
    assert run_cli("--limit", "-1", "-").returncode == 2


def test_allow_overlong_nul(tmp_path: Path) -> None:
    path = tmp_path / "java.bin"
    path.write_bytes(b"a\xc0\x80b")
    assert run_cli(str(path)).returncode == 1
    assert run_cli("--allow-overlong-nul", str(path)).returncode == 0


def test_large_file_streams_with_groups_across_chunk_boundaries(tmp_path: Path) -> None:
    """Attack sequences straddling the 64 KiB read size are still one line each, at the
    right absolute offset."""
    size = 3 * (1 << 16)
    data = bytearray(b"a" * size)
    offsets = [(1 << 16) - 1, 2 * (1 << 16) - 3, size - 7]
    payload = b"\xfc\x80\x80\x80\x80\xaf"  # overlong '/', 6 bytes (RFC 2279 form)
    for off in offsets:
        data[off : off + len(payload)] = payload
    path = tmp_path / "big.bin"
    path.write_bytes(bytes(data))
    proc = run_cli("--json", str(path))
    assert proc.returncode == 1
    records = [json.loads(line) for line in proc.stdout.splitlines()][:-1]
    assert [(r["start"], r["end"], r["bytes"], r["naive"]) for r in records] == [
        (off, off + 6, "FC 80 80 80 80 AF", "U+002F") for off in offsets
    ]


def test_limit(tmp_path: Path) -> None:
    path = tmp_path / "noise.bin"
    path.write_bytes(b"\x80 " * 10)
    proc = run_cli("--limit", "3", str(path))
    assert proc.returncode == 1
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == 4 and lines[-1].endswith("7 more finding(s) not shown")


def test_in_process_main(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(tree / "clean.txt")]) == 0
    assert main(["check", str(tree / "tail.bin")]) == 1
    out = capsys.readouterr().out
    assert "incomplete 3-byte sequence E2 82 at end of input" in out


def test_progress_bar_only_when_asked_or_tty(tree: Path) -> None:
    proc = run_cli("--progress", "always", str(tree))
    assert b"\r[" in proc.stderr
    proc = run_cli(str(tree))  # stderr is a pipe here: no bar
    assert b"\r[" not in proc.stderr


def test_policy_mode_is_bounded_by_max_bytes(tmp_path: Path) -> None:
    """--policy applies a policy to files of at most --max-bytes; a larger one is one
    too-long finding over the whole file (exit 1)."""
    path = tmp_path / "big.txt"
    path.write_bytes(b"a" * 5000)
    proc = run_cli("--policy", "TEXT", "--max-bytes", "4096", "--json", str(path))
    assert proc.returncode == 1
    record = json.loads(proc.stdout.splitlines()[0])
    assert record["category"] == "too-long" and record["end"] == 5000
    assert run_cli("--policy", "TEXT", "--max-bytes", "5000", str(path)).returncode == 0


def test_policy_findings_lines(tmp_path: Path) -> None:
    path = tmp_path / "header.txt"
    path.write_bytes("x\u202ey\r\n".encode())
    proc = run_cli("--policy", "single_line", str(path))
    assert proc.returncode == 1
    lines = proc.stdout.decode().splitlines()
    assert lines[0] == (
        f"{path}:1:2: bidi-control  U+202E  reject  U+202E RIGHT-TO-LEFT OVERRIDE  | x<U+202E>y"
    )
    assert [line.split(":", 3)[1:3] for line in lines] == [["1", "2"], ["1", "4"], ["1", "5"]]
    assert run_cli("--policy", "NOPE", str(path)).returncode == 2
