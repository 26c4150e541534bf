"""The figures a benchmark script publishes: ``--write-docs`` saves what it measured, with
the machine, Python and date of the run, as ``docs/benchmarks/NAME.json``.

The docs site's benchmarks page (``docs/benchmarks.md``) is rendered from these files by
``docs/hooks.py``, so a figure on the page is always the last one a script wrote, next to
where and when it was measured.  One file per script (or per mode of a script); running
the script again with ``--write-docs`` replaces it.  Format::

    {"name": ..., "command": "python bench/....py", "summary": "what is compared",
     "goals": "...", "machine": {"cpu", "cores", "python", "date", "note"},
     "tables": [{"caption", "columns": [...], "rows": [[...], ...]}], "notes": [...]}
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

DOCS_BENCHMARKS = Path(__file__).resolve().parent.parent / "docs" / "benchmarks"
WRITE_DOCS = "--write-docs"


def add_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        WRITE_DOCS,
        action="store_true",
        help=f"also save the figures for the docs site ({DOCS_BENCHMARKS.name}/NAME.json)",
    )


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``; elsewhere what ``platform`` knows)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "Hardware") and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def machine(note: str = "") -> dict[str, Any]:
    """Where and when this process runs: CPU model, cores, Python, today's date (UTC)."""
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count() or 1,
        "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        "note": note,
    }


def table(
    columns: Sequence[str], rows: Iterable[Sequence[object]], caption: str = ""
) -> dict[str, Any]:
    """A table of figures; cells are written as given (format numbers before)."""
    return {"caption": caption, "columns": list(columns), "rows": [list(r) for r in rows]}


def from_markdown(text: str, caption: str = "") -> list[dict[str, Any]]:
    """The tables of ``text`` as a script printed them (``| a | b |`` lines, the second of
    each table its ``|---|`` separator)."""
    tables: list[dict[str, Any]] = []
    lines: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.strip().startswith("|"):
            lines.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
        elif lines:
            tables.append(table(lines[0], lines[2:], caption))
            lines = []
    return tables


class Tables:
    """Markdown tables printed row by row as they are measured, and kept for ``write``."""

    def __init__(self) -> None:
        self.tables: list[dict[str, Any]] = []

    def head(self, columns: Sequence[str], caption: str = "") -> None:
        """Start a table (the caption is kept for the docs, not printed)."""
        self.tables.append(table(columns, [], caption))
        print("| " + " | ".join(columns) + " |")
        print("|" + "---|" * len(columns))

    def markdown_row(self, line: str) -> None:
        """A row as a script formats it for printing, ``| a | b |``."""
        self.row(*(cell.strip() for cell in line.strip().strip("|").split(" | ")))

    def row(self, *cells: object) -> None:
        text = [str(cell) for cell in cells]
        self.tables[-1]["rows"].append(text)
        print("| " + " | ".join(text) + " |", flush=True)


def dumps(data: dict[str, Any]) -> str:
    """JSON with one line per key and per table row, so a re-run's diff shows the rows
    that changed."""

    def one(value: object) -> str:
        return json.dumps(value, ensure_ascii=False)

    lines = []
    for key, value in data.items():
        if key == "tables":
            tables = []
            for t in value:
                rows = ",\n".join(f"    {one(row)}" for row in t["rows"])
                head = f'  {{"caption": {one(t["caption"])}, "columns": {one(t["columns"])},'
                tables.append(f'{head}\n   "rows": [\n{rows}\n   ]}}')
            lines.append(' "tables": [\n' + ",\n".join(tables) + "\n ]")
        else:
            lines.append(f" {one(key)}: {one(value)}")
    text = "{\n" + ",\n".join(lines) + "\n}\n"
    assert json.loads(text) == data
    return text


def write(
    name: str,
    *,
    summary: str,
    tables: Sequence[dict[str, Any]],
    goals: str = "",
    notes: Sequence[str] = (),
    note: str = "",
    command: str | None = None,
) -> Path:
    """Save the figures as ``docs/benchmarks/NAME.json``; returns the path (also printed)."""
    if command is None:
        args = " ".join(a for a in sys.argv[1:] if a != WRITE_DOCS)
        command = f"python bench/{Path(sys.argv[0]).name}" + (f" {args}" if args else "")
    data = {
        "name": name,
        "command": command,
        "summary": summary,
        "goals": goals,
        "machine": machine(note),
        "tables": list(tables),
        "notes": list(notes),
    }
    DOCS_BENCHMARKS.mkdir(parents=True, exist_ok=True)
    path = DOCS_BENCHMARKS / f"{name}.json"
    path.write_text(dumps(data), encoding="utf-8")
    print(f"figures written to {path}", file=sys.stderr)
    return path
