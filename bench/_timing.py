"""How the bench scripts time a call: the best of several rounds (the minimum is the
run least disturbed by the rest of a shared machine)."""

from __future__ import annotations

import time
import timeit
from collections.abc import Callable


def best(fn: Callable[[], object], repeats: int) -> float:
    """Seconds of one call of ``fn``: the minimum of ``repeats`` single calls (for calls
    long enough to time alone, e.g. over a MiB)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def best_per_call(fn: Callable[[], object], repeats: int) -> float:
    """Seconds per call of ``fn``: the minimum over ``repeats`` rounds of a loop that
    timeit sizes to about 0.2 s (for short calls)."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=repeats, number=number)) / number
