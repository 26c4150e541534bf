"""``python -m sanitizer.fuzzing TARGET [libFuzzer args...]``: run a target without the
source tree (an installed wheel has no ``fuzz/`` directory).

``TARGET`` is one of ``oracles.TARGETS`` (decode, policy, identifiers);
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
_LAZY_MODULES = {
    "policy": ("sanitizer.policy", "sanitizer.profiles", "sanitizer.chardata"),
    "identifiers": ("sanitizer.identifiers", "sanitizer.chardata"),
}


def _fresh_instrumented_check(target: str) -> Callable[[bytes], None]:
    import atheris

    for name in [n for n in sys.modules if n == "sanitizer" or n.startswith("sanitizer.")]:
        if name != __name__:
            del sys.modules[name]
    if target == "decode":  # as fuzz/fuzz_decode.py: the decoder's Python layer only
        scope = {"include": ["sanitizer.decoder", "sanitizer.errors"]}
    else:
        scope = {"include": ["sanitizer"], "exclude": ["sanitizer.fuzzing", "sanitizer._machine"]}
    with atheris.instrument_imports(**scope):
        importlib.import_module("sanitizer")
        # sanitizer loads its policy-layer names lazily, on first use: import the target's
        # modules here, or they would load later, uninstrumented (no coverage feedback)
        for name in _LAZY_MODULES.get(target, ()):
            importlib.import_module(name)
    oracles = importlib.import_module("sanitizer.fuzzing.oracles")
    crumb = importlib.import_module("sanitizer.fuzzing.breadcrumb").from_env()
    check: Callable[[bytes], None] = oracles.TARGETS[target]
    if target == "decode":
        candidates = importlib.import_module("sanitizer.fuzzing.candidate")
        spec = os.environ.get(candidates.CANDIDATE_ENV, "")
        candidate = candidates.load_instrumented(spec) if spec else None

        def check(data: bytes) -> None:
            oracles.check_decode(data, candidate, deep=None)  # sampled: see DEEP_EVERY

    elif target == "policy":

        def check(data: bytes) -> None:
            oracles.check_policy(data, deep=None)  # sampled: see POLICY_DEEP_EVERY

    if crumb is None:
        return check
    full = check

    def with_breadcrumb(data: bytes) -> None:
        crumb.record(data)
        full(data)

    return with_breadcrumb


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    from .oracles import TARGETS

    if not args or args[0] not in TARGETS:
        print(f"{USAGE}\nTARGET: one of {', '.join(TARGETS)}", file=sys.stderr)
        return 2
    try:
        import atheris
    except ImportError:
        print("atheris is not installed: pip install 'utf8-sanitizer[fuzz]'", file=sys.stderr)
        return 2
    try:
        check = _fresh_instrumented_check(args[0])
    except ValueError as exc:  # a bad SANITIZER_FUZZ_CANDIDATE
        print(f"sanitizer.fuzzing: {exc}", file=sys.stderr)
        return 2
    atheris.Setup([sys.argv[0], *args[1:]], check)
    atheris.Fuzz()
    return 0  # pragma: no cover - atheris.Fuzz() exits the process


if __name__ == "__main__":
    sys.exit(main())
