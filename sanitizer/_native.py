"""The one native seam: whether the optional C extension (``_speedups``) is used.

Every module that can run in C (the decoder's runner, the policy fast path, the fuzz
oracles, the tests; the web layer through its own seam, ``sanitizer.web._native``, which
follows this one) asks here, so the choice is made once per process.  The environment is
read here and nowhere else, once, and never makes the import fail:

* ``SANITIZER_PURE_PYTHON``: ``1``, ``true`` or ``yes`` (any case) forces the pure-Python
  reference paths (tests and benchmarks use it to run both backends); ``0``, ``false``,
  ``no`` or empty leave the C extension on; any other value is ignored with a
  ``RuntimeWarning``.
* ``SANITIZER_UTF8_KERNEL``: the UTF-8 validator's kernel (``avx512``, ``avx2``, ``sse41``,
  ``neon``, ``scalar``; ``auto`` or unset: the best this machine runs); a name the
  extension cannot run is ignored with a ``RuntimeWarning``.

Without a C compiler at install time the extension is absent and the pure-Python paths
are used silently; an extension of another ABI version (a stale in-place build) is not
used, with a ``RuntimeWarning`` saying to reinstall.

The extension's sources are in ``_native_src/`` (one C file per job) and its types in
``_speedups.pyi``.  ``speedups`` is typed by the ``Speedups`` protocol below, which mypy
checks the module against (through the stub), so every caller is type-checked too;
tests/core/test_native.py holds the protocol, the stub and the module's methods to the same
signatures.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Callable

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Literal, Protocol

    from _typeshed import ReadableBuffer
else:
    Protocol = object  # at run time ``Speedups`` is a plain class naming the same members

__all__ = [
    "ABI_VERSION",
    "BACKEND",
    "PURE_REASON",
    "VALIDATOR_BLOCK",
    "Speedups",
    "checked_extension",
    "pure_python_requested",
    "speedups",
    "stale_build",
    "utf8_kernel",
    "utf8_valid_prefix",
    "utf8_valid_prefix_py",
]


class Speedups(Protocol):
    """The ``_speedups`` module as its callers see it (documented in ``_speedups.pyi``)."""

    # module.c: the interface version (ABI_VERSION below when the build is current)
    @property
    def ABI_VERSION(self) -> int: ...

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
    # decode_valid.c (reference: bytes.decode, strict; None for ill-formed bytes)
    def decode_valid(self, data: bytes, /) -> str | None: ...
    # scan.c (reference: text.encode("latin-1") succeeds iff it is 1)
    def str_kind(self, text: str, /) -> int: ...
    def utf8_kernel(self) -> str: ...
    def utf8_kernels(self) -> tuple[str, ...]: ...
    def valid_prefix_using(self, name: str, data: ReadableBuffer, /) -> int: ...
    def is_valid(
        self, data: bytes | bytearray | memoryview, *, allow_overlong_nul: bool = ...
    ) -> bool: ...
    def set_is_valid_fallback(self, fn: Callable[..., bool], /) -> None: ...
    def set_utf8_kernel(self, name: str, /) -> None: ...
    @property
    def VALIDATOR_BLOCK(self) -> int: ...

    # scan.c: the policy fast path (reference: _policy/_classtable.scan_reference)
    def scan(
        self, text: str, stage1: bytes, stage2: bytes, tables: bytes, max_run: int, start: int, /
    ) -> int: ...
    def count_mark_runs(
        self, text: str, stage1: bytes, stage2: bytes, tables: bytes, max_run: int, start: int, /
    ) -> int: ...
    def list_mark_runs(
        self,
        text: str,
        stage1: bytes,
        stage2: bytes,
        tables: bytes,
        max_run: int,
        start: int,
        limit: int,
        made: tuple[type[Any], dict[str, object]],
        anchors: tuple[list[int], list[int]] | None,
        last: int,
        /,
    ) -> tuple[list[Any], int]: ...
    def clean(
        self, data: object, stage1: bytes, stage2: bytes, tables: bytes, max_run: int, /
    ) -> str | None: ...
    def take_decoded(self, data: bytes, /) -> str | None: ...
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
    def count_groups(
        self,
        text: str,
        stage1: bytes,
        stage2: bytes,
        tables: bytes,
        start: int,
        groups: bytes,
        edits_matter: bool,
        /,
    ) -> tuple[int, int] | None: ...
    def list_groups(
        self,
        text: str,
        stage1: bytes,
        stage2: bytes,
        tables: bytes,
        limit: int,
        groups: bytes,
        edits_matter: bool,
        /,
    ) -> tuple[list[tuple[int, int, int, int]], int, int, int] | None: ...
    def list_findings(
        self,
        text: str,
        stage1: bytes,
        stage2: bytes,
        tables: bytes,
        limit: int,
        groups: bytes,
        edits_matter: bool,
        made: tuple[type[Any], tuple[dict[str, object] | None, ...]],
        anchors: tuple[list[int], list[int]] | None,
        last: int,
        /,
    ) -> (
        tuple[list[Any], list[tuple[Any, int, int]], int, int, int, tuple[int, int] | None] | None
    ): ...
    def groups_outside(
        self,
        text: str,
        stage1: bytes,
        stage2: bytes,
        tables: bytes,
        limit: int,
        groups: bytes,
        spans: bytes,
        edits_matter: bool,
        /,
    ) -> tuple[list[tuple[int, int, int, int]], int, int, int] | None: ...
    def payload_spans(
        self,
        text: str,
        stage1: bytes,
        stage2: bytes,
        tables: bytes,
        kinds: bytes,
        ivd: bytes,
        vs: bytes,
        ends: bytes,
        policy: bytes,
        start: int,
        /,
    ) -> tuple[bytes, bytes, int] | None: ...
    def span_members(
        self,
        text: str,
        stage1: bytes,
        stage2: bytes,
        tables: bytes,
        groups: bytes,
        spans: bytes,
        /,
    ) -> bytes | None: ...
    def word_marks(
        self,
        text: str,
        stage1: bytes,
        stage2: bytes,
        tables: bytes,
        kinds: bytes,
        start: int,
        near: int,
        max_gap: int,
        /,
    ) -> tuple[str, int, int, bool, int] | None: ...
    def utf8_length(self, text: str, start: int, end: int, /) -> int: ...
    def reveal_scan(
        self,
        text: str,
        stage1: bytes,
        stage2: bytes,
        tables: bytes,
        kinds: bytes,
        ivd: bytes,
        start: int,
        /,
    ) -> int: ...
    def reveal_runs(
        self,
        text: str,
        stage1: bytes,
        stage2: bytes,
        tables: bytes,
        kinds: bytes,
        ivd: bytes,
        ivd_on: bool,
        start: int,
        done: int,
        limit: int,
        reader: object,
        at_index: int,
        at_byte: int,
        /,
    ) -> tuple[list[object], int, int, int, int]: ...
    # The table layout scan.c reads (_policy/_classtable.py writes the same): ints.
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

    # lookalike.c: code point lookups for sanitizer._lookalike (reference: str.translate,
    # _lookalike.scripts.resolved_mask_py)
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
    # (reference: _lookalike.skeletons, unicodedata2.normalize and str.translate)
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

    # normalize.c: NFC and NFKC (reference: unicodedata2.normalize); normalize_runs also
    # counts runs of marks (reference: _policy._scan.mark_runs, over COUNTED_MARKS)
    def normalize(self, text: str, compat: bool, /) -> str: ...
    def normalize_runs(self, text: str, compat: bool, max_run: int, /) -> str | None: ...

    # columns.c: Arrow binary and string columns walked in place (reference:
    # sanitizer._arrow.column_check_py, column_gather_py)
    def column_check(
        self,
        layout: int,
        length: int,
        offset: int,
        validity: object,
        values: object,
        data: object,
        /,
    ) -> tuple[bytes, list[int]]: ...
    def column_gather(
        self,
        layout: int,
        length: int,
        offset: int,
        validity: object,
        values: object,
        data: object,
        rows: list[int],
        pieces: list[bytes | None],
        out_layout: int,
        /,
    ) -> tuple[bytes, bytes]: ...

    def column_clean(
        self,
        layout: int,
        length: int,
        offset: int,
        validity: object,
        values: object,
        data: object,
        stage1: bytes,
        stage2: bytes,
        tables: bytes,
        max_run: int,
        /,
    ) -> bytes: ...

    def column_translate(
        self,
        layout: int,
        length: int,
        offset: int,
        validity: object,
        values: object,
        data: object,
        table: tuple[bytes, ...],
        /,
    ) -> tuple[bytes, bytes, list[int]]: ...

    def column_keys(
        self,
        layout: int,
        length: int,
        offset: int,
        validity: object,
        values: object,
        data: object,
        tables: object,
        key: tuple[str, bytes, bytes, str],
        dots: tuple[str, bytes, bytes, str],
        odd: tuple[str, bytes, bytes, str],
        /,
    ) -> tuple[bytes, bytes, list[int]]: ...

    # source.c: where the source gate has work in a text (reference:
    # sanitizer._source_gate._source_lines_py)
    def source_lines(self, text: str, /) -> tuple[list[int], list[int]]: ...
    def identifiers(
        self, text: str, spans: list[int], marks: bytes, wide: bool, /
    ) -> dict[str, int]: ...
    def bidi_feed(
        self,
        judge: object,
        text: str,
        at: int,
        start: int,
        bar: tuple[int, int, int, int] | None,
        room: int,
        /,
    ) -> tuple[list[tuple[int, int, int, str | None]], int, int, int, int]: ...


# Bumped with SANITIZER_SPEEDUPS_ABI_VERSION (_native_src/speedups_capi.h) whenever the
# extension's interface changes; an extension reporting another one is a stale build.
ABI_VERSION = 3

_TRUE = ("1", "true", "yes")
_FALSE = ("0", "false", "no", "")


def _warn(message: str, stacklevel: int = 3) -> None:
    """A ``RuntimeWarning`` shown at the line ``stacklevel - 1`` frames above the caller
    (by default: the line of the seam that read the variable or imported the module)."""
    import warnings  # only on this rare path: not at every start-up

    warnings.warn(message, RuntimeWarning, stacklevel=stacklevel)


def pure_python_requested(value: str | None) -> bool:
    """Whether ``SANITIZER_PURE_PYTHON`` (``value``, None when unset) asks for the
    pure-Python backend: ``1``, ``true``, ``yes`` do (any case, spaces around ignored);
    ``0``, ``false``, ``no`` or empty do not; anything else does not either, with a
    ``RuntimeWarning``."""
    if value is None:
        return False
    word = value.strip().lower()
    if word in _TRUE:
        return True
    if word not in _FALSE:
        _warn(
            f"SANITIZER_PURE_PYTHON={value!r}: expected 1, true or yes (pure Python) or "
            "0, false, no or empty (the C extension); ignored: the C extension is used"
        )
    return False


def checked_extension(module: ModuleType, abi_version: int) -> ModuleType | None:
    """``module`` (a C extension of this package) when it reports ``abi_version``, else
    None with one ``RuntimeWarning``: a stale build, e.g. an in-place one left from an
    older checkout, whose functions may not be the ones the code calls."""
    found = getattr(module, "ABI_VERSION", None)
    if found == abi_version:
        return module
    stale_build(
        f"{module.__name__} is a stale build (ABI version {found}, not {abi_version})",
        stacklevel=3,
    )
    return None


def stale_build(what: str, stacklevel: int = 2) -> None:
    """One ``RuntimeWarning``: ``what`` (why an extension of this package is not used)
    and what to do about it, shown at the line ``stacklevel - 1`` frames above."""
    _warn(
        f"{what}: reinstall the package (pip install -e . rebuilds the extensions in "
        "place); the pure-Python backend is used meanwhile",
        stacklevel + 1,
    )


def _select_utf8_kernel(extension: Speedups, value: str | None) -> None:
    """``SANITIZER_UTF8_KERNEL`` (``value``): the validator kernel to force, or unset,
    empty or ``auto`` for the best this machine runs.  A name the extension refuses
    (unknown, or one this CPU or build cannot run) is ignored with a ``RuntimeWarning``."""
    name = (value or "").strip()
    if name in ("", "auto"):
        return
    try:
        extension.set_utf8_kernel(name)
    except ValueError as exc:
        _warn(
            f"SANITIZER_UTF8_KERNEL={name}: {exc}; ignored: {extension.utf8_kernel()} runs "
            f"(this machine runs {', '.join(extension.utf8_kernels())})"
        )


# The environment, read here once: SANITIZER_PURE_PYTHON, then SANITIZER_UTF8_KERNEL
# (which only the C backend reads).  Neither ever makes the import fail.
speedups: Speedups | None = None
# Why the pure-Python paths serve (None: the C extension does): ``sanitizer --version``
# says it, since a build without a C compiler runs about ten times slower.
PURE_REASON: str | None = "forced by SANITIZER_PURE_PYTHON"
if not pure_python_requested(os.environ.get("SANITIZER_PURE_PYTHON")):
    try:
        from . import _speedups
    except ModuleNotFoundError as exc:  # not built (no C compiler): the reference paths serve
        if exc.name != f"{__package__}._speedups":
            raise
        PURE_REASON = f"the C extension is missing: {exc}"
    except ImportError as exc:  # built, but cannot be loaded here
        stale_build(f"{__package__}._speedups cannot be loaded ({exc})")
        PURE_REASON = f"the C extension cannot be loaded: {exc}"
    else:
        if checked_extension(_speedups, ABI_VERSION) is not None:
            speedups = _speedups
            PURE_REASON = None
            _select_utf8_kernel(speedups, os.environ.get("SANITIZER_UTF8_KERNEL"))
        else:
            PURE_REASON = "the C extension is a stale build: reinstall the package"

# What runs the RFC 3629 table (and the policy fast path): "c" or "python".
BACKEND: Literal["c", "python"] = "c" if speedups is not None else "python"


# The UTF-8 validator: "valid up to where", RFC 3629 §4.
# Its block: the C kernels test 64 bytes at a time (validate.c's BLOCK, which the extension
# exports as VALIDATOR_BLOCK; tests/core/test_native.py holds the two equal), so in C the
# answer may stop up to one block short of the first error.  Callers that reason about
# that slack (the decoder, `sanitizer check`, the fuzz oracles) read it here.
VALIDATOR_BLOCK = 64
_VALID_PREFIX_CHUNK = 1 << 16  # the pure twin decodes this much at a time: bounded memory


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
# In C it may stop short of the first error (at the start of the VALIDATOR_BLOCK-byte
# block holding it), so callers hand the rest to the machine, which finds the error itself.
# utf8_kernel() -> "avx512", "avx2", "sse41", "neon", "scalar" or "python": what runs it
# (SANITIZER_UTF8_KERNEL forces one, read once at import, above).
utf8_valid_prefix: Callable[[ReadableBuffer], int] = utf8_valid_prefix_py
utf8_kernel: Callable[[], str] = _utf8_kernel_py
if speedups is not None:
    utf8_valid_prefix = speedups.valid_prefix
    utf8_kernel = speedups.utf8_kernel
