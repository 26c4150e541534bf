"""aiohttp middleware: the checks of ``sanitizer.web`` for aiohttp, which speaks neither
ASGI nor WSGI, added as aiohttp users expect::

    from sanitizer.web.aiohttp import setup
    app = web.Application()
    setup(app)                     # or setup(app, json=None, max_body_size=1 << 20)

``setup`` appends the middleware (made with aiohttp's ``@web.middleware``) to
``app.middlewares`` and hooks ``app.on_response_prepare`` for WebSockets; call it before
adding other middlewares that read the request, and before the app starts.

This module only translates; the deciding code is the sans-IO checks. The head is judged
from what aiohttp parsed (the raw path and query of ``request.rel_url``,
``request.raw_headers``). The body is judged as aiohttp hands it over: after aiohttp's
own decompression (a ``Content-Encoding`` of gzip, deflate, and br or zstd where aiohttp
can decode them), so a gzip body's text is judged, not its compressed bytes. The
request's payload stream is replaced by one that pulls from aiohttp's as the app reads,
judging each chunk before it is handed on, so ``read()``, ``text()``, ``json()``,
``post()``, ``multipart()`` and ``content`` all get only judged bytes, in bounded
memory. A body with no checked media type is also judged as ``request.text()`` reads any
body (``_readings``: "text"; ``_text.TextByContent``). A refused body makes the app's
read raise ``BodyRefused`` (an ``HTTPBadRequest``); the client gets the problem (RFC
9457) whatever the app made of the failure. WebSocket text messages are judged as
``receive()`` returns them (``receive_str()``, ``receive_json()``, ``async for``): one
that fails closes the connection with 1007. This module is the only one that imports
aiohttp.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, cast

from aiohttp import WSMsgType, web
from aiohttp.compression_utils import HAS_BROTLI, HAS_ZSTD
from aiohttp.streams import StreamReader

from ._body import BodyCheck
from ._compiled_web import compile_web_policy
from ._config import WebPolicy
from ._dispatch import body_check, text_by_content
from ._head import judge_head
from ._problems import NOSNIFF, PROBLEM_CONTENT_TYPE, Problem, sample_size, with_sample
from ._readings import AIOHTTP, TABLE, UTF8
from ._report import ProblemCallback, Reporter, configure
from ._websocket import websocket_problem

__all__ = ["BodyRefused", "SanitizerMiddleware", "problem_response", "setup"]

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# The content codings aiohttp's parser decodes itself (http_parser.HttpRequestParser:
# a single Content-Encoding of exactly one of these, any case); br and zstd only with
# their libraries.  Any other coding reaches the app as sent.
DECODED_CODINGS = frozenset(
    {b"gzip", b"deflate", *([b"br"] if HAS_BROTLI else []), *([b"zstd"] if HAS_ZSTD else [])}
)
# request.text() reads any body as text (_readings: "text"); else such bodies are bytes
_TEXT_BY_CONTENT = TABLE["text"][AIOHTTP].raw == UTF8


class BodyRefused(web.HTTPBadRequest):
    """Raised by the app's read of a refused body; the middleware answers the problem."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(  # (text: aiohttp deprecates body= for its HTTP exceptions)
            text=problem.body().decode("utf-8"),
            content_type=PROBLEM_CONTENT_TYPE,
            headers={NOSNIFF[0]: NOSNIFF[1]},
        )
        self.problem = problem

    def __reduce__(self) -> tuple[type[BodyRefused], tuple[Problem]]:
        return (type(self), (self.problem,))  # a response's state is rebuilt from it


class SanitizerMiddleware:
    """Refuse ill-formed and dangerous input before an aiohttp handler sees it.

    ``SanitizerMiddleware()`` uses ``WebPolicy()``; pass a ``policy`` and/or any of its
    fields as keywords.  ``on_problem(problem, request)`` is called for every refusal
    (or, in report-only mode, every would-be refusal); records also go to ``logger``
    ("sanitizer.web").  ``setup(app, ...)`` installs one; ``middleware`` is the
    ``@web.middleware`` function and ``on_response_prepare`` the WebSocket hook.
    """

    def __init__(
        self,
        policy: WebPolicy | None = None,
        *,
        on_problem: ProblemCallback | None = None,
        logger: logging.Logger | None = None,
        **changes: Any,
    ) -> None:
        self.policy: WebPolicy
        self.reporter: Reporter
        self.policy, self.reporter = configure(policy, changes, on_problem, logger)
        mine = self._middleware

        @web.middleware
        async def sanitizer_middleware(
            request: web.Request, handler: Handler
        ) -> web.StreamResponse:
            return await mine(request, handler)

        self.middleware = sanitizer_middleware

    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        compiled = compile_web_policy(self.policy)
        path, query, headers = _head(request)
        problem, head = judge_head(compiled, path, query, headers, False)
        if problem is not None:
            want = sample_size(problem, head.content_length) if request.body_exists else 0
            if want and not self.policy.report_only:  # a UTF-7 charset: what the body spelled
                problem = with_sample(problem, await _sample(request.content, want))
            self._report(problem, request)
            if not self.policy.report_only:
                return problem_response(problem)
        if not request.body_exists:
            return await handler(request)
        if _TEXT_BY_CONTENT:  # request.text() decodes any body (_readings: "text")
            bound = request.client_max_size or self.policy.max_body_size
            check = text_by_content(self.policy, head, headers, bound, hold=True)
        else:
            check = body_check(self.policy, head)
        reader = _CheckedReader(request.content, check, self, request)
        request._payload = reader  # what read(), text(), post() and content all read
        request._cache.pop("content", None)
        try:
            response = await handler(request)
        except Exception:
            if reader.refused is None:
                raise
            return problem_response(reader.refused)  # whatever the app made of the failure
        refused = reader.refused
        if refused is not None and not response.prepared:
            return problem_response(refused)
        return response

    async def on_response_prepare(self, request: web.Request, response: Any) -> None:
        """``app.on_response_prepare``: a WebSocketResponse being prepared gets its
        ``receive`` judged (every other reading method goes through it)."""
        if isinstance(response, web.WebSocketResponse) and self.policy.websocket is not None:
            response.receive = _judged_receive(self, request, response, response.receive)  # type: ignore[method-assign,assignment]

    def failed(self, problem: Problem, request: web.Request) -> bool:
        """Report a body's problem; True if the request is refused (not report-only)."""
        self._report(problem, request)
        return not self.policy.report_only

    def _report(self, problem: Problem, request: web.Request) -> None:
        target = request.rel_url.raw_path_qs.encode("utf-8", "surrogateescape")
        peer = request.transport.get_extra_info("peername") if request.transport else None
        client = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) and len(peer) >= 2 else None
        self.reporter(problem, cast(Any, request), request.method, target, client)


def setup(
    app: web.Application,
    policy: WebPolicy | None = None,
    *,
    on_problem: ProblemCallback | None = None,
    logger: logging.Logger | None = None,
    **changes: Any,
) -> SanitizerMiddleware:
    """Install a ``SanitizerMiddleware`` on ``app``: its middleware appended to
    ``app.middlewares`` and its WebSocket hook to ``app.on_response_prepare``."""
    sanitizer = SanitizerMiddleware(policy, on_problem=on_problem, logger=logger, **changes)
    app.middlewares.append(sanitizer.middleware)
    app.on_response_prepare.append(sanitizer.on_response_prepare)
    return sanitizer


def problem_response(problem: Problem) -> web.Response:
    """The RFC 9457 problem+json answer, as the other adapters send it."""
    response = web.Response(body=problem.body(), status=problem.status)
    response.headers["Content-Type"] = PROBLEM_CONTENT_TYPE
    response.headers[NOSNIFF[0]] = NOSNIFF[1]
    return response


def _head(request: web.Request) -> tuple[bytes, bytes, list[tuple[bytes, bytes]]]:
    """The raw path and query as received, and the headers, without a Content-Encoding
    that aiohttp decodes itself: the app reads the decoded body."""
    url = request.rel_url
    path = url.raw_path.encode("utf-8", "surrogateescape")
    query = url.raw_query_string.encode("utf-8", "surrogateescape")
    headers = list(request.raw_headers)
    codings = [i for i, (name, _) in enumerate(headers) if name.lower() == b"content-encoding"]
    if len(codings) == 1 and headers[codings[0]][1].strip().lower() in DECODED_CODINGS:
        del headers[codings[0]]
    return path, query, headers


async def _sample(content: StreamReader, want: int) -> bytes:
    sample = bytearray()
    while len(sample) < want:
        chunk = await content.read(want - len(sample))
        if not chunk:
            break
        sample += chunk
    return bytes(sample)


class _NoFlowControl:
    """The checked reader's protocol: it is fed only as the app reads, so aiohttp's
    flow control stays with the reader it pulls from."""

    def __init__(self, protocol: Any) -> None:
        self._protocol = protocol

    @property
    def connected(self) -> bool:
        return self._protocol is None or bool(self._protocol.connected)

    def pause_reading(self, *args: Any, **kwargs: Any) -> None:
        pass

    def resume_reading(self, *args: Any, **kwargs: Any) -> None:
        pass


class _CheckedReader(StreamReader):
    """A StreamReader fed from aiohttp's, on demand: each chunk is judged before the
    bytes no check can refuse any more are handed on (``BodyCheck.judged``)."""

    def __init__(
        self, source: StreamReader, check: BodyCheck, mw: SanitizerMiddleware, request: Any
    ) -> None:
        protocol: Any = _NoFlowControl(request.protocol)
        super().__init__(protocol, 2**16, loop=asyncio.get_running_loop())
        self._source = source
        self._check = check
        self._mw = mw
        self._request = request
        self._held = bytearray()  # received, not judged yet
        self.refused: Problem | None = None  # the problem that refused the body

    async def _wait(self, func_name: str) -> None:
        while not self._buffer and not self._eof:
            await self._pull()

    async def _pull(self) -> None:
        if self.refused is not None:
            raise BodyRefused(self.refused)
        chunk = await self._source.readany()
        check = self._check
        if chunk:
            problem = check.feed(chunk)
        else:
            problem = check.close()
        if problem is not None and self._mw.failed(problem, self._request):
            self.refused = problem
            self._held.clear()
            raise BodyRefused(problem)
        self._held += chunk
        ready = len(self._held) if not chunk else len(self._held) - (check.size - check.judged())
        if ready > 0:
            self.feed_data(bytes(self._held[:ready]))
            del self._held[:ready]
        if not chunk:
            self.feed_eof()


def _judged_receive(
    mw: SanitizerMiddleware,
    request: web.Request,
    ws: web.WebSocketResponse,
    receive: Callable[..., Awaitable[Any]],
) -> Callable[..., Awaitable[Any]]:
    async def judged_receive(timeout: float | None = None) -> Any:
        message = await receive(timeout)
        if message.type != WSMsgType.TEXT:
            return message  # binary messages: aiohttp's receive_json() refuses them
        problem = websocket_problem(mw.policy, message.data)
        if problem is None:
            return message
        mw._report(problem, request)
        if mw.policy.report_only:
            return message
        reason = f"{problem.where}: {problem.kind}".encode()[:123]  # at most 123 bytes
        reason = reason.decode("utf-8", "ignore").encode()  # (RFC 6455 §5.5), whole UTF-8
        await ws.close(code=1007, message=reason)  # "inconsistent data" (RFC 6455 §7.4.1)
        return await receive(timeout)  # the closed connection's message

    return judged_receive
