"""WebSocket messages through ``ASGIMiddleware``: each is judged by ``WebPolicy.websocket``
(default TEXT) before the app receives it -- a text message as it is and as the
frameworks' ``receive_json()`` reads it, a binary one as ``json.loads`` reads bytes; one
that fails closes the connection with 1007 (RFC 6455 §7.4.1) and a reason, binary
messages that are no JSON pass, and the handshake's path, query and headers are judged
as for HTTP (a refusal: 1008, which servers answer with HTTP 403).

In process first (ASGI messages), then under real servers -- uvicorn with each of its
WebSocket implementations (websockets, wsproto), hypercorn and granian -- with the
Starlette app of tests/web/webframeworks.py, messages sent whole and split across frames.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def binary(value: bytes) -> Message:
    return {"type": "websocket.receive", "bytes": value}


def test_binary_messages_that_are_no_json_pass() -> None:
    for value in (b"\xe2\x80\xae\xff", b"\x89PNG\r\n\x1a\n\x00", b'{"a": "\xff\xe2\x80\xae"}'):
        sent = _converse(ASGIMiddleware(_echo_app), [binary(value)])
        assert sent[1]["bytes"] == value


# -- messages read as JSON ------------------------------------------------------------------


# What each framework's receive_json() / receive_media() hands a message to (read from their
# sources): Starlette json.loads(text) or json.loads(bytes.decode("utf-8")) with
# mode="binary"; Quart json.loads(text or bytes); Litestar msgspec's decode_json (text, or
# bytes with mode="binary"); Falcon's JSONHandlerWS for text (its binary handler is msgpack).
def _readers() -> dict[str, Any]:
    import quart.json
    from falcon.media import JSONHandlerWS
    from litestar.serialization import decode_json

    return {
        "starlette": (json.loads, lambda b: json.loads(b.decode("utf-8"))),
        "quart": (quart.json.loads, quart.json.loads),
        "litestar": (lambda t: decode_json(t), lambda b: decode_json(b)),
        "falcon": (JSONHandlerWS().deserialize, None),
    }


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


PIECES = [
    *("a", " ", "é", "日", "😀", "\\n", '\\"', "\\\\", "\\u00e9", "\\u202e", "\\u0000"),
    *("\\u001b", "\\u009b", "\\udb40\\udc41", "\\ud83d\\ude00", "\\ud800", "\\udc00x"),
    *("\\x41", "\\u12", "\u200d"),
]


@st.composite
def json_messages(draw: st.DrawFn) -> str:
    def string() -> str:
        return '"' + "".join(draw(st.lists(st.sampled_from(PIECES), max_size=4))) + '"'

    shape = draw(st.integers(0, 2))
    doc = (
        "{" + string() + ": " + string() + "}"
        if shape == 0
        else "[" + string() + ", 1]"
        if shape == 1
        else string()
    )
    return draw(st.sampled_from(["", " ", "\r\n"])) + doc


@settings(deadline=None)
@given(
    message=json_messages(),
    encoding=st.sampled_from([None, "utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-16"]),
)
def test_what_receive_json_hands_over_was_judged(message: str, encoding: str | None) -> None:
    """Differential: a message the middleware passes, text or binary (in each encoding
    json.loads detects), gives each framework's JSON reader only strings the policy
    passes."""
    from sanitizer import inspect, profiles
    from sanitizer.web._websocket import websocket_problem

    data: str | bytes = message if encoding is None else message.encode(encoding)
    if websocket_problem(WebPolicy(), data) is not None:
        return
    for name, (text_reader, bytes_reader) in _readers().items():
        reader = text_reader if encoding is None else bytes_reader
        if reader is None:
            continue
        try:
            value = reader(data)
        except Exception:
            continue  # the framework refuses it: nothing handed over
        for found in _strings(value):
            assert inspect(found, profiles.TEXT).ok, (name, data, found)


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        (text('{"q": "\\u202e"}'), "bidi-control"),
        (text(' ["\\ud800"]'), "lone-surrogate-escape"),
        (text('{"\\u0000": 1}'), "nul"),
        (text('"\\udb40\\udc41"'), "tag"),
        (binary(b'{"q": "\\u202e"}'), "bidi-control"),
        (binary(' {"q": "\\u202e"}'.encode("utf-16-le")), "bidi-control"),
        (binary('["\U000e0041"]'.encode("utf-32-be")), "tag"),
    ],
)
def test_json_messages_are_judged_as_receive_json_reads_them(message: Message, kind: str) -> None:
    async def app(scope: Message, receive: Any, send: Any) -> None:
        from starlette.websockets import WebSocket, WebSocketDisconnect

        socket = WebSocket(scope, receive, send)
        await socket.accept()
        mode = "text" if "text" in message else "binary"
        try:
            got.append(await socket.receive_json(mode=mode))
        except (WebSocketDisconnect, ValueError):
            pass

    got: list[Any] = []
    sent = _converse(ASGIMiddleware(app), [message])
    assert got == []
    assert sent[1]["code"] == 1007 and kind in sent[1]["reason"], sent
    if "text" in message or b"\x00" not in message["bytes"]:  # (Starlette reads UTF-8 only)
        _converse(ASGIMiddleware(app, websocket=None), [message])
        assert got, message  # unchecked, the app gets what the middleware refused


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
    from tests.web.webservers import serve

    with serve(request.param, "tests.web.webframeworks:starlette_guarded") as port:
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
    # an escape split across frames, in a message receive_json() would parse
    code, reason = _session(ws_port, [['{"q": "\\u20', '2e"}']])
    assert code == 1007 and "bidi-control" in reason
    code, reason = _session(ws_port, ['["ok"]', b'["\\udb40\\udc41"]'])
    assert code == 1007 and "tag" in reason
