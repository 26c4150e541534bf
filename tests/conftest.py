"""Shared fixtures and independent oracles for the decoder-core tests.

The oracles here deliberately do not import anything from ``sanitizer._grammar`` or
``sanitizer._errors``: CPython's codec is the reference for verdicts, text and error spans,
and the RFC 2279 lax decoder and the kind table below are written from the issue's text.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest
from cli_runner import run_cli
from hypothesis import settings

from sanitizer import _decoder as decoder
from sanitizer import _machine

# The kind table, spelled out independently of sanitizer._errors.classify (which derives it
# from the grammar): one oracle serves these tests and the fuzz targets alike.
from sanitizer._fuzzing.oracles import expected_kind as expected_kind
from sanitizer._native import speedups

# The runners: the reference always, the C one when the package uses it (built and not
# disabled by SANITIZER_PURE_PYTHON=1: sanitizer._native decides).
RUNNERS: dict[str, Any] = {"python": _machine}
if speedups is not None:
    RUNNERS["c"] = speedups

# Hypothesis profiles: "ci" (deterministic, more examples; .ci/run and CI=true) and "dev"
# (few examples, for local loops).  HYPOTHESIS_PROFILE chooses one explicitly.  Tests set
# only what their meaning needs (a search budget, a sample size), or scale the profile's
# count: settings(max_examples=examples(500)) runs 500 in CI and a sixth of that locally.
CI_EXAMPLES = 300
settings.register_profile(
    "ci", max_examples=CI_EXAMPLES, deadline=None, derandomize=True, database=None, print_blob=True
)
settings.register_profile("dev", max_examples=50, deadline=None)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or (
    "ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes") else "dev"
)
settings.load_profile(PROFILE)


def examples(in_ci: int) -> int:
    """Hypothesis examples for a test that wants ``in_ci`` of them under the ``ci``
    profile: that many there, as many in proportion under the loaded profile."""
    return max(1, in_ci * settings().max_examples // CI_EXAMPLES)


# The boundary bytes of the issue: both ends of every range RFC 3629 §4 / RFC 2279 mention.
BOUNDARY = bytes.fromhex(
    "00 7F 80 8F 90 9F A0 BF C0 C1 C2 DF E0 E1 EC ED EE EF F0 F1 F3 F4 F5 F7 F8 FB FC FD FE FF"
)


def default_sigint() -> None:
    """``preexec_fn`` for a child a test interrupts with SIGINT: the default disposition,
    as a terminal leaves it.  A test run started in the background without job control
    (``cmd &`` in a script) ignores SIGINT, the child would inherit that, and Python then
    installs no KeyboardInterrupt handler: the signal would be lost."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def inputs_over(alphabet: bytes, length: int) -> Iterator[bytes]:
    return (bytes(p) for p in itertools.product(alphabet, repeat=length))


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


def declared_markers(lines: list[str]) -> tuple[str, ...]:
    """The marker names of pytest's ``markers`` ini lines ("slow: over the ...")."""
    return tuple(line.split(":")[0].split("(")[0].strip() for line in lines)


def fast_tier(markers: tuple[str, ...]) -> str:
    """The -m expression of the fast tier: none of ``markers``."""
    return " and ".join(f"not {marker}" for marker in markers)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast",
        action="store_true",
        help="the fast tier only: no test with a marker that pyproject.toml declares",
    )


def pytest_configure(config: pytest.Config) -> None:
    global TIER_MARKERS
    TIER_MARKERS = declared_markers(config.getini("markers"))
    if config.getoption("fast"):
        expression = fast_tier(TIER_MARKERS)
        chosen = config.option.markexpr
        config.option.markexpr = f"({chosen}) and {expression}" if chosen else expression


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


# A backend: the runner behind the public entry points, and the ``decode`` entry point.
# With the C runner built, ``sanitizer.decode`` is a C function (``_speedups.decode``)
# that handles the fast path and ``errors="replace"`` itself and calls ``decode_py`` for
# the rest; ``decode_py`` is the Python implementation, tested on both runners.
BACKENDS: dict[str, tuple[Any, Callable[..., str]]] = {
    "python": (_machine, decoder.decode_py),
}
if speedups is not None:
    BACKENDS["c"] = (speedups, decoder.decode)  # decoder.decode is speedups.decode
    BACKENDS["c+decode_py"] = (speedups, decoder.decode_py)


@contextlib.contextmanager
def use_backend(name: str) -> Iterator[ModuleType]:
    """Run the public entry points (decode, find_errors, ...) on backend ``name``."""
    saved = decoder._runner, decoder.decode
    decoder._runner, decoder.decode = BACKENDS[name]
    try:
        yield decoder._runner
    finally:
        decoder._runner, decoder.decode = saved


@pytest.fixture(params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest) -> Iterator[ModuleType]:
    """The public API switched to one backend for the duration of the test; the runner."""
    with use_backend(request.param) as module:
        yield module


def decode(data: object, **options: Any) -> str:
    """``decode`` of the active backend (tests import this instead of sanitizer.decode)."""
    return decoder.decode(data, **options)  # type: ignore[arg-type]


# -- CPython as the reference -------------------------------------------------------------


def cpython_spans(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of every error CPython reports, decoding again after each one."""
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        try:
            data[pos:].decode("utf-8")
        except UnicodeDecodeError as exc:
            spans.append((pos + exc.start, pos + exc.end))
            pos += exc.end
        else:
            return spans


def cpython_first_error(data: bytes) -> UnicodeDecodeError | None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc
    return None


# -- an independent RFC 2279 lax decoder -------------------------------------------------

# RFC 2279 §2: the smallest value each sequence length is meant for.
MIN_FOR_LENGTH = {1: 0, 2: 0x80, 3: 0x800, 4: 0x10000, 5: 0x200000, 6: 0x4000000}


def lax_decode(data: bytes, start: int) -> tuple[int | None, int, int]:
    """What an RFC 2279 decoder reads at ``data[start]``: (value or None, bytes taken,
    announced length).  The lead's count of leading 1 bits gives the length (0 -> 1 byte,
    2..6 -> that many); 10xxxxxx, 1111111x start nothing."""
    lead = data[start]
    ones = 0
    while ones < 8 and lead & (0x80 >> ones):
        ones += 1
    if ones == 0:
        return lead, 1, 1
    if ones == 1 or ones > 6:
        return None, 1, 0
    value = lead & ((1 << (7 - ones)) - 1)
    for k in range(1, ones):
        if start + k >= len(data) or data[start + k] >> 6 != 0b10:
            return None, k, ones
        value = (value << 6) | (data[start + k] & 0x3F)
    return value, ones, ones
