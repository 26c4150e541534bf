"""The verdict pass of ``sanitizer check``: a valid file is proven by the UTF-8
validator in big reads, with no decoder and no line counting; any other file is read
again by the exact path.  So the output must be the same whichever path decides: each
case is checked against the same bytes given on a pipe, which the exact path reads."""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sanitizer import _native
from sanitizer.cli import _check, _mode_utf8, _verdict, main
from tests.support.cli_runner import Pipe

SAMPLE = "héllo wörld 日本語 🙂👍🏽 abc\n".encode()  # 1, 2, 3 and 4-byte characters
READ = _verdict.VERDICT_CHUNK
FIRST = _check.CHUNK  # what _check_one reads before the verdict pass


def text_of(size: int) -> bytes:
    """``size`` bytes of ``SAMPLE`` repeated, cut back to a character boundary."""
    data = (SAMPLE * (size // len(SAMPLE) + 1))[:size]
    return data[: _native.utf8_valid_prefix_py(data)]


def _run(args: list[str], capfd: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, Any]]]:
    code = main(["check", "--json", *args])
    out = capfd.readouterr().out
    records = [json.loads(line) for line in out.splitlines()]
    for record in records:
        record.pop("path", None)
    return code, records


@pytest.fixture(params=["native", "python"])
def validator(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both validators decide: the extension's (when built) and the pure-Python twin."""
    if request.param == "python":
        monkeypatch.setattr(_verdict, "utf8_valid_prefix", _native.utf8_valid_prefix_py)
    return str(request.param)


def _same_as_pipe(
    data: bytes,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *options: str,
) -> list[dict[str, Any]]:
    path = tmp_path / "input.txt"
    path.write_bytes(data)
    by_file = _run([*options, str(path)], capfd)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Pipe(data))))
    by_pipe = _run([*options, "-"], capfd)
    assert by_file == by_pipe
    return by_file[1]


BIG = 2 * READ + FIRST + 12_345


@pytest.mark.parametrize(
    "where",
    [0, 5, FIRST - 1, FIRST, FIRST + 1, FIRST + READ - 1, FIRST + READ, FIRST + READ + 2,
     BIG - 70, BIG - 60, BIG - 3, BIG - 1],
)  # fmt: skip
def test_an_error_anywhere_is_reported_as_by_the_exact_path(
    where: int,
    validator: str,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = bytearray(text_of(BIG))
    data[where] = 0xFF  # never in UTF-8: ill-formed there, and maybe a character cut
    records = _same_as_pipe(bytes(data), tmp_path, capfd, monkeypatch)
    assert records[0]["start"] <= where < records[-2]["end"]
    assert records[-1]["summary"]["bytes"] == len(data)


@pytest.mark.parametrize("tail", [b"\xe6", b"\xe6\x97", b"\xf0\x9f\x99"])
def test_a_character_cut_short_at_the_end(
    tail: bytes,
    validator: str,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = text_of(READ + FIRST) + tail
    records = _same_as_pipe(data, tmp_path, capfd, monkeypatch)
    assert [r["rule"] for r in records[:-1]] == ["incomplete"]


@pytest.mark.parametrize("size", [0, 1, FIRST - 1, FIRST, FIRST + 1, BIG])
def test_valid_files_of_every_size(
    size: int,
    validator: str,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = text_of(size)
    records = _same_as_pipe(data, tmp_path, capfd, monkeypatch)
    assert records == [records[-1]]
    assert records[-1]["summary"]["bytes"] == len(data)
    assert records[-1]["summary"]["findings"] == 0


def test_overlong_nul_takes_the_exact_path(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = text_of(FIRST + 100) + b"\xc0\x80" + text_of(READ)
    assert _same_as_pipe(data, tmp_path, capfd, monkeypatch)[-1]["summary"]["findings"] == 1
    allowed = _same_as_pipe(data, tmp_path, capfd, monkeypatch, "--allow-overlong-nul")
    assert allowed[-1]["summary"]["findings"] == 0


def test_a_valid_file_is_decided_without_the_exact_path(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object) -> Callable[..., object]:
        raise AssertionError("the exact path read a valid file")

    monkeypatch.setattr(_mode_utf8, "_utf8_findings", refuse)
    path = tmp_path / "valid.txt"
    path.write_bytes(text_of(BIG))
    code, records = _run([str(path)], capfd)
    assert code == 0
    assert records[-1]["summary"]["bytes"] == path.stat().st_size


# -- big files, proven in parts by threads ----------------------------------------------


@pytest.fixture
def in_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file is big enough to be proven in parts (``--jobs`` says how many)."""
    monkeypatch.setattr(_verdict, "PARALLEL_MIN", 0)


def cuts(data: bytes, parts: int) -> list[int]:
    """Where ``_prove_in_parts`` cuts ``data`` before moving to a character start."""
    start = _native.utf8_valid_prefix_py(data[:FIRST])
    return [start + (len(data) - start) * k // parts for k in range(1, parts)]


@pytest.mark.parametrize("parts", [2, 3, 5])
@pytest.mark.parametrize("shift", range(-4, 5))
def test_an_error_near_a_cut_is_reported_as_by_the_exact_path(
    parts: int,
    shift: int,
    in_parts: None,
    validator: str,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = bytearray(text_of(BIG))
    spoiled = [cut + shift for cut in cuts(bytes(data), parts)]
    for where in spoiled:
        data[where] = 0xFF
    records = _same_as_pipe(bytes(data), tmp_path, capfd, monkeypatch, f"--jobs={parts}")
    for where in spoiled:
        assert any(r["start"] <= where < r["end"] for r in records[:-1])
    assert records[-1]["summary"]["bytes"] == len(data)


@pytest.mark.parametrize("run", [b"\x80\x80\x80", b"\x80\x80\x80\x80", b"\xbf" * 9])
def test_continuation_bytes_at_a_cut(
    run: bytes,
    in_parts: None,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cut moves past at most three continuation bytes; on more it gives up."""
    data = bytearray(text_of(BIG))
    (cut,) = cuts(bytes(data), 2)
    data[cut : cut + len(run)] = run
    records = _same_as_pipe(bytes(data), tmp_path, capfd, monkeypatch, "--jobs=2")
    assert records[-1]["summary"]["findings"] >= 1


@pytest.mark.parametrize("parts", [2, 3, 4, 7])
@pytest.mark.parametrize("shift", range(4))
def test_a_valid_file_is_proven_in_parts(
    parts: int,
    shift: int,
    in_parts: None,
    validator: str,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cuts fall inside 2-, 3- and 4-byte characters as ``shift`` moves the text."""

    def refuse(*args: object) -> Callable[..., object]:
        raise AssertionError("the exact path read a valid file")

    monkeypatch.setattr(_mode_utf8, "_utf8_findings", refuse)
    path = tmp_path / "valid.txt"
    path.write_bytes(b"x" * shift + text_of(BIG))
    code, records = _run([f"--jobs={parts}", str(path)], capfd)
    assert code == 0
    assert records[-1]["summary"]["bytes"] == path.stat().st_size


def test_a_character_cut_short_at_the_end_of_a_file_in_parts(
    in_parts: None,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = text_of(BIG) + b"\xf0\x9f\x99"
    records = _same_as_pipe(data, tmp_path, capfd, monkeypatch, "--jobs=3")
    assert [r["rule"] for r in records[:-1]] == ["incomplete"]


def test_parts_for() -> None:
    small = _verdict.PARALLEL_MIN - 1
    assert _verdict.parts_for(0, small) == _verdict.parts_for(8, small) == 1
    assert _verdict.parts_for(3, _verdict.PARALLEL_MIN) == 3
    assert _verdict.parts_for(1, 1 << 40) == 1
    assert 1 <= _verdict.parts_for(0, 1 << 40) <= _verdict.MAX_PARTS


def test_a_read_error_in_a_thread_reaches_the_caller(
    in_parts: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "valid.txt"
    path.write_bytes(text_of(BIG))
    calls: list[int] = []

    def failing(fd: int, buffers: list[memoryview], at: int) -> int:
        calls.append(at)
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "preadv", failing)
    with open(path, "rb", buffering=0) as stream:
        first = stream.read(FIRST)
        with pytest.raises(OSError, match="Input/output"):
            _verdict.valid_size(stream, first, lambda n: None, 3)
    assert len(calls) == 3


@pytest.mark.parametrize("parts", [1, 3])
@pytest.mark.parametrize("spoil", [None, 5, FIRST + 7, BIG - 2])
def test_stdin_from_a_file_read_in_part_already(
    parts: int,
    spoil: int | None,
    in_parts: None,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Standard input redirected from a file the shell had read from: the check starts
    where stdin stands, not at the file's first byte, in one read or in parts."""
    skipped = b"\xff\xfe junk a shell script read before starting the check\n"
    data = bytearray(text_of(BIG))
    if spoil is not None:
        data[spoil] = 0xFF
    path = tmp_path / "input.txt"
    path.write_bytes(skipped + data)
    (tmp_path / "alone").mkdir()
    expected = _same_as_pipe(bytes(data), tmp_path / "alone", capfd, monkeypatch)
    stdin = open(path, "rb")
    try:
        stdin.seek(len(skipped))
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stdin))
        code, records = _run([f"--jobs={parts}", "-"], capfd)
    finally:
        stdin.close()
    assert records == expected
    assert code == (0 if spoil is None else 1)
