#!/usr/bin/env python3
"""The SIMD UTF-8 validator: ratios against ``bytes.decode``, ``isutf8``, ``iconv``.

    python bench/bench_validate.py              # both tables (writes a 128 MiB file in /tmp)
    python bench/bench_validate.py --quick      # fewer repeats, a 32 MiB file
    python bench/bench_validate.py --no-check   # the is_valid table only
    python bench/bench_validate.py --check-only --instructions  # the check table, with
                                                # instruction counts (valgrind)

1. ``is_valid`` on valid ASCII, Latin, CJK and emoji text against ``bytes.decode`` (the
   cost of a verdict before the SIMD validator), at 64 B and 1 MiB, with the kernel in use and then
   each kernel this CPU runs (through ``_speedups.valid_prefix_using``).  Goals: >= 10x
   on non-ASCII text at 1 MiB, >= 1x on ASCII, and at 64 B at most decode's time
   (ratio >= 1).  Times are the minimum over rounds, A and B interleaved.
2. ``sanitizer check`` on a 128 MiB multilingual file against moreutils' ``isutf8`` and
   ``iconv -f UTF-8 -t UTF-8`` (``apt-get install -y moreutils``): wall and CPU time, and
   peak RSS of each process (``os.wait4``), minimum over rounds.  Goals: <= 0.5x the wall
   time of both, RSS < 64 MiB.  The file is generated in /tmp and removed afterwards.
   ``--python PY`` runs ``sanitizer`` with another interpreter (a regular install, as
   bench_gate.py says: an editable install's import hook adds start-up a user's install
   does not have); Python's bytecode cache is kept in the temporary folder even where
   ``PYTHONDONTWRITEBYTECODE`` is set, as for an installed wheel.
   ``--instructions`` adds each tool's instruction count (``valgrind --tool=callgrind``,
   one run each, the same whatever else the machine does) and its ratio.

The CPU model (lscpu) heads the output: these ratios depend on it.  On a shared machine
wall times are noisy; compare CPU times, or count instructions with
``valgrind --tool=callgrind`` (see bench_instructions.py).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable, Sequence

import _figures

import sanitizer
from sanitizer import _native

SAMPLES = {
    "ASCII": "The quick brown fox jumps over the lazy dog; 0123456789.\n",
    "Latin": "Příliš žluťoučký kůň úpěl ďábelské ódy. Größe, Straße, naïve café.\n",
    "CJK": "日本語のテキストと中文文本，한국어 텍스트도 있습니다。\n",
    "emoji": "🙂👍🏽👩‍💻🇺🇳🎉 ok\n",
}
MULTILINGUAL = (
    *SAMPLES.values(),
    "Съешь же ещё этих мягких французских булок, да выпей чаю.\n",
    "ἀρχὴ ἥμισυ παντός — العربية עברית\n",
)
SIZES = {"64 B": 64, "1 MiB": 1 << 20}


def text_of(sample: str, size: int) -> bytes:
    """``size`` bytes of ``sample`` repeated, cut back to a character boundary."""
    raw = (sample.encode() * (size // len(sample.encode()) + 1))[:size]
    return raw[: _native.utf8_valid_prefix_py(raw)]


def interleaved(fns: Sequence[Callable[[], object]], rounds: int) -> list[float]:
    """Seconds per call of each of ``fns``: rounds alternate between them, and each
    keeps its minimum (the least disturbed round)."""
    numbers = [timeit.Timer(fn).autorange()[0] for fn in fns]
    out = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            out[i] = min(out[i], timeit.Timer(fn).timeit(numbers[i]) / numbers[i])
    return out


def cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown (no lscpu)"
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def _t(seconds: float) -> str:
    return f"{seconds * 1e6:.2f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def is_valid_table(rounds: int, out: _figures.Tables) -> None:
    out.head(["input", "size", "bytes.decode", "is_valid", "ratio", "GB/s"])
    for kind, sample in SAMPLES.items():
        for label, size in SIZES.items():
            data = text_of(sample, size)
            base, ours = interleaved(
                [lambda d=data: d.decode("utf-8"), lambda d=data: sanitizer.is_valid(d)],  # type: ignore[misc]
                rounds,
            )
            rate = len(data) / ours / 1e9
            out.row(kind, label, _t(base), _t(ours), f"{base / ours:.1f}x", f"{rate:.1f}")
    speedups = _native.speedups
    if speedups is None:
        return
    print()
    kernels = speedups.utf8_kernels()
    out.head(["1 MiB, GB/s", *kernels])
    for kind, sample in SAMPLES.items():
        data = text_of(sample, 1 << 20)
        times = interleaved(
            [lambda k=k, d=data: speedups.valid_prefix_using(k, d) for k in kernels],  # type: ignore[misc]
            rounds,
        )
        out.row(kind, *(f"{len(data) / t / 1e9:.1f}" for t in times))


def write_multilingual(path: str, size: int) -> None:
    rng = random.Random(3629)  # fixed: runs compare
    block = "".join(rng.choice(MULTILINGUAL) for _ in range(20_000)).encode()
    with open(path, "wb") as f:
        for _ in range(size // len(block) + 1):
            f.write(block)


OURS_PYTHON = sys.executable  # --python
ENV = dict(os.environ)  # check_table sets a bytecode cache


def run_measured(command: Sequence[str]) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS in bytes) of ``command``, output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{command[0]} exited with {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def instructions(command: Sequence[str]) -> int | None:
    """Instructions ``command`` executes (callgrind's total), or None without valgrind."""
    if shutil.which("valgrind") is None:
        return None
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False, env=ENV,
    )  # fmt: skip
    for line in proc.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1].strip())
    return None


def check_table(size: int, rounds: int, out: _figures.Tables, count: bool = False) -> str:
    """Prints the tables into ``out``; returns what was checked, for the docs."""
    tools = {
        "sanitizer check": [OURS_PYTHON, "-m", "sanitizer", "check"],
        "isutf8": ["isutf8"],
        "iconv": ["iconv", "-f", "UTF-8", "-t", "UTF-8", "-o", os.devnull],
    }
    missing = [name for name, cmd in tools.items() if shutil.which(cmd[0]) is None]
    for name in missing:
        print(f"({name} not found: apt-get install -y moreutils for isutf8)")
        del tools[name]
    with tempfile.TemporaryDirectory(prefix="bench_validate", dir="/tmp") as tmp:
        ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
        path = os.path.join(tmp, "multilingual.txt")
        write_multilingual(path, size)
        real = os.path.getsize(path)
        best = {name: (float("inf"), float("inf"), 0) for name in tools}
        for cmd in tools.values():
            run_measured([*cmd, path])  # warm-up: page cache, bytecode cache
        for _ in range(rounds):
            for name, cmd in tools.items():
                wall, cpu, rss = run_measured([*cmd, path])
                old = best[name]
                best[name] = (min(old[0], wall), min(old[1], cpu), max(old[2], rss))
        counted = {name: instructions([*cmd, path]) for name, cmd in tools.items()} if count else {}
    ours = best.get("sanitizer check")
    what = f"`sanitizer check` on {real / 2**20:.0f} MiB of valid multilingual text"
    print(what)
    print()
    out.head(["tool", "wall", "CPU", "peak RSS", "check's wall / tool's", "check's CPU / tool's"])
    for name, (wall, cpu, rss) in best.items():
        ratios = [f"{ours[0] / wall:.2f}x", f"{ours[1] / cpu:.2f}x"] if ours else ["-", "-"]
        out.row(name, f"{wall:.2f} s", f"{cpu:.2f} s", f"{rss / 2**20:.0f} MiB", *ratios)
    if counted:
        print()
        out.head(["tool", "instructions", "check's / tool's"])
        mine = counted.get("sanitizer check")
        for name, n in counted.items():
            ratio = f"{mine / n:.2f}x" if mine and n else "-"
            out.row(name, f"{n:,}", ratio) if n else out.row(name, "(no valgrind)", "-")
    return what


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, a 32 MiB file")
    parser.add_argument("--no-check", action="store_true", help="skip the sanitizer check table")
    parser.add_argument("--check-only", action="store_true", help="only the check table")
    parser.add_argument("--python", help="the interpreter that runs sanitizer (default: this)")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count each tool's instructions in the check table (valgrind)",
    )
    _figures.add_argument(parser)
    args = parser.parse_args(argv)
    global OURS_PYTHON
    OURS_PYTHON = args.python or sys.executable
    rounds = 3 if args.quick else 7
    python = sys.version.split()[0]
    print(f"CPU: {cpu_model()}")
    print(
        f"sanitizer {sanitizer.__version__}, runner: {sanitizer.BACKEND}, "
        f"UTF-8 kernel: {_native.utf8_kernel()}, Python {python}"
    )
    print()
    note = f"UTF-8 kernel: {_native.utf8_kernel()}"
    if not args.check_only:
        out = _figures.Tables()
        is_valid_table(rounds, out)
        print()
        if args.write_docs:
            _figures.write(
                "validate",
                summary="`is_valid` (the SIMD validator) against `bytes.decode` on valid text "
                "(time ratio); GB/s of each kernel this CPU runs.",
                goals=">= 10x on non-ASCII text and >= 1x on ASCII at 1 MiB; at 64 B no slower "
                "than `bytes.decode`.",
                tables=out.tables,
                note=note,
            )
    if not args.no_check:
        out = _figures.Tables()
        size = (32 if args.quick else 128) << 20
        what = check_table(size, 2 if args.quick else 3, out, args.instructions)
        if args.write_docs:
            _figures.write(
                "validate_check",
                summary=f"{what}, against `isutf8` (moreutils) and `iconv`; "
                f"`sanitizer` run by {OURS_PYTHON}.",
                goals="<= 0.5x the wall time of both, RSS < 64 MiB.",
                tables=out.tables,
                note=note,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
