"""The engine: one application of a policy to one input, deciding everything.

The entry points (``inspect``, ``sanitize``, ``accepts``) come here when the fast paths
(``compiled``) cannot answer.  Order of work, cheapest first and limits before costly
steps (HOWTO §5.9.5; UAX #15 §13): byte limit, strict decoding (RFC 3629 §10: ill-formed
bytes are findings, never silently decoded), one regex scan per policy (``_scan``),
combining-run limit, a code-point bound, normalization, then the same checks again on
what normalization produced (CWE-180: NFKC turns U+FF0F into '/'), then the whole-value
checks and the identifier checks of UTS #39 on the output (``_identifier``).  Findings
are placed in the caller's input at the end (``_offsets``).
"""

from __future__ import annotations

import bisect
import functools
import heapq
import itertools
import operator
import re
from array import array
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from .._categories import (
    MAX_NFD_EXPANSION,
    Category,
    category_of,
    char_class,
    min_normalized_length,
    normalize,
)
from .._charnames import describe
from .._decoder import find_errors
from .._errors import Utf8Error
from .._identity_cache import IdentityCache
from .._native import speedups
from . import _classtable as ct
from . import _listing
from ._carrier_runs import (
    FAMILY,
    SEVERITY,
    Group,
    grouped,
    payload_span_bytes,
    run_detail,
    span_detail,
    span_members,
)
from ._carrier_runs import TAG_BASE as _TAG_BASE
from ._carrier_runs import group_table as _group_table  # (count_groups' table, by class)
from ._hidden import Hidden
from ._model import DROPPING, Action, Finding, Policy, Report, moved_findings, new_finding
from ._offsets import ByteOffsets, utf8_length
from ._reveal import CARRIER_CATEGORIES, channel_of
from ._reveal import iter_find as find_hidden
from ._scan import (
    Scanner,
    _c_mark_tables,
    count_mark_runs,
    fits_latin1,
    has_astral,
    hits,
    mark_runs,
    scanner,
)
from ._sequences import SequenceCache, earned_by_previous
from .compiled import NORMALIZES_COUNTING, CompiledPolicy, c_clean, c_clean_edit, compile_policy

_c_count = None if speedups is None else speedups.count_groups
_c_list = None if speedups is None else speedups.list_findings
_c_normalize = None if speedups is None else speedups.normalize_runs
_c_decode = None if speedups is None else speedups.decode_valid  # (twin: bytes.decode)
_c_take = None if speedups is None else speedups.take_decoded
_c_outside = None if speedups is None else speedups.groups_outside
_c_mark_runs = None if speedups is None else speedups.list_mark_runs

if TYPE_CHECKING:
    from typing import Any

    from ._identifier import IdentifierChecks

_C = Category
_NON_ASCII = re.compile("[^\\x00-\\x7f]")
_ANY = re.compile(".", re.DOTALL)
_REMOVING = frozenset({Action.STRIP, Action.REPLACE})
_PLACE = operator.attrgetter("start", "end")  # a finding's place: the list's order
# A removed stretch of the input text: (start, end, replacement), "" strips.
Span = tuple[int, int, str]


class _Refused(Exception):
    """A verdict-only run (sanitize, accepts) met its first REJECT: nothing else matters."""


class _Redo(Exception):
    """The edits made in one C pass (``Run._bulk``) need the engine's attention after all:
    normalization made something to check again."""


class _Listed:
    """Findings under a cap (bounded memory): the ``cap`` first in (start, end) order are
    kept (None: all), every one is counted, and so is every one whose action is ALLOW
    (``allowed``: what a gate needs to know of the findings it does not list).  Each pass
    adds in increasing order, so once trimmed a pass's later findings are refused by one
    comparison."""

    __slots__ = ("allowed", "bar", "cap", "count", "items")

    def __init__(self, cap: int | None) -> None:
        self.cap = cap
        self.items: list[Finding] = []
        self.count = 0
        self.allowed = 0
        self.bar: tuple[int, int] | None = None if cap != 0 else (-1, -1)

    def wants(self, start: int, end: int, act: Action) -> bool:
        """Count a finding at start..end; True if it is to be built and kept."""
        self.count += 1
        self.allowed += act is Action.ALLOW
        return self.bar is None or (start, end) < self.bar

    def add_unlisted(self, n: int, allowed: int = 0) -> None:
        """Count ``n`` findings that are never built, ``allowed`` of them ALLOW."""
        self.count += n
        self.allowed += allowed

    def keep(self, finding: Finding) -> None:
        self.items.append(finding)
        if self.cap is not None and len(self.items) > 2 * self.cap:
            self.final()

    def final(self) -> list[Finding]:
        items = self.items
        items.sort(key=_PLACE)
        if self.cap is not None and len(items) >= self.cap > 0:
            del items[self.cap :]
            self.bar = (items[-1].start, items[-1].end)
        return items


def _coalesce(spans: list[Span], start: int, end: int, repl: str) -> None:
    """Append start..end to sorted ``spans``, joining it to an adjacent equal edit."""
    if spans and spans[-1][1] == start and spans[-1][2] == repl:
        spans[-1] = (spans[-1][0], end, repl)
    else:
        spans.append((start, end, repl))


def _merged(a: list[Span], b: list[Span]) -> list[Span]:
    """The union of two sorted span lists (a span inside another adds nothing)."""
    if not b:
        return a
    if not a:
        return b
    out: list[Span] = []
    pos = 0
    for start, end, repl in heapq.merge(a, b, key=lambda e: (e[0], -e[1])):
        if end <= pos:
            continue
        _coalesce(out, max(start, pos), end, repl)
        pos = end
    return out


_WINDOW = 1 << 16  # characters per counting search: a list of at most this many hits


@functools.lru_cache(maxsize=16)
def _latin1_carriers(cats: frozenset[Category]) -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    """For ``cats``: patterns matching a Latin-1 carrier character (U+00AD SOFT HYPHEN, of
    INVISIBLE) and one that starts a run of them, or None when none is scanned."""
    ranges = [
        (lo, min(hi, 0xFF)) for cat in cats if cat in FAMILY for lo, hi in cat.ranges if lo <= 0xFF
    ]
    if not ranges:
        return None
    assert {FAMILY[c] for c in cats if c in FAMILY and c.ranges[0][0] <= 0xFF} <= {
        FAMILY[Category.INVISIBLE]
    }, "Latin-1 carriers of one family only"
    body = char_class(sorted(ranges))
    return re.compile(f"[{body}]"), re.compile(f"(?<![{body}])[{body}]")


def _count_rest(
    groups: Iterator[Group],
    scan: Scanner,
    text: str,
    pos: int,
    is_latin1: bool,
    acts: Mapping[Category, Action],
) -> tuple[int, int]:
    """How many more findings ``groups`` (paused after one that ends at index pos) would
    yield, and how many of them ``acts`` allows.  Latin-1 text: every match of the
    scanner's one-character pattern is a hit (classes are exact) and only runs of
    adjacent carriers (soft hyphens) are grouped, so ``re`` finds them in C, window by
    window (its lookbehinds see before ``pos``; a match is one character, so a window's
    end hides nothing it needs), and a set lookup a match tells the allowed ones."""
    if not is_latin1 or scan.bmp is None:
        total = allowed = 0
        for g in groups:
            total += 1
            allowed += g.action is Action.ALLOW
        return total, allowed
    carriers = _latin1_carriers(scan.cats)
    allowing = {
        chr(cp)
        for cp in range(0x100)
        if (found_cat := category_of(cp)) is not None
        and acts[found_cat] is Action.ALLOW
        and (carriers is None or not carriers[0].match(chr(cp)))
    }

    def matches(pattern: re.Pattern[str]) -> Iterator[list[str]]:
        return (pattern.findall(text, w, w + _WINDOW) for w in range(pos, len(text), _WINDOW))

    total = allowed = 0
    for found in matches(scan.bmp):
        total += len(found)
        if allowing:
            allowed += sum(map(allowing.__contains__, found))
    if carriers is not None:  # each run of them is one finding
        runs = sum(map(len, matches(carriers[1])))
        total += runs - sum(map(len, matches(carriers[0])))
        if acts[Category.INVISIBLE] is Action.ALLOW:  # the one Latin-1 carrier family
            allowed += runs
    return total, allowed


# A compiled policy that scans HIDDEN_PAYLOAD -> that of its policy with HIDDEN_PAYLOAD
# ignored (by the identity of the first; bounded like their cache).
_NO_SEARCH: IdentityCache[CompiledPolicy] = IdentityCache(256)


def _without_search(compiled: CompiledPolicy) -> CompiledPolicy:
    """``compiled``'s policy with HIDDEN_PAYLOAD ignored, compiled (remembered)."""
    return _NO_SEARCH.lookup(id(compiled)) or _NO_SEARCH.store(
        compiled,
        compile_policy(compiled.policy.with_actions({_C.HIDDEN_PAYLOAD: Action.IGNORE})),
    )


# list_findings' anchors of well-formed bytes input: no ill-formed subpart; and a Run's
# findings made in C before there are any (both only read, never changed: no list a Run).
_NO_ANCHORS: tuple[list[int], list[int]] = ([], [])
_NOTHING_PLACED: list[Finding] = []


class Run:
    """One application of a policy to one input (keeps the state out of the hot path)."""

    error_bytes: list[int]  # ill-formed input: the length of each listed error (_decode)

    def __init__(self, data: object, compiled: CompiledPolicy, verdict: bool = False) -> None:
        if isinstance(data, str):
            self.raw: bytes | None = None
            self.text = data
        elif isinstance(data, (bytes, bytearray, memoryview)):
            self.raw = bytes(data)
            self.text = ""
        else:
            raise TypeError(
                f"inspect() argument 'data' must be bytes or str, not {type(data).__name__}"
            )
        self.compiled = compiled
        self.policy: Policy = compiled.policy
        self.acts = compiled.policy.actions
        # verdict: only ok and text are wanted (sanitize, accepts): ALLOW is not scanned
        # for and the run stops at the first REJECT.
        self.verdict = verdict
        cap = self.policy.max_findings
        self.index_findings = _Listed(cap)  # start/end are text indices until _finish
        # Findings of index_findings' count made in C at input offsets (_listed_in_c):
        # noted before any other of it, in input order.
        self.placed = _NOTHING_PLACED
        # The output whose runs of marks the pass that normalized counted, none over the
        # limit (it was that pass's input, unchanged): _final_checks need not count them.
        self.runs_counted: str | None = None
        self.findings = _Listed(cap)  # start/end are input offsets
        self.ill_formed = False  # bytes input that is not UTF-8
        self.errors: list[Utf8Error] = []  # the listed ones: at most max_findings
        self.error_index: list[int] = []  # the text index of each one's U+FFFD
        self.errors_listed = True  # every error of the input is in self.errors
        self.spans: list[Span] = []  # removed text (STRIP, REPLACE), sorted, disjoint
        self.rejected = False

    def _note(
        self,
        cat: Category,
        start: int,
        end: int,
        act: Action,
        *,
        is_index: bool = True,
        **more: Any,
    ) -> None:
        """A finding (built only if the list keeps it)."""
        if act is Action.REJECT:
            self.rejected = True
        elif self.verdict:
            return
        listed = self.index_findings if is_index else self.findings
        if listed.wants(start, end, act):
            listed.keep(new_finding(cat, start, end, act, **more))
        if self.verdict:
            raise _Refused

    def _note_group(self, g: Group) -> None:
        """``_note`` for a group, whose detail (what a carrier run spells) is only
        worked out for a finding the list keeps."""
        act = g.action
        if act is Action.REJECT:
            self.rejected = True
        elif self.verdict:
            return
        listed = self.index_findings
        if listed.wants(g.start, g.end, act):
            listed.keep(new_finding(g.category, g.start, g.end, act, g.codepoint, detail=g.detail))
        if self.verdict:
            raise _Refused

    def _input_len(self) -> int:
        return len(self.raw) if self.raw is not None else len(self.text)

    def _whole(self, cat: Category, form: str | None = None) -> None:
        """A finding about the whole input (limits, dot segments, emptiness)."""
        act = self.acts[cat]
        if act is not Action.IGNORE:
            self._note(cat, 0, self._input_len(), act, is_index=False, form=form)

    def _refuse_whole(self, cat: Category, form: str | None) -> None:
        """A problem no single input character accounts for: the input is refused."""
        self._note(cat, 0, self._input_len(), Action.REJECT, is_index=False, form=form)

    def accepted(self) -> bool:
        """``report().ok`` without the Report: no finding placed, no offset worked out
        (accepts)."""
        try:
            self._run()
        except _Refused:
            pass
        return not self.rejected

    def report(self) -> Report:
        try:
            text = self._run()
        except _Refused:
            text = None
        findings, more, more_allowed = self._finish()
        ok = not self.rejected
        return Report(ok, text if ok else None, findings, self.policy, more, more_allowed)

    # -- steps ---------------------------------------------------------------------------

    def _run(self) -> str | None:
        p = self.policy
        if p.max_bytes is not None:
            size = len(self.raw) if self.raw is not None else utf8_length(self.text, p.max_bytes)
            if size > p.max_bytes:
                self._whole(_C.TOO_LONG)
                return None
        if self.raw is not None:
            self._decode(self.raw)
        text = self.text
        is_ascii = text.isascii()
        is_latin1 = is_ascii or fits_latin1(text)
        utf8 = self.raw if self.raw is not None and not self.ill_formed else None
        scanned = self.compiled.dropping if self.verdict else self.compiled.scanned
        scan = scanner(scanned, p.allow_sequences)
        acts = self.acts
        removed: list[Span] = []
        listed = self.index_findings
        # The payloads hidden in carrier runs, when the policy looks for them.  None
        # found: the run is that of the policy without the search (a payload's members
        # are edited by their own actions; only its finding depends on it), and its
        # edits and counts go to the C passes as that policy's do.
        hidden: Iterator[Hidden] = iter(())
        payloads = False
        if _C.HIDDEN_PAYLOAD in scanned:
            refused_at = self._refused_at(text, scan)
            found_hidden = find_hidden(text[:refused_at])
            first = next(found_hidden, None)
            if first is not None:
                hidden, payloads = itertools.chain((first,), found_hidden), True
                if self.verdict and acts[_C.HIDDEN_PAYLOAD] is Action.REJECT:
                    self._refuse_first(text, scan, first)  # (raises _Refused when it can tell)
                if not self.verdict:
                    done, out, hidden = self._payloads_in_c(text, scan, hidden, is_ascii, is_latin1)
                    if done:
                        return out  # every finding listed and counted
            elif refused_at == len(text) and not self.ill_formed and not self.rejected:
                out = self._clean_without_search(text)  # (a refusal: no pass would tell)
                if out is not None:
                    return out  # nothing hidden, nothing else found or refused
        if self.verdict and not payloads:  # the edits in one C pass, when it can tell
            try:
                out = self._bulk(text, is_ascii, is_latin1)
            except _Redo:
                out = None
            else:
                if out is not None:
                    return self._final_checks(out)
        if not self.verdict and not payloads:
            done, out = self._listed_in_c(text, scan, is_ascii, is_latin1)
            if done:
                return out
        found = hits(text, scan, p.allow_sequences, utf8, p.joiner_contexts)
        groups = grouped(found, text, acts, hidden)  # one finding per carrier run
        cap = p.max_findings
        tail = not payloads and cap is not None and self.compiled.bulk_edit_args is not None
        for g in groups:
            self._note_group(g)
            if self.rejected:  # no edit matters any more: once nothing more is listed,
                if listed.bar is not None and listed.bar <= (g.start, g.end):  # only count
                    # (the C count and the Latin-1 patterns group runs, not payloads)
                    counted = None if payloads else self._count(text, scan, g.end, False)
                    if counted is None:
                        latin1 = is_latin1 and not payloads
                        counted = _count_rest(groups, scan, text, g.end, latin1, acts)
                    listed.add_unlisted(*counted)
                    break
                continue
            if tail and len(listed.items) >= (cap or 0):  # nothing more is listed: the
                tail = False  # rest counted and edited in C passes, when they can tell
                out = self._listed_tail(text, scan, g.end, is_ascii, is_latin1)
                if out is not None:
                    return self._final_checks(out)
            for cat, i in g.members:
                act = acts[cat]
                if act in _REMOVING:
                    _coalesce(removed, i, i + 1, "" if act is Action.STRIP else "\ufffd")
        if not is_latin1:  # no combining marks below U+0300
            removed = _merged(removed, self._combining_runs(text))
        if self.rejected:
            return None
        self._remove(removed)
        if self.rejected:
            return None
        edited = self._edited()
        if p.max_code_points is not None:
            if min_normalized_length(p.normalization, len(edited)) > p.max_code_points:
                self._whole(_C.TOO_LONG, p.normalization)  # cheap bound, before normalizing
                return None
        out = self._normalized_and_rechecked(edited, is_ascii, is_latin1)
        if out is None:
            return None
        return self._final_checks(out)

    def _clean_without_search(self, text: str) -> str | None:
        """The answer for ``text``, in which no payload is hidden, when the one C pass of
        the policy without the search (HIDDEN_PAYLOAD ignored: then the run is that
        policy's) tells it, nothing noted: the text, clean (inspect), or its strips and
        replacements made (a verdict); else None.  The policy's own fast path stopped at
        the first carrier (each is a candidate for the search); without the search a
        carrier is one only where its category says so (an ideographic variation
        sequence, a joiner in a word: none)."""
        base = _without_search(self.compiled)
        if self.verdict:
            edit_args = base.direct_edit_args
            return None if edit_args is None else c_clean_edit(text, *edit_args)  # type: ignore[misc]
        args = base.direct_report_args
        return None if args is None or c_clean is None else c_clean(text, *args)

    def _refuse_first(self, text: str, scan: Scanner, payload: Hidden) -> None:
        """A verdict run that found ``payload``, the first, under a policy refusing it:
        the first refusal is the group of the first character refused (one C scan) when
        it comes before the payload, else the payload (``grouped``'s order).  Raises
        ``_Refused`` with it noted, without a Python step per character before it; returns
        (nothing noted) when a run of carriers holds that character: the engine groups it."""
        acts = self.acts
        refusing = frozenset(c for c in scan.cats if acts[c] is Action.REJECT)
        sequences = self.policy.allow_sequences
        contexts = self.policy.joiner_contexts
        first: tuple[Category, int] | None = None
        if refusing:
            found = hits(text, scanner(refusing, sequences), sequences, None, contexts)
            first = next(iter(found), None)
        if first is not None and first[1] < payload.start:
            cat, i = first
            if cat in FAMILY:
                return  # its group is a carrier run: the engine finds its extent
            self._note(cat, i, i + 1, Action.REJECT, codepoint=ord(text[i]))
        detail = f"{payload.end - payload.start} {payload.describe()}"
        self._note(_C.HIDDEN_PAYLOAD, payload.start, payload.end, Action.REJECT, detail=detail)

    def _refused_at(self, text: str, scan: Scanner) -> int:
        """Where a verdict run (sanitize, accepts) meets the first character it refuses
        that no carrier run can hold, or ``len(text)``: payloads are looked for before it
        only, so a refused input costs the prefix read to refuse it."""
        if not self.verdict:
            return len(text)
        acts = self.acts
        refusing = frozenset(
            c for c in scan.cats if acts[c] is Action.REJECT and c not in CARRIER_CATEGORIES
        )
        if not refusing:
            return len(text)
        sequences = self.policy.allow_sequences
        scan_refusing = scanner(refusing, sequences)
        contexts = self.policy.joiner_contexts
        first = next(iter(hits(text, scan_refusing, sequences, None, contexts)), None)
        return len(text) if first is None else first[1]

    def _count(
        self, text: str, scan: Scanner, start: int, edits_matter: bool
    ) -> tuple[int, int] | None:
        """(findings, allowed) the groups from index ``start`` on make, counted in one C
        pass (``_speedups.count_groups``), or None when only the engine can tell."""
        if _c_count is None or scan.c_args is None:
            return None
        stage1, stage2, tables, _ = scan.c_args
        table = _group_table(self.policy, scan.cats, _TAG_BASE in text)
        counted: tuple[int, int] | None = _c_count(
            text, stage1, stage2, tables, start, table, edits_matter
        )
        return counted

    def _listed_in_c(
        self, text: str, scan: Scanner, is_ascii: bool, is_latin1: bool
    ) -> tuple[bool, str | None]:
        """The findings of the scan listed (the first ``max_findings`` groups, each made
        in C at its input offsets: ``_listing``) and counted in one C pass
        (``_speedups.list_findings``), the output made by ``_bulk`` unless a group refuses:
        (True, what ``_run`` returns), or (False, None) when only the engine can tell
        (then nothing was noted).  Python work per listed finding only for a carrier run
        (what it spells), none per character of a run."""
        p = self.policy
        if _c_list is None or scan.c_args is None:
            return False, None
        if p.joiner_contexts and _C.JOINER in scan.cats:
            return False, None  # RFC 5892 contexts are judged in Python (_scan.hits)
        stage1, stage2, tables, _ = scan.c_args
        cap = p.max_findings
        groups_table = _group_table(p, scan.cats, _TAG_BASE in text)
        limit = -1 if cap is None else cap
        anchors, last = self._anchors(text)  # byte offsets; an ill-formed subpart anchors
        made = _listing.templates(p)
        walked = _c_list(
            text, stage1, stage2, tables, limit, groups_table, True, made, anchors, last
        )
        if walked is None:
            return False, None
        found, pending, more, allowed, worst, bar = walked
        refused = self.rejected or worst == SEVERITY[Action.REJECT]  # (ill-formed bytes)
        out = None
        if not refused:
            try:
                out = self._bulk(text, is_ascii, is_latin1)
            except _Redo:
                out = None
            if out is None:
                if not self._refuses_marks(text, is_latin1):
                    return False, None
                refused = True  # the engine's verdict: its groups are these, and the runs
        _listing.details(text, pending)  # the carrier runs: what each spells
        listed = self.index_findings
        assert not listed.items and not self.placed
        self.placed = found
        listed.add_unlisted(len(found) + more, allowed)
        if cap is not None and len(found) >= cap > 0:
            listed.bar = bar  # in input order: past it nothing more is listed
        if refused:
            self.rejected = True
            if not is_latin1:  # no combining marks below U+0300
                self._combining_runs(text, placed=True)
            return True, None
        assert out is not None
        return True, self._final_checks(out)

    def _refuses_marks(self, text: str, is_latin1: bool) -> bool:
        """True if the policy refuses a run of marks over its limit and ``text`` has one:
        then the engine refuses the input whatever else it finds, and lists the scan's
        groups and the runs, nothing more (its checks after them need an output)."""
        limit = self.policy.max_combining
        if limit is None or is_latin1 or self.acts[_C.COMBINING_RUN] is not Action.REJECT:
            return False
        astral = self.raw is None or self.ill_formed or has_astral(self.raw)
        return next(iter(mark_runs(text, limit, astral)), None) is not None

    def _payloads_in_c(
        self,
        text: str,
        scan: Scanner,
        hidden: Iterator[Hidden],
        is_ascii: bool,
        is_latin1: bool,
    ) -> tuple[bool, str | None, Iterator[Hidden]]:
        """A run that finds the payloads ``hidden`` (in order): each is one finding over the
        hits it holds (``_carrier_runs.grouped``), of HIDDEN_PAYLOAD and its action unless
        a member's action is more severe (then that member's, the first of them).  Only
        the first ``max_findings`` payloads are read; the spans and number of the others
        come from one C pass where it can tell them without reading (``payload_spans``),
        their members' severities from another (``span_members``, unless the policy
        refuses payloads), and the other hits' groups are listed and counted in one C pass
        that passes over every payload's span (``_speedups.groups_outside``); the edits
        are those of the run without payloads (``_bulk``: a payload's members are edited
        by their own actions).  Python work per listed finding, none per character.
        (True, what ``_run`` returns, ()) when done; (False, None, the payloads) when only
        the engine can tell (then nothing was noted)."""
        p = self.policy
        if _c_outside is None or scan.c_args is None or _TAG_BASE in text:
            return False, None, hidden  # (a tag base: tags are the engine's to judge)
        if p.joiner_contexts and _C.JOINER in scan.cats:
            return False, None, hidden  # RFC 5892 contexts are judged in Python (_scan.hits)
        cap = p.max_findings
        read = list(hidden if cap is None else itertools.islice(hidden, cap))
        more = None if cap is None else next(hidden, None)
        left: Iterator[Hidden] = itertools.chain(() if more is None else (more,), hidden)
        bounds = array("q")
        for h in read:  # grouped() closes a payload at the next one's start
            if h.end <= h.start or (bounds and h.start < bounds[-1]):
                return False, None, itertools.chain(read, left)
            bounds.extend((h.start, h.end))
        stage1, stage2, tables, _ = scan.c_args
        # unread payloads: a span a carrier run, and how many payloads each holds
        spans_read = len(read)
        rest_counts: Sequence[int] = array("q")
        rest_total = 0  # sum(rest_counts): the C pass counts it
        rest_spans = b""  # their bounds, as made by that pass (int64 bytes)
        if more is not None:
            resume = bounds[-1] if bounds else 0
            rest = None
            if 0 < resume < len(text) and channel_of(ord(text[resume])) == channel_of(
                ord(text[resume - 1])
            ):
                pass  # the run of the last payload read goes on: reveal reads the rest
            else:
                rest = payload_span_bytes(text, tables, resume)
            if rest is None:
                unread = [more, *hidden]
                left = iter(unread)
                for h in unread:
                    if h.end <= h.start or (bounds and h.start < bounds[-1]):
                        return False, None, itertools.chain(read, left)
                    bounds.extend((h.start, h.end))
                rest_counts = array("q", itertools.repeat(1, len(unread)))
                rest_total = len(unread)
            else:
                rest_spans, rest_counts, rest_total = rest
        spans = bounds.tobytes() + rest_spans  # (one copy of the unread ones' bounds)
        groups_table = _group_table(p, scan.cats, False)
        act = self.acts[_C.HIDDEN_PAYLOAD]
        members = None  # a refusing payload's finding is its own whatever its members
        if act is not Action.REJECT:
            members = span_members(text, (stage1, stage2, tables), groups_table, spans)
        if members is None and act is not Action.REJECT:
            return False, None, itertools.chain(read, left)
        limit = -1 if cap is None else cap
        matter = act is not Action.REJECT  # (a refused run makes no edit)
        walked = _c_outside(text, stage1, stage2, tables, limit, groups_table, spans, matter)
        if walked is None:  # a removal may change a sequence: the engine judges it
            return False, None, itertools.chain(read, left)
        groups, more_groups, more_allowed, worst = walked
        acts, info = self.acts, ct.class_table().info
        payload_severity = SEVERITY[act]

        def judged(k: int) -> tuple[Category, Action]:
            """The category and action of the finding of the payload(s) of span k."""
            if members is not None and members[2 * k] - 1 > payload_severity:
                cat = info[members[2 * k + 1]][0]
                assert cat is not None
                return cat, acts[cat]
            return _C.HIDDEN_PAYLOAD, act

        verdicts = [judged(k) for k in range(spans_read)]  # (the listed ones only)
        strongest = max(members[0::2], default=0) - 1 if members is not None else -1
        worst = max(worst, payload_severity, strongest)
        refused = self.rejected or worst == SEVERITY[Action.REJECT]
        out = None
        if not refused:
            try:
                out = self._bulk(text, is_ascii, is_latin1)
            except _Redo:
                out = None
            if out is None:
                return False, None, itertools.chain(read, left)
        listed = self.index_findings
        items = listed.items
        # the first ``cap`` of the payloads read and the groups listed, in input order
        k = g = 0
        room = len(read) + len(groups) if cap is None else cap
        while room and (k < len(read) or g < len(groups)):
            room -= 1
            if g == len(groups) or (k < len(read) and (read[k].start, read[k].end) < groups[g][:2]):
                payload = read[k]
                cat, cat_act = verdicts[k]
                k += 1
                detail = f"{payload.end - payload.start} {payload.describe()}"
                items.append(new_finding(cat, payload.start, payload.end, cat_act, detail=detail))
                continue
            start, end, c, _ = groups[g]
            g += 1
            hit = info[c][0]
            assert hit is not None
            if end - start == 1:
                items.append(new_finding(hit, start, end, acts[hit], ord(text[start])))
            else:
                detail = span_detail(text, start, end)
                items.append(new_finding(hit, start, end, acts[hit], detail=detail))
        allowed = [group[3] for group in groups].count(0)  # ALLOW: 0
        count = spans_read + rest_total
        if act is Action.ALLOW and members is not None:
            # a payload is allowed unless a member is more severe (1 + ALLOW's 0: at most 1),
            # counted in C-level passes over the spans, not one Python step each
            counts = itertools.chain(itertools.repeat(1, spans_read), rest_counts)
            allowed += sum(itertools.compress(counts, map((1).__ge__, members[0::2])))
        listed.add_unlisted(count + len(groups) + more_groups, allowed + more_allowed)
        listed.final()  # in input order: sets the bar past which nothing more is listed
        if refused:
            self.rejected = True
            if not is_latin1:  # no combining marks below U+0300
                self._combining_runs(text)
            return True, None, iter(())
        assert out is not None
        return True, self._final_checks(out), iter(())

    def _listed_tail(
        self, text: str, scan: Scanner, start: int, is_ascii: bool, is_latin1: bool
    ) -> str | None:
        """Once ``max_findings`` are listed (the first pass lists in input order, so no
        later group is): the output and the count of the groups from ``start`` on, each in
        one C pass, or None when the engine must go on (then nothing was noted)."""
        counted = self._count(text, scan, start, True)
        if counted is None:
            return None
        try:
            out = self._bulk(text, is_ascii, is_latin1)
        except _Redo:
            return None
        if out is not None:
            self.index_findings.final()
            self.index_findings.add_unlisted(*counted)
        return out

    def _bulk(self, text: str, is_ascii: bool, is_latin1: bool) -> str | None:
        """The output when one C pass makes every edit the engine would make
        (``compiled.bulk_edit_args``: no refusal, no sequence a removal could change, no
        mark run over the limit), normalized; None when the engine must decide, and
        ``_Redo`` when normalization made something to check again.  Notes nothing."""
        args = self.compiled.bulk_edit_args
        if args is None:
            return None
        edited: str | None = c_clean_edit(text, *args)  # type: ignore[misc]
        if edited is None:
            return None
        p = self.policy
        act = self.acts[_C.COMBINING_RUN]
        limit = p.max_combining
        counted = args[3] >= 0  # the C pass counted the runs (and gave up at a long one)
        max_run = -1
        if limit is not None and not is_latin1 and act is not Action.IGNORE and not counted:
            if p.normalization in NORMALIZES_COUNTING and not (
                self.verdict and act is Action.ALLOW
            ):
                # counted by the pass that normalizes (bulk_edit_args), on the edited text:
                # a strip only joins runs (no mark is edited), so a run over the limit in
                # the input is one there, and the engine decides (it lists it)
                max_run = limit
            elif not (self.verdict and act is Action.ALLOW):
                astral = self.raw is None or self.ill_formed or has_astral(self.raw)
                if next(iter(mark_runs(text, limit, astral)), None) is not None:
                    return None
        if p.max_code_points is not None:
            if min_normalized_length(p.normalization, len(edited)) > p.max_code_points:
                return None
        return self._normalized_and_rechecked(edited, is_ascii, is_latin1, True, max_run)

    def _decode(self, raw: bytes) -> None:
        """The text, one U+FFFD per maximal subpart (Unicode §3.9), and ILL_FORMED findings:
        objects only for the listed errors, the rest counted (bounded memory)."""
        if _c_decode is not None and _c_take is not None and type(raw) is bytes:
            # the text the fast path decoded and gave up on (clean, clean_edit: the bytes
            # object is the caller's, not a copy), else SIMD-validated, then decoded
            text = _c_take(raw)
            if text is None:
                text = _c_decode(raw)
            if text is not None:
                self.text = text
                return
        else:
            try:
                self.text = raw.decode("utf-8")  # CPython's codec accepts exactly RFC 3629 §4
                return
            except UnicodeDecodeError:
                pass
        self.ill_formed = True
        act = self.acts[_C.ILL_FORMED]
        if self.verdict and act is Action.REJECT:  # a verdict needs the first error only
            err = find_errors(raw, limit=1)[0]
            self._note(
                _C.ILL_FORMED, err.start, err.end, act, is_index=False, raw=err.sequence, error=err
            )
        # CPython's "replace" puts one U+FFFD per maximal subpart, as decode(errors=
        # "replace") does (tests/core/test_decoder_properties.py), in one C pass.
        self.text = text = raw.decode("utf-8", "replace")
        if self.verdict:
            return  # REPLACE: no finding is wanted, only the text
        # Counting subparts without building them: a U+FFFD in the text is either a
        # subpart or a literal EF BF BD of the input.  A literal one is always a complete
        # well-formed sequence (RFC 3629 §4: EF is a 3-byte lead whose second byte may be
        # 80..BF, and BF, BD continue it), and no maximal subpart (Unicode §3.9, D93b)
        # overlaps it: a subpart is a prefix of a well-formed sequence cut short, so it
        # cannot end inside EF BF BD (its bytes are a complete sequence), cannot start at
        # BF or BD then go on (a lone continuation byte is a subpart of length 1), and an
        # earlier lead (C2..F4) cut short by EF ends before EF.  So the replaced text has
        # one U+FFFD per subpart plus one per literal EF BF BD
        # (tests/policy/test_policy_bounded.py).
        total = text.count("\ufffd") - raw.count(b"\xef\xbf\xbd")
        cap = self.policy.max_findings
        errors = find_errors(raw, limit=cap)
        self.error_bytes = []  # each listed one's length in bytes
        self.errors_listed = len(errors) == total
        pos = length = 0
        for err in errors:
            length += len(raw[pos : err.start].decode("utf-8"))  # valid between subparts
            self.errors.append(err)
            self.error_index.append(length)
            self.error_bytes.append(err.end - err.start)
            length += 1
            pos = err.end
            self._note(
                _C.ILL_FORMED, err.start, err.end, act, is_index=False, raw=err.sequence, error=err
            )
        # The unlisted ones: counted, never built (they follow the cap-th listed finding).
        self.findings.add_unlisted(
            total - len(errors), total - len(errors) if act is Action.ALLOW else 0
        )
        if act is Action.REJECT:
            self.rejected = True

    def _combining_runs(self, text: str, placed: bool = False) -> list[Span]:
        """Runs of marks over the limit; what STRIP or REPLACE removes of them.
        ``placed``: the findings so far are ``self.placed`` only (``_listed_in_c``)."""
        limit = self.policy.max_combining
        act = self.acts[_C.COMBINING_RUN]
        removed: list[Span] = []
        if limit is None or act is Action.IGNORE or (self.verdict and act is Action.ALLOW):
            return removed
        if _c_mark_runs is not None and not self.verdict and act not in _REMOVING:
            self._listed_runs(text, limit, act, placed)
            return removed
        astral = self.raw is None or self.ill_formed or has_astral(self.raw)
        listed, cap = self.index_findings, self.policy.max_findings
        runs = mark_runs(text, limit, astral)
        for start, end in runs:
            self._note(_C.COMBINING_RUN, start, end, act)
            if listed.bar is None and cap is not None and len(listed.items) >= cap:
                listed.final()  # runs come in order: none after this one is listed
            if act in _REMOVING:
                _coalesce(removed, start + limit, end, "" if act is Action.STRIP else "\ufffd")
            elif listed.bar is not None and listed.bar <= (start, end):
                # Nothing later is listed, and nothing is removed: the rest only counted.
                counted = count_mark_runs(text, limit, end)
                rest = sum(1 for _ in runs) if counted is None else counted
                listed.add_unlisted(rest, rest if act is Action.ALLOW else 0)
                break
        return removed

    def _listed_runs(self, text: str, limit: int, act: Action, placed: bool) -> None:
        """``_combining_runs`` for an action that removes nothing: the first
        ``max_findings`` runs made in one C pass (``_speedups.list_mark_runs``), the rest
        counted in it, no Python step a run.  ``placed``: at input offsets into
        ``self.placed``, as ``_listed_in_c`` lists; else at text indices into the list."""
        cap = self.policy.max_findings
        anchors: tuple[list[int], list[int]] | None = None
        last = len(text)
        if placed:
            anchors, last = self._anchors(text)
        assert _c_mark_runs is not None
        made = _listing.run_template(act)
        runs, more = _c_mark_runs(
            text, *_c_mark_tables(), limit, 0, -1 if cap is None else cap, made, anchors, last
        )
        total = len(runs) + more
        if not total:
            return
        if act is Action.REJECT:
            self.rejected = True
        listed = self.index_findings
        listed.add_unlisted(total, total if act is Action.ALLOW else 0)
        if placed:  # after the ones noted before at equal places, as the sort keeps them
            assert not listed.items
            self.placed = self.placed + runs if self.placed else runs
            if len(self.placed) > len(runs):
                self.placed.sort(key=_PLACE)
            return
        listed.items += runs
        if cap is not None and len(listed.items) >= cap:
            listed.final()

    def _anchors(self, text: str) -> tuple[tuple[list[int], list[int]] | None, int]:
        """``list_findings``' anchors and last listed text index: None (text indices) for
        str input; for bytes, the ill-formed subparts (byte offsets) and, when not every
        error is listed, the last listed one's U+FFFD (nothing after it is listed)."""
        if self.raw is None:
            return None, len(text)
        if not self.ill_formed:
            return _NO_ANCHORS, len(text)
        last = len(text)
        if not self.errors_listed:
            last = self.error_index[-1] if self.error_index else -1
        return (self.error_index, self.error_bytes), last

    def _remove(self, fresh: list[Span]) -> None:
        """Remove ``fresh`` (sorted, disjoint from what is already removed), then what only
        a removed character exempted: sequences are judged on the text as it will be
        output, so no stripped or replaced character earns an exemption.  A
        dependant's rule needs the character just before it (``earned_by_previous``), so
        one forward walk per removed stretch finds them all: linear."""
        self.spans = spans = _merged(self.spans, fresh)
        if not fresh or not self.policy.allow_sequences:
            return
        text, acts, n = self.text, self.acts, len(self.text)
        starts = [start for start, _, _ in spans]
        cache = SequenceCache()
        orphans: list[Span] = []
        for _, k, _ in fresh:
            while k < n:
                j = bisect.bisect_right(starts, k) - 1
                if j >= 0 and k < spans[j][1]:
                    break  # removed itself: its own stretch continues the walk
                earned = earned_by_previous(text, k, cache)
                if not earned:
                    break
                cat = category_of(ord(text[k]))
                assert cat is not None
                act = acts[cat]
                if act is Action.IGNORE:
                    break
                if len(earned) == 1:
                    self._note(cat, k, k + 1, act, codepoint=ord(text[k]))
                else:  # a tag run after its removed base: one finding (_carrier_runs)
                    members = [(cat, d) for d in earned]
                    self._note(
                        cat, earned.start, earned.stop, act, detail=run_detail(text, members)
                    )
                if act not in _REMOVING or self.rejected:
                    break
                _coalesce(
                    orphans, earned.start, earned.stop, "" if act is Action.STRIP else "\ufffd"
                )
                k = earned.stop
        self.spans = _merged(spans, orphans)

    def _edited(self) -> str:
        """The input text with the removals applied."""
        if not self.spans:
            return self.text
        text = self.text
        out: list[str] = []
        pos = 0
        for start, end, repl in self.spans:
            out += [text[pos:start], repl]
            pos = end
        out.append(text[pos:])
        return "".join(out)

    def _normalized_and_rechecked(
        self, edited: str, is_ascii: bool, is_latin1: bool, bulk: bool = False, max_run: int = -1
    ) -> str | None:
        """Normalize, then check every form the policy names again (CWE-180), attributing
        new problems to the input characters that produce them; at most three rounds.
        ``bulk``: ``edited`` was made by ``_bulk`` (no spans): raise ``_Redo`` instead.
        ``max_run`` >= 0 (``_bulk`` only): the C pass that normalizes to ``normalization``
        (NFC or NFKC, ``_speedups.normalize_runs``) counts the runs of marks too, and None
        is "a run is over it"."""
        p = self.policy
        forms = [f for f in (p.normalization, p.also_check) if f is not None]
        if not forms or (is_ascii and "NFKC_CASEFOLD" not in forms):
            return edited  # ASCII is invariant under NFC and NFKC (UAX #15 §1.1)
        if is_latin1 and forms == ["NFC"] and "\ufffd" not in edited:
            return edited  # U+0000..00FF: all NFC_Quick_Check=Yes starters (UAX #15 §9)
        scan = scanner(self.compiled.dropping, p.allow_sequences)
        for _ in range(3):
            pending: dict[str, set[Category]] = {}
            values: dict[str, str] = {}
            form: str
            for form in forms:
                if max_run >= 0 and form == p.normalization and _c_normalize is not None:
                    made = _c_normalize(edited, form == "NFKC", max_run)
                    if made is None:
                        return None  # a run of marks over the limit: the engine decides
                    if made is edited:
                        self.runs_counted = made
                    value = values[form] = made
                    max_run = -1
                else:
                    value = values[form] = normalize(form, edited)
                if value != edited:
                    found = {
                        cat
                        for cat, _ in hits(value, scan, p.allow_sequences, None, p.joiner_contexts)
                    }
                    if found:
                        pending[form] = found
            if not pending:
                return values[p.normalization] if p.normalization else edited
            if bulk:
                self.runs_counted = None  # (the engine makes its own output)
                raise _Redo
            fresh: list[Span] = []
            for form, cats in pending.items():
                fresh = _merged(fresh, self._attribute(form, cats))
            if self.rejected:
                return None
            self._remove(fresh)
            if self.rejected:
                return None
            edited = self._edited()
        for form, cats in pending.items():  # stripping keeps producing problems: refuse
            for cat in cats:
                self._refuse_whole(cat, form)
        return None

    def _attribute(self, form: str, cats: set[Category]) -> list[Span]:
        """Find the input characters whose ``form`` contains a character in ``cats``;
        return what their actions remove."""
        found = False
        chars = _ANY if form == "NFKC_CASEFOLD" else _NON_ASCII
        spans = self.spans
        fresh: list[Span] = []
        j = 0  # the first span that may hold or follow i
        for m in chars.finditer(self.text):
            i, ch = m.start(), m.group()
            while j < len(spans) and spans[j][1] <= i:
                j += 1
            if j < len(spans) and spans[j][0] <= i:
                continue  # removed already
            produced = normalize(form, ch)
            if produced == ch:
                continue
            for c in produced:
                cat = category_of(ord(c))
                if cat in cats:
                    act = self.acts[cat]
                    self._note(cat, i, i + 1, act, codepoint=ord(ch), produced=produced, form=form)
                    if act in _REMOVING:
                        _coalesce(fresh, i, i + 1, "" if act is Action.STRIP else "\ufffd")
                    found = True
                    break
        if not found:  # made by composition across characters: refuse the whole input
            for cat in cats:
                self._refuse_whole(cat, form)
        return fresh

    def _final_checks(self, out: str) -> str | None:
        p = self.policy
        limit = p.max_combining
        checks_runs = limit is not None and self.acts[_C.COMBINING_RUN] in DROPPING
        if (
            checks_runs
            and out is not self.runs_counted
            and out != self.text
            and not fits_latin1(out)
        ):
            if any(mark_runs(out, limit or 0)):  # a run that stripping or normalizing made
                self._refuse_whole(_C.COMBINING_RUN, p.normalization)
        if out in (".", ".."):
            self._whole(_C.DOT_SEGMENT)
        elif (
            p.also_check is not None
            and len(out) <= 2 * MAX_NFD_EXPANSION  # longer never normalizes to '..'
            and normalize(p.also_check, out) in (".", "..")
        ):
            self._whole(_C.DOT_SEGMENT, p.also_check)
        if not out:
            self._whole(_C.EMPTY)
        if p.max_code_points is not None and len(out) > p.max_code_points:
            self._whole(_C.TOO_LONG, p.normalization)
        elif out and self.compiled.identifier is not None:
            self._identifier_checks(out, self.compiled.identifier)
        return None if self.rejected else out

    def _identifier_checks(self, out: str, checks: IdentifierChecks) -> None:
        """UTS #39 on the output.  When the output is the input's text unchanged (nothing
        removed, normalization changed nothing: most input), findings sit at the very
        characters; otherwise at the whole input, their detail naming output indices."""
        same = out == self.text
        acts = self.acts
        for spot in checks.spots(out, self.verdict, self.policy.max_findings):
            act = acts[spot.category]
            # the ones after the cap-th of a category: counted, never built
            (self.index_findings if same else self.findings).add_unlisted(
                spot.more, spot.more if act is Action.ALLOW else 0
            )
            if same:
                self._note(
                    spot.category,
                    spot.start,
                    spot.end,
                    act,
                    codepoint=spot.codepoint,
                    detail=spot.detail,
                )
            else:
                what = spot.detail
                if spot.codepoint is not None:
                    what = f"{describe(spot.codepoint)}: {what}"
                form = self.policy.normalization or "edited"
                where = f"{spot.start}..{spot.end} of the {form} output"
                self._note(
                    spot.category,
                    0,
                    self._input_len(),
                    act,
                    is_index=False,
                    detail=f"{what} at {where}",
                )

    def _finish(self) -> tuple[tuple[Finding, ...], int, int]:
        """The listed findings, index findings at byte offsets (bytes input), in input
        order; how many more were found, and how many of those the policy allows."""
        total = self.index_findings.count + self.findings.count
        if not total:  # nothing was found (the usual case)
            return (), 0, 0
        found = self.index_findings.final()
        if not self.errors_listed:
            # Text past the last listed error's U+FFFD lies after max_findings listed
            # errors in the input: nothing there is listed (so no anchor is needed).
            last = self.error_index[-1] if self.error_index else -1
            found = [f for f in found if f.start <= last]
        if found and self.raw is not None:
            to_byte = ByteOffsets(self.text, self.errors, self.error_index)
            found = moved_findings(found, to_byte.spans([(f.start, f.end) for f in found]))
        if self.placed:  # noted first: first among equal places, as the sort keeps them
            found = self.placed + found if found else self.placed
            if len(found) > len(self.placed):
                found.sort(key=_PLACE)
        others = self.findings.final()
        everything = found + others if others else found
        if found and others:
            everything.sort(key=_PLACE)
        cap = self.policy.max_findings
        if cap is not None:
            del everything[cap:]
        allowed = self.index_findings.allowed + self.findings.allowed
        listed_allowed = [f.action for f in everything].count(Action.ALLOW) if allowed else 0
        return tuple(everything), total - len(everything), allowed - listed_allowed
