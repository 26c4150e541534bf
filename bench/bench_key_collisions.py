#!/usr/bin/env python3
"""How often ``identifier_key`` refuses a name that real people chose independently.

    python bench/bench_key_collisions.py --faker 150000
    python bench/bench_key_collisions.py --names projects.txt --installed

The names come from bench/usernames.py (faker's handles and native-script names in every
locale, the installed packages' metadata, any list of names).  Names equal under
NFKC_Casefold are one identifier (they are meant to share a key) and count once.  Then,
signing the identifiers up in list order, an identifier is *refused* when an earlier one
holds its key: the refusal rate is refused / identifiers, the cost of the key in
legitimate signups turned away (some of which are look-alikes all the same: the report
says how many have equal UTS #39 skeletons as written).

For each refused identifier, the code points that differ from the one it collided with
(aligned by difflib, after NFKC_Casefold) say which rule joined them: "i" against "l" is
rule 3 of sanitizer/_lookalike/key.py, "rn" against "m" the skeleton of casefolded text.
The report lists the most common differences with an example each.  Run it on a release
before a change of the key and after (``PYTHONPATH=...``) to compare.
"""

from __future__ import annotations

import argparse
import difflib
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import usernames

from sanitizer import (
    IDENTIFIER_KEY_VERSION,
    identifier_key,
    normalize_identifier,
    skeleton,
)


def differences(a: str, b: str) -> list[tuple[str, str]]:
    """The changed stretches between ``a`` and ``b``, each as a sorted pair."""
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    return [
        tuple(sorted((a[i1:i2], b[j1:j2])))  # type: ignore[misc]
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def measure(label: str, names: list[str], shown: int) -> None:
    start = time.process_time()
    identifiers: dict[str, str] = {}  # NFKC_Casefold -> the first name written so
    for name in names:
        identifiers.setdefault(normalize_identifier(name, form="NFKC_CASEFOLD"), name)
    holders: dict[str, str] = {}  # key -> the folded identifier that took it first
    refused: list[tuple[str, str]] = []  # (refused name, the name holding its key)
    for folded, name in identifiers.items():
        key = identifier_key(name)
        holder = holders.setdefault(key, folded)
        if holder != folded:
            refused.append((name, identifiers[holder]))
    cpu = time.process_time() - start
    look_alike = sum(skeleton(a) == skeleton(b) for a, b in refused)
    kinds: Counter[tuple[str, ...]] = Counter()
    example: dict[tuple[str, ...], tuple[str, str]] = {}
    for a, b in refused:
        fa = normalize_identifier(a, form="NFKC_CASEFOLD")
        fb = normalize_identifier(b, form="NFKC_CASEFOLD")
        kind = tuple(f"{x!r}~{y!r}" for x, y in sorted(set(differences(fa, fb))))
        kinds[kind] += 1
        example.setdefault(kind, (a, b))
    total = len(identifiers)
    print(f"== {label}: {len(names)} distinct names, {total} identifiers (NFKC_Casefold)")
    print(
        f"   refused: {len(refused)} = {100 * len(refused) / max(total, 1):.4f}% "
        f"(1 in {total // max(len(refused), 1)}); {look_alike} of them look alike as "
        f"written (equal skeletons); {cpu:.1f} s CPU"
    )
    for kind, count in kinds.most_common(shown):
        a, b = example[kind]
        print(f"   {count:6}  {' '.join(kind) or '(same once folded)':34} e.g. {a!r} / {b!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faker", type=int, default=0, metavar="N")
    parser.add_argument("--installed", action="store_true")
    parser.add_argument("--names", type=Path, action="append", default=[], metavar="FILE")
    parser.add_argument("--shown", type=int, default=15, help="kinds of difference listed")
    args = parser.parse_args(argv)
    if not (args.faker or args.installed or args.names):
        args.faker = 150_000
    print(f"identifier_key version {IDENTIFIER_KEY_VERSION}")
    if args.faker:
        measure(f"faker ({args.faker})", usernames.build(faker=args.faker), args.shown)
    if args.installed:
        measure("installed metadata", usernames.build(installed=True), args.shown)
    for path in args.names:
        measure(path.name, usernames.build(files=[path]), args.shown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
