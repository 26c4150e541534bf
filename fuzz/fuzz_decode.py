#!/usr/bin/env python3
"""OSS-Fuzz-style atheris target: strict UTF-8 decoding, differentially.

Run (from the repository root)::

    mkdir -p work      # new inputs go here; the reviewed seeds stay as they are
    python fuzz/fuzz_decode.py work/ corpus/decode -dict=corpus/utf8.dict -max_total_time=60
    python fuzz/fuzz_decode.py crash-<sha1>            # replay one finding
    SANITIZER_FUZZ_CANDIDATE=mydecoder:decode python fuzz/fuzz_decode.py work/ corpus/decode

Asserts ``sanitizer.fuzzing.oracles.check_decode``: both runners of the RFC 3629 §4 table
(C and pure Python) give CPython's maximal subparts (Unicode §3.9) and replace text;
``decode``/``is_valid``/``find_errors``/``group_errors``/``encode`` agree with CPython;
CPython's and this project's incremental decoders, fed a chunking derived from the input,
equal one-shot decoding; every error kind matches the classification table; every UTF-8
validator kernel this CPU runs (``oracles.KERNELS``), on the input copied 0..63 bytes into
a buffer, keeps its contract against the first error offset (issue #14).  A cheap
tier of these runs on every input and the rest on one input in 64, chosen by the input's
CRC-32 (``oracles.DEEP_EVERY``), so a replay repeats exactly what was checked.  With
``SANITIZER_FUZZ_CANDIDATE=MODULE:FUNCTION``, the candidate's verdict, text and error
offsets must equal the strict reference, also with the input moved across 1 KiB..64 KiB
block boundaries (``oracles.long_variants``); a candidate calling ``os._exit`` or raising
``SystemExit``/``KeyboardInterrupt`` is a finding too.  A violation raises ``Divergence``
(a report with the input in hex); libFuzzer saves the input as ``crash-*``.  The
candidate's module is coverage-instrumented (``candidate.load_instrumented``;
``SANITIZER_FUZZ_INSTRUMENT_CANDIDATE=0`` opts out), so its own branches guide libFuzzer.

The code under test (``sanitizer``'s core) is imported inside ``instrument_imports`` so
libFuzzer gets coverage; the oracle (``sanitizer.fuzzing``) is not instrumented, which
keeps the per-input cost down.
"""

from __future__ import annotations

import os
import sys

import atheris

DECODE_MODULES = ("sanitizer.decoder", "sanitizer.errors")

# Coverage from the decoder's Python layer only (entry points, classification, reasons);
# grammar and charnames are data and lookups, and the policy layer is fuzz_policy.py's:
# instrumenting them here would only slow each execution down.
with atheris.instrument_imports(include=list(DECODE_MODULES)):
    import sanitizer  # noqa: F401

from sanitizer.fuzzing import breadcrumb  # noqa: E402 (after instrumentation)
from sanitizer.fuzzing.candidate import CANDIDATE_ENV, load_instrumented  # noqa: E402
from sanitizer.fuzzing.oracles import check_decode  # noqa: E402

_SPEC = os.environ.get(CANDIDATE_ENV, "")
_CANDIDATE = load_instrumented(_SPEC) if _SPEC else None
_CRUMB = breadcrumb.from_env()  # set by a campaign: the input survives a silent death


def TestOneInput(data: bytes) -> None:  # atheris/OSS-Fuzz entry point name
    if _CRUMB is not None:
        _CRUMB.record(data)
    check_decode(data, _CANDIDATE, deep=None)  # sampled deep tier: see DEEP_EVERY


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
