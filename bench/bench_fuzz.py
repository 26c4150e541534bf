#!/usr/bin/env python3
"""Fuzzing benchmarks: how fast the targets run and how fast they catch known bugs.

A harness is worth what it finds, so two figures matter: executions per second of each
target (goal: fuzz_decode >= 20,000 exec/s), and, for every deliberately broken decoder in
``sanitizer._fuzzing.mutants``, the time and executions libFuzzer needs to flag it, starting
from the seed corpus (goal < 5 s) and from an empty corpus (goal < 120 s; each run is
capped and misses are reported as such).  Mutants are plugged in like any user decoder:
``SANITIZER_FUZZ_CANDIDATE=sanitizer._fuzzing.mutants:<function>``.

Every run is one plain ``fuzz/fuzz_<target>.py`` process (the dictionary included), timed
from process start to exit, so times include interpreter start-up (~0.5 s).  Prints
markdown tables.  ``--quick`` shortens every cap; ``--parallel`` runs that many fuzzers at
once (default 2: mind the cores, exec/s is measured one target at a time regardless).

    python bench/bench_fuzz.py --quick
    python bench/bench_fuzz.py --mutants accepts-surrogates,modified-utf8
    python bench/bench_fuzz.py --no-dict     # also: empty corpus *and* no dictionary

The record of campaigns: ``--campaign decode,policy --campaign-time 600``
runs ``sanitizer fuzz``'s campaign (``--jobs`` workers, bundled seeds) per target and
appends its executions, coverage and findings to ``fuzz/campaigns.jsonl``
(``sanitizer._fuzzing.ledger``); ``--totals`` prints the cumulative executions per target
that the README states.

    python bench/bench_fuzz.py --campaign all --campaign-time 1200 --jobs 2
    python bench/bench_fuzz.py --totals
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import _figures

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sanitizer._fuzzing.candidate import CANDIDATE_ENV  # noqa: E402
from sanitizer._fuzzing.layout import detect_layout, fuzzer_command  # noqa: E402
from sanitizer._fuzzing.libfuzzer import (  # noqa: E402
    DEFAULT_MAX_LEN,
    RunStats,
    extract_failure,
    headline,
)
from sanitizer._fuzzing.results import format_table  # noqa: E402
from sanitizer._fuzzing.targets import TARGET_NAMES  # noqa: E402

EXEC_GOAL = 20_000
# fuzz_policy's goal: one profile per input, all of them on a sample.
POLICY_EXEC_GOAL = 5_000
LEDGER = ROOT / "fuzz" / "campaigns.jsonl"
SEED_GOAL = 5.0
EMPTY_GOAL = 120.0


@dataclass
class Run:
    flagged: bool
    seconds: float
    execs: int
    exec_per_sec: int
    failure: str
    error: str = ""
    libfuzzer_rate: int = 0  # the exec/s libFuzzer itself last reported


def run_fuzzer(
    target: str,
    *,
    corpus: Path | None,
    cap: float,
    candidate: str | None = None,
    extra: Sequence[str] = (),
    use_dict: bool = True,
) -> Run:
    """One libFuzzer process: until its first crash or ``cap`` seconds."""
    layout = detect_layout(ROOT / "sanitizer")
    with tempfile.TemporaryDirectory(prefix="bench-fuzz-") as tmp_name:
        tmp = Path(tmp_name)
        work = tmp / "corpus"
        work.mkdir()
        if corpus is not None:
            for path in corpus.iterdir():
                if path.is_file():
                    shutil.copyfile(path, work / path.name)
        cmd = [
            *fuzzer_command(target, layout),
            f"-max_total_time={max(1, int(cap))}",
            f"-artifact_prefix={tmp}{os.sep}",
            "-print_final_stats=1",
            *extra,
        ]
        if not any(flag.startswith("-max_len=") for flag in extra):
            cmd.append(f"-max_len={DEFAULT_MAX_LEN}")  # as a campaign runs (campaign.py)
        dictionary = layout.dictionary(target)
        if dictionary is not None and use_dict:
            cmd.append(f"-dict={dictionary}")
        cmd.append(str(work))
        env = {k: v for k, v in os.environ.items() if k != CANDIDATE_ENV}
        if candidate:
            env[CANDIDATE_ENV] = candidate
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
        stats = RunStats(started=time.monotonic())
        start = time.monotonic()
        try:
            proc = subprocess.run(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                errors="replace",
                env=env,
                timeout=cap + 60,
            )
            output = proc.stdout
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout
            output = out.decode(errors="replace") if isinstance(out, bytes) else (out or "")
        seconds = time.monotonic() - start
        for line in output.splitlines():
            stats.feed(line, time.monotonic())
        crashed = any(Path(p).name.startswith("crash-") for p in stats.artifacts)
        rate = 0
        if not crashed and stats.final_execs is not None:
            rate = int(stats.final_execs / max(seconds, 1e-9))
        error = ""
        if not stats.inited and not crashed:
            tail = [line for line in output.splitlines() if line.strip()][-1:]
            error = tail[0] if tail else "no output"
        return Run(
            flagged=crashed,
            seconds=seconds,
            execs=stats.total_execs,
            exec_per_sec=rate,
            failure=headline(extract_failure(output.splitlines())),
            error=error,
            libfuzzer_rate=stats.exec_per_sec,
        )


def bench_exec_rate(seconds: float) -> str:
    layout = detect_layout(ROOT / "sanitizer")
    rows = []
    for target in TARGET_NAMES:
        if layout.script(target) is None:
            rows.append([target, "-", "-", "-", "-", "no fuzz script"])
            continue
        run = run_fuzzer(target, corpus=ROOT / "corpus" / target, cap=seconds)
        want = {"decode": EXEC_GOAL, "policy": POLICY_EXEC_GOAL}.get(target)
        goal = f">= {want:,}" if want else "-"
        note = run.error or (f"CRASHED: {run.failure}" if run.flagged else "")
        if want and not run.flagged:
            note = note or ("met" if run.libfuzzer_rate >= want else "MISSED")
        rows.append(
            [
                target,
                f"{run.seconds:.1f}",
                f"{run.execs:,}",
                f"{run.libfuzzer_rate:,}",
                f"{run.exec_per_sec:,}",
                goal,
                note,
            ]
        )
    # libFuzzer's own exec/s is the usual figure (and the goal's); the wall-clock one also
    # counts interpreter start-up and loading the corpus.
    headers = ["target", "wall s", "execs", "exec/s (libFuzzer)", "exec/s (wall)", "goal", "note"]
    return format_table(headers, rows)


def mutant_specs(selected: Sequence[str]) -> list[tuple[str, str]]:
    from sanitizer._fuzzing import mutants

    names = sorted(mutants.MUTANTS)
    if selected:
        unknown = [n for n in selected if n not in mutants.MUTANTS]
        if unknown:
            raise SystemExit(f"unknown mutant(s): {', '.join(unknown)}")
        names = list(selected)
    out = []
    for name in names:
        attr = name.replace("-", "_")
        if getattr(mutants, attr, None) is not mutants.MUTANTS[name]:
            raise SystemExit(f"mutant {name} is not importable as mutants:{attr}")
        out.append((name, f"sanitizer._fuzzing.mutants:{attr}"))
    return out


def _cell(run: Run | None, goal: float) -> tuple[str, str, bool]:
    if run is None:
        return "n/a", "n/a", False
    if run.error:
        return "error", run.error[:40], False
    if not run.flagged:
        return f"miss (>{run.seconds:.0f})", f"{run.execs:,}", False
    return f"{run.seconds:.1f}", f"{run.execs:,}", run.seconds < goal


def bench_mutants(
    selected: Sequence[str], seed_cap: float, empty_cap: float, parallel: int, bare: bool
) -> str:
    seeds: Path | None = ROOT / "corpus" / "decode"  # tools/gen_corpus.py writes it
    if seeds is not None and not (seeds.is_dir() and any(seeds.iterdir())):
        seeds = None
    specs = mutant_specs(selected)
    # (name, spec, mode): mode "seeds", "empty" (with the dictionary) or "bare" (neither).
    jobs: list[tuple[str, str, str]] = []
    for name, spec in specs:
        if seeds is not None:
            jobs.append((name, spec, "seeds"))
        jobs.append((name, spec, "empty"))
        if bare:
            jobs.append((name, spec, "bare"))

    def one(job: tuple[str, str, str]) -> tuple[str, str, Run]:
        name, spec, mode = job
        run = run_fuzzer(
            "decode",
            corpus=seeds if mode == "seeds" else None,
            cap=seed_cap if mode == "seeds" else empty_cap,
            candidate=spec,
            use_dict=mode != "bare",
        )
        return name, mode, run

    results: dict[tuple[str, str], Run] = {}
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        for name, mode, run in pool.map(one, jobs):
            results[(name, mode)] = run
            verdict = f"{run.seconds:.1f}s" if run.flagged else "miss"
            print(f"  {name} ({mode}): {verdict}", file=sys.stderr, flush=True)
    rows = []
    seed_ok = empty_ok = bare_ok = 0
    for name, _ in specs:
        s_time, s_execs, s_ok = _cell(results.get((name, "seeds")), SEED_GOAL)
        e_time, e_execs, e_ok = _cell(results.get((name, "empty")), EMPTY_GOAL)
        b_time, b_execs, b_ok = _cell(results.get((name, "bare")), EMPTY_GOAL)
        seed_ok += s_ok
        empty_ok += e_ok
        bare_ok += b_ok
        first = results.get((name, "seeds")) or results.get((name, "empty"))
        row = [name, s_time, s_execs, e_time, e_execs]
        if bare:
            row += [b_time, b_execs]
        rows.append([*row, first.failure.removeprefix("Divergence: ")[:55] if first else ""])
    headers = ["mutant", "seeds: s", "seeds: execs", "empty: s", "empty: execs"]
    if bare:
        headers += ["no dict: s", "no dict: execs"]
    headers.append("first failure")
    n = len(specs)
    seed_line = (
        f"flagged from the seed corpus in < {SEED_GOAL:.0f} s: {seed_ok}/{n}"
        if seeds is not None
        else "seed corpus: corpus/decode is missing or empty (not measured)"
    )
    lines = [
        format_table(headers, rows),
        "",
        seed_line,
        f"flagged from an empty corpus in < {EMPTY_GOAL:.0f} s "
        f"(cap {empty_cap:.0f} s): {empty_ok}/{n}",
    ]
    if bare:
        lines.append(
            f"flagged from an empty corpus without the dictionary in < {EMPTY_GOAL:.0f} s "
            f"(cap {empty_cap:.0f} s): {bare_ok}/{n}"
        )
    return "\n".join(lines)


def record_campaigns(
    targets: Sequence[str], seconds: float, jobs: int, log: Path, note: str = ""
) -> str:
    """Run a campaign per target (as ``sanitizer fuzz TARGET``) and append its result to
    the record; the summary table."""
    from sanitizer._fuzzing import campaign, ledger
    from sanitizer._fuzzing.progress import Progress
    from sanitizer._fuzzing.results import format_summary

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "sanitizer", "fuzz"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout.strip()
    commit += "+dirty" if dirty else ""
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-campaign-") as tmp_name:
        state = Path(tmp_name)
        for target in targets:
            config = campaign.CampaignConfig(
                targets=[target],
                max_time=seconds,
                jobs=jobs,
                artifacts=state / "artifacts",
                state_dir=state,
                layout=detect_layout(ROOT / "sanitizer"),
            )
            (result,) = campaign.run_campaign(config, Progress(sys.stderr))
            ledger.append(log, ledger.entry(result, commit=commit, note=note))
            results.append(result)
    return format_summary(results)


def format_totals(log: Path) -> str:
    from sanitizer._fuzzing import ledger

    lines = ledger.read(log)
    rows = [
        [
            target,
            str(t.campaigns),
            f"{t.seconds / 3600:.2f}",
            f"{t.execs:,}",
            str(t.max_cov),
            str(t.findings),
        ]
        for target, t in sorted(ledger.totals(lines).items())
    ]
    headers = ["target", "campaigns", "hours", "executions", "max cov", "findings"]
    return format_table(headers, rows) if rows else f"no campaign recorded in {log}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short caps (a few minutes)")
    parser.add_argument("--mutants", default="", help="comma-separated mutant names")
    parser.add_argument("--parallel", type=int, default=2, help="fuzzers at once (default 2)")
    parser.add_argument("--rate-seconds", type=float, default=None)
    parser.add_argument("--seed-cap", type=float, default=None)
    parser.add_argument("--empty-cap", type=float, default=None)
    parser.add_argument("--skip-rate", action="store_true")
    parser.add_argument("--skip-mutants", action="store_true")
    parser.add_argument(
        "--no-dict",
        action="store_true",
        help="also time each mutant from an empty corpus without the dictionary",
    )
    parser.add_argument(
        "--campaign",
        default="",
        metavar="TARGETS",
        help="run a recorded campaign per target (comma-separated, or 'all') and append it "
        "to --log; skips the other benchmarks",
    )
    parser.add_argument("--campaign-time", type=float, default=600.0, metavar="S")
    parser.add_argument("--jobs", type=int, default=2, help="workers per campaign (default 2)")
    parser.add_argument("--log", type=Path, default=LEDGER, help=f"default {LEDGER}")
    parser.add_argument("--totals", action="store_true", help="print the record's totals")
    parser.add_argument("--note", default="", help="a note stored with each recorded campaign")
    _figures.add_argument(parser)
    args = parser.parse_args(argv)
    if args.totals:
        print(format_totals(args.log))
        return 0
    try:
        import atheris  # noqa: F401
    except ImportError:
        print("bench_fuzz needs atheris: pip install 'utf8-sanitizer[fuzz]'", file=sys.stderr)
        return 2
    rate_seconds = args.rate_seconds or (5.0 if args.quick else 20.0)
    seed_cap = args.seed_cap or (10.0 if args.quick else 30.0)
    empty_cap = args.empty_cap or (30.0 if args.quick else EMPTY_GOAL)
    cpus = os.cpu_count() or 1
    if args.campaign:
        names = list(TARGET_NAMES) if args.campaign == "all" else []
        names = names or [t for t in args.campaign.split(",") if t]
        jobs = max(1, args.jobs)
        print(record_campaigns(names, args.campaign_time, jobs, args.log, args.note))
        print(f"\nrecorded in {args.log}\n\n{format_totals(args.log)}")
        return 0
    print(f"# Fuzzing benchmark ({'quick' if args.quick else 'full'})\n")
    print(f"Python {sys.version.split()[0]}, {cpus} CPU(s), parallel runs: {args.parallel}\n")
    tables = []
    if not args.skip_rate:
        caption = f"Executions per second ({rate_seconds:.0f} s per target, seed corpus)"
        print(f"## {caption}\n")
        rates = bench_exec_rate(rate_seconds)
        print(rates)
        print()
        tables += _figures.from_markdown(rates, caption)
    if not args.skip_mutants:
        selected = [m for m in args.mutants.split(",") if m]
        caption = (
            f"Time to flag each mutant (seeds: cap {seed_cap:.0f} s, goal < {SEED_GOAL:.0f} s;"
            f" empty corpus: cap {empty_cap:.0f} s, goal < {EMPTY_GOAL:.0f} s)"
        )
        print(f"## {caption}\n")
        flagged = bench_mutants(selected, seed_cap, empty_cap, max(1, args.parallel), args.no_dict)
        print(flagged)
        tables += _figures.from_markdown(flagged, caption)
    if args.write_docs:
        _figures.write(
            "fuzz",
            summary="executions per second of each fuzz target from the seed corpus, one "
            "core, and the time libFuzzer needs to flag each deliberately broken decoder; "
            "times include interpreter start-up.",
            goals=f"`fuzz_decode` >= 20,000 exec/s; every mutant flagged from the seeds in < "
            f"{SEED_GOAL:.0f} s and from an empty corpus in < {EMPTY_GOAL:.0f} s.",
            tables=tables,
            note=f"parallel runs: {args.parallel}",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
