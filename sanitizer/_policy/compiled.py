"""One compiled form per Policy: everything the fast paths derive from it, built once.

A ``Policy`` is plain frozen data.  What the scanners, the C fast path and
``sanitizer.web`` need from it (the categories scanned, the ASCII bytes that can never
be a finding, the C tables) is derived here, once per distinct policy, by the cached
``compile_policy``.  It is the internal module the adapters judge fast with
(``sanitizer.web``, the CLI): not public, but, with the package's ``__init__`` and
``profiles``, one other packages may import (docs/design.md).  It also lends them
``ByteOffsets`` (from ``_offsets``): code-point indices into a decoded text -> byte
offsets into its bytes, for an adapter that places findings made on text in the bytes
it read (``sanitizer check --policy SOURCE``); and, for readers that judge a long text a
piece at a time in bounded memory, ``piece_end`` (where a text may be cut, ``_pieces``)
and ``carried`` (how much of a piece continues a carrier run the cut before it split),
``cut_inside`` (whether a forced cut falls inside a sequence: a reader refuses it, with
the reason ``CUT_SEQUENCE``),
``open_start`` (where a cut splits no carrier structure, for a reader cutting a stream),
``judges_lines_alone`` (whether a policy may be given the pieces),
``character_groups`` (the findings a policy makes of some categories, lazily) and
``iter_reveal`` (the hidden payloads of a piece, one at a time: ``sanitizer reveal``).

The C fast path.  Most input breaks no rule.  For it, the answer is the input itself: no
finding, no edit, and normalization changes nothing when no character is
normalization-sensitive (UAX #15 §9: a string whose characters all have Quick_Check=Yes
and ccc=0 is in that form).  So one C pass (``_speedups.clean``: strict decode, then a
scan over character classes, see ``_classtable``) decides whether a value is clean;
anything it flags takes the engine (``_run``), which decides everything again.  The C
code only indexes the tables built here from the policy.

The identifier checks of UTS #39 (``_identifier``: RESTRICTED, MIXED_SCRIPT, ...) judge
the whole output, so the C tables know nothing of them: a policy that scans them judges
whole values, and a text the C pass finds clean (its own output) is checked by them
before it is the answer; in ASCII only Restricted characters can be found, so they
leave ``ascii_allowed``.
"""

from __future__ import annotations

import dataclasses
import functools
from array import array
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .._categories import Category
from .._identity_cache import IdentityCache
from .._native import speedups
from . import _classtable as ct
from ._carrier_runs import Group as Group  # what character_groups yields (see below)
from ._model import DROPPING, IDENTIFIER_CATEGORIES, Action, Policy
from ._offsets import ByteOffsets as ByteOffsets  # lent to adapters (see above)
from ._offsets import utf8_length
from ._pieces import CUT_SEQUENCE as CUT_SEQUENCE  # lent to readers of long texts
from ._pieces import carried as carried  # lent to readers of long texts (see above)
from ._pieces import carried_text as carried_text  # lent to readers of long texts
from ._pieces import cut_inside as cut_inside  # lent to readers of long texts (see above)
from ._pieces import open_start as open_start  # lent to readers of streams (see above)
from ._pieces import piece_end as piece_end  # lent to readers of long texts (see above)
from ._reveal import CARRIER_CATEGORIES as CARRIER_CATEGORIES  # lent to readers of pieces
from ._reveal import _c_tables as _reveal_tables
from ._reveal import carrier_rules
from ._reveal import iter_reveal as iter_reveal  # lent to readers of long texts (see above)
from ._scan import counted_mark
from ._sequences import c_rule_id, c_rule_tables

if TYPE_CHECKING:  # imported by compile_policy only for a policy that scans these checks
    from ._identifier import IdentifierChecks

# The arguments after ``data`` of the C fast path ``_speedups.clean(data, *args)``:
# (stage1, stage2, policy tables, mark-run limit).
CArgs = tuple[bytes, bytes, bytes, int]
# ``_speedups.clean_edit(data, *args)``: CArgs, then the edits by class (sanitize).
EditArgs = tuple[bytes, bytes, bytes, int, bytes]

c_clean = None if speedups is None else speedups.clean  # the C fast path, if built
# sanitize's C fast path: clean, or cleaned by single-character strips and replacements
c_clean_edit = None if speedups is None else speedups.clean_edit
# The normal forms whose C pass counts runs of marks (``_speedups.normalize_runs``).
NORMALIZES_COUNTING = frozenset({"NFC", "NFKC"})
# Whole values that are findings of their own (Category.EMPTY, Category.DOT_SEGMENT).
_WHOLE_VALUES = {b"": Category.EMPTY, b".": Category.DOT_SEGMENT, b"..": Category.DOT_SEGMENT}


@dataclasses.dataclass(frozen=True, slots=True)
class CompiledPolicy:
    """What the fast paths need from one ``Policy`` (see ``compile_policy``)."""

    policy: Policy
    scanned: frozenset[Category]  # categories whose action is not IGNORE
    dropping: frozenset[Category]  # categories whose action is REJECT, STRIP or REPLACE
    ascii_allowed: bytes  # the ASCII bytes in no scanned category
    refused_values: frozenset[bytes]  # whole values with a finding: b"", b".", b".."
    # A check looks at the value as a whole (a byte or code-point limit, EMPTY,
    # DOT_SEGMENT): if not, a text passes iff each piece cut before an ASCII byte passes.
    judges_whole_values: bool
    # The C fast path's tables (None without the C extension): ``verdict_args`` flags what
    # refuses or changes text (sanitize, accepts); ``report_args`` flags every scanned
    # category (inspect lists ALLOW findings too).
    verdict_args: CArgs | None
    report_args: CArgs | None
    # The same when one C call is the whole fast path (no whole-value check, and no
    # NFKC_CASEFOLD form, for which the ASCII path may answer what C flags), else None:
    # then ``clean(data, *direct_verdict_args)`` is ``fast_sanitize(data)``.
    direct_verdict_args: CArgs | None
    direct_report_args: CArgs | None
    # The identifier checks (UTS #39) of a policy that scans any (None: the usual case).
    identifier: IdentifierChecks | None = None
    # ``clean_edit(data, *direct_edit_args)`` is sanitize's whole fast path when set
    # (with the direct_verdict_args, plus which classes it may strip or replace).
    direct_edit_args: EditArgs | None = None
    # ``clean_edit(text, *bulk_edit_args)``: the engine's edits of a text in one C pass
    # (the scanner's tables for the dropping categories: no normal form, no run limit,
    # which the engine then applies), or None when it cannot tell.
    bulk_edit_args: EditArgs | None = None

    def with_policy(self, policy: Policy) -> CompiledPolicy:
        """The same tables for ``policy`` (an equal policy: ``compiled_for``)."""
        return dataclasses.replace(self, policy=policy)

    def ascii_clean(self, raw: bytes) -> bool:
        """True if ``raw`` is ASCII with nothing the policy scans for and within its
        limits: then ``raw`` decoded is its own clean text (no finding, no change)."""
        policy = self.policy
        if not raw.isascii() or (policy.max_bytes is not None and len(raw) > policy.max_bytes):
            return False
        if raw.translate(None, self.ascii_allowed) or raw in self.refused_values:
            return False
        return policy.max_code_points is None or len(raw) <= policy.max_code_points

    def fast_sanitize(self, data: object) -> str | None:
        """What ``sanitize`` returns for ``data`` when the fast paths can tell that the
        policy neither refuses nor changes it (ALLOW findings may exist); None: "run the
        engine", which decides everything again."""
        return self.fast_text(data, self.verdict_args)

    def fast_inspect(self, data: object) -> str | None:
        """Like ``fast_sanitize``, for input with no finding at all (``inspect``)."""
        return self.fast_text(data, self.report_args)

    def fast_text(self, data: object, args: CArgs | None) -> str | None:
        """``fast_sanitize`` (``args`` = ``verdict_args``) or ``fast_inspect``
        (``report_args``): the C fast path, plus the whole-value checks the engine would
        make on clean text -- the byte limit first, then '' / '.' / '..' (a clean text is
        its own NFC and NFKC, so also_check cannot make it '..') and the code-point limit
        -- else the ASCII path."""
        if args is not None:
            if not self.judges_whole_values:
                text: str | None = c_clean(data, *args)  # type: ignore[misc]
                return text if text is not None else self._fast_ascii(data)
            policy = self.policy
            limit = policy.max_bytes
            if limit is not None:
                if isinstance(data, bytes):
                    if len(data) > limit:
                        return None
                elif isinstance(data, str):
                    if len(data) * 4 > limit and utf8_length(data, limit) > limit:
                        return None  # (short text cannot exceed the limit: no call)
                else:
                    return None
            text = c_clean(data, *args)  # type: ignore[misc]
            if text is None:
                return self._fast_ascii(data)
            if len(text) <= 2 and text.encode("utf-8", "surrogatepass") in self.refused_values:
                return None
            if policy.max_code_points is not None and len(text) > policy.max_code_points:
                return None
            checks = self.identifier
            if checks is not None and not checks.passes(text, args is not self.report_args):
                return None
            return text
        return self._fast_ascii(data)

    def _fast_ascii(self, data: object) -> str | None:
        """The answer for short, clean ASCII input -- most web input -- without C."""
        if isinstance(data, bytes):
            raw = data
        elif isinstance(data, str):
            if not data.isascii():
                return None
            raw = data.encode("ascii")
        else:
            return None
        if not self.ascii_clean(raw):
            return None
        text = raw.decode("ascii")
        return text.lower() if self.policy.normalization == "NFKC_CASEFOLD" else text


def _c_tables(policy: Policy, scanned: frozenset[Category]) -> bytes:
    """The policy as tables over character classes (layout at ``_classtable.RULES_OFFSET``)
    flagging ``scanned`` (every scanned category for inspect, which lists ALLOW findings;
    the dropping ones for sanitize, whose text does not depend on an ALLOW finding)."""
    table = ct.class_table()
    forms = {policy.normalization, policy.also_check}
    sensitive = set()
    if "NFC" in forms:
        sensitive.add(ct.NFC)
    if "NFKC" in forms:
        sensitive.add(ct.NFKC)
    if "NFKC_CASEFOLD" in forms:
        sensitive |= {ct.NFKC, ct.CASEFOLD}
    runs = policy.max_combining is not None and Category.COMBINING_RUN in scanned
    flags = bytearray(256)
    rule = bytearray(256)
    for c, (cat, fl) in enumerate(table.info):
        by_category = cat in scanned
        by_form = bool(fl & sensitive)
        flags[c] = (by_category or by_form) | (2 if runs and counted_mark(cat, fl) else 0)
        if by_category and not by_form and policy.allow_sequences:
            rule[c] = c_rule_id(cat, fl)
    rule_tables = c_rule_tables(table.info)
    if Category.HIDDEN_PAYLOAD in scanned:
        rule_tables += _carrier_flags(flags, rule, rule_tables)
    prefilter = ct.prefilter([b for b in range(0x7F) if flags[table.class_of(b)]])
    out = bytes(flags + rule + prefilter)
    assert len(out) == ct.RULES_OFFSET
    return out + rule_tables


def _carrier_flags(flags: bytearray, rule: bytearray, rule_tables: bytes) -> bytes:
    """Flag, for a policy that scans HIDDEN_PAYLOAD, every class ``reveal`` must see
    (``_reveal.carrier_rules``): a class flagged already keeps its own sequence rule only
    where the carrier rule also exempts (both tables ANDed: each rule is a condition on
    the previous and one on the next character).  Returns the rule tables added, whose
    numbers follow those of ``rule_tables``."""
    added: list[bytes] = []
    first = len(rule_tables) // ct.RULE_SIZE + 1
    for c, carrier in enumerate(carrier_rules()):
        if carrier is None or (flags[c] & 1 and rule[c] == 0):
            continue  # no carrier, or a candidate anyway
        if not carrier:
            flags[c] |= 1
            rule[c] = 0
            continue
        tables = carrier[0] + carrier[1]
        if flags[c] & 1:  # its category's sequence rule, and the carrier rule
            own = rule_tables[(rule[c] - 1) * ct.RULE_SIZE : rule[c] * ct.RULE_SIZE]
            tables = bytes(a & b for a, b in zip(own, tables, strict=True))
        flags[c] |= 1
        if tables not in added:
            added.append(tables)
        rule[c] = first + added.index(tables)
    return b"".join(added)


def _c_edits(policy: Policy, dropping: frozenset[Category], forms_matter: bool = True) -> bytes:
    """Per class, what ``clean_edit`` may do by itself to a character the verdict tables
    flag: strip it (EDIT_STRIP) or replace it (EDIT_REPLACE) as its category's action
    says, when nothing but its category flags it (no normal form it is sensitive to: the
    output then needs no normalization, UAX #15 §9; not asked when not ``forms_matter``:
    the engine normalizes that output), it is no mark a combining run counts (a
    carrier mark, a variation selector or U+034F, counts in none: stripped like a
    format character, the marks either side one run, as ``clean_edit`` counts the
    output's, UAX #15 §13), and no tag sequence can exempt it (their rule has no table:
    the engine decides those; a character with a neighbour rule is edited where the C
    scan stops, i.e. where the rule fails)."""
    table = ct.class_table()
    forms = {policy.normalization, policy.also_check} if forms_matter else set()
    sensitive = {ct.NFC} if "NFC" in forms else set()
    if forms & {"NFKC", "NFKC_CASEFOLD"}:
        sensitive |= {ct.NFKC, ct.CASEFOLD}
    edits = bytearray(256)
    for c, (cat, fl) in enumerate(table.info):
        if cat not in dropping or fl & sensitive or counted_mark(cat, fl):
            continue
        if policy.allow_sequences and cat is Category.TAG:
            continue  # tag sequences have no table: the engine judges every tag
        if Category.HIDDEN_PAYLOAD in dropping and cat in CARRIER_CATEGORIES:
            continue  # a run of them may hide a payload: the engine reveals it first
        act = policy.actions[cat]
        if act is Action.STRIP:
            edits[c] = ct.EDIT_STRIP
        elif act is Action.REPLACE:
            edits[c] = ct.EDIT_REPLACE
    return bytes(edits)


def _c_args(policy: Policy, scanned: frozenset[Category]) -> CArgs | None:
    if c_clean is None:
        return None
    table = ct.class_table()
    runs = policy.max_combining is not None and Category.COMBINING_RUN in scanned
    max_run = policy.max_combining if runs and policy.max_combining is not None else -1
    return (table.stage1, table.stage2, _c_tables(policy, scanned), max_run)


@functools.lru_cache(maxsize=256)
def compile_policy(policy: Policy) -> CompiledPolicy:
    """The compiled form of ``policy`` (cached: policies are values)."""
    actions = policy.actions
    scanned = frozenset(c for c, a in actions.items() if a is not Action.IGNORE)
    dropping = frozenset(c for c, a in actions.items() if a in DROPPING)
    ascii_scanned = {
        cp
        for c in scanned
        for lo, hi in c.ranges
        if lo < 0x80
        for cp in range(lo, min(hi, 0x7F) + 1)
    }
    refused_values = frozenset(
        v for v, c in _WHOLE_VALUES.items() if actions[c] is not Action.IGNORE
    )
    identifier = None
    if scanned & IDENTIFIER_CATEGORIES:
        from ._identifier import IdentifierChecks, restricted_ascii  # loads sanitizer._lookalike

        identifier = IdentifierChecks(
            scanned & IDENTIFIER_CATEGORIES,
            dropping & IDENTIFIER_CATEGORIES,
            policy.max_restriction_level,
        )
        if Category.RESTRICTED in scanned:
            ascii_scanned |= restricted_ascii()
    judges_whole_values = (
        policy.max_bytes is not None
        or policy.max_code_points is not None
        or bool(refused_values)
        or identifier is not None
    )
    verdict_args = _c_args(policy, dropping)
    report_args = _c_args(policy, scanned)
    casefolds = "NFKC_CASEFOLD" in (policy.normalization, policy.also_check)
    direct = not judges_whole_values and not casefolds
    return CompiledPolicy(
        policy=policy,
        scanned=scanned,
        dropping=dropping,
        ascii_allowed=bytes(b for b in range(0x80) if b not in ascii_scanned),
        refused_values=refused_values,
        judges_whole_values=judges_whole_values,
        verdict_args=verdict_args,
        report_args=report_args,
        direct_verdict_args=verdict_args if direct else None,
        direct_report_args=report_args if direct else None,
        identifier=identifier,
        direct_edit_args=(
            (*verdict_args, _c_edits(policy, dropping))
            if direct and verdict_args is not None and c_clean_edit is not None
            else None
        ),
        bulk_edit_args=_bulk_edit_args(policy, dropping),
    )


def _bulk_edit_args(policy: Policy, dropping: frozenset[Category]) -> EditArgs | None:
    """``clean_edit``'s arguments making the edits the engine makes of a text (``_run``):
    the scanner's tables of the dropping categories (their sequence rules, nothing for
    normal forms, which the engine judges after) and their edits.  Carriers of hidden
    payloads are edited too: the engine asks only of a text it found none in.  When the
    policy drops a run of marks over its limit, the pass that normalizes the edited text
    counts the runs (``_speedups.normalize_runs``: the runs through strips, as the
    output has them), or, when the policy normalizes to neither NFC nor NFKC, this pass
    does (the counted marks flagged 2, and the limit: a longer run makes it give up), so
    that the engine need not look for them again (``_run.Run._bulk``)."""
    if c_clean_edit is None:
        return None
    from ._scan import scanner

    dropping -= {Category.HIDDEN_PAYLOAD}
    c_args = scanner(dropping, policy.allow_sequences).c_args
    assert c_args is not None
    stage1, stage2, tables, max_run = c_args
    limit = policy.max_combining
    marks = [c for c, (cat, fl) in enumerate(ct.class_table().info) if counted_mark(cat, fl)]
    # (a mark this pass would edit makes the edited text's runs not the input's: then
    # this pass counts them, and gives up at such a mark)
    edits_marks = any(tables[c] & 1 for c in marks)
    if (
        limit is not None
        and Category.COMBINING_RUN in dropping
        and (policy.normalization not in NORMALIZES_COUNTING or edits_marks)
    ):
        flags = bytearray(tables[:256])
        for c in marks:
            flags[c] |= 2
        tables, max_run = bytes(flags) + tables[256:], limit
    return (stage1, stage2, tables, max_run, _c_edits(policy, dropping, forms_matter=False))


# The hot paths (inspect, sanitize, accepts) find a policy's compiled form by the
# identity of the Policy object (``by_identity.lookup(id(policy))``, a dict lookup in C),
# where ``compile_policy`` calls Policy.__hash__ in Python.  Bounded like its cache.
by_identity: IdentityCache[CompiledPolicy] = IdentityCache(256)


def compiled_for(policy: Policy) -> CompiledPolicy:
    """``compile_policy(policy)`` with ``.policy`` being this object, remembered by
    identity (for the ``by_identity.lookup(id(policy)) or compiled_for(policy)`` idiom)."""
    compiled = compile_policy(policy)
    if compiled.policy is not policy:  # an equal policy compiled first: share its tables
        compiled = compiled.with_policy(policy)
    return by_identity.store(policy, compiled)


def judges_lines_alone(policy: Policy) -> bool:
    """Whether ``inspect`` finds in a text cut into pieces (``piece_end``) what it finds
    in the whole, offsets shifted: true unless ``policy`` judges whole values (a byte
    or code-point limit, '.' and '..', emptiness, the identifier checks of UTS #39)."""
    return not compiled_for(policy).judges_whole_values


def character_groups(text: str, policy: Policy, categories: frozenset[Category]) -> Iterator[Group]:
    """The findings ``inspect(text, policy)`` makes of the characters of ``categories``
    when it scans for them: one a character, or one a run of adjacent carriers
    (``_carrier_runs``: zero-width characters, tags, selectors), sequence exemptions as
    ``policy.allow_sequences`` says; in order and one at a time, for a caller that
    judges them itself, all of them, in memory that does not grow with them
    (``sanitizer._source_gate``: joiners and invisibles by their context)."""
    from ._carrier_runs import SEVERITY, grouped
    from ._scan import hits, scanner

    scan = scanner(categories, policy.allow_sequences)
    found = hits(text, scan, policy.allow_sequences, None, policy.joiner_contexts)
    every = grouped(found, text, policy.actions)
    contexts = policy.joiner_contexts and Category.JOINER in scan.cats  # (judged in Python)
    ignored = any(policy.actions[c] not in SEVERITY for c in scan.cats)  # (no severity)
    if speedups is None or scan.c_args is None or contexts or ignored:
        return every
    stage1, stage2, tables, _ = scan.c_args
    return _groups_in_c(text, policy, scan.cats, (stage1, stage2, tables), every)


# Characters a C listing of ``character_groups`` covers at a time (bounded memory).
GROUPS_WINDOW = 1 << 15


def _groups_in_c(
    text: str,
    policy: Policy,
    cats: frozenset[Category],
    tables: tuple[bytes, bytes, bytes],
    every: Iterator[Group],
) -> Iterator[Group]:
    """``character_groups`` listed by the C walk of the engine's groups
    (``_speedups.groups_outside``, what ``inspect`` lists from), a window of the text at
    a time: the text outside it passed over, a run cut at its ends, so a group that ends
    at a window's end (it may go on) is listed again by the next window, which starts
    where it does.  No Python step per character or hit, one a group (a run's members
    and detail worked out when asked).  ``every``: the Python walk, for the rest of the
    text from where only the engine can tell."""
    from .._categories import category_of
    from ._carrier_runs import TAG_BASE, group_table, span_detail

    assert speedups is not None
    outside = speedups.groups_outside
    table = group_table(policy, cats, TAG_BASE in text)
    info, acts = ct.class_table().info, policy.actions

    def members(start: int, end: int) -> list[tuple[Category, int]]:
        return [(category_of(ord(text[k])), k) for k in range(start, end)]  # type: ignore[misc]

    n, a, window = len(text), 0, GROUPS_WINDOW
    while a < n:
        b = min(n, a + window)
        spans = array("q", (0, a) if a else ())
        if b < n:
            spans.extend((b, n))
        walked = outside(text, *tables, -1, table, spans.tobytes(), False)
        if walked is None:  # only the engine can tell: its groups from here on
            yield from (g for g in every if g.start >= a)
            return
        listed, nxt = walked[0], b
        if b < n and listed and listed[-1][1] == b:  # it may go on past the window
            nxt = listed.pop()[0]
            if nxt == a:  # one run fills the window: a larger one
                window *= 2
                continue
        for start, end, c, _ in listed:
            cat = info[c][0]
            assert cat is not None
            if end - start == 1:
                yield Group(cat, start, end, acts[cat], ord(text[start]), None, None)
            else:
                detail = functools.partial(span_detail, text, start, end)
                run = functools.partial(members, start, end)
                yield Group(cat, start, end, acts[cat], None, detail, run)
        a, window = nxt, GROUPS_WINDOW


def reveal_args() -> tuple[bytes, bytes, bytes, int] | None:
    """The C scan's arguments ``reveal`` asks first (``clean(data, *reveal_args())`` not
    None: nothing to reveal), or None without the C extension: for readers that ask the
    same question of many values at once (``sanitizer.columns``)."""
    if speedups is None:
        return None
    return (*_reveal_tables(), -1)
