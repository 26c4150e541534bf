"""``sanitizer check --encoding utf-16|utf-32... --policy``: the ``wide-policy`` mode.

An input is first proven well-formed with a known byte order (a pipe spooled as it is
read); one that is not is reported as ``_mode_wide`` reports it, the same findings with
or without a policy, and one larger than ``--max-bytes`` is ``too-long``.  Then
``inspect`` runs on its text a piece at a time, cut as ``_judge`` cuts UTF-8 (a forced
cut inside a sequence refused as there), and the offsets it reports are placed on the
decoded text (bytes, lines, columns).
"""

from __future__ import annotations

import codecs
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .._policy import Action, inspect
from .._policy.compiled import CUT_SEQUENCE, carried_text, cut_inside, piece_end
from .._wide import ByteOrderError
from .._wide_codecs import codec
from . import _judge
from ._inputs import CHUNK, Opened
from ._judge import (
    capped,
    counted_more,
    held_run,
    release,
    reopened,
    too_long,
    unlisted_failing,
    unlisted_refused,
)
from ._locate import Position
from ._mode_wide import wide_mode
from ._output import FileFinding, Place
from ._report import Outcome

if TYPE_CHECKING:
    from typing import Any

    from ._check_args import Settings
    from ._report import Progress


def wide_policy_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """``--policy`` on a UTF-16/32 input: proven well-formed first (else reported as
    ``wide_mode`` reports it: the same findings with or without a policy), larger than
    ``--max-bytes`` is ``too-long``; then ``inspect`` on its text a piece at a time (cut
    as ``_judge`` cuts UTF-8), offsets placed on the decoded text."""
    label = opened.label
    size = _proven_size(opened, settings, progress)
    if size is None:  # ill-formed or no byte order mark: the stream is read again
        outcome = wide_mode(reopened(opened), settings, progress)
        findings = outcome.findings

        def then() -> Iterator[FileFinding]:
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


def _policy_findings(opened: Opened, settings: Settings) -> tuple[list[FileFinding], int, int]:
    """The listed findings of the policy on the text, a piece at a time, and the counts
    of the others (all, and those that fail)."""
    found, order = codec(settings.encoding)
    again = reopened(opened)
    head = again.first
    big, skip = found.resolve(head, order, None, "check")
    name = found.name(big)
    decoder = codecs.getincrementaldecoder(name)()
    listing, counting = capped(settings.policy, settings.limit)
    strict, limit, label = settings.strict, settings.limit, opened.label
    position = Position(settings.columns)
    findings: list[FileFinding] = []
    more = more_failing = 0
    kept = {True: 0, False: 0}  # findings listed that fail, that do not

    def keep(item: FileFinding) -> None:
        nonlocal more, more_failing
        if limit and kept[item.fails] >= limit:  # each kind capped apart, as Listed caps
            more += 1
            more_failing += item.fails
        else:
            kept[item.fails] += 1
            findings.append(item)

    held: FileFinding | None = None  # a run's finding the piece's end cut (carried_text)
    before = -1  # the last code point of the piece before
    byte_at = skip  # the input offset of ``buf[0]``
    buf = decoder.decode(head[skip:])
    stream = again.stream
    final = False
    piece_size = _judge.PIECE  # as the UTF-8 policy modes cut (one knob for both)
    while buf or not final:
        while len(buf) < piece_size and not final:
            chunk = stream.read(CHUNK)
            final = not chunk
            buf += decoder.decode(chunk, final=final)
        cut = len(buf)
        if not final or len(buf) > piece_size:  # a piece: after a line feed, or a safe cut
            window = buf[:piece_size].encode("utf-8", "surrogatepass")
            end = piece_end(window, 0, len(window) - 1)[0]
            cut = len(window[:end].decode("utf-8", "surrogatepass"))
        piece, buf = buf[:cut], buf[cut:]
        rest = carried_text(piece, before) if held is not None else 0  # the held run's
        inside = bool(piece) and cut_inside(before, ord(piece[0]), carries=True)
        before = ord(piece[-1]) if piece else -1
        listed: list[Any] = []
        report = None
        if rest < len(piece):
            full = bool(limit) and kept[True] >= limit
            report = inspect(piece, counting if full else listing)
            extra = [] if strict else unlisted_refused(piece, report, listing, limit)
            listed = sorted((*report.findings, *extra), key=lambda f: (f.start, f.end))
            listed = [f for f in listed if f.start >= rest]  # the held run's rest: its own
        places: dict[int, tuple[int, int, int]] = {}  # index -> (byte offset, line, column)
        done_index, done_byte = 0, byte_at
        at_cut = (0,) if inside else ()
        for index in sorted({rest, *at_cut, *(o for f in listed for o in (f.start, f.end))}):
            text = piece[done_index:index]
            done_byte += len(text.encode(name, "surrogatepass"))
            position.count_text(text)
            position.next_is(piece[index : index + 1])
            places[index] = (done_byte, position.line, position.column)
            done_index = index
        if held is not None:
            held = _longer(held, rest, places[rest])
            if rest < len(piece):
                keep(held)
                held = None
        if inside:  # a forced cut inside a sequence: judged in parts, refused
            lo, line, column = places[0]
            keep(FileFinding("too-long", "", "reject", CUT_SEQUENCE,
                             Place(label, lo, lo, line, column, line, column),
                             fails=True, details={"category": "too-long"}))  # fmt: skip
        last = len(listed) - 1
        for i, f in enumerate(listed):
            d = f.as_dict()
            fails = strict or f.action is Action.REJECT
            (lo, line, column), (hi, end_line, end_column) = places[f.start], places[f.end]
            details = {k: v for k, v in d.items() if k not in ("start", "end")}
            item = FileFinding(d["category"], d.get("code_point") or "", d["action"], d["reason"],
                                Place(label, lo, hi, line, column, end_line, end_column),
                                fails=fails, details=details)  # fmt: skip
            if i == last and held_run(f, len(piece)) and not (final and not buf):
                held = item  # the next piece may go on with its run
            else:
                keep(item)
        position.count_text(piece[done_index:])
        byte_at = done_byte + len(piece[done_index:].encode(name, "surrogatepass"))
        if report is not None:
            more += report.more_findings - len(extra)
            more_failing += unlisted_failing(report, strict) - len(extra)
    if held is not None:
        keep(held)
    room = limit - kept[True] if limit else len(findings)
    allowed = [f for f in findings if not f.fails]
    if len(allowed) > room:  # failing findings first, allowed ones in the room left
        dropped = {id(f) for f in allowed[room:]}
        findings = [f for f in findings if id(f) not in dropped]
        more += len(dropped)
    return findings, more, more_failing


def _longer(found: FileFinding, more: int, end: tuple[int, int, int]) -> FileFinding:
    """A run's ``found`` spanning ``more`` characters more, up to ``end`` (byte offset,
    line, column), its reason counting them (``counted_more``)."""
    if not more:
        return found
    details = {
        k: counted_more(v, more) if k in ("reason", "detail") else v
        for k, v in (found.details or {}).items()
    }
    hi, end_line, end_column = end
    place = found.place._replace(end=hi, end_line=end_line, end_column=end_column)
    return FileFinding(found.kind, found.what, found.action, counted_more(found.reason, more),
                       place, fails=found.fails, details=details)  # fmt: skip
