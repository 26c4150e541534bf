"""PRECIS enforcement speed: sanitizer.precis against precis-i18n, in the same run.

The goal is enforce() at least 10 times precis-i18n's speed on three kinds of input:
ASCII usernames (UsernameCaseMapped), precis-i18n's own golden inputs (3,575 cases over
its 11 profiles, 42% of them refusals) and non-ASCII nicknames (NicknameCaseMapped), and
this script checks every answer is the same as precis-i18n's while it times them (the
golden inputs: the same as the golden file's, since the reference's Unicode may be older).

Method: the calls of a kind are cut into chunks of 50; each round times one pass of each
implementation over each chunk, and a chunk's time is its best round (a shared machine's
load only ever adds time).  The figure is the sum of the best chunk times divided by the
number of calls.  Columns: precis-i18n; sanitizer.precis as installed (the C extension
when built); and, from a child process with SANITIZER_PURE_PYTHON=1, the pure-Python
path.

    python bench/bench_precis.py [--rounds 7] [--no-pure] [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this tree's sanitizer
import _figures  # noqa: E402  (bench/, beside this script)

GOLDEN = ROOT / "tests" / "data" / "precis-i18n-golden.json.xz"
CHUNK = 50
Call = tuple[str, str]  # (profile name, input)

GIVEN = [
    "Juliet",
    "Romeo",
    "Zoë",
    "Дмитрий",
    "田中",
    "김민준",
    "محمد",
    "José",
    "Ngọc",
    "Αλέξανδρος",
]
FAMILY = ["Capulet", "Montague", "Müller", "Иванова", "太郎", "Søren", "O'Brien", "Đặng"]
EMOJI = ["", "", " 🎭", " ✨"]


def golden_calls() -> tuple[list[Call], list[tuple[str | None, str | None]]]:
    with lzma.open(GOLDEN, "rt", encoding="ascii") as fh:
        cases = json.load(fh)
    return [(c["profile"], c["input"]) for c in cases], [(c["output"], c["error"]) for c in cases]


GREEK = ("Σοφία", "ΟΔΥΣΣΕΥΣ", "Νίκος", "ΣΤΑΥΡΟΣ", "Αλέξης", "ΚΩΣΤΑΣ", "σοφία", "Σωτήρης")


def kinds(rng: random.Random) -> dict[str, list[Call]]:
    """Input kind -> its calls."""

    def ascii_user(length: int) -> str:
        head = rng.choice(["User", "john.doe", "Admin_", "x", "JULIET"])
        body = "".join(
            rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789._-") for _ in range(length)
        )
        return (head + body)[:length]

    def nickname(parts: int) -> str:
        words = [rng.choice(GIVEN)] + [rng.choice(FAMILY) for _ in range(parts - 1)]
        return " ".join(words) + rng.choice(EMOJI)

    out: dict[str, list[Call]] = {
        "ASCII usernames, 8 chars": [("UsernameCaseMapped", ascii_user(8)) for _ in range(1000)],
        "ASCII usernames, 24 chars": [("UsernameCaseMapped", ascii_user(24)) for _ in range(1000)],
        "ASCII usernames, 128 chars": [("UsernameCaseMapped", ascii_user(128)) for _ in range(300)],
        "golden inputs (11 profiles)": golden_calls()[0],
        "non-ASCII nicknames, 1-2 words": [
            ("NicknameCaseMapped", nickname(rng.randint(1, 2))) for _ in range(1000)
        ],
        "non-ASCII nicknames, 6 words": [("NicknameCaseMapped", nickname(6)) for _ in range(500)],
        "non-ASCII nicknames, 30 words": [("NicknameCaseMapped", nickname(30)) for _ in range(100)],
        "non-ASCII usernames": [
            ("UsernameCaseMapped", rng.choice(GIVEN) + rng.choice(FAMILY).replace(" ", ""))
            for _ in range(1000)
        ],
        "Greek usernames, capital and final sigma": [
            ("UsernameCaseMapped", rng.choice(GREEK)) for _ in range(1000)
        ],
        "Greek nicknames, 2,000 capital sigmas": [
            ("NicknameCaseMapped", "ΣΟΦΙΑ Σ " * 250) for _ in range(20)
        ],
        "passwords (OpaqueString)": [
            ("OpaqueString", ascii_user(12) + rng.choice(["", "é", "\u00a0ß", "€"]))
            for _ in range(1000)
        ],
    }
    return out


def enforcer(module: object) -> Callable[[str, str], object]:
    get = module.get_profile  # type: ignore[attr-defined]
    cache: dict[str, object] = {}

    def run(name: str, s: str) -> object:
        profile = cache.get(name)
        if profile is None:
            profile = cache[name] = get(name)
        try:
            return profile.enforce(s)  # type: ignore[attr-defined]
        except (UnicodeEncodeError, ValueError) as error:
            return getattr(error, "reason", None)

    return run


def bound(module: object, calls: list[Call]) -> list[tuple[Callable[[str], object], str]]:
    """Each call as (the profile's enforce, input), the profiles made and used once
    beforehand (as in a server: ``profile.enforce`` is then what every later call gets)."""
    get = module.get_profile  # type: ignore[attr-defined]
    profiles = {name: get(name) for name in {p for p, _ in calls}}
    for profile in profiles.values():
        profile.enforce("warm-up")
    return [(profiles[p].enforce, s) for p, s in calls]


def timed(calls: list[Call], modules: dict[str, object], rounds: int) -> dict[str, float]:
    """Seconds per call for each implementation (sum of each chunk's best round)."""
    bound_calls = {name: bound(module, calls) for name, module in modules.items()}
    for each in bound_calls.values():
        for enforce, s in each[:20]:  # tables built before timing
            try:
                enforce(s)
            except ValueError:
                pass
    chunks = (len(calls) + CHUNK - 1) // CHUNK
    best = {name: [float("inf")] * chunks for name in modules}
    for _ in range(rounds):
        for slot in range(chunks):
            for name, each in bound_calls.items():
                chunk = each[slot * CHUNK : (slot + 1) * CHUNK]
                start = time.perf_counter()
                for enforce, s in chunk:
                    try:  # precis-i18n: UnicodeEncodeError; sanitizer: PrecisError
                        enforce(s)
                    except ValueError:
                        pass
                elapsed = time.perf_counter() - start
                best[name][slot] = min(best[name][slot], elapsed)
    return {name: sum(times) / len(calls) for name, times in best.items()}


def measure(rounds: int, only_ours: bool) -> dict[str, dict[str, float]]:
    import sanitizer.precis as ours

    modules: dict[str, object] = {"sanitizer.precis": ours}
    if not only_ours:
        import precis_i18n

        modules["precis-i18n"] = precis_i18n
    rng = random.Random(8264)
    return {kind: timed(calls, modules, rounds) for kind, calls in kinds(rng).items()}


def check_answers() -> int:
    """Calls whose answer differs: from precis-i18n's (generated kinds) or from the golden
    file (golden inputs)."""
    import precis_i18n

    import sanitizer.precis as ours

    mine, theirs = enforcer(ours), enforcer(precis_i18n)
    wrong = 0
    for kind, calls in kinds(random.Random(8264)).items():
        if kind.startswith("golden"):
            continue
        wrong += sum(mine(p, s) != theirs(p, s) for p, s in calls)
    calls, expected = golden_calls()
    for (p, s), (output, error) in zip(calls, expected, strict=True):
        wrong += mine(p, s) != (output if error is None else error)
    return wrong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--no-pure", action="store_true", help="skip the pure-Python column")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # the child
    _figures.add_argument(parser)
    args = parser.parse_args()
    if args.json:
        print(json.dumps(measure(args.rounds, only_ours=True)))
        return 0

    from sanitizer._native import BACKEND

    results = measure(args.rounds, only_ours=False)
    pure: dict[str, dict[str, float]] = {}
    if not args.no_pure:
        env = dict(os.environ, SANITIZER_PURE_PYTHON="1")
        child = subprocess.run(
            [sys.executable, __file__, "--json", "--rounds", str(args.rounds)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        pure = json.loads(child.stdout)
    wrong = check_answers()
    import unicodedata

    import precis_i18n

    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; "
        f"Python {platform.python_version()}; {time.strftime('%Y-%m-%d')}"
    )
    print(
        f"precis-i18n {precis_i18n.__version__} (unicodedata {unicodedata.unidata_version}); "
        f"sanitizer.precis backend: {BACKEND}"
    )
    header = f"{'input kind':32} {'n':>5} {'precis-i18n':>12} {'sanitizer':>10} {'ratio':>7}"
    if pure:
        header += f" {'pure Python':>12} {'ratio':>7}"
    print(header)
    print("-" * len(header))
    calls_per_kind = {k: len(v) for k, v in kinds(random.Random(8264)).items()}
    rows: list[list[str]] = []
    goals: dict[str, list[float]] = {"ASCII usernames": [], "golden": [], "non-ASCII nicknames": []}
    for kind, times in results.items():
        ref, mine = times["precis-i18n"], times["sanitizer.precis"]
        line = f"{kind:32} {calls_per_kind[kind]:>5} {ref * 1e6:>10.2f}us {mine * 1e6:>8.2f}us"
        line += f" {ref / mine:>6.1f}x"
        if pure:
            p = pure[kind]["sanitizer.precis"]
            line += f" {p * 1e6:>10.2f}us {ref / p:>6.1f}x"
        print(line)
        row = [kind, str(calls_per_kind[kind]), f"{ref * 1e6:.2f} µs", f"{mine * 1e6:.2f} µs"]
        row.append(f"{ref / mine:.1f}x")
        if pure:
            row += [f"{pure[kind]['sanitizer.precis'] * 1e6:.2f} µs", f"{ref / p:.1f}x"]
        rows.append(row)
        for goal in goals:
            if kind.startswith(goal):
                goals[goal].append(ref / mine)
    print()
    for goal, ratios in goals.items():
        worst = min(ratios)
        print(f"goal >= 10x on {goal}: worst {worst:.1f}x: {'met' if worst >= 10 else 'NOT MET'}")
    print(f"answers that differ from precis-i18n's / the golden file's: {wrong}")
    if args.write_docs:
        columns = ["input kind", "calls", "precis-i18n", f"sanitizer.precis ({BACKEND})", "ratio"]
        if pure:
            columns += ["pure Python", "ratio"]
        _figures.write(
            "precis",
            summary=f"`enforce` of sanitizer.precis and of precis-i18n {precis_i18n.__version__}"
            " on the same calls, in the same run (per call: the sum of each 50-call chunk's "
            "best round)",
            goals=">= 10x precis-i18n on ASCII usernames, on precis-i18n's golden inputs and "
            "on non-ASCII nicknames, with the same answers.",
            tables=[_figures.table(columns, rows)],
            notes=[
                f"precis-i18n on Python's unicodedata {unicodedata.unidata_version}; every "
                f"answer checked (differing: {wrong}).",
            ],
        )
    return 0 if wrong == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
