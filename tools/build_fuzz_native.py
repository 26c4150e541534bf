#!/usr/bin/env python3
"""Build the C extensions for fuzzing (clang, libFuzzer coverage, ASan, UBSan) and run
fuzz targets against them, without touching the in-place extensions the rest of the tree uses.

The default extension gives libFuzzer no coverage inside C and no memory checking, so a
buffer overread in the DFA runner, the policy scan or percent-decoding would go unseen.
This follows atheris' guide to native extensions (atheris/native_extension_fuzzing.md):
compile with ``-fsanitize=fuzzer-no-link,address,undefined`` and preload atheris' ASan
runtime, which also carries libFuzzer and the UBSan handlers.

    python tools/build_fuzz_native.py build                    # -> build/fuzz-native/
    python tools/build_fuzz_native.py run -- python fuzz/fuzz_web.py corpus/web -runs=1000
    python tools/build_fuzz_native.py env                      # the variables, for a shell
    python tools/build_fuzz_native.py build --selftest-oob --out /tmp/broken   # see below
    python tools/build_fuzz_native.py campaign --seconds 6        # every target, ASan+UBSan (as CI)
    python tools/build_fuzz_native.py campaign --seconds 120 --compare   # figures

``build`` compiles with ``python setup.py build_ext`` (so every C file of every extension
setup.py lists: ``sanitizer._speedups`` and ``sanitizer.web._speedups``) into ``OUT/lib``,
then makes ``OUT/site/sanitizer``: a package of symbolic links to the source tree's modules
with the instrumented ``.so`` files in place of the in-place ones (``sanitizer/web`` is a
folder of links too, for its own extension).  ``run`` refreshes those links
and runs a command with ``PYTHONPATH=OUT/site`` (it comes before the editable install on
``sys.path``), ``LD_PRELOAD`` of the runtime, ``PYTHONMALLOC=malloc`` (ASan sees each
Python object as its own allocation; pymalloc's arenas would hide overreads) and
``ASAN_OPTIONS=detect_leaks=0`` (the interpreter keeps memory at exit on purpose).  It
checks first that the instrumented extensions are the ones imported.

``campaign`` runs every ``fuzz/fuzz_*.py`` for ``--seconds`` from a copy of its seed
corpus under the instrumented build (CI: ``.ci/run``) and prints executions, exec/s and
coverage per target; ``--compare`` runs each also without it (the in-place extension),
interleaved, for the README's figures.  Exit 1 when a target fails (a finding).

``--selftest-oob`` defines ``SANITIZER_FUZZ_SELFTEST_OOB``: percent.c (the web extension)
then reads one byte
past its input for a value ending in ``%``, an off-by-one that tests/fuzzing/test_native.py
expects ASan to catch within seconds.  Never use that build for anything else.

Requires clang (``apt-get install -y clang llvm``; llvm for ``llvm-symbolizer``) and
atheris.  Exit status: the command's, 2 for a usage or build error.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "sanitizer"
DEFAULT_OUT = ROOT / "build" / "fuzz-native"
SANITIZE = "-fsanitize=fuzzer-no-link,address,undefined"
# UBSan stops at the first report (a crash libFuzzer saves), instead of printing and going on.
CFLAGS = (SANITIZE, "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g", "-O1")
SELFTEST_MACRO = "SANITIZER_FUZZ_SELFTEST_OOB"
ASAN_OPTIONS = "detect_leaks=0:allocator_may_return_null=1:symbolize=1"
UBSAN_OPTIONS = "print_stacktrace=1:halt_on_error=1"


class BuildError(Exception):
    """Something needed to build or run is missing or failed; ``str()`` says what."""


# The extensions setup.py builds (its EXTENSIONS), each the ``_speedups`` of a package.
EXTENSIONS = ("sanitizer._speedups", "sanitizer.web._speedups")


def extension_name(python: str = sys.executable) -> str:
    """``_speedups`` plus the interpreter's extension suffix (its ABI tag)."""
    if python == sys.executable:
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
    else:
        code = "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"
        suffix = subprocess.run(
            [python, "-c", code], capture_output=True, text=True, check=True
        ).stdout.strip()
    return f"_speedups{suffix}"


def extension_paths(root: Path, python: str = sys.executable) -> list[Path]:
    """Where each extension's library is under ``root`` (a build's lib, or a site)."""
    name = extension_name(python)
    return [root.joinpath(*ext.split(".")[:-1], name) for ext in EXTENSIONS]


def runtime_library(python: str = sys.executable) -> Path:
    """atheris' ASan runtime with libFuzzer and UBSan (atheris.path()/asan_with_fuzzer.so)."""
    code = "import atheris; print(atheris.path())"
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError("atheris is not installed: pip install 'utf8-sanitizer[fuzz]'")
    path = Path(proc.stdout.strip()) / "asan_with_fuzzer.so"
    if not path.is_file():
        raise BuildError(f"atheris has no ASan runtime at {path}")
    return path


def build(out: Path, *, selftest_oob: bool = False, python: str = sys.executable) -> list[Path]:
    """Compile the instrumented extensions into ``out``; returns their paths."""
    clang = shutil.which("clang")
    if clang is None:
        raise BuildError("clang not found: apt-get install -y clang llvm")
    cflags = [*CFLAGS, *([f"-D{SELFTEST_MACRO}"] if selftest_oob else [])]
    env = {
        **os.environ,
        "CC": clang,
        "LDSHARED": f"{clang} -shared",
        "CFLAGS": " ".join(cflags),
        "LDFLAGS": SANITIZE,
    }
    shutil.rmtree(out / "tmp", ignore_errors=True)  # no stale object from the other mode
    cmd = [python, "setup.py", "-q", "build_ext", "--force"]
    cmd += ["--build-temp", str(out / "tmp"), "--build-lib", str(out / "lib")]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    built = extension_paths(out / "lib", python)
    if proc.returncode != 0 or not all(path.is_file() for path in built):
        raise BuildError(f"build failed:\n{proc.stdout}{proc.stderr}")
    (out / "MODE").write_text("selftest-oob\n" if selftest_oob else "fuzz\n")
    link_package(out, python)
    return built


def link_package(out: Path, python: str = sys.executable) -> Path:
    """``OUT/site/sanitizer``: links to every module of the source package, and the
    instrumented extensions in place of the in-place ones (a package holding one is a
    folder of links itself).  Returns ``OUT/site``."""
    site = out / "site"
    built = extension_paths(out / "lib", python)
    if not all(path.is_file() for path in built):
        raise BuildError(f"no instrumented extensions in {out}: run the build first")
    folders = {path.parent.relative_to(out / "lib") for path in built}
    for folder in sorted(folders, key=lambda f: len(f.parts)):
        package = site / folder
        if package.is_symlink():  # linked whole by the level above (an older layout)
            package.unlink()
        package.mkdir(parents=True, exist_ok=True)
        for entry in package.iterdir():  # links to modules since removed, an older .so
            if entry.is_symlink() or entry.name.startswith("_speedups"):
                entry.unlink()
        source = ROOT / folder
        for entry in source.iterdir():
            if entry.name.startswith("_speedups") and entry.name.endswith(".so"):
                continue
            if entry.name == "__pycache__" or folder / entry.name in folders:
                continue
            (package / entry.name).symlink_to(entry)
    for path in built:
        shutil.copy2(path, site / path.relative_to(out / "lib"))
    return site


def fuzz_env(
    out: Path, python: str = sys.executable, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment that runs a target against the instrumented build in ``out``."""
    env = dict(os.environ if base is None else base)
    site = link_package(out, python)
    paths = [str(site), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["LD_PRELOAD"] = str(runtime_library(python))
    env["PYTHONMALLOC"] = "malloc"
    env["ASAN_OPTIONS"] = env.get("SANITIZER_FUZZ_ASAN_OPTIONS", ASAN_OPTIONS)
    env["UBSAN_OPTIONS"] = UBSAN_OPTIONS
    env.pop("SANITIZER_PURE_PYTHON", None)  # the point is to run the C paths
    symbolizer = shutil.which("llvm-symbolizer")
    if symbolizer:
        env["ASAN_SYMBOLIZER_PATH"] = symbolizer
    return env


def check_picked(env: Mapping[str, str], out: Path, python: str = sys.executable) -> None:
    """Fail unless both extensions import from ``out`` under ``env``, and are used."""
    code = (
        "import sanitizer._native as n, sanitizer.web._native as w; "
        "print(n.BACKEND, w.BACKEND, n.speedups.__file__, w.speedups.__file__)"
    )
    # (cwd: the build dir, since ``python -c`` puts the cwd first on ``sys.path``)
    proc = subprocess.run(
        [python, "-c", code], cwd=out, env=dict(env), capture_output=True, text=True
    )
    words = proc.stdout.split()
    if (
        proc.returncode != 0
        or len(words) != 4
        or words[:2] != ["c", "c"]
        or not all(w.startswith(str(out)) for w in words[2:])
    ):
        raise BuildError(
            f"the instrumented extensions are not the ones imported: {proc.stdout}{proc.stderr}"
        )


# -- short campaigns: every target, with and without the instrumented build -----------------


@dataclass
class CampaignRun:
    target: str
    native: bool
    returncode: int
    execs: int
    seconds: float
    cov: int
    ft: int
    tail: str


_DONE = re.compile(r"^#(\d+)\s+(?:DONE|pulse|NEW|REDUCE|INITED)\s+cov: (\d+) ft: (\d+)", re.M)
_EXECS = re.compile(r"stat::number_of_executed_units: (\d+)")


def _options(target: str) -> list[str]:
    """libFuzzer flags of ``fuzz/fuzz_TARGET.options`` (max_len, timeout, ...)."""
    path = ROOT / "fuzz" / f"fuzz_{target}.options"
    flags = []
    if path.is_file():
        for line in path.read_text().splitlines():
            key, sep, value = line.partition("=")
            if sep and not line.lstrip().startswith("#"):
                flags.append(f"-{key.strip()}={value.strip()}")
    return flags


def run_target(target: str, seconds: int, env: Mapping[str, str], work: Path) -> CampaignRun:
    """One libFuzzer process on a copy of the target's seeds for ``seconds``."""
    native = "LD_PRELOAD" in env
    corpus = work / f"{target}-{'native' if native else 'plain'}"
    shutil.rmtree(corpus, ignore_errors=True)
    seeds = ROOT / "corpus" / target
    if seeds.is_dir():
        shutil.copytree(seeds, corpus)
    else:
        corpus.mkdir(parents=True)
    cmd = [sys.executable, str(ROOT / "fuzz" / f"fuzz_{target}.py"), str(corpus)]
    cmd += [f"-max_total_time={seconds}", "-print_final_stats=1", f"-artifact_prefix={work}/"]
    cmd += [f"-dict={ROOT / 'corpus' / 'utf8.dict'}", *_options(target)]
    started = time.monotonic()
    proc = subprocess.run(
        cmd, cwd=ROOT, env=dict(env), capture_output=True, text=True, timeout=seconds + 600
    )
    elapsed = time.monotonic() - started
    output = proc.stdout + proc.stderr
    progress = _DONE.findall(output)
    execs = _EXECS.search(output)
    cov, ft = (int(progress[-1][1]), int(progress[-1][2])) if progress else (0, 0)
    return CampaignRun(
        target,
        native,
        proc.returncode,
        int(execs.group(1)) if execs else 0,
        elapsed,
        cov,
        ft,
        output[-3000:],
    )


def record(runs: Sequence[CampaignRun], log: Path, note: str = "") -> None:
    """Append each run to the record of campaigns (``fuzz/campaigns.jsonl``, the format of
    ``sanitizer._fuzzing.ledger``), with the build it ran under."""
    from sanitizer._fuzzing import ledger

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], capture_output=True, text=True, cwd=ROOT).stdout

    commit = git("rev-parse", "--short", "HEAD").strip()
    commit += "+dirty" if git("status", "--porcelain", "--", "sanitizer", "fuzz").strip() else ""
    for run in runs:
        line = {
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "target": run.target,
            "candidate": None,
            "jobs": 1,
            "seconds": round(run.seconds, 1),
            "execs": run.execs,
            "cov": run.cov,
            "ft": run.ft,
            "findings": [] if run.returncode == 0 else [f"libFuzzer exit {run.returncode}"],
            "incomplete": None,
            "commit": commit,
            "python": platform.python_version(),
            "build": "asan-ubsan-coverage" if run.native else "plain",
            "note": note,
        }
        ledger.append(log, line)


def campaign(
    out: Path,
    seconds: int,
    compare: bool,
    targets: Sequence[str],
    log: Path | None = None,
    note: str = "",
) -> int:
    native_env = fuzz_env(out)
    check_picked(native_env, out)
    plain_env = {k: v for k, v in os.environ.items() if k != "SANITIZER_PURE_PYTHON"}
    work = Path(tempfile.mkdtemp(prefix="fuzz-native-"))
    runs: list[CampaignRun] = []
    try:
        for target in targets:
            runs.append(run_target(target, seconds, native_env, work))
            if compare:
                runs.append(run_target(target, seconds, plain_env, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if log is not None:
        record(runs, log, note)
    print("| target | build | time | execs | exec/s | cov | ft | result |")
    print("|---|---|---|---|---|---|---|---|")
    for run in runs:
        rate = run.execs / seconds if seconds else 0
        build_name = "ASan+UBSan+cov" if run.native else "plain"
        result = "ok" if run.returncode == 0 else f"FAILED ({run.returncode})"
        print(
            f"| {run.target} | {build_name} | {seconds}s | {run.execs:,} | {rate:,.0f} "
            f"| {run.cov} | {run.ft} | {result} |"
        )
    failed = [run for run in runs if run.returncode != 0]
    for run in failed:
        print(f"\n--- {run.target} ({'native' if run.native else 'plain'}) ---\n{run.tail}")
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="build directory")
    parser.add_argument("--python", default=sys.executable, help="interpreter to build for")
    sub = parser.add_subparsers(dest="command", required=True)
    build_cmd = sub.add_parser("build", help="compile the instrumented extensions")
    build_cmd.add_argument(
        "--selftest-oob", action="store_true", help=f"define {SELFTEST_MACRO} (tests only)"
    )
    run_cmd = sub.add_parser("run", help="run a command against the instrumented build")
    run_cmd.add_argument("cmd", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    sub.add_parser("env", help="print the environment as shell assignments")
    campaign_cmd = sub.add_parser("campaign", help="every target briefly, under the build")
    campaign_cmd.add_argument("--seconds", type=int, default=15, help="per target and build")
    campaign_cmd.add_argument("--compare", action="store_true", help="also without the build")
    campaign_cmd.add_argument(
        "--record",
        type=Path,
        nargs="?",
        const=ROOT / "fuzz" / "campaigns.jsonl",
        help="append each run to the record of campaigns (default fuzz/campaigns.jsonl)",
    )
    campaign_cmd.add_argument("--note", default="", help="a note stored with each record")
    campaign_cmd.add_argument("targets", nargs="*", help="default: every fuzz/fuzz_*.py")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    try:
        if args.command == "build":
            built = build(out, selftest_oob=args.selftest_oob, python=args.python)
            print("built " + ", ".join(map(str, built)))
            check_picked(fuzz_env(out, args.python), out, args.python)
            print(f"run with: python {Path(__file__).name} --out {out} run -- COMMAND")
            return 0
        if args.command == "campaign":
            every = sorted(p.stem.removeprefix("fuzz_") for p in (ROOT / "fuzz").glob("fuzz_*.py"))
            unknown = set(args.targets) - set(every)
            if unknown:
                parser.error(f"unknown target(s): {', '.join(sorted(unknown))}")
            return campaign(
                out, args.seconds, args.compare, args.targets or every, args.record, args.note
            )
        env = fuzz_env(out, args.python)
        if args.command == "env":
            for name in ("PYTHONPATH", "LD_PRELOAD", "PYTHONMALLOC", "ASAN_OPTIONS"):
                print(f"export {name}={env[name]}")
            print(f"export UBSAN_OPTIONS={env['UBSAN_OPTIONS']}")
            return 0
        cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
        if not cmd:
            parser.error("run: no command given")
        check_picked(env, out, args.python)
        return subprocess.run(cmd, env=env).returncode
    except BuildError as exc:
        print(f"build_fuzz_native: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
