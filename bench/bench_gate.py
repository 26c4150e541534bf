"""The SOURCE gate against ruff and anti-trojan-source, on the same files.

1. Speed and memory: CPython's standard library as installed here (the stdlib folder's
   ``*.py`` files, site-packages left out), given as the same explicit file list to

   * ``sanitizer check --policy SOURCE --format json``,
   * ``ruff check --isolated --no-cache --output-format sarif`` with its Unicode rules
     only (PLE2502 bidi; PLE2510, PLE2512-2515 control and invisible characters;
     RUF001-003 ambiguous characters),
   * ``anti-trojan-source --json`` (npm; ``npm install --prefix bench/node
     anti-trojan-source``, gitignored);

   after one warm-up run each (page cache; Python's bytecode cache, in a temporary
   ``PYTHONPYCACHEPREFIX`` even where ``PYTHONDONTWRITEBYTECODE`` is set, as for an
   installed wheel), the tools taking turns run after run (so that a busy spell slows
   them alike): wall time best of 5, CPU time (user + sys, the tool and its workers) of
   that run, peak RSS of the largest process (``resource.getrusage(RUSAGE_CHILDREN)`` in
   a fresh wrapper process per run), findings counted from each tool's output.  ruff
   uses every core, sanitizer one process per core from 16 MiB on (``--jobs``), and
   ``--jobs 1`` is shown too.  ruff is run as its binary (a pyenv shim is a shell script
   that would add its own start-up to ruff's time).  On a shared machine, compare CPU
   times as well as wall times.
   Goals: >= 2x faster than ruff, >= 20x faster than anti-trojan-source, < 100 MiB.
2. What each tool catches and wrongly flags on tests/policy/source_samples.py: the Trojan Source
   attacks (Python, C, JavaScript, Rust), payloads, ill-formed files, and the legitimate
   multilingual corpus (ruff reads Python only, so it gets the ``.py`` files).
3. With ``--instructions``: instruction counts of the gate (valgrind's callgrind, which a
   busy machine does not disturb): with ``--jobs 1``, and with ``--jobs 2`` split at the
   fork into the serial start (imports, walk, warm-up), this process's part after it and
   the worker's; the critical path (start + the longer part) is what wall time follows.

Run: ``python bench/bench_gate.py`` (``--runs N``, ``--files-from LIST``,
``--python PY``: run ``sanitizer`` with another interpreter; ``--instructions``).  The
figures in the README use a regular install, as the Quick start makes one
(``python -m venv /tmp/gate && /tmp/gate/bin/pip install .`` from a temporary folder,
then ``python bench/bench_gate.py --python /tmp/gate/bin/python``): an editable
install's import hook, and any ``.pth`` files of the development
environment, add interpreter start-up that a user's install does not have.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import _figures

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.policy import source_samples as samples  # noqa: E402

ATS = ROOT / "bench/node/node_modules/.bin/anti-trojan-source"
RUFF_RULES = "PLE2502,PLE2510,PLE2512,PLE2513,PLE2514,PLE2515,RUF001,RUF002,RUF003"
MEASURE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "p = subprocess.run(sys.argv[2:], stdin=subprocess.PIPE, stdout=open(sys.argv[1], 'wb'),"
    " stderr=subprocess.DEVNULL)\n"
    "t = time.perf_counter() - t\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(t, u.ru_utime + u.ru_stime, u.ru_maxrss, p.returncode)\n"
)


def stdlib_files() -> list[str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    site = stdlib / "site-packages"
    return sorted(str(p) for p in stdlib.rglob("*.py") if site not in p.parents and p.is_file())


def ruff_binary() -> str | None:
    """ruff's executable: the one installed beside this Python, else the one on PATH
    (through ``pyenv which`` when that is a pyenv shim)."""
    beside = Path(sys.executable).with_name("ruff")
    if beside.is_file():
        return str(beside)
    found = shutil.which("ruff")
    if found and "/shims/" in found and shutil.which("pyenv"):
        real = subprocess.run(["pyenv", "which", "ruff"], capture_output=True, text=True)
        if real.returncode == 0 and real.stdout.strip():
            return real.stdout.strip()
    return found


OURS_PYTHON = sys.executable  # --python


def commands(files: list[str]) -> dict[str, list[str]]:
    ours = [OURS_PYTHON, "-m", "sanitizer", "check", "--policy", "SOURCE", "--progress",
            "never", "--format", "json"]  # fmt: skip
    cmds = {
        "sanitizer SOURCE": [*ours, *files],
        "sanitizer SOURCE --jobs 1": [*ours, "--jobs", "1", *files],
        "ruff (Unicode rules)": [ruff_binary() or "ruff", "check", "--isolated", "--no-cache",
                                 "--exit-zero", "--select", RUFF_RULES, "--output-format",
                                 "sarif", *files],
    }  # fmt: skip
    if ATS.exists():
        cmds["anti-trojan-source"] = [str(ATS), "--json", *files]
    return cmds


def measure(cmd: list[str], out: Path) -> tuple[float, float, int, int]:
    """Wall seconds, CPU seconds, peak RSS in KiB and exit status of one run of ``cmd``,
    run in ``out``'s (temporary) folder: from this checkout, ``python -m sanitizer``
    would import the checkout's package instead of the one installed for ``--python``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(out.parent / "pycache")
    proc = subprocess.run(
        [sys.executable, "-c", MEASURE, str(out), *cmd], capture_output=True, text=True,
        check=True, cwd=out.parent, env=env,
    )  # fmt: skip
    seconds, cpu, rss, code = proc.stdout.split()
    return float(seconds), float(cpu), int(rss), int(code)


def findings(tool: str, out: Path) -> dict[str, int]:
    """``{path: findings}`` from a tool's output (sanitizer: the failing ones)."""
    counts: dict[str, int] = {}
    raw = out.read_bytes()
    if tool.startswith("sanitizer"):
        for line in raw.decode("utf-8").splitlines():
            record = json.loads(line)
            if record.get("fails"):
                counts[record["path"]] = counts.get(record["path"], 0) + 1
    elif tool.startswith("ruff"):
        for result in json.loads(raw)["runs"][0]["results"]:
            if result["ruleId"] == "invalid-syntax":
                continue
            uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            path = uri.removeprefix("file://")
            counts[path] = counts.get(path, 0) + 1
    else:
        text = raw.decode("utf-8", "replace")
        for entry in json.loads(text[text.index("[") :]) if "[" in text else []:
            counts[entry["file"]] = len(entry["findings"])
    return counts


def speed(files: list[str], runs: int, table: _figures.Tables) -> str:
    """Prints the table into ``table``; returns what was scanned and the speed-ups."""
    size = sum(os.path.getsize(f) for f in files)
    what = f"{len(files)} files, {size / 2**20:.1f} MiB ({Path(files[0]).parent})"
    print(f"## {what}\n")
    table.head(
        [
            "tool",
            f"wall time (best of {runs})",
            "CPU time (that run)",
            "peak RSS",
            "findings",
            "files with findings",
        ]
    )
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        for cmd in commands(files).values():
            measure(cmd, out)  # warm-up: page cache, bytecode cache
        tools = commands(files)
        timings: dict[str, list[tuple[float, float, int, int]]] = {tool: [] for tool in tools}
        counts: dict[str, dict[str, int]] = {}
        for _ in range(runs):  # in turns: a busy spell on a shared machine hits every tool
            for tool, cmd in tools.items():
                timings[tool].append(measure(cmd, out))
                counts[tool] = findings(tool, out)
        for tool in tools:
            best, cpu = min(t[:2] for t in timings[tool])
            rss = max(t[2] for t in timings[tool])
            results[tool] = best
            table.row(
                tool,
                f"{best:.2f} s",
                f"{cpu:.2f} s",
                f"{rss / 1024:.0f} MiB",
                sum(counts[tool].values()),
                len(counts[tool]),
            )
    ours = results["sanitizer SOURCE"]
    faster = []
    for tool, seconds in results.items():
        if not tool.startswith("sanitizer"):
            faster.append(f"{seconds / ours:.1f}x faster than {tool}")
            print(f"\nsanitizer is {faster[-1]}", end="")
    print("\n")
    return f"{what}; sanitizer is {', '.join(faster)}"


def side_by_side() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        attacks = samples.write(Path(tmp) / "attacks", samples.ATTACKS)
        legit = samples.write(Path(tmp) / "legit", samples.LEGIT)
        paths = [str(p) for p in attacks + legit]
        caught: dict[str, dict[str, int]] = {}
        for tool, cmd in commands(paths).items():
            if tool.endswith("--jobs 1"):
                continue
            if tool.startswith("ruff"):
                cmd = [c for c in cmd if not c.startswith(tmp) or c.endswith(".py")]
            out = Path(tmp) / "out"
            measure(cmd, out)
            caught[tool] = findings(tool, out)
        tools = list(caught)
        print("## Trojan Source samples and legitimate corpus (findings that fail / flag)\n")
        print("| file | expected | " + " | ".join(tools) + " |")
        print("| --- | --- |" + " --- |" * len(tools))
        totals = {t: [0, 0, 0, 0] for t in tools}  # caught, missed, false alarms, clean
        for path in attacks + legit:
            attack = path in attacks
            row = [path.name, "attack" if attack else "legitimate"]
            for tool in tools:
                if tool.startswith("ruff") and path.suffix != ".py":
                    row.append("n/a")
                    continue
                n = caught[tool].get(str(path), 0)
                if attack:
                    totals[tool][0 if n else 1] += 1
                    row.append(f"caught ({n})" if n else "**missed**")
                else:
                    totals[tool][2 if n else 3] += 1
                    row.append(f"**flagged ({n})**" if n else "ok")
            print("| " + " | ".join(row) + " |")
        print()
        for tool, (hit, miss, false, clean) in totals.items():
            print(f"- {tool}: caught {hit}/{hit + miss} attacks, flagged {false}/{false + clean} "
                  "legitimate files")  # fmt: skip
        print(
            f"\n(the legitimate {samples.LEGIT_DECLARED} declares latin-1: sanitizer's one "
            "expected finding, `--declared-encoding allow` passes it)"
        )


def instructions(files: list[str]) -> None:
    """Callgrind instruction counts of the gate, --jobs 1 and --jobs 2 (see the docstring)."""
    if shutil.which("valgrind") is None:
        print("bench_gate: --instructions needs valgrind\n", file=sys.stderr)
        return
    ours = [OURS_PYTHON, "-m", "sanitizer", "check", "--policy", "SOURCE", "--progress",
            "never", "--format", "json"]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")

        def run(cmd: list[str]) -> None:
            out, err = subprocess.DEVNULL, subprocess.DEVNULL
            subprocess.run(cmd, env=env, cwd=tmp, stdout=out, stderr=err, check=False)

        run([*ours, *files])  # the bytecode cache
        counts: dict[str, int] = {}
        for jobs in ("1", "2"):
            out = Path(tmp) / f"j{jobs}"
            out.mkdir()
            cmd = ["valgrind", "--tool=callgrind", "--dump-before=*os_fork*",
                   f"--callgrind-out-file={out}/cg.%p", *ours, "--jobs", jobs, *files]  # fmt: skip
            run(cmd)
            for dump in out.iterdir():
                text = dump.read_text(errors="replace")
                total = int(text.split("\nsummary: ", 1)[1].split()[0])
                counts[f"{jobs}:{dump.name.removeprefix('cg.')}"] = total
        one = sum(v for k, v in counts.items() if k.startswith("1:"))
        two = {k[2:]: v for k, v in counts.items() if k.startswith("2:")}
        parent = next((k[:-2] for k in two if k.endswith(".1")), None)
        print("## Instructions (callgrind), sanitizer SOURCE\n")
        print(f"- --jobs 1: {one / 1e6:.0f}M")
        if parent is None:
            print("- --jobs 2: no worker was forked\n")
            return
        start, rest = two[f"{parent}.1"], two[parent]
        workers = [v for k, v in two.items() if not k.startswith(parent)]
        print(f"- --jobs 2: start {start / 1e6:.0f}M, then this process {rest / 1e6:.0f}M "
              f"and the worker(s) {', '.join(f'{w / 1e6:.0f}M' for w in workers)}; "
              f"critical path {(start + max([rest, *workers])) / 1e6:.0f}M\n")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files-from", help="a file listing the files to scan, one a line")
    parser.add_argument("--python", help="the interpreter that runs sanitizer (default: this)")
    parser.add_argument(
        "--instructions", action="store_true", help="also count instructions with callgrind"
    )
    _figures.add_argument(parser)
    args = parser.parse_args()
    global OURS_PYTHON
    OURS_PYTHON = args.python or sys.executable
    if ruff_binary() is None:
        sys.exit("bench_gate: ruff is not on PATH (pip install ruff)")
    if not ATS.exists():
        print("bench_gate: anti-trojan-source missing: npm install --prefix bench/node "
              "anti-trojan-source\n", file=sys.stderr)  # fmt: skip
    if args.files_from:
        files = Path(args.files_from).read_text().split("\n")
        files = [f for f in files if f]
    else:
        files = stdlib_files()
    table = _figures.Tables()
    what = speed(files, args.runs, table)
    if args.write_docs:
        _figures.write(
            "gate",
            summary="the SOURCE gate against ruff's Unicode rules and anti-trojan-source, the "
            "same file list for each tool, the tools taking turns.",
            goals="2x ruff in wall time; 20x anti-trojan-source; RSS < 100 MiB.",
            tables=table.tables,
            notes=[f"{what}."],
            note=f"sanitizer run by {OURS_PYTHON}",
        )
    if args.instructions:
        instructions(files)
    side_by_side()


if __name__ == "__main__":
    main()
