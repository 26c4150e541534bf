"""Adversarial cost of the policy entry points: time and peak memory at n and 4n.

For each profile and each hostile input kind (runs of one category, a mix, NFKC expanders,
combining runs, ill-formed bytes), ``inspect``, ``sanitize`` and ``accepts`` run on n and
4n bytes; the ratio of times should stay near 4 (<= ~5: linear) and the peak memory
(tracemalloc) near the input's size.  A script, not a test: timing stays out of the suite.

    python bench/bench_policy_cost.py [n_kib] [profile]   # default 64 (64 KiB and 256 KiB),
                                                          # every profile
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from collections.abc import Callable

from sanitizer import profiles
from sanitizer._policy import PolicyError, accepts, inspect, sanitize

KINDS: dict[str, str | bytes] = {
    "nul": "\x00",
    "c0": "\x07\x1b",
    "bidi": "\u202e\u2066",
    "tags": "\U000e0041",
    "selectors": "\ufe0f",
    "base+selectors": "a\ufe0f\ufe0f",
    "zwj": "\u200d",
    "invisible": "\u200b\u3164",
    "combining": "\u0301",
    "combining-30": "a" + "\u0301" * 30,
    "nonchar": "\ufffe",
    "private": "\ue000",
    "unassigned": "\u0378",
    "mixed": "\x00\u202e\U000e0041\ufe0f\u200d\u200b\u0301\ufffe\ue000a",
    "nfkc": "\ufdfa\u2025\uff0f",
    "ill-formed": b"\xff\xc0\xe0\x80",
    # UTS #39 identifier checks (IDENTIFIER), judged on the output
    "restricted": "\u01c3@\U0001f600",
    "mixed-script": "a\u0430\u03bf",
    "mixed-numbers": "1\u09e8\u0663",
    "hidden-marks": "i\u0307x\u0301\u0301\U00016121",
    # one kind at a time, the whole input long (a C-speed scan per check)
    "restricted-1": "\u01c3",
    "hidden-dot": "i\u0307",
    "repeated-mark": "a\u0301\u0301",
    "latin-cyrillic": "a\u0430",
    "digits-2": "1\u09e8",
}


def _input(unit: str | bytes, size: int) -> bytes:
    raw = unit if isinstance(unit, bytes) else unit.encode("utf-8")
    return (
        (raw * (size // len(raw) + 1))[:size].decode("utf-8", "ignore").encode()
        if not isinstance(unit, bytes)
        else (raw * (size // len(raw) + 1))[:size]
    )


def _measure(fn: Callable[[], object]) -> tuple[float, int]:
    tracemalloc.start()
    start = time.perf_counter()
    try:
        fn()
    except PolicyError:
        pass
    took = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return took, peak


def main() -> None:
    n = int(sys.argv[1]) * 1024 if len(sys.argv) > 1 else 64 * 1024
    head = f"{'profile':12} {'kind':15} {'entry':9} {'t(n) ms':>9} {'t(4n) ms':>9}"
    print(f"{head} {'ratio':>6} {'peak(4n) MB':>11}")
    worst = 0.0
    only = sys.argv[2].upper() if len(sys.argv) > 2 else None
    for pname, policy in profiles.PROFILES.items():
        if only is not None and pname.upper() != only:
            continue
        policy = policy.replace(max_bytes=None, max_code_points=None)  # judge the engine
        for kind, unit in KINDS.items():
            small, large = _input(unit, n), _input(unit, 4 * n)
            for entry in (inspect, sanitize, accepts):
                t1, _ = _measure(lambda: entry(small, policy))  # noqa: B023
                t4, peak = _measure(lambda: entry(large, policy))  # noqa: B023
                ratio = t4 / t1 if t1 > 0 else float("nan")
                if t4 > 0.01:
                    worst = max(worst, ratio)
                print(
                    f"{pname:12} {kind:15} {entry.__name__:9} {t1 * 1e3:9.1f} {t4 * 1e3:9.1f}"
                    f" {ratio:6.1f} {peak / 1e6:11.1f}"
                )
    print(f"worst ratio (4n over n, where t(4n) > 10 ms): {worst:.1f}")


if __name__ == "__main__":
    main()
