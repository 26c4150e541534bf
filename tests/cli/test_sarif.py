"""``sanitizer check --format sarif`` is valid SARIF 2.1.0 for code scanning, and the
pre-commit hook works under the real ``pre-commit`` tool."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from sanitizer._categories import Category
from sanitizer._errors import ErrorKind
from sanitizer._rule_registry import RULES
from tests.support.cli_runner import run_cli

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "tests/data/sarif/sarif-schema-2.1.0.json").read_text())


def sarif(*args: str | Path, cwd: Path) -> tuple[int, dict[str, Any]]:
    proc = run_cli("check", "--format", "sarif", *args, cwd=cwd)
    return proc.returncode, json.loads(proc.stdout.decode("utf-8"))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src/trojan.js").write_text(
        "var isAdmin = false;\n/*\u202e } \u2066if (isAdmin)\u2069 \u2066 begin admins only */\n"
        "console.log('\U0001f600 ok');\n",
        encoding="utf-8",
    )
    (tmp_path / "src/bad.c").write_bytes(b"int x; /* \xc0\xaf */\n")
    (tmp_path / "legacy.py").write_bytes(b"# coding: latin-1\nx = '\xe9'\n")
    (tmp_path / "rtl.txt").write_text("\u05e9\u05dc\u05d5\u05dd\u200f\n", encoding="utf-8")
    os.makedirs(os.fsencode(tmp_path) + b"/odd\xff dir")
    with open(os.fsencode(tmp_path) + b"/odd\xff dir/x%y.txt", "wb") as f:
        f.write(b"\xfe\n")
    return tmp_path


def test_output_is_valid_sarif_2_1_0(tree: Path) -> None:
    code, log = sarif("--policy", "TEXT", ".", cwd=tree)
    assert code == 1
    jsonschema.Draft7Validator(SCHEMA).validate(log)
    (run,) = log["runs"]
    assert log["version"] == "2.1.0" and run["columnKind"] == "utf16CodeUnits"
    rules = run["tool"]["driver"]["rules"]
    for result in run["results"]:
        rule = rules[result["ruleIndex"]]
        assert rule["id"] == result["ruleId"]
        assert rule["help"]["text"] and rule["shortDescription"]["text"]
        assert float(rule["properties"]["security-severity"]) > 0
    by_rule = {r["ruleId"]: r for r in run["results"]}
    assert {"bidi-control", "overlong", "declared-encoding", "invalid-byte"} <= set(by_rule)
    assert by_rule["bidi-mark"]["level"] == "note"  # allowed by TEXT: reported, not failing
    assert by_rule["overlong"]["level"] == "error"
    odd = by_rule["invalid-byte"]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert odd == {"uri": "odd%FF%20dir/x%25y.txt", "uriBaseId": "%SRCROOT%"}
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base.startswith("file:///") and base.endswith("/")


def test_regions_count_utf16_code_units_unless_asked(tree: Path) -> None:
    (tree / "emoji.txt").write_text("\U0001f600\U0001f600\u202e\n", encoding="utf-8")
    _, log = sarif("--policy", "TEXT", "emoji.txt", cwd=tree)
    region = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {
        "startLine": 1,
        "startColumn": 5,
        "endLine": 1,
        "endColumn": 6,
        "byteOffset": 8,
        "byteLength": 3,
    }
    _, log = sarif("--policy", "TEXT", "--columns", "codepoints", "emoji.txt", cwd=tree)
    assert log["runs"][0]["columnKind"] == "unicodeCodePoints"
    region = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert (region["startColumn"], region["endColumn"]) == (3, 4)


def test_fingerprints_survive_lines_added_above(tree: Path) -> None:
    def prints() -> list[tuple[str, str]]:
        _, log = sarif("--policy", "TEXT", "src/trojan.js", cwd=tree)
        return [
            (r["ruleId"], r["partialFingerprints"]["utf8Sanitizer/v1"])
            for r in log["runs"][0]["results"]
        ]

    before = prints()
    assert len(set(before)) == len(before) == 4  # same line, same rule: still distinct
    js = tree / "src/trojan.js"
    js.write_bytes(b"// a new first line\n\n" + js.read_bytes())
    assert prints() == before


def test_every_kind_has_a_rule() -> None:
    for kind in ErrorKind:
        assert kind.value in RULES
    missing = {c.value for c in Category} - set(RULES)
    # categories added by the look-alike work get a generic rule until they are described
    assert missing <= {"restricted", "mixed-script", "mixed-numbers", "hidden-overlay"}


def test_clean_tree_is_an_empty_valid_log(tmp_path: Path) -> None:
    (tmp_path / "ok.txt").write_text("naïve café 日本\n", encoding="utf-8")
    code, log = sarif(".", cwd=tmp_path)
    assert code == 0
    jsonschema.Draft7Validator(SCHEMA).validate(log)
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is True


def _git(cwd: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, env=env)


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("git") is None or shutil.which("pre-commit") is None,
    reason="needs git and pre-commit",
)
def test_pre_commit_hook_utf8_check(tmp_path: Path) -> None:
    """The real pre-commit installs this project (a commit of the working tree, as pre-commit
    clones a repository at a rev) and runs the ``utf8-check`` hook on a repository."""
    hooks_repo = tmp_path / "hooks"
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        check=True,
        capture_output=True,
    ).stdout
    for rel in (os.fsdecode(p) for p in listed.split(b"\0") if p):
        src = ROOT / rel
        if src.is_file() and not src.is_symlink():
            dst = hooks_repo / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    _git(hooks_repo, "init", "-q")
    _git(hooks_repo, "add", "-A")
    _git(hooks_repo, "commit", "-q", "-m", "snapshot")
    rev = (
        subprocess.run(
            ["git", "-C", str(hooks_repo), "rev-parse", "HEAD"], check=True, capture_output=True
        )
        .stdout.decode()
        .strip()
    )

    project = tmp_path / "project"
    project.mkdir()
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {hooks_repo}\n  rev: {rev}\n  hooks:\n  - id: utf8-check\n"
        "  - id: source-check\n"
    )
    (project / "ok.py").write_text("print('naïve café')\n", encoding="utf-8")
    (project / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")  # binary: skipped
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "PYTHONPATH": ""}

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["pre-commit", "run", "--all-files", "--color", "never"],
            cwd=project,
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )

    clean = run()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "UTF-8 gate" in clean.stdout and "Passed" in clean.stdout
    (project / "bad.py").write_bytes(b"path = '/..\xc0\xaf..'\n")
    _git(project, "add", "bad.py")
    dirty = run()
    assert dirty.returncode == 1
    assert "bad.py:1:12: overlong  C0 AF  reject" in dirty.stdout

    # the source gate: legitimate RTL text with RLM passes, a Trojan Source file fails
    _git(project, "rm", "-q", "--cached", "bad.py")
    (project / "bad.py").unlink()
    (project / "rtl.py").write_text("s = '\u05e9\u05dc\u05d5\u05dd\u200f'\n", encoding="utf-8")
    _git(project, "add", "rtl.py")
    clean = run()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Source gate" in clean.stdout
    (project / "trojan.js").write_text(
        "var isAdmin = false;\n/*\u202e } \u2066if (isAdmin)\u2069 \u2066 begin admins */\n",
        encoding="utf-8",
    )
    _git(project, "add", "trojan.js")
    dirty = run()
    assert dirty.returncode == 1
    assert "trojan.js:2:3: bidi-control  U+202E  reject" in dirty.stdout
