#!/usr/bin/env python3
"""The cost matrix: every kind of text, legitimate or hostile, through every API, as a
ratio to the clean path, so that no kind of text falls off a cliff.

Each cell is the time of one API on one kind of text (tests/policy/text_classes.py, repeated to
the same byte size) divided by the larger of two baselines measured in the same run: the
same API on clean CJK text of that size, and ``bytes.decode`` of the same input (clean
CJK through ``inspect`` runs at memory speed, faster than any text with findings can be
judged; no cell is asked to beat the decode of its own input).  Goals: legitimate kinds
<= 3x, hostile kinds <= 10x.  Best of several interleaved rounds.

    python bench/bench_cost_matrix.py                 # 256 KiB per kind
    python bench/bench_cost_matrix.py --size 1048576 --write-docs
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _figures
from _timing import best

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import sanitizer
from sanitizer import Policy, precis, profiles
from sanitizer import _policy as policy
from tests.policy.text_classes import HOSTILE, LEGITIMATE, sample

# every profile but FILENAME (IDENTIFIER's rules, for one path segment)
PROFILES = tuple(n.upper().replace("-", "_") for n in profiles.NAMES if n != "filename")


def _quiet(fn: Callable[[bytes], object]) -> Callable[[bytes], object]:
    def call(data: bytes) -> object:
        try:
            return fn(data)
        except (ValueError, UnicodeError, sanitizer.PolicyError):
            return None

    return call


def apis() -> dict[str, Callable[[bytes], object]]:
    """API name: a call on UTF-8 bytes."""
    out: dict[str, Callable[[bytes], object]] = {"decode": _quiet(sanitizer.decode)}
    for name in PROFILES:
        p: Policy = getattr(profiles, name)
        out[f"inspect {name}"] = functools.partial(_on, policy.inspect, p)
        out[f"sanitize {name}"] = _quiet(functools.partial(_on, policy.sanitize, p))
        out[f"accepts {name}"] = functools.partial(_on, policy.accepts, p)
    return out


def _on(fn: Callable[[bytes, Policy], object], p: Policy, data: bytes) -> object:
    return fn(data, p)


def bytes_call(fn: Callable[[bytes], object], data: bytes) -> Callable[[], object]:
    return functools.partial(fn, data)


def text_call(fn: Callable[[str], object], data: bytes) -> Callable[[], object]:
    """``fn`` on ``data`` decoded (with replacement) outside the timed call."""
    return functools.partial(fn, data.decode("utf-8", "replace"))


def text_apis() -> dict[str, Callable[[str], object]]:
    username = precis.get_profile("UsernameCaseMapped")

    def enforce(s: str) -> object:
        try:
            return username.enforce(s)
        except precis.PrecisError:
            return None

    return {
        "reveal": sanitizer.reveal,
        "check_source": sanitizer.check_source,
        "identifier_key": sanitizer.identifier_key,
        "PRECIS enforce": enforce,
    }


def by_profile(table: dict[str, Any]) -> list[dict[str, Any]]:
    """The matrix as the docs page shows it, one table per profile (and one for the APIs
    of no profile), each with the kind, its goal and its worst cell: 23 columns do not
    fit a page."""
    columns, rows = table["columns"], table["rows"]
    fixed = columns[:3]
    groups: dict[str, list[int]] = {}
    for i, name in enumerate(columns[3:], 3):
        api, _, profile = name.partition(" ")
        key = profile if api in ("inspect", "sanitize", "accepts") else ""
        groups.setdefault(key, []).append(i)
    return [
        {
            "caption": f"under {key}" if key else "APIs without a profile",
            "columns": [*fixed, *(columns[i] for i in picked)],
            "rows": [[*row[:3], *(row[i] for i in picked)] for row in rows],
        }
        for key, picked in groups.items()
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--size", type=int, default=256 * 1024, help="bytes per kind")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default="", help="kinds whose name contains this")
    parser.add_argument("--note", default="", help="what the docs say of the machine")
    _figures.add_argument(parser)
    args = parser.parse_args(argv)
    by_bytes = apis()
    by_text = text_apis()
    names = [*by_bytes, *by_text]
    kinds = [k for k in (*LEGITIMATE, *HOSTILE) if args.only.lower() in k.lower()]
    clean = sample("CJK", args.size)
    calls: dict[str, Callable[[bytes], Callable[[], object]]] = {}
    for api, fn in by_bytes.items():
        calls[api] = functools.partial(bytes_call, fn)
    for api, tfn in by_text.items():
        calls[api] = functools.partial(text_call, tfn)

    def timed(make: Callable[[], object]) -> float:
        return best(make, args.repeats)

    base = {api: timed(calls[api](clean)) for api in names}
    tables = _figures.Tables()
    tables.head(["kind", "goal", "worst", *names])
    worst_cells: list[tuple[float, str, str]] = []
    for kind in kinds:
        data = sample(kind, args.size)
        decode = timed(functools.partial(data.decode, "utf-8", "replace"))
        goal = 3.0 if kind in LEGITIMATE else 10.0
        ratios = []
        for api in names:
            ratio = timed(calls[api](data)) / max(base[api], decode)
            ratios.append(ratio)
            worst_cells.append((ratio / goal, kind, api))
        tables.row(
            kind,
            f"<= {goal:g}x",
            f"{max(ratios):.1f}x",
            *(f"{r:.1f}" for r in ratios),
        )
    worst_cells.sort(reverse=True)
    over = [
        f"{k} / {a}: {r * (3 if k in LEGITIMATE else 10):.1f}x" for r, k, a in worst_cells if r > 1
    ]
    print(f"cells over their goal: {len(over)}")
    for line in over:
        print("  " + line)
    if args.write_docs:
        _figures.write(
            "cost_matrix",
            summary="Each kind of text (tests/policy/text_classes.py) through each API, as a ratio "
            "to max(the same API on clean CJK text of the same byte size, bytes.decode of "
            f"the same input), {args.size // 1024} KiB per kind, best of {args.repeats}.",
            goals="legitimate kinds <= 3x, hostile kinds <= 10x, every cell.",
            tables=[t for table in tables.tables for t in by_profile(table)],
            notes=[f"cells over their goal: {len(over)}", *over[:20]],
            note=args.note,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
