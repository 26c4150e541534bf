"""The two adapters' contracts, driven in-process message by message (the real-server
tests are in test_web_servers.py): what the app receives and when, what the client gets,
and what happens when the app misbehaves around a refusal."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest

from sanitizer.web import ASGIMiddleware, Problem, RequestRejected, WSGIMiddleware

logging.getLogger("sanitizer.web").setLevel(logging.ERROR)

# -- ASGI -------------------------------------------------------------------------------


def http_scope(
    path: bytes = b"/", query: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None
) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "path": path.decode("latin-1"),
        "raw_path": path,
        "query_string": query,
        "headers": headers or [],
        "client": ("127.0.0.1", 5000),
    }


def run_asgi(
    app: Any, scope: dict[str, Any], chunks: list[bytes]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Run ``app`` with the body in ``chunks``; returns (messages the app got from
    receive, messages sent to the client)."""
    incoming = [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
        for i, c in enumerate(chunks)
    ] or [{"type": "http.request", "body": b"", "more_body": False}]
    got: list[dict[str, Any]] = []
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def recording_app(scope: Any, inner: Any, send: Any) -> None:
        async def recorded() -> dict[str, Any]:
            message: dict[str, Any] = await inner()
            got.append(message)
            return message

        await app(scope, recorded, send)

    async def main() -> None:
        await ASGIMiddleware(recording_app)(scope, receive, send)

    asyncio.run(main())
    return got, sent


async def reading_app(scope: Any, receive: Any, send: Any) -> None:
    """Reads the whole body like Starlette's request.body(), then answers 200."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ConnectionError("client went away")  # Starlette: ClientDisconnect
        if not message.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


JSON = [(b"content-type", b"application/json"), (b"transfer-encoding", b"chunked")]


def status_of(sent: list[dict[str, Any]]) -> int:
    return int(next(m["status"] for m in sent if m["type"] == "http.response.start"))


def test_asgi_app_never_receives_the_refused_chunk() -> None:
    chunks = [b'{"a": "ok", ', b'"b": "\xc0\xae"}']
    got, sent = run_asgi(reading_app, http_scope(headers=JSON), chunks)
    bodies = [m.get("body") for m in got if m["type"] == "http.request"]
    assert bodies == [chunks[0]]  # the first chunk passed, the bad one never arrived
    assert got[-1] == {"type": "http.disconnect"}
    assert status_of(sent) == 400
    headers = dict(sent[0]["headers"])
    assert headers[b"content-type"] == b"application/problem+json"
    assert headers[b"connection"] == b"close"
    assert json.loads(sent[1]["body"])["kind"] == "overlong"


def test_asgi_last_chunk_is_held_until_the_end_of_the_body_passed() -> None:
    # "\xe6\x97" is a valid prefix: only the end of the body shows it is incomplete.
    got, sent = run_asgi(reading_app, http_scope(headers=JSON), [b'{"a": "', b"x\xe6\x97"])
    assert [m.get("body") for m in got if m["type"] == "http.request"] == [b'{"a": "']
    assert status_of(sent) == 400


def test_asgi_passes_everything_unchanged() -> None:
    chunks = [b'{"a": "\xe6\x97', b'\xa5\xe6\x9c\xac"}']
    got, sent = run_asgi(reading_app, http_scope(headers=JSON), chunks)
    # The open string's bytes wait until it is judged; the body is unchanged.
    assert [m["body"] for m in got] == [b'{"a": "', b'\xe6\x97\xa5\xe6\x9c\xac"}']
    assert status_of(sent) == 200 and sent[1]["body"] == b"ok"


def test_asgi_app_that_answers_after_the_disconnect_is_replaced() -> None:
    async def stubborn(scope: Any, receive: Any, send: Any) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        await send({"type": "http.response.start", "status": 500, "headers": []})
        await send({"type": "http.response.body", "body": b"oops"})

    _, sent = run_asgi(stubborn, http_scope(headers=JSON), [b'"\xc0\xae"'])
    assert status_of(sent) == 400 and len(sent) == 2


def test_asgi_response_already_started_is_left_alone() -> None:
    async def early(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        while (await receive())["type"] != "http.disconnect":
            pass
        await send({"type": "http.response.body", "body": b"partial"})

    got, sent = run_asgi(early, http_scope(headers=JSON), [b'"\xc0\xae"'])
    assert got == [{"type": "http.disconnect"}]  # still never saw the chunk
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert status_of(sent) == 200


def test_asgi_refusal_reaches_the_client_before_the_app_hears_of_it() -> None:
    # The answer never waits on the app: an app that lingers (or never ends) after the
    # disconnect does not hold the client's 400 back.
    sent_when_told: list[list[str]] = []
    sent: list[dict[str, Any]] = []

    async def lingering(scope: Any, receive: Any, send: Any) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        sent_when_told.append([m["type"] for m in sent])

    incoming = [{"type": "http.request", "body": b'"\xc0\xae"', "more_body": False}]

    async def receive() -> dict[str, Any]:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(ASGIMiddleware(lingering)(http_scope(headers=JSON), receive, send))
    assert sent_when_told == [["http.response.start", "http.response.body"]]
    assert status_of(sent) == 400 and len(sent) == 2


async def _serve_refused(app: Any, scope: dict[str, Any], body: bytes) -> list[dict[str, Any]]:
    """``app`` behind the middleware, called as a server would, with ``body`` (which the
    middleware refuses) in one message; then receive() waits as for a client that sent
    nothing more.  Returns what was sent.  A generous timeout guards against a hang only."""
    sent: list[dict[str, Any]] = []
    messages = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop()
        await asyncio.Event().wait()  # a server's receive() before the client leaves
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def server() -> None:
        await ASGIMiddleware(app)(scope, receive, send)
        task = asyncio.current_task()
        assert task is not None and getattr(task, "cancelling", lambda: 0)() == 0

    await asyncio.wait_for(server(), timeout=60)
    return sent


REFUSED_BODIES = [
    ("json-by-content", [(b"content-type", b"text/plain")], b'{"a": "\\u202e"}'),
    ("form", [(b"content-type", b"application/x-www-form-urlencoded")], b"a=%E2%80%AE"),
]


@pytest.mark.parametrize(
    "framework", ["quart", "starlette", "litestar", "falcon_asgi", "django_asgi"]
)
@pytest.mark.parametrize("kind", [k for k, _, _ in REFUSED_BODIES])
def test_asgi_app_reading_a_refused_body_ends(framework: str, kind: str) -> None:
    # Quart receives in a task of its own and cancels its handler on the disconnect; on
    # Python < 3.12 asyncio.wait_for could drop that cancellation, and the handler then
    # waited for a body that never came: the request never ended.
    pytest.importorskip(framework.split("_")[0])
    wf = pytest.importorskip("tests.web.webframeworks")
    _, headers, body = next(r for r in REFUSED_BODIES if r[0] == kind)
    headers = [*headers, (b"content-length", b"%d" % len(body))]
    scope = wf.scope_of("POST", b"/j", headers)
    scope["extensions"] = {}
    app = wf._app(framework)  # the framework's app, unguarded: wrapped here
    sent = asyncio.run(_serve_refused(app, scope, body))
    assert status_of(sent) == 400
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]


def test_asgi_head_refusal_never_calls_the_app() -> None:
    called = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        called.append(scope)

    _, sent = run_asgi(app, http_scope(b"/..%c0%af../"), [])
    assert not called and status_of(sent) == 400
    assert b"connection" not in dict(sent[0]["headers"])  # no body left unread


def test_asgi_report_only_passes_and_reports() -> None:
    seen: list[Problem] = []
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b'"\\ud800"', "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    mw = ASGIMiddleware(reading_app, report_only=True, on_problem=lambda p, scope: seen.append(p))
    asyncio.run(mw(http_scope(b"/%C0%AE", headers=JSON), receive, send))
    assert status_of(sent) == 200
    assert [p.kind for p in seen] == ["overlong", "lone-surrogate-escape"]


def test_asgi_lifespan_and_websocket() -> None:
    sent: list[dict[str, Any]] = []
    passed: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        passed.append(scope["type"])

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    mw = ASGIMiddleware(app)
    asyncio.run(mw({"type": "lifespan"}, receive, send))
    ws = {"type": "websocket", "path": "/ws", "raw_path": b"/ws", "query_string": b"t=%C0%AE"}
    asyncio.run(mw({**ws, "headers": []}, receive, send))
    assert sent == [{"type": "websocket.close", "code": 1008}]
    asyncio.run(mw({**ws, "query_string": b"t=1", "headers": []}, receive, send))
    assert passed == ["lifespan", "websocket"]


def test_asgi_without_raw_path_checks_the_decoded_path() -> None:
    scope = http_scope()
    del scope["raw_path"]
    scope["path"] = "/\ud800"  # a server that decoded with surrogateescape-like rules
    _, sent = run_asgi(reading_app, scope, [])
    assert status_of(sent) == 400


def test_asgi_keyword_configuration() -> None:
    mw = ASGIMiddleware(reading_app, max_body_size=4, json=None)
    assert mw.policy.max_body_size == 4 and mw.policy.json is None
    with pytest.raises(TypeError):
        ASGIMiddleware(reading_app, no_such_field=1)


# -- WSGI -------------------------------------------------------------------------------


def environ_for(
    path: str = "/",
    query: str = "",
    body: bytes = b"",
    content_type: str = "application/json",
    **extra: Any,
) -> dict[str, Any]:
    return {
        "REQUEST_METHOD": "POST",
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "CONTENT_TYPE": content_type,
        "CONTENT_LENGTH": str(len(body)),
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.input": io.BytesIO(body),
        **extra,
    }


def call_wsgi(app: Any, environ: dict[str, Any]) -> tuple[str, list[tuple[str, str]], bytes]:
    started: list[tuple[str, list[tuple[str, str]]]] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        started.append((status, headers))
        return lambda data: None

    result = app(environ, start_response)
    try:
        out = b"".join(result)
    finally:
        getattr(result, "close", lambda: None)()
    return started[-1][0], started[-1][1], out


def wsgi_reader(read: Callable[[Any], bytes]) -> Any:
    def app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        data = read(environ["wsgi.input"])
        start_response("200 OK", [("Content-Type", "application/octet-stream")])
        return [data]

    return app


@pytest.mark.parametrize(
    "read",
    [
        lambda f: f.read(),
        lambda f: f.read(3) + f.read(),
        lambda f: b"".join(iter(lambda: f.read(2), b"")),
        lambda f: f.readline() + b"".join(f.readlines()),
        lambda f: b"".join(f),
    ],
    ids=["read", "read-n", "read-loop", "readline", "iter"],
)
def test_wsgi_input_hands_over_exactly_the_body(read: Callable[[Any], bytes]) -> None:
    body = '{"a": "日本語\\n",\n"b": "😀"}\n'.encode()
    status, _, out = call_wsgi(WSGIMiddleware(wsgi_reader(read)), environ_for(body=body))
    assert (status, out) == ("200 OK", body)


@pytest.mark.parametrize(
    "read", [lambda f: f.read(), lambda f: f.readline(), lambda f: b"".join(f)]
)
def test_wsgi_refusal_replaces_whatever_the_app_answers(read: Callable[[Any], bytes]) -> None:
    def catching_app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        try:
            read(environ["wsgi.input"])
        except OSError:  # a framework turning a broken stream into a 500 or 400 of its own
            start_response("500 Internal Server Error", [])
            return [b"framework error page"]
        start_response("200 OK", [])
        return [b"ok"]

    body = b'{"a": "\xc0\xae"}\n'
    status, headers, out = call_wsgi(WSGIMiddleware(catching_app), environ_for(body=body))
    assert status == "400 Bad Request"
    assert ("Content-Type", "application/problem+json") in headers
    assert json.loads(out)["kind"] == "overlong"
    status, _, out = call_wsgi(WSGIMiddleware(wsgi_reader(read)), environ_for(body=body))
    assert status == "400 Bad Request"


def test_wsgi_generator_app_and_close_is_passed_on() -> None:
    closed = []

    class Body:
        def __init__(self, environ: dict[str, Any], start_response: Any) -> None:
            self.environ, self.start_response = environ, start_response

        def __iter__(self) -> Iterator[bytes]:
            data = self.environ["wsgi.input"].read()  # reads lazily, during iteration
            self.start_response("200 OK", [])
            yield data

        def close(self) -> None:
            closed.append(True)

    status, _, out = call_wsgi(WSGIMiddleware(Body), environ_for(body=b'"ok"'))
    assert (status, out, closed) == ("200 OK", b'"ok"', [True])
    status, _, _ = call_wsgi(WSGIMiddleware(Body), environ_for(body=b'"\xed\xa0\x80"'))
    assert status == "400 Bad Request" and closed == [True, True]


def test_wsgi_head_checks_and_raw_uri() -> None:
    app = WSGIMiddleware(wsgi_reader(lambda f: f.read()))
    assert call_wsgi(app, environ_for("/\xc0\xaf"))[0] == "400 Bad Request"  # PATH_INFO
    env = environ_for("/\xc0\xaf", REQUEST_URI="/..%c0%af../")  # raw URI wins
    assert json.loads(call_wsgi(app, env)[2])["detail"].startswith("request path (percent")
    env = environ_for(query="q=%E2%80%AE")
    assert json.loads(call_wsgi(app, env)[2])["kind"] == "bidi-control"
    env = environ_for(HTTP_X_NAME="caf\xc3\xa9")  # PEP 3333: headers arrive as latin-1
    assert json.loads(call_wsgi(app, env)[2])["kind"] == "ambiguous-header"  # obs-text
    app = WSGIMiddleware(wsgi_reader(lambda f: f.read()), utf8_headers={"x-name"})
    assert call_wsgi(app, env)[0] == "200 OK"


def test_wsgi_size_limit_and_missing_length() -> None:
    app = WSGIMiddleware(wsgi_reader(lambda f: f.read()), max_body_size=4)
    env = environ_for(body=b"12345", content_type="application/octet-stream")
    assert call_wsgi(app, env)[0] == "413 Content Too Large"
    env["CONTENT_LENGTH"] = ""  # chunked body, server sets wsgi.input_terminated
    env["wsgi.input"], env["wsgi.input_terminated"] = io.BytesIO(b"12345"), True
    assert call_wsgi(app, env)[0] == "413 Content Too Large"
    env = environ_for(body=b"123", content_type="application/octet-stream")
    env["CONTENT_LENGTH"] = ""  # no length, not terminated: PEP 3333 says read nothing
    assert call_wsgi(app, env)[2] == b""


def test_wsgi_report_only_passes_body_unchanged() -> None:
    seen: list[Problem] = []
    app = WSGIMiddleware(
        wsgi_reader(lambda f: f.read()), report_only=True, on_problem=lambda p, e: seen.append(p)
    )
    body = b'{"a": "\xc0\xae"}'
    status, _, out = call_wsgi(app, environ_for(body=body))
    assert (status, out) == ("200 OK", body) and seen[0].kind == "overlong"


def test_request_rejected_is_an_oserror() -> None:
    assert issubclass(RequestRejected, OSError)


def test_asgi_http2_body_without_length_is_still_watched() -> None:
    scope = {**http_scope(headers=[(b"content-type", b"application/json")]), "http_version": "2"}
    got, sent = run_asgi(reading_app, scope, [b'"\xc0\xae"'])
    assert got == [{"type": "http.disconnect"}] and status_of(sent) == 400


def test_wsgi_app_that_reraises_its_own_error_still_gets_the_400() -> None:
    """Django with DEBUG_PROPAGATE_EXCEPTIONS turns the OSError into UnreadablePostError."""

    def app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        try:
            environ["wsgi.input"].read()
        except OSError as e:
            raise ConnectionError(*e.args) from e
        start_response("200 OK", [])
        return [b"ok"]

    status, _, out = call_wsgi(WSGIMiddleware(app), environ_for(body=b'{"t": "\xc0\xae"}'))
    assert status == "400 Bad Request" and json.loads(out)["part"] == "json"
    with pytest.raises(ConnectionError):  # an error of the app's own is not hidden
        call_wsgi(
            WSGIMiddleware(lambda e, s: (_ for _ in ()).throw(ConnectionError())), environ_for()
        )


def test_without_python_multipart_multipart_bodies_are_refused_and_the_rest_checked(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """python-multipart is the optional ``web`` extra: without it the middleware is built
    (with a warning saying what to install), a multipart body is refused with 415, never
    passed on unread, and every other body is checked as usual."""
    import sys

    from sanitizer.web import _dispatch

    monkeypatch.setitem(sys.modules, "python_multipart", None)  # import fails
    _dispatch.multipart_available.cache_clear()
    monkeypatch.setattr(_dispatch, "multipart_available", _dispatch.multipart_available)
    try:
        with caplog.at_level(logging.WARNING, logger="sanitizer.web"):
            asgi = ASGIMiddleware(reading_app)
            wsgi = WSGIMiddleware(wsgi_reader(lambda f: f.read()))
        assert "utf8-sanitizer[web]" in caplog.text and "415" in caplog.text
        body = b'--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--b--\r\n'
        kind = "multipart/form-data; boundary=b"
        status, _, out = call_wsgi(wsgi, environ_for(body=body, content_type=kind))
        assert status == "415 Unsupported Media Type"
        assert json.loads(out)["type"].endswith("unchecked-body")
        assert "python-multipart" in json.loads(out)["detail"]
        head = [(b"content-type", kind.encode()), (b"content-length", b"%d" % len(body))]
        _, sent = run_asgi(asgi, http_scope(headers=head), [body])
        assert status_of(sent) == 415
        status, _, out = call_wsgi(wsgi, environ_for(body=b'{"t": "\xc0\xae"}'))
        assert status == "400 Bad Request"  # JSON still checked
        status, _, out = call_wsgi(wsgi, environ_for(body=b'{"t": "ok"}'))
        assert status == "200 OK"
    finally:
        _dispatch.multipart_available.cache_clear()


def test_asgi_body_refusal_logs_the_path_even_without_raw_path(
    caplog: pytest.LogCaptureFixture,
) -> None:
    scope = http_scope(b"/upload", headers=JSON)
    del scope["raw_path"]
    with caplog.at_level(logging.WARNING, logger="sanitizer.web"):
        _, sent = run_asgi(reading_app, scope, [b'"\xc0\xae"'])
    assert status_of(sent) == 400
    assert caplog.records[-1].sanitizer["target"] == "/upload"  # type: ignore[attr-defined]
