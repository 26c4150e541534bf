"""Real servers for the web tests, and raw HTTP/1.1 over a socket.

``serve("asgi", "webapps:asgi")`` starts uvicorn, ``serve("wsgi", "webapps:wsgi")``
waitress, each in a child process listening on 127.0.0.1 on a free port.  ``send``
writes the request bytes exactly as given -- no client library normalises the attack --
and parses the response.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
HOST = "127.0.0.1"

_COMMANDS = {
    "asgi": "import uvicorn, sys; uvicorn.run(sys.argv[1], host={host!r}, port={port},"
    " log_level='error', access_log=False)",
    "wsgi": "import waitress, importlib, sys; m, _, a = sys.argv[1].partition(':');"
    " waitress.serve(getattr(importlib.import_module(m), a), host={host!r}, port={port},"
    " threads=8, _quiet=True)",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve(kind: str, app: str, cwd: Path = HERE, timeout: float = 30.0) -> Iterator[int]:
    """Run ``app`` ("module:attribute", importable from ``cwd``) under uvicorn ("asgi")
    or waitress ("wsgi") on 127.0.0.1; yields the port once it accepts connections."""
    port = free_port()
    code = _COMMANDS[kind].format(host=HOST, port=port)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(cwd), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.Popen([sys.executable, "-c", code, app], cwd=cwd, env=env)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{kind} server for {app} exited with {proc.returncode}")
            try:
                socket.create_connection((HOST, port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Response:
    status: int
    headers: dict[str, str]  # lower-case names; repeated headers joined with ", "
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def received(self) -> dict[str, Any]:
        """What an echo app (tests/webapps.py) received, hex decoded."""
        data = self.json()
        return {
            "path": bytes.fromhex(data["path"]),
            "query": bytes.fromhex(data["query"]),
            "headers": [(bytes.fromhex(k), bytes.fromhex(v)) for k, v in data["headers"]],
            "body": bytes.fromhex(data["body"]),
        }


def send(port: int, request: bytes, timeout: float = 10.0) -> Response:
    """Send ``request`` verbatim on a new connection, read the response to EOF."""
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        sock.sendall(request)
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


def http(
    method: str,
    target: bytes,
    headers: list[tuple[bytes, bytes]] | None = None,
    body: bytes = b"",
    *,
    chunked: bool = False,
) -> bytes:
    """A raw HTTP/1.1 request; ``target`` and header values are sent byte for byte."""
    lines = [method.encode() + b" " + target + b" HTTP/1.1", b"Host: 127.0.0.1"]
    lines += [name + b": " + value for name, value in headers or []]
    if chunked:
        lines.append(b"Transfer-Encoding: chunked")
        payload = (
            b"".join(
                b"%x\r\n%s\r\n" % (len(body[i : i + 7]), body[i : i + 7])
                for i in range(0, len(body), 7)
            )
            + b"0\r\n\r\n"
        )
    else:
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append(b"Content-Length: " + str(len(body)).encode())
        payload = body
    lines.append(b"Connection: close")
    return b"\r\n".join(lines) + b"\r\n\r\n" + payload
