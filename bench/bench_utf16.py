#!/usr/bin/env python3
"""Strict UTF-16/UTF-32 throughput as ratios against CPython's codecs, in the same run.

    python bench/bench_utf16.py             # the table (the goals below)
    python bench/bench_utf16.py --quick     # fewer repeats
    python bench/bench_utf16.py --whatwg    # replace mode against node's TextDecoder

Goals: ``sanitizer.utf16.decode`` >= 0.9x CPython's ``utf-16-le`` on 1 MiB
(BMP text, text with surrogate pairs); ``find_errors`` on 1 MiB of random bytes < 1 s and
linear (the time per MiB at 1, 2 and 4 MiB stays flat).  Timings interleave CPython and
this project and keep the minimum of several rounds; the machine may be shared, so trust
ratios, not absolute times.

``--whatwg`` feeds error-dense inputs to ``node -e`` (WHATWG Encoding Standard, UTF-16LE/BE
decoders via ``TextDecoder``) and compares its text with ``decode(errors="replace")``.
"""

# ruff: noqa: B023  (each lambda is timed within its own loop iteration)
from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import time
import timeit
from collections.abc import Callable

import _figures

from sanitizer import utf16, utf32

MIB = 1 << 20
SAMPLES = {
    "BMP text": "Příliš žluťoučký kůň; 日本語のテキスト, 한국어 텍스트. ",
    "with pairs": "emoji 🙂👍🏽👩‍💻 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 text ",
}


def text_of(sample: str, size: int, codec: str) -> bytes:
    """``size`` bytes (rounded down to a whole character) of ``sample`` repeated."""
    unit = sample.encode(codec)
    raw = (unit * (size // len(unit) + 1))[:size]
    while True:
        try:
            raw.decode(codec)
            return raw
        except UnicodeDecodeError:
            raw = raw[:-2]


def best_pair(a: Callable[[], object], b: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Seconds per call of ``a`` and ``b``, rounds interleaved, minimum of ``repeat``."""
    ta, tb = timeit.Timer(a), timeit.Timer(b)
    number = max(ta.autorange()[0], 1)
    sa, sb = [], []
    for _ in range(repeat):
        sa.append(ta.timeit(number) / number)
        sb.append(tb.timeit(number) / number)
    return min(sa), min(sb)


def refused(call: Callable[[], object]) -> None:
    try:
        call()
    except UnicodeDecodeError:
        pass


def once(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def table(repeat: int, out: _figures.Tables) -> None:
    rng = random.Random(15)
    noise = rng.randbytes(MIB)
    out.head(["input", "call", "CPython", "sanitizer", "ratio (CPython time / ours)"])
    for label, sample in SAMPLES.items():
        for name, module in (("utf-16-le", utf16), ("utf-32-le", utf32)):
            data = text_of(sample, MIB, name)
            ref, ours = best_pair(
                lambda: data.decode(name),
                lambda: module.decode(data, byte_order="le"),
                repeat,
            )
            call = f"`{module.__name__}.decode`"
            out.row(
                f"{label}, 1 MiB",
                call,
                f"{ref * 1e3:.3f} ms",
                f"{ours * 1e3:.3f} ms",
                f"{ref / ours:.2f}x",
            )
            ref, ours = best_pair(
                lambda: data.decode(name),
                lambda: module.is_valid(data, byte_order="le"),
                repeat,
            )
            call = f"`{module.__name__}.is_valid`"
            out.row(
                f"{label}, 1 MiB",
                call,
                f"{ref * 1e3:.3f} ms",
                f"{ours * 1e3:.3f} ms",
                f"{ref / ours:.2f}x",
            )
    for name, module in (("utf-16-le", utf16), ("utf-32-le", utf32)):
        ref, ours = best_pair(
            lambda: refused(lambda: noise.decode(name)),
            lambda: refused(lambda: module.decode(noise, byte_order="le")),
            repeat,
        )
        call = f"`{module.__name__}.decode` (raises)"
        out.row(
            "random, 1 MiB",
            call,
            f"{ref * 1e6:.1f} us",
            f"{ours * 1e6:.1f} us",
            f"{ref / ours:.2f}x",
        )
        ref, ours = best_pair(
            lambda: noise.decode(name, "replace"),
            lambda: module.decode(noise, byte_order="le", errors="replace"),
            max(3, repeat // 2),
        )
        call = f'`{module.__name__}.decode(errors="replace")`'
        out.row(
            "random, 1 MiB",
            call,
            f"{ref * 1e3:.1f} ms",
            f"{ours * 1e3:.1f} ms",
            f"{ref / ours:.2f}x",
        )
    print()
    out.head(["find_errors, random bytes", "errors", "seconds", "seconds per MiB"])
    for module in (utf16, utf32):
        for mib in (1, 2, 4):
            data = rng.randbytes(mib * MIB)
            count = len(module.find_errors(data, byte_order="le"))
            t = once(lambda: module.find_errors(data, byte_order="le"), max(2, repeat // 3))
            out.row(f"{module.__name__}, {mib} MiB", f"{count:,}", f"{t:.3f}", f"{t / mib:.3f}")


def whatwg(count: int) -> int:
    """Compare replace mode with node's TextDecoder on ``count`` error-dense inputs."""
    node = shutil.which("node")
    if node is None:
        print("node not found: skipped")
        return 0
    rng = random.Random(2152)
    units = [0x0041, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xFEFF, 0xFFFD, 0xD83D, 0xDE42]
    inputs = []
    for _ in range(count):
        vals = [rng.choice(units) for _ in range(rng.randrange(0, 8))]
        raw = b"".join(v.to_bytes(2, "little") for v in vals)
        inputs.append(raw + rng.randbytes(rng.randrange(0, 2)))
    script = (
        "const inputs = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "const out = {};"
        "for (const enc of ['utf-16le', 'utf-16be']) {"
        "  const d = new TextDecoder(enc, {ignoreBOM: true});"
        "  out[enc] = inputs.map(h => d.decode(Buffer.from(h, 'hex')));"
        "}"
        "process.stdout.write(JSON.stringify(out));"
    )
    payload = json.dumps([raw.hex() for raw in inputs])
    done = subprocess.run(
        [node, "-e", script], input=payload, capture_output=True, text=True, check=True
    )
    node_out = json.loads(done.stdout)
    bad = 0
    for enc, order in (("utf-16le", "le"), ("utf-16be", "be")):
        for raw, expected in zip(inputs, node_out[enc], strict=True):
            got = utf16.decode(raw, byte_order=order, errors="replace")  # type: ignore[arg-type]
            if got != expected:
                bad += 1
                print(f"{enc} {raw.hex(' ')}: node {expected!r}, sanitizer {got!r}")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"node {version} TextDecoder: {2 * count - bad}/{2 * count} texts equal")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--whatwg", action="store_true", help="compare with node TextDecoder")
    _figures.add_argument(parser)
    args = parser.parse_args(argv)
    if args.whatwg:
        return whatwg(5000)
    print(f"Python {sys.version.split()[0]}")
    out = _figures.Tables()
    table(3 if args.quick else 7, out)
    if args.write_docs:
        _figures.write(
            "utf16",
            summary="strict UTF-16 and UTF-32 against CPython's `utf-16-le` / `utf-32-le` "
            "codecs, same run (CPython time / ours).",
            goals="`decode` >= 0.9x; `find_errors` linear (flat per MiB at 1, 2 and 4 MiB).",
            tables=out.tables,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
