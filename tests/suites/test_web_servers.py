"""The middleware under real servers: uvicorn (ASGI) and waitress (WSGI), each started once
for this module (tests/web/webservers.py) around the echo apps of tests/web/webapps.py.

Every request is written to a socket byte for byte (``http``/``send``): no client library
re-encodes, normalises or refuses the attack before the server sees it.  A request that
passes must reach the app exactly as sent -- path, query, the headers it carries and
the body, compared byte for byte with what the echo app received.  A refused request must
get the middleware's RFC 9457 answer (400, or 413 for size) with the expected ``part``
and ``kind``, and must not echo any of the offending bytes, escapes or strings.

Each case runs on both servers.  The ``*_report`` apps (report-only mode) must let every
refused case through unchanged.  The tests at the end are requests that other parsers
read differently from the middleware (found while writing these tests, then fixed).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote, unquote_to_bytes

import pytest

from sanitizer.web import DEFAULT, PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE
from tests.web import request_builder
from tests.web.request_builder import OCTETS, http, part
from tests.web.webservers import INTERFACE, Response, converse, send, serve

pytestmark = pytest.mark.servers

MiB = 1 << 20


@dataclass(frozen=True)
class Behaviour:
    """How a server differs, as observed (docs/web.md, "Servers")."""

    raw_path: bool  # the app gets the path as sent (raw_path, RAW_URI, REQUEST_URI)
    streams: bool  # the app is called after the head and reads the body as it arrives
    half_close: bool  # answers a request whose client has shut down its sending side
    utf8_target: bool = False  # passes well-formed UTF-8 bytes in the target to the app
    ascii_headers: bool = False  # hands the app "" for a header value with a byte >= 0x80


BEHAVIOUR = {
    "asgi": Behaviour(raw_path=True, streams=True, half_close=True),  # uvicorn (h11)
    "wsgi": Behaviour(raw_path=True, streams=False, half_close=True),  # waitress
    "hypercorn": Behaviour(raw_path=True, streams=True, half_close=True),
    # sync workers; WSGI read(n) blocks until n bytes (or the declared end) arrive
    "gunicorn": Behaviour(raw_path=True, streams=True, half_close=True),
    "granian-asgi": Behaviour(raw_path=True, streams=True, half_close=False, utf8_target=True),
    "granian-wsgi": Behaviour(
        raw_path=False, streams=True, half_close=False, utf8_target=True, ascii_headers=True
    ),
}
SERVERS = tuple(BEHAVIOUR)


@dataclass(frozen=True)
class Server:
    kind: str
    port: int

    @property
    def behaviour(self) -> Behaviour:
        return BEHAVIOUR[self.kind]

    @property
    def interface(self) -> str:
        return INTERFACE[self.kind]

    def send(self, request: bytes, timeout: float = 10.0, *, half_close: bool = True) -> Response:
        # granian drops a connection whose client half-closes before the answer: every
        # request here says Connection: close, so the server's close still ends the read.
        half_close = half_close and self.behaviour.half_close
        return send(self.port, request, timeout, half_close=half_close)


@pytest.fixture(scope="module", params=SERVERS)
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    kind: str = request.param
    with serve(kind, f"tests.web.webapps:{INTERFACE[kind]}") as port:
        yield Server(kind, port)


@pytest.fixture(scope="module", params=SERVERS)
def report_server(request: pytest.FixtureRequest) -> Iterator[Server]:
    kind: str = request.param
    with serve(kind, f"tests.web.webapps:{INTERFACE[kind]}_report") as port:
        yield Server(kind, port)


# -- cases ----------------------------------------------------------------------------------


Headers = tuple[tuple[bytes, bytes], ...]


@dataclass(frozen=True)
class Case:
    """One request, and either None (it passes) or the (part, kind) it is refused with."""

    target: bytes = b"/"
    headers: Headers = ()
    body: bytes = b""
    chunked: bool = False  # Transfer-Encoding: chunked, 7-byte chunks
    refused: tuple[str, str] | None = None
    attack: tuple[bytes, ...] = ()  # strings a refusal must not repeat (see evidence())

    def request(self, *, close: bool = True) -> bytes:
        method = "POST" if self.body or self.chunked else "GET"
        return http(
            method, self.target, list(self.headers), self.body, chunked=self.chunked, close=close
        )

    def evidence(self) -> set[bytes]:
        """What a refusal must not contain: the attack strings, every %XX escape of the
        request and every \\uXXXX escape of its body.  (Raw bytes >= 0x80 cannot appear:
        the refusal is checked to be ASCII.)"""
        values = b" ".join([self.target, *(v for _, v in self.headers), self.body])
        found = set(re.findall(rb"%[0-9A-Fa-f]{2}", values))
        found.update(re.findall(rb"\\u[0-9A-Fa-f]{4}", self.body))
        return found | set(self.attack)


def ok(
    id: str,
    target: bytes = b"/",
    headers: Headers = (),
    body: bytes = b"",
    *,
    chunked: bool = False,
) -> Any:
    """A case that passes: a ``pytest.param`` with a readable id."""
    return pytest.param(Case(target, headers, body, chunked), id=id)


def bad(
    id: str,
    part: str,
    kind: str,
    target: bytes = b"/",
    headers: Headers = (),
    body: bytes = b"",
    *,
    chunked: bool = False,
    attack: tuple[bytes, ...] = (),
) -> Any:
    """A case refused with ``part`` and ``kind``."""
    return pytest.param(Case(target, headers, body, chunked, (part, kind), attack), id=id)


def chunked_too(params: list[Any]) -> list[Any]:
    """Each body case as sent, and again with Transfer-Encoding: chunked in 7-byte chunks,
    so escapes and multibyte sequences straddle chunk boundaries."""
    out = list(params)
    for p in params:
        case: Case = p.values[0]
        out.append(pytest.param(replace(case, chunked=True), id=p.id + "-chunked"))
    return out


def pct(text: str) -> bytes:
    return quote(text, safe="").encode("ascii")


GREEK, CJK, EMOJI, ARABIC = "καλημέρα", "日本語の東京", "😀", "مرحبا"
TEXT = f"Grüße, {GREEK}, {CJK}, {ARABIC} {EMOJI}"  # NFC, no controls: every policy passes it

# -- request line ---------------------------------------------------------------------------

PATH = [
    bad(
        "iis-2001-overlong-slash",
        "path",
        "overlong",
        b"/..%c0%af../..%c0%af../etc/passwd",
        attack=(b"etc/passwd", b"..%c0%af"),
    ),
    bad("overlong-dot-dot", "path", "overlong", b"/%C0%AE%C0%AE/"),
    bad("encoded-surrogate", "path", "surrogate", b"/%ED%A0%80"),
    bad("out-of-range", "path", "out-of-range", b"/%F4%90%80%80"),
    bad("five-byte-form", "path", "out-of-range", b"/%F8%88%80%80%80"),
    bad("nul", "path", "nul", b"/index.html%00.jpg", attack=(b"index.html",)),
    bad("crlf", "path", "line-break", b"/a%0D%0ASet-Cookie:%20x=1", attack=(b"set-cookie",)),
    bad("bidi-override", "path", "bidi-control", b"/invoice%E2%80%AEfdp.exe", attack=(b"fdp",)),
    bad("dot-segment-encoded", "path", "dot-segment", b"/%2e%2e/secret", attack=(b"secret",)),
    bad("dot-segment-raw", "path", "dot-segment", b"/static/../secret", attack=(b"secret",)),
    bad("dot-segment-backslash", "path", "dot-segment", b"/static/..%5Csecret"),
    ok("benign-multilingual", b"/caf%C3%A9/%E6%97%A5%E6%9C%AC"),
    ok("benign-dots-in-names", b"/.well-known/a..b/c.d"),
]

QUERY = [
    bad("value-overlong", "query", "overlong", b"/s?q=%C0%AE%C0%AE%C0%AF"),
    bad("value-surrogate", "query", "surrogate", b"/s?lang=en&q=%ED%A0%80"),
    bad("value-out-of-range", "query", "out-of-range", b"/s?q=%F4%90%80%80"),
    bad("value-truncated-at-end", "query", "incomplete", b"/s?q=%E6%97"),
    bad("value-truncated-mid", "query", "truncated", b"/s?q=%E6%97x&r=1"),
    bad("value-bidi", "query", "bidi-control", b"/s?q=abc%E2%80%AEdef"),
    bad("value-bidi-plus", "query", "bidi-control", b"/s?q=a+%E2%80%AE+b"),
    bad("name-overlong", "query", "overlong", b"/s?%C0%AE=1"),
    bad("name-surrogate", "query", "surrogate", b"/s?a=1&%ED%A0%80=2"),
    bad("name-out-of-range", "query", "out-of-range", b"/s?%F4%90%80%80=1"),
    bad("name-truncated", "query", "incomplete", b"/s?a=1&%E6%97=2"),
    bad("name-line-break", "query", "line-break", b"/s?a%0D%0Ab=1"),
    bad("value-terminal-escape", "query", "control", b"/s?q=%1B%5B2J%1B%5B31mred"),
    ok("plus-is-space", b"/s?q=a+b"),
    ok("encoded-plus", b"/s?q=a%2Bb"),
    ok("value-line-break", b"/s?q=line1%0D%0Aline2"),  # a textarea sent by GET
    ok("greek", b"/s?q=" + pct(GREEK)),
    ok("cjk", b"/s?q=" + pct(CJK)),
    ok("emoji", b"/s?q=%F0%9F%98%80"),
    ok("arabic", b"/s?q=" + pct(ARABIC)),
    ok("multilingual-names-and-values", b"/s?" + pct(GREEK) + b"=" + pct(CJK) + b"&e=" + pct(TEXT)),
]

# -- headers and cookies --------------------------------------------------------------------

HEADER = [
    bad("raw-overlong", "header", "overlong", headers=((b"X-Test", b"\xc0\xae"),)),
    bad("raw-surrogate", "header", "surrogate", headers=((b"X-Test", b"\xed\xa0\x80"),)),
    bad("raw-bidi", "header", "bidi-control", headers=((b"X-Test", b"abc\xe2\x80\xaedef"),)),
    bad("user-agent-overlong", "header", "overlong", headers=((b"User-Agent", b"x/\xc0\xaf"),)),
    # docs/web.md: obs-text in Latin-1 is refused by default (headers=None allows it)
    bad("latin-1", "header", "truncated", headers=((b"X-Test", b"caf\xe9 au lait"),)),
    # obs-text, however well-formed: every framework reads it as Latin-1 ("Û" is "Ã" + CSI)
    bad("raw-utf8", "header", "ambiguous-header", headers=((b"X-Test", b"caf\xc3\xa9"),)),
    bad("raw-utf8-csi", "header", "ambiguous-header", headers=((b"X-Test", "Û[2J".encode()),)),
    ok("ascii", headers=((b"X-Test", b"Mozilla/5.0 (Linux; Android 14) Chrome/126.0"),)),
]

COOKIE = [
    ok("percent-encoded", headers=((b"Cookie", b"sid=abc; name=caf%C3%A9"),)),
    ok("json", headers=((b"Cookie", b'prefs={"theme":"dark"}; sid=abc'),)),
    # Litestar percent-decodes cookie values
    bad("percent-overlong", "cookie", "overlong", headers=((b"Cookie", b"sid=a; n=%C0%AE"),)),
    bad("percent-bidi", "cookie", "bidi-control", headers=((b"Cookie", b"c=%E2%80%AE"),)),
    bad("raw-overlong", "cookie", "overlong", headers=((b"Cookie", b"sid=abc; name=\xc0\xae"),)),
    bad("quoted-surrogate", "cookie", "surrogate", headers=((b"Cookie", b'sid="\xed\xa0\x80"'),)),
    bad(
        "percent-line-break",
        "cookie",
        "line-break",
        headers=((b"Cookie", b'sid="a\\015\\012Set-Cookie: admin=1"'),),  # escapes undone
        attack=(b"admin",),
    ),
    ok("percent-utf8", headers=((b"Cookie", b"a=caf%C3%A9"),)),
    bad("raw-utf8", "cookie", "ambiguous-cookie", headers=((b"Cookie", "a=Ņ".encode()),)),
]

# -- bodies ---------------------------------------------------------------------------------

FORM_TYPE = ((b"Content-Type", b"application/x-www-form-urlencoded"),)

FORM = chunked_too(
    [
        bad("value-overlong", "form", "overlong", b"/f", FORM_TYPE, b"user=al&p=..%C0%AF..%C0%AF"),
        bad("value-raw-overlong", "form", "overlong", b"/f", FORM_TYPE, b"user=al&p=..\xc0\xaf"),
        bad("name-surrogate", "form", "surrogate", b"/f", FORM_TYPE, b"a=1&%ED%A0%80=2"),
        bad("value-bidi", "form", "bidi-control", b"/f", FORM_TYPE, b"c=abc%E2%80%AEdef"),
        bad("value-truncated-at-end", "form", "incomplete", b"/f", FORM_TYPE, b"a=1&q=%E6%97"),
        ok(
            "multilingual",
            b"/f",
            FORM_TYPE,
            b"greek=%s&cjk=%s&emoji=%%F0%%9F%%98%%80&arabic=%s&plus=a+b"
            % (pct(GREEK), pct(CJK), pct(ARABIC)),
        ),
        # Starlette and Litestar read raw form bytes as Latin-1 ("Ņ" is "Å" + NEL)
        bad("raw-utf8", "form", "ambiguous-form", b"/f", FORM_TYPE, b"text=" + TEXT.encode()),
    ]
)

BOUNDARY = b"----sanitizer-test-boundary"
MULTIPART_TYPE = ((b"Content-Type", b"multipart/form-data; boundary=" + BOUNDARY),)


multipart = functools.partial(request_builder.multipart, boundary=BOUNDARY)

MULTIPART = chunked_too(
    [
        bad(
            "filename-raw-overlong",
            "multipart",
            "overlong",
            b"/u",
            MULTIPART_TYPE,
            multipart(part(b'name="file"; filename="..\xc0\xaf..\xc0\xafpasswd"', b"x", OCTETS)),
            attack=(b"passwd",),
        ),
        bad(
            "filename-traversal",
            "multipart",
            "path-separator",
            b"/u",
            MULTIPART_TYPE,
            multipart(part(b'name="file"; filename="../../etc/passwd"', b"x", OCTETS)),
            attack=(b"etc/passwd",),
        ),
        bad(
            "filename-star-overlong",
            "multipart",
            "overlong",
            b"/u",
            MULTIPART_TYPE,
            multipart(part(b"name=\"file\"; filename*=UTF-8''%C0%AE%C0%AE", b"x", OCTETS)),
        ),
        bad(
            "field-surrogate",
            "multipart",
            "surrogate",
            b"/u",
            MULTIPART_TYPE,
            multipart(part(b'name="a"', b"ok"), part(b'name="comment"', b"abc\xed\xa0\x80")),
        ),
        bad(
            "field-bidi",
            "multipart",
            "bidi-control",
            b"/u",
            MULTIPART_TYPE,
            multipart(part(b'name="comment"', b"invoice\xe2\x80\xaefdp.exe")),
            attack=(b"fdp",),
        ),
        bad(
            "field-name-overlong",
            "multipart",
            "overlong",
            b"/u",
            MULTIPART_TYPE,
            multipart(part(b'name="\xc0\xae"', b"x")),
        ),
        bad(
            "part-charset-utf-7",
            "multipart",
            "charset",
            b"/u",
            MULTIPART_TYPE,
            multipart(
                part(b'name="c"', b"+ADw-script+AD4-", b"Content-Type: text/plain; charset=utf-7")
            ),
            # what it spelled is echoed, escaped (tests/web/test_utf7.py)
        ),
        ok(
            "binary-file-and-japanese-field",
            b"/u",
            MULTIPART_TYPE,
            multipart(
                part(b'name="file"; filename="data.bin"', bytes(range(256)), OCTETS),
                part(b'name="comment"', "日本語のテキストです".encode()),
            ),
        ),
        ok(
            "utf8-filename-and-field",
            b"/u",
            MULTIPART_TYPE,
            multipart(
                part(b'name="file"; filename="' + "отчёт 東京 👋.txt".encode() + b'"', b"hi"),
                part(b'name="text"', TEXT.encode()),
            ),
        ),
    ]
)

JSON_TYPE = ((b"Content-Type", b"application/json"),)


def jbad(id: str, kind: str, body: bytes, *, chunked: bool = False) -> Any:
    return bad(id, "json", kind, b"/j", JSON_TYPE, body, chunked=chunked)


def jok(id: str, body: bytes, *, chunked: bool = False) -> Any:
    return ok(id, b"/j", JSON_TYPE, body, chunked=chunked)


JSON = [
    jbad("raw-overlong", "overlong", b'{"path": "..\xc0\xaf..\xc0\xafetc"}'),
    jbad("raw-surrogate", "surrogate", b'{"a": "\xed\xa0\x80"}'),
    jbad("escaped-lone-high", "lone-surrogate-escape", b'{"a": "\\ud800"}'),
    jbad("escaped-lone-high-then-ascii", "lone-surrogate-escape", b'{"a": "\\ud800\\u0041"}'),
    jbad("escaped-lone-low", "lone-surrogate-escape", b'{"a": "\\udc00"}'),
    jbad("escaped-bidi", "bidi-control", b'{"a": "\\u202e"}'),
    jbad("escaped-bidi-in-key", "bidi-control", b'{"\\u202E": 1}'),
    jbad("escaped-tag", "tag", b'{"a": "\\udb40\\udc41"}'),
    jbad("escaped-nul", "nul", b'{"a": "x\\u0000y"}'),
    jbad("utf-16le", "control", '{"a": "b"}'.encode("utf-16-le")),
    jbad("utf-16-with-bom", "invalid-byte", '{"a": "b"}'.encode("utf-16")),
    jbad("chunked-escaped-bidi", "bidi-control", b'{"a": "x\\u202e"}', chunked=True),
    jbad("chunked-lone-high", "lone-surrogate-escape", b'{"a": "xy\\ud83d"}', chunked=True),
    jbad("chunked-raw-overlong", "overlong", b'{"abc": "\xc0\xaf"}', chunked=True),
    bad(
        "suffix-json-escaped-bidi",
        "json",
        "bidi-control",
        b"/j",
        ((b"Content-Type", b"application/vnd.api+json"),),
        b'{"a": "\\u202e"}',
    ),
    bad(
        "charset-latin-1",
        "header",
        "charset",
        b"/j",
        ((b"Content-Type", b"application/json; charset=iso-8859-1"),),
        b'{"a": "caf\xe9"}',
    ),
    bad(
        "content-encoding-gzip",
        "header",  # a compressed body cannot be checked as it streams (docs/web.md)
        "content-encoding",
        b"/j",
        (*JSON_TYPE, (b"Content-Encoding", b"gzip")),
        b"\x1f\x8b\x08\x00",
    ),
    jok("escaped-pair", b'{"a": "\\ud83d\\ude00"}'),
    jok(
        "multilingual", json.dumps({"text": TEXT, CJK: [GREEK, EMOJI]}, ensure_ascii=False).encode()
    ),
    jok("multilingual-escaped", json.dumps({"text": TEXT, CJK: [GREEK]}).encode()),
    # 7-byte chunks: "\ud83d\ude00", "\u00e9" and the three-byte characters straddle chunks
    jok(
        "chunked-straddling",
        '{"emoji": "\\ud83d\\ude00", "t": "日本語 \\u00e9"}'.encode(),
        chunked=True,
    ),
]

TEXT_PLAIN = ((b"Content-Type", b"text/plain"),)

TEXT_BODY = [
    bad("bidi", "text", "bidi-control", b"/t", TEXT_PLAIN, b"abc\xe2\x80\xaedef"),
    # read as JSON by content (Starlette's request.json() parses any body)
    bad("json-escape", "json", "bidi-control", b"/t", TEXT_PLAIN, b'{"a": "\\u202e"}'),
    bad("untyped-json-escape", "json", "tag", b"/t", (), b'["\\udb40\\udc41"]'),
    bad("overlong", "text", "overlong", b"/t", TEXT_PLAIN, b"..\xc0\xaf..\xc0\xafetc"),
    bad(
        "chunked-surrogate",
        "text",
        "surrogate",
        b"/t",
        TEXT_PLAIN,
        b"abcdef\xed\xa0\x80",
        chunked=True,
    ),
    bad(
        "charset-utf-7",
        "header",  # the charset is judged with the headers, before any of the body
        "charset",
        b"/t",
        ((b"Content-Type", b"text/plain; charset=utf-7"),),
        b"+ADw-script+AD4-alert(1)+ADw-/script+AD4-",
        # what the body spelled is echoed, escaped (tests/web/test_utf7.py)
    ),
    ok(
        "charset-upper-case",
        b"/t",
        ((b"Content-Type", b"text/plain; charset=UTF-8"),),
        TEXT.encode(),
    ),
    ok(
        "charset-quoted", b"/t", ((b"Content-Type", b'text/plain; charset="utf-8"'),), TEXT.encode()
    ),
    ok(
        "charset-utf8-alias",
        b"/t",
        ((b"Content-Type", b"text/plain; charset=utf8"),),
        TEXT.encode(),
    ),
    ok("html-chunked", b"/t", ((b"Content-Type", b"text/html"),), TEXT.encode(), chunked=True),
]

ATTACK_BYTES = b"\xc0\xaf\xff\xfe\x00\xed\xa0\x80"

BINARY = [
    ok("octet-stream", b"/b", ((b"Content-Type", b"application/octet-stream"),), ATTACK_BYTES),
    ok("png", b"/b", ((b"Content-Type", b"image/png"),), b"\x89PNG\r\n\x1a\n" + ATTACK_BYTES),
    ok("untyped", b"/b", (), ATTACK_BYTES),  # not UTF-8: no reader parses it as JSON
    ok(
        "octet-stream-chunked",
        b"/b",
        ((b"Content-Type", b"application/octet-stream"),),
        ATTACK_BYTES * 3,
        chunked=True,
    ),
]


# -- assertions -----------------------------------------------------------------------------


def assert_passed(response: Response, case: Case, *, raw_path: bool = True) -> None:
    """200, and the echo app received exactly the path, query, headers and body sent
    (the path percent-decoded where the server gives only that: ``raw_path=False``)."""
    assert response.status == 200, response
    got = response.received()
    path, _, query = case.target.partition(b"?")
    assert got["path"] == (path if raw_path else unquote_to_bytes(path))
    assert got["query"] == query
    assert got["body"] == case.body
    for name, value in case.headers:
        assert (name.lower(), value) in got["headers"], name


def assert_refused(
    response: Response,
    part: str | None,
    kind: str | None,
    evidence: set[bytes],
    status: int = 400,
) -> None:
    """The middleware's problem+json, naming ``part`` and ``kind`` (None: any), echoing
    nothing of the request."""
    assert response.status == status, response
    assert response.headers["content-type"] == PROBLEM_CONTENT_TYPE
    problem = response.json()
    assert problem["status"] == status
    assert problem["type"].startswith(PROBLEM_TYPE_BASE)
    assert problem["title"] and problem["detail"]
    assert problem["part"] == (part or problem["part"]), problem
    assert problem["kind"] == (kind or problem["kind"]), problem
    # Nothing the client sent comes back: no raw byte >= 0x80, no escape, no attack string.
    raw = response.body + "".join(f"{k}: {v}\n" for k, v in response.headers.items()).encode()
    assert raw.isascii()
    for sent in evidence:
        assert sent.lower() not in raw.lower(), sent


def as_received(server: Server, case: Case) -> Case:
    """``case`` as the app can get it from ``server``: granian's WSGI interface hands the
    app an empty string for a header value with a byte >= 0x80 (valid UTF-8 or not), so
    neither the middleware nor the app ever sees those bytes: nothing to refuse."""
    if not server.behaviour.ascii_headers or all(v.isascii() for _, v in case.headers):
        return case
    headers = tuple((k, v if v.isascii() else b"") for k, v in case.headers)
    refused = None if case.refused and case.refused[0] in ("header", "cookie") else case.refused
    return replace(case, headers=headers, refused=refused)


def check(server: Server, case: Case) -> None:
    response = server.send(case.request())
    case = as_received(server, case)
    if case.refused is None:
        assert_passed(response, case, raw_path=server.behaviour.raw_path)
    else:
        assert_refused(response, *case.refused, case.evidence())


@pytest.mark.parametrize("case", PATH)
def test_path(server: Server, case: Case) -> None:
    check(server, case)


@pytest.mark.parametrize("case", QUERY)
def test_query(server: Server, case: Case) -> None:
    check(server, case)


@pytest.mark.parametrize("case", HEADER)
def test_header(server: Server, case: Case) -> None:
    check(server, case)


@pytest.mark.parametrize("case", COOKIE)
def test_cookie(server: Server, case: Case) -> None:
    check(server, case)


@pytest.mark.parametrize("case", FORM)
def test_form_body(server: Server, case: Case) -> None:
    check(server, case)


@pytest.mark.parametrize("case", MULTIPART)
def test_multipart_body(server: Server, case: Case) -> None:
    check(server, case)


@pytest.mark.parametrize("case", JSON)
def test_json_body(server: Server, case: Case) -> None:
    check(server, case)


@pytest.mark.parametrize("case", TEXT_BODY)
def test_text_body(server: Server, case: Case) -> None:
    check(server, case)


@pytest.mark.parametrize("case", BINARY)
def test_binary_body_passes_untouched(server: Server, case: Case) -> None:
    check(server, case)


# No server here lets a byte >= 0x80 in the request target reach the app, so the
# middleware never sees one: h11 (uvicorn without httptools, hypercorn) accepts only VCHAR
# (0x21-0x7E) in the target and answers "Invalid HTTP request received." (hypercorn: an
# empty 400); waitress runs the target through urllib.parse.urlsplit, whose ASCII decode
# fails: "Bad URI"; gunicorn answers an HTML "Bad Request"; granian (hyper) an empty
# 400.  All are 400s of the server's own; were a server to pass such a target on, the
# middleware's refusal is checked in full instead.  gunicorn's page repeats the request
# line, raw bytes included (HTML-escaped): the server's own echo, not the middleware's.
SERVER_REFUSES_RAW_TARGET = dict.fromkeys(SERVERS, True)
SERVER_REPEATS_RAW_TARGET = {"gunicorn"}


@pytest.mark.parametrize(
    "target",
    [
        pytest.param(b"/\xc0\xaf", id="overlong-in-path"),
        pytest.param(b"/caf\xc3\xa9", id="utf8-in-path"),
        pytest.param(b"/s?q=\xc0\xae", id="overlong-in-query"),
    ],
)
def test_raw_bytes_in_the_target(server: Server, target: bytes) -> None:
    response = server.send(http("GET", target))
    if server.behaviour.utf8_target and target == b"/caf\xc3\xa9":
        # granian refuses ill-formed UTF-8 in the target itself (an empty 400) but hands
        # well-formed UTF-8 to the app, which the middleware then checks (and passes).
        assert_passed(response, Case(target), raw_path=server.behaviour.raw_path)
        return
    assert response.status == 400, response
    if SERVER_REFUSES_RAW_TARGET[server.kind]:
        assert response.headers.get("content-type") != PROBLEM_CONTENT_TYPE
        assert response.body.isascii() or server.kind in SERVER_REPEATS_RAW_TARGET
    else:
        part = "path" if b"?" not in target else "query"
        assert_refused(response, part, "overlong", set())


# -- size -----------------------------------------------------------------------------------


def test_declared_body_over_the_limit(server: Server) -> None:
    length = 17_000_000
    assert DEFAULT.max_body_size is not None and length > DEFAULT.max_body_size
    head = http("POST", b"/big", [(b"Content-Type", b"application/octet-stream")])
    head = head.replace(b"Content-Length: 0", b"Content-Length: %d" % length)
    if server.behaviour.streams:
        # uvicorn (and every server here but waitress) hands the head to the app at once:
        # the 413 comes before any body byte, and without our EOF (half_close=False) -- a
        # server waiting for the body would time out here.
        response = server.send(head, timeout=3, half_close=False)
        if server.interface == "asgi":
            assert response.headers.get("connection") == "close"  # the body was never read
    else:
        # waitress reads the whole declared body (to a temporary file) before it calls any
        # WSGI app, so the middleware can only answer once all of it has arrived.
        response = server.send(head + bytes(length), timeout=30)
    assert_refused(response, "body", "too-large", set(), status=413)


def test_streamed_body_over_the_limit(server: Server) -> None:
    # No Content-Length: the middleware counts the chunks as they pass.  One byte over
    # the limit, at the very end, so the whole request is sent before the refusal.
    limit = DEFAULT.max_body_size
    assert limit is not None and limit % MiB == 0
    head = http("POST", b"/big", [(b"Content-Type", b"application/octet-stream")], chunked=True)
    chunks = b"%x\r\n%s\r\n" % (MiB, bytes(MiB)) * (limit // MiB) + b"1\r\n\xc0\r\n0\r\n\r\n"
    response = server.send(head.removesuffix(b"0\r\n\r\n") + chunks, timeout=30)
    assert_refused(response, "body", "too-large", set(), status=413)


# -- report-only ----------------------------------------------------------------------------

GROUPS = {
    "path": PATH,
    "query": QUERY,
    "header": HEADER,
    "cookie": COOKIE,
    "form": FORM,
    "multipart": MULTIPART,
    "json": JSON,
    "text": TEXT_BODY,
}
REFUSED = [
    pytest.param(p.values[0], id=f"{group}-{p.id}")
    for group, params in GROUPS.items()
    for p in params
    if p.values[0].refused is not None
]


@pytest.mark.parametrize("case", REFUSED)
def test_report_only_passes_every_attack_unchanged(report_server: Server, case: Case) -> None:
    response = report_server.send(case.request())
    received = replace(as_received(report_server, case), refused=None)
    assert_passed(response, received, raw_path=report_server.behaviour.raw_path)


# -- connections ----------------------------------------------------------------------------

FIELD = b"a=..%C0%AF&"  # refused as soon as the '&' arrives
SMUGGLED = b"GET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"  # the unread rest of the body


def test_refusal_before_the_body_ends(server: Server) -> None:
    body = FIELD + b"b=" + b"x" * 1000
    request = http("POST", b"/f", list(FORM_TYPE), body)
    if server.behaviour.streams and server.interface == "asgi":
        # Only FIELD of the body is sent: uvicorn streams it to the middleware, which
        # refuses at the '&' without waiting for the rest.  (A WSGI server's read(n)
        # returns once n bytes or the declared end have arrived, so gunicorn and granian
        # get the whole body sent, as waitress does.)
        request = request[: len(request) - len(body) + len(FIELD)]
        response = server.send(request, timeout=3, half_close=False)
        if server.interface == "asgi":
            assert response.headers.get("connection") == "close"
    else:
        response = server.send(request)  # waitress buffers the whole body (see above)
    assert_refused(response, "form", "overlong", {b"%C0%AF"})
    assert_passed(server.send(http("GET", b"/after")), Case(b"/after"), raw_path=False)


def test_keep_alive_after_a_refused_body(server: Server) -> None:
    refused = http("POST", b"/f", list(FORM_TYPE), FIELD + SMUGGLED, close=False)
    after = Case(b"/after?q=" + pct(CJK), ((b"X-Test", b"x"),))
    responses = converse(server.port, [refused, after.request(close=False), after.request()])
    assert_refused(responses[0], "form", "overlong", {b"%C0%AF", b"smuggled"})
    if server.interface == "asgi" and server.behaviour.streams:
        # The app read only part of the body: the middleware answers Connection: close and
        # uvicorn ends the connection; a new one works.
        assert responses[0].headers.get("connection") == "close" and len(responses) == 1
    elif server.kind == "wsgi":
        # waitress had read the whole body: the connection carries on, and the request
        # inside the refused body is never taken for the next one.
        assert len(responses) == 3
    # gunicorn's sync workers close every connection after one response; granian (WSGI)
    # reads the unread rest of the body away itself.  Either way the request inside the
    # refused body is never taken for the next one: the rest go on new connections.
    responses += [server.send(after.request()) for _ in range(3 - len(responses))]
    for response in responses[1:]:
        assert_passed(response, as_received(server, after), raw_path=server.behaviour.raw_path)


# -- parser differentials -----------------------------------------------------------------
#
# Django and/or Flask (Werkzeug) read the first four requests differently from the
# middleware's parsers and would get the characters it refuses everywhere else
# (test_the_known_holes_are_real pins how they read them), so they are refused as
# ambiguous.  Then: what browsers send for an empty file input must pass.


def test_extended_charset_parameter(server: Server) -> None:
    case = Case(
        b"/s?q=%2BIC4-evil",  # UTF-7 for U+202E, then "evil"
        ((b"Content-Type", b"text/plain; charset=utf-8; charset*=utf-8''utf-7"),),
    )
    assert_refused(server.send(case.request()), None, None, case.evidence())


OUTER = b"outer-boundary"
INNER_BOUNDARY_BODY = (
    # as the middleware reads it (boundary=OUTER): one file part, its content unchecked
    b"--" + OUTER + b"\r\n"
    b'Content-Disposition: form-data; name="f"; filename="a.bin"\r\n' + OCTETS + b"\r\n\r\n"
    # as Werkzeug and Django read it (boundary=AAA): a preamble, then a text field "q"
    b'--AAA\r\nContent-Disposition: form-data; name="q"\r\n\r\nx\xe2\x80\xaey\r\n--AAA--\r\n'
    b"\r\n--" + OUTER + b"--\r\n"
)


def test_extended_boundary_parameter(server: Server) -> None:
    content_type = b"multipart/form-data; boundary=" + OUTER + b"; boundary*=utf-8''AAA"
    case = Case(b"/u", ((b"Content-Type", content_type),), INNER_BOUNDARY_BODY)
    assert_refused(server.send(case.request()), None, None, case.evidence())


def test_boundary_with_a_space(server: Server) -> None:
    body = INNER_BOUNDARY_BODY.replace(b"--" + OUTER, b"--AAA " + OUTER)
    case = Case(b"/u", ((b"Content-Type", b"multipart/form-data; boundary=AAA " + OUTER),), body)
    assert_refused(server.send(case.request()), None, None, case.evidence())


def test_base64_transfer_encoded_field(server: Server) -> None:
    body = multipart(part(b'name="q"', b"eOKArnk=", b"Content-Transfer-Encoding: base64"))
    case = Case(b"/u", MULTIPART_TYPE, body)  # base64 of "x\u202ey"
    assert_refused(server.send(case.request()), None, None, case.evidence() | {b"eOKArnk="})


def test_file_input_left_empty(server: Server) -> None:
    body = multipart(
        part(b'name="title"', "東京".encode()),
        part(b'name="attachment"; filename=""', b"", OCTETS),
    )
    check(server, Case(b"/u", MULTIPART_TYPE, body))


def test_two_content_type_headers(server: Server) -> None:
    # waitress joins the two into one CONTENT_TYPE, "application/octet-stream, text/plain":
    # not one type/subtype, so refused as ambiguous too.
    headers = ((b"Content-Type", b"application/octet-stream"), (b"Content-Type", b"text/plain"))
    case = Case(b"/t", headers, b"..\xc0\xaf")
    response = server.send(case.request())
    if server.kind == "gunicorn":
        # gunicorn refuses a repeated Content-Type itself (its own HTML 400).
        assert response.status == 400 and response.headers["content-type"] == "text/html"
    elif server.kind == "granian-wsgi":
        # granian's CONTENT_TYPE is the first one only: the app and the middleware both
        # read an octet-stream body, which is not checked.
        assert_passed(response, Case(b"/t", headers[:1], case.body), raw_path=False)
    else:
        assert_refused(response, "header", None, case.evidence())


def test_the_known_holes_are_real() -> None:
    """How Django and Werkzeug (Flask) read the requests of the first four differential
    tests: if this fails, those tests may no longer describe a hole.  (Django's base64 fields:
    django/http/multipartparser.py, ``if transfer_encoding == "base64"``.)"""
    import io

    from django.utils.http import parse_header_parameters
    from werkzeug.formparser import parse_form_data

    def werkzeug_form(content_type: str, body: bytes) -> dict[str, str]:
        environ = {
            "REQUEST_METHOD": "POST",
            "CONTENT_TYPE": content_type,
            "CONTENT_LENGTH": str(len(body)),
            "wsgi.input": io.BytesIO(body),
        }
        return dict(parse_form_data(environ)[1])

    # charset*=: Django's request.encoding, used for GET, POST and multipart fields
    params = parse_header_parameters("text/plain; charset=utf-8; charset*=utf-8''utf-7")[1]
    assert params["charset"] == "utf-7"
    assert b"+IC4-evil".decode(params["charset"]) == "\u202eevil"

    # boundary*=: both take AAA, the middleware the outer boundary
    star = f"multipart/form-data; boundary={OUTER.decode()}; boundary*=utf-8''AAA"
    assert parse_header_parameters(star)[1]["boundary"] == "AAA"
    assert werkzeug_form(star, INNER_BOUNDARY_BODY) == {"q": "x\u202ey"}

    # boundary=AAA <outer>: Werkzeug stops at the space
    spaced = INNER_BOUNDARY_BODY.replace(b"--" + OUTER, b"--AAA " + OUTER)
    assert werkzeug_form(f"multipart/form-data; boundary=AAA {OUTER.decode()}", spaced) == {
        "q": "x\u202ey"
    }
