"""Silencing findings as linter users expect (``sanitizer.cli._suppress``): an inline
comment naming the rule, ``[tool.sanitizer]`` in ``pyproject.toml``, a baseline, and
``--statistics``; a silenced finding never fails and is never lost (the summary counts
it, JSON and SARIF list it, SARIF with ``suppressions``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sanitizer._rule_registry import RULES
from tests.support.cli_runner import json_records
from tests.support.cli_runner import run_cli as _run_cli

ZWSP = "\u200b"


def run(*args: str | Path, cwd: Path | None = None) -> Any:
    return _run_cli("check", "--policy", "SOURCE", *args, cwd=cwd)


@pytest.mark.parametrize(
    "comment",
    ["# sanitizer: ignore[invisible]", "// sanitizer: ignore[bidi-control, invisible]",
     "/* sanitizer: ignore[invisible] */", "-- sanitizer:ignore[invisible]"],
)  # fmt: skip
def test_an_inline_comment_silences_its_rule_on_its_line(tmp_path: Path, comment: str) -> None:
    path = tmp_path / "a.py"
    path.write_text(f'x = "{ZWSP}"  {comment}\ny = 1\n', encoding="utf-8")
    proc = run("--json", path)
    assert proc.returncode == 0
    found, summary = json_records(proc.stdout)
    assert (found["rule"], found["suppressed"], found["fails"]) == ("invisible", "inline", False)
    assert summary["summary"]["suppressed"] == 1
    assert b"1 suppressed" in proc.stderr
    assert run(path).stdout == b""  # text leaves it out


@pytest.mark.parametrize(
    "line",
    [
        f'x = "{ZWSP}"  # sanitizer: ignore[bidi-control]',  # another rule
        f'x = "{ZWSP}"\n# sanitizer: ignore[invisible]',  # another line
        f'x = "{ZWSP} sanitizer: ignore[invisible]"',  # not in a comment
    ],
)
def test_a_comment_silences_nothing_else(tmp_path: Path, line: str) -> None:
    path = tmp_path / "a.py"
    path.write_text(line + "\n", encoding="utf-8")
    proc = run("--json", path)
    assert proc.returncode == 1
    assert [r["rule"] for r in json_records(proc.stdout)[:-1]] == ["invisible"]


def test_an_unknown_rule_in_a_comment_is_a_failing_finding(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text(f'x = "{ZWSP}"  # sanitizer: ignore[invisibel]\n', encoding="utf-8")
    proc = run("--json", path)
    assert proc.returncode == 1
    rules = sorted((r["rule"], r["fails"]) for r in json_records(proc.stdout)[:-1])
    assert rules == [("invalid-suppression", True), ("invisible", True)]
    assert "invalid-suppression" in RULES


def test_pyproject_table_found_walking_up(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.sanitizer]\nas-text = ["locale/"]\n'
        '[tool.sanitizer.per-file-ignores]\n"tests/**" = ["invisible"]\n',
        encoding="utf-8",
    )
    (tmp_path / "tests" / "deep").mkdir(parents=True)
    (tmp_path / "tests" / "deep" / "t.py").write_text(f'x = "{ZWSP}"\n', encoding="utf-8")
    (tmp_path / "locale").mkdir()
    (tmp_path / "locale" / "el.js").write_text("x = '\u041c\u041f AM'; p\u0430ypal\n")
    (tmp_path / "src.py").write_text(f'x = "{ZWSP}"\n', encoding="utf-8")
    proc = run("--json", ".", cwd=tmp_path / "tests")  # the table is above the folder checked
    assert proc.returncode == 0
    assert [r["suppressed"] for r in json_records(proc.stdout)[:-1]] == ["config"]
    proc = run("--json", ".", cwd=tmp_path)
    assert proc.returncode == 1  # src.py: no ignore applies; locale/: text, not identifiers
    failing = [(r["path"], r["rule"]) for r in json_records(proc.stdout)[:-1] if r["fails"]]
    assert failing == [("./src.py", "invisible")]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('ignores = ["invisible"]', "unknown key 'ignores'"),
        ('ignore = ["invisibel"]', "unknown rule id 'invisibel'"),
        ('ignore = "invisible"', "must be a list of rule ids"),
        ('as-text = ["a\\\\"]', "is not a gitignore pattern"),
        ("ignore = [", "not valid TOML"),
    ],
)
def test_a_bad_table_is_a_usage_error(tmp_path: Path, table: str, message: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.sanitizer]\n{table}\n", encoding="utf-8")
    (tmp_path / "a.py").write_text("x = 1\n")
    proc = run("a.py", cwd=tmp_path)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert "pyproject.toml" in err and message in err and "Traceback" not in err


def test_a_baseline_fails_only_on_new_findings(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text(f'x = "{ZWSP}"\ny = "p\u0430ypal"\n', encoding="utf-8")
    base = tmp_path / "baseline.json"
    proc = run("--write-baseline", base, path, cwd=tmp_path)
    assert proc.returncode == 0 and base.exists()
    assert json.loads(base.read_text())["findings"][0]["path"] == "a.py"
    assert run("--baseline", base, path).returncode == 0
    # lines added above: still known (keyed by the line around it, not its number)
    path.write_text(f'# new\n\nx = "{ZWSP}"\ny = "p\u0430ypal"\n', encoding="utf-8")
    proc = run("--baseline", base, "--json", path)
    assert proc.returncode == 0
    assert [r["suppressed"] for r in json_records(proc.stdout)[:-1]] == ["baseline", "baseline"]
    # a second copy of a known finding, and a new one, fail
    path.write_text(f'x = "{ZWSP}"\nx = "{ZWSP}"\ny = "p\u0430ypal"\nz{ZWSP} = 1\n', "utf-8")
    proc = run("--baseline", base, "--json", path)
    assert proc.returncode == 1
    assert [r["line"] for r in json_records(proc.stdout)[:-1] if r["fails"]] == [2, 4]
    sarif = json.loads(run("--baseline", base, "--format", "sarif", path).stdout)
    results = sarif["runs"][0]["results"]
    assert [bool(r.get("suppressions")) for r in results] == [True, False, True, False]
    assert results[0]["suppressions"][0]["kind"] == "external"


def test_a_bad_baseline_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text('{"nope": 1}')
    (tmp_path / "a.py").write_text("x = 1\n")
    proc = run("--baseline", "b.json", "a.py", cwd=tmp_path)
    assert proc.returncode == 2 and b"--baseline b.json" in proc.stderr


def test_statistics_count_each_rule(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text(f'x = "{ZWSP}"  # sanitizer: ignore[invisible]\ny = "{ZWSP}"\n', "utf-8")
    proc = run("--statistics", "--json", path)
    stats = json_records(proc.stdout)[-1]["summary"]["statistics"]
    assert stats == {"invisible": {"failing": 1, "allowed": 0, "suppressed": 1}}
    text = run("--statistics", path).stdout.decode().splitlines()
    assert text[-1].split()[:2] == ["2", "invisible"]


@pytest.mark.parametrize("read", [1, 7, 64, 1 << 20])
def test_comments_are_found_whatever_the_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read: int
) -> None:
    from sanitizer.cli import _suppress

    monkeypatch.setattr(_suppress, "_READ", read)
    path = tmp_path / "x.py"
    path.write_text(
        "a\rb\r\n" * 5 + "x = 1  # sanitizer: ignore[invisible, nope]\n"
        "y # sanitizer: ignore[bidi-control]\r'sanitizer: ignore[tag]'\n",
        encoding="utf-8",
        newline="",
    )
    marks, invalid = _suppress.inline_marks(str(path), 1 << 20)
    assert marks == {11: {"invisible", "nope"}, 12: {"bidi-control"}}
    assert [(f.place.line, f.place.column, f.what) for f in invalid] == [(11, 10, "nope")]


# -- the attacks on the gate's reading of a tree ------------------------------------------


def test_bidi_controls_are_the_property_of_that_name() -> None:
    from sanitizer.cli import _check

    path = Path("/work/shared/unicode/ucd-18.0.0/PropList.txt")
    if not path.exists():
        pytest.skip("no Unicode data")
    controls = set()
    for line in path.read_text().splitlines():
        fields = line.split("#")[0].split(";")
        if len(fields) == 2 and fields[1].strip() == "Bidi_Control":
            lo, _, hi = fields[0].strip().partition("..")
            controls |= {chr(c) for c in range(int(lo, 16), int(hi or lo, 16) + 1)}
    assert controls == set(_check._BIDI_CONTROLS)


def test_a_bidi_control_in_a_file_name_fails(tmp_path: Path) -> None:
    (tmp_path / "invoice\u202egpj.py").write_text("x = 1\n")
    (tmp_path / "caf\u00e9.py").write_text("x = 1\n")  # a name that is not ASCII: fine
    proc = run("--json", ".", cwd=tmp_path)
    assert proc.returncode == 1
    found = json_records(proc.stdout)[:-1]
    assert [(r["rule"], r["what"], r["path"]) for r in found] == [
        ("bidi-control", "U+202E", "./invoice\u202egpj.py")
    ]


def test_a_link_is_judged_as_what_its_target_is(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "evil.py").write_text("p\u0430ypal = 1\n", encoding="utf-8")
    (tmp_path / "notes.md").symlink_to(tmp_path / "d" / "evil.py")
    proc = run("--json", "notes.md", cwd=tmp_path)
    assert proc.returncode == 1
    assert [r["rule"] for r in json_records(proc.stdout)[:-1]] == ["mixed-script"]
