"""Every code point's *class*: a small id for its (character category, flags) combination.

Why a class table: the policy fast path (``_speedups.clean``, run by ``CompiledPolicy``)
must decide for each character, in a few instructions, whether a policy could care about
it.  Everything a policy can ask about a single character -- its ``Category``, whether it
is an emoji / graphic / ideographic / Mongolian base for a sequence, a joiner or variation
selector with a sequence rule, sensitive to a normal form, changed by NFKC_Casefold, a
combining mark -- is a property of the character alone, and the code points fall into
few distinct combinations (asserted <= 256).  So one lookup in a two-stage table (256-code
point blocks, identical blocks shared) gives a uint8 class, and a policy becomes a few
256-entry tables indexed by class (see ``compiled``).  The C code holds no Unicode
knowledge at all: it only indexes these tables.

``build_class_table`` derives the table from the generated range data (via ``_categories``)
by painting whole segments between range boundaries -- never a Python loop over all
1,114,112 code points -- and deduplicating the 4,352 blocks (~20 ms, with the
NFKC_Casefold table it parses).  A command such as ``sanitizer check`` pays that on every
start, so ``tools/gen_classtable.py`` stores its result in ``_classtable_data`` (a few
KiB, compressed), which ``class_table`` loads instead (well under 1 ms) when it was made
for this Unicode version, these flags and categories; else it builds.
"""

from __future__ import annotations

import binascii
import functools
import itertools
import sys
import zlib
from array import array
from collections.abc import Sequence
from dataclasses import dataclass

from .._categories import (
    CCC_NONZERO,
    CHARACTER_CATEGORIES,
    MARKS,
    NFC_QC_NOT_YES,
    NFKC_QC_NOT_YES,
    Category,
    Ranges,
    nfkc_casefold_table,
)
from .._categories import EMOJI as _EMOJI
from .._categories import GRAPHIC as _GRAPHIC
from .._categories import IDEOGRAPHIC as _IDEOGRAPHIC
from .._categories import MONGOLIAN as _MONGOLIAN
from .._charnames import UNICODE_VERSION

MAX_CP = 0x10FFFF
BLOCKS = (MAX_CP + 1) >> 8  # 0x1100 blocks of 256 code points

# Flags (names used in ClassTable.info).  The sequence rules (_sequences.py) name
# their characters by these flags; SEQUENCE_SETS below says which code points each has.
EMOJI = "emoji"  # _categories.EMOJI: what a ZWJ may join
GRAPHIC = "graphic"  # base of a standardized variation sequence
IDEOGRAPHIC = "ideographic"  # base of an ideographic variation sequence (UTS #37)
MONGOLIAN = "mongolian"  # base of a Mongolian free variation selector
ZWJ = "zwj"  # U+200D
VS16 = "vs16"  # U+FE0F (may end the left side of an emoji ZWJ sequence)
VS_STANDARD = "vs-standard"  # U+FE00..FE0F
VS_IDEOGRAPHIC = "vs-ideographic"  # U+E0100..E01EF
VS_MONGOLIAN = "vs-mongolian"  # U+180B..180F
TAG_END = "tag-end"  # U+E007F CANCEL TAG
NFC = "nfc"  # NFC_Quick_Check != Yes or ccc != 0: NFC may change text holding it
NFKC = "nfkc"  # NFKC_Quick_Check != Yes or ccc != 0
CASEFOLD = "casefold"  # changed by the NFKC_Casefold mapping (a key of its table)
MARK = "mark"  # General_Category M: counted in combining runs

FLAGS: tuple[str, ...] = (
    EMOJI,
    GRAPHIC,
    IDEOGRAPHIC,
    MONGOLIAN,
    ZWJ,
    VS16,
    VS_STANDARD,
    VS_IDEOGRAPHIC,
    VS_MONGOLIAN,
    TAG_END,
    NFC,
    NFKC,
    CASEFOLD,
    MARK,
)


def _points(*cps: int) -> Ranges:
    return tuple((cp, cp) for cp in cps)


def _key_ranges(keys: list[int]) -> Ranges:
    out: list[list[int]] = []
    for cp in sorted(keys):
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return tuple((lo, hi) for lo, hi in out)


# The character sets the sequence rules name (UTS #51 ED-14a/ED-16, UTS #37), one per flag:
# the class table paints them and _sequences.py reads them, so both agree.
SEQUENCE_SETS: dict[str, Ranges] = {
    EMOJI: _EMOJI,
    GRAPHIC: _GRAPHIC,
    IDEOGRAPHIC: _IDEOGRAPHIC,
    MONGOLIAN: _MONGOLIAN,
    ZWJ: _points(0x200D),
    VS16: _points(0xFE0F),
    VS_STANDARD: ((0xFE00, 0xFE0F),),
    VS_IDEOGRAPHIC: ((0xE0100, 0xE01EF),),
    VS_MONGOLIAN: ((0x180B, 0x180F),),
    TAG_END: _points(0xE007F),
}

# Layout of a policy's ``tables`` argument to ``_speedups.scan`` / ``clean`` (the same names
# in _native_src/speedups.h, exported by the extension; tests/core/test_native.py compares them):
FLAGS_OFFSET = 0  # flags[256] by class: bit 0 "interesting", bit 1 "combining mark"
RULE_IDS_OFFSET = 256  # rule[256] by class: 0 = none, r = sequence rule r (1-based)
PREFILTER_OFFSET = 512  # prefilter[16] for 1-byte strings (see ``prefilter``)
RULES_OFFSET = 528  # = 256 + 256 + 16; then RULE_SIZE bytes per sequence rule:
RULE_SIZE = 514  # prev_ok[257] + next_ok[257] by class; entry 256: no such character


@dataclass(frozen=True, slots=True)
class ClassTable:
    """``stage1``: 0x1100 native-endian uint16 block numbers; ``stage2``: the distinct
    256-byte blocks of class ids; ``info[c]`` = (category or None, flags) of class c."""

    stage1: bytes
    stage2: bytes
    info: tuple[tuple[Category | None, frozenset[str]], ...]

    def class_of(self, cp: int) -> int:
        block = array("H", self.stage1[2 * (cp >> 8) : 2 * (cp >> 8) + 2])[0]
        return self.stage2[(block << 8) | (cp & 0xFF)]


@functools.lru_cache(maxsize=1)
def class_table() -> ClassTable:
    """The class table, loaded once (lazily: importing the package does not pay for it)
    from ``_classtable_data`` when that is current, else built."""
    from . import _classtable_data as data

    current = (
        data.UNICODE_VERSION == UNICODE_VERSION
        and data.FLAGS == FLAGS
        and data.CATEGORIES == tuple(c.value for c in CHARACTER_CATEGORIES)
    )
    if not current:  # pragma: no cover - caught by tests/policy/test_classtable_data.py
        return build_class_table()
    packed = zlib.decompress(binascii.a2b_base64("".join(data.PACKED)))
    stage1 = array("H")
    stage1.frombytes(packed[: 2 * BLOCKS])
    if sys.byteorder == "big":  # pragma: no cover - stored little-endian
        stage1.byteswap()
    by_value = {c.value: c for c in CHARACTER_CATEGORIES}
    info = tuple(
        (None if cat is None else by_value[cat], frozenset(flags)) for cat, flags in data.INFO
    )
    return ClassTable(stage1.tobytes(), packed[2 * BLOCKS :], info)


def build_class_table() -> ClassTable:
    """The class table, derived from the range data (what ``_classtable_data`` stores)."""
    # Internal sources: (name, ranges).  NFC and NFKC each combine two sources.
    sources: list[tuple[str, Ranges]] = [
        *SEQUENCE_SETS.items(),
        ("nfc-qc", NFC_QC_NOT_YES),
        ("nfkc-qc", NFKC_QC_NOT_YES),
        ("ccc", CCC_NONZERO),
        (CASEFOLD, _key_ranges(list(nfkc_casefold_table()))),
        (MARK, MARKS),
    ]
    # Sweep: at each range boundary add or remove a source bit / a category number.
    # Ranges within one source are disjoint, and categories are disjoint, so sums work.
    delta: dict[int, list[int]] = {0: [0, 0], MAX_CP + 1: [0, 0]}
    for bit, (_, rngs) in enumerate(sources):
        for lo, hi in rngs:
            delta.setdefault(lo, [0, 0])[0] += 1 << bit
            delta.setdefault(hi + 1, [0, 0])[0] -= 1 << bit
    for number, cat in enumerate(CHARACTER_CATEGORIES, 1):
        for lo, hi in cat.ranges:
            delta.setdefault(lo, [0, 0])[1] += number
            delta.setdefault(hi + 1, [0, 0])[1] -= number
    names = [name for name, _ in sources]
    nfc, nfkc, ccc = (1 << names.index(n) for n in ("nfc-qc", "nfkc-qc", "ccc"))
    classes: dict[tuple[int, int], int] = {}
    info: list[tuple[Category | None, frozenset[str]]] = []
    flat = bytearray(MAX_CP + 1)
    bits = number = 0
    points = sorted(delta)
    for lo, hi in itertools.pairwise(points):
        d_bits, d_number = delta[lo]
        bits += d_bits
        number += d_number
        key = (bits, number)
        cid = classes.get(key)
        if cid is None:
            cid = classes[key] = len(info)
            flags = {n for i, n in enumerate(names) if bits >> i & 1 and n in FLAGS}
            if bits & (nfc | ccc):
                flags.add(NFC)
            if bits & (nfkc | ccc):
                flags.add(NFKC)
            category = CHARACTER_CATEGORIES[number - 1] if number else None
            info.append((category, frozenset(flags)))
        if cid:
            flat[lo:hi] = bytes((cid,)) * (hi - lo)
    if len(info) > 256:  # pragma: no cover - would need a wider class id
        raise AssertionError(f"{len(info)} character classes: more than a uint8 holds")
    blocks: dict[bytes, int] = {}
    stage1 = array("H")
    for b in range(BLOCKS):
        blk = bytes(flat[b << 8 : (b + 1) << 8])
        stage1.append(blocks.setdefault(blk, len(blocks)))
    return ClassTable(stage1.tobytes(), b"".join(blocks), tuple(info))


# Bytes most text has many of: a prefilter should not make them candidates.
_COMMON = (0x0A, 0x20, 0x09, 0x0D)


def prefilter(flagged: list[int]) -> bytes:
    """The 16-byte prefilter for 1-byte strings (layout in _native_src/classtable.c):
    threshold T, up to 4 extras (flagged bytes >= T) and up to 4 skips (common bytes below
    T that are not flagged).  ``flagged`` = the bytes < 0x7F whose class a policy flags; bytes >=
    0x7F are always candidates.  Chosen to keep common bytes out and compares few."""
    marked = set(flagged)
    ordered = sorted(marked)
    best: tuple[int, bytes] | None = None
    wasted = 0  # printable bytes below t that are not flagged: candidates for nothing
    for t in range(0x80):
        if t > 0x20 and t - 1 not in marked:
            wasted += 1
        extras = [b for b in ordered if b >= t]
        if len(extras) > 4:
            continue
        skips = [b for b in _COMMON if b < t and b not in marked]
        cost = 10 * wasted + len(extras) + len(skips)
        if best is None or cost < best[0]:
            pre = bytes([t, len(extras), *extras]).ljust(6, b"\0")
            pre += bytes([len(skips), *skips]).ljust(5, b"\0")
            best = (cost, pre.ljust(16, b"\0"))
    assert best is not None  # t = 0x7F always qualifies
    return best[1]


def scan_reference(
    text: str, stage1: bytes, stage2: bytes, tables: bytes, max_run: int, start: int = 0
) -> int:
    """Pure-Python statement of ``_speedups.scan`` (the C code must agree with it): the
    index of the first character that the tables flag as interesting and whose context
    rule does not exempt it, or at which a run of mark-flagged characters gets longer
    than ``max_run`` (< 0: no limit); ``len(text)`` when there is none.  The run count
    starts at ``start``.  Layout of ``tables``: see RULES_OFFSET above (built by
    compiled)."""
    s1 = array("H", stage1)

    def cls(i: int) -> int:
        cp = ord(text[i])
        return stage2[(s1[cp >> 8] << 8) | (cp & 0xFF)]

    n = len(text)
    run_start = mark_end = -1
    for i in range(start, n):
        c = cls(i)
        f = tables[FLAGS_OFFSET + c]
        if f & 1:
            r = tables[RULE_IDS_OFFSET + c]
            if r == 0:
                return i
            base = RULES_OFFSET + (r - 1) * RULE_SIZE
            prev = cls(i - 1) if i > 0 else 256
            nxt = cls(i + 1) if i + 1 < n else 256
            if not tables[base + prev] or not tables[base + 257 + nxt]:
                return i
        if f & 2 and max_run >= 0:
            if i != mark_end:
                run_start = i
            mark_end = i + 1
            if mark_end - run_start > max_run:
                return i
    return n


EDIT_STRIP = 1  # edits[class]: sanitize strips the character (``_speedups.clean_edit``)
EDIT_REPLACE = 2  # edits[class]: sanitize replaces it by U+FFFD (one per adjacent run)


def edit_reference(
    text: str, stage1: bytes, stage2: bytes, tables: bytes, max_run: int, edits: bytes
) -> str | None:
    """Pure-Python statement of ``_speedups.clean_edit`` on a str: ``text`` with every
    character ``scan_reference`` stops at stripped (``edits[class]`` EDIT_STRIP) or
    replaced by U+FFFD (EDIT_REPLACE; adjacent replaced characters by one, as the engine
    coalesces its spans); None when one is anything else (a refusal, a mark, a run too
    long) or when an edit could change how a neighbour is judged: the next character is
    flagged with a sequence rule that accepts the edited one before it (the engine
    re-judges what a removed character exempted), or any rule after a replacement.  A
    stop with a rule of its own failed it (no sequence holds it): it is edited like any
    other.  Runs of marks are counted as the output has them: a strip between two marks
    joins their runs (UAX #15 §13), a replacement ends one.  ``compiled`` gives edits
    only to characters without mark or normal-form sensitivity (and no tag), so the
    output needs no normalization."""
    s1 = array("H", stage1)

    def cls(i: int) -> int:
        cp = ord(text[i])
        return stage2[(s1[cp >> 8] << 8) | (cp & 0xFF)]

    def has_rule(c: int) -> bool:
        return bool(tables[FLAGS_OFFSET + c] & 1 and tables[RULE_IDS_OFFSET + c])

    n = len(text)
    narrow = not text or ord(max(text)) < 0x100  # a 1-byte str: U+FFFD does not fit
    out: list[str] = []
    pos = 0
    replaced_end = -1
    run_start = mark_end = -1
    for i in range(n):
        c = cls(i)
        f = tables[FLAGS_OFFSET + c]
        if f & 1:
            r = tables[RULE_IDS_OFFSET + c]
            base = RULES_OFFSET + (r - 1) * RULE_SIZE
            prev = cls(i - 1) if i > 0 else 256
            nxt = cls(i + 1) if i + 1 < n else 256
            stop = r == 0 or not tables[base + prev] or not tables[base + 257 + nxt]
        else:
            stop = False
        if not stop and f & 2 and max_run >= 0:
            if i != mark_end:
                run_start = i
            mark_end = i + 1
            stop = mark_end - run_start > max_run
        if not stop:
            continue
        e = edits[c]
        if e not in (EDIT_STRIP, EDIT_REPLACE) or f & 2:
            return None
        if tables[RULE_IDS_OFFSET + c] and not f & 1:
            return None
        if e == EDIT_REPLACE and narrow:
            return None
        if i + 1 < n and has_rule(nxt := cls(i + 1)):  # its exemption may rest on this one
            r = tables[RULE_IDS_OFFSET + nxt]
            if e == EDIT_REPLACE or tables[RULES_OFFSET + (r - 1) * RULE_SIZE + c]:
                return None  # (a replacement: the C code writes U+FFFD over it in place)
        if e == EDIT_STRIP and max_run >= 0 and mark_end == i:
            mark_end, run_start = i + 1, run_start + 1  # the run goes on through the strip
        out.append(text[pos:i])
        if e == EDIT_REPLACE:
            if replaced_end != i:
                out.append("\ufffd")
            replaced_end = i + 1
        pos = i + 1
    out.append(text[pos:])
    return "".join(out)


# count_groups' byte per class: the severity of its action (0 ALLOW, 1 STRIP, 2 REPLACE,
# 3 REJECT), its carrier family << GROUP_FAMILY_SHIFT (0: none), and GROUP_ENGINE when
# only the engine may judge it (``_speedups.count_groups``, ``count_reference``).
GROUP_SEVERITY = 3
GROUP_FAMILY_SHIFT = 2
GROUP_ENGINE = 16


def count_reference(
    text: str,
    stage1: bytes,
    stage2: bytes,
    tables: bytes,
    start: int,
    groups: bytes,
    edits_matter: bool,
) -> tuple[int, int] | None:
    """Pure-Python statement of ``_speedups.count_groups``: (findings, allowed) of the
    groups (``groups_reference``) that start at or after ``start``; None when only the
    engine can tell."""
    walked = groups_reference(text, stage1, stage2, tables, 0, groups, edits_matter, start)
    return None if walked is None else (walked[1], walked[2])


# A group as ``_speedups.list_groups`` lists it: (start, end, class, severity).
ListedGroup = tuple[int, int, int, int]


def groups_reference(
    text: str,
    stage1: bytes,
    stage2: bytes,
    tables: bytes,
    limit: int,
    groups: bytes,
    edits_matter: bool,
    start: int = 0,
    skip: Sequence[tuple[int, int]] = (),
) -> tuple[list[ListedGroup], int, int, int] | None:
    """Pure-Python statement of ``_speedups.list_groups`` (with ``start``: of its
    ``walk_groups``; with ``skip``, sorted disjoint (start, end) spans, of
    ``_speedups.groups_outside``: the flagged characters inside a span are passed over,
    so a run is cut at its ends).  The engine's groups (``_carrier_runs``) of the characters
    ``scan_reference`` stops at (no run limit): adjacent ones of one carrier family
    (``groups``) are one group of their most severe action, whose class is that of its
    first member of that action.  Of those starting at or after ``start``, the first
    ``limit`` (-1: all) are listed as (start, end, class, severity), the others counted
    with how many are ALLOW (severity 0); last, the highest severity met (-1: none).
    None at a character only the engine may judge, or, with ``edits_matter``, when one
    of severity 1 or 2 (stripped, replaced) is followed by a character flagged with a
    sequence rule whose ``before`` set (prev_ok) holds it (its exemption may depend on
    the removed one)."""
    s1 = array("H", stage1)

    def cls(i: int) -> int:
        cp = ord(text[i])
        return stage2[(s1[cp >> 8] << 8) | (cp & 0xFF)]

    n = len(text)
    listed: list[ListedGroup] = []
    total = allowed = 0
    family = strong = 0
    worst = severity = run_start = run_end = -1

    def close() -> None:
        nonlocal total, allowed, worst
        if severity >= 0 and run_start >= start:
            if limit < 0 or len(listed) < limit:
                listed.append((run_start, run_end, strong, severity))
            else:
                total += 1
                allowed += severity == 0
        worst = max(worst, severity)

    spans = iter(skip)
    span = next(spans, None)

    def outside(i: int) -> int:  # the first flagged character from i on outside ``skip``
        nonlocal span
        while True:
            i = scan_reference(text, stage1, stage2, tables, -1, i)
            while span is not None and span[1] <= i:
                span = next(spans, None)
            if i >= n or span is None or i < span[0]:
                return i
            i = span[1]

    i = outside(0)
    while i < n:
        c = cls(i)
        g = groups[c]
        if g & GROUP_ENGINE:
            return None
        fam, sev = (g >> GROUP_FAMILY_SHIFT) & 3, g & GROUP_SEVERITY
        if fam and fam == family and run_end == i:
            if sev > severity:
                severity, strong = sev, c
        else:
            close()
            family, severity, strong, run_start = fam, sev, c, i
        run_end = i + 1
        if edits_matter and sev in (1, 2) and i + 1 < n:
            c2 = cls(i + 1)
            if groups[c2] & GROUP_ENGINE:
                return None
            r = tables[RULE_IDS_OFFSET + c2] if tables[FLAGS_OFFSET + c2] & 1 else 0
            if r and tables[RULES_OFFSET + (r - 1) * RULE_SIZE + c]:  # prev_ok
                return None
        i = outside(i + 1)
    close()
    return listed, total, allowed, worst
