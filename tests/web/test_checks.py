"""The web checks without a server: head verdicts, and body checks that give the same
verdict for every way the body is split into chunks.

Oracles are independent of sanitizer.web: the stdlib's json and urllib.parse read the
body, and ``sanitizer.inspect`` on each whole value says what the verdict must be.
"""

from __future__ import annotations

import functools
import json
import logging
from urllib.parse import quote_from_bytes, unquote_to_bytes

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sanitizer import inspect, profiles
from sanitizer.strategies import attack_bytes, chunkings
from sanitizer.web import DEFAULT, Problem, WebPolicy, body_check, check_head
from sanitizer.web._report import Reporter, printable
from tests.web import request_builder
from tests.web.request_builder import disposition
from tests.web.sans_io import body_verdict as body

P = DEFAULT


def head(
    path: bytes = b"/", query: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None
) -> Problem | None:
    return check_head(P, path, query, headers or [])[0]


# -- the request line and headers -------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "kind", "offset"),
    [
        (b"/..%c0%af../..%c0%af../winnt/system32", "overlong", 3),  # IIS, 2001
        (b"/%C0%AE%C0%AE/", "overlong", 1),
        (b"/%ED%A0%80", "surrogate", 1),
        (b"/%F4%90%80%80", "out-of-range", 1),
        (b"/%F8%88%80%80%80", "out-of-range", 1),
        (b"/%E6%97", "incomplete", 1),
        (b"/a\xc0\xaf", "overlong", 2),  # raw, not percent-encoded
        (b"/%00", "nul", 1),
        (b"/%0d%0aSet-Cookie:", "line-break", 1),
        (b"/%E2%80%AE", "bidi-control", 1),
        (b"/%2e%2e/secret", "dot-segment", None),
        (b"/a/./b", "dot-segment", None),
        (b"/..%5csecret", "dot-segment", None),
    ],
)
def test_path_attacks(path: bytes, kind: str, offset: int | None) -> None:
    problem = head(path)
    assert problem is not None
    assert (problem.part, problem.kind, problem.offset, problem.status) == (
        "path",
        kind,
        offset,
        400,
    )


@pytest.mark.parametrize(
    "path", [b"/", b"/caf%C3%A9/%E6%97%A5%E6%9C%AC", "/ελληνικά/😀".encode(), b"/a.b/.well-known"]
)
def test_benign_paths(path: bytes) -> None:
    assert head(path) is None


def test_path_already_decoded_is_not_decoded_twice() -> None:
    # WSGI's PATH_INFO is percent-decoded: "%25C0%25AF" arrives as "%C0%AF", literally.
    assert check_head(P, b"/%C0%AF", b"", [], path_decoded=True)[0] is None
    assert check_head(P, b"/\xc0\xaf", b"", [], path_decoded=True)[0] is not None


def test_dot_segments_can_be_allowed() -> None:
    assert check_head(P.replace(dot_segments=True), b"/%2e%2e/x", b"", [])[0] is None


@pytest.mark.parametrize(
    ("query", "where", "kind"),
    [
        (b"q=%C0%AE", "query parameter 'q'", "overlong"),
        (b"a=1&q=%ED%A0%80", "query parameter 'q'", "surrogate"),
        (b"%C0%AE=1", "name of query parameter #1", "overlong"),
        (b"a=1&%E2%80%AE=1", "name of query parameter #2", "bidi-control"),
        (b"q=\xc0\xae", "query parameter 'q'", "overlong"),
        (b"q=%E6%97", "query parameter 'q'", "incomplete"),
        (b"q=%F4%90%80%80", "query parameter 'q'", "out-of-range"),
        (b"x=%00", "query parameter 'x'", "nul"),
        (b"%3Cscript%3E=%00", "query parameter #1", "nul"),  # a name never shown unless plain
    ],
)
def test_query_attacks(query: bytes, where: str, kind: str) -> None:
    problem = head(query=query)
    assert problem is not None
    assert (problem.part, problem.where, problem.kind) == ("query", where, kind)


@pytest.mark.parametrize(
    "query",
    [b"q=a+b", b"q=%E6%97%A5%E6%9C%AC&x=%F0%9F%98%80", b"a&&b=", b"text=line1%0D%0Aline2", b""],
)
def test_benign_queries(query: bytes) -> None:
    assert head(query=query) is None


@pytest.mark.parametrize(
    ("headers", "part", "kind"),
    [
        ([(b"x-name", b"\xc0\xae")], "header", "overlong"),
        ([(b"user-agent", b"a\xed\xa0\x80")], "header", "surrogate"),
        ([(b"x-a", b"a\x1b[31m")], "header", "control"),
        ([(b"x\xc3\xa9", b"1")], "header", "malformed"),
        ([(b"cookie", b"sid=1; name=\xc0\xae")], "cookie", "overlong"),
        ([(b"cookie", b'name="\xe2\x80\xae"')], "cookie", "bidi-control"),
        ([(b"cookie", b'name="\\012"')], "cookie", "line-break"),  # frameworks unescape
        ([(b"cookie", b'name="\\000"')], "cookie", "nul"),
        ([(b"cookie", b'name="\\342\\200\\256"')], "cookie", "ambiguous-cookie"),
        ([(b"cookie", b'a="x\\"; b=\xe2\x80\xae"')], "cookie", "ambiguous-cookie"),
        ([(b"cookie", b'a="x;b=1"')], "cookie", "ambiguous-cookie"),  # Werkzeug: one pair
        ([(b"cookie", b"\xed\xa0\x80=1")], "cookie", "surrogate"),  # names: not decoded
        ([(b"cookie", b"a=\xc0\xae")], "cookie", "overlong"),
        ([(b"content-type", b"text/plain; charset=utf-7")], "header", "charset"),
        ([(b"content-type", b"application/json; charset=UTF-16")], "header", "charset"),
        (
            [(b"content-type", b"text/plain"), (b"content-type", b"text/html")],
            "header",
            "malformed",
        ),
        ([(b"content-type", b"multipart/form-data")], "header", "malformed"),
        (
            [(b"content-type", b"application/json"), (b"content-encoding", b"gzip")],
            "header",
            "content-encoding",
        ),
        ([(b"content-length", b"16777217")], "body", "too-large"),
        # ambiguous Content-Types that Django or Werkzeug read differently
        (
            [(b"content-type", b"text/plain; charset=utf-8; charset*=utf-8''utf-7")],
            "header",
            "malformed",
        ),
        (
            [(b"content-type", b"multipart/form-data; boundary=a; boundary*=utf-8''b")],
            "header",
            "malformed",
        ),
        ([(b"content-type", b"multipart/form-data; boundary=a b")], "header", "malformed"),
        ([(b"content-type", b"text/plain; charset=utf-8; charset=utf-7")], "header", "malformed"),
        ([(b"content-type", b"application/octet-stream, text/plain")], "header", "malformed"),
    ],
)
def test_header_attacks(headers: list[tuple[bytes, bytes]], part: str, kind: str) -> None:
    problem = head(headers=headers)
    assert problem is not None
    assert (problem.part, problem.kind) == (part, kind)
    assert problem.status == (413 if kind == "too-large" else 400)


@pytest.mark.parametrize(
    "headers",
    [
        [(b"cookie", b"a=%C3%A9; b=%2F")],  # Litestar percent-decodes: still harmless
        [(b"cookie", b'prefs={"theme":"dark","n":[1,2]}')],  # JSON: read literally by all
        [(b"cookie", b'a="q\\"x\\\\"; b=""')],  # escapes every framework reads alike
        [(b"user-agent", b"Mozilla/5.0 (X11; Linux x86_64)\tfoo")],
        [(b"cookie", b'a=caf%C3%A9; b="quoted"; c=')],
        [(b"content-type", b'text/plain; charset="UTF-8"')],
        [(b"content-type", b"application/json; charset=utf8")],
        [(b"content-type", b"application/octet-stream"), (b"content-encoding", b"gzip")],
        [(b"content-length", b"16777216")],
    ],
)
def test_benign_headers(headers: list[tuple[bytes, bytes]]) -> None:
    assert head(headers=headers) is None


@pytest.mark.parametrize(
    ("headers", "part", "kind"),
    [
        # obs-text: read as Latin-1 by the frameworks ("Û" = C3 9B: "Ã" + CSI)
        ([(b"x-name", b"caf\xc3\xa9")], "header", "ambiguous-header"),
        ([(b"user-agent", "Û".encode())], "header", "ambiguous-header"),
        ([(b"cookie", "a=Ņ".encode())], "cookie", "ambiguous-cookie"),
        # Litestar percent-decodes cookie values
        ([(b"cookie", b"a=%E2%80%AE")], "cookie", "bidi-control"),
        ([(b"cookie", b"a=x%0D%0Ay")], "cookie", "line-break"),
        ([(b"cookie", b"a=%C0%AE")], "cookie", "overlong"),
        ([(b"cookie", b'a="x%00"')], "cookie", "nul"),
        # a value that opens a quoted-string it does not close in its pair: Werkzeug
        # reads past the ';'
        ([(b"cookie", b'a="x; b=y"')], "cookie", "ambiguous-cookie"),
    ],
)
def test_head_readings(headers: list[tuple[bytes, bytes]], part: str, kind: str) -> None:
    problem = head(headers=headers)
    assert problem is not None and (problem.part, problem.kind) == (part, kind), problem


def test_last_event_id_is_read_as_utf8_by_default() -> None:
    """WHATWG HTML (server-sent events): an EventSource sends the last event ID UTF-8
    encoded; it is judged as UTF-8, not refused as ambiguous, and still judged."""
    from sanitizer.web import BROWSER_UTF8_HEADERS

    assert "last-event-id" in P.utf8_headers == BROWSER_UTF8_HEADERS
    assert head(headers=[(b"Last-Event-ID", "évènement-42 日本".encode())]) is None
    problem = head(headers=[(b"last-event-id", "id\u202e".encode())])
    assert problem is not None and problem.kind == "bidi-control"
    problem = head(headers=[(b"X-Other", "évènement".encode())])
    assert problem is not None and problem.kind == "ambiguous-header"
    problem = check_head(P.replace(utf8_headers=()), b"/", b"", [(b"Last-Event-ID", b"\xc3\xa9")])[
        0
    ]
    assert problem is not None and problem.kind == "ambiguous-header"


def test_raw_utf8_in_listed_headers_and_cookies_is_judged_as_utf8() -> None:
    policy = P.replace(utf8_headers={"X-Name"}, utf8_cookies={"who"})
    assert policy.utf8_headers == frozenset({"x-name"})
    ok = [(b"x-name", "Ņ".encode()), (b"cookie", "who=Ņ; b=1".encode())]
    assert check_head(policy, b"/", b"", ok)[0] is None
    for headers in (
        [(b"x-name", "\u202e".encode())],
        [(b"x-other", "Ņ".encode())],
        [(b"cookie", "who=\u202e".encode())],
        [(b"cookie", "b=Ņ".encode())],
    ):
        assert check_head(policy, b"/", b"", headers)[0] is not None, headers
    with pytest.raises(TypeError, match="utf8_headers"):
        P.replace(utf8_headers="x-name")


def test_raw_bytes_in_a_query_are_ambiguous() -> None:
    problem = head(query="q=Ņ".encode())
    assert problem is not None and (problem.part, problem.kind) == ("query", "ambiguous-query")
    assert "Starlette" in problem.summary and "Werkzeug" in problem.summary


def test_other_charsets_can_be_allowed() -> None:
    policy = P.replace(charsets={"UTF-8", "US-ASCII"})
    assert policy.charsets == frozenset({"utf-8", "us-ascii"})
    headers = [(b"content-type", b"text/plain; charset=us-ascii")]
    assert check_head(policy, b"/", b"", headers)[0] is None


def test_a_part_can_be_switched_off() -> None:
    policy = P.replace(query=None, names=None)
    assert check_head(policy, b"/", b"q=%C0%AE", [])[0] is None


def test_web_policy_validates() -> None:
    with pytest.raises(TypeError, match="query must be a sanitizer"):
        WebPolicy(query="text")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_body_size"):
        WebPolicy(max_body_size=-1)
    with pytest.raises(ValueError, match="untyped_body"):
        WebPolicy(untyped_body="image/png")


# -- problems never echo the input ------------------------------------------------------


def test_problem_is_rfc9457_and_echoes_nothing() -> None:
    problem = head(query=b"%3Cscript%3E=%C0%AE")
    assert problem is not None
    doc = json.loads(problem.body())
    assert doc["type"] == "urn:utf8-sanitizer:problem:ill-formed-utf8"
    assert doc["status"] == 400 and doc["title"] == "Ill-formed UTF-8"
    assert doc["part"] == "query" and doc["kind"] == "overlong" and doc["offset"] == 0
    assert doc["detail"].startswith("query parameter #1 at byte 0: overlong")
    for needle in (b"script", b"C0", b"%3C", b"\xc0"):
        assert needle not in problem.body()
    assert "C0" in problem.evidence  # the log gets the bytes, the client does not


def test_a_hidden_payload_problem_says_what_it_spelled() -> None:
    """The second echo: a run of invisible characters, escaped and bounded (reveal)."""
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "<b>ignore</b>")
    prompt = WebPolicy(json=profiles.PROMPT)
    problem = body(b"application/json", [json.dumps({"q": "hi" + hidden}).encode()], prompt)
    assert problem is not None and problem.kind == "hidden-payload"
    doc = json.loads(problem.body())
    assert doc["detail"].endswith("13 tag characters spelling '<b>ignore</b>'")
    assert b"<b>" not in problem.body()  # markup escaped in the body (RFC 8259 §7)
    assert body(b"application/json", [json.dumps({"q": "hi" + hidden}).encode()]) is not None


def test_reporter_logs_structured_and_calls_back(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[Problem] = []

    def boom(problem: Problem, request: object) -> None:
        seen.append(problem)
        raise RuntimeError("callback bug")

    problem = head(query=b"q=%C0%AE")
    assert problem is not None
    with caplog.at_level(logging.WARNING, logger="sanitizer.web"):
        Reporter(False, boom)(problem, {}, "GET", b"/x?q=%C0%AE\r\n\x1b", "127.0.0.1:1")
    assert seen == [problem]
    record = caplog.records[0]
    assert record.sanitizer["kind"] == "overlong"  # type: ignore[attr-defined]
    assert record.sanitizer["action"] == "refused"  # type: ignore[attr-defined]
    assert "\r" not in record.getMessage() and "\x1b" not in record.getMessage()
    assert "callback bug" in caplog.text  # logged, not raised


def test_printable() -> None:
    assert printable(b"/a\r\n\x1b\xc0") == "/a\\x0d\\x0a\\x1b\\xc0"
    assert printable(b"x" * 300, 10) == "x" * 10 + "..."


# -- bodies: examples -------------------------------------------------------------------

JSON = b"application/json"
FORM = b"application/x-www-form-urlencoded"
TEXT = b"text/plain; charset=utf-8"


@pytest.mark.parametrize(
    ("content_type", "data", "kind"),
    [
        (JSON, b'{"a": "caf\xc0\xa9"}', "overlong"),
        (JSON, b'{"a": "\xed\xa0\x80"}', "surrogate"),
        (JSON, b'{"a": "\\ud800"}', "lone-surrogate-escape"),
        (JSON, b'{"a": "\\udc00"}', "lone-surrogate-escape"),
        (JSON, b'{"a": "\\ud800\\u0041"}', "lone-surrogate-escape"),
        (JSON, b'{"a": "\\ud800', "lone-surrogate-escape"),  # cut off at the end of the body
        (JSON, b'{"\\u202e": 1}', "bidi-control"),  # keys too
        (JSON, b'{"a": "\\udb40\\udc41"}', "tag"),  # an escaped pair is one character
        (JSON, b'{"a": "\\u0000"}', "nul"),
        (JSON, b'{"a": "\\b"}', "control"),  # an escaped control is still a control
        (JSON, '{"a": 1}'.encode("utf-16-le"), "control"),
        (JSON, b'{"a": 1}\x00', "control"),
        (FORM, b"a=1&b=%C0%AE", "overlong"),
        (FORM, b"a=1&%ED%A0%80=2", "surrogate"),
        (FORM, b"a=%E6%97", "incomplete"),
        (TEXT, b"hello \xe2\x80\xae world", "bidi-control"),
        (TEXT, b"hello \xe2\x80", "incomplete"),
        (TEXT, b"\x1b]0;title\x07", "control"),
    ],
)
def test_body_attacks(content_type: bytes, data: bytes, kind: str) -> None:
    for chunks in ([data], [bytes([b]) for b in data]):
        problem = body(content_type, chunks)
        assert problem is not None and problem.kind == kind, (chunks, problem)


@pytest.mark.parametrize(
    ("content_type", "data"),
    [
        (JSON, json.dumps({"ελληνικά": ["日本語", "😀", "a\u200db"]}, ensure_ascii=False).encode()),
        (JSON, json.dumps({"e": "😀\u0301\n\t", "k": [1, 2.5, None, True]}).encode()),
        (JSON, b'{"pair": "\\ud83d\\ude00", "esc": "\\"\\\\\\/\\f\\n\\r\\t"}'),
        (JSON, b"\xef\xbb\xbf[]"),
        (FORM, b"name=%E6%97%A5%E6%9C%AC&bio=line1%0D%0Aline2&empty=&flag"),
        (TEXT, "Ünïcödé text\r\nwith lines\tand tabs, 日本語, עברית".encode()),
    ],
)
def test_benign_bodies(content_type: bytes, data: bytes) -> None:
    for chunks in ([data], [bytes([b]) for b in data]):
        assert body(content_type, chunks) is None


def test_body_size_limit_counts_every_body() -> None:
    policy = P.replace(max_body_size=10)
    problem = body(b"application/octet-stream", [b"x" * 6, b"y" * 6], policy)
    assert problem is not None and (problem.status, problem.kind) == (413, "too-large")
    assert body(b"application/octet-stream", [b"x" * 10], policy) is None


def test_untyped_body_can_be_read_as_json() -> None:
    data = b'{"a": "\\ud800"}'
    problem, found = check_head(P, b"/", b"", [(b"content-length", b"15")])
    assert problem is None and body_check(P, found).feed(data) is None
    policy = P.replace(untyped_body="application/json")
    problem, found = check_head(policy, b"/", b"", [(b"content-length", b"15")])
    problem = body_check(policy, found).feed(data)
    assert problem is not None and problem.kind == "lone-surrogate-escape"


def test_first_problem_is_reported_once() -> None:
    _, found = check_head(P, b"/", b"", [(b"content-type", TEXT)])
    check = body_check(P, found)
    assert check.feed(b"\xc0\xae ") is not None
    assert check.feed(b"\xc0\xae ") is None and check.close() is None


# -- multipart --------------------------------------------------------------------------

BOUNDARY = b"----sanitizer7MA4YWxk"
MULTIPART = b"multipart/form-data; boundary=" + BOUNDARY


multipart = functools.partial(request_builder.multipart, boundary=BOUNDARY)


@pytest.mark.parametrize(
    ("parts", "kind", "where"),
    [
        (
            [(disposition(b'name="f"; filename="a\xc0\xafb"'), b"x")],
            "overlong",
            "filename of multipart field 'f'",
        ),
        (
            [(disposition(b'name="f"; filename="../../etc/passwd"'), b"x")],
            "path-separator",
            "filename of multipart field 'f'",
        ),
        ([(disposition(b'name="f"; filename=".."'), b"x")], "dot-segment", "filename of"),
        (
            [(disposition(b'name="f"; filename="\xef\xbc\x8f\xef\xbc\x8e\xef\xbc\x8e"'), b"x")],
            "path-separator",
            "filename of",
        ),  # U+FF0F under NFKC (CWE-180)
        (
            [(disposition(b"name=\"f\"; filename*=UTF-8''%C0%AE%C0%AE"), b"x")],
            "overlong",
            "filename* of",
        ),
        ([(disposition(b"name=\"f\"; filename*=ISO-8859-1''%E9"), b"x")], "charset", "multipart"),
        ([(disposition(b'name="t"'), b"hi \xed\xa0\x80")], "surrogate", "multipart field 't'"),
        ([(disposition(b'name="t"'), b"\xe2\x80\xaeevil")], "bidi-control", "multipart field"),
        (
            [(disposition(b'name="t"') + b"\r\nContent-Type: text/plain", b"\xc0\xae")],
            "overlong",
            "multipart field 't'",
        ),
        ([(disposition(b'name="\xe2\x80\xae"'), b"x")], "bidi-control", "name of multipart"),
        (
            [(disposition(b'name="t"') + b"\r\nContent-Type: text/plain; charset=utf-7", b"+ADw-")],
            "charset",
            "header of",
        ),
        ([(b"Content-Disposition: attachment", b"x")], "malformed", "multipart part #1"),
        (
            [(disposition(b'name="q"') + b"\r\nContent-Transfer-Encoding: base64", b"eOKArnk=")],
            "malformed",
            "header of",
        ),  # RFC 7578 §4.7; Django decodes it
    ],
)
def test_multipart_attacks(parts: list[tuple[bytes, bytes]], kind: str, where: str) -> None:
    data = multipart(*parts)
    for chunks in ([data], [data[i : i + 3] for i in range(0, len(data), 3)]):
        problem = body(MULTIPART, chunks)
        assert problem is not None and problem.kind == kind, (chunks, problem)
        assert problem.part == "multipart" and where in problem.where


def test_multipart_files_pass_untouched_and_text_fields_pass() -> None:
    data = multipart(
        (disposition(b'name="bio"'), "日本語のテキスト\r\nzweite Zeile".encode()),
        (disposition('name="f"; filename="résumé 2024.pdf"'.encode()), bytes(range(256)) * 4),
        (disposition(b'name="g"; filename="x.bin"') + b"\r\nContent-Type: image/png", b"\xc0\xaf"),
        (disposition(b'name="h"; filename=""'), b""),  # a file input left empty
    )
    for size in (len(data), 1, 5, 64):
        assert body(MULTIPART, [data[i : i + size] for i in range(0, len(data), size)]) is None


def test_file_data_chunks_skipped_by_the_parser_keep_every_verdict() -> None:
    """A file part's middle chunks are not parsed (``_file_data_only``): whatever the
    chunk edges (CR, CRLF, "-" or part of a delimiter at the end of one), the parts after
    the file are still read, a bad one refused, a clean body passed, a late delimiter
    that is not on a line of its own refused."""
    data = b"0\r1\r\n2-3--" + BOUNDARY[:5] + b"\r\n--\r" * 3 + bytes(range(256))
    file_part = (disposition(b'name="f"; filename="a.bin"'), data)
    clean = multipart(file_part, (disposition(b'name="t"'), b"hello world"))
    evil = multipart(file_part, (disposition(b'name="t"'), "hello \u202eworld".encode()))
    glued = clean.replace(b"\r\n--" + BOUNDARY + b"\r\n", b"--" + BOUNDARY + b"\r\n")
    start = clean.index(data)  # the file data starts in the first chunk
    for a in (start + 1, start + 40):
        for b in range(a + 1, len(evil)):
            assert body(MULTIPART, [clean[:a], clean[a:b], clean[b:]]) is None, (a, b)
            problem = body(MULTIPART, [evil[:a], evil[a:b], evil[b:]])
            assert problem is not None and problem.kind == "bidi-control", (a, b)
            if b < len(glued):
                problem = body(MULTIPART, [glued[:a], glued[a:b], glued[b:]])
                assert problem is not None and problem.kind == "ambiguous-multipart", (a, b)


@pytest.mark.parametrize(
    ("filename", "ok"),
    [
        ("گزارش\u200cها.pdf", True),  # a Persian report name: ZWNJ between joining letters
        ("ශ්\u200dරී ලංකාව.jpg", True),  # a Sinhala place name: ZWJ after the virama
        ("is\u200dAdmin.txt", False),
        ("a\u200cb.txt", False),
    ],
)
def test_upload_file_names_with_joiners_where_a_script_needs_them(filename: str, ok: bool) -> None:
    """FILENAME allows ZWNJ and ZWJ in RFC 5892's contexts (A.1/A.2), refuses them
    elsewhere."""
    params = b'name="f"; filename="' + filename.encode() + b'"'
    problem = body(MULTIPART, [multipart((disposition(params), b"data"))])
    assert (problem is None) == ok, problem
    if not ok:
        assert problem is not None and problem.kind == "joiner"


def test_truncated_multipart_is_refused() -> None:
    data = multipart((disposition(b'name="a"'), b"1"))
    problem = body(MULTIPART, [data[:-10]])
    assert problem is not None and problem.kind == "malformed"
    problem = body(MULTIPART, [b"garbage without any boundary"])
    assert problem is not None and problem.kind == "malformed"


# -- properties: chunking never changes the verdict, and the verdict is the oracle's ------

_texts = st.text(
    st.characters(codec=None, exclude_categories=()),
    max_size=12,
)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | _texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_texts, inner, max_size=4),
    max_leaves=12,
)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    return []


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(value=_json_values, ascii_only=st.booleans(), data=st.data())
def test_json_verdict_is_json_loads_then_inspect(
    value: object, ascii_only: bool, data: st.DataObject
) -> None:
    """Oracle: the stdlib parses the body; the body passes iff every string (keys too)
    passes the TEXT policy -- lone surrogates from escapes included -- whatever the
    chunking."""
    if not ascii_only:
        assume(not any(0xD800 <= ord(c) <= 0xDFFF for s in _strings(value) for c in s))
    raw = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8")
    expected = all(inspect(s, profiles.TEXT).ok for s in _strings(json.loads(raw)))
    chunks = data.draw(chunkings(raw))
    problem = body(JSON, chunks)
    assert (problem is None) == expected, (raw, problem)


@given(
    value=_json_values,
    outside=st.text(
        st.sampled_from(["\u202e", "\u00a0", "é", "\u2028", "\ufeff", "\U000e0041"]),
        min_size=1,
        max_size=3,
    ),
    where=st.integers(min_value=0),
    data=st.data(),
)
def test_json_with_a_character_past_ascii_between_tokens_is_refused(
    value: object, outside: str, where: int, data: st.DataObject
) -> None:
    """Outside the strings of a declared JSON body only JSON whitespace may stand (RFC
    8259 §2): json.loads refuses anything else, but aiohttp's and BlackSheep's text() hand
    it to the app, so a character >= 0x80 there is refused, however the body is chunked;
    a UTF-8 byte order mark at the very start, which json.loads(bytes) skips, passes."""
    text = json.dumps(value, ensure_ascii=True)
    cuts = [i for i in range(len(text) + 1) if _outside_strings(text, i)]
    at = cuts[where % len(cuts)]
    assume(not (at == 0 and outside[0] == "\ufeff"))  # a byte order mark: json.loads skips it
    raw = (text[:at] + outside + text[at:]).encode("utf-8")
    problem = body(JSON, data.draw(chunkings(raw)))
    assert problem is not None and problem.part == "json", (raw, problem)
    with_bom, without = body(JSON, [b"\xef\xbb\xbf" + text.encode()]), body(JSON, [text.encode()])
    assert (with_bom and with_bom.kind) == (without and without.kind), (text, with_bom)


def _outside_strings(text: str, i: int) -> bool:
    """Whether ``text[i]`` is outside every string of the JSON ``text`` (escaped quotes
    taken by their backslash)."""
    inside, escaped = False, False
    for c in text[:i]:
        if inside and escaped:
            escaped = False
        elif inside and c == "\\":
            escaped = True
        elif c == '"':
            inside = not inside
    return not inside


_escape_heavy = st.text(st.sampled_from(['"', "\\", "a", "é", "\u202e", "\n", "/"]), max_size=8)


@given(
    strings=st.lists(_escape_heavy, min_size=1, max_size=6),
    ascii_only=st.booleans(),
    data=st.data(),
)
def test_json_escaped_quotes_and_backslashes_delimit_nothing(
    strings: list[str], ascii_only: bool, data: st.DataObject
) -> None:
    """Escaped quotes and backslashes delimit no string: strings full of them, next to
    text the policy refuses, get the oracle's verdict whatever the chunking."""
    raw = json.dumps({s: strings for s in strings}, ensure_ascii=ascii_only).encode()
    expected = all(inspect(s, profiles.TEXT).ok for s in strings)
    problem = body(JSON, data.draw(chunkings(raw)))
    assert (problem is None) == expected, (raw, problem)


@pytest.mark.parametrize("content_type", [b"text/plain", b"application/x-www-form-urlencoded"])
def test_json_by_content_reads_the_last_gathered_bytes(content_type: bytes) -> None:
    """Bytes gathered since the check last looked (up to a quarter of a body sent in
    small chunks) are read as JSON at close too: the escape in the tail is refused."""
    raw = b'{"' + b"a" * 54 + b'": 1, "b": "\\u202e"}'
    assert body(content_type, [raw[i : i + 1] for i in range(len(raw))]) is not None


_by_content_pieces = st.lists(
    st.sampled_from(
        [
            *(b"a", b'"', b"\\", b"\\u", b"\\ud800", b" ", b"\x14"),  # JSON, escapes
            *(b"\xed\xa0\x80", b"\xed\xb0", b"\xff", b"\x9b", b"\xc3"),  # surrogates, bad
            *(b"\xc3\xa9", b"\xe2\x80\xae"),  # well-formed UTF-8
        ]
    ),
    max_size=10,
)


def _by_content_kind(chunks: list[bytes], typed: bool) -> str | None:
    """The kind of problem a body read as JSON by content (untyped, or text/plain) gets
    when sent as ``chunks``, or None."""
    headers = [(b"content-type", b"text/plain; charset=utf-8")] if typed else []
    problem, found = check_head(P, b"/", b"", headers)
    assert problem is None
    check = body_check(P, found)
    for chunk in chunks:
        problem = problem or check.feed(chunk)
    problem = problem or check.close()
    return None if problem is None else problem.kind


@given(pieces=_by_content_pieces, typed=st.booleans(), data=st.data())
def test_json_by_content_verdict_does_not_depend_on_chunking(
    pieces: list[bytes], typed: bool, data: st.DataObject
) -> None:
    """A body read as JSON by content (untyped, or text/plain) counts as JSON only if it
    decodes as json.loads decodes bytes ("surrogatepass": an encoded surrogate reads);
    whatever the chunking -- an encoded surrogate followed by an invalid byte in the same
    chunk, or by a second encoded surrogate, included."""
    raw = b'{"k": "' + b"".join(pieces)
    whole = _by_content_kind([raw], typed)
    assert _by_content_kind(data.draw(chunkings(raw)), typed) == whole
    assert _by_content_kind([raw[i : i + 1] for i in range(len(raw))], typed) == whole
    try:
        raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:  # no JSON to json.loads: the text check alone judges it
        assert whole is None or typed, (raw, whole)
    else:
        if b"\xed\xa0\x80" in raw:
            assert whole is not None, raw


_WIDE = ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "utf-16", "utf-32", "utf-8-sig")


@given(
    value=_json_values,
    ascii_only=st.booleans(),
    encoding=st.sampled_from(_WIDE),
    lead=st.sampled_from(["", " ", "\r\n", "\t "]),
    label=st.sampled_from([b"application/octet-stream", b"application/xml", TEXT]),
    data=st.data(),
)
def test_json_by_content_in_every_encoding_json_loads_detects(
    value: object, ascii_only: bool, encoding: str, lead: str, label: bytes, data: st.DataObject
) -> None:
    """Oracle: ``json.loads`` of the bytes (which finds UTF-16 and UTF-32 by where the
    zero bytes are, BOM or none), then every string (keys too) inspected: a body not
    declared JSON passes only if they all pass, whatever the chunking (a UTF-16 body is
    refused anyway when labelled text: its zero bytes are NULs there)."""
    raw = (lead + json.dumps(value, ensure_ascii=ascii_only)).encode(encoding, "surrogatepass")
    expected = all(inspect(s, profiles.TEXT).ok for s in _strings(json.loads(raw)))
    problem = body(label, data.draw(chunkings(raw)))
    if label != TEXT or encoding == "utf-8-sig":
        assert (problem is None) == expected, (raw, problem)
    elif not expected:
        assert problem is not None, raw
    assert (body(label, [raw[i : i + 1] for i in range(len(raw))]) is None) == (problem is None)


def test_json_by_content_reads_only_what_starts_a_json_text() -> None:
    """A UTF-16 or UTF-32 reading starts, as the UTF-8 one, only at '{', '[' or '"'
    after whitespace: a binary body with zero bytes that spells no JSON text passes."""
    for raw in (
        "1, \u202e".encode("utf-16-le"),
        b"\x00\x00\x01\x00" + "\u202e".encode("utf-32-be"),
    ):
        assert body(b"application/octet-stream", [raw]) is None, raw
    raw = '\t["\u202e"]'.encode("utf-16-be")
    assert body(b"application/octet-stream", [raw[:1], raw[1:3], raw[3:]]).kind == "bidi-control"


_mp_texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=8) | st.sampled_from(
    ["\u202e", "\x00", "\U000e0041", "é 日本", "\x1b[2J"]
)
_msgpack_values = st.recursive(
    st.none() | st.integers(-(2**63), 2**64 - 1) | st.floats() | st.binary(max_size=4) | _mp_texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_mp_texts, inner, max_size=3),
    max_leaves=6,
)


def _msgpack_strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_msgpack_strings(k), *_msgpack_strings(v))]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _msgpack_strings(v)]
    return []


@given(
    value=_msgpack_values,
    label=st.sampled_from([b"application/octet-stream", b"application/x-msgpack", TEXT]),
    data=st.data(),
)
def test_msgpack_by_content_verdict_is_msgspec_then_inspect(
    value: object, label: bytes, data: st.DataObject
) -> None:
    """Oracle: msgspec decodes the body (Litestar's request.msgpack()); a body not
    declared JSON whose first byte starts a map, array or string passes only if every
    string passes the policy, whatever the chunking (labelled text, the text check may
    refuse it first)."""
    msgspec = pytest.importorskip("msgspec")
    raw = msgspec.msgpack.encode(value)
    assume(raw[0] in _msgpack_first())
    expected = all(inspect(s, profiles.TEXT).ok for s in _msgpack_strings(value))
    problem = body(label, data.draw(chunkings(raw)))
    if label != TEXT:
        assert (problem is None) == expected, (raw, problem)
    elif not expected:
        assert problem is not None, raw


@given(raw=st.binary(min_size=1, max_size=40), data=st.data())
def test_what_msgspec_reads_from_a_passed_body_was_judged(raw: bytes, data: st.DataObject) -> None:
    """Differential over any bytes: a body the middleware passes gives msgspec's
    MessagePack decoder only strings the policy passes; chunking changes nothing."""
    msgspec = pytest.importorskip("msgspec")
    raw = bytes([data.draw(st.sampled_from(sorted(_msgpack_first())))]) + raw
    problem = body(b"application/octet-stream", [raw])
    assert (body(b"application/octet-stream", data.draw(chunkings(raw))) is None) == (
        problem is None
    )
    if problem is None:
        try:
            value = msgspec.msgpack.decode(raw)
        except msgspec.DecodeError:
            return
        assert all(inspect(s, profiles.TEXT).ok for s in _msgpack_strings(value)), raw


def _msgpack_first() -> frozenset[int]:
    from sanitizer.web import _body, _msgpack

    assert _body._MSGPACK_FIRST == _msgpack.FIRST  # one fact, held equal
    return _msgpack.FIRST


def test_msgpack_with_too_many_values_is_refused_as_ambiguous() -> None:
    from sanitizer.web._msgpack import MAX_VALUES

    raw = b"\xdd" + (MAX_VALUES + 1).to_bytes(4, "big") + b"\x01" * (MAX_VALUES + 1)
    problem = body(b"application/octet-stream", [raw])
    assert problem is not None and problem.kind == "ambiguous-body"


@given(data=st.data(), raw=attack_bytes() | st.text(max_size=20).map(str.encode))
def test_text_body_verdict_is_inspect_on_the_whole(data: st.DataObject, raw: bytes) -> None:
    raw = data.draw(st.sampled_from([raw, b"ok " + raw, raw + b" ok", b"\xe6\x97\xa5" + raw]))
    report = inspect(raw, profiles.TEXT)
    problem = body(TEXT, data.draw(chunkings(raw)))
    assert (problem is None) == report.ok
    if problem is not None:
        assert problem.offset == report.rejections[0].start


_fields = st.lists(
    st.tuples(st.binary(max_size=6) | attack_bytes(2), st.binary(max_size=6) | attack_bytes(2)),
    max_size=5,
)


@given(fields=_fields, data=st.data())
def test_form_body_verdict_is_per_field_inspect(
    fields: list[tuple[bytes, bytes]], data: st.DataObject
) -> None:
    raw = "&".join(f"{quote_from_bytes(k)}={quote_from_bytes(v)}" for k, v in fields).encode()
    expected = all(
        inspect(unquote_to_bytes(k), profiles.SINGLE_LINE).ok
        and inspect(unquote_to_bytes(v), profiles.TEXT).ok
        for k, v in fields
    )
    problem = body(FORM, data.draw(chunkings(raw)))
    assert (problem is None) == expected, (raw, problem)
    assert (head(query=raw) is None) == expected  # the query string: same reading


_part_values = st.binary(max_size=8) | attack_bytes(2) | st.text(max_size=6).map(str.encode)


@given(
    fields=st.lists(
        st.tuples(_part_values, st.none() | _part_values, _part_values), min_size=1, max_size=3
    ),
    data=st.data(),
)
def test_multipart_verdict_does_not_depend_on_chunking(
    fields: list[tuple[bytes, bytes | None, bytes]], data: st.DataObject
) -> None:
    parts = []
    for name, filename, content in fields:
        params = b'name="' + name.replace(b'"', b"") + b'"'
        if filename is not None:
            params += b'; filename="' + filename.replace(b'"', b"") + b'"'
        parts.append((disposition(params.replace(b"\r", b"").replace(b"\n", b"")), content))
    raw = multipart(*parts)
    assume(BOUNDARY not in b"".join(c for _, _, c in fields))
    whole = body(MULTIPART, [raw])
    split = body(MULTIPART, data.draw(chunkings(raw)))
    assert (whole is None) == (split is None), (raw, whole, split)
    if whole is not None and split is not None:
        assert (whole.kind, whole.where, whole.offset) == (split.kind, split.where, split.offset)


@given(
    st.binary()
    | st.lists(st.sampled_from([b"%", b"\\", b"x", b"4", b"1", b"F", b"g", b"\xff"])).map(b"".join)
)
def test_percent_decode_is_unquote_to_bytes(data: bytes) -> None:
    from sanitizer.web import _percent

    assert _percent.percent_decode(data) == unquote_to_bytes(data)
    assert _percent._percent_decode_py(data) == unquote_to_bytes(data)  # without the C runner
    form = unquote_to_bytes(data.replace(b"+", b" "))
    assert _percent.form_decode(data) == form == _percent._form_decode_py(data)


@given(raw=attack_bytes() | st.text(max_size=12).map(str.encode), data=st.data())
def test_utf8_stream_is_one_shot_decoding(raw: bytes, data: st.DataObject) -> None:
    """Chunked, the JSON body's decoder (the core's IncrementalDecoder, stopping at the
    first error) gives the text, or the first error with the same offset and kind, that
    decoding the whole body at once gives."""
    from sanitizer import IncrementalDecoder, find_errors

    stream, text, error = IncrementalDecoder(), "", None
    chunks = data.draw(chunkings(raw))
    for i, chunk in enumerate(chunks):
        piece, errs = stream.feed(chunk, final=i == len(chunks) - 1, limit=1)
        text, error = text + piece, errs[0] if errs else None
        if error is not None:
            break
    if not chunks:
        text, errs = stream.feed(b"", final=True, limit=1)
        error = errs[0] if errs else None
    errors = find_errors(raw)
    if not errors:
        assert error is None and text == raw.decode("utf-8")
    else:
        assert error is not None
        assert (error.stream_start, error.kind) == (errors[0].start, errors[0].kind)
        assert error.object[error.start : error.end] == errors[0].sequence


# -- the C fast path of check_head passes nothing the full check refuses ------------------

_bits = st.sampled_from(
    [
        b"a",
        b"Z",
        b"0",
        b" ",
        b"+",
        b"%",
        b"%41",
        b"%C3%A9",
        b"%C0%AE",
        b"%E2%80%AE",
        b"%0A",
        b"&",
        b"=",
        b";",
        b'"',
        b".",
        b"/",
        b"\t",
        b"\x00",
        b"\x1b",
        "é".encode(),
        b"\xc0\xae",
        b"\xed\xa0\x80",
        "\u202e".encode(),
        "\u200b".encode(),
        "\ufeff".encode(),
        b"\xff",
    ]
)
_values = st.lists(_bits | attack_bytes(1), max_size=6).map(b"".join)
_header_names = st.sampled_from(
    [
        b"user-agent",
        b"accept",
        b"cookie",
        b"Cookie",
        b"content-type",
        b"Content-Type",
        b"content-length",
        b"transfer-encoding",
        b"content-encoding",
        b"x-a",
        b"bad name",
        b"",
    ]
)
_content_types = st.sampled_from(
    [
        b"application/json",
        b"text/plain; charset=utf-8",
        b"text/plain; charset=utf-7",
        b"multipart/form-data; boundary=abc",
        b"application/x-www-form-urlencoded",
        b"image/png",
        b"text/plain; charset*=utf-8''x",
        b"a, b",
        b"application/problem+json",
    ]
)


@settings(max_examples=5 * settings().max_examples)  # a rare-case search: 5x the profile
@given(
    path=st.lists(_bits, max_size=5).map(lambda p: b"/" + b"".join(p)),
    query=_values,
    headers=st.lists(
        st.tuples(_header_names, _values | _content_types | st.sampled_from([b"12", b"0"])),
        max_size=5,
    ),
    report_only=st.booleans(),
)
def test_fast_head_passes_only_what_the_full_check_passes(
    path: bytes, query: bytes, headers: list[tuple[bytes, bytes]], report_only: bool
) -> None:
    from sanitizer.web import _compiled_web, _head

    compiled = _compiled_web.compile_web_policy(P.replace(report_only=report_only))
    fast = _head.fast_head(compiled, path, query, headers)
    full = _head.check_head_fully(compiled, path, query, headers, False)
    if fast is not None:
        assert full == (None, fast), (path, query, headers)


# Clean header fields that the framing reads, each a case to get right.
_FRAMING_FIELDS = [
    *((b"Content-Length", v) for v in (b"12", b" 12 ", b"0", b"00", b"", b"1_0", b"+1")),
    *((b"content-length", v) for v in (b"-1", b"1 2", b"\t7\x0c", b"9" * 30)),
    *((b"Content-Encoding", v) for v in (b"identity", b" IDENTITY ", b"", b"gzip")),
    (b"content-encodinG", b"x-identity"),
    (b"TRANSFER-ENCODING", b"chunked"),
    *((b"cookie", v) for v in (b"a=1; b=caf\xc3\xa9", b'a="1"', b"a\\b", b"a=1\nb")),
    (b"content-typ", b"a"),
    *((b"Content-Type", v) for v in (b"application/json", b"text/plain", b"image/png")),
    (b"content-type", b"application/x-www-form-urlencoded; charset=utf-8"),
    (b"accept", b"*/*"),
    (b"user-agent", "Zoë".encode()),
    *((b"Authorization", v) for v in (b"Basic YWxpY2U6eA==", b" bAsIc x", b"Bearer a.b-c_d")),
    *((b"authorization", v) for v in (b"Digest username*=UTF-8''x", b"basi", b"\tbasic")),
    (b"authorizatio", b"Basic YWxpY2U6eA=="),
]
_framing_fields = st.sampled_from(_FRAMING_FIELDS)
_clean_values = st.sampled_from([b"", b"a", "café".encode(), b"q=caf%C3%A9+x&b=%41"])


@settings(max_examples=5 * settings().max_examples)
@given(  # mostly clean values, so that both sides get past the value checks
    path=_clean_values.map(lambda v: b"/" + v) | st.lists(_bits, max_size=5).map(b"/".join),
    query=_clean_values | _values,
    headers=st.lists(
        _framing_fields | st.tuples(_header_names, _values | _content_types), max_size=5
    ),
    limit=st.sampled_from([None, 11, 1 << 20]),
)
def test_fast_head_in_c_answers_as_its_python_twin(
    path: bytes, query: bytes, headers: list[tuple[bytes, bytes]], limit: int | None
) -> None:
    """webhead.c's web_head (one C call) against fast_head_py (the same steps, in Python):
    the same Head, or both not sure."""
    from sanitizer.web import _compiled_web, _head

    if _head._web_head is None:
        pytest.skip("no C extension (or one built without webhead.c)")
    compiled = _compiled_web.compile_web_policy(P.replace(max_body_size=limit))
    expected = _head.fast_head_py(compiled, path, query, headers)
    assert _head.fast_head(compiled, path, query, headers) == expected, (path, query, headers)


def test_fast_head_in_c_reads_every_pair_of_framing_fields_as_its_python_twin() -> None:
    """Exhaustive over the framing cases, alone and in every ordered pair."""
    from sanitizer.web import _compiled_web, _head

    if _head._web_head is None:
        pytest.skip("no C extension (or one built without webhead.c)")
    # TEXT headers: line breaks and form feeds pass them, not the SINGLE_LINE cookies
    text_headers = P.replace(max_body_size=11, headers=profiles.TEXT)
    for policy in (P.replace(max_body_size=None), text_headers):
        compiled = _compiled_web.compile_web_policy(policy)
        assert compiled.fast_head_args is not None
        for a in _FRAMING_FIELDS:
            for headers in [[a], *([a, b] for b in _FRAMING_FIELDS)]:
                expected = _head.fast_head_py(compiled, b"/a", b"q=caf%C3%A9", headers)
                assert _head.fast_head(compiled, b"/a", b"q=caf%C3%A9", headers) == expected, (
                    headers
                )


def test_fast_head_in_c_is_not_sure_of_unexpected_types() -> None:
    """Anything but a list of (bytes, bytes) tuples and bytes path and query is left to
    the full check (which reads bytearray and memoryview too), never an error."""
    from sanitizer.web import _compiled_web, _head

    if _head._web_head is None:
        pytest.skip("no C extension (or one built without webhead.c)")
    compiled = _compiled_web.compile_web_policy(P)
    pair = (b"accept", b"*/*")
    for path, query, headers in [
        (bytearray(b"/"), b"", [pair]),
        (b"/", memoryview(b"q=1"), [pair]),
        (b"/", b"", [[b"accept", b"*/*"]]),
        (b"/", b"", [(b"accept", bytearray(b"*/*"))]),
        (b"/", b"", [(b"accept", b"*/*", b"")]),
        (b"/", b"", [("accept", "*/*")]),
    ]:
        assert _head.fast_head(compiled, path, query, headers) is None  # type: ignore[arg-type]
    assert _head.fast_head(compiled, b"/", b"", [pair]) == _head.Head()


def test_fast_head_is_taken_for_ordinary_requests() -> None:
    from sanitizer.web import _compiled_web, _head

    if _head._clean is None:
        pytest.skip("no C runner: the fast path is off")
    headers = [
        (b"user-agent", b"Mozilla/5.0"),
        (b"cookie", b"a=cafe; theme=dark"),
        (b"content-type", b"application/json"),
        (b"content-length", b"12"),
    ]
    compiled = _compiled_web.compile_web_policy(P)
    fast = _head.fast_head(compiled, b"/search", b"q=caf%C3%A9+cr%C3%A8me", headers)
    assert fast == _head.Head("json", b"", 12, True)


def test_bytearray_values_are_read_like_bytes() -> None:
    headers = [(b"cookie", bytearray(b"a=\xc0\xae"))]
    problem = check_head(P, bytearray(b"/a%41"), bytearray(b"q=%41"), headers)[0]  # type: ignore[arg-type]
    assert problem is not None and (problem.part, problem.kind) == ("cookie", "overlong")
    assert check_head(P, bytearray(b"/a%41"), bytearray(b"q=%41"), [])[0] is None  # type: ignore[arg-type]
    headers = [(b"content-type", bytearray(b"application/json")), (b"x", memoryview(b"\xc0"))]
    problem = check_head(P, b"/", b"", headers)[0]  # type: ignore[arg-type]
    assert problem is not None and problem.kind == "overlong"  # C0 only starts overlongs


@pytest.mark.parametrize(
    "raw",
    [
        b'{"k": "\\ud800"\xed\xa0\x80',  # a refused escape, then an encoded surrogate
        b'{"k": "\x14"\xed\xa0\x80',  # a control in a string, then the same
        b'{"k": "\xe2\x80\xae"\xed\xa0\x80',  # RLO in a string, then the same
    ],
)
def test_json_by_content_reports_the_first_problem_whatever_the_chunking(raw: bytes) -> None:
    """The text before an ill-formed sequence is read as JSON before the sequence is
    reported: a problem in a string the body closed earlier comes first, sent whole or
    byte by byte."""
    whole = _by_content_kind([raw], False)
    assert whole is not None and whole != "surrogate"
    assert _by_content_kind([raw[i : i + 1] for i in range(len(raw))], False) == whole


# -- counted work on a refusal ----------------------------------------------------------


@pytest.mark.parametrize(
    ("encoded", "culprit"),
    [
        (b"a=%E2%80%AE", b"\xe2\x80\xae"),
        (b"x=1&a=b%E2%80%AEc&z=2", b"b\xe2\x80\xaec"),
        (b"x=1&b%E2%80%AE+=1", b"b\xe2\x80\xae "),  # a name
        (b"q=caf%C3%A9&a=%E2%80%AE", b"\xe2\x80\xae"),  # after a value that passes
    ],
)
@pytest.mark.parametrize("part", ["form", "query"])
def test_refused_field_is_decoded_once_and_judged_once(
    monkeypatch: pytest.MonkeyPatch, encoded: bytes, culprit: bytes, part: str
) -> None:
    # A run of fields is decoded and passed at once when it can be; one that fails is
    # checked field by field from that same decoding, and only the value the fast paths
    # cannot pass goes through the policy engine, once (it used to be three engine runs
    # and three form_decode calls for one refused field).
    import sanitizer._policy as policy_module
    from sanitizer.web import _percent

    runs: list[object] = []
    real_run = policy_module.Run

    def counted_run(data: object, *args: object, **kwargs: object) -> object:
        runs.append(data)
        return real_run(data, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(policy_module, "Run", counted_run)
    decoded: list[bytes] = []
    if _percent._c_unquote is not None:
        c_unquote = _percent._c_unquote
        monkeypatch.setattr(
            _percent, "_c_unquote", lambda d, plus: decoded.append(d) or c_unquote(d, plus)
        )
    else:
        form_py = _percent._form_decode_py
        monkeypatch.setattr(_percent, "_form_decode_py", lambda d: decoded.append(d) or form_py(d))
    if part == "form":
        problem, head = check_head(DEFAULT, b"/", b"", [(b"content-type", FORM)])
        assert problem is None
        check = body_check(DEFAULT, head)
        problem = check.feed(encoded) or check.close()
    else:
        problem = check_head(DEFAULT, b"/", encoded, [])[0]
    assert problem is not None and problem.kind == "bidi-control"
    # The policy engine: once on the refused value, never on a whole run (without C, the
    # fast path passes ASCII only, so a non-ASCII value that passes is judged by it too).
    assert runs.count(culprit) == 1 and len(set(runs)) == len(runs)
    assert all(b"&" not in run for run in runs)  # type: ignore[operator]
    # each byte decoded at most once (a body's run ends before the '&' it was cut at)
    assert all(d in encoded for d in decoded)
    assert sum(len(d) for d in decoded) <= len(encoded)


_TOKENS = [b"a", b"=", b"&", b"+", b"%", b"%2", b"%26", b"%3D", b"%3d", b"%25", b"%zz", b"4"]
_ENCODED = st.lists(
    st.sampled_from([*_TOKENS, b"F", b"%E2%80%AE", b"%C3%A9", b"%C0%AE", b"\xc3\xa9"]),
    max_size=12,
).map(b"".join)


@given(_ENCODED)
def test_pairs_problem_from_the_decoded_run_is_the_field_by_field_one(data: bytes) -> None:
    # The decoded run is cut into fields where the raw one is, unless an escape spelled a
    # separator: the problem and the field count are those of decoding field by field.
    from sanitizer.web._compiled_web import compile_web_policy
    from sanitizer.web._percent import form_decode
    from sanitizer.web._value_checks import pairs_problem

    compiled = compile_web_policy(DEFAULT)
    args = (compiled, compiled.form, "form field", "form")
    assert pairs_problem(data, *args, 1, form_decode(data)) == pairs_problem(data, *args)
