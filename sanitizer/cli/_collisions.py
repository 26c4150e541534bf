"""``sanitizer collisions FILE``: the groups of look-alike identifiers in a list, in bounded memory.

The input is one identifier per line (an export of existing usernames, package names,
display names), LF or CRLF line ends; a UTF-8 BOM at the start is ignored; empty lines
are skipped and counted.  Lines are decoded strictly (RFC 3629): an ill-formed line, or
one longer than ``--max-line-bytes``, is reported as a problem with its line number and
compared with nothing; it is never dropped silently.

Two identifiers collide when their keys are equal: by default ``identifier_key``, the key
an application stores in a unique column, equal for names equal under NFKC_CASEFOLD and
for names that look alike in some case (UTS #39 §4 skeletons), so "PayPal", "paypaI",
"ｐａｙｐａｌ" and "pаypal" with a Cyrillic а all land with "paypal"; or, with ``--key
skeleton``, the bare UTS #39 skeleton of each name as written (case-sensitive, and with
the chains the identifier key leaves out: "ſun" meets "fun", Greek "ΗΕLLΟ" meets "HELLO").

Memory does not grow with the input.  Pass 1 reads the file once and, for every line,
sorts a 36-byte record (a 128-bit BLAKE2b digest of the key, the line number, the byte
offset and length of the line) with an external merge sort (``_external_sort``: runs of
32,768 records in temporary files, then a merge).  Equal digests come out together; for
every group of two or more a record keyed by the group's first line goes to a second
external sort, whose output is the report in order: groups by their first line, members
by line.  Pass 2 reads each member's line again by its offset (stdin and pipes are first
copied to a temporary file, since they cannot be read twice).  So memory is at most two
runs of records and the merge's read buffers (a few MiB) whatever the number of lines, a
line is never held beyond ``--max-line-bytes``, and temporary disk use is about 80 bytes
per line (records of both sorts, merge passes) plus, for stdin, a copy of the input.
Two different keys share a 128-bit digest with probability below 2**-64 for 2**32
distinct keys.

A group whose members all spell one identifier is no look-alike group: it is said as
"one spelling repeated" and counted apart (exact duplicates, which a unique column
refuses too).  Text output: problems as they are found, then each group with its members
as ``LINE: 'identifier'`` (never its key: a skeleton is a comparison key, UTS #39 §4);
identifiers are shown as Python string literals (quoted, with controls, format
characters such as U+202E, separators and unassigned code points escaped) followed by
their non-ASCII code points, so nothing invisible goes unseen.
``--json`` prints JSON Lines, each object with exactly one key naming what it is:
``{"problem": {...}}``, ``{"group": {...}}``, ``{"member": {...}}`` and a last
``{"summary": {...}}``.  Exit status: 0 no collision and no problem line, 1 collisions or
problem lines found, 2 usage error or unreadable file.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import hashlib
import struct
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from .._decoder import decode
from .._errors import Utf8Error
from ._external_sort import ExternalSorter, TemporaryFileError, temporary_file, temporary_files
from ._output import OutputError, Writer, display_path, end_of_output

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
STDIN = "-"
DIGEST_SIZE = 16
MAX_CODEPOINTS_SHOWN = 8
KEYS = ("identifier", "skeleton")

# Pass 1: key digest, line number, offset of the line in the file, its length in bytes,
# and a digest of the identifier itself (a group of one spelling repeated is no
# look-alike group: its members are exact duplicates).
_BY_KEY = struct.Struct(f">{DIGEST_SIZE}sQQI{DIGEST_SIZE}s")
# Pass 2: the group's first line, the line (0: the group's header, then size = members),
# size, offset, length, and for a header 1 when its members are exact duplicates.
# Sorting puts each group's header first, then its members.
_BY_GROUP = struct.Struct(">QQQQIB")


def register(sub: Any) -> None:
    """Add ``collisions`` to an argparse subparsers object."""
    p = sub.add_parser(
        "collisions",
        help="list groups of look-alike identifiers in a file (one per line)",
        description=(
            "Group the identifiers of FILE (one per line, '-' for stdin) whose keys are "
            "equal: look-alikes such as 'paypal' and 'p\\u0430ypal' (Cyrillic a). "
            "Empty lines are skipped; ill-formed UTF-8 and over-long lines are reported "
            "with their line numbers. Memory does not grow with the number of lines (a few "
            "MiB of records on top of the interpreter and Unicode tables): records are "
            "sorted in temporary files (about 80 bytes per line; stdin is also copied "
            "there). Exit 0: no collision, 1: collisions or problem lines, 2: usage error "
            "or unreadable file."
        ),
    )
    p.add_argument("file", metavar="FILE", help="identifiers, one per line ('-': stdin)")
    p.add_argument(
        "--key",
        choices=KEYS,
        default="identifier",
        help="identifier (default): sanitizer.identifier_key, the unique-column key, which "
        "merges names equal under NFKC_CASEFOLD (case and compatibility variants: PayPal, "
        "fullwidth ｐａｙｐａｌ) and names that look alike in some case (paypaI); "
        "skeleton: the bare UTS #39 §4 skeleton of each name as written (case-sensitive: "
        "'ſun' meets 'fun')",
    )
    p.add_argument("--json", action="store_true", help="JSON Lines output for machines")
    p.add_argument(
        "--max-line-bytes",
        type=int,
        default=4096,
        metavar="N",
        help="lines longer than N bytes are reported, not compared (default 4096)",
    )
    p.set_defaults(func=run)


@dataclass
class _Totals:
    lines: int = 0
    identifiers: int = 0
    empty: int = 0
    problems: int = 0
    groups: int = 0  # look-alike groups: two spellings or more
    members: int = 0
    duplicate_groups: int = 0  # groups of one spelling repeated
    duplicates: int = 0
    ids: int = 0  # groups of both kinds, numbered in order


def run(args: argparse.Namespace) -> int:
    out = Writer(args.json)
    try:
        return _run(args, out)
    except OutputError as exc:
        return end_of_output(exc, "sanitizer collisions")


def _error(message: str) -> int:
    print(f"sanitizer collisions: {message}", file=sys.stderr)
    return EXIT_USAGE


def _run(args: argparse.Namespace, out: Writer) -> int:
    if args.max_line_bytes < 1:
        return _error("--max-line-bytes must be >= 1")
    from .. import _lookalike as lookalike  # policy layer: loaded only when the command runs

    key_of: Callable[[str], str]
    if args.key == "skeleton":
        key_of, key_version = lookalike.skeleton, lookalike.UTS39_VERSION
    else:
        key_of, key_version = lookalike.identifier_key, lookalike.IDENTIFIER_KEY_VERSION
    label = "<stdin>" if args.file == STDIN else args.file
    totals = _Totals()
    try:
        with contextlib.ExitStack() as stack:
            source = _open(args.file)
            if source is not _stdin():
                stack.enter_context(source)
            by_key = stack.enter_context(ExternalSorter(_BY_KEY.size))
            by_group = stack.enter_context(ExternalSorter(_BY_GROUP.size))
            base = _start_if_seekable(source)
            spool = None
            if base is None:  # stdin, a pipe: copied as it is read, to be read again
                spool = stack.enter_context(temporary_file("sanitizer-lines-"))
            lines = _lines(source, spool, base or 0, args.max_line_bytes)
            _first_pass(lines, args, key_of, by_key, totals, out)
            _group(by_key, by_group)
            if spool is None:
                _report(source, False, by_group, key_of, totals, out)
            else:
                _report(spool, True, by_group, key_of, totals, out)
    except TemporaryFileError as exc:  # not the input's fault: say where it happened
        where = display_path(tempfile.gettempdir())
        return _error(f"temporary file in {where}: {exc} (set TMPDIR to another folder)")
    except OSError as exc:  # reading the input (writing the report raises OutputError)
        return _error(f"{display_path(label)}: {exc.strerror or exc}")
    _summary(args, key_version, totals, out)
    if totals.groups or totals.duplicate_groups or totals.problems:
        return EXIT_FOUND
    return EXIT_OK


def _stdin() -> IO[bytes] | None:
    return None if sys.stdin is None else sys.stdin.buffer


def _open(path: str) -> IO[bytes]:
    if path == STDIN:
        stdin = _stdin()
        if stdin is None:  # started with stdin closed (<&-)
            raise OSError(errno.EBADF, "standard input is closed")
        return stdin
    return open(path, "rb")


def _start_if_seekable(stream: IO[bytes]) -> int | None:
    """Where reading starts, when the stream can be read again by offset; else None."""
    try:
        return stream.tell() if stream.seekable() else None
    except OSError:
        return None


def _lines(
    stream: IO[bytes], spool: IO[bytes] | None, base: int, limit: int
) -> Iterator[tuple[int, int, bytes | None]]:
    """(line number, offset, the line without LF or CRLF) for every line; ``None`` for a
    line longer than ``limit`` bytes, which is skipped in chunks, never held whole.
    ``spool`` (when the stream cannot be read twice) gets a copy of every byte read."""
    offset = base
    number = 0
    while piece := stream.readline(limit + 2):  # the line, CR, LF
        number += 1
        start = offset
        offset += len(piece)
        too_long = False
        asked = limit + 2
        while True:
            if spool is not None:
                with temporary_files():
                    spool.write(piece)
            if len(piece) < asked or piece.endswith(b"\n"):
                break
            too_long = True  # skip the rest of the line in bounded pieces
            asked = 1 << 16
            piece = stream.readline(asked)
            offset += len(piece)
        if too_long:
            yield number, start, None
            continue
        line = piece[:-1] if piece.endswith(b"\n") else piece
        if line.endswith(b"\r"):
            line = line[:-1]
        yield number, start, (line if len(line) <= limit else None)


def _first_pass(
    lines: Iterator[tuple[int, int, bytes | None]],
    args: argparse.Namespace,
    key_of: Callable[[str], str],
    by_key: ExternalSorter,
    totals: _Totals,
    out: Writer,
) -> None:
    """Report the problem lines; sort a record for every identifier by its key's digest."""
    add, pack, blake2b = by_key.add, _BY_KEY.pack, hashlib.blake2b
    number = identifiers = 0
    for number, offset, raw in lines:
        if raw is None:
            totals.problems += 1
            reason = f"longer than --max-line-bytes {args.max_line_bytes}: not compared"
            _problem(out, {"line": number, "offset": offset, "error": "too-long", "reason": reason})
            continue
        try:
            text = decode(raw) if number > 1 else decode(raw, bom="strip")
        except Utf8Error as exc:
            totals.problems += 1
            record = {"line": number, "offset": offset, "error": "ill-formed-utf8"}
            _problem(out, {**record, **exc.as_dict()}, str(exc))
            continue
        if not text:
            totals.empty += 1
            continue
        identifiers += 1
        digest = blake2b(key_of(text).encode("utf-8"), digest_size=DIGEST_SIZE).digest()
        exact = blake2b(text.encode("utf-8"), digest_size=DIGEST_SIZE).digest()
        add(pack(digest, number, offset, len(raw), exact))
    totals.lines = number
    totals.identifiers = identifiers


def _decode_line(raw: bytes, number: int) -> str:
    return decode(raw, bom="strip") if number == 1 else decode(raw)


def _group(by_key: ExternalSorter, by_group: ExternalSorter) -> None:
    """Records with equal digests are adjacent in ``by_key`` order, lines ascending:
    for each run of two or more, a header and its members go to ``by_group``."""
    digest = b""
    first = b""  # the record of the group's first line, until a second one joins it
    first_line = size = 0
    same = True  # every member spelled as the first one
    for record in by_key.sorted_records():
        d, number, offset, length, exact = _BY_KEY.unpack(record)
        if d != digest:
            if size >= 2:
                by_group.add(_header(first_line, size, first, same))
            digest, first, first_line, size, same = d, record, number, 1, True
            continue
        if size == 1:
            by_group.add(_BY_GROUP.pack(first_line, first_line, 0, *_BY_KEY.unpack(first)[2:4], 0))
        by_group.add(_BY_GROUP.pack(first_line, number, 0, offset, length, 0))
        same = same and exact == _BY_KEY.unpack(first)[4]
        size += 1
    if size >= 2:
        by_group.add(_header(first_line, size, first, same))


def _header(first_line: int, size: int, first: bytes, same: bool) -> bytes:
    _, _, offset, length, _ = _BY_KEY.unpack(first)
    return _BY_GROUP.pack(first_line, 0, size, offset, length, same)


def _report(
    source: IO[bytes],
    spooled: bool,
    by_group: ExternalSorter,
    key_of: Callable[[str], str],
    totals: _Totals,
    out: Writer,
) -> None:
    for record in by_group.sorted_records():
        first_line, number, size, offset, length, same = _BY_GROUP.unpack(record)
        with temporary_files() if spooled else contextlib.nullcontext():
            source.seek(offset)
            raw = source.read(length)
        try:
            if len(raw) != length:
                raise ValueError
            text = _decode_line(raw, first_line if number == 0 else number)
        except ValueError:  # Utf8Error too: what pass 1 read was well-formed
            raise OSError(errno.ESTALE, "the file changed while it was read") from None
        if number == 0:
            totals.ids += 1
            if same:
                totals.duplicate_groups += 1
                totals.duplicates += size
            else:
                totals.groups += 1
                totals.members += size
            header = {"id": totals.ids, "key": key_of(text), "size": size}
            header["first_line"] = first_line
            header["exact_duplicates"] = bool(same)
            if out.as_json:
                out.record({"group": header})
            elif same:  # the key (a skeleton) is a comparison key, never shown (UTS #39 §4)
                out.line(f"group {totals.ids}: {size} identifiers, one spelling repeated")
            else:
                out.line(f"group {totals.ids}: {size} look-alike identifiers")
        elif out.as_json:
            out.record({"member": {"group": totals.ids, "line": number, "identifier": text}})
        else:
            out.line(f"  {number}: {shown(text)}")


def shown(text: str) -> str:
    """An identifier for a terminal: a quoted literal (``repr``: controls, format
    characters, separators and unassigned code points escaped), then its non-ASCII code
    points with their positions, so that a look-alike letter is never invisible."""
    others = [(i, ch) for i, ch in enumerate(text) if not ch.isascii()]
    if not others:
        return repr(text)
    listed = ", ".join(f"U+{ord(ch):04X} at {i}" for i, ch in others[:MAX_CODEPOINTS_SHOWN])
    if len(others) > MAX_CODEPOINTS_SHOWN:
        listed += f", ... {len(others) - MAX_CODEPOINTS_SHOWN} more"
    return f"{text!r}  ({listed})"


def _problem(out: Writer, record: dict[str, Any], message: str | None = None) -> None:
    if out.as_json:
        out.record({"problem": record})
    else:
        out.line(f"line {record['line']}: {display_path(message or record['reason'])}")


def _summary(args: argparse.Namespace, key_version: str, totals: _Totals, out: Writer) -> None:
    summary = {
        "lines": totals.lines,
        "identifiers": totals.identifiers,
        "empty_lines": totals.empty,
        "problems": totals.problems,
        "groups": totals.groups,
        "identifiers_in_groups": totals.members,
        "duplicate_groups": totals.duplicate_groups,
        "identifiers_in_duplicate_groups": totals.duplicates,
        "key": args.key,
        "key_version": key_version,
    }
    if out.as_json:
        out.record({"summary": summary})
    out.flush()
    if not args.json:
        print(
            f"sanitizer collisions: {totals.lines} line(s), {totals.identifiers} identifier(s): "
            f"{totals.groups} group(s) of look-alikes ({totals.members} identifiers)"
            + (
                f", {totals.duplicate_groups} identifier(s) repeated exactly "
                f"({totals.duplicates} lines)"
                if totals.duplicate_groups
                else ""
            )
            + (f", {totals.problems} problem line(s)" if totals.problems else "")
            + (f", {totals.empty} empty line(s) skipped" if totals.empty else ""),
            file=sys.stderr,
        )
