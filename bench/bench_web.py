#!/usr/bin/env python3
"""Web middleware overhead: uvicorn with and without ``ASGIMiddleware``, same client, same run.

    python bench/bench_web.py                  # full run (about 3 minutes), markdown tables
    python bench/bench_web.py --quick          # fewer, shorter rounds (CI smoke runs)
    python bench/bench_web.py --client python  # the asyncio client even if wrk is installed
    python bench/bench_web.py --profile        # also cProfile the middleware in process
    python bench/bench_web.py --instructions   # small requests: server instructions (callgrind)

What it measures (every figure against a baseline measured in the same run):

- small requests/s: a minimal ASGI app (a fixed 2-byte body; it does not read the request
  body) under uvicorn, as is and wrapped in ``ASGIMiddleware``, for a GET with a short
  query and User-Agent, Accept and Cookie headers, and for a ~200 B JSON POST.  Both
  servers run side by side; each round measures one then the other (the order alternates
  between rounds) and the table gives the medians over the rounds, and the median of the
  per-round ratios (with / without).  Goal: >= 0.95x (was 0.9x); when it is
  missed (or with ``--profile``) the middleware is profiled in process on the same requests.
- 1 MiB JSON latency: an app that reads the whole body; a valid 1 MiB JSON document
  (records with strings in many scripts, escapes, numbers) POSTed on one kept-alive
  connection, one request at a time, alternating between the two servers: median time per
  request each, and the difference.
- in-process cost, no server: ``check_head`` plus the 1 MiB body fed through
  ``body_check`` in 64 KiB chunks (against ``json.loads`` of the same body, which the app
  pays anyway, timed alternately; goal <= 1.5x), an 8 MiB multipart upload whose file
  part passes untouched (goal >= 2 GB/s), and the time the middleware adds to one small
  request driven through ASGI messages in memory.

- ``--instructions``: the small requests' ratio without wall-time noise.  uvicorn runs
  under valgrind's callgrind, as is and wrapped, once with ``n`` GETs, once with ``3n``
  GETs, once with ``n`` GETs and ``2n`` POSTs, sent one at a time on one connection; the
  differences divided by ``2n`` are the server's instructions per request (start-up and
  shutdown cancel out), and their ratio (without / with) is the throughput ratio a
  CPU-bound server would show.

Load generator: ``wrk`` if it is on PATH (Debian: ``apt-get install wrk``), with a Lua
script for each request; otherwise an asyncio keep-alive client in this process (the
output says which client ran).  Against uvicorn with h11 both clients outrun the server,
so both give the same figures; against a faster server (httptools) the asyncio client
could become the bottleneck, which would push the ratio towards 1.  uvicorn runs one
worker with ``--no-access-log --log-level warning``; with ``taskset`` and two cores or
more, the servers are pinned to core 0 and the client to core 1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import functools
import io
import json
import os
import pstats
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import _figures  # noqa: E402
from _servers import HOST, free_port, running  # noqa: E402
from _timing import best_per_call  # noqa: E402

import sanitizer  # noqa: E402
from sanitizer.web import DEFAULT, ASGIMiddleware, body_check, check_head  # noqa: E402
from sanitizer.web.asgi import Message, Receive, Scope, Send  # noqa: E402

GOAL = 0.95  # small requests: req/s with the middleware / without (was 0.9)
JSON_GOAL = 1.5  # a valid 1 MiB JSON body: body_check time / json.loads time
FILE_GOAL = 2.0  # multipart file parts: GB/s through body_check
TABLES = _figures.Tables()  # what this run measured, for --write-docs

# -- the apps uvicorn serves (imported by the server as bench_web:NAME) -------------------

_ANSWER = [(b"content-type", b"text/plain"), (b"content-length", b"2")]


async def fixed(scope: Scope, receive: Receive, send: Send) -> None:
    """Answers 200 "ok" without reading the request body."""
    await send({"type": "http.response.start", "status": 200, "headers": _ANSWER})
    await send({"type": "http.response.body", "body": b"ok"})


async def reading(scope: Scope, receive: Receive, send: Send) -> None:
    """Reads the whole request body (like Starlette's ``request.body()``), answers "ok"."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        if not message.get("more_body", False):
            break
    await fixed(scope, receive, send)


plain = fixed
checked = ASGIMiddleware(fixed)
reader = reading
reader_checked = ASGIMiddleware(reading)

# -- the requests -------------------------------------------------------------------------

USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
GET_TARGET = "/search?q=caf%C3%A9+cr%C3%A8me&page=2&sort=recent"
GET_HEADERS = [
    ("User-Agent", USER_AGENT),
    ("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"),
    ("Cookie", "session=3f2a9c1e7b5d4e0fa1c2; theme=dark; lang=fr"),
]
POST_TARGET = "/api/comments"
POST_BODY = json.dumps(
    {
        "author": {"name": "Zoë Müller", "id": 48213},
        "text": "Très bien ! 日本語のコメントも大丈夫です。Ελληνικά 👍",
        "tags": ["review", "i18n"],
        "reply_to": None,
        "rating": 4.5,
    },
    ensure_ascii=False,
).encode()
POST_HEADERS = [
    ("User-Agent", USER_AGENT),
    ("Accept", "application/json"),
    ("Content-Type", "application/json"),
]


@dataclass(frozen=True)
class Request:
    label: str
    method: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes = b""

    def raw(self) -> bytes:
        lines = [f"{self.method} {self.target} HTTP/1.1", f"Host: {HOST}"]
        lines += [f"{k}: {v}" for k, v in self.headers]
        if self.body or self.method == "POST":
            lines.append(f"Content-Length: {len(self.body)}")
        return "\r\n".join(lines).encode("latin-1") + b"\r\n\r\n" + self.body


SMALL = [
    Request("GET, 3-field query, UA + Accept + Cookie", "GET", GET_TARGET, GET_HEADERS),
    Request(f"POST JSON ({len(POST_BODY)} B)", "POST", POST_TARGET, POST_HEADERS, POST_BODY),
]

WORDS = [
    "日本語のテキストと中文文本",
    "한국어 텍스트도 있습니다",
    "Ελληνικά κείμενα",
    "русский текст",
    "العربية",
    "עברית",
    "हिन्दी",
    "Größe, Straße, naïve café",
    "Příliš žluťoučký kůň",
    "emoji 👍🏽 👩\u200d💻 🇯🇵",
    "plain ASCII words, the most common case",
]


def big_json(size: int = 1 << 20, seed: int = 3629) -> bytes:
    """A valid JSON document of about ``size`` bytes: an API-style list of records with
    multilingual strings, line breaks, quotes and \\u escapes, numbers, nulls, nesting."""
    rng = random.Random(seed)
    records: list[object] = []
    total = 0
    while total < size:
        words = [rng.choice(WORDS) for _ in range(rng.randrange(3, 12))]
        record = {
            "id": len(records),
            "user": {"name": rng.choice(WORDS)[:12], "locale": rng.choice(["ja", "el", "ar"])},
            "title": " ".join(words[:2]),
            "body": "\n".join(words) + ' "quoted" \\ back\u00a0slash',
            "tags": words[:3],
            "score": round(rng.random() * 100, 3),
            "parent": None if rng.random() < 0.5 else rng.randrange(10**6),
            "flags": {"pinned": rng.random() < 0.1, "edited": rng.random() < 0.3},
        }
        records.append(record)
        total += len(json.dumps(record, ensure_ascii=False).encode()) + 2
    return json.dumps({"items": records, "count": len(records)}, ensure_ascii=False).encode()


# -- servers ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pinning:
    server: list[str]  # command prefix for the servers
    client: list[str]  # command prefix for wrk
    client_core: int | None  # for the in-process client (os.sched_setaffinity)
    text: str


def pinning() -> Pinning:
    taskset = shutil.which("taskset")
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if taskset is None or len(cores) < 2:
        why = "taskset not found" if taskset is None else "fewer than 2 cores"
        return Pinning([], [], None, f"not pinned ({why})")
    server, client = cores[0], cores[1]
    return Pinning(
        [taskset, "-c", str(server)],
        [taskset, "-c", str(client)],
        client,
        f"servers on core {server}, client on core {client} (taskset)",
    )


@contextlib.contextmanager
def uvicorn(app: str, pin: Pinning, http: str, loop: str) -> Iterator[int]:
    """uvicorn serving ``bench_web:<app>`` (one worker, no access log); yields its port."""
    port = free_port()
    command = [
        *pin.server,
        *(sys.executable, "-m", "uvicorn", f"bench_web:{app}", "--host", HOST),
        *("--port", str(port), "--workers", "1", "--no-access-log"),
        *("--log-level", "warning", "--lifespan", "off", "--http", http, "--loop", loop),
    ]
    path = os.pathsep.join([str(HERE), str(ROOT), os.environ.get("PYTHONPATH", "")])
    with running(command, port, env={**os.environ, "PYTHONPATH": path}):
        yield port


# -- clients ------------------------------------------------------------------------------


@dataclass
class Run:
    rps: float
    bad: int  # non-2xx responses plus socket errors: must be 0


def lua_string(data: bytes) -> str:
    """A Lua string literal for ``data`` (decimal escapes: any bytes, any quotes)."""
    return '"' + "".join(f"\\{b:03d}" for b in data) + '"'


class Wrk:
    def __init__(self, pin: Pinning, connections: int) -> None:
        path = shutil.which("wrk")
        assert path is not None
        self.path = path
        self.pin = pin
        self.connections = connections
        out = subprocess.run([path, "-v"], capture_output=True, text=True).stdout
        self.name = out.split("Copyright")[0].strip() or "wrk"
        self._dir = tempfile.TemporaryDirectory(prefix="bench_web_")

    def describe(self) -> str:
        return f"{self.name}, 1 thread, {self.connections} connections"

    def run(self, port: int, request: Request, seconds: float) -> Run:
        script = Path(self._dir.name) / (re.sub(r"\W+", "_", request.label) + ".lua")
        lines = [f"wrk.method = {lua_string(request.method.encode())}"]
        for name, value in request.headers:
            lines.append(f"wrk.headers[{lua_string(name.encode())}] = {lua_string(value.encode())}")
        if request.body:
            lines.append(f"wrk.body = {lua_string(request.body)}")
        script.write_text("\n".join(lines) + "\n")
        command = [
            *self.pin.client,
            *(self.path, "-t1", f"-c{self.connections}", f"-d{max(1, round(seconds))}s"),
            *("--timeout", "10s", "-s", str(script), f"http://{HOST}:{port}{request.target}"),
        ]
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        rps = re.search(r"Requests/sec:\s*([\d.]+)", out)
        if rps is None:
            raise RuntimeError(f"unexpected wrk output:\n{out}")
        bad = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses:\s*(\d+)", out))
        errors = re.search(
            r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out
        )
        if errors is not None:
            bad += sum(int(n) for n in errors.groups())
        return Run(float(rps.group(1)), bad)


async def _response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    m = re.search(rb"\r\ncontent-length:\s*(\d+)", head, re.IGNORECASE)
    if m is None:
        raise RuntimeError(f"response without Content-Length: {head!r}")
    return status, await reader.readexactly(int(m.group(1)))


class PythonClient:
    """asyncio, keep-alive: ``connections`` connections each sending one request after the
    other for the whole duration (this process, pinned to the client core)."""

    name = "python asyncio keep-alive client"

    def __init__(self, pin: Pinning, connections: int, why: str) -> None:
        self.connections = connections
        self.why = why

    def describe(self) -> str:
        return f"{self.name} ({self.why}), {self.connections} connections"

    def run(self, port: int, request: Request, seconds: float) -> Run:
        return asyncio.run(self._run(port, request.raw(), seconds))

    async def _run(self, port: int, raw: bytes, seconds: float) -> Run:
        done = [0, 0]  # responses, bad ones

        async def connection(deadline: float) -> None:
            reader, writer = await asyncio.open_connection(HOST, port)
            try:
                while time.perf_counter() < deadline:
                    writer.write(raw)
                    status, _ = await _response(reader)
                    done[0] += 1
                    done[1] += not 200 <= status < 300
            finally:
                writer.close()

        start = time.perf_counter()
        await asyncio.gather(*(connection(start + seconds) for _ in range(self.connections)))
        return Run(done[0] / (time.perf_counter() - start), done[1])


Client = Wrk | PythonClient


def once(port: int, raw: bytes) -> tuple[int, bytes]:
    """One request on a new connection: the sanity check before measuring."""

    async def go() -> tuple[int, bytes]:
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(raw)
        try:
            return await _response(reader)
        finally:
            writer.close()

    return asyncio.run(go())


# -- (a) small requests -------------------------------------------------------------------


def bench_small(client: Client, ports: dict[str, int], rounds: int, seconds: float) -> bool:
    """Prints the req/s table; returns True if every ratio meets the goal."""
    print(f"### Small requests: req/s, median of {rounds} rounds of {seconds:g} s per server")
    print()
    TABLES.head(
        ["request", "without req/s", "with req/s", "ratio (with/without)", "ratios per round"],
        f"Small requests: req/s, median of {rounds} rounds of {seconds:g} s per server",
    )
    met = True
    for request in SMALL:
        for port in ports.values():
            status, body = once(port, request.raw())
            assert (status, body) == (200, b"ok"), (request.label, status, body)
            client.run(port, request, 1)  # warm-up
        rates: dict[str, list[float]] = {"plain": [], "checked": []}
        for r in range(rounds):
            order = ["plain", "checked"] if r % 2 == 0 else ["checked", "plain"]
            for name in order:
                run = client.run(ports[name], request, seconds)
                if run.bad:
                    raise RuntimeError(f"{name}, {request.label}: {run.bad} bad responses")
                rates[name].append(run.rps)
        ratios = [c / p for c, p in zip(rates["checked"], rates["plain"], strict=True)]
        ratio = statistics.median(ratios)
        met = met and ratio >= GOAL
        without, with_ = statistics.median(rates["plain"]), statistics.median(rates["checked"])
        each = " ".join(f"{x:.2f}" for x in ratios)
        TABLES.row(request.label, f"{without:,.0f}", f"{with_:,.0f}", f"{ratio:.2f}x", each)
    print()
    return met


# -- (b) 1 MiB JSON latency ---------------------------------------------------------------


def bench_big(ports: dict[str, int], body: bytes, repeats: int) -> None:
    request = Request(
        f"POST JSON ({len(body) / (1 << 20):.2f} MiB)",
        "POST",
        "/api/import",
        [("Content-Type", "application/json")],
        body,
    )
    raw = request.raw()

    async def measure() -> dict[str, list[float]]:
        times: dict[str, list[float]] = {"reader": [], "reader_checked": []}
        conns = {name: await asyncio.open_connection(HOST, port) for name, port in ports.items()}
        try:
            for name, (reader, writer) in conns.items():  # warm-up and sanity check
                writer.write(raw)
                assert await _response(reader) == (200, b"ok"), name
            for r in range(repeats):
                order = list(conns) if r % 2 == 0 else list(reversed(conns))
                for name in order:
                    reader, writer = conns[name]
                    start = time.perf_counter()
                    writer.write(raw)
                    await writer.drain()
                    status, _ = await _response(reader)
                    times[name].append(time.perf_counter() - start)
                    assert status == 200, (name, status)
        finally:
            for _, writer in conns.values():
                writer.close()
        return times

    times = asyncio.run(measure())
    without, with_ = (statistics.median(times[n]) for n in ("reader", "reader_checked"))
    print(f"### {request.label}, app reads the whole body: median of {repeats} requests each")
    print()
    TABLES.head(
        ["without ms", "with ms", "added ms", "ratio (time with/without)"],
        f"{request.label}, app reads the whole body: median of {repeats} requests each",
    )
    TABLES.markdown_row(
        f"| {without * 1e3:.1f} | {with_ * 1e3:.1f} | {(with_ - without) * 1e3:+.1f} |"
        f" {with_ / without:.2f}x |"
    )
    print()


# -- (c) in-process -----------------------------------------------------------------------


def interleaved(
    base: Callable[[], object], measured: Callable[[], object], repeat: int
) -> tuple[float, float]:
    """Seconds per call of each, the minimum over ``repeat`` rounds that time one then
    the other, so load on the machine falls on both alike."""
    number = max(1, timeit.Timer(base).autorange()[0])
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for fn, into in zip((base, measured), times, strict=True):
            into.append(timeit.timeit(fn, number=number) / number)
    return min(times[0]), min(times[1])


def check_whole(body: bytes, chunk: int = 1 << 16) -> None:
    """What the middleware does for the 1 MiB request: check_head, then body_check."""
    headers = [
        (b"host", b"127.0.0.1"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    problem, head = check_head(DEFAULT, b"/api/import", b"", headers)
    assert problem is None
    check = body_check(DEFAULT, head)
    for i in range(0, len(body), chunk):
        assert check.feed(body[i : i + chunk]) is None
    assert check.close() is None


FILE_BOUNDARY = b"----sanitizerBench7MA4YWxkTrZu0gW"


def multipart_file(size: int = 8 << 20, seed: int = 3629) -> bytes:
    """A multipart body with one text field and one file part of ``size`` random bytes
    (the file content is passed untouched: only the delimiter scans read it)."""
    data = random.Random(seed).randbytes(size)
    dash = b"--" + FILE_BOUNDARY
    return (
        dash
        + b'\r\nContent-Disposition: form-data; name="title"\r\n\r\n'
        + "vacances été".encode()
        + b"\r\n"
        + dash
        + b'\r\nContent-Disposition: form-data; name="f"; filename="photo.jpg"\r\n'
        + b"Content-Type: image/jpeg\r\n\r\n"
        + data
        + b"\r\n"
        + dash
        + b"--\r\n"
    )


def check_multipart(chunks: list[bytes]) -> None:
    """What the middleware does for a multipart upload: check_head, then body_check
    (the chunks are cut beforehand: a server reads them into fresh memory anyway)."""
    headers = [
        (b"host", b"127.0.0.1"),
        (b"content-type", b"multipart/form-data; boundary=" + FILE_BOUNDARY),
        (b"content-length", str(sum(map(len, chunks))).encode()),
    ]
    problem, head = check_head(DEFAULT, b"/upload", b"", headers)
    assert problem is None
    check = body_check(DEFAULT, head)
    for chunk in chunks:
        assert check.feed(chunk) is None
    assert check.close() is None


def scope_of(request: Request) -> Scope:
    path, _, query = request.target.partition("?")
    headers = [(b"host", HOST.encode())]
    headers += [(k.lower().encode(), v.encode()) for k, v in request.headers]
    if request.method == "POST":
        headers.append((b"content-length", str(len(request.body)).encode()))
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "headers": headers,
        "client": (HOST, 50000),
        "server": (HOST, 8000),
    }


def in_memory(
    app: Callable[[Scope, Receive, Send], Awaitable[None]], request: Request
) -> Callable[[], None]:
    """One call runs ``app`` on ``request`` through ASGI messages in memory."""
    loop = asyncio.new_event_loop()
    message: Message = {"type": "http.request", "body": request.body, "more_body": False}

    async def receive() -> Message:
        return message

    async def send(message: Message) -> None:
        pass

    async def call() -> None:
        await app(scope_of(request), receive, send)

    return lambda: loop.run_until_complete(call())


# Valid JSON built to cost a checker the most per byte (escapes, tiny strings): the check
# must stay linear and near json.loads, or one client could stall the event loop.
_MiB = 1 << 20
HOSTILE_JSON = [
    ("one-escape strings", b"[" + b'"\\u00e9",' * (_MiB // 9) + b'"x"]'),
    ("\\n escapes in one string", b'["' + b"\\n" * (_MiB // 2) + b'"]'),
    ("escaped surrogate pairs", b'["' + b"\\ud83d\\ude00" * (_MiB // 12) + b'"]'),
    ("empty strings", b"[" + b'"",' * (_MiB // 3) + b'""]'),
]


def bench_in_process(body: bytes, repeat: int) -> None:
    print("### In-process, no server")
    print()
    TABLES.head(["what", "time", "against"], "In-process, no server")
    t_loads, t_check = interleaved(lambda: json.loads(body), lambda: check_whole(body), repeat)
    mib = len(body) / (1 << 20)
    ratio = t_check / t_loads
    verdict = "met" if ratio <= JSON_GOAL else "MISSED"
    TABLES.markdown_row(
        f"| check_head + body_check, {mib:.2f} MiB JSON in 64 KiB chunks | {t_check * 1e3:.2f} ms"
        f" ({mib / t_check:.0f} MiB/s) | json.loads {t_loads * 1e3:.2f} ms:"
        f" {ratio:.2f}x its time (goal <= {JSON_GOAL}x: {verdict}) |"
    )
    upload = multipart_file()
    chunks = [upload[i : i + (1 << 16)] for i in range(0, len(upload), 1 << 16)]
    t_file = best_per_call(functools.partial(check_multipart, chunks), repeat)
    rate = len(upload) / t_file / 1e9
    verdict = "met" if rate >= FILE_GOAL else "MISSED"
    TABLES.markdown_row(
        f"| the same, a {len(upload) / (1 << 20):.0f} MiB multipart upload (a file part)"
        f" | {t_file * 1e3:.2f} ms | {rate:.2f} GB/s (goal >= {FILE_GOAL} GB/s: {verdict}) |"
    )
    for label, hostile in HOSTILE_JSON:
        t_loads = best_per_call(functools.partial(json.loads, hostile), repeat)
        t_check = best_per_call(functools.partial(check_whole, hostile), repeat)
        TABLES.markdown_row(
            f"| the same, 1 MiB of {label} | {t_check * 1e3:.2f} ms"
            f" | json.loads {t_loads * 1e3:.2f} ms: {t_check / t_loads:.2f}x its time |"
        )
    for request in SMALL:
        t_plain = best_per_call(in_memory(fixed, request), repeat)
        t_checked = best_per_call(in_memory(checked, request), repeat)
        TABLES.markdown_row(
            f"| middleware on one request: {request.label} | +{(t_checked - t_plain) * 1e6:.1f} µs"
            f" | the bare app through ASGI in memory: {t_plain * 1e6:.1f} µs |"
        )
    print()


def profile(title: str, run: Callable[[], None], calls: int, top: int = 15) -> None:
    """cProfile ``calls`` calls of ``run``: the ``top`` functions of sanitizer/ by own time."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        run()
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).sort_stats("tottime")
    stats.print_stats(r"sanitizer/", top)  # only functions in the package
    text = out.getvalue().replace(str(ROOT) + os.sep, "")
    print(f"### cProfile: {calls} x {title}")
    print()
    print("```")
    print(text[text.find("   ncalls") :].rstrip())
    print("```")
    print()


def profile_small(calls: int = 20000) -> None:
    for request in SMALL:
        run = in_memory(checked, request)
        profile(f"{request.label} through ASGIMiddleware (in memory)", run, calls)


def _exchange(sock: socket.socket, raw: bytes) -> None:
    """Send one request and read its answer (``fixed``'s: 2 bytes, "ok")."""
    sock.sendall(raw)
    answer = b""
    while not answer.endswith(b"\r\n\r\nok"):
        data = sock.recv(65536)
        if not data:
            raise RuntimeError(f"server closed the connection after {answer!r}")
        answer += data
    if not answer.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"unexpected answer {answer!r}")


def server_instructions(app: str, http: str, loop: str, requests: list[bytes]) -> int:
    """Instructions uvicorn serving ``app`` executes in all, start to stop, under
    callgrind, while ``requests`` are sent one at a time on one connection."""
    with tempfile.TemporaryDirectory(prefix="bench_web_cg_") as folder:
        out = Path(folder) / "callgrind.out"
        port = free_port()
        command = [
            *("valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"),
            *(sys.executable, "-m", "uvicorn", f"bench_web:{app}", "--host", HOST),
            *("--port", str(port), "--workers", "1", "--no-access-log"),
            *("--log-level", "warning", "--lifespan", "off", "--http", http, "--loop", loop),
        ]
        path = os.pathsep.join([str(HERE), str(ROOT), os.environ.get("PYTHONPATH", "")])
        env = {**os.environ, "PYTHONPATH": path}
        with running(command, port, env=env, output=subprocess.DEVNULL, timeout=300):
            with socket.create_connection((HOST, port)) as sock:
                for raw in requests:
                    _exchange(sock, raw)
        for line in out.read_text().splitlines():  # written once the server has stopped
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError("callgrind wrote no total")


def bench_instructions(http: str, loop: str, n: int) -> None:
    """The small requests' server-side instructions, without and with the middleware."""
    get, post = (request.raw() for request in SMALL)
    print(f"### Small requests: uvicorn's instructions per request (callgrind, n = {n})")
    print()
    TABLES.head(
        ["request", "without", "with", "ratio (without / with)", "goal"],
        f"Small requests: uvicorn's instructions per request (callgrind, n = {n})",
    )
    counts = {}
    for app in ("plain", "checked"):
        base = server_instructions(app, http, loop, [get] * n)
        gets = server_instructions(app, http, loop, [get] * (3 * n))
        posts = server_instructions(app, http, loop, [get] * n + [post] * (2 * n))
        counts[app] = ((gets - base) / (2 * n), (posts - base) / (2 * n))
    for i, request in enumerate(SMALL):
        without, with_ = counts["plain"][i], counts["checked"][i]
        ratio = without / with_
        verdict = "met" if ratio >= GOAL else "MISSED"
        TABLES.markdown_row(
            f"| {request.label} | {without / 1e3:.0f}K | {with_ / 1e3:.0f}K"
            f" (+{(with_ - without) / 1e3:.1f}K) | {ratio:.3f}x | >= {GOAL}x: {verdict} |"
        )
    print()


def profile_big(body: bytes, calls: int = 3) -> None:
    mib = len(body) / (1 << 20)
    profile(f"check_head + body_check, {mib:.2f} MiB JSON", lambda: check_whole(body), calls)


# -- main ---------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer, shorter rounds")
    parser.add_argument("--client", choices=["auto", "wrk", "python"], default="auto")
    parser.add_argument("--connections", type=int, default=32, help="client connections")
    parser.add_argument("--rounds", type=int, help="rounds per small request (default 11)")
    parser.add_argument("--seconds", type=float, help="seconds per measurement (default 2.5)")
    parser.add_argument("--http", default="auto", help="uvicorn --http (auto, h11, ...)")
    parser.add_argument("--loop", default="auto", help="uvicorn --loop (auto, asyncio, ...)")
    parser.add_argument("--profile", action="store_true", help="cProfile small requests")
    parser.add_argument(
        "--instructions", action="store_true", help="small requests under callgrind only"
    )
    parser.add_argument("--requests", type=int, default=300, help="n for --instructions")
    _figures.add_argument(parser)
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 11)  # many short rounds: a steadier median
    seconds = args.seconds or (2.0 if args.quick else 2.5)
    repeats = 10 if args.quick else 30
    pin = pinning()
    if pin.client_core is not None:  # this process is a client too (latency, python client)
        os.sched_setaffinity(0, {pin.client_core})
    client: Client
    if args.client == "wrk" or (args.client == "auto" and shutil.which("wrk")):
        client = Wrk(pin, args.connections)
    else:
        why = "asked for" if args.client == "python" else "wrk not found"
        client = PythonClient(pin, args.connections, why)

    import uvicorn as uv

    http = args.http
    if http == "auto":
        http = "httptools" if _importable("httptools") else "h11"
    loop = args.loop
    if loop == "auto":
        loop = "uvloop" if _importable("uvloop") else "asyncio"
    python = sys.version.split()[0]
    if args.instructions:
        print(f"sanitizer {sanitizer.__version__}, runner: {sanitizer.BACKEND}, Python {python}")
        print(f"uvicorn {uv.__version__} (--http {http}, --loop {loop}), under callgrind")
        print()
        bench_instructions(http, loop, args.requests)
        if args.write_docs:
            _figures.write(
                "web_instructions",
                summary="the server's instructions per request under callgrind, with and "
                "without the middleware, from runs of n, 3n and n + 2n requests (start-up "
                "cancels out).",
                goals=f">= {GOAL}x.",
                tables=TABLES.tables,
                note=f"uvicorn {uv.__version__} (--http {http}, --loop {loop})",
            )
        return 0
    print(f"sanitizer {sanitizer.__version__}, runner: {sanitizer.BACKEND}, Python {python}")
    print(f"uvicorn {uv.__version__} (--http {http}, --loop {loop}), one worker, no access log")
    print(f"client: {client.describe()}")
    print(f"pinning: {pin.text}")
    print()

    with contextlib.ExitStack() as stack:
        ports = {
            name: stack.enter_context(uvicorn(name, pin, http, loop))
            for name in ("plain", "checked")
        }
        met = bench_small(client, ports, rounds, seconds)
    body = big_json()
    with contextlib.ExitStack() as stack:
        ports = {
            name: stack.enter_context(uvicorn(name, pin, http, loop))
            for name in ("reader", "reader_checked")
        }
        bench_big(ports, body, repeats)
    bench_in_process(body, 3 if args.quick else 7)
    print(
        f"Goal (small requests >= {GOAL}x without the middleware): " + ("met" if met else "MISSED")
    )
    print()
    if args.write_docs:
        _figures.write(
            "web",
            summary="a minimal ASGI app with `ASGIMiddleware` against the same app without "
            "it, same client, same run; then large bodies and the checks in process.",
            goals=f"small requests >= {GOAL}x ({'met' if met else 'missed'}); a 1 MiB JSON body "
            f"<= {JSON_GOAL}x `json.loads`; multipart file parts >= {FILE_GOAL} GB/s.",
            tables=TABLES.tables,
            note=f"uvicorn {uv.__version__} (--http {http}, --loop {loop}); "
            f"client: {client.describe()}; pinning: {pin.text}",
        )
    if args.profile or not met:
        profile_small()
    if args.profile:
        profile_big(body)
    return 0


def _importable(name: str) -> bool:
    try:
        __import__(name)
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    raise SystemExit(main())
