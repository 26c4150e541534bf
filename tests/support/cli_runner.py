"""The one way tests run the command line as users do: ``python -m sanitizer ARGS`` in a
child process, with the given stdin, environment and working directory.

Tests import ``run_cli`` (or take the ``sanitizer_cli`` fixture of ``conftest.py``) instead of
spelling out ``subprocess.run``: the interpreter, the timeout and the environment rules
are written once.  The child inherits this process's environment, so a suite run with
``SANITIZER_PURE_PYTHON=1`` runs the command on the pure-Python backend too, and it
imports the package these tests import (the checkout's, first on its PYTHONPATH).  It is
forked from a warm interpreter (``command_server``) unless the call changes what Python
reads as it starts; then it is a fresh interpreter, as ``SANITIZER`` starts one.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
import threading
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
# The folder that holds the package these tests import (the checkout's)
CHECKOUT = str(Path(__file__).resolve().parents[2])


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


def child_env(
    env: Mapping[str, str | None] | None = None, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """This process's environment (or ``base``), the checkout first on PYTHONPATH, with
    ``env`` laid over it (None removes a name)."""
    merged = dict(os.environ if base is None else base)
    paths = merged.get("PYTHONPATH", "")
    merged["PYTHONPATH"] = CHECKOUT + (os.pathsep + paths if paths else "")
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
    argv = [os.fsdecode(arg) for arg in args]  # bytes as Python decodes a child's argv
    merged = child_env(env)
    warm = _warm_server(merged)
    if warm is not None:
        code, out, err = warm.run(argv, stdin, merged, cwd, timeout)
    else:
        proc = subprocess.run(
            [*SANITIZER, *argv],
            input=stdin,
            capture_output=True,
            env=merged,
            cwd=cwd,
            timeout=timeout,
            check=False,
        )
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    if text:
        return CliText(code, out.decode(), err.decode())
    return CliResult(code, out, err)


# -- the warm interpreter (command_server) -----------------------------------------------

_STARTUP_PREFIXES = ("PYTHON", "SANITIZER_", "LC_")
_STARTUP_NAMES = frozenset({"LANG", "LANGUAGE"})


def _read_at_startup(env: Mapping[str, str]) -> dict[str, str]:
    """The variables Python or the package read before the command runs."""
    return {
        name: value
        for name, value in env.items()
        if name.startswith(_STARTUP_PREFIXES) or name in _STARTUP_NAMES
    }


class _CommandServer:
    """A ``command_server`` process: started once a test process, it forks a child a call."""

    def __init__(self, env: dict[str, str]) -> None:
        self.startup = _read_at_startup(env)
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        server = Path(__file__).with_name("command_server.py")
        self.proc = subprocess.Popen(
            [sys.executable, str(server), str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            # pipes, as each child gets: Python's streams learn at start whether they
            # can seek, and a child keeps what its server's learnt (never written to)
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=CHECKOUT,
        )
        theirs.close()
        self.lock = threading.Lock()
        atexit.register(self.close)

    def serves(self, env: Mapping[str, str]) -> bool:
        return self.proc.poll() is None and _read_at_startup(env) == self.startup

    def close(self) -> None:
        self.sock.close()  # the server sees the end and exits
        try:
            self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()

    def run(
        self, argv: list[str], stdin: bytes, env: dict[str, str], cwd: Path | None, timeout: float
    ) -> tuple[int, bytes, bytes]:
        request = json.dumps({"argv": argv, "env": env, "cwd": os.fspath(cwd) if cwd else None})
        with self.lock:
            in_r, in_w = os.pipe()
            out_r, out_w = os.pipe()
            err_r, err_w = os.pipe()
            try:
                socket.send_fds(self.sock, [request.encode()], [in_r, out_w, err_w])
            finally:
                for fd in (in_r, out_w, err_w):
                    os.close(fd)
            pid = _unpack(self.sock.recv(8))
            outputs: dict[int, bytes] = {}
            threads = [
                threading.Thread(target=_write_all, args=(in_w, stdin), daemon=True),
                threading.Thread(target=_read_all, args=(out_r, outputs), daemon=True),
                threading.Thread(target=_read_all, args=(err_r, outputs), daemon=True),
            ]
            for thread in threads:
                thread.start()
            self.sock.settimeout(timeout)
            try:
                status = _unpack(self.sock.recv(8))
            except TimeoutError:
                os.kill(pid, signal.SIGKILL)
                self.sock.settimeout(None)
                _unpack(self.sock.recv(8))
                raise subprocess.TimeoutExpired([*SANITIZER, *argv], timeout) from None
            finally:
                self.sock.settimeout(None)
            for thread in threads:  # the output ends when every process holding it has
                thread.join(timeout)
                if thread.is_alive():  # a process the command started still holds it
                    raise subprocess.TimeoutExpired([*SANITIZER, *argv], timeout)
            return os.waitstatus_to_exitcode(status), outputs[out_r], outputs[err_r]


def _unpack(data: bytes) -> int:
    if len(data) != 8:
        raise RuntimeError("the command server ended unexpectedly")
    return int.from_bytes(data, sys.byteorder, signed=True)


def _write_all(fd: int, data: bytes) -> None:
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except BrokenPipeError:  # the command stopped reading: as subprocess.run ignores it
        pass
    finally:
        os.close(fd)


def _read_all(fd: int, into: dict[int, bytes]) -> None:
    chunks = []
    with open(fd, "rb", buffering=0, closefd=True) as stream:
        while chunk := stream.read(1 << 16):
            chunks.append(chunk)
    into[fd] = b"".join(chunks)


_SERVER: _CommandServer | None = None
_SESSION_ENV = dict(os.environ)  # as the run started (a test may change os.environ)


def server_pids() -> set[int]:
    """The command server's process (a child of this one while it runs), for tests that
    count this process's children."""
    return {_SERVER.proc.pid} if _SERVER is not None and _SERVER.proc.poll() is None else set()


def _warm_server(env: dict[str, str]) -> _CommandServer | None:
    """The warm interpreter for a call with environment ``env``, or None when the call
    needs a fresh one (it changes what Python reads at start) or fork is missing."""
    global _SERVER
    if not hasattr(os, "fork") or not hasattr(socket, "send_fds"):
        return None
    if _SERVER is None or _SERVER.proc.poll() is not None:
        _SERVER = _CommandServer(child_env(base=_SESSION_ENV))
    return _SERVER if _SERVER.serves(env) else None


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


def policy_check_in_process(
    tmp_path: Path, data: bytes, profile: str, *options: str
) -> tuple[int, list[dict[str, Any]]]:
    """``sanitizer check --policy PROFILE --format json --limit 0 OPTIONS FILE`` on
    ``data`` written to a file in ``tmp_path``, run in this process (so a test may patch
    the module's sizes): its exit status and its JSON records."""
    from sanitizer.cli import main  # a test run that never asks loads no CLI module here

    path = tmp_path / "t.txt"
    path.write_bytes(data)
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8")
    args = ["check", "--policy", profile, "--progress", "never", "--format", "json", *options]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = main([*args, "--limit", "0", str(path)])
    out.flush()
    return status, json_records(raw.getvalue())
