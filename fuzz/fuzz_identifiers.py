#!/usr/bin/env python3
"""OSS-Fuzz-style atheris target: identifier normalization and comparison.

Run (from the repository root)::

    mkdir -p work      # new inputs go here; the reviewed seeds stay as they are
    python fuzz/fuzz_identifiers.py work/ corpus/identifiers -dict=corpus/utf8.dict \
        -max_total_time=60

The input holds two identifiers separated by an FF byte (never part of UTF-8, RFC 3629
§1), each decoded with surrogateescape.  Asserts
``sanitizer.fuzzing.oracles.check_identifiers`` for NFC, NFKC and NFKC_CASEFOLD:
``normalize_identifier`` is idempotent and (NFC, NFKC) equals ``unicodedata2.normalize``
(UAX #15); ``identifiers_equal`` is reflexive, symmetric and equals comparing normal
forms; equality under a weaker form implies equality under a stronger one.  Then UTS #39 §4:
``skeleton`` and ``confusable`` (the C extension's ``lookalike.c`` when built, and under
``tools/build_fuzz_native.py`` its instrumented copy) against their pure-Python twins
``skeleton_py`` / ``confusable_py`` and against the definition (skeletons are NFD,
confusable iff equal skeletons, the verdict from the resolved script sets, symmetric).
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(
    include=["sanitizer"], exclude=["sanitizer.fuzzing", "sanitizer._machine"]
):
    # sanitizer loads these lazily: imported here, or they load later uninstrumented
    import sanitizer
    import sanitizer.identifiers
    import sanitizer.lookalike  # noqa: F401 (skeletons, scripts: UTS #39)

from sanitizer.fuzzing.oracles import check_identifiers


def TestOneInput(data: bytes) -> None:  # atheris/OSS-Fuzz entry point name
    check_identifiers(data)


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
