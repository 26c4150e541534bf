#!/usr/bin/env python3
"""Import cost: what ``import sanitizer`` pays for, measured with ``python -X importtime``.

    python bench/bench_import.py             # 7 fresh interpreters per statement
    python bench/bench_import.py --quick     # 3

The policy layer (policies, profiles, identifiers and their generated character tables)
is loaded on first use (PEP 562 attributes in ``sanitizer/__init__.py``), so code that
only decodes does not pay for it.  For each statement this prints the cumulative import
time of the package and of its heaviest modules (the median over fresh interpreters,
in ms), then the core-only import as a ratio of importing everything, which is what
``import sanitizer`` cost when the package imported its policy layer eagerly.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from collections import defaultdict

STATEMENTS = {
    "core": "import sanitizer._decoder",
    "package": "import sanitizer",
    "check CLI": "import sanitizer.cli",
    # what ``import sanitizer`` loaded before the policy layer became lazy
    "everything": "import sanitizer._policy, sanitizer.profiles, sanitizer._identifiers",
}
SHOWN = 6  # heaviest sanitizer modules listed per statement


def import_times(statement: str) -> dict[str, int]:
    """Cumulative import time in µs of each ``sanitizer`` module ``statement`` loads,
    from one fresh interpreter's ``-X importtime`` report (on stderr)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement],
        capture_output=True,
        text=True,
        check=True,
    )
    times: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        # "import time:  self [us] | cumulative | imported package"
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line[len("import time:") :].split("|")
        module = name.strip()
        if module.split(".")[0] == "sanitizer":
            times[module] = int(cumulative)
    return times


def median_times(statement: str, runs: int) -> dict[str, float]:
    samples: dict[str, list[int]] = defaultdict(list)
    for _ in range(runs):
        for module, us in import_times(statement).items():
            samples[module].append(us)
    return {module: statistics.median(values) for module, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="3 interpreters per statement")
    args = parser.parse_args(argv)
    runs = 3 if args.quick else 7
    print(f"Python {sys.version.split()[0]}, median of {runs} fresh interpreters, cumulative ms")
    totals: dict[str, float] = {}
    for label, statement in STATEMENTS.items():
        times = median_times(statement, runs)
        # the total, timed in the interpreter (-X importtime does not see importlib calls)
        wall = statistics.median(_wall_ms(statement) for _ in range(runs))
        totals[label] = wall
        print()
        print(f"## {label}: `{statement}` ({wall:.1f} ms wall, interpreter start excluded)")
        print()
        print("| module | cumulative ms |")
        print("|---|---|")
        for module, us in sorted(times.items(), key=lambda item: -item[1])[:SHOWN]:
            print(f"| {module} | {us / 1000:.1f} |")
    print()
    core, everything = totals["core"], totals["everything"]
    print(
        f"core import / everything: {core / everything:.2f}x ({core:.1f} ms vs {everything:.1f} ms)"
    )
    return 0


def _wall_ms(statement: str) -> float:
    """Milliseconds ``statement`` takes in a fresh interpreter (start-up excluded)."""
    code = (
        "import time as _t; _s = _t.perf_counter()\n"
        f"{statement}\n"
        "print((_t.perf_counter() - _s) * 1000)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(proc.stdout.split()[-1])


if __name__ == "__main__":
    raise SystemExit(main())
