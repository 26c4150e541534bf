"""Fuzzing campaigns: run libFuzzer workers, watch them, and turn crashes into findings.

``python fuzz/fuzz_decode.py`` is one libFuzzer process that stops at its first crash and
leaves a raw ``crash-<sha1>`` behind.  A campaign is what a user actually wants: N workers
for a time budget, live counters, each crash minimized and explained in a report, workers
restarted after a crash, new corpus entries merged back, and a summary with an exit code.
This module is that orchestration, free of argparse so it can be driven by ``sanitizer
fuzz``, by ``bench/bench_fuzz.py`` and by tests.  What it orchestrates lives elsewhere:
libFuzzer's command lines and output in ``libfuzzer``, file locations and shims in
``layout``, result values and their text in ``results``, the in-process helpers (screen,
shrink) in ``replay``.

One target's campaign, step by step (``_TargetCampaign.run``): prepare the working corpus
and a private workspace, screen the corpus through the oracle (and probe a candidate on
every ill-formed class: ``probes``), start the workers, watch their output until they are
done (registering, minimizing and reporting each finding in a background thread,
restarting crashed workers), then merge new units back.

``--max-time`` bounds all of it (``Deadline``): each target gets its share of what is left,
its workers stop early enough to leave ``finish_reserve`` for the findings still being
minimized and the merge, and every helper process is given at most the time left.  What
does not fit is cut, and said so (a finding "not minimized: the --max-time budget ran
out" keeps its input as found; a merge that cannot run keeps every new unit).

It cannot pass silently: an input running over ``--timeout`` is a finding
(libFuzzer's ``-timeout``); a worker that dies without a report leaves its last input in
a breadcrumb file, which becomes a finding; a campaign far below ``MIN_EXEC_RATE`` says
so (``TargetResult.shortfall``); a finding that does not fail again on replay says so in
its report; SIGTERM unwinds like Ctrl-C, killing every worker and helper it started and
removing its temporary folder.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from . import seeds as seed_table
from .breadcrumb import BREADCRUMB_ENV, read_last
from .candidate import CANDIDATE_ENV, INSTRUMENT_ENV
from .layout import (
    Layout,
    candidate_slug,
    copy_missing,
    count_files,
    detect_layout,
    fuzzer_command,
    link_missing,
    sha1_hex,
    write_missing,
    write_shim,
)
from .libfuzzer import (
    DEFAULT_MAX_LEN,
    DEFAULT_TIMEOUT,
    FINDING_PREFIXES,
    LONG_MAX_LEN,
    TIMEOUT_HEADLINE,
    RunStats,
    extract_failure,
    headline,
    merge_command,
    minimize_command,
    reproduce_command,
    scheduled_max_len,
    worker_command,
)
from .oracles import LONG_TIER_MARK, filed_under
from .probes import Probe, class_table
from .progress import Progress, human_count
from .replay import TIMEOUT_ENV
from .results import FuzzFinding, TargetResult, format_duration, format_report
from .targets import TARGET_NAMES
from .targets import target as registered

__all__ = [
    "TARGET_NAMES",
    "CampaignConfig",
    "Deadline",
    "UsageError",
    "run_campaign",
    "run_target",
]

# A campaign under this many executions per worker-second ran "far fewer executions than
# its time allows" (Python targets run thousands); judged from SHORTFALL_MIN_SECONDS on.
MIN_EXEC_RATE = 20.0
SHORTFALL_MIN_SECONDS = 10.0
# Inputs libFuzzer must have made itself (past the seeds), whatever the time: fewer, and
# the campaign has not fuzzed (a loaded machine, a budget eaten by start-up).
MIN_MUTATED_EXECS = 100
# One worker alone splits a budget of at least 2x this between short and long inputs.
SPLIT_MIN_SECONDS = 10.0
# The headline of a worker that ended in the middle of an input without a libFuzzer
# report (os._exit, SIGKILL): its input comes from the worker's breadcrumb.
DIED_HEADLINE = "worker died without a libFuzzer report"
# Seconds a worker takes to start (interpreter, instrumented imports, corpus load) before
# libFuzzer's -max_total_time clock starts; a worker still running this long after its
# stop time is stopped by the campaign.
WORKER_STARTUP = 1.0
# The note of a finding whose minimizing (or replay) did not fit in the budget.
OUT_OF_TIME = "not minimized: the --max-time budget ran out (the input is as found)"


def finish_reserve(budget: float) -> float:
    """Seconds of a target's budget kept after its workers stop, for the findings still
    being minimized and the merge: 15% of it, at least 1 s, at most 15 s."""
    return min(15.0, max(1.0, 0.15 * budget))


class Deadline:
    """The end of a time budget on ``clock``: what is left of it, and the timeout a
    step that wants ``seconds`` may have."""

    def __init__(self, clock: Callable[[], float], end: float) -> None:
        self.clock = clock
        self.end = end

    def left(self) -> float:
        return max(0.0, self.end - self.clock())

    def limit(self, seconds: float) -> float:
        return max(0.0, min(seconds, self.left()))


class UsageError(Exception):
    """A campaign cannot start (unknown target, missing corpus dir, bad candidate...).
    The CLI prints ``str()`` as a one-line message and exits 2."""


@dataclass
class CampaignConfig:
    targets: Sequence[str]
    max_time: float = 60.0
    jobs: int = 1
    candidate: str | None = None
    corpus: Path | None = None  # working corpus given by the user (must exist)
    artifacts: Path = Path(".sanitizer-fuzz/artifacts")
    state_dir: Path = Path(".sanitizer-fuzz")
    extra_args: Sequence[str] = ()
    stop_on_first: bool = False
    minimize_time: int = 20
    layout: Layout | None = None
    python: str = sys.executable
    env: Mapping[str, str] | None = None
    # Add the bundled seeds to the working corpus (False: start from --corpus alone,
    # which may be empty, to measure time-to-flag from nothing).
    seeds: bool = True
    # Coverage-instrument the candidate's module in the workers (candidate.load_instrumented).
    instrument_candidate: bool = True
    # Seconds one input may run before it is a "timeout" finding (libFuzzer's -timeout).
    timeout: int = DEFAULT_TIMEOUT
    # The clock every deadline is read on (tests pass their own).
    clock: Callable[[], float] = time.monotonic

    def validate(self) -> None:
        if not self.targets:
            raise UsageError("no target given")
        for target in self.targets:
            if target not in TARGET_NAMES:
                raise UsageError(
                    f"unknown target {target!r} (choose from {', '.join(TARGET_NAMES)}, all)"
                )
        if self.max_time <= 0:
            raise UsageError("--max-time must be positive")
        if self.timeout < 1:
            raise UsageError("--timeout must be at least 1 second")
        if self.jobs < 1:
            raise UsageError("--jobs must be at least 1")
        if self.corpus is not None and not self.corpus.is_dir():
            raise UsageError(f"corpus directory not found: {self.corpus}")
        if self.candidate and "decode" not in self.targets:
            raise UsageError("--candidate only applies to the decode target")


def run_campaign(
    config: CampaignConfig,
    progress: Progress | None = None,
    on_result: Callable[[TargetResult], None] | None = None,
    stream: TextIO | None = None,
) -> list[TargetResult]:
    """Run every target of ``config`` in turn within ``max_time`` in all: each target gets
    an even share of the time left when it starts."""
    config.validate()
    if progress is None:
        progress = Progress(stream or sys.stderr)
    end = config.clock() + config.max_time
    results = []
    with _sigterm_as_interrupt():
        for index, target in enumerate(config.targets):
            now = config.clock()
            budget = max(0.0, end - now) / (len(config.targets) - index)
            result = run_target(config, target, budget, progress, end=now + budget)
            results.append(result)
            if on_result is not None:
                on_result(result)
            if result.findings and config.stop_on_first:
                break
    return results


class _sigterm_as_interrupt:
    """SIGTERM raises KeyboardInterrupt while a campaign runs (main thread only), so
    ``kill PID`` unwinds like Ctrl-C: every worker and helper is killed and the private
    workspace removed (``_TargetCampaign.run``'s ``finally``) instead of the runner
    dying and leaving its workers, each in its own session, spinning."""

    def __enter__(self) -> None:
        self.previous: object = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGTERM, _raise_interrupt)

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)  # type: ignore[arg-type]


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def run_target(
    config: CampaignConfig,
    target: str,
    budget: float,
    progress: Progress,
    end: float | None = None,
) -> TargetResult:
    """One target's campaign, all of it within ``budget`` seconds from now (or by
    ``end`` on ``config.clock``)."""
    return _TargetCampaign(config, target, budget, progress, end).run()


# -- worker processes ----------------------------------------------------------------------

_Key = tuple[int, int]  # a worker run: (worker index, generation: restarts so far)
_Msg = tuple[_Key, str | None]  # a line of its output; None when it closed its output


def _reader(proc: subprocess.Popen[str], key: _Key, out: queue.Queue[_Msg]) -> None:
    """Forward a worker's output lines to ``out``, then None; close the pipe at its end."""
    assert proc.stdout is not None
    with proc.stdout:
        for line in proc.stdout:
            out.put((key, line))
    out.put((key, None))


def _exit_status(code: int | None) -> str:
    """``killed by SIGKILL`` or ``exit status 0``: how a process ended."""
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def _kill(proc: subprocess.Popen[str], sig: int = signal.SIGTERM) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class _TargetCampaign:
    """One target's campaign (its workers, minimizer and bookkeeping)."""

    def __init__(
        self,
        config: CampaignConfig,
        target: str,
        budget: float,
        progress: Progress,
        end: float | None = None,
    ) -> None:
        self.config = config
        self.target = target
        self.budget = budget
        self.progress = progress
        self.layout = config.layout or detect_layout()
        self.base = fuzzer_command(target, self.layout, config.python)
        self.candidate = config.candidate if registered(target).candidate else None
        self.artifacts = config.artifacts.resolve()
        self.clock = config.clock
        self.start = self.clock()
        self.deadline = Deadline(self.clock, self.start + budget if end is None else end)
        # the workers stop here, leaving the rest for minimizing and merging
        self.workers_end = self.deadline.end - finish_reserve(budget)
        if config.corpus is not None:
            self.working = config.corpus.resolve()
        else:  # one per candidate: campaigns on two decoders never mix their corpora
            slug = candidate_slug(self.candidate)
            self.working = (config.state_dir / "corpus" / target / slug).resolve()
        # A candidate: what it is, and its verdict on every probe (``_screen``).
        self.candidate_info: dict[str, str] = {}
        self.probes: list[Probe] = []
        # Workers: one RunStats and process per run; their output lines on one queue.
        self.runs: dict[_Key, RunStats] = {}
        self.procs: dict[_Key, subprocess.Popen[str]] = {}
        self.queue: queue.Queue[_Msg] = queue.Queue()
        self.open_runs: set[_Key] = set()
        self.generation = [0] * config.jobs
        self.restarts = 0
        self.stopping = False
        self.killed: set[_Key] = set()  # runs the campaign itself stopped
        self.live: set[subprocess.Popen[str]] = set()  # every process started, helpers too
        self.closed = False  # cleaned up: no new process may start (minimizer thread)
        # One worker alone splits its time: DEFAULT_MAX_LEN, then LONG_MAX_LEN.
        self.split = config.jobs == 1 and not any(
            flag.startswith("-max_len=") for flag in config.extra_args
        )
        # Findings, shared with the minimizer thread (``lock``).
        self.findings: list[FuzzFinding] = []
        self.by_title: dict[str, FuzzFinding] = {}
        self.seen_artifacts: set[str] = set()
        self.moved: set[str] = set()
        self.digests: dict[str, str] = {}
        self.pending: list[Future[None]] = []
        self.errors: list[str] = []
        self.first_finding: float | None = None
        self.lock = threading.Lock()
        # The private workspace (set up by ``_prepare_workspace``).
        self.tmp = Path()
        self.shim = Path()
        self.pool = self.working
        self.new_dirs: list[Path] = []
        self.env = self._env()

    def _env(self) -> dict[str, str]:
        env = dict(self.config.env if self.config.env is not None else os.environ)
        env.pop(CANDIDATE_ENV, None)
        if self.candidate:
            env[CANDIDATE_ENV] = self.candidate
        # The candidate's module is imported by the worker: make the cwd importable, as
        # it is for ``python -m sanitizer``.
        cwd = os.getcwd()
        paths = [cwd, *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
        env.setdefault("PYTHONUNBUFFERED", "1")
        env[TIMEOUT_ENV] = str(self.config.timeout)  # the replay helpers' per-input limit
        if not self.config.instrument_candidate:
            env[INSTRUMENT_ENV] = "0"
        return env

    # -- the steps --

    def run(self) -> TargetResult:
        corpus_before = self._prepare_corpus()
        self.tmp = Path(tempfile.mkdtemp(prefix=f"sanitizer-fuzz-{self.target}-"))
        minimizer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="minimize")
        elapsed = 0.0
        try:
            self._prepare_workspace()
            # Replay the corpus once first (and probe a candidate): inputs that already
            # fail become findings at once instead of crashing (and restarting) every
            # worker while it loads.  Part of the budget, at most a third of it.
            screened = self._screen(minimizer, timeout=max(2.0, self.deadline.left() / 3))
            self.stopping = screened and self.config.stop_on_first
            self._start_workers()
            self._watch(minimizer)
            elapsed = min(self.clock(), self.deadline.end) - self.start
            self._finish(minimizer)
        finally:
            self._clean_up(minimizer)
        return self._result(elapsed, corpus_before)

    def _prepare_corpus(self) -> int:
        """Create the artifacts and working corpus directories, seed the default working
        corpus from the package's seed table; how many units it holds."""
        self.artifacts.mkdir(parents=True, exist_ok=True)
        self.working.mkdir(parents=True, exist_ok=True)
        if self.config.corpus is None and self.config.seeds:
            write_missing(seed_table.files(self.target), self.working)
        return count_files(self.working)

    def _prepare_workspace(self) -> None:
        """The shim, and the corpus directories the workers use.

        Workers read a private copy (hard links) of the corpus, so an input that crashes
        the target can be taken out of their way without touching the user's corpus; new
        units go to one directory per worker."""
        self.shim = write_shim(self.tmp, self.target, self.layout, self.config.python)
        self.pool = self.tmp / "corpus"
        self.pool.mkdir()
        link_missing(self.working, self.pool)
        if self.config.corpus is not None and self.config.seeds:
            write_missing(seed_table.files(self.target), self.pool)
        self.new_dirs = [self.tmp / f"new-{i}" for i in range(self.config.jobs)]
        for new_dir in self.new_dirs:
            new_dir.mkdir()

    def _start_workers(self) -> None:
        for index, new_dir in enumerate(self.new_dirs):
            remaining = self.workers_end - self.clock() - WORKER_STARTUP
            if not self.stopping and remaining >= 1:
                self._spawn(index, 0, remaining, new_dir)

    def _watch(self, minimizer: ThreadPoolExecutor) -> None:
        """Feed the workers' output lines to their RunStats until every run has ended;
        stop the workers still running past their end (plus their start-up time)."""
        stop_at = self.workers_end + WORKER_STARTUP
        while self.open_runs:
            try:
                key, line = self.queue.get(timeout=0.25)
            except queue.Empty:
                key, line = None, None
            if key is not None and line is not None:
                self.runs[key].feed(line, self.clock())
            elif key is not None:  # the worker closed its output: it is done
                self._on_closed(key, minimizer)
            now = self.clock()
            if now > stop_at:  # a worker slow to start, or ignoring -max_total_time
                signal_to_send = signal.SIGTERM if now < self.deadline.end else signal.SIGKILL
                for k in self.open_runs:
                    self.killed.add(k)
                    _kill(self.procs[k], signal_to_send)
            self.progress.update(self._status(now))

    def _on_closed(self, key: _Key, minimizer: ThreadPoolExecutor) -> None:
        """A worker run ended: collect its exit status and findings, then stop the
        campaign (``stop_on_first``) or restart the worker while time remains."""
        self.open_runs.discard(key)
        proc = self.procs[key]
        run = self.runs[key]
        try:
            run.returncode = proc.wait(timeout=max(1.0, self.deadline.left()))
        except subprocess.TimeoutExpired:
            _kill(proc, signal.SIGKILL)
            run.returncode = proc.wait()
        run.ended = self.clock()
        with self.lock:
            self.live.discard(proc)
        found = self._on_exit(key, run, minimizer)
        if found and self.config.stop_on_first:
            self.stopping = True
            for k in self.open_runs:
                self.killed.add(k)
                _kill(self.procs[k])
        remaining = self.workers_end - self.clock() - WORKER_STARTUP
        scheduled = self.split and key == (0, 0)  # the first half of a split budget
        restart = found or scheduled or (run.returncode != 0 and run.inited)
        if restart and not self.stopping and key not in self.killed and remaining >= 1:
            index = key[0]
            self.generation[index] += 1
            self.restarts += 1
            self._spawn(index, self.generation[index], remaining, self.new_dirs[index])

    def _finish(self, minimizer: ThreadPoolExecutor) -> None:
        """Final progress line, wait for the findings in process (within the budget),
        merge new units."""
        now = self.clock()
        self.progress.update(self._status(min(now, self.deadline.end)), force=True)
        self.progress.close()
        for fut in self.pending:
            try:
                exc = fut.exception(timeout=self.deadline.left())
            except TimeoutError:  # concurrent.futures' TimeoutError (3.11+: the builtin)
                continue
            except CancelledError:
                continue
            if exc is not None:
                self.errors.append(f"processing a finding failed: {exc}")
        self._merge([d for d in self.new_dirs if any(d.iterdir())])

    def _clean_up(self, minimizer: ThreadPoolExecutor) -> None:
        """Kill every process this campaign started (workers and helpers, each in its own
        session) and remove the private workspace; also on Ctrl-C and SIGTERM.  Findings
        whose minimizing was cut keep their input as found and get a report."""
        with self.lock:
            self.closed = True
            started = [*self.procs.values(), *self.live]
        for proc in started:
            _kill(proc, signal.SIGKILL)
        minimizer.shutdown(wait=False, cancel_futures=True)
        for proc in started:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        for finding in list(self.findings):
            if finding.report is None and finding.artifact.exists():
                self._cut_short(finding)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _result(self, elapsed: float, corpus_before: int) -> TargetResult:
        runs = list(self.runs.values())
        execs = sum(r.total_execs for r in runs)
        probes = list(self.probes)
        for finding in self.findings:  # what fuzzing found, beside the probes
            # (not the long tier's: its answer is about a padded copy of the input)
            long_tier = LONG_TIER_MARK in finding.title
            if finding.klass is not None and finding.verdict is not None and not long_tier:
                path = finding.minimized if finding.minimized is not None else finding.artifact
                data = path.read_bytes() if path.exists() else b""
                answer = _candidate_answer(finding.minimized_failure or finding.failure)
                probes.append(Probe(data, finding.klass, finding.verdict, answer, finding.title))
        info = self.candidate_info
        return TargetResult(
            target=self.target,
            jobs=self.config.jobs,
            seconds=elapsed,
            execs=execs,
            cov=max((r.cov for r in runs), default=0),
            ft=max((r.ft for r in runs), default=0),
            corpus_before=corpus_before,
            corpus_after=count_files(self.working),
            findings=self.findings,
            restarts=self.restarts,
            errors=self.errors,
            candidate=self.candidate,
            shortfall=self._shortfall(execs, elapsed, runs),
            corpus_dir=self.working,
            first_finding=self.first_finding,
            candidate_code=info.get("code"),
            candidate_type=info.get("type", ""),
            instrumented=self.config.instrument_candidate,
            classes=class_table(probes) if self.candidate and probes else [],
        )

    def _shortfall(self, execs: int, elapsed: float, runs: list[RunStats]) -> str | None:
        """Why this campaign could not do its work, if it could not: fewer than
        ``MIN_MUTATED_EXECS`` inputs made by libFuzzer past the seeds (it never fuzzed:
        too short a budget for start-up, a loaded machine), no coverage feedback from
        code that is meant to be instrumented (a blind fuzzer), or, from
        ``SHORTFALL_MIN_SECONDS`` on, under ``MIN_EXEC_RATE`` per worker-second
        (workers that died or never started, a candidate that hangs or crawls).  A
        campaign stopped at a finding on purpose is not judged."""
        if self.stopping and self.findings:
            return None
        if not self.runs:
            return "no worker ran (the budget is under the 1 s a worker needs)"
        mutated = sum(r.mutated_execs for r in runs)
        if mutated < MIN_MUTATED_EXECS:
            seeds = "" if any(r.inited for r in runs) else ", not all of its seed inputs"
            return (
                f"ran {execs:,} executions in {format_duration(elapsed)}{seeds}: "
                f"{mutated:,} inputs made by the fuzzer, under the {MIN_MUTATED_EXECS} a "
                "campaign needs to have fuzzed at all (give it more --max-time, or fewer "
                "--jobs on a loaded machine)"
            )
        if not self._blind() and max((r.cov for r in runs), default=0) == 0:
            return (
                f"ran {execs:,} executions with no coverage feedback (cov 0): the code "
                "under test was not instrumented, so the fuzzer mutated blind"
            )
        if elapsed < SHORTFALL_MIN_SECONDS:
            return None
        rate = execs / (elapsed * self.config.jobs)
        if rate >= MIN_EXEC_RATE:
            return None
        return (
            f"ran {execs:,} executions in {format_duration(elapsed)} with {self.config.jobs} "
            f"worker(s): {rate:,.1f}/s per worker, under the {MIN_EXEC_RATE:g}/s a target "
            "needs to explore (workers dead, hanging or crawling: see the findings and errors)"
        )

    # -- workers --

    def _popen(
        self, cmd: Sequence[str], env: Mapping[str, str] | None = None
    ) -> subprocess.Popen[str]:
        """A libFuzzer process in its own session (killed as a group), output merged."""
        with self.lock:  # not after _clean_up: the minimizer thread may still be running
            if self.closed:
                raise RuntimeError("the campaign was stopped")
            proc = subprocess.Popen(
                list(cmd),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                errors="replace",
                env=dict(env if env is not None else self.env),
                start_new_session=True,
            )
            self.live.add(proc)
        return proc

    def _breadcrumb(self, index: int) -> Path:
        """The file where worker ``index`` keeps the input it is running (``breadcrumb``)."""
        return self.tmp / f"last-input-{index}"

    def _spawn(self, index: int, generation: int, remaining: float, new_dir: Path) -> None:
        if self.split:
            # Short inputs first (fast, most bugs), then long ones (block boundaries).
            first_half = generation == 0 and remaining >= 2 * SPLIT_MIN_SECONDS
            max_len = DEFAULT_MAX_LEN if generation == 0 else LONG_MAX_LEN
            run_time = remaining / 2 if first_half else remaining
        else:
            max_len, run_time = scheduled_max_len(index, generation), remaining
        cmd = worker_command(
            self.base,
            max_time=max(1, int(run_time)),
            artifacts=self.artifacts,
            corpus_dirs=[new_dir, self.pool],
            dictionary=self.layout.dictionary(self.target),
            extra=self.config.extra_args,
            max_len=max_len,
            timeout=self.config.timeout,
        )
        crumb = self._breadcrumb(index)
        crumb.unlink(missing_ok=True)
        proc = self._popen(cmd, {**self.env, BREADCRUMB_ENV: str(crumb)})
        key = (index, generation)
        self.runs[key] = RunStats(started=self.clock())
        self.procs[key] = proc
        self.open_runs.add(key)
        threading.Thread(target=_reader, args=(proc, key, self.queue), daemon=True).start()

    def _blind(self) -> bool:
        """A native or uninstrumented candidate: libFuzzer's coverage is not about it."""
        return self.candidate is not None and (
            self.candidate_info.get("code") == "native" or not self.config.instrument_candidate
        )

    def _status(self, now: float) -> str:
        runs = list(self.runs.values())
        execs = sum(r.estimate(now) for r in runs)
        elapsed = max(1e-9, now - self.start)
        cov = max((r.cov for r in runs), default=0)
        ft = max((r.ft for r in runs), default=0)
        corp = max((r.corpus_units for r in runs), default=0)
        active = sum(1 for p in self.procs.values() if p.poll() is None)
        dups = sum(len(f.duplicates) for f in self.findings)
        found = f"{len(self.findings)}" + (f"+{dups}dup" if dups else "")
        coverage = "cov n/a" if self._blind() else f"cov {cov} ft {ft}"
        return (
            f"[{self.target}] {format_duration(min(elapsed, self.budget))}"
            f"/{format_duration(self.budget)} "
            f"jobs {active}/{self.config.jobs} execs {human_count(execs)} "
            f"({human_count(execs / elapsed)}/s) {coverage} corp {corp} "
            f"findings {found}"
        )

    # -- findings --

    def _on_exit(self, key: _Key, run: RunStats, minimizer: ThreadPoolExecutor) -> bool:
        """Handle a finished worker run; True if it left a finding."""
        paths = [Path(p) for p in run.artifacts if Path(p).name.startswith(FINDING_PREFIXES)]
        if not paths:
            if key in self.killed or run.final_execs is not None:
                return False  # stopped by the campaign, or a normal end ("Done N runs")
            ran_an_input = read_last(self._breadcrumb(key[0])) is not None
            if run.returncode not in (0, None) and not run.inited and not ran_an_input:
                tail = [line for line in run.tail if line.strip()][-1:]
                reason = tail[0] if tail else f"exit status {run.returncode}"
                self.errors.append(f"worker {key[0]} failed to start: {reason}")
                self.progress.note(f"[{self.target}] worker {key[0]} failed to start: {reason}")
                return False
            return self._on_death(key, run, minimizer)  # also while loading the corpus
        failure = extract_failure(run.tail)
        for path in paths:
            path = path if path.is_absolute() else Path.cwd() / path
            self._register(path, failure, run.crash_reason, minimizer)
        return True

    def _on_death(self, key: _Key, run: RunStats, minimizer: ThreadPoolExecutor) -> bool:
        """A worker ended in the middle of its run with no libFuzzer report (no artifact,
        no final "Done" line): ``os._exit``, a signal libFuzzer cannot catch.  The input it
        was running, from its breadcrumb, is a finding; True if there was one."""
        how = _exit_status(run.returncode)
        data = read_last(self._breadcrumb(key[0]))
        if data is None:
            message = f"worker {key[0]} died ({how}) without a report and before any input"
            self.errors.append(message)
            self.progress.note(f"[{self.target}] {message}")
            return False
        artifact = self.artifacts / f"crash-{sha1_hex(data)}"
        if not artifact.exists():
            artifact.write_bytes(data)
        failure = (
            f"{DIED_HEADLINE}: {how}\n"
            f"  the worker ended while running this input ({len(data)} bytes, from its "
            "breadcrumb file): os._exit, SIGKILL or an exit that skipped libFuzzer's "
            "handlers\n"
            f"  last output lines:\n" + "\n".join(f"    {line}" for line in list(run.tail)[-5:])
        )
        self._register(artifact, failure, None, minimizer)
        return True

    def _register(
        self, path: Path, failure: str, reason: str | None, minimizer: ThreadPoolExecutor
    ) -> None:
        """A crashing input in ARTIFACTS: a new finding, or a duplicate of one (same
        headline: for a candidate, the same problem on the same ill-formed class)."""
        if not path.exists():
            return
        data = path.read_bytes()
        self._quarantine(data)
        if str(path) in self.seen_artifacts:
            if str(path) in self.moved:  # a duplicate hit again: keep one copy
                path.unlink()
            return
        self.seen_artifacts.add(str(path))
        title = headline(failure) or (reason or "crash")
        found_after = max(0.0, self.clock() - self.start)
        with self.lock:
            if self.first_finding is None:
                self.first_finding = found_after
            first = self.by_title.get(title)
            if first is not None:
                dup_dir = self.artifacts / "duplicates"
                dup_dir.mkdir(exist_ok=True)
                moved = dup_dir / path.name
                shutil.move(str(path), moved)
                self.moved.add(str(path))
                first.duplicates.append(moved)
                return
            finding = FuzzFinding(
                self.target, path, failure=failure, size=len(data), found_after=found_after
            )
            filed = filed_under(title, data) if self.candidate else None
            if filed is not None:
                finding.verdict, finding.klass = filed
            self.by_title[title] = finding
            self.findings.append(finding)
        self.progress.note(f"[{self.target}] finding: {title} -> {path}")
        self.pending.append(minimizer.submit(self._process, finding))

    def _screen(self, minimizer: ThreadPoolExecutor, timeout: float) -> bool:
        """Run every pool input through the target's check once, in a helper process;
        failing inputs become findings and leave the pool.  A candidate is probed in the
        same helper (``probes``; not with ``--no-seeds``).  True if any input failed."""
        probe = self.candidate is not None and self.config.seeds
        if not any(self.pool.iterdir()) and not probe:
            return False
        cmd = [self.config.python, "-m", "sanitizer._fuzzing.replay", "screen", self.target]
        cmd.append(str(self.pool))
        if probe:
            cmd.append("--probe")
        out = self._helper(cmd, timeout=self.deadline.limit(timeout))
        found = False
        for line in out.splitlines():
            try:
                item = json.loads(line)
            except ValueError:
                continue  # warnings and the like
            if not isinstance(item, dict):
                continue
            if isinstance(item.get("candidate"), dict):
                self.candidate_info = {k: str(v) for k, v in item["candidate"].items()}
                continue
            if isinstance(item.get("probe"), dict):
                self.probes.append(_probe_from(item["probe"]))
                continue
            try:
                source, failure = Path(item["path"]), str(item["failure"])
            except (KeyError, TypeError):
                continue
            if not source.is_file():
                continue
            data = source.read_bytes()
            kind = "timeout" if headline(failure) == TIMEOUT_HEADLINE else "crash"
            artifact = self.artifacts / f"{kind}-{sha1_hex(data)}"
            if not artifact.exists():
                artifact.write_bytes(data)
            self._register(artifact, failure, None, minimizer)
            found = True
        return found

    def _quarantine(self, data: bytes) -> None:
        """Take a crashing input out of the workers' corpus, so a restarted worker does
        not crash on it again while loading."""
        digest = sha1_hex(data)
        for directory in [self.pool, *self.new_dirs]:
            for path in directory.iterdir():
                key = str(path)
                if key not in self.digests:
                    try:
                        self.digests[key] = (
                            path.name
                            if len(path.name) == 40 and directory is not self.pool
                            else sha1_hex(path.read_bytes())
                        )
                    except OSError:
                        continue
                if self.digests[key] == digest:
                    path.unlink(missing_ok=True)
                    del self.digests[key]

    # -- minimizing and reporting a finding (in the minimizer thread) --

    def _process(self, finding: FuzzFinding) -> None:
        """Minimize a finding, replay the minimized input and write its report.

        The finding keeps the original input's headline: a smaller input is kept only if
        the real target fails on it with that same headline (for a candidate, the same
        problem on the same ill-formed class).  The replay helper's delta debugging first
        (it keeps the headline by construction, far faster than a libFuzzer run per try);
        libFuzzer's ``-minimize_crash`` when the helper cannot reproduce the failure (a
        native crash kills it).  Every step is bounded by the budget; what does not fit is
        skipped and the finding says so."""
        artifact = finding.artifact
        original = artifact.read_bytes()
        wanted = finding.title
        minimized = artifact.with_name(artifact.name + ".min")
        shutil.copyfile(artifact, minimized)
        finding.minimized, finding.minimized_size = minimized, len(original)
        confirmed: tuple[bool | None, str] | None = None  # the replay of a smaller input
        if wanted == TIMEOUT_HEADLINE or wanted.startswith(DIED_HEADLINE):
            pass  # every try would cost a timeout or a dead helper: keep the input as found
        else:
            shrunk, confirmed = self._shrink(artifact, minimized, wanted)
            if not shrunk and len(original) > 1 and self.deadline.left() >= 1:
                confirmed = self._minimize(artifact, minimized, wanted)
        failed, failure = confirmed if confirmed is not None else self._replay(minimized)
        if failed is None:
            finding.note = OUT_OF_TIME
        else:
            finding.reproduced = failed
            finding.minimized_failure = failure
        if failed is False:
            self.progress.note(
                f"[{self.target}] finding {artifact.name} does not reproduce on replay"
            )
        finding.minimized_size = minimized.stat().st_size
        finding.report = self._write_report(finding, minimized, minimized.read_bytes(), original)

    def _cut_short(self, finding: FuzzFinding) -> None:
        """The report of a finding the budget left no time to minimize or replay."""
        original = finding.artifact.read_bytes()
        minimized = finding.artifact.with_name(finding.artifact.name + ".min")
        if not minimized.exists() or finding.minimized_failure == "":
            shutil.copyfile(finding.artifact, minimized)
        finding.minimized = minimized
        data = minimized.read_bytes()
        finding.minimized_size = len(data)
        finding.note = finding.note or OUT_OF_TIME
        finding.report = self._write_report(finding, minimized, data, original)

    def _shrink(
        self, artifact: Path, minimized: Path, wanted: str
    ) -> tuple[bool, tuple[bool, str] | None]:
        """The replay helper's delta debugging from the original input toward a smaller
        one failing with headline ``wanted``: whether the helper reproduced the failure
        at all (else libFuzzer's minimizer may), and the real target's replay if it
        confirmed a smaller input with that headline (it replaces ``minimized``)."""
        polished = artifact.with_name(artifact.name + ".shrink")
        polished.unlink(missing_ok=True)
        shrink_cmd = [self.config.python, "-m", "sanitizer._fuzzing.replay", "shrink"]
        self._helper(
            [*shrink_cmd, self.target, str(artifact), str(polished), wanted],
            timeout=self.deadline.limit(self.config.minimize_time),
        )
        return polished.exists(), self._keep_if_same(polished, minimized, wanted)

    def _minimize(self, artifact: Path, minimized: Path, wanted: str) -> tuple[bool, str] | None:
        """libFuzzer's ``-minimize_crash``, kept only if it fails as ``wanted`` (libFuzzer
        keeps "it crashes", which may be another failure): as ``_shrink``."""
        smaller = artifact.with_name(artifact.name + ".lfmin")
        smaller.unlink(missing_ok=True)
        limit = self.deadline.limit(self.config.minimize_time)
        if limit >= 1:
            self._helper(
                minimize_command(self.shim, artifact, smaller, max_time=int(limit)),
                timeout=limit,
            )
        return self._keep_if_same(smaller, minimized, wanted)

    def _keep_if_same(
        self, candidate: Path, minimized: Path, wanted: str
    ) -> tuple[bool, str] | None:
        """Replace ``minimized`` with ``candidate`` when it is smaller and the real target
        fails on it with headline ``wanted``: that replay's result, else None."""
        try:
            if not candidate.exists() or candidate.stat().st_size >= minimized.stat().st_size:
                return None
            failed, failure = self._replay(candidate)
            if failed and headline(failure) == wanted:
                candidate.replace(minimized)
                return True, failure
            return None
        finally:
            candidate.unlink(missing_ok=True)

    def _replay(self, path: Path) -> tuple[bool | None, str]:
        """Run the real target once on ``path``: whether it failed (non-zero exit: an
        exception, a signal, a timeout; None: no time left to know) and its failure
        text."""
        cmd = [*self.base, f"-timeout={self.config.timeout}", str(path)]
        code, out = self._run_helper(cmd, timeout=self.deadline.limit(120 + self.config.timeout))
        if code is None:
            return None, ""
        # libFuzzer prints "Executed FILE in N ms" after running an input; exit status 0
        # without it is a process that left in the middle (os._exit(0)).
        finished = code == 0 and "\nExecuted " in f"\n{out}"
        return not finished, extract_failure(out.splitlines())

    def _write_report(
        self, finding: FuzzFinding, minimized: Path, data: bytes, original: bytes
    ) -> Path:
        """``ARTIFACT.txt``, next to the finding."""
        report = finding.artifact.with_name(finding.artifact.name + ".txt")
        report.write_text(
            format_report(
                finding,
                data=data,
                original=original,
                candidate=self.candidate,
                reproduce=reproduce_command(
                    [*self.base, f"-timeout={self.config.timeout}"]
                    if finding.title == TIMEOUT_HEADLINE
                    else self.base,
                    minimized,
                    self.candidate,
                    self.env.get("PYTHONPATH", "").split(os.pathsep),
                ),
            ),
            encoding="utf-8",
        )
        return report

    # -- helper processes --

    def _helper(self, cmd: Sequence[str], timeout: float) -> str:
        """Run a helper (minimize, replay, merge); its merged output, "" on timeout."""
        return self._run_helper(cmd, timeout)[1]

    def _run_helper(self, cmd: Sequence[str], timeout: float) -> tuple[int | None, str]:
        """A helper's exit status (None on timeout, or when ``timeout`` leaves it no time
        to run) and merged output ("" then)."""
        if timeout < 0.1:
            return None, ""
        try:
            proc = self._popen([self.config.python, *cmd] if cmd[0] == str(self.shim) else cmd)
        except RuntimeError:  # the campaign was stopped meanwhile
            return None, ""
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill(proc, signal.SIGKILL)
            proc.communicate()
            return None, ""
        finally:
            _kill(proc, signal.SIGKILL)
            with self.lock:
                self.live.discard(proc)
        return proc.returncode, out

    def _merge(self, sources: Sequence[Path]) -> None:
        """``-merge=1`` the workers' new units into the working corpus, in the time left;
        without the time for it, every new unit is kept."""
        if not sources:
            return
        self.progress.note(f"[{self.target}] merging new corpus entries into {self.working}")
        scratch = self.tmp / "merge-artifacts"
        scratch.mkdir(exist_ok=True)
        out = self._helper(
            merge_command(self.shim, self.working, sources, scratch),
            timeout=self.deadline.limit(300),
        )
        if "MERGE-OUTER" not in out:
            # Merge could not run (or finish): keep every new unit rather than lose them.
            for src in sources:
                copy_missing(src, self.working)


def _probe_from(item: dict[str, object]) -> Probe:
    """A probe's verdict as the replay helper printed it."""
    return Probe(
        bytes.fromhex(str(item.get("input", ""))),
        str(item.get("class", "")),
        str(item.get("verdict", "")),
        str(item.get("answer", "")),
        str(item.get("headline", "")),
    )


def _candidate_answer(failure: str) -> str:
    """The candidate's answer in a ``Divergence`` report: the line after ``strict``."""
    lines = failure.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.lstrip().startswith("strict"):
            answer = lines[i + 1].partition(" : ")[2].strip()
            return answer if len(answer) <= 60 else answer[:57] + "..."
    return ""
