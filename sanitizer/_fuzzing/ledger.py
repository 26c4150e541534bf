"""The record of campaigns: one line per finished target campaign, and the totals.

"25 million executions with no finding" is only worth stating if it can be checked, and
summed honestly across many runs.  ``bench/bench_fuzz.py --campaign`` appends each
target's result (executions, coverage, findings, and what ran: commit, candidate, jobs,
seconds) as one JSON line to ``fuzz/campaigns.jsonl``; ``totals`` sums them per target for
the README.  Plain values in, plain lines out: no process logic here.
"""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .results import TargetResult

__all__ = ["Totals", "append", "entry", "read", "totals"]


def entry(result: TargetResult, *, commit: str = "", note: str = "") -> dict[str, object]:
    """One campaign's line: what ran and what it found."""
    return {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "target": result.target,
        "candidate": result.candidate,
        "jobs": result.jobs,
        "seconds": round(result.seconds, 1),
        "execs": result.execs,
        "cov": result.cov,
        "ft": result.ft,
        "findings": [f.title for f in result.findings],
        "incomplete": result.shortfall,
        "commit": commit,
        "python": platform.python_version(),
        "note": note,
    }


def append(path: Path, line: Mapping[str, object]) -> None:
    """Add one line to the record (created if missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line, sort_keys=True) + "\n")


def read(path: Path) -> list[dict[str, object]]:
    """The record's lines; unreadable lines are skipped, a missing file is empty."""
    if not path.is_file():
        return []
    lines = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        try:
            item = json.loads(raw)
        except ValueError:
            continue
        if isinstance(item, dict):
            lines.append(item)
    return lines


@dataclass
class Totals:
    campaigns: int = 0
    seconds: float = 0.0
    execs: int = 0
    max_cov: int = 0
    findings: int = 0


def totals(lines: Iterable[Mapping[str, object]], candidate: bool = False) -> dict[str, Totals]:
    """Per target, the sums over campaigns of the project's own code (``candidate=False``,
    the figure the README states) or over campaigns against a candidate decoder."""
    out: dict[str, Totals] = {}
    for line in lines:
        if bool(line.get("candidate")) != candidate:
            continue
        item = out.setdefault(str(line.get("target")), Totals())
        item.campaigns += 1
        item.seconds += _number(line.get("seconds"))
        item.execs += int(_number(line.get("execs")))
        item.max_cov = max(item.max_cov, int(_number(line.get("cov"))))
        found = line.get("findings")
        item.findings += len(found) if isinstance(found, list) else 0
    return out


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0
