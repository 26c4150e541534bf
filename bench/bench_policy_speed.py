"""Benchmark: ``sanitize(data, profiles.TEXT)`` at 1 MiB against ``bytes.decode``.

Why: sanitize must produce the ``str`` a decode produces, so its cost (decoding, which
with the C extension is its own: the SIMD validator, then ASCII 32 bytes at a time; the
class scan; the edits when TEXT strips or replaces something) is stated as a throughput
ratio to ``bytes.decode`` on the same bytes: decode time / sanitize time, goal >= 0.8.  Input
kinds: clean ASCII, Latin, CJK, emoji and English prose with typographic quotes (a
2-byte str that is mostly ASCII), and prose in which TEXT strips zero-width spaces and
replaces noncharacters.  A script, not a test.

    python bench/bench_policy_speed.py               # time: min of interleaved runs
    python bench/bench_policy_speed.py --instructions  # callgrind instruction counts

Time is the thread's CPU time (``time.thread_time``: time spent waiting for a core on a
busy machine is not counted, cache contention still is); decode and sanitize are
interleaved and the minimum of the repeats is taken, in a process whose large blocks come
from a heap that keeps its pages (``bench/_allocator.py``: otherwise page faults decide
the ratio).  ``--instructions`` runs each in its
own process under valgrind's callgrind with 0 and 3 calls after the same set-up and
divides the difference (repeatable, but an instruction count is not a time: the AVX2
loops do more per instruction than CPython's decoder does).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _figures
from _allocator import steady_heap
from bench_policy import UNITS as POLICY_UNITS  # the same texts as bench_policy.py

from sanitizer import profiles, sanitize

UNITS = {
    **POLICY_UNITS,
    "prose": "\u201cIt\u2019s fine\u201d, she said \u2014 and left the café at 5\u00a0pm.\n",
    # TEXT strips U+200B ZERO WIDTH SPACE and replaces U+FFFE (a noncharacter)
    "prose+edits": "\u201cIt\u2019s fine\u201d, she\u200b said \u2014 and left the café\ufffe.\n",
    "Latin+1 strip": "",  # Latin, one ZWSP in the middle: a wide str that narrows
}
SIZE = 1 << 20


def make(kind: str, size: int = SIZE) -> bytes:
    """``size`` bytes of the kind's unit repeated, cut at a character boundary."""
    if kind == "Latin+1 strip":
        latin = make("Latin", size - 3)
        return latin[: size // 2] + "\u200b".encode() + latin[size // 2 :]
    unit = UNITS[kind].encode()
    raw = unit * (size // len(unit) + 1)
    return raw[:size].decode("utf-8", "ignore").encode()


def wall(kind: str, repeats: int) -> tuple[float, float]:
    """(decode s, sanitize s): CPU time, min over interleaved repeats."""
    data = make(kind)
    expected = sanitize(data, profiles.TEXT)
    assert isinstance(expected, str)
    best_d = best_s = float("inf")
    for _ in range(repeats):
        t = time.thread_time()
        data.decode("utf-8")
        best_d = min(best_d, time.thread_time() - t)
        t = time.thread_time()
        sanitize(data, profiles.TEXT)
        best_s = min(best_s, time.thread_time() - t)
    return best_d, best_s


_VALGRIND = ("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null")
_RUNNER = """
import sys
sys.path.insert(0, {root!r})
from bench_policy_speed import make
from sanitizer import profiles, sanitize
data = make({kind!r})
sanitize(data, profiles.TEXT)
data.decode()
for _ in range({calls}):
    {call}
"""


def instructions(kind: str, call: str, calls: int) -> int:
    script = _RUNNER.format(
        root=str(Path(__file__).resolve().parent), kind=kind, calls=calls, call=call
    )
    out = subprocess.run(
        [*_VALGRIND, sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
    )
    match = re.search(r"Collected : (\d+)", out.stderr)
    if match is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{out.stderr[-2000:]}")
    return int(match.group(1))


def main() -> int:
    heap = steady_heap()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--instructions", action="store_true", help="callgrind counts")
    parser.add_argument("--repeats", type=int, default=30)
    _figures.add_argument(parser)
    args = parser.parse_args()
    if not args.instructions:
        print(f"heap: {heap} (bench/_allocator.py; --allocator-as-is for the defaults)")
        print()
    unit = "M instructions" if args.instructions else "ms"
    out = _figures.Tables()
    out.head(["input (1 MiB)", f"decode {unit}", f"sanitize(TEXT) {unit}", "throughput vs decode"])
    missed = []
    for kind in UNITS:
        if args.instructions:
            base = instructions(kind, "pass", 0)
            d = (instructions(kind, "data.decode()", 3) - base) / 3e6
            s = (instructions(kind, "sanitize(data, profiles.TEXT)", 3) - base) / 3e6
        else:
            d, s = (x * 1e3 for x in wall(kind, args.repeats))
        ratio = d / s
        out.row(kind, f"{d:.3f}", f"{s:.3f}", f"{ratio:.2f}x")
        if ratio < 0.8:
            missed.append(kind)
    print()
    verdict = "met" if not missed else f"missed: {', '.join(missed)}"
    print(f"goal: >= 0.8x; {verdict}")
    if args.write_docs:
        how = "callgrind instructions" if args.instructions else "thread CPU time, min of runs"
        _figures.write(
            "policy_speed_instructions" if args.instructions else "policy_speed",
            summary="`sanitize(data, profiles.TEXT)` at 1 MiB against `bytes.decode`: "
            f"throughput ratio ({how}).",
            goals=f">= 0.8x `bytes.decode`: {verdict}.",
            tables=out.tables,
            note="" if args.instructions else f"heap: {heap}",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
