#!/usr/bin/env python3
"""OSS-Fuzz-style atheris entry point of the ``utf7`` fuzz target.

Run (from the repository root)::

    mkdir -p work      # new inputs go here; the reviewed seeds stay as they are
    python fuzz/fuzz_utf7.py work/ corpus/utf7 -dict=corpus/utf8.dict \
        -max_total_time=60
    python fuzz/fuzz_utf7.py crash-<sha1>            # replay one finding

The target -- what it asserts, what it instruments, its seeds and libFuzzer options -- is
defined once, in ``sanitizer._fuzzing.targets.REGISTRY``; this script runs it as ``python -m
sanitizer.fuzzing utf7`` does (``sanitizer fuzz utf7`` runs a whole campaign).
"""

from __future__ import annotations

import sys

from sanitizer.fuzzing.__main__ import main

if __name__ == "__main__":
    sys.exit(main(["utf7", *sys.argv[1:]]))
