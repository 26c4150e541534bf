"""fuzz_policy's sampled tiers and fuzz_identifiers' look-alike oracle.

* ``check_policy`` in a campaign (``deep=None``) runs a verdict tier on every input
  (``accepts``/``sanitize``), ``inspect`` on a sample and everything on a smaller one;
  each tier flags the bugs it is about, a sampled failure is a failure of the full check
  too (what a replay runs), and libFuzzer's one-input replay selects the full check;
* ``check_identifiers`` holds ``skeleton``/``confusable`` (C when built) against their
  pure-Python twins and against UTS #39 §4's definition.
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import sanitizer
import sanitizer._policy
from sanitizer._fuzzing import oracles, targets
from sanitizer._fuzzing.libfuzzer import replaying
from sanitizer._fuzzing.oracles import Divergence, check_identifiers, check_policy

ROOT = Path(__file__).resolve().parents[2]
SEEDS = [p.read_bytes() for p in sorted((ROOT / "corpus" / "policy").iterdir())]


# -- which tier runs -----------------------------------------------------------------------


def test_replaying_is_libfuzzers_all_inputs_are_files(tmp_path: Path) -> None:
    crash = tmp_path / "crash-1"
    crash.write_bytes(b"x")
    assert replaying(["fuzz_policy.py", str(crash)])
    assert replaying(["fuzz_policy.py", "-runs=10", str(crash), "-minimize_crash=1"])
    assert not replaying(["fuzz_policy.py", str(tmp_path)])  # a corpus directory: fuzzing
    assert not replaying(["fuzz_policy.py", str(tmp_path), str(crash)])
    assert not replaying(["fuzz_policy.py", "-max_total_time=5"])  # no inputs at all


@pytest.mark.parametrize("replay", [True, False])
def test_fuzz_policy_runs_the_full_check_on_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: bool
) -> None:
    crash = tmp_path / "crash-1"
    crash.write_bytes(b"x")
    seen: list[bool | None] = []
    monkeypatch.setattr(oracles, "check_policy", lambda data, deep: seen.append(deep))
    argv = ["fuzz_policy.py", str(crash if replay else tmp_path)]
    targets.worker_check("policy", argv)(b"x")
    assert seen == [True if replay else None]
    # so does decode (a finding the screen's full check saw replays the same check)
    decoded: list[bool | None] = []
    monkeypatch.setattr(oracles, "check_decode", lambda data, candidate, deep: decoded.append(deep))
    monkeypatch.delenv("SANITIZER_FUZZ_CANDIDATE", raising=False)
    targets.worker_check("decode", argv)(b"x")
    assert decoded == [True if replay else None]


def _tier_counts(monkeypatch: pytest.MonkeyPatch, deep: bool | None) -> dict[str, int]:
    counts = {"verdict": 0, "inspect": 0}

    def counted(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return real(*args, **kwargs)

        return call

    with monkeypatch.context() as patch:
        patch.setattr(oracles, "_check_verdict", counted("verdict", oracles._check_verdict))
        patch.setattr(oracles, "_inspect", counted("inspect", oracles._inspect))
        for data in SEEDS:
            check_policy(data, deep=deep)
    return counts


def test_campaign_tier_checks_every_verdict_and_samples_inspect(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    full = _tier_counts(monkeypatch, True)
    sampled = _tier_counts(monkeypatch, None)
    profiles = len(sanitizer.profiles.PROFILES)
    assert full["verdict"] == profiles * len(SEEDS)  # every profile, every input
    assert sampled["verdict"] >= len(SEEDS)  # one profile on every input (more when deep)
    assert sampled["inspect"] * 8 < full["inspect"], (sampled, full)
    deep = sum(1 for d in SEEDS if zlib.crc32(d) % oracles.POLICY_DEEP_EVERY == 0)
    report = sum(
        1
        for d in SEEDS
        if zlib.crc32(d) % oracles.POLICY_DEEP_EVERY
        and (zlib.crc32(d) >> 16) % oracles.POLICY_INSPECT_EVERY == 0
        and len(d) <= oracles.POLICY_INSPECT_LIMIT
    )
    assert sampled["verdict"] == len(SEEDS) + deep * (profiles - 1)
    assert sampled["inspect"] >= report + deep * profiles


# -- each tier flags its bugs, and a sampled failure fails the full check too --------------


def _accepts_everything(data: Any, policy: Any = None) -> bool:
    return True


def _sanitize_leaks_a_surrogate(data: Any, policy: Any = None) -> str:
    real = sanitizer._policy.sanitize(data, policy)
    return real + "\ud800"


def _sanitize_not_idempotent(data: Any, policy: Any = None) -> str:
    real = sanitizer._policy.sanitize(data, policy)
    return real[:-1] if isinstance(data, str) else real  # a second pass eats a character


BUGS: dict[str, tuple[str, str, Callable[..., Any], bytes]] = {
    # name: (object, attribute, replacement, an input the verdict tier flags)
    "accepts ill-formed": ("policy", "accepts", _accepts_everything, b"ab\xffc"),
    "lone surrogate out": ("sanitizer", "sanitize", _sanitize_leaks_a_surrogate, b"ok"),
    "not idempotent": ("sanitizer", "sanitize", _sanitize_not_idempotent, b"ok"),
}


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_verdict_tier_flags_on_every_input_and_full_check_agrees(
    monkeypatch: pytest.MonkeyPatch, bug: str
) -> None:
    where, name, broken, data = BUGS[bug]
    monkeypatch.setattr(sanitizer._policy if where == "policy" else sanitizer, name, broken)
    with pytest.raises(Divergence):
        check_policy(data, deep=False)  # the tier every campaign input gets
    with pytest.raises(Divergence):
        check_policy(data, deep=True)  # and the replay of that input


def test_report_tier_flags_a_finding_outside_the_input(monkeypatch: pytest.MonkeyPatch) -> None:
    real = sanitizer.inspect

    def shifted(data: Any, policy: Any = None, **kw: Any) -> Any:
        report = real(data, policy, **kw)
        moved = tuple(
            dataclasses.replace(f, start=f.start + 100, end=f.end + 100) for f in report.findings
        )
        return dataclasses.replace(report, findings=moved)

    monkeypatch.setattr(sanitizer, "inspect", shifted)
    # an input of the report tier (its CRC picks inspect, not the deep tier)
    data = next(
        d
        for d in (b"\xff" + bytes([i, j]) for i in range(256) for j in range(256))
        if (zlib.crc32(d) >> 16) % oracles.POLICY_INSPECT_EVERY == 0
        and zlib.crc32(d) % oracles.POLICY_DEEP_EVERY
    )
    with pytest.raises(Divergence, match="outside the input"):
        check_policy(data, deep=None)
    with pytest.raises(Divergence, match="outside the input"):
        check_policy(data, deep=True)


def test_seeds_pass_every_tier() -> None:
    for data in SEEDS:
        check_policy(data, deep=False)
        check_policy(data, deep=None)


# -- identifiers: UTS #39 §4 ----------------------------------------------------------------

CYRILLIC_A = "\u0430".encode()  # looks like Latin "a": same skeleton


def test_identifier_oracle_passes_a_whole_script_confusable() -> None:
    check_identifiers(b"p" + CYRILLIC_A + b"ypal\xffpaypal")  # mixed vs Latin
    check_identifiers(b"\xd1\x81\xd0\xbe\xd1\x80\xd0\xb5\xffcope")  # all Cyrillic vs Latin
    assert sanitizer.confusable("\u0441\u043e\u0440\u0435", "cope") is (
        sanitizer.Confusability.WHOLE_SCRIPT
    )


@pytest.mark.parametrize(
    ("name", "broken", "match"),
    [
        ("skeleton", lambda s: s, "skeleton != skeleton_py"),
        ("confusable", lambda a, b: None, "confusable disagrees"),
        (
            "confusable",
            lambda a, b: sanitizer.Confusability.SINGLE_SCRIPT if a == b or a < b else None,
            "confusable disagrees",
        ),
    ],
)
def test_identifier_oracle_flags_lookalike_bugs(
    monkeypatch: pytest.MonkeyPatch, name: str, broken: Callable[..., Any], match: str
) -> None:
    monkeypatch.setattr(sanitizer, name, broken)
    with pytest.raises(Divergence, match=match):
        check_identifiers(CYRILLIC_A + b"\xffa")


def test_identifier_oracle_flags_a_script_mask_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    import sanitizer._lookalike.scripts as scripts

    monkeypatch.setattr(scripts, "resolved_mask", lambda s: 0)
    with pytest.raises(Divergence, match="resolved_mask"):
        check_identifiers(b"a\xffb")
