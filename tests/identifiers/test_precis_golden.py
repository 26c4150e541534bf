"""precis-i18n's golden cases (tests/data/precis-i18n-golden.json.xz, see its README row):
every one of the 3,575 gives the same output, or a refusal with the same reason, through
each implementation of ``enforce``: the C extension's, the Python path it hands its hard
cases to, and the rules taken one by one.  An accepted result is idempotent, as
precis-i18n's own golden test checks.

The golden file is the reference's, written for its Unicode version; this library is on
Unicode 18.  A case whose answer legitimately differs under Unicode 18 would be listed in
``UNICODE_18_DIFFERENCES`` with its reason; none does (cases that carry a
``unicode_version`` need at most 14.0, and Unicode 18 changed none of their characters).
"""

from __future__ import annotations

import json
import lzma
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sanitizer import precis

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "precis-i18n-golden.json.xz"
# (profile, input) -> why Unicode 18 answers differently from the golden file.  Empty:
# every golden case holds under Unicode 18.
UNICODE_18_DIFFERENCES: dict[tuple[str, str], str] = {}


def golden() -> list[dict[str, Any]]:
    with lzma.open(GOLDEN, "rt", encoding="ascii") as fh:
        cases: list[dict[str, Any]] = json.load(fh)
    return cases


CASES = golden()


def outcome(enforce: Callable[[str], str], s: str) -> tuple[str | None, str | None]:
    try:
        return enforce(s), None
    except precis.PrecisError as error:
        return None, error.reason


def implementations(profile: precis.Profile) -> dict[str, Callable[[str], str]]:
    found: dict[str, Callable[[str], str]] = {
        "python": profile._enforce_py,
        "exact": profile._enforce_exact,
    }
    native = profile._native()
    if native is not None:
        found["c"] = native
    return found


def test_the_golden_file_is_whole() -> None:
    assert len(CASES) == 3575
    assert Counter(case["profile"] for case in CASES) == dict.fromkeys(precis.PROFILE_NAMES, 325)
    assert max(case.get("unicode_version", 0) for case in CASES) <= 14.0


@pytest.mark.parametrize("name", precis.PROFILE_NAMES)
def test_every_golden_case_agrees(name: str) -> None:
    profile = precis.get_profile(name)
    enforcers = implementations(profile)
    wrong = []
    for case in CASES:
        if case["profile"] != name:
            continue
        s, expected = case["input"], (case["output"], case["error"])
        if (name, s) in UNICODE_18_DIFFERENCES:
            continue
        for how, enforce in enforcers.items():
            got = outcome(enforce, s)
            if got != expected:
                wrong.append(f"{how}: {s!a}: expected {expected}, got {got}")
            elif got[0] is not None and enforce(got[0]) != got[0]:
                wrong.append(f"{how}: {s!a}: {got[0]!a} is not idempotent")
    assert wrong == [], "\n".join(wrong[:20])


def test_the_implementations_refuse_alike() -> None:
    """Where the golden file only has a reason, the three give the same index, string
    and message too."""
    for case in CASES:
        if case["error"] is None:
            continue
        profile = precis.get_profile(case["profile"])
        seen = set()
        for enforce in implementations(profile).values():
            with pytest.raises(precis.PrecisError) as caught:
                enforce(case["input"])
            error = caught.value
            seen.add((error.reason, error.index, error.string, str(error)))
        assert len(seen) == 1, (case, seen)


def test_listed_differences_are_real() -> None:
    for (name, s), why in UNICODE_18_DIFFERENCES.items():  # pragma: no cover - none today
        case = next(c for c in CASES if c["profile"] == name and c["input"] == s)
        got = outcome(precis.get_profile(name).enforce, s)
        assert got != (case["output"], case["error"]), why
