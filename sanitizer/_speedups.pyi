"""Types of the optional C extension ``sanitizer._speedups`` (sources: ``_native_src/``).

Why a stub: mypy cannot read a C module, so without it every call into the extension
would be unchecked.  Reach the module through ``sanitizer._native.speedups`` (``None``
when it is not built or ``SANITIZER_PURE_PYTHON=1``).  tests/test_native.py checks that
this file names exactly the module's public attributes.
"""

from collections.abc import Callable
from typing import Literal

from _typeshed import ReadableBuffer

# -- utf8.c: the RFC 3629 state-machine runner (reference: sanitizer/_machine.py) -------

def decode(
    data: bytes | bytearray | memoryview,
    *,
    errors: Literal["strict", "replace"] = "strict",
    bom: Literal["keep", "strip", "reject"] = "keep",
    allow_overlong_nul: bool = False,
) -> str:
    """decoder.decode_py with its fast path in C (it calls the registered fallback)."""

def set_decode_fallback(
    fn: Callable[..., str], table: bytes, nclasses: int, error_class: type[UnicodeDecodeError], /
) -> None:
    """Register the Python decode(), the default machine table and the error class."""

def spans(
    data: ReadableBuffer, table: ReadableBuffer, nclasses: int, pos: int, limit: int, /
) -> list[int]:
    """Flat (start, end) offsets of the maximal subparts in data[pos:], at most limit."""

def replace(
    data: ReadableBuffer,
    table: ReadableBuffer,
    nclasses: int,
    pos: int,
    out_spans: list[int] | None,
    /,
) -> str:
    """Text of data[pos:] with U+FFFD per maximal subpart; spans appended to out_spans."""

# -- scan.c: the policy fast path (reference: sanitizer._classtable.scan_reference) ------

def scan(
    text: str, stage1: bytes, stage2: bytes, tables: bytes, max_run: int, start: int, /
) -> int:
    """Index of the first character the policy tables flag, or len(text)."""

def clean(data: object, stage1: bytes, stage2: bytes, tables: bytes, max_run: int, /) -> str | None:
    """data (bytes: strictly decoded) when it decodes and scan() flags nothing, else None
    (also for any type other than bytes and str)."""

# The table layout scan.c reads (sanitizer._classtable writes the same; see speedups.h).
STAGE1_ENTRIES: int  # uint16 block numbers in stage1 (_classtable.BLOCKS)
FLAGS_OFFSET: int
RULE_IDS_OFFSET: int
PREFILTER_OFFSET: int
RULES_OFFSET: int
RULE_SIZE: int

# -- percent.c: percent-decoding (RFC 3986 §2.1), for sanitizer.web ------------------------

def unquote(data: bytes, plus: bool, /) -> bytes:
    """%XX decoded as urllib.parse.unquote_to_bytes does; with plus, '+' is a space."""

# -- lookalike.c: code point lookups for sanitizer.lookalike (UTS #39) ---------------------

def index_code_points(sources: str, /) -> bytes:
    """The lookup index map_code_points reads, for a str of increasing code points: per
    block of 64 code points the number of sources below it (uint32), then its bit map."""

def map_code_points(sources: str, index: bytes, offsets: bytes, values: str, text: str, /) -> str:
    """text with each code point of the sorted ``sources`` replaced by
    values[offsets[i]:offsets[i + 1]] (native uint32 offsets); index from
    index_code_points(sources)."""

def script_mask(
    starts: bytes, ids: bytes, masks: bytes, values: tuple[int, ...], text: str, /
) -> int:
    """The AND of the masks (uint64 words each, low first; values[i] is mask i as an int,
    values[-1] every bit set) of the runs (uint32 starts from 0, uint16 mask ids) that the
    code points of text fall in; integers in native byte order."""
