"""The import paths that moved when internal modules got their underscore, kept for one
release: ``import sanitizer.decoder`` still works, and warns (DeprecationWarning) where
its names are public now.

Each old path the documentation once showed is a small module that calls ``forward``:
it warns once, when imported, then forwards every attribute to the module that holds
the code now.  The shims stand beside the old paths, never on them (``decoder/``
for ``decoder.py``, ``policy.py`` for ``policy/``), so the moved modules kept their
history, and nothing is loaded for them unless they are imported.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

REMOVAL = "0.3.0"  # the release without the old paths

# The old paths the documentation once showed -> the module holding their code now.  Each
# is a shim module (which calls ``forward``) but a submodule of a shim, such as
# ``sanitizer.policy.compiled``, which its parent's ``forward`` registers.
MOVED: dict[str, str] = {
    "sanitizer.decoder": "sanitizer._decoder",
    "sanitizer.identifiers": "sanitizer._identifiers",
    "sanitizer.lookalike": "sanitizer._lookalike",
    "sanitizer.policy": "sanitizer._policy",
    "sanitizer.policy.compiled": "sanitizer._policy.compiled",
    "sanitizer.fuzzing.mutants": "sanitizer._fuzzing.mutants",
    "sanitizer.fuzzing.targets": "sanitizer._fuzzing.targets",
    "sanitizer.fuzzing.wide_oracle": "sanitizer._fuzzing.wide_oracle",
    "sanitizer.wide": "sanitizer._wide",
}


def forward(name: str, advice: str) -> Callable[[str], object]:
    """Warn that module ``name`` moved (to ``MOVED[name]``) and return the ``__getattr__``
    that forwards there.  Its old submodules in ``MOVED`` are registered, so that
    ``import name.submodule`` works too."""
    new = MOVED[name]
    warnings.warn(
        f"{name} is internal and moved to {new}; {advice} (the old path goes in {REMOVAL})",
        DeprecationWarning,
        stacklevel=3,  # the importing line: warnings skips the import system's frames
    )
    holder = importlib.import_module(new)
    module = sys.modules[name]
    setattr(module, "__all__", list(getattr(holder, "__all__", ())))  # noqa: B010
    for old, target in MOVED.items():
        parent, _, child = old.rpartition(".")
        if parent != name:
            continue
        shim = type(sys)(old, f"Deprecated: moved to {target}.")
        setattr(shim, "__getattr__", _forwarder(importlib.import_module(target)))  # noqa: B010
        sys.modules[old] = shim
        setattr(module, child, shim)
    return _forwarder(holder)


def _forwarder(holder: object) -> Callable[[str], object]:
    def __getattr__(attribute: str) -> object:
        return getattr(holder, attribute)

    return __getattr__
