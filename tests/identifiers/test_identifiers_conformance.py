"""UAX #15 conformance: NormalizationTest.txt for unicodedata2's Unicode version.

The vectors (tests/data/NormalizationTest-18.0.0.txt.xz, see tests/data/README.md) are
checked with every invariant of the file's header (UAX #15 §16 "Conformance Testing"):

    NFC:  c2 == toNFC(c1) == toNFC(c2) == toNFC(c3);   c4 == toNFC(c4) == toNFC(c5)
    NFD:  c3 == toNFD(c1) == toNFD(c2) == toNFD(c3);   c5 == toNFD(c4) == toNFD(c5)
    NFKC: c4 == toNFKC(c1) == ... == toNFKC(c5)
    NFKD: c5 == toNFKD(c1) == ... == toNFKD(c5)
    and for every code point X not in part 1: X == toNFC(X) == toNFD(X) == toNFKC(X)
    == toNFKD(X).

``sanitizer._categories.normalize`` (behind ``normalize_identifier`` and every policy) is
what is tested, so its ASCII shortcut is covered too.
"""

from __future__ import annotations

import lzma
from functools import lru_cache
from pathlib import Path

import pytest

from sanitizer import UNICODE_VERSION, normalize_identifier
from sanitizer._categories import normalize

VECTORS = Path(__file__).resolve().parents[1] / "data" / "NormalizationTest-18.0.0.txt.xz"
Row = tuple[str, str, str, str, str]


@lru_cache(maxsize=1)
def load() -> tuple[str, dict[str, list[Row]]]:
    parts: dict[str, list[Row]] = {}
    part = ""
    with lzma.open(VECTORS, "rt", encoding="utf-8") as fh:
        header = fh.readline().strip()
        for line in fh:
            if line.startswith("@Part"):
                part = line.split()[0][1:]
                parts[part] = []
                continue
            body = line.split("#")[0].strip()
            if not body:
                continue
            cols = body.split(";")[:5]
            s = tuple("".join(chr(int(h, 16)) for h in col.split()) for col in cols)
            parts[part].append(s)  # type: ignore[arg-type]
    return header, parts


def test_vectors_are_for_our_unicode_version() -> None:
    header, parts = load()
    assert header == f"# NormalizationTest-{UNICODE_VERSION}.txt"
    assert sorted(parts) == [f"Part{i}" for i in range(6)]
    assert sum(len(rows) for rows in parts.values()) > 19000


@pytest.mark.parametrize("part", [f"Part{i}" for i in range(6)])
def test_conformance_invariants(part: str) -> None:
    failures = []
    for c1, c2, c3, c4, c5 in load()[1][part]:
        checks = [
            c2 == normalize("NFC", c1) == normalize("NFC", c2) == normalize("NFC", c3),
            c4 == normalize("NFC", c4) == normalize("NFC", c5),
            c3 == normalize("NFD", c1) == normalize("NFD", c2) == normalize("NFD", c3),
            c5 == normalize("NFD", c4) == normalize("NFD", c5),
            all(c4 == normalize("NFKC", c) for c in (c1, c2, c3, c4, c5)),
            all(c5 == normalize("NFKD", c) for c in (c1, c2, c3, c4, c5)),
            c2 == normalize_identifier(c1, form="NFC"),
            c4 == normalize_identifier(c1, form="NFKC"),
        ]
        if not all(checks):
            failures.append((c1, checks))
    assert failures == []


def test_code_points_not_in_part1_are_invariant() -> None:
    listed = {ord(row[0]) for row in load()[1]["Part1"]}
    failures = []
    for cp in range(0x110000):
        if cp in listed or 0xD800 <= cp <= 0xDFFF:
            continue
        x = chr(cp)
        if not x == normalize("NFC", x) == normalize("NFD", x) == normalize("NFKC", x):
            failures.append(cp)
        elif x != normalize("NFKD", x):
            failures.append(cp)
    assert failures == []


def test_nfkc_casefold_is_equal_across_canonical_and_compatibility_classes() -> None:
    """The forms nest: c1, c2, c3 of a row are canonically equivalent and
    c1..c5 compatibility equivalent, so toNFKC_Casefold must give one value per row
    (mapping code points before canonical ordering broke this for U+0345)."""
    _, parts = load()
    for part, rows in parts.items():
        for row in rows:
            folded = {normalize_identifier(c, form="NFKC_CASEFOLD") for c in row}
            assert len(folded) == 1, (part, row, folded)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("\u03b1\u0345\u0301", "\u03b1\u0301\u0345"),  # ypogegrammeni folds to a starter
        ("\u1fb4", "\u03b1\u0301\u0345"),  # precomposed vs decomposed
        ("a\u0345\u0323\u0301", "a\u0323\u0301\u0345"),
    ],
)
def test_nfkc_casefold_of_reordered_marks(a: str, b: str) -> None:
    from sanitizer import identifiers_equal

    assert identifiers_equal(a, b, form="NFC")
    assert identifiers_equal(a, b, form="NFKC_CASEFOLD")
