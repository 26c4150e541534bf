"""FastAPI behind ``sanitizer.web.ASGIMiddleware``: requests with ill-formed UTF-8 or dangerous
characters in the query, a JSON string or a form are answered 400 (problem+json) before
FastAPI routes them.  Run it (uvicorn on 127.0.0.1:8000; set PORT to change the port)::

    python examples/fastapi_app.py

and try, from another shell::

    curl -i 'http://127.0.0.1:8000/echo?q=%E6%9D%B1%E4%BA%AC'   # 200 {"q": "東京"}
    curl -i 'http://127.0.0.1:8000/echo?q=%C0%AE'               # 400: overlong '.'
    curl -i -H 'Content-Type: application/json' -d '{"text": "Grüße"}' \\
        http://127.0.0.1:8000/json
    curl -i -F 'file=@README.md' http://127.0.0.1:8000/upload

The whole setup is the one line ``app.add_middleware(ASGIMiddleware, ...)``.  Plain
Starlette takes the same middleware in its constructor::

    app = Starlette(routes=routes, middleware=[Middleware(ASGIMiddleware)])
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

import uvicorn
from fastapi import FastAPI, UploadFile
from pydantic import BaseModel

from sanitizer.web import ASGIMiddleware, Problem

logging.basicConfig(level=logging.INFO)  # every refusal: a WARNING from "sanitizer.web"
log = logging.getLogger("fastapi_app")


def on_problem(problem: Problem, scope: Mapping[str, Any]) -> None:
    """Called once per refused request: a hook for metrics or alerts."""
    log.info("on_problem: %s in %s from %s", problem.kind, problem.part, scope["client"])


app = FastAPI()
# untyped_body: FastAPI before 0.132 (or with strict_content_type=False) parses a body sent
# without Content-Type as JSON, so the middleware must check such bodies as JSON too.
app.add_middleware(ASGIMiddleware, untyped_body="application/json", on_problem=on_problem)


class Message(BaseModel):
    text: str


@app.get("/echo")
async def echo(q: str = "") -> dict[str, str]:
    return {"q": q}


@app.post("/json")
async def json_echo(message: Message) -> dict[str, str]:
    return {"text": message.text}


@app.post("/upload")
async def upload(file: UploadFile) -> dict[str, Any]:
    return {"filename": file.filename, "size": len(await file.read())}


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(os.environ.get("PORT", "8000")))
