"""Request bodies, checked as they stream, in bounded memory (sans-IO).

``body_check`` picks the check for the media type ``check_head`` found; the adapter calls
``feed(chunk)`` for every chunk *before* passing it to the app and ``close()`` before the
last one, so the app never holds a complete body that fails.  Each check keeps only what
a verdict still depends on: an incomplete UTF-8 sequence, the current form field or JSON
string, a partial multipart header.  Bodies of other types are only counted.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from ..decoder import find_errors
from ..errors import Utf8Error
from ..policy import Policy, _judges_whole_values, accepts, inspect
from .checks import (
    Head,
    WebPolicy,
    bulk_passes,
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
        if policy.max_code_points is None and accepts(piece, self._piece_policy):
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
        if bulk_passes(data, policy._form_bulk):
            fields = data.split(b"&")
            self._number += len(fields) - fields.count(b"")
            return None
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
        media: str | None = None  # the part's Content-Type, without parameters
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
                    media = parsed[0]
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
        # RFC 7578 §4.4: a part's type defaults to text/plain; a field sent with another
        # type (application/octet-stream, image/png) is data, like a file's content.
        is_text = media is None or media.startswith("text/")
        if not is_file and is_text and policy.form is not None:
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
# The lexer only follows string boundaries; all scanning and unescaping is done by ``re``
# and the stdlib's JSON decoder in C, a chunk at a time, so a body full of escapes costs
# about what json.loads costs (Python work per string would be a denial of service).

# RFC 8259 §2: only four whitespace characters may appear between tokens; a NUL or other
# control there means the body is not JSON in UTF-8 (e.g. UTF-16, which Python's json.loads
# would accept from bytes).
_BAD_BETWEEN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Written as "unrolled loops" (runs of plain characters consumed in one step), which makes
# ``re`` several times faster than the alternation (?:[^"\\]|\\.)* on long strings.
_STRING = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"', re.DOTALL)  # one complete string (§7)
# The longest run of text outside strings and complete strings: one anchored match, linear
# (a search for _STRING inside an unterminated string could be quadratic).
_COMPLETE = re.compile(r'[^"]*(?:"[^"\\]*(?:\\.[^"\\]*)*"[^"]*)*', re.DOTALL)
# String content made of characters and *valid* escapes; it stops at the closing quote, at
# an escape cut by the end of the chunk, or at an invalid escape.
_CONTENT = re.compile(r'[^"\\]*(?:(?:\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})[^"\\]*)*')
_PARTIAL_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SEPARATOR = "a"  # joins strings for one bulk check: ASCII, never scanned, a starter


@functools.lru_cache(maxsize=64)
def _flagged_ascii(policy: Policy) -> re.Pattern[str]:
    """Matches any character ``policy`` might report: non-ASCII, or an ASCII character in
    a scanned category.  Text with no match needs no ``inspect``."""
    ok = policy._fast.ascii_allowed  # ASCII bytes in no scanned category
    return re.compile("[^" + re.escape(ok.decode("ascii")) + "]")


def _unescape(content: str) -> str:
    """JSON string content (valid escapes only) to text; lone surrogates are kept."""
    return str(json.loads('"' + content + '"', strict=False))


class Utf8Stream:
    """Strict decoding of a byte stream for checks that need its text: CPython's codec
    takes what it accepts (RFC 3629 §4 and CPython accept the same strings) and a chunk's
    last 1-3 bytes wait for the next when they may begin a character; anything it refuses
    is judged by the machine (``find_errors``), with offsets into the whole stream.  For
    one small body, this is a single ``bytes.decode``."""

    def __init__(self) -> None:
        self._held = b""
        self._base = 0  # stream offset of _held[0]

    def feed(self, chunk: bytes, final: bool) -> tuple[str, Utf8Error | None]:
        data = self._held + chunk if self._held else chunk
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            cut = exc.start
            if final or exc.end != len(data) or len(data) - cut > 3:
                error = find_errors(data)[0]
                error.start += self._base
                error.end += self._base
                error.base = self._base
                return "", error
            text = data[:cut].decode("utf-8")
        else:
            cut = len(data)
        self._held = data[cut:]
        self._base += cut
        return text, None


class JSONBody(BodyCheck):
    """RFC 8259: the body must be UTF-8 (§8.1); every string, keys included, is checked
    with its escapes resolved -- ``\\u202e`` is a bidi override however it is spelt --
    and escapes that leave a lone surrogate (``\\ud800``, §8.2) are refused.  The JSON
    grammar itself is left to the app's parser."""

    def __init__(self, policy: Policy, limit: int | None) -> None:
        super().__init__(limit)
        self._policy = policy
        self._flagged = _flagged_ascii(policy)
        # Strings can be checked together when no check looks at a whole value.
        self._batch = not _judges_whole_values(policy)
        self._utf8 = Utf8Stream()
        self._pos = 0  # character offset of the text _lex gets next (its carry included)
        self._carry = ""  # an escape cut by the chunk boundary
        self._in_string = False
        self._start = 0  # character offset of the open string's opening quote
        self._parts: list[str] = []  # the open string's text so far

    def _feed(self, chunk: bytes) -> Problem | None:
        return self._decoded(chunk, final=False)

    def _close(self) -> Problem | None:
        problem = self._decoded(b"", final=True)
        if problem is None and self._in_string:  # cut short: check what there is anyway
            problem = self._string_problem("".join(self._parts), self._start)
        return problem

    def _decoded(self, chunk: bytes, final: bool) -> Problem | None:
        text, err = self._utf8.feed(chunk, final)
        if err is not None:
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
            text, self._carry = self._carry + text, ""
        if "\\" not in text:
            return self._lex_plain(text)
        base, i, problem = self._pos, 0, None
        if self._in_string:
            i, problem = self._string_run(text, 0, base)
        while i >= 0 and problem is None:
            end = _COMPLETE.match(text, i).end()  # type: ignore[union-attr]  # matches ""
            problem = self._region(text[i:end], base + i)
            if problem is not None:
                break
            if end == len(text):
                self._pos = base + end
                break
            self._in_string, self._start, self._parts = True, base + end, []
            i, problem = self._string_run(text, end + 1, base)  # usually runs out: i = -1
        return problem

    def _string_run(self, text: str, i: int, base: int) -> tuple[int, Problem | None]:
        """Go on with the open string from text[i]: (index after its closing quote, or -1
        when the text ends first, and the problem found)."""
        n = len(text)
        while True:
            k = _CONTENT.match(text, i).end()  # type: ignore[union-attr]
            if k > i:
                run = text[i:k]
                self._parts.append(_unescape(run) if "\\" in run else run)
            if k < n and text[k] == '"':
                self._in_string = False
                value, self._parts = "".join(self._parts), []
                return k + 1, self._string_problem(value, self._start)
            if k == n:
                self._pos = base + n
                return -1, None
            if _PARTIAL_ESCAPE.fullmatch(text, k):  # cut by the chunk: wait for the rest
                self._carry = text[k:]
                self._pos = base + k
                return -1, None
            i = k + 2  # an invalid escape: not JSON, the app's parser will refuse it

    def _lex_plain(self, text: str) -> Problem | None:
        """Text without a backslash: every '"' opens or closes a string, so str.split
        finds them all (most chunks; no regex)."""
        base = self._pos
        pieces = text.split('"')
        at = 0  # offset in text of pieces[0]
        if self._in_string:
            self._parts.append(pieces[0])
            if len(pieces) == 1:
                self._pos = base + len(text)
                return None
            self._in_string = False
            value, self._parts = "".join(self._parts), []
            problem = self._string_problem(value, self._start)
            if problem is not None:
                return problem
            at = len(pieces[0]) + 1
            del pieces[0]
        tail = pieces.pop() if len(pieces) % 2 == 0 else None  # a string this chunk cuts
        region = '"'.join(pieces)
        problem = self._pieces(pieces[0::2], pieces[1::2], region, base + at)
        if problem is None and tail is not None:
            self._in_string, self._parts = True, [tail]
            self._start = base + len(text) - len(tail) - 1
        self._pos = base + len(text)
        return problem

    def _region(self, region: str, base: int) -> Problem | None:
        """Text outside strings and complete strings: everything checked at once in C;
        string by string only when that fails, to say where."""
        if not region:
            return None
        pieces = _STRING.split(region)  # between, content, between, content, ..., between
        return self._pieces(pieces[0::2], pieces[1::2], region, base)

    def _pieces(
        self, between: list[str], contents: list[str], region: str, base: int
    ) -> Problem | None:
        if _BAD_BETWEEN.search("".join(between)) is None and contents:
            joined = _SEPARATOR.join(contents)
            if "\\" in joined:
                try:
                    values = json.loads('["' + '","'.join(contents) + '"]', strict=False)
                except ValueError:  # an invalid escape: take the slow path
                    values = None
                joined = _SEPARATOR.join(values) if values is not None else ""
            else:
                values = contents
            if values is not None and _SURROGATE.search(joined) is None:
                if self._batch:
                    if self._flagged.search(joined) is None or accepts(joined, self._policy):
                        return None
                elif all(self._string_problem(v, 0) is None for v in values):
                    return None
        elif not contents and _BAD_BETWEEN.search(region) is None:
            return None
        return self._region_slowly(region, base)

    def _region_slowly(self, region: str, base: int) -> Problem | None:
        at = 0
        for m in _STRING.finditer(region):
            problem = self._between(region, at, m.start(), base)
            if problem is not None:
                return problem
            content = m.group(1)
            if "\\" in content:
                k = _CONTENT.match(content).end()  # type: ignore[union-attr]
                if k < len(content):
                    at = m.end()
                    continue  # an invalid escape: not JSON, the app's parser refuses it
                content = _unescape(content)
            problem = self._string_problem(content, base + m.start())
            if problem is not None:
                return problem
            at = m.end()
        return self._between(region, at, len(region), base)

    @staticmethod
    def _between(region: str, start: int, end: int, base: int) -> Problem | None:
        bad = _BAD_BETWEEN.search(region, start, end)
        if bad is None:
            return None
        return Problem(
            400,
            "refused-text",
            "control",
            "json",
            "JSON body",
            "control character between JSON tokens (RFC 8259 §2): not JSON in UTF-8",
            base + bad.start(),
        )

    def _string_problem(self, value: str, start: int) -> Problem | None:
        if _SURROGATE.search(value):  # escapes of a pair are one character (RFC 8259 §7)
            try:
                value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
            except UnicodeDecodeError:
                return Problem(
                    400,
                    "refused-text",
                    "lone-surrogate-escape",
                    "json",
                    f"JSON string at character {start}",
                    "\\u escape that leaves a lone surrogate (RFC 8259 §8.2)",
                )
        if self._flagged.search(value) is None or accepts(value, self._policy):
            return None
        report = inspect(value, self._policy)
        if report.ok:
            return None
        where = f"JSON string at character {start}"
        return replace(from_finding(report.rejections[0], "json", where), offset=None)
