#!/usr/bin/env python3
"""``sanitizer collisions`` on generated user names: time linear, peak memory flat.

    python bench/bench_collisions.py                      # 250k, 500k, 1M lines
    python bench/bench_collisions.py --lines 100000 2000000

For each size it writes a list of unique user names (``user<n>``, ``<adjective>_<noun><n>``,
some in Cyrillic, Greek or Japanese) where every 1000th line is a look-alike of an
earlier one (a Cyrillic ``е``, fullwidth letters, a changed case), runs the real command
in a fresh interpreter with ``--json`` to a file, and prints the wall and CPU time (the
CPU time per line is the figure to compare: wall time includes waiting on a busy
machine), and the child's peak RSS (``VmHWM`` of ``/proc/self/status``: Linux; getrusage's
``ru_maxrss`` would include the parent it was forked from).  A grouping held in memory
would grow by tens of bytes per line; the external sort keeps RSS flat.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

CHILD = """
import sys
from sanitizer.cli import main
code = main(sys.argv[1:])
with open("/proc/self/status") as status:
    hwm = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
print(code, hwm, file=sys.stderr)
"""

WORDS = ["red", "blue", "fast", "quiet", "cat", "owl", "river", "stone", "light", "moon"]
OTHERS = ["иван", "мария", "γιάννης", "ελένη", "さくら", "たろう", "花子", "민준"]
LOOK_ALIKES: list[Callable[[str], str]] = [
    lambda s: s.replace("e", "\u0435", 1),  # Cyrillic е
    lambda s: s.replace("o", "\u043e", 1),  # Cyrillic о
    lambda s: s.upper(),
    lambda s: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s),  # fullwidth
]


def names(n: int, seed: int = 12) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    for i in range(n):
        if i % 1000 == 999 and out:
            out.append(rng.choice(LOOK_ALIKES)(out[rng.randrange(len(out))]))
        elif i % 7 == 0:
            out.append(f"{rng.choice(OTHERS)}{i}")
        elif i % 2:
            out.append(f"{rng.choice(WORDS)}_{rng.choice(WORDS)}{i}")
        else:
            out.append(f"user{i}")
    return out


def measure(lines: int, folder: Path) -> tuple[float, float, int, int]:
    path = folder / f"names-{lines}.txt"
    path.write_text("\n".join(names(lines)) + "\n", encoding="utf-8")
    out = folder / "out.jsonl"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out, "wb") as stdout:
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, "collisions", "--json", str(path)],
            stdout=stdout,
            stderr=subprocess.PIPE,
            check=False,
        )
        elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    code, hwm = proc.stderr.decode().split()[-2:]
    if code not in ("0", "1"):
        raise SystemExit(proc.stderr.decode())
    with open(out, "rb") as f:
        summary = json.loads(f.read().splitlines()[-1])["summary"]
    return elapsed, cpu, int(hwm), summary["groups"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[250_000, 500_000, 1_000_000])
    args = parser.parse_args()
    heads = ("lines", "wall s", "CPU s", "CPU us/line", "peak RSS", "groups")
    print(" ".join(f"{h:>{w}}" for h, w in zip(heads, (10, 8, 8, 11, 10, 7), strict=True)))
    with tempfile.TemporaryDirectory() as folder:
        for n in args.lines:
            elapsed, cpu, hwm, groups = measure(n, Path(folder))
            per_line = cpu / n * 1e6
            rss = f"{hwm / 1024:.1f} MiB"
            print(f"{n:>10} {elapsed:>8.2f} {cpu:>8.2f} {per_line:>11.2f} {rss:>10} {groups:>7}")


if __name__ == "__main__":
    main()
