"""Fuzzing support: the oracles, and the campaign that runs libFuzzer against them.

Fuzzers find inputs; the oracles decide what counts as a bug.  The modules, by what each
knows:

* ``targets``: the registry of fuzz targets (name, oracle, what a worker instruments,
  seeds, dictionary, libFuzzer options); every other list of targets derives from it;
* ``oracles``: the invariants of the UTF-8 targets (``check_decode``, ``check_policy``,
  ``check_identifiers``); ``wide_oracle``, ``utf7_oracle`` and ``web_oracle`` those of
  the others;
* ``classes``: the ill-formed classes a candidate decoder may accept, ranked;
* ``probes``: a candidate's verdict on every class, from the seeds;
* ``seeds``: the seed corpus, one reviewable row per attack, and ``utf8.dict``;
* ``candidate``: loads a third-party decoder ("MODULE:FUNCTION") to test differentially;
* ``mutants``: known-broken decoders that prove the oracle and the seed corpus catch each
  classic UTF-8 mistake (RFC 3629 §10, HOWTO §5.9.4, Kuhn's UTF-8 decoder stress test),
  and campaign-only ones (hang, self-kill, exit, needle) that prove the runner does;
* ``libfuzzer``: libFuzzer's command lines and the meaning of its output lines;
* ``layout``: where scripts, seeds, dictionary and corpus units live; the shims;
* ``results``: what a campaign returns (``FuzzFinding``, ``TargetResult``) and its reports;
* ``replay``: a campaign's in-process helpers (screen a corpus, probe, shrink a finding);
* ``progress``: the live status line;
* ``breadcrumb``: the input a worker is running, for workers that die without a report;
* ``ledger``: the record of campaigns (``fuzz/campaigns.jsonl``) and its totals;
* ``campaign``: the orchestration behind ``sanitizer fuzz`` (``run_campaign``).

The names below load on first use (PEP 562), so ``import sanitizer._fuzzing.targets``
(the CLI's parser) does not load the oracles.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .._fuzzing.candidate import load
    from .._fuzzing.oracles import Divergence, check_decode, check_identifiers, check_policy

__all__ = ["Divergence", "check_decode", "check_identifiers", "check_policy", "load"]


def __getattr__(name: str) -> object:
    if name == "load":
        from .._fuzzing.candidate import load

        return load
    if name in __all__:
        from .._fuzzing import oracles

        return getattr(oracles, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
