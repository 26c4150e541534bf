"""Load a third-party decoder to fuzz against the strict reference: "MODULE:FUNCTION".

The function takes ``bytes`` and returns ``str``, raising ``UnicodeDecodeError`` (or any
``ValueError``) for ill-formed input.  ``check_decode(data, candidate=...)`` compares its
verdict, text and error offsets with CPython's strict codec (RFC 3629 §4).  Every process
that runs the decode target (the fuzz scripts, ``python -m sanitizer.fuzzing``, a
campaign's workers and helpers) names its candidate in ``$SANITIZER_FUZZ_CANDIDATE``.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from types import FunctionType, MethodType
from typing import cast

__all__ = ["CANDIDATE_ENV", "INSTRUMENT_ENV", "load", "load_instrumented"]

# The environment variable naming the candidate ("MODULE:FUNCTION") of the decode target.
CANDIDATE_ENV = "SANITIZER_FUZZ_CANDIDATE"
# "0" turns off the coverage instrumentation of the candidate's module in fuzz workers.
INSTRUMENT_ENV = "SANITIZER_FUZZ_INSTRUMENT_CANDIDATE"


def load(spec: str) -> Callable[[bytes], str]:
    """Import ``MODULE:FUNCTION`` (``FUNCTION`` may be dotted, e.g. ``mod:Class.method``),
    with the current directory on ``sys.path``, and return the callable.

    Raises TypeError for a spec that is not a str, and ValueError with a one-line reason
    for a malformed spec, a module that cannot be imported, a missing attribute or a
    non-callable.
    """
    if not isinstance(spec, str):
        raise TypeError(f"candidate must be a str MODULE:FUNCTION, not {type(spec).__name__}")
    module_name, sep, attr_path = spec.partition(":")
    module_name, attr_path = module_name.strip(), attr_path.strip()
    if not sep or not module_name or not attr_path:
        raise ValueError(f"candidate must be MODULE:FUNCTION (e.g. mydecoder:decode), not {spec!r}")
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    try:
        obj: object = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(
            f"candidate {spec!r}: cannot import module {module_name!r}: {exc}"
        ) from exc
    except Exception as exc:  # the module itself failed while importing
        raise ValueError(
            f"candidate {spec!r}: importing {module_name!r} raised {type(exc).__name__}: {exc}"
        ) from exc
    for part in attr_path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(
                f"candidate {spec!r}: {type(obj).__name__} {getattr(obj, '__name__', obj)!r} "
                f"has no attribute {part!r}"
            ) from None
    if not callable(obj):
        raise ValueError(f"candidate {spec!r}: {attr_path} is a {type(obj).__name__}, not callable")
    return cast(Callable[[bytes], str], obj)


def load_instrumented(spec: str) -> Callable[[bytes], str]:
    """``load(spec)`` in a fuzz worker: the candidate's module is imported inside atheris'
    ``instrument_imports``, so libFuzzer gets coverage from the candidate's own branches
    (a bug behind one specific multi-byte sequence is reachable, not a needle in a
    haystack).  A module imported before (a stdlib codec, ``sanitizer`` itself) cannot be
    instrumented that way: a Python function is then instrumented alone
    (``instrument_func``).  ``$SANITIZER_FUZZ_INSTRUMENT_CANDIDATE=0`` opts out."""
    if os.environ.get(INSTRUMENT_ENV, "1") == "0":
        return load(spec)
    import atheris

    module_name = spec.partition(":")[0].strip()
    fresh = module_name not in sys.modules
    with atheris.instrument_imports(include=[module_name]):
        func = load(spec)
    if not fresh:
        target = func.__func__ if isinstance(func, MethodType) else func
        if isinstance(target, FunctionType):
            atheris.instrument_func(target)
    return func
