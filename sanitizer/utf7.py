"""UTF-7 (RFC 2152) read strictly, with what a lax decoder would read made visible.

UTF-7 spells any character in base64 after a '+', so ASCII can hide there: ``+ADw-``
is '<' and ``+AC8ALgAuAC8-`` is '/../', invisible to a filter that looks for the
characters themselves (Secure Programming HOWTO §5.9.5).  CPython's 'utf-7' codec, even
in strict mode, returns that hidden ASCII, returns lone surrogates (``+2D0-`` is
'\\ud83d') and drops a trailing '+'.  ``inspect`` walks the bytes exactly as that codec
does (its text, in 'replace' mode, is this module's *lax reading*) and lists everything
wrong on the way; ``decode`` is the strict reading, which refuses all of it.

Pure and I/O-free (core layer).  Cost is linear in the input; the errors found are at
most one per input byte.
"""

from __future__ import annotations

import binascii
import enum
import re
from dataclasses import dataclass, field
from typing import Any

from ._arguments import check_int, exact_bytes
from ._errors import gc_paused

__all__ = [
    "DIRECT",
    "Utf7Error",
    "Utf7ErrorKind",
    "Utf7Report",
    "decode",
    "find_errors",
    "inspect",
    "is_valid",
    "spelling",
]

# RFC 2152 Rule 2: the modified base64 alphabet (RFC 2045 without '=').
_B64_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_VALUE: dict[int, int] = {byte: value for value, byte in enumerate(_B64_ALPHABET)}

# Characters RFC 2152 writes as themselves: Set D and Set O (Rule 1), and space, tab, CR,
# LF (Rule 3).  The same set CPython's encoder writes directly.  One of these found
# inside base64 is the smuggling form.
_SET_D = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'(),-./:?"
_SET_O = '!"#$%&*;<=>@[]^_`{|}'
DIRECT: frozenset[str] = frozenset(_SET_D + _SET_O + " \t\r\n")

_PLUS, _MINUS = 0x2B, 0x2D
_DIRECT_RUN = re.compile(rb"[\x00-\x2a\x2c-\x7f]+")  # ASCII but '+'


class Utf7ErrorKind(enum.Enum):
    """What is wrong with a stretch of UTF-7 bytes."""

    ENCODED_DIRECT = "encoded-direct"  # base64 hides ASCII written directly (Rules 1, 3)
    LONE_SURROGATE = "lone-surrogate"  # an unpaired UTF-16 unit (RFC 2152 Rule 2, RFC 2781 §2.2)
    PARTIAL_UNIT = "partial-unit"  # a run ends >= 6 bits into a 16-bit unit
    NONZERO_PADDING = "nonzero-padding"  # the discarded bits at the end of a run are not 0
    ILL_FORMED_SHIFT = "ill-formed-shift"  # '+' followed by neither base64 nor '-'
    TRAILING_PLUS = "trailing-plus"  # '+' at the end of the input
    NON_ASCII = "non-ascii"  # byte 80..FF: UTF-7 is a 7-bit encoding

    @property
    def description(self) -> str:
        return _DESCRIPTIONS[self]


_K = Utf7ErrorKind
_DESCRIPTIONS = {
    _K.ENCODED_DIRECT: "base64-encoded ASCII that UTF-7 writes directly: hides it from filters",
    _K.LONE_SURROGATE: "UTF-16 surrogate without its pair",
    _K.PARTIAL_UNIT: "base64 run that ends inside a 16-bit unit",
    _K.NONZERO_PADDING: "base64 run whose leftover padding bits are not zero",
    _K.ILL_FORMED_SHIFT: "'+' followed by a character that is neither base64 nor '-'",
    _K.TRAILING_PLUS: "'+' at the end of the input, which CPython drops",
    _K.NON_ASCII: "byte 80..FF, which never appears in UTF-7",
}


class Utf7Error(UnicodeDecodeError):
    """One thing wrong in UTF-7 input; a ``UnicodeDecodeError`` and so a ``ValueError``.

    ``start``/``end`` are byte offsets; where CPython's codec refuses the same bytes
    (``cpython_reason`` is not None) they are CPython's span and reason.  ``read`` is
    what the lax reading (CPython's codec) took from these bytes: '<script>' for hidden
    ASCII, '\\ud83d' for a lone surrogate; empty where it read nothing or replaced them.
    """

    __module__ = "sanitizer"  # its public home, as tracebacks and pickles name it

    kind: Utf7ErrorKind
    read: str = ""
    cpython_reason: str | None = None
    _run_start: int = -1  # the '+' of the run holding these bytes (ENCODED_DIRECT only)

    @classmethod
    def _make(
        cls,
        data: bytes,
        start: int,
        end: int,
        kind: Utf7ErrorKind,
        reason: str,
        read: str = "",
        cpython_reason: str | None = None,
    ) -> Utf7Error:
        err = cls("utf-7", data, start, end, reason)
        err.kind = kind
        if read:
            err.read = read
        if cpython_reason is not None:
            err.cpython_reason = cpython_reason
        return err

    @property
    def sequence(self) -> bytes:
        obj: bytes = self.object
        return obj[self.start : self.end]

    def __str__(self) -> str:
        shown = _log_safe_bytes(self.sequence, 40)
        return f"invalid UTF-7 at byte {self.start} ({shown}): {self.reason}"

    def __repr__(self) -> str:
        return (
            f"Utf7Error(start={self.start}, end={self.end}, kind={self.kind.name}, "
            f"bytes={_log_safe_bytes(self.sequence, 40)!r}, read={self.read!r})"
        )

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary, the same keys as ``Utf8Error.as_dict`` where they apply."""
        return {
            "start": self.start,
            "end": self.end,
            "bytes": _log_safe_bytes(self.sequence, 64),
            "kind": self.kind.value,
            "read": _log_safe(self.read, 64),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Utf7Report:
    """What ``inspect`` found: the lax reading, every error, and CPython's own answer.

    ``text`` is the lax reading: what CPython's 'utf-7' codec returns with
    ``errors="replace"`` (so, where CPython accepts, exactly its strict result).
    ``cpython`` is ``data.decode("utf-7")``, or None when it raises ``cpython_error``.
    """

    data: bytes
    text: str
    # Not compared: exceptions are equal only to themselves, and both follow from
    # ``data`` (a copy, or a report from another process, equals the original).
    errors: tuple[Utf7Error, ...] = field(compare=False)
    cpython: str | None
    cpython_error: UnicodeDecodeError | None = field(compare=False)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def smuggled(self) -> tuple[Utf7Error, ...]:
        """The ENCODED_DIRECT errors: ASCII that base64 hid."""
        return tuple(e for e in self.errors if e.kind is Utf7ErrorKind.ENCODED_DIRECT)


# -- the walk ------------------------------------------------------------------------------


def _unit_span(b64_start: int, index: int) -> tuple[int, int]:
    """Bytes holding 16-bit unit ``index`` of a base64 run starting at ``b64_start``."""
    return b64_start + (16 * index) // 6, b64_start + (16 * index + 21) // 6


def _walk(data: bytes) -> tuple[str, list[Utf7Error]]:
    """``_walk_all`` with the cyclic GC paused while it creates many exceptions (they are
    GC-tracked: collections on the way would traverse all the earlier ones)."""
    with gc_paused(len(data) > 4096):
        return _walk_all(data)


def _walk_all(data: bytes) -> tuple[str, list[Utf7Error]]:
    """The lax reading and every error, in order of ``start``.

    Mirrors CPython's decoder (``PyUnicode_DecodeUTF7Stateful``) step by step, so the
    text and the errors CPython would raise come out the same, and adds what CPython lets
    through (encoded direct characters, lone surrogates, a trailing '+').
    """
    out: list[str] = []
    errors: list[Utf7Error] = []
    n = len(data)
    i = 0
    in_shift = False
    shift_start = b64_start = 0
    bits = buf = units = 0
    high = 0  # a pending high surrogate, and the bytes that held it
    high_span = (0, 0)
    hidden_from = -1  # unit index where the current run of encoded direct characters began
    hidden: list[str] = []

    def flush_hidden(run_end: int | None) -> None:
        # One error per stretch of consecutive encoded direct characters; a stretch that
        # starts the run takes the '+', one that ends it takes the run's end.
        nonlocal hidden_from
        if not hidden:
            return
        start = shift_start if hidden_from == 0 else _unit_span(b64_start, hidden_from)[0]
        last = hidden_from + len(hidden) - 1
        end = run_end if run_end is not None else _unit_span(b64_start, last)[1]
        text = "".join(hidden)
        reason = (
            f"'{_log_safe(text, 40)}' hidden in base64; RFC 2152 writes "
            f"{'it' if len(text) == 1 else 'them'} directly (Rules 1, 3)"
        )
        err = Utf7Error._make(data, start, end, _K.ENCODED_DIRECT, reason, text)
        err._run_start = shift_start
        errors.append(err)
        hidden.clear()
        hidden_from = -1

    def lone(unit: int, span: tuple[int, int]) -> None:
        which = "high" if unit < 0xDC00 else "low"
        reason = f"lone {which} surrogate U+{unit:04X} in base64 (RFC 2152 Rule 2, RFC 2781 §2.2)"
        errors.append(Utf7Error._make(data, span[0], span[1], _K.LONE_SURROGATE, reason, chr(unit)))

    def fail(
        start: int, end: int, kind: Utf7ErrorKind, reason: str, cpython: str, read: str = ""
    ) -> None:
        out.append("\ufffd")  # CPython's 'replace'; ``read`` is what the bytes held
        errors.append(Utf7Error._make(data, start, end, kind, reason, read, cpython))

    while i < n:
        ch = data[i]
        if in_shift:
            value = _B64_VALUE.get(ch)
            if value is not None:
                buf = (buf << 6) | value
                bits += 6
                i += 1
                if bits < 16:
                    continue
                unit = (buf >> (bits - 16)) & 0xFFFF
                bits -= 16
                buf &= (1 << bits) - 1
                span = _unit_span(b64_start, units)
                units += 1
                if high:
                    if 0xDC00 <= unit <= 0xDFFF:
                        out.append(chr(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00)))
                        high = 0
                        continue
                    out.append(chr(high))
                    lone(high, high_span)
                    high = 0
                if 0xD800 <= unit <= 0xDBFF:
                    flush_hidden(None)
                    high, high_span = unit, span
                    continue
                out.append(chr(unit))
                if chr(unit) in DIRECT:
                    if not hidden:
                        hidden_from = units - 1
                    hidden.append(chr(unit))
                    continue
                flush_hidden(None)
                if 0xDC00 <= unit <= 0xDFFF:
                    lone(unit, span)
                continue
            # leaving the base64 run (RFC 2152 Rule 2): the terminator decides the rest
            in_shift = False
            if bits >= 6 or (bits and buf):
                i += 1  # CPython's error takes the terminator too
                flush_hidden(None)
                if bits >= 6:
                    reason = (
                        f"base64 run {_log_safe_bytes(data[shift_start:i], 40)} ends {bits} "
                        "bits into a 16-bit unit (RFC 2152 Rule 2)"
                    )
                    fail(shift_start, i, _K.PARTIAL_UNIT, reason, _PARTIAL)
                else:
                    reason = (
                        f"base64 run {_log_safe_bytes(data[shift_start:i], 40)} ends with "
                        f"non-zero padding bits {buf:0{bits}b} (RFC 2152 Rule 2)"
                    )
                    fail(shift_start, i, _K.NONZERO_PADDING, reason, _PADDING)
                high = 0
                continue
            if high:
                if ch < 0x80:  # CPython writes it; before a non-ASCII byte it drops it
                    out.append(chr(high))
                lone(high, high_span)
                high = 0
            if ch == _MINUS:
                i += 1  # absorbed (RFC 2152 Rule 2)
            flush_hidden(i)
        elif ch == _PLUS:
            shift_start = i
            i += 1
            if i < n and data[i] == _MINUS:
                i += 1
                out.append("+")  # "+-" is '+' (RFC 2152 Rule 2)
            elif i < n and data[i] not in _B64_VALUE:
                i += 1
                reason = f"'+' followed by {_byte_label(data[i - 1])}, neither base64 nor '-'"
                fail(shift_start, i, _K.ILL_FORMED_SHIFT, reason, "ill-formed sequence")
            else:
                in_shift = True
                b64_start = i
                bits = buf = units = high = 0
        elif ch < 0x80:  # direct characters, up to the next '+' or non-ASCII byte
            end = _DIRECT_RUN.match(data, i).end()  # type: ignore[union-attr]
            out.append(data[i:end].decode("ascii"))
            i = end
        else:  # CPython: one error, and one U+FFFD, per byte
            fail(i, i + 1, _K.NON_ASCII, _NON_ASCII_REASONS[ch - 0x80], _SPECIAL)
            i += 1
    if in_shift:  # the input ends inside a base64 run
        if b64_start == n:
            reason = "'+' at the end of the input starts no base64 run (CPython drops it)"
            errors.append(Utf7Error._make(data, n - 1, n, _K.TRAILING_PLUS, reason))
        elif high or bits >= 6 or (bits and buf):
            flush_hidden(None)
            shown = _log_safe_bytes(data[shift_start:n], 40)
            read = ""
            if bits >= 6:
                kind = _K.PARTIAL_UNIT
                reason = f"base64 run {shown} ends {bits} bits into a 16-bit unit at end of input"
            elif bits and buf:
                kind = _K.NONZERO_PADDING
                reason = f"base64 run {shown} ends with non-zero padding bits at end of input"
            else:
                kind, read = _K.LONE_SURROGATE, chr(high)
                reason = f"lone high surrogate U+{high:04X} at the end of the input"
            fail(shift_start, n, kind, reason, "unterminated shift sequence", read)
        else:
            flush_hidden(n)
    errors.sort(key=lambda e: e.start)
    return "".join(out), errors


_PARTIAL = "partial character in shift sequence"
_SPECIAL = "unexpected special character"
_NON_ASCII_REASONS = tuple(
    f"byte 0x{b:02X} is not 7-bit; UTF-7 uses ASCII only (RFC 2152 §1)" for b in range(0x80, 0x100)
)
_PADDING = "non-zero padding bits in shift sequence"


def _byte_label(byte: int) -> str:
    return repr(chr(byte)) if 0x20 <= byte < 0x7F else f"byte 0x{byte:02X}"


# -- log-safe text -------------------------------------------------------------------------


def _log_safe(text: str, limit: int) -> str:
    """``text`` with every character but printable ASCII escaped (and '\\' doubled), cut
    to at most ``limit`` characters of input (marked with '...')."""
    cut = text[:limit]
    shown = "".join(
        c if " " <= c <= "~" and c != "\\" else ascii(c)[1:-1] if c != "\\" else "\\\\" for c in cut
    )
    return shown + ("..." if len(text) > limit else "")


def _log_safe_bytes(data: bytes, limit: int) -> str:
    return _log_safe(data.decode("latin-1"), limit)


# -- the fast path -------------------------------------------------------------------------

_RUN = re.compile(rb"\+([A-Za-z0-9+/]*)")  # '+' and the base64 after it (RFC 2152 Rule 2)


def _clean_text(raw: bytes) -> str | None:
    """The strict reading of ``raw`` when proving it has no error is quick, else None.

    Each base64 run is checked with C helpers (``binascii``, the UTF-16 codec) instead
    of bit by bit: whole units, zero padding bits, no surrogate left alone, no direct
    character hidden.  Then CPython's codec reads the text, which ``_walk`` would give too.
    """
    if not raw.isascii():
        return None
    units_of_runs = []
    for match in _RUN.finditer(raw):
        run = match.group(1)
        if not run:
            if raw[match.end() : match.end() + 1] == b"-":
                continue  # "+-" is '+'
            return None  # a trailing '+' or '+' before neither base64 nor '-'
        units, left = divmod(6 * len(run), 16)
        if left >= 6 or _B64_VALUE[run[-1]] & ((1 << left) - 1):
            return None  # a partial unit or non-zero padding bits
        units_of_runs.append(binascii.a2b_base64(run + b"=" * (-len(run) % 4))[: 2 * units])
    if units_of_runs:
        # One decode for all runs, each followed by '+' (neither direct nor a surrogate),
        # so that a pair split across two runs is two lone surrogates, as in ``_walk``.
        try:
            hidden = b"\x00+".join(units_of_runs).decode("utf-16-be")
        except UnicodeDecodeError:
            return None  # a lone surrogate
        if not DIRECT.isdisjoint(hidden):
            return None  # the smuggling form
    return raw.decode("utf-7")


# -- the public functions ------------------------------------------------------------------


def inspect(data: bytes | bytearray | memoryview) -> Utf7Report:
    """What a UTF-7 decoder reads from ``data`` and everything wrong on the way."""
    raw = exact_bytes(data, "data", "utf7.inspect")
    text, errors = _walk(raw)
    try:
        cpython: str | None = raw.decode("utf-7")
        cpython_error = None
    except UnicodeDecodeError as exc:
        cpython, cpython_error = None, exc
    return Utf7Report(raw, text, tuple(errors), cpython, cpython_error)


def find_errors(data: bytes | bytearray | memoryview) -> list[Utf7Error]:
    """Every error in ``data``, in order of ``start``."""
    raw = exact_bytes(data, "data", "utf7.find_errors")
    return [] if _clean_text(raw) is not None else _walk(raw)[1]


def is_valid(data: bytes | bytearray | memoryview) -> bool:
    """Whether ``decode`` accepts ``data``."""
    raw = exact_bytes(data, "data", "utf7.is_valid")
    return _clean_text(raw) is not None or not _walk(raw)[1]


def decode(data: bytes | bytearray | memoryview) -> str:
    """``data`` read as RFC 2152 UTF-7, strictly: raises the first ``Utf7Error``.

    Refuses, beyond what CPython's codec refuses: base64 that hides a character UTF-7
    writes directly (``+ADw-`` for '<'), lone surrogates, and a trailing '+'.  What it
    accepts, CPython's codec decodes to the same text.
    """
    raw = exact_bytes(data, "data", "utf7.decode")
    clean = _clean_text(raw)
    if clean is not None:
        return clean
    text, errors = _walk(raw)
    if errors:
        raise errors[0]
    return text


def spelling(data: bytes | bytearray | memoryview, limit: int = 64) -> str | None:
    """What ``data``'s hidden ASCII spells, for a log: ``'<script>' encoded as
    +ADw-script+AD4-``; None when no base64 run hides a direct character.

    The window runs from the first to the last such run, cut to ``limit`` bytes; both
    sides have controls and non-ASCII escaped, so the line cannot forge log records.
    """
    raw = exact_bytes(data, "data", "utf7.spelling")
    limit = check_int(limit, "limit", "utf7.spelling")
    if limit < 1:
        raise ValueError(f"utf7.spelling() argument 'limit' must be >= 1, not {limit}")
    if _PLUS not in raw:
        return None
    hidden = [e for e in _walk(raw)[1] if e.kind is Utf7ErrorKind.ENCODED_DIRECT]
    if not hidden:
        return None
    start, end = hidden[0]._run_start, hidden[-1].end
    window = raw[start : min(end, start + limit)]
    read = _walk(window)[0]
    cut = "..." if end - start > limit else ""
    return f"'{_log_safe(read, 4 * limit)}{cut}' encoded as {_log_safe_bytes(window, limit)}{cut}"
