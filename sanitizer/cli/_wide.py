"""``sanitizer check --encoding utf-16le|utf-16|utf-32...``: the input modes for UTF-16/32.

``wide_mode`` streams each file through the strict incremental decoder of
``sanitizer.wide`` in chunks; every ill-formed code unit is one finding with its byte
span, its line and column counted on the decoded text by ``_locate.Position`` (the rule
every mode counts by).  Memory stays bounded by a chunk: the bytes before the last
finding or the decoder's position are dropped once counted.  A ``utf-16``/``utf-32`` file
without a byte order mark is one ``no-byte-order-mark`` finding: the byte order is never
guessed.  With ``--policy``, ``wide_policy_mode`` runs ``inspect(data, policy,
encoding=...)`` on the whole file (as for UTF-8 with a policy) and locates its byte
offsets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ._inputs import CHUNK
from ._locate import Position
from ._output import Finding, Place
from ._report import Outcome

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from ..wide import ByteOrderError, WideError
    from ._check_args import Settings
    from ._inputs import Opened
    from ._report import Progress
# ``sanitizer.wide`` is imported where a UTF-16/32 file is read, not with the CLI: a UTF-8
# check (the usual one) does not pay for it (start-up).


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
) -> Iterator[Finding]:
    """The findings of one input, as they are decoded; ``read[0]`` ends as the byte
    count read.  ``advance(n)`` reports progress."""
    from ..wide import ByteOrderError, codec

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
            position.count_text(held[at : err.start - done].decode(name))
            line, column = position.line, position.column
            position.count_ill_formed()
            at = err.end - done
            yield _finding(label, err, line, column, position)
        end = decoder.position
        if end - done > at:
            position.count_text(held[at : end - done].decode(name))
        held, done = held[end - done :], end
        if final:
            read[0] = end
            return
        chunk = opened.stream.read(CHUNK)


def _finding(label: str, err: WideError, line: int, column: int, after: Position) -> Finding:
    place = Place(label, err.start, err.end, line, column, after.line, after.column)
    return Finding(
        err.kind.value,
        err.hex,
        "reject",
        err.reason,
        place,
        details={"bytes": err.hex, "kind": err.kind.value, "encoding": str(err.encoding)},
    )


def wide_policy_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """``--policy`` on a UTF-16/32 input: proven well-formed first (else reported as
    ``wide_mode`` reports it: the same findings with or without a policy), larger than
    ``--max-bytes`` is ``too-long``; then ``inspect`` on its text a piece at a time (cut
    as ``_policy_modes`` cuts UTF-8), offsets placed on the decoded text."""
    from ._policy_modes import release, too_long

    label = opened.label
    size = _proven_size(opened, settings, progress)
    if size is None:  # ill-formed or no byte order mark: the stream is read again
        outcome = wide_mode(_again(opened), settings, progress)
        findings = outcome.findings

        def then() -> Iterator[Finding]:
            yield from findings
            release(opened)

        outcome.findings = then()
        return outcome
    if size > settings.max_bytes:
        release(opened)
        return Outcome([too_long(label, size, settings.max_bytes)], size)
    findings, more, more_failing = _policy_findings(opened, settings)
    release(opened)
    return Outcome(findings, size, more, more_failing)


def _proven_size(opened: Opened, settings: Settings, progress: Progress) -> int | None:
    """The input's size when it is well-formed with a known byte order (the stream then
    can be read again from its start: a pipe is spooled), else None."""
    import tempfile

    from ..wide import ByteOrderError, codec

    found, order = codec(settings.encoding)
    decoder = found.incremental_decoder("replace", byte_order=order)
    stream = opened.stream
    spool = None
    if not stream.seekable():
        spool = opened.spool = tempfile.TemporaryFile()  # closed with the input
    opened.origin = stream.tell() - len(opened.first) if spool is None else 0
    size = 0
    chunk = opened.first
    well_formed = True
    while True:
        final = not chunk
        try:
            ill_formed = bool(decoder.feed(chunk, final=final)[1])
        except ByteOrderError:
            ill_formed = True
        if spool is not None:
            spool.write(chunk)
        size += len(chunk)
        progress.advance(len(chunk), opened.label)
        if ill_formed:
            well_formed = False
            break
        if final:
            break
        chunk = stream.read(CHUNK)
    return size if well_formed else None


def _again(opened: Opened) -> Opened:
    """``opened`` from its first byte again (the spool, then the rest of a pipe)."""
    from ._inputs import Opened as Reopened
    from ._policy_modes import _Chain

    if opened.spool is None:
        opened.stream.seek(opened.origin)
        return Reopened(opened.path, opened.label, opened.stream, opened.stream.read(CHUNK))
    opened.spool.seek(0)
    again = _Chain(opened.spool, b"", opened.stream)
    return Reopened(opened.path, opened.label, again, again.read(CHUNK))  # type: ignore[arg-type]


def _policy_findings(opened: Opened, settings: Settings) -> tuple[list[Finding], int, int]:
    """The listed findings of the policy on the text, a piece at a time, and the counts
    of the others (all, and those that fail)."""
    import codecs

    from .._policy import Action, inspect
    from .._policy.compiled import piece_end
    from ..wide import codec
    from ._policy_modes import PIECE, _capped

    found, order = codec(settings.encoding)
    reopened = _again(opened)
    head = reopened.first
    big, skip = found.resolve(head, order, None, "check")
    name = found.name(big)
    decoder = codecs.getincrementaldecoder(name)()
    listing, counting = _capped(settings.policy, settings.limit)
    strict, limit, label = settings.strict, settings.limit, opened.label
    position = Position(settings.columns)
    findings: list[Finding] = []
    more = more_failing = 0
    byte_at = skip  # the input offset of ``buf[0]``
    buf = decoder.decode(head[skip:])
    stream = reopened.stream
    final = False
    while buf or not final:
        while len(buf) < PIECE and not final:
            chunk = stream.read(CHUNK)
            final = not chunk
            buf += decoder.decode(chunk, final=final)
        cut = len(buf)
        if not final or len(buf) > PIECE:  # a piece: after a line feed, or a safe cut
            window = buf[:PIECE].encode("utf-8", "surrogatepass")
            end = piece_end(window, 0, len(window) - 1)[0]
            cut = len(window[:end].decode("utf-8", "surrogatepass"))
        piece, buf = buf[:cut], buf[cut:]
        full = bool(limit) and len(findings) >= limit
        report = inspect(piece, counting if full else listing)
        places: dict[int, tuple[int, int, int]] = {}  # index -> (byte offset, line, column)
        done_index, done_byte = 0, byte_at
        for index in sorted({o for f in report.findings for o in (f.start, f.end)}):
            text = piece[done_index:index]
            done_byte += len(text.encode(name, "surrogatepass"))
            position.count_text(text)
            places[index] = (done_byte, position.line, position.column)
            done_index = index
        for f in report.findings:
            d = f.as_dict()
            fails = strict or f.action is not Action.ALLOW
            if limit and len(findings) >= limit:
                more += 1
                more_failing += fails
                continue
            (lo, line, column), (hi, end_line, end_column) = places[f.start], places[f.end]
            details = {k: v for k, v in d.items() if k not in ("start", "end")}
            findings.append(
                Finding(d["category"], d.get("code_point") or "", d["action"], d["reason"],
                        Place(label, lo, hi, line, column, end_line, end_column),
                        fails=fails, details=details)
            )  # fmt: skip
        position.count_text(piece[done_index:])
        byte_at = done_byte + len(piece[done_index:].encode(name, "surrogatepass"))
        more += report.more_findings
        more_failing += report.more_findings - (0 if strict else report.more_allowed)
    return findings, more, more_failing


def _no_bom(label: str, exc: ByteOrderError, encoding: str) -> Finding:
    return Finding(
        "no-byte-order-mark",
        exc.object.hex(" ").upper(),
        "reject",
        str(exc.reason),
        Place(label, 0, exc.end, 1, 1, 1, 1 + exc.end),
        details={"encoding": encoding},
    )
