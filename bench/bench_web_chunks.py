"""What chunking costs sanitizer.web.

Chunk count: the same 1 MiB body of non-ASCII text (text/plain, urlencoded form,
multipart text field, JSON string) fed to ``body_check`` in 1, 64 and 4,096 chunks.
Goal: time(4,096) / time(1) <= 1.5.  ``BodyCheck`` gathers small chunks (at most a
quarter of what it looked at before, at most 64 KiB) before a content check looks at
them, so the per-chunk cost is one short Python call; ``floor`` is what the loop costs
with a ``feed`` that does nothing, which no check can go below.  Each figure is the best
of ``--runs`` runs, the chunk counts interleaved so that load on the machine falls on
all of them alike; for figures independent of load, count instructions:
``valgrind --tool=callgrind`` over a script that feeds one body (minus the same script
that only builds the pieces).  ``faults`` is the minor page faults per body (from
``getrusage``) at 1 and 4,096 chunks: fresh memory a copy would touch shows there, which
callgrind does not count.  The peak RSS of huge uploads, per server, is
bench/bench_web_rss.py.

    python bench/bench_web_chunks.py [--runs 9]
"""

from __future__ import annotations

import argparse
import resource
import time
import urllib.parse

import _figures

CHUNK_COUNTS = (1, 64, 4096)


def chunk_ratios(runs: int = 9) -> list[list[str]]:
    """Prints a line per body; returns the rows for the docs (``--write-docs``)."""
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

    class Nothing:
        def feed(self, chunk: bytes) -> object:
            return None

    print(f"{'body':<12}" + "".join(f"{n:>10} ch" for n in CHUNK_COUNTS) + "   ratio")
    rows = []
    for name, (content_type, body) in bodies.items():
        _, head = check_head(policy, b"/", b"", [(b"content-type", content_type)])
        split = {}
        for count in CHUNK_COUNTS:
            size = -(-len(body) // count)
            split[count] = [body[i : i + size] for i in range(0, len(body), size)]
        best = dict.fromkeys(CHUNK_COUNTS, float("inf"))
        floor = float("inf")
        for _ in range(runs):
            for count, pieces in split.items():
                check = body_check(policy, head)
                start = time.perf_counter()
                for piece in pieces:
                    assert check.feed(piece) is None
                assert check.close() is None
                best[count] = min(best[count], time.perf_counter() - start)
            nothing = Nothing()
            start = time.perf_counter()
            for piece in split[CHUNK_COUNTS[-1]]:
                assert nothing.feed(piece) is None
            floor = min(floor, time.perf_counter() - start)
        faults = [_faults(policy, head, split[count], runs) for count in (1, CHUNK_COUNTS[-1])]
        times = [best[count] for count in CHUNK_COUNTS]
        cells = "".join(f"{t * 1000:>10.2f} ms" for t in times)
        ratio, least = times[-1] / times[0], (times[0] + floor) / times[0]
        print(
            f"{name:<12}{cells}   {ratio:.2f}x  (floor {floor * 1000:.2f} ms: {least:.2f}x)"
            f"  faults {faults[0]:.0f} (1 ch), {faults[1]:.0f} (4,096 ch)"
        )
        rows.append([name, *(f"{t * 1000:.2f} ms" for t in times), f"{ratio:.2f}x"])
    return rows


def _faults(policy: object, head: object, pieces: list[bytes], runs: int) -> float:
    """Minor page faults per body fed in ``pieces`` (the mean over ``runs`` bodies)."""
    from sanitizer.web._dispatch import body_check

    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(runs):
        check = body_check(policy, head)  # type: ignore[arg-type]
        for piece in pieces:
            check.feed(piece)
        check.close()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=25)
    _figures.add_argument(parser)
    args = parser.parse_args()
    rows = chunk_ratios(args.runs)
    if args.write_docs:
        columns = ["body", *(f"{n:,} chunk{'s' if n > 1 else ''}" for n in CHUNK_COUNTS)]
        _figures.write(
            "web_chunks",
            summary="the same 1 MiB of non-ASCII text checked in "
            f"{', '.join(map(str, CHUNK_COUNTS))} chunks, best of {args.runs}.",
            goals="4,096 chunks / 1 chunk <= 1.5x.",
            tables=[_figures.table([*columns, "ratio 4,096 / 1"], rows)],
        )


if __name__ == "__main__":
    main()
