"""``sanitizer normalize --precis`` and ``sanitizer compare --precis``: in-process and as a
subprocess.  A refusal is one line on stderr (or one line of the comparison) and exit 1;
usage errors exit 2, as the CLI's other commands."""

from __future__ import annotations

import pytest

from sanitizer.cli import main
from tests.support.cli_runner import run_cli as run


def test_normalize_enforces(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["normalize", "--precis", "UsernameCaseMapped", "\uff2aULIET", "\u0130"]) == 0
    assert capsys.readouterr().out == "juliet\ni\u0307\n"
    assert main(["normalize", "--precis", "nicknamecasemapped", "--codepoints", " A  B "]) == 0
    assert capsys.readouterr().out == "a b\n  U+0061 U+0020 U+0062\n"


def test_normalize_refusals_are_one_line_each_and_exit_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["normalize", "--precis", "UsernameCaseMapped", "ok", "a b", "x\u202e"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "ok\n"
    lines = captured.err.splitlines()
    assert lines == [
        "sanitizer normalize: TEXT 2: refused by UsernameCaseMapped: U+0020 SPACE ' ' at "
        "index 1 is a space, which an identifier may not contain (RFC 8264 §9.14) "
        "[DISALLOWED/spaces]",
        "sanitizer normalize: TEXT 3: refused by UsernameCaseMapped: U+202E RIGHT-TO-LEFT "
        "OVERRIDE at index 1 is a default-ignorable code point or a noncharacter "
        "(RFC 8264 §9.13) [DISALLOWED/precis_ignorable_properties]",
    ]


def test_compare(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "--precis", "UsernameCaseMapped", "JULIET", "\uff4auliet"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "equal"
    assert "A (UsernameCaseMapped): 'juliet'  U+006A" in out
    assert main(["compare", "--precis", "UsernameCasePreserved", "JULIET", "juliet"]) == 1
    out = capsys.readouterr().out
    assert "different:" in out and "A[0:6] U+004A LATIN CAPITAL LETTER J 'J'" in out


def test_compare_a_refused_string_equals_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "--precis", "OpaqueString", "pass\x07", "pass\x07"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "A (given)       : 'pass\\x07'  U+0070 U+0061 U+0073 U+0073 U+0007"
    assert out[1].startswith("A (OpaqueString): refused by OpaqueString: U+0007 <control BEL> ")
    assert out[-1] == "different: a string the profile refuses equals nothing (RFC 8264 §7)"


def test_subprocess_stdin_and_exit_codes() -> None:
    proc = run("normalize", "--precis", "NicknameCaseMapped", stdin=b"Romeo\n  x\x07\nJuliet\n")
    assert proc.returncode == 1
    assert proc.stdout.decode() == "romeo\njuliet\n"
    err = proc.stderr.decode()
    assert err.count("\n") == 1
    assert err.startswith("sanitizer normalize: stdin: line 2: refused by NicknameCaseMapped: ")
    assert run("compare", "--precis", "UsernameCaseMapped", "A", "a").returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["normalize", "--precis", "Username", "x"], "unknown PRECIS profile 'Username'"),
        (["normalize", "--precis", "OpaqueString", "--form", "NFC", "x"], "exclude each other"),
        (["compare", "--precis", "OpaqueString", "--confusable", "a", "b"], "exclude each other"),
        (["compare", "--precis", "OpaqueString", "--form", "NFKC", "a", "b"], "exclude each other"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    proc = run(*args)
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr
    last = proc.stderr.decode().strip().splitlines()[-1]
    assert last.startswith("sanitizer ") and message in last
