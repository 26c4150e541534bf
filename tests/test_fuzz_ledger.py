"""The record of campaigns (``sanitizer.fuzzing.ledger``): what the README's cumulative
executions per target are summed from."""

from __future__ import annotations

import json
from pathlib import Path

from sanitizer.fuzzing import ledger
from sanitizer.fuzzing.results import FuzzFinding, TargetResult


def _result(target: str, execs: int, cov: int, candidate: str | None = None) -> TargetResult:
    findings = [FuzzFinding(target, Path("crash-1"), failure="Divergence: x")] if cov > 50 else []
    return TargetResult(
        target, 2, 600.0, execs, cov, cov * 2, 10, 12, findings, candidate=candidate
    )


def test_entries_append_and_sum_per_target(tmp_path: Path) -> None:
    log = tmp_path / "fuzz" / "campaigns.jsonl"
    for result in (
        _result("decode", 1_000_000, 40),
        _result("decode", 2_500_000, 45),
        _result("policy", 300_000, 60),
        _result("decode", 9_999, 10, candidate="mymod:decode"),  # not the project's code
    ):
        ledger.append(log, ledger.entry(result, commit="abc123"))
    with log.open("a") as out:
        out.write("not json\n")  # a damaged line is skipped, not fatal
    lines = ledger.read(log)
    assert len(lines) == 4
    assert json.loads(log.read_text().splitlines()[0])["commit"] == "abc123"
    own = ledger.totals(lines)
    assert own["decode"].execs == 3_500_000 and own["decode"].campaigns == 2
    assert own["decode"].max_cov == 45 and own["decode"].seconds == 1200.0
    assert own["policy"].findings == 1
    assert ledger.totals(lines, candidate=True)["decode"].execs == 9_999
    assert ledger.read(tmp_path / "missing.jsonl") == []
