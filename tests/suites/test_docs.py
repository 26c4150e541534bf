"""The README is a front page and the manual a docs site that builds: the README's size,
its Quick start (the two commands, the second run verbatim by .ci/run), its links; the
MkDocs site in strict mode (warnings are errors) with the CLI reference generated from
the argparse parser; the benchmark figures written by the bench scripts; no internal
issue numbers in the docs."""

from __future__ import annotations

import argparse
import html
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from sanitizer.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
INSTALL_AND_RUN = "python -m pip install . && sanitizer check corpus/decode"
INSTALL_AND_TEST = "python -m pip install -e '.[test,fuzz]' && python -m pytest"
ISSUE_NUMBER = re.compile(r"(?i)\bissues? #?\d+|\(#\d+\)")


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_docs_test_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hooks = _load(DOCS / "hooks.py")
figures = _load(ROOT / "bench" / "_figures.py")


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def test_readme_is_a_front_page() -> None:
    assert len(README.read_bytes()) <= 12 * 1024


def test_quick_start_is_the_two_commands_and_ci_runs_the_second() -> None:
    quick_start = _section(README.read_text(encoding="utf-8"), "Quick start")
    blocks = re.findall(r"```\w*\n(.*?)```", quick_start, re.DOTALL)
    assert [b.strip() for b in blocks] == [INSTALL_AND_RUN, INSTALL_AND_TEST]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert INSTALL_AND_TEST in ci


def test_readme_links_point_at_files_of_the_repository() -> None:
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [t.partition("#")[0] for t in targets if not re.match(r"[a-z]+:", t)]
    assert local, "the README links to its docs pages"
    assert [t for t in local if not (ROOT / t).exists()] == []


def test_no_internal_issue_numbers_in_readme_and_docs() -> None:
    paths = [README, *DOCS.rglob("*.md"), *DOCS.rglob("*.json")]
    found = [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
        for p in paths
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if ISSUE_NUMBER.search(line)
    ]
    assert found == []


def _options(parser: argparse.ArgumentParser) -> dict[str, list[str]]:
    """Every subcommand -> its option strings and positional metavars."""
    out = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out[name] = [
                    s
                    for a in sub._actions
                    if a.help != argparse.SUPPRESS
                    for s in (a.option_strings or [str(a.metavar or a.dest)])
                ]
    return out


def test_cli_reference_lists_every_subcommand_and_option() -> None:
    page = hooks.cli_reference()
    options = _options(build_parser())
    assert set(options) >= {"check", "normalize", "compare", "skeleton", "collisions", "fuzz"}
    for name, strings in options.items():
        section = _section(page, f"sanitizer {name}")
        missing = [s for s in strings if s not in section]
        assert missing == [], name


def test_benchmark_figures_carry_machine_and_date_and_each_has_its_section() -> None:
    page = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    named = set(re.findall(r"<!-- benchmarks: (\S+) -->", page))
    files = {
        p.stem: json.loads(p.read_text(encoding="utf-8")) for p in hooks.BENCHMARKS.glob("*.json")
    }
    assert named == set(files)
    for name, data in files.items():
        assert data["name"] == name
        assert data["machine"]["python"] and data["machine"]["cpu"], name
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", data["machine"]["date"]), name
        assert data["tables"] or data["notes"], name


def test_each_bench_script_that_the_page_quotes_writes_its_figures() -> None:
    for path in hooks.BENCHMARKS.glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        script = re.search(r"\b(bench/\w+\.py)", data["command"])
        if script is None:  # figures of a tool, not of a bench script (fuzz_native)
            continue
        source = (ROOT / script.group(1)).read_text(encoding="utf-8")
        assert "_figures.add_argument(parser)" in source, script.group(1)
        assert f'"{data["name"]}"' in source, (script.group(1), data["name"])


def test_figures_written_by_a_script_are_rendered_with_their_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(figures, "DOCS_BENCHMARKS", tmp_path)
    monkeypatch.setattr(hooks, "BENCHMARKS", tmp_path)
    monkeypatch.setattr(sys, "argv", ["bench/bench_x.py", "--quick", "--write-docs"])
    tables = figures.Tables()
    tables.head(["input", "ratio"])
    tables.markdown_row("| ASCII | 1.25x |")
    figures.write("x", summary="a | b", tables=tables.tables, notes=["a note"])
    data = json.loads((tmp_path / "x.json").read_text(encoding="utf-8"))
    assert data["command"] == "python bench/bench_x.py --quick"
    assert data["tables"][0]["rows"] == [["ASCII", "1.25x"]]
    page = hooks.benchmark_figures("x")
    machine = data["machine"]
    assert "| ASCII | 1.25x |" in page and "a note" in page
    assert machine["cpu"] in page and machine["date"] in page and machine["python"] in page
    assert figures.from_markdown("x\n| a | b |\n|---|---|\n| 1 | 2 |\n") == [
        {"caption": "", "columns": ["a", "b"], "rows": [["1", "2"]]}
    ]


def test_links_outside_the_site_become_repository_paths() -> None:
    config = {"repo_url": None}
    text = "[SECURITY.md](../SECURITY.md), [the design](design.md#x), [app](../examples/x.nope)"
    out = hooks._rewrite_links(text, "docs/page.md", "page.md", config)
    assert out.startswith("`SECURITY.md`, [the design](design.md#x), [app](../examples/x.nope)")
    included = hooks._rewrite_links("[d](docs/design.md)", "CONTRIBUTING.md", "a/b.md", config)
    assert included == "[d](../design.md)"
    config = {"repo_url": "https://example.org/r/"}
    out = hooks._rewrite_links("[s](../SECURITY.md)", "docs/p.md", "p.md", config)
    assert out == "[s](https://example.org/r/blob/main/SECURITY.md)"


@pytest.mark.slow
def test_site_builds_offline_in_strict_mode(tmp_path: Path) -> None:
    site = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    cli = html.unescape((site / "cli" / "index.html").read_text(encoding="utf-8"))
    for name, strings in _options(build_parser()).items():
        assert f"sanitizer {name}" in cli
        assert [s for s in strings if s not in cli] == [], name
    pages = [p for p in site.rglob("*.html")]
    assert len(pages) > 20
    assert [p for p in pages if ISSUE_NUMBER.search(p.read_text(encoding="utf-8"))] == []
    api = (site / "reference" / "core" / "index.html").read_text(encoding="utf-8")
    assert "IncrementalDecoder" in api and "find_errors" in api
