"""``reveal(text)``: every payload hidden in invisible characters, and what it spells.

Text can say one thing to a person and another to a program (HOWTO §5.9.5), today most
often a language model.  Four channels carry bytes in characters nobody sees:

- **tags**: U+E0020..E007E copy ASCII one to one ("ASCII smuggling", UTS #51 §2.8), with or
  without U+E0001 LANGUAGE TAG / U+E007F CANCEL TAG (framing, not payload), also dressed as
  an emoji flag (U+1F3F4, tags, CANCEL TAG) that is not an RGI tag sequence;
- **variation selectors** after any base: one byte each, b < 16 -> U+FE00 + b, else
  U+E0100 + (b - 16) (Paul Butler, 2025);
- **zero-width bits** and **bidi-mark bits**: a run of invisible format characters (the
  categories INVISIBLE, JOINER, BIDI_MARK and BOM: ZWSP, ZWNJ, ZWJ, WJ, U+2062, U+2064,
  LRM, RLM, ALM, ...) holding two symbols for 0 and 1, in groups of 8 bits, or three
  when a separator stands between groups.

A carrier run is a maximal run of one channel's characters (a tag run is also cut after
each CANCEL TAG).  What is legitimate never yields a payload: an RGI emoji tag sequence
(``_sequences_data``), one selector after a base it has a registered sequence with
(StandardizedVariants.txt, emoji-variation-sequences.txt), VS15/VS16 after an emoji,
one of VS17..VS256 after an ideograph it has a registered ideographic variation sequence
with (the Ideographic Variation Database, UTS #37: ``_sequences_data.IVD_VERSION``; any
other is a one-byte payload), a run of fewer than 8 bit symbols or of one symbol only
(joiners in words, a mark beside a number, emoji ZWJ sequences, word-separating ZWSP).
Mongolian free variation selectors carry no bytes and are never a payload.

Bits have no fixed reading: each polarity and bit order (and, with three symbols, each
choice of separator, groups read as bytes or as code points) is tried, on the run and
on the run less a symbol at either end (a joiner of the word the payload was put next
to); the reading chosen yields well-formed UTF-8, then groups of 8, bytes rather than
code points, the most printable text, the most letters and digits, the fewest symbols
left out, most significant bit first and the lower code point as 0
(``Hidden.reading`` says which).  A
symbol left out stays in the run's span unless it is legitimate where it stands (a
joiner beside a letter or mark, a bidi mark beside anything but a carrier).

Cost: one C scan (``_speedups.scan``, tables built here from the class table: carriers
flagged, a lone bit symbol and VS16 after an emoji exempt by rule, so emoji and Persian
text rarely stop it; each VS17..VS256 stops it, as the class table cannot tell a
registered ideographic variation sequence) finds candidates; Python runs only per
carrier run, linear in it.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from array import array

import unicodedata2

from .._categories import EMOJI, Category, Ranges, char_class, in_ranges
from .._decoder import decode
from .._native import speedups
from . import _classtable as ct
from ._hidden import Channel, Hidden, Reading
from ._sequences import TAG_SEQUENCE, merge_ranges

__all__ = [
    "BIT_CATEGORIES",
    "CARRIER_CATEGORIES",
    "MIN_BITS",
    "carrier_rules",
    "carrier_run",
    "find",
    "ivd_registered",
    "reveal",
]

_C = Category
# The categories whose characters carry bits, and every category a carrier is in (the
# policy engine groups runs of these, and a policy scanning HIDDEN_PAYLOAD flags them).
BIT_CATEGORIES = frozenset({_C.INVISIBLE, _C.JOINER, _C.BIDI_MARK, _C.BOM})
CARRIER_CATEGORIES = BIT_CATEGORIES | {_C.TAG, _C.VARIATION_SELECTOR}
MIN_BITS = 8  # a run of fewer bit symbols holds not one byte: never a payload

TAGS: Ranges = (TAG_SEQUENCE.block,)
SELECTORS: Ranges = merge_ranges(
    ct.SEQUENCE_SETS[ct.VS_STANDARD], ct.SEQUENCE_SETS[ct.VS_IDEOGRAPHIC]
)
BITS: Ranges = merge_ranges(*(c.ranges for c in BIT_CATEGORIES))
_LANGUAGE_TAG = 0xE0001
_CANCEL_TAG = TAG_SEQUENCE.end
_PRESENTATION = (0xFE0E, 0xFE0F)  # VS15 text, VS16 emoji presentation (UTS #51 §1.4.3)
_SUPPLEMENT = SELECTORS[-1][0]  # U+E0100 VARIATION SELECTOR-17

# -- the tables: registered sequences (generated), byte maps ------------------------------


def _parsed(lines: tuple[str, ...]) -> Ranges:
    """Generated lines of hex code points (``lo`` or ``lo-hi``) as ranges."""
    ranges = []
    for token in " ".join(lines).split():
        lo, _, hi = token.partition("-")
        ranges.append((int(lo, 16), int(hi or lo, 16)))
    return tuple(ranges)


@functools.cache
def _registered() -> dict[int, Ranges]:
    """VS1..VS16 -> the bases it has a registered sequence with (``_sequences_data``)."""
    from . import _sequences_data as data

    return {s: _parsed(lines) for s, lines in data.VARIATION_SEQUENCES.items()}


@functools.cache
def _ivd_bounds(selector: int) -> array[int]:
    """The ideographs VS17..VS256 ``selector`` has a registered ideographic variation
    sequence with (``_sequences_data``, IVD), as flat bounds ``lo0, hi0 + 1, lo1, ...``:
    a base is registered when ``bisect_right`` lands at an odd index.  Parsed per
    selector on first use, 4 bytes a bound."""
    from . import _sequences_data as data

    lines = data.IDEOGRAPHIC_VARIATION_SEQUENCES.get(selector, ())
    return array("I", (b for lo, hi in _parsed(lines) for b in (lo, hi + 1)))


def ivd_registered(base: int, selector: int) -> bool:
    """Whether ``base`` followed by VS17..VS256 ``selector`` is a registered ideographic
    variation sequence (UTS #37; the IVD release ``_sequences_data.IVD_VERSION``)."""
    return bisect.bisect_right(_ivd_bounds(selector), base) % 2 == 1


@functools.cache
def _rgi_tag_specs() -> frozenset[str]:
    from . import _sequences_data as data

    return frozenset(data.RGI_TAG_SPECS)


# Tag characters -> the byte each copies (LANGUAGE TAG and CANCEL TAG frame, carry none);
# selectors -> their byte (Butler): both as latin-1 characters, for str.translate.
_TAG_BYTES = {cp: chr(cp - 0xE0000) for cp in range(TAGS[0][0], TAGS[0][1] + 1)}
_TAG_BYTES.update({_LANGUAGE_TAG: None, _CANCEL_TAG: None})  # type: ignore[dict-item]
_SELECTOR_BYTES = {0xFE00 + b: chr(b) for b in range(16)}
_SELECTOR_BYTES.update({_SUPPLEMENT + b - 16: chr(b) for b in range(16, 256)})


@functools.cache
def _run_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """Patterns matching a run of tags, of selectors, of bit symbols (from its start)."""
    return tuple(  # type: ignore[return-value]
        re.compile(f"[{char_class(ranges)}]+") for ranges in (TAGS, SELECTORS, BITS)
    )


# -- the prefilter: candidates, in C or with a pattern ------------------------------------

# A carrier class's rule for the C scan: None (no carrier), () (always a candidate), or
# (prev_ok, next_ok), 257 bytes each by class (256: no such character): a candidate
# unless both allow (the layout of ``_classtable.RULES_OFFSET``).
CarrierRule = tuple[()] | tuple[bytes, bytes] | None


@functools.cache
def carrier_rules() -> tuple[CarrierRule, ...]:
    """Per class of the class table, whether the C scan must stop there for ``reveal``:
    every class of a carrier category (Mongolian FVS aside), a bit symbol unless neither
    neighbour is one (a run of one is no payload), VS16 unless right after an emoji, with
    no selector after it (a legitimate emoji presentation sequence).  VS17..VS256 always:
    whether one makes a registered ideographic variation sequence depends on the pair
    (``ivd_registered``), which no class tells.  What the scan skips, ``find`` would
    find legitimate: the rules only save work.  Shared by
    ``_c_tables`` and by policies that scan HIDDEN_PAYLOAD (``compiled``)."""
    info = ct.class_table().info
    not_bits = bytes(cat not in BIT_CATEGORIES for cat, _ in info).ljust(256, b"\0") + b"\1"
    emoji_base = (
        bytes(ct.EMOJI in fl and cat not in CARRIER_CATEGORIES for cat, fl in info).ljust(
            256, b"\0"
        )
        + b"\0"
    )
    no_selector = (
        bytes(cat is not _C.VARIATION_SELECTOR for cat, _ in info).ljust(256, b"\0") + b"\1"
    )
    out: list[CarrierRule] = []
    for cat, fl in info:
        if cat not in CARRIER_CATEGORIES or ct.VS_MONGOLIAN in fl:
            out.append(None)
        elif cat in BIT_CATEGORIES:
            out.append((not_bits, not_bits))
        elif ct.VS16 in fl:
            out.append((emoji_base, no_selector))
        else:
            out.append(())
    return tuple(out)


@functools.cache
def _c_tables() -> tuple[bytes, bytes, bytes]:
    """``_speedups.scan``'s tables for ``reveal``: ``carrier_rules`` as flags and rules."""
    table = ct.class_table()
    flags = bytearray(256)
    rule = bytearray(256)
    rules: list[bytes] = []
    for c, carrier in enumerate(carrier_rules()):
        if carrier is None:
            continue
        flags[c] = 1
        if carrier:
            tables = carrier[0] + carrier[1]
            if tables not in rules:
                rules.append(tables)
            rule[c] = rules.index(tables) + 1
    prefilter = ct.prefilter([b for b in range(0x7F) if flags[table.class_of(b)]])
    return table.stage1, table.stage2, bytes(flags + rule + prefilter) + b"".join(rules)


@functools.cache
def _candidate_pattern() -> re.Pattern[str]:
    """Without the C extension: every carrier character but a lone bit symbol."""
    bits = char_class(BITS)
    return re.compile(f"[{char_class(merge_ranges(TAGS, SELECTORS))}]|[{bits}]{{2,}}")


def _candidates(text: str, start: int) -> int:
    """The index of the first candidate at or after ``start``, or ``len(text)``."""
    if speedups is not None:
        return int(speedups.scan(text, *_c_tables(), -1, start))
    m = _candidate_pattern().search(text, start)
    return len(text) if m is None else m.start()


# -- finding ------------------------------------------------------------------------------


def find(text: str) -> list[Hidden]:
    """The payloads of ``text``, in order, with code-point offsets."""
    out: list[Hidden] = []
    n = len(text)
    i = _candidates(text, 0)
    while i < n:
        i = i + 1 if _lone_ivs(text, i) else _run_at(text, i, out)
        i = _candidates(text, i)
    return out


def _lone_ivs(text: str, i: int) -> bool:
    """Whether ``text[i]`` is one VS17..VS256 making a registered ideographic variation
    sequence with the character before, no selector after: what ``_run_at`` would read
    as a run of one and find legitimate, told cheaply (the C scan stops at each one)."""
    cp = ord(text[i])
    if cp < _SUPPLEMENT or cp not in _SELECTOR_BYTES or i == 0:
        return False
    if i + 1 < len(text) and ord(text[i + 1]) in _SELECTOR_BYTES:
        return False
    return ivd_registered(ord(text[i - 1]), cp)


def carrier_run(text: str, start: int, end: int) -> list[Hidden]:
    """The payloads whose carrier runs meet ``text[start:end]``, in order: what a run of
    carrier characters that the policy engine reports as one finding carries."""
    i = start
    while i > 0 and _is_carrier(ord(text[i - 1])):
        i -= 1  # the run may begin before the characters the policy reported
    out: list[Hidden] = []
    while i < end:
        i = _run_at(text, i, out)
    return [h for h in out if h.start < end and h.end > start]


def _run_at(text: str, i: int, out: list[Hidden]) -> int:
    """Read the carrier run that starts at ``text[i]`` (a candidate): append its payloads
    to ``out`` and return where the run ends."""
    tags, selectors, bits = _run_patterns()
    cp = ord(text[i])
    if in_ranges(cp, TAGS):
        end: int = tags.match(text, i).end()  # type: ignore[union-attr]
        out.extend(_tag_payloads(text, i, end))
        return end
    if in_ranges(cp, SELECTORS):
        end = selectors.match(text, i).end()  # type: ignore[union-attr]
        found = _selector_payload(text, i, end)
    elif in_ranges(cp, BITS):
        end = bits.match(text, i).end()  # type: ignore[union-attr]
        found = _bit_payload(text, i, end)
    else:  # a Mongolian free variation selector, or anything else: no payload
        return i + 1
    if found is not None:
        out.append(found)
    return end


def _is_carrier(cp: int) -> bool:
    return in_ranges(cp, TAGS) or in_ranges(cp, SELECTORS) or in_ranges(cp, BITS)


def _tag_payloads(text: str, start: int, end: int) -> list[Hidden]:
    """The tag run ``text[start:end]``, cut after each CANCEL TAG: every piece but an RGI
    emoji tag sequence (U+1F3F4, an RGI tag_spec, CANCEL TAG) is a payload."""
    out = []
    piece = start
    while piece < end:
        stop = text.find(chr(_CANCEL_TAG), piece, end)
        stop = end if stop < 0 else stop + 1
        run = text[piece:stop]
        spec = run[:-1].translate(_TAG_BYTES) if run[-1] == chr(_CANCEL_TAG) else None
        rgi = (
            spec is not None
            and piece > 0
            and ord(text[piece - 1]) == TAG_SEQUENCE.base
            and len(spec) == len(run) - 1
            and spec in _rgi_tag_specs()
        )
        if not rgi:
            payload = run.translate(_TAG_BYTES).encode("latin-1")
            out.append(Hidden(piece, stop, Channel.TAGS, payload, None))
        piece = stop
    return out


def _selector_ok(text: str, i: int) -> bool:
    """Whether the one selector ``text[i]`` makes a legitimate sequence with its base."""
    if i == 0:
        return False
    base, selector = ord(text[i - 1]), ord(text[i])
    if selector >= _SUPPLEMENT:  # an ideographic variation sequence (UTS #37), if registered
        return ivd_registered(base, selector)
    if in_ranges(base, _registered()[selector]):
        return True
    return selector in _PRESENTATION and in_ranges(base, EMOJI)


def _selector_payload(text: str, start: int, end: int) -> Hidden | None:
    """The selector run ``text[start:end]`` as a payload, or None for one selector that
    makes a legitimate sequence.  When the first makes one and more follow, it is left
    out if that makes the rest read better (UTF-8 where the whole run is not, or more
    printable): Butler's payload after an emoji that already had its VS16."""
    first_ok = _selector_ok(text, start)
    if end - start == 1 and first_ok:
        return None
    payload = text[start:end].translate(_SELECTOR_BYTES).encode("latin-1")
    if first_ok:
        whole, rest = _quality(payload)[:2], _quality(payload[1:])[:2]
        if rest[0] and rest > whole:
            return Hidden(start + 1, end, Channel.VARIATION_SELECTORS, payload[1:], None)
    return Hidden(start, end, Channel.VARIATION_SELECTORS, payload, None)


# -- bits ---------------------------------------------------------------------------------

_SAMPLE = 256  # characters of a candidate reading whose printability is weighed


def _quality(payload: bytes) -> tuple[bool, float, float]:
    """(well-formed UTF-8, share of printable characters, share of letters, digits and
    spaces), the shares in its first ``_SAMPLE`` characters: how much it reads as text."""
    try:
        text = payload.decode("utf-8")
        ok = True
    except UnicodeDecodeError:
        text = payload.decode("utf-8", "replace")
        ok = False
    sample = text[:_SAMPLE]
    if not sample:
        return ok, 0.0, 0.0
    if sample.isascii():
        words = sum(1 for c in sample if c.isalnum() or c == " ") / len(sample)
        if sample.isprintable():
            return ok, 1.0, words
    else:  # spaces of any kind (NBSP, U+3000: not isprintable()) read as text too
        words = sum(1 for c in sample if c.isalnum() or _space(c)) / len(sample)
    shown = sum(1 for c in sample if c.isprintable() or c in "\t\n\r" or _space(c))
    return ok, shown / len(sample), words


def _space(c: str) -> bool:
    """A space a text may hold: SPACE, or a non-ASCII White_Space (NBSP, U+3000, ...)."""
    return c == " " or (c >= "\xa0" and c.isspace())


_Candidate = tuple[tuple[object, ...], bytes, Reading, int, int]


def _fixed_groups(body: str, zero: int, one: int, sep: int | None) -> list[_Candidate]:
    """Readings of ``body`` (two symbols, a multiple of 8) in groups of 8 bits."""
    bits = body.translate({zero: "0", one: "1"})
    size = len(bits) // 8
    out: list[_Candidate] = []
    for msb in (True, False):
        value = int(bits, 2) if msb else int(bits[::-1], 2)
        payload = value.to_bytes(size, "big" if msb else "little")
        reading = Reading(zero, one, sep, msb, "byte")
        out.append(((*_quality(payload), True, True), payload, reading, 0, 0))
    return out


def _split_groups(body: str, sep: int) -> list[str] | None:
    """``body`` cut at ``sep`` (between groups only: a separator at either end is a
    symbol to leave out, ``_best_reading``), or None if a group is empty or longer than
    a code point's 21 bits."""
    groups = body.split(chr(sep))
    if min(map(len, groups)) == 0 or max(map(len, groups)) > 21:
        return None
    return groups


def _variable_groups(body: str, zero: int, one: int, sep: int) -> list[_Candidate]:
    """Readings of separated groups of any length: as bytes (all of at most 8 bits) and
    as code points (UTF-16 code units pair up: JavaScript's ``charCodeAt``)."""
    out: list[_Candidate] = []
    digits = body.translate({zero: "0", one: "1", sep: " "}).split()
    fits_byte = max(map(len, digits)) <= 8
    for msb in (True, False):
        values = [int(g, 2) for g in digits] if msb else [int(g[::-1], 2) for g in digits]
        if fits_byte:
            payload = bytes(values)
            reading = Reading(zero, one, sep, msb, "byte")
            out.append(((*_quality(payload), True, False), payload, reading, 0, 0))
        if max(values) > 0x10FFFF:
            continue
        text = "".join(map(chr, values))
        try:  # surrogate pairs -> their character
            text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
        except UnicodeDecodeError:
            pass
        payload = text.encode("utf-8", "surrogatepass")
        reading = Reading(zero, one, sep, msb, "code point")
        out.append(((*_quality(payload), False, False), payload, reading, 0, 0))
    return out


def _readings(body: str) -> list[_Candidate]:
    """Every reading of ``body`` worth scoring (see the module docstring).  With three
    symbols, a separator that leaves groups of 8 is read as such; only when none does,
    the rarest symbol is taken as the separator of groups of any length (a data symbol
    is rarer than the separator only in payloads of nearly all zero or all one bits)."""
    symbols = sorted({ord(c) for c in body})
    out: list[_Candidate] = []
    if len(symbols) == 2:
        if len(body) % 8 == 0:
            for zero, one in itertools.permutations(symbols):
                out += _fixed_groups(body, zero, one, None)
        return out
    if len(symbols) != 3:
        return out
    variable: list[int] = []
    for sep in symbols:
        groups = _split_groups(body, sep)
        if groups is None:
            continue
        data = [s for s in symbols if s != sep]
        if min(map(len, groups)) == max(map(len, groups)) == 8:
            joined = "".join(groups)
            for zero, one in itertools.permutations(data):
                out += _fixed_groups(joined, zero, one, sep)
        else:
            variable.append(sep)
    if not out and variable:
        sep = min(variable, key=lambda s: body.count(chr(s)))
        data = [s for s in symbols if s != sep]
        for zero, one in itertools.permutations(data):
            out += _variable_groups(body, zero, one, sep)
    return out


def _best_reading(run: str) -> tuple[bytes, Reading, int, int] | None:
    """The reading ``find`` chooses for a run of bit symbols, with how many symbols it
    leaves out at the start and at the end; None when none decodes the run."""
    best: tuple[tuple[object, ...], bytes, Reading, int, int] | None = None
    for cut_start, cut_end in ((0, 0), (1, 0), (0, 1), (1, 1)):
        body = run[cut_start : len(run) - cut_end]
        if len(body) < MIN_BITS:
            break
        for (ok, printable, words, unit_byte, uniform), payload, reading, _, _ in _readings(body):
            key = (
                ok,
                uniform,  # an encoder's structure (8 bits a group) beats what reads well
                unit_byte,
                printable,
                words,
                -(cut_start + cut_end),
                reading.msb_first,
                reading.zero < reading.one,
            )
            if best is None or key > best[0]:
                best = (key, payload, reading, cut_start, cut_end)
        if best is not None and best[0][:4] == (True, True, True, 1.0):
            break  # well-formed printable bytes in whole groups: nothing reads better
    if best is None:
        return None
    return best[1], best[2], best[3], best[4]


def _legitimate_here(text: str, i: int, outer: int) -> bool:
    """Whether the bit symbol ``text[i]``, left out of a reading, stands where it belongs:
    a joiner beside a letter or mark (``outer``: the index on its far side), a bidi mark
    beside any character but a carrier."""
    if not 0 <= outer < len(text):
        return False
    cp, neighbour = ord(text[i]), text[outer]
    if in_ranges(cp, _C.JOINER.ranges):
        return str(unicodedata2.category(neighbour))[0] in "LM"
    if in_ranges(cp, _C.BIDI_MARK.ranges):
        return not _is_carrier(ord(neighbour))
    return False


def _bit_channel(symbols: set[int]) -> Channel:
    """BIDI_MARK_BITS when every symbol read is a bidi mark, else ZERO_WIDTH_BITS."""
    marks = all(in_ranges(cp, _C.BIDI_MARK.ranges) for cp in symbols)
    return Channel.BIDI_MARK_BITS if marks else Channel.ZERO_WIDTH_BITS


def _bit_payload(text: str, start: int, end: int) -> Hidden | None:
    """The run of bit symbols ``text[start:end]`` as a payload, or None when it is too
    short (< MIN_BITS) or made of one symbol."""
    if end - start < MIN_BITS:
        return None
    run = text[start:end]
    if len(set(run)) < 2:
        return None
    best = _best_reading(run)
    if best is None:
        return Hidden(start, end, _bit_channel({ord(c) for c in run}), b"", None)
    payload, reading, cut_start, cut_end = best
    channel = _bit_channel({reading.zero, reading.one, reading.separator or reading.zero})
    if cut_start and _legitimate_here(text, start, start - 1):
        start += 1
    if cut_end and _legitimate_here(text, end - 1, end):
        end -= 1
    return Hidden(start, end, channel, payload, reading)


# -- the public function --------------------------------------------------------------------


def reveal(text: str | bytes | bytearray | memoryview) -> tuple[Hidden, ...]:
    """Every payload hidden in ``text``, in order (see the module docstring).

    ``text`` is a str, or bytes decoded strictly first (``sanitizer.decode``: ill-formed
    UTF-8 raises ``Utf8Error``); offsets are then byte offsets, as ``inspect`` gives."""
    if isinstance(text, str):
        return tuple(find(text))
    if not isinstance(text, (bytes, bytearray, memoryview)):
        raise TypeError(f"reveal() argument 'text' must be str or bytes, not {type(text).__name__}")
    if speedups is not None:
        clean = speedups.clean(bytes(text), *_c_tables(), -1)
        if clean is not None:
            return ()  # well-formed, and the scan found no candidate
    decoded = decode(text)
    found = find(decoded)
    if not found:
        return ()
    return tuple(_in_bytes(decoded, found))


def _in_bytes(text: str, found: list[Hidden]) -> list[Hidden]:
    """``found`` with code-point offsets into ``text`` turned into UTF-8 byte offsets."""
    points = sorted({p for h in found for p in (h.start, h.end)})
    to_byte: dict[int, int] = {}
    prev = position = 0
    for point in points:
        position += len(text[prev:point].encode("utf-8"))
        to_byte[point] = position
        prev = point
    return [
        Hidden(to_byte[h.start], to_byte[h.end], h.channel, h.payload, h.reading) for h in found
    ]
