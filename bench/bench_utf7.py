#!/usr/bin/env python3
"""UTF-7 cost: linear in the input on adversarial bytes, and strict decode against CPython.

    python bench/bench_utf7.py            # the table
    python bench/bench_utf7.py --quick    # fewer repeats

For each input kind, ``sanitizer.utf7.find_errors`` at 256 KiB and 1 MiB: the time per MiB
must stay flat (linear cost, and the project's rule "cost linear for every
input").  For valid text, ``decode`` (the fast path: each base64 run checked with
``binascii`` and one UTF-16 decode, then CPython's codec) against CPython's 'utf-7' codec in
the same run.  Minimum of several interleaved rounds; on a shared machine trust the ratios,
not the absolute times.  UTF-7 has no throughput goal: the walk that lists errors is pure
Python, about a microsecond or more per byte.
"""

from __future__ import annotations

import argparse
import functools
import os

from _timing import best

from sanitizer import utf7

KiB = 1024


def kinds(size: int) -> dict[str, bytes]:
    """Inputs of about ``size`` bytes, each stressing one path of the walk."""
    rng = os.urandom  # random bytes: mostly non-ASCII errors
    return {
        "random bytes": rng(size),
        "'+A-' (partial units)": (b"+A-" * size)[:size],
        "one long run, hidden 'a's": b"+" + (b"AGEAYQBh" * size)[: size - 2] + b"-",
        "lone surrogates": (b"+2D0-" * size)[:size],
        "'+' in runs of '+'": b"+" * size,
    }


def valid_texts(size: int) -> dict[str, bytes]:
    return {
        "ASCII prose": (b"The quick brown fox, 42 times. " * size)[:size],
        "CJK (one long run)": ("\u65e5\u672c\u8a9e" * (size // 8)).encode("utf-7"),
        "mixed (a run every ~9 bytes)": "".join(
            "Item 3 is \u00a31, caf\u00e9 \u263a " for _ in range(size // 40)
        ).encode("utf-7"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args(argv)
    repeats = 2 if args.quick else 5
    print("find_errors, seconds per MiB (flat = linear)")
    small, large = kinds(256 * KiB), kinds(1024 * KiB)
    for name in small:
        per_mib = []
        for data in (small[name], large[name]):
            seconds = best(functools.partial(utf7.find_errors, data), repeats)
            per_mib.append(seconds * (1 << 20) / len(data))
        errors = len(utf7.find_errors(large[name]))
        print(
            f"  {name:28s} 256 KiB {per_mib[0]:6.3f}  1 MiB {per_mib[1]:6.3f}  "
            f"growth {per_mib[1] / per_mib[0]:4.2f}x  ({errors} errors at 1 MiB)"
        )
    print("decode on valid text, 1 MiB: CPython time / ours (1.0 = as fast)")
    for name, data in valid_texts(1024 * KiB).items():
        assert utf7.decode(data) == data.decode("utf-7")
        ours = cpython = float("inf")
        for _ in range(repeats):  # interleaved
            ours = min(ours, best(functools.partial(utf7.decode, data), 1))
            cpython = min(cpython, best(functools.partial(data.decode, "utf-7"), 1))
        print(
            f"  {name:28s} ours {ours:7.4f}s  CPython {cpython:7.4f}s  ratio {cpython / ours:5.2f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
