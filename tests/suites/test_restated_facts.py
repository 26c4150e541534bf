"""Facts that prose and configuration restate, held to the one place each lives.

The profiles are ``sanitizer.profiles.NAMES``; the fast tier is "no test with a marker
that pyproject.toml declares" (``--fast``, tests/conftest.py); the atheris pins are the
``fuzz`` extra of pyproject.toml.  A page or script that lists or spells one of them again
must agree with it, or better, not restate it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from sanitizer import profiles
from tests.support.settings import declared_markers, fast_tier

ROOT = Path(__file__).resolve().parents[2]
# history is written once and not rewritten
HISTORY = {"CHANGELOG.md", "fuzz/campaigns.jsonl"}


def _text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "*.md", "*.py", "*.toml", "*.yml", "*.yaml", "*.sh", ".ci/run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [ROOT / p for p in listed if p not in HISTORY and (ROOT / p).is_file()]


def test_a_list_of_profiles_lists_them_all() -> None:
    """A line naming four or more of the profiles names every one."""
    names = [n.upper().replace("-", "_") for n in profiles.NAMES]
    word = re.compile(r"(?<![\w.])(" + "|".join(names) + r")(?!\w)")
    partial = []
    for path in _text_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not any(n in line for n in names[:3]):  # four of six hold one of any three
                continue
            found = sorted(set(word.findall(line)))
            if len(found) >= 4 and len(found) < len(names):
                partial.append(f"{path.relative_to(ROOT)}:{number}: {sorted(found)}")
    assert partial == []


def test_the_fast_tier_is_spelt_once(pytestconfig: pytest.Config) -> None:
    markers = declared_markers(pytestconfig.getini("markers"))
    assert set(markers) >= {"slow", "servers", "fuzz"}
    expression = fast_tier(markers)
    assert all(f"not {marker}" in expression for marker in markers)
    spelt = [
        str(path.relative_to(ROOT))
        for path in _text_files()
        if re.search(r"not slow and not|-m\s+['\"]not ", path.read_text(encoding="utf-8"))
        and path.name != Path(__file__).name
    ]
    assert spelt == [], "use --fast (tests/conftest.py) instead of spelling the expression"


def test_contributing_does_not_restate_the_atheris_pins() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    pins = re.findall(r"atheris[^\n.]*?\d+\.\d+", text)
    assert pins == [], "the fuzz extra in pyproject.toml is the one place of the pins"
    assert '"atheris' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
