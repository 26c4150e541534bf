"""Benchmark: policies and identifier comparison against bytes.decode and other libraries.

Why: the policy layer sits on every request, so its cost is stated against the cheapest
thing a server must do anyway (``bytes.decode``), and against two libraries that clean
text (boundaryguard 0.1.4, disarm 0.17.2) and one that compares identifiers
(precis-i18n).  Prints markdown tables; a script, not a test.

Setup (the comparison libraries are not dependencies of this project)::

    python -m venv bench/.venv
    bench/.venv/bin/pip install -e . boundaryguard==0.1.4 disarm==0.17.2 precis-i18n
    bench/.venv/bin/python bench/bench_policy.py [--quick]

A library that is not installed gets "not installed" in its column.  What each column
runs (on the same bytes; the libraries take str, so their time includes the decode):

- sanitize: ``sanitizer.sanitize(data, profiles.TEXT)`` (strict decode, every check, NFC)
- boundaryguard: ``boundaryguard.sanitize(data.decode(), "preserve_rtl")``
- disarm: ``disarm.strip_format(data.decode())``
- identifiers: ``identifiers_equal(a, b, form="NFKC_CASEFOLD")`` against precis-i18n's
  ``get_profile("UsernameCaseMapped")``: enforce both (a refused value is "not equal")
  and compare.

Goals (issue 3): sanitize >= 0.5x the throughput of bytes.decode at 1 MiB; at most 10x
its time at 64 B; identifiers >= 10x faster than precis-i18n.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _figures
from _allocator import steady_heap

from sanitizer import UNICODE_VERSION, identifiers_equal, profiles, sanitize

UNITS = {
    "ASCII": "The quick brown fox jumps over the lazy dog; 0123456789.\n",
    "Latin": "Falsches Üben von Xylophonmusik quält jeden größeren Zwerg. Ça été très élevé.\n",
    "CJK": "我能吞下玻璃而不伤身体。私はガラスを食べられます。나는 유리를 먹을 수 있어요.\n",
    "emoji": "Nice 👍🏽 👩🏾\u200d💻 👨\u200d👩\u200d👧\u200d👦 ❤\ufe0f\u200d🔥 🇯🇵 😀 ok\n",
}
SIZES = {"64 B": 64, "4 KiB": 4096, "1 MiB": 1 << 20}
PAIRS = [
    ("ＡＤＭＩＮ", "admin"),
    ("Ångström", "A\u030angstro\u0308m"),
    ("alice", "Alice"),
    ("bob_1984", "bob_1984"),
    ("δοκιμή", "ΔΟΚΙΜΉ"),
    ("用户名", "用户名"),
    ("ﬁle", "file"),
    ("Zoë", "zoe"),
]


def make(unit: str, size: int) -> bytes:
    """``size`` bytes of ``unit`` repeated, cut at a character boundary."""
    raw = unit.encode() * (size // len(unit.encode()) + 1)
    return raw[:size].decode("utf-8", "ignore").encode()


def best(fn: Callable[[], object], quick: bool, size: int) -> float:
    """Seconds per call: min over repeats of timeit (each repeat ~>= 20 ms).  One call
    first, so one-time setup (sanitize builds its class tables on first use, ~30 ms) does
    not make the calibration pick number=1."""
    fn()
    number = 1
    while True:
        t = timeit.timeit(fn, number=number)
        if t >= (0.005 if quick else 0.02) or number >= 1 << 20:
            break
        number *= 4
    runs = timeit.repeat(fn, number=number, repeat=3 if quick else 7)
    return min(runs) / number


def optional(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def cleaners() -> dict[str, Callable[[bytes], object] | None]:
    bg = optional("boundaryguard")
    dm = optional("disarm")
    return {
        "sanitize (TEXT)": lambda d: sanitize(d, profiles.TEXT),
        "boundaryguard": (lambda d: bg.sanitize(d.decode(), "preserve_rtl")) if bg else None,
        "disarm": (lambda d: dm.strip_format(d.decode())) if dm else None,
    }


def bench_text(quick: bool, out: _figures.Tables) -> None:
    libs = cleaners()
    goals: list[str] = []
    print(
        f"### sanitize vs bytes.decode (Unicode {UNICODE_VERSION}, Python {sys.version.split()[0]})"
    )
    print()
    head = ["input", "size", "decode µs"] + [f"{n} µs (xdecode)" for n in libs]
    out.head(head)
    sizes = {k: v for k, v in SIZES.items() if not quick or v != 1 << 20}
    if quick:
        sizes["256 KiB"] = 1 << 18
    for uname, unit in UNITS.items():
        for sname, size in sizes.items():
            data = make(unit, size)
            t_dec = best(lambda d=data: d.decode("utf-8"), quick, size)  # type: ignore[misc]
            cells = [uname, sname, f"{t_dec * 1e6:.2f}"]
            times: dict[str, float] = {}
            for name, fn in libs.items():
                if fn is None:
                    cells.append("not installed")
                    continue
                t = times[name] = best(lambda d=data, f=fn: f(d), quick, size)  # type: ignore[misc]
                cells.append(f"{t * 1e6:.1f} ({t / t_dec:.1f}x; {t_dec / t:.2f} thr)")
            out.row(*cells)
            goals += check_goals(f"{uname} {sname}", size, t_dec, times)
    print()
    print("(x = time relative to bytes.decode; thr = throughput ratio decode/this)")
    print()
    print("Goals: " + ("all met" if not goals else "MISSED:"))
    for line in goals:
        print(f"- {line}")
    print()


def check_goals(label: str, size: int, t_dec: float, times: dict[str, float]) -> list[str]:
    """The issue-3 goals this row misses: >= 0.5x decode throughput from 256 KiB up (the
    1 MiB goal; --quick measures 256 KiB), <= 10x decode's time at 64 B, faster than the
    other cleaners."""
    ours = times["sanitize (TEXT)"]
    missed = []
    if size >= 1 << 18 and t_dec / ours < 0.5:
        missed.append(f"{label}: throughput {t_dec / ours:.2f}x decode (goal >= 0.5x)")
    if size <= 64 and ours / t_dec > 10:
        missed.append(f"{label}: {ours / t_dec:.1f}x decode's time (goal <= 10x)")
    for name, t in times.items():
        if name != "sanitize (TEXT)" and t <= ours:
            missed.append(f"{label}: {name} is faster ({t * 1e6:.1f} µs)")
    return missed


def bench_identifiers(quick: bool, out: _figures.Tables) -> None:
    precis = optional("precis_i18n")
    print("### identifiers_equal(NFKC_CASEFOLD) vs precis-i18n UsernameCaseMapped")
    print()
    ours = best(lambda: [identifiers_equal(a, b, form="NFKC_CASEFOLD") for a, b in PAIRS], quick, 0)
    per = ours / len(PAIRS)
    if precis is None:
        out.head(["identifiers_equal µs/pair", "precis-i18n"])
        out.row(f"{per * 1e6:.2f}", "not installed")
        print()
        return
    profile = precis.get_profile("UsernameCaseMapped")

    def precis_equal(a: str, b: str) -> bool:
        try:
            return bool(profile.enforce(a) == profile.enforce(b))
        except UnicodeEncodeError:
            return False

    theirs = best(lambda: [precis_equal(a, b) for a, b in PAIRS], quick, 0) / len(PAIRS)
    out.head(["identifiers_equal µs/pair", "precis-i18n µs/pair", "speed-up"])
    out.row(f"{per * 1e6:.2f}", f"{theirs * 1e6:.2f}", f"{theirs / per:.1f}x")
    print()
    agree = sum(
        identifiers_equal(a, b, form="NFKC_CASEFOLD") == precis_equal(a, b) for a, b in PAIRS
    )
    print(f"(verdicts agree on {agree}/{len(PAIRS)} pairs; PRECIS maps case with toLower and")
    print(" refuses some characters, NFKC_Casefold folds: they are not the same relation)")
    print()


def main() -> int:
    heap = steady_heap()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="short run (no 1 MiB inputs)")
    _figures.add_argument(parser)
    args = parser.parse_args()
    print(f"heap: {heap} (bench/_allocator.py; --allocator-as-is for the defaults)")
    print()
    out = _figures.Tables()
    bench_text(args.quick, out)
    bench_identifiers(args.quick, out)
    if args.write_docs:
        _figures.write(
            "policy",
            summary="`sanitize(data, profiles.TEXT)` on valid bytes: time relative to "
            "`bytes.decode` (x) and throughput ratio (thr), beside libraries a user might "
            "pick instead (their time includes the decode); `identifiers_equal` against "
            "precis-i18n.",
            goals="<= 10x at 64 B; >= 0.5x throughput at 1 MiB; `identifiers_equal` >= 10x "
            "faster than precis-i18n.",
            tables=out.tables,
            note=f"heap: {heap}",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
