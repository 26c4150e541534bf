"""The run's settings, one place for every test folder: the Hypothesis profiles (and
``examples``, a test's example count scaled to the loaded profile) and the fast tier's
marker expression.  ``tests/conftest.py`` loads the profile and applies ``--fast``.
"""

from __future__ import annotations

import os

from hypothesis import settings

# Hypothesis profiles: "ci" (deterministic, more examples; .ci/run and CI=true) and "dev"
# (few examples, for local loops).  HYPOTHESIS_PROFILE chooses one explicitly.  Tests set
# only what their meaning needs (a search budget, a sample size), or scale the profile's
# count: settings(max_examples=examples(500)) runs 500 in CI and a tenth of that locally.
CI_EXAMPLES = 300
settings.register_profile(
    "ci", max_examples=CI_EXAMPLES, deadline=None, derandomize=True, database=None, print_blob=True
)
settings.register_profile("dev", max_examples=30, deadline=None)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or (
    "ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes") else "dev"
)
settings.load_profile(PROFILE)


def examples(in_ci: int) -> int:
    """Hypothesis examples for a test that wants ``in_ci`` of them under the ``ci``
    profile: that many there, as many in proportion under the loaded profile."""
    return max(1, in_ci * settings().max_examples // CI_EXAMPLES)


def declared_markers(lines: list[str]) -> tuple[str, ...]:
    """The marker names of pytest's ``markers`` ini lines ("slow: over the ...")."""
    return tuple(line.split(":")[0].split("(")[0].strip() for line in lines)


def fast_tier(markers: tuple[str, ...]) -> str:
    """The -m expression of the fast tier: none of ``markers``."""
    return " and ".join(f"not {marker}" for marker in markers)
