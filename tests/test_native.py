"""The native seam (sanitizer._native) and the C extension's contract with Python.

- the table layout the C scan reads (exported by the extension) is the layout
  ``_classtable`` writes;
- ``_native.BACKEND`` follows ``SANITIZER_PURE_PYTHON`` and the decoder follows it;
- ``_speedups.pyi`` and the ``_native.Speedups`` protocol name exactly the extension's
  public attributes, so mypy sees all of it and nothing it lacks.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import sanitizer
import sanitizer.policy._classtable as _classtable
from sanitizer import _machine, _native, decoder

PACKAGE = Path(sanitizer.__file__).parent


def _extension() -> ModuleType:
    """The built extension, even when SANITIZER_PURE_PYTHON=1 keeps the package off it."""
    try:
        return importlib.import_module("sanitizer._speedups")
    except ImportError:  # pragma: no cover - the extension is optional
        pytest.skip("C extension not built")


# -- the table layout: one statement in C, one in Python, compared --------------------------

LAYOUT = ["FLAGS_OFFSET", "RULE_IDS_OFFSET", "PREFILTER_OFFSET", "RULES_OFFSET", "RULE_SIZE"]


@pytest.mark.parametrize("name", LAYOUT)
def test_policy_table_layout_matches(name: str) -> None:
    assert getattr(_extension(), name) == getattr(_classtable, name)


def test_class_table_layout_matches() -> None:
    assert _extension().STAGE1_ENTRIES == _classtable.BLOCKS
    assert len(_classtable.class_table().stage1) == 2 * _classtable.BLOCKS  # uint16 each


# -- the backend choice --------------------------------------------------------------------


def test_seam_is_the_decoders_choice() -> None:
    assert decoder.BACKEND is _native.BACKEND
    assert sanitizer.BACKEND is _native.BACKEND
    assert _native.BACKEND == ("c" if _native.speedups is not None else "python")
    if _native.speedups is None:
        assert decoder.decode is decoder.decode_py
    else:
        assert decoder.decode is _native.speedups.decode


_PROBE = """
import json, sanitizer
from sanitizer import _machine, _native, decoder
print(json.dumps({
    "native": _native.BACKEND,
    "package": sanitizer.BACKEND,
    "speedups": _native.speedups is not None,
    "runner_is_machine": decoder._runner is _machine,
    "decode_is_py": decoder.decode is decoder.decode_py,
}))
"""


def _probe(pure: bool) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "SANITIZER_PURE_PYTHON"}
    if pure:
        env["SANITIZER_PURE_PYTHON"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


def test_pure_python_env_forces_the_reference() -> None:
    assert _probe(pure=True) == {
        "native": "python",
        "package": "python",
        "speedups": False,
        "runner_is_machine": True,
        "decode_is_py": True,
    }


def test_without_env_the_extension_is_used_when_built() -> None:
    try:
        importlib.import_module("sanitizer._speedups")
        built = True
    except ImportError:  # pragma: no cover - the extension is optional
        built = False
    assert _probe(pure=False) == {
        "native": "c" if built else "python",
        "package": "c" if built else "python",
        "speedups": built,
        "runner_is_machine": not built,
        "decode_is_py": not built,
    }


def test_runner_follows_the_seam() -> None:
    expected = _machine if _native.speedups is None else _native.speedups
    assert decoder._runner is expected


# -- the stub and the protocol name exactly what the module has ----------------------------


def _stub_names() -> set[str]:
    tree = ast.parse((PACKAGE / "_speedups.pyi").read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return {n for n in names if not n.startswith("_")}


def _public(module: ModuleType) -> set[str]:
    return {n for n in dir(module) if not n.startswith("_")}


def test_stub_lists_exactly_the_public_attributes() -> None:
    assert _stub_names() == _public(_extension())


def test_protocol_lists_exactly_the_public_attributes() -> None:
    members = {n for n in vars(_native.Speedups) if not n.startswith("_")}
    assert members == _public(_extension())


# -- the build: every C file is compiled, the stub and the sources ship ----------------------


def test_every_c_source_is_built_and_shipped() -> None:
    root = PACKAGE.parent
    if not (root / "setup.py").exists():  # pragma: no cover - an installed copy
        pytest.skip("no source tree")
    sources = sorted(p.name for p in (PACKAGE / "_native_src").glob("*.c"))
    assert sources
    setup_py = (root / "setup.py").read_text(encoding="utf-8")
    assert all(f'"{name}"' in setup_py for name in sources), sources
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    for pattern in ('"*.pyi"', '"_native_src/*.c"', '"_native_src/*.h"'):
        assert pattern in pyproject
