"""How the CLI writes what it found, so that output can neither lie nor inject.

File names are attacker-controlled (an uploader picks them): a name holding a newline
would forge a second report line, an ESC would send terminal escapes to whoever runs the
scan, and a name that is not UTF-8 must neither crash the output nor put raw bytes into
JSON (RFC 8259 §8.1: JSON text is UTF-8).  So text output escapes every such character,
and JSON carries the name losslessly (``path_bytes``, base64, when it is not UTF-8).

``sanitizer check`` writes in one of three formats, each through one emitter behind one
interface, as ruff writes its diagnostics (``Emitter``: a finding, how many findings of
an input were counted but not shown, an input skipped and why, the end of the run): text
lines and JSON Lines here, SARIF in ``_sarif`` (loaded only for ``--format sarif``).
Which one a run uses is decided once, by name (``_report.EMITTERS``).

Output failures are never blamed on an input: a closed pipe (``| head``) ends the run
quietly with the conventional status 128 + SIGPIPE, like grep and cat killed by
SIGPIPE; any other write error (a full disk) is one line on stderr and exit 2.
"""

from __future__ import annotations

import errno
import os
import sys

import unicodedata2

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from ._record import NamedTuple

EXIT_BROKEN_PIPE = 128 + 13  # 128 + SIGPIPE, what a shell reports for grep | head
EXIT_IO = 2

# Characters shown as escapes in text output: C0/C1 controls and DEL, format characters
# (bidi controls U+202A..202E and U+2066..2069, zero-width characters: Trojan Source,
# CVE-2021-42574), line and paragraph separators, and lone surrogates, which is how
# os.fsdecode carries the bytes of a name that is not UTF-8 (PEP 383).
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


class OutputError(Exception):
    """Writing the report failed (not reading an input); ``.exc`` is the OSError."""

    def __init__(self, exc: OSError) -> None:
        super().__init__(str(exc))
        self.exc = exc

    def __reduce__(self) -> tuple[Any, ...]:
        # BaseException's would call this class with the message: made again from .exc.
        return type(self), (self.exc,), self.__dict__

    @property
    def broken_pipe(self) -> bool:
        return isinstance(self.exc, BrokenPipeError) or self.exc.errno == errno.EPIPE


def display_path(path: str) -> str:
    """``path`` for a terminal or a log line: one line, no control or bidi character,
    unambiguous (a backslash is doubled).  A byte of a non-UTF-8 name shows as ``\\xNN``."""
    if path.isascii() and path.isprintable() and "\\" not in path:
        return path
    out = []
    for ch in path:
        cp = ord(ch)
        if ch in _SHORT:
            out.append(_SHORT[ch])
        elif 0xDC80 <= cp <= 0xDCFF:  # surrogateescape: the original byte (PEP 383)
            out.append(f"\\x{cp - 0xDC00:02x}")
        elif unicodedata2.category(ch) in _ESCAPED_CATEGORIES:
            out.append(_escape(cp))
        else:
            out.append(ch)
    return "".join(out)


def _escape(cp: int) -> str:
    if cp < 0x100:
        return f"\\x{cp:02x}"
    return f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"


def json_path_fields(path: str) -> dict[str, str]:
    """``{"path": ...}`` as valid UTF-8 text; a name that is not UTF-8 also gets
    ``path_bytes``, its exact bytes in base64 (the name shown in ``path`` then has U+FFFD
    where a byte could not be decoded), like ripgrep's JSON output."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        import binascii  # here: only a name that is not UTF-8 needs it

        raw = os.fsencode(path)
        return {
            "path": raw.decode("utf-8", "replace"),
            "path_bytes": binascii.b2a_base64(raw, newline=False).decode("ascii"),
        }
    return {"path": path}


class Place(NamedTuple):
    """Where a finding is: byte offsets (exact) and 1-based line/column (as clicked;
    the column unit is the run's, code points or UTF-16 code units).  The end is
    exclusive: the position just after the finding.  (A NamedTuple, as the other value
    classes of the CLI are NamedTuples or slotted classes: a dataclass costs about a
    millisecond of start-up each, and ``sanitizer check`` starts once per commit.)"""

    path: str
    start: int
    end: int
    line: int = 1
    column: int = 1
    end_line: int = 1
    end_column: int = 1
    # A place inside one record of a records file (JSON Lines, Parquet, Arrow): ``logical``
    # is the JSON pointer (RFC 6901) or the column's name, ``line`` the line of JSON
    # Lines (or the 0-based ``row`` of a table), ``start``/``end`` byte offsets in the
    # value (UTF-8), ``column``/``end_column`` 1-based positions in it (0: the whole
    # record or value, no position).
    logical: str | None = None
    row: int | None = None
    key: bool = False  # the place is in a JSON object's key (``logical``: its member)

    def where(self) -> str:
        """``PATH:LINE:COLUMN``; in a record ``PATH:LINE:POINTER[:COLUMN]`` (JSON Lines)
        or ``PATH:ROW:FIELD[:COLUMN]`` (a table)."""
        path = display_path(self.path)
        if self.logical is None:
            return f"{path}:{self.line}:{self.column}"
        first = self.line if self.row is None else self.row
        inner = f":{display_path(self.logical)}" if self.logical else ""
        inner += " (key)" if self.key else ""
        return f"{path}:{first}{inner}" + (f":{self.column}" if self.column else "")

    def as_dict(self) -> dict[str, Any]:
        if self.logical is not None:
            record: dict[str, Any] = (
                {"line": self.line, "pointer": self.logical}
                if self.row is None
                else {"row": self.row, "field": self.logical}
            )
            record.update(start=self.start, end=self.end)
            if self.key:
                record["key"] = True
            if self.column:
                record.update(column=self.column, end_column=self.end_column)
            return record
        return {
            "start": self.start,
            "end": self.end,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
        }


class FileFinding:
    """One finding as every output format shows it.  ``kind`` is the rule id
    (``overlong``, ``bidi-control``, ``declared-encoding``), ``what`` the offending thing
    in short (``C0 AF``, ``U+202E``, ``latin-1``), ``action`` the profile's action for it
    (``reject``, ``strip``, ``replace`` or ``allow``).  ``fails`` is whether it fails the
    run.  ``related`` holds other places that belong to it, each with a message (e.g. the
    other spelling of a look-alike identifier); ``details`` are extra JSON fields;
    ``suppressed`` how a finding was silenced (``_suppress``: ``inline``, ``config``,
    ``baseline``), then it does not fail."""

    _FIELDS = ("kind", "what", "action", "reason", "place", "excerpt", "fails", "related",
               "details", "suppressed")  # fmt: skip
    __slots__ = _FIELDS  # in the order of the fields (repr)

    def __init__(
        self,
        kind: str,
        what: str,
        action: str,
        reason: str,
        place: Place,
        excerpt: str = "",
        fails: bool = True,
        related: tuple[tuple[Place, str], ...] = (),
        details: dict[str, Any] | None = None,
        suppressed: str = "",
    ) -> None:
        self.kind = kind
        self.what = what
        self.action = action
        self.reason = reason
        self.place = place
        self.excerpt = excerpt
        self.fails = fails
        self.related = related
        self.details: dict[str, Any] = {} if details is None else details
        self.suppressed = suppressed

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FileFinding):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # as a dataclass with eq: details is a dict

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"FileFinding({inner})"

    def text_line(self) -> str:
        where = self.place.where()
        line = f"{where}: {self.kind}  {self.what}  {self.action}  {self.reason}"
        for place, message in self.related:
            line += f" [{display_path(place.path)}:{place.line}:{place.column}: {message}]"
        if self.excerpt:
            line += f"  | {self.excerpt}"
        return line

    def as_record(self) -> dict[str, Any]:
        record: dict[str, Any] = {**json_path_fields(self.place.path), **self.place.as_dict()}
        record.update(
            rule=self.kind,
            what=self.what,
            action=self.action,
            fails=self.fails,
            reason=self.reason,
            excerpt=self.excerpt,
        )
        if self.suppressed:
            record["suppressed"] = self.suppressed
        if self.related:
            record["related"] = [
                {**json_path_fields(p.path), **p.as_dict(), "message": m} for p, m in self.related
            ]
        for key, value in self.details.items():
            record.setdefault(key, value)
        return record


class Writer:
    """Writes report lines to stdout: text through ``sys.stdout`` with escapes for what
    the terminal's encoding cannot show, JSON and SARIF as UTF-8 bytes whatever the
    locale."""

    def __init__(self, as_json: bool = False, fmt: str | None = None) -> None:
        self.format = fmt if fmt is not None else "json" if as_json else "text"
        self.as_json = self.format != "text"

    def raw(self, text: str) -> None:
        """``text`` as UTF-8 (a part of a JSON document)."""
        self._write(text)

    def record(self, record: dict[str, Any]) -> None:
        import json  # here: text output (the default) never loads it

        self._write(json.dumps(record, ensure_ascii=False) + "\n")

    def line(self, text: str) -> None:
        self._write(text + "\n")

    def _write(self, text: str) -> None:
        try:
            stream = sys.stdout
            if stream is None:
                raise OSError(errno.EBADF, "standard output is closed")
            if self.as_json:
                stream.flush()
                stream.buffer.write(text.encode("utf-8"))
            else:
                encoding = stream.encoding or "utf-8"
                stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
        except OSError as exc:
            raise OutputError(exc) from None

    def flush(self) -> None:
        try:
            if sys.stdout is not None:
                sys.stdout.flush()
        except OSError as exc:
            raise OutputError(exc) from None


class Emitter:
    """Writes one format through ``out``; ``columns`` is the run's column unit."""

    def __init__(self, out: Writer, columns: str) -> None:
        self.out = out
        self.columns = columns

    def finding(self, finding: FileFinding) -> None:
        """One finding (in the order they are found, input after input)."""
        raise NotImplementedError

    def unshown(self, label: str, count: int) -> None:
        """``count`` findings of the input ``label`` were counted, not shown (``--limit``,
        ``--quiet``): the summary counts them in every format."""

    def skipped(self, label: str, note: str) -> None:
        """The input ``label`` was not checked, for the reason ``note`` (binary)."""
        raise NotImplementedError

    def tally(self, label: str, fields: dict[str, list[int]]) -> None:
        """The per-field summary of a records file: field (a table's column, a JSON
        Lines record's top-level key) -> [values read, values with findings, findings]."""

    def close(self, successful: bool, exit_code: int, summary: dict[str, Any]) -> None:
        """The end of the run: whether every input was read, the exit status, the
        summary (``_report.summary``)."""


class TextEmitter(Emitter):
    """One line a finding (``FileFinding.text_line``), as a person reads them."""

    def finding(self, finding: FileFinding) -> None:
        if not finding.suppressed:  # counted in the summary; JSON and SARIF list them
            self.out.line(finding.text_line())

    def unshown(self, label: str, count: int) -> None:
        self.out.line(f"{display_path(label)}: ... {count} more finding(s) not shown")

    def skipped(self, label: str, note: str) -> None:
        self.out.line(f"{display_path(label)}: skipped: {note}")

    def tally(self, label: str, fields: dict[str, list[int]]) -> None:
        """Only for a file with findings: a clean file says nothing, as before."""
        if not any(found for _, _, found in fields.values()):
            return
        for name, (values, dirty, found) in fields.items():
            self.out.line(
                f"{display_path(label)}: field {display_path(name) or '(record)'}: {values} "
                f"value(s), {found} finding(s) in {dirty}"
            )


class JsonLinesEmitter(Emitter):
    """One JSON object a line (``FileFinding.as_record``), the summary last."""

    def finding(self, finding: FileFinding) -> None:
        self.out.record(finding.as_record())

    def skipped(self, label: str, note: str) -> None:
        why = note.split(":")[0]
        self.out.record({**json_path_fields(label), "skipped": why, "reason": note})

    def tally(self, label: str, fields: dict[str, list[int]]) -> None:
        for name, (values, dirty, found) in fields.items():
            self.out.record({**json_path_fields(label), "field": name, "values": values,
                             "values_with_findings": dirty, "findings": found})  # fmt: skip

    def close(self, successful: bool, exit_code: int, summary: dict[str, Any]) -> None:
        self.out.record({"summary": summary})


def end_of_output(exc: OutputError, prog: str) -> int:
    """The exit status after ``exc``; a closed pipe is quiet, anything else one line."""
    try:  # whatever is still buffered cannot be written: drop it, don't fail at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass
    if exc.broken_pipe:
        return EXIT_BROKEN_PIPE
    reason = exc.exc.strerror or str(exc.exc)
    print(f"{prog}: cannot write output: {reason}", file=sys.stderr)
    return EXIT_IO
