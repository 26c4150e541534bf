"""``python -m sanitizer.fuzzing TARGET [libFuzzer args...]``: run a fuzz target.

Every target of ``targets.REGISTRY`` runs from an installed package; the scripts
``fuzz/fuzz_TARGET.py`` (OSS-Fuzz's entry points) call ``main`` here too.
``SANITIZER_FUZZ_CANDIDATE=MODULE:FUNCTION`` names a candidate decoder (decode, utf16).

``python -m`` imports ``sanitizer`` before this module runs, and atheris only instruments
modules imported inside ``instrument_imports()``.  Rather than ``atheris.instrument_all()``
(which rewrites every loaded module, stdlib included, and takes tens of seconds to start),
this drops the already-imported ``sanitizer`` modules from ``sys.modules`` and imports the
package again inside ``instrument_imports()`` with the target's scopes: the code under
test is instrumented, the oracle (``sanitizer.fuzzing``) is not.  Exit codes are
libFuzzer's; 2 for a usage error.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable

USAGE = "usage: python -m sanitizer.fuzzing TARGET [libFuzzer args...]"


def _fresh_instrumented_check(target: str, argv: list[str]) -> Callable[[bytes], None]:
    import atheris

    from .._fuzzing.targets import target as registered  # (imports sanitizer; dropped again below)

    spec = registered(target)
    for name in [n for n in sys.modules if n == "sanitizer" or n.startswith("sanitizer.")]:
        if name != __name__:
            del sys.modules[name]
    # the target's code under test, not the oracle
    if not spec.instrument_core:
        importlib.import_module("sanitizer")
    with atheris.instrument_imports(include=list(spec.include), exclude=list(spec.exclude)):
        importlib.import_module("sanitizer")
        # modules imported only by the oracle (python_multipart for web) load here too,
        # and sanitizer loads its policy-layer names lazily, on first use: import the
        # target's modules now, or they would load later, uninstrumented
        for name in (*spec.requires, *spec.preload, *spec.include):
            importlib.import_module(name)
    crumb = importlib.import_module("sanitizer._fuzzing.breadcrumb").from_env()
    targets = importlib.import_module("sanitizer._fuzzing.targets")
    check: Callable[[bytes], None] = targets.worker_check(target, argv)
    if crumb is None:
        return check
    full = check

    def with_breadcrumb(data: bytes) -> None:
        crumb.record(data)
        full(data)

    return with_breadcrumb


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    from .._fuzzing.targets import TARGET_NAMES, target

    if not args or args[0] not in TARGET_NAMES:
        print(f"{USAGE}\nTARGET: one of {', '.join(TARGET_NAMES)}", file=sys.stderr)
        return 2
    missing = [m for m in target(args[0]).requires if importlib.util.find_spec(m) is None]
    if missing:
        print(
            f"fuzz target {args[0]} needs {', '.join(missing)}: pip install 'utf8-sanitizer[fuzz]'",
            file=sys.stderr,
        )
        return 2
    try:
        import atheris
    except ImportError:
        print("atheris is not installed: pip install 'utf8-sanitizer[fuzz]'", file=sys.stderr)
        return 2
    try:
        check = _fresh_instrumented_check(args[0], [sys.argv[0], *args[1:]])
    except ValueError as exc:  # a bad SANITIZER_FUZZ_CANDIDATE
        print(f"sanitizer.fuzzing: {exc}", file=sys.stderr)
        return 2
    atheris.Setup([sys.argv[0], *args[1:]], check)
    atheris.Fuzz()
    return 0  # pragma: no cover - atheris.Fuzz() exits the process


if __name__ == "__main__":
    sys.exit(main())
