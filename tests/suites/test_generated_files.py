"""Every generated file is what its generator makes now (``tools/generate.py --check``).

A table edited by hand, or a generator changed without regenerating, fails here rather
than changing what the package decides.  The generators and their order are
``tools/generate.py``'s ``GENERATORS``; every ``*_data.py`` module of the package must
come from one of them, and no generator ships in the package.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load_generate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate", ROOT / "tools" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


GENERATE = _load_generate()
# Generators that read Unicode data files or ucdinfo's XML take seconds.
SLOW = {"chartables", "lookalike", "normalize", "precis"}
NEEDS_UCDINFO = {"chartables", "lookalike", "precis"}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=[pytest.mark.slow] if name in SLOW else [])
        for name in GENERATE.GENERATORS
    ],
)
def test_generated_files_are_current(name: str) -> None:
    if name in NEEDS_UCDINFO and importlib.util.find_spec("ucdinfo") is None:
        pytest.skip("needs ucdinfo==0.3 (the test extra)")
    assert GENERATE.stale(name) == [], f"run: python tools/generate.py {name}"


def test_every_generator_is_registered_and_every_data_module_generated() -> None:
    modules = {p.stem.removeprefix("gen_") for p in (ROOT / "tools").glob("gen_*.py")}
    assert modules == set(GENERATE.GENERATORS)
    claimed = " ".join(writes for writes, _ in GENERATE.GENERATORS.values())
    for path in (ROOT / "sanitizer").rglob("*_data.py"):
        rel = path.relative_to(ROOT).as_posix()
        parent = rel.rpartition("/")[0]
        assert rel in claimed or f"{parent}/_*_data.py" in claimed, rel
        assert "GENERATED" in path.read_text(encoding="utf-8")[:400], rel


def test_no_generator_in_the_package() -> None:
    assert not [p for p in (ROOT / "sanitizer").rglob("*gen*.py") if "_gen" in p.stem]
