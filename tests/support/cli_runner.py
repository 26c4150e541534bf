"""The one way tests run the command line as users do: ``python -m sanitizer ARGS`` in a
child process, with the given stdin, environment and working directory.

Tests import ``run_cli`` (or take the ``sanitizer_cli`` fixture of ``conftest.py``) instead of
spelling out ``subprocess.run``: the interpreter, the timeout and the environment rules
are written once.  The child inherits this process's environment, so a suite run with
``SANITIZER_PURE_PYTHON=1`` runs the command on the pure-Python backend too.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, overload

if TYPE_CHECKING:
    from sanitizer.cli._check_args import Settings

# The command, for the tests that need a live process (pipes closed early, signals):
# ``subprocess.Popen([*SANITIZER, "check", ...])``.
SANITIZER = (sys.executable, "-m", "sanitizer")
# Generous: a loaded 2-core machine starts Python slowly; a test that hangs still ends.
TIMEOUT = 120.0


class CliResult(NamedTuple):
    """(code, stdout, stderr): the exit status and what the command wrote.  The first
    field is named as ``subprocess.CompletedProcess``'s, so ``result.returncode`` reads
    the same in every test."""

    returncode: int
    stdout: bytes
    stderr: bytes


class CliText(NamedTuple):
    """``CliResult`` with the output decoded (UTF-8, strictly: the command writes UTF-8)."""

    returncode: int
    stdout: str
    stderr: str


def child_env(env: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """This process's environment with ``env`` laid over it (None removes a name)."""
    merged = dict(os.environ)
    for name, value in (env or {}).items():
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = value
    return merged


@overload
def run_cli(
    *args: str | bytes | Path,
    stdin: bytes = ...,
    env: Mapping[str, str | None] | None = ...,
    cwd: Path | None = ...,
    timeout: float = ...,
    text: Literal[False] = ...,
) -> CliResult: ...
@overload
def run_cli(
    *args: str | bytes | Path,
    stdin: bytes = ...,
    env: Mapping[str, str | None] | None = ...,
    cwd: Path | None = ...,
    timeout: float = ...,
    text: Literal[True],
) -> CliText: ...
def run_cli(
    *args: str | bytes | Path,
    stdin: bytes = b"",
    env: Mapping[str, str | None] | None = None,
    cwd: Path | None = None,
    timeout: float = TIMEOUT,
    text: bool = False,
) -> CliResult | CliText:
    """``python -m sanitizer *args`` (a bytes argument for one that is not UTF-8), with
    ``stdin`` on its standard input, ``env`` laid over this process's environment (a None
    value removes that name) and ``cwd`` as its working directory: (code, stdout, stderr),
    as text when ``text`` and as bytes otherwise."""
    proc = subprocess.run(
        [*SANITIZER, *(os.fspath(arg) for arg in args)],
        input=stdin,
        capture_output=True,
        env=child_env(env),
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    if text:
        return CliText(proc.returncode, proc.stdout.decode(), proc.stderr.decode())
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def default_sigint() -> None:
    """``preexec_fn`` for a child a test interrupts with SIGINT: the default disposition,
    as a terminal leaves it.  A test run started in the background without job control
    (``cmd &`` in a script) ignores SIGINT, the child would inherit that, and Python then
    installs no KeyboardInterrupt handler: the signal would be lost."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Pipe(io.RawIOBase):
    """Bytes that cannot be read twice, as stdin from a pipe (not seekable): for the tests
    that call the command in process (``io.BufferedReader(Pipe(data))``)."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        return self._data.readinto(buffer)


def json_records(stdout: bytes | str) -> list[dict[str, Any]]:
    """The records of ``--format json`` output: one JSON object a line."""
    text = stdout.decode("utf-8") if isinstance(stdout, bytes) else stdout
    return [json.loads(line) for line in text.splitlines()]


def first_line_then_close(*args: str) -> tuple[int, bytes]:
    """Run ``python -m sanitizer ARGS``, read one line of its output and close the pipe,
    as ``| head -1`` does: (exit status, what it wrote to stderr)."""
    command = [*SANITIZER, *args]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
        return proc.wait(timeout=60), err


def check_settings(*options: str) -> Settings:
    """The settings ``sanitizer check OPTIONS -`` runs with, resolved in process."""
    # imported here: a test run that never asks loads no CLI module in the test process
    from sanitizer.cli import _check_args, build_parser

    argv = ["check", *options, "-"]
    settings = _check_args.resolve(build_parser(argv).parse_args(argv))
    assert not isinstance(settings, str), settings
    return settings
