"""Request bodies, checked as they stream, in bounded memory (sans-IO).

``body_check`` picks the check for the media type ``check_head`` found; the adapter calls
``feed(chunk)`` for every chunk *before* passing it to the app and ``close()`` before the
last one, so the app never holds a complete body that fails.  Each check keeps only what
a verdict still depends on: an incomplete UTF-8 sequence, the current form field or JSON
string, a partial multipart header.  Bodies of other types are only counted.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from ..decoder import IncrementalDecoder
from ..policy import Policy, inspect
from .checks import (
    Head,
    WebPolicy,
    charset_problem,
    field_problem,
    malformed,
    pairs_problem,
    parse_media_type,
    parse_params,
    showable,
    too_large,
    value_problem,
)
from .problem import Problem, from_finding, too_long

if TYPE_CHECKING:
    from collections.abc import Callable


class BodyCheck:
    """Counts the body against the size limit; subclasses check its content."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.size = 0
        self.problem: Problem | None = None  # the first problem found; later input is ignored

    def feed(self, chunk: bytes) -> Problem | None:
        """Check the next chunk; the first problem is returned once, then None."""
        if self.problem is not None or not chunk:
            return None
        self.size += len(chunk)
        if self.limit is not None and self.size > self.limit:
            self.problem = too_large(self.limit)
        else:
            self.problem = self._feed(chunk)
        return self.problem

    def close(self) -> Problem | None:
        """The body ended: check what was held back."""
        if self.problem is not None:
            return None
        self.problem = self._close()
        return self.problem

    def _feed(self, chunk: bytes) -> Problem | None:
        return None

    def _close(self) -> Problem | None:
        return None


def body_check(policy: WebPolicy, head: Head) -> BodyCheck:
    limit = policy.max_body_size
    if head.media == "form" and (policy.names or policy.form):
        return FormBody(policy, limit)
    if head.media == "multipart":
        return MultipartBody(policy, limit, head.boundary)
    if head.media == "json" and policy.json is not None:
        return JSONBody(policy.json, limit)
    if head.media == "text" and policy.text is not None:
        return TextBody(policy.text, limit)
    return BodyCheck(limit)


# -- text ----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _unbounded(policy: Policy) -> Policy:
    """The policy without its length limits (TextStream counts those over the whole
    stream, not per piece)."""
    if policy.max_bytes is None and policy.max_code_points is None:
        return policy
    return policy.replace(max_bytes=None, max_code_points=None)


_LAST_ASCII = re.compile(rb"[\x00-\x7f][\x80-\xff]*\Z")
_HOLD_MAX = 1 << 20  # longest run without an ASCII byte held whole (then cut at a lead byte)


class TextStream:
    """A policy applied to a byte stream in pieces, with the same verdict as on the whole.

    Pieces are cut just before an ASCII byte: that byte can neither continue a UTF-8
    sequence (RFC 3629 §3) nor be the second element of a canonical composition, a
    combining run or an emoji sequence (UAX #15, UTS #51), so every check of a piece
    sees what it would see in the whole.  Length limits are counted across pieces.
    """

    def __init__(self, policy: Policy, part: str, where: str) -> None:
        self.policy = policy
        self._piece_policy = _unbounded(policy)
        self.part = part
        self.where = where
        self._held = b""
        self._base = 0  # stream offset of _held[0]
        self._points = 0

    def feed(self, data: bytes) -> Problem | None:
        held = self._held + data if self._held else data
        cut = _last_ascii(held)
        if cut <= 0:
            if len(held) <= _HOLD_MAX:
                self._held = held
                return None
            cut = _last_lead(held)
        self._held = held[cut:]
        return self._check(held[:cut])

    def close(self) -> Problem | None:
        held, self._held = self._held, b""
        return self._check(held)

    def _check(self, piece: bytes) -> Problem | None:
        base = self._base
        self._base += len(piece)
        policy = self.policy
        if policy.max_bytes is not None and self._base > policy.max_bytes:
            return too_long(self.part, self.where)
        if not piece:
            return None
        report = inspect(piece, self._piece_policy)
        if not report.ok:
            return from_finding(report.rejections[0], self.part, self.where, base)
        if policy.max_code_points is not None and report.text is not None:
            self._points += len(report.text)
            if self._points > policy.max_code_points:
                return too_long(self.part, self.where)
        return None


def _last_ascii(data: bytes) -> int:
    """Index of the last ASCII byte, or -1."""
    end = len(data) - 1
    for i in range(end, max(-1, end - 16), -1):  # usually found at once
        if data[i] < 0x80:
            return i
    m = _LAST_ASCII.search(data)
    return -1 if m is None else m.start()


def _last_lead(data: bytes) -> int:
    """Index of the last byte that is not a continuation byte (80..BF), or len(data)."""
    for i in range(len(data) - 1, max(-1, len(data) - 5), -1):
        if not 0x80 <= data[i] <= 0xBF:
            return i
    return len(data)


class TextBody(BodyCheck):
    """text/* (the charset was checked with the headers)."""

    def __init__(self, policy: Policy, limit: int | None) -> None:
        super().__init__(limit)
        self._text = TextStream(policy, "text", "text body")

    def _feed(self, chunk: bytes) -> Problem | None:
        return self._text.feed(chunk)

    def _close(self) -> Problem | None:
        return self._text.close()


# -- application/x-www-form-urlencoded ----------------------------------------------------


class FormBody(BodyCheck):
    """Fields are checked as each '&' arrives; only the current field is held."""

    def __init__(self, policy: WebPolicy, limit: int | None) -> None:
        super().__init__(limit)
        self._policy = policy
        self._held = b""
        self._number = 1

    def _feed(self, chunk: bytes) -> Problem | None:
        data = self._held + chunk
        cut = data.rfind(b"&")
        if cut < 0:
            self._held = data
            return None
        self._held = data[cut + 1 :]
        return self._fields(data[:cut])

    def _close(self) -> Problem | None:
        held, self._held = self._held, b""
        return self._fields(held)

    def _fields(self, data: bytes) -> Problem | None:
        policy = self._policy
        problem, self._number = pairs_problem(
            data, policy, policy.form, "form field", "form", self._number
        )
        return problem


# -- multipart/form-data ------------------------------------------------------------------


class MultipartBody(BodyCheck):
    """RFC 7578 bodies through python-multipart's streaming parser (the one Starlette
    uses).  Part headers are strictly decoded; names, filenames (``filename*`` too, which
    Werkzeug and Django honour) and the content of parts without a filename are checked;
    file content passes untouched."""

    def __init__(self, policy: WebPolicy, limit: int | None, boundary: bytes) -> None:
        super().__init__(limit)
        from python_multipart.multipart import MultipartParser

        self._policy = policy
        self._found: Problem | None = None
        self._ended = False
        self._number = 0
        self._header_name = bytearray()
        self._header_value = bytearray()
        self._headers: list[tuple[bytes, bytes]] = []
        self._text: TextStream | None = None
        self._parser = MultipartParser(
            boundary,
            callbacks={
                "on_part_begin": self._part_begin,
                "on_header_field": self._data(self._header_name),
                "on_header_value": self._data(self._header_value),
                "on_header_end": self._header_end,
                "on_headers_finished": self._headers_finished,
                "on_part_data": self._part_data,
                "on_part_end": self._part_end,
                "on_end": self._end,
            },
        )

    def _feed(self, chunk: bytes) -> Problem | None:
        from python_multipart.exceptions import MultipartParseError

        try:
            self._parser.write(chunk)
        except _Stop:
            pass
        except MultipartParseError:
            return malformed("multipart", "multipart body", "not parseable as RFC 7578")
        return self._found

    def _close(self) -> Problem | None:
        if not self._ended and self.size:  # an empty body holds no form to misread
            return malformed("multipart", "multipart body", "ends before its closing boundary")
        return None

    # python-multipart callbacks: data callbacks get (buffer, start, end).

    def _stop(self, problem: Problem | None) -> None:
        if problem is not None:
            self._found = problem
            raise _Stop

    @staticmethod
    def _data(into: bytearray) -> Callable[[bytes, int, int], None]:
        def collect(data: bytes, start: int, end: int) -> None:
            into.extend(data[start:end])

        return collect

    def _part_begin(self) -> None:
        self._number += 1
        self._headers = []
        self._text = None

    def _header_end(self) -> None:
        self._headers.append((bytes(self._header_name), bytes(self._header_value)))
        self._header_name.clear()
        self._header_value.clear()

    def _headers_finished(self) -> None:
        policy, number = self._policy, self._number
        disposition: str | None = None
        params: dict[str, bytes] = {}  # Content-Disposition parameters, raw bytes
        later: list[tuple[bytes, str]] = []  # whole header values, checked last
        for raw_name, raw_value in self._headers:
            name = raw_name.strip().lower()
            where = f"header of multipart part #{number}"
            later.append((raw_value, where))
            # Parameters are read from the raw bytes (as latin-1, byte for byte) so that a
            # problem names the parameter; the whole header is checked after them.
            value = raw_value.decode("latin-1")
            if name == b"content-disposition":
                disposition, pairs = parse_params(value)
                for key, val in pairs:
                    if key in params:
                        self._stop(malformed("multipart", where, f"repeated {key} parameter"))
                    params[key] = val.encode("latin-1")
            elif name == b"content-type":
                parsed = parse_media_type(raw_value)
                if parsed is None:
                    self._stop(malformed("multipart", where, "ambiguous Content-Type"))
                else:
                    self._stop(charset_problem(policy, parsed[1], where, "multipart"))
            elif name == b"content-transfer-encoding" and value.strip().lower() not in (
                *("7bit", "8bit", "binary"),
            ):  # RFC 7578 §4.7: not to be used; Django still decodes base64 and q-p parts
                self._stop(malformed("multipart", where, "Content-Transfer-Encoding"))
        if disposition != "form-data" or "name" not in params:
            self._stop(
                malformed(
                    "multipart", f"multipart part #{number}", "no form-data name (RFC 7578 §4.2)"
                )
            )
        name = params["name"]
        what = "multipart field"
        self._stop(field_problem(name, b"", number, what, policy, None, "multipart"))
        shown = showable(name)
        label = f"{what} '{shown}'" if shown is not None else f"{what} #{number}"
        is_file = False
        for key in ("filename", "filename*", "name*"):
            if key not in params:
                continue
            given = params[key]
            if key == "filename" and not given:
                continue  # what browsers send for a file input left empty (HTML §4.10.21.8)
            if key.endswith("*"):
                given = self._extended(given.decode("latin-1"), label)
            check = policy.names if key == "name*" else policy.filenames
            is_file = is_file or key.startswith("filename")
            self._stop(value_problem(given, check, "multipart", f"{key} of {label}"))
        for raw_value, where in later:
            self._stop(value_problem(raw_value, policy.headers, "multipart", where))
        if not is_file and policy.form is not None:
            self._text = TextStream(policy.form, "multipart", label)

    def _extended(self, value: str, label: str) -> bytes:
        """RFC 8187 §3.2 ext-value: charset'language'pct-encoded; UTF-8 only."""
        from urllib.parse import unquote_to_bytes

        charset, _, rest = value.partition("'")
        _, _, encoded = rest.partition("'")
        if charset.lower() not in ("utf-8", "utf8"):
            self._stop(charset_problem(self._policy, {"charset": charset}, label, "multipart"))
        return unquote_to_bytes(encoded)

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if self._text is not None:
            self._stop(self._text.feed(data[start:end]))

    def _part_end(self) -> None:
        if self._text is not None:
            self._stop(self._text.close())

    def _end(self) -> None:
        self._ended = True


class _Stop(Exception):
    """Raised inside a parser callback to stop at the first problem."""


# -- application/json ---------------------------------------------------------------------

_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/"}
_STRING_SPECIAL = re.compile(r'["\\]')
# RFC 8259 §2: only these four whitespace characters may appear between tokens; a NUL or
# other control there means the body is not JSON in UTF-8 (e.g. UTF-16, which Python's
# json.loads would accept from bytes).
_BAD_BETWEEN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_LOW_ESCAPE = re.compile(r"\\u([dD][c-fC-F][0-9A-Fa-f]{2})")
_LOW_PREFIX = re.compile(r"\\(?:u(?:[dD](?:[c-fC-F][0-9A-Fa-f]?)?)?)?")


@functools.lru_cache(maxsize=64)
def _flagged_ascii(policy: Policy) -> re.Pattern[str]:
    """Matches any character ``policy`` might report: non-ASCII, or an ASCII character in
    a scanned category.  A string with no match needs no ``inspect``."""
    ok = policy._fast.ascii_allowed  # ASCII bytes in no scanned category
    return re.compile("[^" + re.escape(ok.decode("ascii")) + "]")


class JSONBody(BodyCheck):
    """RFC 8259: the body must be UTF-8 (§8.1); every string, keys included, is checked
    with its escapes resolved -- ``\\u202e`` is a bidi override however it is spelt --
    and escapes that leave a lone surrogate (``\\ud800``, §8.2) are refused.  The JSON
    grammar itself is left to the app's parser."""

    def __init__(self, policy: Policy, limit: int | None) -> None:
        super().__init__(limit)
        self._policy = policy
        self._flagged = _flagged_ascii(policy)
        self._decoder = IncrementalDecoder()
        self._pos = 0  # characters processed before _carry
        self._carry = ""  # an escape cut by the chunk boundary
        self._in_string = False
        self._start = 0  # character index of the current string's opening quote
        self._parts: list[str] = []
        self._high: int | None = None  # a high-surrogate escape waiting for its low half

    def _feed(self, chunk: bytes) -> Problem | None:
        return self._decoded(chunk, final=False)

    def _close(self) -> Problem | None:
        problem = self._decoded(b"", final=True)
        if problem is None and self._high is not None:
            problem = self._lone_surrogate(0)
        return problem

    def _decoded(self, chunk: bytes, final: bool) -> Problem | None:
        text, errors = self._decoder.feed(chunk, final)
        if errors:
            err = errors[0]
            return Problem(
                400,
                "ill-formed-utf8",
                err.kind.value,
                "json",
                "JSON body",
                err.kind.description,
                err.start,
                f"{err.hex}: {err.reason}",
            )
        return self._lex(text)

    def _lex(self, text: str) -> Problem | None:
        if self._carry:
            self._pos -= len(self._carry)
            text = self._carry + text
            self._carry = ""
        if (
            (not self._in_string or not self._parts)
            and self._high is None
            and "\\" not in text
            and self._flagged.search(text) is None
            and _BAD_BETWEEN.search(text) is None
        ):
            return self._plain(text)  # clean ASCII, no escapes: only the string state matters
        i, n = 0, len(text)
        while i < n:
            if not self._in_string:
                j = text.find('"', i)
                bad = _BAD_BETWEEN.search(text, i, n if j < 0 else j)
                if bad is not None:
                    return Problem(
                        400,
                        "refused-text",
                        "control",
                        "json",
                        "JSON body",
                        "control character between JSON tokens (RFC 8259 §2): not JSON in UTF-8",
                        self._pos + bad.start(),
                    )
                if j < 0:
                    break
                self._in_string, self._start, self._parts = True, self._pos + j, []
                i = j + 1
            elif self._high is not None:  # RFC 8259 §7: a high surrogate needs a low one next
                m = _LOW_ESCAPE.match(text, i)
                if m is None:
                    if _LOW_PREFIX.fullmatch(text, i):
                        self._carry = text[i:]  # may still become a low surrogate
                        break
                    return self._lone_surrogate(i)
                low = int(m.group(1), 16)
                self._parts.append(chr(0x10000 + ((self._high - 0xD800) << 10) + low - 0xDC00))
                self._high = None
                i = m.end()
            else:
                m = _STRING_SPECIAL.search(text, i)
                if m is None:
                    self._parts.append(text[i:])
                    break
                j = m.start()
                self._parts.append(text[i:j])
                if text[j] == '"':
                    self._in_string = False
                    problem = self._string_done()
                    if problem is not None:
                        return problem
                    i = j + 1
                    continue
                if n - j < 2 or (text[j + 1] == "u" and n - j < 6):
                    self._carry = text[j:]
                    break
                c = text[j + 1]
                if c == "u" and _HEX4.match(text, j + 2):
                    cp = int(text[j + 2 : j + 6], 16)
                    if 0xDC00 <= cp <= 0xDFFF:
                        return self._lone_surrogate(j)
                    if 0xD800 <= cp <= 0xDBFF:
                        self._high = cp
                    else:
                        self._parts.append(chr(cp))
                    i = j + 6
                else:
                    self._parts.append(_SIMPLE_ESCAPES.get(c, c))
                    i = j + 2
        self._pos += n - len(self._carry)
        return None

    def _plain(self, text: str) -> Problem | None:
        quotes = text.count('"')
        if quotes:
            self._start = self._pos + text.rindex('"')
        if quotes % 2:
            self._in_string = not self._in_string
        self._pos += len(text)
        return None

    def _string_done(self) -> Problem | None:
        value = "".join(self._parts)
        self._parts = []
        if self._flagged.search(value) is None:
            return None
        report = inspect(value, self._policy)
        if report.ok:
            return None
        where = f"JSON string at character {self._start}"
        return replace(from_finding(report.rejections[0], "json", where), offset=None)

    def _lone_surrogate(self, i: int) -> Problem:
        return Problem(
            400,
            "refused-text",
            "lone-surrogate-escape",
            "json",
            "JSON body",
            "\\u escape that leaves a lone surrogate (RFC 8259 §8.2)",
            self._pos + i,
        )
