"""``sanitizer check --jobs``: worker processes change the speed, never the output.

Run as real subprocesses on real trees: the same bytes on stdout and stderr and the same
exit status for one process and several, in every format; a closed pipe and Ctrl-C end
a parallel run as they end a serial one, and leave no worker behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from sanitizer.cli import _jobs
from tests.policy import source_samples as samples
from tests.support.cli_runner import (
    SANITIZER,
    CliResult,
    default_sigint,
    first_line_then_close,
    run_cli,
    server_pids,
)

pytestmark = pytest.mark.skipif(not _jobs.can_fork(), reason="workers need fork")


def cli(*args: str | Path) -> CliResult:
    return run_cli("check", "--progress", "never", *args)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Attacks, the legitimate corpus, and files for every other path of the gate."""
    samples.write(tmp_path / "attacks", samples.ATTACKS)
    samples.write(tmp_path / "legit", samples.LEGIT)
    for i in range(40):  # enough files for several chunks per worker
        (tmp_path / "many" / f"f{i:02}.py").parent.mkdir(exist_ok=True)
        (tmp_path / "many" / f"f{i:02}.py").write_text(f"x{i} = 'caf\u00e9 p\u043est post'\n")
    (tmp_path / "bad.txt").write_bytes(b"ok \xc0\xaf \xed\xa0\x80\n")
    (tmp_path / "big.txt").write_bytes(b"x" * 5000)  # over --max-bytes below: too-long
    (tmp_path / "lib.so").write_bytes(b"\x7fELF\x00\x00\xff\xfe")  # binary: skipped
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_output_and_status_do_not_depend_on_jobs(tree: Path, fmt: str) -> None:
    args = ("--policy", "SOURCE", "--format", fmt, "--max-bytes", "4096", "--limit", "3", tree)
    serial = cli("--jobs", "1", *args)
    assert serial.returncode == 1 and serial.stdout
    for jobs in ("2", "3"):
        parallel = cli("--jobs", jobs, *args)
        assert (parallel.returncode, parallel.stdout, parallel.stderr) == (
            serial.returncode,
            serial.stdout,
            serial.stderr,
        )


def test_other_policies_run_in_workers_too(tree: Path) -> None:
    serial = cli("-j", "1", "--policy", "TEXT", "--json", tree)
    parallel = cli("-j", "2", "--policy", "TEXT", "--json", tree)
    assert serial.returncode == 1
    assert (parallel.returncode, parallel.stdout, parallel.stderr) == (
        serial.returncode,
        serial.stdout,
        serial.stderr,
    )


def test_a_negative_jobs_is_a_usage_error(tree: Path) -> None:
    result = cli("--jobs", "-1", "--policy", "SOURCE", tree)
    assert result.returncode == 2 and b"--jobs" in result.stderr


def test_automatic_jobs_start_workers_only_for_much_data() -> None:
    big = _jobs.AUTO_MIN_BYTES
    assert _jobs.choose(0, 10_000, big - 1) == 1
    assert 1 <= _jobs.choose(0, 10_000, big) <= _jobs.MAX_AUTO_JOBS
    assert _jobs.choose(0, 1, big) == 1  # one file: nothing to share out
    assert _jobs.choose(4, 3, 0) == 3 and _jobs.choose(4, 1, 0) == 1
    assert _jobs.choose(1, 99, big) == 1


def _square_all(items: Sequence[int]) -> list[tuple[int, int]]:
    """Each item squared, with the process that did it; 13 fails."""
    if 13 in items:
        raise ValueError("thirteen")
    return [(i * i, os.getpid()) for i in items]


@pytest.mark.parametrize(("jobs", "chunk"), [(1, 3), (2, 1), (2, 4), (3, 5), (4, 50)])
def test_ordered_gives_each_chunk_in_order_and_shares_them_out(jobs: int, chunk: int) -> None:
    items = list(range(14, 60))
    results = list(_jobs.ordered(_square_all, items, jobs, chunk))
    assert [len(r) for r in results] == [len(items[i : i + chunk]) for i in range(0, 46, chunk)]
    assert [sq for r in results for sq, _ in r] == [i * i for i in items]
    pids = [{pid for _, pid in r} for r in results]
    owner = _jobs.owners(len(results), jobs)  # round-robin, the last tenth to workers
    assert [p == {os.getpid()} for p in pids] == [w == 0 for w in owner]
    workers = {pid for p in pids for pid in p} - {os.getpid()}
    assert len(workers) == min(jobs, len(results)) - 1
    assert not any(os.path.exists(f"/proc/{pid}") for pid in workers)  # reaped


def test_a_failing_worker_is_an_error_in_order_and_leaves_no_process() -> None:
    items = list(range(20))  # chunk 3 (items 12..15, worker 1) fails
    seen = []
    with pytest.raises(RuntimeError, match="worker 1 failed: ValueError: thirteen"):
        for result in _jobs.ordered(_square_all, items, 2, 4):
            seen.append(result)
    assert len(seen) == 3  # chunks 0, 1, 2 came first
    assert _children(os.getpid()) == []


def _children(pid: int) -> list[int]:
    """The child processes of ``pid`` (the command server of ``run_cli`` aside)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split() if int(p) not in server_pids()]
    except OSError:
        return []


def test_broken_pipe_ends_a_parallel_run_quietly(tree: Path) -> None:
    for i in range(300):  # more output than a pipe holds
        (tree / "more" / f"m{i:03}.py").parent.mkdir(exist_ok=True)
        (tree / "more" / f"m{i:03}.py").write_text("\u200b\n" * 20)
    code, err = first_line_then_close("check", "-j", "2", "--policy", "SOURCE", str(tree))
    assert code == 141
    assert b"Traceback" not in err and b"Broken pipe" not in err


@pytest.mark.parametrize("to_group", [False, True], ids=["kill-INT", "terminal-Ctrl-C"])
def test_ctrl_c_stops_the_workers_and_prints_one_line(tmp_path: Path, to_group: bool) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it blocks until a writer comes: the scan stops mid-way
    names = [tmp_path / f"f{i}.txt" for i in range(8)]
    for name in names:
        name.write_text("ok\n")
    cmd = [*SANITIZER, "check", "-j", "2", "--policy", "SOURCE"]
    cmd += [str(p) for p in [*names, fifo]]
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    with subprocess.Popen(  # type: ignore[call-overload]
        cmd, start_new_session=True, preexec_fn=default_sigint, **pipes
    ) as proc:
        deadline = time.monotonic() + 60  # a loaded machine starts slowly
        while not (workers := _children(proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)  # by now blocked on the FIFO (a signal earlier ends it the same way)
        if to_group:  # a terminal sends SIGINT to the whole foreground process group
            os.killpg(proc.pid, signal.SIGINT)
        else:  # `kill -INT`: the parent alone
            proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # never hang the suite: fail
            os.killpg(proc.pid, signal.SIGKILL)
            raise
    assert proc.returncode == 130
    assert err.decode().splitlines() == ["sanitizer: interrupted"]
    assert out == b""
    assert workers, "the run had started its workers"
    for pid in workers:
        assert not os.path.exists(f"/proc/{pid}") or _zombie(pid)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True
