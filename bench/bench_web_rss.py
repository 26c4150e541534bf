"""Peak memory of a huge chunked upload through sanitizer.web, per server.

A chunked upload (default 1 GiB) is sent over a loopback socket to each server -- uvicorn
(h11), hypercorn (HTTP/1.1), gunicorn (sync), granian (ASGI and WSGI) and waitress --
running an app that reads the body in blocks and discards it (ASGI: ``receive()`` until
``more_body`` is false; WSGI: ``wsgi.input.read(65536)`` until empty), in three setups:

* ``stream``: the middleware in front, ``max_body_size`` above the upload, so the whole
  body streams through the checks;
* ``413``: the middleware with ``max_body_size`` 8 MiB: the 413 must come at the limit
  (the client stops sending as soon as an answer arrives, and says how much it sent);
* ``bare``: the same app without the middleware (the server's own cost: the baseline).

Bodies: ``text/plain; charset=utf-8`` (non-ASCII lines, every byte checked) and
``application/octet-stream`` (only counted).  Goal: every server's peak RSS < 64 MiB.

Peak RSS is ``VmHWM`` (/proc/PID/status) read after the request, from every process of
the server -- gunicorn's and granian's main process and their one worker -- and the
largest is reported (it is the worker that served the upload); ``idle`` is the same
figure before the upload.  Each setup runs in a fresh server, so each peak is its own.
The first rows are in-process runs of ``WSGIMiddleware`` on a fake endless
``wsgi.input`` that refuses ``read()`` without a size, the app calling ``read()`` (the
default 16 MiB limit answers 413) or ``read(8192)`` in a loop (limit above the upload).

Everything talks only to 127.0.0.1 and stops by itself (bounded sizes, per-run timeouts).

    python bench/bench_web_rss.py [--size-mib 1024] [--servers uvicorn,waitress]
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import _figures
from _servers import HOST, free_port, running

HERE = Path(__file__).resolve().parent
GOAL_MIB = 64
LIMIT_413 = 8 << 20
TIMEOUT = 600.0  # seconds for one upload

# -- the apps the servers load (bench_web_rss:asgi_app / wsgi_app) -----------------------
# Configured by the environment of the server process: RSS_MIDDLEWARE ("0": bare app) and
# RSS_MAX_BODY (max_body_size).


async def asgi_discard(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
        return
    total = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        total += len(message.get("body", b""))
        if not message.get("more_body", False):
            break
    out = str(total).encode()
    headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(out)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": out})


def wsgi_discard(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    stream = environ["wsgi.input"]
    total = 0
    while chunk := stream.read(65536):
        total += len(chunk)
    out = str(total).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(out)))])
    return [out]


def _apps() -> tuple[Any, Any]:
    if os.environ.get("RSS_MIDDLEWARE", "1") == "0":
        return asgi_discard, wsgi_discard
    from sanitizer.web import ASGIMiddleware, WSGIMiddleware

    limit = int(os.environ.get("RSS_MAX_BODY", str(16 << 20)))
    return (
        ASGIMiddleware(asgi_discard, max_body_size=limit),
        WSGIMiddleware(wsgi_discard, max_body_size=limit),
    )


asgi_app, wsgi_app = _apps()

# -- the servers -------------------------------------------------------------------------

SERVERS: dict[str, list[str]] = {
    "uvicorn": [
        *("uvicorn", "--host", HOST, "--port", "{port}", "--log-level", "error"),
        *("--no-access-log", "bench_web_rss:asgi_app"),
    ],
    "hypercorn": [
        *("hypercorn", "--bind", f"{HOST}:{{port}}", "--log-level", "error"),
        "bench_web_rss:asgi_app",
    ],
    # sync workers kill a request that runs past --timeout (default 30 s)
    "gunicorn": [
        *("gunicorn", "--worker-class", "sync", "--workers", "1", "--timeout", "900"),
        *("--bind", f"{HOST}:{{port}}", "--log-level", "error", "bench_web_rss:wsgi_app"),
    ],
    "granian-asgi": [
        *("granian", "--interface", "asgi", "--workers", "1", "--host", HOST),
        *("--port", "{port}", "--log-level", "error", "--no-ws", "bench_web_rss:asgi_app"),
    ],
    "granian-wsgi": [
        *("granian", "--interface", "wsgi", "--workers", "1", "--host", HOST),
        *("--port", "{port}", "--log-level", "error", "bench_web_rss:wsgi_app"),
    ],
    # waitress refuses bodies above its own max_request_body_size (1 GiB by default)
    "waitress": [
        *("waitress", "--host", HOST, "--port", "{port}", "--max-request-body-size"),
        *("{room}", "bench_web_rss:wsgi_app"),
    ],
}


@contextlib.contextmanager
def server(name: str, size: int, env: dict[str, str]) -> Iterator[tuple[int, int]]:
    """Run server ``name`` with ``env``; yields (port, pid) once it accepts connections."""
    port = free_port()
    args = [a.format(port=port, room=size + (64 << 20)) for a in SERVERS[name]]
    path = os.pathsep.join([str(HERE), str(HERE.parent), os.environ.get("PYTHONPATH", "")])
    environ = {**os.environ, **env, "PYTHONPATH": path}
    command = [sys.executable, "-m", *args]
    with running(command, port, env=environ, cwd=HERE, output=subprocess.DEVNULL) as proc:
        time.sleep(0.5)  # let forked workers finish starting
        yield port, proc.pid


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants (gunicorn's and granian's workers)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rpartition(")")[2].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def status_mib(pid: int, field: str) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def peak_mib(pid: int) -> float:
    return max(status_mib(p, "VmHWM") for p in tree(pid))


# -- the client --------------------------------------------------------------------------


@dataclass
class Upload:
    status: str  # "200 OK", "413 ...", or what went wrong
    sent: int  # body bytes sent before the answer (or all of them)
    seconds: float


def upload(port: int, size: int, media: bytes) -> Upload:
    """Send a chunked body of ``size`` bytes in ~120 KiB chunks; stop sending as soon as
    an answer arrives; read the answer.  Bounded by TIMEOUT."""
    if media.startswith(b"text/"):
        block = ("é" * 40 + "\n").encode() * 1500
    else:
        block = bytes(range(256)) * 480
    frame = b"%x\r\n%s\r\n" % (len(block), block)
    head = (
        b"POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + media + b"\r\n"
        b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
    sent, reply = 0, bytearray()
    start = time.perf_counter()
    deadline = start + TIMEOUT
    with socket.create_connection((HOST, port), timeout=10) as sock:
        sock.setblocking(False)
        out = memoryview(head)
        finished = False  # the last chunk is queued
        while time.perf_counter() < deadline:
            writers = [sock] if out else []
            readable, writable, _ = select.select([sock], writers, [], 10)
            if readable:
                try:
                    data = sock.recv(65536)
                except ConnectionResetError:
                    break
                if not data:
                    break
                reply += data
                out = memoryview(b"")  # answered: stop sending
                if _complete(reply):
                    break
                continue
            if writable:
                try:
                    n = sock.send(out)
                except (BrokenPipeError, ConnectionResetError):
                    out = memoryview(b"")
                    continue
                out = out[n:]
                if not out and not finished:
                    if sent < size:
                        out, sent = memoryview(frame), sent + len(block)
                    else:
                        out, finished = memoryview(b"0\r\n\r\n"), True
            elif not readable and not writable and not out and not finished:
                break
    took = time.perf_counter() - start
    line = bytes(reply).split(b"\r\n", 1)[0].decode("latin-1")
    status = line.partition(" ")[2] or ("timeout" if took >= TIMEOUT else "no answer")
    return Upload(status, sent, took)


def _complete(reply: bytearray) -> bool:
    head, sep, body = bytes(reply).partition(b"\r\n\r\n")
    if not sep:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return False  # read to EOF


# -- in process (no server) --------------------------------------------------------------


def in_process(size: int, how: str) -> None:
    """Child: stream ``size`` bytes of text through WSGIMiddleware; print one row."""
    from sanitizer.web import WSGIMiddleware

    logging.getLogger("sanitizer.web").setLevel(logging.ERROR)  # the 413's log line

    line = ("é" * 40 + "\n").encode()
    size -= size % len(line)  # whole lines: a body cut inside a "é" is rightly refused

    class Endless:
        def __init__(self) -> None:
            self.left = size

        def read(self, n: int | None = None) -> bytes:
            if n is None or n < 0:
                raise OSError("this server refuses read() without a size")
            n = min(n, self.left)
            at = (size - self.left) % len(line)  # go on where the last read stopped
            self.left -= n
            return (line * (n // len(line) + 2))[at : at + n]

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        stream = environ["wsgi.input"]
        total = 0
        if how == "read()":
            total = len(stream.read())
        else:
            while chunk := stream.read(8192):
                total += len(chunk)
        start_response("200 OK", [])
        return [str(total).encode()]

    # read() asks for the whole body: the default 16 MiB limit answers 413 at 16 MiB.
    limit = size + 1 if how != "read()" else 16 << 20
    mw = WSGIMiddleware(app, max_body_size=limit)
    status: list[str] = []
    stream = Endless()
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/",
        "QUERY_STRING": "",
        "CONTENT_TYPE": "text/plain; charset=utf-8",
        "wsgi.input": stream,
        "wsgi.input_terminated": True,
    }

    def start_response(s: str, headers: Any, exc_info: Any = None) -> Any:
        status.append(s)
        return lambda data: None

    start = time.perf_counter()
    b"".join(mw(environ, start_response))
    took = time.perf_counter() - start
    sent = size - stream.left
    row("in-process WSGI", f"text, app {how}", 0, peak_mib(os.getpid()), took, status[-1], sent)


# -- the table ---------------------------------------------------------------------------


def row(
    where: str, case: str, idle: float, peak: float, seconds: float, status: str, sent: int
) -> None:
    mark = "" if peak < GOAL_MIB else " (over the goal)"
    cells = [where, case, f"{idle:.0f}", f"{peak:.0f}{mark}", f"{seconds:.1f}", status[:24]]
    cells.append(f"{sent / (1 << 20):.0f}")
    if TABLE.tables:  # the parent's table; a --child prints its row for the parent's output
        TABLE.row(*cells)
    else:
        print("| " + " | ".join(cells) + " |", flush=True)


TABLE = _figures.Tables()  # the rows measured in this process, for --write-docs


def measure(name: str, size: int, setup: str, media: bytes) -> None:
    env = {"RSS_MIDDLEWARE": "0" if setup == "bare" else "1"}
    env["RSS_MAX_BODY"] = str(LIMIT_413 if setup == "413" else size + (64 << 20))
    with server(name, size, env) as (port, pid):
        idle = peak_mib(pid)
        result = upload(port, size, media)
        time.sleep(0.3)
        peak = peak_mib(pid)
    kind = "text" if media.startswith(b"text/") else "binary"
    row(name, f"{setup}, {kind}", idle, peak, result.seconds, result.status, result.sent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--servers", default=",".join(SERVERS), help="comma-separated")
    parser.add_argument("--skip-in-process", action="store_true")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    _figures.add_argument(parser)
    args = parser.parse_args()
    size = args.size_mib << 20
    if args.child:
        in_process(int(args.child[0]), args.child[1])
        return
    print(f"{args.size_mib} MiB chunked upload; peak RSS: the largest VmHWM of the server's")
    print(f"processes; 413 setup: max_body_size {LIMIT_413 >> 20} MiB.\n")
    columns = ["server", "setup, body", "idle MiB", "peak RSS MiB", "seconds", "answer"]
    TABLE.head([*columns, "MiB sent"])
    if not args.skip_in_process:
        for how in ("read()", "read(8192)"):
            command = [sys.executable, __file__, "--child", str(size), how]
            subprocess.run(command, check=True, timeout=TIMEOUT)
    text, binary = b"text/plain; charset=utf-8", b"application/octet-stream"
    for name in args.servers.split(","):
        for setup, media in [("stream", text), ("stream", binary), ("413", text), ("bare", binary)]:
            try:
                measure(name, size, setup, media)
            except (OSError, RuntimeError) as e:
                row(name, setup, 0, 0, 0, f"error: {e}", 0)
    if args.write_docs:
        _figures.write(
            "web_rss",
            summary=f"peak RSS (largest VmHWM of the server's processes) of a {args.size_mib} MiB "
            "chunked upload per server: `stream` checks the body (text) or passes it (binary), "
            f"`413` is over a {LIMIT_413 >> 20} MiB limit, `bare` is the app without the "
            "middleware (in-process WSGI rows are not part of this table).",
            goals=f"< {GOAL_MIB} MiB.",
            tables=TABLE.tables,
        )


if __name__ == "__main__":
    main()
