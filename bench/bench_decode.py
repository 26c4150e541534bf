#!/usr/bin/env python3
"""Decoder throughput as ratios against CPython's ``bytes.decode``, measured in the same run.

    python bench/bench_decode.py            # full run, prints a markdown table
    python bench/bench_decode.py --quick    # fewer repeats (for CI smoke runs)

Ratios are throughput(sanitizer) / throughput(CPython): 1.00 means as fast, higher is
faster.  Goals: valid input >= 0.95x at 1 MiB, >= 0.8x at 4 KiB, and at most 2x
the time (>= 0.5x) at 64 B; ``decode(errors="replace")`` >= 0.9x CPython's replace on
error-dense input; ``find_errors`` on 1 MiB of random bytes under 1 s.
"""

from __future__ import annotations

import argparse
import random
import sys

import _figures
from _timing import best_per_call

import sanitizer

SIZES = {"64 B": 64, "4 KiB": 4096, "1 MiB": 1 << 20}
SAMPLES = {
    "ASCII": "The quick brown fox jumps over the lazy dog; 0123456789. ",
    "Latin": "Příliš žluťoučký kůň úpěl ďábelské ódy. Größe, Straße, naïve café. ",
    "CJK": "日本語のテキストと中文文本，한국어 텍스트도 있습니다。",
    "emoji": "🙂👍🏽👩‍💻🇺🇳🎉 ok ",
}


def text_of(sample: str, size: int) -> bytes:
    """``size`` bytes of ``sample`` repeated, cut back to a character boundary."""
    raw = (sample.encode() * (size // len(sample.encode()) + 1))[:size]
    while True:
        try:
            raw.decode("utf-8")
            return raw
        except UnicodeDecodeError:
            raw = raw[:-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    _figures.add_argument(parser)
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 7
    python = sys.version.split()[0]
    print(f"sanitizer {sanitizer.__version__}, runner: {sanitizer.BACKEND}, Python {python}")
    print()
    print("| input | size | bytes.decode | sanitizer.decode | ratio |")
    print("|---|---|---|---|---|")
    valid: dict[str, list[str]] = {}  # input kind -> its ratio per size, for --write-docs
    for kind, sample in SAMPLES.items():
        for label, size in SIZES.items():
            data = text_of(sample, size)
            base = best_per_call(lambda d=data: d.decode("utf-8"), repeat)  # type: ignore[misc]
            ours = best_per_call(lambda d=data: sanitizer.decode(d), repeat)  # type: ignore[misc]
            print(f"| {kind} | {label} | {_t(base)} | {_t(ours)} | {base / ours:.2f}x |")
            valid.setdefault(kind, []).append(f"{base / ours:.2f}x")
    print()
    rng = random.Random(2003)  # RFC 3629's year: a fixed seed, so runs compare
    print("| error-dense (random bytes) | size | CPython replace | sanitizer replace | ratio |")
    print("|---|---|---|---|---|")
    replace: list[str] = []
    for label, size in SIZES.items():
        data = bytes(rng.getrandbits(8) for _ in range(size))
        base = best_per_call(lambda d=data: d.decode("utf-8", "replace"), repeat)  # type: ignore[misc]
        ours = best_per_call(lambda d=data: sanitizer.decode(d, errors="replace"), repeat)  # type: ignore[misc]
        print(f"| random | {label} | {_t(base)} | {_t(ours)} | {base / ours:.2f}x |")
        replace.append(f"{base / ours:.2f}x at {label}")
    print()
    data = bytes(rng.getrandbits(8) for _ in range(1 << 20))
    count = len(sanitizer.find_errors(data))
    secs = best_per_call(lambda: sanitizer.find_errors(data), max(1, repeat // 2))
    print(f"find_errors, 1 MiB of random bytes: {count} errors in {secs:.3f} s (goal < 1 s)")
    if args.write_docs:
        _figures.write(
            "decode",
            summary='throughput of `sanitizer.decode` against `bytes.decode("utf-8")` on valid '
            "text, same run (higher is faster).",
            goals=">= 0.95x at 1 MiB, >= 0.8x at 4 KiB, >= 0.5x at 64 B; "
            '`decode(errors="replace")` >= 0.9x CPython\'s replace; `find_errors` on 1 MiB of '
            "random bytes < 1 s.",
            tables=[_figures.table(["input", *SIZES], ([k, *v] for k, v in valid.items()))],
            notes=[
                '`decode(errors="replace")` on random bytes against CPython\'s replace: '
                f"{', '.join(replace)}. `find_errors` on 1 MiB of random bytes: "
                f"{count:,} errors in {secs:.2f} s."
            ],
            note=f"runner: {sanitizer.BACKEND}",
        )
    return 0


def _t(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    return f"{seconds * 1e3:.2f} ms"


if __name__ == "__main__":
    raise SystemExit(main())
