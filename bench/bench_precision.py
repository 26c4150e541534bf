"""The gate's precision on real multilingual trees, from a sample judged by hand.

``sanitizer check`` (UTF-8) and ``sanitizer check --policy SOURCE`` (the repository gate,
as docs/check.md recommends: no ``--as-text``, no suppression) are run over released
trees of projects full of translations, locale data and tests of Unicode (pinned in
``TREES``); every failing finding is collected.  For each rule, the findings to judge
are all of them when there are fewer than ``SAMPLE``, else ``SAMPLE`` drawn with a fixed
seed from the sorted findings.  Verdicts live in ``bench/precision/judged.csv`` (tree,
path, line, column, rule, what, verdict, reason); the precision of a rule is its true
positives over its judged sample.  A sampled finding that has no verdict yet (the gate
or a tree changed) is listed, with its excerpt, in ``--unjudged FILE``, to be judged
and appended: only new findings need a reader.

Criteria (docs/check.md says them too).  True positive: what a reviewer should look
at, because it is what the rule says and could mislead or break a reader of the file:
a look-alike that reads as another word (a Cyrillic letter in a Latin word of locale
data, a Cyrillic word spelling an ASCII one), an invisible or bidi control that is not
writing, bytes that are not UTF-8, a terminal escape or mojibake control.  A test
fixture of the very thing (CPython's test of ``'ес'`` against ``'ec'``, a file in a legacy
encoding) is true: the rule is right, and the file is what per-file ignores are for.
False positive: legitimate text the rule misreads: a translation's or locale's words,
a format field beside a word, a mathematical symbol used as mathematics, a joiner or
hyphenation point that is part of writing, a binary file read as text.

Run: ``python bench/bench_precision.py --fetch`` (downloads the trees with ``pip
download`` and ``npm pack`` into ``--trees``, default ``/tmp/sanitizer-precision``),
then ``python bench/bench_precision.py`` (``--unjudged FILE`` to write what needs a
verdict; ``--markdown`` prints the table for docs/check.md).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import tarfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JUDGED = ROOT / "bench" / "precision" / "judged.csv"
FIELDS = ("tree", "path", "line", "column", "rule", "what", "verdict", "reason")
SAMPLE = 60  # findings judged a rule, at most
SEED = 20261207
# name -> (registry, package, version); CPython's Lib/ is the running interpreter's.
TREES: dict[str, tuple[str, str, str]] = {
    "django": ("pypi", "django", "5.2.20"),
    "faker": ("pypi", "faker", "40.63.0"),
    "sympy": ("pypi", "sympy", "1.14.0"),
    "babel": ("pypi", "babel", "2.19.0"),
    "pygments": ("pypi", "pygments", "2.21.0"),
    "docutils": ("pypi", "docutils", "0.23.1"),
    "jinja2": ("pypi", "jinja2", "3.1.6"),
    "date-fns": ("npm", "date-fns", "4.4.0"),
    "moment": ("npm", "moment", "2.31.0"),
    "dayjs": ("npm", "dayjs", "1.11.23"),
    "i18next": ("npm", "i18next", "26.7.2"),
    "luxon": ("npm", "luxon", "3.7.2"),
}
CPYTHON = "cpython-Lib"


def fetch(trees: Path) -> None:
    """Each tree unpacked under ``trees/NAME`` (sdists and npm tarballs, no build)."""
    downloads = trees / "_downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    for name, (registry, package, version) in TREES.items():
        target = trees / name
        if target.exists():
            continue
        if registry == "pypi":
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                 "-d", str(downloads), f"{package}=={version}"],
                check=True,
            )  # fmt: skip
            archive = next(downloads.glob(f"{package}-{version}.tar.gz"))
        else:
            subprocess.run(["npm", "pack", f"{package}@{version}"], cwd=downloads, check=True)
            archive = next(downloads.glob(f"{package}-{version}.tgz"))
        with tarfile.open(archive) as tar:
            tar.extractall(trees / "_unpack", filter="data")
        (top,) = (trees / "_unpack").iterdir()
        top.rename(target)
        (trees / "_unpack").rmdir()
    lib = trees / CPYTHON
    if not lib.exists():
        stdlib = Path(sysconfig.get_paths()["stdlib"])
        ignore = shutil.ignore_patterns("__pycache__", "site-packages", "lib-dynload", "config-*")
        shutil.copytree(stdlib, lib, ignore=ignore, symlinks=True)


def run_gate(tree: Path) -> list[dict[str, object]]:
    """The failing findings of both gates over ``tree``, once each (the UTF-8 gate's are
    also the SOURCE gate's)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    seen: dict[tuple[object, ...], dict[str, object]] = {}
    for extra in (["--policy", "SOURCE"], []):
        proc = subprocess.run(
            [sys.executable, "-m", "sanitizer", "check", *extra, "--format", "json",
             "--limit", "0", "--progress", "never", str(tree)],
            capture_output=True, env=env, check=False,
        )  # fmt: skip
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{tree}: exit {proc.returncode}: {proc.stderr.decode()[-500:]}")
        for line in proc.stdout.splitlines():
            record = json.loads(line)
            if "rule" not in record or not record.get("fails"):
                continue
            path = os.path.relpath(str(record["path"]), tree)
            key = (tree.name, path, record.get("line"), record.get("column"), record["rule"])
            seen.setdefault(key, {**record, "tree": tree.name, "path": path})
    return list(seen.values())


def key_of(row: dict[str, object]) -> tuple[str, str, str, str, str]:
    return (
        str(row["tree"]),
        str(row["path"]),
        str(row["line"]),
        str(row["column"]),
        str(row["rule"]),
    )


def sample(findings: list[dict[str, object]]) -> dict[str, list[dict[str, object]]]:
    """Per rule: all its findings, or ``SAMPLE`` of them drawn with ``SEED``."""
    by_rule: dict[str, list[dict[str, object]]] = defaultdict(list)
    for f in findings:
        by_rule[str(f["rule"])].append(f)
    out = {}
    for rule, items in sorted(by_rule.items()):
        items.sort(key=key_of)
        out[rule] = items if len(items) <= SAMPLE else random.Random(SEED).sample(items, SAMPLE)
    return out


def load_judged(path: Path = JUDGED) -> dict[tuple[str, str, str, str, str], dict[str, str]]:
    if not path.exists():
        return {}
    with path.open(encoding="utf-8", newline="") as f:
        return {key_of(row): row for row in csv.DictReader(f)}


def table(
    findings: list[dict[str, object]],
    drawn: dict[str, list[dict[str, object]]],
    judged: dict[tuple[str, str, str, str, str], dict[str, str]],
) -> tuple[list[str], list[dict[str, object]]]:
    """The markdown table, and the sampled findings that have no verdict yet."""
    counts = Counter(str(f["rule"]) for f in findings)
    trees: dict[str, set[str]] = defaultdict(set)
    for f in findings:
        trees[str(f["rule"])].add(str(f["tree"]))
    lines = [
        "| Rule | Failing findings | Judged | True | Precision | Trees with findings |",
        "|---|---|---|---|---|---|",
    ]
    unjudged = []
    for rule, items in drawn.items():
        verdicts = [judged.get(key_of(f)) for f in items]
        unjudged += [f for f, v in zip(items, verdicts, strict=True) if v is None]
        known = [v for v in verdicts if v is not None]
        true = sum(v["verdict"] == "true" for v in known)
        precision = f"{100 * true / len(known):.0f}%" if known else "-"
        if len(known) < len(items):
            precision += f" ({len(items) - len(known)} unjudged)"
        lines.append(
            f"| `{rule}` | {counts[rule]} | {len(known)} | {true} | {precision} | "
            f"{', '.join(sorted(trees[rule]))} |"
        )
    return lines, unjudged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trees", type=Path, default=Path("/tmp/sanitizer-precision"))
    parser.add_argument("--fetch", action="store_true", help="download the trees first")
    parser.add_argument("--unjudged", type=Path, help="write sampled findings to judge here")
    args = parser.parse_args(argv)
    if args.fetch:
        fetch(args.trees)
    names = [*TREES, CPYTHON]
    missing = [n for n in names if not (args.trees / n).is_dir()]
    if missing:
        print(f"missing trees under {args.trees}: {', '.join(missing)} (--fetch)", file=sys.stderr)
        return 2
    findings = [f for n in names for f in run_gate(args.trees / n)]
    drawn = sample(findings)
    lines, unjudged = table(findings, drawn, load_judged())
    print("\n".join(lines))
    if args.unjudged is not None:
        with args.unjudged.open("w", encoding="utf-8", newline="") as out:
            writer = csv.DictWriter(out, [*FIELDS, "excerpt", "reason_given"])
            writer.writeheader()
            for f in unjudged:
                writer.writerow({
                    **{k: f.get(k, "") for k in FIELDS[:5]}, "what": f.get("what", ""),
                    "verdict": "", "reason": "", "excerpt": f.get("excerpt", ""),
                    "reason_given": f.get("reason", ""),
                })  # fmt: skip
    if unjudged:
        print(f"{len(unjudged)} sampled finding(s) have no verdict", file=sys.stderr)
    return 1 if unjudged else 0


if __name__ == "__main__":
    sys.exit(main())
