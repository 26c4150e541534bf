"""The native seam (sanitizer._native) and the C extension's contract with Python.

- the table layout the C scan reads (exported by the extension) is the layout
  ``_classtable`` writes;
- ``_native.BACKEND`` follows ``SANITIZER_PURE_PYTHON`` and the decoder follows it;
- ``_speedups.pyi`` and the ``_native.Speedups`` protocol name exactly the extension's
  public attributes, so mypy sees all of it and nothing it lacks;
- the look-alike lookups in C (lookalike.c) answer as the pure-Python ones, on every code
  point, and SANITIZER_PURE_PYTHON=1 gives the same look-alike results.
"""

from __future__ import annotations

import ast
import functools
import importlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# -- lookalike.c: the same answers as the pure-Python lookups --------------------------------


def _lookalike_c() -> ModuleType:
    ext = _extension()
    if not hasattr(ext, "map_code_points"):  # pragma: no cover - an extension built before
        pytest.skip("C extension built without lookalike.c")
    return ext


def _skeleton_c() -> tuple[Callable[[str], str], dict[int, str]]:
    from sanitizer.lookalike import _lookups

    codepoints = _lookups.skeleton_map()
    ext = _lookalike_c()
    index = ext.index_code_points(codepoints.sources)
    args = (codepoints.sources, index, codepoints.offsets.tobytes(), codepoints.values)
    return functools.partial(ext.map_code_points, *args), codepoints.table()


def test_map_code_points_equals_translate_on_every_code_point() -> None:
    mapped, table = _skeleton_c()
    every = "".join(map(chr, range(0x110000)))
    assert mapped(every) == every.translate(table)
    chunk = 4096  # and in pieces, so that each block starts a string
    for start in range(0, 0x110000, chunk):
        piece = every[start : start + chunk]
        assert mapped(piece) == piece.translate(table), hex(start)


@given(st.text(alphabet=st.characters(codec=None, min_codepoint=0), max_size=40))
@settings(deadline=None)
def test_map_code_points_equals_translate(s: str) -> None:
    mapped, table = _skeleton_c()
    assert mapped(s) == s.translate(table)
    assert mapped("") == ""
    unmapped = "".join(ch for ch in s if ord(ch) not in table)
    assert mapped(unmapped) is unmapped  # nothing to map: the same object


def _script_mask_c() -> Callable[[str], int]:
    from sanitizer.lookalike import scripts

    return scripts.native_resolved_mask(_lookalike_c())  # type: ignore[arg-type]


def test_script_mask_equals_the_reference_on_every_code_point() -> None:
    from sanitizer.lookalike import scripts

    native = _script_mask_c()
    for cp in range(0x110000):
        ch = chr(cp)
        assert native(ch) == scripts.resolved_mask_py(ch), hex(cp)
    assert native("") == scripts.ALL_MASK


@given(st.lists(st.sampled_from("aа山た한ㄅカ1-\u0301\u30fc\u3001α\U0001e900᙮"), max_size=12))
@settings(deadline=None)
def test_script_mask_equals_the_reference(chars: list[str]) -> None:
    from sanitizer.lookalike import scripts

    s = "".join(chars)
    expected = scripts.mask_of(scripts.resolved_from(s))
    assert _script_mask_c()(s) == scripts.resolved_mask_py(s) == expected


INDEX_SIZE = 4 * 0x4401 + 8 * 0x4400  # uint32 ranks per 64 code points and the end, bits


@pytest.mark.parametrize(
    "args",
    [
        ("ab", b"\0" * INDEX_SIZE, b"\0" * 12, "xy"),  # four arguments, not five
        ("ab", bytearray(INDEX_SIZE), b"\0" * 12, "xy", "t"),  # index not bytes
        ("ab", b"\0" * 8, b"\0" * 12, "xy", "t"),  # index too short
        ("ab", b"\0" * INDEX_SIZE, b"\0" * 8, "xy", "t"),  # offsets too short
        ("ab", b"\0" * INDEX_SIZE, b"\0" * 12, "xy", b"t"),  # text not str
    ],
)
def test_map_code_points_refuses_bad_tables(args: tuple[object, ...]) -> None:
    with pytest.raises((TypeError, ValueError)):
        _lookalike_c().map_code_points(*args)


def test_index_code_points_layout() -> None:
    import array

    index = _lookalike_c().index_code_points("ab\U0010ffff")
    assert len(index) == INDEX_SIZE
    ranks = array.array("I", index[: 4 * 0x4401])
    bits = array.array("Q", index[4 * 0x4401 :])
    assert ranks[0] == ranks[1] == 0 and ranks[2] == 2 and ranks[0x4400] == 3
    assert bits[1] == 0b110 << 32 and bits[0x43FF] == 1 << 63
    assert sum(map(int.bit_count, bits)) == 3
    for unordered in ("ba", "aa"):
        with pytest.raises(ValueError, match="increase"):
            _lookalike_c().index_code_points(unordered)


def test_map_code_points_checks_offsets_against_values() -> None:
    import array

    index = _lookalike_c().index_code_points("ab")
    past = array.array("I", [0, 1, 9]).tobytes()
    with pytest.raises(ValueError, match="offsets"):
        _lookalike_c().map_code_points("ab", index, past, "xy", "b")
    fine = array.array("I", [0, 1, 2]).tobytes()
    assert _lookalike_c().map_code_points("ab", index, fine, "xy", "cab") == "cxy"


@pytest.mark.parametrize(
    "args",
    [
        (b"\0" * 4, b"\0" * 2, b"\xff" * 8, (1, -1)),  # four arguments
        (b"\1\0\0\0", b"\0" * 2, b"\xff" * 8, (1, -1), "t"),  # starts not from 0
        (b"\0" * 4, b"\0" * 4, b"\xff" * 8, (1, -1), "t"),  # ids do not match starts
        (b"\0" * 4, b"\0" * 2, b"\xff" * 7, (1, -1), "t"),  # masks not whole words
        (b"\0" * 4, b"\1\0", b"\xff" * 8, (1, -1), "t"),  # id without a mask
        (b"\0" * 4, b"\0" * 2, b"\xff" * 8, [1, -1], "t"),  # values not a tuple
    ],
)
def test_script_mask_refuses_bad_tables(args: tuple[object, ...]) -> None:
    with pytest.raises((TypeError, ValueError)):
        _lookalike_c().script_mask(*args)


_LOOKALIKE_PROBE = """
import json, sys
from sanitizer import lookalike
pairs = json.loads(sys.stdin.read())
print(json.dumps([
    [lookalike.skeleton(a), lookalike.skeleton(b), str(lookalike.confusable(a, b)),
     sorted(lookalike.resolved_scripts(a)), lookalike.identifier_key(a)]
    for a, b in pairs
]))
"""


def test_lookalike_answers_are_the_same_in_pure_python() -> None:
    """SANITIZER_PURE_PYTHON=1 gives the same skeletons, verdicts, scripts and keys."""
    _lookalike_c()
    pairs = [
        ("paypal", "p\u0430yp\u0430l"),
        ("\u5c71\u7530\u592a\u90ce", "\u2f2d\u2f65\u592a\u90de"),
        ("a\0b", "a\0b\u0301"),
        ("I\u0307stanbul", "\u0130stanbul"),
        ("\u200babc\u00ad", "abc"),
        ("\U0001e900\u0315\u0301", "x\u0301\u0315"),
        ("", "\u3000"),
    ]
    pairs += [(chr(cp), chr(cp + 1)) for cp in range(0, 0x110000, 997)]
    text = json.dumps(pairs)
    outputs = []
    for pure in (False, True):
        env = {k: v for k, v in os.environ.items() if k != "SANITIZER_PURE_PYTHON"}
        if pure:
            env["SANITIZER_PURE_PYTHON"] = "1"
        run = subprocess.run(
            [sys.executable, "-c", _LOOKALIKE_PROBE],
            input=text,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.append(json.loads(run.stdout))
    assert outputs[0] == outputs[1]
