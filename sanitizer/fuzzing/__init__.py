"""Fuzzing support: the oracles, candidate loading and deliberately broken decoders.

Fuzzers find inputs; these modules decide what counts as a bug.  ``checks`` holds one
invariant function per target (``TARGETS``), shared by the atheris scripts in ``fuzz/``,
``python -m sanitizer.fuzzing TARGET`` and the pytest regression replay.  ``candidate``
loads a third-party decoder ("MODULE:FUNCTION") to test differentially, and ``mutants``
are known-broken decoders that prove the oracle and the seed corpus catch each classic
UTF-8 mistake (RFC 3629 §10, HOWTO §5.9.4, Kuhn's UTF-8 decoder stress test).
"""

from __future__ import annotations

from .candidate import load
from .checks import TARGETS, Divergence, check_decode, check_identifiers, check_policy

__all__ = ["TARGETS", "Divergence", "check_decode", "check_identifiers", "check_policy", "load"]
