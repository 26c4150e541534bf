"""The two runners of the decoder core (the pure-Python state machine, the C extension
when built) and the switch of the public entry points between them: the ``runner`` and
``backend`` fixtures of ``tests/conftest.py`` are made of these.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

from sanitizer import _decoder as decoder
from sanitizer import _machine
from sanitizer._native import speedups

# The runners: the reference always, the C one when the package uses it (built and not
# disabled by SANITIZER_PURE_PYTHON=1: sanitizer._native decides).
RUNNERS: dict[str, Any] = {"python": _machine}
if speedups is not None:
    RUNNERS["c"] = speedups

# A backend: the runner behind the public entry points, and the ``decode`` entry point.
# With the C runner built, ``sanitizer.decode`` is a C function (``_speedups.decode``)
# that handles the fast path and ``errors="replace"`` itself and calls ``decode_py`` for
# the rest; ``decode_py`` is the Python implementation, tested on both runners.
BACKENDS: dict[str, tuple[Any, Callable[..., str]]] = {
    "python": (_machine, decoder.decode_py),
}
if speedups is not None:
    BACKENDS["c"] = (speedups, decoder.decode)  # decoder.decode is speedups.decode
    BACKENDS["c+decode_py"] = (speedups, decoder.decode_py)


@contextlib.contextmanager
def use_backend(name: str) -> Iterator[ModuleType]:
    """Run the public entry points (decode, find_errors, ...) on backend ``name``."""
    saved = decoder._runner, decoder.decode
    decoder._runner, decoder.decode = BACKENDS[name]
    try:
        yield decoder._runner
    finally:
        decoder._runner, decoder.decode = saved


def decode(data: object, **options: Any) -> str:
    """``decode`` of the active backend (tests import this instead of sanitizer.decode)."""
    return decoder.decode(data, **options)  # type: ignore[arg-type]
