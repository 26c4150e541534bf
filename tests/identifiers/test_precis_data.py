"""The generated PRECIS data (sanitizer/precis/_precis_data.py) and the tables built from
it (tests/suites/test_generated_files.py checks it is what tools/gen_precis.py writes): equal to
IANA's registry where Unicode 6.3 had the
character, equal to precis-i18n's derivation where the data did not change, and the C
table (``_native_table``) equal to the Python lookups it is built from.
"""

from __future__ import annotations

import lzma
import random
import re
import sys
import unicodedata
from pathlib import Path

import precis_i18n.derived
import precis_i18n.unicode
import pytest
import unicodedata2

from sanitizer import UNICODE_VERSION, precis
from sanitizer._categories import DEFAULT_IGNORABLE, in_ranges
from sanitizer._native import speedups
from sanitizer.precis import _lookups, _precis_data, _rules

ROOT = Path(__file__).resolve().parents[2]
IANA = ROOT / "tests" / "data" / "iana-precis-tables-6.3.0.csv.xz"
IANA_VALUES = {"ID_DIS or FREE_PVAL": "FREE_PVAL"}  # one value in RFC 8264 §8, two names


def test_the_data_is_for_this_unicode_version() -> None:
    assert _precis_data.UNICODE_VERSION == precis.UNICODE_VERSION == UNICODE_VERSION == "18.0.0"
    head = (ROOT / "sanitizer" / "precis" / "_precis_data.py").read_text().splitlines()[:4]
    assert "GENERATED" in head[0] and "Unicode 18.0.0" in head[2]
    assert "tools/gen_precis.py" in head[2]


def every_derived_value() -> list[str]:
    """The derived property value of every code point, from the generated runs."""
    starts, runs = _precis_data.DERIVED_STARTS, _precis_data.DERIVED_RUNS
    ends = [*starts[1:], 0x110000]
    values: list[str] = []
    for lo, end, run in zip(starts, ends, runs, strict=True):
        values += [_precis_data.DERIVED_KINDS[run][0]] * (end - lo)
    return values


def test_the_derived_property_is_ianas_where_unicode_6_3_had_the_character() -> None:
    """RFC 8264 §11.1's registry (Unicode 6.3.0): every code point assigned then has the
    same value now (PRECIS values are stable, RFC 8264 §10.1; none changed by 18.0)."""
    ours = every_derived_value()
    line = re.compile(r"([0-9A-F]{4,6})(?:-([0-9A-F]{4,6}))?,([^,]+),")
    checked, differ = 0, []
    with lzma.open(IANA, "rt", encoding="utf-8") as fh:
        assert next(fh) == "Codepoint,Property,Description\n"
        for row in fh:
            match = line.match(row)
            assert match, row
            lo, hi = int(match[1], 16), int(match[2] or match[1], 16)
            value = IANA_VALUES.get(match[3], match[3])
            if value == "UNASSIGNED":
                continue
            checked += hi - lo + 1
            differ += [cp for cp in range(lo, hi + 1) if ours[cp] != value]
    assert checked > 240_000
    assert differ == []


def test_derived_property_reads_the_runs() -> None:
    values = every_derived_value()
    rng = random.Random(8264)
    for cp in [*range(0x300), *(rng.randrange(0x110000) for _ in range(3000))]:
        assert precis.derived_property(cp)[0] == values[cp]


def _agrees_with_the_stdlib(cp: int) -> bool:
    """Every property RFC 8264 §8 reads is the same in the stdlib's unicodedata and
    unicodedata2, and precis-i18n's own tables (DI, Hangul jamo) say the same as ours."""
    c = chr(cp)
    return (
        unicodedata.category(c) == unicodedata2.category(c)
        and unicodedata.normalize("NFKC", c) == unicodedata2.normalize("NFKC", c)
        and (cp in precis_i18n.unicode._DEFAULT_IGNORABLE) == in_ranges(cp, DEFAULT_IGNORABLE)
    )


def _compare_with_precis_i18n(cps: list[int]) -> tuple[int, list[int]]:
    stdlib = precis_i18n.unicode.UnicodeData()
    compared, differ = 0, []
    for cp in cps:
        if 0xD800 <= cp <= 0xDFFF or not _agrees_with_the_stdlib(cp):
            continue
        compared += 1
        if precis_i18n.derived.derived_property(cp, stdlib) != precis.derived_property(cp):
            differ.append(cp)
    return compared, differ


def test_derived_property_is_precis_i18ns_where_the_data_did_not_change_sample() -> None:
    rng = random.Random(8265)
    cps = [*range(0x800), *(rng.randrange(0x110000) for _ in range(4000))]
    compared, differ = _compare_with_precis_i18n(cps)
    assert compared > 3000
    assert differ == []


@pytest.mark.slow
def test_derived_property_is_precis_i18ns_where_the_data_did_not_change() -> None:
    compared, differ = _compare_with_precis_i18n(list(range(0x110000)))
    assert compared > 1_000_000
    assert differ == []


def test_every_contextual_code_point_has_its_rule() -> None:
    """RFC 5892 Appendix A: the CONTEXTJ and CONTEXTO code points are those with a rule."""
    values = every_derived_value()
    contextual = {cp for cp, v in enumerate(values) if v in ("CONTEXTJ", "CONTEXTO")}
    assert contextual == set(_rules.CONTEXT_RULES)


@pytest.mark.slow
def test_the_bidi_groups_are_unicodedata2s() -> None:
    group_of = {
        cls: name
        for name, classes in {
            "L": ("L",),
            "R_AL": ("R", "AL"),
            "AN": ("AN",),
            "EN": ("EN",),
            "NEUTRAL": ("ES", "CS", "ET", "ON", "BN"),
            "NSM": ("NSM",),
        }.items()
        for cls in classes
    }
    for name, ranges in _lookups.BIDI_GROUPS.items():
        for lo, hi in ranges:
            for cp in range(lo, hi + 1):
                assert group_of[unicodedata2.bidirectional(chr(cp))] == name


@pytest.mark.skipif(speedups is None, reason="C extension not built or SANITIZER_PURE_PYTHON=1")
def test_the_c_table_says_what_the_python_lookups_say() -> None:
    from sanitizer.precis import _native_table

    stage1, stage2, layout = _native_table.build()

    def entry(cp: int) -> int:
        block = int.from_bytes(stage1[2 * (cp >> 8) : 2 * (cp >> 8) + 2], sys.byteorder)
        at = 4 * (block * 256 + (cp & 255))
        return int.from_bytes(stage2[at : at + 4], sys.byteorder)

    def field(cp: int, shift: str, width: int) -> int:
        value = layout[shift]
        assert isinstance(value, int)
        return (entry(cp) >> value) & ((1 << width) - 1)

    groups = {v: k.removeprefix("G_") for k, v in layout.items() if k.startswith("G_")}
    joining = {0: "U", **{v: k.removeprefix("J_") for k, v in layout.items() if k.startswith("J_")}}
    rng = random.Random(5893)
    lower, fold = _lookups.lower_table(), _lookups.fold_table()
    for cp in [
        *range(0x800),
        *range(0xFF00, 0x10000),
        *(rng.randrange(0x110000) for _ in range(5000)),
    ]:
        kind = _precis_data.DERIVED_KINDS[entry(cp) & 15]
        assert kind == precis.derived_property(cp)
        group = groups.get(field(cp, "BIDI_SHIFT", 3), "OTHER")
        assert group == next(
            (n for n, r in _lookups.BIDI_GROUPS.items() if in_ranges(cp, r)), "OTHER"
        )
        assert joining[field(cp, "JOIN_SHIFT", 3)] == _lookups.joining_type(cp)
        flags = entry(cp)
        assert bool(flags & int(layout["LOWER"])) == (cp in lower)  # type: ignore[call-overload]
        assert bool(flags & int(layout["FOLD"])) == (cp in fold)  # type: ignore[call-overload]
        assert bool(flags & int(layout["WIDTH"])) == (cp in _lookups.WIDTH)  # type: ignore[call-overload]
        virama = bool(flags & int(layout["VIRAMA"]))  # type: ignore[call-overload]
        assert virama == (cp <= 0x10FFFF and unicodedata2.combining(chr(cp)) == 9)
