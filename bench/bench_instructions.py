#!/usr/bin/env python3
"""Instructions per call of the hot entry points, counted by valgrind's callgrind.

Wall time on shared 2-core machines is noisy; instruction counts are repeatable for the
same binary and inputs whatever else the machine is doing.  Each workload runs in its own
process twice under callgrind, with N and with 2N calls after the same set-up, from
scripts that differ in that one number (``PYTHONHASHSEED=0``); the difference divided by
N is the cost of one call.  Start-up, imports and set-up cancel exactly: a set-up-only
script would differ in its text, and that alone moves start-up by 0.1-0.5M instructions,
a few percent of a small workload.

    python bench/bench_instructions.py                      # this checkout
    python bench/bench_instructions.py --baseline ../old    # and another checkout, as a ratio

``--baseline`` takes the root of another checkout of this project (e.g. a ``git worktree``
of an older commit with its C extension built in place: ``python setup.py build_ext
--inplace``), so a refactor can show it costs nothing measurable.  Needs ``valgrind``
(``apt-get install valgrind``).  Only public names are used, so any version runs it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import _figures

# name: (calls counted, code run per call); set-up is shared by every workload.
SETUP = """
import sanitizer
from sanitizer import profiles
from sanitizer.web import WebPolicy, body_check, check_head

latin = ("Grüße aus Köln, café crème. " * 40000).encode()[: 1 << 20]
small = "Grüße aus Köln, café".encode()
ident = "josé_müller"
headers = [
    (b"host", b"example.com"),
    (b"user-agent", b"Mozilla/5.0 (X11; Linux x86_64)"),
    (b"accept", b"text/html,application/xhtml+xml"),
    (b"cookie", b"session=abc123; theme=dark"),
]
query = "q=caf%C3%A9+cr%C3%A8me&page=2&sort=asc".encode()
json_head = [
    (b"host", b"example.com"),
    (b"content-type", b"application/json"),
    (b"content-length", b"120"),
]
json_body = (
    '{"name": "José Müller", "city": "Zürich", "note": "日本語のテキスト", '
    '"tags": ["a", "b"], "emoji": "👍🏽"}'
).encode()
web = WebPolicy()


def json_post():
    problem, head = check_head(web, b"/api", b"", json_head)
    body = body_check(web, head)
    body.feed(json_body)
    body.close()


# warm every path once, so lazy set-up is not counted
sanitizer.sanitize(small, profiles.TEXT)
sanitizer.inspect(ident, profiles.IDENTIFIER)
check_head(web, b"/search", query, headers)
json_post()
"""

WORKLOADS: dict[str, tuple[int, str]] = {
    "decode 1 MiB Latin": (20, "sanitizer.decode(latin)"),
    "sanitize 22 B (TEXT)": (2000, "sanitizer.sanitize(small, profiles.TEXT)"),
    "sanitize 1 MiB (TEXT)": (10, "sanitizer.sanitize(latin, profiles.TEXT)"),
    "inspect identifier": (2000, "sanitizer.inspect(ident, profiles.IDENTIFIER)"),
    "check_head, GET": (2000, "check_head(web, b'/search', query, headers)"),
    "JSON POST, head + body": (1000, "json_post()"),
}

_COLLECTED = re.compile(r"Collected : (\d+)")


def _instructions(root: Path, code: str) -> int:
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONHASHSEED="0")
    env.pop("SANITIZER_PURE_PYTHON", None)
    out = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            code,
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    match = _COLLECTED.search(out.stderr)
    if match is None:  # pragma: no cover - valgrind changed its output
        raise SystemExit(f"no instruction count in valgrind's output:\n{out.stderr[-2000:]}")
    return int(match.group(1))


def per_call(root: Path, calls: int, statement: str) -> int:
    """Instructions of one ``statement`` in the checkout at ``root``."""

    def script(n: int) -> str:
        return f"{SETUP}\nfor _ in range({n:>9}):\n    {statement}\n"

    return (_instructions(root, script(2 * calls)) - _instructions(root, script(calls))) // calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="root of another checkout to compare")
    _figures.add_argument(parser)
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    here = Path(__file__).resolve().parent.parent
    rows = []
    for name, (calls, statement) in WORKLOADS.items():
        now = per_call(here, calls, statement)
        then = per_call(args.baseline.resolve(), calls, statement) if args.baseline else None
        rows.append((name, now, then))
        print(f"  {name}: {now:,}" + (f" (baseline {then:,})" if then else ""), file=sys.stderr)
    out = _figures.Tables()
    out.head(
        ["workload", "instructions per call", *(["baseline", "ratio"] if args.baseline else [])]
    )
    for name, now, then in rows:
        out.row(name, f"{now:,}", *([f"{then:,}", f"{now / then:.3f}"] if then else []))
    if args.write_docs:
        _figures.write(
            "instructions",
            summary="instructions per call under callgrind (repeatable whatever else the "
            "machine does)"
            + (", against the baseline checkout; same inputs, same run." if args.baseline else "."),
            tables=out.tables,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
