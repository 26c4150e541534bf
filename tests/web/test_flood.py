"""The ASGI middleware under a flood of text: other requests stay served.

A server may hand the app a large body in one message (what it buffered while the app
was busy, or the whole body at once); judged in one synchronous call, it would hold the
event loop, and every other client, for as long as judging takes.  The middleware feeds
such a message a ``STEP`` at a time and serves the loop between two steps once judging
has held it ``QUANTUM`` seconds (0 here: between every two).

- Counted (fast tier): a body of each legitimate kind of text (tests/policy/text_classes.py),
  as a text body and as a form body, in one message: it is fed to the body check a
  ``STEP`` at a time, another task runs between every two steps, and the verdict is the
  one the same body gets in small messages.
- Under uvicorn (``servers``): while a body of each legitimate kind is sent, a
  concurrent client's small GETs are answered; their median latency stays within
  ``K`` times their median latency during a body of the same size that is only counted
  (``application/octet-stream``), measured in the same run: the cost of judging the
  text, not of moving the bytes, is what is bounded.  Never an absolute time.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import time
from typing import Any
from urllib.parse import quote_from_bytes

import pytest

from sanitizer.web import ASGIMiddleware, asgi
from sanitizer.web._body import BodyCheck
from tests.policy.text_classes import LEGITIMATE, sample
from tests.web.webapps import asgi_sink

SIZE = 256 << 10  # bytes of each body


def _scope(content_type: bytes, size: int) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", content_type), (b"content-length", str(size).encode())],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }


def _body(kind: str, form: bool, size: int = SIZE) -> tuple[bytes, bytes]:
    """(content type, body) of ``kind``, about ``size`` bytes, as a text body or as
    form fields (a word a field, percent-encoded)."""
    text = sample(kind, size)
    if not form:
        return b"text/plain; charset=utf-8", text
    fields = b"&".join(b"f=" + quote_from_bytes(w).encode() for w in text.split(b" ") if w)
    return b"application/x-www-form-urlencoded", fields[: fields.find(b"&", size)]


async def _judge(content_type: bytes, body: bytes, message_size: int) -> tuple[int, list[int]]:
    """(status, the loop turns another task had seen at each feed) of ``body`` sent as
    messages of ``message_size`` bytes; records each chunk fed to the body check."""
    sent: list[dict[str, Any]] = []
    for i in range(0, len(body), message_size):
        more = i + message_size < len(body)
        sent.append({"type": "http.request", "body": body[i : i + message_size], "more_body": more})
    messages = iter(sent)
    status: list[int] = []

    async def receive() -> dict[str, Any]:
        return next(messages, {"type": "http.disconnect"})

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])

    turns = [0]
    done = asyncio.Event()

    async def other_client() -> None:
        while not done.is_set():
            turns[0] += 1
            await asyncio.sleep(0)

    seen: list[int] = []
    real = BodyCheck.feed
    depth = [0]  # a body check may feed another (a body read by content too)

    def feed(self: BodyCheck, chunk: bytes) -> Any:
        if depth[0] == 0:
            assert len(chunk) <= asgi.STEP or message_size < asgi.STEP
            seen.append(turns[0])
        depth[0] += 1
        try:
            return real(self, chunk)
        finally:
            depth[0] -= 1

    other = asyncio.ensure_future(other_client())
    BodyCheck.feed = feed  # type: ignore[method-assign]
    try:
        await asyncio.sleep(0)
        await ASGIMiddleware(asgi_sink)(_scope(content_type, len(body)), receive, send)
    finally:
        BodyCheck.feed = real  # type: ignore[method-assign]
        done.set()
        await other
    return status[0], seen


@pytest.mark.parametrize("form", [False, True], ids=["text", "form"])
@pytest.mark.parametrize("kind", LEGITIMATE)
def test_a_body_in_one_message_is_judged_in_steps(
    kind: str, form: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(asgi, "QUANTUM", 0.0)  # the loop served between every two steps
    # (a form body is judged field by field, the slower: smaller, judged once)
    content_type, body = _body(kind, form, 3 * asgi.STEP // (2 if form else 1))
    status, seen = asyncio.run(_judge(content_type, body, len(body)))
    assert status == 200
    assert len(seen) >= len(body) // asgi.STEP >= 1  # fed a step at a time
    assert all(a < b for a, b in itertools.pairwise(seen))  # another task ran between steps
    if not form:
        small, _ = asyncio.run(_judge(content_type, body, 4096))
        assert small == status  # the same verdict however the body came


def test_a_refusal_in_a_later_step_is_the_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(asgi, "QUANTUM", 0.0)
    body = b"a" * (5 * asgi.STEP) + b"\xc0\xae" + b"b" * asgi.STEP
    status, seen = asyncio.run(_judge(b"text/plain; charset=utf-8", body, len(body)))
    assert status == 400 and len(seen) == 6  # the steps after the refusal are not fed


# -- under uvicorn ----------------------------------------------------------------------

K = 20  # median GET latency during a text body, at most K times that during a counted one


def _post(content_type: bytes, body: bytes) -> bytes:
    head = b"POST /flood HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n" % (
        content_type,
        len(body),
    )
    return head + body


@pytest.mark.servers
def test_other_clients_are_served_during_a_text_flood() -> None:
    from tests.web.webservers import HOST, read_response, serve

    async def run(port: int) -> dict[str, float]:
        reader, writer = await asyncio.open_connection(HOST, port)

        async def get() -> float:
            t = time.perf_counter()
            writer.write(b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
            await writer.drain()
            response, _ = await read_response(reader)
            assert response.status == 200
            return time.perf_counter() - t

        async def during(request: bytes) -> list[float]:
            r, w = await asyncio.open_connection(HOST, port)
            w.write(request)
            posted = asyncio.ensure_future(read_response(r))
            latencies = [await get()]
            while not posted.done():
                latencies.append(await get())
            response, _ = await posted
            w.close()
            assert response.status == 200, response
            return latencies

        counted: list[float] = []
        for _ in range(3):
            counted += await during(_post(b"application/octet-stream", sample("ASCII", SIZE)))
        medians = {"counted": statistics.median(counted)}
        for kind in LEGITIMATE:
            content_type, body = _body(kind, False)
            medians[kind] = statistics.median(await during(_post(content_type, body)))
        writer.close()
        return medians

    with serve("asgi", "tests.web.webapps:asgi_sink_checked") as port:
        medians = asyncio.run(asyncio.wait_for(run(port), 120))
    base = medians.pop("counted")
    ratios = {kind: m / base for kind, m in medians.items()}
    print({kind: f"{r:.1f}x" for kind, r in ratios.items()})
    assert max(ratios.values()) <= K, ratios
