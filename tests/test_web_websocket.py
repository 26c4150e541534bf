"""WebSocket text messages through ``ASGIMiddleware``: each is judged by
``WebPolicy.websocket`` (default TEXT) before the app receives it; one that fails closes
the connection with 1007 (RFC 6455 §7.4.1) and a reason, binary messages pass, and the
handshake's path, query and headers are judged as for HTTP (a refusal: 1008, which
servers answer with HTTP 403).

In process first (ASGI messages), then under real servers -- uvicorn with each of its
WebSocket implementations (websockets, wsproto), hypercorn and granian -- with the
Starlette app of tests/webframeworks.py, messages sent whole and split across frames.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from sanitizer.web import ASGIMiddleware, WebPolicy

Message = dict[str, Any]


async def _echo_app(scope: Message, receive: Any, send: Any) -> None:
    """Accepts, then echoes every message until the client or the middleware closes."""
    assert scope["type"] == "websocket"
    assert (await receive())["type"] == "websocket.connect"
    await send({"type": "websocket.accept"})
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return
        await send({"type": "websocket.send", **{k: v for k, v in message.items() if k != "type"}})


def _converse(
    app: Any, messages: list[Message], headers: tuple[tuple[bytes, bytes], ...] = ()
) -> list[Message]:
    """Run ``app`` on a WebSocket scope that receives ``messages``; what it sent."""
    inbox = [
        {"type": "websocket.connect"},
        *messages,
        {"type": "websocket.disconnect", "code": 1000},
    ]
    sent: list[Message] = []

    async def receive() -> Message:
        return inbox.pop(0)

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "websocket",
        "path": "/ws",
        "raw_path": b"/ws",
        "query_string": b"",
        "headers": list(headers),
    }
    asyncio.run(app(scope, receive, send))
    return sent


def text(value: str) -> Message:
    return {"type": "websocket.receive", "text": value}


def test_clean_messages_reach_the_app() -> None:
    sent = _converse(ASGIMiddleware(_echo_app), [text("héllo 日本 😀\n"), text("")])
    assert [m.get("text") for m in sent[1:]] == ["héllo 日本 😀\n", ""]


@pytest.mark.parametrize(
    ("value", "kind"),
    [("x\u202ey", "bidi-control"), ("a\U000e0041", "tag"), ("\x1b[2J", "control"), ("\x00", "nul")],
)
def test_a_refused_message_closes_with_1007(value: str, kind: str) -> None:
    sent = _converse(ASGIMiddleware(_echo_app), [text("ok"), text(value), text("after")])
    assert sent[0]["type"] == "websocket.accept" and sent[1]["text"] == "ok"
    close = sent[2]
    assert close["type"] == "websocket.close" and close["code"] == 1007
    assert kind in close["reason"] and len(close["reason"].encode()) <= 123
    assert len(sent) == 3  # the message, and what follows, never reached the app


def test_binary_messages_pass() -> None:
    message = {"type": "websocket.receive", "bytes": b"\xe2\x80\xae\xff"}
    sent = _converse(ASGIMiddleware(_echo_app), [message])
    assert sent[1]["bytes"] == b"\xe2\x80\xae\xff"


def test_the_check_can_be_switched_off_or_changed() -> None:
    from sanitizer.profiles import SINGLE_LINE

    sent = _converse(ASGIMiddleware(_echo_app, websocket=None), [text("x\u202ey")])
    assert sent[1]["text"] == "x\u202ey"
    sent = _converse(ASGIMiddleware(_echo_app, websocket=SINGLE_LINE), [text("a\nb")])
    assert sent[1]["code"] == 1007
    report = ASGIMiddleware(_echo_app, report_only=True)
    assert _converse(report, [text("x\u202ey")])[1]["text"] == "x\u202ey"


def test_the_handshake_is_judged_as_http() -> None:
    sent = _converse(ASGIMiddleware(_echo_app), [], headers=((b"x-a", "\u202e".encode()),))
    assert sent == [{"type": "websocket.close", "code": 1008}]
    assert WebPolicy().websocket is not None


# -- under real servers ---------------------------------------------------------------------

SERVERS = ("asgi-websockets", "asgi-wsproto", "hypercorn", "granian-asgi-ws")


@pytest.fixture(scope="module", params=SERVERS)
def ws_port(request: pytest.FixtureRequest) -> Iterator[int]:
    pytest.importorskip("websockets")
    from webservers import serve

    with serve(request.param, "webframeworks:starlette_guarded") as port:
        yield port


def _session(port: int, messages: list[str | list[str] | bytes]) -> tuple[int | None, Any]:
    """Send each message (a list: one message in that many frames), then "end"; the close
    code (None: closed normally) and the app's answer to "end" (what it was handed)."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10, close_timeout=5) as ws:
        try:
            for message in messages:
                ws.send(iter(message) if isinstance(message, list) else message)
            ws.send("end")
            answer = json.loads(ws.recv(timeout=10))
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
            return code, closed.rcvd.reason if closed.rcvd is not None else None
    return None, answer


@pytest.mark.servers
def test_messages_under_real_servers(ws_port: int) -> None:
    code, answer = _session(ws_port, ["héllo", ["日本", "語 ", "😀"], b"\xff\x00"])
    assert code is None, answer
    assert [t for w, t in answer["exposed"] if w == "message"] == ["héllo", "日本語 😀"]
    # the bidi control arrives in the second of three frames of one message
    code, reason = _session(ws_port, ["ok", ["abc", "\u202e", "def"]])
    assert code == 1007 and "bidi-control" in reason
    code, reason = _session(ws_port, ["a\U000e0041"])
    assert code == 1007 and "tag" in reason
