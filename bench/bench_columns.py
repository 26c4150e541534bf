#!/usr/bin/env python3
"""sanitizer.columns against pyarrow and against the per-value Python loop, same run.

    python bench/bench_columns.py            # all tables (about a minute)
    python bench/bench_columns.py --quick    # fewer rounds

Columns: 1M values of ~40 B, half of them non-ASCII ("short"); 1k values of 64 KiB
("long"); each also with 0.1% of its values ill-formed.  Ratios are this library's time
over the reference's, measured in the same run (the minimum of several rounds, A and B
interleaved), with the goals:

* ``all_valid`` / ``is_valid`` on an all-valid column <= 0.2x pyarrow's
  ``validate(full=True)`` on short values, <= 0.12x on long ones;
* per-value validity (``is_valid``) with 0.1% bad values <= 0.3x (pyarrow has no
  per-value validity: its ``validate(full=True)`` of the clean column is the yardstick);
* ``inspect``, ``reveal``, ``identifier_key`` over a column >= 10x faster than the
  per-value Python loop, and within 2x of one call on the values joined by newlines;
* ``is_valid`` / ``find_errors`` on a memoryview or bytearray at the speed of bytes, and
  ``find_errors`` with one early error <= 2x its clean time;
* peak memory of ``all_valid``/``is_valid``/``find_errors`` on a 64 MiB column < 1 MiB.

Needs pyarrow (the test extra).  Wall times on a shared machine are noisy: the ratios
are what to compare; the CPU model heads the output.
"""

from __future__ import annotations

import argparse
import random
import tracemalloc
from collections.abc import Callable

import _figures
import pyarrow as pa  # type: ignore[import-untyped,unused-ignore]
from _timing import best

import sanitizer
from sanitizer import columns

SHORT_ASCII = "The quick brown fox jumps over the dog"
SHORT_WIDE = "Grüße aus Köln, ça va? 東京は晴れ 🌞"


def short_values(n: int, bad_every: int | None) -> list[bytes]:
    rng = random.Random(1)
    out = []
    for i in range(n):
        base = SHORT_WIDE if i % 2 else SHORT_ASCII
        cut = rng.randrange(0, 6)
        value = (base[cut:] + str(i)).encode()
        if bad_every and i % bad_every == bad_every // 2:
            value = value[:5] + b"\xc0\xaf" + value[5:]
        out.append(value)
    return out


def long_values(n: int, bad_every: int | None) -> list[bytes]:
    text = ((SHORT_ASCII + " " + SHORT_WIDE + "\n") * 2000).encode()
    value = text[: 64 * 1024]
    value = value[: len(value.decode("utf-8", "ignore").encode())]
    out = []
    for i in range(n):
        if bad_every and i % bad_every == bad_every // 2:
            out.append(value[:100] + b"\xed\xa0\x80" + value[103:])
        else:
            out.append(value)
    return out


def ratio(
    name: str, ours: Callable[[], object], theirs: Callable[[], object], goal: str, rounds: int
) -> None:
    a = b = float("inf")
    for _ in range(rounds):  # interleaved: the same disturbances for both
        a = min(a, best(ours, 1))
        b = min(b, best(theirs, 1))
    print(f"  {name:<52} {a * 1e3:9.2f} ms / {b * 1e3:9.2f} ms = {a / b:6.3f}x  (goal {goal})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    args = parser.parse_args()
    rounds = 3 if args.quick else 7
    where = _figures.machine()
    print(
        f"sanitizer.columns, {sanitizer._decoder.BACKEND} backend; {where['cpu']}, "
        f"{where['cores']} cores, Python {where['python']}, {where['date']}"
    )

    short = pa.array(short_values(1_000_000, None), pa.binary())
    short_bad = pa.array(short_values(1_000_000, 1000), pa.binary())
    long = pa.array(long_values(1000, None), pa.binary())
    long_bad = pa.array(long_values(1000, 1000), pa.binary())
    short_s, long_s = short.view(pa.string()), long.view(pa.string())
    print(
        f"short: {len(short):,} values, {short.buffers()[2].size / 2**20:.1f} MiB; "
        f"long: {len(long):,} values, {long.buffers()[2].size / 2**20:.1f} MiB"
    )

    print("\nvalidity, against pyarrow's validate(full=True) of the clean column")
    ratio(
        "all_valid, short",
        lambda: columns.all_valid(short),
        lambda: short_s.validate(full=True),
        "<= 0.2x",
        rounds,
    )
    ratio(
        "is_valid, short",
        lambda: columns.is_valid(short),
        lambda: short_s.validate(full=True),
        "<= 0.2x",
        rounds,
    )
    ratio(
        "all_valid, long",
        lambda: columns.all_valid(long),
        lambda: long_s.validate(full=True),
        "<= 0.12x",
        rounds,
    )
    # What no validator can beat: one read of as many bytes (memchr for a byte that is
    # not there), out of the cache as the column is.
    long_bytes = long.buffers()[2].to_pybytes()
    ratio(
        "(floor: memchr over the long data, a copy)",
        lambda: long_bytes.find(b"\0"),
        lambda: long_s.validate(full=True),
        "(none)",
        rounds,
    )
    ratio(
        "is_valid, short, 0.1% ill-formed",
        lambda: columns.is_valid(short_bad),
        lambda: short_s.validate(full=True),
        "<= 0.3x",
        rounds,
    )
    ratio(
        "is_valid, long, 0.1% ill-formed",
        lambda: columns.is_valid(long_bad),
        lambda: long_s.validate(full=True),
        "<= 0.3x",
        rounds,
    )
    ratio(
        "find_errors, short, 0.1% ill-formed",
        lambda: columns.find_errors(short_bad),
        lambda: short_s.validate(full=True),
        "(none)",
        rounds,
    )
    ratio(
        "decode, short (string column, no copy)",
        lambda: columns.decode(short),
        lambda: short.cast(pa.string()),
        "(none)",
        rounds,
    )
    ratio(
        "decode replace, short, 0.1% ill-formed",
        lambda: columns.decode(short_bad, "replace"),
        lambda: short.cast(pa.string()),
        "(none)",
        rounds,
    )

    print("\npolicies over 100k short values, against the per-value loop and one joined call")
    sample = short.slice(0, 100_000)
    sample_values = sample.to_pylist()
    sample_text = "\n".join(v.decode() for v in sample_values)
    joined = sample_text.encode()
    for name, over_column, per_value, one_call in [
        (
            "inspect",
            lambda: columns.inspect(sample),
            lambda: [sanitizer.inspect(v) for v in sample_values],
            lambda: sanitizer.inspect(joined),
        ),
        (
            "reveal",
            lambda: columns.reveal(sample),
            lambda: [sanitizer.reveal(v) for v in sample_values],
            lambda: sanitizer.reveal(joined),
        ),
        (
            "identifier_key",
            lambda: columns.identifier_key(sample),
            lambda: [sanitizer.identifier_key(v.decode()) for v in sample_values],
            lambda: sanitizer.identifier_key(sample_text),
        ),
    ]:
        ratio(f"{name} column / per-value loop", over_column, per_value, "<= 0.1x", rounds)
        ratio(f"{name} column / one call, joined", over_column, one_call, "<= 2x", rounds)

    print("\nthe decoder on buffers (41 MiB)")
    data = short.buffers()[2].to_pybytes()
    view, array_ = memoryview(data), bytearray(data)
    early = b"\xe0\x80" + data[2:]
    ratio(
        "is_valid(memoryview) / is_valid(bytes)",
        lambda: sanitizer.is_valid(view),
        lambda: sanitizer.is_valid(data),
        "~1x",
        rounds,
    )
    ratio(
        "is_valid(bytearray) / is_valid(bytes)",
        lambda: sanitizer.is_valid(array_),
        lambda: sanitizer.is_valid(data),
        "~1x",
        rounds,
    )
    ratio(
        "find_errors(bytearray) / find_errors(bytes)",
        lambda: sanitizer.find_errors(array_),
        lambda: sanitizer.find_errors(data),
        "~1x",
        rounds,
    )
    ratio(
        "find_errors, one early error / clean",
        lambda: sanitizer.find_errors(early),
        lambda: sanitizer.find_errors(data),
        "<= 2x",
        rounds,
    )

    print("\nmemory on a 64 MiB column (tracemalloc peak)")
    value = ("héllo wörld " * 6).encode()
    big = pa.array([value] * ((64 << 20) // len(value)), pa.binary())
    memory: list[tuple[str, Callable[[], object]]] = [
        ("all_valid", lambda: columns.all_valid(big)),
        ("is_valid", lambda: columns.is_valid(big)),
        ("find_errors", lambda: columns.find_errors(big)),
        ("decode", lambda: columns.decode(big)),
    ]
    for name, fn in memory:
        tracemalloc.start()
        fn()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"  {name:<52} {peak / 2**20:9.3f} MiB  (goal < 1 MiB)")


if __name__ == "__main__":
    main()
