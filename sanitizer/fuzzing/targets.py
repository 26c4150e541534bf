"""The fuzz targets a campaign can run: each one's check and what its workers instrument.

``oracles.TARGETS`` holds the invariants of the UTF-8 targets (decode, policy,
identifiers).  A campaign (``sanitizer fuzz TARGET``, ``fuzz all``) also runs the targets
of other encodings and of the web layer; this module is its one list of them:

* ``utf16``: ``wide_oracle.check_wide`` (UTF-16 and UTF-32 against CPython, issue #15);
* ``utf7`` and ``web``: their oracle lives in ``fuzz/fuzz_utf7.py`` and ``fuzz/fuzz_web.py``
  alone (``web`` drives ``sanitizer.web`` and python-multipart, and an adapter package may
  not import another: docs/design.md), so a campaign needs the source tree for them and
  its replay helpers load the script's ``TestOneInput``.

A worker imports the code under test inside ``atheris.instrument_imports(include=...,
exclude=...)`` with each target's ``TargetSpec`` (``python -m sanitizer.fuzzing``; the
scripts in ``fuzz/`` spell the same scopes out), so libFuzzer gets coverage from that
code and not from the oracle.
"""

from __future__ import annotations

import runpy
from collections.abc import Callable
from dataclasses import dataclass

from .layout import Layout, detect_layout
from .oracles import TARGETS

__all__ = ["SPECS", "TARGET_NAMES", "TargetSpec", "check_for", "in_package"]

Check = Callable[[bytes], None]


@dataclass(frozen=True)
class TargetSpec:
    """How a worker of one target is set up."""

    name: str
    include: tuple[str, ...]  # modules instrumented for coverage
    exclude: tuple[str, ...] = ()
    # Loaded lazily by ``sanitizer``: imported under instrumentation up front, or they
    # would load on first use, uninstrumented (no coverage feedback).
    preload: tuple[str, ...] = ()
    # The check is in this package (else only in ``fuzz/fuzz_NAME.py``).
    in_package: bool = True
    # ``sanitizer``'s core (decoder, errors, grammar...) imported inside the instrumented
    # block too (atheris instruments by top-level package: ``include`` names what a
    # target is about, the import order decides what is instrumented).
    instrument_core: bool = True


SPECS: dict[str, TargetSpec] = {
    spec.name: spec
    for spec in (
        # the decoder's Python layer only; the state machine runs in C (fuzz_decode.py)
        TargetSpec("decode", ("sanitizer.decoder", "sanitizer.errors")),
        # the policy layer alone: the core it calls is fuzz_decode's to explore, and
        # instrumenting it too made each execution a third slower (docs/fuzzing.md)
        TargetSpec(
            "policy",
            ("sanitizer.policy", "sanitizer.profiles", "sanitizer.categories"),
            instrument_core=False,
        ),
        TargetSpec(
            "identifiers",
            ("sanitizer",),
            ("sanitizer.fuzzing", "sanitizer._machine"),
            preload=("sanitizer.identifiers", "sanitizer.categories", "sanitizer.lookalike"),
        ),
        TargetSpec("utf16", ("sanitizer.utf16", "sanitizer.utf32", "sanitizer.wide")),
        TargetSpec("utf7", ("sanitizer.utf7",), in_package=False),
        TargetSpec("web", ("sanitizer.web",), in_package=False),
    )
}
TARGET_NAMES = tuple(SPECS)  # the order of ``sanitizer fuzz all``


def _check_wide(data: bytes) -> None:
    from .wide_oracle import check_wide  # imports sanitizer.utf16/utf32: only when needed

    check_wide(data)


_IN_PACKAGE: dict[str, Check] = {**TARGETS, "utf16": _check_wide}


def in_package(target: str) -> bool:
    """Whether ``python -m sanitizer.fuzzing TARGET`` runs it (no ``fuzz/`` needed)."""
    return target in _IN_PACKAGE


def check_for(target: str, layout: Layout | None = None) -> Check:
    """The check a campaign's helper replays for ``target``: the in-package oracle, or
    the ``TestOneInput`` of ``fuzz/fuzz_TARGET.py`` (loaded, not run as a fuzzer)."""
    if target in _IN_PACKAGE:
        return _IN_PACKAGE[target]
    if target not in SPECS:
        raise KeyError(target)
    script = (layout or detect_layout()).script(target)
    if script is None:
        raise LookupError(f"fuzz target {target!r} needs the source tree (fuzz/fuzz_{target}.py)")
    found: Check = runpy.run_path(str(script), run_name=f"fuzz_{target}")["TestOneInput"]
    return found
