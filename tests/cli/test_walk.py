"""``sanitizer check`` on folders as a gate: the files it reads are exactly the
ones git would not ignore, binary files and links are skipped and counted, findings are
placed at ``line:column``, declared encodings are one finding, and the exit status, pipes
and Ctrl-C behave.  Real ``git`` repositories, real files, the real command."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sanitizer.cli import _inputs, _mode_utf8, _walk
from sanitizer.cli._locate import CODEPOINTS, UTF16
from sanitizer.cli._output import FileFinding
from sanitizer.cli._report import Progress
from tests.support.cli_runner import SANITIZER, CliResult, default_sigint, run_cli
from tests.support.settings import examples

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")
# No user or system git configuration (core.excludesFile, ...) may change what git lists.
GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "HOME": os.devnull}


def cli(*args: str | Path) -> CliResult:
    return run_cli("check", *args, env=GIT_ENV)


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        env={**os.environ, **GIT_ENV},
    ).stdout


def write(root: Path, rel: str, data: bytes = b"text\n") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


# Nested ignore files with negations, anchored and folder-only patterns, '**', a
# re-included file, an ignored folder whose files cannot be re-included (gitignore(5)).
IGNORES = {
    ".gitignore": "*.log\n!keep.log\nbuild/\n/top-only.txt\n*.tmp\n.venv\n",
    "src/.gitignore": "!debug.log\ngenerated/\n*.py[co]\n",
    "src/deep/.gitignore": "!*.tmp\n/local.txt\n",
    "docs/.gitignore": "**/draft-*.md\n",
    ".git/info/exclude": "secret.env\n",
}
FILES = [
    "README.md",
    "a.log",
    "keep.log",
    "top-only.txt",
    "sub/top-only.txt",
    "build/out.txt",
    "src/build/x.c",
    "src/main.py",
    "src/main.pyc",
    "src/debug.log",
    "src/other.log",
    "src/generated/g.py",
    "src/deep/x.tmp",
    "src/deep/local.txt",
    "src/deep/more/local.txt",
    "src/x.tmp",
    "docs/intro.md",
    "docs/draft-1.md",
    "docs/sub/draft-2.md",
    "secret.env",
    ".venv/lib/site.py",
    "weird name [1].txt",
    "caf\u00e9/\u65e5\u672c.txt",
]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    for rel, text in IGNORES.items():
        write(root, rel, text.encode())
    for rel in FILES:
        write(root, rel)
    return root


def walked(top: Path, **rules: object) -> set[str]:
    problems: list[_inputs.WalkNotice] = []
    found = _inputs.expand([str(top)], problems.append, _walk.Rules(**rules))  # type: ignore[arg-type]
    names = {os.path.relpath(item.path, top).replace(os.sep, "/") for item in found}
    assert problems == []
    return names


def git_lists(repo: Path) -> set[str]:
    out = git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    return {os.fsdecode(p) for p in out.split(b"\0") if p}


@needs_git
@pytest.mark.parametrize("use_git", [True, False], ids=["git", "pathspec"])
def test_walker_reads_exactly_what_git_does_not_ignore(
    repo: Path, use_git: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    expected = git_lists(repo)
    assert "src/debug.log" in expected and "src/deep/x.tmp" in expected  # negations
    assert "build/out.txt" not in expected and "secret.env" not in expected
    assert walked(repo, use_git=use_git) == expected
    # from a subfolder, the parent's rules still apply
    sub_expected = {p[len("src/") :] for p in expected if p.startswith("src/")}
    assert walked(repo / "src", use_git=use_git) == sub_expected


@needs_git
def test_a_tracked_file_is_read_even_when_an_ignore_rule_matches_it(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pull request cannot hide a committed file by adding an ignore rule for it."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    git(repo, "add", "-f", "a.log", "build/out.txt")
    write(repo, ".ignore", b"README.md\nsrc/main.py\n")
    git(repo, "add", "src/main.py")
    names = walked(repo)
    assert {"a.log", "build/out.txt", "src/main.py"} <= names  # tracked: always read
    assert "README.md" not in names  # untracked and in .ignore
    assert names == git_lists(repo) - {"README.md"}


def test_vcs_folders_are_never_entered(tmp_path: Path) -> None:
    for vcs in (".git", ".hg", ".svn"):
        write(tmp_path, f"{vcs}/store/data.bin", b"\xff")
        write(tmp_path, f"sub/{vcs}/x", b"\xff")
    write(tmp_path, "ok.txt")
    assert walked(tmp_path, use_git=False) == {"ok.txt"}
    assert walked(tmp_path, use_git=False, ignore_files=False) == {"ok.txt"}


def test_include_and_exclude_globs(tmp_path: Path) -> None:
    for rel in ("a.py", "b.txt", "pkg/c.py", "pkg/vendor/d.py", "vendor/e.py"):
        write(tmp_path, rel)
    assert walked(tmp_path, include=("*.py",)) == {
        "a.py",
        "pkg/c.py",
        "pkg/vendor/d.py",
        "vendor/e.py",
    }
    assert walked(tmp_path, include=("*.py",), exclude=("vendor/",)) == {"a.py", "pkg/c.py"}
    assert walked(tmp_path, exclude=("/vendor", "b.txt")) == {"a.py", "pkg/c.py", "pkg/vendor/d.py"}


@pytest.mark.parametrize("option", ["--include", "--exclude", "--as-text"])
def test_a_glob_that_is_no_gitignore_pattern_is_a_usage_error(tmp_path: Path, option: str) -> None:
    write(tmp_path, "a.txt")
    result = cli(option, "a\\", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.decode() == (
        f"sanitizer check: {option} 'a\\\\' is not a gitignore pattern (gitignore(5))\n"
    )


def test_an_ignore_file_line_git_cannot_read_matches_nothing(tmp_path: Path) -> None:
    """A trailing backslash is no pattern to git either: that line matches nothing, the
    file's other lines still apply, and the walk goes on."""
    for rel in ("a.txt", "b.log", "a\\"):
        write(tmp_path, rel)
    write(tmp_path, ".gitignore", b"a\\\n*.log\n")
    assert walked(tmp_path, use_git=False) == {".gitignore", "a.txt", "a\\"}


def test_binary_files_are_skipped_and_counted_unless_named(tmp_path: Path) -> None:
    write(tmp_path, "lib.so", b"\x7fELF\x00\x00\xff\xfe" + b"\x80" * 100)
    write(tmp_path, "late-nul.txt", b"x" * 9000 + b"\x00\xff")  # NUL after 8 KiB: text
    write(tmp_path, "ok.txt", b"fine\n")
    result = cli("--verbose", tmp_path)
    assert result.returncode == 1
    assert b"lib.so: skipped: binary" in result.stdout  # said, file by file
    assert b"lib.so:1" not in result.stdout and b"late-nul.txt:1:9002:" in result.stdout
    assert b"skipped 1 binary" in result.stderr
    checked = cli("--binary", "check", tmp_path)
    assert b"lib.so:1:7: invalid-byte" in checked.stdout
    named = cli(tmp_path / "lib.so")  # named explicitly: always read
    assert named.returncode == 1 and b"lib.so:1:7:" in named.stdout


def test_a_nul_byte_does_not_hide_valid_utf8_source_from_the_gate(tmp_path: Path) -> None:
    # gcc compiles a C file with a NUL in it (with a warning): were a NUL enough to make
    # a file "binary", one byte would take a Trojan Source file out of the gate.
    write(tmp_path, "evil.c", b"int x;\x00\n/* \xe2\x80\xae } */\n")
    # valid, though the 8 KiB sample ends inside its last character (U+20AC)
    write(tmp_path, "cut.txt", b"\x00" + b"\xc3\xa9" * 4095 + b"\xe2\x82\xac")
    result = cli("--policy", "SOURCE", tmp_path)
    assert result.returncode == 1
    assert b"evil.c:" in result.stdout and b"skipped" not in result.stderr


def test_symlinks_are_not_followed_and_loops_end(tmp_path: Path) -> None:
    write(tmp_path, "d/a.txt", b"bad \xc0\xae\n")
    (tmp_path / "d" / "loop").symlink_to(tmp_path)  # d/loop -> the top: a cycle
    (tmp_path / "link.txt").symlink_to(tmp_path / "d" / "a.txt")
    result = cli(tmp_path)
    assert result.returncode == 1
    assert result.stdout.count(b"\n") == 1
    assert b"skipped 2 symlink(s)" in result.stderr
    followed = cli("--follow", tmp_path)
    assert followed.returncode == 1
    # the loop is entered once at most, never walked forever
    assert followed.stdout.count(b"\n") == 2  # d/a.txt and link.txt
    assert b"symbolic link loop" in followed.stderr


def test_pep263_latin1_file_is_one_finding_configurable(tmp_path: Path) -> None:
    text = "# -*- coding: latin-1 -*-\nname = 'Café Müller, Straße, déjà vu'\n" * 1
    body = text.encode("latin-1") + "# é\n".encode("latin-1") * 300
    write(tmp_path, "legacy.py", body)
    result = cli(tmp_path)
    lines = result.stdout.decode().splitlines()
    assert result.returncode == 1
    assert lines == [
        f"{tmp_path / 'legacy.py'}:1:15: declared-encoding  latin-1  reject  declares latin-1 "
        "(PEP 263 coding cookie), not UTF-8: its bytes are not checked  "
        "| # -*- coding: latin-1 -*-"
    ]
    allowed = cli("--declared-encoding", "allow", tmp_path)
    assert allowed.returncode == 0 and allowed.stdout.count(b"\n") == 1
    assert cli("--declared-encoding", "allow", "--strict", tmp_path).returncode == 1
    flood = cli("--declared-encoding", "ignore", tmp_path)
    assert flood.returncode == 1 and flood.stdout.count(b"\n") > 300


@pytest.mark.parametrize(
    ("name", "head", "declared"),
    [
        ("a.py", b"#!/usr/bin/env python\n# vim: set fileencoding=koi8-r :\n", "koi8-r"),
        ("a.py", b"x = 1\n# coding: latin-1\n", None),  # line 2 counts only after a comment
        ("a.py", b"# -*- coding: utf-8 -*-\n", None),
        ("a.xml", b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<a/>', "ISO-8859-1"),
        ("a.xml", b"<?xml version='1.0' encoding='UTF-8'?>\n<a/>", None),
        ("a.html", b'<!doctype html>\n<meta charset="windows-1252">', "windows-1252"),
        (
            "a.html",
            b'<html><head><meta http-equiv="Content-Type" content="text/html; charset=koi8-r">',
            "koi8-r",
        ),
        ("a.md", b"# Decoding: how it works\n", None),  # not a known codec: not a cookie
        ("a.txt", b"\xff\xfeh\x00i\x00", "UTF-16LE"),
    ],
)
def test_encoding_declarations(
    tmp_path: Path, name: str, head: bytes, declared: str | None
) -> None:
    write(tmp_path, name, head)
    result = cli("--json", tmp_path / name)
    records = [json.loads(line) for line in result.stdout.splitlines()][:-1]
    got = [r["what"] for r in records if r["rule"] == "declared-encoding"]
    assert got == ([declared] if declared else [])


def test_line_and_column_in_code_points_and_utf16(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"ab\r\n\xf0\x9f\x98\x80x\xc0\xafy \xe2\x80\xae!\n")
    plain = cli("--json", path)
    rec = json.loads(plain.stdout.splitlines()[0])
    assert (rec["start"], rec["line"], rec["column"], rec["end_column"]) == (9, 2, 3, 5)
    assert rec["excerpt"] == "\U0001f600x<C0 AF>y <U+202E>!"
    wide = json.loads(cli("--json", "--columns", "utf16", path).stdout.splitlines()[0])
    assert (wide["line"], wide["column"], wide["end_column"]) == (2, 4, 6)
    # Not UTF-8: the same findings under a policy (which judges text)
    policy = cli("--policy", "TEXT", "--json", "--columns", "utf16", path)
    assert (
        policy.stdout.splitlines()[:-1]
        == cli("--json", "--columns", "utf16", path).stdout.splitlines()[:-1]
    )
    path.write_bytes(b"ab\r\n\xf0\x9f\x98\x80x\xc3\xa9y \xe2\x80\xae!\n")
    policy = cli("--policy", "TEXT", "--json", "--columns", "utf16", path)
    bidi = [json.loads(x) for x in policy.stdout.splitlines()[:-1]]
    bidi = [r for r in bidi if r["rule"] == "bidi-control"]
    # U+1F600 is two UTF-16 code units, the others one each: 2+1+1+1+1 = col 7
    assert [(r["line"], r["column"], r["end_column"]) for r in bidi] == [(2, 7, 8)]


def reference_position(data: bytes, offset: int, columns: str) -> tuple[int, int]:
    prefix = data[:offset]
    line_start = prefix.rfind(b"\n") + 1
    text = prefix[line_start:].decode("utf-8", "replace")
    width = len(text) + (sum(ord(c) > 0xFFFF for c in text) if columns == UTF16 else 0)
    return prefix.count(b"\n") + 1, width + 1


PIECES = [b"a", b"\n", b"\xc3\xa9", b"\xf0\x9f\x98\x80", b"\xe2\x80\xae", b"\xc0", b"\xaf"]
PIECES += [b"\xe2\x82", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\xff", b"\r\n"]


@settings(max_examples=examples(150), deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=60).map(b"".join),
    st.integers(1, 9),
    st.sampled_from([CODEPOINTS, UTF16]),
)
# the excerpt's edge cuts the last emoji: trimmed whether or not its last byte was read
@example(b"\xc0" + b"a" * 9 + "\u00e9\U0001f600".encode() + b"\xf8\x88\x80\x80\x80" * 6
         + "\U0001f600".encode(), 1, CODEPOINTS)  # fmt: skip
def test_streamed_positions_equal_a_decode_of_the_prefix(
    data: bytes, chunk: int, columns: str
) -> None:
    """Whatever the chunk size, each ill-formed group is at the line and column that
    decoding its prefix with U+FFFD substitution gives, and its excerpt is the same."""

    def findings(size: int) -> list[FileFinding]:
        from sanitizer._decoder import IncrementalDecoder

        stream = io.BytesIO(data)
        first = stream.read(size)
        progress = Progress(0, False)
        old = _mode_utf8.CHUNK
        _mode_utf8.CHUNK = size
        try:
            return list(
                _mode_utf8._utf8_findings(
                    stream, first, IncrementalDecoder(), columns, progress, "x"
                )
            )
        finally:
            _mode_utf8.CHUNK = old

    small, whole = findings(chunk), findings(1 << 16)
    assert [(f.place, f.excerpt) for f in small] == [(f.place, f.excerpt) for f in whole]
    for f in small:
        assert (f.place.line, f.place.column) == reference_position(data, f.place.start, columns)
        end = reference_position(data, f.place.end, columns)
        assert (f.place.end_line, f.place.end_column) == end
        assert "\x1b" not in f.excerpt and "\u202e" not in f.excerpt


def test_exit_status_only_for_refused_findings(tmp_path: Path) -> None:
    rtl = tmp_path / "hebrew.txt"
    rtl.write_text("\u05e9\u05dc\u05d5\u05dd\u200f (shalom)\n", encoding="utf-8")  # RLM: ALLOW
    allowed = cli("--policy", "TEXT", rtl)
    assert allowed.returncode == 0
    assert b"bidi-mark  U+200F  allow" in allowed.stdout
    assert b"1 finding(s) in 1 file(s), 0 failing, 1 allowed" in allowed.stderr
    assert cli("--policy", "TEXT", "--strict", rtl).returncode == 1


def test_leading_bom_is_a_finding_only_when_the_profile_asks(tmp_path: Path) -> None:
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfhello\n")
    for args in ([], ["--policy", "TEXT"]):
        result = cli(*args, path)
        assert result.returncode == 0 and result.stdout == b""
    strict = cli("--policy", "IDENTIFIER", "--json", path)
    records = [json.loads(x) for x in strict.stdout.splitlines()[:-1]]
    assert (records[0]["rule"], records[0]["start"], records[0]["column"]) == ("bom", 0, 1)


def test_head_ends_quietly_across_the_walker(tmp_path: Path) -> None:
    for i in range(300):
        write(tmp_path, f"d{i % 7}/f{i:03}.txt", b"x\xc0\xaf\n" * 3)
    script = f"'{sys.executable}' -m sanitizer check '{tmp_path}' | head -2; "
    script += 'echo "status=${PIPESTATUS[0]}" >&2'
    result = subprocess.run(["bash", "-c", script], capture_output=True, timeout=120)
    assert result.stdout.count(b"\n") == 2
    assert result.stderr.decode().strip().splitlines() == ["status=141"]


def test_ctrl_c_prints_one_line_and_exits_130(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it blocks until a writer comes: the scan is mid-way
    write(tmp_path, "a.txt")
    cmd = [*SANITIZER, "check", str(tmp_path / "a.txt"), str(fifo)]
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    with subprocess.Popen(cmd, preexec_fn=default_sigint, **pipes) as proc:  # type: ignore[call-overload]
        _wait_for_fifo_writer(proc.pid)
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # never hang the suite: fail
            proc.kill()
            raise
    assert proc.returncode == 130
    assert err.decode().splitlines() == ["sanitizer: interrupted"]
    assert out == b""


def _wait_for_fifo_writer(pid: int) -> None:
    """Until process ``pid`` blocks opening a FIFO (Linux ``/proc/PID/wchan``; a loaded
    machine can take seconds to get there), or 1.5 s without ``/proc``."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/wchan") as f:
                if f.read().strip() == "wait_for_partner":
                    return
        except OSError:
            time.sleep(1.5)
            return
        time.sleep(0.05)
