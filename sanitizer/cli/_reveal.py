"""``sanitizer reveal FILE|-``: what the invisible characters of a file spell.

An adapter over ``sanitizer.reveal``: each file is proven UTF-8 (RFC 3629: an ill-formed
file is a one-line error naming the byte, exit 2; at most ``--max-bytes``) in one pass,
then read again a piece at a time (``piece_end``: never inside a carrier run shorter
than a piece), so memory is bounded by a piece whatever the file's size; every hidden
payload -- tag characters, variation-selector bytes, zero-width or
bidi-mark bits -- is printed at its ``PATH:LINE:COLUMN`` (``_locate``: lines by LF,
columns in code points or UTF-16 units) as it is found, one line each (nothing is kept
of a payload once printed)::

    notes.txt:3:14: tags  32 tag characters spelling 'Ignore all previous instructions'

The payload is shown bounded, as it reads (only what is invisible or a control as an
escape), the file name escaped (``_output.display_path``), so nothing a file holds
reaches the terminal raw.  ``--format json`` prints one JSON object per payload (with
its bytes in hex, its text, the bit reading) and a summary object.  Exit 0: nothing
hidden, 1: a payload was found, 2: usage or I/O error.  To refuse such files in CI, use
``sanitizer check --policy PROMPT`` (SARIF too).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import IO, Any

from .._decoder import IncrementalDecoder
from .._policy import Channel, Hidden
from .._policy.compiled import carried, piece_end
from ._locate import CODEPOINTS, UTF16, Locator, Position
from ._output import OutputError, Writer, display_path, end_of_output, json_path_fields

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
STDIN = "-"
CHUNK = 1 << 16
PIECE = 1 << 20  # bytes of text revealed at a time (memory: a piece and its text)
SHOWN = 64  # characters of a payload a text line shows
# The channels whose carrier is a run of characters, which a piece's end may cut.
_RUN_CHANNELS = frozenset(
    {Channel.TAGS, Channel.VARIATION_SELECTORS, Channel.ZERO_WIDTH_BITS, Channel.BIDI_MARK_BITS}
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "reveal",
        help="print what invisible characters spell: tag characters, variation-selector "
        "bytes, zero-width and bidi-mark bits",
        description="Print every payload hidden in invisible characters of each FILE ('-': "
        "stdin), at PATH:LINE:COLUMN, with what it spells. Files are strict UTF-8. Exit 0: "
        "nothing hidden, 1: a payload found, 2: usage or I/O error (or ill-formed UTF-8).",
    )
    p.add_argument("paths", nargs="+", metavar="FILE", help="a file, or - for stdin")
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text lines (default) or JSON Lines with a summary object",
    )
    p.add_argument(
        "--columns",
        choices=(CODEPOINTS, UTF16),
        default=CODEPOINTS,
        help="column unit: code points (default) or UTF-16 code units (LSP editors)",
    )
    p.add_argument(
        "--max-bytes",
        type=int,
        default=64 << 20,
        metavar="N",
        help="files larger than N bytes are an error, not read whole (default 64 MiB); in "
        "a records file, the largest record read",
    )
    p.add_argument(
        "--records",
        choices=("auto", "off", "jsonl", "parquet", "arrow"),
        default="auto",
        help="read records (each JSON string as json.loads reads it, each Parquet/Arrow "
        "binary or string cell), places PATH:LINE:/json/pointer:COLUMN or PATH:ROW:FIELD:"
        "COLUMN; auto (default): by the name (.jsonl, .ndjson, .parquet, .arrow, .feather)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out = Writer(fmt=args.format)
    try:
        return _run(args, out)
    except OutputError as exc:
        return end_of_output(exc, "sanitizer reveal")


def _problem(label: str, message: str) -> None:
    print(f"sanitizer reveal: {display_path(label)}: {message}", file=sys.stderr)


def _open(path: str, limit: int) -> IO[bytes]:
    """The file, or stdin spooled to a temporary file (at most ``limit`` + 1 bytes) so
    it can be read twice."""
    if path != STDIN:
        return open(path, "rb")
    if sys.stdin is None:
        raise OSError("standard input is closed")
    spool = tempfile.TemporaryFile()
    size = 0
    while size <= limit:
        chunk = sys.stdin.buffer.read(min(CHUNK, limit + 1 - size))
        if not chunk:
            break
        spool.write(chunk)
        size += len(chunk)
    spool.seek(0)
    return spool


def _proven(stream: IO[bytes], limit: int) -> tuple[int, str | None]:
    """The size of ``stream`` and what is wrong with it (None: UTF-8 of at most
    ``limit`` bytes), read once in chunks (bounded memory)."""
    decoder = IncrementalDecoder()
    size = 0
    while True:
        chunk = stream.read(CHUNK)
        size += len(chunk)
        if size > limit:
            return size, f"larger than --max-bytes {limit}: not read"
        errors = decoder.find_errors(chunk, final=not chunk, limit=1)
        if errors:
            return size, f"not UTF-8: {errors[0]}"
        if not chunk:
            return size, None


def _pieces(stream: IO[bytes], size: int) -> Iterator[tuple[int, bytes]]:
    """``(offset, piece)``: proven UTF-8 cut where no carrier structure is split
    (``piece_end``: after a line feed, or where no rule looks across; a run longer
    than a piece is cut inside, ``_located`` carries it over)."""
    buf = b""
    at = 0
    eof = False
    while buf or not eof:
        while len(buf) <= size + 4 and not eof:
            chunk = stream.read(max(CHUNK, size + 5 - len(buf)))
            eof = not chunk
            buf = buf + chunk if buf else chunk
        end = piece_end(buf, 0, size, blanks=True)[0] if not eof or len(buf) > size else len(buf)
        yield at, buf[:end]
        at += end
        buf = buf[end:]


Located = tuple[Hidden, int, int, int, int, int]


def _located(
    stream: IO[bytes],
    columns: str,
    iter_reveal: Callable[[str, int], Iterator[Hidden]],
    size: int | None = None,
) -> Iterator[Located]:
    """Each payload of the proven input, a piece at a time, with byte offsets, as
    ``(hidden, line, column, end_line, end_column, width)``: nothing is kept of a
    payload once it is yielded, but for one whose run the piece's end cuts (a run
    longer than a piece): it is held, and its span goes on over the run's rest
    (``carried``), which is not read again (its payload is read from the run's first
    ``RUN_CAP`` characters, in the piece)."""
    locator = Locator(columns)
    held: list[Any] | None = None  # [hidden, line, column, Position after, width]
    before = -1  # the last code point of the piece before
    for at, piece in _pieces(stream, PIECE if size is None else size):
        locator.feed(piece)
        skip = carried(piece, before) if held is not None else 0
        text = piece.decode("utf-8")
        before = ord(text[-1]) if text else -1
        if held is not None:
            rest = piece[:skip].decode("utf-8")
            h = held[0]
            held[0] = Hidden(h.start, h.end + skip, h.channel, h.payload, h.reading)
            held[3].count_text(rest)
            held[4] += len(rest)
            if skip == len(piece):
                continue
            yield _done(held)
            held = None
        for found in iter_reveal(text, at):  # byte offsets into the input
            if found.start < at + skip:
                continue  # the rest of the run held (read from its start)
            span = piece[found.start - at : found.end - at].decode("utf-8")
            line, column = locator.at(found.start)
            after = Position(columns)
            after.count_text(span)
            if found.end == at + len(piece) and found.channel in _RUN_CHANNELS:
                held = [found, line, column, after, len(span)]  # the next piece may go on
                continue
            yield _done([found, line, column, after, len(span)])
    if held is not None:
        yield _done(held)


def _done(held: list[Any]) -> Located:
    h, line, column, after, width = held
    end_line = line + after.line - 1
    end_column = after.column if after.line > 1 else column + after.column - 1
    return h, line, column, end_line, end_column, width


def _show(
    label: str,
    stream: IO[bytes],
    args: argparse.Namespace,
    out: Writer,
    iter_reveal: Callable[[str, int], Iterator[Hidden]],
) -> int:
    """Print each payload of the proven ``stream`` as it is found; how many."""
    count = 0
    for h, line, column, end_line, end_column, width in _located(stream, args.columns, iter_reveal):
        count += 1
        if out.as_json:
            record: dict[str, Any] = {**json_path_fields(label)}
            record.update(line=line, column=column, end_line=end_line, end_column=end_column)
            record.update(h.as_dict())
            out.record(record)
        else:
            out.line(
                f"{display_path(label)}:{line}:{column}: {h.channel.value}  "
                f"{width} {h.describe(SHOWN)}"
            )
    return count


def _run(args: argparse.Namespace, out: Writer) -> int:
    if args.max_bytes < 0:
        print("sanitizer reveal: --max-bytes must be >= 0", file=sys.stderr)
        return EXIT_USAGE
    from .._policy.compiled import iter_reveal  # the policy layer: loaded when it runs
    from ._kinds import records_of

    files = found = failed = 0
    for path in args.paths:
        label = "<stdin>" if path == STDIN else path
        fmt = records_of("" if path == STDIN else path, args.records)
        if fmt is not None:
            from ._reveal_records import reveal_records

            try:
                seen, bad = reveal_records(path, label, fmt, args, out)
            except OSError as exc:
                _problem(label, exc.strerror or str(exc))
                failed += 1
                continue
            files += 1
            found += seen
            failed += bad
            continue
        try:
            stream = _open(path, args.max_bytes)
        except OSError as exc:
            _problem(label, exc.strerror or str(exc))
            failed += 1
            continue
        with stream:
            try:
                _, problem = _proven(stream, args.max_bytes)
                if problem is None:
                    stream.seek(0)
                    found += _show(label, stream, args, out, iter_reveal)
            except OSError as exc:
                problem = exc.strerror or str(exc)
        if problem is not None:
            _problem(label, problem)
            failed += 1
            continue
        files += 1
    if out.as_json:
        out.record(
            {
                "summary": {
                    "files": files,
                    "payloads": found,
                    "unreadable": failed,
                    "columns": args.columns,
                }
            }
        )
    out.flush()
    if failed:
        return EXIT_USAGE
    return EXIT_FOUND if found else EXIT_OK
