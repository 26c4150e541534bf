"""One app per supported framework, each answering with every text its framework handed
it: the path, query fields, header values, cookies, form fields and file names, the
strings of the body read through the framework's JSON accessor, and (Starlette) each
WebSocket text message.

The same apps serve two kinds of test: in process (``expose``: the raw request is
turned into the ASGI scope or WSGI environ a server would make, and the app is called
directly -- tests/suites/test_web_differential*.py), and under real servers
(tests/suites/test_web_frameworks.py, through ``tests.web.webframeworks:<name>`` and
``tests.web.webframeworks:<name>_guarded``, the app behind the middleware).

The answer is JSON: ``{"exposed": [[what, text], ...]}`` where ``what`` names the part
(``EXPOSED_PARTS``: the WebPolicy field that judges it).  A framework that refuses a
request (its own 400) exposes nothing more for it.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import warnings
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import unquote_to_bytes

from sanitizer.web import ASGIMiddleware, WSGIMiddleware

logging.getLogger("sanitizer.web").setLevel(logging.ERROR)
logging.getLogger("python_multipart").setLevel(logging.CRITICAL)
warnings.filterwarnings("ignore", category=ResourceWarning)

# what -> the WebPolicy field whose policy judges that text
EXPOSED_PARTS = {
    "path": "path",
    "query-name": "names",
    "query": "query",
    "header": "headers",
    "cookie-name": "names",
    "cookie": "cookies",
    "name": "names",
    "value": "form",
    "filename": "filenames",
    "json": "json",
    "message": "websocket",
    "text": "text",
}

Exposed = list[tuple[str, str]]


def _json_strings(value: Any, out: Exposed) -> None:
    """Every string of a parsed JSON document, keys included."""
    if isinstance(value, str):
        out.append(("json", value))
    elif isinstance(value, dict):
        for key, item in value.items():
            out.append(("json", key))
            _json_strings(item, out)
    elif isinstance(value, list):
        for item in value:
            _json_strings(item, out)


def _pairs(out: Exposed, name_kind: str, kind: str, items: Iterable[tuple[str, Any]]) -> None:
    for name, value in items:
        out.append((name_kind, name))
        if isinstance(value, str):
            out.append((kind, value))


def _answer(out: Exposed) -> bytes:
    return json.dumps({"exposed": out}).encode()


def _media(content_type: str | None) -> str:
    return (content_type or "").partition(";")[0].strip().lower()


# -- Starlette (FastAPI) ---------------------------------------------------------------


async def starlette_endpoint(request: Any) -> Any:
    from starlette.datastructures import UploadFile
    from starlette.responses import Response

    out: Exposed = [("path", request.url.path)]
    _pairs(out, "query-name", "query", request.query_params.multi_items())
    out += [("header", v) for _, v in request.headers.items()]
    _pairs(out, "cookie-name", "cookie", request.cookies.items())
    try:
        # Starlette decides what is a form (other bodies give an empty one, unread)
        async with request.form() as form:
            items = form.multi_items()
            for name, item in items:
                out.append(("name", name))
                if isinstance(item, UploadFile):
                    if item.filename is not None:
                        out.append(("filename", item.filename))
                    out += [  # the part's other headers, as UploadFile.headers has them
                        ("header", v) for k, v in item.headers.items() if k != "content-disposition"
                    ]
                else:
                    out.append(("value", item))
        if not items:
            body = await request.body()
            if body:
                _json_strings(await request.json(), out)
    except Exception:
        pass
    return Response(_answer(out), media_type="application/json")


async def starlette_websocket(websocket: Any) -> None:
    await websocket.accept()
    out: Exposed = [("path", websocket.url.path)]
    out += [("header", v) for _, v in websocket.headers.items()]
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        if message.get("text") is not None:
            if message["text"] == "end":
                await websocket.send_text(_answer(out).decode())
                await websocket.close()
                return
            out.append(("message", message["text"]))


def _starlette() -> Any:
    from starlette.applications import Starlette
    from starlette.routing import Route, WebSocketRoute

    methods = ["GET", "POST", "PUT"]
    return Starlette(
        routes=[
            WebSocketRoute("/ws", starlette_websocket),
            Route("/{rest:path}", starlette_endpoint, methods=methods),
        ]
    )


# -- Litestar -----------------------------------------------------------------------------


def _litestar() -> Any:
    from litestar import Litestar, Request, Response, route
    from litestar.datastructures import UploadFile

    async def handler(request: Any) -> Any:
        out: Exposed = [("path", request.url.path)]
        _pairs(out, "query-name", "query", request.query_params.multi_items())
        out += [("header", v) for _, v in request.headers.items()]
        _pairs(out, "cookie-name", "cookie", request.cookies.items())
        try:
            form = await request.form()  # Litestar decides what is a form
            for name, item in form.multi_items():
                out.append(("name", name))
                if isinstance(item, UploadFile):
                    out.append(("filename", item.filename))
                else:
                    out.append(("value", item))
            if not form:
                body = await request.body()
                if body:
                    _json_strings(await request.json(), out)
        except Exception:
            pass
        return Response(_answer(out), media_type="application/json")

    handler.__annotations__ = {"request": Request, "return": Response}  # resolved by Litestar
    methods: Any = ["GET", "POST", "PUT"]
    endpoint = route(["/", "/{rest:path}"], http_method=methods, status_code=200)(handler)
    return Litestar([endpoint], debug=False, logging_config=None)


# -- Falcon (ASGI and WSGI) -----------------------------------------------------------


def _falcon_common(req: Any, out: Exposed) -> None:
    out.append(("path", req.path))
    for name in req.params:
        values = req.get_param_as_list(name) or []
        out.append(("query-name", name))
        out += [("query", v) for v in values]
    out += [("header", v) for v in req.headers.values()]
    for name in req.cookies:
        out.append(("cookie-name", name))
        out += [("cookie", v) for v in req.get_cookie_values(name) or []]


def _falcon_asgi() -> Any:
    import falcon.asgi
    from falcon.asgi.multipart import MultipartForm

    async def sink(req: Any, resp: Any, **kwargs: Any) -> None:
        out: Exposed = []
        _falcon_common(req, out)
        try:
            media = await req.get_media()
            if isinstance(media, MultipartForm):  # Falcon decides (a media range too)
                async for part in media:
                    out.append(("name", part.name))
                    if part.filename is not None:
                        out.append(("filename", part.filename))
                    else:
                        out.append(("value", await part.get_text()))
            elif isinstance(media, dict) and _media(req.content_type).endswith("urlencoded"):
                _pairs(out, "name", "value", _flat(media))
            else:
                _json_strings(media, out)
        except Exception:
            pass
        resp.data = _answer(out)
        resp.content_type = "application/json"

    app = falcon.asgi.App()
    app.add_sink(sink, prefix="/")
    return app


def _falcon_wsgi() -> Any:
    import falcon
    from falcon.media.multipart import MultipartForm

    def sink(req: Any, resp: Any, **kwargs: Any) -> None:
        out: Exposed = []
        _falcon_common(req, out)
        try:
            media = req.get_media()
            if isinstance(media, MultipartForm):  # Falcon decides (a media range too)
                for part in media:
                    out.append(("name", part.name))
                    if part.filename is not None:
                        out.append(("filename", part.filename))
                    else:
                        out.append(("value", part.get_text()))
            elif isinstance(media, dict) and _media(req.content_type).endswith("urlencoded"):
                _pairs(out, "name", "value", _flat(media))
            else:
                _json_strings(media, out)
        except Exception:
            pass
        resp.data = _answer(out)
        resp.content_type = "application/json"

    app = falcon.App()
    app.add_sink(sink, prefix="/")
    return app


def _flat(media: dict[str, Any]) -> list[tuple[str, str]]:
    return [(k, x) for k, v in media.items() for x in (v if isinstance(v, list) else [v])]


# -- Flask (Werkzeug) and Quart -----------------------------------------------------------


def _flask() -> Any:
    from flask import Flask, request

    app = Flask("webframeworks_flask")

    @app.route("/", defaults={"rest": ""}, methods=["GET", "POST", "PUT"])
    @app.route("/<path:rest>", methods=["GET", "POST", "PUT"])
    def endpoint(rest: str) -> Any:
        out: Exposed = [("path", request.path)]
        _pairs(out, "query-name", "query", request.args.items(multi=True))
        out += [("header", v) for _, v in request.headers.items()]
        _pairs(out, "cookie-name", "cookie", request.cookies.items(multi=True))
        try:
            _pairs(out, "name", "value", request.form.items(multi=True))
            for name, file in request.files.items(multi=True):
                out.append(("name", name))
                if file.filename is not None:
                    out.append(("filename", file.filename))
            _json_strings(request.get_json(silent=True, force=True), out)
        except Exception:
            pass
        return app.response_class(_answer(out), mimetype="application/json")

    return app


def _quart() -> Any:
    from quart import Quart, request

    app = Quart("webframeworks_quart")

    @app.route("/", defaults={"rest": ""}, methods=["GET", "POST", "PUT"])
    @app.route("/<path:rest>", methods=["GET", "POST", "PUT"])
    async def endpoint(rest: str) -> Any:
        out: Exposed = [("path", request.path)]
        _pairs(out, "query-name", "query", request.args.items(multi=True))
        out += [("header", v) for _, v in request.headers.items()]
        _pairs(out, "cookie-name", "cookie", request.cookies.items(multi=True))
        try:
            form = await request.form
            _pairs(out, "name", "value", form.items(multi=True))
            files = await request.files
            for name, file in files.items(multi=True):
                out.append(("name", name))
                if file.filename is not None:
                    out.append(("filename", file.filename))
            _json_strings(await request.get_json(silent=True, force=True), out)
        except Exception:
            pass
        return app.response_class(_answer(out), mimetype="application/json")

    return app


# -- Django (WSGI and ASGI) ---------------------------------------------------------------


def _django_settings() -> None:
    import django
    from django.conf import settings

    if not settings.configured:
        settings.configure(
            DEBUG=False,
            DEFAULT_CHARSET="utf-8",
            ALLOWED_HOSTS=["*"],
            ROOT_URLCONF=__name__,
            SECRET_KEY="webframeworks",
            MIDDLEWARE=[],
            FILE_UPLOAD_HANDLERS=["django.core.files.uploadhandler.MemoryFileUploadHandler"],
            DATA_UPLOAD_MAX_NUMBER_FIELDS=None,
            LOGGING_CONFIG=None,
        )
        django.setup()
    if not hasattr(settings, "ROOT_URLCONF"):  # configured by another test module
        settings.ROOT_URLCONF = __name__


def django_view(request: Any) -> Any:
    from django.http import HttpResponse

    out: Exposed = [("path", request.path)]
    for name, values in request.GET.lists():
        out.append(("query-name", name))
        out += [("query", v) for v in values]
    out += [("header", v) for _, v in request.headers.items()]
    _pairs(out, "cookie-name", "cookie", request.COOKIES.items())
    try:
        if request.method != "GET":
            for name, values in request.POST.lists():
                out.append(("name", name))
                out += [("value", v) for v in values]
            for name, files in request.FILES.lists():
                out.append(("name", name))
                out += [("filename", f.name) for f in files]
    except Exception:
        pass
    return HttpResponse(_answer(out), content_type="application/json")


def _urlpatterns() -> list[Any]:
    from django.urls import re_path

    return [re_path(r"", django_view)]


def __getattr__(name: str) -> Any:
    if name == "urlpatterns":
        return _urlpatterns()
    raise AttributeError(name)


_BUILT: dict[str, Any] = {}


def _app(name: str) -> Any:
    """The app ``name`` ("starlette", "flask_guarded", ...), made on first use (importing
    a framework costs) and kept."""
    app = _BUILT.get(name)
    if app is None:
        base = name.removesuffix("_guarded")
        app = _make(base)
        if name.endswith("_guarded"):
            asgi = base in ASGI_APPS or base in LIFESPAN_APPS
            app = (ASGIMiddleware if asgi else WSGIMiddleware)(app)
        app = _BUILT[name] = app
    return app


class _LazyASGI:
    def __init__(self, name: str) -> None:
        self.name = name

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await _app(self.name)(scope, receive, send)


class _LazyWSGI:
    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, environ: Any, start_response: Any) -> Any:
        return _app(self.name)(environ, start_response)


def _make(name: str) -> Any:
    if name.startswith("django"):
        return _django_handler(name == "django_asgi")
    return _FACTORIES[name]()


def _django_handler(asgi: bool) -> Any:
    """Django's own handler, its URLs and middleware this module's (none) whatever the
    settings another test module configured first."""
    _django_settings()
    from django.core.handlers.asgi import ASGIHandler
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import override_settings

    base: Any = ASGIHandler if asgi else WSGIHandler

    class Handler(base):  # type: ignore[misc,valid-type]
        def load_middleware(self, is_async: bool = False) -> None:
            with override_settings(MIDDLEWARE=[]):
                super().load_middleware(is_async)

        def get_response(self, request: Any) -> Any:
            request.urlconf = __name__
            return super().get_response(request)

        async def get_response_async(self, request: Any) -> Any:
            request.urlconf = __name__
            return await super().get_response_async(request)

    return Handler()


_FACTORIES: dict[str, Callable[[], Any]] = {
    "starlette": _starlette,
    "litestar": _litestar,
    "falcon_asgi": _falcon_asgi,
    "falcon_wsgi": _falcon_wsgi,
    "quart": _quart,
    "flask": _flask,
    "django_asgi": lambda: None,
    "django_wsgi": lambda: None,
}
ASGI_APPS = ("starlette", "litestar", "falcon_asgi", "quart", "django_asgi")
WSGI_APPS = ("flask", "falcon_wsgi", "django_wsgi")
APPS = ASGI_APPS + WSGI_APPS
# Module attributes for servers ("tests.web.webframeworks:starlette",
# "tests.web.webframeworks:flask_guarded"): callables that make their app on first use.
for _name in ASGI_APPS:
    globals()[_name] = _LazyASGI(_name)
    globals()[_name + "_guarded"] = _LazyASGI(_name + "_guarded")
for _name in WSGI_APPS:
    globals()[_name] = _LazyWSGI(_name)
    globals()[_name + "_guarded"] = _LazyWSGI(_name + "_guarded")


# -- Sanic and BlackSheep, behind ASGIMiddleware ---------------------------------------------
# Not in APPS (the Hypothesis differential tests, which run every app per example): their
# attacks and the benign corpus are tests/web/test_asgi_frameworks.py, their readings
# tests/web/test_readings.py.
LIFESPAN_APPS = ("sanic", "blacksheep")


def _sanic() -> Any:
    from sanic import Sanic, response

    app = Sanic(f"webframeworks{len(_BUILT)}")  # Sanic refuses a name twice

    @app.route("/<rest:path>", methods=["GET", "POST", "PUT"])
    async def endpoint(request: Any, rest: str = "") -> Any:
        out: Exposed = [("path", request.path), ("path", rest)]
        for name, values in request.args.items():
            out += [("query-name", name)] + [("query", v) for v in values]
        out += [("header", v) for v in request.headers.values()]
        for name, values in request.cookies.items():
            out += [("cookie-name", name)] + [("cookie", v) for v in values]
        try:
            for name, values in (request.form or {}).items():
                out += [("name", name)] + [("value", v) for v in values]
            for name, files in (request.files or {}).items():
                out += [("name", name)] + [("filename", f.name) for f in files]
            if not request.form and not request.files:
                _json_strings(request.json, out)
        except Exception as exc:
            out.append(("error", type(exc).__name__))
        return response.raw(_answer(out), content_type="application/json")

    return app


def _blacksheep() -> Any:
    from blacksheep import Application, Response
    from blacksheep.contents import Content

    app = Application()

    async def endpoint(request):  # type: ignore[no-untyped-def]  # (BlackSheep binds by name)
        out: Exposed = [("path", request.path)]
        out += [("path", v) for v in request.route_values.values()]
        for name, values in request.query.items():
            out += [("query-name", name)] + [("query", v) for v in values]
        out += [("header", v.decode("utf-8", "replace")) for _, v in request.headers.items()]
        _pairs(out, "cookie-name", "cookie", request.cookies.items())
        try:
            if "text" in request.query.get("read", ()):  # any body, as its charset says
                out.append(("text", await request.text()))
            form = await request.form()  # BlackSheep decides what is a form (else None)
            if form:
                for name, value in form.items():
                    out.append(("name", name))
                    for item in value if isinstance(value, list) else [value]:
                        if isinstance(item, str):
                            out.append(("value", item))
                        elif getattr(item, "file_name", None):
                            out.append(("filename", item.file_name.decode("utf-8", "replace")))
            else:
                _json_strings(await request.json(), out)
        except Exception as exc:
            out.append(("error", type(exc).__name__))
        return Response(200, content=Content(b"application/json", _answer(out)))

    for method in ("GET", "POST", "PUT"):
        app.router.add(method, "/{path:rest}", endpoint)
    return app


_FACTORIES.update(sanic=_sanic, blacksheep=_blacksheep)


async def _started(app: Any) -> None:
    """Run the app's ASGI lifespan startup (Sanic and BlackSheep need it)."""
    messages = [{"type": "lifespan.startup"}]
    started = asyncio.Event()

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop()
        await asyncio.sleep(3600)
        return {}

    async def send(message: dict[str, Any]) -> None:
        started.set()

    task = asyncio.ensure_future(
        app({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send)
    )
    await started.wait()
    task.cancel()


# -- aiohttp ------------------------------------------------------------------------------
# Not an ASGI or WSGI app: served by aiohttp's own server on loopback (``expose`` sends the
# raw bytes over a socket), bare or behind sanitizer.web.aiohttp ("aiohttp_guarded").
AIOHTTP_APPS = ("aiohttp", "aiohttp_guarded")


async def aiohttp_handler(request: Any) -> Any:
    from aiohttp import web

    out: Exposed = [("path", request.path)]
    out += [("path", v) for v in request.match_info.values()]
    _pairs(out, "query-name", "query", request.query.items())
    out += [("header", v) for v in request.headers.values()]
    _pairs(out, "cookie-name", "cookie", request.cookies.items())
    try:
        form = await request.post()  # aiohttp decides what is a form (else empty, unread)
        for name, item in form.items():
            out.append(("name", name))
            if isinstance(item, web.FileField):
                out.append(("filename", item.filename))
            elif isinstance(item, str):
                out.append(("value", item))
        if not form:
            text = await request.text()  # any body, decompressed, as the charset says
            if request.content_type.startswith("text/") or request.query.get("read") == "text":
                out.append(("text", text))
            if text.strip():
                _json_strings(await request.json(), out)
    except Exception as exc:  # aiohttp's own refusal of the body: nothing more exposed
        out.append(("error", type(exc).__name__))
    return web.json_response({"exposed": out})


async def aiohttp_websocket(request: Any) -> Any:
    from aiohttp import WSMsgType, web

    ws = web.WebSocketResponse()
    await ws.prepare(request)
    out: Exposed = []
    async for message in ws:
        if message.type != WSMsgType.TEXT:
            continue
        if message.data == "end":
            await ws.send_str(_answer(out).decode())
            break
        out.append(("message", message.data))
        try:  # receive_json()'s reading of the same message
            _json_strings(json.loads(message.data), out)
        except ValueError:
            pass
    await ws.close()
    return ws


def aiohttp_app(guarded: bool = False, **changes: Any) -> Any:
    """The aiohttp app, behind ``sanitizer.web.aiohttp.setup(app, **changes)`` if guarded."""
    from aiohttp import web

    app = web.Application()
    if guarded:
        from sanitizer.web.aiohttp import setup

        setup(app, **changes)
    app.router.add_get("/ws", aiohttp_websocket)
    app.router.add_route("*", "/{tail:.*}", aiohttp_handler)
    return app


async def _call_aiohttp(name: str, request: bytes) -> bytes:
    from aiohttp.test_utils import TestServer

    from tests.web import webservers

    app = aiohttp_app(name == "aiohttp_guarded")
    server = TestServer(app, host=webservers.HOST, port=webservers.free_port())
    await server.start_server()
    try:
        reader, writer = await asyncio.open_connection(webservers.HOST, server.port)
        writer.write(request)
        await writer.drain()
        raw = await reader.read()
        writer.close()
    finally:
        await server.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    return body if head.startswith(b"HTTP/1.1 200") else b""


def aiohttp_request(
    method: str, target: bytes, headers: list[tuple[bytes, bytes]], body: bytes = b""
) -> bytes:
    """The raw HTTP/1.1 request, closing its connection."""
    lines = [method.encode() + b" " + target + b" HTTP/1.1"]
    if not any(n.lower() == b"host" for n, _ in headers):
        lines.append(b"Host: 127.0.0.1")
    lines += [n + b": " + v for n, v in headers if n.lower() != b"connection"]
    lines += [b"Connection: close", b"", b""]
    return b"\r\n".join(lines) + body


# -- in process: a raw request as a server hands it over ------------------------------------


def scope_of(method: str, target: bytes, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    """The ASGI scope uvicorn makes: ``path`` percent-decoded as UTF-8."""
    raw_path, _, query = target.partition(b"?")
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": unquote_to_bytes(raw_path).decode("utf-8", "replace"),
        "raw_path": raw_path,
        "root_path": "",
        "query_string": query,
        "headers": [(n.lower(), v) for n, v in headers],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
    }


def environ_of(
    method: str, target: bytes, headers: list[tuple[bytes, bytes]], body: bytes
) -> dict[str, Any]:
    """The WSGI environ of PEP 3333: PATH_INFO percent-decoded, every str latin-1."""
    raw_path, _, query = target.partition(b"?")
    env: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": unquote_to_bytes(raw_path).decode("latin-1"),
        "QUERY_STRING": query.decode("latin-1"),
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": io.StringIO(),
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    for name, value in headers:
        key = name.decode("latin-1").upper().replace("-", "_")
        text = value.decode("latin-1")
        if key not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            key = "HTTP_" + key
        env[key] = env[key] + ("; " if key == "HTTP_COOKIE" else ",") + text if key in env else text
    return env


def _read_answer(raw: bytes) -> Exposed:
    try:
        data = json.loads(raw)
    except ValueError:
        return []  # the framework's own error page: it exposed nothing
    return [(what, text) for what, text in data.get("exposed", [])]


async def _call_asgi(app: Any, scope: dict[str, Any], body: bytes, name: str = "") -> bytes:
    if name in LIFESPAN_APPS:
        await _started(app)
    sent = False
    chunks: list[bytes] = []
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return b"".join(chunks) if status == 200 else b""


def expose(
    name: str, method: str, target: bytes, headers: list[tuple[bytes, bytes]], body: bytes = b""
) -> Exposed:
    """What the app of framework ``name`` (in ``APPS``, or ``AIOHTTP_APPS``) was handed as
    text for this raw request, called in process as uvicorn (ASGI) or a PEP 3333 server
    (WSGI) would, or (aiohttp) by aiohttp's own server over loopback."""
    app = None if name in AIOHTTP_APPS else _app(name)
    if body and not any(n.lower() == b"content-length" for n, _ in headers):
        headers = [*headers, (b"Content-Length", b"%d" % len(body))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name in AIOHTTP_APPS:
            request = aiohttp_request(method, target, headers, body)
            raw = asyncio.run(_call_aiohttp(name, request))
        elif name in ASGI_APPS or name.removesuffix("_guarded") in LIFESPAN_APPS:
            scope = scope_of(method, target, headers)
            if name == "quart":
                scope["extensions"] = {}
            try:
                raw = asyncio.run(_call_asgi(app, scope, body, name.removesuffix("_guarded")))
            except Exception:  # Sanic raises its refusal of a URL (Bad URL) out of the app
                if name.removesuffix("_guarded") not in LIFESPAN_APPS:
                    raise
                raw = b""
        else:
            environ = environ_of(method, target, headers, body)
            status: list[str] = []
            result = app(environ, lambda s, h, e=None: status.append(s))
            try:
                raw = b"".join(result)
            finally:
                getattr(result, "close", lambda: None)()
            raw = raw if status and status[0].startswith("200") else b""
    return _read_answer(raw)


# -- the differential rule ----------------------------------------------------------------


def middleware_verdict(
    policy: Any, method: str, target: bytes, headers: list[tuple[bytes, bytes]], body: bytes
) -> Any:
    """The middleware's verdict (a Problem, or None) through its sans-IO checks."""
    from sanitizer.web import body_check, check_head

    raw_path, _, query = target.partition(b"?")
    problem, head = check_head(policy, raw_path, query, headers)
    if problem is not None:
        return problem
    check = body_check(policy, head)
    return check.feed(body) or check.close()


def judged(policy: Any, what: str, text: str | None) -> bool:
    """``text``, exposed as ``what``, passes the policy of its part (None: nothing)."""
    from sanitizer import inspect

    if (
        text is None or what == "error" or (what == "filename" and not text)
    ):  # no file, or a file input left empty
        return True
    part_policy = getattr(policy, EXPOSED_PARTS[what])
    return part_policy is None or inspect(text, part_policy).ok


def unjudged(
    policy: Any,
    method: str,
    target: bytes,
    headers: list[tuple[bytes, bytes]],
    body: bytes = b"",
    apps: Iterable[str] = APPS,
) -> list[tuple[str, str, str]]:
    """What a framework exposes that fails its part's policy although the middleware
    passed the request: (app, what, text) for each; [] when the middleware refused."""
    if middleware_verdict(policy, method, target, headers, body) is not None:
        return []
    return [
        (app, what, text)
        for app in apps
        for what, text in expose(app, method, target, headers, body)
        if not judged(policy, what, text)
    ]
