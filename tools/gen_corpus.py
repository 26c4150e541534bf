#!/usr/bin/env python3
"""The checkout's fuzzing seed corpus, generated from the package (run tools/generate.py).

The seeds are written down once, in ``sanitizer/_fuzzing/seeds.py`` (package data: an
installed wheel fuzzes with them), and the dictionary in ``sanitizer/_fuzzing/utf8.dict``.
This generates their checkout view: ``corpus/TARGET/<name>.bin`` for every target of
``sanitizer._fuzzing.targets.REGISTRY`` and ``corpus/utf8.dict``, so that libFuzzer command
lines, ``sanitizer check corpus/decode``, the ClusterFuzzLite build and reviewers see the
same bytes; ``tools/generate.py --check corpus`` proves the files equal the table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sanitizer._fuzzing import seeds as seed_table
from sanitizer._fuzzing.targets import REGISTRY

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
DICTIONARY = Path(seed_table.__file__).with_name("utf8.dict")
# a row's target letter -> its directory under corpus/ (the registry's ``seeds``)
TARGET_DIRS = {t.seeds: t.name for t in REGISTRY}


def load_manifest() -> tuple[Any, ...]:
    """The rows of the seed table (``sanitizer._fuzzing.seeds.SEEDS``)."""
    return seed_table.SEEDS


def expected_files(seeds: tuple[Any, ...]) -> dict[Path, bytes]:
    """Corpus-relative path -> bytes, for every (seed, target) pair, and the dictionary."""
    files: dict[Path, bytes] = {Path("utf8.dict"): DICTIONARY.read_bytes()}
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
    """Seed files under ``root`` that the table no longer names, repo-relative."""
    wanted = outputs()
    corpus = root / CORPUS.relative_to(ROOT)
    return [
        path.relative_to(root)
        for target in TARGET_DIRS.values()
        for path in sorted((corpus / target).glob("*.bin"))
        if path.relative_to(root) not in wanted
    ]
