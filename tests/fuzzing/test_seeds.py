"""The seed corpus on disk matches the seed table, which covers the attacks.

The table (``sanitizer/_fuzzing/seeds.py``) is the reviewable source of truth;
``tools/generate.py --check corpus`` (run by tests/suites/test_generated_files.py) keeps the
files equal to it, and the coverage tests below pin the attack classes the seeds must
hold (RFC 3629 §3/§10, Kuhn's stress test, Unicode §3.9, Trojan Source, NFKC '/' and
'..').
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

import sanitizer

ROOT = Path(__file__).resolve().parents[2]


def _load_tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


GEN = _load_tool("gen_corpus")
GENERATE = _load_tool("generate")
SEEDS = GEN.load_manifest()
BY_HEX = {seed.data: seed for seed in SEEDS}


def test_generator_roundtrip_and_drift_detection(tmp_path: Path) -> None:
    files = GEN.outputs()
    assert GENERATE.write("corpus", tmp_path) == len(files)
    assert GENERATE.stale("corpus", tmp_path) == []
    first, second = sorted(files)[:2]
    (tmp_path / first).write_bytes(b"changed")
    (tmp_path / "corpus" / "decode" / "stray.bin").write_bytes(b"x")
    (tmp_path / second).unlink()
    problems = GENERATE.stale("corpus", tmp_path)
    assert f"stale: {first}" in problems
    assert f"missing: {second}" in problems
    assert "not generated: corpus/decode/stray.bin" in problems
    GENERATE.write("corpus", tmp_path)
    assert GENERATE.stale("corpus", tmp_path) == []


def test_manifest_rows_are_well_formed() -> None:
    names = [s.name for s in SEEDS]
    assert len(names) == len(set(names))
    for seed in SEEDS:
        assert re.fullmatch(r"[a-z0-9][a-z0-9-]*", seed.name), seed.name
        assert re.fullmatch(r"([0-9A-F]{2}( [0-9A-F]{2})*)?", seed.hex), seed.name
        assert seed.attacks and seed.source, seed.name
        assert seed.targets and set(seed.targets) <= set(GEN.TARGET_DIRS), seed.name


@pytest.mark.parametrize(
    "hexstr",
    [
        "C0 AE",
        "2F C0 AE 2E 2F",
        "C0 80",
        "C0 AF",
        "E0 80 AF",
        "F0 80 80 AF",
        "F8 80 80 80 AF",
        "FC 80 80 80 80 AF",
        "C1 BF",
        "E0 9F BF",
        "F0 8F BF BF",
        "F8 87 BF BF BF",
        "FC 83 BF BF BF BF",
        "ED A0 80",
        "ED A1 8C ED BE B4",
        "F4 90 80 80",
        "FE",
        "FF",
        "61 F1 80 80 E1 80 C2 62 80 63 80 BF 64",
        "EF BB BF 61 62",
        "61 EF BB BF 62",
    ],
)
def test_required_attacks_present(hexstr: str) -> None:
    assert bytes.fromhex(hexstr) in BY_HEX


def test_attack_classes_covered() -> None:
    data = [s.data for s in SEEDS if "d" in s.targets]
    # Kuhn §5.2: all eight surrogate pairs; §3.1: every lone continuation byte.
    assert sum(1 for s in SEEDS if s.name.startswith("surrogate-pair-")) >= 8
    assert all(bytes([b]) in data for b in range(0x80, 0xC0))
    assert bytes(range(0x80, 0xC0)) in data
    assert b"".join(bytes([b, 0x20]) for b in range(0xC0, 0xE0)) in data  # Kuhn §3.2.1
    assert all(any(d[:1] == bytes([lead]) for d in data) for lead in range(0xF5, 0xFE))
    for cp in (0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFE, 0xFFFF, 0x10000, 0x10FFFF):
        assert any(chr(cp).encode() in d for d in data if sanitizer.is_valid(d)), hex(cp)
    kinds = {e.kind for d in data for e in sanitizer.find_errors(d)}
    assert kinds == set(sanitizer.ErrorKind)
    texts = [s.data.decode("utf-8", "replace") for s in SEEDS if "p" in s.targets]
    for needle in ("\u202e", "\u2066", "\u200b", "\U000e0069", "\uff0f", "\u2025", "\ufe52"):
        assert any(needle in t for t in texts), repr(needle)
    assert any(s.targets == "i" and b"\xff" in s.data for s in SEEDS)


def test_sources_cite_specs() -> None:
    sources = " ".join(s.source for s in SEEDS)
    for ref in (
        "RFC 3629 §10",
        "RFC 3629 §3",
        "HOWTO §5.9.4",
        "Kuhn UTF-8-test §3.2.1",
        "Unicode §3.9",
        "CVE-2021-42574",
        "CVE-2000-0884",
        "RFC 2279",
    ):
        assert ref in sources, ref


def test_dictionary_parses() -> None:
    entries = 0
    for line in (ROOT / "corpus" / "utf8.dict").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        assert re.fullmatch(r'[a-z0-9_]+="(\\x[0-9A-F]{2}|\\\\|[^"\\])+"', line), line
        entries += 1
    assert entries >= 40
