"""The one native seam: whether the optional C extension (``_speedups``) is used.

Every module that can run in C (the decoder's runner, the policy fast path, the web
layer's percent-decoding, the fuzz oracles, the tests) asks here, so the choice is made
once per process.  ``SANITIZER_PURE_PYTHON=1`` forces the pure-Python reference paths
(tests and benchmarks use it to run both backends); without a C compiler at install time
the extension is absent and the pure-Python paths are used silently.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Literal

__all__ = ["BACKEND", "speedups"]

speedups: ModuleType | None = None
if not os.environ.get("SANITIZER_PURE_PYTHON"):
    try:
        from . import _speedups as speedups
    except ImportError:  # no C compiler at install time: the reference paths serve
        speedups = None

# What runs the RFC 3629 table (and the policy fast path): "c" or "python".
BACKEND: Literal["c", "python"] = "c" if speedups is not None else "python"
