"""Starting and stopping a real server for a benchmark: one place for the benchmarks
that talk to servers over loopback (``bench_web.py``, ``bench_web_rss.py``).

The server gets a session of its own, so stopping it also stops the workers it forks
(gunicorn, granian), even when the parent hangs; it listens on 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def running(
    command: Sequence[str],
    port: int,
    *,
    env: Mapping[str, str],
    cwd: Path | None = None,
    timeout: float = 30.0,
    **popen: Any,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``command`` until it accepts connections on ``port`` (or fail after
    ``timeout`` s); stop it and its workers on exit (SIGTERM, SIGKILL after 10 s)."""
    proc = subprocess.Popen(command, cwd=cwd, env=dict(env), start_new_session=True, **popen)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{command[0]} ... exited with {proc.returncode}")
            try:
                socket.create_connection((HOST, port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield proc
    finally:
        _signal_group(proc, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGKILL)
            proc.wait()
        _signal_group(proc, signal.SIGKILL)  # workers that outlived their parent


def _signal_group(proc: subprocess.Popen[bytes], signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signum)
