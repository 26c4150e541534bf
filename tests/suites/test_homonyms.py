"""A class name of the package means one thing: two modules defining classes of the same
name must be parallel implementations of one interface (listed here, with it), never two
different things (an internal ``Finding`` beside the public ``sanitizer.Finding`` had a
reader guess which one a signature meant).  Read from the source with ``ast``."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from tests.support.source_trees import syntax

PACKAGE = Path(__file__).resolve().parents[2] / "sanitizer"

# name -> the one interface its definitions share
PARALLEL = {
    "IncrementalDecoder": "codecs.IncrementalDecoder, one per codec (UTF-8, UTF-16, UTF-32)",
    "IdentifierValidator": "the identifier field of each framework integration",
    "PrecisValidator": "the PRECIS field of each framework integration",
    "_Exchange": "one request/response exchange, per server interface (ASGI, WSGI)",
    "Progress": "a progress line on stderr (fuzzing, sanitizer check)",
    "SanitizerMiddleware": "the middleware of a framework's own middleware API (Django, aiohttp)",
    "Totals": "the counts a run's summary shows (fuzzing ledger, sanitizer check)",
}


def _classes() -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = syntax(path.resolve())
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                found[node.name].append(path.relative_to(PACKAGE.parent).as_posix())
    return found


def test_a_class_name_means_one_thing() -> None:
    twice = {name: paths for name, paths in _classes().items() if len(paths) > 1}
    homonyms = {name: paths for name, paths in twice.items() if name not in PARALLEL}
    assert not homonyms, f"rename one of each (or list a shared interface): {homonyms}"
    assert set(PARALLEL) <= set(twice), set(PARALLEL) - set(twice)  # no stale entry
