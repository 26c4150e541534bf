"""The rule registry (``sanitizer._rule_registry``) is the one source of every rule's
words: SARIF's rule metadata equals it, every rule id the checks can emit is in it (the
attacks and the legitimate corpus of tests/policy/source_samples.py exercise the source gate),
every example triggers its rule, and docs/rules.md is what it renders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sanitizer import (
    Category,
    ErrorKind,
    UnitErrorKind,
    check_source,
    find_errors,
    inspect,
    profiles,
    utf16,
    utf32,
)
from sanitizer._rule_registry import CHECKS, FILE, POLICY, RULES, SOURCE, UTF8, WIDE, Rule, shown
from sanitizer._source_gate import check_source_pieces
from tests.policy.source_samples import ATTACKS, LEGIT
from tests.support.cli_runner import run_cli

ROOT = Path(__file__).resolve().parents[2]
ENV = {"PYTHONPATH": str(ROOT)}


def _kinds(rule: Rule, check: str) -> set[str]:
    """The rule ids ``check`` reports on ``rule.example``."""
    example = rule.example
    if check == UTF8:
        assert isinstance(example, bytes)
        return {e.kind.value for e in find_errors(example)}
    if check == WIDE:
        assert isinstance(example, bytes)
        return {
            e.kind.value for m in (utf16, utf32) for e in m.find_errors(example, byte_order="le")
        }
    if check == POLICY:  # some profile reports it
        found = [inspect(example, p).findings for p in profiles.PROFILES.values()]
        return {f.category.value for findings in found for f in findings}
    assert check == SOURCE and isinstance(example, str)
    return {f.kind for code in (True, False) for f in check_source(example, code=code).findings}


def test_every_kind_the_decoders_and_policies_report_has_a_rule() -> None:
    kinds = {k.value for k in ErrorKind} | {k.value for k in UnitErrorKind}
    kinds |= {c.value for c in Category}
    assert kinds <= set(RULES)


def test_each_rule_is_complete_and_its_id_a_stable_name() -> None:
    for rule_id, rule in RULES.items():
        assert rule.id == rule_id and rule_id.replace("-", "").isalpha() and rule_id.islower()
        assert rule.checks and set(rule.checks) <= set(CHECKS), rule_id
        assert rule.title and rule.what and rule.why, rule_id
        assert 0.0 < float(rule.severity) < 10.0, rule_id
        assert not rule.title.startswith("Unicode finding"), rule_id  # rule_for's fallback


@pytest.mark.parametrize("rule_id", [r.id for r in RULES.values() if r.checks[0] != FILE])
def test_each_example_triggers_its_rule(rule_id: str) -> None:
    rule = RULES[rule_id]
    assert rule_id in _kinds(rule, rule.checks[0])
    assert eval(shown(rule.example)) == rule.example  # the docs show it as a literal


def test_the_file_rules_examples(tmp_path: Path) -> None:
    (tmp_path / "legacy.py").write_bytes(_example("declared-encoding"))
    (tmp_path / "blob.dat").write_bytes(_example("binary"))
    proc = run_cli("check", "--format", "json", "--binary", "fail", ".", cwd=tmp_path, env=ENV)
    kinds = {json.loads(line).get("rule") for line in proc.stdout.splitlines()}
    assert {"declared-encoding", "binary"} <= kinds
    (tmp_path / "wide.txt").write_bytes(_example("no-byte-order-mark"))
    proc = run_cli("check", "--format", "json", "--encoding", "utf-16", "wide.txt", cwd=tmp_path,
                   env=ENV)  # fmt: skip
    assert "no-byte-order-mark" in {
        json.loads(line).get("rule") for line in proc.stdout.splitlines()
    }
    (tmp_path / "records.jsonl").write_bytes(_example("not-json"))
    proc = run_cli("check", "--format", "json", "records.jsonl", cwd=tmp_path, env=ENV)
    assert "not-json" in {json.loads(line).get("rule") for line in proc.stdout.splitlines()}
    (tmp_path / "typo.py").write_bytes(_example("invalid-suppression"))
    proc = run_cli("check", "--format", "json", "--policy", "SOURCE", "typo.py", cwd=tmp_path,
                   env=ENV)  # fmt: skip
    assert "invalid-suppression" in {
        json.loads(line).get("rule") for line in proc.stdout.splitlines()
    }


def _example(rule_id: str) -> bytes:
    example = RULES[rule_id].example
    assert isinstance(example, bytes)
    return example


def test_every_rule_id_the_source_gate_emits_is_in_the_registry() -> None:
    seen: set[str] = set()
    for content, _ in [*ATTACKS.values(), *((c, None) for c in LEGIT.values())]:
        text = content if isinstance(content, str) else content.decode("utf-8", "replace")
        for code in (True, False):
            seen |= {f.kind for f in check_source(text, code=code).findings}
    for rule in RULES.values():  # and what each example makes the gate say
        text = rule.example if isinstance(rule.example, str) else rule.example.decode("latin-1")
        seen |= {f.kind for f in check_source(text).findings}
    # a word cut by a forced piece boundary
    report = check_source_pieces(lambda: ["x = abc", "def\n"])
    seen |= {f.kind for f in report.findings}
    assert {"bidi-control", "confusable", "mixed-script", "too-long"} <= seen
    assert seen <= set(RULES), seen - set(RULES)
    for rule_id in seen - {c.value for c in Category}:
        assert SOURCE in RULES[rule_id].checks, rule_id


def test_sarif_rule_metadata_is_the_registry(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        'x = "\u202e"\np\u0430ypal = 1\nad\u200bmin = 1\n', encoding="utf-8"
    )
    (tmp_path / "b.txt").write_bytes(b"\xc0\xaf \xed\xa0\x80\n")
    proc = run_cli("check", "--policy", "SOURCE", "--format", "sarif", ".", cwd=tmp_path, env=ENV)
    rules = json.loads(proc.stdout)["runs"][0]["tool"]["driver"]["rules"]
    assert len(rules) >= 5
    for entry in rules:
        rule = RULES[entry["id"]]
        assert entry["name"] == "".join(w.capitalize() for w in rule.id.split("-"))
        assert entry["shortDescription"] == {"text": rule.title}
        assert entry["fullDescription"] == {"text": rule.why}
        assert entry["help"] == {"text": f"{rule.title}. {rule.why}"}
        assert entry["properties"]["security-severity"] == rule.severity


def test_the_rules_page_lists_every_rule() -> None:
    page = (ROOT / "docs/rules.md").read_text(encoding="utf-8")
    for rule in RULES.values():
        assert f"\n## {rule.id}\n" in page and rule.why in page
