"""The fuzz targets: the one registry every other list of them derives from.

Each ``FuzzTarget`` says what the target asserts, where its oracle is, what its workers
instrument, its seeds (the letter of ``seeds.SEEDS`` rows), its dictionary and its
libFuzzer options.  Derived from it, or tested equal to it (``tests/fuzzing/test_targets.py``):
``sanitizer fuzz TARGET`` (``cli/_fuzz.py``), ``python -m sanitizer.fuzzing TARGET``,
a campaign's replay helpers, the scripts ``fuzz/fuzz_TARGET.py`` and their ``.options``,
the seed directories ``corpus/TARGET/`` (``tools/generate.py corpus``) and the ClusterFuzzLite
build (``.clusterfuzzlite/build.sh``).

Every oracle is in the package, so an installed wheel runs every target with its seeds.
This module imports nothing heavy (the CLI builds its parser from ``TARGET_NAMES``); an
oracle is named ``"module:function"`` and loaded by ``oracle_for``.

A worker imports the code under test inside ``atheris.instrument_imports(include=...,
exclude=...)`` with the target's scopes (``__main__``), so libFuzzer gets coverage from
that code and not from the oracle.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .libfuzzer import DEFAULT_MAX_LEN, replaying

__all__ = [
    "REGISTRY",
    "TARGET_NAMES",
    "FuzzTarget",
    "check_for",
    "options_text",
    "oracle_for",
    "target",
    "worker_check",
]

Check = Callable[[bytes], None]


@dataclass(frozen=True)
class FuzzTarget:
    """One fuzz target: its check and how a worker runs it."""

    name: str
    about: str  # what it asserts, one line (docs/fuzzing.md's table, the CLI's help)
    oracle: str  # "module:function", the full check: (bytes) -> None, raising on a bug
    include: tuple[str, ...]  # modules instrumented for coverage
    seeds: str  # the letter of its rows in ``seeds.SEEDS``
    exclude: tuple[str, ...] = ()
    # Loaded lazily by ``sanitizer``: imported under instrumentation up front, or they
    # would load on first use, uninstrumented (no coverage feedback).
    preload: tuple[str, ...] = ()
    # ``sanitizer``'s core (decoder, errors, grammar...) imported inside the instrumented
    # block too (atheris instruments by top-level package: ``include`` names what a
    # target is about, the import order decides what is instrumented).
    instrument_core: bool = True
    dictionary: str | None = "utf8.dict"  # in this package, beside this module
    # libFuzzer options for OSS-Fuzz / ClusterFuzzLite (``fuzz/fuzz_NAME.options``)
    max_len: int = DEFAULT_MAX_LEN
    timeout: int | None = None
    rss_limit_mb: int | None = None
    # Whether ``--candidate`` (a third-party decoder) applies.
    candidate: bool = False
    # Modules beyond the package's own dependencies, and the extra that brings them.
    requires: tuple[str, ...] = ()


REGISTRY: tuple[FuzzTarget, ...] = (
    # the decoder's Python layer only; the state machine runs in C
    FuzzTarget(
        "decode",
        "this project's decoder (both runners, every entry point, incremental) agrees with "
        "CPython's strict codec; with a candidate, so does your decoder",
        "sanitizer._fuzzing.oracles:check_decode",
        ("sanitizer._decoder", "sanitizer._errors"),
        "d",
        candidate=True,
    ),
    # the policy layer alone: the core it calls is fuzz_decode's to explore, and
    # instrumenting it too made each execution a third slower (docs/fuzzing.md)
    FuzzTarget(
        "policy",
        "the policy layer never crashes on hostile bytes, is idempotent and self-consistent",
        "sanitizer._fuzzing.oracles:check_policy",
        ("sanitizer._policy", "sanitizer.profiles", "sanitizer._categories"),
        "p",
        instrument_core=False,
    ),
    FuzzTarget(
        "identifiers",
        "identifier normalization and comparison are consistent on pairs of inputs; UTS #39 "
        "skeletons and confusable verdicts (C and pure Python) agree with the definition",
        "sanitizer._fuzzing.oracles:check_identifiers",
        ("sanitizer",),
        "i",
        exclude=("sanitizer.fuzzing", "sanitizer._fuzzing", "sanitizer._machine"),
        preload=("sanitizer._identifiers", "sanitizer._categories", "sanitizer._lookalike"),
    ),
    FuzzTarget(
        "utf16",
        "UTF-16 and UTF-32 against CPython's codecs: verdict, replace text, every error "
        "span, chunked = one-shot",
        "sanitizer._fuzzing.wide_oracle:check_wide",
        ("sanitizer.utf16", "sanitizer.utf32", "sanitizer._wide"),
        "u",
    ),
    FuzzTarget(
        "utf7",
        "UTF-7 (RFC 2152) against CPython's codec: lax reading, first error, strict decode "
        "and round trip, error spans",
        "sanitizer._fuzzing.utf7_oracle:check_utf7",
        ("sanitizer.utf7",),
        "7",
    ),
    FuzzTarget(
        "web",
        "the web layer's sans-IO request checks: no undocumented exception, a verdict "
        "independent of the chunking, and whatever python-multipart or parse_qsl would "
        "expose from a passed form was judged",
        "sanitizer._fuzzing.web_oracle:check_web",
        ("sanitizer.web",),
        "w",
        exclude=("sanitizer.web.asgi", "sanitizer.web.wsgi", "sanitizer.web.django"),
        # whole requests are longer than UTF-8 units; cost must stay linear (a slow or
        # memory-hungry input is a finding)
        max_len=2048,
        timeout=10,
        rss_limit_mb=2560,
        requires=("python_multipart",),
    ),
)
TARGET_NAMES = tuple(t.name for t in REGISTRY)  # the order of ``sanitizer fuzz all``
_BY_NAME = {t.name: t for t in REGISTRY}


def target(name: str) -> FuzzTarget:
    """The registry entry of ``name`` (KeyError for an unknown one)."""
    return _BY_NAME[name]


def oracle_for(name: str) -> Check:
    """The full check of a target (imports its oracle module)."""
    module, _, function = target(name).oracle.partition(":")
    found: Check = getattr(importlib.import_module(module), function)
    return found


def check_for(name: str) -> Check:
    """The check a campaign's replay helper runs for ``name``: its full oracle."""
    return oracle_for(name)


def options_text(entry: FuzzTarget) -> str:
    """``fuzz/fuzz_NAME.options``: the target's libFuzzer flags for OSS-Fuzz."""
    lines = [
        "# libFuzzer flags for OSS-Fuzz / ClusterFuzzLite, from sanitizer._fuzzing.targets",
        "[libfuzzer]",
        f"max_len = {entry.max_len}",
    ]
    if entry.timeout is not None:
        lines.append(f"timeout = {entry.timeout}")
    if entry.rss_limit_mb is not None:
        lines.append(f"rss_limit_mb = {entry.rss_limit_mb}")
    return "\n".join(lines) + "\n"


def worker_check(name: str, argv: Sequence[str]) -> Check:
    """The check a fuzzing worker runs (after its instrumented imports): sampled tiers
    while fuzzing, the full check when libFuzzer replays files (``libfuzzer.replaying``);
    the decode and utf16 targets' candidate from ``$SANITIZER_FUZZ_CANDIDATE``."""
    from .candidate import CANDIDATE_ENV, load, load_instrumented

    wanted = os.environ.get(CANDIDATE_ENV, "")
    deep = True if replaying(argv) else None  # sampled unless replaying files
    if name == "decode":
        from .oracles import check_decode

        candidate = load_instrumented(wanted) if wanted else None

        def check_decode_sampled(data: bytes) -> None:
            check_decode(data, candidate, deep=deep)  # sampled: see DEEP_EVERY, LONG_EVERY

        return check_decode_sampled
    if name == "policy":
        from .oracles import check_policy

        def check_policy_sampled(data: bytes) -> None:
            check_policy(data, deep=deep)  # see POLICY_DEEP_EVERY

        return check_policy_sampled
    if name == "utf16" and wanted:
        from .wide_oracle import check_wide

        wide_candidate = load(wanted)

        def check_wide_candidate(data: bytes) -> None:
            check_wide(data, wide_candidate)

        return check_wide_candidate
    return oracle_for(name)
