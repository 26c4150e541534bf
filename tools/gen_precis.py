"""Generate ``sanitizer/precis/_precis_data.py``: the PRECIS derived property of every code
point (RFC 8264 §8, §9) and the character data of the profiles (RFC 8265, RFC 8266).

Why generated: the derived property needs Hangul_Syllable_Type and Default_Ignorable, the
context rules (RFC 5892 Appendix A) Joining_Type and Script, and the case-mapping rule
Unicode 18's full lowercase mapping and case folding (with Cased and Case_Ignorable for
Final_Sigma): unicodedata2 has none of these, and the interpreter's ``str.lower`` is as old
as its own Unicode.  Computing the property over 1,114,112 code points costs seconds, so
this script does it once.

Sources, all of one Unicode version (refused otherwise):
- unicodedata2: General_Category, NFKC (HasCompat, RFC 8264 §9.17; the width mapping),
  Bidi_Class (the Bidi Rule, RFC 5893), Canonical_Combining_Class (virama);
- ``sanitizer._categories``: Default_Ignorable_Code_Point (generated from the UCD by
  tools/gen_chartables.py);
- ``tools/unicode-18.0.0/HangulSyllableType.txt.xz``: OldHangulJamo (RFC 8264 §9.9);
- ucdinfo 0.3's UCD XML (UAX #42): Join_Control, Joining_Type, Script, Cased,
  Case_Ignorable, Lowercase_Mapping, Case_Folding.

The rules follow RFC 8264 as precis-i18n (the reference implementation the tests compare
with) reads them: its reason names, its width mapping (U+FF01..FFEF to a one-character
NFKC), its space set (Zs but U+0020).

Run: ``python tools/gen_precis.py`` (rewrites the file) or ``--check`` (exit 1 when it is
stale).  ``tests/identifiers/test_precis_data.py`` compares ``outputs()`` with the committed file.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from importlib.metadata import version as _dist_version
from pathlib import Path
from typing import Any

import unicodedata2
from table_text import ranges_assignment, wrapped
from unicode_sources import UNICODE_VERSION, load_ucd, prop, ranges, vendored_text

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path("sanitizer") / "precis" / "_precis_data.py"
MAX_CP = 0x10FFFF
MAP_LENGTH_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"  # a value's length, one digit

PVALID, FREE_PVAL, CONTEXTJ, CONTEXTO = "PVALID", "FREE_PVAL", "CONTEXTJ", "CONTEXTO"
DISALLOWED, UNASSIGNED = "DISALLOWED", "UNASSIGNED"

# RFC 5892 §2.6 Exceptions (RFC 8264 §9.6 keeps them): code point -> derived property.
EXCEPTIONS = {
    # PVALID: would otherwise be DISALLOWED
    0x00DF: PVALID,  # LATIN SMALL LETTER SHARP S
    0x03C2: PVALID,  # GREEK SMALL LETTER FINAL SIGMA
    0x06FD: PVALID,  # ARABIC SIGN SINDHI AMPERSAND
    0x06FE: PVALID,  # ARABIC SIGN SINDHI POSTPOSITION MEN
    0x0F0B: PVALID,  # TIBETAN MARK INTERSYLLABIC TSHEG
    0x3007: PVALID,  # IDEOGRAPHIC NUMBER ZERO
    # CONTEXTO: would otherwise be DISALLOWED
    0x00B7: CONTEXTO,  # MIDDLE DOT
    0x0375: CONTEXTO,  # GREEK LOWER NUMERAL SIGN (KERAIA)
    0x05F3: CONTEXTO,  # HEBREW PUNCTUATION GERESH
    0x05F4: CONTEXTO,  # HEBREW PUNCTUATION GERSHAYIM
    0x30FB: CONTEXTO,  # KATAKANA MIDDLE DOT
    # CONTEXTO: would otherwise be PVALID (ARABIC-INDIC and EXTENDED ARABIC-INDIC DIGITS)
    **dict.fromkeys(range(0x0660, 0x066A), CONTEXTO),
    **dict.fromkeys(range(0x06F0, 0x06FA), CONTEXTO),
    # DISALLOWED: would otherwise be PVALID
    0x0640: DISALLOWED,  # ARABIC TATWEEL
    0x07FA: DISALLOWED,  # NKO LAJANYALAN
    0x302E: DISALLOWED,  # HANGUL SINGLE DOT TONE MARK
    0x302F: DISALLOWED,  # HANGUL DOUBLE DOT TONE MARK
    0x3031: DISALLOWED,  # VERTICAL KANA REPEAT MARK
    0x3032: DISALLOWED,  # VERTICAL KANA REPEAT WITH VOICED SOUND MARK
    0x3033: DISALLOWED,  # VERTICAL KANA REPEAT MARK UPPER HALF
    0x3034: DISALLOWED,  # VERTICAL KANA REPEAT WITH VOICED SOUND MARK UPPER HALF
    0x3035: DISALLOWED,  # VERTICAL KANA REPEAT MARK LOWER HALF
    0x303B: DISALLOWED,  # VERTICAL IDEOGRAPHIC ITERATION MARK
}
# RFC 5892 §2.7 / RFC 8264 §9.7 BackwardCompatible: empty in every published table.
BACKWARD_COMPATIBLE: dict[int, str] = {}

# Every (value, reason) the derivation gives, in a fixed order (the index is stored).
KINDS: tuple[tuple[str, str], ...] = (
    (PVALID, "exceptions"),
    (CONTEXTO, "exceptions"),
    (DISALLOWED, "exceptions"),
    (UNASSIGNED, "unassigned"),
    (PVALID, "ascii7"),
    (CONTEXTJ, "join_control"),
    (DISALLOWED, "old_hangul_jamo"),
    (DISALLOWED, "precis_ignorable_properties"),
    (DISALLOWED, "controls"),
    (FREE_PVAL, "has_compat"),
    (PVALID, "letter_digits"),
    (FREE_PVAL, "other_letter_digits"),
    (FREE_PVAL, "spaces"),
    (FREE_PVAL, "symbols"),
    (FREE_PVAL, "punctuation"),
    (DISALLOWED, "other"),
)
# RFC 8264 §9.1-§9.5, §9.16: General_Category sets.
LETTER_DIGITS = {"Ll", "Lu", "Lo", "Nd", "Lm", "Mn", "Mc"}
OTHER_LETTER_DIGITS = {"Lt", "Nl", "No", "Me"}
SPACES = {"Zs"}
SYMBOLS = {"Sm", "Sc", "Sk", "So"}
PUNCTUATION = {"Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"}
# Bidi_Class as the Bidi Rule reads it (RFC 5893 §2): R and AL alike, and ES, CS, ET, ON,
# BN alike; every other class (and unassigned code points) is refused everywhere.
BIDI_GROUPS = {
    "L": ("L",),
    "R_AL": ("R", "AL"),
    "AN": ("AN",),
    "EN": ("EN",),
    "NEUTRAL": ("ES", "CS", "ET", "ON", "BN"),
    "NSM": ("NSM",),
}
WIDTH_RANGE = (0xFF01, 0xFFEF)  # precis-i18n's fullwidth/halfwidth block (RFC 8265 §3.3.1)


def old_hangul_jamo() -> set[int]:
    """Hangul_Syllable_Type L, V or T (RFC 8264 §9.9), from the vendored UCD file."""
    text = vendored_text("HangulSyllableType.txt")
    jamo: set[int] = set()
    for line in text.splitlines():
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        field, value = (part.strip() for part in body.split(";"))
        lo, _, hi = field.partition("..")
        if value in ("L", "V", "T"):
            jamo.update(range(int(lo, 16), int(hi or lo, 16) + 1))
    return jamo


def is_noncharacter(cp: int) -> bool:
    """Noncharacter_Code_Point (Unicode §23.7): U+FDD0..FDEF and the last two of each plane."""
    return 0xFDD0 <= cp <= 0xFDEF or cp & 0xFFFE == 0xFFFE


def derive(data: Any, gc: list[str], default_ignorable: set[int], jamo: set[int]) -> list[int]:
    """The derived property of every code point as an index into KINDS (RFC 8264 §8)."""
    index = {kind: i for i, kind in enumerate(KINDS)}
    join_control = {cp for cp in range(0x2000, 0x2100) if prop(data, cp, "Join_C")}
    assert join_control == {0x200C, 0x200D}, join_control
    out: list[int] = []
    for cp in range(MAX_CP + 1):
        char, cat = chr(cp), gc[cp]
        if cp in EXCEPTIONS:
            kind = (EXCEPTIONS[cp], "exceptions")
        elif cp in BACKWARD_COMPATIBLE:  # pragma: no cover - empty
            kind = (BACKWARD_COMPATIBLE[cp], "backward_compatible")
        elif cat == "Cn" and not is_noncharacter(cp):  # §9.10 Unassigned
            kind = (UNASSIGNED, "unassigned")
        elif 0x21 <= cp <= 0x7E:  # §9.11 ASCII7
            kind = (PVALID, "ascii7")
        elif cp in join_control:  # §9.8 JoinControl
            kind = (CONTEXTJ, "join_control")
        elif cp in jamo:  # §9.9 OldHangulJamo
            kind = (DISALLOWED, "old_hangul_jamo")
        elif cp in default_ignorable or is_noncharacter(cp):  # §9.13 PrecisIgnorable...
            kind = (DISALLOWED, "precis_ignorable_properties")
        elif cat == "Cc":  # §9.12 Controls
            kind = (DISALLOWED, "controls")
        elif cat != "Cs" and unicodedata2.normalize("NFKC", char) != char:  # §9.17
            kind = (FREE_PVAL, "has_compat")
        elif cat in LETTER_DIGITS:  # §9.1
            kind = (PVALID, "letter_digits")
        elif cat in OTHER_LETTER_DIGITS:  # §9.18
            kind = (FREE_PVAL, "other_letter_digits")
        elif cat in SPACES:  # §9.14
            kind = (FREE_PVAL, "spaces")
        elif cat in SYMBOLS:  # §9.15
            kind = (FREE_PVAL, "symbols")
        elif cat in PUNCTUATION:  # §9.16
            kind = (FREE_PVAL, "punctuation")
        else:
            kind = (DISALLOWED, "other")
        out.append(index[kind])
    return out


def case_map(data: Any, gc: list[str], key: str) -> dict[int, str]:
    """Full Lowercase_Mapping ("lc") or Case_Folding ("cf"), where it is not the identity."""
    out: dict[int, str] = {}
    for cp in range(MAX_CP + 1):
        if gc[cp] in ("Cn", "Cs"):
            continue
        mapped = prop(data, cp, key)
        if mapped and mapped != chr(cp):
            out[cp] = mapped
    return out


def build(data: Any) -> dict[str, Any]:
    """Every table, as plain Python values, after checking the facts the runtime uses."""
    from sanitizer._categories import DEFAULT_IGNORABLE
    from sanitizer._categories import UNICODE_VERSION as CHARDATA_VERSION

    assert CHARDATA_VERSION == UNICODE_VERSION, CHARDATA_VERSION
    gc = [unicodedata2.category(chr(cp)) for cp in range(MAX_CP + 1)]

    def where(pred: Callable[[int], bool]) -> set[int]:
        return {cp for cp in range(MAX_CP + 1) if pred(cp)}

    default_ignorable = {cp for lo, hi in DEFAULT_IGNORABLE for cp in range(lo, hi + 1)}
    derived = derive(data, gc, default_ignorable, old_hangul_jamo())
    starts = [cp for cp in range(MAX_CP + 1) if cp == 0 or derived[cp] != derived[cp - 1]]

    width: dict[int, str] = {}
    for cp in range(WIDTH_RANGE[0], WIDTH_RANGE[1] + 1):
        mapped = unicodedata2.normalize("NFKC", chr(cp))
        if len(mapped) == 1 and mapped != chr(cp):
            width[cp] = mapped
    joining: dict[str, set[int]] = {"D": set(), "R": set(), "L": set(), "T": set()}
    scripts: dict[str, set[int]] = {"Grek": set(), "Hebr": set(), "Hira": set()}
    cased: set[int] = set()
    case_ignorable: set[int] = set()
    for cp in range(MAX_CP + 1):
        if gc[cp] in ("Cn", "Cs"):
            continue  # ucdinfo omits reserved code points: U, Zzzz, not cased
        jt = prop(data, cp, "jt")
        if jt in joining:
            joining[jt].add(cp)
        sc = prop(data, cp, "sc")
        if sc in ("Grek", "Hebr"):
            scripts[sc].add(cp)
        elif sc in ("Hira", "Kana", "Hani"):  # RFC 5892 A.7: one set
            scripts["Hira"].add(cp)
        if prop(data, cp, "Cased"):
            cased.add(cp)
        if prop(data, cp, "CI"):
            case_ignorable.add(cp)
    lower = case_map(data, gc, "lc")
    fold = case_map(data, gc, "cf")

    # Facts the runtime relies on (sanitizer/precis/_mapping.py, _rules.py).
    assert lower[0x3A3] == "\u03c3", "Final_Sigma maps U+03A3 to U+03C2 or U+03C3"
    assert all(cp > 0x7F for cp in width), "width mapping leaves ASCII alone"
    ascii_lower = {cp: chr(cp + 32) for cp in range(0x41, 0x5B)}
    assert {cp: v for cp, v in lower.items() if cp < 0x80} == ascii_lower
    assert {cp: v for cp, v in fold.items() if cp < 0x80} == ascii_lower
    assert not any(v.isascii() != (cp < 0x80) for cp, v in lower.items() if cp != 0x212A), (
        "only KELVIN SIGN lowercases into ASCII"
    )
    assert not any(" " in v for v in [*lower.values(), *fold.values()]), (
        "case mapping neither makes nor takes U+0020: it commutes with RFC 8266's space rule"
    )
    spaces = where(lambda cp: gc[cp] == "Zs") - {0x20}
    bidi = [unicodedata2.bidirectional(chr(cp)) for cp in range(MAX_CP + 1)]
    groups = {
        name: ranges(cp for cp in range(MAX_CP + 1) if bidi[cp] in classes)
        for name, classes in BIDI_GROUPS.items()
    }
    assert not any(bidi[cp] in ("R", "AL", "AN") for cp in range(0x80)), "ASCII is not RTL"
    virama = where(lambda cp: unicodedata2.combining(chr(cp)) == 9)
    return {
        "starts": starts,
        "runs": [derived[cp] for cp in starts],
        "width": width,
        "spaces": ranges(spaces),
        "bidi": groups,
        "virama": ranges(virama),
        "joining": {k: ranges(v) for k, v in joining.items()},
        "greek": ranges(scripts["Grek"]),
        "hebrew": ranges(scripts["Hebr"]),
        "hiragana_katakana_han": ranges(scripts["Hira"]),
        "cased": ranges(cased),
        "case_ignorable": ranges(case_ignorable),
        "lower": lower,
        "fold": fold,
    }


def _fmt_str(name: str, text: str, per_line: int) -> list[str]:
    chunks = [text[i : i + per_line] for i in range(0, len(text), per_line)] or [""]
    return [f"{name} = (", *[f"    {c!a}" for c in chunks], ")"]


def _fmt_map(name: str, mapping: dict[int, str]) -> list[str]:
    """A code point map as three parallel strings: the sources in code point order, the
    length of each value as one digit of MAP_LENGTH_DIGITS, the values one after another."""
    items = sorted(mapping.items())
    assert all(len(v) < len(MAP_LENGTH_DIGITS) for _, v in items)
    return [
        *_fmt_str(f"{name}_SOURCES", "".join(chr(cp) for cp, _ in items), 8),
        *_fmt_str(f"{name}_LENGTHS", "".join(MAP_LENGTH_DIGITS[len(v)] for _, v in items), 88),
        *_fmt_str(f"{name}_VALUES", "".join(v for _, v in items), 8),
    ]


def render(tables: dict[str, Any]) -> str:
    out = [
        '"""PRECIS derived property and profile character data. GENERATED: do not edit.',
        "",
        f"Unicode {UNICODE_VERSION}. Generated by tools/gen_precis.py from unicodedata2",
        f"{_dist_version('unicodedata2')} (General_Category, NFKC, Bidi_Class, ccc),",
        "sanitizer._categories (Default_Ignorable_Code_Point), tools/unicode-18.0.0/",
        "HangulSyllableType.txt and ucdinfo 0.3's UCD XML (Join_Control, Joining_Type, Script,",
        "Cased, Case_Ignorable, Lowercase_Mapping, Case_Folding).",
        '"""',
        "",
        "# fmt: off",
        "from __future__ import annotations",
        "",
        f'UNICODE_VERSION = "{UNICODE_VERSION}"',
        "",
        "Ranges = tuple[tuple[int, int], ...]",
        "",
        "# RFC 8264 §8: the derived property of each code point run, as an index into",
        "# DERIVED_KINDS ((value, the rule that decided it), precis-i18n's names).",
        "DERIVED_KINDS: tuple[tuple[str, str], ...] = (",
        *[f'    ("{value}", "{reason}"),' for value, reason in KINDS],
        ")",
        "DERIVED_STARTS: tuple[int, ...] = (",
        *wrapped([f"0x{cp:X}," for cp in tables["starts"]]),
        ")",
        "DERIVED_RUNS: tuple[int, ...] = (",
        *wrapped([f"{i}," for i in tables["runs"]]),
        ")",
        "",
        "# RFC 8265 §3.3.1 width mapping: U+FF01..FFEF whose NFKC is one other character.",
        "WIDTH: dict[int, str] = {",
        *wrapped([f"0x{cp:04X}: {v!a}," for cp, v in sorted(tables["width"].items())]),
        "}",
        "",
        "# RFC 8265 §4.2.1, RFC 8266 §2.1: the non-ASCII spaces (Zs but U+0020).",
        *ranges_assignment("SPACES", tables["spaces"]),
        "",
        "# Bidi_Class in the groups the Bidi Rule reads (RFC 5893 §2): R and AL alike, ES, CS,",
        "# ET, ON and BN alike (NEUTRAL); any other class is refused wherever it stands.",
        *[
            line
            for name, rngs in tables["bidi"].items()
            for line in ranges_assignment(f"BIDI_{name}", rngs)
        ],
        "",
        "# Canonical_Combining_Class=Virama (9): RFC 5892 A.1, A.2.",
        *ranges_assignment("VIRAMA", tables["virama"]),
        "",
    ]
    for jt, name in (("D", "DUAL"), ("R", "RIGHT"), ("L", "LEFT"), ("T", "TRANSPARENT")):
        out += [f"# Joining_Type={jt} (RFC 5892 Appendix A.1)."]
        out += ranges_assignment(f"JOINING_{name}", tables["joining"][jt])
    out += [
        "",
        "# Script=Greek (RFC 5892 A.4), Hebrew (A.5, A.6), Hiragana|Katakana|Han (A.7).",
        *ranges_assignment("GREEK", tables["greek"]),
        *ranges_assignment("HEBREW", tables["hebrew"]),
        *ranges_assignment("HIRAGANA_KATAKANA_HAN", tables["hiragana_katakana_han"]),
        "",
        "# Cased and Case_Ignorable (Unicode §3.13): the Final_Sigma context of U+03A3.",
        *ranges_assignment("CASED", tables["cased"]),
        *ranges_assignment("CASE_IGNORABLE", tables["case_ignorable"]),
        "",
        "# Full Lowercase_Mapping (SpecialCasing's unconditional mappings included) where it",
        "# is not the identity: three parallel strings (sources, value lengths, values).",
        *_fmt_map("LOWER", tables["lower"]),
        "",
        "# Full Case_Folding (status C and F) where it is not the identity, likewise.",
        *_fmt_map("FOLD", tables["fold"]),
        "",
    ]
    return "\n".join(out)


def outputs() -> dict[Path, str]:
    """Repo-relative path -> the exact text of each generated file."""
    return {TARGET: render(build(load_ucd()))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    stale = 0
    for path, text in outputs().items():
        target = ROOT / path
        if args.check:
            current = target.read_text(encoding="utf-8") if target.exists() else ""
            if current != text:
                print(f"{path} is stale: run tools/gen_precis.py", file=sys.stderr)
                stale = 1
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(f"wrote {path} ({len(text)} bytes)")
    return stale


if __name__ == "__main__":
    raise SystemExit(main())
