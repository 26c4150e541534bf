#!/usr/bin/env python3
"""OSS-Fuzz-style atheris entry point of the ``policy`` fuzz target.

Run (from the repository root)::

    mkdir -p work      # new inputs go here; the reviewed seeds stay as they are
    python fuzz/fuzz_policy.py work/ corpus/policy -dict=corpus/utf8.dict \
        -max_total_time=60
    python fuzz/fuzz_policy.py crash-<sha1>            # replay one finding

The target -- what it asserts, what it instruments, its seeds and libFuzzer options -- is
defined once, in ``sanitizer._fuzzing.targets.REGISTRY``; this script runs it as ``python -m
sanitizer.fuzzing policy`` does (``sanitizer fuzz policy`` runs a whole campaign).
"""

from __future__ import annotations

import sys

from sanitizer.fuzzing.__main__ import main

if __name__ == "__main__":
    sys.exit(main(["policy", *sys.argv[1:]]))
