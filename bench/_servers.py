"""Starting and stopping a real server for a benchmark: one place for the benchmarks
that talk to servers over loopback (``bench_web.py``, ``bench_web_rss.py``).

The server gets a session of its own, so stopping it also stops the workers it forks
(gunicorn, granian), even when the parent hangs; it listens on 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.web.webservers import HOST, start  # the tests' one loop

__all__ = ["HOST", "free_port", "running"]


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
    output: IO[bytes] | int | None = None,
    timeout: float = 30.0,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``command`` until it accepts connections on ``port`` (or fail after
    ``timeout`` s), with ``env`` (its PYTHONPATH included) and its output to
    ``output``; stop it and its workers on exit (``tests/web/webservers.start``: SIGTERM to
    its session, SIGKILL after 10 s)."""
    with start(
        command,
        port,
        cwd=cwd or Path.cwd(),
        env=env,
        output=output,
        timeout=timeout,
    ) as proc:
        yield proc
