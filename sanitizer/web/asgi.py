"""ASGI 3 middleware: translates an ASGI request into ``check_head``/``body_check`` calls
(``judge_head``: check_head on the compiled policy).

The head (path, query, headers, cookies) is judged before the app is called.  The body is
checked as it streams: a byte reaches the app only once every check that could refuse
the request because of it has passed (``BodyCheck.judged``), so the unfinished tail of a
chunk -- an open form field, JSON string or text run -- waits for the next chunks, and
the last bytes wait for the end of the body, so the app never holds a complete body
that fails.  A WebSocket's messages are judged one by one (``_Socket``).  On a
failure the client gets the 400 (or 413) at once, before the app hears of it, so the
answer never waits on the app; then the app's ``receive()`` gets ``http.disconnect``
(on every call, as from a server whose client left: ASGI HTTP spec, "Disconnect") and
whatever it sends is discarded.  If the app had already started its response, the client
gets that response instead: the app still never saw the refused chunk.  On Python < 3.12
an app that took the disconnect in a task of its own (Quart) is also cancelled until it
ends (``_Exchange.cancel_app``).  A head refused for a UTF-7 charset first
receives up to ``SAMPLE_SIZE`` (1 KiB) of the body, to say what it spelled.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ._body import BodyCheck
from ._compiled_web import compile_web_policy
from ._config import WebPolicy
from ._dispatch import body_check, text_by_content
from ._head import Head, judge_head
from ._problems import NOSNIFF, PROBLEM_CONTENT_TYPE, Problem, sample_size, with_sample
from ._readings import ASGI_READERS, TABLE, UTF8
from ._report import ProblemCallback, configure
from ._websocket import websocket_problem

__all__ = ["ASGIMiddleware"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


# HTTP/1.x: without Content-Length or Transfer-Encoding a request has no body (RFC 9112
# §6.3).  HTTP/2 and 3 may send one without either, so those requests are always watched.
_FRAMED_BY_HEADERS = ("1.0", "1.1")
# HTTP/2 and 3: a refused request's unread body still holds the connection's flow-control
# window (RFC 9113 §5.2), which the server re-opens only as the app receives; hypercorn
# stalls every other stream on the connection until it does.  So on a refusal the rest
# of the body is received and discarded, up to this many bytes, before the answer (the
# happy path never drains).  Past the bound the answer goes out anyway.
DRAIN_LIMIT = 16 << 20
# The most body bytes judged in one synchronous step: a server may hand over a large body
# in one message (what it buffered while the app was busy, or all of it), and judging it
# in one call would hold the event loop, and every other request, for as long as that
# takes.  A larger message is fed a step at a time, and the loop is served between two
# steps once judging has held it for ``QUANTUM`` seconds (text judged at memory speed
# goes through in one turn, as a server sent it).
STEP = 64 << 10
QUANTUM = 0.002


class ASGIMiddleware:
    """Refuse ill-formed and dangerous input before an ASGI app sees it.

    ``ASGIMiddleware(app)`` uses ``WebPolicy()``; pass a ``policy`` and/or any of its
    fields as keywords (``ASGIMiddleware(app, json=None, max_body_size=1 << 20)``).
    ``on_problem(problem, scope)`` is called for every refusal (or, in report-only
    mode, every would-be refusal); records also go to ``logger`` ("sanitizer.web").
    """

    def __init__(
        self,
        app: ASGIApp,
        /,
        policy: WebPolicy | None = None,
        *,
        on_problem: ProblemCallback | None = None,
        logger: logging.Logger | None = None,
        **changes: Any,
    ) -> None:
        self.app = app
        self.policy, self.reporter = configure(policy, changes, on_problem, logger)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind != "http" and kind != "websocket":
            await self.app(scope, receive, send)  # lifespan and extensions
            return
        raw_path: bytes | None = scope.get("raw_path")
        decoded = raw_path is None  # the server gave only the percent-decoded str
        if raw_path is None:
            raw_path = scope.get("path", "").encode("utf-8", "surrogatepass")
        query = scope.get("query_string", b"")
        compiled = compile_web_policy(self.policy)
        problem, head = judge_head(compiled, raw_path, query, scope.get("headers", ()), decoded)
        if problem is not None:
            if self.policy.report_only:
                self._report(problem, scope, raw_path, query)
            elif kind == "websocket":
                self._report(problem, scope, raw_path, query)
                await _refuse_websocket(receive, send)
                return
            else:
                await self._refuse_head(problem, head, scope, receive, send, raw_path)
                return
        if kind == "websocket":
            if compiled.websocket is None:
                await self.app(scope, receive, send)
            else:
                socket = _Socket(self, scope, receive, send, raw_path)
                await self.app(scope, socket.receive, socket.send)
            return
        if not head.has_body and scope.get("http_version") in _FRAMED_BY_HEADERS:
            await self.app(scope, receive, send)  # nothing to watch: no body can follow
            return
        # _Exchange's fields, set here: a class call with an __init__ costs a third more
        # (Python 3.11), on every request with a body.
        exchange = _new_exchange(_Exchange)
        exchange.mw, exchange.scope, exchange.receive, exchange.send = self, scope, receive, send
        exchange.head, exchange.raw_path = head, raw_path
        exchange.body = exchange.refused = exchange.held = None
        exchange.started = exchange.done = exchange.ended = False
        exchange.cancelled = 0
        exchange.task = _task_of(_running_loop())  # (two C calls: every request with a body)
        try:
            await self.app(scope, exchange._receive, exchange._send)
        except asyncio.CancelledError:
            if not exchange.cancelled:
                raise
        except Exception:
            if exchange.refused is None or exchange.started:
                raise
            # The app failed on the disconnect we gave it (Starlette: ClientDisconnect).
        finally:
            exchange.task = None  # ended: no cancel of ours may reach the server's task now
        if exchange.cancelled:
            await _absorb_cancel(exchange.cancelled)

    async def _refuse_head(
        self, problem: Problem, head: Head, scope: Scope, receive: Receive, send: Send, path: bytes
    ) -> None:
        """Answer a request refused with its head; the app is not called.  A UTF-7 charset
        first reads up to ``sample_size`` body bytes for the detail."""
        framed = scope.get("http_version") in _FRAMED_BY_HEADERS
        ended = framed and not head.has_body  # HTTP/1.x without a body: nothing to read
        want = 0 if ended else sample_size(problem, head.content_length)
        if want:
            sample, ended, gone = await _sample(receive, want)
            problem = with_sample(problem, sample)
        else:
            gone = False
        self._report(problem, scope, path, scope.get("query_string", b""))
        if framed:  # HTTP/1.x: the server closes rather than read an unread body
            close = head.has_body and not ended
        else:  # HTTP/2, 3: drained to release the stream's flow-control window
            close = gone or not (ended or await _drain(receive))
        await _respond(send, problem, close=close)

    def _report(self, problem: Problem, scope: Scope, path: bytes, query: bytes) -> None:
        client = scope.get("client")
        self.reporter(
            problem,
            scope,
            scope.get("method", "WEBSOCKET"),
            path + b"?" + query if query else path,
            None if not client else f"{client[0]}:{client[1]}",
        )


class _Exchange:
    """One request: the app's receive and send, wrapped.  Made by
    ``ASGIMiddleware.__call__``, which sets every field."""

    __slots__ = (
        *("body", "cancelled", "done", "ended", "head", "held", "mw", "raw_path"),
        *("receive", "refused", "scope", "send", "started", "task"),
    )
    mw: ASGIMiddleware
    scope: Scope
    receive: Receive
    send: Send
    head: Head
    raw_path: bytes  # as check_head read it (from "path" when the server gives no raw_path)
    body: BodyCheck | None  # made on the first receive(): many apps never call it
    refused: Problem | None  # set when the body failed (not in report-only)
    held: bytearray | None  # received bytes not yet judged (an unfinished value)
    started: bool  # the app sent http.response.start (to the client)
    done: bool  # the whole body passed
    ended: bool  # the server's last body message was received (nothing to drain)
    task: asyncio.Task[Any] | None  # the task running the app, until the app ends
    cancelled: int  # how many times cancel_app cancelled that task

    async def refuse(self, problem: Problem) -> Message:
        """The body failed: the client gets the problem now, whatever the app does next,
        and the app a disconnect."""
        self.refused = problem
        if self.started:  # the app's own answer is under way: the client gets it
            return {"type": "http.disconnect"}  # (a fresh one: the app may change it)
        drained = False
        try:
            if self.scope.get("http_version") not in _FRAMED_BY_HEADERS:
                # refused at the body's end: nothing to drain, and receive() would block
                drained = self.ended or await _drain(self.receive)
            await _respond(self.send, problem, close=not drained)
        except OSError:  # what a server raises on a send after the client left (ASGI spec)
            pass  # the refusal was reported; the app is told below
        self.cancel_app()
        return {"type": "http.disconnect"}

    def cancel_app(self) -> None:
        """Python < 3.12 only.  A framework that receives in a task of its own (Quart)
        ends its handler on the disconnect by cancelling it, and ``asyncio.wait_for``
        drops a cancellation that arrives as what it waits on ends (CPython gh-86296,
        fixed in 3.12): the handler then waits for the rest of a body that never comes.
        So once that receiving task has ended, the app's task is cancelled again at each
        loop turn until the app ends (``__call__`` takes those cancellations back), at
        most ``_MOST_CANCELS`` times: an app that outlives them ignores cancellation, and
        is left as a server would leave it rather than spun on.  An app that received in
        its own task (most) has the disconnect in hand: left alone."""
        task = self.task
        here = _current_task()
        if not _CANCEL_MAY_BE_LOST or task is None or here is None or here is task:
            return
        loop = task.get_loop()

        def cancel() -> None:
            if self.task is not None and self.cancelled < _MOST_CANCELS:  # still running
                self.cancelled += 1
                self.task.cancel()
                loop.call_soon(cancel)

        here.add_done_callback(lambda _: loop.call_soon(cancel))

    async def _receive(self) -> Message:
        if self.refused is not None:
            return {"type": "http.disconnect"}
        while True:
            message = await self.receive()
            if message["type"] != "http.request" or self.done:
                return message
            body = self.body
            if body is None:
                if _TEXT_BY_CONTENT and self.head.media is None:
                    # BlackSheep's request.text() decodes any body (_readings: "text"),
                    # once its last message has come: the bytes pass on meanwhile
                    headers = self.scope.get("headers", ())
                    body = text_by_content(self.mw.policy, self.head, headers, None, hold=False)
                else:
                    body = body_check(self.mw.policy, self.head)
                self.body = body
            chunk = message.get("body", b"")
            more = message.get("more_body", False)
            self.ended = not more
            if len(chunk) <= STEP:
                problem = body.feed(chunk)
            else:
                problem = await _feed_in_steps(body, chunk)
            if problem is None and not more:
                problem = body.close()
                self.done = problem is None
            if problem is not None:
                query = self.scope.get("query_string", b"")
                self.mw._report(problem, self.scope, self.raw_path, query)
                if not self.mw.policy.report_only:
                    return await self.refuse(problem)
            held = self.held
            if not held and body.judged() == body.size:
                return message  # all of it judged: as the server sent it (the usual case)
            if held is None:
                held = self.held = bytearray()
            held += chunk
            ready = len(held) - (body.size - body.judged())
            if ready or not more:  # else nothing judged yet: wait for more of the value
                out = bytes(held[:ready])
                del held[:ready]
                return {"type": "http.request", "body": out, "more_body": more}

    def _send(self, message: Message) -> Awaitable[None]:
        # A plain function returning the server's awaitable: no coroutine of our own
        # per message (this runs at least twice per request).
        if not self.started:
            if self.refused is not None:
                return _nothing()  # the app's answer to a refused request is replaced
            self.started = message["type"] == "http.response.start"
        return self.send(message)


class _Socket:
    """One WebSocket connection: each message is judged before the app receives it
    (``_websocket``: text as it is and as JSON, binary as JSON by content).  One that
    fails closes the connection with 1007, "inconsistent
    data" (RFC 6455 §7.4.1), and a reason naming the problem; the app then receives
    ``websocket.disconnect``, and what it sends after is dropped."""

    __slots__ = ("closed", "mw", "path", "raw_receive", "raw_send", "scope")

    def __init__(
        self, mw: ASGIMiddleware, scope: Scope, receive: Receive, send: Send, path: bytes
    ) -> None:
        self.mw, self.scope, self.raw_receive, self.raw_send = mw, scope, receive, send
        self.path = path
        self.closed = False

    async def receive(self) -> Message:
        if self.closed:
            return {"type": "websocket.disconnect", "code": 1007}
        message = await self.raw_receive()
        if message["type"] != "websocket.receive":
            return message
        data = message.get("text")
        if data is None:
            data = message.get("bytes")
            if data is None:
                return message
        problem = websocket_problem(self.mw.policy, data)
        if problem is None:
            return message
        self.mw._report(problem, self.scope, self.path, self.scope.get("query_string", b""))
        if self.mw.policy.report_only:
            return message
        self.closed = True
        reason = f"{problem.where}: {problem.kind}"[:123]  # at most 123 bytes (RFC 6455 §5.5)
        await self.raw_send({"type": "websocket.close", "code": 1007, "reason": reason})
        return {"type": "websocket.disconnect", "code": 1007}

    def send(self, message: Message) -> Awaitable[None]:
        if self.closed:  # closed by us: the app's late messages go nowhere
            return _nothing()
        return self.raw_send(message)


_new_exchange = object.__new__
# Some ASGI framework's request.text() reads any body as text (_readings: "text")
_TEXT_BY_CONTENT = any(TABLE["text"][reader].raw == UTF8 for reader in ASGI_READERS)
_CANCEL_MAY_BE_LOST = sys.version_info < (3, 12)  # _Exchange.cancel_app
_MOST_CANCELS = 16


_running_loop = asyncio._get_running_loop  # None outside asyncio (trio)
# The task running on a loop: what asyncio.current_task() reads (a Python function before
# 3.12, a tenth of a request's cost).  Only Python < 3.12 needs it (cancel_app).
_task_of: Callable[[object], asyncio.Task[Any] | None] = (
    asyncio.tasks._current_tasks.get  # type: ignore[attr-defined]
    if _CANCEL_MAY_BE_LOST
    else {}.get
)


def _current_task() -> asyncio.Task[Any] | None:
    """The asyncio task running this code, or None (another event loop, such as trio's:
    there no cancel of ours is needed, its cancellation is never dropped)."""
    return _task_of(_running_loop())


async def _absorb_cancel(count: int) -> None:
    """Take back the ``count`` cancellations ``cancel_app`` sent: one not delivered yet
    (the app ended first) would reach the server's code at its next wait."""
    task = asyncio.current_task()
    assert task is not None
    try:
        await asyncio.sleep(0)
    except asyncio.CancelledError:
        pass
    uncancel = getattr(task, "uncancel", None)  # Python >= 3.11 counts cancellations
    if uncancel is not None and [uncancel() for _ in range(count)][-1] > 0:
        raise asyncio.CancelledError  # the server cancelled it too


async def _nothing() -> None:
    pass


async def _feed_in_steps(body: BodyCheck, chunk: bytes) -> Problem | None:
    """``body.feed(chunk)`` a ``STEP`` at a time, yielding to the event loop between
    two steps once judging has held it ``QUANTUM`` seconds (the verdict is the same: a
    body check's verdict does not depend on how the body is cut into chunks)."""
    began = time.perf_counter()
    for i in range(0, len(chunk), STEP):
        if i and time.perf_counter() - began >= QUANTUM:
            await asyncio.sleep(0)
            began = time.perf_counter()
        problem = body.feed(chunk[i : i + STEP])
        if problem is not None:
            return problem
    return None


async def _drain(receive: Receive, limit: int = DRAIN_LIMIT) -> bool:
    """Receive and discard the rest of a refused request's body, up to ``limit`` bytes;
    True if its end was reached (HTTP/2: the stream's window is released)."""
    seen = 0
    while seen <= limit:
        message = await receive()
        if message["type"] != "http.request":
            return False  # http.disconnect
        seen += len(message.get("body", b""))
        if not message.get("more_body", False):
            return True
    return False


async def _sample(receive: Receive, want: int) -> tuple[bytes, bool, bool]:
    """Receive body messages of a refused request until ``want`` bytes (the first ``want``
    are kept), the body's end or a disconnect: the sample, whether the body ended, and
    whether the client disconnected."""
    sample = bytearray()
    while len(sample) < want:
        message = await receive()
        if message["type"] != "http.request":
            return bytes(sample), False, True  # http.disconnect
        sample += message.get("body", b"")[: want - len(sample)]
        if not message.get("more_body", False):
            return bytes(sample), True, False
    return bytes(sample), False, False


async def _respond(send: Send, problem: Problem, close: bool) -> None:
    body = problem.body()
    headers = [
        (b"content-type", PROBLEM_CONTENT_TYPE.encode()),
        (b"content-length", str(len(body)).encode()),
        (NOSNIFF[0].lower().encode(), NOSNIFF[1].encode()),
    ]
    if close:  # the rest of the request body was not read: don't reuse the connection
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": problem.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _refuse_websocket(receive: Receive, send: Send) -> None:
    """Close the handshake (the server answers HTTP 403); 1008 = policy violation."""
    message = await receive()
    if message["type"] == "websocket.connect":
        await send({"type": "websocket.close", "code": 1008})
