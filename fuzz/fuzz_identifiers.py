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
forms; equality under a weaker form implies equality under a stronger one.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(
    include=["sanitizer"], exclude=["sanitizer.fuzzing", "sanitizer._machine"]
):
    import sanitizer
    import sanitizer.identifiers  # noqa: F401 (loaded lazily otherwise: uninstrumented)

from sanitizer.fuzzing.oracles import check_identifiers


def TestOneInput(data: bytes) -> None:  # atheris/OSS-Fuzz entry point name
    check_identifiers(data)


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
