"""Fuzzing support: the oracle of each fuzz target, and the loader of a candidate decoder.

Fuzzers find inputs; the oracles decide what counts as a bug.  Each ``check_*`` takes the
bytes a fuzzer made and raises (``Divergence`` or an ``AssertionError``) when the package
breaks one of its promises on them; ``load("MODULE:FUNCTION")`` imports a third-party
decoder for ``check_decode`` (or ``check_wide``) to test differentially.  The same oracles
run the fuzz targets of ``fuzz/``, ``sanitizer fuzz`` and ``python -m sanitizer.fuzzing
TARGET`` (docs/fuzzing.md); the registry of targets, the campaign and the seed corpus are
internal (``sanitizer._fuzzing``).

The names load on first use (PEP 562): ``import sanitizer.fuzzing`` loads no oracle.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._fuzzing.candidate import load
    from .._fuzzing.oracles import Divergence, check_decode, check_identifiers, check_policy
    from .._fuzzing.utf7_oracle import check_utf7
    from .._fuzzing.web_oracle import check_web
    from .._fuzzing.wide_oracle import check_wide

# public name -> the module defining it (tests/fuzzing/test_targets.py: every registered
# target's oracle is here)
_PUBLIC = {
    "load": "sanitizer._fuzzing.candidate",
    "Divergence": "sanitizer._fuzzing.oracles",
    "check_decode": "sanitizer._fuzzing.oracles",
    "check_policy": "sanitizer._fuzzing.oracles",
    "check_identifiers": "sanitizer._fuzzing.oracles",
    "check_wide": "sanitizer._fuzzing.wide_oracle",
    "check_utf7": "sanitizer._fuzzing.utf7_oracle",
    "check_web": "sanitizer._fuzzing.web_oracle",  # needs python-multipart (the web extra)
}

__all__ = [
    "Divergence",
    "check_decode",
    "check_identifiers",
    "check_policy",
    "check_utf7",
    "check_web",
    "check_wide",
    "load",
]


def __getattr__(name: str) -> object:
    try:
        module = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
