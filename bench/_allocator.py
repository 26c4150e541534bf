"""A steady heap for throughput benchmarks that allocate large strs.

A 1 MiB input decodes to a str of 1-4 MiB.  With glibc's defaults, whether that block
comes from fresh mmap'ed pages (a page fault per 4 KiB, about as costly as decoding
them) or from memory the heap kept depends on what the process freed before, so the
same call measured 1x or 2x its cost from one run to the next, on either side of a
ratio.  ``steady_heap()`` re-runs the benchmark with glibc told to serve such blocks
from the heap and to keep freed memory (``mallopt`` through its environment variables),
so both sides of a ratio are timed without page faults.  ``--allocator-as-is`` keeps the
defaults.
"""

from __future__ import annotations

import os
import sys

# M_MMAP_THRESHOLD at glibc's 64-bit maximum (32 MiB; a larger value is ignored), and
# M_TRIM_THRESHOLD so high that freed memory is never returned.
STEADY = {"MALLOC_MMAP_THRESHOLD_": str(32 << 20), "MALLOC_TRIM_THRESHOLD_": str(1 << 40)}
AS_IS = "--allocator-as-is"


def steady_heap() -> str:
    """Re-execute this script under ``STEADY`` unless it runs so already (or was asked
    not to); returns how the heap is set, for the output."""
    if AS_IS in sys.argv:
        sys.argv.remove(AS_IS)
        return "glibc malloc defaults"
    if all(os.environ.get(k) == v for k, v in STEADY.items()):
        return "steady heap (" + " ".join(f"{k}={v}" for k, v in STEADY.items()) + ")"
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **STEADY})
    raise AssertionError("unreachable")  # execve does not return
