#!/usr/bin/env python3
"""Write the fuzzing seed corpus from corpus/manifest.py, or check it is up to date.

The corpus directories hold one file per attack per target so that libFuzzer, the pytest
regression replay and reviewers all see the same bytes; the manifest is the reviewable
source of truth (name, hex, what it attacks, RFC/Kuhn/Unicode/CVE reference).

    python tools/gen_corpus.py            # (re)write corpus/{decode,policy,identifiers}/
    python tools/gen_corpus.py --check    # exit 1 if the files differ from the manifest
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
TARGET_DIRS = {
    "d": "decode",
    "p": "policy",
    "i": "identifiers",
    "w": "web",
    "7": "utf7",
    "u": "utf16",
}


def load_manifest(path: Path = CORPUS / "manifest.py") -> tuple[Any, ...]:
    """The ``SEEDS`` rows of the manifest (loaded by path: corpus/ is not a package)."""
    spec = importlib.util.spec_from_file_location("corpus_manifest", path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # NamedTuple needs its module registered
    spec.loader.exec_module(module)
    seeds: tuple[Any, ...] = module.SEEDS
    return seeds


def expected_files(seeds: tuple[Any, ...]) -> dict[Path, bytes]:
    """Relative path -> bytes, for every (seed, target) pair."""
    files: dict[Path, bytes] = {}
    for seed in seeds:
        for code in seed.targets:
            path = Path(TARGET_DIRS[code]) / f"{seed.name}.bin"
            if path in files:
                raise ValueError(f"duplicate seed name {seed.name!r}")
            files[path] = seed.data
    return files


def check(root: Path, files: dict[Path, bytes]) -> list[str]:
    """Differences between ``root``'s target directories and ``files``, one line each."""
    problems = []
    for rel, data in sorted(files.items()):
        path = root / rel
        if not path.exists():
            problems.append(f"missing: {rel}")
        elif path.read_bytes() != data:
            problems.append(f"differs: {rel}")
    for target in TARGET_DIRS.values():
        for path in sorted((root / target).glob("*.bin")):
            if path.relative_to(root) not in files:
                problems.append(f"not in manifest: {path.relative_to(root)}")
    return problems


def write(root: Path, files: dict[Path, bytes]) -> int:
    """Write every file; remove ``*.bin`` files the manifest no longer names."""
    for target in TARGET_DIRS.values():
        (root / target).mkdir(parents=True, exist_ok=True)
        for path in (root / target).glob("*.bin"):
            if path.relative_to(root) not in files:
                path.unlink()
    for rel, data in files.items():
        (root / rel).write_bytes(data)
    return len(files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 on drift")
    parser.add_argument("--root", type=Path, default=CORPUS, help="corpus directory")
    args = parser.parse_args(argv)
    files = expected_files(load_manifest())
    if args.check:
        problems = check(args.root, files)
        for line in problems:
            print(line, file=sys.stderr)
        if problems:
            print("run: python tools/gen_corpus.py", file=sys.stderr)
            return 1
        print(f"corpus matches the manifest ({len(files)} files)")
        return 0
    print(f"wrote {write(args.root, files)} files under {args.root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
