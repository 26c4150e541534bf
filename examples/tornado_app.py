"""Tornado, which speaks neither ASGI nor WSGI, with the sans-IO checks of
``sanitizer.web`` called from ``RequestHandler.prepare()``: requests with ill-formed
UTF-8 or dangerous characters in the path, query, headers, a JSON string, a form or an
upload's name are answered 400 (problem+json) before the handler method runs.  Run it
(Tornado on 127.0.0.1:8000; set PORT to change the port)::

    python examples/tornado_app.py

and try, from another shell::

    curl -i 'http://127.0.0.1:8000/echo?q=%E6%9D%B1%E4%BA%AC'   # 200 {"q": "東京"}
    curl -i 'http://127.0.0.1:8000/echo?q=%C0%AE'               # 400: overlong '.'

Tornado reads the whole body (up to its ``max_body_size``) before ``prepare()``, and,
with ``decompress_request=True``, inflates a gzip body and drops its Content-Encoding
header first; so ``prepare()`` judges the head and the body the handler will read.  A
handler with ``@stream_request_body`` gets its chunks in ``data_received()`` instead:
feed each to the ``BodyCheck`` there, and ``close()`` it in the handler method.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os

import tornado.web

from sanitizer.web import LOGGER, WebPolicy, body_check, check_head

logging.basicConfig(level=logging.INFO)  # every refusal: a WARNING from "sanitizer.web"
log = logging.getLogger("tornado_app")
POLICY = WebPolicy()  # or WebPolicy(json=None, max_body_size=1 << 20, ...)


class SanitizedHandler(tornado.web.RequestHandler):
    """The base of every handler: ``prepare()`` judges the request as the middleware of
    ``sanitizer.web`` would, and answers the problem instead of the handler."""

    def prepare(self) -> None:
        request = self.request
        # Tornado decoded the request line and headers as Latin-1: these are the bytes sent.
        path, _, query = (
            request.uri.encode("latin-1").partition(b"?") if request.uri else (b"", b"", b"")
        )
        headers = [(n.encode("latin-1"), v.encode("latin-1")) for n, v in request.headers.get_all()]
        problem, head = check_head(POLICY, path, query, headers)
        if problem is None and request.body:
            check = body_check(POLICY, head)
            problem = check.feed(request.body) or check.close()
        if problem is not None:
            target = (request.uri or "").encode("unicode_escape").decode("ascii")  # CWE-117
            LOGGER.warning("refused %s %s: %s", request.method, target, problem.detail)
            log.info("on_problem: %s in %s from %s", problem.kind, problem.part, request.remote_ip)
            self.set_status(problem.status)
            self.set_header("Content-Type", "application/problem+json")
            self.set_header("X-Content-Type-Options", "nosniff")
            self.finish(problem.body())


class Echo(SanitizedHandler):
    def get(self) -> None:
        self.write({"q": self.get_query_argument("q", "")})


class JSONEcho(SanitizedHandler):
    def post(self) -> None:
        self.write({"text": json.loads(self.request.body)["text"]})


class Upload(SanitizedHandler):
    def post(self) -> None:
        file = self.request.files["file"][0]
        self.write({"filename": file.filename, "size": len(file.body)})


def make_app() -> tornado.web.Application:
    return tornado.web.Application([("/echo", Echo), ("/json", JSONEcho), ("/upload", Upload)])


async def main() -> None:
    port = int(os.environ.get("PORT", "8000"))
    make_app().listen(port, address="127.0.0.1", decompress_request=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())
