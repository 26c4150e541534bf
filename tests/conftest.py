"""The run's hooks and the fixtures every test folder shares.

Each folder of tests/ mirrors a part of the package (core/, policy/, identifiers/, cli/,
web/, fuzzing/, columns/, integrations/) or holds the suites that cut across it
(suites/); the helpers they share are in tests/support/ (CONTRIBUTING.md).  Here: the
Hypothesis profile (tests/support/settings.py), ``--fast`` and the fast tier's budget,
the run's compiled modules and garbage collector, and the ``sanitizer_cli``, ``runner``
and ``backend`` fixtures.
"""

from __future__ import annotations

import compileall
import gc
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.backends import BACKENDS, RUNNERS, use_backend
from tests.support.cli_runner import run_cli
from tests.support.settings import PROFILE, declared_markers, fast_tier

# -- the fast tier's budget ---------------------------------------------------------------

# A test without a marker runs in the fast tier, which stays under a minute
# (CONTRIBUTING.md): it gets FAST_TEST_BUDGET seconds, setup and teardown included, under
# the "dev" Hypothesis profile.  The run's summary names the ones over it: a report, not a
# failure (a loaded machine makes anything slow); mark such a test or make it cheaper.
# Every marker pyproject.toml declares (slow, servers, fuzz) takes a test out of the fast
# tier, and ``--fast`` runs the fast tier alone: the one spelling of its -m expression.
FAST_TEST_BUDGET = 1.0
_fast_test_seconds: dict[str, float] = {}
TIER_MARKERS: tuple[str, ...] = ()  # read from pyproject.toml by pytest_configure


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast",
        action="store_true",
        help="the fast tier only: no test with a marker that pyproject.toml declares",
    )


def pytest_configure(config: pytest.Config) -> None:
    global TIER_MARKERS
    _compile_package(config)
    TIER_MARKERS = declared_markers(config.getini("markers"))
    if config.getoption("fast"):
        expression = fast_tier(TIER_MARKERS)
        chosen = config.option.markexpr
        config.option.markexpr = f"({chosen}) and {expression}" if chosen else expression


def pytest_collection_finish(session: pytest.Session) -> None:
    # What collection built (modules, test items, strategies) lives to the end of the
    # run: moved out of the collector's reach, the full collections that the tests'
    # garbage triggers no longer walk it each time (they took about a tenth of a run).
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 50, 50)


# -- compiled modules ---------------------------------------------------------------------

# pip byte-compiles what it installs, but not the sources of an editable install; where the
# environment also says not to write bytecode (PYTHONDONTWRITEBYTECODE), every command a
# test runs would compile the package again, a third of its start, and every run would
# rewrite and compile each test module again.  So the run compiles the package once, as an
# install would, and keeps its rewritten test modules (both in __pycache__, git-ignored).
PACKAGE = Path(__file__).resolve().parents[1] / "sanitizer"


def _compile_package(config: pytest.Config) -> None:
    if sys.dont_write_bytecode and not hasattr(config, "workerinput"):
        compileall.compile_dir(PACKAGE, quiet=1)  # before pytest-xdist starts its workers


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[object]:
    environment_says = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = environment_says


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # report.keywords holds the test's marker names (also from pytest-xdist's workers)
    if PROFILE == "dev" and not any(marker in report.keywords for marker in TIER_MARKERS):
        seconds = _fast_test_seconds.get(report.nodeid, 0.0) + report.duration
        _fast_test_seconds[report.nodeid] = seconds


def pytest_terminal_summary(terminalreporter: Any) -> None:
    over = sorted(
        ((seconds, nodeid) for nodeid, seconds in _fast_test_seconds.items()),
        reverse=True,
    )
    over = [(seconds, nodeid) for seconds, nodeid in over if seconds > FAST_TEST_BUDGET]
    if over:
        terminalreporter.write_sep(
            "-",
            f"{len(over)} fast-tier test(s) over the {FAST_TEST_BUDGET:g} s budget "
            f"(no {'/'.join(TIER_MARKERS)} marker)",
        )
        for seconds, nodeid in over:
            terminalreporter.write_line(f"{seconds:6.2f}s {nodeid}")


@pytest.fixture
def sanitizer_cli() -> Callable[..., Any]:
    """``cli_runner.run_cli``: ``python -m sanitizer ARGS`` in a child process, with
    ``stdin``, ``env``, ``cwd``; (code, stdout, stderr)."""
    return run_cli


# -- backends ---------------------------------------------------------------------------


@pytest.fixture(params=sorted(RUNNERS))
def runner(request: pytest.FixtureRequest) -> ModuleType:
    """A runner module (``spans``/``replace``), once per available implementation."""
    return RUNNERS[request.param]


@pytest.fixture(params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest) -> Iterator[ModuleType]:
    """The public API switched to one backend for the duration of the test; the runner."""
    with use_backend(request.param) as module:
        yield module
