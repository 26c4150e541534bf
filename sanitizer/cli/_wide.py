"""``sanitizer check --encoding utf-16le|utf-16|utf-32...``: findings for UTF-16/32 files.

Each file streams through the strict incremental decoder of ``sanitizer.wide`` in chunks;
every ill-formed code unit is one finding with its byte span and its line and column
(counted on the decoded text: code points, or UTF-16 code units with ``--columns
utf16``).  Memory stays bounded by a chunk: the bytes before the last finding or the
decoder's position are dropped once counted.  A ``utf-16``/``utf-32`` file without a
byte order mark is one ``no-byte-order-mark`` finding: the byte order is never guessed.
With ``--policy``, ``wide_policy_findings`` runs ``inspect(data, policy, encoding=...)``
on the whole file (as for UTF-8 with a policy) and locates its byte offsets.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ._locate import UTF16
from ._output import Finding, Place

TYPE_CHECKING = False  # typing's constant without importing typing (start-up: issue #13)
if TYPE_CHECKING:
    from typing import IO, Any

    from ..wide import ByteOrderError, WideError
# ``sanitizer.wide`` is imported where a UTF-16/32 file is read, not with the CLI: a UTF-8
# check (the usual one) does not pay for it (start-up: issue #14).

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def check_encoding(name: str) -> str | None:
    """None when ``name`` is an encoding ``--encoding`` takes, else the usage error."""
    if name.lower().replace("_", "-") in ("utf-8", "utf8"):
        return None
    from ..wide import codec

    try:
        codec(name)
    except ValueError as exc:
        return f"--encoding: {exc}"
    return None


def is_utf8(name: str) -> bool:
    return name.lower().replace("_", "-") in ("utf-8", "utf8")


class _Counter:
    """Line and column (1-based) at the end of the text counted so far."""

    def __init__(self, columns: str) -> None:
        self.line = 1
        self.column = 1
        self.utf16 = columns == UTF16

    def count(self, text: str) -> None:
        newlines = text.count("\n")
        if newlines:
            self.line += newlines
            text = text[text.rfind("\n") + 1 :]
            self.column = 1
        self.column += len(text)
        if self.utf16:
            self.column += len(_ASTRAL.findall(text))


def wide_findings(
    stream: IO[bytes],
    first: bytes,
    encoding: str,
    label: str,
    columns: str,
    chunk_size: int,
    advance: Callable[[int], None],
    consumed: list[int],
) -> Iterator[Finding]:
    """The findings of one file, as they are decoded; ``consumed[0]`` ends as the byte
    count read.  ``advance(n)`` reports progress."""
    from ..wide import ByteOrderError, codec

    found, order = codec(encoding)
    decoder = found.incremental_decoder("replace", byte_order=order)
    counter = _Counter(columns)
    held = b""  # bytes from stream offset `done` on, not yet counted
    done = 0
    chunk = first
    while True:
        final = not chunk
        try:
            _, errors = decoder.feed(chunk, final=final)
        except ByteOrderError as exc:
            yield _no_bom(label, exc, encoding)
            consumed[0] = len(first)
            return
        advance(len(chunk))
        held += chunk
        endian = decoder.endian
        name = f"{found.family}-{endian or 'le'}"
        if done == 0 and decoder.position and endian is not None and order == "bom":
            bom = len(found.boms[0])
            held, done = held[bom:], bom  # the BOM is not a column
        at = 0  # held[at:] starts at stream offset done + at; sliced once per chunk
        for err in errors:
            counter.count(held[at : err.start - done].decode(name))
            line, column = counter.line, counter.column
            counter.count("\ufffd")
            at = err.end - done
            yield _finding(label, err, line, column, counter)
        position = decoder.position
        if position - done > at:
            counter.count(held[at : position - done].decode(name))
        held, done = held[position - done :], position
        if final:
            consumed[0] = position
            return
        chunk = stream.read(chunk_size)


def _finding(label: str, err: WideError, line: int, column: int, after: _Counter) -> Finding:
    place = Place(label, err.start, err.end, line, column, after.line, after.column)
    return Finding(
        err.kind.value,
        err.hex,
        "reject",
        err.reason,
        place,
        details={"bytes": err.hex, "kind": err.kind.value, "encoding": str(err.encoding)},
    )


def _locate(
    data: bytes, name: str, skip: int, offsets: list[int], columns: str
) -> dict[int, tuple[int, int]]:
    """Line and column of each offset (a character or error boundary), counted on the
    text decoded between consecutive offsets (one U+FFFD per error, as one-shot)."""
    counter = _Counter(columns)
    places: dict[int, tuple[int, int]] = {}
    pos = skip
    for offset in sorted(set(offsets)):
        if offset > pos:
            counter.count(data[pos:offset].decode(name, "replace"))
            pos = offset
        places[offset] = (counter.line, counter.column)
    return places


def wide_policy_findings(
    label: str, data: bytes, policy: Any, encoding: str, columns: str, strict: bool
) -> tuple[list[Finding], tuple[int, int]]:
    """``--policy`` on a UTF-16/32 file: ``inspect(data, policy, encoding=...)``, its
    byte offsets located on the decoded text; and the count of unlisted findings."""
    from ..policy import inspect  # policy layer: loaded only with --policy
    from ..wide import ByteOrderError, codec

    found, order = codec(encoding)
    try:
        big, skip = found.resolve(data, order, None, "check")
    except ByteOrderError as exc:
        return [_no_bom(label, exc, encoding)], (0, 0)
    report = inspect(data, policy, encoding=encoding)
    places = _locate(
        data, found.name(big), skip, [o for f in report.findings for o in (f.start, f.end)], columns
    )
    findings = []
    for f in report.findings:
        d = f.as_dict()
        action = d["action"]
        what = d.get("code_point") or (f.raw.hex(" ").upper() if f.raw else "")
        place = Place(label, f.start, f.end, *places[f.start], *places[f.end])
        details = {k: v for k, v in d.items() if k not in ("start", "end")}
        findings.append(
            Finding(
                d["category"], what, action, d["reason"], place,
                fails=strict or action != "allow", details=details,
            )
        )  # fmt: skip
    more = report.more_findings
    return findings, (more, more if strict or not report.ok else 0)


def _no_bom(label: str, exc: ByteOrderError, encoding: str) -> Finding:
    return Finding(
        "no-byte-order-mark",
        exc.object.hex(" ").upper(),
        "reject",
        str(exc.reason),
        Place(label, 0, exc.end, 1, 1, 1, 1 + exc.end),
        details={"encoding": encoding},
    )
