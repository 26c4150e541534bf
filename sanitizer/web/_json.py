"""application/json bodies (RFC 8259): the body must be UTF-8 (§8.1), and every string,
keys included, is checked with its escapes resolved -- ``\\u202e`` is a bidi override
however it is spelt -- as the body streams.

The lexer only follows string boundaries; all scanning and unescaping is done by ``re``
and the stdlib's JSON decoder in C, a chunk at a time, so a body full of escapes costs
about what json.loads costs (Python work per string would be a denial of service).
Bytes become text through the core's ``IncrementalDecoder``, stopping at the first error.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import replace

from ..decoder import IncrementalDecoder
from ..policy import accepts, inspect
from ..policy.compiled import CompiledPolicy
from ._body import GATHER, BodyCheck
from ._problems import Problem, from_finding, ill_formed, json_control, lone_surrogate_escape

# RFC 8259 §2: only four whitespace characters may appear between tokens; a NUL or other
# control there means the body is not JSON in UTF-8 (e.g. UTF-16, which Python's json.loads
# would accept from bytes).
_BAD_BETWEEN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# RFC 7464 §2.2: a JSON text sequence puts RS (0x1E) before each record; LF after it is
# JSON whitespace already.  So RS is allowed between tokens there, and only there.
_BAD_BETWEEN_SEQ = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1d\x1f\x7f]")
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
def _flagged_ascii(ascii_allowed: bytes) -> re.Pattern[str]:
    """Matches any character a policy might report: non-ASCII, or an ASCII character not
    in ``ascii_allowed`` (its ASCII in no scanned category).  Text with no match needs
    no ``inspect``."""
    return re.compile("[^" + re.escape(ascii_allowed.decode("ascii")) + "]")


def _unescape(content: str) -> str:
    """JSON string content (valid escapes only) to text; lone surrogates are kept."""
    return str(json.loads('"' + content + '"', strict=False))


class JSONBody(BodyCheck):
    """RFC 8259: the body must be UTF-8 (§8.1); every string, keys included, is checked
    with its escapes resolved -- ``\\u202e`` is a bidi override however it is spelt --
    and escapes that leave a lone surrogate (``\\ud800``, §8.2) are refused.  The JSON
    grammar itself is left to the app's parser, so newline-delimited JSON is read alike
    (each record's strings are checked); ``sequence=True`` reads a JSON text sequence
    (RFC 7464), whose records start with RS."""

    gather = GATHER

    def __init__(
        self, compiled: CompiledPolicy, limit: int | None, *, sequence: bool = False
    ) -> None:
        super().__init__(limit)
        self._bad_between = _BAD_BETWEEN_SEQ if sequence else _BAD_BETWEEN
        self._policy = compiled.policy
        self._flagged = _flagged_ascii(compiled.ascii_allowed)
        # Strings can be checked together when no check looks at a whole value.
        self._batch = not compiled.judges_whole_values
        # Strict RFC 3629 decoding with absolute offsets; a chunk's incomplete last
        # sequence waits for the next; the first error refuses the body.
        self._utf8 = IncrementalDecoder()
        self._pos = 0  # character offset of the text _lex gets next (its carry included)
        self._carry = ""  # an escape cut by the chunk boundary
        self._in_string = False
        self._start = 0  # character offset of the open string's opening quote
        self._parts: list[str] = []  # the open string's text so far
        self._judged_bytes = 0  # body bytes before the open string (or before undecoded bytes)

    def _feed(self, chunk: bytes) -> Problem | None:
        return self._decoded(chunk, final=False)

    def _close(self) -> Problem | None:
        problem = self._decoded(b"", final=True)
        if problem is None and self._in_string:  # cut short: check what there is anyway
            problem = self._string_problem("".join(self._parts), self._start)
        return problem

    def _decoded(self, chunk: bytes, final: bool) -> Problem | None:
        text, errors = self._utf8.feed(chunk, final, limit=1)
        if errors:  # the text before it is not lexed: the UTF-8 error is the problem
            return ill_formed(errors[0], "json", "JSON body", errors[0].start)
        if final:
            return self._lex(text)
        pos, carry = self._pos, self._carry
        problem = self._lex(text)
        if problem is None:
            decoded = self.checked - len(self._utf8.getstate()[0])  # bytes decoded so far
            if not self._in_string:
                self._judged_bytes = decoded
            elif self._start >= pos:  # opened in this text: what follows its quote waits
                tail = (carry + text)[self._start + 1 - pos :]
                self._judged_bytes = decoded - len(tail.encode("utf-8", "surrogatepass"))
        return problem

    def _judged_size(self) -> int:
        return self._judged_bytes

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
        bad_between = self._bad_between
        if bad_between.search("".join(between)) is None and contents:
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
        elif not contents and bad_between.search(region) is None:
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
                # An invalid escape is not JSON (RFC 8259 §7) and the app's parser refuses
                # it; its raw characters are judged all the same, as a streamed body's are
                # before its end is known, so the verdict never depends on the chunking.
                if k == len(content):
                    content = _unescape(content)
            problem = self._string_problem(content, base + m.start())
            if problem is not None:
                return problem
            at = m.end()
        return self._between(region, at, len(region), base)

    def _between(self, region: str, start: int, end: int, base: int) -> Problem | None:
        bad = self._bad_between.search(region, start, end)
        if bad is None:
            return None
        return json_control(base + bad.start())

    def _string_problem(self, value: str, start: int) -> Problem | None:
        if _SURROGATE.search(value):  # escapes of a pair are one character (RFC 8259 §7)
            try:
                value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
            except UnicodeDecodeError:
                return lone_surrogate_escape(f"JSON string at character {start}")
        if self._flagged.search(value) is None or accepts(value, self._policy):
            return None
        report = inspect(value, self._policy)
        if report.ok:
            return None
        where = f"JSON string at character {start}"
        return replace(from_finding(report.rejections[0], "json", where), offset=None)
