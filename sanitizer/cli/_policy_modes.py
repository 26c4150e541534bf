"""``sanitizer check --policy``: the input modes that apply a policy profile to UTF-8 files.

A policy judges text, so an input is first proven UTF-8 from end to end (``_verdict``:
the SIMD validator, whatever ``--max-bytes`` says).  An input that is not is reported
exactly as without ``--policy`` (``check._stream_mode``: its ill-formed groups, the
same findings in every mode); one larger than ``--max-bytes`` is one ``too-long``
finding.  Otherwise the text is judged a piece at a time (``sanitizer._policy.compiled
.piece_end``: pieces of at most ``PIECE`` bytes cut after a line feed, or where no rule
looks across), so memory is bounded by a piece and the findings listed, whatever the
size of the file:

- ``policy_mode``: ``sanitizer._policy.inspect`` on each piece (a policy that judges whole
  values, with a byte limit of its own, gets the first bytes it judges);
- ``source_mode``: ``sanitizer._source_gate.check_source_pieces`` over the pieces (Trojan
  Source, invisibles, look-alike identifiers, UTS #55), the identifier rules only for
  code (``_kinds``).

Findings past ``--limit`` are counted by the policy layer, never built; the listed ones
are placed (lines, columns, excerpts) by a last pass over the pieces.  An input that
cannot be read twice (a pipe) is spooled to a temporary file as it is proven.
Imported only with ``--policy``, as is the policy layer itself.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Iterator

from .._categories import Category
from .._decoder import IncrementalDecoder
from .._policy import Action, inspect
from .._policy.compiled import ByteOffsets, judges_lines_alone, piece_end
from . import _verdict
from ._inputs import CHUNK, Opened
from ._kinds import UNKNOWN
from ._locate import CONTEXT, Locator, excerpt, visible
from ._output import Finding, Place
from ._report import Outcome

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from typing import IO, Any

    from .._policy import Policy
    from ._check_args import Settings
    from ._report import Progress

PIECE = 1 << 20  # bytes of text judged at a time (memory: a piece, its text, its findings)
_BOM = b"\xef\xbb\xbf"
_check_source_pieces: Any = None  # sanitizer._source_gate.check_source_pieces, on first use
_SHOWN = 80  # characters of an identifier shown in WHAT and in details


def too_long(label: str, size: int, max_bytes: int) -> Finding:
    """The one finding of a valid input larger than ``--max-bytes``."""
    place = Place(label, 0, size)
    reason = f"larger than --max-bytes {max_bytes}: policy not applied"
    return Finding(
        "too-long", f"{size} bytes", "reject", reason, place, details={"category": "too-long"}
    )


class _Region:
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


def _prove(opened: Opened, settings: Settings, progress: Progress) -> _Region | Outcome:
    """The input as a ``_Region`` when it is UTF-8 and at most ``--max-bytes``; else
    its outcome: the ill-formed groups (as without ``--policy``), or ``too-long``."""
    from .check import _stream_mode  # the mode without a policy, loaded already

    stream, label = opened.stream, opened.label
    shown = progress.done

    def advance(n: int) -> None:
        progress.advance(n, label)

    if stream.seekable():
        origin = stream.tell() - len(opened.first)
        size = _verdict.valid_size(stream, opened.first, advance, settings.jobs)
        if size is None:  # the stream is back after ``first``
            progress.done = shown
            return _stream_mode(opened, settings, progress)
        if size > settings.max_bytes:
            return Outcome([too_long(label, size, settings.max_bytes)], size)
        return _Region(stream, origin, size)
    # A pipe: spooled as it is proven; read again from the spool (then the pipe) if not.
    spool = tempfile.TemporaryFile()  # closed with the input (check._check_one)
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
            return _Region(spool, 0, size)
        chunk = stream.read(CHUNK)
        assert chunk is not None  # a blocking stream
    progress.done = shown
    spool.seek(0)
    again: Any = _Chain(spool, chunk, stream)  # read as a stream (``read`` alone)
    outcome = _stream_mode(Opened(opened.path, label, again, again.read(CHUNK)), settings, progress)
    return _too_long_if_clean(outcome, opened, settings.max_bytes)


def _too_long_if_clean(outcome: Outcome, opened: Opened, max_bytes: int) -> Outcome:
    """``outcome`` of the stream mode, with ``too-long`` when it finds nothing (a valid
    input past ``--max-bytes``: the stream was read again only in case it was not);
    the spool is closed once it is read."""
    findings = outcome.findings

    def then() -> Iterator[Finding]:
        yield from findings
        release(opened)
        if not outcome.listed and not outcome.more:
            yield too_long(opened.label, outcome.size, max_bytes)

    outcome.findings = then()
    return outcome


def release(opened: Opened) -> None:
    """Close the spool of a pipe, if any (the pipe itself is the caller's)."""
    if opened.spool is not None:
        opened.spool.close()
        opened.spool = None


class _Chain:
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


@functools.cache
def _capped(policy: Policy, limit: int) -> tuple[Policy, Policy]:
    """``policy`` listing at most ``limit`` findings (0: all), and listing none: one
    pair a run, so that each is compiled once."""
    return policy.replace(max_findings=limit or None), policy.replace(max_findings=0)


class _Listed:
    """The findings of one input, by byte or code-point offsets, up to ``--limit``, and
    the counts of the others: (start, end, kind, what, action, reason, details, related)."""

    __slots__ = ("items", "limit", "more", "more_failing")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.items: list[tuple[Any, ...]] = []
        self.more = self.more_failing = 0

    @property
    def full(self) -> bool:
        return bool(self.limit) and len(self.items) >= self.limit

    def add(self, item: tuple[Any, ...]) -> None:
        """``item``: (start, end, kind, what, action, reason, details, related, fails)."""
        if self.full:
            self.more += 1
            self.more_failing += item[8]
        else:
            self.items.append(item)


def policy_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """A UTF-8 input under a profile other than SOURCE."""
    region = _prove(opened, settings, progress)
    if isinstance(region, Outcome):
        return region
    policy, strict = settings.policy, settings.strict
    listed = _Listed(settings.limit)
    if not judges_lines_alone(policy):
        _whole_value(region, policy, listed, strict)
    else:
        listing, counting = _capped(policy, settings.limit)
        for at, piece in region.pieces():
            shift = 0
            if at == 0 and piece.startswith(_BOM):  # a signature (RFC 3629 §6)
                shift = len(_BOM)
                action = policy.action(Category.BOM)
                if action in (Action.REJECT, Action.ALLOW):
                    reason = "U+FEFF ZERO WIDTH NO-BREAK SPACE at the start: a byte order mark"
                    details = {"category": "bom", "code_point": "U+FEFF"}
                    fails = strict or action is not Action.ALLOW
                    item = (0, shift, "bom", "U+FEFF", action.value, reason, details, (), fails)
                    listed.add(item)
            report = inspect(piece[shift:], counting if listed.full else listing)
            for f in report.findings:
                d = f.as_dict()
                details = {k: v for k, v in d.items() if k not in ("start", "end")}
                what = d.get("code_point") or ""
                start, end = at + shift + f.start, at + shift + f.end
                fails = strict or f.action is not Action.ALLOW
                kind, action, reason = d["category"], d["action"], d["reason"]
                listed.add((start, end, kind, what, action, reason, details, (), fails))
            listed.more += report.more_findings
            listed.more_failing += report.more_findings - (0 if strict else report.more_allowed)
    findings = _placed(region, listed.items, False, settings.columns, opened.label)
    release(opened)
    return Outcome(findings, region.size, listed.more, listed.more_failing)


def _whole_value(region: _Region, policy: Policy, listed: _Listed, strict: bool) -> None:
    """A policy that judges whole values (a byte limit of its own, '.' and '..', the
    identifier checks): ``inspect`` on the input, of which it reads no more than its
    byte limit and one (larger is too long: a finding over the whole input)."""
    want = region.size if policy.max_bytes is None else min(region.size, policy.max_bytes + 1)
    region.stream.seek(region.origin)
    data = region.stream.read(want)
    report = inspect(data, _capped(policy, listed.limit)[0])
    for f in report.findings:
        d = f.as_dict()
        details = {k: v for k, v in d.items() if k not in ("start", "end")}
        end = region.size if (f.start, f.end) == (0, len(data)) else f.end
        fails = strict or f.action is not Action.ALLOW
        listed.add((f.start, end, d["category"], d.get("code_point") or "", d["action"],
                    d["reason"], details, (), fails))  # fmt: skip
    listed.more += report.more_findings
    listed.more_failing += report.more_findings - (0 if strict else report.more_allowed)


def source_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """A UTF-8 input under SOURCE: ``check_source_pieces`` over its pieces, with the
    identifier rules when it is code (``_kinds``)."""
    region = _prove(opened, settings, progress)
    if isinstance(region, Outcome):
        return region
    global _check_source_pieces
    if _check_source_pieces is None:  # policy layer: only loaded with --policy SOURCE
        from .._source_gate import check_source_pieces as _check_source_pieces

    policy = _capped(settings.policy, settings.limit)[0]
    kind = getattr(opened, "kind", None) or UNKNOWN

    def texts() -> Iterator[str]:
        return (piece.decode("utf-8") for _, piece in region.pieces())

    report = _check_source_pieces(texts, policy, code=kind.code)
    if not report.findings:
        release(opened)
    strict = settings.strict
    more = report.more_findings  # counted, not listed
    more_failing = more - (0 if strict else report.more_allowed)
    if not report.findings:  # the usual file: nothing to place
        return Outcome((), region.size, more, more_failing)
    items = []
    for f in report.findings:
        related: tuple[tuple[int, int, str], ...] = ()
        if f.other is not None:
            o_start, o_end, spelling = f.other
            related = ((o_start, o_end, f"the other spelling {_short(spelling)!r}"),)
        if f.identifier is not None:
            what = _short(f.identifier)
        else:
            what = f"U+{f.codepoint:04X}" if f.codepoint is not None else ""
        details = {k: v for k, v in f.as_dict().items() if k not in ("start", "end", "other")}
        if "identifier" in details:
            details["identifier"] = _short(f.identifier or "")
        reason = visible(f.reason.encode())
        fails = strict or f.refused
        items.append(
            (f.start, f.end, f.kind, what, f.action.value, reason, details, related, fails)
        )
    findings = _placed(region, items, True, settings.columns, opened.label)
    release(opened)
    return Outcome(findings, region.size, more, more_failing)


def _short(identifier: str) -> str:
    """An identifier made visible, its middle left out when it is long."""
    if len(identifier) > _SHOWN:
        half = _SHOWN // 2
        identifier = f"{identifier[:half]}...{identifier[-half:]}"
    return visible(identifier.encode())


def _placed(
    region: _Region,
    items: list[tuple[Any, ...]],
    code_points: bool,
    columns: str,
    label: str,
) -> list[Finding]:
    """The listed ``items`` as findings: their offsets (code-point indices when
    ``code_points``, else bytes) placed by lines and columns, with their excerpts, in
    one more pass over the pieces (the only bytes held: a piece and a little before)."""
    if not items:
        return []
    wanted = sorted({o for item in items for o in (item[0], item[1], *_related(item))})
    to_byte: dict[int, int] = {}
    where: dict[int, tuple[int, int]] = {}
    cuts: dict[int, str] = {}  # byte start -> excerpt
    starts = sorted({item[0] for item in items})
    locator = Locator(columns)
    w = 0  # next wanted offset
    s = 0  # next start to excerpt (in bytes, once mapped)
    text_at = 0  # code-point index of the piece's start
    before = b""  # the end of the piece before, for excerpts that start near a cut
    for at, piece in region.pieces():
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
            end = max(to_byte.get(item[1], last) for item in items if item[0] == start)
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
            Finding(kind, what, action, reason, place, cuts.get(lo, "") if lo < hi else "",
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
