"""A UTF-7 declaration under HTTP/2 (hypercorn, h2c): a stream refused for its UTF-7 charset is
answered with what its first bytes spelled, its body is still drained (the connection's
flow-control window, RFC 9113 §5.2), and the other streams on the connection go on."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

pytest.importorskip("h2")

from tests.suites.test_web_h2 import JSON, Stream, check, exchange
from tests.web.test_utf7 import SCRIPT, SPELLED
from tests.web.webservers import serve

pytestmark = pytest.mark.servers

UTF7 = b"text/plain; charset=utf-7"


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with serve("hypercorn", "tests.web.webapps:asgi") as port:
        yield port


@pytest.mark.parametrize("size", [0, 30_000], ids=["short", "past-the-window"])
def test_utf7_stream_beside_others(port: int, size: int) -> None:
    streams = [
        Stream(b"/j", json.dumps({"t": "café 日本", "n": "x" * size}).encode(), JSON, 3),
        Stream(b"/t", SCRIPT + b"x" * size, UTF7, 4),  # refused with the head, sampled
        Stream(b"/t", b"no runs" + b"y" * size, UTF7, 3),
        Stream(
            b"/j2",
            json.dumps({"b": "Ελληνικά " * (size // 16 + 1)}, ensure_ascii=False).encode(),
            JSON,
            5,
        ),
    ]
    check(streams, {1, 2}, exchange(port, streams))
    spelled, plain = (json.loads(streams[i].data)["detail"] for i in (1, 2))
    assert spelled.endswith(": " + SPELLED) and "encoded as" not in plain
    assert not set(bytes(streams[1].data)) & set(b"<>&")
