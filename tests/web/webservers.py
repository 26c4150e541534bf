"""Real servers for the web tests, and raw HTTP/1.1 over a socket.

``serve("asgi", "tests.web.webapps:asgi")`` starts uvicorn,
``serve("wsgi", "tests.web.webapps:wsgi")``
waitress, each in a child process listening on 127.0.0.1 on a free port; ``start`` runs
any command that listens on a given port (the examples/ scripts).  ``send`` writes the
request bytes exactly as given -- no client library normalises the attack -- and parses
the response.  ``send_many`` does the same for many requests at once from asyncio, over
keep-alive connections (the load test).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

# Servers start in the repository root, first on their PYTHONPATH: apps are named as the
# tests import them ("tests.web.webapps:asgi").
ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"

_COMMANDS = {
    "asgi": "import uvicorn, sys; uvicorn.run(sys.argv[1], host={host!r}, port={port},"
    " log_level='error', access_log=False)",
    # uvicorn with each of its WebSocket implementations
    "asgi-websockets": "import uvicorn, sys; uvicorn.run(sys.argv[1], host={host!r}, port={port},"
    " log_level='error', access_log=False, ws='websockets')",
    "asgi-wsproto": "import uvicorn, sys; uvicorn.run(sys.argv[1], host={host!r}, port={port},"
    " log_level='error', access_log=False, ws='wsproto')",
    "wsgi": "import waitress, importlib, sys; m, _, a = sys.argv[1].partition(':');"
    " waitress.serve(getattr(importlib.import_module(m), a), host={host!r}, port={port},"
    " threads=8, _quiet=True)",
}
# The other servers, each run as ``python -m <server> ... <app>``: the same app string.
# hypercorn serves HTTP/1.1 and, on the same plain port, h2c with prior knowledge (the
# client opens with the HTTP/2 preface, RFC 9113 §3.3).  gunicorn: sync workers, one
# request at a time each, no keep-alive.  granian: one worker process.
_MODULES = {
    "hypercorn": ["hypercorn", "--bind", "{host}:{port}", "--log-level", "error"],
    "gunicorn": [
        *("gunicorn", "--worker-class", "sync", "--workers", "4"),
        *("--bind", "{host}:{port}", "--log-level", "error"),
    ],
    "granian-asgi": [
        *("granian", "--interface", "asgi", "--host", "{host}", "--port", "{port}"),
        *("--log-level", "error", "--no-ws"),
    ],
    "granian-asgi-ws": [  # WebSockets on
        *("granian", "--interface", "asgi", "--host", "{host}", "--port", "{port}"),
        *("--log-level", "error"),
    ],
    "granian-wsgi": [
        *("granian", "--interface", "wsgi", "--host", "{host}", "--port", "{port}"),
        *("--log-level", "error", "--blocking-threads", "8"),
    ],
}
# What each server kind serves: the interface, so a test knows which echo app to load.
# (The WebSocket variants, "asgi-websockets", "asgi-wsproto" and "granian-asgi-ws", serve
# ASGI too; tests/web/test_websocket.py runs them, and they are not listed here.)
INTERFACE = {
    "asgi": "asgi",  # uvicorn
    "wsgi": "wsgi",  # waitress
    "hypercorn": "asgi",
    "gunicorn": "wsgi",
    "granian-asgi": "asgi",
    "granian-wsgi": "wsgi",
}


# Ports for the servers, by pytest-xdist worker: each worker takes ports from its own block
# below Linux's ephemeral range (32768-60999, where bind(0) and outgoing connections take
# theirs), so two workers never pick the same port between choosing it and their servers'
# bind, and no client socket takes it meanwhile.
PORT_BLOCKS = range(20000, 32000, 1500)
_next_ports: dict[int, int] = {}


def free_port() -> int:
    """A port nothing listens on, from this worker's block (``PORT_BLOCKS``)."""
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
    first = PORT_BLOCKS[worker % len(PORT_BLOCKS)]
    for _ in range(PORT_BLOCKS.step):
        port = _next_ports.get(first, first)
        _next_ports[first] = first + (port + 1 - first) % PORT_BLOCKS.step
        with socket.socket() as s:
            try:
                s.bind((HOST, port))
            except OSError:  # taken (another process, or TIME_WAIT): the next one
                continue
            return port
    raise RuntimeError(f"no free port in {first}..{first + PORT_BLOCKS.step - 1}")


@contextlib.contextmanager
def serve(kind: str, app: str, cwd: Path = ROOT, timeout: float = 30.0) -> Iterator[int]:
    """Run ``app`` ("module:attribute", importable from ``cwd``) under uvicorn ("asgi"),
    waitress ("wsgi"), "hypercorn", "gunicorn", "granian-asgi" or "granian-wsgi" on
    127.0.0.1; yields the port once it accepts connections."""
    port = free_port()
    if kind in _COMMANDS:
        command = ["-c", _COMMANDS[kind].format(host=HOST, port=port), app]
    else:
        command = ["-m", *(a.format(host=HOST, port=port) for a in _MODULES[kind]), app]
    with start([sys.executable, *command], port, cwd=cwd, timeout=timeout):
        yield port


@contextlib.contextmanager
def start(
    command: Sequence[str],
    port: int,
    *,
    cwd: Path = ROOT,
    env: Mapping[str, str] | None = None,
    output: IO[bytes] | int | None = None,  # a file, subprocess.DEVNULL, or inherited
    timeout: float = 30.0,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``command``, a server that will listen on 127.0.0.1:``port``, in ``cwd`` with
    ``cwd`` first on PYTHONPATH and ``env`` added to the environment; its stdout and stderr
    go to ``output`` (default: inherited).  Yields the process once the port accepts
    connections; terminates it on exit (killed after 10 s)."""
    environ = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(cwd), os.environ.get("PYTHONPATH", "")]),
        **(env or {}),
    }
    # A session of its own, so that stopping it also stops the workers a server forks
    # (gunicorn, granian, hypercorn's spawned worker), even when the parent hangs.
    proc = subprocess.Popen(
        command, cwd=cwd, env=environ, stdout=output, stderr=output, start_new_session=True
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{command} exited with {proc.returncode}")
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
    try:
        os.killpg(proc.pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


@dataclass
class Response:
    status: int
    headers: dict[str, str]  # lower-case names; repeated headers joined with ", "
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def received(self) -> dict[str, Any]:
        """What an echo app (tests/web/webapps.py) received, hex decoded."""
        data = self.json()
        return {
            "path": bytes.fromhex(data["path"]),
            "query": bytes.fromhex(data["query"]),
            "headers": [(bytes.fromhex(k), bytes.fromhex(v)) for k, v in data["headers"]],
            "body": bytes.fromhex(data["body"]),
        }


def send(port: int, request: bytes, timeout: float = 10.0, *, half_close: bool = True) -> Response:
    """Send ``request`` verbatim on a new connection, read the response to EOF.
    ``half_close=False`` keeps our side open after the request, so the server cannot take
    EOF for the end of a body it still waits for: it must answer without it (or time out,
    which raises ``TimeoutError``)."""
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        sock.sendall(request)
        if half_close:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            try:
                data = sock.recv(65536)
            except ConnectionResetError:
                break  # the server may reset once it has answered and stopped reading
            if not data:
                break
            chunks.append(data)
    return parse(b"".join(chunks))


def parse(raw: bytes) -> Response:
    head, sep, body = raw.partition(b"\r\n\r\n")
    if not sep:
        raise ValueError(f"no complete response: {raw[:200]!r}")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        key = name.strip().lower()
        headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = _dechunk(body)
    elif "content-length" in headers:
        body = body[: int(headers["content-length"])]
    return Response(status, headers, body)


def _dechunk(data: bytes) -> bytes:
    out = bytearray()
    while data:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out += data[:size]
        data = data[size + 2 :]
    return bytes(out)


def converse(port: int, requests: Sequence[bytes], timeout: float = 10.0) -> list[Response]:
    """Send ``requests`` one after the other on one kept-alive connection, each once the
    previous response is complete (``http(..., close=False)``).  Stops early when a
    response ends the connection (``Connection: close``, no length): the responses
    received, one per request sent."""

    async def run() -> list[Response]:
        reader, writer = await asyncio.open_connection(HOST, port)
        responses: list[Response] = []
        try:
            for request in requests:
                writer.write(request)
                await writer.drain()
                response, reusable = await asyncio.wait_for(read_response(reader), timeout)
                responses.append(response)
                if not reusable:
                    break
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        return responses

    return asyncio.run(run())


# -- many requests at once (asyncio) ------------------------------------------------------


async def read_response(reader: asyncio.StreamReader) -> tuple[Response, bool]:
    """Read exactly one HTTP/1.1 response (Content-Length, chunked, or up to EOF) and
    return it with whether the connection may carry another request.  A connection that
    ends before a complete response raises ``asyncio.IncompleteReadError``."""
    head = await reader.readuntil(b"\r\n\r\n")
    response = parse(head)  # headers only: the body is read below
    headers = response.headers
    if headers.get("transfer-encoding", "").lower() == "chunked":
        raw = bytearray()
        while True:
            size_line = await reader.readuntil(b"\r\n")
            raw += size_line
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                while (line := await reader.readuntil(b"\r\n")) != b"\r\n":
                    raw += line  # trailer fields
                raw += b"\r\n"
                break
            raw += await reader.readexactly(size + 2)
        body = _dechunk(bytes(raw))
        reusable = True
    elif "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
        reusable = True
    else:
        body, reusable = await reader.read(), False  # delimited by the end of the connection
    version = head.split(b" ", 1)[0]
    if "close" in headers.get("connection", "").lower() or version == b"HTTP/1.0":
        reusable = False
    return Response(response.status, headers, body), reusable


async def send_many(
    port: int, requests: Sequence[bytes], concurrency: int, timeout: float = 30.0
) -> list[Response | Exception]:
    """Send every request verbatim, at most ``concurrency`` at a time (an
    ``asyncio.Semaphore``), each on a kept-alive connection from a pool, or a new one.
    The requests must not carry ``Connection: close`` (``http(..., close=False)``).  A
    connection is reused only if its last response allowed it (Content-Length or chunked,
    no ``Connection: close``); one the server closes is replaced, never retried on.

    Returns, in request order, each ``Response`` or the exception that stands for it
    (reset, EOF before a complete response, more than ``timeout`` seconds): the caller
    decides what counts as a failure -- no request is retried."""
    semaphore = asyncio.Semaphore(concurrency)
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    opened: list[asyncio.StreamWriter] = []

    async def one(request: bytes) -> Response | Exception:
        async with semaphore:
            connection: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

            async def exchange() -> tuple[Response, bool]:
                if idle:
                    connection.append(idle.pop())
                else:
                    connection.append(await asyncio.open_connection(HOST, port))
                    opened.append(connection[0][1])
                reader, writer = connection[0]
                writer.write(request)
                await writer.drain()
                return await read_response(reader)

            try:
                response, reusable = await asyncio.wait_for(exchange(), timeout)
            except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError, ValueError) as e:
                if connection:
                    connection[0][1].close()
                return e
            reader, writer = connection[0]
            if reusable and not reader.at_eof():
                idle.append((reader, writer))
            else:
                writer.close()
            return response

    try:
        return list(await asyncio.gather(*(one(r) for r in requests)))
    finally:
        for writer in opened:
            writer.close()
        for writer in opened:
            with contextlib.suppress(OSError):
                await writer.wait_closed()
