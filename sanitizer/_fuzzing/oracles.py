"""The oracles: what each fuzz target asserts, as plain functions of the input bytes.

A fuzzer only finds inputs; whether an input is a bug is decided here.  One invariant
function per UTF-8 target (named by ``targets.REGISTRY``) is shared by the fuzz workers
(``python -m sanitizer.fuzzing``, ``fuzz/fuzz_*.py``), a campaign's helper processes
(``replay``) and the plain pytest regression replay, so a finding reproduces everywhere
with the same bytes.  Every check is deterministic in ``data`` (chunkings are derived from
the bytes themselves), which is what libFuzzer's reproduction (``fuzz_decode.py
crash-...``) and ``-minimize_crash`` need.  A violated invariant raises ``Divergence``,
whose text is the finding report.

``check_decode`` is differential: this project's decoder (both runners of the
``_grammar.MACHINE`` table, every public entry point) against CPython's codec, one-shot and
incremental, and the error kinds against an independent reading of the classification
table (``expected_kind``).  ``check_policy`` and ``check_identifiers`` assert the policy
layer's own promises (never crash on hostile bytes, idempotence, consistency between entry
points).  Which runner is native comes from ``sanitizer._native``, the one native seam.
"""

from __future__ import annotations

import codecs
import os
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import unicodedata2

import sanitizer
from sanitizer import _machine
from sanitizer._categories import NORMAL_FORMS
from sanitizer._errors import ErrorKind
from sanitizer._grammar import BOM, MACHINE
from sanitizer._native import VALIDATOR_BLOCK, speedups, utf8_valid_prefix_py

from .classes import CLASSES, WELL_FORMED, IllFormedClass, first_class, groups, worst_class

__all__ = [
    "ACCEPTS",
    "BLOCK_SIZES",
    "DEEP_EVERY",
    "INCREMENTAL_LIMIT",
    "KERNELS",
    "LONG_EVERY",
    "LONG_TIER_MARK",
    "OFFSETS_CONTRACT",
    "POLICY_DEEP_EVERY",
    "POLICY_INSPECT_EVERY",
    "POLICY_INSPECT_LIMIT",
    "POLICY_REFUSAL_EVERY",
    "PY_RUNNER_LIMIT",
    "Candidate",
    "CandidateEscape",
    "Divergence",
    "InputTimeout",
    "Note",
    "call_candidate",
    "check_decode",
    "check_identifiers",
    "check_policy",
    "chunk_sizes",
    "cpython_spans",
    "expected_kind",
    "filed_under",
    "judge_candidate",
    "long_variants",
    "split_pair",
]

Candidate = Callable[[bytes], str]
Span = tuple[int, int]

# The pure-Python runner and the incremental decoders cost micro-seconds per byte or per
# error; past these many bytes they are checked on a prefix (itself a valid input), while
# CPython, the C runner and the one-shot API still see everything.  libFuzzer's default
# -max_len is 4096: long inputs stay cheap, short ones (most of them) are checked in full.
PY_RUNNER_LIMIT = 1024
INCREMENTAL_LIMIT = 256
# How many errors are re-derived by restarting CPython's codec after each one.
RESTARTS = 4
# Error kinds are checked for at most this many errors per input (LEAN_KINDS outside the
# deep tier).
KINDS = 8
LEAN_KINDS = 1
_HEX_SHOWN = 512

# Actions whose findings must not survive in a policy's output (idempotence check).
_REJECT = sanitizer.Action.REJECT
_DROPPING = frozenset({sanitizer.Action.REJECT, sanitizer.Action.STRIP, sanitizer.Action.REPLACE})
# What a report on ill-formed bytes must hold: ILL_FORMED, or TOO_LONG (over ``max_bytes``
# the input is refused before it is decoded: "limits apply before the costly steps").
_REFUSES_ILL_FORMED = frozenset({sanitizer.Category.ILL_FORMED, sanitizer.Category.TOO_LONG})
_TABLE = MACHINE.table
_NCLASSES = MACHINE.nclasses


class Divergence(AssertionError):
    """A violated invariant.  ``str()`` is the finding report: what differs, the input in
    hex, and each implementation's answer, one per line."""

    def __init__(self, what: str, data: bytes, answers: Sequence[tuple[str, object]] = ()):
        self.what = what
        self.data = bytes(data)
        self.answers = list(answers)
        super().__init__(self._report())

    def __reduce__(self) -> tuple[Any, ...]:
        # BaseException's would call Divergence(report): made again from its parts.
        return type(self), (self.what, self.data, self.answers), self.__dict__

    def _report(self) -> str:
        shown = self.data[:_HEX_SHOWN].hex(" ").upper()
        more = len(self.data) - _HEX_SHOWN
        if more > 0:
            shown += f" ... ({more} more bytes)"
        lines = [self.what, f"  input ({len(self.data)} bytes): {shown or '(empty)'}"]
        width = max((len(name) for name, _ in self.answers), default=0)
        for name, answer in self.answers:
            lines.append(f"  {name.ljust(width)} : {_show(answer)}")
        return "\n".join(lines)


class Note(str):
    """A line of a ``Divergence`` report that is prose, shown as is (not ``ascii()``)."""


def _show(answer: object) -> str:
    if isinstance(answer, Note):
        return str(answer)
    if isinstance(answer, BaseException):
        extra = ""
        if isinstance(answer, UnicodeDecodeError):
            extra = f" [start={answer.start}, end={answer.end}]"
        return f"raises {type(answer).__name__}: {answer}{extra}"
    text = ascii(answer)  # escapes bidi controls and invisibles: a report must not lie
    return text if len(text) <= 600 else text[:600] + f"... ({len(text)} chars)"


# -- helpers shared with tests and strategies ----------------------------------------------

_recorded: list[Span] = []


def _record(exc: UnicodeError) -> tuple[str, int]:
    assert isinstance(exc, UnicodeDecodeError)
    _recorded.append((exc.start, exc.end))
    return "\ufffd", exc.end


codecs.register_error("sanitizer.fuzzing.record", _record)


def cpython_spans(data: bytes) -> tuple[str, list[Span]]:
    """CPython's replace-mode text and the (start, end) of every maximal subpart, as its
    codec reports them to an error handler (Unicode §3.9 "U+FFFD substitution")."""
    _recorded.clear()
    text = data.decode("utf-8", "sanitizer.fuzzing.record")
    spans = list(_recorded)
    _recorded.clear()
    return text, spans


def chunk_sizes(data: bytes) -> list[int]:
    """A chunking of ``data`` derived from its own bytes (seeded by the first byte and the
    length), so replaying an input replays its chunking: 2..4 chunks cut at pseudo-random
    offsets (equal cuts give empty chunks).  The sizes sum to ``len(data)``."""
    n = len(data)
    if not n:
        return []
    state = data[0] * 2654435761 + n * 40503
    cuts = []
    for _ in range(1 + data[0] % 3):
        state = (state * 1103515245 + 12345) & 0x7FFFFFFF
        cuts.append((state >> 8) % (n + 1))
    bounds = [0, *sorted(cuts), n]
    return [bounds[i + 1] - bounds[i] for i in range(len(bounds) - 1)]


def _chunks(data: bytes) -> list[bytes]:
    out = []
    pos = 0
    for size in chunk_sizes(data):
        out.append(data[pos : pos + size])
        pos += size
    return out or [b""]


def expected_kind(data: bytes, start: int, end: int) -> ErrorKind:
    """The kind of the subpart ``data[start:end]``, recomputed from its first two bytes.

    A deliberate independent copy of what ``sanitizer._errors.classify`` derives from the
    grammar: the byte ranges are spelled out here, from RFC 3629 §3 and Kuhn's stress
    test, so that a change to the grammar or to the derivation shows up as a divergence."""
    first = data[start]
    second = data[start + 1] if start + 1 < len(data) else -1
    if 0x80 <= first <= 0xBF:
        return ErrorKind.UNEXPECTED_CONTINUATION  # Kuhn UTF-8-test §3.1
    if first >= 0xFE:
        return ErrorKind.INVALID_BYTE  # RFC 3629 §1, Kuhn §3.5
    overlong_second = {0xE0: 0x9F, 0xF0: 0x8F, 0xF8: 0x87, 0xFC: 0x83}
    if first in (0xC0, 0xC1) or 0x80 <= second <= overlong_second.get(first, -1):
        return ErrorKind.OVERLONG  # RFC 3629 §3 shortest form, Kuhn §4
    if first == 0xED and 0xA0 <= second <= 0xBF:
        return ErrorKind.SURROGATE  # RFC 3629 §3, Kuhn §5
    if (first == 0xF4 and 0x90 <= second <= 0xBF) or 0xF5 <= first <= 0xFD:
        return ErrorKind.OUT_OF_RANGE  # RFC 3629 §3 "U+10FFFF", RFC 2279 5/6-byte forms
    if not 0xC2 <= first <= 0xF4:  # ASCII never starts an ill-formed subpart
        raise Divergence(f"a subpart cannot start with {first:02X}", data, [("span", (start, end))])
    return ErrorKind.INCOMPLETE if end == len(data) else ErrorKind.TRUNCATED


# -- decode ------------------------------------------------------------------------------


# During a campaign (``deep=None``) the deep checks -- the pure-Python runner, both
# incremental decoders, the BOM and Modified-UTF-8 modes, grouping -- run on one input in
# DEEP_EVERY, chosen by the input's CRC-32 so that replaying or minimizing an input repeats
# its tier.  The lean checks that run on every input keep a campaign above 20,000 exec/s;
# pytest's replay of the corpus and of saved findings always runs everything.
DEEP_EVERY = 64


def check_decode(
    data: bytes, candidate: Candidate | None = None, *, deep: bool | None = True
) -> None:
    """Differential check of strict decoding; with ``candidate``, also check that one.

    Asserts: the C and pure-Python runners of ``_grammar.MACHINE`` give CPython's maximal
    subparts and replace text; ``decode`` (strict, replace, BOM modes, Modified UTF-8 NUL),
    ``is_valid``, ``find_errors``, ``group_errors`` and ``encode`` agree with CPython;
    CPython's and this project's incremental decoders, fed a chunking derived from
    ``data``, give the one-shot result; every error's kind matches ``expected_kind``.

    ``deep=True`` (the default) checks all of it; ``deep=None`` is a campaign's sampling
    (see ``DEEP_EVERY``), and with a ``candidate`` it checks only the candidate against the
    strict reference -- a campaign against someone else's decoder spends its time there.
    A candidate is also checked on ``long_variants`` of the input (block boundaries past
    1 KiB; sampled by ``LONG_EVERY`` unless ``deep``), and one that calls ``os._exit`` or raises
    ``SystemExit``/``KeyboardInterrupt`` is a finding (``call_candidate``).
    """
    data = bytes(data)
    if candidate is not None:
        _check_candidate(data, candidate, *_reference(data))
        _check_candidate_long(data, candidate, deep)
        if deep is None:
            return
    if deep is None:
        deep = zlib.crc32(data) % DEEP_EVERY == 0
    strict: str | UnicodeDecodeError
    try:
        strict = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        strict = exc
    if deep:
        ref_text, ref_spans = cpython_spans(data)  # every subpart, via an error handler
        _check_cpython_self(data, strict, ref_text, ref_spans)
    else:
        # Lean tier: CPython's replace text and first error, all in C.  Equal replace text
        # pins the subparts between errors; the deep tier compares every span.
        ref_text = data.decode("utf-8", "replace")
        ref_spans = [] if isinstance(strict, str) else [(strict.start, strict.end)]
    _check_runners(data, ref_text, ref_spans, deep)
    _check_kernels(data, len(data) if isinstance(strict, str) else strict.start, deep)
    errors = _check_public(data, strict, ref_text, ref_spans, deep)
    if not deep:
        return
    if len(data) <= INCREMENTAL_LIMIT:
        _check_incremental(data, ref_text, ref_spans, errors)
    else:
        head = data[:INCREMENTAL_LIMIT]
        head_text, head_spans = cpython_spans(head)
        _check_incremental(head, head_text, head_spans, sanitizer.find_errors(head, limit=KINDS))


def _reference(data: bytes) -> tuple[str | UnicodeDecodeError, list[Span]]:
    """The strict reference answer: this project's decoder (its own campaigns and tests
    hold it equal to CPython's) -- text, or the first error and its span."""
    try:
        return sanitizer.decode(data), []
    except sanitizer.Utf8Error as exc:
        return exc, [(exc.start, exc.end)]


def _check_cpython_self(
    data: bytes, strict: str | UnicodeDecodeError, ref_text: str, ref_spans: list[Span]
) -> None:
    if isinstance(strict, str):
        if ref_spans or strict != ref_text:
            _fail("CPython: strict and replace decoding disagree", data, strict, ref_text)
        return
    # Restarting the codec after each error must find the same subparts (self-sync).
    restarted = [(strict.start, strict.end)]
    pos = strict.end
    while len(restarted) < RESTARTS:
        try:
            data[pos:].decode("utf-8")
            break
        except UnicodeDecodeError as exc:
            restarted.append((pos + exc.start, pos + exc.end))
            pos += exc.end
    if restarted != ref_spans[: len(restarted)]:
        _fail("CPython: restarting after each error disagrees", data, ref_spans, restarted)


def _fail(what: str, data: bytes, *answers: object, names: tuple[str, ...] = ()) -> None:
    names = names or ("reference", "sanitizer", "third")
    raise Divergence(what, data, list(zip(names, answers, strict=False)))


_RUNNER_NAMES = ("cpython", "spans()", "replace()")


def _check_runners(data: bytes, ref_text: str, ref_spans: list[Span], deep: bool) -> None:
    flat = [x for span in ref_spans for x in span]
    if speedups is not None:  # the C runner, when built and not disabled
        c_spans = speedups.spans(data, _TABLE, _NCLASSES, 0, -1 if deep else 1)
        c_out: list[int] = []
        c_text = speedups.replace(data, _TABLE, _NCLASSES, 0, c_out)
        if not deep:
            c_out = c_out[:2]
        if c_spans != flat or c_out != flat:
            _fail("C runner spans != CPython", data, flat, c_spans, c_out, names=_RUNNER_NAMES)
        if c_text != ref_text:
            _fail("C runner replace text != CPython", data, ref_text, c_text, names=_RUNNER_NAMES)
    if not deep:
        return
    # The reference runner, on a prefix for long inputs (compared with CPython on it):
    # one full pass, plus spans() stopping at the first subpart (its ``limit`` path).
    head = data[:PY_RUNNER_LIMIT]
    if len(head) < len(data):
        ref_text, ref_spans = cpython_spans(head)
        flat = [x for span in ref_spans for x in span]
    py_out: list[int] = []
    py_text = _machine.replace(head, _TABLE, _NCLASSES, 0, py_out)
    py_first = _machine.spans(head, _TABLE, _NCLASSES, 0, 1)
    if py_out != flat or py_first != flat[:2]:
        _fail("Python runner spans != CPython", head, flat, py_first, py_out, names=_RUNNER_NAMES)
    if py_text != ref_text:
        _fail("Python runner replace text != CPython", head, ref_text, py_text)


# The UTF-8 validator's kernels: every one this CPU runs (avx512, avx2, sse41, neon,
# scalar), through the ``valid_prefix_using`` test hook of the native seam.
KERNELS: tuple[str, ...] = speedups.utf8_kernels() if speedups is not None else ()
_BLOCK = VALIDATOR_BLOCK  # the SIMD kernels' block


def _check_kernels(data: bytes, exact: int, deep: bool) -> None:
    """Each validator kernel against the machine's first error offset ``exact`` (CPython's
    strict start; ``len(data)`` when well-formed), with ``data`` copied 0..63 bytes into a
    buffer (by its CRC-32, so a replay repeats it) so vector loads run at every alignment.

    The contract callers rely on (``_native.utf8_valid_prefix``): a prefix no longer than
    ``exact``, all of it iff well-formed, ending on a character boundary; scalar stops
    exactly at ``exact``, a SIMD kernel at most at the start of the 64-byte block holding
    it, less up to 3 bytes of a character open across the block edge (RFC 3629 §4)."""
    if KERNELS:
        offset = (zlib.crc32(data) >> 8) % _BLOCK  # (the low bits pick the deep tier)
        view = memoryview(bytearray(offset) + data)[offset:]
        for kernel in KERNELS:
            got = speedups.valid_prefix_using(kernel, view)  # type: ignore[union-attr]
            if got != exact:  # exact is right for every kernel: judge only the others
                _judge_kernel(data, exact, kernel, offset, got)
    if deep and utf8_valid_prefix_py(data) != exact:
        answers = [("first error", exact), ("python twin", utf8_valid_prefix_py(data))]
        raise Divergence("UTF-8 validator's Python twin != the first error", data, answers)


def _judge_kernel(data: bytes, exact: int, kernel: str, offset: int, got: int) -> None:
    """Whether a kernel's answer ``got`` (!= ``exact``) is one the contract allows."""
    lowest = exact // _BLOCK * _BLOCK - 3
    if exact == len(data) or kernel == "scalar":
        bad = True
    else:
        bad = not lowest <= got < exact or 0x80 <= data[got] <= 0xBF
    if bad:
        answers = [("first error", exact), (f"{kernel} at +{offset}", got)]
        raise Divergence(f"UTF-8 validator kernel {kernel} breaks its contract", data, answers)


def _check_public(
    data: bytes,
    strict: str | UnicodeDecodeError,
    ref_text: str,
    ref_spans: list[Span],
    deep: bool,
) -> list[sanitizer.Utf8Error]:
    mine: str | BaseException
    try:
        mine = sanitizer.decode(data)
    except sanitizer.Utf8Error as exc:
        mine = exc
    if isinstance(strict, str) or isinstance(mine, str):
        if strict != mine:
            _fail("decode(strict) != CPython", data, strict, mine)
    elif (strict.start, strict.end) != (mine.start, mine.end):
        _fail("decode(strict) error offsets != CPython", data, strict, mine)
    replaced = sanitizer.decode(data, errors="replace")
    if replaced != ref_text:
        _fail("decode(errors='replace') != CPython", data, ref_text, replaced)
    if sanitizer.is_valid(data) != (not ref_spans):
        _fail("is_valid != CPython verdict", data, not ref_spans, sanitizer.is_valid(data))
    errors = sanitizer.find_errors(data, limit=None if deep else LEAN_KINDS)
    spans = [(e.start, e.end) for e in errors]
    if spans[: len(ref_spans) if deep else 1] != ref_spans:
        _fail("find_errors spans != CPython", data, ref_spans, spans)
    if errors:
        _check_kinds("find_errors", data, errors if deep else errors[:LEAN_KINDS])
        if not deep:
            return errors
        str(errors[0])  # the report sentence must render (e.g. TRUNCATED's cutting byte)
        if errors[0].sequence != data[spans[0][0] : spans[0][1]]:
            _fail(".sequence is not the subpart's bytes", data, spans[0], errors[0].sequence)
        head = errors[:KINDS]
        flat = [e for group in sanitizer.group_errors(head) for e in group] if deep else head
        if flat != head:
            _fail("group_errors lost or reordered errors", data, head, flat)
    elif isinstance(strict, str):
        encoded = sanitizer.encode(strict)
        if encoded != data:
            _fail("encode(decode(x)) != x", data, data, encoded)
    if deep and data[:1] == b"\xef":
        _check_bom(data, strict)
    if deep and b"\xc0" in data:
        _check_modified_nul(data)
    return errors


def _check_kinds(where: str, data: bytes, errors: Sequence[sanitizer.Utf8Error]) -> None:
    for err in errors[:KINDS]:
        want = expected_kind(data, err.start, err.end)
        if err.kind is not want:
            _fail(
                f"{where}: error kind differs from the classification table",
                data,
                (err.start, err.end),
                want,
                err.kind,
                names=("error", "expected", "kind"),
            )


def _check_bom(data: bytes, strict: str | UnicodeDecodeError) -> None:
    # RFC 3629 §6: EF BB BF at the start is U+FEFF, kept, stripped or rejected on request.
    has_bom = data.startswith(BOM)
    stripped: str | BaseException
    try:
        stripped = sanitizer.decode(data, bom="strip")
    except ValueError as exc:
        stripped = exc
    if isinstance(strict, str) and stripped != strict[has_bom:]:
        _fail("decode(bom='strip')", data, strict[has_bom:], stripped)
    try:
        sanitizer.decode(data, errors="replace", bom="reject")
        rejected = False
    except sanitizer.BomError:
        rejected = True
    if rejected != has_bom:
        _fail("decode(bom='reject') verdict", data, has_bom, rejected)


def _check_modified_nul(data: bytes) -> None:
    # HOWTO §5.9.4: with allow_overlong_nul exactly C0 80 reads as U+0000, nothing else.
    as_nul = data.replace(b"\xc0\x80", b"\x00")
    want = as_nul.decode("utf-8", "replace")
    got = sanitizer.decode(data, errors="replace", allow_overlong_nul=True)
    if got != want:
        _fail("decode(allow_overlong_nul=True, errors='replace')", data, want, got)
    valid = sanitizer.is_valid(data, allow_overlong_nul=True)
    if valid != sanitizer.is_valid(as_nul):
        _fail("is_valid(allow_overlong_nul=True)", data, not valid, valid)


def _check_incremental(
    data: bytes, ref_text: str, ref_spans: list[Span], errors: list[sanitizer.Utf8Error]
) -> None:
    chunks = _chunks(data)
    last = len(chunks) - 1
    sizes = [len(c) for c in chunks]
    names = ("chunk sizes", "one-shot", "incremental")
    # CPython's own incremental decoder must match its one-shot decoding.
    cp_dec = codecs.getincrementaldecoder("utf-8")("replace")
    cp_text = "".join([cp_dec.decode(c, i == last) for i, c in enumerate(chunks)])
    if cp_text != ref_text:
        _fail(
            "CPython incremental (replace) != one-shot", data, sizes, ref_text, cp_text, names=names
        )
    # This project's, through feed() (never raises; offsets in the stream, and
    # ``object[start:end]`` the bad bytes).
    dec = sanitizer.IncrementalDecoder()
    parts: list[str] = []
    inc_errors: list[sanitizer.Utf8Error] = []
    for i, chunk in enumerate(chunks):
        text, errs = dec.feed(chunk, i == last)
        parts.append(text)
        inc_errors += errs
    text = "".join(parts)
    if text != ref_text:
        _fail("IncrementalDecoder.feed text != one-shot", data, sizes, ref_text, text, names=names)
    spans = [(e.stream_start, e.stream_end) for e in inc_errors]
    if spans != ref_spans:
        _fail(
            "IncrementalDecoder.feed errors != one-shot", data, sizes, ref_spans, spans, names=names
        )
    if dec.position != len(data):
        _fail("IncrementalDecoder.position != input length", data, len(data), dec.position)
    for err, one in zip(inc_errors[:KINDS], errors, strict=False):
        if err.kind is not one.kind or err.object[err.start : err.end] != one.sequence:
            _fail(
                "IncrementalDecoder.feed error kind != one-shot", data, sizes, one, err, names=names
            )
    if inc_errors and inc_errors[0].base:
        str(inc_errors[0])  # the sentence for an error held across chunks (``base`` > 0)
    if not ref_spans:
        return  # well-formed: the strict protocol path is the same as feed()
    # ... and through the codecs protocol, strict: raises the first error.
    strict_dec = sanitizer.IncrementalDecoder()
    got: list[str] = []
    raised: tuple[int, int] | None = None
    try:
        for i, chunk in enumerate(chunks):
            got.append(strict_dec.decode(chunk, i == last))
    except sanitizer.Utf8Error as exc:
        raised = (exc.stream_start, exc.stream_end)
    if raised != ref_spans[0]:
        _fail(
            "IncrementalDecoder.decode (strict) first error",
            data,
            sizes,
            ref_spans[0],
            raised,
            names=names,
        )
    joined = "".join(got)
    if not ref_text.startswith(joined):
        _fail("IncrementalDecoder.decode (strict) text", data, sizes, ref_text, joined, names=names)


class CandidateEscape(Exception):
    """A candidate tried to leave instead of answering: it raised a ``BaseException``
    that is not an ``Exception`` (``SystemExit`` from ``sys.exit``, ``KeyboardInterrupt``,
    ``GeneratorExit``) or called ``os._exit``.  Left alone, either would end the fuzzing
    process with no saved input and a campaign summary of "no findings"."""


class InputTimeout(BaseException):
    """An input ran longer than its per-input limit (raised by a replay helper's alarm);
    passed through ``call_candidate``, not mistaken for the candidate's own escape."""


class _ExitCalled(BaseException):
    """Raised by the stand-in for ``os._exit`` while a candidate runs."""

    def __init__(self, status: object) -> None:
        super().__init__(status)
        self.status = status


def _exit_stand_in(status: int) -> None:
    raise _ExitCalled(status)


def call_candidate(candidate: Candidate, data: bytes) -> object:
    """The candidate's answer to ``data``: its text, or the exception it raised.

    ``os._exit`` is replaced while it runs (a C-level ``_exit`` skips every handler,
    libFuzzer's included), and a ``BaseException`` that is not an ``Exception`` comes
    back as a ``CandidateEscape``: both are findings with the input, not a silent end."""
    real_exit = os._exit
    os._exit = _exit_stand_in  # type: ignore[assignment]
    try:
        return candidate(data)
    except Exception as exc:  # an answer (ValueError) or itself a finding: judged later
        return exc
    except _ExitCalled as exc:
        return CandidateEscape(f"called os._exit({exc.status!r})")
    except InputTimeout:
        raise
    except BaseException as exc:  # SystemExit, KeyboardInterrupt, GeneratorExit
        return CandidateEscape(f"raised {type(exc).__name__}({_short(exc)})")
    finally:
        os._exit = real_exit


def _short(exc: BaseException) -> str:
    text = ", ".join(repr(a) for a in exc.args)
    return text if len(text) <= 80 else text[:80] + "..."


def _check_candidate(
    data: bytes,
    candidate: Candidate,
    strict: str | UnicodeDecodeError,
    ref_spans: list[Span],
    what: str = "",
) -> None:
    name = getattr(candidate, "__qualname__", repr(candidate))
    got = call_candidate(candidate, data)
    problem = _candidate_problem(data, got, strict, ref_spans)
    if problem is not None:
        headline, notes = problem
        cause = got if isinstance(got, BaseException) else None
        raise Divergence(
            f"candidate {name} {headline}{what}", data, [("strict", strict), (name, got), *notes]
        ) from cause


# Reads and buffers come in these sizes: a candidate that decodes each block on its own
# (a reader decoding every ``read()`` separately) is only wrong where a multi-byte
# sequence straddles one of these offsets, far past a campaign's usual -max_len.
BLOCK_SIZES = (1024, 4096, 8192, 65536)
# What a long-tier finding's headline says (after the problem).
LONG_TIER_MARK = "the input placed across a"
# During a campaign the long tier runs on one input in LONG_EVERY (by CRC-32, as
# DEEP_EVERY, so a replay repeats it) with the two smaller block sizes: 5 KiB through a
# coverage-instrumented Python candidate costs ~20 ms (4 us a byte), which on every input
# would starve the short-input search.  pytest's replay (``deep``) runs all four sizes
# on every input.
LONG_EVERY = 256


def long_variants(data: bytes, sizes: Sequence[int] = BLOCK_SIZES) -> list[tuple[int, bytes]]:
    """``data`` moved far into a long input so that a block boundary falls inside its
    first multi-byte sequence: for each of ``BLOCK_SIZES``, ASCII padding, then ``data``
    placed to cut that sequence inside (after 1..3 bytes, by the input's CRC-32), then
    ``data`` again so both halves of a split are exercised.  Empty for ASCII-only input."""
    lead = next((i for i, b in enumerate(data) if b >= 0x80), -1)
    if lead < 0:
        return []
    first = data[lead]
    length = 4 if first >= 0xF0 else 3 if first >= 0xE0 else 2  # as its lead announces
    cut = lead + 1 + zlib.crc32(data) % (length - 1)  # a boundary after byte 1..length-1
    out = []
    for block in sizes:
        pad = block - cut if cut <= block else block - cut % block
        out.append((block, b"a" * pad + data + data))
    return out


def _check_candidate_long(data: bytes, candidate: Candidate, deep: bool | None) -> None:
    """The long-input tier: the candidate against the reference on ``long_variants``."""
    crc = zlib.crc32(data)
    if not deep and crc % LONG_EVERY:
        return
    sizes = BLOCK_SIZES if deep else BLOCK_SIZES[:2]
    for block, long in long_variants(data, sizes):
        where = f" ({LONG_TIER_MARK} {block}-byte block boundary)"
        _check_candidate(long, candidate, *_reference(long), what=where)


# What a candidate refusing ill-formed input promises about its error (docs/fuzzing.md).
OFFSETS_CONTRACT = (
    "a candidate must report the offsets of the first maximal ill-formed subpart within "
    "the bytes it was given, as CPython does; it refused the input, as it should: only the "
    "offsets differ (raise a plain ValueError when you cannot give them)"
)
# The problems a candidate's answer can have, as its finding's headline says them.
ACCEPTS = "accepts ill-formed UTF-8"
WRONG_OFFSETS = "reports the wrong error offsets (offsets only)"
REJECTS = "rejects well-formed UTF-8"
DIFFERENT_TEXT = "decodes to different text"


def _candidate_problem(
    data: bytes, got: object, strict: str | UnicodeDecodeError, ref_spans: list[Span]
) -> tuple[str, list[tuple[str, object]]] | None:
    """What is wrong with a candidate's answer (text, or the exception it raised): the
    headline's end (``accepts ill-formed UTF-8: overlong form``) and notes for the report.
    Ill-formed input is filed under its class (``classes``): the most severe one present
    when the candidate returned something, the first error's when it refused."""
    notes: list[tuple[str, object]] = []
    if isinstance(got, ValueError):  # UnicodeDecodeError included: a rejection
        if isinstance(strict, str):
            return REJECTS, notes
        if isinstance(got, UnicodeDecodeError) and (got.start, got.end) != ref_spans[0]:
            other = got.object
            own = isinstance(other, (bytes, bytearray, memoryview)) and bytes(other) == data
            start, end = ref_spans[0]
            found = groups(data)
            if own and got.start < start:
                notes.append(("note", Note(f"it refused at {got.start}, before {start}")))
                return f"{REJECTS} (before the first ill-formed subpart)", notes
            later = any(gs <= got.start < ge for _, gs, ge in found[1:])
            passed = [c for c, _, group_end in found if group_end <= got.start]
            if own and later and passed:  # it read past ill-formed groups, refused a later one
                notes.append(
                    (
                        "note",
                        Note(
                            f"it refused only at [{got.start}:{got.end}], past the "
                            f"ill-formed subpart at [{start}:{end}]"
                        ),
                    )
                )
                return f"{ACCEPTS}: {min(passed, key=lambda c: c.rank).label}", notes
            notes.append(("contract", Note(OFFSETS_CONTRACT)))
            if not own and isinstance(other, (bytes, bytearray)):
                notes.append(
                    (
                        "hint",
                        Note(
                            f"its UnicodeDecodeError is about other bytes ({len(other)}, not the "
                            f"{len(data)} it was given): a wrapper passing on a library's error "
                            "raised over a larger document; the contract is the wrapper's"
                        ),
                    )
                )
            return f"{WRONG_OFFSETS}: {_label(first_class(data))}", notes
        return None
    if isinstance(got, CandidateEscape):
        return f"tried to end the process: {got}", notes
    if isinstance(got, BaseException):
        return "crashed (only str or UnicodeDecodeError/ValueError are answers)", notes
    if isinstance(strict, UnicodeDecodeError):
        if not isinstance(got, str):
            notes.append(("note", Note(f"it also returned {type(got).__name__}, not str")))
        return f"{ACCEPTS}: {_label(worst_class(data))}", notes
    if not isinstance(got, str):
        return f"returned {type(got).__name__}, not str", notes
    if got != strict:
        return DIFFERENT_TEXT, notes
    return None


def _label(found: IllFormedClass | None) -> str:
    return found.label if found is not None else "(no ill-formed group)"


def judge_candidate(data: bytes, candidate: Candidate) -> tuple[str, str, str, str]:
    """A candidate's verdict on one input, as a probe reports it: (verdict, class key,
    its answer as a report shows it, the finding's headline or ""), the verdict one of
    ``probes``' accepted / differs / refused / decoded."""
    strict, spans = _reference(data)
    got = call_candidate(candidate, data)
    problem = _candidate_problem(data, got, strict, spans)
    headline = "" if problem is None else f"candidate {problem[0]}"
    filed = filed_under(headline, data) if problem is not None else None
    if filed is None:
        ill = first_class(data)
        filed = ("refused", ill.key) if ill is not None else ("decoded", WELL_FORMED)
    return filed[0], filed[1], _brief(got, strict), headline


def _brief(got: object, strict: str | UnicodeDecodeError) -> str:
    """A candidate's answer for a table cell: its text, or the error and its span."""
    if isinstance(got, UnicodeDecodeError):
        text = f"{type(got).__name__} [{got.start}:{got.end}]"
        if isinstance(strict, UnicodeDecodeError) and (got.start, got.end) != (
            strict.start,
            strict.end,
        ):
            text += f", CPython [{strict.start}:{strict.end}]"
        return text
    if isinstance(got, BaseException):
        return type(got).__name__
    return ascii(got)


def filed_under(headline: str, data: bytes) -> tuple[str, str] | None:
    """(verdict, class key) of a candidate's finding on ``data``, from its headline:
    accepted (under the class the headline names), or differs (under the first error's
    class, or ``well-formed`` for well-formed text it got wrong); None for a headline that
    is no candidate's."""
    if "candidate " not in headline:
        return None
    if f" {ACCEPTS}: " in headline:
        label = headline.split(f" {ACCEPTS}: ", 1)[1]
        named = next((c for c in CLASSES if label.startswith(c.label)), worst_class(data))
        return "accepted", named.key if named is not None else WELL_FORMED
    if any(f" {what}" in headline for what in (REJECTS, DIFFERENT_TEXT, "returned ")):
        return "differs", WELL_FORMED
    found = first_class(data)
    return "differs", found.key if found is not None else WELL_FORMED


# -- policy and identifiers ---------------------------------------------------------------


def split_pair(data: bytes) -> tuple[bytes, bytes]:
    """Two inputs from one: split at the first FF byte, which never occurs in UTF-8
    (RFC 3629 §1), so no well-formed text is lost to the separator."""
    left, _, right = data.partition(b"\xff")
    return left, right


# During a campaign (``deep=None``) the checks run in three tiers, chosen by the input's
# CRC-32 so that replaying or minimizing an input repeats its tier:
#
# * verdict, every input: one profile (by the CRC) through ``accepts`` and ``sanitize``
#   (on a refused input, one in POLICY_REFUSAL_EVERY), whose clean inputs are one C call
#   each and whose engine stops at the first refusal -- about a sixth of an ``inspect`` on
#   the seed corpus: they agree with each other and with the decoder (ill-formed bytes
#   never accepted), and the output is well-formed text the policy returns unchanged;
# * report, one input in POLICY_INSPECT_EVERY of at most POLICY_INSPECT_LIMIT bytes: that
#   profile's ``inspect`` and its report (findings, offsets, ill-formed -> ILL_FORMED);
# * deep, one input in POLICY_DEEP_EVERY: every profile with everything (both tiers above,
#   str input, ``sanitize`` against ``inspect``, the output re-inspected, the log line).
#
# ``inspect`` builds a finding per character it flags (tens of microseconds each in the
# engine): sampling it is what keeps a campaign exploring.  The deep tier
# holds every check of the other two, so an input failing a sampled tier fails
# ``deep=True`` too: pytest's replay of the corpus and of saved findings, a campaign's
# replay helper and ``fuzz/fuzz_policy.py FILE`` (libFuzzer's one-input replay) run it.
#
# The rates (measured with callgrind on 3,000 inputs a libFuzzer run made from
# the seed corpus, instrumented as a worker is): the verdict tier's engine run is the
# floor (~230K instructions per input, uninstrumented); with the two sampled tiers and
# the sampled refusal at 1 in 32 / 1 in 256 / 1 in 8, an instrumented execution cost
# 740K, at 1 in 64 / 1 in 1,024 / 1 in 16 557K.  A campaign still runs ``inspect`` on ~100 inputs a
# second and the deep tier on ~6: a systematic bug in either shows within seconds.
POLICY_INSPECT_EVERY = 64
POLICY_REFUSAL_EVERY = 16
POLICY_INSPECT_LIMIT = 1024
POLICY_DEEP_EVERY = 1024


def check_policy(data: bytes, *, deep: bool | None = True) -> None:
    """Invariants of ``inspect``/``sanitize``/``accepts`` under every profile in
    ``profiles.PROFILES``.

    Never an exception other than ``PolicyError`` for content; ``ok`` iff no finding is a
    rejection, and then ``sanitize`` returns ``report.text`` (else raises ``PolicyError``)
    and ``accepts`` says so; findings lie inside the input; ill-formed bytes (RFC 3629 §10)
    are never accepted silently -- an ``ILL_FORMED`` finding, or a ``TOO_LONG`` refusal
    when the input is over the policy's byte limit (limits apply before decoding,
    docs/profiles.md); the output is well-formed text that the same policy accepts
    unchanged (idempotence); well-formed bytes and their decoded str get the same verdict
    and text.

    ``deep=True`` (the default) checks all of it under every profile; ``deep=None`` is a
    campaign's sampling (see ``POLICY_DEEP_EVERY``); ``deep=False`` only the verdict tier
    and, on the sampled inputs, the report tier, of one profile.
    """
    data = bytes(data)
    profiles = sanitizer.profiles.PROFILES
    crc = zlib.crc32(data)
    if deep is None:
        deep = crc % POLICY_DEEP_EVERY == 0
    valid = sanitizer.is_valid(data)
    if not deep:
        name, policy = list(profiles.items())[crc % len(profiles)]
        _check_verdict(name, data, policy, valid, (crc >> 8) % POLICY_REFUSAL_EVERY == 0)
        if (crc >> 16) % POLICY_INSPECT_EVERY == 0 and len(data) <= POLICY_INSPECT_LIMIT:
            _check_report(name, data, data, _inspect(name, data, policy), valid, False)
        return
    text_in = data.decode("utf-8") if valid else None
    for name, policy in profiles.items():
        verdict = _check_verdict(name, data, policy, valid)
        report = _inspect(name, data, policy)
        _check_report(name, data, data, report, valid)
        if verdict != report.text:  # (and accepts() agrees with sanitize(): verdict tier)
            what = "accepts what inspect() rejects" if report.text is None else "!= inspect().text"
            _fail(
                f"profile {name!r}: sanitize() {what}",
                data,
                report.text,
                verdict,
                names=("inspect", "sanitize"),
            )
        as_str = None
        if text_in is not None:
            as_str = _inspect(name, data, policy, text_in)
            _check_report(name, data, text_in, as_str, True)
            if (as_str.ok, as_str.text) != (report.ok, report.text):
                _fail(
                    f"profile {name!r}: bytes and str input disagree",
                    data,
                    (report.ok, report.text),
                    (as_str.ok, as_str.text),
                    names=("bytes", "str"),
                )
        if report.text is not None:
            # The output invariant: re-inspected with the same policy, the output
            # holds nothing it refuses, strips or replaces (sequences judged on the output).
            # (inspect is a function of text and policy: an output equal to the decoded
            # input was re-inspected just above, as the str input)
            if as_str is not None and report.text == text_in:
                again = as_str
            else:
                again = _inspect(name, data, policy, report.text)
            dropped = [
                f
                for f in again.findings
                if f.action in _DROPPING and f.category is not sanitizer.Category.TOO_LONG
            ]
            if dropped:
                _fail(
                    f"profile {name!r}: output holds what the policy rejects or strips",
                    data,
                    report.text,
                    dropped,
                    names=("output", "findings on the output"),
                )
            if again.text != report.text:
                _fail(
                    f"profile {name!r}: sanitize is not idempotent",
                    data,
                    report.text,
                    again.text,
                    again.findings,
                    names=("first pass", "second pass", "second findings"),
                )


def _check_verdict(
    name: str, data: bytes, policy: sanitizer.Policy, valid: bool, refusal: bool = True
) -> str | None:
    """The verdict tier: ``accepts`` and ``sanitize`` agree, ill-formed bytes are refused
    when the policy rejects ILL_FORMED (RFC 3629 §10; every profile does), and the output
    is well-formed text the policy accepts and returns unchanged.  Returns the output.

    ``refusal=False`` trusts ``accepts`` when it refuses (``sanitize`` would raise a
    ``PolicyError``, whose message renders the first finding: the costliest part of a
    refusal), the campaign tier's sampling; an accepted input is always sanitized."""
    try:
        ok = sanitizer._policy.accepts(data, policy)
        out: str | None = None
        if ok or refusal:
            try:
                out = sanitizer.sanitize(data, policy)
            except sanitizer.PolicyError:
                pass
        else:
            return None
    except Exception as exc:
        raise Divergence(
            f"profile {name!r}: accepts()/sanitize() raised (they must never raise for content)",
            data,
            [("exception", exc)],
        ) from exc
    if ok != (out is not None):
        _fail(
            f"profile {name!r}: accepts() and sanitize() disagree",
            data,
            ok,
            out,
            names=("accepts", "sanitize"),
        )
    if ok and not valid and policy.actions.get(sanitizer.Category.ILL_FORMED) is _REJECT:
        _fail(f"profile {name!r}: ill-formed input accepted", data, out, names=("sanitize",))
    if out is None:
        return None
    try:
        out.encode("utf-8")
    except UnicodeEncodeError as exc:
        _fail(f"profile {name!r}: output holds a lone surrogate", data, out, exc)
    try:
        again: str | BaseException = sanitizer.sanitize(out, policy)
    except sanitizer.PolicyError as exc:
        again = exc
    if again != out or not sanitizer._policy.accepts(out, policy):
        _fail(
            f"profile {name!r}: sanitize is not idempotent",
            data,
            out,
            again,
            names=("first pass", "second pass"),
        )
    return out


def _inspect(
    name: str, data: bytes, policy: sanitizer.Policy, subject: bytes | str | None = None
) -> sanitizer.Report:
    subject = data if subject is None else subject
    try:
        return sanitizer.inspect(subject, policy)
    except Exception as exc:
        raise Divergence(
            f"profile {name!r}: inspect() raised (it must never raise for content)",
            data,
            [("subject", subject), ("exception", exc)],
        ) from exc


def _check_report(
    name: str,
    data: bytes,
    subject: bytes | str,
    report: sanitizer.Report,
    valid: bool,
    render: bool = True,
) -> None:
    rejected = any(f.action is sanitizer.Action.REJECT for f in report.findings)
    if report.ok == rejected or report.ok != (report.text is not None):
        _fail(f"profile {name!r}: ok/text/rejections inconsistent", data, report, names=("report",))
    for finding in report.findings:
        if not 0 <= finding.start <= finding.end <= len(subject):
            _fail(f"profile {name!r}: finding outside the input", data, finding, len(subject))
        _check_points_at(name, data, subject, finding)
    if render and report.findings:
        str(report.findings[0])  # the log line must render (deep tier: it costs ~10%)
    if not valid and not any(f.category in _REFUSES_ILL_FORMED for f in report.findings):
        _fail(f"profile {name!r}: ill-formed input without an ILL_FORMED finding", data, report)
    if report.text is None:
        return
    try:
        report.text.encode("utf-8")
    except UnicodeEncodeError as exc:
        _fail(f"profile {name!r}: output holds a lone surrogate", data, report.text, exc)


def _check_points_at(name: str, data: bytes, subject: bytes | str, f: sanitizer.Finding) -> None:
    """A finding names what lies at its offsets: the ill-formed bytes themselves, or the one
    character (as UTF-8 for bytes input) whose code point it reports."""
    here = subject[f.start : f.end]
    if f.raw is not None:
        want: bytes | str = f.raw
    elif f.codepoint is not None:
        char = chr(f.codepoint)
        want = char.encode("utf-8", "surrogatepass") if isinstance(subject, bytes) else char
    else:
        return  # whole-input findings (limits, dot segments) and runs of marks
    if here != want:
        _fail(
            f"profile {name!r}: finding does not point at what it names",
            data,
            f,
            want,
            here,
            names=("finding", "names", "at its offsets"),
        )


def check_identifiers(data: bytes) -> None:
    """Invariants of ``normalize_identifier``/``identifiers_equal`` on the two identifiers
    ``split_pair(data)`` (decoded with surrogateescape, so lone surrogates occur too).

    For each normal form: normalization is idempotent and, for NFC/NFKC, equals
    ``unicodedata2.normalize`` (UAX #15); equality is reflexive, symmetric and the same as
    comparing normal forms; NFC-equal implies NFKC-equal implies NFKC_CASEFOLD-equal.
    Then the look-alike checks (``_check_lookalike``).
    """
    left, right = (x.decode("utf-8", "surrogateescape") for x in split_pair(bytes(data)))
    equal_before = False
    for form in NORMAL_FORMS:
        norms = []
        for side in (left, right):
            norm = sanitizer.normalize_identifier(side, form=form)  # type: ignore[arg-type]
            twice = sanitizer.normalize_identifier(norm, form=form)  # type: ignore[arg-type]
            if twice != norm:
                _fail(f"{form}: normalize_identifier is not idempotent", data, side, norm, twice)
            if form in ("NFC", "NFKC") and norm != unicodedata2.normalize(form, side):
                want = unicodedata2.normalize(form, side)
                _fail(f"{form}: normalize_identifier != unicodedata2", data, want, norm)
            norms.append(norm)
        equal = sanitizer.identifiers_equal(left, right, form=form)  # type: ignore[arg-type]
        mirrored = sanitizer.identifiers_equal(right, left, form=form)  # type: ignore[arg-type]
        if not equal == mirrored == (norms[0] == norms[1]):
            _fail(
                f"{form}: identifiers_equal",
                data,
                norms,
                equal,
                mirrored,
                names=("normal forms", "equal(a, b)", "equal(b, a)"),
            )
        if not sanitizer.identifiers_equal(left, left, form=form):  # type: ignore[arg-type]
            _fail(f"{form}: identifiers_equal is not reflexive", data, left)
        if equal_before and not equal:
            _fail(f"{form}: equal under a weaker form but not under {form}", data, left, right)
        equal_before = equal
    _check_lookalike(data, left, right)


def _check_lookalike(data: bytes, left: str, right: str) -> None:
    """UTS #39 §4 on the pair: ``skeleton`` and ``confusable`` (in C when the extension
    has them: ``_lookalike.skeletons.native()``) against their pure-Python twins
    ``skeleton_py`` / ``confusable_py``, and both against the definition -- the skeleton
    is NFD (its step 4), two strings are confusable iff their skeletons are equal, and
    the verdict follows from the resolved script sets (``resolved_mask_py``, also against
    the C ``resolved_mask``): single-script when they intersect, whole-script when both
    are non-empty, else mixed-script; symmetric in the pair."""
    # (loaded on first use, as sanitizer loads it: its tables cost 0.2 s to import)
    from sanitizer._lookalike.scripts import resolved_mask, resolved_mask_py
    from sanitizer._lookalike.skeletons import confusable_py, skeleton_py

    skeletons = []
    masks = []
    for side in (left, right):
        got, want = sanitizer.skeleton(side), skeleton_py(side)
        if got != want:
            _fail("skeleton != skeleton_py", data, side, want, got, names=("s", "python", "C"))
        if unicodedata2.normalize("NFD", got) != got:
            _fail("skeleton is not NFD (UTS #39 §4 step 4)", data, side, got)
        mask, mask_py = resolved_mask(side), resolved_mask_py(side)
        if mask != mask_py:
            _fail("resolved_mask != resolved_mask_py", data, side, mask_py, mask)
        skeletons.append(got)
        masks.append(mask_py)
    want_verdict: sanitizer.Confusability | None = None
    if skeletons[0] == skeletons[1]:
        if masks[0] & masks[1]:
            want_verdict = sanitizer.Confusability.SINGLE_SCRIPT
        elif masks[0] and masks[1]:
            want_verdict = sanitizer.Confusability.WHOLE_SCRIPT
        else:
            want_verdict = sanitizer.Confusability.MIXED_SCRIPT
    verdicts = (
        sanitizer.confusable(left, right),
        sanitizer.confusable(right, left),
        confusable_py(left, right),
    )
    if any(v is not want_verdict for v in verdicts):
        _fail(
            "confusable disagrees with the skeletons and script sets (UTS #39 §4)",
            data,
            skeletons,
            masks,
            want_verdict,
            *verdicts,
            names=("skeletons", "resolved masks", "expected", "(a, b)", "(b, a)", "python"),
        )
