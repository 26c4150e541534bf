#!/usr/bin/env python3
"""Run the ClusterFuzzLite / OSS-Fuzz build for real, outside Docker, and run what it built.

``.clusterfuzzlite/build.sh`` is what ClusterFuzzLite runs inside ``base-builder-python``;
this reproduces that container's part here, so the build is proven without Docker:

1. ``$SRC/utf8-sanitizer``: a copy of the tree (tracked and untracked files, not ignored
   ones), as the Dockerfile's ``COPY .``;
2. a virtual environment (with this interpreter's packages: atheris, PyInstaller) whose
   ``pip3`` and ``python3`` come first on PATH, so ``pip3 install .`` installs there and
   never over this checkout's editable install;
3. the builder's compiler settings for the sanitizer (``CC=clang``, ``CFLAGS`` with
   ``-fsanitize=address`` or ``undefined``), and ``compile_python_fuzzer`` from
   ``tools/cflite/`` (PyInstaller ``--onefile`` and the preloading wrapper, as OSS-Fuzz);
4. ``bash build.sh``; then, as the runner image does, atheris' sanitizer runtime copied
   to ``$OUT/sanitizer_with_fuzzer.so`` and ``llvm-symbolizer`` beside it;
5. with ``--runs N``: every ``$OUT/fuzz_*`` wrapper runs N executions on its unzipped
   seed corpus with its ``.options`` and dictionary: "ok" when it ends with "Done N
   runs", "FINDING <artifact>" when libFuzzer saved a failing input, else "FAILED".

    python tools/cflite_build.py --runs 10000            # build, then 10,000 runs each
    python tools/cflite_build.py --sanitizer undefined --keep /tmp/cflite

Needs clang and PyInstaller (``pip install pyinstaller``).  Exit status 0 when the build
and every run succeeded, 1 otherwise (a finding included), 2 when something it needs is
missing.
"""

from __future__ import annotations

import argparse
import configparser
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAND_INS = ROOT / "tools" / "cflite"
# The builder's flags per sanitizer (OSS-Fuzz infra/base-images/base-clang, abridged).
SANITIZER_FLAGS = {
    "address": "-fsanitize=address -fsanitize-address-use-after-scope",
    "undefined": "-fsanitize=array-bounds,bool,builtin,enum,float-divide-by-zero,function,"
    "integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,"
    "signed-integer-overflow,unsigned-integer-overflow,unreachable,vla-bound,vptr "
    "-fno-sanitize-recover=array-bounds,bool,builtin,enum,float-divide-by-zero,function,"
    "integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,"
    "signed-integer-overflow,unreachable,vla-bound,vptr",
}
RUNTIMES = {"address": "asan_with_fuzzer.so", "undefined": "ubsan_with_fuzzer.so"}


class Missing(Exception):
    """A tool the build needs is not installed."""


def copy_tree(dest: Path) -> None:
    """The files ``COPY .`` would bring that matter: tracked and untracked, not ignored."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for raw in listed:
        if not raw:
            continue
        rel = Path(os.fsdecode(raw))
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def builder_env(work: Path, sanitizer: str, venv: Path) -> dict[str, str]:
    clang = shutil.which("clang")
    if clang is None:
        raise Missing("clang not found: apt-get install -y clang llvm")
    if shutil.which("pyinstaller") is None:
        raise Missing("PyInstaller not found: pip install pyinstaller")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(
        SRC=str(work / "src"),
        OUT=str(work / "out"),
        WORK=str(work / "work"),
        SANITIZER=sanitizer,
        FUZZING_ENGINE="libfuzzer",
        FUZZING_LANGUAGE="python",
        CC=clang,
        CXX=shutil.which("clang++") or clang,
        CFLAGS=f"-O1 -fno-omit-frame-pointer -gline-tables-only {SANITIZER_FLAGS[sanitizer]}",
        ASAN_OPTIONS="detect_leaks=0",  # Python keeps memory at exit on purpose
        PATH=os.pathsep.join([str(venv / "bin"), str(STAND_INS), env["PATH"]]),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    return env


def build(work: Path, sanitizer: str) -> Path:
    """Run build.sh in ``work``; returns ``$OUT``."""
    src = work / "src" / "utf8-sanitizer"
    out = work / "out"
    for path in (src, out, work / "work"):
        path.mkdir(parents=True, exist_ok=True)
    copy_tree(src)
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    # PyInstaller must analyse the venv's interpreter, where build.sh installs the package
    pyinstaller = venv / "bin" / "pyinstaller"
    pyinstaller.write_text(
        f"#!{venv / 'bin' / 'python3'}\nfrom PyInstaller.__main__ import run\nrun()\n"
    )
    pyinstaller.chmod(0o755)
    env = builder_env(work, sanitizer, venv)
    shutil.copy2(src / ".clusterfuzzlite" / "build.sh", work / "src" / "build.sh")
    subprocess.run(["bash", "-eu", str(work / "src" / "build.sh")], cwd=src, env=env, check=True)
    # What the runner image adds next to the fuzzers.
    atheris_dir = subprocess.run(
        [str(venv / "bin" / "python3"), "-c", "import atheris; print(atheris.path())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    shutil.copy2(Path(atheris_dir) / RUNTIMES[sanitizer], out / "sanitizer_with_fuzzer.so")
    symbolizer = shutil.which("llvm-symbolizer")
    if symbolizer:
        shutil.copy2(symbolizer, out / "llvm-symbolizer")
    return out


def fuzzers(out: Path) -> list[Path]:
    """The fuzzers in ``$OUT``, found as OSS-Fuzz finds them: executable, with the marker."""
    return sorted(
        p
        for p in out.iterdir()
        if p.is_file()
        and os.access(p, os.X_OK)
        and b"LLVMFuzzerTestOneInput" in p.read_bytes()[:4096]
    )


def libfuzzer_options(options: Path) -> list[str]:
    if not options.is_file():
        return []
    parser = configparser.ConfigParser()
    parser.read(options)
    return [f"-{k}={v}" for k, v in parser["libfuzzer"].items()] if "libfuzzer" in parser else []


def run_fuzzer(fuzzer: Path, runs: int, work: Path) -> tuple[str, str, float]:
    """N executions on the unzipped seed corpus: (verdict, output tail, seconds), where the
    verdict is "ok", "FINDING <artifact>" (libFuzzer saved a failing input: the fuzzer
    works and found something) or "FAILED" (it did not run as it should)."""
    corpus = work / "corpus" / fuzzer.name
    corpus.mkdir(parents=True, exist_ok=True)
    seeds = fuzzer.with_name(f"{fuzzer.name}_seed_corpus.zip")
    if seeds.is_file():
        with zipfile.ZipFile(seeds) as zf:
            zf.extractall(corpus)
    cmd = [str(fuzzer), str(corpus), f"-runs={runs}", f"-artifact_prefix={work}/"]
    cmd += libfuzzer_options(fuzzer.with_name(f"{fuzzer.name}.options"))
    if fuzzer.with_name(f"{fuzzer.name}.dict").is_file():
        cmd.append(f"-dict={fuzzer.with_name(f'{fuzzer.name}.dict')}")
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=1800)
    elapsed = time.monotonic() - started
    output = proc.stdout + proc.stderr
    if proc.returncode == 0 and f"Done {runs} runs" in output:
        return "ok", output[-2500:], elapsed
    saved = re.search(r"Test unit written to (\S+)", output)
    verdict = f"FINDING {saved.group(1)}" if saved else "FAILED"
    return verdict, output[-2500:], elapsed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sanitizer", choices=sorted(SANITIZER_FLAGS), default="address")
    parser.add_argument("--runs", type=int, default=0, help="executions per fuzzer (0: none)")
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it")
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="cflite-"))
    work = work.resolve()
    try:
        out = build(work, args.sanitizer)
        found = fuzzers(out)
        print(f"built {len(found)} fuzzers in {out}: {', '.join(p.name for p in found)}")
        failed = 0
        for fuzzer in found if args.runs else []:
            verdict, tail, elapsed = run_fuzzer(fuzzer, args.runs, work)
            print(f"{fuzzer.name}: {args.runs} runs in {elapsed:.1f}s: {verdict}")
            if verdict != "ok":
                failed += 1
                print(tail)
        return 1 if failed or not found else 0
    except Missing as exc:
        print(f"cflite_build: {exc}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as exc:
        print(f"cflite_build: {exc}", file=sys.stderr)
        return 1
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
