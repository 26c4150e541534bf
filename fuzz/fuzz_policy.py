#!/usr/bin/env python3
"""OSS-Fuzz-style atheris target: the policy layer on hostile bytes.

Run (from the repository root)::

    mkdir -p work      # new inputs go here; the reviewed seeds stay as they are
    python fuzz/fuzz_policy.py work/ corpus/policy -dict=corpus/utf8.dict -max_total_time=60

Asserts ``sanitizer.fuzzing.oracles.check_policy`` for every profile in
``sanitizer.profiles.PROFILES``: ``inspect`` never raises for content; ``ok`` holds iff no
finding is a rejection, and ``sanitize`` then returns ``report.text`` (else raises
``PolicyError``); findings lie inside the input; ill-formed UTF-8 always yields an
ILL_FORMED finding (RFC 3629 §10); the output is well-formed text that the same policy
returns unchanged (idempotence); well-formed bytes and their decoded str get the same
verdict and text; ``accepts`` and ``sanitize`` agree.  Over the byte limit an ill-formed input
may get TOO_LONG alone (limits apply before decoding).  While fuzzing, each input goes
through one profile's ``accepts``/``sanitize`` checks, sampled inputs through its
``inspect`` (``oracles.POLICY_INSPECT_EVERY``) or every check of every profile
(``POLICY_DEEP_EVERY``); run on files (``fuzz_policy.py crash-...``, libFuzzer's replay and
``-minimize_crash``), every input gets the full check.
"""

from __future__ import annotations

import sys

import atheris

# Coverage from the policy layer only (sanitizer.fuzzing.targets.SPECS["policy"]): the
# decoder core it calls is fuzz_decode.py's to explore, and instrumenting it here too
# made every execution about a third slower.
import sanitizer  # the core, uninstrumented

with atheris.instrument_imports(
    include=["sanitizer.policy", "sanitizer.profiles", "sanitizer.categories"]
):
    # sanitizer loads its policy layer lazily: imported here, or it loads later uninstrumented
    import sanitizer.categories
    import sanitizer.policy
    import sanitizer.profiles  # noqa: F401

from sanitizer.fuzzing import breadcrumb
from sanitizer.fuzzing.libfuzzer import replaying
from sanitizer.fuzzing.oracles import check_policy

_CRUMB = breadcrumb.from_env()  # set by a campaign: the input survives a silent death
# Sampled tiers while fuzzing; the full check when replaying files (no sampling on replay)
_DEEP = True if replaying(sys.argv) else None


def TestOneInput(data: bytes) -> None:  # atheris/OSS-Fuzz entry point name
    if _CRUMB is not None:
        _CRUMB.record(data)
    check_policy(data, deep=_DEEP)  # sampled while fuzzing: see POLICY_DEEP_EVERY


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
