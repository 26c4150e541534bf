"""``sanitizer normalize`` and ``sanitizer compare``: in-process and as a subprocess."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sanitizer.cli import main
from tests.support.cli_runner import run_cli as run


def test_normalize_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["normalize", "\u212b", "A\u030angstr\u00f6m"]) == 0
    assert capsys.readouterr().out == "\u00c5\n\u00c5ngstr\u00f6m\n"


def test_normalize_forms(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["normalize", "--form", "nfkc_casefold", "ＡＤＭＩＮ", "\ufb01le"]) == 0
    assert capsys.readouterr().out == "admin\nfile\n"
    assert main(["normalize", "--form", "NFKC", "--codepoints", "\ufb01"]) == 0
    assert capsys.readouterr().out == "fi\n  U+0066 U+0069\n"


def test_compare_equal_and_different(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "\u212b", "\u00c5"]) == 0
    out = capsys.readouterr().out
    assert "equal" in out and "U+00C5" in out
    assert main(["compare", "ＡＤＭＩＮ", "admin", "--form", "NFKC"]) == 1
    out = capsys.readouterr().out
    assert "different" in out
    assert "A[0:5] U+0041 LATIN CAPITAL LETTER A 'A', " in out
    assert "vs  B[0:5] U+0061 LATIN SMALL LETTER A 'a', " in out
    assert main(["compare", "ＡＤＭＩＮ", "admin", "--form", "NFKC_CASEFOLD"]) == 0


def test_compare_lengths_differ(capsys: pytest.CaptureFixture[str]) -> None:
    """Only the inserted code point is reported: the rest is aligned, not shifted."""
    assert main(["compare", "ad\u200bmin", "admin"]) == 1
    out = capsys.readouterr().out
    diff = [line for line in out.splitlines() if line.startswith("  ")]
    assert diff == ["  A[2:3] U+200B ZERO WIDTH SPACE  vs  B[2:2] (nothing)"]


def test_subprocess_stdin() -> None:
    proc = run("normalize", stdin="e\u0301\n\ufb01\n".encode())
    assert proc.returncode == 0
    assert proc.stdout.decode() == "\u00e9\n\ufb01\n"
    proc = run("normalize", "--form", "NFKC", stdin=b"\xef\xbb\xbf\xef\xac\x81\n")  # BOM + fi
    assert proc.stdout.decode() == "fi\n"


def test_subprocess_ill_formed_stdin_is_one_line_error() -> None:
    proc = run("normalize", stdin=b"ok\n\xc0\xaf\n")
    assert proc.returncode == 2
    assert proc.stdout == b""
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and "invalid UTF-8 at byte 3" in err
    assert "Traceback" not in err


def test_subprocess_compare_exit_codes() -> None:
    assert run("compare", "\u212b", "\u00c5").returncode == 0
    proc = run("compare", "\ufb01le", "file")
    assert proc.returncode == 1
    assert "U+FB01 LATIN SMALL LIGATURE FI" in proc.stdout.decode()


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "a"],
        ["compare", "a", "b", "--form", "NFD"],
        ["normalize", "--form", "bogus", "x"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    proc = run(*args)
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith(b"sanitizer ")


def test_non_utf8_argument_exit_2() -> None:
    proc = run("compare", b"a\xff", "b")
    assert proc.returncode == 2
    assert proc.stderr.count(b"\n") == 1 and b"not valid UTF-8" in proc.stderr


def run_shell(command: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    """``python -m sanitizer ARGS`` started by sh with the redirection ``command``."""
    script = f'exec "$0" -m sanitizer "$@" {command}'
    return subprocess.run(
        ["sh", "-c", script, sys.executable, *args], capture_output=True, check=False, timeout=60
    )


@pytest.mark.parametrize(
    "args", [["normalize"], ["skeleton"], ["collisions", "-"], ["normalize", "--form", "NFKC"]]
)
@pytest.mark.parametrize(("redirect", "reason"), [("<&-", b"closed"), ("0>/dev/null", b"Bad")])
def test_closed_or_unreadable_stdin_is_a_one_line_error(
    args: list[str], redirect: str, reason: bytes
) -> None:
    """Started with stdin closed (<&-) or open for writing only: one line, exit 2."""
    proc = run_shell(redirect, *args)
    assert proc.returncode == 2, proc.stderr
    assert b"Traceback" not in proc.stderr
    assert proc.stderr.count(b"\n") == 1 and reason in proc.stderr
    assert proc.stderr.startswith(f"sanitizer {args[0]}: ".encode())


def test_normalize_splits_stdin_at_lf_and_crlf_only_and_refuses_the_rest() -> None:
    """str.splitlines() would split "ad\\x1cmin" in two and drop the control: each line
    holding a control or another line break is named on stderr instead, and refused."""
    stdin = "ad\x1cmin\nok\r\nx\u2028y\nc\rr\n\nlast\x85".encode()
    proc = run("normalize", stdin=stdin)
    assert proc.returncode == 1  # refused, as a PRECIS profile's refusal
    assert proc.stdout.decode() == "ok\n\n"
    errors = proc.stderr.decode().splitlines()
    assert [line.split(": ")[2] for line in errors] == ["line 1", "line 3", "line 4", "line 6"]
    assert "U+001C" in errors[0] and "at index 2" in errors[0] and "refused" in errors[0]
    assert "U+2028 LINE SEPARATOR" in errors[1] and "U+000D" in errors[2]
    assert "U+0085" in errors[3]


def test_normalize_refuses_an_argument_with_a_control(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["normalize", "a\x1cb", "\u212b", "x\ny"]) == 1
    out, err = capsys.readouterr()
    assert out == "\u00c5\n"
    assert [line.split(": ")[1] for line in err.splitlines()] == ["TEXT 1", "TEXT 3"]


def test_normalize_keeps_empty_lines_and_a_last_line_without_lf() -> None:
    proc = run("normalize", stdin=b"a\r\n\r\nb")
    assert (proc.returncode, proc.stdout) == (0, b"a\n\nb\n")
    assert run("normalize", stdin=b"").stdout == b""


def test_compare_shows_code_points_as_given_and_normalized(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """U+212B ANGSTROM SIGN and U+00C5 look alike and have one NFC: the output says which
    code points each side was given."""
    assert main(["compare", "\u212b", "\u00c5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == [
        "A (given): '\u212b'  U+212B",
        "A (NFC)  : '\u00c5'  U+00C5",
        "B (given): '\u00c5'  U+00C5",
        "B (NFC)  : '\u00c5'  U+00C5",
    ]
    assert main(["compare", "ad\u200bmin", "ADMIN", "--form", "NFKC_CASEFOLD"]) == 0  # erased
    out = capsys.readouterr().out
    assert "A (given)        : 'ad\\u200bmin'  U+0061 U+0064 U+200B" in out
    assert "B (NFKC_CASEFOLD): 'admin'" in out
