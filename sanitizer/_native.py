"""The one native seam: whether the optional C extension (``_speedups``) is used.

Every module that can run in C (the decoder's runner, the policy fast path, the web
layer's percent-decoding, the fuzz oracles, the tests) asks here, so the choice is made
once per process.  ``SANITIZER_PURE_PYTHON=1`` forces the pure-Python reference paths
(tests and benchmarks use it to run both backends); without a C compiler at install time
the extension is absent and the pure-Python paths are used silently.

The extension's sources are in ``_native_src/`` (one C file per job) and its types in
``_speedups.pyi``.  ``speedups`` is typed by the ``Speedups`` protocol below, which mypy
checks the module against (through the stub), so every caller is type-checked too.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["BACKEND", "Speedups", "speedups"]


class Speedups(Protocol):
    """The ``_speedups`` module as its callers see it (documented in ``_speedups.pyi``)."""

    # utf8.c: the RFC 3629 state-machine runner (reference: _machine.py)
    def decode(
        self,
        data: bytes | bytearray | memoryview,
        *,
        errors: Literal["strict", "replace"] = ...,
        bom: Literal["keep", "strip", "reject"] = ...,
        allow_overlong_nul: bool = ...,
    ) -> str: ...
    def set_decode_fallback(
        self,
        fn: Callable[..., str],
        table: bytes,
        nclasses: int,
        error_class: type[UnicodeDecodeError],
        /,
    ) -> None: ...
    def spans(
        self, data: ReadableBuffer, table: ReadableBuffer, nclasses: int, pos: int, limit: int, /
    ) -> list[int]: ...
    def replace(
        self,
        data: ReadableBuffer,
        table: ReadableBuffer,
        nclasses: int,
        pos: int,
        out_spans: list[int] | None,
        /,
    ) -> str: ...

    # scan.c: the policy fast path (reference: _classtable.scan_reference)
    def scan(
        self, text: str, stage1: bytes, stage2: bytes, tables: bytes, max_run: int, start: int, /
    ) -> int: ...
    def clean(
        self, data: object, stage1: bytes, stage2: bytes, tables: bytes, max_run: int, /
    ) -> str | None: ...
    # The table layout scan.c reads (_classtable writes the same): ints.
    @property
    def STAGE1_ENTRIES(self) -> int: ...
    @property
    def FLAGS_OFFSET(self) -> int: ...
    @property
    def RULE_IDS_OFFSET(self) -> int: ...
    @property
    def PREFILTER_OFFSET(self) -> int: ...
    @property
    def RULES_OFFSET(self) -> int: ...
    @property
    def RULE_SIZE(self) -> int: ...

    # percent.c: percent-decoding (RFC 3986 §2.1), for sanitizer.web
    def unquote(self, data: bytes, plus: bool, /) -> bytes: ...

    # lookalike.c: code point lookups for sanitizer.lookalike (reference: str.translate,
    # lookalike.scripts.resolved_mask_py)
    def index_code_points(self, sources: str, /) -> bytes: ...
    def map_code_points(
        self, sources: str, index: bytes, offsets: bytes, values: str, text: str, /
    ) -> str: ...
    def script_mask(
        self, starts: bytes, ids: bytes, masks: bytes, values: tuple[int, ...], text: str, /
    ) -> int: ...


speedups: Speedups | None = None
if not os.environ.get("SANITIZER_PURE_PYTHON"):
    try:
        from . import _speedups
    except ImportError:  # no C compiler at install time: the reference paths serve
        pass
    else:
        speedups = _speedups

# What runs the RFC 3629 table (and the policy fast path): "c" or "python".
BACKEND: Literal["c", "python"] = "c" if speedups is not None else "python"
