"""Issue #10: what chunking and huge uploads cost sanitizer.web.

1. Chunk count: the same 1 MiB body of non-ASCII text (text/plain, urlencoded form,
   multipart text field, JSON string) fed to ``body_check`` in 1, 64 and 4,096 chunks.
   Goal: time(4,096) / time(1) <= 1.5.
2. Peak RSS of a chunked upload (default 1 GiB) through ``WSGIMiddleware``: in-process
   with a fake endless ``wsgi.input`` (the app reads with read(), read(-1) and read(8192)),
   and under waitress over a loopback socket.  ``max_body_size`` is set above the upload,
   so the whole body streams through the checks.  Goal: < 64 MiB.  Each run is a child
   process, so its peak RSS is its own; everything stops by itself (bounded sizes,
   timeouts) and talks only to 127.0.0.1.

    python bench/bench_web_chunks.py [--size-mib 1024] [--skip-waitress]
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
import urllib.parse
from typing import Any

CHUNK_COUNTS = (1, 64, 4096)


def chunk_ratios() -> None:
    from sanitizer.web import WebPolicy
    from sanitizer.web._dispatch import body_check
    from sanitizer.web._head import check_head

    policy = WebPolicy(max_body_size=None)
    text = ("é" * (1 << 19)).encode()  # 1 MiB
    boundary = b"XyZ"
    bodies = {
        "text/plain": (b"text/plain; charset=utf-8", text),
        "form": (
            b"application/x-www-form-urlencoded",
            b"a=" + urllib.parse.quote_from_bytes(text).encode(),
        ),
        "multipart": (
            b"multipart/form-data; boundary=" + boundary,
            b'--XyZ\r\nContent-Disposition: form-data; name="t"\r\n\r\n'
            + text
            + b"\r\n--XyZ--\r\n",
        ),
        "json": (b"application/json", b'["' + text + b'"]'),
    }
    print(f"{'body':<12}" + "".join(f"{n:>10} ch" for n in CHUNK_COUNTS) + "   ratio")
    for name, (content_type, body) in bodies.items():
        _, head = check_head(policy, b"/", b"", [(b"content-type", content_type)])
        times = []
        for count in CHUNK_COUNTS:
            size = -(-len(body) // count)
            pieces = [body[i : i + size] for i in range(0, len(body), size)]
            best = float("inf")
            for _ in range(3):
                check = body_check(policy, head)
                start = time.perf_counter()
                for piece in pieces:
                    assert check.feed(piece) is None
                assert check.close() is None
                best = min(best, time.perf_counter() - start)
            times.append(best)
        cells = "".join(f"{t * 1000:>10.1f} ms" for t in times)
        print(f"{name:<12}{cells}   {times[-1] / times[0]:.2f}x")


def peak_rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def in_process(size: int, how: str) -> None:
    """Child: stream ``size`` bytes of text through WSGIMiddleware; print peak RSS."""
    from sanitizer.web import WSGIMiddleware

    line = ("é" * 40 + "\n").encode()

    class Endless:
        def __init__(self) -> None:
            self.left = size

        def read(self, n: int | None = None) -> bytes:
            if n is None or n < 0:
                raise OSError("this server refuses read() without a size")
            n = min(n, self.left)
            at = (size - self.left) % len(line)  # go on where the last read stopped
            self.left -= n
            return (line * (n // len(line) + 2))[at : at + n]

    def app(environ, start_response):  # type: ignore[no-untyped-def]
        stream = environ["wsgi.input"]
        total = 0
        if how == "read":
            total = len(stream.read())
        else:
            while chunk := stream.read(8192):
                total += len(chunk)
        start_response("200 OK", [])
        return [str(total).encode()]

    # read() asks for the whole body: the default 16 MiB limit answers 413 at 16 MiB.
    mw = WSGIMiddleware(app, max_body_size=size + 1) if how == "loop" else WSGIMiddleware(app)
    status: list[str] = []
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/",
        "QUERY_STRING": "",
        "CONTENT_TYPE": "text/plain; charset=utf-8",
        "wsgi.input": Endless(),
        "wsgi.input_terminated": True,
    }
    start = time.perf_counter()
    stream = environ["wsgi.input"]

    def start_response(s: str, headers: Any, exc_info: Any = None) -> Any:
        status.append(s)
        return lambda data: None

    b"".join(mw(environ, start_response))
    took = time.perf_counter() - start
    passed = (size - stream.left) >> 20  # type: ignore[attr-defined]
    print(
        f"in-process, app {how:>5}: {status[-1][:3]} after {passed} MiB read, {took:.1f} s, "
        f"peak RSS {peak_rss_mib():.0f} MiB"
    )


def waitress_server(port: int, size: int) -> None:
    """Child: waitress with WSGIMiddleware; prints its peak RSS after each request."""
    import waitress  # type: ignore[import-untyped]

    from sanitizer.web import WSGIMiddleware

    def app(environ, start_response):  # type: ignore[no-untyped-def]
        total = 0
        while chunk := environ["wsgi.input"].read(65536):
            total += len(chunk)
        start_response("200 OK", [])
        print(f"waitress: app got {total >> 20} MiB, peak RSS {peak_rss_mib():.0f} MiB", flush=True)
        return [b"ok"]

    waitress.serve(
        WSGIMiddleware(app, max_body_size=size + (2 << 20)),
        host="127.0.0.1",
        port=port,
        max_request_body_size=size + (2 << 20),
        _quiet=True,
    )


def under_waitress(size: int) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = (
        f"import sys; sys.path.insert(0, {sys.path[0]!r}); import bench_web_chunks as b; "
        f"b.waitress_server({port}, {size})"
    )
    server = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=60)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        with conn:
            conn.sendall(
                b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain; "
                b"charset=utf-8\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            )
            block = ("é" * 40 + "\n").encode() * 1500  # ~120 KiB
            frame = b"%x\r\n%s\r\n" % (len(block), block)
            sent = 0
            start = time.perf_counter()
            while sent < size and time.perf_counter() - start < 300:
                conn.sendall(frame)
                sent += len(block)
            conn.sendall(b"0\r\n\r\n")
            reply = conn.recv(200)
        answer = reply.split(b"\r\n", 1)[0].decode()
        print(f"waitress: sent {sent >> 20} MiB in {time.perf_counter() - start:.1f} s: {answer}")
        time.sleep(0.5)
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--skip-waitress", action="store_true")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    size = args.size_mib << 20
    if args.child:
        in_process(int(args.child[0]), args.child[1])
        return
    chunk_ratios()
    for how in ("read", "loop"):
        subprocess.run(
            [sys.executable, __file__, "--child", str(size), how], check=True, timeout=900
        )
    if not args.skip_waitress:
        under_waitress(size)


if __name__ == "__main__":
    main()
