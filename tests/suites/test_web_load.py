"""Load test of the web middleware over real loopback sockets: a seeded mix of benign and
attack requests, many at a time, against the echo apps of tests/web/webapps.py under uvicorn
(10,000 at concurrency 50), waitress (2,000 at concurrency 20), and hypercorn (HTTP/1.1),
gunicorn (sync), granian ASGI and granian WSGI (1,000 at concurrency 20; the issue's
5,000 at concurrency 50 marked slow).  h2c under load is in tests/suites/test_web_h2.py.

What must hold under load, for every single request: no 5xx, no connection error, every
attack refused with the middleware's 400 (application/problem+json, not a server's own
400) for the right reason (the problem's type and part), every benign request answered
200 with the app having received exactly the bytes sent (path, query, body and the
headers the mix sets).  The whole test is bounded (``asyncio.wait_for``, LIMIT seconds);
it prints what it sent and how many failed (throughput is bench/bench_web.py's).

The client (``webservers.send_many``) keeps connections alive: that is how browsers and
proxies talk to a server, it spares 10,000 TCP handshakes (the runs stay well under the
bound on two cores), and it checks what one request per connection cannot: after a
refusal the server must either close the connection (the ASGI middleware says
``Connection: close`` when it did not read the body) or stay in step with the client --
a body left unread and parsed as the next request (a desync) shows up as a wrong echo,
a wrong status or a connection error on the next request of that connection.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote, unquote_to_bytes, urlencode

import pytest

from tests.web.request_builder import http
from tests.web.webservers import INTERFACE, Response, send_many, serve

pytestmark = pytest.mark.servers

LIMIT = 120.0  # seconds for one run, servers' start-up excluded; expected: a few seconds
SEED = 3629  # RFC 3629: a fixed seed, so every run sends the same requests

# -- the mix ----------------------------------------------------------------------------

WORDS = [
    "日本語のテキスト",
    "中文文本",
    "한국어",
    "Ελληνικά",
    "русский текст",
    "العربية",
    "עברית",
    "हिन्दी",
    "ไทย",
    "Größe café naïve Ångström",
    "Příliš žluťoučký kůň",
    "emoji 👍🏽 👩\u200d💻 🇯🇵",
    "plain ascii",
]
# Names of uploaded files: FILENAME refuses joiners, so no ZWJ emoji here.
FILENAMES = ["報告書.txt", "résumé.pdf", "данные.csv", "סיכום.docx", "photo 🙂.jpg", "a.b"]

# Ill-formed UTF-8 (RFC 3629 §3, §10): each is refused wherever it appears.
BAD = {
    "overlong": [b"\xc0\xaf", b"\xe0\x80\xaf", b"\xc1\xbf"],  # '/' as 2 and 3 bytes
    "surrogate": [b"\xed\xa0\x80", b"\xed\xbf\xbf"],  # U+D800, U+DFFF
    "out-of-range": [b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80"],  # > U+10FFFF
    "truncated": [b"\xe6\x97", b"\xf0\x9f\x91"],  # a lead byte without all its trail bytes
}


def pct(raw: bytes) -> bytes:
    """Every byte percent-encoded (what a client does with bytes outside ASCII)."""
    return "".join(f"%{b:02X}" for b in raw).encode("ascii")


def q(text: str) -> bytes:
    return quote(text, safe="").encode("ascii")


@dataclass
class Case:
    label: str  # "benign: json" or "attack: truncated in cookie"
    attack: bool
    request: bytes
    path: bytes = b""  # what the echo must show (benign only)
    query: bytes = b""
    body: bytes = b""
    headers: tuple[tuple[bytes, bytes], ...] = ()  # headers the echo must show unchanged
    refusal: tuple[str, str] = ("", "")  # attacks: the problem's type and part


UA = (b"User-Agent", b"load-test/1.0")


def benign(rng: random.Random) -> Case:
    word, other = rng.choice(WORDS), rng.choice(WORDS)
    path = b"/wiki/" + q(word) + b"/" + q(other)
    query = b"q=" + q(word) + b"&lang=" + q(other) + b"&page=" + str(rng.randrange(99)).encode()
    headers = [UA, (b"X-Name", q(word)), (b"Cookie", b"theme=dark; name=" + q(other))]
    kind = rng.choice(["get", "json", "json-escaped", "form", "multipart", "binary", "text"])
    method, body = "POST", b""
    if kind == "get":
        method = "GET"
    elif kind in ("json", "json-escaped"):
        doc = {
            "title": word,
            "tags": [other, word[:3], "x"],
            "author": {"name": other, "id": rng.randrange(10**6)},
            "lines": f"{word}\n\t{other}",
            "score": rng.random(),
        }
        # ensure_ascii=True spells every non-ASCII character as \\u escapes, emoji as
        # surrogate pairs (\\ud83d\\udc4d): valid, and resolved before the check.
        body = json.dumps(doc, ensure_ascii=kind == "json-escaped").encode()
        headers.append((b"Content-Type", b"application/json"))
    elif kind == "form":
        body = urlencode({"comment": f"{word}\r\n{other}", "name": other, "n": "1"}).encode()
        headers.append((b"Content-Type", b"application/x-www-form-urlencoded"))
    elif kind == "multipart":
        boundary = b"----load" + str(rng.randrange(10**9)).encode()
        filename = rng.choice(FILENAMES).encode()
        content = rng.randbytes(rng.randrange(1, 2048))  # file content is not checked
        body = (
            b"--" + boundary + b"\r\n"
            b'Content-Disposition: form-data; name="comment"\r\n\r\n' + word.encode() + b"\r\n"
            b"--" + boundary + b"\r\n"
            b'Content-Disposition: form-data; name="upload"; filename="' + filename + b'"\r\n'
            b"Content-Type: application/octet-stream\r\n\r\n" + content + b"\r\n"
            b"--" + boundary + b"--\r\n"
        )
        headers.append((b"Content-Type", b"multipart/form-data; boundary=" + boundary))
    elif kind == "binary":
        body = rng.randbytes(rng.randrange(1, 4096))  # ill-formed UTF-8, but not text
        headers.append((b"Content-Type", b"application/octet-stream"))
    else:
        body = "\n".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 40))).encode()
        headers.append((b"Content-Type", b"text/plain; charset=utf-8"))
    chunked = bool(body) and rng.random() < 0.25  # 7-byte chunks: sequences cut in two
    request = http(method, path + b"?" + query, headers, body, chunked=chunked, close=False)
    shown = tuple(h for h in headers if h[0] in (b"User-Agent", b"X-Name", b"Cookie"))
    return Case(f"benign: {kind}", False, request, path, query, body, shown)


# Where an ill-formed sequence goes: request line, headers, each kind of checked body.
PLACES = ["path", "query", "header", "cookie", "cookie-quoted", "json", "form", "form-raw"]
PLACES += ["multipart-filename", "text-end"]


def attack(rng: random.Random, places: Sequence[str] = PLACES) -> Case:
    if rng.random() < 0.15:  # the two attacks that are well-formed UTF-8
        if rng.random() < 0.5:
            body = b'{"name": "a\\ud800b", "ok": "\\ud83d\\udc4d"}'  # RFC 8259 §8.2
            headers = [(b"Content-Type", b"application/json")]
            label = "attack: \\ud800 escape in json"
            refusal = ("refused-text", "json")
        else:
            body = b"+ADw-script+AD4-alert(1)+ADw-/script+AD4-"  # '<script>' in UTF-7
            media = rng.choice([b"text/html", b"text/plain", b"application/json"])
            headers = [(b"Content-Type", media + b"; charset=utf-7")]
            label = "attack: charset=utf-7"
            refusal = ("charset", "header")
        chunked = rng.random() < 0.25
        request = http("POST", b"/submit", headers, body, chunked=chunked, close=False)
        return Case(label, True, request, refusal=refusal)
    kind = rng.choice(sorted(BAD))
    bad = rng.choice(BAD[kind])
    place = rng.choice(places)
    path, query, body = b"/items/ok", b"q=fine", b""
    headers = [UA]
    if place == "path":
        path = b"/files/" + pct(b"a" + bad + b"b")  # h11 refuses raw bytes in the target
    elif place == "query":
        query = b"q=ok&name=" + pct(bad) + b"x"
    elif place == "header":
        headers.append((b"X-Name", b"ab" + bad + b"cd"))
    elif place == "cookie":
        headers.append((b"Cookie", b"theme=dark; name=a" + bad + b"b"))
    elif place == "cookie-quoted":  # frameworks unquote it (no framework percent-decodes)
        headers.append((b"Cookie", b'name="a' + bad + b'b"; theme=dark'))
    elif place == "json":
        body = b'{"title": "\xe6\x97\xa5' + bad + b'x", "n": 1}'
        headers.append((b"Content-Type", b"application/json"))
    elif place == "form":
        body = b"n=1&comment=" + pct(b"a" + bad) + b"b&x=2"
        headers.append((b"Content-Type", b"application/x-www-form-urlencoded"))
    elif place == "form-raw":
        body = b"n=1&comment=a" + bad + b"b"
        headers.append((b"Content-Type", b"application/x-www-form-urlencoded"))
    elif place == "multipart-filename":
        boundary = b"xYzZY"
        body = (
            b"--xYzZY\r\n"
            b'Content-Disposition: form-data; name="upload"; filename="r' + bad + b'.txt"\r\n'
            b"Content-Type: application/octet-stream\r\n\r\nfile content\r\n--xYzZY--\r\n"
        )
        headers.append((b"Content-Type", b"multipart/form-data; boundary=" + boundary))
    else:  # text-end: the body ends inside the sequence; only its end shows the problem
        body = "\n".join(WORDS).encode() + bad[:-1]
        headers.append((b"Content-Type", b"text/plain; charset=utf-8"))
    method = "POST" if body else "GET"
    chunked = bool(body) and rng.random() < 0.25
    request = http(method, path + b"?" + query, headers, body, chunked=chunked, close=False)
    part = {"cookie-quoted": "cookie", "form-raw": "form", "multipart-filename": "multipart"}
    part.update({"text-end": "text"})
    refusal = ("ill-formed-utf8", part.get(place, place))
    return Case(f"attack: {kind} in {place}", True, request, refusal=refusal)


def mix(count: int, seed: int = SEED, places: Sequence[str] = PLACES) -> list[Case]:
    """``count`` requests, about a third of them attacks (ill-formed UTF-8 only in
    ``places``), the same for the same seed."""
    rng = random.Random(seed)
    return [attack(rng, places) if rng.random() < 0.35 else benign(rng) for _ in range(count)]


# -- the run ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Carriage:
    """What a server hands the app as sent (tests/suites/test_web_servers.py, BEHAVIOUR)."""

    raw_path: bool = True  # False: only PATH_INFO, percent-decoded (PEP 3333)
    ascii_headers: bool = False  # a header value with a byte >= 0x80 reaches the app as ""


# granian's WSGI interface: the echo shows the decoded path, and header values with
# non-ASCII bytes blanked.  So its benign requests are held to that, and its mix leaves
# out ill-formed UTF-8 in headers and cookies: the server never hands those bytes to the
# middleware or the app (it blanks them), so there is nothing for the middleware to refuse.
CARRIAGE = {"granian-wsgi": Carriage(raw_path=False, ascii_headers=True)}
HEADER_PLACES = {"header", "cookie", "cookie-quoted"}


def places(carriage: Carriage) -> list[str]:
    return [p for p in PLACES if not (carriage.ascii_headers and p in HEADER_PLACES)]


def failure(case: Case, got: Response | Exception, carriage: Carriage = Carriage()) -> str | None:
    """Why ``got`` is wrong for ``case`` on a server that carries requests as
    ``carriage`` says, or None."""
    if isinstance(got, Exception):
        return f"connection error {type(got).__name__}: {got}"
    if got.status >= 500:
        return f"{got.status}: {got.body[:200]!r}"
    if case.attack:
        if got.status != 400:
            return f"attack answered {got.status}"
        if got.headers.get("content-type") != "application/problem+json":
            return f"400 not from the middleware: {got.body[:200]!r}"
        problem = got.json()
        refusal = (problem["type"].rpartition(":")[2], problem["part"])
        if refusal != case.refusal:
            return f"refused as {refusal}, expected {case.refusal}: {problem['detail']}"
        return None
    if got.status != 200:
        return f"benign request answered {got.status}: {got.body[:300]!r}"
    received = got.received()
    path = case.path if carriage.raw_path else unquote_to_bytes(case.path)
    for part, sent in (("path", path), ("query", case.query), ("body", case.body)):
        if received[part] != sent:
            return f"echo {part} {received[part][:100]!r} != sent {sent[:100]!r}"
    echoed = {k.lower(): v for k, v in received["headers"]}
    for name, value in case.headers:
        expected = b"" if carriage.ascii_headers and not value.isascii() else value
        if echoed.get(name.lower()) != expected:
            return f"echo header {name!r} {echoed.get(name.lower())!r} != {expected!r}"
    return None


def run(kind: str, app: str, count: int, concurrency: int) -> None:
    carriage = CARRIAGE.get(kind, Carriage())
    cases = mix(count, places=places(carriage))
    with serve(kind, app) as port:
        responses = asyncio.run(
            asyncio.wait_for(send_many(port, [c.request for c in cases], concurrency), LIMIT)
        )
    attacks = sum(c.attack for c in cases)
    failures = [
        (c.label, why)
        for c, got in zip(cases, responses, strict=True)
        if (why := failure(c, got, carriage)) is not None
    ]
    print(
        f"\n{kind} ({app}): {count} requests ({attacks} attacks) at concurrency {concurrency};"
        f" {len(failures)} failed"
    )
    assert not failures, f"{len(failures)} of {count} failed, first: {failures[:10]}"


def test_mix_is_deterministic_and_covers_every_place() -> None:
    cases = mix(2000)
    assert [c.request for c in cases] == [c.request for c in mix(2000)]
    labels = {c.label for c in cases}
    for kind in BAD:
        for place in PLACES:
            assert f"attack: {kind} in {place}" in labels
    assert {"attack: \\ud800 escape in json", "attack: charset=utf-7"} <= labels
    benign_kinds = {"get", "json", "json-escaped", "form", "multipart", "binary", "text"}
    assert {f"benign: {k}" for k in benign_kinds} <= labels
    granian = {
        c.label.rpartition(" in ")[2] for c in mix(2000, places=places(CARRIAGE["granian-wsgi"]))
    }
    assert not granian & HEADER_PLACES and "path" in granian


def test_asgi_under_load() -> None:
    run("asgi", "tests.web.webapps:asgi", count=10_000, concurrency=50)


def test_wsgi_under_load() -> None:
    # Smaller, to keep the file's runtime down, not because waitress is slow (it answers
    # about as many requests per second as uvicorn here, 1,200-1,700).  What this run adds
    # to the ASGI one is the WSGI adapter (wrapped wsgi.input, held start_response) under
    # real thread concurrency: 20 clients on 8 waitress threads keep every thread busy and
    # requests queued.  The checks behind it are the same sans-IO code that the ASGI run
    # sends 10,000 requests through.
    run("wsgi", "tests.web.webapps:wsgi", count=2_000, concurrency=20)


# The further servers, each with its own interface's echo app: 1,000 requests
# in the normal run, the 5,000 at concurrency 50 marked slow.  granian's WSGI
# interface with its mix and echo adapted (CARRIAGE).
ADDED = ["hypercorn", "gunicorn", "granian-asgi", "granian-wsgi"]


@pytest.mark.parametrize("kind", ADDED)
def test_added_server_under_load(kind: str) -> None:
    run(kind, f"tests.web.webapps:{INTERFACE[kind]}", count=1_000, concurrency=20)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ADDED)
def test_added_server_under_full_load(kind: str) -> None:
    run(kind, f"tests.web.webapps:{INTERFACE[kind]}", count=5_000, concurrency=50)


if __name__ == "__main__":
    pytest.main([__file__, "-s", "-v"])
