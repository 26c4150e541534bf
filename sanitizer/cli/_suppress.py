"""Silencing a finding as linter users expect: a comment on its line, the project's
configuration, a baseline of the findings a legacy tree already has.

Three ways, each naming rules by their stable ids (``sanitizer._rule_registry``):

- an inline comment on the line of a finding, in any comment syntax the gate reads
  (``#``, ``//``, ``/*``, ``<!--``, ``--``, ``;``, ``%``, ``{#``, ``(*``), as ruff's
  ``# noqa: E501``::

      x = "\u200b"  # sanitizer: ignore[invisible]
      y = 1  // sanitizer: ignore[invisible, bidi-control]

  A rule id the registry does not know is itself a finding (``invalid-suppression``,
  failing), so a typo never silences the wrong thing or nothing silently;
- the ``[tool.sanitizer]`` table of the nearest ``pyproject.toml`` above a checked file
  (found walking up from it, as ruff finds its own): ``ignore`` (rule ids, everywhere),
  ``per-file-ignores`` (a gitignore glob, relative to that file's folder, to rule ids),
  ``as-text`` (globs checked as text that is not code, as ``--as-text``);
- a baseline (``--write-baseline FILE``, ``--baseline FILE``): the failing findings of a
  run, keyed by path, rule and a fingerprint of the finding's excerpt (its line around
  it: not its line number, so lines added above it do not make it new), each with how
  many times it occurs.  A later run fails only on findings not in it.

A suppressed finding does not fail the run, but it is never lost: it is counted (the
summary's ``suppressed``), listed in JSON (``"suppressed": "inline"``, ``"config"`` or
``"baseline"``) and in SARIF (a ``suppressions`` entry, SARIF 2.1.0 §3.27.23), and only
text output leaves it out.  Findings past ``--limit`` that were counted, never built,
cannot be matched: with ``--baseline`` every finding is listed to the suppressor (the
display still stops at ``--limit``).
"""

from __future__ import annotations

import functools
import os
import re
from collections import Counter

from ._locate import CODEPOINTS, Locator
from ._output import FileFinding, Place

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    import pathspec

INVALID = "invalid-suppression"  # the rule of an inline comment naming an unknown rule
INLINE, CONFIG, BASELINE = "inline", "config", "baseline"
# The comment marker: "sanitizer: ignore[rule, rule]" after a comment opener on its line.
_MARK = re.compile(rb"sanitizer:[ \t]*ignore\[([^\]\r\n]{0,200})\]")
_OPENERS = (b"#", b"//", b"/*", b"<!--", b"--", b";", b"%", b"{#", b"(*")
_CONFIG_KEYS = ("ignore", "per-file-ignores", "as-text")
# Every way TOML can open tool.sanitizer: a [tool] table, a [tool.sanitizer...] header, a
# top-level dotted key or inline table of ``tool``; a file with none is not parsed
_MAY_CONFIGURE = re.compile(
    rb"(?m)^[ \t]*(?:\[[ \t]*tool[ \t]*\]|\[[ \t]*tool[ \t]*\.[ \t]*[\"']?sanitizer"
    rb"|tool[ \t]*\.[ \t]*[\"']?sanitizer|tool[ \t]*=)"
)
BASELINE_VERSION = 1


class ConfigError(ValueError):
    """A ``[tool.sanitizer]`` table or a baseline file that cannot be used: one line,
    naming the file and the key."""


def _rule_ids(value: object, where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a list of rule ids (strings)")
    from .._rule_registry import RULES  # loaded only when a table names rules

    unknown = sorted(set(value) - set(RULES))
    if unknown:
        raise ConfigError(f"{where}: unknown rule id {unknown[0]!r} (docs/rules.md lists them)")
    return frozenset(value)


def _globs(value: object, where: str) -> pathspec.GitIgnoreSpec:
    from ._ignore import _spec, invalid

    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a list of gitignore globs (strings)")
    bad = invalid(value)
    if bad is not None:
        raise ConfigError(f"{where}: {bad!r} is not a gitignore pattern (gitignore(5))")
    return _spec(value)


class Config:
    """The ``[tool.sanitizer]`` table of one ``pyproject.toml``; globs are matched on
    paths relative to its folder (``root``)."""

    __slots__ = ("as_text", "ignore", "path", "per_file", "root")

    def __init__(self, path: str, table: dict[str, Any]) -> None:
        self.path = path
        self.root = os.path.dirname(os.path.abspath(path))
        where = f"{path}: [tool.sanitizer]"
        unknown = sorted(set(table) - set(_CONFIG_KEYS))
        if unknown:
            keys = ", ".join(_CONFIG_KEYS)
            raise ConfigError(f"{where}: unknown key {unknown[0]!r} (the keys are {keys})")
        self.ignore = _rule_ids(table.get("ignore", []), f"{where} ignore")
        per_file = table.get("per-file-ignores", {})
        if not isinstance(per_file, dict):
            raise ConfigError(f"{where} per-file-ignores must be a table: glob = [rule ids]")
        self.per_file = tuple(
            (_globs([glob], f"{where} per-file-ignores"),
             _rule_ids(rules, f"{where} per-file-ignores {glob!r}"))
            for glob, rules in per_file.items()
        )  # fmt: skip
        as_text = table.get("as-text", [])
        self.as_text = _globs(as_text, f"{where} as-text") if as_text else None

    def relative(self, path: str) -> str | None:
        rel = os.path.relpath(os.path.abspath(path), self.root)
        return None if rel.startswith(os.pardir) else rel.replace(os.sep, "/")

    def ignored(self, path: str, rule: str) -> bool:
        if rule in self.ignore:
            return True
        rel = self.relative(path)
        return rel is not None and any(
            rule in rules and spec.match_file(rel) for spec, rules in self.per_file
        )

    def text(self, path: str) -> bool:
        rel = self.relative(path) if self.as_text is not None else None
        return rel is not None and self.as_text is not None and self.as_text.match_file(rel)


def _read_table(path: str) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None
    if _MAY_CONFIGURE.search(raw) is None:  # no [tool.sanitizer]: nothing to parse (start-up)
        return None
    try:
        import tomllib  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # Python 3.10: tomli, a dependency there
        import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not valid TOML: not UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    tool = data.get("tool")
    table = tool.get("sanitizer") if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: tool.sanitizer must be a table")
    return table


@functools.lru_cache(maxsize=1024)
def config_in(directory: str) -> Config | None:
    """The configuration that applies in ``directory`` (absolute): the nearest
    ``pyproject.toml`` at or above it that has a ``[tool.sanitizer]`` table."""
    candidate = os.path.join(directory, "pyproject.toml")
    if os.path.isfile(candidate):
        table = _read_table(candidate)
        if table is not None:
            return Config(candidate, table)
    parent = os.path.dirname(directory)
    return None if parent == directory else config_in(parent)


def config_for(path: str) -> Config | None:
    """The configuration of the file ``path`` (None for standard input)."""
    if path == "-":
        return config_in(os.getcwd())
    return config_in(os.path.dirname(os.path.abspath(path)))


def _fingerprint(finding: FileFinding) -> str:
    import hashlib

    return hashlib.sha256(finding.excerpt.encode("utf-8", "surrogateescape")).hexdigest()[:16]


class Baseline:
    """The findings of ``--baseline FILE``: ``(path, rule, fingerprint) -> count``, paths
    relative to the baseline's folder."""

    __slots__ = ("left", "root")

    def __init__(self, path: str) -> None:
        self.root = os.path.dirname(os.path.abspath(path))
        import json

        try:
            with open(path, "rb") as f:
                data = json.loads(f.read())
        except OSError as exc:
            raise ConfigError(f"--baseline {path}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise ConfigError(f"--baseline {path}: not a baseline (JSON): {exc}") from None
        entries = data.get("findings") if isinstance(data, dict) else None
        if data.get("version") != BASELINE_VERSION or not isinstance(entries, list):
            raise ConfigError(
                f"--baseline {path}: not a baseline of version {BASELINE_VERSION} "
                "(write one with --write-baseline)"
            )
        self.left: Counter[tuple[str, str, str]] = Counter()
        for entry in entries:
            try:
                key = (entry["path"], entry["rule"], entry["fingerprint"])
                count = int(entry.get("count", 1))
            except (TypeError, KeyError, ValueError):
                raise ConfigError(f"--baseline {path}: a malformed entry: {entry!r}") from None
            self.left[key] += count

    def takes(self, finding: FileFinding) -> bool:
        """Whether ``finding`` is one of the baseline's (each entry matches as many
        findings as its count)."""
        key = (_relative(finding.place.path, self.root), finding.kind, _fingerprint(finding))
        if self.left[key] > 0:
            self.left[key] -= 1
            return True
        return False


def _relative(path: str, root: str) -> str:
    if path in ("-", "<stdin>"):
        return path
    return os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")


def write_baseline(path: str, findings: Iterable[FileFinding]) -> int:
    """Write the baseline of ``findings`` to ``path``; how many findings it holds."""
    root = os.path.dirname(os.path.abspath(path))
    counts: Counter[tuple[str, str, str]] = Counter(
        (_relative(f.place.path, root), f.kind, _fingerprint(f)) for f in findings
    )
    entries = [
        {"path": p, "rule": r, "fingerprint": h, "count": n}
        for (p, r, h), n in sorted(counts.items())
    ]
    import json

    text = json.dumps({"version": BASELINE_VERSION, "findings": entries}, indent=1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    return sum(counts.values())


_READ = 1 << 20  # bytes read at a time looking for comments
_REACH = 256  # bytes a comment opener may be before its marker, and a marker long


def inline_marks(path: str, max_bytes: int) -> tuple[dict[int, frozenset[str]], list[FileFinding]]:
    """``{line: rule ids}`` of the suppression comments of the file ``path`` (its first
    ``max_bytes``, read a megabyte at a time: memory does not grow with the file), and
    an ``invalid-suppression`` finding for each unknown rule id."""
    by_line: dict[int, frozenset[str]] = {}
    invalid: list[FileFinding] = []
    locator = Locator(CODEPOINTS)
    try:
        f = open(path, "rb")
    except OSError:
        return by_line, invalid
    with f:
        window = b""
        base = 0  # the offset of window[0]
        left = max_bytes
        seen = -1  # the offset of the last marker read
        while left > 0:
            chunk = f.read(min(_READ, left))
            if not chunk:
                break
            left -= len(chunk)
            locator.feed(chunk)
            window = window[-_REACH:] + chunk
            base = locator.end - len(window)
            for m in _MARK.finditer(window) if b"sanitizer:" in window else ():
                at = base + m.start()
                if at <= seen:  # found in the window before
                    continue
                seen = at
                lo = max(0, m.start() - _REACH)
                line_start = max(window.rfind(b"\n", lo, m.start()),
                                 window.rfind(b"\r", lo, m.start())) + 1  # fmt: skip
                if not any(o in window[max(lo, line_start) : m.start()] for o in _OPENERS):
                    continue
                line, column = locator.at(at)
                end_line, end_column = locator.at(base + m.end())
                ids = [r.strip() for r in m.group(1).decode("utf-8", "replace").split(",")]
                ids = [r for r in ids if r]
                by_line[line] = by_line.get(line, frozenset()) | frozenset(ids)
                from .._rule_registry import RULES  # loaded only at a comment

                for rule in ids:
                    if rule not in RULES:
                        place = Place(path, at, base + m.end(), line, column, end_line, end_column)
                        reason = (
                            f"the suppression comment names {rule!r}, a rule the gate does not have"
                        )
                        text = m.group(0).decode("utf-8", "replace")
                        invalid.append(FileFinding(INVALID, rule, "reject", reason, place, text))
            # counted up to the overlap kept for the next window (offsets only increase)
            locator.at(max(seen + 1, locator.end - _REACH))
    return by_line, invalid


class Suppressor:
    """Marks the findings of each input that a comment, the configuration or the
    baseline silences (``FileFinding.suppressed``; they no longer fail)."""

    __slots__ = ("baseline", "max_bytes")

    def __init__(self, baseline: Baseline | None, max_bytes: int) -> None:
        self.baseline = baseline
        self.max_bytes = max_bytes

    def __call__(self, path: str, findings: Iterable[FileFinding]) -> Iterator[FileFinding]:
        config = config_for(path)
        marks: dict[int, frozenset[str]] = {}
        invalid: list[FileFinding] = []
        first = True
        for finding in findings:
            if first:  # the file read on its first finding: a clean file costs nothing
                first = False
                if path != "-" and os.path.isfile(path):  # a pipe cannot be read again
                    marks, invalid = inline_marks(path, self.max_bytes)
            for one in (*invalid, finding):
                how = ""
                if one.kind in marks.get(one.place.line, ()):
                    how = INLINE
                elif config is not None and config.ignored(path, one.kind):
                    how = CONFIG
                elif one.fails and self.baseline is not None and self.baseline.takes(one):
                    how = BASELINE
                if how:
                    one.suppressed = how
                    one.fails = False
                yield one
            invalid = []


def text_for(path: str) -> bool:
    """Whether the configuration checks ``path`` as text that is not code (``as-text``)."""
    config = config_for(path) if path != "-" else None
    return config is not None and config.text(path)
