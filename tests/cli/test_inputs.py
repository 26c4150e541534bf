"""``sanitizer check`` never lies about what it scanned: unreadable inputs are
reported and exit 2, output failures are not blamed on inputs, a closed pipe ends quietly
with 128 + SIGPIPE, and file names cannot forge report lines or reach the terminal raw.

Everything runs the real command in a subprocess on real files, folders and pipes."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sanitizer.cli._output import display_path
from tests.support.cli_runner import SANITIZER, CliResult, first_line_then_close, run_cli

ATTACK = b"bad \xc0\xae\n"


def check(*args: str | Path, env: dict[str, str] | None = None, timeout: float = 120) -> CliResult:
    return run_cli("check", *args, env=env, timeout=timeout)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "ok.txt").write_bytes(b"fine\n")
    for i in range(200):
        (tmp_path / f"f{i:03}.txt").write_bytes(ATTACK)
    return tmp_path


def test_name_with_newline_and_escape_is_one_line_without_control_bytes(tmp_path: Path) -> None:
    name = "x\nforged.txt:1: C0 AF  overlong  fake\x1b[2J\u202e.txt"
    (tmp_path / name).write_bytes(ATTACK)
    result = check(tmp_path)
    assert result.returncode == 1
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 1
    assert "\\n" in lines[0] and "\\x1b" in lines[0] and "\\u202e" in lines[0]
    assert not any(b < 0x20 for b in result.stdout.rstrip(b"\n"))
    assert "\u202e" not in result.stdout.decode()


@pytest.mark.parametrize(
    "env",
    [{}, {"PYTHONIOENCODING": "ascii"}, {"PYTHONIOENCODING": "latin-1"}, {"LC_ALL": "C"}],
    ids=["utf8", "ascii", "latin1", "C"],
)
def test_non_utf8_name_in_text_output(tmp_path: Path, env: dict[str, str]) -> None:
    path = os.fsencode(tmp_path) + b"/bad\xff\xfe.txt"
    with open(path, "wb") as f:
        f.write(ATTACK)
    result = check(tmp_path, env=env)
    assert result.returncode == 1, result.stderr
    assert b"Traceback" not in result.stderr
    assert b"bad\\xff\\xfe.txt:1:5: overlong  C0 AE" in result.stdout


@pytest.mark.parametrize("env", [{}, {"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C"}], ids=str)
def test_json_is_strict_utf8_and_carries_the_name_losslessly(
    tmp_path: Path, env: dict[str, str]
) -> None:
    raw = os.fsencode(tmp_path) + b"/bad\xff\xe9.txt"
    with open(raw, "wb") as f:
        f.write(ATTACK)
    (tmp_path / "caf\u00e9.txt").write_bytes(ATTACK)
    result = check("--json", tmp_path, env=env)
    assert result.returncode == 1
    records = [json.loads(line) for line in result.stdout.decode("utf-8").splitlines()]
    by_name = {r["path"]: r for r in records if "path" in r}
    odd = [r for r in by_name.values() if "path_bytes" in r]
    assert len(odd) == 1
    assert base64.b64decode(odd[0]["path_bytes"]) == raw
    assert str(tmp_path / "caf\u00e9.txt") in by_name  # a UTF-8 name stays as it is
    assert "path_bytes" not in by_name[str(tmp_path / "caf\u00e9.txt")]
    assert records[-1]["summary"]["findings"] == 2


@pytest.mark.parametrize("fmt", [[], ["--json"]], ids=["text", "json"])
def test_broken_pipe_is_quiet_and_never_all_valid(tree: Path, fmt: list[str]) -> None:
    code, err = first_line_then_close("check", *fmt, str(tree))
    assert code == 141
    assert b"Broken pipe" not in err and b"Traceback" not in err
    assert b"unreadable" not in err


def test_output_error_is_not_blamed_on_input(tree: Path) -> None:
    with open("/dev/full", "wb") as full:
        result = subprocess.run(
            [*SANITIZER, "check", str(tree)],
            stdout=full,
            stderr=subprocess.PIPE,
        )
    assert result.returncode == 2
    lines = result.stderr.decode().splitlines()
    assert lines[0] == "sanitizer check: cannot write output: No space left on device"
    assert not any(str(tree) in line for line in lines)


def test_unreadable_folder_is_reported_and_exits_2(tmp_path: Path) -> None:
    # A folder nested past PATH_MAX cannot be listed, even by root.
    (tmp_path / "ok.txt").write_bytes(b"fine\n")
    deep = os.open(tmp_path, os.O_RDONLY)
    try:
        for _ in range(25):
            os.mkdir("d" * 200, dir_fd=deep)
            nxt = os.open("d" * 200, os.O_RDONLY, dir_fd=deep)
            os.close(deep)
            deep = nxt
        fd = os.open("hidden.txt", os.O_WRONLY | os.O_CREAT, dir_fd=deep)
        os.write(fd, ATTACK)
        os.close(fd)
    finally:
        os.close(deep)
    result = check(tmp_path)
    assert result.returncode == 2
    err = result.stderr.decode()
    assert "File name too long" in err
    assert "unreadable" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any folder")
def test_folder_without_permission_is_reported(tmp_path: Path) -> None:  # pragma: no cover
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "a.txt").write_bytes(ATTACK)
    locked.chmod(0)
    try:
        result = check(tmp_path)
    finally:
        locked.chmod(0o755)
    assert result.returncode == 2
    assert b"Permission denied" in result.stderr


def test_fifo_and_process_substitution_are_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"printf 'x\\300\\256' > '{fifo}'"])
    result = check(fifo, timeout=60)
    writer.wait(timeout=60)
    assert result.returncode == 1
    assert b"overlong  C0 AE" in result.stdout
    bash = subprocess.run(
        ["bash", "-c", f"'{sys.executable}' -m sanitizer check <(printf 'x\\300\\256')"],
        capture_output=True,
    )
    assert bash.returncode == 1 and b"/dev/fd/" in bash.stdout


def test_fifo_inside_a_folder_is_skipped_with_a_word(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "a.txt").write_bytes(b"fine\n")
    result = check(tmp_path, timeout=60)
    assert result.returncode == 0
    assert b"pipe: skipped: a FIFO" in result.stderr


def test_closed_stdin_is_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        ["bash", "-c", f"'{sys.executable}' -m sanitizer check - <&-"], capture_output=True
    )
    assert result.returncode == 2
    assert result.stderr.decode().splitlines()[0] == (
        "sanitizer check: <stdin>: standard input is closed"
    )


@pytest.mark.parametrize("limit", ["100000000000000000000", str(2**62)])
def test_huge_max_bytes_reads_in_chunks(tmp_path: Path, limit: str) -> None:
    (tmp_path / "a.txt").write_bytes(b"fine\n" * 1000)
    result = check("--policy", "TEXT", "--max-bytes", limit, tmp_path / "a.txt")
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr


def test_missing_and_dangling_inputs_exit_2(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to(tmp_path / "gone")
    result = check(tmp_path / "nope", tmp_path)
    assert result.returncode == 2
    err = result.stderr.decode()
    assert "nope: No such file or directory" in err
    assert "link" not in err.splitlines()[0]  # links in folders are not followed: counted
    assert "1 symlink(s)" in err
    followed = check("--follow", tmp_path)  # followed, a dangling link is unreadable
    assert followed.returncode == 2
    assert "link: No such file or directory" in followed.stderr.decode()


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("plain/path.txt", "plain/path.txt"),
        ("a\\b", "a\\\\b"),
        ("tab\there", "tab\\there"),
        ("\u2028", "\\u2028"),
        ("\U000e0041", "\\U000e0041"),
        ("x\udcff", "x\\xff"),
        ("caf\u00e9 \u65e5\u672c", "caf\u00e9 \u65e5\u672c"),
    ],
)
def test_display_path(name: str, shown: str) -> None:
    assert display_path(name) == shown


def test_other_subcommands_end_quietly_on_a_broken_pipe(tmp_path: Path) -> None:
    names = tmp_path / "names.txt"
    names.write_text("caf\u00e9\n" * 100_000)
    cmd = [*SANITIZER, "normalize", "--form", "NFKC"]
    with (
        open(names, "rb") as stdin,
        subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc,
    ):
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
        assert proc.wait(timeout=60) == 141
    assert b"Traceback" not in err


def test_policy_findings_past_the_cap_are_counted(tmp_path: Path) -> None:
    """inspect lists max_findings (1000) findings; the CLI still counts every one."""
    (tmp_path / "nul.bin").write_bytes(b"\0" * 3000)
    result = check("--policy", "TEXT", tmp_path / "nul.bin")
    assert result.returncode == 1
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 1001 and lines[-1].endswith("... 2000 more finding(s) not shown")
    assert b"3000 finding(s)" in result.stderr
    as_json = check("--json", "--policy", "TEXT", tmp_path / "nul.bin")
    assert json.loads(as_json.stdout.decode().splitlines()[-1])["summary"]["findings"] == 3000
