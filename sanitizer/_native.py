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

import codecs
import os
from collections.abc import Callable

TYPE_CHECKING = False  # typing's constant without importing typing (start-up: issue #13)
if TYPE_CHECKING:
    from typing import Literal, Protocol

    from _typeshed import ReadableBuffer
else:
    Protocol = object  # at run time ``Speedups`` is a plain class naming the same members

__all__ = [
    "BACKEND",
    "PURE_REASON",
    "Speedups",
    "speedups",
    "utf8_kernel",
    "utf8_valid_prefix",
    "utf8_valid_prefix_py",
]


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

    # validate.c: the SIMD UTF-8 validator (reference: utf8_valid_prefix_py)
    def valid_prefix(self, data: ReadableBuffer, /) -> int: ...
    def utf8_kernel(self) -> str: ...
    def utf8_kernels(self) -> tuple[str, ...]: ...
    def valid_prefix_using(self, name: str, data: ReadableBuffer, /) -> int: ...
    def is_valid(
        self, data: bytes | bytearray | memoryview, *, allow_overlong_nul: bool = ...
    ) -> bool: ...
    def set_is_valid_fallback(self, fn: Callable[..., bool], /) -> None: ...

    # scan.c: the policy fast path (reference: _classtable.scan_reference)
    def scan(
        self, text: str, stage1: bytes, stage2: bytes, tables: bytes, max_run: int, start: int, /
    ) -> int: ...
    def clean(
        self, data: object, stage1: bytes, stage2: bytes, tables: bytes, max_run: int, /
    ) -> str | None: ...
    def clean_edit(
        self,
        data: object,
        stage1: bytes,
        stage2: bytes,
        tables: bytes,
        max_run: int,
        edits: bytes,
        /,
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

    # webhead.c: sanitizer.web's head fast path in one call (reference:
    # sanitizer.web._head.fast_head_py)
    def web_head(
        self,
        path: bytes,
        query: bytes,
        headers: list[tuple[bytes, bytes]],
        groups: tuple[object, ...],
        /,
    ) -> tuple[bytes | None, int | None, bool] | None: ...

    # jsonscan.c: the JSON strings that need judging, for sanitizer.web (reference:
    # sanitizer.web._json._json_strings_py)
    def json_strings(
        self, text: str, start: int, between: bytes, strings: bytes, /
    ) -> tuple[int, str, list[int]] | None: ...

    # lookalike.c: code point lookups for sanitizer.lookalike (reference: str.translate,
    # lookalike.scripts.resolved_mask_py)
    def index_code_points(self, sources: str, /) -> bytes: ...
    def map_code_points(
        self, sources: str, index: bytes, offsets: bytes, values: str, text: str, /
    ) -> str: ...
    def script_mask(
        self, starts: bytes, ids: bytes, masks: bytes, values: tuple[int, ...], text: str, /
    ) -> int: ...

    # precis.c: PRECIS enforcement for sanitizer.precis (reference: Profile._enforce_py)
    def precis_enforce(
        self, stage1: bytes, stage2: bytes, config: tuple[object, ...], text: object, /
    ) -> str: ...
    def precis_layout(self) -> dict[str, object]: ...
    # (reference: lookalike.skeletons, unicodedata2.normalize and str.translate)
    def skeleton_tables(
        self,
        skeleton: tuple[str, bytes, bytes, str],
        decomposition: tuple[str, bytes, bytes, str],
        combining: tuple[str, bytes, bytes, str],
        scripts: tuple[bytes, bytes, bytes, int],
        verdicts: tuple[object, object, object, object],
        /,
    ) -> object: ...
    def skeleton(self, tables: object, s: str, /) -> str: ...
    def confusable(self, tables: object, a: str, b: str, /) -> object: ...

    # source.c: where the source gate has work in a text (reference:
    # sanitizer.source_gate._source_lines_py)
    def source_lines(self, text: str, /) -> tuple[list[int], list[int]]: ...
    def identifiers(
        self, text: str, spans: list[int], marks: bytes, wide: bool, /
    ) -> dict[str, int]: ...


speedups: Speedups | None = None
# Why the pure-Python paths serve (None: the C extension does): ``sanitizer --version``
# says it, since a build without a C compiler runs about ten times slower.
PURE_REASON: str | None = "forced by SANITIZER_PURE_PYTHON"
if not os.environ.get("SANITIZER_PURE_PYTHON"):
    try:
        from . import _speedups
    except ImportError as exc:  # no C compiler at install time: the reference paths serve
        PURE_REASON = f"the C extension is missing: {exc}"
    else:
        speedups = _speedups
        PURE_REASON = None

# What runs the RFC 3629 table (and the policy fast path): "c" or "python".
BACKEND: Literal["c", "python"] = "c" if speedups is not None else "python"


# The UTF-8 validator (issue #14): "valid up to where", RFC 3629 §4.
_VALID_PREFIX_CHUNK = 1 << 20  # the pure twin decodes this much at a time: bounded memory


def utf8_valid_prefix_py(data: ReadableBuffer) -> int:
    """The pure-Python twin of ``utf8_valid_prefix``: exact, since CPython's strict codec
    accepts exactly RFC 3629 UTF-8 and ``UnicodeDecodeError.start`` is where the first
    ill-formed subpart (or a truncated last character) starts."""
    with memoryview(data) as view, view.cast("B") as raw:
        n = len(raw)
        pos = 0
        while True:
            end = pos + _VALID_PREFIX_CHUNK
            final = end >= n
            try:
                _, used = codecs.utf_8_decode(raw[pos:end], "strict", final)
            except UnicodeDecodeError as exc:
                return pos + exc.start
            pos += used
            if final:
                return pos


def _utf8_kernel_py() -> str:
    return "python"


# utf8_valid_prefix(data) -> int: the length of the longest prefix of ``data`` proven
# valid UTF-8, ending on a character boundary; == len(data) (in bytes) iff all of it is.
# In C it may stop short of the first error (at the start of the 64-byte block holding
# it), so callers hand the rest to the machine, which finds the error itself.
# utf8_kernel() -> "avx2", "sse41", "neon", "scalar" or "python": what runs it
# (SANITIZER_UTF8_KERNEL forces one, read once at import).
utf8_valid_prefix: Callable[[ReadableBuffer], int] = utf8_valid_prefix_py
utf8_kernel: Callable[[], str] = _utf8_kernel_py
if speedups is not None and hasattr(speedups, "valid_prefix"):  # an older build lacks it
    utf8_valid_prefix = speedups.valid_prefix
    utf8_kernel = speedups.utf8_kernel
