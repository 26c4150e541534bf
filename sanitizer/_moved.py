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

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable

REMOVAL = "0.3.0"  # the release without the old paths


def forward(
    name: str, new: str, advice: str, submodules: dict[str, str] | None = None
) -> Callable[[str], object]:
    """Warn that module ``name`` moved to ``new`` and return the ``__getattr__`` that
    forwards to it.  ``submodules``: old submodule name -> new module, registered so that
    ``import name.submodule`` works too."""
    warnings.warn(
        f"{name} is internal and moved to {new}; {advice} (the old path goes in {REMOVAL})",
        DeprecationWarning,
        stacklevel=3,  # the importing line: warnings skips the import system's frames
    )
    holder = importlib.import_module(new)
    module = sys.modules[name]
    setattr(module, "__all__", list(getattr(holder, "__all__", ())))  # noqa: B010
    for child, target in (submodules or {}).items():
        old = f"{name}.{child}"
        shim = type(sys)(old, f"Deprecated: moved to {target}.")
        setattr(shim, "__getattr__", _forwarder(importlib.import_module(target)))  # noqa: B010
        sys.modules[old] = shim
        setattr(module, child, shim)
    return _forwarder(holder)


def _forwarder(holder: object) -> Callable[[str], object]:
    def __getattr__(attribute: str) -> object:
        return getattr(holder, attribute)

    return __getattr__
