"""``sanitizer check`` on hostile files and as a new user meets it.

- Bounded: past ``--limit`` findings are counted, never built, located or shown; memory
  and work do not grow with the input (counted: objects built, bytes an excerpt reads,
  tracemalloc peaks; never wall time), with or without ``--policy``.
- One answer: the same bytes give the same ill-formed findings (grouped) with and
  without a policy, from a file or a pipe, under ``--encoding`` too; UTF-8 is checked to
  the end of a file whatever ``--max-bytes`` says.
- The gate is not switched off by a comment (declarations by kind of file) or by two
  bytes (a known kind of text is never binary); each skipped file is said.
- ``--quiet``; standard input closed.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings

from sanitizer.cli import _check, _inputs, _locate, _output
from sanitizer.cli._inputs import CHUNK, Input, Opened
from sanitizer.cli._report import Progress
from sanitizer.strategies import attack_bytes
from tests.support import cli_runner
from tests.support.cli_runner import CliResult, Pipe, check_settings, json_records

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "tests/data/sarif/sarif-schema-2.1.0.json").read_text())
TROJAN = "s = '\u202eevil\u202c'  # caf\u00e9\nx = 'p\u043est'\npost = 1\np\u043est = 2\n"


def run_cli(*args: str | Path, stdin: bytes = b"") -> CliResult:
    return cli_runner.run_cli("check", "--progress", "never", *args, stdin=stdin)


def outcome_of(
    data: bytes, options: tuple[str, ...], pipe: bool, name: str = "in.txt", first: int = CHUNK
) -> Any:
    """The outcome of ``sanitizer check`` on ``data`` as one input, in this process."""
    stream: Any = io.BufferedReader(Pipe(data)) if pipe else io.BytesIO(data)
    opened = Opened(name, name, stream, stream.read(first))
    settings = check_settings(*options)
    mode = _check.mode_for(Input(name, True), opened, settings)
    assert mode is not None
    outcome = mode(opened, settings, Progress(0, enabled=False))
    findings = list(outcome)
    if opened.spool is not None:
        opened.spool.close()
    return outcome, findings


# -- bounded ------------------------------------------------------------------------------


def count_built(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A counter of the findings built (``_output.FileFinding``)."""
    built = [0]
    real = _output.FileFinding.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        built[0] += 1
        real(self, *args, **kwargs)

    monkeypatch.setattr(_output.FileFinding, "__init__", counting)
    return built


@pytest.mark.parametrize(
    "options",
    [(), ("--policy", "SOURCE"), ("--policy", "TEXT")],
    ids=["utf-8", "source", "text"],
)
@pytest.mark.parametrize("unit", [b"\xff", b"\xc0\xae", "\u202e".encode(), b"\x1b"])
def test_findings_past_the_limit_are_counted_not_built(
    monkeypatch: pytest.MonkeyPatch, options: tuple[str, ...], unit: bytes
) -> None:
    built = count_built(monkeypatch)
    data = unit * (300_000 // len(unit))
    outcome, findings = outcome_of(data, ("--limit", "10", *options), pipe=False)
    expected = 300_000 // len(unit)
    if (unit == "\u202e".encode() and not options) or (unit == b"\x1b" and not options):
        expected = 0  # valid UTF-8: nothing without a policy
    assert outcome.found == expected
    assert len(findings) == min(10, expected)
    assert built[0] <= 10 + 1


@pytest.mark.parametrize("options", [(), ("--policy", "SOURCE")], ids=["utf-8", "source"])
@pytest.mark.parametrize("unit", [b"\xff", "\u202e".encode(), b"\x1b"], ids=["ff", "rlo", "esc"])
def test_memory_does_not_grow_with_a_hostile_input(
    monkeypatch: pytest.MonkeyPatch, options: tuple[str, ...], unit: bytes
) -> None:
    """tracemalloc's peak for an input four times larger is the same (a piece, a
    chunk, the listed findings), whatever the findings (pieces and reads of 4 KiB here,
    so that both inputs are many of them and the test stays fast)."""
    from sanitizer.cli import _judge, _mode_utf8, _verdict

    small_reads = 1 << 12
    monkeypatch.setattr(_judge, "PIECE", small_reads)
    monkeypatch.setattr(_verdict, "VERDICT_CHUNK", small_reads)
    for module in (_mode_utf8, _judge):
        monkeypatch.setattr(module, "CHUNK", small_reads)

    def peak(size: int) -> int:
        data = unit * (size // len(unit))
        tracemalloc.start()
        try:
            outcome_of(data, ("--limit", "10", *options), pipe=False, first=small_reads)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(32 << 10), peak(128 << 10)
    assert large < 1.2 * small + (16 << 10)


@pytest.mark.parametrize(
    "flood", ["\u202e" * 200_000, "\u2066" * 100_000 + "\u2069" * 100_000], ids=["rlo", "lri-pdi"]
)
def test_a_bidi_flood_past_the_limit_is_counted_in_runs(
    monkeypatch: pytest.MonkeyPatch, flood: str
) -> None:
    """Openers nested past UAX #9's max_depth, and the closers of such openers, are
    refused in runs once nothing more can be listed: the gate's per-control step runs
    for the first ones only, not for each of the 200,000."""
    from sanitizer import _source_gate

    calls = [0]
    real = _source_gate._BidiJudge._control

    def control(self: Any, ch: str, index: int) -> Any:
        calls[0] += 1
        return real(self, ch, index)

    monkeypatch.setattr(_source_gate._BidiJudge, "_control", control)
    outcome, findings = outcome_of(flood.encode(), ("--limit", "10", "--policy", "SOURCE"), False)
    paired = 2 * _source_gate._MAX_DEPTH if "\u2069" in flood else 0  # allowed: paired
    assert outcome.found == len(flood) and outcome.failing == len(flood) - paired
    assert len(findings) == 10
    assert calls[0] <= 2 * (_source_gate._MAX_DEPTH + 100)


def test_code_without_look_alike_punctuation_is_not_read_a_character_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A flood of bidi controls (or of any characters) in code: whether a character
    stands in for ASCII punctuation is asked once a distinct character, and only the
    look-alikes a run holds are looked at, one by one."""
    from sanitizer import _source_gate

    calls = [0]
    real = _source_gate._syntax_twin

    def twin(ch: str) -> str:
        calls[0] += 1
        return real(ch)

    monkeypatch.setattr(_source_gate, "_syntax_twin", twin)
    monkeypatch.setattr(_source_gate, "_TWINS", _source_gate._Twins())
    data = ("y = 2 \u2215* 3\nx = '" + "\u202e" * 100_000 + "' \u4e2d\n").encode()
    _, findings = outcome_of(data, ("--limit", "10", "--policy", "SOURCE"), False, "a.py")
    assert {f.kind for f in findings} >= {"syntax-lookalike"}
    assert calls[0] <= 10


def test_an_excerpt_reads_a_bounded_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """One line of a MiB of FF: each listed finding's excerpt decodes at most its
    context, and only listed findings get one."""
    seen: list[int] = []
    real = _locate.visible

    def visible(raw: bytes, trim_tail: bool = False) -> str:
        seen.append(len(raw))
        return real(raw, trim_tail)

    monkeypatch.setattr(_locate, "visible", visible)
    outcome, findings = outcome_of(b"\xff" * (1 << 20), ("--limit", "50"), pipe=True)
    assert outcome.found == 1 << 20 and len(findings) == 50
    assert len(seen) <= 3 * 50 and max(seen) <= _locate.CONTEXT


def test_excerpts_judge_each_character_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Excerpts of a flood of combining marks: whether a character is hidden is worked
    out once a distinct character, not once each time an excerpt shows it."""
    calls = [0]
    real = _locate._hidden

    def hidden(ch: str) -> bool:
        calls[0] += 1
        return real(ch)

    monkeypatch.setattr(_locate, "_hidden", hidden)
    monkeypatch.setattr(_locate, "_SHOWN", _locate._Shown())
    data = ("a" + "\u0301" * 40 + "\u200b").encode() * 5000
    _, findings = outcome_of(data, ("--limit", "500", "--policy", "TEXT"), pipe=False)
    assert len(findings) == 500 and all(f.excerpt for f in findings)
    assert "<U+200B>" in findings[0].excerpt + findings[1].excerpt
    assert calls[0] <= 3


def test_a_long_finding_has_a_short_excerpt() -> None:
    name = "p\u0430" * 100_000  # one identifier of 300 KB: mixes scripts
    data = f"{name} = 1\n".encode()
    _, findings = outcome_of(data, ("--policy", "SOURCE"), pipe=False, name="x.py")
    assert [f.kind for f in findings] == ["mixed-script"]
    assert len(findings[0].excerpt) < 400 and len(findings[0].what) < 200
    assert len(findings[0].reason) < 400


@pytest.mark.slow
@pytest.mark.parametrize("options", [(), ("--policy", "SOURCE"), ("--policy", "TEXT")])
@pytest.mark.parametrize(
    "content",
    [b"\xff" * (64 << 20), "\u202e".encode() * (20 << 20), b"\xff" * (64 << 20) + b"\n"],
    ids=["ff", "rlo", "ff-line"],
)
def test_peak_rss_under_64_mib(tmp_path: Path, options: tuple[str, ...], content: bytes) -> None:
    """The process's peak resident size (``getrusage(RUSAGE_CHILDREN)`` in a fresh
    wrapper) stays under 64 MiB for a 64 MiB hostile file, with or without a policy."""
    path = tmp_path / "junk.py"
    path.write_bytes(content)
    measure = (
        "import resource, subprocess, sys\n"
        "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    cmd = [sys.executable, "-c", measure, *cli_runner.SANITIZER, "check", *options, str(path)]
    code, rss_kib = map(int, subprocess.run(cmd, capture_output=True, check=True).stdout.split())
    assert code == (0 if not options and content.startswith(b"\xe2") else 1)  # RLO: UTF-8
    assert rss_kib < 64 * 1024


# -- one answer ---------------------------------------------------------------------------


def ill_formed(findings: list[Any]) -> list[tuple[Any, ...]]:
    return [
        (f.kind, f.what, f.place.start, f.place.end, f.place.line, f.place.column,
         f.place.end_line, f.place.end_column, f.excerpt)
        for f in findings
    ]  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(attack_bytes(max_pieces=10))
def test_the_same_bytes_give_the_same_findings_in_every_mode(data: bytes) -> None:
    """Without a policy, with SOURCE or TEXT, from a file or a pipe: one answer."""
    base = ill_formed(outcome_of(data, (), pipe=False)[1])
    if not base:
        return  # valid: the policies' findings are the policies'
    for options in [(), ("--policy", "SOURCE"), ("--policy", "TEXT")]:
        for pipe in (False, True):
            assert ill_formed(outcome_of(data, options, pipe)[1]) == base, (options, pipe)


@settings(max_examples=30, deadline=None)
@given(attack_bytes(max_pieces=6))
def test_the_same_units_give_the_same_findings_under_encoding(data: bytes) -> None:
    """UTF-16 with stray surrogates: the same findings with and without a policy."""
    wide = data.decode("utf-8", "surrogateescape").encode("utf-16-le", "surrogatepass")
    wide += b"\x00\xd8"  # a lone high surrogate at the end
    base = ill_formed(outcome_of(wide, ("--encoding", "utf-16le"), pipe=False)[1])
    assert base
    for pipe in (False, True):
        got = outcome_of(wide, ("--encoding", "utf-16le", "--policy", "TEXT"), pipe)[1]
        assert ill_formed(got) == base


def test_c0_ae_is_one_finding_with_and_without_source(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1  # \xc0\xae\n")
    for options in [(), ("--policy", "SOURCE")]:
        for fmt in ("json", "sarif"):
            proc = run_cli(*options, "--format", fmt, path)
            if fmt == "json":
                rules = [r["rule"] for r in json_records(proc.stdout)[:-1]]
            else:
                rules = [r["ruleId"] for r in json.loads(proc.stdout)["runs"][0]["results"]]
            assert rules == ["overlong"], (options, fmt)


@pytest.mark.parametrize("pipe", [False, True], ids=["file", "stdin"])
def test_utf8_is_checked_past_max_bytes(tmp_path: Path, pipe: bool) -> None:
    data = b"a" * 5000 + b"\xc0\xae"
    path = tmp_path / "big.txt"
    path.write_bytes(data)
    args = ("--policy", "SOURCE", "--max-bytes", "1000", "--json")
    proc = run_cli(*args, "-", stdin=data) if pipe else run_cli(*args, path)
    got = json_records(proc.stdout)
    assert [r["rule"] for r in got[:-1]] == ["overlong"]
    assert got[-1]["summary"]["bytes"] == len(data)
    valid = b"a" * 5000
    path.write_bytes(valid)
    proc = run_cli(*args, "-", stdin=valid) if pipe else run_cli(*args, path)
    got = json_records(proc.stdout)
    assert [(r["rule"], r["end"]) for r in got[:-1]] == [("too-long", 5000)]
    assert got[-1]["summary"]["bytes"] == 5000


def test_help_says_what_max_bytes_does() -> None:
    text = cli_runner.run_cli("check", "--help", text=True).stdout
    assert "streams and has no limit" not in text
    assert "--quiet" in text and "fail" in text


# -- a comment does not switch the gate off -------------------------------------------------


COOKIE = b"# -*- coding: latin-1 -*-\n"
ATTACK = "s = '\u202eevil'\n".encode() + b"x = '\xc0\xae'\n"


@pytest.mark.parametrize(
    ("name", "head", "declared"),
    [
        ("run.sh", b"#!/bin/sh\n" + COOKIE, False),  # a shell comment
        ("notes.md", b"# Python's coding: latin-1 cookie\n", False),
        ("notes.txt", COOKIE, False),
        ("x.js", b"// coding: latin-1\n", False),
        ("mod.py", COOKIE, True),
        ("stub.pyi", COOKIE, True),
        ("tool", b"#!/usr/bin/env python3\n" + COOKIE, True),  # a python shebang
        ("data.xml", b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<a/>\n', True),
        ("page.md", b'<?xml version="1.0" encoding="ISO-8859-1"?>\n', False),
        ("feed", b'<?xml version="1.0" encoding="ISO-8859-1"?>\n', True),  # no kind: XML
        ("page.html", b'<html><head><meta charset="latin1"></head>\n', True),
        ("page.txt", b'<html><head><meta charset="latin1"></head>\n', False),
        ("mod.py", b"x = 1\n" + b"y = 2\n" + COOKIE, False),  # line 3: not a cookie
    ],
)
def test_declarations_count_only_where_their_readers_read_them(
    tmp_path: Path, name: str, head: bytes, declared: bool
) -> None:
    path = tmp_path / name
    path.write_bytes(head + ATTACK)
    proc = run_cli("--declared-encoding", "allow", "--policy", "SOURCE", "--json", path)
    rules = {r["rule"] for r in json_records(proc.stdout)[:-1]}
    if declared:
        assert rules == {"declared-encoding"} and proc.returncode == 0
    else:  # read as UTF-8: the overlong is found, the file fails
        assert "declared-encoding" not in rules and "overlong" in rules
        assert proc.returncode == 1


def test_a_markdown_title_about_cookies_passes(tmp_path: Path) -> None:
    path = tmp_path / "README.md"
    path.write_text("# What `coding: latin-1` means to Python\n\nPEP 263.\n", encoding="utf-8")
    assert run_cli(path).returncode == 0
    assert run_cli("--policy", "SOURCE", path).returncode == 0


# -- two bytes do not take a file out of the gate --------------------------------------------


def test_a_nul_and_a_bad_byte_do_not_hide_a_c_file(tmp_path: Path) -> None:
    """gcc compiles a C file with ``/* NUL FF */`` in it: a known kind of source is
    always read, so two bytes cannot take it (and a Trojan Source below) out."""
    trojan = 'int main(void) {\n  char *s = "\u202e } ";\n}\n'.encode()
    (tmp_path / "evil.c").write_bytes(b"/* \x00\xff */\n" + trojan)
    (tmp_path / "nul.c").write_bytes(b"/* \x00 */\n" + trojan)  # valid UTF-8: judged
    proc = run_cli("--policy", "SOURCE", "--json", tmp_path)
    got = json_records(proc.stdout)
    assert proc.returncode == 1
    assert got[-1]["summary"]["skipped_binary"] == 0
    rules = {(Path(r["path"]).name, r["rule"]) for r in got[:-1]}
    assert rules == {("evil.c", "invalid-byte"), ("nul.c", "nul"), ("nul.c", "bidi-control")}


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_each_skipped_binary_file_is_said(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "blob").write_bytes(b"\x7fELF\x00\x01\x02" + b"\x80" * 50)
    (tmp_path / "ok.txt").write_bytes(b"fine\n")
    proc = run_cli("--format", fmt, "--verbose", tmp_path)
    assert proc.returncode == 0
    if fmt == "text":
        assert proc.stdout.decode().startswith(f"{tmp_path / 'blob'}: skipped: binary")
        plain = run_cli("--format", fmt, tmp_path)  # without --verbose: counted only
        assert plain.stdout == b"" and b"skipped 1 binary (--verbose lists them)" in plain.stderr
    elif fmt == "json":
        skipped = [r for r in json_records(proc.stdout) if "skipped" in r]
        assert skipped == [
            {"path": str(tmp_path / "blob"), "skipped": "binary", "reason": skipped[0]["reason"]}
        ]
    else:
        log = json.loads(proc.stdout)
        jsonschema.Draft7Validator(SCHEMA).validate(log)
        notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        assert [n["descriptor"]["id"] for n in notes] == ["binary"]
        uri = notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri.endswith("blob")
    assert b"skipped 1 binary" in proc.stderr
    quiet = run_cli("--quiet", "--format", fmt, tmp_path)
    assert b"blob" not in quiet.stdout or fmt == "sarif"


def test_binary_fail_makes_the_gate_fail(tmp_path: Path) -> None:
    (tmp_path / "blob").write_bytes(b"\x00\x01\x02")
    proc = run_cli("--binary", "fail", "--json", tmp_path)
    assert proc.returncode == 1
    assert [r["rule"] for r in json_records(proc.stdout)[:-1]] == ["binary"]


def test_a_file_named_as_an_image_is_binary_on_bad_bytes(tmp_path: Path) -> None:
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\xff" * 20)
    (tmp_path / "fake.png").write_bytes(b"just text\n")  # text named as an image: read
    proc = run_cli("--json", tmp_path)
    assert [r.get("skipped") for r in json_records(proc.stdout)[:-1]] == ["binary"]
    assert json_records(proc.stdout)[-1]["summary"]["files"] == 1


def test_a_binary_record_file_whose_bytes_are_ascii_is_binary(tmp_path: Path) -> None:
    """A dBase table (a shapefile's .dbf) of a few records: every byte is ASCII, with NUL
    padding and control bytes in its header, so it is well-formed UTF-8; its name says it
    is binary, and it is skipped, not judged as text.  A small text file of no known kind
    with a U+0000 is still read (a decoder's test file), and so is a .dbf of text."""
    header = b"\x03_\x07\x1a\x01\x00\x00\x00A\x00\x0c\x00" + b"\x00" * 20 + b"FID\x00" * 2
    (tmp_path / "points.dbf").write_bytes(header + b"\r           0")
    (tmp_path / "note.dbf").write_bytes(b"plain text named as a table\n")
    (tmp_path / "valid-u0000").write_bytes(b"a\x00b")
    proc = run_cli("--policy", "SOURCE", "--json", tmp_path)
    got = json_records(proc.stdout)
    assert [r["path"].rsplit("/", 1)[-1] for r in got if r.get("skipped")] == ["points.dbf"]
    assert got[-1]["summary"]["files"] == 2
    assert proc.returncode == 1  # the U+0000 of the small text file is judged


# -- the text profile on text files ---------------------------------------------------------


def test_translations_get_the_character_rules_only(tmp_path: Path) -> None:
    po = (
        'msgid "To"\nmsgstr "\u03a4\u03bf"\n'  # Greek "To" beside Latin "To"
        'msgid "CSRF check"\nmsgstr "CSRF\u06d5\u06a9\u06d5"\n'  # a Kurdish suffix
        'msgid "id"\nmsgstr "\u179b\u17c1\u1781\u200b\u179f\u17c6\u1782\u17b6\u179b\u17cb"\n'
    )
    (tmp_path / "django.po").write_text(po, encoding="utf-8")
    assert run_cli("--policy", "SOURCE", tmp_path / "django.po").returncode == 0
    (tmp_path / "same.py").write_text(po.replace("msgid", "#").replace("msgstr", "x ="))
    assert run_cli("--policy", "SOURCE", tmp_path / "same.py").returncode == 1
    (tmp_path / "evil.po").write_text('msgstr "\u202e } "\n', encoding="utf-8")
    assert run_cli("--policy", "SOURCE", tmp_path / "evil.po").returncode == 1


# -- --quiet ----------------------------------------------------------------------------


def test_quiet_shows_failing_findings_only(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("\u05e9\u05dc\u05d5\u05dd\u200d\u05d0 ok\n\u001b[0m\n", encoding="utf-8")
    loud = run_cli("--policy", "TEXT", "--json", path)
    quiet = run_cli("--policy", "TEXT", "--json", "--quiet", path)
    assert quiet.returncode == loud.returncode == 1
    assert [r["fails"] for r in json_records(loud.stdout)[:-1]] == [False, True]
    assert [r["fails"] for r in json_records(quiet.stdout)[:-1]] == [True]
    assert (
        json_records(quiet.stdout)[-1] == json_records(loud.stdout)[-1]
    )  # the summary counts everything
    assert run_cli("-q", "--policy", "TEXT", tmp_path / "a.txt").stdout.count(b"\n") == 1


# Many allowed findings before one that fails: (profile, allowed line, encoding).
_CROWDED = [
    ("TEXT", "\u200f x\n", "utf-8"),  # allowed by the policy layer
    ("TEXT", "\u200f x\n", "utf-16"),
    ("SOURCE", "a\ufdd0b\n", "utf-8"),  # allowed by the policy layer, under the gate
    ("SOURCE", "a\u200bb\n", "utf-8"),  # allowed by the gate's own rule (text, not code)
]


@pytest.mark.parametrize(("profile", "allowed", "encoding"), _CROWDED)
def test_a_failing_finding_is_listed_after_more_allowed_ones_than_the_limit(
    tmp_path: Path, profile: str, allowed: str, encoding: str
) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes((allowed * 1200 + "x\x1b\n").encode(encoding))
    options = ("--policy", profile, "--encoding", encoding, "--limit", "1000")
    quiet = run_cli(*options, "--json", "--quiet", path)
    assert quiet.returncode == 1
    failing = json_records(quiet.stdout)[:-1]
    assert [(r["rule"], r["line"], r["fails"]) for r in failing] == [("control", 1201, True)]
    assert json_records(quiet.stdout)[-1]["summary"]["failing"] == 1
    loud = json_records(run_cli(*options, "--json", path).stdout)
    assert [r["line"] for r in loud[:-1] if r["fails"]] == [1201]
    assert len(loud) - 1 == 1000  # the limit holds, the failing one inside it
    sarif = json.loads(run_cli(*options, "--format", "sarif", "--quiet", path).stdout)
    results = sarif["runs"][0]["results"]
    lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results]
    assert lines == [1201]
    assert run_cli(*options, "--quiet", path).stdout.count(b"\n") == 1


# -- standard input closed ------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    ["", "--policy SOURCE", "--format sarif", "--encoding utf-16", "--policy TEXT --json"],
)
def test_closed_stdin_is_one_line_in_every_mode(options: str) -> None:
    result = subprocess.run(
        ["bash", "-c", f"'{sys.executable}' -m sanitizer check {options} - <&-"],
        capture_output=True,
        check=False,
    )
    assert result.returncode == 2
    assert b"Traceback" not in result.stderr
    assert result.stderr.decode().splitlines()[0] == (
        "sanitizer check: <stdin>: standard input is closed"
    )


def test_inputs_module_keeps_its_names() -> None:
    assert _inputs.BINARY_NOTE.startswith("binary:")


@pytest.mark.parametrize("ending", ["\r", "\n", "\r\n"])
def test_lines_end_at_cr_lf_and_crlf_in_every_format(tmp_path: Path, ending: str) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(ending.join(["a = 1", "b = 2", 'c = "\u202e"', ""]).encode())
    found = json_records(run_cli("--policy", "SOURCE", "--json", path).stdout)[0]
    assert (found["line"], found["column"], found["excerpt"]) == (3, 6, 'c = "<U+202E>"')
    sarif = json.loads(run_cli("--policy", "SOURCE", "--format", "sarif", path).stdout)
    region = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 3
    assert ending in sarif["runs"][0]["newlineSequences"]
