"""Each input mode of ``sanitizer check``, called on its own, reports what the command does.

A mode is a function ``(opened, settings, progress) -> Outcome``.  For each one, on an
input that takes it, the findings it yields (written through the same sink: text lines,
JSON records, SARIF results), its byte count and its counts of findings and failing
findings equal what ``sanitizer check`` prints for the same input; and ``_mode_for``
picks that mode for the input.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from sanitizer.cli import (
    _check,
    _check_args,
    _inputs,
    _mode_declared,
    _mode_policy,
    _mode_source,
    _mode_utf8,
    _mode_wide,
    _mode_wide_policy,
    main,
)
from sanitizer.cli._inputs import CHUNK, Input, Opened
from sanitizer.cli._output import Writer
from sanitizer.cli._report import Outcome, Progress, Sink
from tests.support.cli_runner import Pipe, check_settings

TROJAN = "s = '\u202eevil\u202c'  # caf\u00e9\nx = 'p\u043est'\npost = 1\np\u043est = 2\n"
ILL_FORMED = b"ab\xc0\xaf c\r\n\xed\xa0\x80 \xf0\x9f\x98\x80 \xf0\x9f\x98 \xe2\x80\xae x\n" * 3
WIDE_TEXT = "h\u00e9llo \U0001f600\r\nw\u00f6rld \u202e\n"


# name: (the mode, its options, the input's bytes, read from stdin)
CASES: dict[str, tuple[Any, tuple[str, ...], bytes, bool]] = {
    "stream (stdin pipe)": (_mode_utf8.stream_mode, (), ILL_FORMED, True),
    "file, ill-formed": (_mode_utf8.file_mode, (), ILL_FORMED, False),
    "file, ill-formed, --limit 2": (_mode_utf8.file_mode, ("--limit", "2"), ILL_FORMED, False),
    "file, valid": (_mode_utf8.file_mode, (), "caf\u00e9 \U0001f600\n".encode() * 999, False),
    "declared encoding": (
        _mode_declared.declared_mode,
        ("--declared-encoding", "allow"),
        b"#!/usr/bin/env python\n# -*- coding: latin-1 -*-\nx = '\xe9'\n",
        False,
    ),
    "utf-16le": (
        _mode_wide.wide_mode,
        ("--encoding", "utf-16le"),
        WIDE_TEXT.encode("utf-16-le") + b"\x00\xdc" + "\U0001f600\n".encode("utf-16-le") + b"!",
        False,
    ),
    "utf-16, no byte order mark": (
        _mode_wide.wide_mode,
        ("--encoding", "utf-16"),
        WIDE_TEXT.encode("utf-16-be"),
        False,
    ),
    "utf-32be from stdin": (
        _mode_wide.wide_mode,
        ("--encoding", "utf-32be"),
        WIDE_TEXT.encode("utf-32-be") + b"\x00\x00\xd8\x00" + "x\n".encode("utf-32-be"),
        True,
    ),
    "utf-16 with a policy": (
        _mode_wide_policy.wide_policy_mode,
        ("--encoding", "utf-16", "--policy", "TEXT"),
        b"\xff\xfe" + WIDE_TEXT.encode("utf-16-le") + b"\x00\xd8" + "\u200b\n".encode("utf-16-le"),
        False,
    ),
    "policy": (
        _mode_policy.policy_mode,
        ("--policy", "TEXT"),
        b"\xef\xbb\xbf" + "a\u200bb\x1b[0m \u05e9\u200f\n".encode() + ILL_FORMED,
        False,
    ),
    "policy, --limit 3": (
        _mode_policy.policy_mode,
        ("--policy", "TEXT", "--limit", "3"),
        "\u200b\x1b\n".encode() * 20,
        False,
    ),
    "policy, too long": (
        _mode_policy.policy_mode,
        ("--policy", "TEXT", "--max-bytes", "10"),
        ILL_FORMED,
        False,
    ),
    "policy, listed up to max_findings": (
        _mode_policy.policy_mode,
        ("--policy", "TEXT"),
        b"\x1b" * 1500,
        False,
    ),
    "source": (_mode_source.source_mode, ("--policy", "SOURCE"), TROJAN.encode(), False),
    "source, strict, from stdin": (
        _mode_source.source_mode,
        ("--policy", "SOURCE", "--strict", "--columns", "utf16"),
        ("\U0001f600 = '\u200b'\n" + TROJAN).encode(),
        True,
    ),
    "source, not UTF-8": (
        _mode_source.source_mode,
        ("--policy", "SOURCE"),
        TROJAN.encode() + b"\xc0\xaf\n",
        False,
    ),
}
FORMATS = ("text", "json", "sarif")


def _command(
    options: tuple[str, ...],
    path: str,
    data: bytes,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> str:
    if path == "-":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Pipe(data))))
    main(["check", "--progress", "never", *options, path])
    return capfd.readouterr().out


def _by_mode(
    case: str, path: str, settings: _check_args.Settings
) -> tuple[Any, Opened, Outcome, list[Any]]:
    mode, _, data, from_stdin = CASES[case]
    stream: Any = io.BufferedReader(Pipe(data)) if from_stdin else _inputs.open_input(path)
    item = Input(path, True)
    opened = Opened(path, item.label, stream, stream.read(CHUNK))
    chosen = _check.mode_for(item, opened, settings)
    outcome = mode(opened, settings, Progress(0, enabled=False))
    findings = list(outcome)
    stream.close()
    return chosen, opened, outcome, findings


def _write(fmt: str, label: str, outcome: Outcome, settings: _check_args.Settings) -> None:
    """Write ``outcome`` through the command's sink, in ``fmt`` (no summary)."""
    sink = Sink(Writer(fmt=fmt), settings.limit, settings.columns)
    sink.emit_file(label, outcome)
    if fmt == "sarif":  # the log's end (the summary of JSON Lines is left out)
        sink.close(True, 0, {})
    sys.stdout.flush()


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", CASES)
def test_a_mode_reports_what_the_command_does(
    case: str,
    fmt: str,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mode, options, data, from_stdin = CASES[case]
    name = "input.py" if mode is _mode_declared.declared_mode else "input.txt"  # PEP 263: Python
    path = "-" if from_stdin else str(tmp_path / name)
    if not from_stdin:
        Path(path).write_bytes(data)
    options = ("--format", fmt, *options)
    printed = _command(options, path, data, capfd, monkeypatch)
    settings = check_settings(*options)
    chosen, opened, outcome, findings = _by_mode(case, path, settings)
    assert chosen is mode
    assert outcome.listed == len(findings)
    _write(fmt, opened.label, Outcome(findings, 0, outcome.more, outcome.more_failing), settings)
    written = capfd.readouterr().out
    if fmt == "text":
        assert written == printed
        return
    if fmt == "json":
        records = [json.loads(line) for line in printed.splitlines()]
        assert [json.loads(line) for line in written.splitlines()] == records[:-1]
        summary = records[-1]["summary"]
    else:
        log, ours = json.loads(printed), json.loads(written)
        assert ours["runs"][0]["results"] == log["runs"][0]["results"]
        summary = log["runs"][0]["properties"]["summary"]
    assert summary["bytes"] == outcome.size
    assert summary["findings"] == outcome.found
    assert summary["failing"] == outcome.failing
    assert summary["files_with_findings"] == (outcome.found > 0)
    assert outcome.found > 0 or case == "file, valid"


def test_findings_counted_but_not_listed_are_carried(tmp_path: Path) -> None:
    """TEXT lists 1000 findings (``Policy.max_findings``); the outcome counts the rest."""
    path = tmp_path / "input.txt"
    path.write_bytes(CASES["policy, listed up to max_findings"][2])
    settings = check_settings("--policy", "TEXT")
    _, _, outcome, findings = _by_mode("policy, listed up to max_findings", str(path), settings)
    assert (len(findings), outcome.more, outcome.failing, outcome.size) == (1000, 500, 1500, 1500)


def test_streamed_modes_count_every_byte_read() -> None:
    for case in ("stream (stdin pipe)", "utf-32be from stdin", "source, strict, from stdin"):
        _, options, data, _ = CASES[case]
        assert _by_mode(case, "-", check_settings(*options))[2].size == len(data)
