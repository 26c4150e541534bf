"""``sanitizer check --encoding utf-16le|utf-16|utf-32...``: the ``wide`` mode (UTF-16/32).

``wide_mode`` streams each file through the strict incremental decoder of its codec
(``sanitizer._wide_codecs``) in chunks; every ill-formed code unit is one finding with its
byte span, its line and column counted on the decoded text by ``_locate.Position`` (the
rule every mode counts by).  Memory stays bounded by a chunk: the bytes before the last
finding or the decoder's position are dropped once counted.  A ``utf-16``/``utf-32``
file without a byte order mark is one ``no-byte-order-mark`` finding: the byte order is
never guessed.  Imported only when ``--encoding`` names UTF-16 or UTF-32, as are the
codecs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from .._wide import ByteOrderError, WideError
from .._wide_codecs import codec
from ._inputs import CHUNK, Opened
from ._locate import Position
from ._output import FileFinding, Place
from ._report import Outcome

if TYPE_CHECKING:
    from ._check_args import Settings
    from ._report import Progress


def wide_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """A UTF-16/32 input without a policy: its ill-formed code units, as it is read."""
    read = [0]  # bytes read, once the findings are exhausted
    advance = lambda n: progress.advance(n, opened.label)  # noqa: E731
    findings = _stream_findings(opened, settings.encoding, settings.columns, advance, read)
    return Outcome(findings, size=lambda: read[0])


def _stream_findings(
    opened: Opened,
    encoding: str,
    columns: str,
    advance: Callable[[int], None],
    read: list[int],
) -> Iterator[FileFinding]:
    """The findings of one input, as they are decoded; ``read[0]`` ends as the byte
    count read.  ``advance(n)`` reports progress."""
    label, first = opened.label, opened.first
    found, order = codec(encoding)
    decoder = found.incremental_decoder("replace", byte_order=order)
    position = Position(columns)
    held = b""  # bytes from stream offset `done` on, not yet counted
    done = 0
    chunk = first
    while True:
        final = not chunk
        try:
            _, errors = decoder.feed(chunk, final=final)
        except ByteOrderError as exc:
            yield _no_bom(label, exc, encoding)
            read[0] = len(first)
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
            position.count_text(held[at : err.stream_start - done].decode(name))
            position.next_is("\ufffd")  # the ill-formed part, not a LF
            line, column = position.line, position.column
            position.count_ill_formed()
            at = err.stream_end - done
            yield _finding(label, err, line, column, position)
        end = decoder.position
        if end - done > at:
            position.count_text(held[at : end - done].decode(name))
        held, done = held[end - done :], end
        if final:
            read[0] = end
            return
        chunk = opened.stream.read(CHUNK)


def _finding(label: str, err: WideError, line: int, column: int, after: Position) -> FileFinding:
    place = Place(label, err.stream_start, err.stream_end, line, column, after.line, after.column)
    return FileFinding(
        err.kind.value,
        err.hex,
        "reject",
        err.reason,
        place,
        details={"bytes": err.hex, "kind": err.kind.value, "encoding": str(err.encoding)},
    )


def _no_bom(label: str, exc: ByteOrderError, encoding: str) -> FileFinding:
    return FileFinding(
        "no-byte-order-mark",
        exc.object.hex(" ").upper(),
        "reject",
        str(exc.reason),
        Place(label, 0, exc.end, 1, 1, 1, 1 + exc.end),
        details={"encoding": encoding},
    )
