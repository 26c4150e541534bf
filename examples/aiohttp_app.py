"""aiohttp behind ``sanitizer.web.aiohttp``: requests with ill-formed UTF-8 or dangerous
characters in the path, query, headers, a JSON string, a form, an upload's name or a
(gzip-compressed, too) text body are answered 400 (problem+json) before a handler sees
them, and WebSocket messages that fail close the connection with 1007.  Run it (aiohttp's
own server on 127.0.0.1:8000; set PORT to change the port)::

    python examples/aiohttp_app.py

and try, from another shell::

    curl -i 'http://127.0.0.1:8000/echo?q=%E6%9D%B1%E4%BA%AC'   # 200 {"q": "東京"}
    curl -i 'http://127.0.0.1:8000/echo?q=%C0%AE'               # 400: overlong '.'
    curl -i -H 'Content-Type: application/json' -d '{"text": "Grüße"}' \\
        http://127.0.0.1:8000/json
    curl -i -F 'file=@README.md' http://127.0.0.1:8000/upload

The whole setup is the one line ``setup(app, ...)``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from aiohttp import web

from sanitizer.web import Problem
from sanitizer.web.aiohttp import setup

logging.basicConfig(level=logging.INFO)  # every refusal: a WARNING from "sanitizer.web"
log = logging.getLogger("aiohttp_app")


def on_problem(problem: Problem, request: Mapping[str, Any]) -> None:
    """Called once per refused request (the aiohttp request): a hook for metrics."""
    peer = getattr(request, "remote", None)
    log.info("on_problem: %s in %s from %s", problem.kind, problem.part, peer)


async def echo(request: web.Request) -> web.Response:
    return web.json_response({"q": request.query.get("q", "")})


async def json_echo(request: web.Request) -> web.Response:
    return web.json_response({"text": (await request.json())["text"]})


async def text_echo(request: web.Request) -> web.Response:
    return web.json_response({"text": await request.text()})  # inflated by aiohttp


async def upload(request: web.Request) -> web.Response:
    file = (await request.post())["file"]
    assert isinstance(file, web.FileField)
    return web.json_response({"filename": file.filename, "size": len(file.file.read())})


async def chat(request: web.Request) -> web.WebSocketResponse:
    ws = web.WebSocketResponse()
    await ws.prepare(request)
    async for message in ws:  # a text message that fails never gets here: closed, 1007
        await ws.send_str(message.data)
    return ws


def make_app() -> web.Application:
    app = web.Application()
    setup(app, on_problem=on_problem)
    app.router.add_get("/echo", echo)
    app.router.add_post("/json", json_echo)
    app.router.add_post("/text", text_echo)
    app.router.add_post("/upload", upload)
    app.router.add_get("/chat", chat)
    return app


if __name__ == "__main__":
    web.run_app(make_app(), host="127.0.0.1", port=int(os.environ.get("PORT", "8000")))
