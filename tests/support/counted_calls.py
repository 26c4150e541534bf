"""Work counted, not timed: how many functions a call enters (``sys.setprofile``), for
the tests that hold a cost to a bound whatever the machine's load (a C pass counts as
one call; a Python loop as one a turn)."""

from __future__ import annotations

import sys
from collections.abc import Callable


def python_calls(call: Callable[[], object], *, builtins: bool = False, quiet: bool = True) -> int:
    """Python functions entered during ``call()``; with ``builtins``, the builtins and C
    functions called from Python too.  ``quiet``: an exception the call raises (a
    refusal) ends it, counted so far; else it propagates."""
    count = 0
    events = ("call", "c_call") if builtins else ("call",)

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal count
        count += event in events

    sys.setprofile(profile)
    try:
        call()
    except Exception:
        if not quiet:
            raise
    finally:
        sys.setprofile(None)
    return count
