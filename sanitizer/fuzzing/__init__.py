"""Fuzzing support: the oracles, and the campaign that runs libFuzzer against them.

Fuzzers find inputs; the oracles decide what counts as a bug.  The modules, by what each
knows:

* ``oracles``: one invariant function per target (``TARGETS``), shared by the atheris
  scripts in ``fuzz/``, ``python -m sanitizer.fuzzing TARGET`` and the pytest replay;
* ``targets``: the campaign's targets (those, utf16, and utf7 and web whose oracles live
  in their scripts): each one's check and what its workers instrument;
* ``candidate``: loads a third-party decoder ("MODULE:FUNCTION") to test differentially;
* ``mutants``: known-broken decoders that prove the oracle and the seed corpus catch each
  classic UTF-8 mistake (RFC 3629 §10, HOWTO §5.9.4, Kuhn's UTF-8 decoder stress test),
  and campaign-only ones (hang, self-kill, exit, needle) that prove the runner does;
* ``libfuzzer``: libFuzzer's command lines and the meaning of its output lines;
* ``layout``: where scripts, seeds, dictionary and corpus units live; the shims;
* ``results``: what a campaign returns (``FuzzFinding``, ``TargetResult``) and its reports;
* ``replay``: a campaign's in-process helpers (screen a corpus, shrink a finding);
* ``progress``: the live status line;
* ``breadcrumb``: the input a worker is running, for workers that die without a report;
* ``ledger``: the record of campaigns (``fuzz/campaigns.jsonl``) and its totals;
* ``campaign``: the orchestration behind ``sanitizer fuzz`` (``run_campaign``).
"""

from __future__ import annotations

from .candidate import load
from .oracles import TARGETS, Divergence, check_decode, check_identifiers, check_policy

__all__ = ["TARGETS", "Divergence", "check_decode", "check_identifiers", "check_policy", "load"]
