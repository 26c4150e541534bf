"""Bodies cost linear work whatever the chunking, the server's ``wsgi.input`` is
read in bounded blocks with a size (never ``read()``/``read(-1)``, never past the limit),
and a byte reaches the app only once every check that could refuse it has passed."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote_from_bytes

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from sanitizer import inspect, profiles
from sanitizer.web import DEFAULT, ASGIMiddleware, WebPolicy, WSGIMiddleware
from sanitizer.web._dispatch import body_check
from sanitizer.web._head import check_head
from sanitizer.web._text import TextStream
from sanitizer.web.wsgi import RequestRejected
from tests.support.instructions import instructions, needs_callgrind
from tests.web import request_builder
from tests.web.request_builder import field, in_chunks

POLICY = WebPolicy()
TEXT = ("é" * (1 << 17)).encode()  # 256 KiB of non-ASCII text
FORM_TYPE = b"application/x-www-form-urlencoded"
MULTI_TYPE = b"multipart/form-data; boundary=XyZ"


def multipart(value: bytes) -> bytes:
    return request_builder.multipart(field(b"t", value), boundary=b"XyZ")


BODIES = {
    "text": (b"text/plain; charset=utf-8", TEXT),
    "form": (FORM_TYPE, b"a=" + TEXT),
    "json": (b"application/json", b'["' + TEXT + b'"]'),
    "multipart": (MULTI_TYPE, multipart(TEXT)),
}


def check_for(content_type: bytes, length: int | None = None) -> Any:
    headers = [(b"content-type", content_type)]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    problem, head = check_head(POLICY, b"/", b"", headers)
    assert problem is None
    return body_check(POLICY, head)


def feed_in(content_type: bytes, body: bytes, count: int) -> None:
    """Check ``body`` fed in ``count`` chunks: nothing refused."""
    check = check_for(content_type, len(body))
    size = -(-len(body) // count)
    for i in range(0, len(body), size):
        assert check.feed(body[i : i + size]) is None
    assert check.close() is None


# -- bounded work -------------------------------------------------------------------------


def test_text_stream_scans_each_byte_once_whatever_the_chunking(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sanitizer.web._text as text_module

    scanned: list[int] = []
    real = text_module._last_ascii

    def counting(data: bytes) -> int:
        scanned.append(len(data))
        return real(data)

    monkeypatch.setattr(text_module, "_last_ascii", counting)
    stream = TextStream(POLICY.text, "text", "text body")  # type: ignore[arg-type]
    for i in range(0, len(TEXT), 64):
        assert stream.feed(TEXT[i : i + 64]) is None
    assert stream.close() is None
    assert sum(scanned) == len(TEXT)  # was: the whole held run again for every chunk


def test_gathered_run_without_ascii_is_held_as_its_chunks_and_joined_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A text run with no ASCII byte, in 4,096 chunks, is copied once (when it
    is cut), not joined per look and again when cut; only each look's last chunk is
    scanned for a cut."""
    import sanitizer.web._text as text_module

    checked: list[int] = []
    scanned: list[int] = []
    real_check, real_scan = TextStream._check, text_module._last_ascii

    def check(self: TextStream, piece: bytes) -> object:
        checked.append(len(piece))
        return real_check(self, piece)

    def scan(data: bytes) -> int:
        scanned.append(len(data))
        return real_scan(data)

    monkeypatch.setattr(TextStream, "_check", check)
    monkeypatch.setattr(text_module, "_last_ascii", scan)
    feed_in(*BODIES["text"], 4096)
    assert checked == [len(TEXT)]  # the held run, judged whole at the end
    assert sum(scanned) < len(TEXT) // 8


def _safe_cuts_by_reencoding(data: bytes) -> set[int]:
    """Where ``_safe_cut`` may cut ``data``, each candidate's offset found by encoding the
    text before it again (the reference for its running offset)."""
    import sanitizer.web._text as t

    start = max(0, len(data) - 4 * t._CUT_SCAN)
    while start < len(data) and 0x80 <= data[start] <= 0xBF:
        start += 1
    text = data[start:].decode("utf-8", "surrogateescape")
    return {start + len(text[:i].encode("utf-8", "surrogateescape")) for i in range(len(text))}


# a run without ASCII: flags, marks, emoji, CJK, undecodable bytes
_NO_ASCII = st.lists(
    st.sampled_from(
        ["\U0001f1eb", "\U0001f1f7", "\u0301", "\u00e9", "\u4e2d", "\U0001f44d", "\u200d"]
    ).map(str.encode)
    | st.sampled_from([b"\xff", b"\xc3", b"\x80", b"\xed\xa0\x80"]),
    max_size=24,
).map(b"".join)


@settings(max_examples=30)
@given(_NO_ASCII)
def test_a_safe_cut_is_a_character_boundary_found_in_one_pass(data: bytes) -> None:
    import sanitizer.web._text as t

    cut = t._safe_cut(data)
    assert cut == 0 or cut in _safe_cuts_by_reencoding(data)
    if cut:  # the pieces decode as the whole does (each character kept whole)
        whole = data.decode("utf-8", "surrogateescape")
        parts = [
            data[:cut].decode("utf-8", "surrogateescape"),
            data[cut:].decode("utf-8", "surrogateescape"),
        ]
        assert "".join(parts) == whole


def test_a_safe_cut_after_undecodable_bytes_and_flags() -> None:
    import sanitizer.web._text as t

    flags = "\U0001f1eb\U0001f1f7\U0001f1eb".encode()  # a whole flag, then half of one
    data = b"\xff" + flags + "\u00e9".encode()  # was: UnicodeEncodeError on the \xff
    assert t._safe_cut(data) == 1 + 8  # after the whole pair, before the lone indicator


@pytest.mark.parametrize("kind", ["text", "multipart"])
def test_refusal_in_a_gathered_run_is_found_where_it_is_whatever_the_chunking(
    kind: str,
) -> None:
    bad = TEXT[:1000] + "\u202e".encode() + TEXT[1000:]  # a bidi override inside the run
    content_type, body = _body_of(kind, bad)
    found = set()
    for count in (1, 7, 64, 4096):
        check = check_for(content_type, len(body))
        size = -(-len(body) // count)
        problems = [check.feed(body[i : i + size]) for i in range(0, len(body), size)]
        problems.append(check.close())
        (problem,) = [p for p in problems if p is not None]
        found.add((problem.kind, problem.where, problem.offset))
    assert len(found) == 1, found


# Runs without an ASCII byte longer than TextStream holds whole (1 MiB), cut inside:
# emoji tag sequences (subdivision flags), flags, ZWJ sequences, marks, conjuncts, Hangul.
SEQUENCES = [
    "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
    "\U0001f1fa\U0001f1f8",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467",
    "\U0001f44d\U0001f3fd",
    "e\u0301",
    "\u0915\u094d\u0937",
    "\u1112\u1161\u11ab",
    "\u0645\u06cc\u200c\u062e",
    "\u2764\ufe0f",
]


def _verdicts(kind: str, text: bytes, sizes: Iterable[int]) -> set[tuple[str, str] | None]:
    content_type, body = _body_of(kind, text)
    found: set[tuple[str, str] | None] = set()
    for size in sizes:
        check = check_for(content_type)
        problem = None
        for i in range(0, len(body), size):
            problem = problem or check.feed(body[i : i + size])
        problem = problem or check.close()
        found.add(None if problem is None else (problem.kind, problem.where))
    return found


# found by Hypothesis: a subdivision flag then a flag, where every place between two
# characters touches a regional indicator (a cut is safe after a whole pair)
@pytest.mark.parametrize("sequence", [*SEQUENCES, SEQUENCES[0] + SEQUENCES[1]])
def test_a_long_run_of_sequences_passes_in_one_chunk_or_many(sequence: str) -> None:
    """A run of over 1 MiB without ASCII is cut where no sequence spans the cut, so a
    body of subdivision flags (tag sequences) or family emoji passes whatever the chunking
    (it was refused near the end when its run was cut inside a sequence)."""
    unit = sequence.encode()
    text = unit * ((1 << 20) // len(unit) + 7)
    assert _verdicts("text", text, [len(text), 1 << 20, 64 << 10, 65537]) == {None}


@pytest.mark.slow  # bodies over 1 MiB, inspected whole for the oracle
@settings(max_examples=12, deadline=None)
@example(units=["\u200d", SEQUENCES[0]], count=5, sizes=[65536], kind="text")
@example(units=[SEQUENCES[0], "\u200d"], count=5, sizes=[65536], kind="text")
@given(
    units=st.lists(st.sampled_from([*SEQUENCES, "\u202e", "\U000e0041", "\u200d"]), min_size=1),
    count=st.integers(1, 5),
    sizes=st.lists(st.integers(1, 1 << 21), min_size=1, max_size=3),
    kind=st.sampled_from(["text", "multipart"]),
)
def test_long_runs_are_judged_as_the_whole_whatever_the_chunking(
    units: list[str], count: int, sizes: list[int], kind: str
) -> None:
    """Property: a body of more than 1 MiB without ASCII, made of sequences and of what
    policies refuse, gets the verdict of ``inspect`` on the whole, whatever the chunking;
    or, when no place in it leaves every sequence whole (a chain of ZWJ sequences, a
    flood of marks or tags), is refused as too long, whatever the chunking."""
    from sanitizer.web._text import _safe_cut

    unit = "".join(units).encode()
    text = unit * ((count << 20) // len(unit) // 3 + 1)
    assume(len(text) > 1 << 20)
    found = _verdicts(kind, text, [len(text), *sizes])
    assert len(found) == 1, found
    if _safe_cut(unit * 3) == 0:  # a repeated unit: a safe place in one is in every one
        assert {k for k, _ in found} == {"too-long"}  # type: ignore[misc]
    else:
        assert (None in found) == inspect(text, profiles.TEXT).ok, found


@pytest.mark.parametrize(
    "text",
    [
        b"\t \xc2\x00\x00",  # found by Hypothesis: C2 cut from the NUL after it
        b"ab\xe2\x82 cd",
        b"ab\xf0\x9f\x98\n",
        b"\xe2\x82" * 3 + b"x",
        b"ok\xed\xa0 ",
    ],
)
def test_a_sequence_cut_short_is_truncated_wherever_the_stream_is_cut(text: bytes) -> None:
    """A sequence left open by a piece is cut short by the next byte of the stream, as
    in the whole (RFC 3629 §3), not by the end of the input: every two-chunk split
    gives the whole's problem."""
    for kind in ("text", "multipart"):
        content_type, body = _body_of(kind, text)
        found = set()
        for cut in range(len(body) + 1):
            check = check_for(content_type, len(body))
            problems = [check.feed(body[:cut]), check.feed(body[cut:]), check.close()]
            (problem,) = [p for p in problems if p is not None]
            found.add((problem.kind, problem.where, problem.offset))
        assert len(found) == 1, (kind, found)


PREAMBLES = [
    b"\r\n",  # CR/LF only: every parser skips it
    b"\r\n\r\n",
    b'\r\n"; filename="a.txt"\r\n\r\n!data\r\n',  # found by fuzz_web
    b"\r\nj-unk\r\n",
    b"\r\njunk\r\n",
]


@pytest.mark.parametrize(
    "body",
    [multipart(b"x"), multipart(b"x") + b"tail", b"x" + multipart(b"x")]
    + [preamble + multipart(b"x") for preamble in PREAMBLES]
    + [preamble + b"--XyZ--\r\n" for preamble in PREAMBLES],
)
def test_multipart_delimiter_split_anywhere_across_two_chunks(body: bytes) -> None:
    """The delimiter check scans each chunk where it is and carries only a delimiter that
    may span two chunks (and the two bytes before it): every split gives one verdict."""
    whole = check_for(MULTI_TYPE, len(body))
    verdict = whole.feed(body) or whole.close()
    for cut in range(1, len(body)):
        check = check_for(MULTI_TYPE, len(body))
        split = check.feed(body[:cut]) or check.feed(body[cut:]) or check.close()
        assert (verdict is None) == (split is None), (cut, verdict, split)
        if verdict is not None and split is not None:
            assert verdict.where == split.where, cut


@pytest.mark.parametrize("preamble", PREAMBLES)
def test_multipart_preamble_is_cr_lf_or_refused_whatever_the_chunking(preamble: bytes) -> None:
    """python-multipart skips leading CR/LF and then, within one write only, anything up
    to the first "-": the same body parsed or failed depending on how it was split (found
    by fuzz_web).  Only CR/LF may come before the first delimiter (RFC 2046 §5.1.1)."""
    body = preamble + multipart(b"x")
    for size in (1, 2, 3, len(body)):
        check = check_for(MULTI_TYPE, len(body))
        verdict = None
        for i in range(0, len(body), size):
            verdict = verdict or check.feed(body[i : i + size])
        verdict = verdict or check.close()
        if preamble.strip(b"\r\n"):
            assert verdict is not None and verdict.kind == "ambiguous-multipart", size
        else:
            assert verdict is None, size


def _body_of(kind: str, text: bytes) -> tuple[bytes, bytes]:
    content_type = BODIES[kind][0]
    body = {
        "text": text,
        "form": b"a=" + quote_from_bytes(text).encode(),  # as browsers send it
        "json": b'["' + text + b'"]',
        "multipart": multipart(text),
    }[kind]
    return content_type, body


# The bodies' checks in a child process, for callgrind (tests/support/instructions.py): the
# bodies come from files the test writes, every kind is warmed once before counting.
_COUNTED_SETUP = """
import json
from pathlib import Path
from sanitizer.web import WebPolicy
from sanitizer.web._dispatch import body_check
from sanitizer.web._head import check_head

POLICY = WebPolicy()
CASES = json.loads(Path({cases!r}).read_text())

def feed(name):
    content_type, path = CASES[name]
    body = Path(path).read_bytes()
    headers = [(b"content-type", content_type.encode()), (b"content-length", b"%d" % len(body))]
    problem, head = check_head(POLICY, b"/", b"", headers)
    assert problem is None
    check = body_check(POLICY, head)
    for i in range(0, len(body), 256):
        assert check.feed(body[i : i + 256]) is None
    assert check.close() is None

for name in CASES:
    if name.endswith(" warm"):
        feed(name)
"""


def body_instructions(folder: Path) -> dict[str, int]:
    """Instructions each kind's check costs on a quarter of TEXT and on all of it."""
    cases = {}
    for kind in BODIES:
        for size, text in (("warm", TEXT[:1024]), ("n", TEXT[: len(TEXT) // 4]), ("4n", TEXT)):
            content_type, body = _body_of(kind, text)
            path = folder / f"{kind}-{size}.bin"
            path.write_bytes(body)
            cases[f"{kind} {size}"] = (content_type.decode(), str(path))
    (folder / "cases.json").write_text(json.dumps(cases))
    setup = _COUNTED_SETUP.format(cases=str(folder / "cases.json"))
    workloads = {name: f"feed({name!r})" for name in cases if not name.endswith(" warm")}
    return instructions(setup, workloads, folder)


@pytest.mark.slow  # one valgrind process for every kind: a few seconds
@needs_callgrind
def test_cost_is_linear_in_the_body_at_a_fixed_chunk_size(tmp_path: Path) -> None:
    """Quadratic checking shows as cost growing with the square of the chunk count: at a
    fixed chunk size, 4x the body must cost about 4x, not 16x, for every kind of body.  (A
    fixed cost per chunk is fine; the chunk-count ratio at a fixed size is measured in
    bench/bench_web_chunks.py.)  Counted in instructions (callgrind), not timed; the
    quadratic code was ~16x here."""
    counted = body_instructions(tmp_path)
    ratios = {kind: (counted[f"{kind} n"], counted[f"{kind} 4n"]) for kind in BODIES}
    assert all(0 < small < large < 8 * small for small, large in ratios.values()), ratios


# -- nothing unjudged reaches the app -------------------------------------------------------

GOOD = b"a=hello&"
REFUSED_FORM = GOOD + b"b=" + b"x" * 5000 + b"%C0%AF"  # the bad bytes come last


JSON_REFUSED = b'{"a": "ok", "b": "' + b"x" * 5000 + b'\xe2\x80\xae"}'  # U+202E in "b"
TEXT_REFUSED = b"x" * 5000 + b"\xc0\xaf"  # an overlong '/' at byte 5000


@pytest.mark.parametrize(
    ("content_type", "body", "judged"),
    [
        # the field refused starts after GOOD: none of it may arrive
        (FORM_TYPE, REFUSED_FORM, len(GOOD)),
        # the string refused is judged whole: nothing after its opening quote arrives
        (b"application/json", JSON_REFUSED, JSON_REFUSED.index(b"x")),
        # text is judged in pieces cut before ASCII bytes: the x's passed, the bad bytes not
        (b"text/plain; charset=utf-8", TEXT_REFUSED, 5000),
    ],
    ids=["form", "json", "text"],
)
@pytest.mark.parametrize("size", [1, 7, 256, 4096])
def test_streaming_asgi_app_gets_no_byte_of_the_refused_value(
    content_type: bytes, body: bytes, judged: int, size: int
) -> None:
    status, received = run_asgi(content_type, body, size)
    assert status == 400
    got = b"".join(received)
    assert body[: len(got)] == got and len(got) <= judged  # whatever the chunking
    if content_type == FORM_TYPE:
        assert got == GOOD


class FakeInput:
    """A server's ``wsgi.input``: answers ``read(n)`` for n > 0 in short pieces like a
    socket; ``read()``, ``read(-1)`` and ``read(None)`` raise, as some servers' do."""

    def __init__(self, body: bytes, piece: int = 1000, endless: bool = False) -> None:
        self.body, self.piece, self.endless = body, piece, endless
        self.pos = 0
        self.asked: list[int] = []

    def read(self, size: int | None = None) -> bytes:
        if size is None or size < 0:
            raise OSError("read() without a size is not supported by this server")
        self.asked.append(size)
        n = min(size, self.piece)
        if self.endless:
            self.pos += n
            return b"x" * n
        out = self.body[self.pos : self.pos + n]
        self.pos += len(out)
        return out

    def readline(self, size: int = -1) -> bytes:
        raise AssertionError("the middleware reads with read(n) only")


def call(app: Any, environ: dict[str, Any]) -> tuple[str, bytes]:
    status: list[str] = []

    def start_response(s: str, headers: Any, exc_info: Any = None) -> Any:
        status.append(s)
        return lambda data: None

    result = app(environ, start_response)
    out = b"".join(result)
    getattr(result, "close", lambda: None)()
    return status[-1], out


def environ(body: bytes, stream: Any, *, chunked: bool = False, ctype: str = "text/plain") -> Any:
    env = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/",
        "QUERY_STRING": "",
        "CONTENT_TYPE": ctype,
        "wsgi.input": stream,
    }
    if chunked:
        env["wsgi.input_terminated"] = True
    else:
        env["CONTENT_LENGTH"] = str(len(body))
    return env


READS: dict[str, Callable[[Any], bytes]] = {
    "read": lambda f: f.read(),
    "read-1": lambda f: f.read(-1),
    "read-None": lambda f: f.read(None),
    "read0": lambda f: f.read(0) + f.read(),
    "read-n": lambda f: b"".join(iter(lambda: f.read(333), b"")),
    "readline": lambda f: b"".join(iter(f.readline, b"")),
    "readline-n": lambda f: b"".join(iter(lambda: f.readline(50), b"")),
    "iter": lambda f: b"".join(f),
}


def echo(read: Callable[[Any], bytes]) -> Any:
    def app(environ: Any, start_response: Any) -> Iterable[bytes]:
        data = read(environ["wsgi.input"])
        start_response("200 OK", [])
        return [data]

    return app


@pytest.mark.parametrize("chunked_body", [False, True], ids=["length", "chunked"])
@pytest.mark.parametrize("read", list(READS.values()), ids=list(READS))
def test_wsgi_input_contracts(read: Callable[[Any], bytes], chunked_body: bool) -> None:
    body = ("línea\n" * 3000).encode()
    stream = FakeInput(body)
    status, out = call(WSGIMiddleware(echo(read)), environ(body, stream, chunked=chunked_body))
    assert (status, out) == ("200 OK", body)
    assert all(0 < n <= 64 * 1024 for n in stream.asked)  # never read() without a size
    if not chunked_body:
        assert stream.pos == len(body)  # never past CONTENT_LENGTH


def test_wsgi_without_length_or_terminated_input_reads_nothing() -> None:
    stream = FakeInput(b"abc")
    env = environ(b"", stream)
    del env["CONTENT_LENGTH"]
    assert call(WSGIMiddleware(echo(READS["read"])), env) == ("200 OK", b"")
    assert stream.asked == []


@pytest.mark.parametrize("read", ["read", "read-n", "readline"])
def test_wsgi_endless_chunked_upload_gets_413_at_the_limit(read: str) -> None:
    limit = 1 << 20
    stream = FakeInput(b"", piece=1 << 16, endless=True)
    app = WSGIMiddleware(echo(READS[read]), max_body_size=limit)
    status, _ = call(app, environ(b"", stream, chunked=True, ctype="application/octet-stream"))
    assert status.startswith("413")
    assert stream.pos == limit + 1  # one byte past the limit, not the whole upload


def test_streaming_wsgi_app_gets_no_byte_of_the_refused_value() -> None:
    received: list[bytes] = []

    def app(environ: Any, start_response: Any) -> Iterable[bytes]:
        while chunk := environ["wsgi.input"].read(7):
            received.append(chunk)
        start_response("200 OK", [])
        return [b"ok"]

    stream = FakeInput(REFUSED_FORM, piece=3)
    status, _ = call(WSGIMiddleware(app), environ(REFUSED_FORM, stream, ctype=FORM_TYPE.decode()))
    assert status.startswith("400")
    # read(7) waits for 7 judged bytes (or the end): the 8th judged byte is never asked for
    assert b"".join(received) == GOOD[:7]


def test_wsgi_read_after_refusal_raises() -> None:
    stream = io.BytesIO(REFUSED_FORM)
    reads: list[BaseException] = []

    def app(environ: Any, start_response: Any) -> Iterable[bytes]:
        for _ in range(2):
            try:
                environ["wsgi.input"].read()
            except RequestRejected as error:
                reads.append(error)
        start_response("200 OK", [])
        return [b"ok"]

    env = environ(REFUSED_FORM, stream, ctype=FORM_TYPE.decode())
    assert call(WSGIMiddleware(app), env)[0].startswith("400")
    assert len(reads) == 2


# -- on real servers --------------------------------------------------------------------------


async def asgi_recorder(scope: Any, receive: Any, send: Any) -> None:
    """Appends every body byte it receives to the file named by the X-Record header."""
    if scope["type"] != "http":
        return
    record = Path(dict(scope["headers"])[b"x-record"].decode())
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ConnectionError("client disconnected")
        with record.open("ab") as f:
            f.write(message.get("body", b""))
        if not message.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def wsgi_recorder(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
    record = Path(environ["HTTP_X_RECORD"])
    while chunk := environ["wsgi.input"].read(4):  # GOOD is two reads
        with record.open("ab") as f:
            f.write(chunk)
    start_response("200 OK", [("Content-Length", "2")])
    return [b"ok"]


asgi_streaming = ASGIMiddleware(asgi_recorder)
wsgi_streaming = WSGIMiddleware(wsgi_recorder)


@pytest.mark.servers
@pytest.mark.parametrize("kind", ["asgi", "wsgi"])
def test_streaming_app_on_a_real_server_gets_only_judged_bytes(kind: str, tmp_path: Path) -> None:
    from tests.web.request_builder import http
    from tests.web.webservers import send, serve

    body = GOOD + b"b=" + b"x" * 200_000 + b"%C0%AF"  # longer than one 64 KiB block
    record = tmp_path / "received"
    record.touch()
    headers = [(b"Content-Type", FORM_TYPE), (b"X-Record", str(record).encode())]
    with serve(kind, f"tests.web.test_streaming:{kind}_streaming") as port:
        response = send(port, http("POST", b"/s", headers, body), timeout=20)
    assert response.status == 400
    assert json.loads(response.body)["kind"] == "overlong"
    assert record.read_bytes() == GOOD


# -- multipart: nothing unjudged reaches the app ---------------------------------------------

MULTI_FILE = b'--XyZ\r\nContent-Disposition: form-data; name="f"; filename="f.bin"\r\n\r\n'
MULTI_FIELD = b'--XyZ\r\nContent-Disposition: form-data; name="t"\r\n\r\n'
# file data that looks like the start of a delimiter, and a text field of every kind of run
MULTI_BENIGN = (
    MULTI_FILE
    + b"\r\n--Xy!\r\n-\r\n--X\r".join([b"\x00\xff" * 3000] * 3)
    + b"\r\n"
    + MULTI_FIELD
    + b"h\xc3\xa9llo\r\n" * 500
    + b"\xe6\x97\xa5" * 2000
    + b"\r\n--XyZ--\r\n"
)
MULTI_REFUSED = {
    # a text field judged in pieces: the x's passed, the overlong '/' not
    "text": (MULTI_FIELD + b"x" * 5000 + b"\xc0\xaf\r\n--XyZ--\r\n", len(MULTI_FIELD) + 5000),
    # a file passes as it streams; the next part's headers (a bidi override in the
    # filename) are held until they are parsed
    "headers": (
        MULTI_FILE
        + b"\x00" * 5000
        + b"\r\n--XyZ\r\n"
        + b'Content-Disposition: form-data; name="g"; filename="a\xe2\x80\xaeb"\r\n'
        + b"\r\nx\r\n--XyZ--\r\n",
        len(MULTI_FILE) + 5000 + len(b"\r\n--XyZ\r\n"),
    ),
    # a delimiter after a bare LF in a file: Werkzeug/Django read a text field there
    "delimiter": (
        MULTI_FILE
        + b"\x00" * 5000
        + b"\n--XyZ\r\n"
        + b'Content-Disposition: form-data; name="b"\r\n\r\n\xe2\x80\xae\r\n--XyZ--\r\n',
        len(MULTI_FILE) + 5001,
    ),
    # a part after the closing boundary: Django parses it
    "epilogue": (
        MULTI_FIELD + b"ok\r\n--XyZ--\r\n" + MULTI_FIELD + b"\xe2\x80\xae\r\n--XyZ--\r\n",
        len(MULTI_FIELD) + len(b"ok\r\n--XyZ--\r\n"),
    ),
}


def run_asgi(content_type: bytes, body: bytes, size: int) -> tuple[int, list[bytes]]:
    """The status an ASGI app behind the middleware answered, and the body chunks it
    received, with ``body`` sent in chunks of ``size`` (the app reads to the end)."""
    received: list[bytes] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise ConnectionError("gone")
            received.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    chunks = in_chunks(body, size)
    incoming = [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
        for i, c in enumerate(chunks)
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> Any:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": "POST",
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "headers": [(b"content-type", content_type), (b"transfer-encoding", b"chunked")],
    }
    asyncio.run(ASGIMiddleware(app)(scope, receive, send))
    return sent[0]["status"], received


@pytest.mark.parametrize("case", list(MULTI_REFUSED))
@pytest.mark.parametrize("size", [1, 7, 256, 4096])
def test_streaming_asgi_app_gets_no_unjudged_multipart_byte(case: str, size: int) -> None:
    body, judged = MULTI_REFUSED[case]
    status, received = run_asgi(MULTI_TYPE, body, size)
    assert status == 400
    got = b"".join(received)
    assert body[: len(got)] == got and len(got) <= judged, (len(got), judged)
    assert b"\xe2\x80\xae" not in got and b"\xc0\xaf" not in got


@pytest.mark.parametrize("size", [1, 7, 256, 4096])
def test_streaming_asgi_app_gets_benign_multipart_byte_for_byte(size: int) -> None:
    status, received = run_asgi(MULTI_TYPE, MULTI_BENIGN, size)
    assert status == 200
    assert b"".join(received) == MULTI_BENIGN


@pytest.mark.parametrize("gather", [False, True], ids=["parser", "gathered"])
@pytest.mark.parametrize("size", [1, 5, 7, 256, 4096])
def test_multipart_judged_holds_only_what_a_check_may_refuse(
    size: int, gather: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """judged() never goes back; in file data it holds back only a possible delimiter
    (CRLF, "--XyZ" and the two bytes after it); a text field, only its unchecked run.
    BodyCheck's gathering of small chunks adds at most a quarter of what was looked at."""
    from sanitizer.web._multipart import MultipartBody

    if not gather:
        monkeypatch.setattr(MultipartBody, "gather", 0)
    check = check_for(MULTI_TYPE)
    last = 0
    file_end = MULTI_BENIGN.index(b"\r\n" + MULTI_FIELD)
    text_start = file_end + 2 + len(MULTI_FIELD)
    for chunk in in_chunks(MULTI_BENIGN, size):
        assert check.feed(chunk) is None
        judged = check.judged()
        assert last <= judged <= check.size
        last = judged
        # Gathered bytes are unjudged; what was looked at (``checked``) is held as below.
        looked = check.checked
        assert check.size - looked <= looked // 4 and (gather or looked == check.size)
        # In the file's data.  python-multipart < 0.0.33 (the newest for Python 3.10)
        # enters PART_DATA one byte after the headers end; until then judged() stays at
        # the part's start (holding more, never less), hence the + 1.
        if len(MULTI_FILE) + 1 <= looked <= file_end:
            assert looked - judged <= len(b"\r\n--XyZ") + 2
        elif text_start + 10 < looked < text_start + 4000:  # the ASCII lines of the field
            assert looked - judged <= len(b"h\xc3\xa9llo\r\n") + len(b"\r\n--XyZ") + 2
    assert check.close() is None and check.judged() == len(MULTI_BENIGN)


def test_a_chunk_fed_after_close_is_refused_not_ignored() -> None:
    """Bytes fed after the body ended would pass unjudged: the caller is told."""
    from sanitizer.web import WebPolicy, body_check, check_head

    policy = WebPolicy()
    problem, head = check_head(policy, b"/", b"", [(b"content-type", b"text/plain")])
    assert problem is None
    check = body_check(policy, head)
    assert check.feed(b"fine") is None
    assert check.close() is None
    with pytest.raises(RuntimeError, match="after close"):
        check.feed(b"\xe2\x80\xae late")


def test_a_run_of_marks_cut_where_no_place_is_safe_is_refused_in_every_chunking() -> None:
    """A run without ASCII over 1 MiB whose last characters before the limit are all
    marks (no cut leaves the combining sequence whole) is refused at that cut: judged in
    two halves, a run over ``max_combining`` passed (in 64 KiB, 4,096 and 1,000-byte
    chunks: the run crossed the limit a gathered chunk past 1 MiB)."""
    policy = replace(DEFAULT, text=profiles.TEXT.replace(max_combining=35_000))
    body = ("\u4e00" * 348_857 + "\u0644" + "\u0651" * 40_000 + "\u4e00" * 100).encode()
    assert not inspect(body, policy.text).ok  # the whole: a run of 40,000 marks
    head = check_head(policy, b"/", b"", [(b"content-type", b"text/plain")])[1]
    for size in (len(body), 65536, 65537, 4096, 1000):
        check = body_check(policy, head)
        found = None
        for i in range(0, len(body), size):
            found = found or check.feed(body[i : i + size])
        found = found or check.close()
        assert found is not None and found.kind in ("too-long", "combining-run"), (size, found)


@pytest.mark.parametrize("size", [1, 3, 7, 1000])
def test_a_text_body_counts_its_output_against_max_code_points(size: int) -> None:
    """Under a policy with ``max_code_points``, a text body's output (what the policy
    strips is not counted) is summed piece by piece, whatever the chunking: at the limit
    it passes, one more is too long, and a refused character is named as such."""
    policy = replace(DEFAULT, text=profiles.TEXT.replace(max_code_points=12))
    head = check_head(policy, b"/", b"", [(b"content-type", b"text/plain")])[1]

    def problem(body: bytes) -> object:
        check = body_check(policy, head)
        found = None
        for i in range(0, len(body), size):
            found = found or check.feed(body[i : i + size])
        return found or check.close()

    at_limit = "caf\u00e9 \u00e9t\u00e9\u00ad ok!".encode()  # 12 code points once the SHY goes
    assert len(inspect(at_limit, policy.text).text or "") == 12
    assert problem(at_limit) is None
    over = problem(at_limit + b"x")
    assert over is not None and over.kind == "too-long"  # type: ignore[attr-defined]
    refused = problem(b"ok \x1b[2J")
    assert refused is not None and refused.kind == "control"  # type: ignore[attr-defined]
