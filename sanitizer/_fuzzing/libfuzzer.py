"""libFuzzer as a process: its command lines, and what its output lines mean.

A campaign only sees libFuzzer through its argv and the text it prints, so both are kept
here, as plain functions unit-tested against output captured from atheris 3.0.0 runs: a
change in libFuzzer's format shows up in those tests rather than as a silently frozen
progress line.  ``parse_line`` classifies one line into an event, ``RunStats`` folds a
worker's events into counters, ``extract_failure`` cuts the failure report out of a
worker's output, and the ``*_command`` functions build the argv of a worker, a
``-minimize_crash`` run, a ``-merge`` run and a one-input replay.
"""

from __future__ import annotations

import os
import re
import shlex
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .candidate import CANDIDATE_ENV

__all__ = [
    "DEFAULT_MAX_LEN",
    "DEFAULT_TIMEOUT",
    "FINDING_PREFIXES",
    "LONG_MAX_LEN",
    "TIMEOUT_HEADLINE",
    "Artifact",
    "CrashStart",
    "Done",
    "Event",
    "FinalStat",
    "PythonException",
    "RunStats",
    "Status",
    "extract_failure",
    "headline",
    "merge_command",
    "minimize_command",
    "parse_line",
    "parse_size",
    "replaying",
    "reproduce_command",
    "scheduled_max_len",
    "worker_command",
]

# The names libFuzzer gives the inputs it saves with -artifact_prefix.
FINDING_PREFIXES = ("crash-", "timeout-", "oom-", "leak-", "slow-unit-")


# -- parsing libFuzzer output --------------------------------------------------------------


@dataclass(frozen=True)
class Status:
    """A status line: ``#1234 NEW cov: 56 ft: 78 corp: 9/100b lim: 4 exec/s: 2000 rss: 40Mb``."""

    execs: int
    kind: str  # INITED, NEW, REDUCE, pulse, DONE, RELOAD...
    cov: int | None = None
    ft: int | None = None
    corpus_units: int | None = None
    corpus_bytes: int | None = None
    exec_per_sec: int | None = None


@dataclass(frozen=True)
class CrashStart:
    """``==123== ERROR: libFuzzer: deadly signal`` (or ``fuzz target exited``, ``timeout``)."""

    reason: str


@dataclass(frozen=True)
class PythonException:
    """atheris' `` === Uncaught Python exception: ===`` marker (printed on stdout)."""


@dataclass(frozen=True)
class Artifact:
    """``artifact_prefix='a/'; Test unit written to a/crash-<sha1>``."""

    path: str


@dataclass(frozen=True)
class FinalStat:
    """``stat::number_of_executed_units: 22059`` (``-print_final_stats=1``)."""

    name: str
    value: int


@dataclass(frozen=True)
class Done:
    """``Done 13767957 runs in 11 second(s)``."""

    runs: int
    seconds: int


Event = Status | CrashStart | PythonException | Artifact | FinalStat | Done

_STATUS_RE = re.compile(r"^#(\d+)\s+([A-Za-z_]+)\b(.*)$")
_FIELD_RE = re.compile(r"\b(cov|ft|exec/s):\s*(\d+)")
_CORP_RE = re.compile(r"\bcorp:\s*(\d+)/(\d+(?:\.\d+)?[KMG]?b)")
_CRASH_RE = re.compile(r"^==\d+==\s*ERROR: libFuzzer: (.*)$")
_ARTIFACT_RE = re.compile(r"Test unit written to (.+?)\s*$")
_STAT_RE = re.compile(r"^stat::(\w+):\s*(\d+)\s*$")
_DONE_RE = re.compile(r"^Done (\d+) runs in (\d+) second")
_PY_EXC = "=== Uncaught Python exception: ==="
_SIZE_UNITS = {"b": 1, "Kb": 1 << 10, "Mb": 1 << 20, "Gb": 1 << 30}


def replaying(argv: Sequence[str]) -> bool:
    """Whether libFuzzer, given this argv (``sys.argv``), runs each input file once instead
    of fuzzing: as its driver decides (``AllInputsAreFiles``), positional arguments that
    are all not directories.  Then a target runs its full check, never a sampled tier."""
    inputs = [arg for arg in argv[1:] if not arg.startswith("-")]
    return bool(inputs) and not any(os.path.isdir(arg) for arg in inputs)


def parse_size(text: str) -> int:
    """libFuzzer's sizes: ``"100b"``, ``"45Kb"``, ``"3Mb"`` -> bytes."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]?b)", text.strip())
    if not match:
        raise ValueError(f"not a libFuzzer size: {text!r}")
    return int(float(match.group(1)) * _SIZE_UNITS[match.group(2)])


def parse_line(line: str) -> Event | None:
    """Classify one line of a libFuzzer/atheris worker's (merged stdout+stderr) output."""
    line = line.rstrip("\r\n")
    match = _STATUS_RE.match(line)
    if match:
        rest = match.group(3)
        fields = {name: int(value) for name, value in _FIELD_RE.findall(rest)}
        units = size = None
        corp = _CORP_RE.search(rest)
        if corp:
            units, size = int(corp.group(1)), parse_size(corp.group(2))
        return Status(
            execs=int(match.group(1)),
            kind=match.group(2),
            cov=fields.get("cov"),
            ft=fields.get("ft"),
            corpus_units=units,
            corpus_bytes=size,
            exec_per_sec=fields.get("exec/s"),
        )
    if line.strip() == _PY_EXC:
        return PythonException()
    match = _CRASH_RE.match(line)
    if match:
        return CrashStart(match.group(1).strip())
    match = _ARTIFACT_RE.search(line)
    if match:
        return Artifact(match.group(1))
    match = _STAT_RE.match(line)
    if match:
        return FinalStat(match.group(1), int(match.group(2)))
    match = _DONE_RE.match(line)
    if match:
        return Done(int(match.group(1)), int(match.group(2)))
    return None


def extract_failure(lines: Iterable[str]) -> str:
    """The failure text in a worker's output: atheris' uncaught-exception block (the
    ``Divergence`` report and its traceback) or, for a native crash/timeout, libFuzzer's
    ERROR line and what follows up to the artifact line.  Empty if there is none."""
    lines = [line.rstrip("\r\n") for line in lines]
    start = None
    for i, line in enumerate(lines):
        if line.strip() == _PY_EXC:
            start = i  # the last block wins (minimization prints several)
    if start is not None:
        block: list[str] = []
        for line in lines[start + 1 :]:
            if _CRASH_RE.match(line):
                break
            block.append(line)
        return "\n".join(block).strip("\n")
    for i, line in enumerate(lines):
        if _CRASH_RE.match(line):
            block = []
            for other in lines[i : i + 40]:
                if _ARTIFACT_RE.search(other):
                    break
                block.append(other)
            return "\n".join(block).strip("\n")
    return ""


# What varies between two hits of the same failure in libFuzzer's ERROR line: the
# process id (``==1234==``) and a timeout's measured seconds.
_PID_RE = re.compile(r"^==\d+==\s*")
_TIMEOUT_RE = re.compile(r"timeout after \d+ seconds?")
# The headline of an input that ran longer than the per-input limit, whoever saw it
# (libFuzzer's ``-timeout`` in a worker, the alarm of a replay helper).
TIMEOUT_HEADLINE = "ERROR: libFuzzer: timeout"


def headline(failure: str) -> str:
    """The first line of a failure text: ``Divergence: candidate decode accepts ...``.
    Findings are grouped by it, so the parts of libFuzzer's ERROR line that differ from
    one hit to the next are dropped (``==1234== ERROR: libFuzzer: deadly signal`` ->
    ``ERROR: libFuzzer: deadly signal``; a timeout's seconds)."""
    for line in failure.splitlines():
        if line.strip():
            line = _PID_RE.sub("", line.strip())
            return _TIMEOUT_RE.sub("timeout", line)
    return ""


@dataclass
class RunStats:
    """What one worker process (one run, between restarts) has reported so far."""

    started: float = 0.0
    execs: int = 0
    exec_per_sec: int = 0
    cov: int = 0
    ft: int = 0
    corpus_units: int = 0
    corpus_bytes: int = 0
    last_status: float = 0.0
    inited: bool = False
    inited_execs: int = 0  # executions when INITED: the seed inputs, run before fuzzing
    final_execs: int | None = None
    crash_reason: str | None = None
    artifacts: list[str] = field(default_factory=list)
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=300))
    returncode: int | None = None
    ended: float = 0.0

    def feed(self, line: str, now: float) -> Event | None:
        self.tail.append(line.rstrip("\r\n"))
        event = parse_line(line)
        if isinstance(event, Status):
            self.execs = max(self.execs, event.execs)
            self.last_status = now
            if event.kind == "INITED":
                self.inited = True
                self.inited_execs = event.execs
            if event.exec_per_sec is not None:
                self.exec_per_sec = event.exec_per_sec
            if event.cov is not None:
                self.cov = max(self.cov, event.cov)
            if event.ft is not None:
                self.ft = max(self.ft, event.ft)
            if event.corpus_units is not None:
                self.corpus_units = event.corpus_units
                self.corpus_bytes = event.corpus_bytes or 0
        elif isinstance(event, CrashStart):
            self.crash_reason = event.reason
        elif isinstance(event, Artifact):
            self.artifacts.append(event.path)
        elif isinstance(event, FinalStat) and event.name == "number_of_executed_units":
            self.final_execs = event.value
        elif isinstance(event, Done):
            self.final_execs = event.runs if self.final_execs is None else self.final_execs
        return event

    @property
    def total_execs(self) -> int:
        return self.final_execs if self.final_execs is not None else self.execs

    @property
    def mutated_execs(self) -> int:
        """Executions of inputs libFuzzer made (after the seed inputs it was given)."""
        return max(0, self.total_execs - self.inited_execs) if self.inited else 0

    def estimate(self, now: float) -> int:
        """Executions so far, extrapolated from the last status line (libFuzzer only
        prints one on new coverage and at powers of two)."""
        if self.final_execs is not None or self.returncode is not None:
            return self.total_execs
        rate = self.exec_per_sec
        if not rate and self.last_status > self.started + 1:
            rate = int(self.execs / (self.last_status - self.started))
        if not self.last_status:
            return self.execs
        return self.execs + int(rate * max(0.0, now - self.last_status))


# -- command lines ----------------------------------------------------------------------


# UTF-8 decoding is self-synchronizing: any divergence shows within a few bytes of
# context, so short inputs find bugs as well as long ones and run several times faster.
# Also the OSS-Fuzz setting (fuzz/*.options).  A -max_len= among the extra flags wins.
DEFAULT_MAX_LEN = 256
# The long-input tier of a campaign's schedule: odd-numbered workers (and every restart of
# worker 0 after the first) explore inputs up to this size, so bugs that need a long input
# (a decoder working in 1,024-byte blocks) are reachable too.
LONG_MAX_LEN = 4096
# libFuzzer's -timeout (seconds per input; its own default is 1200): an input running
# longer is a "timeout-" finding, not a campaign that spins until it is killed.
DEFAULT_TIMEOUT = 10


def scheduled_max_len(worker: int, generation: int) -> int:
    """The ``-max_len`` of a worker run: ``DEFAULT_MAX_LEN`` or ``LONG_MAX_LEN``, so that
    a campaign of any size spends part of its time on long inputs."""
    return LONG_MAX_LEN if (worker + generation) % 2 else DEFAULT_MAX_LEN


def worker_command(
    base: Sequence[str],
    *,
    max_time: float,
    artifacts: Path,
    corpus_dirs: Sequence[Path],
    dictionary: Path | None = None,
    extra: Sequence[str] = (),
    max_len: int = DEFAULT_MAX_LEN,
    timeout: int = DEFAULT_TIMEOUT,
) -> list[str]:
    """One worker: ``base -max_total_time=T -artifact_prefix=A/ ... EXTRA DIR...``
    (the first corpus dir receives the worker's new units).  ``-max_len=`` and
    ``-timeout=`` among the extra flags win over ``max_len`` and ``timeout``."""
    cmd = [
        *base,
        f"-max_total_time={max(1, int(max_time))}",
        f"-artifact_prefix={artifacts}{os.sep}",
        "-print_final_stats=1",
    ]
    if dictionary is not None:
        cmd.append(f"-dict={dictionary}")
    if not any(flag.startswith("-max_len=") for flag in extra):
        cmd.append(f"-max_len={max_len}")
    if not any(flag.startswith("-timeout=") for flag in extra):
        cmd.append(f"-timeout={timeout}")
    cmd += list(extra)
    cmd += [str(d) for d in corpus_dirs]
    return cmd


def minimize_command(
    shim: Path, artifact: Path, output: Path, *, runs: int = 20_000, max_time: int = 20
) -> list[str]:
    return [
        str(shim),
        "-minimize_crash=1",
        f"-runs={runs}",
        f"-max_total_time={max_time}",
        f"-exact_artifact_path={output}",
        str(artifact),
    ]


def merge_command(
    shim: Path, dest: Path, sources: Sequence[Path], artifacts: Path | None = None
) -> list[str]:
    """``-merge=1``: add to ``dest`` the units of ``sources`` that bring new coverage.
    Merge re-runs ``dest`` too; crashes there are skipped and land in ``artifacts``."""
    cmd = [str(shim), "-merge=1"]
    if artifacts is not None:
        cmd.append(f"-artifact_prefix={artifacts}{os.sep}")
    return [*cmd, str(dest), *(str(s) for s in sources)]


def reproduce_command(
    base: Sequence[str], artifact: Path, candidate: str | None, pythonpath: Sequence[str] = ()
) -> str:
    """A shell command line that replays ``artifact`` once, from any folder: the input
    by its absolute path, and the campaign's ``pythonpath`` (the folder it ran in, where a
    candidate's module is imported from) made absolute."""
    prefix = f"{CANDIDATE_ENV}={shlex.quote(candidate)} " if candidate else ""
    paths = [os.path.abspath(p) for p in pythonpath if p]
    if paths:
        prefix += f"PYTHONPATH={shlex.quote(os.pathsep.join(dict.fromkeys(paths)))} "
    return prefix + shlex.join([*base, os.path.abspath(artifact)])
