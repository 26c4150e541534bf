"""The syntax trees of the repository's Python files, each parsed once a test process:
for the suites that read the code itself (layering, import cycles, homonyms), which
would otherwise parse the whole package each (about a second a time)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def syntax(path: Path) -> ast.Module:
    """The syntax tree of the Python file at ``path`` (an absolute path)."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))
