"""The web examples, run as written: ``python examples/<name>.py`` is started once per
example as a real server (PORT set to a free port) and spoken to in raw HTTP over a
socket (tests/web/webservers.py), so every attack reaches the middleware byte for byte.

Each example must answer benign multilingual requests with exactly what was sent, and
refuse each attack with the middleware's 400 problem+json -- never the framework's own
error page or a 500, even when the refusal happens while the framework reads the body.
(Flask and Django still log that read failure as an internal server error; only the
client's answer is checked here.)
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.web.request_builder import OCTETS, file_part, http, multipart_message
from tests.web.webservers import Response, free_port, send, start

pytestmark = pytest.mark.servers

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ("flask_app", "fastapi_app", "django_app", "aiohttp_app", "tornado_app")

TEXT = "Grüße, 東京, Привет, مرحبا, नमस्ते 👋"  # NFC, no controls: every policy lets it through
FILENAME = "отчёт 東京 👋.txt"
JSON = [(b"Content-Type", b"application/json")]
BOUNDARY = b"sanitizer-example-boundary"
_NO_HALF_CLOSE = ("aiohttp_app", "tornado_app")


@dataclass
class Example:
    name: str
    port: int
    log: Path  # the server's stdout and stderr

    def send(self, request: bytes) -> Response:
        # aiohttp and Tornado drop their answer once the client half-closes (EOF): the
        # connection stays open for them
        return send(self.port, request, half_close=self.name not in _NO_HALF_CLOSE)


@pytest.fixture(scope="module", params=EXAMPLES)
def example(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Example]:
    name: str = request.param
    port = free_port()
    log = tmp_path_factory.mktemp(name) / "server.log"
    command = [sys.executable, str(ROOT / "examples" / f"{name}.py")]
    with log.open("wb") as out, start(command, port, cwd=ROOT, env={"PORT": str(port)}, output=out):
        yield Example(name, port, log)


def upload(filename: bytes, content: bytes) -> bytes:
    """A POST of one file to /upload."""
    headers, body = multipart_message(
        file_part(b"file", filename, content, OCTETS), boundary=BOUNDARY
    )
    return http("POST", b"/upload", headers, body)


# -- benign requests -------------------------------------------------------------------------


def test_query(example: Example) -> None:
    response = example.send(http("GET", b"/echo?q=" + quote(TEXT).encode()))
    assert response.status == 200, response
    assert response.json() == {"q": TEXT}


def test_json(example: Example) -> None:
    body = json.dumps({"text": TEXT}, ensure_ascii=False).encode()
    response = example.send(http("POST", b"/json", JSON, body))
    assert response.status == 200, response
    assert response.json() == {"text": TEXT}


def test_upload(example: Example) -> None:
    # A file's content is not text: bytes that would be ill-formed UTF-8 elsewhere pass.
    content = bytes(range(256)) + b"\xc0\xaf\xed\xa0\x80"
    response = example.send(upload(FILENAME.encode(), content))
    assert response.status == 200, response
    assert response.json() == {"filename": FILENAME, "size": len(content)}


# -- attacks -------------------------------------------------------------------------------

ATTACKS = {
    "query-overlong": (http("GET", b"/echo?q=%C0%AE"), "query", "overlong"),
    "json-overlong": (http("POST", b"/json", JSON, b'{"text": "a\xc0\xaeb"}'), "json", "overlong"),
    "json-surrogate-escape": (
        http("POST", b"/json", JSON, b'{"text": "\\ud800"}'),
        "json",
        "lone-surrogate-escape",
    ),
    "multipart-filename": (upload(b"a\xc0\xafb.txt", b"hi"), "multipart", "overlong"),
    "form-utf7": (
        http(
            "POST",
            b"/upload",
            [(b"Content-Type", b"application/x-www-form-urlencoded; charset=utf-7")],
            b"file=+ADw-script+AD4-",
        ),
        "header",
        "charset",
    ),
}


@pytest.mark.parametrize("attack", ATTACKS)
def test_attack(example: Example, attack: str) -> None:
    request, part, kind = ATTACKS[attack]
    response = example.send(request)
    assert response.status == 400, response
    if example.name == "tornado_app" and attack == "multipart-filename":
        return  # Tornado parses the body before prepare() and refuses this name itself
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == 400
    assert (problem["part"], problem["kind"]) == (part, kind), problem


@pytest.mark.parametrize("example", ["fastapi_app"], indirect=True)
def test_untyped_json_body(example: Example) -> None:
    """FastAPI (before 0.132, or strict_content_type=False) reads a body without
    Content-Type as JSON: the example checks it as JSON (untyped_body)."""
    response = example.send(http("POST", b"/json", [], b'{"text": "a\xc0\xaeb"}'))
    assert response.status == 400, response
    assert response.json()["part"] == "json"


def test_refusals_are_logged(example: Example) -> None:
    """The example's logging setup shows the middleware's record and the callback's."""
    assert example.send(http("GET", b"/echo?q=%E2%80%AE")).status == 400  # RIGHT-TO-LEFT OVERRIDE
    log = example.log.read_text("utf-8", "replace")
    assert "WARNING:sanitizer.web:refused GET /echo?q=%E2%80%AE" in log
    assert "on_problem: bidi-control in query" in log


@pytest.mark.parametrize("example", ["aiohttp_app"], indirect=True)
def test_aiohttp_gzip_text_body(example: Example) -> None:
    """aiohttp inflates a gzip body itself: its text is judged, inflated."""
    import gzip

    headers = [(b"Content-Type", b"text/plain"), (b"Content-Encoding", b"gzip")]
    response = example.send(http("POST", b"/text", headers, gzip.compress(TEXT.encode())))
    assert response.status == 200, response
    assert response.json() == {"text": TEXT}
    attack = gzip.compress(("a\u202eb").encode())
    response = example.send(http("POST", b"/text", headers, attack))
    assert response.status == 400, response
    assert (response.json()["part"], response.json()["kind"]) == ("text", "bidi-control")


@pytest.mark.parametrize("example", ["aiohttp_app"], indirect=True)
def test_aiohttp_websocket(example: Example) -> None:
    import asyncio

    from aiohttp import ClientSession, WSMsgType

    async def talk(message: str) -> tuple[WSMsgType, object]:
        async with ClientSession() as session:
            async with session.ws_connect(f"http://127.0.0.1:{example.port}/chat") as ws:
                await ws.send_str(message)
                got = await ws.receive(timeout=10)
                return got.type, got.data if got.type == WSMsgType.TEXT else ws.close_code

    assert asyncio.run(talk(TEXT)) == (WSMsgType.TEXT, TEXT)
    assert asyncio.run(talk('{"q": "\\u202e"}'))[1] == 1007
