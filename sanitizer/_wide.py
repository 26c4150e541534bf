"""UTF-16 and UTF-32: what both share.

``sanitizer.utf16`` and ``sanitizer.utf32`` walk their code units; this module holds what
is the same for both: the error kinds and the error class (a ``UnicodeDecodeError`` with
CPython's ``start``/``end``, plus ``kind`` and a ``reason`` for a log, computed lazily from
the bytes), byte order mark detection (``"bom"`` never guesses: no BOM and no
``default_endian`` is a ``ByteOrderError``), and the entry points built on one walk
(``WideCodec``: ``decode``, ``is_valid``, ``find_errors``; ``WideIncrementalDecoder``),
which each encoding's module binds to its codec.  The codecs by encoding name
(``"utf-16le"``, ``"UTF-32"``) are ``sanitizer._wide_codecs``'s.
"""

from __future__ import annotations

import codecs
import enum
import re
from collections.abc import Callable, Iterator
from itertools import compress, islice
from typing import Any, Generic, Literal, TypeVar

from ._arguments import check_choice, check_count, check_flag, exact_bytes, type_name
from ._charnames import describe
from ._errors import errors_for_spans

Errors = Literal["strict", "replace"]
ByteOrder = Literal["le", "be", "bom"]
Endian = Literal["le", "be"]
_ERRORS: tuple[Errors, ...] = ("strict", "replace")
_ORDERS: tuple[ByteOrder, ...] = ("le", "be", "bom")
_ENDIANS: tuple[Endian, ...] = ("le", "be")


__all__ = [
    "ByteOrderError",
    "UnitErrorKind",
    "WideCodec",
    "WideError",
    "WideIncrementalDecoder",
    "describe_unit",
    "flagged",
]


class UnitErrorKind(enum.Enum):
    """What an ill-formed UTF-16 or UTF-32 code unit (or pair) is."""

    LONE_HIGH_SURROGATE = "lone-high-surrogate"  # D800..DBFF not followed by DC00..DFFF
    LONE_LOW_SURROGATE = "lone-low-surrogate"  # DC00..DFFF with no high before it
    TRUNCATED_UNIT = "truncated-unit"  # input length not a multiple of the unit size
    TRUNCATED_PAIR = "truncated-pair"  # high surrogate, then the end of the input
    OUT_OF_RANGE = "out-of-range"  # UTF-32 value beyond U+10FFFF
    SURROGATE_CODE_POINT = "surrogate-code-point"  # UTF-32 value in D800..DFFF

    @property
    def description(self) -> str:
        return _DESCRIPTIONS[self]


_DESCRIPTIONS = {
    UnitErrorKind.LONE_HIGH_SURROGATE: "high surrogate not followed by a low surrogate",
    UnitErrorKind.LONE_LOW_SURROGATE: "low surrogate with no high surrogate before it",
    UnitErrorKind.TRUNCATED_UNIT: "input ends inside a code unit",
    UnitErrorKind.TRUNCATED_PAIR: "input ends after a high surrogate",
    UnitErrorKind.OUT_OF_RANGE: "UTF-32 value beyond U+10FFFF",
    UnitErrorKind.SURROGATE_CODE_POINT: "UTF-32 value is a surrogate code point",
}


class WideError(UnicodeDecodeError):
    """One ill-formed code unit (or a high surrogate cut off by the end of input).

    Built as CPython builds its errors: ``Utf16Error("utf-16-le", data, start, end, "")``;
    ``encoding`` is the concrete form ("utf-16-le", "utf-32-be"), also after BOM
    detection, as CPython's own ``utf-16`` codec reports it.  ``object[start:end]`` is
    always the bad bytes; an error from an incremental decoder holds in ``object`` only
    the buffer that starts at stream offset ``base``, and ``stream_start``/``stream_end``
    (what ``str()`` and ``as_dict()`` give) are the offsets in the whole stream.
    """

    unit: int = 2  # bytes per code unit
    base: int = 0  # stream offset of object[0]

    @property
    def big_endian(self) -> bool:
        return str(self.encoding).endswith("be")

    @property
    def stream_start(self) -> int:
        """Offset of the first bad byte in the whole stream (``base + start``)."""
        return self.base + self.start

    @property
    def stream_end(self) -> int:
        """Offset after the last bad byte in the whole stream (``base + end``)."""
        return self.base + self.end

    @property
    def sequence(self) -> bytes:
        obj: bytes = self.object
        return obj[self.start : self.end]

    @property
    def hex(self) -> str:
        return self.sequence.hex(" ").upper()

    def _value(self, rel: int) -> int | None:
        """The code unit at ``rel`` in ``object``, or None past its end."""
        obj: bytes = self.object
        if rel < 0 or rel + self.unit > len(obj):
            return None
        return int.from_bytes(obj[rel : rel + self.unit], "big" if self.big_endian else "little")

    @property
    def kind(self) -> UnitErrorKind:
        raise NotImplementedError  # each encoding's subclass

    @property
    def reason(self) -> str:
        return self.__dict__.get("_reason") or self._explain()

    @reason.setter
    def reason(self, value: str) -> None:
        self.__dict__["_reason"] = value

    def _explain(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        name = str(self.encoding).upper()
        return f"invalid {name} at byte {self.stream_start} ({self.hex}): {self.reason}"

    def __repr__(self) -> str:
        at = f"base={self.base}, " if self.base else ""
        return (
            f"{type(self).__name__}({at}start={self.start}, end={self.end}, "
            f"kind={self.kind.name}, bytes={self.hex!r})"
        )

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (the shape of ``Utf8Error.as_dict``, without ``naive``)."""
        return {
            "start": self.stream_start,
            "end": self.stream_end,
            "bytes": self.hex,
            "kind": self.kind.value,
            "reason": self.reason,
        }


# The error class of one encoding (``Utf16Error``, ``Utf32Error``).
E = TypeVar("E", bound=WideError, covariant=True)


class ByteOrderError(UnicodeDecodeError):
    """``byte_order="bom"`` and the input starts with no byte order mark, and no
    ``default_endian`` was given: the byte order is not guessed (CPython's ``utf-16``
    codec silently picks little-endian)."""

    __module__ = "sanitizer"  # its public home, as tracebacks and pickles name it

    def __init__(self, encoding: str, data: bytes) -> None:
        head = bytes(data[:4])
        super().__init__(encoding, head, 0, min(len(head), 2), "")
        self.reason = (
            f"{encoding.upper()} input starts with no byte order mark "
            f"({head.hex(' ').upper() or 'empty'}); name the byte order "
            f"({encoding}le / {encoding}be) or pass default_endian='le' or 'be'"
        )

    def __str__(self) -> str:
        return str(self.reason)

    def __reduce__(self) -> tuple[Any, ...]:
        # UnicodeDecodeError's would call ByteOrderError with its five arguments.
        return type(self), (self.encoding, self.object), self.__dict__


_FLAG = re.compile(b"\x01")
_PROBE = 1 << 12  # bytes a long input's strict decode reads alone first (``_refused_at``)


def flagged(flags: bytes, first: int, step: int, limit: int) -> list[int]:
    """``first + step * i`` for each ``flags[i] == 1`` (flags are 0 or 1), the first
    ``limit`` of them (-1: all).  Dense flags are picked by ``compress`` over a range
    (C speed per unit), sparse ones by a regex search (C speed between them)."""
    if flags.count(1) * 8 > len(flags):
        found: Iterator[int] = compress(range(first, first + step * len(flags), step), flags)
    else:
        found = (first + step * m.start() for m in _FLAG.finditer(flags))
    return list(found if limit < 0 else islice(found, limit))


# walk(data, big_endian, pos, limit) -> flat [start, end, ...] of the errors in
# data[pos:] (pos on a unit boundary; the input ends where data ends); limit -1: all.
Walk = Callable[[bytes, bool, int, int], "list[int]"]


class WideCodec(Generic[E]):
    """The entry points of one encoding family, over its ``walk`` and its error class:
    ``sanitizer.utf16`` and ``sanitizer.utf32`` export its bound ``decode``,
    ``is_valid`` and ``find_errors``, and their ``IncrementalDecoder`` names it.

    Valid input costs one call of CPython's strict codec, which accepts exactly the
    well-formed code unit sequences (tests compare every short input and random ones);
    only input it refuses is walked, from the offset where it stopped.
    """

    # the encoding's IncrementalDecoder (a WideIncrementalDecoder naming this codec)
    decoder_class: type[WideIncrementalDecoder[E]]

    def __init__(
        self, family: str, unit: int, boms: tuple[bytes, bytes], walk: Walk, error: type[E]
    ) -> None:
        self.family = family  # "utf-16" or "utf-32"
        self.unit = unit
        self.boms = boms  # (little-endian BOM, big-endian BOM)
        self.walk = walk
        self.error = error
        # CPython's stateful decoders (data, errors, final) -> (text, consumed), by order
        stem = family.replace("-", "_")
        self._partial = {
            big: getattr(codecs, f"{stem}_{'be' if big else 'le'}_decode") for big in (False, True)
        }

    # -- byte order ---------------------------------------------------------------------

    def resolve(
        self, data: bytes, byte_order: object, default_endian: object, where: str
    ) -> tuple[bool, int]:
        """(big-endian?, bytes of BOM to skip) for ``data``; ByteOrderError when unknown."""
        byte_order = check_choice(byte_order, _ORDERS, "byte_order", where)
        if default_endian is not None:
            default_endian = check_choice(default_endian, _ENDIANS, "default_endian", where)
        if byte_order != "bom":
            return byte_order == "be", 0
        little, big = self.boms
        if data.startswith(little):
            return False, len(little)
        if data.startswith(big):
            return True, len(big)
        if default_endian is None:
            if not data:
                return False, 0  # nothing to decode, nothing guessed
            raise ByteOrderError(self.family, data)
        return default_endian == "be", 0

    def name(self, big: bool) -> str:
        return f"{self.family}-{'be' if big else 'le'}"

    def spans(self, raw: bytes, big: bool, pos: int, limit: int) -> list[int]:
        """``walk`` from ``pos``; with a ``limit``, over growing windows, so the first
        error of a long input costs what its neighbourhood costs.  ``pos`` must follow
        well-formed units (CPython accepted everything before it).  A unit's verdict
        depends on itself and its neighbours only (a surrogate pairs with the unit next to
        it), so errors starting two units before a window's end are final."""
        n = len(raw)
        size = 1 << 6  # CPython stopped at pos: the first error is usually there
        while limit >= 0 and pos + size < n:
            spans = self.walk(raw[pos : pos + size], big, 0, limit)
            safe = [x + pos for x in spans]
            while safe and safe[-2] >= pos + size - 2 * self.unit:
                del safe[-2:]
            if len(safe) // 2 >= limit:
                return safe[: 2 * limit]
            size *= 4
        return self.walk(raw, big, pos, limit)

    # -- one-shot -----------------------------------------------------------------------

    def _refused_at(self, data: bytes, big: bool, skip: int) -> tuple[str | None, int]:
        """CPython's text for data[skip:] if it accepts it all, else None and the unit
        boundary where it stopped (the only thing taken from its refusal)."""
        name = self.name(big)
        if len(data) - skip > 16 * _PROBE:
            # CPython's codec sizes its output for the whole input before it reads a unit,
            # so an error near the start costs a whole decode: the first units are read
            # alone first (final=False: a unit or pair cut by the probe's end is no error).
            try:
                self._partial[big](memoryview(data)[skip : skip + _PROBE], "strict", False)
            except UnicodeDecodeError as exc:
                return None, skip + exc.start - exc.start % self.unit
        try:
            view = memoryview(data)[skip:] if skip else data
            return codecs.decode(view, name), len(data)
        except UnicodeDecodeError as exc:
            return None, skip + exc.start - exc.start % self.unit

    def decode(
        self,
        data: bytes | bytearray | memoryview,
        *,
        errors: Errors = "strict",
        byte_order: ByteOrder = "bom",
        default_endian: Endian | None = None,
    ) -> str:
        """Decode strictly: ``errors="strict"`` raises the encoding's error
        (``Utf16Error``, ``Utf32Error``) for the first ill-formed unit (CPython's
        ``start``/``end``), ``"replace"`` puts one U+FFFD per ill-formed unit.  With
        ``byte_order="bom"`` the BOM is skipped; with "le"/"be" an initial U+FEFF is kept,
        as CPython's ``utf-16-le``/``-be`` codecs do."""
        raw = exact_bytes(data, "data", "decode")
        errors = check_choice(errors, _ERRORS, "errors", "decode")
        big, skip = self.resolve(raw, byte_order, default_endian, "decode")
        text, good = self._refused_at(raw, big, skip)
        if text is not None:
            return text
        if errors == "strict":
            spans = self.spans(raw, big, good, 1)
            raise self.error(self.name(big), raw, spans[0], spans[1], "")
        # CPython's replace puts one U+FFFD per span of ``walk`` (what ``replaced``
        # builds): the tests and the fuzz oracle hold the two equal, so it is used here
        # for its speed (one C pass); the incremental decoder uses ``replaced``.
        return codecs.decode(memoryview(raw)[skip:], self.name(big), "replace")

    def replaced(self, raw: bytes, big: bool, skip: int, spans: list[int]) -> str:
        """One U+FFFD per error span, as the WHATWG Encoding Standard's decoders do.  The
        bytes between errors are well-formed and no pair straddles an error, so the
        spans are swapped for U+FFFD's own encoding and the result decoded in one call."""
        name = self.name(big)
        cuts = [skip, *spans, len(raw)]
        kept = [raw[a:b] for a, b in zip(cuts[0::2], cuts[1::2], strict=True)]
        return "\ufffd".encode(name).join(kept).decode(name)

    def is_valid(
        self,
        data: bytes | bytearray | memoryview,
        *,
        byte_order: ByteOrder = "bom",
        default_endian: Endian | None = None,
    ) -> bool:
        """True when ``data`` is well-formed in that byte order."""
        raw = exact_bytes(data, "data", "is_valid")
        big, skip = self.resolve(raw, byte_order, default_endian, "is_valid")
        text, good = self._refused_at(raw, big, skip)
        return text is not None or not self.spans(raw, big, good, 1)

    def find_errors(
        self,
        data: bytes | bytearray | memoryview,
        *,
        limit: int | None = None,
        byte_order: ByteOrder = "bom",
        default_endian: Endian | None = None,
    ) -> list[E]:
        """Every ill-formed unit in order, one per U+FFFD of replace mode (``limit``: stop
        after that many)."""
        raw = exact_bytes(data, "data", "find_errors")
        if limit is not None:
            if isinstance(limit, bool) or not isinstance(limit, int):
                raise TypeError(
                    f"find_errors() argument 'limit' must be None or an int, "
                    f"not {type(limit).__name__}"
                )
            if limit < 0:
                raise ValueError(
                    f"find_errors() argument 'limit' must be None or >= 0, not {limit}"
                )
            if limit == 0:
                return []
        big, skip = self.resolve(raw, byte_order, default_endian, "find_errors")
        text, good = self._refused_at(raw, big, skip)
        if text is not None:
            return []
        spans = self.spans(raw, big, good, -1 if limit is None else limit)
        return self.errors(raw, big, spans)

    def errors(self, raw: bytes, big: bool, spans: list[int], base: int = 0) -> list[E]:
        """Error objects for flat ``spans`` (offsets into ``raw``, at stream offset
        ``base``), built by ``errors.errors_for_spans`` (``map``, the cyclic GC paused)."""
        return errors_for_spans(self.error, self.name(big), raw, spans, base)

    def incremental_decoder(
        self,
        errors: Errors = "strict",
        *,
        byte_order: ByteOrder = "bom",
        default_endian: Endian | None = None,
    ) -> WideIncrementalDecoder[E]:
        """The encoding's ``IncrementalDecoder``."""
        return self.decoder_class(errors, byte_order=byte_order, default_endian=default_endian)


class WideIncrementalDecoder(codecs.IncrementalDecoder, Generic[E]):
    """Strict decoding of a stream in chunks, holding back at most 3 bytes (a cut code
    unit, or a high surrogate whose low one may come next).  For every split of an input
    the text and the errors (stream offsets) equal one-shot decoding.  ``decode`` follows
    the ``codecs`` protocol; ``feed`` returns (text with U+FFFD per error, errors) and
    raises only ``ByteOrderError`` (no BOM, no ``default_endian``).

    Each encoding's ``IncrementalDecoder`` subclasses it, naming its codec in ``codec``
    (which then makes it the codec's ``decoder_class``)."""

    codec: WideCodec[E]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "codec" in cls.__dict__:
            cls.codec.decoder_class = cls

    def __init__(
        self,
        errors: Errors = "strict",
        *,
        byte_order: ByteOrder = "bom",
        default_endian: Endian | None = None,
    ) -> None:
        where = "IncrementalDecoder"
        errors = check_choice(errors, _ERRORS, "errors", where)
        byte_order = check_choice(byte_order, _ORDERS, "byte_order", where)
        if default_endian is not None:
            default_endian = check_choice(default_endian, _ENDIANS, "default_endian", where)
        self.errors = errors
        self.byte_order = byte_order
        self.default_endian = default_endian
        self.reset()

    def reset(self) -> None:
        self._pending = b""
        self._base = 0  # stream offset of _pending[0]
        self._big: bool | None = None if self.byte_order == "bom" else self.byte_order == "be"

    @property
    def position(self) -> int:
        """Bytes consumed so far, not counting the ones held back."""
        return self._base

    @property
    def endian(self) -> Endian | None:
        """The byte order in use: given, or read from the BOM (None: not known yet)."""
        return None if self._big is None else "be" if self._big else "le"

    # getstate()'s int (the codecs.IncrementalDecoder contract: extra state in an int, 0
    # the most common): the stream offset of the held bytes times 4, plus the byte order
    # read from a BOM (0: none read yet, or given to the constructor; 1: LE; 2: BE).  A
    # fresh decoder's state is (b"", 0), so restoring it starts a new stream, BOM and all.

    def getstate(self) -> tuple[bytes, int]:
        read = 0 if self.byte_order != "bom" or self._big is None else 2 if self._big else 1
        return self._pending, self._base * 4 + read

    def setstate(self, state: tuple[bytes, int]) -> None:
        """Restore a ``getstate()`` of a decoder of this encoding (any byte order option:
        a BOM read is kept; a byte order given to the constructor stays)."""
        where = "IncrementalDecoder.setstate"
        if type(state) is not tuple or len(state) != 2:
            raise TypeError(
                f"{where}() argument 'state' must be a (bytes, int) tuple from getstate(), "
                f"not {type_name(state)}"
            )
        pending, flags = state
        if type(pending) is not bytes or type(flags) is not int:
            raise TypeError(
                f"{where}() argument 'state' must be a (bytes, int) tuple from getstate(), "
                f"not ({type_name(pending)}, {type_name(flags)})"
            )
        base, read = divmod(flags, 4)
        if flags < 0 or read == 3 or len(pending) > 3:
            raise ValueError(f"{where}() argument 'state' is not a state of this decoder")
        if read and self.byte_order != "bom":
            if (read == 2) != (self.byte_order == "be"):
                raise ValueError(
                    f"{where}() argument 'state' read a BOM of the other byte order than "
                    f"this decoder's byte_order={self.byte_order!r}"
                )
        elif not read and self.byte_order == "bom" and base:
            raise ValueError(f"{where}() argument 'state' has no byte order past the start")
        self._pending, self._base = pending, base
        if self.byte_order == "bom":
            self._big = None if not read else read == 2

    def decode(self, input: Any, final: bool = False) -> str:
        if final is not False and final is not True:
            check_flag(final, "final", "IncrementalDecoder.decode")
        if type(input) is not bytes:
            input = exact_bytes(input, "input", "IncrementalDecoder.decode")
        text, errs = self.feed(input, final, limit=1 if self.errors == "strict" else None)
        if errs and self.errors == "strict":
            raise errs[0]
        return text

    def feed(
        self, chunk: Any, final: bool = False, *, limit: int | None = None
    ) -> tuple[str, list[E]]:
        if limit is not None:
            limit = check_count(limit, "limit", "IncrementalDecoder.feed", 1)
        if final is not False and final is not True:
            check_flag(final, "final", "IncrementalDecoder.feed")
        codec = self.codec
        raw = (
            chunk
            if type(chunk) is bytes
            else exact_bytes(chunk, "chunk", "IncrementalDecoder.feed")
        )
        buf = self._pending + raw if self._pending else raw
        base = self._base
        if self._big is None:  # byte order still open: wait for a whole BOM
            if len(buf) < codec.unit and not final:
                self._pending = buf
                return "", []
            big, skip = codec.resolve(buf, "bom", self.default_endian, "IncrementalDecoder")
            self._big = big
            buf, base = buf[skip:], base + skip
        big = self._big
        n = len(buf)
        cut = n if final else n - n % codec.unit
        if not final and codec.unit == 2 and cut >= 2:
            last = buf[cut - 2] if big else buf[cut - 1]
            if 0xD8 <= last <= 0xDB:  # a high surrogate: its low one may be next
                cut -= 2
        head = buf if cut == n else buf[:cut]
        self._pending = buf[cut:]
        self._base = base + cut
        name = codec.name(big)
        try:
            return head.decode(name), []
        except UnicodeDecodeError as exc:
            good = exc.start - exc.start % codec.unit
        spans = codec.spans(head, big, good, -1 if limit is None else limit)
        if limit is not None and len(spans) // 2 >= limit:
            text = codec.replaced(head[: spans[-1]], big, 0, spans)
        else:
            text = codec.replaced(head, big, 0, spans)
        return text, codec.errors(buf, big, spans, base)


def describe_unit(value: int) -> str:
    """A code unit or UTF-32 value as a log shows it."""
    if value > 0x10FFFF:
        return f"0x{value:08X}"
    return describe(value)
