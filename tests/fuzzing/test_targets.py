"""One registry of fuzz targets (``sanitizer._fuzzing.targets.REGISTRY``): every other list
of them derives from it or is held equal to it here -- the CLI's choices, the in-package
entry point, the scripts in ``fuzz/`` and their ``.options``, the seed table's letters and
``corpus/`` directories, the ClusterFuzzLite build, and the package data a wheel ships.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from sanitizer._fuzzing import seeds, targets
from sanitizer._fuzzing.targets import REGISTRY, TARGET_NAMES

ROOT = Path(__file__).resolve().parents[2]


def test_names_are_unique_and_every_oracle_loads() -> None:
    assert len(set(TARGET_NAMES)) == len(TARGET_NAMES) == len(REGISTRY)
    assert len({t.seeds for t in REGISTRY}) == len(REGISTRY)
    for entry in REGISTRY:
        assert callable(targets.oracle_for(entry.name))
        assert entry.oracle.startswith("sanitizer._fuzzing.")  # in the package: a wheel runs it
        assert entry.include and entry.about


def test_every_oracle_is_public_in_the_fuzzing_facade() -> None:
    import sanitizer.fuzzing as facade

    for entry in REGISTRY:
        module, _, function = entry.oracle.partition(":")
        assert function in facade.__all__, entry.name
        assert facade._PUBLIC[function] == module, entry.name
    assert set(facade._PUBLIC) == set(facade.__all__)


def test_every_target_has_one_thin_script_calling_the_entry_point() -> None:
    scripts = sorted(p.stem.removeprefix("fuzz_") for p in (ROOT / "fuzz").glob("fuzz_*.py"))
    assert scripts == sorted(TARGET_NAMES)
    for name in TARGET_NAMES:
        source = (ROOT / "fuzz" / f"fuzz_{name}.py").read_text(encoding="utf-8")
        tree = ast.parse(source)
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)} - {
            "__future__"
        }
        assert imported == {"sanitizer.fuzzing.__main__"}, name  # no oracle of its own
        assert f'main(["{name}", *sys.argv[1:]])' in source


@pytest.mark.parametrize("name", TARGET_NAMES)
def test_options_files_are_the_registrys(name: str) -> None:
    options = (ROOT / "fuzz" / f"fuzz_{name}.options").read_text(encoding="utf-8")
    assert options == targets.options_text(targets.target(name))


def test_seed_letters_and_corpus_directories() -> None:
    letters = {t.seeds for t in REGISTRY}
    assert {c for seed in seeds.SEEDS for c in seed.targets} <= letters
    for name in TARGET_NAMES:
        files = seeds.files(name)
        assert files, name
        on_disk = {p.name for p in (ROOT / "corpus" / name).glob("*.bin")}
        assert on_disk == set(files), name  # tools/generate.py --check corpus, per target


def test_the_cli_and_the_entry_point_offer_the_registry() -> None:
    from sanitizer.cli._fuzz import target_choices
    from sanitizer.fuzzing.__main__ import USAGE, main

    assert target_choices() == (*TARGET_NAMES, "all")
    assert "TARGET" in USAGE
    assert main(["nope"]) == 2


def test_the_clusterfuzzlite_build_packs_every_script_with_its_seeds() -> None:
    build = (ROOT / ".clusterfuzzlite" / "build.sh").read_text(encoding="utf-8")
    assert "for fuzzer in fuzz/fuzz_*.py; do" in build  # one fuzzer per script, so per target
    assert 'pack "corpus/$name"' in build and "corpus/utf8.dict" in build
    assert 'cp "fuzz/$target.options"' in build


def test_the_wheel_ships_the_seeds_the_dictionary_and_every_oracle() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    data = re.search(
        r"^\[tool\.setuptools\.package-data\]\n(?:#.*\n)*sanitizer = (\[.*\])", pyproject, re.M
    )
    assert data is not None and '"_fuzzing/utf8.dict"' in data.group(1)
    for entry in REGISTRY:
        module = entry.oracle.partition(":")[0]
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file()
        if entry.dictionary:
            assert (ROOT / "sanitizer" / "_fuzzing" / entry.dictionary).is_file()
    fuzz_extra = pyproject.split("\nfuzz = [", 1)[1].split("\n]", 1)[0]
    for entry in REGISTRY:
        for module in entry.requires:  # what a target needs beyond the package
            assert module.replace("_", "-") in fuzz_extra or "[web]" in fuzz_extra
