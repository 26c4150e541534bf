"""The layering contract (docs/design.md), read from the import statements with ``ast``.

Three layers, depending inward only:

0. core, pure and I/O-free: ``_grammar``, ``_machine``, ``_decoder``, ``_errors``,
   ``_charnames``, ``_arguments`` (the argument checks), ``_native`` (the one native seam)
   and the ``_speedups`` it loads; the other encodings (``utf16``, ``utf32``, ``wide``,
   ``utf7``);
1. policy and identifiers: ``sanitizer/_policy/``, ``profiles``, ``_identifiers``,
   ``_categories`` and its generated ``_chartables_data``, ``_lookalike``,
   ``_source_gate``, ``precis``; the package's own ``__init__`` (the public facade, which
   loads this layer lazily) counts here, and so do ``_moved`` and the deprecated shims
   at the old import paths (``decoder``, ``identifiers``, ``lookalike``, ``policy``);
2. adapters: ``sanitizer/web/``, ``sanitizer/cli/`` (and ``__main__``),
   ``sanitizer/fuzzing/`` (the facade) and ``sanitizer/_fuzzing/`` (what it stands for),
   ``sanitizer/strategies.py`` (Hypothesis strategies), ``sanitizer/integrations/``, and
   the fuzz targets in ``fuzz/``.

Rules: nothing imports a higher layer; adapters do not import each other (except the CLI
and the fuzz targets, which drive ``sanitizer._fuzzing``, and the web target's oracle in
``sanitizer._fuzzing``, which drives ``sanitizer.web``); no module imports another
package's private (``_x``) module or name.  An underscore says "internal" twice over: a
module or package right under ``sanitizer`` with one is not for users, and one inside a
package is that package's own.  The internal modules every package may import are
``SHARED_PRIVATE``: the core, the native seam, the argument checks, and the interfaces of
the internal packages (their modules without an underscore of their own, such as
``sanitizer._policy.compiled``, the adapters' view of a policy).  Imports inside functions
and under ``TYPE_CHECKING`` count like any other.  A new module must be placed in
``LAYERS`` below.

The C extensions are held to the same layers: each C file is built by the extension of
the package whose ``_native_src/`` holds it (``sanitizer._speedups``: core;
``sanitizer.web._speedups``: the web adapter), names the Python modules it imports in
string literals (``PyImport_ImportModule``, ``PyCapsule_Import``) that ``NATIVE_IMPORTS``
lists and the rules above allow, and includes only the headers of its own folder and the
core's C interface (``speedups_capi.h``); each extension is imported by its package's
seam alone.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.source_trees import syntax as source_syntax

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sanitizer"

CORE, POLICY, ADAPTER = 0, 1, 2
LAYER_NAMES = {CORE: "core", POLICY: "policy", ADAPTER: "adapter"}
# sanitizer.<first component> -> layer
LAYERS = {
    "_grammar": CORE,
    "_machine": CORE,
    "_decoder": CORE,
    "_errors": CORE,
    "_charnames": CORE,
    "_native": CORE,
    "_speedups": CORE,
    "_version": CORE,
    "_frozen": CORE,  # Frozen: value classes without dataclasses (start-up)
    "_identity_cache": CORE,
    "_code_point_map": CORE,
    "_arguments": CORE,  # the argument checks every entry point shares
    "utf16": CORE,  # strict UTF-16 / UTF-32
    "utf32": CORE,
    "_wide": CORE,
    "_wide_codecs": CORE,  # the UTF-16/32 codecs by encoding name
    "utf7": CORE,  # UTF-7, RFC 2152
    "_arrow": CORE,  # Arrow columns read and written through the C Data Interface
    "_policy": POLICY,
    "profiles": POLICY,
    "_identifiers": POLICY,
    "_categories": POLICY,
    "_category_meanings": POLICY,  # what each Category means, in words
    "_rule_registry": POLICY,  # every rule check reports: id, severity, words, example
    "_chartables_data": POLICY,
    "_lookalike": POLICY,  # UTS #39
    "_source_gate": POLICY,  # the SOURCE gate, UTS #55
    "precis": POLICY,  # PRECIS, RFC 8264, 8265, 8266
    "columns": POLICY,  # the checks over Arrow columns (the core's _arrow walks them)
    "web": ADAPTER,
    "cli": ADAPTER,
    "_moved": POLICY,  # the old import paths, kept for one release: their shims ...
    "decoder": POLICY,  # ... (deprecated: each forwards to the module it names)
    "wide": POLICY,
    "identifiers": POLICY,
    "lookalike": POLICY,
    "policy": POLICY,
    "__main__": ADAPTER,
    "fuzzing": ADAPTER,
    "_fuzzing": ADAPTER,  # fuzzing's internals (``fuzzing`` is their facade)
    "strategies": ADAPTER,
    "integrations": ADAPTER,  # pydantic, Django, polars
}
# adapter -> the other adapters it may import
# (``fuzzing`` -> ``web``: the web target's oracle, ``sanitizer/_fuzzing/web_oracle.py``,
# ships in the package so an installed wheel runs it; public names only)
ADAPTER_USES = {
    "cli": {"_fuzzing"},
    "__main__": {"cli"},
    "fuzz": {"fuzzing", "_fuzzing"},
    "fuzzing": {"_fuzzing"},
    "_fuzzing": {"web"},
}
# Internal modules (an underscore: not for users) that every package of sanitizer may
# import, and internal packages whose modules without an underscore of their own may be
# imported too (``sanitizer._policy.compiled``); what is underscored inside them stays
# theirs (``sanitizer._policy._scan``)
SHARED_PRIVATE = {
    "sanitizer._grammar",  # the core: the grammar, decoder, errors, character names
    "sanitizer._decoder",
    "sanitizer._errors",
    "sanitizer._charnames",
    "sanitizer._machine",  # the reference runner, run by the fuzzing oracles
    "sanitizer._native",  # the one native seam
    "sanitizer._frozen",  # value classes without dataclasses
    "sanitizer._identity_cache",  # what is derived from a policy, found by identity
    "sanitizer._arguments",  # the argument checks every entry point shares
    "sanitizer._code_point_map",  # code point -> string maps (look-alikes, PRECIS)
    "sanitizer._rule_registry",  # the rules, read by the CLI's SARIF and the docs
    "sanitizer._wide",  # what UTF-16 and UTF-32 share
    "sanitizer._wide_codecs",  # the UTF-16/32 codecs by name (--encoding, inspect(encoding=))
    "sanitizer._categories",  # the policy layer: character categories and what they mean
    "sanitizer._category_meanings",
    "sanitizer._identifiers",  # normalization of identifiers
    "sanitizer._source_gate",  # the SOURCE gate
    "sanitizer._policy",  # the engine; ``compiled`` is the adapters' view of a policy
    "sanitizer._lookalike",  # UTS #39
    "sanitizer._fuzzing",  # fuzzing's internals, driven by the CLI and the fuzz targets
    "sanitizer._moved",  # the old paths' shims (sanitizer._fuzzing.mutants, ...)
}


def shared(target: str) -> bool:
    """Whether ``target`` is a module of SHARED_PRIVATE, or a module without an underscore
    of its own inside one of its packages."""
    return any(
        target == name
        or (
            target.startswith(name + ".")
            and not any(_private(p) for p in target[len(name) + 1 :].split("."))
        )
        for name in SHARED_PRIVATE
    )


# in C: the core's extension, for its capsule (speedups_capi.h)
SHARED_NATIVE = {"sanitizer._speedups"}
# each C extension -> the only Python module that imports it (its package's seam)
NATIVE_SEAMS = {
    "sanitizer._speedups": "sanitizer._native",
    "sanitizer.web._speedups": "sanitizer.web._native",
}
# C file -> the Python modules it imports by name; every other C file imports none
NATIVE_IMPORTS = {
    # the core's clean() through its capsule, and the RFC 9110 token characters
    "sanitizer/web/_native_src/module.c": {"sanitizer._speedups", "sanitizer.web._grammar"},
}
# the one header of one extension another may include: the core's C interface
SHARED_HEADERS = {"sanitizer/_native_src/speedups_capi.h"}


@dataclass(frozen=True)
class Module:
    name: str  # dotted: sanitizer.web.asgi, fuzz.fuzz_decode
    path: Path
    is_package: bool

    @property
    def package(self) -> str:
        """The package the module belongs to (a package's __init__: the package itself)."""
        return self.name if self.is_package else self.name.rpartition(".")[0]


@dataclass(frozen=True)
class Import:
    importer: Module
    line: int
    target: str  # the module imported, or the module a name is imported from
    name: str | None  # the name imported from ``target`` when it is not a module

    def __str__(self) -> str:
        what = self.target + (f" import {self.name}" if self.name else "")
        return f"{self.importer.path.relative_to(ROOT)}:{self.line}: {what}"


def discover() -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        modules[".".join(parts)] = Module(".".join(parts), path, is_package)
    for path in sorted((ROOT / "fuzz").glob("*.py")):
        modules[f"fuzz.{path.stem}"] = Module(f"fuzz.{path.stem}", path, False)
    # the C extensions: present as .pyi stubs or built libraries, or absent
    for name in NATIVE_SEAMS:
        modules.setdefault(name, Module(name, PACKAGE, False))
    return modules


MODULES = discover()
CODE = sorted((m for m in MODULES.values() if m.path.suffix == ".py"), key=lambda m: m.name)


def resolve(
    module: Module, node: ast.Import | ast.ImportFrom, known: set[str] | dict[str, Module]
) -> list[Import]:
    """The imports one statement makes, relative ones resolved; ``known``: module names."""
    if isinstance(node, ast.Import):
        return [Import(module, node.lineno, alias.name, None) for alias in node.names]
    base = node.module or ""
    if node.level:
        anchor = module.package.split(".")
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, base] if base else anchor)
    return [
        Import(module, node.lineno, f"{base}.{alias.name}", None)
        if f"{base}.{alias.name}" in known
        else Import(module, node.lineno, base, alias.name)
        for alias in node.names
    ]


def syntax(module: Module) -> ast.Module:
    """The module's syntax tree (parsed once a test process)."""
    return source_syntax(module.path.resolve())


def imports_of(module: Module) -> list[Import]:
    """Every import of a ``sanitizer`` module in ``module``."""
    tree = syntax(module)
    found = [
        i
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for i in resolve(module, node, MODULES)
    ]
    return [i for i in found if i.target.split(".")[0] == "sanitizer"]


@functools.cache
def all_imports() -> tuple[Import, ...]:
    """Every import of every module of the package (read when a test asks: each xdist
    worker collects this file, and only one runs its tests)."""
    return tuple(i for m in CODE for i in imports_of(m))


def group(name: str) -> str:
    """The unit the layers are made of: ``sanitizer`` (the facade), ``fuzz`` or the first
    component under ``sanitizer`` (``web``, ``decoder``, ...)."""
    parts = name.split(".")
    if parts[0] == "fuzz":
        return "fuzz"
    return parts[1] if len(parts) > 1 else "sanitizer"


def layer(name: str) -> int:
    """The layer of a module; an unknown one (see test_every_module_has_a_layer) counts
    as an adapter, so importing it from below still fails."""
    unit = group(name)
    if unit == "sanitizer":
        return POLICY
    return LAYERS.get(unit, ADAPTER)


def _private(component: str) -> bool:
    return component.startswith("_") and not component.startswith("__")


def test_every_module_has_a_layer() -> None:
    unknown = sorted(
        m.name for m in CODE if group(m.name) not in LAYERS and group(m.name) != "fuzz"
    )
    unknown = [name for name in unknown if name != "sanitizer"]
    assert unknown == [], f"add these to LAYERS in {Path(__file__).name}: {unknown}"


def test_nothing_imports_upward() -> None:
    upward = [
        f"{i}  ({LAYER_NAMES[layer(i.importer.name)]} -> {LAYER_NAMES[layer(i.target)]})"
        for i in all_imports()
        if layer(i.target) > layer(i.importer.name)
    ]
    assert upward == [], "\n".join(upward)


def test_adapters_do_not_import_each_other() -> None:
    crossing = [
        str(i)
        for i in all_imports()
        if layer(i.importer.name) == ADAPTER and layer(i.target) == ADAPTER
        if group(i.target) != group(i.importer.name)
        if group(i.target) not in ADAPTER_USES.get(group(i.importer.name), set())
    ]
    assert crossing == [], "\n".join(crossing)


def private_crossings(imports: Iterable[Import]) -> list[str]:
    """Imports of a private module or name that another package owns."""
    found: list[str] = []
    for i in imports:
        parts = i.target.split(".")
        # the package owning each private component, unless the importer is inside it
        inside = i.importer.package.split(".")
        owners = [
            ".".join(parts[:k])
            for k, part in enumerate(parts)
            if _private(part) and inside[: k + 1] != parts[: k + 1]
        ]
        if shared(i.target):
            owners = []
        if i.name is not None and _private(i.name):
            target = MODULES.get(i.target)
            owners.append(target.package if target else i.target)
        if any(owner != i.importer.package for owner in owners):
            found.append(str(i))
    return found


def test_no_private_imports_across_packages() -> None:
    crossings = private_crossings(all_imports())
    assert crossings == [], "\n".join(crossings)


def test_only_the_native_seams_import_the_extensions() -> None:
    direct = [
        str(i)
        for i in all_imports()
        if i.target in NATIVE_SEAMS and i.importer.name != NATIVE_SEAMS[i.target]
    ]
    assert direct == [], "\n".join(direct)


# -- the C extensions ---------------------------------------------------------------------

NATIVE_FILES = sorted(
    p for pattern in ("*.c", "*.h") for p in PACKAGE.rglob(f"_native_src/{pattern}")
)


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT)) if ROOT in path.parents else str(path)


def extension_of(path: Path) -> str:
    """The extension a C file belongs to: the one of the package whose _native_src/
    holds it (``sanitizer/web/_native_src/x.c`` -> ``sanitizer.web._speedups``)."""
    package = path.parent.parent.relative_to(ROOT)
    return ".".join((*package.parts, "_speedups"))


def setup_extensions() -> dict[str, list[str]]:
    """setup.py's EXTENSIONS literal: extension -> its C files."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "EXTENSIONS" for t in node.targets
        ):
            value: dict[str, list[str]] = ast.literal_eval(node.value)
            return value
    raise AssertionError("setup.py has no EXTENSIONS literal")


def _code(path: Path) -> str:
    """A C file without its comments (module names in comments are not imports)."""
    text = path.read_text(encoding="utf-8")
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.DOTALL)


_IMPORT_CALL = re.compile(r"\b(PyImport_\w+|PyCapsule_Import)\s*\(\s*(\"[^\"]*\")?")


def native_imports(path: Path) -> set[str]:
    """The Python modules a C file imports, read from the string literal each import call
    takes; an import of a computed name fails (the layers could not be checked)."""
    found = set()
    for call in _IMPORT_CALL.finditer(_code(path)):
        assert call[2] is not None, f"{_rel(path)}: {call[1]} of a name that is no literal"
        name = call[2].strip('"')
        if call[1] == "PyCapsule_Import":  # "module.attribute"
            name = name.rpartition(".")[0]
        found.add(name)
    return found


def test_native_files_exist() -> None:
    assert [p for p in NATIVE_FILES if p.suffix == ".c"], "no C file found"


def test_each_c_file_is_built_by_the_extension_of_its_layer() -> None:
    extensions = setup_extensions()
    assert sorted(extensions) == sorted(NATIVE_SEAMS)
    built = {source: name for name, sources in extensions.items() for source in sources}
    sources = [_rel(p) for p in NATIVE_FILES if p.suffix == ".c"]
    assert sorted(built) == sorted(sources), "setup.py's EXTENSIONS must list every C file"
    wrong = [f"{s}: built by {built[s]}" for s in sources if built[s] != extension_of(ROOT / s)]
    assert wrong == [], "\n".join(wrong)


def test_c_files_import_what_their_layer_allows() -> None:
    """The modules a C file imports are the ones NATIVE_IMPORTS lists for it, and the
    rules of the Python modules hold for them: nothing upward, no other adapter, no
    other package's private module (but the core's extension, for its capsule)."""
    offenders = []
    for path in NATIVE_FILES:
        importer = Module(extension_of(path), path, False)
        names = native_imports(path)
        if names != NATIVE_IMPORTS.get(_rel(path), set()):
            offenders.append(f"{_rel(path)} imports {sorted(names)}: update NATIVE_IMPORTS")
        for name in sorted(names):
            i = Import(importer, 0, name, None)
            if name not in MODULES:
                offenders.append(f"{_rel(path)}: {name} is no module of the package")
            elif layer(name) > layer(importer.name):
                offenders.append(f"{_rel(path)}: {name} is in a higher layer")
            elif layer(importer.name) == ADAPTER == layer(name) and group(name) != group(
                importer.name
            ):
                offenders.append(f"{_rel(path)}: {name} is another adapter")
            elif name not in SHARED_NATIVE and private_crossings([i]):
                offenders.append(f"{_rel(path)}: {name} is another package's private module")
    assert offenders == [], "\n".join(offenders)


def test_the_import_rule_for_c_itself(tmp_path: Path) -> None:
    """The reading of import calls, on made-up code."""
    path = tmp_path / "probe.c"
    path.write_text(
        """/* PyImport_ImportModule("sanitizer.cli") in a comment */
        PyObject *m = PyImport_ImportModule("sanitizer.web._grammar");
        void *api = PyCapsule_Import("sanitizer._speedups._C_API", 0);""",
        encoding="utf-8",
    )
    assert native_imports(path) == {"sanitizer.web._grammar", "sanitizer._speedups"}
    path.write_text("PyImport_ImportModule(name);", encoding="utf-8")
    with pytest.raises(AssertionError, match="no literal"):
        native_imports(path)
    web = Module("sanitizer.web._speedups", ROOT / "probe.c", False)
    assert private_crossings([Import(web, 0, "sanitizer._policy._model", None)])
    assert not private_crossings([Import(web, 0, "sanitizer.web._grammar", None)])
    assert layer("sanitizer._speedups") < layer(web.name)


_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def test_c_files_include_their_own_headers_and_the_core_interface() -> None:
    offenders = []
    for path in NATIVE_FILES:
        for header in _INCLUDE.findall(_code(path)):
            local = path.parent / header
            if local.is_file():
                continue
            shared = [s for s in SHARED_HEADERS if s.endswith("/" + header)]
            if not shared:
                offenders.append(f'{_rel(path)}: #include "{header}" is not its own')
            elif layer(extension_of(ROOT / shared[0])) > layer(extension_of(path)):
                offenders.append(f'{_rel(path)}: #include "{header}" is from above')
    assert offenders == [], "\n".join(offenders)


def test_no_private_policy_names_outside_the_policy_package() -> None:
    """No ``from sanitizer._policy import _...`` (or ``from .._policy import _...``) outside
    sanitizer/_policy/, in the package, fuzz targets, tools, benchmarks and examples; the
    one exception is a table generator (``tools/gen_*.py``), which runs the private
    builder of the table it stores."""
    statement = re.compile(r"from\s+([\w.]+)\s+import\s+(\([^)]*\)|[^\n]*)")
    policy_module = re.compile(r"(sanitizer\.|\.+)_?policy(\.\w+)?")
    private_name = re.compile(r"(?<![\w.])_\w")
    offenders = []
    for folder in ("sanitizer", "fuzz", "tools", "bench", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if (PACKAGE / "_policy") in path.parents or path.match("tools/gen_*.py"):
                continue
            text = path.read_text(encoding="utf-8")
            for match in statement.finditer(text):
                if policy_module.fullmatch(match[1]) and private_name.search(match[2]):
                    line = text.count("\n", 0, match.start()) + 1
                    offenders.append(f"{path.relative_to(ROOT)}:{line}: {match[0]!r}")
    assert offenders == [], "\n".join(offenders)


def _annotation_name(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.rpartition(".")[2]
    return None


def test_object_setattr_only_on_own_classes() -> None:
    """``object.__setattr__`` (writing into a frozen dataclass) only on ``self`` in a
    method, or on a parameter annotated with a class of the same package: no package
    reaches into another's frozen values (a ``Policy`` is changed only by sanitizer._policy).
    """
    classes: dict[str, set[str]] = {}
    for module in CODE:
        tree = syntax(module)
        names = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
        classes.setdefault(module.package, set()).update(names)
    offenders = []
    for module in CODE:
        tree = syntax(module)
        own = classes[module.package]
        allowed: set[int] = set()
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            for method in cls.body:
                if isinstance(method, ast.FunctionDef) and method.args.args:
                    allowed |= _calls_on(method, {method.args.args[0].arg})
        for func in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
            params = {
                arg.arg
                for arg in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
                if _annotation_name(arg.annotation) in own
            }
            allowed |= _calls_on(func, params)
        for call in ast.walk(tree):
            if _is_object_setattr(call) and id(call) not in allowed:
                offenders.append(f"{module.path.relative_to(ROOT)}:{call.lineno}")
    assert offenders == [], "\n".join(offenders)


def _is_object_setattr(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "__setattr__"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "object"
    )


def _calls_on(func: ast.FunctionDef, names: set[str]) -> set[int]:
    """The ``object.__setattr__`` calls in ``func`` whose first argument is in ``names``."""
    return {
        id(call)
        for call in ast.walk(func)
        if _is_object_setattr(call)
        and isinstance(call, ast.Call)
        and call.args
        and isinstance(call.args[0], ast.Name)
        and call.args[0].id in names
    }


@pytest.mark.parametrize(
    ("source", "importer", "expected"),
    [
        ("from .._policy import _clean", "sanitizer.web.bodies", ["sanitizer._policy"]),
        ("from .. import _classtable", "sanitizer._policy._model", ["sanitizer"]),
        ("from . import _model", "sanitizer._policy.compiled", []),
        ("from .._native import speedups", "sanitizer.web._percent", []),
        ("from sanitizer._machine import _step", "fuzz.fuzz_decode", ["sanitizer._machine"]),
        ("from .._decoder import _runner", "sanitizer._policy", ["sanitizer"]),
        # an internal package's interface, not its own modules; the core, not the tables
        ("from .._policy.compiled import CompiledPolicy", "sanitizer.web._head", []),
        ("from .._policy._scan import scanner", "sanitizer.web._head", ["sanitizer._policy"]),
        ("from .._decoder import decode", "sanitizer.web._head", []),
        ("from .._chartables_data import X", "sanitizer.web._head", ["sanitizer"]),
        ("from ._lookups import x", "sanitizer._lookalike.key", []),
    ],
)
def test_the_private_rule_itself(source: str, importer: str, expected: list[str]) -> None:
    """The rule on made-up modules (whatever the tree holds today)."""
    module = Module(importer, ROOT / "x.py", importer == "sanitizer._policy")
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.ImportFrom)
    known = {
        "sanitizer._classtable",
        "sanitizer._policy._model",
        "sanitizer._native",
        "sanitizer._policy.compiled",
        "sanitizer._policy._scan",
        "sanitizer._decoder",
        "sanitizer._chartables_data",
        "sanitizer._lookalike._lookups",
    }
    owners = private_crossings(resolve(module, node, known))
    assert bool(owners) == bool(expected)
