"""Which paths a folder's ignore files and ``--include``/``--exclude`` globs leave out.

The walker (``_walk``) asks git when it can; this is what it uses otherwise, and for
``.ignore`` files and the command line's globs: gitignore(5) patterns matched by
``pathspec``'s ``GitIgnoreSpec`` (git's wildmatch rules), ignore files read lazily, one
folder at a time, as the walk reaches it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec


def _spec(lines: list[str] | tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    """The patterns of an ignore file.  One that git cannot read either (``a\\``: a
    trailing backslash) matches nothing, as in git, and the others still apply."""
    import pathspec  # ~25 ms: only when there are patterns to match

    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except ValueError:
        return pathspec.GitIgnoreSpec.from_lines([p for p in lines if invalid([p]) is None])


def invalid(patterns: list[str] | tuple[str, ...]) -> str | None:
    """The first of ``patterns`` that is no gitignore pattern, or None."""
    import pathspec

    for pattern in patterns:
        try:
            pathspec.GitIgnoreSpec.from_lines([pattern])
        except ValueError:
            return pattern
    return None


def globs(patterns: tuple[str, ...]) -> pathspec.GitIgnoreSpec | None:
    """The command line's globs (``_check_args.resolve`` has refused invalid ones)."""
    return _spec(patterns) if patterns else None


class PathFilter:
    """--include/--exclude on paths relative to the walked folder."""

    def __init__(self, include: tuple[str, ...], exclude: tuple[str, ...]) -> None:
        self.include = globs(include)
        self.exclude = globs(exclude)

    def skips_dir(self, rel: str) -> bool:
        return self.exclude is not None and self.exclude.match_file(rel + "/")

    def skips_file(self, rel: str) -> bool:
        if self.exclude is not None and self.exclude.match_file(rel):
            return True
        return self.include is not None and not self.include.match_file(rel)


class IgnoreStack:
    """Ignore files below one root, read lazily per folder: ``ignored(rel, is_dir)``
    decides as git does (the deepest file with a matching pattern wins; in a file the last
    matching pattern wins; ``!`` re-includes; an ignored folder ignores all below it)."""

    def __init__(self, root: str, names: tuple[str, ...], extra: list[str] | None = None):
        self.root = root
        self.names = names  # in increasing precedence within a folder
        self._specs: dict[str, list[pathspec.GitIgnoreSpec]] = {}
        self._dir_ignored: dict[str, bool] = {"": False}
        self._top: list[pathspec.GitIgnoreSpec] = [_spec(extra)] if extra else []

    def _specs_in(self, rel_dir: str) -> list[pathspec.GitIgnoreSpec]:
        specs = self._specs.get(rel_dir)
        if specs is None:
            specs = [] if rel_dir else list(self._top)
            for name in self.names:
                path = os.path.join(self.root, rel_dir, name)
                try:
                    with open(path, "rb") as f:
                        lines = f.read().decode("utf-8", "replace").splitlines()
                except OSError:
                    continue
                specs.append(_spec(lines))
            self._specs[rel_dir] = specs
        return specs

    def _matches(self, rel: str, is_dir: bool) -> bool:
        parts = rel.split("/")
        for depth in range(len(parts) - 1, -1, -1):  # deepest folder first
            base = "/".join(parts[:depth])
            sub = "/".join(parts[depth:]) + ("/" if is_dir else "")
            for spec in reversed(self._specs_in(base)):
                result = spec.check_file(sub).include
                if result is not None:
                    return bool(result)
        return False

    def dir_ignored(self, rel: str) -> bool:
        known = self._dir_ignored.get(rel)
        if known is None:
            parent = rel.rpartition("/")[0]
            known = self.dir_ignored(parent) or self._matches(rel, True)
            self._dir_ignored[rel] = known
        return known

    def ignored(self, rel: str, is_dir: bool = False) -> bool:
        if is_dir:
            return self.dir_ignored(rel)
        parent = rel.rpartition("/")[0]
        return self.dir_ignored(parent) or self._matches(rel, False)
