"""The data ``reveal`` stands on: the generated sequence tables and the facts its C rules
assume.

``sanitizer/_policy/_sequences_data.py`` is what tools/gen_sequences.py makes from the
files vendored in tools/unicode-18.0.0/ (current: tests/suites/test_generated_files.py; the
files' checksums: tests/identifiers/test_lookalike_tables.py); every registered sequence is in it;
the carrier sets are the policy categories' (one fact, one place); what the C prefilter
skips, the Python rules call legitimate.
"""

from __future__ import annotations

from pathlib import Path

import unicodedata2

from sanitizer._categories import EMOJI, Category, in_ranges
from sanitizer._policy import _classtable as ct
from sanitizer._policy import _reveal, _sequences_data
from sanitizer._policy._sequences import TAG_SEQUENCE
from tests.policy.reveal_samples import vendored

ROOT = Path(__file__).resolve().parents[2]


def test_version_is_the_unicode_version() -> None:
    assert _sequences_data.UNICODE_VERSION == unicodedata2.unidata_version
    assert (ROOT / "tools" / f"ivd-{_sequences_data.IVD_VERSION}" / "README.md").is_file()


def test_every_registered_sequence_is_in_the_table() -> None:
    for name in ("StandardizedVariants.txt", "emoji-variation-sequences.txt"):
        for line in vendored(name).splitlines():
            data = line.split("#", 1)[0].strip()
            if not data:
                continue
            base, selector = (int(h, 16) for h in data.split(";")[0].split())
            if 0xFE00 <= selector <= 0xFE0F:
                assert in_ranges(base, _reveal._registered()[selector]), (name, data)
                assert _reveal._selector_ok(chr(base) + chr(selector), 1)
    assert _sequences_data.RGI_TAG_SPECS == ("gbeng", "gbsct", "gbwls")


def test_carrier_sets_are_the_categories() -> None:
    assert _reveal.TAGS == Category.TAG.ranges == (TAG_SEQUENCE.block,)
    for category in _reveal.BIT_CATEGORIES:
        for lo, hi in category.ranges:
            assert in_ranges(lo, _reveal.BITS) and in_ranges(hi, _reveal.BITS)
    for lo, hi in _reveal.SELECTORS:
        assert all(in_ranges(cp, Category.VARIATION_SELECTOR.ranges) for cp in range(lo, hi + 1))
    # the only Latin-1 carrier is U+00AD SOFT HYPHEN (the engine counts its runs in C)
    latin1 = [cp for cp in range(0x100) if in_ranges(cp, _reveal.BITS)]
    assert latin1 == [0xAD]


def test_what_the_c_rules_skip_the_python_rules_call_legitimate() -> None:
    """VS16 is skipped after a class flagged EMOJI (categories.EMOJI): each such base
    makes a legitimate sequence with it; a lone bit symbol is never a payload.  VS17..
    is never skipped (tests/policy/test_reveal_ivd.py: only registered pairs are legitimate)."""
    assert ct.SEQUENCE_SETS[ct.EMOJI] == EMOJI
    for lo, hi in EMOJI:
        for cp in range(lo, min(hi, lo + 64) + 1):
            assert _reveal._selector_ok(chr(cp) + "\ufe0f", 1), hex(cp)
            assert not in_ranges(cp, _reveal.BITS) and not in_ranges(cp, _reveal.SELECTORS)
    assert _reveal.MIN_BITS > 1
    ideographic = {ct.class_table().class_of(cp) for cp in range(0xE0100, 0xE01F0)}
    assert {_reveal.carrier_rules()[c] for c in ideographic} == {()}
