"""The record of campaigns (``sanitizer._fuzzing.ledger``): what the README's cumulative
executions per target are summed from."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sanitizer._fuzzing import ledger
from sanitizer._fuzzing.results import FuzzFinding, TargetResult


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


def test_native_build_campaigns_are_recorded_with_their_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tools/build_fuzz_native.py campaign --record``: each run a line, summed alike."""
    import importlib.util

    tool = Path(__file__).resolve().parents[2] / "tools" / "build_fuzz_native.py"
    spec = importlib.util.spec_from_file_location("build_fuzz_native_under_test", tool)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # (its dataclasses look it up)
    spec.loader.exec_module(module)
    runs = [
        module.CampaignRun("utf7", True, 0, 30_000, 601.5, 190, 700, ""),
        module.CampaignRun("utf7", False, 0, 120_000, 600.8, 150, 520, ""),
        module.CampaignRun("identifiers", True, 77, 5_000, 90.0, 320, 1100, "crash"),
    ]
    log = tmp_path / "campaigns.jsonl"
    module.record(runs, log, note="test")
    lines = ledger.read(log)
    assert [(x["target"], x["build"], x["execs"], x["cov"]) for x in lines] == [
        ("utf7", "asan-ubsan-coverage", 30_000, 190),
        ("utf7", "plain", 120_000, 150),
        ("identifiers", "asan-ubsan-coverage", 5_000, 320),
    ]
    assert lines[2]["findings"] == ["libFuzzer exit 77"] and lines[0]["findings"] == []
    sums = ledger.totals(lines)
    assert sums["utf7"].execs == 150_000 and sums["utf7"].max_cov == 190
    assert sums["identifiers"].findings == 1
