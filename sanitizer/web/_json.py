"""application/json bodies (RFC 8259): the body must be UTF-8 (§8.1), and every string,
keys included, is checked with its escapes resolved -- ``\\u202e`` is a bidi override
however it is spelt -- as the body streams.

The lexer only follows string boundaries.  One C pass over each decoded chunk
(``json_strings``, jsonscan.c; a pure-Python twin with ``re`` and the stdlib's JSON
decoder without the extension) finds the strings and returns only those that need
judging -- an escape, a non-ASCII character or an ASCII one the policy scans -- with their
escapes resolved, joined into one text, so an ASCII-only string costs nothing in Python;
one policy call judges them together (the engine only sees the strings the C scan of the
policy flags; many of them: the whole, in one call).  Python work per string would be a
denial of service.  Only when something fails is the chunk walked, to say where, its
strings judged in batches, the one that fails halved down to its first string that does.
Bytes become text through the core's ``IncrementalDecoder``, stopping at the first error.
"""

from __future__ import annotations

import bisect
import codecs
import functools
import itertools
import json
import re
from collections.abc import Callable
from dataclasses import replace
from typing import NamedTuple

from .._decoder import IncrementalDecoder
from .._errors import ErrorKind, Utf8Error
from .._identity_cache import IdentityCache
from .._native import speedups
from .._policy import Policy, accepts
from .._policy.compiled import CArgs, CompiledPolicy
from ._body import GATHER, BodyCheck
from ._native import speedups as web_speedups
from ._problems import (
    Problem,
    first_rejection,
    from_finding,
    ill_formed,
    json_control,
    lone_surrogate_escape,
)

# RFC 8259 §2: only four whitespace characters may appear between tokens; a NUL or other
# control there means the body is not JSON in UTF-8 (e.g. UTF-16, which Python's json.loads
# would accept from bytes).  A character >= 0x80 there is no JSON either, yet a framework's
# text() hands it to the app (aiohttp, BlackSheep): refused too, as the tables say by
# flagging NUL (json_strings reads between[0] for every character >= 0x80).
_BAD_BETWEEN = re.compile(r"[^\t\n\r\x20-\x7e]")  # all but whitespace and printable ASCII
# RFC 7464 §2.2: a JSON text sequence puts RS (0x1E) before each record; LF after it is
# JSON whitespace already.  So RS is allowed between tokens there, and only there.
_BAD_BETWEEN_SEQ = re.compile(r"[^\t\n\r\x1e\x20-\x7e]")
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
# (string content after the opening quote, its index, strict) -> (text, index after the
# closing quote); ValueError without one, or at an invalid escape.  Lone surrogates kept.
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_SEPARATOR = "a"  # joins strings for one bulk check: ASCII, never scanned, a starter
_FIRST_BATCH = 16  # strings in the first batch _region_slowly judges together
_FLAGGED_MAX = 16  # strings a C scan flags that go to the engine alone: more, the chunk


def _table(pattern: re.Pattern[str]) -> bytes:
    """The ASCII characters ``pattern`` matches, as json_spans reads them (128 flags)."""
    return bytes(pattern.fullmatch(chr(c)) is not None for c in range(0x80))


_BETWEEN_TABLE = _table(_BAD_BETWEEN)
_BETWEEN_SEQ_TABLE = _table(_BAD_BETWEEN_SEQ)
# A body read as JSON by content (not declared JSON): what lies between its strings is
# the text check's business, or nothing's (an untyped body), so nothing is refused there.
_NOTHING_BETWEEN = re.compile("(?!)")
_NOTHING_TABLE = bytes(0x80)


@functools.lru_cache(maxsize=64)
def _strings_table(ascii_allowed: bytes, every: bool = False) -> bytes:
    """What makes a string need judging besides non-ASCII: an ASCII character the policy
    scans, or a backslash (its escape may stand for anything); every string when the
    policy judges whole values (the quote's entry, since no content holds one)."""
    return bytes(c == 0x5C or c not in ascii_allowed or (every and c == 0x22) for c in range(0x80))


@functools.lru_cache(maxsize=16)
def _twin_patterns(between: bytes, strings: bytes) -> tuple[re.Pattern[str], re.Pattern[str]]:
    plain = "".join(re.escape(chr(c)) for c in range(0x80) if not strings[c])
    if between[0]:  # every character >= 0x80 is bad too: the class of the good ones, negated
        good = "".join(re.escape(chr(c)) for c in range(0x80) if not between[c])
        return re.compile(f"[^{good}]"), re.compile(f"[^{plain}]")
    bad = "".join(re.escape(chr(c)) for c in range(0x80) if between[c])
    return re.compile(f"[{bad}]" if bad else "(?!)"), re.compile(f"[^{plain}]")


def _json_spans_py(text: str, start: int, between: bytes, strings: bytes) -> list[int] | None:
    """From ``text[start]`` (outside any string): None if a character ``between`` flags is
    outside the strings, else ``[open, s0, e0, s1, e1, ...]``: the content spans of the
    complete strings holding a non-ASCII character or one ``strings`` flags (every string
    if it flags '"'), and the index of the quote of a string the text leaves open (-1 if
    none).  A backslash takes the next character."""
    if len(between) != 0x80 or len(strings) != 0x80 or not strings[0x5C]:
        raise ValueError("json_strings() tables must be 128 bytes, strings flagging '\\'")
    bad, flagged = _twin_patterns(between, strings)
    end = _COMPLETE.match(text, start).end()  # type: ignore[union-attr]  # matches ""
    out = [end if end < len(text) else -1]
    at = start
    for m in _STRING.finditer(text, start, end):
        if bad.search(text, at, m.start()) is not None:
            return None
        if strings[0x22] or flagged.search(text, m.start(1), m.end(1)) is not None:
            out += m.span(1)
        at = m.end()
    return None if bad.search(text, at, end) is not None else out


def _json_strings_py(
    text: str, start: int, between: bytes, strings: bytes
) -> tuple[int, str, list[int]] | None:
    """The pure-Python twin of jsonscan.c's ``json_strings``: ``(open, joined, starts)``,
    the index of the quote of a string the text leaves open (-1 if none), the contents
    of the strings that need judging with their escapes resolved, joined by
    ``_SEPARATOR``, and where each starts in ``joined``; None if a character ``between``
    flags is outside the strings, or a string has an invalid escape or one that leaves
    a lone surrogate (RFC 8259 §8.2; a pair is one character)."""
    spans = _json_spans_py(text, start, between, strings)
    if spans is None:
        return None
    values = []
    for a, b in zip(spans[1::2], spans[2::2], strict=True):
        value = text[a:b]
        if "\\" in value:
            if _CONTENT.fullmatch(value) is None:  # an invalid escape
                return None
            value = _unescape(value)
            if _SURROGATE.search(value) is not None:
                try:
                    value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
                except UnicodeDecodeError:
                    return None
        values.append(value)
    starts = [0, *itertools.accumulate(len(v) + 1 for v in values[:-1])] if values else []
    return spans[0], _SEPARATOR.join(values), starts


_json_strings: Callable[[str, int, bytes, bytes], tuple[int, str, list[int]] | None] = (
    _json_strings_py if web_speedups is None else web_speedups.json_strings
)


@functools.lru_cache(maxsize=64)
def _flagged_ascii(ascii_allowed: bytes) -> re.Pattern[str]:
    """Matches any character a policy might report: non-ASCII, or an ASCII character not
    in ``ascii_allowed`` (its ASCII in no scanned category).  Text with no match needs
    no ``inspect``."""
    return re.compile("[^" + re.escape(ascii_allowed.decode("ascii")) + "]")


def _unescape(content: str) -> str:
    """JSON string content (valid escapes only) to text; lone surrogates are kept."""
    return str(json.loads('"' + content + '"', strict=False))


def _unescape_lenient(content: str) -> str:
    """JSON string content to text as the streaming walk (``_string_run``) reads it, so
    that a verdict never depends on the chunking: valid escapes resolved, an invalid one
    kept as its two raw characters.  (A string with an invalid escape is not JSON, RFC
    8259 §7, and the app's parser refuses it; its characters are judged all the same.)"""
    parts: list[str] = []
    i, n = 0, len(content)
    while True:
        k = _CONTENT.match(content, i).end()  # type: ignore[union-attr]  # matches ""
        run = content[i:k]
        parts.append(_unescape(run) if "\\" in run else run)
        if k >= n:
            return "".join(parts)
        parts.append(content[k : k + 2])
        i = k + 2


class _Reading(NamedTuple):
    """What a JSONBody derives from its policy, built once per policy (a request with a
    small body would otherwise pay for it each time)."""

    bad_between: re.Pattern[str]  # controls refused between tokens
    between_table: bytes  # the same for json_strings
    strings_table: bytes  # what makes a string need judging, for json_strings
    policy: Policy
    flagged: re.Pattern[str]  # characters the policy may report
    # The C fast path's arguments when one C call is the policy's verdict: then a
    # failing bulk check is narrowed to the strings the C scan flags.
    direct_args: CArgs | None
    batch: bool  # strings can be checked together: no check looks at a whole value


# compiled policy -> its readings (JSON, JSON text sequence, by content), by identity
_READINGS: IdentityCache[dict[str, _Reading]] = IdentityCache(64)
_BETWEEN = {
    "json": (_BAD_BETWEEN, _BETWEEN_TABLE),
    "json-seq": (_BAD_BETWEEN_SEQ, _BETWEEN_SEQ_TABLE),
    "by-content": (_NOTHING_BETWEEN, _NOTHING_TABLE),
}


def _reading(compiled: CompiledPolicy, mode: str) -> _Reading:
    readings = _READINGS.lookup(id(compiled))
    if readings is None:
        readings = _READINGS.store(compiled, {})
    reading = readings.get(mode)
    if reading is None:
        reading = readings[mode] = _Reading(
            *_BETWEEN[mode],
            _strings_table(compiled.ascii_allowed, compiled.judges_whole_values),
            compiled.policy,
            _flagged_ascii(compiled.ascii_allowed),
            compiled.direct_verdict_args if speedups is not None else None,
            not compiled.judges_whole_values,
        )
    return reading


_NOT_JSON = Utf8Error("utf-8", b"\xff", 0, 1, "")  # (its kind: invalid-byte) "no JSON here"
_JSON_SPACE = re.compile("[ \t\r\n]*")  # RFC 8259 §2, as json.loads skips it


class _WideDecoder:
    """A UTF-16 or UTF-32 body read by content, as ``json.loads`` of bytes decodes it
    (``json.detect_encoding``; "surrogatepass"), behind IncrementalDecoder's interface:
    an error, or a first character after whitespace that starts no JSON text holding a
    string (not ``{``, ``[`` or ``"``), is reported as "not JSON" (an ``invalid-byte``
    error the caller drops) -- as the UTF-8 reading looks at its first byte."""

    def __init__(self, encoding: str) -> None:
        self._codec = codecs.getincrementaldecoder(encoding)("surrogatepass")
        self._started = False  # a character other than whitespace was decoded

    def feed(self, data: bytes, final: bool, limit: int = 1) -> tuple[str, list[Utf8Error]]:
        try:
            text = self._codec.decode(data, final)
        except UnicodeDecodeError:
            return "", [_NOT_JSON]
        if not self._started:
            first = _JSON_SPACE.match(text).end()  # type: ignore[union-attr]  # matches ""
            if first < len(text):
                self._started = True
                if text[first] not in '{["':
                    return "", [_NOT_JSON]
        return text, []

    def getstate(self) -> tuple[bytes, int]:
        return self._codec.getstate()


class JSONBody(BodyCheck):
    """RFC 8259: the body must be UTF-8 (§8.1); every string, keys included, is checked
    with its escapes resolved -- ``\\u202e`` is a bidi override however it is spelt --
    and escapes that leave a lone surrogate (``\\ud800``, §8.2) are refused.  The JSON
    grammar itself is left to the app's parser, so newline-delimited JSON is read alike
    (each record's strings are checked); ``sequence=True`` reads a JSON text sequence
    (RFC 7464), whose records start with RS."""

    gather = GATHER

    def __init__(
        self,
        compiled: CompiledPolicy,
        limit: int | None,
        *,
        sequence: bool = False,
        mode: str | None = None,
        utf8: IncrementalDecoder | _WideDecoder | None = None,
    ) -> None:
        super().__init__(limit)
        if mode is None:
            mode = "json-seq" if sequence else "json"
        (
            self._bad_between,
            self._between_table,
            self._strings_table,
            self._policy,
            self._flagged,
            self._direct_args,
            self._batch,
        ) = _reading(compiled, mode)
        # Strict RFC 3629 decoding (an error's stream_start: its offset in the body); a
        # chunk's incomplete last sequence waits for the next; the first error refuses
        # the body.  (JSONByContent gives its own for a body that starts with a UTF-16
        # or UTF-32 byte order mark.)
        self._utf8: IncrementalDecoder | _WideDecoder = (
            IncrementalDecoder() if utf8 is None else utf8
        )
        self._pos = 0  # character offset of the text _lex gets next (its carry included)
        self._carry = ""  # an escape cut by the chunk boundary
        self._in_string = False
        self._start = 0  # character offset of the open string's opening quote
        self._parts: list[str] = []  # the open string's text so far
        # Whether the open string has a backslash: only an escape can put a surrogate in
        # it (the decoder is strict), so only then is its value searched for a lone one.
        self._escaped = False
        self._judged_bytes = 0  # body bytes before the open string (or before undecoded bytes)

    def _feed(self, chunk: bytes) -> Problem | None:
        return self._decoded(chunk, final=False)

    def _close(self) -> Problem | None:
        problem = self._decoded(b"", final=True)
        if problem is None and self._in_string:  # cut short: check what there is anyway
            problem = self._string_problem("".join(self._parts), self._start, self._escaped)
        return problem

    def _decoded(self, chunk: bytes, final: bool) -> Problem | None:
        text, errors = self._utf8.feed(chunk, final, limit=1)
        if errors:  # the UTF-8 error is the problem, unless the text before it has one:
            # that text is lexed first, so the body's first problem is the one reported
            # however it was chunked (``text`` ends with the error's U+FFFD)
            problem = self._ill_formed(errors[0])
            if problem is not None and len(text) > 1 and text[-1] == "\ufffd":
                problem = self._lex(text[:-1]) or problem
            return problem
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

    def _ill_formed(self, error: Utf8Error) -> Problem | None:
        return ill_formed(error, "json", "JSON body", error.stream_start)

    def _judged_size(self) -> int:
        return self._judged_bytes

    def _lex(self, text: str) -> Problem | None:
        if self._carry:
            text, self._carry = self._carry + text, ""
        base, i = self._pos, 0
        if base == 0 and text.startswith("\ufeff"):
            i = 1  # a UTF-8 byte order mark, which json.loads(bytes) skips (json.detect_encoding)
        if self._in_string:
            i, problem = self._string_run(text, 0, base)
            if problem is not None or i < 0:
                return problem
        found = _json_strings(text, i, self._between_table, self._strings_table)
        if found is None or (found[2] and not self._strings_pass(found[1], found[2])):
            # Something fails (a control between tokens, a string): say what and where.
            end = _COMPLETE.match(text, i).end()  # type: ignore[union-attr]  # matches ""
            problem = self._region_slowly(text[i:end], base + i)
            if problem is not None:
                return problem
            open_at = end if end < len(text) else -1
        else:
            open_at = found[0]
        if open_at < 0:
            self._pos = base + len(text)
            return None
        self._in_string, self._start, self._parts = True, base + open_at, []
        self._escaped = False
        _, problem = self._string_run(text, open_at + 1, base)  # runs out: the string is open
        return problem

    def _string_run(self, text: str, i: int, base: int) -> tuple[int, Problem | None]:
        """Go on with the open string from text[i]: (index after its closing quote, or -1
        when the text ends first, and the problem found).  The usual case is one call of
        the stdlib's string scanner in C (a string of 1 MiB of escapes read through
        ``_CONTENT`` cost ten times json.loads); an invalid escape, or one cut by the end
        of the text, takes the regex walk below.  Text without a backslash is its own
        value: two searches and a slice (a chunk of an open string costs no scan)."""
        quote = text.find('"', i)
        if text.find("\\", i, len(text) if quote < 0 else quote) < 0:
            if quote < 0:  # it runs out: all of it is this string's
                self._parts.append(text[i:])
                self._pos = base + len(text)
                return -1, None
            self._parts.append(text[i:quote])
            self._in_string = False
            value, self._parts = "".join(self._parts), []
            return quote + 1, self._string_problem(value, self._start, self._escaped)
        self._escaped = True
        try:
            value, end = _scanstring(text, i, False)  # strict=False: controls are judged
        except ValueError:  # no closing quote (or an escape to look at): the text ends?
            try:
                value, _ = _scanstring(text + '"', i, False)
            except ValueError:  # an escape cut by the end? the walk below takes it on
                k = text.rfind("\\", max(i, len(text) - 6))  # (\uXXXX is six long)
                if k >= 0:
                    try:
                        value, _ = _scanstring(text[:k] + '"', i, False)
                    except ValueError:
                        pass
                    else:
                        self._parts.append(value)
                        i = k
            else:  # it runs out: all of it is this string's
                self._parts.append(value)
                self._pos = base + len(text)
                return -1, None
        else:
            self._parts.append(value)
            self._in_string = False
            value, self._parts = "".join(self._parts), []
            return end, self._string_problem(value, self._start, True)
        n = len(text)
        while True:
            k = _CONTENT.match(text, i).end()  # type: ignore[union-attr]
            if k > i:
                run = text[i:k]
                self._parts.append(_unescape(run) if "\\" in run else run)
            if k < n and text[k] == '"':
                self._in_string = False
                value, self._parts = "".join(self._parts), []
                return k + 1, self._string_problem(value, self._start, True)
            if k == n:
                self._pos = base + n
                return -1, None
            if _PARTIAL_ESCAPE.fullmatch(text, k):  # cut by the chunk: wait for the rest
                self._carry = text[k:]
                self._pos = base + k
                return -1, None
            # An invalid escape: not JSON, the app's parser will refuse it; its two
            # characters are judged as they are (as _unescape_lenient reads them).
            self._parts.append(text[k : k + 2])
            i = k + 2

    def _strings_pass(self, joined: str, starts: list[int]) -> bool:
        """Every string json_strings returned passes: ``joined`` holds them, escapes
        resolved, each value starting at ``starts[k]`` after a separator."""
        if not self._batch:
            ends = [k - 1 for k in starts[1:]] + [len(joined)]
            return all(
                self._string_problem(joined[a:b], 0, False) is None  # pairs joined in C
                for a, b in zip(starts, ends, strict=True)
            )
        args = self._direct_args
        if args is None:
            return accepts(joined, self._policy)
        stage1, stage2, tables, max_run = args
        assert speedups is not None
        if speedups.clean(joined, stage1, stage2, tables, max_run) is not None:
            return True
        # Text cut before an ASCII character is judged alike (see _text.TextStream), so
        # the verdict is that of each piece: the first value, then each separator with
        # the value after it.  Only the pieces the C scan flags go to the engine (a body
        # with a few strings in Devanagari would take it over the whole), unless there
        # are many: then the whole goes, in one call (Python work per flagged string
        # made an array of NFD words cost over 100 times its clean twin).
        flagged: list[str] = []
        n, pos, last = len(joined), 0, len(starts) - 1
        while pos < n:
            at = speedups.scan(joined, stage1, stage2, tables, max_run, pos)
            if at >= n:
                break
            if len(flagged) == _FLAGGED_MAX:
                return accepts(joined, self._policy)
            k = bisect.bisect_right(starts, at + 1) - 1  # a separator is its next piece's
            piece_end = starts[k + 1] - 1 if k < last else n
            flagged.append(joined[max(0, starts[k] - 1) : piece_end])
            pos = piece_end
        return accepts("".join(flagged), self._policy)

    def _region_slowly(self, region: str, base: int) -> Problem | None:
        """The first problem of ``region``, string by string in input order.  The strings
        are judged in batches, each twice the last: one that passes together (joined as
        ``_strings_pass`` joins them) passes, one that fails is halved down to its first
        string that fails alone (``_first_of``), so a refusal after many strings the
        engine must judge costs a few policy calls, not one a string."""
        at = 0
        pending: list[tuple[str, int, bool]] = []  # (value, start, escaped), unjudged
        batch = _FIRST_BATCH
        for m in _STRING.finditer(region):
            bad = self._bad_between.search(region, at, m.start())
            if bad is not None:
                return self._first_of(pending) or json_control(base + bad.start(), bad.group())
            content = m.group(1)
            escaped = "\\" in content
            if escaped:
                content = _unescape_lenient(content)
            pending.append((content, base + m.start(), escaped))
            if len(pending) == batch:
                problem = self._first_of(pending)
                if problem is not None:
                    return problem
                pending, batch = [], 2 * batch
            at = m.end()
        return self._first_of(pending) or self._between(region, at, len(region), base)

    def _first_of(self, strings: list[tuple[str, int, bool]]) -> Problem | None:
        """The problem of the first of ``strings`` that has one (see _region_slowly)."""
        stack = [(0, len(strings))]
        while stack:
            lo, hi = stack.pop()
            if hi <= lo:
                continue
            if hi - lo == 1:
                problem = self._string_problem(*strings[lo])
                if problem is not None:
                    return problem
                continue
            if self._batch:
                values = [value for value, _, _ in strings[lo:hi]]
                if not any(map(_SURROGATE.search, values)) and accepts(
                    _SEPARATOR.join(values), self._policy
                ):
                    continue  # (a surrogate is judged alone: it may pair across strings)
            mid = (lo + hi) // 2
            stack += ((mid, hi), (lo, mid))
        return None

    def _between(self, region: str, start: int, end: int, base: int) -> Problem | None:
        bad = self._bad_between.search(region, start, end)
        if bad is None:
            return None
        return json_control(base + bad.start(), bad.group())

    def _string_problem(self, value: str, start: int, escaped: bool) -> Problem | None:
        """The problem of a string's ``value`` (escapes resolved); ``escaped``: the string
        had a backslash, so its value may hold surrogates (RFC 8259 §7: only as escapes)."""
        if escaped and _SURROGATE.search(value):  # a pair's escapes are one character
            try:
                value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
            except UnicodeDecodeError:
                return lone_surrogate_escape(f"JSON string at character {start}")
        # Plain allowed ASCII passes, unless the policy judges whole values (a length limit).
        if (self._batch and self._flagged.search(value) is None) or accepts(value, self._policy):
            return None
        first = first_rejection(value, self._policy)
        if first is None:
            return None
        where = f"JSON string at character {start}"
        return replace(from_finding(first, "json", where), offset=None)


def json_text_problem(compiled: CompiledPolicy, text: str) -> Problem | None:
    """``text`` read as ``json.loads`` reads a str (no encoding to detect): if its first
    character after whitespace may start a JSON text holding a string, its strings judged
    by ``compiled`` with their escapes resolved (a lone surrogate refused); text that is
    no JSON refuses nothing."""
    first = _JSON_SPACE.match(text).end()  # type: ignore[union-attr]  # matches ""
    if text[first : first + 1] not in ("{", "[", '"'):
        return None
    check = JSONByContent(compiled)
    return check.feed(text.encode("utf-8", "surrogatepass")) or check.close()


class JSONByContent(JSONBody):
    """A body a framework's JSON accessor parses whatever its label (docs/web.md, "JSON
    by content"): read as ``json.loads`` reads bytes -- UTF-16 or UTF-32 after such a
    byte order mark, else UTF-8 with "surrogatepass".  Bytes that do not decode so are no
    JSON to any framework's parser: then nothing is refused (a binary body that starts
    with '{'); a problem found before them counts only if the whole body decodes."""

    def __init__(self, compiled: CompiledPolicy, wide: str | None = None) -> None:
        super().__init__(
            compiled, None, mode="by-content", utf8=None if wide is None else _WideDecoder(wide)
        )
        self._not_json = False
        # Whether the body decodes as json.loads decodes it, asked of that very decoder
        # over every byte of every chunk: the strict decoder stops at its first error,
        # which may be an encoded surrogate json.loads reads.  (A UTF-16 or UTF-32 body's
        # decoder is json.loads' own already.)
        self._loads_decoder = (
            codecs.getincrementaldecoder("utf-8")("surrogatepass") if wide is None else None
        )
        self._pending: Problem | None = None  # refused at the end if the body decodes

    def _feed(self, chunk: bytes) -> Problem | None:
        if self._not_json or not self._loads_decodes(chunk, final=False):
            return None
        if self._pending is None:  # once one is pending, only whether the rest decodes
            self._pending = self._decoded(chunk, final=False)
        return None

    def _loads_decodes(self, chunk: bytes, final: bool) -> bool:
        """Whether the body so far still decodes as json.loads decodes it (else
        ``_not_json`` is set)."""
        if self._loads_decoder is not None:
            try:
                self._loads_decoder.decode(chunk, final)
            except UnicodeDecodeError:
                self._not_json = True
        elif self._pending is not None and self._utf8.feed(chunk, final, limit=1)[1]:
            self._not_json = True  # wide: its decoder is json.loads' own (fed here once a
            # problem is pending, since only whether the rest decodes matters then)
        return not self._not_json

    def _close(self) -> Problem | None:
        if not self._not_json:
            self._loads_decodes(b"", final=True)
        if self._not_json or self._pending is not None:
            return None if self._not_json else self._pending
        problem = super()._close()
        return None if self._not_json else problem

    def _ill_formed(self, error: Utf8Error) -> Problem | None:
        if error.kind is not ErrorKind.SURROGATE:  # (json.loads reads an encoded one)
            self._not_json = True  # no framework parses this as JSON
            return None
        return super()._ill_formed(error)
