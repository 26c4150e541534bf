"""Echo apps for the web tests: each answers 200 with JSON saying exactly what it received
(path, query, headers and body as hex), so a test can check the app got the client's
bytes unchanged.  Served by tests/web/webservers.py under uvicorn (ASGI) and waitress (WSGI);
the ``*_report`` variants run the middleware in report-only mode."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, MutableMapping
from typing import Any

from sanitizer.web import ASGIMiddleware, WSGIMiddleware

logging.getLogger("sanitizer.web").setLevel(logging.ERROR)  # keep server output short
# waitress warns "Task queue depth is N" whenever more requests wait than it has threads
# (the load test runs 20 at a time against 8 threads): expected there, not a problem.
logging.getLogger("waitress.queue").setLevel(logging.ERROR)


def _echo(path: bytes, query: bytes, headers: list[tuple[bytes, bytes]], body: bytes) -> bytes:
    return json.dumps(
        {
            "path": path.hex(),
            "query": query.hex(),
            "headers": [[k.hex(), v.hex()] for k, v in headers],
            "body": body.hex(),
        }
    ).encode()


async def asgi_echo(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ConnectionError("client disconnected")
        body += message.get("body", b"")
        if not message.get("more_body", False):
            break
    out = _echo(scope["raw_path"], scope["query_string"], list(scope["headers"]), body)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(out)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": out})


def wsgi_echo(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    body = environ["wsgi.input"].read()
    headers = [
        (k[5:].replace("_", "-").lower().encode("latin-1"), v.encode("latin-1"))
        for k, v in environ.items()
        if k.startswith("HTTP_")
    ]
    if environ.get("CONTENT_TYPE"):
        headers.append((b"content-type", environ["CONTENT_TYPE"].encode("latin-1")))
    uri = environ.get("RAW_URI") or environ.get("REQUEST_URI")  # gunicorn, waitress
    if uri:
        path = uri.encode("latin-1").partition(b"?")[0]
    else:  # granian: only PATH_INFO, percent-decoded (PEP 3333)
        path = (environ.get("SCRIPT_NAME", "") + environ["PATH_INFO"]).encode("latin-1")
    out = _echo(path, environ.get("QUERY_STRING", "").encode("latin-1"), headers, body)
    start_response(
        "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(out)))]
    )
    return [out]


asgi = ASGIMiddleware(asgi_echo)
asgi_report = ASGIMiddleware(asgi_echo, report_only=True)
wsgi = WSGIMiddleware(wsgi_echo)
wsgi_report = WSGIMiddleware(wsgi_echo, report_only=True)


async def asgi_sink(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
    """Reads the body and answers its length: the app of a flood (no echo to build)."""
    if scope["type"] != "http":
        return
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ConnectionError("client disconnected")
        size += len(message.get("body", b""))
        if not message.get("more_body", False):
            break
    out = str(size).encode()
    headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(out)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": out})


asgi_sink_checked = ASGIMiddleware(asgi_sink)
