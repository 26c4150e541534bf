"""Types of the optional C extension ``sanitizer._speedups`` (sources: ``_native_src/``).

Why a stub: mypy cannot read a C module, so without it every call into the extension
would be unchecked.  Reach the module through ``sanitizer._native.speedups`` (``None``
when it is not built, is a stale build, or ``SANITIZER_PURE_PYTHON=1``).
tests/core/test_native.py checks that this file, the ``Speedups`` protocol of ``_native.py``
and the module's methods name the same attributes with the same parameters.
"""

from collections.abc import Callable
from typing import Any, Literal

from _typeshed import ReadableBuffer

# -- module.c -----------------------------------------------------------------------------

ABI_VERSION: int  # SANITIZER_SPEEDUPS_ABI_VERSION (speedups_capi.h); _native.ABI_VERSION

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

# -- scan.c, edit.c: the policy fast path (reference: _policy/_classtable.scan_reference) --

def scan(
    text: str, stage1: bytes, stage2: bytes, tables: bytes, max_run: int, start: int, /
) -> int:
    """Index of the first character the policy tables flag, or len(text)."""

def count_mark_runs(
    text: str, stage1: bytes, stage2: bytes, tables: bytes, max_run: int, start: int, /
) -> int:
    """How many runs of more than max_run marks scan() with the mark tables finds from
    start on, each read to its last mark (reference: sum over _scan.mark_runs from there)."""

def list_mark_runs(
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
) -> tuple[list[Any], int]:
    """(findings, more): the first ``limit`` (-1: all) of the runs count_mark_runs counts
    that start at or before text index ``last``, as COMBINING_RUN Findings made from
    ``made`` (Finding, its template) at text indices, or at byte offsets with ``anchors``
    (as list_findings'); how many others (_listing.mark_runs_reference)."""

def clean(data: object, stage1: bytes, stage2: bytes, tables: bytes, max_run: int, /) -> str | None:
    """data (bytes: strictly decoded) when it decodes and scan() flags nothing, else None
    (also for any type other than bytes and str); the text of bytes (4 KiB or more) that
    decode but are not clean is kept for ``take_decoded``."""

def take_decoded(data: bytes, /) -> str | None:
    """The text the last ``clean`` or ``clean_edit`` decoded from the bytes object
    ``data`` and gave up on unchanged (kept so that the engine judging them need not
    decode them again), or None; nothing is kept after."""

def count_groups(
    text: str,
    stage1: bytes,
    stage2: bytes,
    tables: bytes,
    start: int,
    groups: bytes,
    edits_matter: bool,
    /,
) -> tuple[int, int] | None:
    """(findings, allowed) the engine makes of the flagged characters from ``start`` on,
    carrier runs grouped; None when only the engine can tell (count_reference)."""

def list_groups(
    text: str,
    stage1: bytes,
    stage2: bytes,
    tables: bytes,
    limit: int,
    groups: bytes,
    edits_matter: bool,
    /,
) -> tuple[list[tuple[int, int, int, int]], int, int, int] | None:
    """(listed, more, more_allowed, worst): the first ``limit`` groups (-1: all) as
    (start, end, class, severity), the rest counted, the highest severity; None when only
    the engine can tell (groups_reference)."""

def list_findings(
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
) -> tuple[list[Any], list[tuple[Any, int, int]], int, int, int, tuple[int, int] | None] | None:
    """(findings, pending, more, allowed, worst, bar): list_groups' first ``limit``
    groups starting at or before text index ``last`` as Findings made from ``made``
    (Finding, a template by class) at text indices, or at byte offsets with ``anchors``
    (ill-formed subparts: their text indices, their lengths in bytes); the
    multi-character ones also as (finding, start, end), their detail unset; None when
    only the engine can tell (_listing.findings_reference)."""

def groups_outside(
    text: str,
    stage1: bytes,
    stage2: bytes,
    tables: bytes,
    limit: int,
    groups: bytes,
    spans: bytes,
    edits_matter: bool,
    /,
) -> tuple[list[tuple[int, int, int, int]], int, int, int] | None:
    """list_groups (edits not mattering) of the flagged characters outside ``spans``
    (int64 bounds of sorted, disjoint [start, end) spans: hidden payloads' carrier runs),
    a run cut at each span's ends (groups_reference with skip)."""

def payload_spans(
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
) -> tuple[bytes, bytes, int] | None:
    """(spans, held, count): the carrier runs reveal reads from ``start`` on that hold
    payloads, as int64 bounds, how many each holds (int64) and in all; None where only
    reading tells (payload_spans_reference)."""

def span_members(
    text: str,
    stage1: bytes,
    stage2: bytes,
    tables: bytes,
    groups: bytes,
    spans: bytes,
    /,
) -> bytes | None:
    """Two bytes a span: 1 + the severity of its most severe flagged character (0: none)
    and the class of the first of that severity; None when only the engine can tell
    (span_members_reference)."""

def word_marks(
    text: str,
    stage1: bytes,
    stage2: bytes,
    tables: bytes,
    kinds: bytes,
    start: int,
    near: int,
    max_gap: int,
    /,
) -> tuple[str, int, int, bool, int] | None:
    """(symbols, last, words, every_word, end) of the stretch of marks after words from
    the mark at ``start``; None at a joiner after a mark (_reveal._stretch_reference)."""

def utf8_length(text: str, start: int, end: int, /) -> int:
    """The UTF-8 length of text[start:end] (lone surrogates: 3 bytes), no bytes made."""

def reveal_scan(
    text: str, stage1: bytes, stage2: bytes, tables: bytes, kinds: bytes, ivd: bytes, start: int, /
) -> int:
    """scan() with reveal's tables, past lone registered ideographic variation selectors
    (_reveal.reveal_scan_reference)."""

def reveal_runs(
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
) -> tuple[list[object], int, int, int, int]:
    """(items, next, done, at_index, at_byte): the carrier runs reveal reads from the
    candidate ``start``, up to one only Python reads, as (start, end, channel) or, with a
    ``reader``, the ``Hidden`` payloads of the runs read in C; byte offsets when
    ``at_byte`` >= 0 (_reveal.reveal_runs_reference)."""

def clean_edit(
    data: object, stage1: bytes, stage2: bytes, tables: bytes, max_run: int, edits: bytes, /
) -> str | None:
    """clean(), but flagged characters whose class ``edits`` (256 bytes) marks 1 are
    stripped and 2 replaced by U+FFFD (adjacent ones by one) when no neighbour's judgement
    can depend on them; None when anything else is flagged (_classtable.edit_reference),
    and then the text of bytes kept for ``take_decoded`` when nothing was edited before."""

# The table layout scan.c reads (sanitizer._policy._classtable writes the same; see
# speedups.h).
STAGE1_ENTRIES: int  # uint16 block numbers in stage1 (_classtable.BLOCKS)
FLAGS_OFFSET: int
RULE_IDS_OFFSET: int
PREFILTER_OFFSET: int
RULES_OFFSET: int
RULE_SIZE: int

# -- lookalike.c: code point lookups for sanitizer._lookalike (UTS #39) ---------------------

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

def skeleton_tables(
    skeleton: tuple[str, bytes, bytes, str],
    decomposition: tuple[str, bytes, bytes, str],
    combining: tuple[str, bytes, bytes, str],
    scripts: tuple[bytes, bytes, bytes, int],
    verdicts: tuple[object, object, object, object],
    /,
) -> object:
    """The checked tables skeleton() and confusable() read (a capsule): three code point
    maps as map_code_points takes them, script runs and masks as script_mask takes them
    (with the number of uint64 words per mask), and what confusable() returns for: not
    confusable, single-script, mixed-script, whole-script."""

def skeleton(tables: object, s: str, /) -> str:
    """The UTS #39 §4 skeleton NFD(map(NFD(s))), canonical decomposition from the tables."""

def confusable(tables: object, a: str, b: str, /) -> object:
    """verdicts[0] when the skeletons of a and b differ, else verdicts[1] (resolved script
    sets intersect), [3] (both non-empty) or [2] (UTS #39 §4)."""

# -- normalize.c: NFC and NFKC (reference: unicodedata2.normalize) --------------------------

def normalize(text: str, compat: bool, /) -> str:
    """``text`` in NFKC when ``compat`` is true, else NFC (UAX #15): the segments between
    boundaries (Quick_Check Yes, decomposition starting with a starter that composes with
    nothing before it) decomposed, ordered and composed."""

def normalize_runs(text: str, compat: bool, max_run: int, /) -> str | None:
    """``normalize``, or None when the text holds a run of more than ``max_run`` marks a
    combining run counts (UAX #15 §13), counted in the same pass."""

# -- validate.c: the SIMD UTF-8 validator (Keiser & Lemire's lookup algorithm) -------------

def str_kind(text: str, /) -> int:
    """1, 2 or 4: the bytes a character of ``text`` takes (PEP 393); 1 exactly when every
    character is below U+0100."""

def decode_valid(data: bytes, /) -> str | None:
    """``data.decode("utf-8")`` when it is well-formed (RFC 3629 §4: proven by the SIMD
    validator, then decoded with no checks left), else None, without an exception."""

def valid_prefix(data: ReadableBuffer, /) -> int:
    """Length of a prefix of data proven well-formed UTF-8 (RFC 3629 §4), ending on a
    character boundary: len(data) iff all of it is; on an error, the start of the 64-byte
    block holding it or earlier (the machine takes over from there)."""

VALIDATOR_BLOCK: int  # the kernels' block, 64 bytes (_native.VALIDATOR_BLOCK)

def utf8_kernel() -> str:
    """The kernel valid_prefix runs: "avx512", "avx2", "sse41", "neon" or "scalar" (the
    best this machine runs, or the one set_utf8_kernel forced)."""

def utf8_kernels() -> tuple[str, ...]:
    """The kernels this machine can run, best first (scalar last)."""

def set_utf8_kernel(name: str, /) -> None:
    """Run the kernel ``name`` from now on, process-wide ("auto": the best);
    ValueError for a name that is no kernel or one this machine cannot run.
    sanitizer._native calls it once, at import, for SANITIZER_UTF8_KERNEL."""

def valid_prefix_using(name: str, data: ReadableBuffer, /) -> int:
    """valid_prefix with the kernel ``name`` at every length (short inputs included): the
    test hook that checks each kernel; ValueError if this machine cannot run it."""

def is_valid(data: bytes | bytearray | memoryview, *, allow_overlong_nul: bool = False) -> bool:
    """True when data is well-formed UTF-8 (RFC 3629 §4): the C entry point of
    sanitizer._decoder.is_valid_py (plain bytes that the validator accepts), which every
    other call goes to."""

def set_is_valid_fallback(fn: Callable[..., bool], /) -> None:
    """The Python is_valid() that non-trivial calls go to."""

# -- columns.c: Arrow binary and string columns walked in place (sanitizer.columns) ------

def column_check(
    layout: int, length: int, offset: int, validity: object, values: object, data: object, /
) -> tuple[bytes, list[int]]:
    """(bits, bad): bit k set when row k is not null and well-formed UTF-8, and the rows
    that are not null and ill-formed (reference: sanitizer._arrow.column_check_py)."""

def column_gather(
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
) -> tuple[bytes, bytes]:
    """(offsets or views, data): the rows' bytes as new buffers of out_layout, rows[i]
    replaced by pieces[i] (reference: sanitizer._arrow.column_gather_py)."""

def column_clean(
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
) -> bytes:
    """Bitmap: bit k set when row k is not null and clean() would answer its bytes with
    a str (reference: the scalar functions, which sanitizer.columns asks for the rest)."""

def column_translate(
    layout: int,
    length: int,
    offset: int,
    validity: object,
    values: object,
    data: object,
    table: tuple[bytes, ...],
    /,
) -> tuple[bytes, bytes, list[int]]:
    """(offsets, data, rows): each ASCII row mapped byte by byte by table (int64 offsets),
    the other rows that are not null left empty and listed (reference:
    sanitizer._arrow.column_translate_py)."""

def column_keys(
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
) -> tuple[bytes, bytes, list[int]]:
    """(offsets, data, rows): identifier_key of each row that is not null (int64 offsets;
    tables, key, dots, odd: sanitizer._lookalike.key.column_tables()), the rows left to
    the scalar function (an odd code point) empty and listed (reference: the scalar
    sanitizer.identifier_key of each row)."""

# -- source.c: where the source gate has work in a text (sanitizer._source_gate) -----------------

def source_lines(text: str, /) -> tuple[list[int], list[int]]:
    """(spans, rare): [start, end, ...] of the runs of lines holding a character >= U+0080
    (a line ends before its "\\n"), and the indices of U+0085, U+2028, U+2029 and
    U+FE00..U+FE0F (reference: sanitizer._source_gate._source_lines_py)."""

def identifiers(text: str, spans: list[int], marks: bytes, wide: bool, /) -> dict[str, int]:
    """{identifier: first start} of the identifiers in text[spans[0]:spans[1]], ... that
    hold a character >= U+0080 (wide) or are ASCII (not wide); marks: packed uint32
    (lo, hi) ranges of the marks an identifier continues with (reference: the pattern of
    sanitizer._source_gate._identifier_pattern, in _wide_identifiers and _ascii_spellings)."""

# -- precis.c: PRECIS enforcement for sanitizer.precis (RFC 8264, 8265, 8266) -------------

def precis_enforce(
    stage1: bytes, stage2: bytes, config: tuple[object, ...], text: object, /
) -> str:
    """text as a PRECIS profile enforces it, or PrecisError raised, or config's
    fallback(text) for what the C path leaves to Python (see sanitizer/_native_src/precis.c;
    reference: sanitizer.precis Profile._enforce_py)."""

def precis_layout() -> dict[str, object]:
    """The table layout, config flags and reason order precis_enforce reads."""

def bidi_feed(
    judge: object,
    text: str,
    at: int,
    start: int,
    bar: tuple[int, int, int, int] | None,
    room: int,
    /,
) -> tuple[list[tuple[int, int, int, str | None]], int, int, int, int]:
    """(verdicts, next, counted, allowed, refused): the source gate's bidi pairing of
    text[start:], judge's state read and written back (reference:
    sanitizer._source_gate._BidiJudge._feed_py)."""
