"""``sanitizer check`` on hostile files: time and peak memory, with and without a policy.

A committed junk file must not tie up a CI gate: work stays linear and memory bounded
whatever the input (findings past ``--limit`` are counted, never built; a policy judges
a file a piece at a time).  Cases, each without a policy and with ``--policy SOURCE``:

* junk: random bytes (``os.urandom``);
* FF: every byte ill-formed (``FF`` never appears in UTF-8), as many lines of 80 bytes
  and as one line (an excerpt per listed finding reads its context only);
* bidi flood: U+202E RIGHT-TO-LEFT OVERRIDE, valid UTF-8 on one line (the source gate
  judges every one: each is a finding);
* past ``--max-bytes``: valid text with ``C0 AE`` at its very end (strict UTF-8 is
  checked to the end, past the policy's limit).

Each run is a fresh process measured by a wrapper (``resource.getrusage(
RUSAGE_CHILDREN)``): wall time, CPU time (user + sys) and peak RSS.  The baseline of each
row is ``sanitizer check`` on a clean ASCII file of the same size in the same run (the
cost of reading it): the ratio says what the findings cost on top.  On a shared machine
compare CPU times.  Goals: peak RSS < 64 MiB for every case; CPU time linear in the size
(the ratio does not grow with it).

Run: ``python bench/bench_check_hostile.py`` (``--quick``: smaller files;
``--sanitizer DIR``: run the ``sanitizer`` package found in DIR, e.g. an older checkout,
with ``--timeout``; ``--write-docs``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import _figures

MEASURE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "try:\n"
    "    p = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL,"
    " stderr=subprocess.DEVNULL, timeout=float(sys.argv[1]))\n"
    "    code = p.returncode\n"
    "except subprocess.TimeoutExpired:\n"
    "    code = 'timeout'\n"
    "t = time.perf_counter() - t\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(t, u.ru_utime + u.ru_stime, u.ru_maxrss, code)\n"
)
MIB = 1 << 20


def cases(scale: int) -> list[tuple[str, str, bytes | None, int]]:
    """(case, file name, content or None for random, size in bytes)."""
    return [
        ("junk (random bytes)", "junk.py", None, 16 * scale),
        ("FF, lines of 80", "ff.py", (b"\xff" * 79 + b"\n"), 16 * scale),
        ("FF, lines of 80", "ff.py", (b"\xff" * 79 + b"\n"), 64 * scale),
        ("FF, one line", "ffline.py", b"\xff", 8 * scale),
        ("bidi flood (U+202E)", "rlo.py", "\u202e".encode(), 4 * scale),
        ("bidi flood (U+202E)", "rlo.py", "\u202e".encode(), 15 * scale),
        ("valid, C0 AE at the end", "tail.py", b"x = 1\n", 70 * scale),
    ]


def write(path: Path, unit: bytes | None, size: int) -> None:
    with open(path, "wb") as f:
        left = size
        while left > 0:
            n = min(left, 4 * MIB)
            if unit is not None:  # whole units: a character is never cut
                n = max(len(unit), n - n % len(unit))
            f.write(os.urandom(n) if unit is None else unit * (n // len(unit)))
            left -= n
        if path.name == "tail.py":
            f.write(b"\xc0\xae")


def measure(
    cmd: list[str], env: dict[str, str], timeout: float, cwd: str
) -> tuple[float, float, int, str]:
    """(wall, CPU, peak RSS in MiB, exit status) of ``cmd`` run in ``cwd`` (not the
    checkout: ``python -m sanitizer`` would import the package found there)."""
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(timeout), *cmd],
        capture_output=True,
        env=env,
        cwd=cwd,
        check=True,
    ).stdout.split()
    return float(out[0]), float(out[1]), int(out[2]) // 1024, out[3].decode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="files of 1/16 the size")
    parser.add_argument("--sanitizer", metavar="DIR", help="run the package found in DIR")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a run")
    _figures.add_argument(parser)
    args = parser.parse_args()
    env = dict(os.environ)
    if args.sanitizer:
        env["PYTHONPATH"] = args.sanitizer
    scale = MIB // 16 if args.quick else MIB
    check = [sys.executable, "-m", "sanitizer", "check", "--progress", "never"]
    tables = _figures.Tables()
    tables.head(
        ["input", "size", "check", "wall", "CPU", "CPU / clean file", "peak RSS",
         "peak RSS, clean file", "exit"],
        "one process a run, measured by a wrapper",
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for case, name, unit, size in cases(scale):
            path, clean = Path(tmp, name), Path(tmp, "clean_" + name)
            write(path, unit, size)
            write(clean, b"x = 1\n", size)
            for policy in ((), ("--policy", "SOURCE")):
                base = measure([*check, *policy, str(clean)], env, args.timeout, tmp)
                got = measure([*check, *policy, str(path)], env, args.timeout, tmp)
                label = "--policy SOURCE" if policy else "UTF-8"
                ratio = got[1] / base[1] if base[1] else float("nan")
                tables.row(
                    case, f"{size / MIB:g} MiB", label, f"{got[0]:.2f} s", f"{got[1]:.2f} s",
                    f"{ratio:.1f}x", f"{got[2]} MiB", f"{base[2]} MiB", got[3],
                )  # fmt: skip
            path.unlink()
            clean.unlink()
    if args.write_docs:
        _figures.write(
            "check_hostile",
            summary="sanitizer check on hostile files: time and peak RSS against a clean "
            "file of the same size, with and without --policy SOURCE",
            goals="peak RSS < 64 MiB for every input; CPU time linear in the size",
            tables=tables.tables,
            notes=[
                "Findings past --limit (1000 a file) are counted in C loops, never built or"
                " shown; --policy judges a file a 1 MiB piece at a time, after proving it "
                "UTF-8 from end to end (an ill-formed file is reported as without a policy).",
            ],
        )


if __name__ == "__main__":
    main()
