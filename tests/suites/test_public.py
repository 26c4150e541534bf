"""The public edge: which modules and names users may import, and how they type.

Public are ``sanitizer`` (its ``__all__``) and the modules whose dotted name has no
component starting with an underscore; everything else is internal (docs/design.md).
Each public module says what it exports (``__all__``); the package's lazily loaded names
come from one table, ``_PUBLIC``, which also makes ``__all__`` and the type stub
``__init__.pyi`` (``tools/gen_public.py``); no public name types as ``Any``; the old
paths of moved modules still import, with a DeprecationWarning (``sanitizer._moved``).
"""

from __future__ import annotations

import ast
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import sanitizer
from sanitizer._moved import MOVED

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sanitizer"
STUB = PACKAGE / "__init__.pyi"
sys.path.insert(0, str(ROOT / "tools"))
import gen_public  # noqa: E402  (tools/ is no package)


def _name_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


MODULES = {_name_of(p): p for p in sorted(PACKAGE.rglob("*.py")) if p.stem != "__main__"}
# The old paths the documentation once showed -> the module holding their code now: each
# is a shim that warns and forwards, for one release (sanitizer/_moved.py).
OLD_PATHS = MOVED
# the files that held them: gone, so that the moved files kept their history
OLD_FILES = [
    "sanitizer/decoder.py",
    "sanitizer/identifiers.py",
    "sanitizer/lookalike/__init__.py",
    "sanitizer/policy/__init__.py",
    "sanitizer/policy/compiled.py",
    "sanitizer/fuzzing/mutants.py",
    "sanitizer/fuzzing/targets.py",
    "sanitizer/fuzzing/wide_oracle.py",
    "sanitizer/wide.py",
]
SHIMS = {name for name in MODULES if name in OLD_PATHS}


PUBLIC_MODULES = sorted(
    name
    for name in MODULES
    if not any(_private(part) for part in name.split(".")) and name not in SHIMS
)


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """The module's statements, those under a top-level ``if`` (TYPE_CHECKING) included."""
    found: list[ast.stmt] = []
    for node in tree.body:
        found.append(node)
        if isinstance(node, ast.If):
            found += node.body + node.orelse
    return found


def _bound(tree: ast.Module, package: str = "sanitizer") -> set[str]:
    """The names a module binds at its top level, as a type checker reads them (a star
    import: the ``__all__`` of the module it names)."""
    names: set[str] = set()
    for node in _top_level(tree):
        if isinstance(node, ast.ImportFrom) and node.names[0].name == "*":
            anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            source = f"{anchor}.{node.module}" if node.level else str(node.module)
            names |= set(importlib.import_module(source).__all__)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_the_tree_has_public_modules() -> None:
    assert {"sanitizer", "sanitizer.web", "sanitizer.precis", "sanitizer.fuzzing"} <= set(
        PUBLIC_MODULES
    )


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_every_public_module_has_all(name: str) -> None:
    assert "__all__" in _bound(_tree(MODULES[name])), f"{name} has no __all__"
    module = importlib.import_module(name)
    exported = module.__all__
    assert len(set(exported)) == len(exported), f"{name}.__all__ repeats a name"


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_every_public_name_is_bound_for_type_checkers(name: str) -> None:
    """A name a module loads on first use (``__getattr__``) types as whatever that
    function returns unless the module (under ``TYPE_CHECKING``) or its stub binds it."""
    path = MODULES[name]
    stub = path.with_suffix(".pyi")
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    bound = _bound(_tree(stub if stub.is_file() else path), package)
    missing = sorted(set(importlib.import_module(name).__all__) - bound)
    assert missing == [], f"{name}: {missing} would type as its __getattr__'s return"


def test_the_table_all_and_the_stub_agree() -> None:
    table = sanitizer._PUBLIC
    assert list(table) == sanitizer.__all__
    stub = _tree(STUB)
    imported = {
        (alias.asname or alias.name): (node.module or "", alias.name)
        for node in stub.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert set(imported) == set(table) | {"__version__"}
    for name, module in table.items():
        source, original = imported[name]
        where = f"sanitizer.{source}" if source else f"sanitizer.{name}"
        assert (where, original) == (module, name) or where == module == f"sanitizer.{name}"
    assert "__getattr__" not in _bound(stub), "the stub must not type unknown names as Any"
    (all_node,) = [
        n for n in stub.body if isinstance(n, ast.Assign) and n.targets[0].id == "__all__"
    ]  # type: ignore[attr-defined]
    assert sorted(ast.literal_eval(all_node.value)) == sorted(table)
    assert STUB.read_text(encoding="utf-8") == gen_public.stub(gen_public.public_table())


def test_the_names_imported_with_the_package_are_the_tables() -> None:
    """The core's names are imported by ``import`` statements (start-up: no loop over the
    table); they are exactly the table's entries of the modules they come from."""
    imported = {
        (alias.asname or alias.name): f"sanitizer.{node.module}"
        for node in _tree(PACKAGE / "__init__.py").body
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module != "_version"
        for alias in node.names
    }
    modules = set(imported.values())
    assert imported == {n: m for n, m in sanitizer._PUBLIC.items() if m in modules}
    loaded = importlib.import_module("sys").modules
    assert not [m for m in set(sanitizer._PUBLIC.values()) - modules if m == "sanitizer"]
    assert modules <= set(loaded)


def test_every_table_entry_resolves_to_its_module() -> None:
    for name, module in sanitizer._PUBLIC.items():
        value = getattr(sanitizer, name)
        if module == f"sanitizer.{name}":
            assert value is sys.modules[module]
        else:
            assert value is getattr(importlib.import_module(module), name), name


@pytest.mark.slow
def test_no_public_name_types_as_any(tmp_path: Path) -> None:
    """mypy's revealed type of every name in the ``__all__`` of every public module."""
    names = [
        (module, name)
        for module in PUBLIC_MODULES
        for name in importlib.import_module(module).__all__
    ]
    probe = tmp_path / "probe.py"
    lines = [f"import {m}" for m in sorted({m for m, _ in names})]
    lines += [f"reveal_type({m}.{n})" for m, n in names]
    probe.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", str(probe)],
        cwd=ROOT,
        env={**os.environ, "MYPYPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    revealed = re.findall(r'Revealed type is "(.*)"', proc.stdout)
    assert len(revealed) == len(names), proc.stdout + proc.stderr
    untyped = [f"{m}.{n}" for (m, n), t in zip(names, revealed, strict=True) if t == "Any"]
    assert untyped == []


# -- the old paths ----------------------------------------------------------------------


def _forget(old: str) -> None:
    for name in [n for n in sys.modules if n == old or n.startswith(old + ".")]:
        del sys.modules[name]


@pytest.mark.parametrize("old", sorted(OLD_PATHS))
def test_an_old_path_warns_and_forwards(old: str) -> None:
    new = OLD_PATHS[old]
    shim_name = old if old in SHIMS else old.rpartition(".")[0]  # policy.compiled: policy's
    _forget(shim_name)
    with pytest.warns(DeprecationWarning) as warned:
        shim = importlib.import_module(old)
    expected = f"{shim_name} is internal and moved to {OLD_PATHS[shim_name]}"
    assert [str(w.message) for w in warned if expected in str(w.message)], expected
    holder = importlib.import_module(new)
    assert shim is not holder
    names = getattr(holder, "__all__", None) or [n for n in vars(holder) if n[0] != "_"]
    assert names and all(getattr(shim, n) is getattr(holder, n) for n in names)
    _forget(shim_name)


def test_the_old_files_are_gone_and_every_shim_is_an_old_path() -> None:
    assert [f for f in OLD_FILES if (ROOT / f).exists()] == []
    shims = {n for n, p in MODULES.items() if "_moved import forward" in p.read_text("utf-8")}
    assert shims == SHIMS
    assert SHIMS | {"sanitizer.policy.compiled"} == set(OLD_PATHS)


# -- the API reference ------------------------------------------------------------------

REFERENCE = sorted((ROOT / "docs" / "reference").glob("*.md"))
_DIRECTIVE = re.compile(r"^::: (\S+)\n((?:[ \t]+\S.*\n)*)", re.MULTILINE)


def _directives() -> list[tuple[str, list[str]]]:
    """Each ``::: target`` of the reference with the members it lists (none: all)."""
    found = []
    for page in REFERENCE:
        for match in _DIRECTIVE.finditer(page.read_text(encoding="utf-8")):
            members = re.findall(r"^\s+- (\w+)\s*$", match[2], re.MULTILINE)
            found.append((match[1], members))
    return found


def test_the_reference_documents_public_modules_only() -> None:
    targets = [target for target, _ in _directives()]
    assert targets
    internal = [t for t in targets if t not in PUBLIC_MODULES]  # shims too
    assert internal == []


def test_the_reference_documents_every_public_name_of_the_package() -> None:
    """Each name of ``sanitizer.__all__`` once: listed under ``::: sanitizer`` when its
    module is internal, else documented with its public module."""
    listed = [m for target, members in _directives() if target == "sanitizer" for m in members]
    assert len(listed) == len(set(listed)), "a name documented twice"
    public = set(PUBLIC_MODULES)
    with_module = {n for n, m in sanitizer._PUBLIC.items() if m in public}
    assert set(listed) == set(sanitizer.__all__) - with_module
    documented = {target for target, _ in _directives()}
    assert {sanitizer._PUBLIC[n] for n in with_module} <= documented
