"""Strict RFC 3629 decoding: the public entry points over the state machine in _grammar.py.

Input that CPython's C codec accepts is well-formed by RFC 3629 §4 (the test-suite proves
the two agree on every short input and on random ones), so valid input costs exactly one
``bytes.decode``.  Anything CPython rejects is handed to this project's own machine from
the first byte CPython could not take: the C runner when it is built (``_native`` says
which backend is active; ``SANITIZER_PURE_PYTHON=1`` forces the reference), else the
pure-Python reference (``_machine``).  Every entry point is linear in the input.

Where only a verdict is needed (``is_valid``, ``find_errors``,
``IncrementalDecoder.find_errors``) no text is built: the SIMD validator
(``_native.utf8_valid_prefix``) skips the valid stretches and the machine
takes over from where it stopped, so errors are exactly those of the machine alone.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable

from . import _machine
from ._arguments import check_choice, check_count, check_flag, exact_bytes, exact_str, type_name
from ._errors import BomError, EncodeError, Utf8Error, errors_for_spans
from ._grammar import BOM, TAIL, is_tail, lax_length, machine, row_for_lead
from ._native import BACKEND as BACKEND  # re-exported: "c" or "python"
from ._native import VALIDATOR_BLOCK, speedups, utf8_valid_prefix

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    import re
    from typing import Literal, Protocol

    from _typeshed import ReadableBuffer

    class _Runner(Protocol):
        """What walks the RFC 3629 table: ``_machine`` (the reference) or the C extension."""

        def spans(
            self, data: bytes | memoryview, table: bytes, nclasses: int, pos: int, limit: int, /
        ) -> list[int]: ...

        def replace(
            self,
            data: bytes,
            table: bytes,
            nclasses: int,
            pos: int,
            out_spans: list[int] | None,
            /,
        ) -> str: ...

    Errors = Literal["strict", "replace"]
    BomMode = Literal["keep", "strip", "reject"]


# Looked up at each call: tests/conftest.py swaps it to run the entry points on both.
_runner: _Runner = speedups if speedups is not None else _machine

_ERRORS: tuple[Errors, ...] = ("strict", "replace")
_BOMS: tuple[BomMode, ...] = ("keep", "strip", "reject")


def _as_bytes(data: object, where: str, name: str = "data") -> bytes:
    """``data`` as exact bytes (``_arguments.exact_bytes``), for every decoder's data."""
    return exact_bytes(data, name, where)


def _as_buffer(data: object, where: str, name: str = "data") -> bytes | memoryview:
    """``data`` for the entry points that only read it (``is_valid``, ``find_errors``):
    exact bytes as they are; any other C-contiguous buffer (bytearray, memoryview,
    ``array``, ``mmap``, a NumPy or Arrow buffer, a bytes subclass) as a read-only byte
    view of the same memory (no copy: a 40 MiB view costs no page faults); a strided
    buffer as ``exact_bytes`` copies it; TypeError for str and non-buffers."""
    if type(data) is bytes:
        return data
    if not isinstance(data, str):
        try:
            view = memoryview(data)  # type: ignore[arg-type]
        except TypeError:
            pass
        else:
            if view.c_contiguous:
                try:
                    return view.toreadonly().cast("B")
                except (TypeError, ValueError):
                    pass  # a format memoryview cannot cast (ctypes): copied below
    return exact_bytes(data, name, where)


def _owned(raw: bytes | memoryview) -> bytes:
    """``raw`` as bytes, copied once when it is a view: what errors hold
    (``UnicodeDecodeError`` would copy a view per error)."""
    return raw if type(raw) is bytes else bytes(raw)


# Argument rules: sanitizer._arguments (one wording, both backends).  Checked on the slow
# path; choices come back as the exact str of the list, so a str subclass's ``__eq__``
# never decides a mode.


def _check(
    errors: object, bom: object, where: str = "decode", allow_overlong_nul: object = False
) -> tuple[Errors, BomMode]:
    """The ``errors`` and ``bom`` choices as exact str, after checking all three."""
    errors = check_choice(errors, _ERRORS, "errors", where)
    bom = check_choice(bom, _BOMS, "bom", where)
    check_flag(allow_overlong_nul, "allow_overlong_nul", where)
    return errors, bom


def _accepted(data: bytes) -> tuple[str | None, int]:
    """CPython's text for ``data`` when its codec accepts all of it, else None and the
    offset up to which it accepted (the only thing taken from a refusal)."""
    try:
        return data.decode("utf-8"), len(data)
    except UnicodeDecodeError as exc:
        return None, exc.start


def _first_bad(data: bytes) -> int:
    """Offset up to which CPython's codec accepts ``data`` (len(data) if all of it)."""
    return _accepted(data)[1]


def decode(
    data: bytes | bytearray | memoryview,
    *extra: object,
    errors: Errors = "strict",
    bom: BomMode = "keep",
    allow_overlong_nul: bool = False,
) -> str:
    """Decode UTF-8 strictly by RFC 3629.

    ``errors="strict"`` raises ``Utf8Error`` for the first ill-formed subpart;
    ``errors="replace"`` puts one U+FFFD per maximal subpart (Unicode §3.9), exactly as
    ``bytes.decode("utf-8", "replace")``.  ``bom``: ``"keep"`` an initial EF BB BF as
    U+FEFF (RFC 3629 §6), ``"strip"`` it, or ``"reject"`` it with ``BomError``.
    ``allow_overlong_nul`` accepts exactly ``C0 80`` as U+0000 (Java's Modified UTF-8,
    HOWTO §5.9.4); nothing else is relaxed.  The options are keyword-only.
    """
    if extra:
        raise TypeError(
            f"decode() takes 1 positional argument but {1 + len(extra)} were given "
            "(errors, bom and allow_overlong_nul are keyword-only)"
        )
    if type(data) is not bytes and type(data) is not bytearray:
        return _decode_slow(data, errors, bom, allow_overlong_nul)  # a copy of exact type
    try:
        text: str = data.decode("utf-8")
    except UnicodeDecodeError as exc:  # keep where CPython stopped
        return _decode_slow(data, errors, bom, allow_overlong_nul, exc.start)
    if type(bom) is str and type(errors) is str:  # (a str subclass's == is never asked)
        if bom == "keep" and errors == "strict" and allow_overlong_nul is False:
            return text
    errors, bom = _check(errors, bom, "decode", allow_overlong_nul)
    return _apply_bom(text, data, bom)


# The public entry point: with the C runner built, a C function that does the fast path
# (CPython's codec for plain bytes and no keywords) without a Python frame, and hands
# everything else, argument errors included, to decode_py.  Same signature, same
# behaviour and messages; tests run both.
decode_py = decode
if speedups is not None:
    speedups.set_decode_fallback(decode_py, machine().table, machine().nclasses, Utf8Error)
    decode = speedups.decode  # type: ignore[assignment]


def _apply_bom(text: str, data: object, bom: str) -> str:
    if bom != "keep" and text[:1] == "\ufeff":  # only EF BB BF decodes to U+FEFF
        if bom == "reject":
            raise BomError()
        return text[1:]
    return text


def _decode_slow(
    data: object, errors: str, bom: str, allow_overlong_nul: bool, good: int | None = None
) -> str:
    """``good``: the offset CPython's codec already accepted up to, when it was asked."""
    raw = _as_bytes(data, "decode")
    errors, bom = _check(errors, bom, "decode", allow_overlong_nul)
    if bom == "reject" and raw.startswith(BOM):
        raise BomError()
    if good is None:
        good = _first_bad(raw)
    m = machine(allow_overlong_nul)
    if errors == "strict":
        spans = _runner.spans(raw, m.table, m.nclasses, good, 1)
        if spans:
            raise Utf8Error("utf-8", raw, spans[0], spans[1], "")
    text = _runner.replace(raw, m.table, m.nclasses, good, None)
    if good:
        text = raw[:good].decode("utf-8") + text
    return _apply_bom(text, raw, bom)


def is_valid(data: bytes | bytearray | memoryview, *, allow_overlong_nul: bool = False) -> bool:
    """True when ``data`` is well-formed UTF-8 (RFC 3629 §4)."""
    if allow_overlong_nul is not False:
        check_flag(allow_overlong_nul, "allow_overlong_nul", "is_valid")
    raw = data if type(data) is bytes else _as_buffer(data, "is_valid")
    good = utf8_valid_prefix(raw)
    if good == len(raw):
        return True
    return not _error_spans(raw, good, 1, allow_overlong_nul)


# As decode: with the C extension, a C function that answers plain bytes (and exact
# bytearray and contiguous memoryview, read in place) the validator accepts without a
# Python frame, and hands every other call to is_valid_py.
is_valid_py = is_valid
if speedups is not None:
    speedups.set_is_valid_fallback(is_valid_py)
    is_valid = speedups.is_valid


# find_errors' rounds: the machine reports this many errors at most before the validator
# is asked to skip what follows; doubled while errors come back to back, so dense errors
# cost one machine call per many of them, sparse ones one validator call each.
_ROUND_MAX = 4096
# ... and reads at most this many bytes a wanted error before the validator takes over
# again: a round that finds fewer errors than it wants (C0 AF or E0 80, two subparts,
# then clean text) never walks the rest of the input byte by byte.
_WINDOW = 4 * VALIDATOR_BLOCK


def _safe_cut(raw: bytes | memoryview, pos: int) -> int:
    """The first offset >= ``pos`` that no maximal subpart straddles: before a byte that
    is no continuation byte, or after three continuation bytes (a subpart of two bytes
    or more starts with a lead byte and is at most four long: RFC 3629 §4); ``len(raw)``
    if none.  Looks at most four bytes on."""
    n = len(raw)
    for i in range(pos, min(pos + 4, n)):
        if not is_tail(raw[i]) or (
            i >= 3 and is_tail(raw[i - 1]) and is_tail(raw[i - 2]) and is_tail(raw[i - 3])
        ):
            return i
    return n


def _error_spans(raw: bytes | memoryview, good: int, limit: int, modified_nul: bool) -> list[int]:
    """The flat spans of the first ``limit`` (< 0: all) errors of ``raw``, which is
    well-formed up to ``good`` (a character boundary): the machine from ``good`` over a
    bounded window, the validator over every valid stretch after an error or window.
    The machine restarts in its initial state after each subpart, and no subpart
    straddles a window's end (``_safe_cut``), so the windows change nothing."""
    m = machine(modified_nul)
    n = len(raw)
    out: list[int] = []
    view = memoryview(raw)
    round_size = 1
    while good < n:
        want = round_size if limit < 0 else min(round_size, limit - len(out) // 2)
        cut = _safe_cut(raw, good + _WINDOW * round_size) if n - good > _WINDOW * round_size else n
        found = _runner.spans(raw if cut == n else view[:cut], m.table, m.nclasses, good, want)
        out += found
        if len(out) // 2 == limit:
            break
        if len(found) // 2 < want:  # the window ended first
            if cut == n:
                break  # ... and so did the input
            end = cut
        else:
            end = found[-1]
        # the validator, when the rest is at least a block long (else the machine goes on)
        skip = utf8_valid_prefix(view[end:]) if n - end >= VALIDATOR_BLOCK else 0
        good = end + skip
        round_size = 1 if skip >= VALIDATOR_BLOCK else min(2 * round_size, _ROUND_MAX)
    return out


def find_errors(
    data: bytes | bytearray | memoryview,
    *,
    limit: int | None = None,
    allow_overlong_nul: bool = False,
) -> list[Utf8Error]:
    """Every ill-formed maximal subpart in order, one per U+FFFD that replace mode inserts.

    ``limit`` stops after that many errors.
    """
    raw = _as_buffer(data, "find_errors")
    if allow_overlong_nul is not False:
        check_flag(allow_overlong_nul, "allow_overlong_nul", "find_errors")
    if limit is not None:
        limit = check_count(limit, "limit", "find_errors", 0)
    if limit == 0:
        return []
    good = utf8_valid_prefix(raw)
    if good == len(raw):
        return []
    spans = _error_spans(raw, good, -1 if limit is None else limit, allow_overlong_nul)
    return _errors(_owned(raw), spans) if spans else []


def count_errors(
    data: bytes | bytearray | memoryview, *, allow_overlong_nul: bool = False
) -> tuple[int, int]:
    """``(len(find_errors(data)), len(group_errors(find_errors(data))))`` without building
    an error: CPython's codec puts one U+FFFD per maximal subpart (Unicode §3.9), less the
    literal EF BF BD of the input, which no subpart overlaps; a group is an error with
    the subparts a lax RFC 2279 reader takes with it (``_joined``).  Linear, in C loops."""
    raw = _as_buffer(data, "count_errors")
    if allow_overlong_nul is not False:
        check_flag(allow_overlong_nul, "allow_overlong_nul", "count_errors")
    good = utf8_valid_prefix(raw)
    if good == len(raw):
        return 0, 0
    rest = bytes(raw[good:]) if good or type(raw) is not bytes else raw
    errors = rest.decode("utf-8", "replace").count("\ufffd") - rest.count(b"\xef\xbf\xbd")
    if allow_overlong_nul:  # C0 80 is U+0000 there, two subparts to CPython's codec
        errors -= 2 * rest.count(b"\xc0\x80")
    runs = _joined(allow_overlong_nul).findall(rest)
    return errors, errors - (sum(map(len, runs)) - len(runs))


_JOINED: dict[bool, re.Pattern[bytes]] = {}  # by modified_nul, compiled on first use


def _joined(modified_nul: bool) -> re.Pattern[bytes]:
    """A lead byte and the continuation bytes after it that ``ErrorGrouper`` joins to its
    group: those a lax RFC 2279 reader takes (``lax_read``: up to ``lax_length`` - 1) that
    no valid sequence continues with (RFC 3629 §4), each a subpart of its own.  Only a
    lead that starts no row (C0 C1 F5..FD) or whose row's second byte has a narrower
    range (E0 ED F0 F4) has any; from the table of ``grammar``.  Each match is a lead and
    its joined bytes: the joined count is the matched length less one a match."""
    if modified_nul in _JOINED:
        return _JOINED[modified_nul]

    def byte_class(values: list[int]) -> str:  # consecutive values as one range
        runs: list[list[int]] = []
        for b in values:
            if runs and runs[-1][1] == b - 1:
                runs[-1][1] = b
            else:
                runs.append([b, b])
        return "[" + "".join(f"\\x{lo:02x}-\\x{hi:02x}" for lo, hi in runs) + "]"

    tail = list(range(TAIL[0], TAIL[1] + 1))
    alternatives = []
    for lead in range(256):
        k = lax_length(lead)
        if k < 2:
            continue
        row = row_for_lead(lead, modified_nul=modified_nul)
        if row is None:
            alternatives.append(f"\\x{lead:02x}{byte_class(tail)}{{1,{k - 1}}}")
        elif row.tails[0] != TAIL:
            lo, hi = row.tails[0]
            second = [b for b in tail if not lo <= b <= hi]
            rest = f"{byte_class(tail)}{{0,{k - 2}}}" if k > 2 else ""
            alternatives.append(f"\\x{lead:02x}{byte_class(second)}{rest}")
    import re  # here: only counting errors needs it (start-up)

    pattern = _JOINED[modified_nul] = re.compile("|".join(alternatives).encode("ascii"))
    return pattern


def _errors(raw: bytes, spans: list[int], base: int = 0, final: bool = True) -> list[Utf8Error]:
    """``Utf8Error``s for flat ``spans`` (offsets into ``raw``, which starts at stream offset
    ``base``), built by ``errors.errors_for_spans`` (``map``, the cyclic GC paused)."""
    errors = errors_for_spans(Utf8Error, "utf-8", raw, spans, base)
    if not final:
        for err in errors:
            err.final = final
    return errors


class ErrorGrouper:
    """Groups errors the way a human reads them, as they arrive: each error with the
    errors that follow it inside the bytes a lax RFC 2279 decoder would have swallowed
    (``C0 AE`` is one overlong '.', ``FC 80 80 80 80 AF`` one overlong '/', though each is
    several maximal subparts).  ``add`` returns a group once a later error cannot join it;
    ``close`` returns the open group when nothing at or after ``position`` can join it
    (``position=None``: the input has ended).  ``group_errors`` is this over a list; the
    CLI uses it on a stream, with ``IncrementalDecoder.position``."""

    def __init__(self) -> None:
        self._open: list[Utf8Error] = []
        self._reach = -1  # errors starting before this offset join the open group

    def add(self, err: Utf8Error) -> tuple[Utf8Error, ...] | None:
        if not isinstance(err, Utf8Error):
            raise TypeError(
                f"ErrorGrouper.add() argument 'err' must be a Utf8Error, not {type_name(err)}"
            )
        start = err.stream_start  # stream offsets: a group may span the decoder's chunks
        if self._open and start < self._reach:
            self._open.append(err)
            self._reach = max(self._reach, err.stream_end)
            return None
        done = tuple(self._open) or None
        self._open = [err]
        self._reach = err.base + err.naive_end
        return done

    def close(self, position: int | None = None) -> tuple[Utf8Error, ...] | None:
        if position is not None:
            check_count(position, "position", "ErrorGrouper.close", 0)
        if not self._open or (position is not None and position < self._reach):
            return None
        done = tuple(self._open)
        self._open = []
        return done


def group_errors(errors: Iterable[Utf8Error]) -> list[tuple[Utf8Error, ...]]:
    """All ``errors`` grouped as ``ErrorGrouper`` does (``C0 AE`` is one group)."""
    try:
        items = list(errors)
    except TypeError:
        raise TypeError(
            "group_errors() argument 'errors' must be an iterable of Utf8Error, "
            f"not {type_name(errors)}"
        ) from None
    for err in items:
        if not isinstance(err, Utf8Error):
            raise TypeError(
                f"group_errors() argument 'errors' must hold only Utf8Error, not {type_name(err)}"
            )
    grouper = ErrorGrouper()
    groups = [group for group in map(grouper.add, items) if group is not None]
    last = grouper.close()
    return groups if last is None else [*groups, last]


def encode(text: str) -> bytes:
    """Encode ``text`` as UTF-8; a lone surrogate raises ``EncodeError`` naming its index."""
    if type(text) is not str:
        text = exact_str(text, "text", "encode")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EncodeError("utf-8", text, exc.start, exc.start + 1, "lone surrogate") from None


class IncrementalDecoder(codecs.IncrementalDecoder):
    """Strict decoding of a stream in chunks, in bounded memory.

    For every way of splitting an input, the text and errors equal one-shot decoding: an
    error's ``stream_start``/``stream_end`` are its offsets in the stream, and, as for
    CPython's errors, ``object[start:end]`` its bytes (``object`` is the decoder's buffer,
    at stream offset ``base``).  A sequence split across chunks is held
    until the next chunk or ``final=True``; at most 5 bytes are ever held (an RFC 2279
    6-byte form less one), so that even ``naive`` readings match one-shot decoding.

    ``decode`` follows the ``codecs`` protocol (strict raises the first error; call
    ``reset()`` before reuse).  ``feed`` never raises for content: it returns the text with
    U+FFFD per error and the errors themselves.
    """

    def __init__(
        self,
        errors: str = "strict",
        *,
        bom: BomMode = "keep",
        allow_overlong_nul: bool = False,
    ) -> None:
        if (
            type(errors) is not str
            or type(bom) is not str
            or errors not in _ERRORS
            or bom not in _BOMS
            or allow_overlong_nul is not False
        ):  # inline: per web body
            errors, bom = _check(errors, bom, "IncrementalDecoder", allow_overlong_nul)
        self.errors = errors  # all that codecs.IncrementalDecoder.__init__ does
        self.bom = bom
        self.allow_overlong_nul = allow_overlong_nul
        self._pending = b""
        self._base = 0  # stream offset of _pending[0]

    @property
    def position(self) -> int:
        """Bytes consumed so far, not counting the ones held back."""
        return self._base

    def decode(self, input: ReadableBuffer, final: bool = False) -> str:
        if final is not False and final is not True:
            check_flag(final, "final", "IncrementalDecoder.decode")
        if type(input) is not bytes:
            input = _as_bytes(input, "IncrementalDecoder.decode", "input")
        if self.errors == "strict":
            text, errs = self.feed(input, final, limit=1)
            if errs:
                raise errs[0]
            return text
        return self.feed(input, final)[0]

    def feed(
        self, chunk: ReadableBuffer, final: bool = False, *, limit: int | None = None
    ) -> tuple[str, list[Utf8Error]]:
        """Decode ``chunk``; return its text (U+FFFD per error) and its errors.

        ``limit`` stops at that many errors, as ``find_errors(limit=)`` does: they are the
        first ``limit`` errors of one-shot decoding, the text ends with the last of them,
        and the rest of the chunk is skipped (``position`` still counts it), since a reader
        that limits errors stops reading at them.
        """
        if limit is not None:
            limit = check_count(limit, "limit", "IncrementalDecoder.feed", 1)
        if final is not False and final is not True:
            check_flag(final, "final", "IncrementalDecoder.feed")
        raw = (
            chunk if type(chunk) is bytes else _as_bytes(chunk, "IncrementalDecoder.feed", "chunk")
        )
        buf = self._pending + raw if self._pending else raw
        n = len(buf)
        if not n:  # e.g. the final call after a stream that ended cleanly
            return "", []
        base = self._base
        good = None
        # The common case in one decode: nothing can be held back (input ends, or its last
        # byte is ASCII, which ends every sequence: RFC 3629 §3) and no BOM rule applies.
        if (final or buf[-1] < 0x80) and (base or self.bom == "keep"):
            try:
                text = buf.decode("utf-8")
            except UnicodeDecodeError as exc:
                good = exc.start
            else:
                self._pending = b""
                self._base = base + n
                return text, []
        return self._feed_rest(buf, base, final, limit, good)

    def find_errors(
        self, chunk: ReadableBuffer, final: bool = False, *, limit: int | None = None
    ) -> list[Utf8Error]:
        """``feed(chunk, final, limit=limit)[1]`` without building the text: the errors,
        with the same offsets, held-back bytes and ``position`` afterwards.  For readers
        that need only a verdict (``sanitizer check``): valid stretches cost a pass of the
        SIMD validator instead of a decode.  A ``bom="reject"`` decoder raises
        ``BomError`` as ``feed`` does."""
        if limit is not None:
            limit = check_count(limit, "limit", "IncrementalDecoder.find_errors", 1)
        base = self._base
        buf, good, cut = self._validated(chunk, final, "IncrementalDecoder.find_errors")
        if good >= cut:
            return []
        head = buf if cut == len(buf) else buf[:cut]
        spans = _error_spans(head, good, -1 if limit is None else limit, self.allow_overlong_nul)
        return _errors(_owned(buf), spans, base, final) if spans else []

    def count_errors(self, chunk: ReadableBuffer, final: bool = False) -> tuple[int, int]:
        """``find_errors(chunk, final)`` counted, not built: ``(errors, groups)``, the
        number of errors and of the groups ``ErrorGrouper`` makes of them, with the same
        held-back bytes and ``position`` afterwards.  In C loops (a decode, a count and a
        search), for readers that list some errors and only count the rest: memory and
        Python work do not grow with the errors (``sanitizer check --limit``).  The
        groups of consecutive calls add up to those of one-shot decoding: a lead whose
        lax sequence a chunk ends inside of is held back, so no group straddles a cut."""
        buf, good, cut = self._validated(chunk, final, "IncrementalDecoder.count_errors")
        if good >= cut:
            return 0, 0
        return count_errors(buf[good:cut], allow_overlong_nul=self.allow_overlong_nul)

    def _validated(
        self, chunk: ReadableBuffer, final: object, where: str
    ) -> tuple[bytes | memoryview, int, int]:
        """``find_errors``' and ``count_errors``' common step: the held-back bytes and
        ``chunk`` as one buffer (``chunk`` itself, not a copy, when nothing is held
        back), its valid prefix (one pass of the SIMD validator) and where ``feed``
        would cut it (a sequence open at the end is held back: RFC 3629 §3, an ASCII
        byte ends every sequence); the state moves past the cut.  Only the buffer's
        [good:cut] may hold errors."""
        if final is not False and final is not True:
            check_flag(final, "final", where)
        raw = chunk if type(chunk) is bytes else _as_buffer(chunk, where, "chunk")
        buf = self._pending + raw if self._pending else raw
        n = len(buf)
        if not n:
            return buf, 0, 0
        base = self._base
        good = utf8_valid_prefix(buf)
        cut = n if final or good == n or buf[-1] < 0x80 else _hold_point(buf)
        if base == 0 and self.bom == "reject" and buf[:3] == BOM:
            raise BomError()
        self._pending = bytes(buf[cut:])
        self._base = base + cut
        return buf, good, cut

    def _feed_rest(
        self, buf: bytes, base: int, final: bool, limit: int | None, good: int | None
    ) -> tuple[str, list[Utf8Error]]:
        """``feed`` when a sequence may be held back, a BOM rule applies, or ``buf`` is
        ill-formed from ``good`` on (CPython's codec was asked already when ``good`` is
        given: then nothing is held back)."""
        n = len(buf)
        cut = n if good is not None or final or buf[-1] < 0x80 else _hold_point(buf)
        if base == 0 and self.bom == "reject" and buf.startswith(BOM):
            raise BomError()
        head = buf if cut == n else buf[:cut]
        errs: list[Utf8Error] = []
        if good is None:
            text, good = _accepted(head)  # one decode: its text is the answer when valid
        else:
            text = None
        if text is None:
            m = machine(self.allow_overlong_nul)
            spans: list[int] = []
            if limit is not None:
                spans = _runner.spans(head, m.table, m.nclasses, good, limit)
            if len(spans) // 2 == limit:  # stopped at the limit-th error: text up to its end
                rest = _runner.replace(head[: spans[-1]], m.table, m.nclasses, good, None)
            else:  # every error (fewer than limit; none at all when C0 80 was allowed)
                spans = []
                rest = _runner.replace(head, m.table, m.nclasses, good, spans)
            text = head[:good].decode("utf-8") + rest
            errs = _errors(buf, spans, base, final)
        if base == 0 and self.bom == "strip" and buf.startswith(BOM) and cut >= 3:
            text = text[1:]
        self._pending = buf[cut:]
        self._base = base + cut
        return text, errs

    def reset(self) -> None:
        self._pending = b""
        self._base = 0

    def getstate(self) -> tuple[bytes, int]:
        return self._pending, self._base

    def setstate(self, state: tuple[bytes, int]) -> None:
        """Restore a ``getstate()``: (held bytes, at most 5; their stream offset, >= 0)."""
        if (
            type(state) is not tuple
            or len(state) != 2
            or type(state[0]) is not bytes
            or len(state[0]) > 5
            or type(state[1]) is not int
        ):
            raise TypeError(
                "IncrementalDecoder.setstate() argument 'state' must be a (bytes, int) tuple "
                f"from getstate(), not {type_name(state)}"
            )
        if state[1] < 0:
            raise ValueError("IncrementalDecoder.setstate() state offset must be >= 0")
        self._pending, self._base = state


def _hold_point(buf: bytes | memoryview) -> int:
    """Where the held-back tail starts: the last lead whose lax sequence (RFC 2279 §2) the
    buffer ends inside of, or len(buf).  Cutting before a non-continuation byte never
    splits a maximal subpart, so spans match one-shot decoding."""
    n = len(buf)
    for p in range(n - 1, max(n - 6, -1), -1):
        if is_tail(buf[p]):
            continue
        return p if lax_length(buf[p]) > n - p else n
    return n
