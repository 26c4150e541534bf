"""``sanitizer check`` on JSON Lines (``.jsonl``, ``.ndjson``): the ``jsonl`` mode.

A JSON Lines file is read as its consumer reads it: a record a line, each parsed by
``json.loads``, so a ``\\u202e`` or ``\\udb40\\udc41`` escape in a string is the
character it stands for, and a ``\\ud800`` a lone surrogate.  Every string of a record,
object keys too, is judged on its own (``_records.judge``) and placed at
``PATH:LINE:/json/pointer:COLUMN`` (RFC 6901; the column in the string).  Bytes of a
line that are not UTF-8 are reported where they are in the file, as the file modes
report them, and the line is then read as ``bytes.decode(..., "replace")`` reads it; a
line that is not JSON is one ``not-json`` finding; neither stops the lines after it.
Lines are read one at a time, each at most ``--max-bytes`` (a longer one is one
``too-long`` finding, skipped without being held), so memory is bounded whatever the
file.  Blank lines are no records.
"""

from __future__ import annotations

import io
import json
import re
from typing import TYPE_CHECKING

from .._decoder import find_errors
from ._inputs import CHUNK
from ._mode_utf8 import stream_mode
from ._records import (
    NOT_JSON,
    RECORD_TOO_LONG,
    Where,
    judge,
    pointer,
    printable,
    record_finding,
    text_bytes,
)
from ._report import Outcome, Progress

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import IO

    from ._check_args import Settings
    from ._inputs import Opened
    from ._output import FileFinding


# The summary counts a field a record's top-level key (a record that is an array: "[]"),
# at most this many, the others together: a file of ever new keys is a few lines too.
FIELDS = 64
OTHER = "(other keys)"
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class _Pairs(list):  # type: ignore[type-arg]
    """A JSON object as its members in order, duplicates kept (``object_pairs_hook``):
    every key and value is judged, whichever one a consumer keeps."""


def lines(
    stream: IO[bytes], first: bytes, cap: int
) -> Iterator[tuple[int, int, bytes | None, int]]:
    """``(number, offset, line, size)`` for each line (LF-ended; the last may not be):
    its 1-based number, its byte offset, its bytes without the LF (None when longer than
    ``cap``: skipped, never held), its size with the LF."""
    number = offset = size = 0
    parts: list[bytes] = []
    over = False
    chunk = first or stream.read(CHUNK)
    while chunk:
        pos = 0
        while True:
            nl = chunk.find(b"\n", pos)
            end = len(chunk) if nl == -1 else nl
            if not over:
                if size + end - pos > cap:
                    over, parts = True, []
                elif end > pos:
                    parts.append(chunk[pos:end])
            size += end - pos
            if nl == -1:
                break
            number += 1
            yield number, offset, None if over else b"".join(parts), size + 1
            offset += size + 1
            parts, size, over, pos = [], 0, False, nl + 1
        chunk = stream.read(CHUNK)
    if size:
        yield number + 1, offset, None if over else b"".join(parts), size


def strings(value: object) -> Iterator[tuple[str, str, bool]]:
    """``(pointer, string, is_key)`` for every string of a parsed record, keys too, in
    the order they are written (iterative: the depth is ``json``'s to bound)."""
    stack: list[tuple[str, object, bool]] = [("", value, False)]
    while stack:
        at, item, key = stack.pop()
        if isinstance(item, str):
            yield at, item, key
        elif isinstance(item, _Pairs):
            for name, member in reversed(item):
                child = pointer(at, name)
                stack.append((child, member, False))
                stack.append((child, name, True))
        elif isinstance(item, list):
            stack.extend(
                (pointer(at, i), member, False) for i, member in reversed(list(enumerate(item)))
            )


def records(
    opened: Opened, cap: int, advance: Callable[[int], None]
) -> Iterator[tuple[int, int, bytes | None, int, object, str | None]]:
    """Each non-blank line: ``(number, offset, raw, size, value, problem)``: ``raw``
    None past ``cap``; ``problem`` why the line is no JSON (then ``value`` is None)."""
    for number, offset, raw, size in lines(opened.stream, opened.first, cap):
        advance(size)
        if raw is None:
            yield number, offset, None, size, None, f"larger than --max-bytes {cap}: not read"
            continue
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw.strip(b" \t\r"):
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", "replace")
        try:
            value = json.loads(text, object_pairs_hook=_Pairs)
        except RecursionError:
            yield number, offset, raw, size, None, "nested too deeply to be read"
        except ValueError as exc:  # json.JSONDecodeError, an integer of too many digits
            yield number, offset, raw, size, None, f"not JSON: {exc}"
        else:
            yield number, offset, raw, size, value, None


def jsonl_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """JSON Lines, with or without ``--policy``: every string of every record."""
    read = [0]
    outcome = Outcome(size=lambda: read[0])
    outcome.findings = _findings(opened, settings, progress, outcome, read)
    return outcome


def _findings(
    opened: Opened, settings: Settings, progress: Progress, outcome: Outcome, read: list[int]
) -> Iterator[FileFinding]:
    label, columns = opened.label, settings.columns
    policy = settings.policy
    if policy is not None:
        from ._judge import capped

        policy = capped(policy, 0)[0]  # every finding of a value: the sink lists and counts

    def advance(n: int) -> None:
        read[0] += n
        progress.advance(n, label)

    tally = outcome.tally
    for number, offset, raw, size, value, problem in records(opened, settings.max_bytes, advance):
        if raw is not None and find_errors(raw, limit=1):
            yield from _ill_formed(opened, raw, number, offset, settings, outcome)
        if problem is not None:
            kind = RECORD_TOO_LONG if raw is None else NOT_JSON
            what = f"{size} bytes" if raw is None else ""
            yield record_finding(kind, what, problem, Where(label, number, ""), 0, size)
            continue
        # without a policy a string's only finding is a lone surrogate, which valid
        # UTF-8 cannot hold: only a \uD800-\uDFFF escape makes one
        assert raw is not None, "a record that was read"
        quiet = policy is None and not _SURROGATE_ESCAPE.search(raw)
        whole = "[]" if isinstance(value, list) and not isinstance(value, _Pairs) else None
        for at, text, key in strings(value):
            field = "" if not at else whole or printable(at.split("/", 2)[1])
            if field not in tally and len(tally) >= FIELDS and field not in ("", "[]"):
                field = OTHER
            counts = tally.setdefault(field, [0, 0, 0])
            counts[0] += 1
            if quiet:
                continue
            found = 0
            where = Where(label, number, at, key=key)
            for finding in judge(text_bytes(text), policy, settings.strict, where, columns):
                found += 1
                yield finding
            counts[1] += bool(found)
            counts[2] += found


def _ill_formed(
    opened: Opened, raw: bytes, number: int, offset: int, settings: Settings, outcome: Outcome
) -> Iterator[FileFinding]:
    """The ill-formed groups of one line, as the file modes report them, at their
    places in the file (past ``--limit``, counted into ``outcome``)."""
    from ._inputs import Opened

    line = Opened(opened.path, opened.label, io.BytesIO(), raw)
    found = stream_mode(line, settings, Progress(0, False))
    for finding in found:
        p = finding.place
        finding.place = p._replace(
            start=p.start + offset,
            end=p.end + offset,
            line=number,
            end_line=number + p.end_line - 1,
        )
        yield finding
    outcome.more += found.more
    outcome.more_failing += found.more_failing
