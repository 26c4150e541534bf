#!/usr/bin/env python3
"""Linear time on adversarial input: T(4n) / T(n) for every decoding entry point.

The test suite counts the Python-level work (tests/core/test_decoder_properties.py,
``test_linear_work``); this script times the whole cost, C included, which a timed unit
test on a shared machine cannot do reliably.  Linear is 4x, quadratic 16x; a ratio over 8x
exits 1.  CPU time of this process, the cyclic GC paused, small and big runs interleaved
and the best of ``--repeat`` pairs kept, so another process's load mostly cancels.

    python bench/bench_linear.py                 # 64 KiB against 256 KiB
    python bench/bench_linear.py --size 1048576  # 1 MiB against 4 MiB
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections.abc import Callable

import _figures

import sanitizer
from sanitizer import IncrementalDecoder


def adversarial(size: int) -> dict[str, bytes]:
    """One error per byte or pair: stray continuations, truncated leads, surrogates."""
    rng = random.Random(3629)
    return {
        "80": b"\x80" * size,
        "C2": b"\xc2" * size,
        "F0": b"\xf0" * size,
        "random": rng.randbytes(size),
        "E0A0": b"\xe0\xa0" * (size // 2),
        "EDA0": b"\xed\xa0" * (size // 2),
    }


def fed(chunk: int, verdict_only: bool) -> Callable[[bytes], object]:
    def run(data: bytes) -> None:
        dec = IncrementalDecoder("replace")
        step = dec.find_errors if verdict_only else dec.feed
        for i in range(0, len(data), chunk):
            step(data[i : i + chunk])
        step(b"", final=True)

    return run


ENTRY_POINTS: dict[str, Callable[[bytes], object]] = {
    "decode replace": lambda data: sanitizer.decode(data, errors="replace"),
    "find_errors": sanitizer.find_errors,
    "is_valid": sanitizer.is_valid,
    "feed 4 KiB": fed(4096, False),
    "find_errors fed 4 KiB": fed(4096, True),
    "feed 64 B": fed(64, False),
}


def cpu_seconds(func: Callable[[bytes], object], data: bytes) -> float:
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        func(data)
        return time.process_time() - start
    finally:
        gc.enable()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=64 << 10, help="n in bytes")
    parser.add_argument("--repeat", type=int, default=5, help="interleaved pairs per ratio")
    _figures.add_argument(parser)
    args = parser.parse_args()
    small, big = adversarial(args.size), adversarial(4 * args.size)
    print(f"T(4n) / T(n), n = {args.size} bytes, best of {args.repeat} interleaved pairs")
    worst = 0.0
    rows = []
    for entry, func in ENTRY_POINTS.items():
        cells = []
        for kind in small:
            t_small = t_big = float("inf")
            for _ in range(args.repeat):
                t_small = min(t_small, cpu_seconds(func, small[kind]))
                t_big = min(t_big, cpu_seconds(func, big[kind]))
            ratio = t_big / max(t_small, 1e-4)
            if t_big > 0.01:  # below that, timer resolution and start-up dominate
                worst = max(worst, ratio)
            cells.append(f"{kind} {ratio:4.1f}x")
        print(f"  {entry:<22} " + "  ".join(cells))
        rows.append([f"`{entry}`", *(cell.rpartition(" ")[2] for cell in cells)])
    print(f"worst ratio {worst:.1f}x (linear 4x, quadratic 16x; fails over 8x)")
    if args.write_docs:
        _figures.write(
            "linear",
            summary=f"T(4n) / T(n) for each decoding entry point on one error per byte or pair, "
            f"n = {args.size:,} bytes, best of {args.repeat} interleaved pairs: linear is 4x, "
            "quadratic 16x; over 8x the script exits 1.",
            tables=[_figures.table(["entry point", *adversarial(1)], rows)],
            notes=[f"Worst ratio (where T(4n) > 10 ms): {worst:.1f}x."],
        )
    return 1 if worst > 8 else 0


if __name__ == "__main__":
    sys.exit(main())
