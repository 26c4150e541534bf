"""Instructions a piece of code costs, counted by valgrind's callgrind: for the tests whose
point is a cost ratio (linear, not quadratic), without a clock.

Wall time on a shared 2-core machine is noise; instruction counts are repeatable for the
same interpreter and inputs whatever else the machine is doing.  One valgrind process
runs the set-up once (interpreter start-up, imports, warming every path), then forks one
child per workload (two at a time) and one that does nothing: callgrind counts each child
on its own, from the fork on top of what the parent had counted, so a child's count less
the idle child's is its workload's cost.  bench/bench_instructions.py measures per-call costs
against another checkout; this module only serves the tests.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

VALGRIND = shutil.which("valgrind")
needs_callgrind = pytest.mark.skipif(
    VALGRIND is None or not hasattr(os, "fork"),
    reason="valgrind is not installed (apt-get install -y valgrind)",
)

_DRIVER = """
import os, sys, traceback
{setup}
WORKLOADS = {workloads!r}
running = {{}}
def reap():
    pid, status = os.wait()
    print(running.pop(pid), pid, status, flush=True)
for name, code in [("", "pass"), *WORKLOADS.items()]:
    if len(running) >= {jobs}:
        reap()
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        try:
            exec(code)
        except BaseException:
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    running[pid] = name
while running:
    reap()
"""

# Children counted at once: each is a valgrind process of its own, counted on its own, so
# running two side by side changes no count, and the second core shortens the wait.
JOBS = max(1, min(2, os.cpu_count() or 1))


def instructions(
    setup: str, workloads: dict[str, str], tmp_path: Path, timeout: float = 3600
) -> dict[str, int]:
    """Instructions each of ``workloads`` (name: Python statements) costs after ``setup``
    (Python statements whose names the workloads use), counted by callgrind."""
    assert VALGRIND is not None
    script = _DRIVER.format(setup=textwrap.dedent(setup), workloads=workloads, jobs=JOBS)
    proc = subprocess.run(
        [
            VALGRIND,
            "--tool=callgrind",
            f"--callgrind-out-file={tmp_path}/callgrind.%p",
            "--dump-instr=no",
            "--dump-line=no",
            sys.executable,
            "-c",
            script,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    counts: dict[str, int] = {}
    for line in proc.stdout.splitlines():
        name, pid, status = line.rsplit(" ", 2)
        assert status == "0", f"workload {name!r} failed: {proc.stderr[-3000:]}"
        text = (tmp_path / f"callgrind.{pid}").read_text(errors="replace")
        found = re.search(r"^(?:totals|summary): (\d+)", text, re.MULTILINE)
        assert found is not None, text[:500]
        counts[name] = int(found.group(1))
    idle = counts.pop("")
    return {name: count - idle for name, count in counts.items()}
