"""sanitizer.web.aiohttp under aiohttp's own server on loopback: the same app
(tests/web/webframeworks.py: it answers with every text aiohttp handed it) bare and behind the
middleware, sent raw bytes over a socket.

Each attack must be handed to the bare app as text that fails its part's policy (so the
case is real in aiohttp's reading) and be refused by the guarded one; the benign corpus
(tests/data/web_benign) must pass with the same texts handed over; and for random bodies
(gzip-compressed or not, any label) the guarded app answers only when every text the bare
app is handed passes.  The servers run in a thread of their own for the module, on ports
from this worker's block (tests/web/webservers.py).
"""

from __future__ import annotations

import asyncio
import functools
import gzip
import json
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("aiohttp")

from aiohttp import WSMsgType, web
from aiohttp.test_utils import TestServer

from sanitizer.web import DEFAULT
from sanitizer.web._readings import AIOHTTP, TABLE
from tests.web import webframeworks as wf
from tests.web import webservers
from tests.web.request_builder import field, file_part, multipart_message

CORPUS = Path(__file__).resolve().parents[1] / "data" / "web_benign"


class Servers:
    """aiohttp servers for the module, in a thread running their event loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.servers: list[TestServer] = []

    def start(self, app: web.Application) -> int:
        server = TestServer(app, host=webservers.HOST, port=webservers.free_port())
        asyncio.run_coroutine_threadsafe(server.start_server(), self.loop).result(30)
        self.servers.append(server)
        assert server.port is not None
        return server.port

    def run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(60)

    def close(self) -> None:
        for server in self.servers:
            self.run(server.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def ports() -> Iterator[dict[str, int]]:
    servers = Servers()
    try:
        yield {
            "bare": servers.start(wf.aiohttp_app()),
            "guarded": servers.start(wf.aiohttp_app(guarded=True)),
            "small": servers.start(wf.aiohttp_app(guarded=True, max_body_size=1 << 20)),
            "report": servers.start(wf.aiohttp_app(guarded=True, report_only=True)),
        }
    finally:
        servers.close()


def request(
    method: str, target: bytes, headers: list[tuple[bytes, bytes]], body: bytes = b""
) -> bytes:
    if body and not any(n.lower() in (b"content-length", b"transfer-encoding") for n, _ in headers):
        headers = [*headers, (b"Content-Length", b"%d" % len(body))]
    return wf.aiohttp_request(method, target, headers, body)


def answer(port: int, raw: bytes) -> tuple[int, list[tuple[str, str]]]:
    """The status and what the app exposed (nothing unless 200)."""
    response = webservers.send(port, raw, half_close=False)  # aiohttp drops an answer after EOF
    if response.status != 200:
        return response.status, []
    return 200, [(w, t) for w, t in json.loads(response.body)["exposed"]]


def failing(exposed: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(w, t) for w, t in exposed if not wf.judged(DEFAULT, w, t)]


FORM = [(b"Content-Type", b"application/x-www-form-urlencoded")]
JSON = [(b"Content-Type", b"application/json")]
TEXT = [(b"Content-Type", b"text/plain")]
GZIP = [(b"Content-Encoding", b"gzip")]
RLO = "\u202e".encode()
TAG = "\U000e0041".encode()


_multipart = functools.partial(multipart_message, boundary=b"XX")

# (id, method, target, headers, body): what aiohttp hands over fails its part's policy
ATTACKS: list[tuple[str, str, bytes, list[tuple[bytes, bytes]], bytes]] = [
    ("path-rlo", "GET", b"/a%E2%80%AEb", [], b""),
    ("path-nul", "GET", b"/a%00b", [], b""),
    ("path-tag", "GET", b"/a%F3%A0%81%81", [], b""),
    ("path-dotdot", "GET", b"/a/%2e%2e/b", [], b""),
    ("query-rlo", "GET", b"/?q=%E2%80%AE", [], b""),
    ("query-overlong", "GET", b"/?q=%C0%AF", [], b""),
    ("query-surrogate", "GET", b"/?q=%ED%A0%80", [], b""),
    ("query-nul", "GET", b"/?q=a%00", [], b""),
    ("header-rlo", "GET", b"/", [(b"X-Note", RLO)], b""),
    ("header-overlong", "GET", b"/", [(b"X-Note", b"\xc0\xae")], b""),
    ("cookie-rlo", "GET", b"/", [(b"Cookie", b"c=" + RLO)], b""),
    ("cookie-octal", "GET", b"/", [(b"Cookie", b'c="\\033[2J"')], b""),
    ("form-rlo", "POST", b"/", FORM, b"a=%E2%80%AE"),
    ("form-raw-tag", "POST", b"/", FORM, b"a=" + TAG),
    ("form-nul", "POST", b"/", FORM, b"a=x%00y"),
    ("form-overlong", "POST", b"/", FORM, b"a=%C0%AE%C0%AE"),
    ("multipart-field", "POST", b"/", *_multipart(field(b"a", RLO))),
    ("multipart-name", "POST", b"/", *_multipart(field(b"a" + RLO, b"v"))),
    (
        "multipart-filename",
        "POST",
        b"/",
        *_multipart(file_part(b"f", b"a" + RLO + b"gpj.exe", b"data")),
    ),
    (
        "multipart-charset-utf7",
        "POST",
        b"/",
        *_multipart(field(b"_charset_", b"utf-7"), field(b"a", b"+ICo-")),
    ),
    ("json-escape", "POST", b"/", JSON, b'{"a": "\\u202e"}'),
    ("json-surrogate", "POST", b"/", JSON, b'{"a": "\\ud800"}'),
    ("json-untyped", "POST", b"/", [], b'{"a": "\\u0000"}'),
    ("json-text-between", "POST", b"/?read=text", JSON, b'{"a": 1} ' + RLO),
    ("json-as-text", "POST", b"/", TEXT, b'["\\udb40\\udc41"]'),
    ("text-rlo", "POST", b"/", TEXT, b"abc " + RLO),
    ("text-nul", "POST", b"/", TEXT, b"abc\x00"),
    ("octet-stream-rlo", "POST", b"/?read=text", [(b"Content-Type", b"application/x-foo")], RLO),
    ("untyped-tag", "POST", b"/?read=text", [], b"hi" + TAG),
    ("gzip-text-rlo", "POST", b"/", TEXT + GZIP, gzip.compress(b"abc " + RLO)),
    ("gzip-untyped-rlo", "POST", b"/?read=text", GZIP, gzip.compress(RLO * 3)),
    ("gzip-json", "POST", b"/", JSON + GZIP, gzip.compress(b'{"a": "\\u202e"}')),
    ("gzip-form", "POST", b"/", FORM + GZIP, gzip.compress(b"a=%E2%80%AE")),
    (
        "deflate-text",
        "POST",
        b"/",
        [*TEXT, (b"Content-Encoding", b"DEFLATE")],
        zlib.compress(b"x" + TAG),
    ),
]


# Refused although aiohttp itself hands over nothing harmful: it reads the ill-formed
# sequence as U+FFFD or leaves it escaped, where other frameworks read the attack (the
# middleware's rules are the union of the readings), allows '..' that only the path
# rule refuses, or fails on the `_charset_` field itself.
NOT_IN_AIOHTTP = {
    "path-dotdot",
    "query-overlong",
    "query-surrogate",
    "form-overlong",
    "multipart-charset-utf7",
}


@pytest.mark.parametrize("case", ATTACKS, ids=[c[0] for c in ATTACKS])
def test_attacks_are_refused(ports: dict[str, int], case: Any) -> None:
    name, method, target, headers, body = case
    raw = request(method, target, headers, body)
    status, exposed = answer(ports["bare"], raw)
    # aiohttp hands the app the attack (or, for the others, does not)
    assert bool(failing(exposed)) == (name not in NOT_IN_AIOHTTP), (status, exposed)
    status, exposed = answer(ports["guarded"], raw)
    assert (status, exposed) == (400, []), repr(exposed[5:])
    response = webservers.send(ports["guarded"], raw, half_close=False)
    assert response.headers["content-type"] == "application/problem+json"
    assert json.loads(response.body)["status"] == 400


def test_report_only_lets_everything_through(ports: dict[str, int]) -> None:
    for _, method, target, headers, body in ATTACKS[:3] + ATTACKS[-5:]:
        raw = request(method, target, headers, body)
        assert answer(ports["report"], raw) == answer(ports["bare"], raw)


def _corpus() -> list[Path]:
    return sorted(CORPUS.glob("*.http"))


@pytest.mark.parametrize("path", _corpus(), ids=[p.stem for p in _corpus()])
def test_benign_requests_pass_unchanged(ports: dict[str, int], path: Path) -> None:
    from tests.web.test_benign import load

    method, target, headers, body = load(path)
    raw = request(method, target, headers, body)
    bare = answer(ports["bare"], raw)
    assert answer(ports["guarded"], raw) == bare
    assert bare[0] == 200 and failing(bare[1]) == []
    if body:  # and gzip-compressed, as aiohttp decompresses it
        fixed = [(n, v) for n, v in headers if n.lower() != b"content-length"]
        raw = request(method, target, [*fixed, *GZIP], gzip.compress(body))
        assert answer(ports["guarded"], raw) == answer(ports["bare"], raw)


def test_binary_bodies_pass_whole(ports: dict[str, int]) -> None:
    """A body of no checked type that is not UTF-8 is text to no one: passed, whole."""
    body = bytes(range(256)) * 300 + RLO
    raw = request("POST", b"/", [(b"Content-Type", b"application/octet-stream")], body)
    assert answer(ports["guarded"], raw) == answer(ports["bare"], raw)
    assert answer(ports["guarded"], raw)[0] == 200


def test_decompressed_size_is_bounded(ports: dict[str, int]) -> None:
    """A gzip bomb is counted as it inflates: refused past max_body_size (413)."""
    bomb = gzip.compress(b"a" * (8 << 20))
    raw = request("POST", b"/", TEXT + GZIP, bomb)
    assert webservers.send(ports["small"], raw, half_close=False).status == 413
    assert (
        answer(ports["small"], request("POST", b"/", TEXT + GZIP, gzip.compress(b"a" * 999)))[0]
        == 200
    )


def test_chunked_body_streams_through(ports: dict[str, int]) -> None:
    text = "Ünïcödé 中文 עברית 😀\n".encode() * 20000  # ~600 KB in many chunks
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(text[i : i + 4096]), text[i : i + 4096])
        for i in range(0, len(text), 4096)
    )
    headers = [*TEXT, (b"Transfer-Encoding", b"chunked")]
    raw = request("POST", b"/", headers, chunks + b"0\r\n\r\n")
    status, exposed = answer(ports["guarded"], raw)
    assert status == 200 and ("text", text.decode()) in exposed


# -- WebSocket -------------------------------------------------------------------------------


def _converse(ports: dict[str, int], name: str, messages: list[str | bytes]) -> Any:
    from aiohttp import ClientSession

    async def run() -> Any:
        async with ClientSession() as session:
            url = f"http://{webservers.HOST}:{ports[name]}/ws"
            async with session.ws_connect(url) as ws:
                for message in messages:
                    if isinstance(message, str):
                        await ws.send_str(message)
                    else:
                        await ws.send_bytes(message)
                await ws.send_str("end")
                got = await ws.receive(timeout=10)
                return got.type, got.data, ws.close_code

    return asyncio.run(run())


WS_ATTACKS = [
    "x\u202ey",
    "a\x00b",
    '{"q": "\\u202e"}',
    '{"q": "\\ud800"}',
    '["\\udb40\\udc41"]',
    '{"\\u0007": 1}',
]


@pytest.mark.parametrize("message", WS_ATTACKS)
def test_websocket_attacks_close_1007(ports: dict[str, int], message: str) -> None:
    kind, data, _ = _converse(ports, "bare", [message])
    assert kind == WSMsgType.TEXT and failing(json.loads(data)["exposed"])
    kind, data, code = _converse(ports, "guarded", [message])
    assert kind in (WSMsgType.CLOSE, WSMsgType.CLOSED) and code == 1007


def test_websocket_benign_messages(ports: dict[str, int]) -> None:
    messages = json.loads((CORPUS / "websocket-messages.json").read_text(encoding="utf-8"))
    chat = [*messages, b'{"binary": "\\u202e"}']  # binary: receive_json() refuses it
    bare = _converse(ports, "bare", chat)
    assert _converse(ports, "guarded", chat) == bare
    assert bare[0] == WSMsgType.TEXT and len(json.loads(bare[1])["exposed"]) >= len(messages)
    assert TABLE["websocket binary"][AIOHTTP].raw == "none"


# -- the differential rule -------------------------------------------------------------------

_TEXTS = st.lists(
    st.sampled_from(
        [
            "a",
            " ",
            "=",
            "&",
            "%",
            "+",
            '"',
            "\\",
            "{",
            "}",
            "[",
            "]",
            ":",
            ",",
            "é",
            "中",
            "😀",
            "\u202e",
            "\u200b",
            "\x00",
            "\x1b",
            "\U000e0041",
            "\\u202e",
            "\\ud800",
            "%E2%80%AE",
            "%C0%AF",
            "\r\n",
            "\u0301",
        ]
    ),
    max_size=12,
).map("".join)
_LABELS = [[], TEXT, JSON, FORM, [(b"Content-Type", b"application/octet-stream")]]


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    derandomize=True,
)
@given(
    text=_TEXTS,
    label=st.sampled_from(range(len(_LABELS))),
    wrap=st.sampled_from(["", "json", "bytes"]),
    compress=st.booleans(),
    invalid=st.sampled_from([b"", b"\xc0\xae", b"\xed\xa0\x80", b"\xff"]),
)
def test_passes_only_what_aiohttp_hands_over_clean(
    ports: dict[str, int], text: str, label: int, wrap: str, compress: bool, invalid: bytes
) -> None:
    """For random bodies: when the guarded app answers, every text aiohttp handed the bare
    app (path, query, headers, form, text(), json()) passes its part's policy."""
    body = text.encode()
    if wrap == "json":
        body = b'{"k": "' + body.replace(b'"', b"") + b'"}'
    body += invalid if wrap == "bytes" else b""
    headers = list(_LABELS[label])
    if compress:
        body = gzip.compress(body)
        headers += GZIP
    raw = request("POST", b"/?read=text", headers, body)
    status, _ = answer(ports["guarded"], raw)
    if status == 200:
        assert failing(answer(ports["bare"], raw)[1]) == []
    else:
        assert status == 400


# -- TextByContent, sans-IO: request.text()'s reading of any body --------------------------


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    text=_TEXTS,
    invalid=st.sampled_from([b"", b"\xc0\xae", b"\xed\xa0\x80", b"\xff", b"\xe2\x80"]),
    cuts=st.lists(st.integers(min_value=0, max_value=80), max_size=6),
    bound=st.sampled_from([None, 8, 1 << 20]),
)
def test_text_by_content_is_what_text_returns(
    text: str, invalid: bytes, cuts: list[int], bound: int | None
) -> None:
    """Refused exactly when ``bytes.decode`` (aiohttp's ``text()``) returns text, within
    the bound, that fails the policy; whatever the chunking; nothing handed on before."""
    from sanitizer import inspect
    from sanitizer.web._text import TextByContent

    body = text.encode() + invalid
    check = TextByContent(DEFAULT.text, None, bound)  # type: ignore[arg-type]
    problem = None
    for a, b in zip([0, *sorted(cuts)], [*sorted(cuts), len(body)], strict=True):
        problem = problem or check.feed(body[a:b])
        if problem is None and len(body) <= (bound or len(body)) and b < len(body):
            assert check.judged() == 0 or check.judged() == check.size
    problem = problem or check.close()
    try:
        decoded: str | None = body.decode("utf-8")
    except UnicodeDecodeError:
        decoded = None
    if bound is not None and len(body) > bound:
        decoded = None  # read() refuses it: no text
    assert DEFAULT.text is not None
    want = decoded is not None and not inspect(decoded, DEFAULT.text).ok
    assert (problem is not None) == want
