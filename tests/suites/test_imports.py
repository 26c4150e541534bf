"""What importing the package loads: the core alone until the policy layer is asked for.

The policy layer (policies, profiles, identifiers and their generated character tables)
costs most of the package's import time, so ``sanitizer`` exposes it through lazy
attributes (PEP 562).  Each check runs in a fresh interpreter: ``sys.modules`` of this
one already holds everything.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import re
import site
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

import sanitizer
from tests.support.cli_runner import CliText

ROOT = Path(__file__).resolve().parents[2]

POLICY_LAYER = (
    "sanitizer._policy",
    "sanitizer.profiles",
    "sanitizer._categories",
    "sanitizer._chartables_data",
    "sanitizer._classtable",
    "sanitizer._identifiers",
    "sanitizer._lookalike",
    "sanitizer.precis",
)


def _is_policy_layer(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in POLICY_LAYER)


def loaded_after(code: str) -> list[str]:
    """The ``sanitizer`` modules in ``sys.modules`` after running ``code`` in a new
    interpreter."""
    script = code + textwrap.dedent(
        """
        import json as _json, sys as _sys
        print(_json.dumps(sorted(m for m in _sys.modules if m.split(".")[0] == "sanitizer")))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    modules: list[str] = json.loads(proc.stdout.splitlines()[-1])
    return modules


@pytest.mark.parametrize(
    "code",
    [
        "import sanitizer._decoder",
        "import sanitizer",
        "import sanitizer; sanitizer.decode(b'x'); sanitizer.find_errors(b'\\xc0\\xaf')",
        "from sanitizer import decode, Utf8Error, IncrementalDecoder, __version__",
        "import sanitizer.cli",
    ],
)
def test_core_imports_leave_the_policy_layer_unloaded(code: str) -> None:
    loaded = loaded_after(code)
    assert "sanitizer._decoder" in loaded
    assert [m for m in loaded if _is_policy_layer(m)] == []


def test_check_without_policy_leaves_the_policy_layer_unloaded() -> None:
    code = textwrap.dedent(
        """
        from sanitizer.cli import main
        code = main(["check", "README.md", "--progress", "never"])
        assert code == 0, code
        """
    )
    loaded = loaded_after(code)
    assert "sanitizer.cli._check" in loaded
    assert [m for m in loaded if _is_policy_layer(m)] == []


def test_check_with_policy_loads_it() -> None:
    code = 'from sanitizer.cli import main\nmain(["check", "--policy", "TEXT", "README.md"])\n'
    loaded = loaded_after(code)
    assert "sanitizer.profiles" in loaded and "sanitizer._policy" in loaded


# Standard-library modules that start-up does not need (``sanitizer check``
# starts once per commit in CI).  ``dataclasses`` brings ``inspect``, ``ast`` and ``dis``;
# ``shutil`` brings zlib, bz2 and lzma; ``json`` is for --format json alone.
HEAVY_STDLIB = ("typing", "dataclasses", "inspect", "ast", "dis", "json", "shutil", "bz2", "lzma")


def stdlib_loaded_by(code: str) -> set[str]:
    """The modules ``code`` adds to ``sys.modules`` in a new interpreter without ``site``
    (whose ``.pth`` hooks, such as an editable install's, import modules of their own)."""
    paths = [str(ROOT), *site.getsitepackages()]
    script = (
        f"import sys; sys.path[:0] = {paths!r}; before = set(sys.modules)\n"
        + code
        + "\nprint(repr(sorted(set(sys.modules) - before)))"
    )
    proc = subprocess.run(
        [sys.executable, "-S", "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    loaded: list[str] = ast.literal_eval(proc.stdout.splitlines()[-1])
    return {name for name in loaded if not name.startswith("sanitizer")}


CHECK_FILE = (
    "from sanitizer.cli import main\n"
    "assert main(['check', 'README.md', '--progress', 'never']) == 0"
)
# ``python -m sanitizer check FILE``, as CI runs it
CHECK_FILE_MAIN = textwrap.dedent(
    """
    import runpy, sys
    sys.argv = ["sanitizer", "check", "README.md", "--progress", "never"]
    try:
        runpy.run_module("sanitizer", run_name="__main__")
    except SystemExit as exit:
        assert exit.code in (0, None), exit.code
    """
)


@pytest.mark.parametrize("code", ["import sanitizer", CHECK_FILE, CHECK_FILE_MAIN])
def test_start_up_leaves_heavy_stdlib_modules_unloaded(code: str) -> None:
    assert stdlib_loaded_by(code) & set(HEAVY_STDLIB) == set()


# How a module keeps ``typing`` and ``dataclasses`` out of start-up: ``TYPE_CHECKING``
# spelt without ``typing``, value classes from ``_frozen`` or the CLI's ``_record``.
START_UP_TRICKS = re.compile(
    r"^TYPE_CHECKING = False|^from \.+(?:_frozen|_record) import|^from \.+ import _record",
    re.MULTILINE,
)


def test_start_up_tricks_only_where_plain_check_loads_them() -> None:
    """Only the modules plain ``sanitizer check FILE`` loads are written for its start-up;
    every other module uses ``typing``, dataclasses and NamedTuple as usual."""
    loaded = set(loaded_after(CHECK_FILE_MAIN))
    tricked = set()
    for path in (ROOT / "sanitizer").rglob("*.py"):
        if START_UP_TRICKS.search(path.read_text(encoding="utf-8")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            tricked.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert "sanitizer._frozen" in loaded and tricked  # (the check sees what it checks)
    assert sorted(tricked - loaded) == []


def test_json_output_loads_json_only_then() -> None:
    code = "from sanitizer.cli import main\nmain(['check', '--format', 'json', 'README.md'])"
    assert "json" in stdlib_loaded_by(code)


def test_every_public_name_resolves() -> None:
    assert sorted(sanitizer.__all__) == sorted(set(sanitizer.__all__))
    assert set(sanitizer.__all__) <= set(dir(sanitizer))
    for name in sanitizer.__all__:
        assert getattr(sanitizer, name) is not None, name
    assert sanitizer.profiles is importlib.import_module("sanitizer.profiles")
    from sanitizer import inspect, profiles  # a lazy name by ``from`` import

    assert inspect is importlib.import_module("sanitizer._policy").inspect
    assert profiles.TEXT is not None


def test_every_public_name_resolves_in_a_fresh_interpreter() -> None:
    code = textwrap.dedent(
        """
        import sanitizer
        for name in sanitizer.__all__:
            getattr(sanitizer, name)
        from sanitizer import *  # noqa: F403
        """
    )
    assert "sanitizer.profiles" in loaded_after(code)


def test_unknown_names_still_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        sanitizer.no_such_name  # type: ignore[attr-defined]  # noqa: B018


def test_version_is_single_sourced(sanitizer_cli: Callable[..., CliText]) -> None:
    from sanitizer._version import __version__

    assert sanitizer.__version__ == __version__
    assert importlib.metadata.version("utf8-sanitizer") == __version__
    proc = sanitizer_cli("--version", cwd=ROOT, text=True)
    assert proc.returncode == 0 and f"utf8-sanitizer {__version__} " in proc.stdout
