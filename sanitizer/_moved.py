"""The import paths that moved when internal modules got their underscore, kept for one
release: ``import sanitizer.decoder`` still works, and warns (DeprecationWarning) where
its names are public now.

One table answers every old path (an import hook), rather than a file at each: the
modules themselves moved with their history, and nothing stands at the old paths.  Each
old module is a thin module of its own that forwards every attribute to the module that
holds the code now.  Only paths the documentation once showed are here.
"""

from __future__ import annotations

import importlib
import sys

# old path -> (the module holding its code now, where its public names are)
MOVED: dict[str, tuple[str, str]] = {
    "sanitizer.decoder": ("sanitizer._decoder", "import them from sanitizer"),
    "sanitizer.identifiers": ("sanitizer._identifiers", "import them from sanitizer"),
    "sanitizer.lookalike": ("sanitizer._lookalike", "import them from sanitizer"),
    "sanitizer.policy": ("sanitizer._policy", "import them from sanitizer"),
    "sanitizer.policy.compiled": ("sanitizer._policy.compiled", "it is internal"),
    "sanitizer.fuzzing.targets": ("sanitizer._fuzzing.targets", "it is internal"),
    "sanitizer.fuzzing.mutants": ("sanitizer._fuzzing.mutants", "it is internal"),
    "sanitizer.fuzzing.wide_oracle": (
        "sanitizer._fuzzing.wide_oracle",
        "import check_wide from sanitizer.fuzzing",
    ),
}
REMOVAL = "0.3.0"  # the release without them


class _Forwarder:
    """The finder and loader of the old paths (importlib's protocols, duck-typed: no
    ``importlib.abc`` at start-up)."""

    @staticmethod
    def find_spec(fullname: str, path: object = None, target: object = None) -> object:
        if fullname not in MOVED:
            return None
        spec_class = type(__spec__)  # ModuleSpec, without importing importlib.machinery
        is_package = any(old.startswith(fullname + ".") for old in MOVED)
        return spec_class(fullname, _Forwarder, is_package=is_package)  # type: ignore[arg-type]

    @staticmethod
    def create_module(spec: object) -> object:
        name: str = spec.name  # type: ignore[attr-defined]
        new, advice = MOVED[name]
        import warnings

        warnings.warn(
            f"{name} is internal and moved to {new}; {advice} (the old path goes in {REMOVAL})",
            DeprecationWarning,
            stacklevel=2,  # the importing line: warnings skips the import system's frames
        )
        holder = importlib.import_module(new)
        module = type(sys)(name, holder.__doc__)
        module.__dict__["__getattr__"] = lambda attribute: getattr(holder, attribute)
        module.__dict__["__all__"] = list(getattr(holder, "__all__", ()))
        return module

    @staticmethod
    def exec_module(module: object) -> None:
        return None


def install() -> None:
    """Answer the old paths (once, before any other finder: a stale file or folder at an
    old path, a ``__pycache__`` left by an upgrade, must not shadow the answer)."""
    if _Forwarder not in sys.meta_path:  # type: ignore[comparison-overlap]
        sys.meta_path.insert(0, _Forwarder)  # type: ignore[arg-type]
