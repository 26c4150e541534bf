"""The native seam (sanitizer._native) and the C extension's contract with Python.

- the table layout the C scan reads (exported by the extension) is the layout
  ``_classtable`` writes, and the validator's block is ``_native.VALIDATOR_BLOCK``;
- ``_native.BACKEND`` follows ``SANITIZER_PURE_PYTHON`` and the decoder follows it; the
  environment is read once and never fails the import (every value, in a subprocess);
- the extension reports the ABI version the seam was written for, and one reporting
  another (a stale build) is not used, with a warning;
- ``_speedups.pyi``, the ``_native.Speedups`` protocol and the module's methods name the
  same attributes with the same parameters, and the C functions accept and refuse the
  arities they state;
- the look-alike lookups in C (lookalike.c) answer as the pure-Python ones, on every code
  point, and SANITIZER_PURE_PYTHON=1 gives the same look-alike results.
"""

from __future__ import annotations

import array
import ast
import functools
import importlib
import json
import os
import re
import subprocess
import sys
import types
import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sanitizer
import sanitizer._policy._classtable as _classtable
from sanitizer import _decoder as decoder
from sanitizer import _grammar as grammar
from sanitizer import _machine, _native, profiles
from sanitizer._errors import Utf8Error
from sanitizer._policy.compiled import compile_policy
from tests.support.native_interface import check_interface

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


def test_validator_block_matches() -> None:
    """The one Python statement of the block (_native) is the C kernels' block, and the
    modules that reason about it read it there."""
    assert _extension().VALIDATOR_BLOCK == _native.VALIDATOR_BLOCK == 64
    from sanitizer._fuzzing import oracles
    from sanitizer.cli import _verdict

    assert oracles._BLOCK == _native.VALIDATOR_BLOCK
    assert _verdict._UNPROVEN_TAIL == _native.VALIDATOR_BLOCK + 3


# -- the ABI version: one number, checked once ------------------------------------------

_ABI_DEFINE = re.compile(r"#define SANITIZER_SPEEDUPS_ABI_VERSION (\d+)")


def test_abi_version_is_the_seams() -> None:
    """The header's version (what a fresh build reports) is the one the seam checks, and
    the built extension reports it (else it would not be in use)."""
    header = (PACKAGE / "_native_src" / "speedups_capi.h").read_text(encoding="utf-8")
    found = _ABI_DEFINE.search(header)
    assert found is not None
    assert int(found[1]) == _native.ABI_VERSION
    assert _extension().ABI_VERSION == _native.ABI_VERSION


def test_a_stale_extension_is_refused_with_one_warning() -> None:
    stale = types.ModuleType("sanitizer._speedups")
    stale.ABI_VERSION = _native.ABI_VERSION - 1  # type: ignore[attr-defined]
    with pytest.warns(RuntimeWarning, match="stale build.*reinstall") as caught:
        assert _native.checked_extension(stale, _native.ABI_VERSION) is None
    assert len(caught) == 1
    del stale.ABI_VERSION  # type: ignore[attr-defined]  # built before ABI_VERSION existed
    with pytest.warns(RuntimeWarning, match="ABI version None"):
        assert _native.checked_extension(stale, _native.ABI_VERSION) is None
    current = _extension()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _native.checked_extension(current, _native.ABI_VERSION) is current


_STALE_PROBE = """
import sys, types, warnings
warnings.simplefilter("always")
stale = types.ModuleType("sanitizer._speedups")
stale.ABI_VERSION = -1
sys.modules["sanitizer._speedups"] = stale  # what `from . import _speedups` then finds
with warnings.catch_warnings(record=True) as caught:
    import sanitizer, sanitizer.web._native as web
print(sanitizer.BACKEND, web.BACKEND, sanitizer.decode(b"\\xc3\\xa9"), len(caught))
print(caught[0].message)
"""


def test_a_stale_build_falls_back_to_pure_python() -> None:
    """An in-place build left from another checkout: the import works, on the pure-Python
    backend (the web layer's too), after one warning that says to reinstall."""
    out = _run(_STALE_PROBE, {})
    first, message = out.stdout.splitlines()
    assert first == "python python é 1"
    assert "stale build" in message and "reinstall" in message


def test_no_feature_guards_on_the_extension() -> None:
    """Every caller relies on the ABI check: no ``hasattr``/``getattr`` probing of the
    extension for "an older build"."""
    guard = re.compile(r"(hasattr|getattr)\(\s*(speedups|_speedups|web_speedups)\b")
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{text.count(chr(10), 0, m.start()) + 1}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for text in [path.read_text(encoding="utf-8")]
        for m in guard.finditer(text)
    ]
    assert offenders == []


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
from sanitizer import _machine, _native, _decoder as decoder
print(json.dumps({
    "native": _native.BACKEND,
    "package": sanitizer.BACKEND,
    "speedups": _native.speedups is not None,
    "runner_is_machine": decoder._runner is _machine,
    "decode_is_py": decoder.decode is decoder.decode_py,
}))
"""


def _run(code: str, env_vars: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``code`` in a new interpreter with ``env_vars`` and neither variable of the seam
    set otherwise; warnings shown as they come (not errors, not hidden)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("SANITIZER_PURE_PYTHON", "SANITIZER_UTF8_KERNEL", "PYTHONWARNINGS")
    }
    env.update(env_vars)
    return subprocess.run(
        [sys.executable, "-W", "default", "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )


def _probe(pure: bool) -> dict[str, object]:
    out = _run(_PROBE, {"SANITIZER_PURE_PYTHON": "1"} if pure else {})
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


# -- the environment: read once, in _native.py, never fatal --------------------------------

_ENV_PROBE = (
    "import sanitizer, sanitizer._native as n, sanitizer.web._native as w; "
    "print(sanitizer.BACKEND, w.BACKEND, n.utf8_kernel())"
)


def _built() -> bool:
    try:
        importlib.import_module("sanitizer._speedups")
    except ImportError:  # pragma: no cover - the extension is optional
        return False
    return True


@pytest.mark.parametrize(
    ("value", "pure", "warns"),
    [
        ("1", True, False),
        ("true", True, False),
        (" YES ", True, False),
        ("0", False, False),
        ("false", False, False),
        ("No", False, False),
        ("", False, False),
        ("maybe", False, True),
    ],
)
def test_pure_python_variable(value: str, pure: bool, warns: bool) -> None:
    """1/true/yes (any case, stripped) select pure Python; 0/false/no/empty the C
    extension; anything else the C extension after one warning naming the values."""
    out = _run(_ENV_PROBE, {"SANITIZER_PURE_PYTHON": value})
    backend = "python" if pure or not _built() else "c"
    assert out.stdout.split()[:2] == [backend, backend]
    if warns:
        assert out.stderr.count("RuntimeWarning") == 1, out.stderr
        assert f"SANITIZER_PURE_PYTHON={value!r}" in out.stderr
        assert "1, true or yes" in out.stderr and "0, false, no or empty" in out.stderr
    else:
        assert out.stderr == ""


def _warns_on(value: str) -> bool:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _native.pure_python_requested(value)
    return len(caught) == 1 and caught[0].category is RuntimeWarning


def test_pure_python_requested_reads_the_value() -> None:
    """The function the seam reads SANITIZER_PURE_PYTHON with (unset: None)."""
    assert not _native.pure_python_requested(None)
    assert _native.pure_python_requested("\tyes\n")
    assert _warns_on("off") and _warns_on("enabled")
    assert not _warns_on("0") and not _warns_on("TRUE") and not _warns_on("")


@pytest.mark.parametrize("value", ["bogus", "avx9000", "AVX2 please"])
def test_unknown_kernel_warns_and_is_ignored(value: str) -> None:
    """``SANITIZER_UTF8_KERNEL=bogus python -c "import sanitizer"`` works: one warning
    naming the valid kernels, and the best kernel runs."""
    if not _built():  # pragma: no cover - the extension is optional
        pytest.skip("C extension not built")
    out = _run(_ENV_PROBE, {"SANITIZER_UTF8_KERNEL": value})
    assert out.stdout.split() == ["c", "c", _extension().utf8_kernels()[0]]
    assert out.stderr.count("RuntimeWarning") == 1, out.stderr
    assert f"SANITIZER_UTF8_KERNEL={value}: expected avx512, avx2, sse41, neon, scalar or auto" in (
        out.stderr
    )


def test_unavailable_kernel_warns_and_is_ignored() -> None:
    ext = _extension()
    missing = [k for k in ("avx512", "avx2", "sse41", "neon") if k not in ext.utf8_kernels()]
    if not missing:  # pragma: no cover - every kernel runs here
        pytest.skip("this machine runs every kernel")
    out = _run(_ENV_PROBE, {"SANITIZER_UTF8_KERNEL": missing[0]})
    assert out.stdout.split() == ["c", "c", ext.utf8_kernels()[0]]
    assert out.stderr.count("RuntimeWarning") == 1, out.stderr
    assert "this CPU or build cannot run it" in out.stderr
    assert ", ".join(ext.utf8_kernels()) in out.stderr  # what it can run


def test_kernel_variable_is_not_read_by_the_pure_backend() -> None:
    out = _run(_ENV_PROBE, {"SANITIZER_UTF8_KERNEL": "bogus", "SANITIZER_PURE_PYTHON": "1"})
    assert out.stdout.split() == ["python", "python", "python"]
    assert out.stderr == ""


def test_the_environment_is_read_in_one_place() -> None:
    """Only _native.py reads the seam's variables (no getenv in C, no second reader)."""
    readers = sorted(
        str(path.relative_to(PACKAGE.parent))
        for pattern in ("*.py", "*.c", "*.h")
        for path in PACKAGE.rglob(pattern)
        if re.search(
            r"(environ|getenv)[^\n]*SANITIZER_(PURE_PYTHON|UTF8_KERNEL)",
            path.read_text(encoding="utf-8"),
        )
    )
    assert readers == ["sanitizer/_native.py"]
    for path in PACKAGE.rglob("*.c"):
        assert "getenv" not in path.read_text(encoding="utf-8"), path


# -- the stub, the protocol and the module: the same names and parameters -----------------


def _samples(ext: ModuleType) -> dict[str, tuple[tuple[object, ...], dict[str, object]]]:
    """A call each C function accepts, with every positional parameter: the package's own
    arguments (its tables), so that calls which register something register the same."""
    from sanitizer import Category
    from sanitizer._lookalike import scripts, skeletons
    from sanitizer._policy import _carrier_runs, _reveal
    from sanitizer._policy._scan import scanner
    from sanitizer._source_gate import _BidiJudge
    from sanitizer.precis import PROFILE_NAMES, get_profile

    m = grammar.machine()
    compiled = compile_policy(profiles.TEXT)
    verdict = compiled.verdict_args
    assert verdict is not None
    edits = compiled.direct_edit_args or (*verdict, bytes(256))
    kernel = ext.utf8_kernel()
    scan_args = scanner(frozenset(Category), True).c_args
    assert scan_args is not None
    index = ext.index_code_points("ab")
    offsets = array.array("I", [0, 1, 2]).tobytes()
    mask = scripts.native_resolved_mask(ext)  # type: ignore[arg-type]
    found = skeletons.native()
    assert found is not None
    tables = found[0].args[0]  # type: ignore[attr-defined]
    table_args = [
        skeletons._lookups.skeleton_map().native(),  # as skeletons.native() passes them
        skeletons._lookups.decomposition_map().native(),
        skeletons._lookups.combining_map().native(),
        scripts.native_script_tables(),
        skeletons._VERDICTS,
    ]
    small = ("ab", index, offsets, "xy")
    key_tables = (tables, small, small, small)
    enforce = get_profile(PROFILE_NAMES[0])._native()
    assert enforce is not None
    reveal_tables = (*_reveal._c_tables(), _reveal.c_kinds())
    runs_from = (_reveal.ivd_table(), False, 0, 0, 8)  # ivd, ivd_on, start, done, limit
    return {
        "decode": ((), {"data": b"a", "errors": "replace"}),
        "set_decode_fallback": ((decoder.decode_py, m.table, m.nclasses, Utf8Error), {}),
        "spans": ((b"\xff", m.table, m.nclasses, 0, -1), {}),
        "replace": ((b"\xff", m.table, m.nclasses, 0, None), {}),
        "valid_prefix": ((b"abc",), {}),
        "utf8_kernel": ((), {}),
        "utf8_kernels": ((), {}),
        "set_utf8_kernel": ((kernel,), {}),  # the one running: nothing changes
        "valid_prefix_using": ((kernel, b"abc"), {}),
        "is_valid": ((b"abc",), {"allow_overlong_nul": True}),
        "set_is_valid_fallback": ((decoder.is_valid_py,), {}),
        "scan": (("abc", *verdict, 0), {}),
        "clean": ((b"abc", *verdict), {}),
        "take_decoded": ((b"abc",), {}),
        "clean_edit": ((b"abc", *edits), {}),
        "count_groups": (("abc", *scan_args[:3], 0, bytes(256), True), {}),
        "list_groups": (("abc", *scan_args[:3], -1, bytes(256), True), {}),
        "list_findings": (
            ("abc", *scan_args[:3], -1, bytes(256), True, (object, ()), None, 3),
            {},
        ),
        "groups_outside": (
            ("abc", *scan_args[:3], -1, bytes(256), array.array("q", [0, 1]).tobytes(), False),
            {},
        ),
        "payload_spans": (
            (
                "abc",
                *reveal_tables,
                _reveal.ivd_table(),
                _carrier_runs._vs_table(),
                _carrier_runs._ends_table(),
                scan_args[2],
                0,
            ),
            {},
        ),
        "span_members": (
            ("abc", *scan_args[:3], bytes(256), array.array("q", [0, 1]).tobytes()),
            {},
        ),
        "index_code_points": (("ab",), {}),
        "map_code_points": (("ab", index, offsets, "xy", "cab"), {}),
        "script_mask": ((*mask.args, "abc"), {}),  # type: ignore[attr-defined]
        "skeleton_tables": ((*table_args,), {}),
        "skeleton": ((tables, "abc"), {}),
        "confusable": ((tables, "abc", "abd"), {}),
        "normalize": (("a\u0301", False), {}),
        "normalize_runs": (("a\u0301", False, 1), {}),
        "decode_valid": ((b"ab",), {}),
        "str_kind": (("ab",), {}),
        "source_lines": (("x = 1\n",), {}),
        "identifiers": (("x = 1\n", [0, 5], bytes(8), False), {}),
        "count_mark_runs": (("a\u0301", *scan_args[:3], 0, 0), {}),
        "list_mark_runs": (
            ("abc", *scan_args[:3], 0, 0, -1, (object, {}), None, 3),
            {},
        ),
        "bidi_feed": ((_BidiJudge(), "a\u202eb\u202c", 0, 0, None, -1), {}),
        "precis_enforce": ((*enforce.args, "abc"), {}),  # type: ignore[attr-defined]
        "column_check": ((0, 1, 0, None, bytes(8), b""), {}),
        "column_gather": ((0, 1, 0, None, bytes(8), b"", [], [], 0), {}),
        "column_clean": ((0, 1, 0, None, bytes(8), b"", *verdict), {}),
        "column_translate": ((0, 1, 0, None, bytes(8), b"", (b"x",) * 128), {}),
        "column_keys": ((0, 1, 0, None, bytes(8), b"", *key_tables), {}),
        "precis_layout": ((), {}),
        "word_marks": (("a\u200e b", *reveal_tables, 1, 8, 2), {}),
        "reveal_scan": (("abc", *reveal_tables, _reveal.ivd_table(), 0), {}),
        "utf8_length": (("a\u00e9\u20ac\U0001f600", 0, 4), {}),
        "reveal_runs": (("abc", *reveal_tables, *runs_from, _reveal._c_reader(), 0, -1), {}),
    }


def test_protocol_stub_and_module_agree() -> None:
    """Names and parameters (kinds, defaults, annotations) of _native.Speedups,
    _speedups.pyi and the module's methods; each C function accepts its sample and
    refuses one argument more, one fewer and an unknown keyword."""
    ext = _extension()
    if _native.speedups is None:  # the package builds its C arguments only for C
        pytest.skip("SANITIZER_PURE_PYTHON=1: no C tables to call the extension with")
    check_interface(ext, _native.Speedups, PACKAGE / "_speedups.pyi", _samples(ext))


# -- the build: every C file is compiled, the stub and the sources ship ----------------------


def setup_extensions(root: Path) -> dict[str, list[str]]:
    """setup.py's EXTENSIONS literal: extension -> its C files."""
    tree = ast.parse((root / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [
            t.id for t in node.targets if isinstance(t, ast.Name)
        ] == ["EXTENSIONS"]:
            value: dict[str, list[str]] = ast.literal_eval(node.value)
            return value
    raise AssertionError("setup.py has no EXTENSIONS")


def test_every_c_source_is_built_and_shipped() -> None:
    """Each C file under a _native_src/ is built once, by the extension of the package
    it is in; each package with C ships its sources and its stub."""
    root = PACKAGE.parent
    if not (root / "setup.py").exists():  # pragma: no cover - an installed copy
        pytest.skip("no source tree")
    extensions = setup_extensions(root)
    assert sorted(extensions) == ["sanitizer._speedups", "sanitizer.web._speedups"]
    built = [source for sources in extensions.values() for source in sources]
    assert len(built) == len(set(built))
    sources = sorted(str(p.relative_to(root)) for p in PACKAGE.rglob("_native_src/*.c"))
    assert sorted(built) == sources
    for name, files in extensions.items():
        package = name.rpartition(".")[0].replace(".", "/")
        assert all(f.startswith(f"{package}/_native_src/") for f in files), name
        assert (root / package / "_speedups.pyi").is_file()
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    for package in ("sanitizer", '"sanitizer.web"'):
        line = next(ln for ln in pyproject.splitlines() if ln.startswith(f"{package} = ["))
        for pattern in ('"*.pyi"', '"_native_src/*.c"', '"_native_src/*.h"'):
            assert pattern in line, (package, pattern)


# -- lookalike.c: the same answers as the pure-Python lookups --------------------------------


def _lookalike_c() -> ModuleType:
    return _extension()


def _skeleton_c() -> tuple[Callable[[str], str], dict[int, str]]:
    from sanitizer._lookalike import _lookups

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
    from sanitizer._lookalike import scripts

    return scripts.native_resolved_mask(_lookalike_c())  # type: ignore[arg-type]


@pytest.mark.slow  # every code point: about a second
def test_script_mask_equals_the_reference_on_every_code_point() -> None:
    from sanitizer._lookalike import scripts

    native = _script_mask_c()
    for cp in range(0x110000):
        ch = chr(cp)
        assert native(ch) == scripts.resolved_mask_py(ch), hex(cp)
    assert native("") == scripts.ALL_MASK


@given(st.lists(st.sampled_from("aа山た한ㄅカ1-\u0301\u30fc\u3001α\U0001e900᙮"), max_size=12))
@settings(deadline=None)
def test_script_mask_equals_the_reference(chars: list[str]) -> None:
    from sanitizer._lookalike import scripts

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
from sanitizer import _lookalike as lookalike
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
