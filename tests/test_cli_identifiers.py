"""``sanitizer normalize`` and ``sanitizer compare``: in-process and as a subprocess."""

from __future__ import annotations

import pytest
from cli_runner import run_cli as run

from sanitizer.cli import main


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
