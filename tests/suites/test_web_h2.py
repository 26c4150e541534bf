"""The middleware under HTTP/2 (h2c, prior knowledge, RFC 9113 §3.3) on hypercorn: several
concurrent streams on one connection, hand-made with the ``h2`` library over a raw socket.

A refusal must not take the other streams down: every benign stream gets 200 and the echo
of exactly what it sent, every attack its 400, and the connection is neither reset (no
GOAWAY with an error) nor are benign streams reset.  See docs/web.md, "Servers": on a
refusal mid-body the ASGI middleware drains the rest of the body (up to a bound) before
it answers, since hypercorn resets the whole connection when a response ends a stream
whose body is still arriving.  Under load: 50 connections at once, each with 20 streams
(100, hypercorn's limit of concurrent streams, marked slow), half of them refused.
"""

from __future__ import annotations

import json
import random
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.web.webservers import HOST, serve

h2_config = pytest.importorskip("h2.config")
h2_connection = pytest.importorskip("h2.connection")
h2_events = pytest.importorskip("h2.events")

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with serve("hypercorn", "tests.web.webapps:asgi") as port:
        yield port


@dataclass
class Stream:
    path: bytes
    body: bytes = b""
    content_type: bytes = b""
    frames: int = 1  # DATA frames the body is cut into
    status: int = 0
    data: bytearray = field(default_factory=bytearray)
    reset: int | None = None  # RST_STREAM error code
    ended: bool = False

    def pieces(self) -> list[bytes]:
        n = len(self.body)
        return [
            self.body[i * n // self.frames : (i + 1) * n // self.frames] for i in range(self.frames)
        ]


def exchange(
    port: int, streams: list[Stream], pause: float = 0.3, timeout: float = 10.0
) -> list[Any]:
    """Open one h2c connection and start every stream; send the first DATA frame of each
    body, read whatever comes for ``pause`` seconds (a refusal may be answered before the
    rest of its body), then the other frames, one of each stream in turn; read until every
    stream has ended or been reset, or nothing came for ``timeout`` seconds.  Returns the
    GOAWAYs received."""
    conn = h2_connection.H2Connection(h2_config.H2Configuration(client_side=True))
    goaways: list[Any] = []
    ids: dict[int, Stream] = {}

    def receive(sock: socket.socket) -> bool:
        try:
            data = sock.recv(65536)
        except TimeoutError:
            return sock.gettimeout() != timeout  # the pause is over; a stall is the end
        if not data:
            return False
        for event in conn.receive_data(data):
            stream = ids.get(getattr(event, "stream_id", 0))
            if isinstance(event, h2_events.ResponseReceived) and stream:
                stream.status = int(dict(event.headers)[b":status"])
            elif isinstance(event, h2_events.DataReceived) and stream:
                stream.data += event.data
                conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2_events.StreamEnded) and stream:
                stream.ended = True
            elif isinstance(event, h2_events.StreamReset) and stream:
                stream.reset = event.error_code
            elif isinstance(event, h2_events.ConnectionTerminated):
                goaways.append(event)
        sock.sendall(conn.data_to_send())
        return True

    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        conn.initiate_connection()
        for stream in streams:
            sid = conn.get_next_available_stream_id()
            ids[sid] = stream
            headers = [
                (b":method", b"POST" if stream.body else b"GET"),
                (b":scheme", b"http"),
                (b":authority", b"127.0.0.1"),
                (b":path", stream.path),
            ]
            if stream.content_type:
                headers.append((b"content-type", stream.content_type))
            conn.send_headers(sid, headers, end_stream=not stream.body)
        sock.sendall(conn.data_to_send())
        pieces = {sid: s.pieces() for sid, s in ids.items() if s.body}
        rounds = 0
        while pieces:
            for sid in list(pieces):
                piece = pieces[sid][0]
                while ids[sid].reset is None and conn.local_flow_control_window(sid) < len(piece):
                    sock.sendall(conn.data_to_send())
                    if not receive(sock):  # RFC 9113 §5.2: wait for WINDOW_UPDATE
                        break
                if ids[sid].reset is None:  # an answered stream still takes its body
                    conn.send_data(sid, piece, end_stream=len(pieces[sid]) == 1)
                del pieces[sid][0]
                if not pieces[sid]:
                    del pieces[sid]
            sock.sendall(conn.data_to_send())
            if rounds == 0:
                sock.settimeout(pause)
                receive(sock)
                sock.settimeout(timeout)
            rounds += 1
        while not all(s.ended or s.reset is not None for s in streams) and not goaways:
            if not receive(sock):
                break
    return goaways


JSON = b"application/json"


def check(streams: list[Stream], refused: set[int], goaways: list[Any]) -> None:
    assert not [g for g in goaways if g.error_code != 0], goaways  # no GOAWAY with an error
    for i, stream in enumerate(streams):
        assert stream.reset is None, (i, stream.path, stream.reset)
        assert stream.ended, (i, stream.path)
        if i in refused:
            assert stream.status == 400, (i, stream.path, bytes(stream.data[:200]))
            assert json.loads(stream.data)["status"] == 400
        else:
            assert stream.status == 200, (i, stream.path, bytes(stream.data[:200]))
            echo = json.loads(stream.data)
            path, _, query = stream.path.partition(b"?")
            assert bytes.fromhex(echo["path"]) == path
            assert bytes.fromhex(echo["query"]) == query
            assert bytes.fromhex(echo["body"]) == stream.body  # byte for byte


def mixed(size: int) -> tuple[list[Stream], set[int]]:
    """Benign and refused streams, bodies of about ``size`` bytes cut in several frames."""
    n = max(1, size // 16)
    streams = [
        Stream(b"/get?q=%E6%97%A5%E6%9C%AC&page=2"),
        Stream(b"/j", json.dumps({"t": "café 日本 👍"} | {"n": "x" * size}).encode(), JSON, 3),
        Stream(b"/s?q=%C0%AE%C0%AF"),  # overlong in the query: refused with the head
        Stream(b"/j?q=%C0%AE", b'{"a": "' + b"x" * size + b'"}', JSON, 4),  # head, body pending
        Stream(b"/j", b'{"a": "x\\u202e' + b"y" * size + b'"}', JSON, 4),  # bidi, escaped
        Stream(b"/j", b'{"a": "' + "日本".encode() * n + b'\xe2\x80\xae"}', JSON, 5),  # bidi raw
        Stream(b"/j2", json.dumps({"b": "Ελληνικά " * n}, ensure_ascii=False).encode(), JSON, 5),
        Stream(b"/get2?lang=%CE%B5%CE%BB"),
        # truncated at the very end: refused only once the last frame is in (nothing to drain)
        Stream(b"/t", "日本".encode() * n + b"\xe6\x97", b"text/plain; charset=utf-8", 3),
    ]
    return streams, {2, 3, 4, 5, 8}


@pytest.mark.parametrize("size", [100, 30_000], ids=["small", "past-the-window"])
def test_refusals_leave_the_other_streams_alone(port: int, size: int) -> None:
    # 30,000-byte bodies: together they pass the connection's 65,535-byte window, which
    # only the bodies' reading re-opens (RFC 9113 §6.9.2).
    streams, refused = mixed(size)
    check(streams, refused, exchange(port, streams))


def test_many_streams_on_one_connection(port: int) -> None:
    streams: list[Stream] = []
    refused: set[int] = set()
    for _ in range(8):
        batch, bad = mixed(5_000)
        refused |= {len(streams) + i for i in bad}
        streams += batch
    check(streams, refused, exchange(port, streams))


# -- under load: many connections, each with benign and refused streams -----------------


def h2c_load(port: int, connections: int, streams_per_connection: int) -> None:
    """``connections`` h2c connections at once (a thread each), each carrying
    ``streams_per_connection`` concurrent streams of ``mixed`` batches with seeded body
    sizes (100 B to 20 kB); every connection is checked as above."""
    rng = random.Random(3629)
    work: list[tuple[list[Stream], set[int]]] = []
    for _ in range(connections):
        streams: list[Stream] = []
        refused: set[int] = set()
        while len(streams) < streams_per_connection:
            batch, bad = mixed(rng.randrange(100, 20_000))
            refused |= {len(streams) + i for i in bad}
            streams += batch
        del streams[streams_per_connection:]
        work.append((streams, {i for i in refused if i < streams_per_connection}))
    with ThreadPoolExecutor(connections) as pool:
        results = list(pool.map(lambda w: exchange(port, w[0], timeout=30.0), work))
    for (streams, refused), goaways in zip(work, results, strict=True):
        check(streams, refused, goaways)


def test_h2c_under_load(port: int) -> None:
    h2c_load(port, connections=50, streams_per_connection=20)


@pytest.mark.slow
def test_h2c_under_full_load(port: int) -> None:
    # hypercorn allows 100 concurrent streams per connection (SETTINGS_MAX_CONCURRENT_STREAMS)
    h2c_load(port, connections=50, streams_per_connection=100)
