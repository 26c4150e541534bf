"""``sanitizer check`` on UTF-8 without a policy: the ``stream`` and ``file`` input modes.

Each input streams through ``IncrementalDecoder.find_errors`` in fixed-size chunks
(``stream_mode``), its errors grouped as a person reads them (``C0 AE`` is one overlong
'.') and each group reported once the bytes after it (its excerpt) are read: memory stays
bounded by two chunks.  Past ``--limit`` the rest are counted in C loops, never built.
An input that can be read again (a regular file) is first proven valid by the verdict
pass (``file_mode``, ``_verdict``), which most files are, with no line or column
counted; only one that is not is read again by ``stream_mode``.  The policy modes report
an ill-formed input through ``stream_mode`` too, so its findings are the same with or
without ``--policy``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from .._decoder import ErrorGrouper, IncrementalDecoder
from .._errors import Utf8Error
from . import _verdict
from ._inputs import CHUNK
from ._locate import CONTEXT, Locator
from ._output import FileFinding, Place
from ._report import Outcome

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from typing import IO

    from ._check_args import Settings
    from ._inputs import Opened
    from ._report import Progress

SLICE = 4096  # bytes decoded at a time while findings are listed (see _utf8_findings)


def stream_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """UTF-8 read once (stdin, a pipe, a device; a file the verdict pass did not prove):
    every ill-formed group, reported as it is read; past ``--limit``, counted only."""
    decoder = IncrementalDecoder(allow_overlong_nul=settings.allow_overlong_nul)
    outcome = Outcome(size=lambda: decoder.position)
    stream, first, label = opened.stream, opened.first, opened.label
    outcome.findings = _utf8_findings(
        stream, first, decoder, settings.columns, progress, label, settings.limit, outcome
    )
    return outcome


def file_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """UTF-8 that can be read again (a regular file, stdin redirected from one): proven
    valid by the verdict pass (``_verdict``: no line or column counted), else read again
    by ``stream_mode``."""
    shown = progress.done
    advance = lambda n: progress.advance(n, opened.label)  # noqa: E731
    valid = _verdict.valid_size(opened.stream, opened.first, advance, settings.jobs)
    if valid is not None:  # nothing to report
        return Outcome((), valid)
    progress.done = shown  # the stream is back after ``first``: its bytes count again
    return stream_mode(opened, settings, progress)


def _utf8_findings(
    stream: IO[bytes],
    first: bytes,
    decoder: IncrementalDecoder,
    columns: str,
    progress: Progress,
    label: str,
    limit: int = 0,
    outcome: Outcome | None = None,
) -> Iterator[FileFinding]:
    """Groups of errors (``ErrorGrouper``) as findings, each once the bytes after it
    (for its excerpt) have been read; memory stays bounded by two chunks.  After
    ``limit`` findings (0: none) the rest are counted in ``outcome.more`` without being
    built, located or shown (``IncrementalDecoder.count_errors``: C loops)."""
    grouper = ErrorGrouper()
    locator = Locator(columns)
    where: dict[int, tuple[int, int, int, int]] = {}  # err.stream_start -> line, col, end line/col
    ready: deque[tuple[Utf8Error, ...]] = deque()
    unemitted: deque[int] = deque()  # starts of located errors not yet reported
    listed = 0
    read = first
    at = 0  # where the next slice of ``read`` starts
    while True:
        # Slices of a read: an error object is built for every error of a slice, so a
        # slice bounds what dense errors cost before the limit turns to counting.
        chunk = read[at : at + SLICE] if at or len(read) > SLICE else read
        at += len(chunk)
        if at >= len(read):
            read, at = stream.read(CHUNK) if read else b"", 0
        final = not chunk
        locator.feed(chunk, unemitted[0] if unemitted else None)
        errors = decoder.find_errors(chunk, final=final)  # a verdict: no text built
        progress.advance(len(chunk), label)
        for err in errors:
            line, column = locator.at(err.stream_start)
            locator.ill_formed(err.stream_start, err.stream_end)
            where[err.stream_start] = (line, column, *locator.at(err.stream_end))
            unemitted.append(err.stream_start)
            done = grouper.add(err)
            if done is not None:
                ready.append(done)
        last = grouper.close(None if final else decoder.position)
        if last is not None:
            ready.append(last)
        # Later errors start at or after the held-back bytes: count up to them now.
        locator.at(max(0, decoder.position - 8))
        # A byte past the excerpt's edge too, so a character it cuts is known cut (the
        # excerpt drops it) exactly as when the whole file is at hand.
        while ready and (final or ready[0][-1].stream_end + CONTEXT < locator.end):
            if limit and listed == limit:
                if outcome is not None:
                    rest = read[at:] if read else b""
                    _count_rest(stream, rest, decoder, progress, label, len(ready), final, outcome)
                return
            group = ready.popleft()
            for _ in group:
                unemitted.popleft()
            listed += 1
            yield _utf8_finding(label, group, where, locator)
        if final:
            return


def _count_rest(
    stream: IO[bytes],
    chunk: bytes,
    decoder: IncrementalDecoder,
    progress: Progress,
    label: str,
    pending: int,
    final: bool,
    outcome: Outcome,
) -> None:
    """Past the limit: ``pending`` groups found already (every error of the chunks read
    is in a closed group: a lead whose lax reading a chunk ends inside of is held back),
    and the groups of the rest of the stream, counted in C loops."""
    more = pending
    while not final:
        chunk = chunk or stream.read(CHUNK)
        final = not chunk
        more += decoder.count_errors(chunk, final=final)[1]
        progress.advance(len(chunk), label)
        chunk = b""
    outcome.more = outcome.more_failing = more


def _utf8_finding(
    label: str,
    group: tuple[Utf8Error, ...],
    where: dict[int, tuple[int, int, int, int]],
    locator: Locator,
) -> FileFinding:
    head, tail = group[0], group[-1]
    line, column = where[head.stream_start][:2]
    end_line, end_column = where[tail.stream_start][2:]
    for err in group:
        del where[err.stream_start]
    hex_bytes = " ".join(err.hex for err in group)
    place = Place(label, head.stream_start, tail.stream_end, line, column, end_line, end_column)
    return FileFinding(
        head.kind.value,
        hex_bytes,
        "reject",
        head.reason,
        place,
        locator.excerpt(head.stream_start, tail.stream_end),
        details={
            "bytes": hex_bytes,
            "kind": head.kind.value,
            "naive": head.as_dict().get("naive"),
            "subparts": len(group),
        },
    )
