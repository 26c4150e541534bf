#!/usr/bin/env python3
"""The fuzzing seed corpus, generated from corpus/manifest.py (run tools/generate.py).

The corpus directories hold one file per attack per target so that libFuzzer, the pytest
regression replay and reviewers all see the same bytes; the manifest is the reviewable
source of truth (name, hex, what it attacks, RFC/Kuhn/Unicode/CVE reference).
"""

from __future__ import annotations

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


def outputs() -> dict[Path, bytes]:
    """The seed files, by repo-relative path (the interface of ``tools/generate.py``)."""
    rel = CORPUS.relative_to(ROOT)
    return {rel / path: data for path, data in expected_files(load_manifest()).items()}


def obsolete(root: Path = ROOT) -> list[Path]:
    """Seed files under ``root`` that the manifest no longer names, repo-relative."""
    wanted = outputs()
    corpus = root / CORPUS.relative_to(ROOT)
    return [
        path.relative_to(root)
        for target in TARGET_DIRS.values()
        for path in sorted((corpus / target).glob("*.bin"))
        if path.relative_to(root) not in wanted
    ]
