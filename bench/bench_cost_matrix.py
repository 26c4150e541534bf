#!/usr/bin/env python3
"""The cost matrix: every kind of text, legitimate or hostile, through every API, as a
ratio to the clean path, so that no kind of text falls off a cliff.

Each cell is the time of one API on one kind of text (tests/policy/text_classes.py, repeated to
the same byte size) divided by the larger of two baselines measured in the same run: the
same API on clean CJK text of that size, and ``bytes.decode`` of the same input (clean
CJK through ``inspect`` runs at memory speed, faster than any text with findings can be
judged; no cell is asked to beat the decode of its own input).  Goals: legitimate kinds
<= 3x, hostile kinds <= 10x.  Best of several interleaved rounds.

    python bench/bench_cost_matrix.py                 # 256 KiB per kind
    python bench/bench_cost_matrix.py --size 1048576 --write-docs
    python bench/bench_cost_matrix.py --check   # with sanitizer check columns (per MB, RSS)

The ASGI columns are ``sanitizer.web.ASGIMiddleware`` (default policy) on the kind as a
text/plain body and as form fields (a word a field, percent-encoded), in messages of
64 KiB; the check columns run ``sanitizer check`` without a policy and with SOURCE and
TEXT, a process a run, and count its CPU time less that of a run on an empty file.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _figures
from _timing import best

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import sanitizer
from sanitizer import Policy, precis, profiles
from sanitizer import _policy as policy
from tests.policy.text_classes import HOSTILE, LEGITIMATE, sample
from tests.web.webapps import asgi_sink

# every profile but FILENAME (IDENTIFIER's rules, for one path segment)
PROFILES = tuple(n.upper().replace("-", "_") for n in profiles.NAMES if n != "filename")


def _quiet(fn: Callable[[bytes], object]) -> Callable[[bytes], object]:
    def call(data: bytes) -> object:
        try:
            return fn(data)
        except (ValueError, UnicodeError, sanitizer.PolicyError):
            return None

    return call


def apis() -> dict[str, Callable[[bytes], object]]:
    """API name: a call on UTF-8 bytes."""
    out: dict[str, Callable[[bytes], object]] = {"decode": _quiet(sanitizer.decode)}
    for name in PROFILES:
        p: Policy = getattr(profiles, name)
        out[f"inspect {name}"] = functools.partial(_on, policy.inspect, p)
        out[f"sanitize {name}"] = _quiet(functools.partial(_on, policy.sanitize, p))
        out[f"accepts {name}"] = functools.partial(_on, policy.accepts, p)
    return out


def _on(fn: Callable[[bytes, Policy], object], p: Policy, data: bytes) -> object:
    return fn(data, p)


def bytes_call(fn: Callable[[bytes], object], data: bytes) -> Callable[[], object]:
    return functools.partial(fn, data)


def text_call(fn: Callable[[str], object], data: bytes) -> Callable[[], object]:
    """``fn`` on ``data`` decoded (with replacement) outside the timed call."""
    return functools.partial(fn, data.decode("utf-8", "replace"))


def text_apis() -> dict[str, Callable[[str], object]]:
    username = precis.get_profile("UsernameCaseMapped")

    def enforce(s: str) -> object:
        try:
            return username.enforce(s)
        except precis.PrecisError:
            return None

    return {
        "reveal": sanitizer.reveal,
        "check_source": sanitizer.check_source,
        "identifier_key": sanitizer.identifier_key,
        "PRECIS enforce": enforce,
    }


# -- the ASGI middleware on a body, in messages of a server's size ----------------------

MESSAGE = 64 << 10  # bytes a message: what uvicorn hands over at a time


_MIDDLEWARE: list[Any] = []


def asgi_call(content_type: bytes, body: bytes) -> None:
    """One POST of ``body`` through ``sanitizer.web.ASGIMiddleware`` (default policy)."""
    if not _MIDDLEWARE:
        import logging

        from sanitizer.web import ASGIMiddleware

        logging.getLogger("sanitizer.web").setLevel(logging.CRITICAL)  # a refusal a call

        _MIDDLEWARE.append(ASGIMiddleware(asgi_sink))
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/", "raw_path": b"/", "query_string": b"", "root_path": "",
        "headers": headers, "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80),
    }  # fmt: skip
    step = range(0, len(body), MESSAGE)
    messages = iter(
        [
            {
                "type": "http.request",
                "body": body[i : i + MESSAGE],
                "more_body": i + MESSAGE < len(body),
            }
            for i in step
        ]
    )

    async def receive() -> dict[str, Any]:
        return next(messages, {"type": "http.disconnect"})

    async def send(message: dict[str, Any]) -> None:
        pass

    asyncio.run(_MIDDLEWARE[0](scope, receive, send))


def as_form(data: bytes) -> bytes:
    """``data`` as form fields, a word a field, percent-encoded (as a browser sends it)."""
    from urllib.parse import quote_from_bytes

    return b"&".join(b"f=" + quote_from_bytes(w).encode() for w in data.split(b" ") if w)


def asgi_apis() -> dict[str, Callable[[bytes], object]]:
    text = functools.partial(asgi_call, b"text/plain; charset=utf-8")
    form = b"application/x-www-form-urlencoded"
    return {
        "ASGI text body": text,
        "ASGI form body": lambda data: asgi_call(form, as_form(data)),
    }


# -- sanitizer check, one process a run ---------------------------------------------------

CHECKS = {"check": (), "check SOURCE": ("--policy", "SOURCE"), "check TEXT": ("--policy", "TEXT")}


# A small wrapper process runs each check and reports its children's usage: the peak
# RSS of a child forked straight from this (large) process would count this one's pages.
_MEASURE = (
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(u.ru_utime + u.ru_stime, u.ru_maxrss)\n"
)


def check_run(options: tuple[str, ...], path: str) -> tuple[float, int]:
    """(CPU seconds, peak RSS in KiB) of ``sanitizer check`` on ``path`` in a process of
    its own (the checkout's package: PYTHONPATH)."""
    root = str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "sanitizer", "check", "--progress", "never", *options, path]
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, *cmd],
        capture_output=True,
        env=env,
        cwd=tempfile.gettempdir(),
        check=True,
    ).stdout.split()
    return float(out[0]), int(out[1])


class Checks:
    """``sanitizer check`` per byte: the CPU time of a run less that of a run on an empty
    file (the interpreter's start-up), best of ``repeats``; the peak RSS of each run."""

    def __init__(self, repeats: int) -> None:
        self.repeats = repeats
        self.dir = tempfile.TemporaryDirectory()
        empty = self.file(b"", "empty.txt")
        self.start = {name: self.best(opts, empty)[0] for name, opts in CHECKS.items()}
        self.rss: dict[str, tuple[int, str]] = {}

    def file(self, data: bytes, name: str = "input.txt") -> str:
        path = os.path.join(self.dir.name, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def best(self, options: tuple[str, ...], path: str) -> tuple[float, int]:
        runs = [check_run(options, path) for _ in range(self.repeats)]
        return min(cpu for cpu, _ in runs), max(rss for _, rss in runs)

    def cost(self, name: str, data: bytes, kind: str) -> float:
        cpu, rss = self.best(CHECKS[name], self.file(data))
        if rss > self.rss.get(name, (0, ""))[0]:
            self.rss[name] = (rss, kind)
        return max(cpu - self.start[name], 1e-6)


def by_profile(table: dict[str, Any]) -> list[dict[str, Any]]:
    """The matrix as the docs page shows it, one table per profile (and one for the APIs
    of no profile), each with the kind, its goal and its worst cell: 23 columns do not
    fit a page."""
    columns, rows = table["columns"], table["rows"]
    fixed = columns[:3]
    groups: dict[str, list[int]] = {}
    for i, name in enumerate(columns[3:], 3):
        api, _, profile = name.partition(" ")
        key = profile if api in ("inspect", "sanitize", "accepts") else ""
        groups.setdefault(key, []).append(i)
    return [
        {
            "caption": f"under {key}" if key else "APIs without a profile",
            "columns": [*fixed, *(columns[i] for i in picked)],
            "rows": [[*row[:3], *(row[i] for i in picked)] for row in rows],
        }
        for key, picked in groups.items()
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--size", type=int, default=256 * 1024, help="bytes per kind")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default="", help="kinds whose name contains this")
    parser.add_argument("--note", default="", help="what the docs say of the machine")
    parser.add_argument(
        "--check",
        action="store_true",
        help="add sanitizer check columns (a process a run: CPU time less start-up, peak RSS)",
    )
    _figures.add_argument(parser)
    args = parser.parse_args(argv)
    by_bytes = {**apis(), **asgi_apis()}
    by_text = text_apis()
    checks = Checks(args.repeats) if args.check else None
    names = [*by_bytes, *by_text, *(CHECKS if checks is not None else ())]
    kinds = [k for k in (*LEGITIMATE, *HOSTILE) if args.only.lower() in k.lower()]
    clean = sample("CJK", args.size)
    calls: dict[str, Callable[[bytes], Callable[[], object]]] = {}
    for api, fn in by_bytes.items():
        calls[api] = functools.partial(bytes_call, fn)
    for api, tfn in by_text.items():
        calls[api] = functools.partial(text_call, tfn)

    def timed(make: Callable[[], object]) -> float:
        return best(make, args.repeats)

    def cost(api: str, data: bytes, kind: str) -> float:
        if api in CHECKS:
            assert checks is not None
            return checks.cost(api, data, kind)
        return timed(calls[api](data))

    base = {api: cost(api, clean, "CJK") for api in names}
    tables = _figures.Tables()
    tables.head(["kind", "goal", "worst", *names])
    worst_cells: list[tuple[float, str, str]] = []
    for kind in kinds:
        data = sample(kind, args.size)
        decode = timed(functools.partial(data.decode, "utf-8", "replace"))
        goal = 3.0 if kind in LEGITIMATE else 10.0
        ratios = []
        for api in names:
            ratio = cost(api, data, kind) / max(base[api], decode)
            ratios.append(ratio)
            worst_cells.append((ratio / goal, kind, api))
        tables.row(
            kind,
            f"<= {goal:g}x",
            f"{max(ratios):.1f}x",
            *(f"{r:.1f}" for r in ratios),
        )
    worst_cells.sort(reverse=True)
    over = [
        f"{k} / {a}: {r * (3 if k in LEGITIMATE else 10):.1f}x" for r, k, a in worst_cells if r > 1
    ]
    print(f"cells over their goal: {len(over)}")
    for line in over:
        print("  " + line)
    rss = [] if checks is None else [
        f"{name}: peak RSS {kib // 1024} MiB ({kind})" for name, (kib, kind) in checks.rss.items()
    ]  # fmt: skip
    for line in rss:
        print(line)
    if args.write_docs:
        _figures.write(
            "cost_matrix",
            summary="Each kind of text (tests/policy/text_classes.py) through each API, as a ratio "
            "to max(the same API on clean CJK text of the same byte size, bytes.decode of "
            f"the same input), {args.size // 1024} KiB per kind, best of {args.repeats}.",
            goals="legitimate kinds <= 3x, hostile kinds <= 10x, every cell.",
            tables=[t for table in tables.tables for t in by_profile(table)],
            notes=[f"cells over their goal: {len(over)}", *over[:20], *rss],
            note=args.note,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
