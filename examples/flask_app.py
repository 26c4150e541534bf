"""Flask behind ``sanitizer.web.WSGIMiddleware``: requests with ill-formed UTF-8 or dangerous
characters in the query, a JSON string or a form are answered 400 (problem+json) before
Flask routes them.  Run it (waitress on 127.0.0.1:8000; set PORT to change the port)::

    python examples/flask_app.py

and try, from another shell::

    curl -i 'http://127.0.0.1:8000/echo?q=%E6%9D%B1%E4%BA%AC'   # 200 {"q": "東京"}
    curl -i 'http://127.0.0.1:8000/echo?q=%C0%AE'               # 400: overlong '.'
    curl -i -H 'Content-Type: application/json' -d '{"text": "Grüße"}' \\
        http://127.0.0.1:8000/json
    curl -i -F 'file=@README.md' http://127.0.0.1:8000/upload

The whole setup is the one line ``app.wsgi_app = WSGIMiddleware(app.wsgi_app, ...)``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

import waitress
from flask import Flask, request

from sanitizer.web import Problem, WSGIMiddleware

logging.basicConfig(level=logging.INFO)  # every refusal: a WARNING from "sanitizer.web"
log = logging.getLogger("flask_app")


def on_problem(problem: Problem, environ: Mapping[str, Any]) -> None:
    """Called once per refused request: a hook for metrics or alerts."""
    log.info("on_problem: %s in %s from %s", problem.kind, problem.part, environ["REMOTE_ADDR"])


app = Flask(__name__)
app.wsgi_app = WSGIMiddleware(app.wsgi_app, on_problem=on_problem)  # type: ignore[method-assign]


@app.get("/echo")
def echo() -> dict[str, str]:
    return {"q": request.args.get("q", "")}


@app.post("/json")
def json_echo() -> dict[str, str]:
    return {"text": request.get_json()["text"]}


@app.post("/upload")
def upload() -> dict[str, Any]:
    file = request.files["file"]
    return {"filename": file.filename, "size": len(file.read())}


if __name__ == "__main__":
    waitress.serve(app, host="127.0.0.1", port=int(os.environ.get("PORT", "8000")))
