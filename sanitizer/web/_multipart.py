"""multipart/form-data bodies (RFC 7578), through python-multipart's streaming parser
(the one Starlette uses), so parts are judged as they stream.

Part headers are strictly decoded; names, filenames (``filename*`` too, which Werkzeug
and Django honour) and the content of parts without a filename are checked; file content
passes untouched.  python-multipart is the ``web`` extra, imported when a check is made.

``judged()`` holds back what a check may still refuse: a part's headers until
they are parsed, an open text field's unchecked run, and the tail that may still turn out
to be a delimiter (python-multipart's partial boundary match, and the delimiter check's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._body import GATHER, BodyCheck
from ._compiled_web import CompiledWebPolicy
from ._grammar import parse_disposition, parse_media_type
from ._problems import SAMPLE_SIZE, Problem, ambiguous, labelled, malformed, with_sample
from ._readings import disagree_on_raw_bytes, escaped_readings
from ._text import TextStream
from ._value_checks import charset_problem, field_problem, value_problem

if TYPE_CHECKING:
    from collections.abc import Callable


class MultipartBody(BodyCheck):
    """RFC 7578 bodies through python-multipart's streaming parser (the one Starlette
    uses).  Part headers are strictly decoded; names, filenames (``filename*`` too, which
    Werkzeug and Django honour) and the content of parts without a filename are checked;
    file content passes untouched."""

    gather = GATHER

    def __init__(self, compiled: CompiledWebPolicy, limit: int | None, boundary: bytes) -> None:
        super().__init__(limit)
        from python_multipart.multipart import MultipartParser, MultipartState

        self._states = MultipartState
        self._compiled = compiled
        self._found: Problem | None = None
        self._ended = False
        self._number = 0
        self._header_name = bytearray()
        self._header_value = bytearray()
        self._headers: list[tuple[bytes, bytes]] = []
        self._text: TextStream | None = None
        self._charset: bytearray | None = None  # the value of a `_charset_` field, so far
        # A boundary sent as a quoted-string comes in its quotes (_head.loose_boundary):
        # BlackSheep reads them as part of it, so its delimiters are refused in the body.
        self._quoted_marker: bytes | None = None
        if boundary[:1] == b'"':
            boundary = boundary[1:-1]
            self._quoted_marker = b'--"' + boundary + b'"'
        self._quoted_carry = b""
        self._marker = b"--" + boundary  # RFC 2046 §5.1.1 dash-boundary
        self._seen = 0  # body bytes scanned for delimiters
        self._pending = b""  # scanned bytes that may start a delimiter not yet judged
        self._before = b""  # the two bytes before ``_pending`` (or fewer at the start)
        self._judged = 0  # body offset up to which delimiters were judged
        self._opened = False  # the first delimiter was seen (the preamble is judged)
        self._closed_at: int | None = None  # body offset just after the close delimiter
        self._part_start = 0  # body offset of the current part's headers
        self._delimiters_judged = 0  # body offset before which no delimiter is unjudged
        self._text_fed = 0  # bytes of the open text field handed to its TextStream
        self._marker_free = False  # the last chunk held no "--boundary", whole or started
        # A part that declares UTF-7 is refused once its first SAMPLE_SIZE bytes (or all of
        # them) are at hand, so that the problem says what they spelled; until
        # then nothing from its headers on is judged (``_utf7_from``; ``_part_start`` may
        # have run ahead to a later delimiter in the chunk being parsed, so not past that
        # chunk's start either).
        self._utf7: Problem | None = None
        self._utf7_sample = bytearray()
        self._utf7_from = 0
        self._write_base = 0  # body offset of the chunk python-multipart is parsing
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

        problem = self._delimiters(chunk)
        if problem is None and self._quoted_marker is not None:
            problem = self._quoted_delimiters(chunk)
        if problem is not None:
            return problem if self._utf7 is None else self._utf7_problem()
        self._write_base = self._seen - len(chunk)
        if self._file_data_only(chunk):
            return self._found
        try:
            self._parser.write(chunk)
        except _Stop:
            pass
        except MultipartParseError:
            problem = malformed("multipart", "multipart body", "not parseable as RFC 7578")
            return problem if self._utf7 is None else self._utf7_problem()
        return self._found

    def _file_data_only(self, chunk: bytes) -> bool:
        """The chunk is the middle of a file part's data, which python-multipart would
        only hand on (its state unchanged), so it need not parse it.  That is the case in
        part data with no partial boundary carried in (``index`` 0) or out (the chunk ends
        in no prefix of CRLF "--boundary": the delimiter check found none of "--boundary",
        whole or started, so only "\r" or "\r\n" at the end is left to rule out), and no
        check of the part reads its data (a file, no UTF-7 sample to take).  Skipping it
        saves python-multipart's scan of file data (about half the cost of an upload)."""
        if not self._marker_free or self._text is not None or self._utf7 is not None:
            return False
        parser = self._parser
        return (
            parser.state == self._states.PART_DATA
            and parser.index == 0
            and parser.marks.get("part_data") == 0  # data is handed on from the chunk start
            and not chunk.endswith(b"\r")
            and not chunk.endswith(b"\r\n")
        )

    def _quoted_delimiters(self, chunk: bytes) -> Problem | None:
        """A boundary sent quoted: ``--"boundary"`` anywhere in the body is a delimiter to
        BlackSheep (which keeps the quotes) and content to every other parser, so fields
        could hide in what the others read as a file."""
        marker = self._quoted_marker
        assert marker is not None
        buf = self._quoted_carry + chunk
        if marker in buf:
            return ambiguous("multipart", "multipart body", _QUOTED_DELIMITER)
        self._quoted_carry = buf[-(len(marker) - 1) :]
        return None

    def _delimiters(self, chunk: bytes) -> Problem | None:
        """Every ``--boundary`` in the body must be a delimiter line every framework reads
        as one: after CRLF (or at the start), followed by CRLF or by "--" (RFC 2046 §5.1.1;
        python-multipart allows padding, Django and Werkzeug differ on LF alone), and
        nothing but CR, LF, space or TAB after the close delimiter (Django still parses
        a part there)."""
        marker = self._marker
        self._marker_free = False  # set below: no "--boundary", whole or started, in chunk
        if self._closed_at is not None:  # (what came before was judged with its chunk)
            self._seen += len(chunk)
            if chunk.strip(b"\r\n \t"):
                return ambiguous("multipart", "multipart body", _AFTER_CLOSE)
            self._delimiters_judged = self._seen
            return None
        # Only a delimiter that may span two chunks is joined with the chunk (at most the
        # marker and a byte): the chunk itself is scanned where it is, never copied.
        pending, before = self._pending, self._before
        buf = pending + chunk if pending else chunk
        base = self._seen - len(pending)  # body offset of buf[0]
        self._seen += len(chunk)
        if not self._opened and buf:
            # The preamble (RFC 2046 §5.1.1): python-multipart skips leading CR/LF and then,
            # within the same write only, everything up to the first "-", so what it reads
            # there depends on how the body is split; Werkzeug and Django skip it all.
            # After a leading CR/LF only CR/LF may come before the first delimiter.  (Other
            # text at the start python-multipart refuses however the body is split.)
            first = 0 if base == 0 and buf[0] not in b"\r\n" else buf.find(marker)
            if buf[: first if first >= 0 else _unresolved(buf, marker, 0)].strip(b"\r\n"):
                return ambiguous("multipart", "multipart body", _PREAMBLE)
            self._opened = first >= 0
        pos = buf.find(b"-", max(0, self._judged - base))  # memchr: no marker before it
        pos = first = len(buf) if pos < 0 else pos  # (most text has few dashes: 20x faster)
        while (i := buf.find(marker, pos)) >= 0:
            end = i + len(marker)
            if end + 2 > len(buf):
                break  # judged with the next chunk (or refused at the end)
            at = base + i
            self._judged = at + 1
            pos = i + 1
            preceding = buf[i - 2 : i] if i >= 2 else (before + buf[:i])[-2:]
            if at != 0 and preceding != b"\r\n":
                return ambiguous("multipart", "multipart body", _DELIMITER)
            follows = buf[end : end + 2]
            if follows == b"--":
                self._closed_at = base + end + 2
                self._delimiters_judged = self._seen
                if buf[end + 2 :].strip(b"\r\n \t"):
                    return ambiguous("multipart", "multipart body", _AFTER_CLOSE)
                return None
            if follows != b"\r\n":
                return ambiguous("multipart", "multipart body", _DELIMITER)
            self._part_start = base + end + 2  # the next part's headers start here
        unresolved = _unresolved(buf, marker, pos)
        self._marker_free = i < 0 and pos == first and unresolved == len(buf)
        self._delimiters_judged = base + unresolved
        self._pending = buf[unresolved:]
        self._before = (
            buf[unresolved - 2 : unresolved]
            if unresolved >= 2
            else (before + buf[:unresolved])[-2:]
        )
        return None

    def _judged_size(self) -> int:
        """The lowest offset a check may still refuse because of (the module docstring):
        the current part's headers until they are parsed; in part data, the partial
        boundary python-multipart holds (``index`` bytes, at most the delimiter and the
        CR or "-" after it) and an open text field's unchecked run; and any ``--boundary``
        the delimiter check has not yet seen followed by two bytes."""
        states, parser = self._states, self._parser
        state = parser.state
        if state == states.PART_DATA:
            judged = self._seen - parser.index  # the data python-multipart has emitted
            if self._text is not None:
                judged -= self._text_fed - self._text.judged
        elif state == states.END:
            judged = self._seen
        elif state in (states.START, states.START_BOUNDARY):
            judged = 0  # the preamble and first delimiter: nothing to hand over yet
        else:  # a part's headers (or a state the delimiter check refuses before)
            judged = self._part_start
        if self._utf7 is not None:  # the part will be refused: none of it is handed over
            judged = min(judged, self._utf7_from)
        return min(judged, self._delimiters_judged)

    def _close(self) -> Problem | None:
        if self._utf7 is not None:  # the body ended inside the part
            return self._utf7_problem()
        if not self._ended and self.size:  # an empty body holds no form to misread
            return malformed("multipart", "multipart body", "ends before its closing boundary")
        return None

    # python-multipart callbacks: data callbacks get (buffer, start, end).

    def _stop(self, problem: Problem | None) -> None:
        if problem is not None:  # a UTF-7 charset found before wins, with what is at hand
            self._found = problem if self._utf7 is None else self._utf7_problem()
            raise _Stop

    def _utf7_problem(self) -> Problem | None:
        """The pending UTF-7 refusal with what its part's data spelled so far."""
        pending = self._utf7
        return None if pending is None else with_sample(pending, bytes(self._utf7_sample))

    @staticmethod
    def _data(into: bytearray) -> Callable[[bytes, int, int], None]:
        def collect(data: bytes, start: int, end: int) -> None:
            into.extend(data[start:end])

        return collect

    def _part_begin(self) -> None:
        self._number += 1
        self._headers = []
        self._text = None
        self._text_fed = 0

    def _header_end(self) -> None:
        self._headers.append((bytes(self._header_name), bytes(self._header_value)))
        self._header_name.clear()
        self._header_value.clear()

    def _headers_finished(self) -> None:
        compiled, number = self._compiled, self._number
        where = f"header of multipart part #{number}"
        part = f"multipart part #{number}"
        seen: set[bytes] = set()
        disposition: str | None = None
        params: dict[str, bytes] = {}  # Content-Disposition parameters, names as sent
        for raw_name, raw_value in self._headers:
            name = raw_name.strip().lower()
            if name in seen:  # python-multipart and Django keep the last, Werkzeug the first
                self._stop(ambiguous("multipart", where, "header repeated in one part"))
            seen.add(name)
            # Parameters are read from the raw bytes (as latin-1, byte for byte) so that a
            # problem names the parameter; the whole header is checked after them.
            value = raw_value.decode("latin-1")
            if name == b"content-disposition":  # RFC 7578 §4.2, parameters as RFC 6266
                parsed = parse_disposition(value)
                if parsed is None:
                    self._stop(ambiguous("multipart", where, _UNCLEAR_PARAMETERS))
                    return
                disposition, pairs = parsed
                for key, val in pairs:
                    if key.lower() in (k.lower() for k in params):
                        self._stop(ambiguous("multipart", where, f"repeated {key} parameter"))
                    params[key] = val.encode("latin-1")
            elif name == b"content-type":
                media = parse_media_type(raw_value)
                if media is None:
                    self._stop(malformed("multipart", where, "ambiguous Content-Type"))
                else:
                    problem = charset_problem(compiled, media[1], where, "multipart")
                    if problem is not None and problem.utf7:  # refused with its data
                        self._utf7 = problem
                        self._utf7_from = min(self._part_start, self._write_base)
                        self._utf7_sample.clear()
                    else:
                        self._stop(problem)
            elif name == b"content-transfer-encoding" and value.strip().lower() not in (
                *("7bit", "8bit", "binary"),
            ):  # RFC 7578 §4.7: not to be used; Django still decodes base64 and q-p parts
                self._stop(malformed("multipart", where, "Content-Transfer-Encoding"))
        if disposition != "form-data" or "name" not in params:
            self._stop(malformed("multipart", part, "no form-data name (RFC 7578 §4.2)"))
        name = params["name"]
        what = "multipart field"
        self._stop(field_problem(name, b"", number, what, compiled, None, "multipart"))
        # and as the readers that undo the HTML standard's escapes read it (_readings:
        # Werkzeug and Quart read %22 as '"', the multipart package also %0D, %0A)
        for read in escaped_readings("multipart name", name):
            self._stop(field_problem(read, b"", number, what, compiled, None, "multipart"))
        label = labelled(what, name, number)
        for key, given in params.items():
            if key.endswith("*"):  # RFC 8187, checked first so that the problem is named
                given = self._extended(given.decode("latin-1"), label)
                check = compiled.filenames if key.startswith("filename") else compiled.names
                self._stop(value_problem(given, check, "multipart", f"{key} of {label}"))
            elif key.lower() == "filename" and given:  # empty: a file input left empty
                where_key = f"{key} of {label}"
                self._stop(value_problem(given, compiled.filenames, "multipart", where_key))
                # and as the readers that undo HTML escapes (Werkzeug, Quart, Litestar)
                # and Django (HTML character references) read it (_readings)
                readings = escaped_readings("multipart filename", given)
                django = _django_filename(given)
                for read in (*readings, *([django] if django is not None else [])):
                    if read != given:
                        check = compiled.filenames
                        self._stop(value_problem(read, check, "multipart", where_key))
        for key in params:
            if "*" in key:  # python-multipart ignores name*, filename*, filename*0 (RFC 2231
                # continuations); Werkzeug and Django read them instead of the plain one
                self._stop(ambiguous("multipart", where, f"{key} parameter (RFC 7578 §4.2)"))
            elif key != key.lower():  # python-multipart reads FILENAME as no filename
                self._stop(ambiguous("multipart", where, f"{key} parameter not in lower case"))
        for raw_name, raw_value in self._headers:
            self._stop(value_problem(raw_value, compiled.headers, "multipart", where))
            # raw bytes >= 0x80 in a part header other than Content-Disposition (whose
            # name and filename every reader takes as UTF-8): Starlette reads them as
            # Latin-1 (_readings)
            name = raw_name.strip().lower()
            if _PART_HEADER_RAW and name != b"content-disposition" and not raw_value.isascii():
                self._stop(ambiguous("multipart", where, _PART_HEADER_RAW))
        # A part is a file, its content passed untouched, only when every framework reads
        # it as one: a non-empty filename (Django reads filename="" as a field).  Every
        # other part is a text field whatever its Content-Type: Starlette, Werkzeug and
        # Django all hand it to the app as text (RFC 7578 §4.4 notwithstanding).
        is_file = bool(params.get("filename"))
        # RFC 7578 §4.6: a text field named "_charset_" sets the default charset of the
        # fields after it (aiohttp and BlackSheep honour it, _readings): its value is a
        # charset parameter, refused unless one of the policy's charsets.
        charset_field = params["name"] == b"_charset_" and not is_file
        self._charset = bytearray() if charset_field else None
        if not is_file and compiled.form is not None and self._utf7 is None:
            self._text = TextStream(compiled.form.policy, "multipart", label)

    def _extended(self, value: str, label: str) -> bytes:
        """RFC 8187 §3.2 ext-value: charset'language'pct-encoded; UTF-8 only."""
        from urllib.parse import unquote_to_bytes

        charset, _, rest = value.partition("'")
        _, _, encoded = rest.partition("'")
        raw = unquote_to_bytes(encoded)
        if charset.lower() not in ("utf-8", "utf8"):
            params = {"charset": charset}
            self._stop(charset_problem(self._compiled, params, label, "multipart", raw))
        return raw

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if self._utf7 is not None:
            sample = self._utf7_sample
            sample += data[start : min(end, start + SAMPLE_SIZE - len(sample))]
            if len(sample) >= SAMPLE_SIZE:
                self._stop(self._utf7)
        if self._text is not None:
            self._text_fed += end - start
            self._stop(self._text.feed(data[start:end]))
        if self._charset is not None and len(self._charset) <= _CHARSET_MAX:
            self._charset += data[start : min(end, start + _CHARSET_MAX + 1 - len(self._charset))]

    def _part_end(self) -> None:
        if self._charset is not None:
            value, self._charset = bytes(self._charset).strip(), None
            label = f"multipart field '_charset_' (part #{self._number})"
            if len(value) > _CHARSET_MAX or not value.isascii():
                self._stop(malformed("multipart", label, "not a charset name"))
            elif value:
                params = {"charset": value.decode("ascii")}
                self._stop(charset_problem(self._compiled, params, label, "multipart"))
        if self._utf7 is not None:
            self._stop(self._utf7)
        if self._text is not None:
            text, self._text = self._text, None  # closed: the whole field is judged
            self._stop(text.close())

    def _end(self) -> None:
        self._ended = True


_CHARSET_MAX = 40  # longest charset label of the WHATWG Encoding standard: 19 characters


def _django_filename(raw: bytes) -> bytes | None:  # CWE-180: checked after it is decoded
    """A filename as Django hands it to the app (``MultiPartParser.sanitize_file_name``):
    HTML character references resolved (``&#xff0e;&#xff0e;`` is "．．"), the last
    ``/`` or ``\\`` segment kept, only printable characters; None when Django drops the
    file.  ``raw`` has passed the strict UTF-8 check."""
    import html

    name = html.unescape(raw.decode("utf-8", "replace"))
    name = name.rsplit("/")[-1].rsplit("\\")[-1]
    name = "".join(c for c in name if c.isprintable())
    return None if name in ("", ".", "..") else name.encode("utf-8")


def _unresolved(buf: bytes, marker: bytes, pos: int) -> int:
    """Index in ``buf`` (from ``pos``) of the first place a ``--boundary`` may start that
    the delimiter check could not judge yet: the whole marker without the two bytes after
    it, or a prefix of it at the end; ``len(buf)`` if none."""
    i = max(pos, len(buf) - len(marker) - 1)
    while (i := buf.find(b"-", i)) >= 0:
        tail = buf[i : i + len(marker)]
        if marker.startswith(tail) if len(tail) < len(marker) else tail == marker:
            return i
        i += 1
    return len(buf)


_PART_HEADER_RAW = disagree_on_raw_bytes("multipart header")
_DELIMITER = "boundary not on a delimiter line of its own (CRLF, the boundary, then CRLF or --)"
_AFTER_CLOSE = "text after the closing boundary, which some frameworks parse as a part"
_QUOTED_DELIMITER = "the quoted boundary with its quotes, a delimiter to BlackSheep"
_PREAMBLE = "text before the first boundary, which parsers skip or read depending on chunking"
_UNCLEAR_PARAMETERS = (
    "Content-Disposition parameters that parsers split differently: each value a token "
    "or a quoted-string without backslashes, nothing between parameters"
)


class _Stop(Exception):
    """Raised inside a parser callback to stop at the first problem."""
