"""MessagePack read by content: Litestar's ``request.msgpack()`` decodes any body as
MessagePack (msgspec), and its ``receive_msgpack()`` and Falcon's ``receive_media()`` a
binary WebSocket message, so the strings of a body that is one MessagePack value are
judged by the ``json`` policy, as JSON strings are (``_readings``: "msgpack").

A body that may hold a string starts with a map, an array or a string (the MessagePack
spec's format bytes 0x80..0xbf, 0xd9..0xdf); only then is it walked, value by value, as
it streams: strings are decoded as UTF-8 (msgspec refuses a string that is not) and
judged, binary and extension payloads skipped unbuffered, only a string not complete yet
held.  Bytes that are no MessagePack (a reserved format byte, a string that is not UTF-8,
anything after the one value, a value cut short) are nothing to any reader: then nothing
is refused, as for JSON by content.  Walking costs Python work per value, so a body with
more than ``MAX_VALUES`` values is not read but refused as ambiguous: what cannot be
read cheaply is not passed unjudged.
"""

from __future__ import annotations

from .._policy.compiled import CompiledPolicy
from ._body import GATHER, BodyCheck
from ._problems import Problem, ambiguous
from ._value_checks import value_problem

MAX_VALUES = 1 << 18  # values walked in one body or message before it is refused
# Format bytes that start a map, an array or a string: a value that may hold a string.
FIRST = frozenset([*range(0x80, 0xC0), *range(0xD9, 0xE0)])
# format byte -> bytes of a fixed-size value (nil, bool, int, float), header included
_FIXED = {0xC0: 1, 0xC2: 1, 0xC3: 1, 0xCA: 5, 0xCB: 9, 0xCC: 2, 0xCD: 3, 0xCE: 5, 0xCF: 9}
_FIXED.update({0xD0: 2, 0xD1: 3, 0xD2: 5, 0xD3: 9})
_FIXEXT = {0xD4: 3, 0xD5: 4, 0xD6: 6, 0xD7: 10, 0xD8: 18}  # type byte and data included
# format byte -> (bytes of the length field, what follows: "str", "bin", "ext",
# "array", "map")
_SIZED = {
    0xD9: (1, "str"), 0xDA: (2, "str"), 0xDB: (4, "str"),
    0xC4: (1, "bin"), 0xC5: (2, "bin"), 0xC6: (4, "bin"),
    0xC7: (1, "ext"), 0xC8: (2, "ext"), 0xC9: (4, "ext"),
    0xDC: (2, "array"), 0xDD: (4, "array"), 0xDE: (2, "map"), 0xDF: (4, "map"),
}  # fmt: skip


class MsgpackByContent(BodyCheck):
    """A body (or binary message) read as one MessagePack value; see the module."""

    gather = GATHER

    def __init__(self, compiled: CompiledPolicy, where: str = "MessagePack body") -> None:
        super().__init__(None)
        self._compiled = compiled
        self._where = where
        self._buf = b""  # bytes of a value not complete yet
        self._stack = [1]  # values still to read at each level (the top level: one)
        self._skip = 0  # payload bytes still to skip (binary, extension)
        self._values = 0
        self._done = False  # the one top-level value is complete
        self._not_msgpack = False
        self._pending: Problem | None = None  # refused at the end if the body is MessagePack
        self._too_many: Problem | None = None

    def _feed(self, chunk: bytes) -> Problem | None:
        if not self._not_msgpack and self._too_many is None:
            self._walk(chunk)
        return None

    def _close(self) -> Problem | None:
        if self._too_many is not None:
            return self._too_many
        if self._not_msgpack or not self._done or self._buf or self._skip:
            return None  # no MessagePack value: nothing to any reader
        return self._pending

    def _value_done(self) -> None:
        self._values += 1
        if self._values > MAX_VALUES:
            summary = f"MessagePack with more than {MAX_VALUES} values, not read"
            self._too_many = ambiguous("body", self._where, summary)
        stack = self._stack
        while stack:
            stack[-1] -= 1
            if stack[-1]:
                return
            stack.pop()
        self._done = True

    def _open(self, count: int) -> None:
        if count:
            self._stack.append(count)
        else:
            self._value_done()

    def _walk(self, chunk: bytes) -> None:
        if self._skip:
            n = min(self._skip, len(chunk))
            self._skip -= n
            chunk = chunk[n:]
            if self._skip:
                return
            self._value_done()
        buf = self._buf + chunk if self._buf else chunk
        pos, end = 0, len(buf)
        while pos < end and self._too_many is None:
            if self._done:  # anything after the one value: msgspec refuses the body
                self._not_msgpack = True
                return
            b = buf[pos]
            if b <= 0x7F or b >= 0xE0:  # fixint
                pos += 1
                self._value_done()
            elif b <= 0x8F:  # fixmap
                pos += 1
                self._open(2 * (b & 0x0F))
            elif b <= 0x9F:  # fixarray
                pos += 1
                self._open(b & 0x0F)
            elif b <= 0xBF or _SIZED.get(b, (0, ""))[1] == "str":
                size, head = (b & 0x1F, 1) if b <= 0xBF else (0, 1 + _SIZED[b][0])
                if pos + head > end:
                    break  # the length field is in the next chunk
                if b > 0xBF:
                    size = int.from_bytes(buf[pos + 1 : pos + head], "big")
                if pos + head + size > end:
                    break  # the string is held until it is complete
                self._string(buf[pos + head : pos + head + size])
                if self._not_msgpack:
                    return
                pos += head + size
                self._value_done()
            elif b in _FIXED or b in _FIXEXT:
                size = _FIXED.get(b) or _FIXEXT[b]
                pos = self._payload(pos, size, end)
            elif b in _SIZED:
                length, kind = _SIZED[b]
                if pos + 1 + length > end:
                    break
                n = int.from_bytes(buf[pos + 1 : pos + 1 + length], "big")
                if kind == "array" or kind == "map":
                    pos += 1 + length
                    self._open(n if kind == "array" else 2 * n)
                else:  # bin, or ext (a type byte after the length)
                    pos = self._payload(pos, 1 + length + n + (kind == "ext"), end)
            else:  # 0xc1, never used
                self._not_msgpack = True
                return
        self._buf = buf[pos:] if pos < end and not self._skip else b""

    def _payload(self, pos: int, size: int, end: int) -> int:
        """Skip a value of ``size`` bytes from ``pos``, across chunks if need be."""
        if pos + size <= end:
            self._value_done()
            return pos + size
        self._skip = pos + size - end
        return end

    def _string(self, raw: bytes) -> None:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:  # msgspec refuses it: no MessagePack to any reader
            self._not_msgpack = True
            return
        if self._pending is None:
            self._pending = value_problem(raw, self._compiled, "body", self._where + " string")
