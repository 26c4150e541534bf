"""MkDocs hooks: the pages that are generated from the code at build time, so they cannot drift.

* ``<!-- cli-reference -->`` becomes the reference of every ``sanitizer`` subcommand and
  option, read from ``sanitizer.cli.build_parser()`` (argparse: the parser the command
  itself runs);
* ``<!-- benchmarks: NAME -->`` becomes the figures in ``docs/benchmarks/NAME.json``,
  which the ``bench/`` scripts write with ``--write-docs`` (``bench/_figures.py``), with
  the machine, Python and date of the run;
* ``<!-- include: PATH -->`` becomes the repository file ``PATH`` (``CONTRIBUTING.md``);
* a link to a repository file outside ``docs/`` (``../examples/x.py``, which GitHub
  renders) becomes a link into ``repo_url`` when the site has one, else the path in code.

The site is built by ``mkdocs build --strict`` (``nox -s docs``, ``tests/suites/test_docs.py``);
configuration in ``mkdocs.yml``.  Nothing here touches the network.
"""

from __future__ import annotations

import argparse
import html
import json
import posixpath
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
BENCHMARKS = DOCS / "benchmarks"

_MARKER = re.compile(r"<!--\s*(cli-reference|benchmarks|include)(?::\s*(\S+))?\s*-->")
_LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~)", re.MULTILINE)


# --- the CLI reference -------------------------------------------------------------------


def _md(text: str) -> str:
    """Plain text (argparse help) as inline markdown that renders as written; ``x`` (as
    the help texts quote code) becomes a code span."""
    out = []
    for i, part in enumerate(" ".join(text.split()).split("``")):
        if i % 2:
            out.append(f"`{part}`")
        else:
            part = html.escape(part, quote=False)
            out.append(re.sub(r"([\\`*_\[\]|])", r"\\\1", part))
    return "".join(out)


def _formatter(parser: argparse.ArgumentParser) -> argparse.HelpFormatter:
    # a fixed width: the page must not depend on the terminal that built it
    return argparse.HelpFormatter(parser.prog, width=88)


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = _formatter(parser)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _subcommand_help(parser: argparse.ArgumentParser) -> dict[str, str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {a.dest: a.help or "" for a in action._get_subactions()}
    return {}


def _arguments(parser: argparse.ArgumentParser) -> list[str]:
    """One table per argument group, as ``--help`` lists them."""
    formatter = _formatter(parser)
    out: list[str] = []
    for group in parser._action_groups:
        actions = [
            a
            for a in group._group_actions
            if a.help != argparse.SUPPRESS and not isinstance(a, argparse._SubParsersAction)
        ]
        if not actions:
            continue
        out += [f"**{_md(group.title or '')}**", "", "| argument | what it does |", "|---|---|"]
        for action in actions:
            invocation = formatter._format_action_invocation(action)
            expanded = formatter._expand_help(action) if action.help else ""
            out.append(f"| `{invocation}` | {_md(expanded)} |")
        out.append("")
    return out


def cli_reference() -> str:
    """Markdown for every subcommand of ``sanitizer``: usage, description, arguments."""
    from sanitizer.cli import build_parser

    parser = build_parser()
    out = ["## sanitizer", "", "```text", _usage(parser), "```", ""]
    out += [_md(parser.description or ""), ""]
    helps = _subcommand_help(parser)
    out += ["| command | what it does |", "|---|---|"]
    subcommands = _subcommands(parser)
    for name in subcommands:
        out.append(f"| [`{name}`](#sanitizer-{name}) | {_md(helps.get(name, ''))} |")
    out.append("")
    out += _arguments(parser)
    for name, sub in subcommands.items():
        out += [f"## sanitizer {name}", "", "```text", _usage(sub), "```", ""]
        if sub.description:
            out += [_md(sub.description), ""]
        out += _arguments(sub)
        if sub.epilog:
            out += [_md(sub.epilog), ""]
    return "\n".join(out)


# --- the benchmark figures ---------------------------------------------------------------


def _table(table: dict[str, Any]) -> list[str]:
    columns: list[str] = table["columns"]
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in table["rows"]]
    return [*out, ""]


def benchmark_figures(name: str) -> str:
    """Markdown for one ``docs/benchmarks/NAME.json`` (format: ``bench/_figures.py``)."""
    path = BENCHMARKS / f"{name}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    machine = data["machine"]
    measured = ", ".join(
        part
        for part in (
            machine.get("cpu"),
            f"Python {machine['python']}" if machine.get("python") else "",
            machine.get("date"),
            machine.get("note"),
        )
        if part
    )
    out = [f"`{data['command']}` — {data['summary']}", ""]
    if data.get("goals"):
        out += [f"Goals: {data['goals']}", ""]
    for table in data["tables"]:
        if table.get("caption"):
            out += [table["caption"], ""]
        out += _table(table)
    out += [*(f"{note}\n" for note in data.get("notes", []))]
    out += [f"*Measured on: {measured}. Data: `docs/benchmarks/{name}.json`.*", ""]
    return "\n".join(out)


# --- links and includes ------------------------------------------------------------------


def _outside_link(text: str, path: str, anchor: str, config: Any) -> str:
    repo_url = (config.get("repo_url") or "").rstrip("/")
    if repo_url:
        return f"[{text}]({repo_url}/blob/main/{path}{anchor})"
    if text.strip("`") == path or text.strip("`") == posixpath.basename(path):
        return f"`{path}`"
    return f"{text} (`{path}`)"


def _rewrite_links(markdown: str, source: str, page: str, config: Any) -> str:
    """Links written relative to the repository file ``source`` (repo-relative), made
    relative to the site page ``page`` (docs-relative), outside ``docs/`` as above."""
    base = posixpath.dirname(source)
    page_dir = posixpath.dirname(page)

    def one(match: re.Match[str]) -> str:
        text, target = match.groups()
        if re.match(r"^([a-z][a-z0-9+.-]*:|#|/)", target):
            return match.group(0)
        path, _, fragment = target.partition("#")
        anchor = f"#{fragment}" if fragment else ""
        resolved = posixpath.normpath(posixpath.join(base, path))
        if resolved.startswith("docs/"):
            inside = posixpath.relpath(resolved[len("docs/") :], page_dir or ".")
            return f"[{text}]({inside}{anchor})"
        if (ROOT / resolved).exists():
            return _outside_link(text, resolved, anchor, config)
        return match.group(0)  # left for MkDocs to report

    parts = _FENCE.split(markdown)
    # outside fences: parts[0], then every part after a closing fence
    out: list[str] = []
    in_fence = False
    i = 0
    while i < len(parts):
        part = parts[i]
        if part in ("```", "~~~"):
            out.append(part)
            in_fence = not in_fence
        else:
            out.append(part if in_fence else _LINK.sub(one, part))
        i += 1
    return "".join(out)


def _include(path: str, page: str, config: Any) -> str:
    text = (ROOT / path).read_text(encoding="utf-8")
    return _rewrite_links(text, path, page, config)


# --- the hook ----------------------------------------------------------------------------


def on_page_markdown(markdown: str, *, page: Any, config: Any, files: Any) -> str:
    src: str = page.file.src_uri

    def expand(match: re.Match[str]) -> str:
        kind, argument = match.groups()
        if kind == "cli-reference":
            return cli_reference()
        if kind == "benchmarks":
            return benchmark_figures(argument)
        return _include(argument, src, config)

    markdown = _rewrite_links(markdown, f"docs/{src}", src, config)
    shown = {m.group(2) for m in _MARKER.finditer(markdown) if m.group(1) == "benchmarks"}
    markdown = _MARKER.sub(expand, markdown)
    if shown:  # the benchmarks page: figures no section names yet still appear
        others = sorted(p.stem for p in BENCHMARKS.glob("*.json") if p.stem not in shown)
        for name in others:
            markdown += f"\n\n## Other figures: {name}\n\n{benchmark_figures(name)}"
    return markdown
