"""What the input modes that apply a policy share: proof, pieces, placing, the caps.

A policy judges text, so an input is first proven well-formed from end to end (``prove``:
UTF-8 by the verdict pass, ``_verdict``, whatever ``--max-bytes`` says).  An input that
is not is reported exactly as without ``--policy`` (``_mode_utf8.stream_mode``: its
ill-formed groups, the same findings in every mode); one larger than ``--max-bytes`` is
one ``too-long`` finding.  Otherwise the text is judged a piece at a time (``Region``:
``sanitizer._policy.compiled.piece_end`` cuts pieces of at most ``PIECE`` bytes after a
line feed, or where no rule looks across), so memory is bounded by a piece and the
findings listed, whatever the size of the file.  A line with no such place is cut
where it must (a forced cut): one inside a sequence (``cut_inside``: a joiner's
context, a run of marks, an emoji sequence) is a refused ``too-long`` finding at the
cut (``cut_item``), since the sequence was judged in parts; a carrier run is carried
over the cut, one finding (``carried``).  Findings past ``--limit`` are counted
by the policy layer, never built (``capped``, ``Listed``); the listed ones are placed
(lines, columns, excerpts) by a last pass over the pieces (``placed``).  An input that
cannot be read twice (a pipe) is spooled to a temporary file as it is proven, and read
again from the spool (``Chain``, ``reopened``; ``release`` closes it).
Imported only with ``--policy``, as is the policy layer itself.
"""

from __future__ import annotations

import functools
import re
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .. import _policy
from .._categories import Category
from .._decoder import IncrementalDecoder
from .._policy import inspect
from .._policy.compiled import CARRIER_CATEGORIES, CUT_SEQUENCE, ByteOffsets, piece_end
from . import _verdict
from ._inputs import CHUNK, Opened
from ._locate import CONTEXT, Locator, excerpt
from ._mode_utf8 import stream_mode
from ._output import FileFinding, Place
from ._report import Outcome

if TYPE_CHECKING:
    from typing import IO, Any

    from .._policy import Finding, Policy, Report
    from ._check_args import Settings
    from ._report import Progress

PIECE = 1 << 20  # bytes of text judged at a time (memory: a piece, its text, its findings)


def cut_item(at: int) -> tuple[Any, ...]:
    """The ``Listed`` item of a cut at offset ``at`` inside a sequence (``cut_inside``:
    a forced cut, in a line with no other place to cut): refused, whatever the policy,
    since its rules judged the sequence in two parts (``too-long``, as a file past
    ``--max-bytes``)."""
    details = {"category": "too-long"}
    return (at, at, "too-long", "", "reject", CUT_SEQUENCE, details, (), True)


def too_long(label: str, size: int, max_bytes: int) -> FileFinding:
    """The one finding of a valid input larger than ``--max-bytes``."""
    place = Place(label, 0, size)
    reason = f"larger than --max-bytes {max_bytes}: policy not applied"
    return FileFinding(
        "too-long", f"{size} bytes", "reject", reason, place, details={"category": "too-long"}
    )


class Region:
    """The bytes ``[origin, origin + size)`` of a stream that can be read again, proven
    UTF-8: read as pieces (``pieces``), as many times as asked."""

    __slots__ = ("origin", "size", "stream")

    def __init__(self, stream: IO[bytes], origin: int, size: int) -> None:
        self.stream = stream
        self.origin = origin
        self.size = size

    def pieces(self) -> Iterator[tuple[int, bytes]]:
        """``(offset, piece)``: the region cut by ``piece_end``, a piece at a time."""
        self.stream.seek(self.origin)
        left = self.size
        buf = b""
        at = 0
        while buf or left:
            while len(buf) <= PIECE + 4 and left:  # a character past the window, whole
                chunk = self.stream.read(min(max(CHUNK, PIECE - len(buf) + 5), left))
                if not chunk:
                    raise OSError(f"the file shrank while it was read ({left} bytes missing)")
                left -= len(chunk)
                buf = buf + chunk if buf else chunk
            end = piece_end(buf, 0, PIECE)[0] if left or len(buf) > PIECE else len(buf)
            yield at, buf[:end]
            at += end
            buf = buf[end:]


def prove(opened: Opened, settings: Settings, progress: Progress) -> Region | Outcome:
    """The input as a ``Region`` when it is UTF-8 and at most ``--max-bytes``; else
    its outcome: the ill-formed groups (as without ``--policy``), or ``too-long``."""
    stream, label = opened.stream, opened.label
    shown = progress.done

    def advance(n: int) -> None:
        progress.advance(n, label)

    if stream.seekable():
        origin = stream.tell() - len(opened.first)
        size = _verdict.valid_size(stream, opened.first, advance, settings.jobs)
        if size is None:  # the stream is back after ``first``
            progress.done = shown
            return stream_mode(opened, settings, progress)
        if size > settings.max_bytes:
            return Outcome([too_long(label, size, settings.max_bytes)], size)
        return Region(stream, origin, size)
    # A pipe: spooled as it is proven; read again from the spool (then the pipe) if not.
    spool = tempfile.TemporaryFile()  # closed with the input (_check._check_one)
    opened.spool = spool
    decoder = IncrementalDecoder(allow_overlong_nul=settings.allow_overlong_nul)
    size = 0
    chunk = opened.first
    while True:
        final = not chunk
        if decoder.find_errors(chunk, final=final, limit=1) or size + len(chunk) > (
            settings.max_bytes
        ):
            break
        spool.write(chunk)
        size += len(chunk)
        advance(len(chunk))
        if final:
            return Region(spool, 0, size)
        chunk = stream.read(CHUNK)
        assert chunk is not None  # a blocking stream
    progress.done = shown
    spool.seek(0)
    again: Any = Chain(spool, chunk, stream)  # read as a stream (``read`` alone)
    outcome = stream_mode(Opened(opened.path, label, again, again.read(CHUNK)), settings, progress)
    return _too_long_if_clean(outcome, opened, settings.max_bytes)


def _too_long_if_clean(outcome: Outcome, opened: Opened, max_bytes: int) -> Outcome:
    """``outcome`` of the stream mode, with ``too-long`` when it finds nothing (a valid
    input past ``--max-bytes``: the stream was read again only in case it was not);
    the spool is closed once it is read."""
    findings = outcome.findings

    def then() -> Iterator[FileFinding]:
        yield from findings
        release(opened)
        if not outcome.listed and not outcome.more:
            yield too_long(opened.label, outcome.size, max_bytes)

    outcome.findings = then()
    return outcome


@functools.cache
def capped(policy: Policy | None, limit: int) -> tuple[Policy, Policy]:
    """``policy`` listing at most ``limit`` findings (0: all), and listing none: one
    pair a run, so that each is compiled once."""
    assert policy is not None, "a policy mode runs with --policy"
    return policy.replace(max_findings=limit or None), policy.replace(max_findings=0)


class Listed:
    """The findings of one input, by byte or code-point offsets, up to ``--limit``, and
    the counts of the others: (start, end, kind, what, action, reason, details, related,
    fails).  Findings that fail the check come first: at most ``limit`` are listed, the
    allowed ones only in the room the failing ones leave, so a failing finding is never
    crowded out by allowed ones found before it (``items``, in order of position)."""

    __slots__ = ("_allowed", "_failing", "_more", "_more_failing", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._failing: list[tuple[Any, ...]] = []
        self._allowed: list[tuple[Any, ...]] = []
        self._more = self._more_failing = 0

    @property
    def full(self) -> bool:
        """Whether no finding can be listed any more (``limit`` failing ones are)."""
        return bool(self.limit) and len(self._failing) >= self.limit

    def add(self, item: tuple[Any, ...]) -> None:
        """``item``: (start, end, kind, what, action, reason, details, related, fails)."""
        kept = self._failing if item[8] else self._allowed
        if self.limit and len(kept) >= self.limit:
            self._more += 1
            self._more_failing += item[8]
        else:
            kept.append(item)

    def count(self, more: int, more_failing: int) -> None:
        """Findings counted by the policy layer, not listed."""
        self._more += more
        self._more_failing += more_failing

    @property
    def items(self) -> list[tuple[Any, ...]]:
        """The listed findings, in order of position."""
        room = self.limit - len(self._failing) if self.limit else len(self._allowed)
        return sorted(self._failing + self._allowed[:room], key=lambda item: item[:2])

    @property
    def more(self) -> int:
        room = self.limit - len(self._failing) if self.limit else len(self._allowed)
        return self._more + max(0, len(self._allowed) - room)

    @property
    def more_failing(self) -> int:
        return self._more_failing


def unlisted_refused(text: Any, report: Report, policy: Policy, limit: int) -> list[Finding]:
    """The refused findings of ``text`` that ``report`` (``inspect`` under ``policy``,
    capped at ``limit``) counted without listing, at most ``limit`` of them: ``text``
    judged again, listing refused findings alone, only when such a finding exists."""
    if report.ok:
        return []  # (only a refusal fails: one the profile strips or replaces does not)
    return _policy.unlisted_refused(text, report, policy, limit or None, failing=True)


def placed(
    region: Region,
    items: list[tuple[Any, ...]],
    code_points: bool,
    columns: str,
    label: str,
) -> list[FileFinding]:
    """The listed ``items`` as findings: their offsets (code-point indices when
    ``code_points``, else bytes) placed by lines and columns, with their excerpts, in
    one more pass over the pieces (the only bytes held: a piece and a little before)."""
    if not items:
        return []
    wanted = sorted({o for item in items for o in (item[0], item[1], *_related(item))})
    to_byte: dict[int, int] = {}
    where: dict[int, tuple[int, int]] = {}
    cuts: dict[int, str] = {}  # byte start -> excerpt
    ends: dict[int, list[int]] = {}  # start -> the ends of the items starting there
    for item in items:
        ends.setdefault(item[0], []).append(item[1])
    starts = sorted(ends)
    locator = Locator(columns)
    w = 0  # next wanted offset
    s = 0  # next start to excerpt (in bytes, once mapped)
    text_at = 0  # code-point index of the piece's start
    before = b""  # the end of the piece before, for excerpts that start near a cut
    # An empty input has no piece, and a finding (IDENTIFIER's ``empty``) at 0..0.
    for at, piece in region.pieces() if region.size else iter([(0, b"")]):
        text = piece.decode("utf-8") if code_points else ""
        top = text_at + len(text) if code_points else at + len(piece)
        offsets = ByteOffsets(text) if code_points else None
        mapped: list[int] = []
        while w < len(wanted) and wanted[w] <= top:
            o = wanted[w]
            b = at + offsets(o - text_at) if offsets is not None else o
            to_byte[o] = b
            mapped.append(b)
            w += 1
        locator.feed(piece)
        for b in mapped:
            where[b] = locator.at(b)
        window = before + piece
        base = at - len(before)
        while s < len(starts) and starts[s] < top:
            start = starts[s]
            first = to_byte[start]
            last = at + len(piece)  # an end in a later piece: the excerpt stops here
            end = max(to_byte.get(e, last) for e in ends[start])
            cuts[first] = excerpt(window, first - base, min(end, last) - base)
            s += 1
        if w == len(wanted) and s == len(starts):
            break  # the rest of the input holds nothing listed
        locator.at(at + len(piece))  # counted: the buffer keeps only what is not
        before = piece[-CONTEXT:]
        text_at = top if code_points else text_at
    findings = []
    for start, end, kind, what, action, reason, details, related, fails in items:
        lo, hi = to_byte[start], to_byte[end]
        place = Place(label, lo, hi, *where[lo], *where[hi])
        places = tuple(
            (Place(label, to_byte[a], to_byte[b], *where[to_byte[a]], *where[to_byte[b]]), m)
            for a, b, m in related
        )
        findings.append(
            FileFinding(kind, what, action, reason, place, cuts.get(lo, "") if lo < hi else "",
                    fails=fails, related=places, details=details)
        )  # fmt: skip
    return findings


def _related(item: tuple[Any, ...]) -> Iterator[int]:
    for a, b, _ in item[7]:
        yield a
        yield b


def warm_up(settings: Settings) -> None:
    """Build what checking needs (compiled policy, patterns, look-alike tables) before
    workers are forked, so that each starts with it instead of building it again."""
    if settings.source:
        from .._source_gate import check_source

        check_source("p\u043est post \u202e\u202c caf\u00e9\n", settings.policy)
    else:
        inspect("caf\u00e9\n".encode(), settings.policy)


def release(opened: Opened) -> None:
    """Close the spool of a pipe, if any (the pipe itself is the caller's)."""
    if opened.spool is not None:
        opened.spool.close()
        opened.spool = None


class Chain:
    """A spool read from its start, then ``pending`` bytes, then the rest of a pipe."""

    __slots__ = ("pending", "rest", "spool")

    def __init__(self, spool: IO[bytes], pending: bytes, rest: IO[bytes]) -> None:
        self.spool, self.pending, self.rest = spool, pending, rest

    def read(self, n: int) -> bytes:
        data = self.spool.read(n)
        if data:
            return data
        if self.pending:
            data, self.pending = self.pending, b""
            return data
        return self.rest.read(n)

    def seekable(self) -> bool:
        return False


def reopened(opened: Opened) -> Opened:
    """``opened`` from its first byte again: the stream sought back to ``origin``, or
    the spool of a pipe, then the rest of the pipe."""
    if opened.spool is None:
        opened.stream.seek(opened.origin)
        return Opened(opened.path, opened.label, opened.stream, opened.stream.read(CHUNK))
    opened.spool.seek(0)
    again = Chain(opened.spool, b"", opened.stream)
    return Opened(opened.path, opened.label, again, again.read(CHUNK))  # type: ignore[arg-type]


# The findings over a run of carriers (one a run: ``_carrier_runs``): a piece's end may
# cut one, and the next piece go on with it (``carried``).
RUNS = frozenset({*CARRIER_CATEGORIES, Category.HIDDEN_PAYLOAD})
_COUNT = re.compile(r"\d+")


def held_run(finding: Finding, length: int) -> bool:
    """Whether ``finding`` is a carrier run's that ends a piece of ``length`` characters:
    the next piece may go on with the run, so it waits."""
    return finding.end == length and finding.category in RUNS and finding.end - finding.start > 1


def counted_more(words: Any, more: int) -> Any:
    """A run's reason (or detail) counting ``more`` characters: the payload it names is
    read from the run's first characters (``_reveal.RUN_CAP``), the span is the whole run."""
    if not isinstance(words, str):
        return words
    return _COUNT.sub(lambda m: str(int(m.group()) + more), words, count=1)


def unlisted_failing(report: Any, strict: bool) -> int:
    """Of the findings ``report`` counts but does not list, those that fail the check.
    A finding fails when the profile refuses it (REJECT): the input is then refused, as
    ``inspect(text, profile).ok`` says; one it strips or replaces is reported, as one it
    allows, and fails only with ``--strict``.  A report that refuses nothing has none
    (else the count holds the unlisted STRIP and REPLACE findings too: the report counts
    only those it allows)."""
    if strict:
        return int(report.more_findings)
    if report.ok:
        return 0
    return int(report.more_findings - report.more_allowed)
