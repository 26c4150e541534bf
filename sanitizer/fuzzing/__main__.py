"""``python -m sanitizer.fuzzing TARGET [libFuzzer args...]``: run a target without the
source tree (an installed wheel has no ``fuzz/`` directory).

``TARGET`` is one whose check is in the package (``targets.in_package``: decode, policy,
identifiers, utf16);
``SANITIZER_FUZZ_CANDIDATE=MODULE:FUNCTION`` works as for ``fuzz/fuzz_decode.py``.

``python -m`` imports ``sanitizer`` before this module runs, and atheris only instruments
modules imported inside ``instrument_imports()``.  Rather than ``atheris.instrument_all()``
(which rewrites every loaded module, stdlib included, and takes tens of seconds to start),
this drops the already-imported ``sanitizer`` modules from ``sys.modules`` and imports the
package again inside ``instrument_imports()``, exactly as ``fuzz/fuzz_*.py`` do: the core
is instrumented, the oracle (``sanitizer.fuzzing``) is not.  Exit codes are libFuzzer's;
2 for a usage error.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable

USAGE = "usage: python -m sanitizer.fuzzing TARGET [libFuzzer args...]"


def _fresh_instrumented_check(target: str, argv: list[str]) -> Callable[[bytes], None]:
    import atheris

    from .targets import SPECS  # (imports sanitizer; dropped again just below)

    spec = SPECS[target]
    for name in [n for n in sys.modules if n == "sanitizer" or n.startswith("sanitizer.")]:
        if name != __name__:
            del sys.modules[name]
    # as fuzz/fuzz_TARGET.py: the target's code under test, not the oracle
    if not spec.instrument_core:
        importlib.import_module("sanitizer")
    with atheris.instrument_imports(include=list(spec.include), exclude=list(spec.exclude)):
        importlib.import_module("sanitizer")
        # sanitizer loads its policy-layer names lazily, on first use: import the target's
        # modules here, or they would load later, uninstrumented (no coverage feedback)
        for name in (*spec.preload, *spec.include):
            importlib.import_module(name)
    oracles = importlib.import_module("sanitizer.fuzzing.oracles")
    crumb = importlib.import_module("sanitizer.fuzzing.breadcrumb").from_env()
    targets = importlib.import_module("sanitizer.fuzzing.targets")
    check: Callable[[bytes], None] = targets.check_for(target)
    if target == "decode":
        candidates = importlib.import_module("sanitizer.fuzzing.candidate")
        wanted = os.environ.get(candidates.CANDIDATE_ENV, "")
        candidate = candidates.load_instrumented(wanted) if wanted else None

        def check(data: bytes) -> None:
            oracles.check_decode(data, candidate, deep=None)  # sampled: see DEEP_EVERY

    elif target == "policy":
        # sampled while fuzzing, the full check when replaying files (no sampling on replay)
        deep = (
            True if importlib.import_module("sanitizer.fuzzing.libfuzzer").replaying(argv) else None
        )

        def check(data: bytes) -> None:
            oracles.check_policy(data, deep=deep)  # see POLICY_DEEP_EVERY

    if crumb is None:
        return check
    full = check

    def with_breadcrumb(data: bytes) -> None:
        crumb.record(data)
        full(data)

    return with_breadcrumb


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    from .targets import TARGET_NAMES, in_package

    names = [t for t in TARGET_NAMES if in_package(t)]
    if not args or args[0] not in names:
        print(f"{USAGE}\nTARGET: one of {', '.join(names)}", file=sys.stderr)
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
