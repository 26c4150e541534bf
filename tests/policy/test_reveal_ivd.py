"""Ideographic variation sequences (UTS #37): registered ones pass, any other is a payload.

The oracle is the vendored Ideographic Variation Database itself
(``tools/ivd-2022-09-13/IVD_Sequences.txt.xz``), parsed here independently of the
generator: every sequence it registers reveals nothing and passes ``profiles.PROMPT``;
a VS17..VS256 after an ideograph it registers no sequence with is a one-byte payload,
refused by PROMPT, on both backends and from str and bytes alike.
"""

from __future__ import annotations

import functools
import hashlib
import lzma
import re
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sanitizer import Category, Channel, Hidden, inspect, profiles, reveal
from sanitizer._categories import IDEOGRAPHIC, in_ranges
from sanitizer._policy import _classtable as ct
from sanitizer._policy import _reveal, _sequences_data, accepts

ROOT = Path(__file__).resolve().parents[2]
IVD_DIR = ROOT / "tools" / f"ivd-{_sequences_data.IVD_VERSION}"
SELECTORS = range(0xE0100, 0xE01F0)  # VS17..VS256


@functools.cache
def registered() -> frozenset[tuple[int, int]]:
    """Every (base, selector) of the vendored IVD_Sequences.txt (UTS #37 §4 data lines)."""
    pairs = set()
    with lzma.open(IVD_DIR / "IVD_Sequences.txt.xz", "rt", encoding="utf-8") as fh:
        for line in fh:
            data = line.split("#", 1)[0].strip()
            if data:
                base, selector = (int(h, 16) for h in data.split(";")[0].split())
                pairs.add((base, selector))
    return frozenset(pairs)


def _byte(selector: int) -> bytes:
    """The byte a VS17..VS256 carries (U+E0100 + b - 16)."""
    return bytes([selector - 0xE0100 + 16])


def _both_backends(text: str) -> tuple[Hidden, ...]:
    """``reveal(text)``, checked equal without the C prefilter and from UTF-8 bytes."""
    found = reveal(text)
    saved = _reveal.speedups
    _reveal.speedups = None
    try:
        assert tuple(_reveal.find(text)) == found
    finally:
        _reveal.speedups = saved
    as_bytes = reveal(text.encode())
    assert [(h.channel, h.payload) for h in as_bytes] == [(h.channel, h.payload) for h in found]
    return found


# -- the data -------------------------------------------------------------------------------


def test_the_vendored_file_is_the_release_its_readme_names() -> None:
    readme = (IVD_DIR / "README.md").read_text(encoding="utf-8")
    (digest,) = re.findall(r"`IVD_Sequences\.txt\.xz` \|.*\| `([0-9a-f]{64})` \|", readme)
    with lzma.open(IVD_DIR / "IVD_Sequences.txt.xz") as fh:
        text = fh.read()
    assert hashlib.sha256(text).hexdigest() == digest
    assert f"release {_sequences_data.IVD_VERSION}" in text[:2000].decode()
    lines = [line for line in text.splitlines() if line and not line.startswith(b"#")]
    assert len(lines) == 39303  # sequence lines of release 2022-09-13, one per collection
    assert (IVD_DIR / "LICENSE.txt").read_text(encoding="utf-8").startswith("UNICODE LICENSE V3")


def test_the_table_is_the_file() -> None:
    """The generated table holds exactly the vendored file's pairs."""
    pairs = registered()
    assert len(pairs) == 29437
    for base, selector in pairs:
        assert _reveal.ivd_registered(base, selector), (hex(base), hex(selector))
    by_selector: dict[int, int] = {}
    for _, selector in pairs:
        by_selector[selector] = by_selector.get(selector, 0) + 1
    for selector in SELECTORS:  # no more bases than the file registers (ranges parse right)
        bounds = _reveal._ivd_bounds(selector)
        size = sum(bounds[i + 1] - bounds[i] for i in range(0, len(bounds), 2))
        assert size == by_selector.get(selector, 0), hex(selector)


def test_every_base_is_an_ideograph() -> None:
    """So the policies' sequence rule (VS17..VS256 after IDEOGRAPHIC) exempts each one."""
    assert all(in_ranges(base, IDEOGRAPHIC) for base, _ in registered())


def test_the_c_scan_stops_at_every_ideographic_selector() -> None:
    """Which pair is registered no class tells: each VS17..VS256 is a candidate, for
    ``reveal`` and for a policy scanning HIDDEN_PAYLOAD (both read ``carrier_rules``)."""
    table = ct.class_table()
    classes = {table.class_of(cp) for cp in SELECTORS}
    rules = _reveal.carrier_rules()
    assert all(rules[c] == () for c in classes)


# -- registered: nothing ----------------------------------------------------------------------


def test_every_registered_sequence_reveals_nothing_and_passes_prompt() -> None:
    text = "".join(chr(base) + chr(selector) for base, selector in sorted(registered()))
    assert _both_backends(text) == ()
    assert reveal(text.encode()) == ()
    report = inspect(text, profiles.PROMPT)
    assert report.ok and report.text == text
    assert accepts(text, profiles.PROMPT) and accepts(text.encode(), profiles.PROMPT)


@pytest.mark.slow
def test_every_registered_sequence_alone_reveals_nothing_and_passes_prompt() -> None:
    for base, selector in sorted(registered()):
        text = f"x{chr(base)}{chr(selector)}y"
        assert reveal(text) == (), text
        assert inspect(text, profiles.PROMPT).ok, text


# -- anything else after an ideograph: a byte ---------------------------------------------------


def _check_next_selectors(step: int) -> None:
    """For every ``step``-th base of the IVD, the lowest selector it has no sequence with."""
    pairs = registered()
    units = []
    for base in sorted({b for b, _ in pairs})[::step]:
        selector = next(s for s in SELECTORS if (base, s) not in pairs)
        units.append((chr(base) + chr(selector), _byte(selector)))
    text = " ".join(unit for unit, _ in units)
    found = _both_backends(text)
    assert [h.payload for h in found] == [payload for _, payload in units]
    assert {(h.end - h.start, h.channel) for h in found} == {(1, Channel.VARIATION_SELECTORS)}
    report = inspect(text, profiles.PROMPT)
    assert not report.ok and not accepts(text, profiles.PROMPT)


def test_the_next_selector_after_a_base_is_a_byte() -> None:
    _check_next_selectors(step=7)


@pytest.mark.slow
def test_the_next_selector_after_every_base_is_a_byte() -> None:
    _check_next_selectors(step=1)


@pytest.mark.parametrize(
    ("text", "payload"),
    [
        ("\u845b\U000e01ef", b"\xff"),  # 葛 + VS256: 葛 has VS17..VS26 only
        ("\u845b\U000e010a", b"\x1a"),  # 葛 + VS27
        ("\u4e00\U000e0120", b"\x30"),  # VS49: no ideograph has one in 2022-09-13
        ("\U00030000\U000e0100", b"\x10"),  # an Extension G ideograph without any
    ],
)
def test_examples_of_unregistered_sequences(text: str, payload: bytes) -> None:
    assert (ord(text[0]), ord(text[1])) not in registered()
    (h,) = _both_backends(text + "b")
    assert (h.start, h.end, h.channel, h.payload) == (1, 2, Channel.VARIATION_SELECTORS, payload)
    (f,) = inspect("\u306f" + text, profiles.PROMPT).rejections
    assert f.category is Category.HIDDEN_PAYLOAD and (f.start, f.end) == (2, 3)
    assert inspect(text, profiles.TEXT).ok  # the sequence rule of TEXT is unchanged


def test_registered_examples() -> None:
    for text in ("\u845b\U000e0100", "\u845b\U000e0109", "\u8fbb\U000e0101", "\u4e00\U000e0100"):
        assert (ord(text[0]), ord(text[1])) in registered()
        assert _both_backends("\u5c71" + text + "\u5ddd") == ()
        assert inspect(text, profiles.PROMPT).ok


_ideographs = st.one_of(
    *(st.integers(lo, hi) for lo, hi in IDEOGRAPHIC),
    st.sampled_from(sorted({b for b, _ in registered()})),
)


@given(_ideographs, st.sampled_from(SELECTORS))
@example(0x845B, 0xE01EF)
@example(0x845B, 0xE010A)
def test_an_unregistered_selector_after_an_ideograph_is_a_byte(base: int, selector: int) -> None:
    text = f"\u3042{chr(base)}{chr(selector)}\u3044"
    found = _both_backends(text)
    if (base, selector) in registered():
        assert found == ()
        assert accepts(text, profiles.PROMPT)
        return
    assert found == (Hidden(2, 3, Channel.VARIATION_SELECTORS, _byte(selector), None),)
    assert not accepts(text, profiles.PROMPT)
    assert not accepts(text.encode(), profiles.PROMPT)
