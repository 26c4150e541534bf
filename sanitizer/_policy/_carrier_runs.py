"""One finding per carrier run: the engine's hits grouped as a person reads them.

A payload hidden in invisible characters is a run of them (``_reveal``): 78 tag
characters that spell "ignore previous instructions", 64 zero-width characters that
carry 8 bytes.  Reported one finding per character, a run fills logs and the finding
cap (``Policy.max_findings``) and says nothing of what it hides.  So the engine's hits
(``_scan.hits``: one per character, in order) pass through ``grouped``:

- adjacent hits of one carrier family (tag characters; variation selectors; the bit
  symbols of ``_reveal.BIT_CATEGORIES``) become one ``Group`` spanning the run, of its
  most severe action (REJECT > REPLACE > STRIP > ALLOW) and that member's category, whose
  detail names the run and what it spells (``_reveal.carrier_run``);
- with ``hidden`` (the payloads ``reveal`` found, when the policy scans HIDDEN_PAYLOAD),
  each payload is one Group of category HIDDEN_PAYLOAD spanning its carrier run, and
  the hits inside it are its members (a member's action more severe than the payload's
  gives the group its category and action);
- every other hit is a Group of its own, as before.

Members keep their own categories and actions: the engine applies each one's edit
(strip, replace) as before, so what ``sanitize`` returns does not change, only how many
findings say so.  Groups come in input order, as the finding list needs them.
"""

from __future__ import annotations

import functools
import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from .._categories import Category, category_of, char_class
from .._native import speedups
from . import _classtable as ct
from . import _reveal
from ._hidden import Hidden
from ._model import Action, Policy
from ._reveal import BIT_CATEGORIES, carrier_run
from ._sequences import TAG_SEQUENCE

_C = Category
# Carrier family of each category whose adjacent hits form one run.
FAMILY: dict[Category, str] = {
    _C.TAG: "tag characters",
    _C.VARIATION_SELECTOR: "variation selectors",
    **dict.fromkeys(BIT_CATEGORIES, "zero-width characters"),
}
SEVERITY = {Action.ALLOW: 0, Action.STRIP: 1, Action.REPLACE: 2, Action.REJECT: 3}
TAG_BASE = chr(TAG_SEQUENCE.base)  # what starts an emoji tag sequence (UTS #51 §2.3)

Hit = tuple[Category, int]


class Group:
    """One finding's worth of hits: ``category``, ``start``..``end``, ``action``;
    ``codepoint`` for a single character, else None and ``detail`` says what the run
    is; ``members`` the hits it covers (each with its own category)."""

    __slots__ = ("_detail", "_members", "action", "category", "codepoint", "end", "start")

    def __init__(
        self,
        category: Category,
        start: int,
        end: int,
        action: Action,
        codepoint: int | None,
        detail: str | Callable[[], str] | None,
        members: list[Hit] | Callable[[], list[Hit]] | None,
    ) -> None:
        self.category = category
        self.start = start
        self.end = end
        self.action = action
        self.codepoint = codepoint
        self._detail = detail  # a callable: worked out when asked (most are only counted)
        self._members = members  # (likewise; None: the one character's own hit)

    @property
    def members(self) -> list[Hit]:
        members = self._members
        if members is None:
            members = self._members = [(self.category, self.start)]
        elif callable(members):
            members = self._members = members()
        return members

    @property
    def detail(self) -> str | None:
        detail = self._detail
        if callable(detail):
            detail = self._detail = detail()
        return detail


def run_detail(text: str, members: list[Hit]) -> str:
    """What a run of ``members`` (adjacent carrier hits) is, in words: ``78 tag
    characters spelling 'ignore previous...'``, or ``5 zero-width characters``."""
    return span_detail(text, members[0][1], members[-1][1] + 1)


@functools.cache
def _bidi_marks() -> re.Pattern[str]:
    return re.compile(f"[{char_class(_C.BIDI_MARK.ranges)}]*")


def span_detail(text: str, start: int, end: int) -> str:
    """``run_detail`` of the run ``text[start:end]``, each character a hit of one carrier
    family (a run is adjacent hits): no Python work per member."""
    first = category_of(ord(text[start]))
    assert first is not None
    noun = FAMILY[first]
    if noun == "zero-width characters" and _bidi_marks().fullmatch(text, start, end):
        noun = "bidi marks"  # every member a bidi mark
    payloads = carrier_run(text, start, end)
    count = end - start
    if not payloads:
        return f"{count} {noun}"
    if len(payloads) == 1 and payloads[0].channel.noun == noun:
        return f"{count} {payloads[0].describe()}"
    said = "; ".join(h.describe() for h in payloads)
    return f"{count} {noun}: {said}"


def _strongest(members: list[Hit], acts: Mapping[Category, Action]) -> Hit:
    """The member whose action is the most severe (the first of those)."""
    return max(members, key=lambda m: SEVERITY.get(acts[m[0]], -1))


def _run_group(text: str, members: list[Hit], acts: Mapping[Category, Action]) -> Group:
    if len(members) == 1:
        cat, i = members[0]
        return Group(cat, i, i + 1, acts[cat], ord(text[i]), None, members)
    cat, _ = _strongest(members, acts)
    return Group(
        cat,
        members[0][1],
        members[-1][1] + 1,
        acts[cat],
        None,
        lambda: run_detail(text, members),
        members,
    )


def _hidden_group(hidden: Hidden, members: list[Hit], acts: Mapping[Category, Action]) -> Group:
    category, action = _C.HIDDEN_PAYLOAD, acts[_C.HIDDEN_PAYLOAD]
    if members:
        cat, _ = _strongest(members, acts)
        if SEVERITY.get(acts[cat], -1) > SEVERITY.get(action, -1):
            category, action = cat, acts[cat]

    def detail() -> str:
        return f"{hidden.end - hidden.start} {hidden.describe()}"

    return Group(category, hidden.start, hidden.end, action, None, detail, members)


def grouped(
    found: Iterable[Hit],
    text: str,
    acts: Mapping[Category, Action],
    hidden: Iterable[Hidden] = (),
) -> Iterator[Group]:
    """``found`` (hits in increasing index order) as Groups, in input order (see the
    module docstring); ``hidden``: payloads in order, with indices into ``text``."""
    payloads = iter(hidden)
    payload = next(payloads, None)
    open_payload: Hidden | None = None  # a payload whose members are being gathered
    absorbed: list[Hit] = []
    run: list[Hit] = []  # adjacent hits of one family, not yet yielded
    family = ""
    for cat, i in found:
        while payload is not None and payload.start <= i:
            if run:
                yield _run_group(text, run, acts)
                run = []
            if open_payload is not None:
                yield _hidden_group(open_payload, absorbed, acts)
            open_payload, absorbed = payload, []
            payload = next(payloads, None)
        if open_payload is not None:
            if i < open_payload.end:
                absorbed.append((cat, i))
                continue
            yield _hidden_group(open_payload, absorbed, acts)
            open_payload = None
        kind = FAMILY.get(cat)
        if run and kind == family and run[-1][1] == i - 1:
            run.append((cat, i))
            continue
        if run:
            yield _run_group(text, run, acts)
            run = []
        if kind is None:
            yield Group(cat, i, i + 1, acts[cat], ord(text[i]), None, [(cat, i)])
        else:
            run, family = [(cat, i)], kind
    if run:
        yield _run_group(text, run, acts)
    if open_payload is not None:
        yield _hidden_group(open_payload, absorbed, acts)
    while payload is not None:
        yield _hidden_group(payload, [], acts)
        payload = next(payloads, None)


# -- payloads counted, not read ----------------------------------------------------------

_END_SYMBOL, _EMOJI = 1, 2  # ``_ends_table`` bits
_CANCEL = chr(TAG_SEQUENCE.end)


@functools.cache
def _vs_table() -> bytes:
    """VS1..VS16's registered bases (``_reveal``'s standardized and emoji variation
    sequences) in the layout of ``_reveal.ivd_table``."""
    offsets, bounds = array("I", [0]), array("I")
    registered = _reveal._registered()
    for selector in range(0xFE00, 0xFE10):
        bounds.extend(b for lo, hi in registered[selector] for b in (lo, hi + 1))
        offsets.append(len(bounds))
    return array("I", [0xFE00, 16]).tobytes() + offsets.tobytes() + bounds.tobytes()


@functools.cache
def _ends_table() -> bytes:
    """``_speedups.payload_spans``' byte per class: a bit symbol a reading may leave out
    at a run's end, where it stands legitimately (a joiner, a bidi mark:
    ``_reveal._legitimate_here``), and an emoji (VS15/VS16 make a sequence after one)."""
    out = bytearray(256)
    for c, (cat, fl) in enumerate(ct.class_table().info):
        out[c] = (cat in (_C.JOINER, _C.BIDI_MARK)) * _END_SYMBOL | (ct.EMOJI in fl) * _EMOJI
    return bytes(out)


def payload_spans(
    text: str, policy_tables: bytes | None, start: int
) -> tuple[array[int], array[int], int] | None:
    """The carrier runs ``_reveal.iter_find`` reads from ``start`` on (no run it read
    before ends after it) that hold payloads, as flat (start, end) bounds, how many
    payloads each holds and in all, none read: one C pass (``_speedups.payload_spans``), or None
    where only reading tells (``payload_spans_reference``).  ``text`` holds no tag base
    (U+1F3F4: no tag run is an RGI tag sequence); ``policy_tables``: the policy scan's
    tables (``_scan.Scanner.c_args``), None without the C extension."""
    found = payload_span_bytes(text, policy_tables, start)
    if found is None:
        return None
    spans, held, count = found
    return array("q", spans), array("q", held), count


def payload_span_bytes(
    text: str, policy_tables: bytes | None, start: int
) -> tuple[bytes, Sequence[int], int] | None:
    """``payload_spans`` with the bounds as the C passes take them (int64 bytes, as made:
    a flood of payloads copied no further) and the numbers held as a sequence."""
    if speedups is None or policy_tables is None:
        ref = payload_spans_reference(text, None, start)
        return None if ref is None else (ref[0].tobytes(), ref[1], ref[2])
    stage1, stage2, tables = _reveal._c_tables()
    found = speedups.payload_spans(
        text,
        stage1,
        stage2,
        tables,
        _reveal.c_kinds(),
        _reveal.ivd_table(),
        _vs_table(),
        _ends_table(),
        policy_tables,
        start,
    )
    if found is None:
        return None
    spans, held, count = found
    return spans, memoryview(held).cast("q"), count


def payload_spans_reference(
    text: str, policy_tables: bytes | None, start: int
) -> tuple[array[int], array[int], int] | None:
    """The statement ``_speedups.payload_spans`` follows: ``_reveal.iter_find``'s walk
    (``reveal_runs_reference``) from ``start``, each run's payloads counted, not read: a
    tag run holds one a piece (cut after each CANCEL TAG), a selector run one (one
    selector: unless it makes a legitimate sequence, ``_reveal._selector_ok``), a run of
    ``MIN_BITS`` or more bit symbols of two or more symbols one.  None where only reading
    tells: an annotation, a lone bit symbol (marks after words), a run longer than
    ``RUN_CAP``, a bit run whose end symbol a reading may leave out (a joiner or bidi
    mark with a neighbour outside the run), a selector run whose first makes a
    legitimate sequence and is flagged by ``policy_tables`` (None: by any policy)."""
    table = ct.class_table()
    ends = _ends_table()
    n = len(text)
    bounds: array[int] = array("q")
    held_by: array[int] = array("q")
    count = 0
    done = j = start
    j = _reveal.reveal_scan_reference(text, j)
    while j < n:
        k = _reveal.channel_of(ord(text[j]))
        if k is None:
            done = j + 1
            j = _reveal.reveal_scan_reference(text, j + 1)
            continue
        if k == 3:
            return None
        s, e = j, j + 1
        while s > done and _reveal.channel_of(ord(text[s - 1])) == k:
            s -= 1
        while e < n and _reveal.channel_of(ord(text[e])) == k:
            e += 1
        if e - s > _reveal.RUN_CAP:
            return None
        held = 0
        if k == 0:
            held = text.count(_CANCEL, s, e) + (text[e - 1] != _CANCEL)
        elif k == 1:
            ok = _reveal._selector_ok(text, s)
            if e - s == 1:
                held = not ok
            elif ok and (
                policy_tables is None
                or ct.scan_reference(text, table.stage1, table.stage2, policy_tables, -1, s) == s
            ):
                return None
            else:
                held = 1
        else:
            if e - s == 1:
                return None
            held = e - s >= _reveal.MIN_BITS and len(set(text[s:e])) > 1
            if held and (
                (s > 0 and ends[table.class_of(ord(text[s]))] & _END_SYMBOL)
                or (e < n and ends[table.class_of(ord(text[e - 1]))] & _END_SYMBOL)
            ):
                return None
        if held:
            bounds.extend((s, e))
            held_by.append(held)
            count += held
        done = e
        j = _reveal.reveal_scan_reference(text, e)
    return bounds, held_by, count


def span_members(
    text: str,
    scan_args: tuple[bytes, bytes, bytes] | None,
    groups: bytes,
    bounds: array[int] | bytes,
) -> bytes | None:
    """For each span of ``bounds`` (flat (start, end) pairs: hidden payloads' carrier
    runs), two bytes: 1 + the severity (``_classtable`` group byte) of the most severe hit
    it holds, 0 when none, and the class of the first hit of that severity; None when
    one is a hit only the engine judges, or a removal may change a sequence.  One C pass
    (``_speedups.span_members``; its statement: ``span_members_reference``); None
    without the C extension (``scan_args`` None): the engine judges.  ``bounds`` may be
    their int64 bytes (as the C passes take them)."""
    if speedups is None or scan_args is None:
        return None
    raw = bounds if isinstance(bounds, bytes) else bounds.tobytes()
    found: bytes | None = speedups.span_members(text, *scan_args, groups, raw)
    return found


def span_members_reference(
    text: str, scan_args: tuple[bytes, bytes, bytes], groups: bytes, bounds: array[int]
) -> bytes | None:
    """The statement ``_speedups.span_members`` follows, from ``_classtable.scan_reference``
    (the policy scan's stops are its hits): None also at a hit the policy strips or
    replaces before a character whose sequence rule may then judge it otherwise (as
    ``groups_reference`` with ``edits_matter``)."""
    stage1, stage2, tables = scan_args
    table = ct.class_table()
    out = bytearray()
    for k in range(0, len(bounds), 2):
        start, end = bounds[k], bounds[k + 1]
        best = [0, 0]
        i = ct.scan_reference(text, stage1, stage2, tables, -1, start)
        while i < end:
            c = table.class_of(ord(text[i]))
            if groups[c] & ct.GROUP_ENGINE:
                return None
            severity = 1 + (groups[c] & ct.GROUP_SEVERITY)
            if severity in (2, 3) and i + 1 < len(text):  # stripped, replaced: as
                c2 = table.class_of(ord(text[i + 1]))  # groups_reference's edits_matter
                flagged = tables[ct.FLAGS_OFFSET + c2] & 1
                r = tables[ct.RULE_IDS_OFFSET + c2] if flagged else 0
                if groups[c2] & ct.GROUP_ENGINE or (
                    r and tables[ct.RULES_OFFSET + (r - 1) * ct.RULE_SIZE + c]
                ):
                    return None
            if severity > best[0]:
                best = [severity, c]
            i = ct.scan_reference(text, stage1, stage2, tables, -1, i + 1)
        out += bytes(best)
    return bytes(out)


@functools.lru_cache(maxsize=64)
def group_table(policy: Policy, scanned: frozenset[Category], tag_base: bool = True) -> bytes:
    """``count_groups``' byte per class (``_classtable.GROUP_*``) for the categories
    ``scanned`` under ``policy``: the severity of its action, its carrier family
    (``_carrier_runs.FAMILY``), and whether only the engine may judge it (tag characters
    of a policy that allows sequences: their rule has no table).  ``tag_base``: whether
    the text holds a tag base (``TAG_SEQUENCE.base``); without one no tag character is
    in an emoji tag sequence (UTS #51: the base comes first) nor earns an exemption
    (``earned_by_previous``), so every one is a finding the C passes may judge."""
    families = {name: k + 1 for k, name in enumerate(sorted(set(FAMILY.values())))}
    assert len(families) <= 3
    out = bytearray(256)
    for c, (cat, _) in enumerate(ct.class_table().info):
        if cat is None or cat not in scanned:
            continue
        byte = SEVERITY[policy.actions[cat]]
        byte |= families.get(FAMILY.get(cat, ""), 0) << ct.GROUP_FAMILY_SHIFT
        if cat is Category.TAG and policy.allow_sequences and tag_base:
            byte |= ct.GROUP_ENGINE
        out[c] = byte
    return bytes(out)
