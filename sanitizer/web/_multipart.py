"""multipart/form-data bodies (RFC 7578), through python-multipart's streaming parser
(the one Starlette uses), so parts are judged as they stream.

Part headers are strictly decoded; names, filenames (``filename*`` too, which Werkzeug
and Django honour) and the content of parts without a filename are checked; file content
passes untouched.  python-multipart is the ``web`` extra, imported when a check is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._body import BodyCheck
from ._compiled import CompiledWebPolicy
from ._grammar import parse_media_type, parse_params
from ._problems import Problem, labelled, malformed
from ._text import TextStream
from ._values import charset_problem, field_problem, value_problem

if TYPE_CHECKING:
    from collections.abc import Callable


class MultipartBody(BodyCheck):
    """RFC 7578 bodies through python-multipart's streaming parser (the one Starlette
    uses).  Part headers are strictly decoded; names, filenames (``filename*`` too, which
    Werkzeug and Django honour) and the content of parts without a filename are checked;
    file content passes untouched."""

    def __init__(self, compiled: CompiledWebPolicy, limit: int | None, boundary: bytes) -> None:
        super().__init__(limit)
        from python_multipart.multipart import MultipartParser

        self._compiled = compiled
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
        compiled, number = self._compiled, self._number
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
            if name == b"content-disposition":  # RFC 7578 §4.2, parameters as RFC 6266
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
                    self._stop(charset_problem(compiled, parsed[1], where, "multipart"))
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
        self._stop(field_problem(name, b"", number, what, compiled, None, "multipart"))
        label = labelled(what, name, number)
        is_file = False
        for key in ("filename", "filename*", "name*"):
            if key not in params:
                continue
            given = params[key]
            if key == "filename" and not given:
                continue  # what browsers send for a file input left empty (HTML §4.10.21.8)
            if key.endswith("*"):
                given = self._extended(given.decode("latin-1"), label)
            check = compiled.names if key == "name*" else compiled.filenames
            is_file = is_file or key.startswith("filename")
            self._stop(value_problem(given, check, "multipart", f"{key} of {label}"))
        for raw_value, where in later:
            self._stop(value_problem(raw_value, compiled.headers, "multipart", where))
        # RFC 7578 §4.4: a part's type defaults to text/plain; a field sent with another
        # type (application/octet-stream, image/png) is data, like a file's content.
        is_text = media is None or media.startswith("text/")
        if not is_file and is_text and compiled.form is not None:
            self._text = TextStream(compiled.form.policy, "multipart", label)

    def _extended(self, value: str, label: str) -> bytes:
        """RFC 8187 §3.2 ext-value: charset'language'pct-encoded; UTF-8 only."""
        from urllib.parse import unquote_to_bytes

        charset, _, rest = value.partition("'")
        _, _, encoded = rest.partition("'")
        if charset.lower() not in ("utf-8", "utf8"):
            self._stop(charset_problem(self._compiled, {"charset": charset}, label, "multipart"))
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
