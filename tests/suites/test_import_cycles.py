"""No import cycles in the package, read from the import statements with ``ast``.

A cycle between modules is a knot: neither can be read, tested or loaded without the
other, and one side ends up importing the other inside a function to dodge a partial
module.  So every import counts here, wherever it is written: at module level, inside
functions, under ``TYPE_CHECKING``.  ``from package import name`` where ``name`` is a
submodule imports that submodule; relative imports are resolved against the importer's
package.  Importing a submodule also runs its parents' ``__init__``, but that is not an
edge of this graph (a package's ``__init__`` that imports its own submodules would make
every submodule a cycle with it): an edge is only what a statement names.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.source_trees import syntax

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sanitizer"


def modules() -> dict[str, Path]:
    """Every module of the package: dotted name -> file (a package: its ``__init__``).
    A C extension, known by its stub (``_speedups.pyi``), imports nothing of the
    package's (its C imports are ``test_layering``'s to check)."""
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py*")):
        if path.suffix not in (".py", ".pyi"):
            continue
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        name = ".".join(parts)
        if path.suffix == ".py" or name not in found:
            found[name] = path
    return found


def imported_by(name: str, path: Path, known: dict[str, Path]) -> dict[str, int]:
    """The package's modules that ``name`` imports, each with the line of its first
    import statement."""
    if path.suffix == ".pyi":  # a C extension's stub
        return {}
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found: dict[str, int] = {}
    tree = syntax(path.resolve())
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in known else base)
        for target in targets:
            if target in known and target != name:
                found.setdefault(target, node.lineno)
    return found


def graph() -> tuple[dict[str, dict[str, int]], dict[str, Path]]:
    known = modules()
    return {name: imported_by(name, path, known) for name, path in known.items()}, known


def components(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module, sorted (Tarjan's
    algorithm, iterative): each holds at least one cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(edges[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, pending = work[-1]
            if pending:
                nxt = pending.pop(0)
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(edges[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """A shortest cycle through each component, as a list of modules whose last imports
    the first."""
    return [_cycle_in(component, edges) for component in components(edges)]


def _cycle_in(component: list[str], edges: dict[str, dict[str, int]]) -> list[str]:
    """A shortest cycle through the first module of ``component`` (breadth first)."""
    members = set(component)
    start = component[0]
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(edges[node]):
                if nxt not in members:
                    continue
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return path[::-1]
                if nxt not in came_from:
                    came_from[nxt] = node
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no cycle in the component {component}")  # pragma: no cover


def describe(cycle: list[str], edges: dict[str, dict[str, int]], known: dict[str, Path]) -> str:
    steps = []
    for k, name in enumerate(cycle):
        nxt = cycle[(k + 1) % len(cycle)]
        where = known[name].relative_to(ROOT)
        steps.append(f"  {where}:{edges[name][nxt]}: {name} imports {nxt}")
    return " -> ".join([*cycle, cycle[0]]) + "\n" + "\n".join(steps)


def test_the_package_has_no_import_cycle() -> None:
    edges, known = graph()
    assert "sanitizer.cli" in edges and "sanitizer._speedups" in edges  # found them all
    found = [
        describe(_cycle_in(c, edges), edges, known) + "\n  (the knot: " + ", ".join(c) + ")"
        for c in components(edges)
    ]
    assert found == [], "import cycles:\n" + "\n".join(found)


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The reading of imports, on a made-up package: module level, in a function, under
    ``TYPE_CHECKING``, relative, and ``from package import submodule``."""
    pkg = tmp_path / "sanitizer"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .sub import c\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "c.py").write_text(
        "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from ..a import x\nimport sanitizer.b\n"
    )
    known = {
        "sanitizer": pkg / "__init__.py",
        "sanitizer.a": pkg / "a.py",
        "sanitizer.b": pkg / "b.py",
        "sanitizer.sub": pkg / "sub" / "__init__.py",
        "sanitizer.sub.c": pkg / "sub" / "c.py",
    }
    edges = {name: imported_by(name, path, known) for name, path in known.items()}
    assert edges["sanitizer.a"] == {"sanitizer.b": 1}
    assert edges["sanitizer.b"] == {"sanitizer.sub.c": 2}
    assert edges["sanitizer.sub.c"] == {"sanitizer.a": 3, "sanitizer.b": 4}
    assert edges["sanitizer"] == {} and edges["sanitizer.sub"] == {}
    assert cycles(edges) == [["sanitizer.a", "sanitizer.b", "sanitizer.sub.c"]]
    assert cycles({"x": {"y": 1}, "y": {}}) == []
