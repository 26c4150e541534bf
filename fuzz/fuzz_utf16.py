#!/usr/bin/env python3
"""OSS-Fuzz-style atheris target: strict UTF-16 and UTF-32 (issue #15), differentially.

Run (from the repository root)::

    mkdir -p work      # new inputs go here; the reviewed seeds stay as they are
    python fuzz/fuzz_utf16.py work/ corpus/utf16 -max_total_time=60
    python fuzz/fuzz_utf16.py crash-<sha1>            # replay one finding
    SANITIZER_FUZZ_CANDIDATE=mydecoder:decode python fuzz/fuzz_utf16.py work/ corpus/utf16

Each input is decoded as UTF-16LE, UTF-16BE, UTF-32LE and UTF-32BE (and as UTF-16/UTF-32
with BOM detection when it starts with a BOM), and ``sanitizer.fuzzing.wide_oracle.
check_wide`` asserts against CPython's codecs: the verdict, the replace text, the first
error's span, every error's span, and chunked (incremental) decoding equal to one-shot.
With ``SANITIZER_FUZZ_CANDIDATE=MODULE:FUNCTION`` the candidate (bytes -> str) must give
``sanitizer.utf16``'s UTF-16LE verdict, text and first error span.  A violation raises
``Divergence`` (the input in hex); libFuzzer saves the input as ``crash-*``.  Only the
decoders (``sanitizer.utf16``, ``utf32``, ``wide``) are instrumented.
"""

from __future__ import annotations

import os
import sys

import atheris

with atheris.instrument_imports(include=["sanitizer.utf16", "sanitizer.utf32", "sanitizer.wide"]):
    from sanitizer import utf16, utf32  # noqa: F401

from sanitizer.fuzzing.candidate import CANDIDATE_ENV, load
from sanitizer.fuzzing.wide_oracle import check_wide

_SPEC = os.environ.get(CANDIDATE_ENV, "")
_CANDIDATE = load(_SPEC) if _SPEC else None


def TestOneInput(data: bytes) -> None:  # atheris/OSS-Fuzz entry point name
    check_wide(data, _CANDIDATE)


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
