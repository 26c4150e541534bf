"""What the records modes of ``sanitizer check`` and ``sanitizer reveal`` share: one
value of one record judged on its own, as its consumer reads it.

A records file (JSON Lines, Parquet, Arrow IPC) is not text to be read line by line: a
JSON string's ``\\u202e`` is an RLO once ``json.loads`` reads it, and a Parquet cell is
bytes wherever they sit in the file.  So each value is judged alone -- its UTF-8 errors
grouped as a person reads them (``sanitizer._decoder.group_errors``), its lone
surrogates (a JSON ``\\ud800``) as the strict decoder sees them once written as UTF-8,
and with ``--policy`` the policy's findings -- and placed by its record and its field
(``Place.logical``), with the position in the value where one means something.  One bad
record hides nothing of the others.  Loaded only when a records file is read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._decoder import find_errors, group_errors
from .._errors import Utf8Error
from ._locate import UTF16, excerpt
from ._output import FileFinding, Place

if TYPE_CHECKING:
    from collections.abc import Iterator

    from .._policy import Policy

NOT_JSON = "not-json"
RECORD_TOO_LONG = "too-long"


class Where:
    """Where one value is: the input's label, its line (JSON Lines) or row (a table),
    its field (a JSON pointer, a column's name), whether it is an object's key."""

    __slots__ = ("_at", "_column", "_data", "field", "key", "label", "line", "row")

    def __init__(
        self, label: str, line: int, field: str, row: int | None = None, key: bool = False
    ) -> None:
        shown = printable(field)
        self.label, self.line, self.field, self.row, self.key = label, line, shown, row, key
        self._data: bytes | None = None  # the value last placed in, counted up to _at
        self._at = self._column = 0

    def place(self, data: bytes, start: int, end: int, columns: str) -> Place:
        """The place of ``data[start:end]`` in the value ``data`` (its UTF-8 bytes)."""
        if data is not self._data or start < self._at:  # a new value, or back: from 0
            self._data, self._at, self._column = data, 0, 0
        # counted on from the last place: findings come in order, so a value is read
        # about once however many it holds (a new start at 0 at most once more)
        self._column += _width(data[self._at : start], columns)
        self._at = start
        column = self._column + 1
        end_column = column + _width(data[start:end], columns)
        return Place(self.label, start, end, self.line, column, self.line, end_column,
                     self.field, self.row, self.key)  # fmt: skip

    def whole(self, start: int = 0, end: int = 0) -> Place:
        """The place of the whole record (or value), with no position in it."""
        return Place(self.label, start, end, self.line, 0, self.line, 0, self.field, self.row)


def _width(data: bytes, columns: str) -> int:
    """How many columns ``data`` spans: code points (an ill-formed subpart counts one,
    as U+FFFD), or UTF-16 code units."""
    text = data.decode("utf-8", "replace")
    if columns == UTF16:
        return len(text.encode("utf-16-le", "surrogatepass")) // 2
    return len(text)


def utf8_findings(data: bytes, where: Where, columns: str) -> Iterator[FileFinding]:
    """The ill-formed groups of ``data`` (a value's bytes), as the file modes report
    them: a lone surrogate of a JSON string (written ``surrogatepass``: ``ED A0 80``)
    is the strict decoder's ``surrogate``."""
    errors = find_errors(data)
    for group in group_errors(errors) if errors else ():
        yield _utf8_finding(data, group, where, columns)


def _utf8_finding(
    data: bytes, group: tuple[Utf8Error, ...], where: Where, columns: str
) -> FileFinding:
    head, tail = group[0], group[-1]
    hex_bytes = " ".join(err.hex for err in group)
    details = {
        "bytes": hex_bytes,
        "kind": head.kind.value,
        "naive": head.as_dict().get("naive"),
        "subparts": len(group),
    }
    place = where.place(data, head.start, tail.end, columns)
    shown = excerpt(data, head.start, tail.end)
    return FileFinding(head.kind.value, hex_bytes, "reject", head.reason, place, shown,
                       details=details)  # fmt: skip


def policy_findings(
    data: bytes, policy: Policy, strict: bool, where: Where, columns: str, ill_formed: bool
) -> Iterator[FileFinding]:
    """``inspect(data, policy)``'s findings, byte offsets in ``data``; the ``ill-formed``
    ones left out when ``ill_formed`` is False (the caller reported the groups)."""
    from .._policy import Action, inspect

    report = inspect(data, policy)
    for f in report.findings:
        d = f.as_dict()
        if d["category"] == "ill-formed" and not ill_formed:
            continue
        details = {k: v for k, v in d.items() if k not in ("start", "end")}
        place = where.place(data, f.start, f.end, columns)
        fails = strict or f.action is not Action.ALLOW
        shown = excerpt(data, f.start, f.end) if f.start < f.end else ""
        yield FileFinding(d["category"], d.get("code_point") or "", d["action"], d["reason"],
                          place, shown, fails=fails, details=details)  # fmt: skip


def judge(
    data: bytes, policy: Policy | None, strict: bool, where: Where, columns: str
) -> Iterator[FileFinding]:
    """Every finding of one value: its UTF-8 errors, then (``policy``) the policy's."""
    valid = True
    for finding in utf8_findings(data, where, columns):
        valid = False
        yield finding
    if policy is not None:
        yield from policy_findings(data, policy, strict, where, columns, valid)


def record_finding(
    kind: str, what: str, reason: str, where: Where, start: int = 0, end: int = 0
) -> FileFinding:
    """A finding about a whole record: not JSON, too long."""
    return FileFinding(kind, what, "reject", reason, where.whole(start, end))


def printable(field: str) -> str:
    """``field`` as text every output can carry: a lone surrogate (a JSON key may hold
    one) as its escape, ``\\ud800``."""
    return field if field.isascii() else field.encode("utf-8", "backslashreplace").decode()


def pointer(parent: str, token: str | int) -> str:
    """``parent`` extended by one reference token (RFC 6901 §3: ``~`` as ``~0``, ``/``
    as ``~1``)."""
    text = str(token)
    if "~" in text or "/" in text:
        text = text.replace("~", "~0").replace("/", "~1")
    return f"{parent}/{text}"


def text_bytes(text: str) -> bytes:
    """A JSON string as the bytes its consumer writes: UTF-8, a lone surrogate as the
    three bytes the strict decoder calls ``surrogate`` (``surrogatepass``)."""
    return text.encode("utf-8", "surrogatepass")
