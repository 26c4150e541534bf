"""Look-alike comparison speed and agreement: this project against ICU and Python libraries.

One run, same inputs.  The 10,000 username pairs (about half
confusable, in many scripts) are the pairs of ``tests/data/icu-78.3-spoof.json.xz``,
generated with a fixed seed by ``tools/icu_fixture.py``.  Each tool answers "are these two
look-alikes?" for every pair; calls/s is given for the first pass over all pairs (cold:
the tool's first calls in this process, tables and caches empty) and the best of a few
(warm: a cache, where a tool has one, answers), and every answer is compared with ICU's
``areConfusable`` run live in the same process.  The warm passes take turns, one pass of
each tool per round, so a change in machine load hits every tool alike; on a shared
machine prefer ``--instructions``: warm instructions per pair counted by valgrind's
callgrind (a pass after a first one, minus a run without it), repeatable under any load.

    tools        sanitizer.confusable; sanitizer.skeleton(a) == skeleton(b);
                 ICU 78 SpoofChecker.areConfusable and getSkeleton(a) == getSkeleton(b);
                 disarm.skeleton_key(a) == skeleton_key(b) (disarm has a native core,
                 ``disarm/_core.abi3.so``); confusables.is_confusable(a, b);
                 confusable_homoglyphs.is_dangerous(a) or is_dangerous(b) (it has no
                 pair comparison: its signup check, run on both strings)
    also         sanitizer.identifier_key on 100,000 distinct ASCII usernames (goal
                 >= 1M/s), and ``sanitizer collisions FILE`` on generated usernames at
                 n/4 and n lines (time and peak RSS: linear and bounded?) with --collisions

Environment (ICU and the libraries live only here, never in the test dependencies)::

    python -m venv bench/.venv
    bench/.venv/bin/pip install -e . icukit-pyicu==78.3.1 disarm==0.17.2 \\
        confusable-homoglyphs==3.3.1 confusables==1.2.0
    # (the script imports this tree's sanitizer first, installed or not)
    bench/.venv/bin/python bench/bench_confusable.py [--collisions [N]] [--repeat R]
    bench/.venv/bin/python bench/bench_confusable.py --instructions   # needs valgrind

A tool that is missing from the environment is reported as such and skipped.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import random
import resource
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import _figures

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this tree's sanitizer, whatever bench/.venv has installed
FIXTURE = ROOT / "tests" / "data" / "icu-78.3-spoof.json.xz"
ALLOW_LIST = ROOT / "tests" / "data" / "icu-78.3-vs-uts39-18.0.0.txt"
Pair = tuple[str, str]
Verdict = Callable[[str, str], object]


def load_pairs() -> tuple[list[Pair], list[int]]:
    data = json.loads(lzma.decompress(FIXTURE.read_bytes()))
    strings = data["strings"]
    pairs = [(strings[i], strings[j]) for i, j, _ in data["pairs"]]
    return pairs, [bits for _, _, bits in data["pairs"]]


def tools() -> tuple[dict[str, Verdict], dict[str, str]]:
    """Name -> pair verdict (truthy = confusable); name -> why a tool is missing."""
    found: dict[str, Verdict] = {}
    missing: dict[str, str] = {}
    import sanitizer

    found["sanitizer.confusable"] = sanitizer.confusable
    skeleton = sanitizer.skeleton
    found["sanitizer.skeleton =="] = lambda a, b: skeleton(a) == skeleton(b)
    try:
        import icu  # type: ignore[import-not-found, unused-ignore]

        checker: Any = icu.SpoofChecker()
        found["ICU areConfusable"] = checker.areConfusable
        get = checker.getSkeleton
        found["ICU getSkeleton =="] = lambda a, b: get(0, a) == get(0, b)
    except ImportError as exc:
        missing["ICU"] = str(exc)
    try:
        import disarm  # type: ignore[import-not-found, unused-ignore]

        key: Any = disarm.skeleton_key
        found["disarm skeleton_key == (native)"] = lambda a, b: key(a) == key(b)
    except ImportError as exc:
        missing["disarm"] = str(exc)
    try:
        import confusables  # type: ignore[import-not-found, unused-ignore]

        found["confusables.is_confusable"] = confusables.is_confusable
    except ImportError as exc:
        missing["confusables"] = str(exc)
    try:
        from confusable_homoglyphs import (  # type: ignore[import-not-found, unused-ignore]
            confusables as homoglyphs,
        )

        dangerous: Any = homoglyphs.is_dangerous
        found["confusable_homoglyphs.is_dangerous"] = lambda a, b: dangerous(a) or dangerous(b)
    except ImportError as exc:
        missing["confusable-homoglyphs"] = str(exc)
    return found, missing


def run_all(verdict: Verdict, pairs: list[Pair]) -> tuple[float, list[object]]:
    start = time.perf_counter()
    answers = [verdict(a, b) for a, b in pairs]
    return time.perf_counter() - start, answers


def rates(
    found: dict[str, Verdict], pairs: list[Pair], repeat: int
) -> tuple[dict[str, float], dict[str, float], dict[str, list[object]]]:
    """Per tool: calls per second of its first pass (cold: tables and caches empty) and of
    the best of ``repeat`` passes (warm: every pair seen before), the passes interleaved
    (one per tool per round; a tool whose pass takes > 5 s runs once); and its answers."""
    cold: dict[str, float] = {}
    best: dict[str, float] = {}
    answers: dict[str, list[object]] = {}
    for name, verdict in found.items():
        best[name], answers[name] = run_all(verdict, pairs)
        cold[name] = len(pairs) / best[name]
    for _ in range(repeat - 1):
        for name, verdict in found.items():
            if best[name] <= 5:
                best[name] = min(best[name], run_all(verdict, pairs)[0])
    return cold, {name: len(pairs) / took for name, took in best.items()}, answers


def icu_bits(answer: object) -> int:
    return int(cast(int, answer)) & 7


def our_bits(answer: object) -> int:
    if answer is None:
        return 0
    return {"single-script": 1, "mixed-script": 2, "whole-script": 6}[answer.value]  # type: ignore[attr-defined]


def listed_changes() -> dict[str, set[int]]:
    """The reviewed ICU 78.3 (Unicode 17.0) / UTS #39 18.0.0 differences, by section."""
    sections: dict[str, set[int]] = {}
    current: set[int] = set()
    for line in ALLOW_LIST.read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            current = sections.setdefault(line[1 : line.index("]")], set())
        elif line.strip() and not line.startswith("#"):
            current.add(int(line.split(";")[0], 16))
    return sections


def why(a: str, b: str, changes: dict[str, set[int]]) -> str:
    import unicodedata2

    chars = {ord(c) for s in (a, b) for c in s + unicodedata2.normalize("NFD", s)}
    reasons = [
        f"{section} U+{cp:04X}"
        for section, cps in sorted(changes.items())
        for cp in sorted(chars & cps)
    ]
    return ", ".join(reasons[:3]) or "NOT EXPLAINED by a listed Unicode 18 change"


def bench_pairs(repeat: int) -> list[list[str]]:
    """Prints the comparison; returns its table's rows for the docs (``--write-docs``)."""
    pairs, fixture_bits = load_pairs()
    found, missing = tools()
    confusable_count = sum(1 for bits in fixture_bits if bits)
    print(f"{len(pairs):,} pairs, {confusable_count:,} confusable per ICU 78.3 (fixture)")
    for name, reason in missing.items():
        print(f"  {name}: not installed ({reason})")
    cold, warm, answers = rates(found, pairs, repeat)
    reference = answers.get("ICU areConfusable")
    if reference is not None:
        live = [icu_bits(x) for x in reference]
        assert live == fixture_bits, "live ICU differs from the fixture: regenerate it"
    truth = [bool(bits) for bits in fixture_bits]
    icu_cold, icu_warm = cold.get("ICU areConfusable"), warm.get("ICU areConfusable")
    print(
        f"\n{'tool (pairs/s)':36} {'cold':>10} {'vs ICU':>7} {'warm':>10} {'vs ICU':>7}"
        f" {'agree w/ ICU':>14}"
    )
    rows = []
    for name in found:
        agree = sum(bool(x) == t for x, t in zip(answers[name], truth, strict=True))
        vs_cold = f"{cold[name] / icu_cold:.2f}x" if icu_cold else "-"
        vs_warm = f"{warm[name] / icu_warm:.2f}x" if icu_warm else "-"
        speed = f"{vs_cold} / {vs_warm} ({cold[name]:,.0f} / {warm[name]:,.0f} pairs/s)"
        rows.append([name, speed, f"{agree:,} / {len(pairs):,}"])
        print(
            f"{name:36} {cold[name]:10,.0f} {vs_cold:>7} {warm[name]:10,.0f} {vs_warm:>7}"
            f" {agree:>8,}/{len(pairs):,}"
        )
    ours = answers["sanitizer.confusable"]
    changes = listed_changes()
    kind = [
        (a, b, bits, our_bits(x))
        for (a, b), bits, x in zip(pairs, fixture_bits, ours, strict=True)
        if our_bits(x) != bits
    ]
    print(f"\nsanitizer.confusable vs ICU areConfusable, exact kind: {len(kind)} disagreements")
    for a, b, bits, mine in kind:
        print(f"  {a!r} {b!r}: ICU {bits}, ours {mine}: {why(a, b, changes)}")
    print("\nother tools vs ICU (FP: says confusable, ICU not; FN: ICU says confusable)")
    for name in found:
        if name.startswith(("sanitizer", "ICU")):
            continue
        wrong = [
            (p, t) for p, x, t in zip(pairs, answers[name], truth, strict=True) if bool(x) != t
        ]
        false_pos = [p for p, t in wrong if not t]
        false_neg = [p for p, t in wrong if t]
        print(f"  {name}: {len(false_pos):,} FP, {len(false_neg):,} FN")
        for label, sample in (("FP", false_pos[:3]), ("FN", false_neg[:3])):
            for a, b in sample:
                print(f"    {label} {a!r} {b!r}")
    ours_cold, ours_warm = cold["sanitizer.confusable"], warm["sanitizer.confusable"]
    for name in found:
        if not name.startswith(("sanitizer", "ICU")):
            print(
                f"sanitizer.confusable / {name}: {ours_cold / cold[name]:,.1f}x cold,"
                f" {ours_warm / warm[name]:,.1f}x warm"
                + ("" if "(native)" in name else " (goal >= 10x: pure Python)")
            )
    return rows


INSTRUCTIONS = """
import sys
sys.path[:0] = [{root!r}, {bench!r}]
from bench_confusable import load_pairs, tools
pairs, _ = load_pairs()
verdict = tools()[0][{name!r}]
for _ in range({passes}):  # the first pass loads tables and fills caches: not counted
    for a, b in pairs:
        verdict(a, b)
"""


def instructions(name: str, passes: int) -> int:
    """Instructions (callgrind's Ir) of a process that runs ``passes`` passes of a tool."""
    script = INSTRUCTIONS.format(
        root=str(ROOT), bench=str(ROOT / "bench"), name=name, passes=passes
    )
    result = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            script,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    counted = [line for line in result.stderr.splitlines() if "Collected :" in line]
    return int(counted[-1].split(":")[-1])


def bench_instructions() -> None:
    """Warm instructions per pair: (2 passes - 1 pass) / pairs, for us and for ICU."""
    pairs, _ = load_pairs()
    found = tools()[0]
    names = [
        n
        for n in (
            "sanitizer.confusable",
            "sanitizer.skeleton ==",
            "ICU areConfusable",
            "ICU getSkeleton ==",
        )
        if n in found
    ]
    print(f"\nwarm instructions per pair (callgrind, {len(pairs):,} pairs)")
    per_pair = {
        name: (instructions(name, 2) - instructions(name, 1)) / len(pairs) for name in names
    }
    icu = per_pair.get("ICU areConfusable")
    for name, count in per_pair.items():
        ratio = f"  ICU / this: {icu / count:.2f}x" if icu else ""
        print(f"  {name:34} {count:10,.0f}{ratio}")


def ascii_usernames(count: int, seed: int = 12) -> list[str]:
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits + "_.-"
    names: set[str] = set()
    while len(names) < count:
        names.add("".join(rng.choice(alphabet) for _ in range(rng.randint(3, 20))))
    return sorted(names)


def bench_identifier_key(count: int = 100_000, repeat: int = 5) -> str:
    import sanitizer

    names = ascii_usernames(count)
    key = sanitizer.identifier_key
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for name in names:
            key(name)
        best = min(best, time.perf_counter() - start)
    result = f"`identifier_key` on {count:,} distinct ASCII usernames: {count / best:,.0f}/s"
    print(f"\n{result}")
    return result


def generated_usernames(path: Path, count: int, seed: int = 7) -> None:
    """``count`` lines: ASCII handles, some non-ASCII names, 1% look-alikes of earlier lines."""
    rng = random.Random(seed)
    pool = ("admin", "paypal", "john", "иван", "νίκος", "山田", "김민준", "josé", "user")
    swaps = {"a": "\u0430", "o": "\u043e", "e": "\u0435", "l": "I", "m": "rn", "0": "O"}
    alphabet = string.ascii_lowercase + string.digits + "_"
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            if i and rng.random() < 0.01:
                name = rng.choice(pool) + str(rng.randrange(1000))
                name = "".join(swaps.get(c, c) if rng.random() < 0.5 else c for c in name)
            elif rng.random() < 0.1:
                name = rng.choice(pool) + str(rng.randrange(10**6))
            else:
                name = "".join(rng.choice(alphabet) for _ in range(rng.randint(4, 16)))
            out.write(name + "\n")


def bench_collisions(count: int) -> None:
    """``sanitizer collisions FILE --json`` at count/4 and count lines: time, peak RSS."""
    cli = [sys.executable, "-m", "sanitizer", "collisions", "--json"]
    print(f"\nsanitizer collisions (generated usernames; {' '.join(cli[2:])})")
    with tempfile.TemporaryDirectory(prefix="bench-collisions-") as tmp:
        for n in (count // 4, count):
            path = Path(tmp) / f"users-{n}.txt"
            generated_usernames(path, n)
            script = (
                "import resource, subprocess, sys, time; t = time.perf_counter(); "
                "r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE); "
                "took = time.perf_counter() - t; "
                "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss; "
                "last = r.stdout.decode().splitlines()[-1]; "
                "print(took, rss, r.returncode, last)"
            )
            # A fresh parent per size, so RUSAGE_CHILDREN's peak is this run's alone.
            result = subprocess.run(
                [sys.executable, "-c", script, *cli, str(path)],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            )
            took, rss, code, summary = result.stdout.split(" ", 3)
            size = path.stat().st_size
            print(
                f"  {n:>9,} lines ({size / 2**20:.1f} MiB): {float(took):7.2f} s,"
                f" {n / float(took):9,.0f} lines/s, peak RSS {int(rss) / 1024:.0f} MiB,"
                f" exit {code}, {summary.strip()}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=3, help="passes per tool (best counts)")
    parser.add_argument(
        "--collisions",
        type=int,
        nargs="?",
        const=1_000_000,
        default=0,
        metavar="N",
        help="also time `sanitizer collisions` on N/4 and N generated lines (default 1M)",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="only count warm instructions per pair under callgrind (ours and ICU's)",
    )
    _figures.add_argument(parser)
    args = parser.parse_args()
    if args.instructions:
        bench_instructions()
        return 0
    print(f"Python {sys.version.split()[0]}, peak RSS so far: {peak_rss_mib():.0f} MiB")
    rows = bench_pairs(args.repeat)
    key = bench_identifier_key()
    if args.collisions:
        bench_collisions(args.collisions)
    if args.write_docs:
        columns = ["tool", "vs ICU `areConfusable`, cold / warm (pairs/s)", "agrees with ICU"]
        _figures.write(
            "confusable",
            summary="username pairs of the ICU fixture through each tool in the same run, "
            "against ICU's `areConfusable` (cold: first pass; warm: best pass).",
            goals="at least ICU's speed; 10x every pure-Python library; `identifier_key` on "
            "ASCII names >= 1M calls/s.",
            tables=[_figures.table(columns, rows)],
            notes=[f"{key}."],
        )
    return 0


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    raise SystemExit(main())
