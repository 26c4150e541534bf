"""A refused UTF-7 declaration says what the bytes spelled, and nothing else is
echoed: the sans-IO problem, the multipart part's deferred refusal, both adapters driven
in-process, and every real server of tests/web/webservers.py.

The refusal itself does not change: a request that declares UTF-7 never reaches the app,
a part's bytes never do.  Only the detail waits for up to ``SAMPLE_SIZE`` bytes, and shows
``utf7.spelling``'s text (bounded, escaped), with ``<``, ``>`` and ``&`` escaped again in
the JSON so that the raw response holds no markup.
"""

from __future__ import annotations

import asyncio
import functools
import io
import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer.strategies import chunkings
from sanitizer.web import DEFAULT, ASGIMiddleware, WSGIMiddleware, body_check, check_head
from sanitizer.web._problems import (
    SAMPLE_SIZE,
    Problem,
    malformed,
    sample_size,
    with_sample,
    wrong_charset,
)
from tests.suites.test_web_servers import BEHAVIOUR
from tests.web import request_builder, webservers
from tests.web.request_builder import http, in_chunks
from tests.web.webservers import INTERFACE, Response, serve

logging.getLogger("sanitizer.web").setLevel(logging.ERROR)

SCRIPT = b"+ADw-script+AD4-alert(1)+ADw-/script+AD4-"  # '<script>alert(1)</script>'
SPELLED = "'<script>alert(1)</script>' encoded as +ADw-script+AD4-alert(1)+ADw-/script+AD4-"
UTF7_TEXT = ((b"content-type", b"text/plain; charset=utf-7"),)


def assert_safe_body(body: bytes) -> dict[str, Any]:
    """A problem body: ASCII JSON with no markup characters in its raw bytes."""
    assert body.isascii()
    assert not set(body) & set(b"<>&"), body
    problem: dict[str, Any] = json.loads(body)
    return problem


# -- the problem (sans-IO) -------------------------------------------------------------------


def test_the_detail_says_what_the_bytes_spelled() -> None:
    problem = wrong_charset("header", "Content-Type", "utf-7")
    spelled = with_sample(problem, SCRIPT)
    assert spelled.detail == problem.detail + ": " + SPELLED
    assert (spelled.kind, spelled.part, spelled.status) == ("charset", "header", 400)
    assert assert_safe_body(spelled.body())["detail"] == spelled.detail  # '<' decoded
    assert b"\\u003cscript\\u003e" in spelled.body()
    assert problem.evidence == spelled.evidence == "charset=utf-7"  # the log: no duplicate


@pytest.mark.parametrize(
    "sample",
    [b"", b"plain ASCII, no runs", b"+-", b"+Jjo-", b"+2D0-", b"caf\xc3\xa9", b"a+"],
    ids=["empty", "ascii", "plus-minus", "smiley", "lone-surrogate", "utf-8", "trailing-plus"],
)
def test_no_hidden_ascii_leaves_the_detail_as_it_was(sample: bytes) -> None:
    problem = wrong_charset("header", "Content-Type", "UTF-7".lower())
    assert with_sample(problem, sample) == problem


def test_the_spelling_is_bounded_and_escaped() -> None:
    problem = wrong_charset("header", "Content-Type", "utf7")
    huge = with_sample(problem, b"+ADw-" * 100_000)  # only SAMPLE_SIZE bytes are looked at
    assert len(huge.detail) < len(problem.detail) + 400
    controls = with_sample(problem, b"+AAoACQAN-x")  # LF, TAB, CR hidden: a forged log line
    assert controls.spelled.isascii() and controls.spelled.isprintable()
    assert controls.spelled == "'\\n\\t\\r' encoded as +AAoACQAN-"
    assert controls.body().isascii() and b"\n" not in controls.body()


@pytest.mark.parametrize("charset", ["utf-16", "latin-1", "x-unknown", ""])
def test_only_a_utf7_refusal_takes_a_sample(charset: str) -> None:
    problem = wrong_charset("header", "Content-Type", charset)
    assert not problem.utf7
    assert with_sample(problem, SCRIPT) is problem
    assert sample_size(problem, None) == 0


def test_sample_size() -> None:
    problem = wrong_charset("header", "Content-Type", "utf-7")
    assert [sample_size(problem, n) for n in (None, 0, 5, SAMPLE_SIZE, 10**9)] == [
        *(SAMPLE_SIZE, 0, 5, SAMPLE_SIZE, SAMPLE_SIZE)
    ]


# Every other problem: no spelling, no sample, the body exactly json.dumps of its members.
OTHER_HEADS = [
    [(b"x-name", b"\xc0\xae<script>")],
    [(b"content-type", b"text/plain; charset=latin-1")],
    [(b"content-type", b"text/plain"), (b"content-type", b"text/html")],
    [(b"content-type", b"application/json"), (b"content-encoding", b"gzip")],
    [(b"cookie", b'a="x;b=1"')],
    [(b"content-length", b"16777217")],
]


@pytest.mark.parametrize("headers", OTHER_HEADS)
def test_every_other_problem_is_as_before(headers: list[tuple[bytes, bytes]]) -> None:
    problem = check_head(DEFAULT, b"/%C0%AE", b"q=%E2%80%AE", headers)[0]
    assert problem is not None and not problem.utf7 and not problem.spelled
    assert with_sample(problem, SCRIPT) is problem
    assert json.loads(problem.body()) == problem.as_dict()
    assert problem.body() == json.dumps(problem.as_dict()).encode()  # nothing to escape


def test_markup_in_library_text_is_escaped_too() -> None:
    problem = malformed("header", "X-<b>&", "a <summary> & more")
    assert assert_safe_body(problem.body())["detail"] == problem.detail


# -- a multipart part that declares UTF-7 ----------------------------------------------------

BOUNDARY = b"utf7-boundary"
MULTIPART = b"multipart/form-data; boundary=" + BOUNDARY
UTF7_PART = b'Content-Disposition: form-data; name="c"\r\nContent-Type: text/plain; charset=utf-7'


multipart = functools.partial(request_builder.multipart, boundary=BOUNDARY)


FIRST = (b'Content-Disposition: form-data; name="a"', b"hello")
LAST = (b'Content-Disposition: form-data; name="z"', b"bye")


def run_body(data: bytes, chunks: list[bytes]) -> tuple[Problem | None, int, int]:
    """Feed ``chunks`` (of ``data``) to the multipart check: the problem, the most bytes
    ever judged before it, and how many bytes had been fed when it came."""
    problem, head = check_head(DEFAULT, b"/", b"", [(b"content-type", MULTIPART)])
    assert problem is None
    check = body_check(DEFAULT, head)
    judged = fed = 0
    for chunk in chunks:
        fed += len(chunk)
        problem = check.feed(chunk)
        if problem is not None:
            return problem, judged, fed
        judged = max(judged, check.judged())
    return check.close(), judged, fed


@pytest.mark.parametrize(
    ("content", "spelled"),
    [
        (SCRIPT, SPELLED),
        (b"no base64 runs here", ""),
        (b"", ""),
        (b"x" * 5000 + b"+ADw-", ""),  # past the first SAMPLE_SIZE bytes: not looked at
        (b"+ADw-" * 1000, "'" + "<" * 13 + "...' encoded as " + "+ADw-" * 12 + "+ADw..."),
    ],
    ids=["script", "no-runs", "empty", "hidden-late", "long"],
)
def test_a_part_is_refused_with_what_it_spelled(content: bytes, spelled: str) -> None:
    data = multipart(FIRST, (UTF7_PART, content), LAST)
    start = data.index(UTF7_PART)  # its headers (the delimiter line is framing)
    details = set()
    for chunks in ([data], in_chunks(data, 1), in_chunks(data, 7), in_chunks(data, 1000)):
        problem, judged, _ = run_body(data, chunks)
        assert problem is not None and problem.utf7, problem
        assert (problem.part, problem.kind) == ("multipart", "charset")
        assert problem.where == "header of multipart part #2"
        assert problem.spelled == spelled
        assert judged <= start  # nothing of the part was ever handed over
        details.add(problem.detail)
    assert len(details) == 1  # the same verdict, however the body was cut


def test_a_long_part_is_refused_after_its_first_kilobyte() -> None:
    data = multipart((UTF7_PART, SCRIPT + b"x" * 100_000))
    problem, _, fed = run_body(data, in_chunks(data, 100))
    assert problem is not None and problem.spelled == SPELLED
    assert fed < data.index(SCRIPT) + SAMPLE_SIZE + 200  # not the whole part


def test_a_body_that_ends_inside_the_part() -> None:
    data = multipart((UTF7_PART, SCRIPT))
    cut = data[: data.index(SCRIPT) + len(SCRIPT) + 2]
    problem, _, _ = run_body(cut, in_chunks(cut, 3))
    assert problem is not None and problem.kind == "charset" and problem.spelled == SPELLED


def test_a_later_header_problem_does_not_take_the_place_of_the_charset() -> None:
    headers = UTF7_PART + b"\r\nContent-Transfer-Encoding: base64"
    problem, _, _ = run_body(data := multipart((headers, SCRIPT)), [data])
    assert problem is not None and problem.kind == "charset"


def test_an_extended_filename_in_utf7_is_spelled() -> None:
    disposition = b"Content-Disposition: form-data; name=\"f\"; filename*=utf-7''%2BADw-x%2BAD4-"
    problem, _, _ = run_body(data := multipart((disposition, b"x")), [data])
    assert problem is not None and problem.kind == "charset"
    assert problem.spelled == "'<x>' encoded as +ADw-x+AD4-"


@settings(max_examples=60, deadline=None)
@given(data=st.data(), content=st.sampled_from([SCRIPT, b"plain", b"", b"+ADw-" * 300]))
def test_part_verdict_does_not_depend_on_chunking(data: st.DataObject, content: bytes) -> None:
    body = multipart(FIRST, (UTF7_PART, content), LAST)
    whole, _, _ = run_body(body, [body])
    start = body.index(UTF7_PART)
    problem, judged, _ = run_body(body, data.draw(chunkings(body, 40)))
    assert problem == whole and judged <= start


# -- ASGI, in-process ------------------------------------------------------------------------


def asgi_scope(headers: tuple[tuple[bytes, bytes], ...], version: str = "1.1") -> dict[str, Any]:
    return {
        **{"type": "http", "asgi": {"version": "3.0"}, "http_version": version},
        **{"method": "POST", "path": "/t", "raw_path": b"/t", "query_string": b""},
        **{"headers": list(headers), "client": ("127.0.0.1", 5000)},
    }


def run_asgi(
    scope: dict[str, Any], messages: list[dict[str, Any]]
) -> tuple[int, dict[bytes, bytes], bytes, int]:
    """The middleware over an app that must not run: (status, headers, body, messages
    received).  Past ``messages``, receive() answers http.disconnect."""
    pending = list(messages)
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the app was called")

    async def receive() -> dict[str, Any]:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send_(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(ASGIMiddleware(app)(scope, receive, send_))
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    headers = dict(sent[0]["headers"])
    return sent[0]["status"], headers, sent[1]["body"], len(messages) - len(pending)


def body_messages(body: bytes, size: int) -> list[dict[str, Any]]:
    pieces = in_chunks(body, size) or [b""]
    return [
        {"type": "http.request", "body": p, "more_body": i < len(pieces) - 1}
        for i, p in enumerate(pieces)
    ]


def length(body: bytes) -> tuple[tuple[bytes, bytes], ...]:
    return ((b"content-length", str(len(body)).encode()),)


@pytest.mark.parametrize("size", [1, 3, 1000])
def test_asgi_reads_the_sample_one_byte_at_a_time_too(size: int) -> None:
    status, headers, body, received = run_asgi(
        asgi_scope(UTF7_TEXT + length(SCRIPT)), body_messages(SCRIPT, size)
    )
    problem = assert_safe_body(body)
    assert status == 400 and problem["kind"] == "charset"
    assert problem["detail"].endswith(": " + SPELLED)
    assert headers[b"x-content-type-options"] == b"nosniff"
    assert b"connection" not in headers  # the whole body was read: keep-alive goes on
    assert received == len(body_messages(SCRIPT, size))


def test_asgi_reads_at_most_a_kilobyte_then_closes() -> None:
    data = SCRIPT + b"x" * 100_000
    messages = body_messages(data, 100)
    status, headers, body, received = run_asgi(asgi_scope(UTF7_TEXT + length(data)), messages)
    assert status == 400 and json.loads(body)["detail"].endswith(SPELLED)
    assert received == SAMPLE_SIZE // 100 + 1
    assert headers[b"connection"] == b"close"  # the rest was not read


@pytest.mark.parametrize(
    "headers",
    [UTF7_TEXT, UTF7_TEXT + length(b"")],  # HTTP/1.1 without a body
    ids=["no-length", "length-0"],
)
def test_asgi_without_a_body_reads_nothing(headers: tuple[tuple[bytes, bytes], ...]) -> None:
    status, _, body, received = run_asgi(asgi_scope(headers), body_messages(SCRIPT, 5))
    assert status == 400 and received == 0
    assert json.loads(body)["detail"] == wrong_charset("header", "Content-Type", "utf-7").detail


def test_asgi_chunked_body_without_runs_and_a_disconnect() -> None:
    chunked_ = ((b"transfer-encoding", b"chunked"),)
    plain = wrong_charset("header", "Content-Type", "utf-7").detail
    _, _, body, _ = run_asgi(asgi_scope(UTF7_TEXT + chunked_), body_messages(b"plain text", 2))
    assert json.loads(body)["detail"] == plain
    messages = body_messages(SCRIPT, 4)[:2]  # then http.disconnect
    messages[-1]["more_body"] = True
    status, headers, body, _ = run_asgi(asgi_scope(UTF7_TEXT + chunked_), messages)
    assert status == 400 and json.loads(body)["detail"] == plain + ": '<' encoded as +ADw-"
    assert headers[b"connection"] == b"close"


def test_asgi_http2_samples_then_drains() -> None:
    data = SCRIPT + b"y" * 50_000
    messages = body_messages(data, 1000)
    status, headers, body, received = run_asgi(asgi_scope(UTF7_TEXT, "2"), messages)
    assert status == 400 and json.loads(body)["detail"].endswith(SPELLED)
    assert received == len(messages) and b"connection" not in headers  # drained to its end


def test_asgi_other_head_problems_read_no_body() -> None:
    scope = asgi_scope(((b"content-type", b"text/plain; charset=latin-1"), *length(SCRIPT)))
    status, headers, body, received = run_asgi(scope, body_messages(SCRIPT, 5))
    assert status == 400 and received == 0 and headers[b"connection"] == b"close"
    assert b"+ADw-" not in body and headers[b"x-content-type-options"] == b"nosniff"


def test_asgi_report_only_lets_the_app_read_everything() -> None:
    got: list[bytes] = []
    pending = body_messages(SCRIPT, 3)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        while (message := await receive())["more_body"]:
            got.append(message["body"])
        got.append(message["body"])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def receive() -> dict[str, Any]:
        return pending.pop(0)

    async def send_(message: dict[str, Any]) -> None:
        pass

    mw = ASGIMiddleware(app, report_only=True)
    asyncio.run(mw(asgi_scope(UTF7_TEXT + length(SCRIPT)), receive, send_))
    assert b"".join(got) == SCRIPT


# -- WSGI, in-process ------------------------------------------------------------------------


class Input(io.BytesIO):
    """A server's wsgi.input that records the sizes asked for (PEP 3333: never none)."""

    def __init__(self, data: bytes, fail: bool = False) -> None:
        super().__init__(data)
        self.asked: list[int | None] = []
        self.fail = fail

    def read(self, size: int | None = -1) -> bytes:
        self.asked.append(size)
        if self.fail:
            raise OSError("client went away")
        return super().read(1 if size is None or size < 0 else min(size, 1))  # 1 at a time


def run_wsgi(environ: dict[str, Any]) -> tuple[str, dict[str, str], bytes]:
    def app(environ: Any, start_response: Any) -> list[bytes]:
        raise AssertionError("the app was called")

    started: list[Any] = []
    body = b"".join(
        WSGIMiddleware(app)(environ, lambda status, headers: started.append((status, headers)))
    )
    status, headers = started[0]
    return status, dict(headers), body


def wsgi_environ(data: bytes, **extra: Any) -> dict[str, Any]:
    return {
        **{"REQUEST_METHOD": "POST", "PATH_INFO": "/t", "QUERY_STRING": ""},
        **{"CONTENT_TYPE": "text/plain; charset=utf-7", "wsgi.input": Input(data)},
        **extra,
    }


def test_wsgi_reads_the_sample_within_content_length() -> None:
    data = SCRIPT + b"z" * 5000
    environ = wsgi_environ(data, CONTENT_LENGTH=str(len(SCRIPT) + 3))
    status, headers, body = run_wsgi(environ)
    assert status.startswith("400") and headers["X-Content-Type-Options"] == "nosniff"
    assert assert_safe_body(body)["detail"].endswith(": " + SPELLED)
    stream = environ["wsgi.input"]
    assert stream.tell() == len(SCRIPT) + 3 and None not in stream.asked  # never past it


def test_wsgi_reads_at_most_a_kilobyte() -> None:
    data = SCRIPT + b"z" * 5000
    environ = wsgi_environ(data, CONTENT_LENGTH=str(len(data)))
    run_wsgi(environ)
    assert environ["wsgi.input"].tell() == SAMPLE_SIZE


@pytest.mark.parametrize(
    "extra",
    [{}, {"CONTENT_LENGTH": "0"}, {"CONTENT_LENGTH": str(len(SCRIPT)), "fail": True}],
    ids=["no-length", "length-0", "read-fails"],
)
def test_wsgi_without_a_readable_body_the_detail_is_as_before(extra: dict[str, Any]) -> None:
    environ = wsgi_environ(SCRIPT, **{k: v for k, v in extra.items() if k != "fail"})
    environ["wsgi.input"].fail = extra.get("fail", False)
    _, _, body = run_wsgi(environ)
    assert json.loads(body)["detail"] == wrong_charset("header", "Content-Type", "utf-7").detail
    if not extra.get("fail"):
        assert environ["wsgi.input"].tell() == 0


def test_wsgi_terminated_input_is_sampled() -> None:
    environ = wsgi_environ(SCRIPT, **{"wsgi.input_terminated": True})
    _, _, body = run_wsgi(environ)
    assert json.loads(body)["detail"].endswith(SPELLED)


def test_wsgi_other_head_problems_read_no_body() -> None:
    environ = wsgi_environ(SCRIPT, CONTENT_LENGTH=str(len(SCRIPT)))
    environ["CONTENT_TYPE"] = "text/plain; charset=latin-1"
    _, headers, body = run_wsgi(environ)
    assert environ["wsgi.input"].tell() == 0 and b"+ADw-" not in body
    assert headers["X-Content-Type-Options"] == "nosniff"


# -- real servers ----------------------------------------------------------------------------


@pytest.fixture(scope="module", params=tuple(INTERFACE))
def server(request: pytest.FixtureRequest) -> Iterator[Callable[[bytes], Response]]:
    """Each server of tests/web/webservers.py around the echo app: a function that sends one
    raw request and returns the response."""
    kind: str = request.param
    # granian drops a connection whose client half-closes before the answer
    half_close = BEHAVIOUR[kind].half_close
    with serve(kind, f"tests.web.webapps:{INTERFACE[kind]}") as port:
        yield lambda raw: webservers.send(port, raw, half_close=half_close)


def refused_with_spelling(response: Response, part: str, spelled: str = SPELLED) -> str:
    assert response.status == 400, response
    assert response.headers["x-content-type-options"] == "nosniff"
    problem = assert_safe_body(response.body)
    assert (problem["part"], problem["kind"]) == (part, "charset"), problem
    detail: str = problem["detail"]
    assert detail.endswith(": " + spelled) if spelled else "encoded as" not in detail
    return detail


def one_byte_chunks(target: bytes, headers: list[tuple[bytes, bytes]], body: bytes) -> bytes:
    """A chunked request whose body comes in chunks of one byte each."""
    request = http("POST", target, headers, chunked=True)  # an empty body: "0" CRLF CRLF
    assert request.endswith(b"\r\n\r\n0\r\n\r\n")
    request = request[: -len(b"0\r\n\r\n")]
    return (
        request
        + b"".join(b"1\r\n%s\r\n" % body[i : i + 1] for i in range(len(body)))
        + (b"0\r\n\r\n")
    )


UTF7_HEADERS = [(b"Content-Type", b"text/plain; charset=utf-7")]


@pytest.mark.servers
def test_server_request_level(server: Callable[[bytes], Response]) -> None:
    for request in (
        http("POST", b"/t", UTF7_HEADERS, SCRIPT),
        http("POST", b"/t", UTF7_HEADERS, SCRIPT, chunked=True),
        one_byte_chunks(b"/t", UTF7_HEADERS, SCRIPT),
    ):
        refused_with_spelling(server(request), "header")
    refused_with_spelling(server(http("POST", b"/t", UTF7_HEADERS, b"")), "header", "")
    no_runs = http("POST", b"/t", UTF7_HEADERS, b"just text")
    refused_with_spelling(server(no_runs), "header", "")


@pytest.mark.servers
def test_server_part_level(server: Callable[[bytes], Response]) -> None:
    headers = [(b"Content-Type", MULTIPART)]
    body = multipart(FIRST, (UTF7_PART, SCRIPT), LAST)
    for request in (
        http("POST", b"/u", headers, body),
        http("POST", b"/u", headers, body, chunked=True),
        one_byte_chunks(b"/u", headers, body),
    ):
        detail = refused_with_spelling(server(request), "multipart")
        assert detail.startswith("header of multipart part #2")


@pytest.mark.servers
def test_server_echoes_nothing_else(server: Callable[[bytes], Response]) -> None:
    headers = [(b"Content-Type", b"text/plain; charset=latin-1")]
    response = server(http("POST", b"/t?q=%3Cscript%3E%C0%AE", headers, SCRIPT))
    assert response.status == 400 and response.headers["x-content-type-options"] == "nosniff"
    assert b"script" not in response.body.lower() and b"ADw" not in response.body
