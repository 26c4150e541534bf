"""Fuzzing campaigns: run libFuzzer workers, watch them, and turn crashes into findings.

``python fuzz/fuzz_decode.py`` is one libFuzzer process that stops at its first crash and
leaves a raw ``crash-<sha1>`` behind.  A campaign is what a user actually wants: N workers
for a time budget, live counters, each crash minimized and explained in a report, workers
restarted after a crash, new corpus entries merged back, and a summary with an exit code.
This module is that logic, free of argparse so it can be driven by ``sanitizer fuzz``, by
``bench/bench_fuzz.py`` and by tests.  The parsers of libFuzzer's output are plain functions
of a line, unit-tested against captured output.

libFuzzer re-executes ``argv[0]`` for ``-minimize_crash`` and ``-merge`` (through
``system()``), which fails for ``python fuzz/fuzz_x.py`` (``argv[0]`` is a script that may
not be executable, or runs under the wrong interpreter).  Every campaign therefore writes a
small executable *shim* whose shebang is this interpreter and whose body runs the target;
helper runs are started through it so their children are too.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from .progress import Progress, human_count

__all__ = [
    "CANDIDATE_ENV",
    "TARGET_NAMES",
    "Artifact",
    "CampaignConfig",
    "CrashStart",
    "Done",
    "FinalStat",
    "Finding",
    "Layout",
    "PythonException",
    "RunStats",
    "Status",
    "TargetResult",
    "UsageError",
    "count_files",
    "detect_layout",
    "extract_failure",
    "format_duration",
    "format_report",
    "format_summary",
    "format_table",
    "fuzzer_command",
    "merge_command",
    "minimize_command",
    "parse_line",
    "parse_size",
    "reproduce_command",
    "run_campaign",
    "run_target",
    "shim_source",
    "worker_command",
]

TARGET_NAMES = ("decode", "policy", "identifiers")
CANDIDATE_ENV = "SANITIZER_FUZZ_CANDIDATE"
FINDING_PREFIXES = ("crash-", "timeout-", "oom-", "leak-", "slow-unit-")

INSTALL_HINT = (
    "fuzzing needs atheris: pip install 'utf8-sanitizer[fuzz]' "
    "(atheris 3.0.0 on Python 3.11, atheris>=3.1 on Python 3.12+)"
)


class UsageError(Exception):
    """A campaign cannot start (unknown target, missing corpus dir, bad candidate...).
    The CLI prints ``str()`` as a one-line message and exits 2."""


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


def headline(failure: str) -> str:
    """The first line of a failure text: ``Divergence: candidate decode accepts ...``."""
    for line in failure.splitlines():
        if line.strip():
            return line.strip()
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
    final_execs: int | None = None
    crash_reason: str | None = None
    artifacts: list[str] = field(default_factory=list)
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=300))
    returncode: int | None = None

    def feed(self, line: str, now: float) -> Event | None:
        self.tail.append(line.rstrip("\r\n"))
        event = parse_line(line)
        if isinstance(event, Status):
            self.execs = max(self.execs, event.execs)
            self.last_status = now
            if event.kind == "INITED":
                self.inited = True
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


# -- where things are ------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Where the fuzz scripts, seed corpora and dictionary are: a source checkout
    (``fuzz/``, ``corpus/`` next to the package) or only the installed package."""

    source_root: Path | None

    def script(self, target: str) -> Path | None:
        if self.source_root is None:
            return None
        path = self.source_root / "fuzz" / f"fuzz_{target}.py"
        return path if path.is_file() else None

    def seeds(self, target: str) -> Path | None:
        if self.source_root is None:
            return None
        path = self.source_root / "corpus" / target
        return path if path.is_dir() else None

    def dictionary(self) -> Path | None:
        candidates = [Path(__file__).resolve().parent / "utf8.dict"]
        if self.source_root is not None:
            candidates.insert(0, self.source_root / "corpus" / "utf8.dict")
        return next((p for p in candidates if p.is_file()), None)


def detect_layout(package_dir: Path | None = None) -> Layout:
    """A source tree is recognised by ``fuzz/`` and ``corpus/`` beside the package."""
    if package_dir is None:
        package_dir = Path(__file__).resolve().parent.parent
    root = package_dir.parent
    if (root / "fuzz").is_dir() and (root / "corpus").is_dir():
        return Layout(root)
    return Layout(None)


def fuzzer_command(target: str, layout: Layout, python: str = sys.executable) -> list[str]:
    """How to start the target: the source tree's script, else the in-package entry."""
    script = layout.script(target)
    if script is not None:
        return [python, str(script)]
    return [python, "-m", "sanitizer.fuzzing", target]


def shim_source(target: str, layout: Layout, python: str = sys.executable) -> str:
    """An executable stand-in for ``argv[0]`` that libFuzzer can re-run by itself."""
    script = layout.script(target)
    if script is not None:
        body = (
            f"_path = {str(script)!r}\n"
            "sys.path[0] = os.path.dirname(_path)\n"
            "with open(_path, 'rb') as _f:\n"
            "    _code = compile(_f.read(), _path, 'exec')\n"
            "exec(_code, {'__name__': '__main__', '__file__': _path,"
            " '__builtins__': __builtins__})\n"
        )
    else:
        body = (
            f"sys.argv[1:1] = [{target!r}]\n"
            "runpy.run_module('sanitizer.fuzzing', run_name='__main__', alter_sys=False)\n"
        )
    return f"#!{python}\n# generated by sanitizer.fuzzing.runner\nimport os, runpy, sys\n{body}"


def write_shim(directory: Path, target: str, layout: Layout, python: str = sys.executable) -> Path:
    path = directory / f"fuzz_{target}"
    path.write_text(shim_source(target, layout, python), encoding="utf-8")
    path.chmod(0o755)
    return path


# UTF-8 decoding is self-synchronizing: any divergence shows within a few bytes of
# context, so short inputs find bugs as well as long ones and run several times faster.
# Also the OSS-Fuzz setting (fuzz/*.options).  A -max_len= among the extra flags wins.
DEFAULT_MAX_LEN = 256


def worker_command(
    base: Sequence[str],
    *,
    max_time: float,
    artifacts: Path,
    corpus_dirs: Sequence[Path],
    dictionary: Path | None = None,
    extra: Sequence[str] = (),
) -> list[str]:
    """One worker: ``base -max_total_time=T -artifact_prefix=A/ ... EXTRA DIR...``
    (the first corpus dir receives the worker's new units)."""
    cmd = [
        *base,
        f"-max_total_time={max(1, int(max_time))}",
        f"-artifact_prefix={artifacts}{os.sep}",
        "-print_final_stats=1",
    ]
    if dictionary is not None:
        cmd.append(f"-dict={dictionary}")
    if not any(flag.startswith("-max_len=") for flag in extra):
        cmd.append(f"-max_len={DEFAULT_MAX_LEN}")
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


def reproduce_command(base: Sequence[str], artifact: Path, candidate: str | None) -> str:
    """A shell command line that replays ``artifact`` once."""
    prefix = f"{CANDIDATE_ENV}={shlex.quote(candidate)} " if candidate else ""
    return prefix + shlex.join([*base, str(artifact)])


def count_files(directory: Path | None) -> int:
    if directory is None or not directory.is_dir():
        return 0
    return sum(1 for p in directory.iterdir() if p.is_file() and not p.name.startswith("."))


def link_missing(src: Path, dest: Path) -> int:
    """Like ``copy_missing`` but hard-linking when the file system allows it."""
    linked = 0
    for path in sorted(src.iterdir()):
        if path.is_file() and not path.name.startswith(".") and not (dest / path.name).exists():
            try:
                os.link(path, dest / path.name)
            except OSError:
                shutil.copyfile(path, dest / path.name)
            linked += 1
    return linked


def sha1_hex(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


def copy_missing(src: Path, dest: Path) -> int:
    """Copy files of ``src`` not already in ``dest`` (by name); returns how many."""
    copied = 0
    for path in sorted(src.iterdir()):
        if path.is_file() and not path.name.startswith(".") and not (dest / path.name).exists():
            shutil.copyfile(path, dest / path.name)
            copied += 1
    return copied


# -- results ---------------------------------------------------------------------------------


@dataclass
class Finding:
    target: str
    artifact: Path
    minimized: Path | None = None
    report: Path | None = None
    failure: str = ""
    size: int = 0
    minimized_size: int | None = None
    duplicates: list[Path] = field(default_factory=list)

    @property
    def title(self) -> str:
        return headline(self.failure) or "crash"


@dataclass
class TargetResult:
    target: str
    jobs: int
    seconds: float
    execs: int
    cov: int
    ft: int
    corpus_before: int
    corpus_after: int
    findings: list[Finding] = field(default_factory=list)
    restarts: int = 0
    errors: list[str] = field(default_factory=list)
    candidate: str | None = None

    @property
    def exec_per_sec(self) -> float:
        return self.execs / self.seconds if self.seconds > 0 else 0.0

    @property
    def duplicate_count(self) -> int:
        return sum(len(f.duplicates) for f in self.findings)


def format_duration(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A markdown table, columns padded for reading in a terminal too."""
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(headers), sep, *(line(r) for r in rows)])


def format_summary(results: Sequence[TargetResult], cwd: Path | None = None) -> str:
    headers = [
        "target",
        "jobs",
        "time",
        "execs",
        "exec/s",
        "cov",
        "ft",
        "corpus",
        "findings",
    ]
    rows = []
    for r in results:
        found = str(len(r.findings))
        if r.duplicate_count:
            found += f" (+{r.duplicate_count} dup)"
        rows.append(
            [
                r.target,
                str(r.jobs),
                format_duration(r.seconds),
                f"{r.execs:,}",
                f"{r.exec_per_sec:,.0f}",
                str(r.cov),
                str(r.ft),
                f"{r.corpus_before} -> {r.corpus_after}",
                found,
            ]
        )
    out = [format_table(headers, rows)]
    for r in results:
        for finding in r.findings:
            out.append("")
            out.append(f"finding ({r.target}): {finding.title}")
            out.append(f"  input:     {_rel(finding.artifact, cwd)} ({finding.size} bytes)")
            if finding.minimized is not None:
                out.append(
                    f"  minimized: {_rel(finding.minimized, cwd)} ({finding.minimized_size} bytes)"
                )
            if finding.report is not None:
                out.append(f"  report:    {_rel(finding.report, cwd)}")
            if finding.duplicates:
                out.append(f"  same failure also hit by {len(finding.duplicates)} more input(s)")
        for error in r.errors:
            out.append(f"error ({r.target}): {error}")
    total = sum(len(r.findings) for r in results)
    out.append("")
    out.append(
        f"{total} finding(s)" if total else "no findings: every input met the target's invariants"
    )
    return "\n".join(out)


def _rel(path: Path, cwd: Path | None) -> str:
    base = cwd or Path.cwd()
    try:
        return str(path.resolve().relative_to(base.resolve()))
    except ValueError:
        return str(path)


def format_report(
    finding: Finding,
    *,
    data: bytes,
    original: bytes,
    candidate: str | None,
    reproduce: str,
    original_failure: str = "",
) -> str:
    """The ``<artifact>.txt`` written next to a finding.  ``original_failure`` is shown
    too when minimizing led to a different failure than the original input's."""
    lines = [
        f"sanitizer fuzz finding: target {finding.target}",
        f"failure:   {finding.title}",
        f"candidate: {candidate or '(none: the project decoder only)'}",
        f"input:     {finding.artifact.name} ({len(original)} bytes)",
    ]
    if finding.minimized is not None:
        lines.append(f"minimized: {finding.minimized.name} ({len(data)} bytes)")
    lines += [
        "",
        f"input hex ({len(data)} bytes): {data.hex(' ').upper() or '(empty)'}",
        f"input repr: {data!r}",
    ]
    if original != data:
        shown = original[:256].hex(" ").upper()
        if len(original) > 256:
            shown += f" ... ({len(original) - 256} more bytes)"
        lines.append(f"original hex ({len(original)} bytes): {shown}")
    lines += [
        "",
        "--- failure (as printed by the fuzz target) ---",
        finding.failure or "(no Python exception captured; see the fuzzer output)",
        "",
        "--- reproduce ---",
        reproduce,
        "",
    ]
    if original_failure and headline(original_failure) != finding.title:
        lines += [
            "--- failure of the original (unminimized) input ---",
            original_failure,
            "",
        ]
    return "\n".join(lines)


# -- running a campaign ---------------------------------------------------------------------


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
        if self.jobs < 1:
            raise UsageError("--jobs must be at least 1")
        if self.corpus is not None and not self.corpus.is_dir():
            raise UsageError(f"corpus directory not found: {self.corpus}")
        if self.candidate and "decode" not in self.targets:
            raise UsageError("--candidate only applies to the decode target")


def _reader(proc: subprocess.Popen[str], key: tuple[int, int], out: queue.Queue[Msg]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        out.put((key, line))
    out.put((key, None))


Msg = tuple[tuple[int, int], str | None]


def _kill(proc: subprocess.Popen[str], sig: int = signal.SIGTERM) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class _Target:
    """One target's campaign (its workers, minimizer and bookkeeping)."""

    def __init__(
        self, config: CampaignConfig, target: str, budget: float, progress: Progress
    ) -> None:
        self.config = config
        self.target = target
        self.budget = budget
        self.progress = progress
        self.layout = config.layout or detect_layout()
        self.base = fuzzer_command(target, self.layout, config.python)
        self.candidate = config.candidate if target == "decode" else None
        self.artifacts = config.artifacts.resolve()
        self.seeds = self.layout.seeds(target)
        if config.corpus is not None:
            self.working = config.corpus.resolve()
        else:
            self.working = (config.state_dir / "corpus" / target).resolve()
        self.runs: dict[tuple[int, int], RunStats] = {}
        self.procs: dict[tuple[int, int], subprocess.Popen[str]] = {}
        self.queue: queue.Queue[Msg] = queue.Queue()
        self.findings: list[Finding] = []
        self.by_title: dict[str, Finding] = {}
        self.seen_artifacts: set[str] = set()
        self.moved: set[str] = set()
        self.digests: dict[str, str] = {}
        self.pool = self.working
        self.new_dirs: list[Path] = []
        self.tmp = Path()
        self.pending: list[Future[None]] = []
        self.errors: list[str] = []
        self.restarts = 0
        self.lock = threading.Lock()
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
        return env

    # -- workers --

    def _popen(self, cmd: Sequence[str]) -> subprocess.Popen[str]:
        """A libFuzzer process in its own session (killed as a group), output merged."""
        return subprocess.Popen(
            list(cmd),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            env=self.env,
            start_new_session=True,
        )

    def _spawn(self, index: int, generation: int, remaining: float, new_dir: Path) -> None:
        cmd = worker_command(
            self.base,
            max_time=max(1, int(remaining)),
            artifacts=self.artifacts,
            corpus_dirs=[new_dir, self.pool],
            dictionary=self.layout.dictionary(),
            extra=self.config.extra_args,
        )
        proc = self._popen(cmd)
        key = (index, generation)
        now = time.monotonic()
        self.runs[key] = RunStats(started=now)
        self.procs[key] = proc
        threading.Thread(target=_reader, args=(proc, key, self.queue), daemon=True).start()

    def _status(self, now: float, start: float) -> str:
        runs = list(self.runs.values())
        execs = sum(r.estimate(now) for r in runs)
        elapsed = max(1e-9, now - start)
        cov = max((r.cov for r in runs), default=0)
        ft = max((r.ft for r in runs), default=0)
        corp = max((r.corpus_units for r in runs), default=0)
        active = sum(1 for p in self.procs.values() if p.poll() is None)
        dups = sum(len(f.duplicates) for f in self.findings)
        found = f"{len(self.findings)}" + (f"+{dups}dup" if dups else "")
        return (
            f"[{self.target}] {format_duration(min(elapsed, self.budget))}"
            f"/{format_duration(self.budget)} "
            f"jobs {active}/{self.config.jobs} execs {human_count(execs)} "
            f"({human_count(execs / elapsed)}/s) cov {cov} ft {ft} corp {corp} "
            f"findings {found}"
        )

    def run(self) -> TargetResult:
        self.artifacts.mkdir(parents=True, exist_ok=True)
        self.working.mkdir(parents=True, exist_ok=True)
        if self.seeds is not None and self.config.corpus is None:
            copy_missing(self.seeds, self.working)
        corpus_before = count_files(self.working)
        tmp = Path(tempfile.mkdtemp(prefix=f"sanitizer-fuzz-{self.target}-"))
        minimizer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="minimize")
        stopping = False
        elapsed = 0.0
        try:
            self.tmp = tmp
            self.shim = write_shim(tmp, self.target, self.layout, self.config.python)
            # Workers read a private copy (hard links) of the corpus, so an input that
            # crashes the target can be taken out of their way without touching the
            # user's corpus; new units go to one directory per worker.
            self.pool = tmp / "corpus"
            self.pool.mkdir()
            link_missing(self.working, self.pool)
            if self.seeds is not None and self.config.corpus is not None:
                link_missing(self.seeds, self.pool)
            new_dirs = [tmp / f"new-{i}" for i in range(self.config.jobs)]
            for d in new_dirs:
                d.mkdir()
            self.new_dirs = new_dirs
            start = time.monotonic()
            deadline = start + self.budget
            # Replay the corpus once first: inputs that already fail become findings at
            # once instead of crashing (and restarting) every worker while it loads.
            screened = self._screen(minimizer, timeout=max(5.0, self.budget / 3))
            stopping = screened and self.config.stop_on_first
            generation = [0] * self.config.jobs
            for i, d in enumerate(new_dirs):
                remaining = deadline - time.monotonic()
                if not stopping and remaining >= 1:
                    self._spawn(i, 0, remaining, d)
            open_runs = set(self.runs)
            while open_runs:
                now = time.monotonic()
                try:
                    key, line = self.queue.get(timeout=0.25)
                except queue.Empty:
                    key, line = None, None
                if key is not None and line is not None:
                    self.runs[key].feed(line, time.monotonic())
                elif key is not None:  # the worker closed its output: it is done
                    open_runs.discard(key)
                    proc = self.procs[key]
                    try:
                        run = self.runs[key]
                        run.returncode = proc.wait(timeout=30)
                    except subprocess.TimeoutExpired:
                        _kill(proc, signal.SIGKILL)
                        run.returncode = proc.wait()
                    found = self._on_exit(key, run, minimizer)
                    if found and self.config.stop_on_first:
                        stopping = True
                        for k in open_runs:
                            _kill(self.procs[k])
                    remaining = deadline - time.monotonic()
                    restart = found or (run.returncode != 0 and run.inited)
                    if restart and not stopping and remaining >= 2:
                        index = key[0]
                        generation[index] += 1
                        self.restarts += 1
                        self._spawn(index, generation[index], remaining, new_dirs[index])
                        open_runs.add((index, generation[index]))
                now = time.monotonic()
                if now > deadline + 30:  # a worker ignoring -max_total_time
                    for k in open_runs:
                        _kill(self.procs[k], signal.SIGKILL)
                self.progress.update(self._status(now, start))
            elapsed = min(time.monotonic(), deadline) - start
            self.progress.update(self._status(start + elapsed, start), force=True)
            self.progress.close()
            minimizer.shutdown(wait=True)
            for fut in self.pending:
                exc = fut.exception()
                if exc is not None:
                    self.errors.append(f"processing a finding failed: {exc}")
            self._merge([d for d in new_dirs if any(d.iterdir())])
        finally:
            for proc in self.procs.values():
                _kill(proc, signal.SIGKILL)
            minimizer.shutdown(wait=False, cancel_futures=True)
            shutil.rmtree(tmp, ignore_errors=True)
        runs = list(self.runs.values())
        return TargetResult(
            target=self.target,
            jobs=self.config.jobs,
            seconds=elapsed,
            execs=sum(r.total_execs for r in runs),
            cov=max((r.cov for r in runs), default=0),
            ft=max((r.ft for r in runs), default=0),
            corpus_before=corpus_before,
            corpus_after=count_files(self.working),
            findings=self.findings,
            restarts=self.restarts,
            errors=self.errors,
            candidate=self.candidate,
        )

    def _on_exit(self, key: tuple[int, int], run: RunStats, minimizer: ThreadPoolExecutor) -> bool:
        """Handle a finished worker run; True if it left a finding."""
        paths = [Path(p) for p in run.artifacts if Path(p).name.startswith(FINDING_PREFIXES)]
        if not paths:
            if run.returncode not in (0, None) and not run.inited:
                tail = [line for line in run.tail if line.strip()][-1:]
                reason = tail[0] if tail else f"exit status {run.returncode}"
                self.errors.append(f"worker {key[0]} failed to start: {reason}")
                self.progress.note(f"[{self.target}] worker {key[0]} failed to start: {reason}")
            return False
        failure = extract_failure(run.tail)
        for path in paths:
            path = path if path.is_absolute() else Path.cwd() / path
            self._register(path, failure, run.crash_reason, minimizer)
        return True

    def _register(
        self, path: Path, failure: str, reason: str | None, minimizer: ThreadPoolExecutor
    ) -> None:
        """A crashing input in ARTIFACTS: a new finding, or a duplicate of one."""
        if not path.exists():
            return
        self._quarantine(path.read_bytes())
        if str(path) in self.seen_artifacts:
            if str(path) in self.moved:  # a duplicate hit again: keep one copy
                path.unlink()
            return
        self.seen_artifacts.add(str(path))
        title = headline(failure) or (reason or "crash")
        with self.lock:
            first = self.by_title.get(title)
            if first is not None:
                dup_dir = self.artifacts / "duplicates"
                dup_dir.mkdir(exist_ok=True)
                moved = dup_dir / path.name
                shutil.move(str(path), moved)
                self.moved.add(str(path))
                first.duplicates.append(moved)
                return
            finding = Finding(self.target, path, failure=failure, size=path.stat().st_size)
            self.by_title[title] = finding
            self.findings.append(finding)
        self.progress.note(f"[{self.target}] finding: {title} -> {path}")
        self.pending.append(minimizer.submit(self._process, finding))

    def _screen(self, minimizer: ThreadPoolExecutor, timeout: float) -> bool:
        """Run every pool input through the target's check once, in a helper process;
        failing inputs become findings and leave the pool.  True if any failed."""
        if not any(self.pool.iterdir()):
            return False
        cmd = [self.config.python, "-m", "sanitizer.fuzzing.runner", "screen", self.target]
        out = self._helper([*cmd, str(self.pool)], timeout=timeout)
        found = False
        for line in out.splitlines():
            try:
                item = json.loads(line)
                source, failure = Path(item["path"]), str(item["failure"])
            except (ValueError, KeyError, TypeError):
                continue  # warnings and the like
            if not source.is_file():
                continue
            data = source.read_bytes()
            artifact = self.artifacts / f"crash-{sha1_hex(data)}"
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

    def _process(self, finding: Finding) -> None:
        """Minimize a finding, replay the minimized input and write its report.

        libFuzzer's ``-minimize_crash`` first; then a delta-debugging pass in a helper
        process that keeps the *same* failure (libFuzzer only keeps "it crashes", and its
        minimization is slow when the target starts slowly).  The result is replayed
        through the real target; if it does not fail the same way, libFuzzer's result
        (or the original input) is kept."""
        artifact = finding.artifact
        original = artifact.read_bytes()
        minimized = artifact.with_name(artifact.name + ".min")
        polished = artifact.with_name(artifact.name + ".shrink")
        first_failure = finding.failure
        wanted = headline(first_failure)
        if len(original) > 1:
            self._helper(
                minimize_command(
                    self.shim, artifact, minimized, max_time=self.config.minimize_time
                ),
                timeout=self.config.minimize_time + 30,
            )
        if not minimized.exists():
            shutil.copyfile(artifact, minimized)
        if wanted:
            shrink_cmd = [self.config.python, "-m", "sanitizer.fuzzing.runner", "shrink"]
            for source in (minimized, artifact):
                polished.unlink(missing_ok=True)
                self._helper(
                    [*shrink_cmd, self.target, str(source), str(polished), wanted],
                    timeout=self.config.minimize_time + 30,
                )
                if polished.exists():
                    break
        failure = ""
        if polished.exists():
            replay = self._helper([*self.base, str(polished)], timeout=120)
            failure = extract_failure(replay.splitlines())
            if headline(failure) == wanted:
                polished.replace(minimized)
            else:
                failure = ""
            polished.unlink(missing_ok=True)
        if not failure:
            replay = self._helper([*self.base, str(minimized)], timeout=120)
            failure = extract_failure(replay.splitlines())
        if not failure:  # the minimized input does not reproduce: keep the original
            shutil.copyfile(artifact, minimized)
        else:
            finding.failure = failure
        data = minimized.read_bytes()
        finding.minimized = minimized
        finding.minimized_size = len(data)
        report = artifact.with_name(artifact.name + ".txt")
        report.write_text(
            format_report(
                finding,
                data=data,
                original=original,
                candidate=self.candidate,
                reproduce=reproduce_command(self.base, minimized, self.candidate),
                original_failure=first_failure,
            ),
            encoding="utf-8",
        )
        finding.report = report

    def _helper(self, cmd: Sequence[str], timeout: float) -> str:
        """Run a helper (minimize, replay, merge); its merged output, "" on timeout."""
        proc = self._popen([self.config.python, *cmd] if cmd[0] == str(self.shim) else cmd)
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill(proc, signal.SIGKILL)
            proc.communicate()
            return ""
        finally:
            _kill(proc, signal.SIGKILL)
        return out

    def _merge(self, sources: Sequence[Path]) -> None:
        if not sources:
            return
        self.progress.note(f"[{self.target}] merging new corpus entries into {self.working}")
        scratch = self.tmp / "merge-artifacts"
        scratch.mkdir(exist_ok=True)
        out = self._helper(merge_command(self.shim, self.working, sources, scratch), timeout=300)
        if "MERGE-OUTER" not in out:
            # Merge could not run: keep every new unit rather than lose them.
            for src in sources:
                copy_missing(src, self.working)


def run_target(
    config: CampaignConfig, target: str, budget: float, progress: Progress
) -> TargetResult:
    return _Target(config, target, budget, progress).run()


def run_campaign(
    config: CampaignConfig,
    progress: Progress | None = None,
    on_result: Callable[[TargetResult], None] | None = None,
    stream: TextIO | None = None,
) -> list[TargetResult]:
    """Run every target of ``config`` in turn, splitting ``max_time`` between them."""
    config.validate()
    if progress is None:
        progress = Progress(stream or sys.stderr)
    budget = config.max_time / len(config.targets)
    results = []
    for target in config.targets:
        result = run_target(config, target, budget, progress)
        results.append(result)
        if on_result is not None:
            on_result(result)
        if result.findings and config.stop_on_first:
            break
    return results


# -- helper processes: replaying inputs through a target's check -------------------------


def shrink(data: bytes, fails: Callable[[bytes], bool], budget: int = 5000) -> bytes:
    """Delta debugging (ddmin, chunk removal): a shortest-found ``x`` with ``fails(x)``,
    given ``fails(data)``.  At most ``budget`` calls of ``fails``."""
    calls = 0

    def check(candidate: bytes) -> bool:
        nonlocal calls
        calls += 1
        return fails(candidate)

    if check(b""):
        return b""
    parts = 2
    while len(data) >= 2 and calls < budget:
        chunk = max(1, len(data) // parts)
        for start in range(0, len(data), chunk):
            candidate = data[:start] + data[start + chunk :]
            if calls >= budget:
                break
            if check(candidate):
                data = candidate
                parts = max(parts - 1, 2)
                break
        else:
            if chunk == 1:
                break
            parts = min(len(data), parts * 2)
    return data


def failure_text(exc: BaseException) -> str:
    """``Divergence: <report>`` then the traceback, as atheris prints an uncaught one."""
    trace = "".join(traceback.format_exception(exc)).rstrip("\n")
    return f"{type(exc).__name__}: {exc}\n{trace}"


def target_check(target: str) -> Callable[[bytes], None]:
    """The check a fuzz target runs, with ``$SANITIZER_FUZZ_CANDIDATE`` for decode."""
    from .checks import TARGETS, check_decode

    spec = os.environ.get(CANDIDATE_ENV, "")
    if target == "decode" and spec:
        from .candidate import load

        decoder = load(spec)
        return lambda data: check_decode(data, decoder)
    return TARGETS[target]


def _helper_main(argv: Sequence[str]) -> int:
    """``screen TARGET DIR``: one JSON line per failing file.  ``shrink TARGET IN OUT
    HEADLINE``: write to OUT a smaller input failing with the same headline."""
    mode, target, *rest = argv
    check = target_check(target)

    def fails_how(data: bytes) -> str | None:
        try:
            check(data)
        except Exception as exc:
            return failure_text(exc)
        return None

    if mode == "screen":
        for path in sorted(Path(rest[0]).iterdir()):
            if path.is_file():
                failure = fails_how(path.read_bytes())
                if failure is not None:
                    print(json.dumps({"path": str(path), "failure": failure}), flush=True)
        return 0
    if mode == "shrink":
        source, dest, wanted = Path(rest[0]), Path(rest[1]), rest[2]

        def fails(data: bytes) -> bool:
            failure = fails_how(data)
            return failure is not None and headline(failure) == wanted

        data = source.read_bytes()
        if fails(data):
            dest.write_bytes(shrink(data, fails))
            return 0
        return 1
    return 2


if __name__ == "__main__":
    raise SystemExit(_helper_main(sys.argv[1:]))
