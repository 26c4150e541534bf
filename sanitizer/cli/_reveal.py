"""``sanitizer reveal FILE|-``: what the invisible characters of a file spell.

An adapter over ``sanitizer.reveal``: each file is read whole (at most ``--max-bytes``)
and decoded strictly (RFC 3629: an ill-formed file is a one-line error naming the byte,
exit 2); every hidden payload -- tag characters, variation-selector bytes, zero-width or
bidi-mark bits -- is printed at its ``PATH:LINE:COLUMN`` (``_locate``: lines by LF,
columns in code points or UTF-16 units), one line each::

    notes.txt:3:14: tags  32 tag characters spelling 'Ignore all previous instructions'

The payload is shown escaped and bounded (printable ASCII as itself, anything else as
an escape), the file name escaped (``_output.display_path``), so nothing a file holds
reaches the terminal raw.  ``--format json`` prints one JSON object per payload (with
its bytes in hex, its text, the bit reading) and a summary object.  Exit 0: nothing
hidden, 1: a payload was found, 2: usage or I/O error.  To refuse such files in CI, use
``sanitizer check --policy PROMPT`` (SARIF too).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..decoder import decode
from ..errors import Utf8Error
from ._locate import CODEPOINTS, UTF16, locate_all
from ._output import OutputError, Writer, display_path, end_of_output, json_path_fields

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
STDIN = "-"
CHUNK = 1 << 16
SHOWN = 64  # characters of a payload a text line shows


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


def _read(path: str, limit: int) -> bytes:
    """At most ``limit`` + 1 bytes of the file (or stdin), read in chunks."""
    if path == STDIN:
        if sys.stdin is None:
            raise OSError("standard input is closed")
        stream = sys.stdin.buffer
        return _read_from(stream, limit)
    with open(path, "rb") as stream:
        return _read_from(stream, limit)


def _read_from(stream: Any, limit: int) -> bytes:
    parts: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = stream.read(min(CHUNK, limit + 1 - size))
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


def _run(args: argparse.Namespace, out: Writer) -> int:
    if args.max_bytes < 0:
        print("sanitizer reveal: --max-bytes must be >= 0", file=sys.stderr)
        return EXIT_USAGE
    from ..policy import reveal  # the policy layer: loaded only when the command runs
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
            data = _read(path, args.max_bytes)
        except OSError as exc:
            _problem(label, exc.strerror or str(exc))
            failed += 1
            continue
        if len(data) > args.max_bytes:
            _problem(label, f"larger than --max-bytes {args.max_bytes}: not read")
            failed += 1
            continue
        try:
            decode(data)
        except Utf8Error as exc:
            _problem(label, f"not UTF-8: {exc}")
            failed += 1
            continue
        files += 1
        payloads = reveal(data)  # byte offsets
        found += len(payloads)
        if not payloads:
            continue
        offsets = [o for h in payloads for o in (h.start, h.end)]
        places = locate_all(data, offsets, [], args.columns)
        for h in payloads:
            line, column = places[h.start]
            end_line, end_column = places[h.end]
            if out.as_json:
                record: dict[str, Any] = {**json_path_fields(label)}
                record.update(line=line, column=column, end_line=end_line, end_column=end_column)
                record.update(h.as_dict())
                out.record(record)
            else:
                width = len(data[h.start : h.end].decode("utf-8"))
                out.line(
                    f"{display_path(label)}:{line}:{column}: {h.channel.value}  "
                    f"{width} {h.describe(SHOWN)}"
                )
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
