"""Generate ``sanitizer/_chartables_data.py``: the character data policies and identifiers need.

Why a generated table: unicodedata2 (the only source of character data at run time) has
general categories, bidi classes and normalization, but no Default_Ignorable_Code_Point,
White_Space, Bidi_Control, Ideographic, Script or NFKC_Casefold.  Computing sets over all
1,114,112 code points at import would cost a second, so this script does it once.

Sources, both pinned to the same Unicode version (checked below):
- unicodedata2 (general category, normalization, and the normalization quick-check sets,
  which ucdinfo's cached UCD does not carry: see ``quick_check``);
- ucdinfo 0.3 (PyPI), which ships the Unicode Character Database in its XML form
  (UAX #42, ``ucd.all.flat.xml``) for the binary properties and NFKC_Casefold.  ucdinfo
  omits reserved code points, so the reserved ranges of Default_Ignorable_Code_Point
  (PropList.txt, Other_Default_Ignorable_Code_Point; UAX #44 §5.7.2) are listed here.

Run by ``tools/generate.py`` (rewrites the file) or ``--check`` (exit 1 when the file is
stale); ``tests/suites/test_generated_files.py`` runs the check.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import version as _dist_version
from pathlib import Path
from typing import Any

import unicodedata2
from unicode_sources import expand, load_ucd, prop, ranges

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "sanitizer" / "_chartables_data.py"
MAX_CP = 0x10FFFF

# Reserved (unassigned) code points that are Default_Ignorable (PropList.txt ODI, UAX #44).
RESERVED_DEFAULT_IGNORABLE = ((0x2065, 0x2065), (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF))
LINE_BREAKS = (0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029)  # UAX #14 BK, CR, LF, NL
BIDI_MARKS = (0x061C, 0x200E, 0x200F)  # ALM, LRM, RLM: Bidi_Control without scope
PATH_SEPARATORS = (0x2F, 0x5C)  # '/' and '\\'
# Emoji that are not So/Sm (keycap bases, two punctuation and one dash emoji).
EXTRA_EMOJI = (0x23, 0x2A, *range(0x30, 0x3A), 0x203C, 0x2049, 0x3030, 0x303D)
EMOJI_MODIFIERS = (0x1F3FB, 0x1F3FF)  # UTS #51 §2.4 skin tones (gc Sk)


def quick_check(gc: list[str]) -> tuple[dict[int, str], dict[int, str]]:
    """NFC_Quick_Check and NFKC_Quick_Check values other than Yes ("N" or "M"), derived
    as DerivedNormalizationProps.txt defines them (UAX #15 §9, Unicode §3.11):

    - No: the character cannot occur in the normal form, i.e. ``normalize(form, c) != c``
      (for NFC this is Full_Composition_Exclusion, which the caller checks against the UCD);
    - Maybe: the character can combine with a preceding one: the second character of the
      canonical decomposition of a primary composite (a character that NFC keeps), and
      the Hangul medial vowels and final consonants (Unicode §3.12), when not No.
    """
    maybe = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))
    for cp in range(MAX_CP + 1):
        if gc[cp] in ("Cn", "Cs"):
            continue
        dm = unicodedata2.decomposition(chr(cp))
        if not dm or dm.startswith("<"):
            continue
        parts = dm.split()
        if len(parts) == 2 and unicodedata2.normalize("NFC", chr(cp)) == chr(cp):
            maybe.add(int(parts[1], 16))
    out: list[dict[int, str]] = []
    for form in ("NFC", "NFKC"):
        qc = {cp: "M" for cp in maybe}
        for cp in range(MAX_CP + 1):
            if gc[cp] != "Cs" and unicodedata2.normalize(form, chr(cp)) != chr(cp):
                qc[cp] = "N"
        out.append(qc)
    return out[0], out[1]


def build(data: Any) -> dict[str, Any]:
    """Every table, as plain Python values."""
    gc = [unicodedata2.category(chr(cp)) for cp in range(MAX_CP + 1)]

    def where(pred: Callable[[int], bool]) -> set[int]:
        return {cp for cp in range(MAX_CP + 1) if pred(cp)}

    keys = ("DI", "WSpace", "Bidi_C", "Join_C", "VS", "NChar", "Ideo", "CWKCF", "Comp_Ex")
    ucd_flag: dict[str, set[int]] = {k: set() for k in keys}
    mongolian: set[int] = set()
    ccc_nonzero: set[int] = set()
    for cp in range(MAX_CP + 1):
        if gc[cp] in ("Cn", "Cs"):
            continue  # ucdinfo omits these; reserved defaults are added below
        for key in keys:
            if prop(data, cp, key):
                ucd_flag[key].add(cp)
        if prop(data, cp, "sc") == "Mong":
            mongolian.add(cp)
        if int(prop(data, cp, "ccc") or 0) != 0:
            ccc_nonzero.add(cp)
    assert ccc_nonzero == where(lambda cp: unicodedata2.combining(chr(cp)) != 0), "ccc differs"
    nfc_qc, nfkc_qc = quick_check(gc)
    assert {cp for cp in nfc_qc if nfc_qc[cp] == "N"} == ucd_flag["Comp_Ex"], (
        "NFC_Quick_Check=No must be Full_Composition_Exclusion (UAX #44)"
    )
    ucd_flag["DI"] |= expand(RESERVED_DEFAULT_IGNORABLE)
    # NChar: ucdinfo omits reserved code points, and noncharacters are reserved.
    nonchars = set(range(0xFDD0, 0xFDF0)) | {p | 0xFFFE for p in range(0, MAX_CP, 0x10000)}
    nonchars |= {p | 0xFFFF for p in range(0, MAX_CP, 0x10000)}
    ucd_flag["NChar"] |= nonchars

    # Disjoint categories, first match wins (the order is documented in categories.Category).
    taken: set[int] = set()
    cats: dict[str, tuple[tuple[int, int], ...]] = {}

    def claim(name: str, cps: set[int]) -> None:
        mine = cps - taken
        taken.update(mine)
        cats[name] = ranges(mine)

    claim("NUL", {0})
    claim("LINE_BREAK", set(LINE_BREAKS))
    claim("CONTROL", where(lambda cp: gc[cp] == "Cc") - {0x09})
    claim("PATH_SEPARATOR", set(PATH_SEPARATORS))
    claim("BIDI_CONTROL", ucd_flag["Bidi_C"] - set(BIDI_MARKS))
    claim("BIDI_MARK", set(BIDI_MARKS))
    claim("TAG", set(range(0xE0000, 0xE0080)))
    claim("VARIATION_SELECTOR", ucd_flag["VS"])
    claim("BOM", {0xFEFF})
    claim("JOINER", ucd_flag["Join_C"])
    claim("NONCHARACTER", ucd_flag["NChar"])
    claim("PRIVATE_USE", where(lambda cp: gc[cp] == "Co"))
    claim("SURROGATE", where(lambda cp: gc[cp] == "Cs"))
    claim("INVISIBLE", ucd_flag["DI"])
    claim("FORMAT", where(lambda cp: gc[cp] == "Cf"))
    claim("UNASSIGNED", where(lambda cp: gc[cp] == "Cn"))
    claim("WHITESPACE", ucd_flag["WSpace"])

    # Cross-checks of the two sources (UAX #44 derivations).
    derived_ws = where(lambda cp: gc[cp] in ("Zs", "Zl", "Zp")) | {*range(9, 14), 0x85}
    assert derived_ws == ucd_flag["WSpace"], "White_Space differs from Zs|Zl|Zp|TAB..CR|NEL"
    assert ucd_flag["Bidi_C"] == {
        cp
        for cp in range(0x2100)
        if unicodedata2.bidirectional(chr(cp))
        in ("LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI")
    } | set(BIDI_MARKS)

    marks = where(lambda cp: gc[cp][0] == "M")
    graphic = where(lambda cp: gc[cp][0] in "LNPS")
    emoji = where(lambda cp: gc[cp] in ("So", "Sm")) | set(EXTRA_EMOJI)
    emoji |= expand([EMOJI_MODIFIERS])

    # NFKC_Casefold (UAX #44 DerivedNormalizationProps): every CWKCF code point; the
    # Default_Ignorable ones map to "", stored as ranges to keep the table small.
    nfkc_cf: dict[int, str] = {}
    for cp in sorted(ucd_flag["CWKCF"]):
        nfkc_cf[cp] = prop(data, cp, "NFKC_CF") or ""
    erased = {cp for cp, v in nfkc_cf.items() if v == ""} | expand(RESERVED_DEFAULT_IGNORABLE)
    assert ucd_flag["DI"] <= erased, "NFKC_Casefold must erase every Default_Ignorable"
    pairs = {cp: v for cp, v in nfkc_cf.items() if v != ""}

    def nf_len(form: str) -> int:
        cps = (cp for cp in range(MAX_CP + 1) if gc[cp] != "Cs")
        return max(len(unicodedata2.normalize(form, chr(cp))) for cp in cps)

    return {
        "categories": cats,
        "marks": ranges(marks),
        "graphic": ranges(graphic),
        "emoji": ranges(emoji),
        "ideographic": ranges(ucd_flag["Ideo"]),
        "mongolian": ranges(mongolian),
        "default_ignorable": ranges(ucd_flag["DI"]),
        "nfkc_cf_erased": ranges(erased),
        "nfc_qc_not_yes": ranges(nfc_qc),
        "nfkc_qc_not_yes": ranges(nfkc_qc),
        "ccc_nonzero": ranges(ccc_nonzero),
        "nfkc_cf_pairs": pairs,
        "max_nfd": nf_len("NFD"),
        "max_nfkd": nf_len("NFKD"),
        "max_nfkc_cf": max(len(v) for v in pairs.values()),
    }


def _fmt_ranges(rngs: tuple[tuple[int, int], ...], indent: str = "    ") -> str:
    items = [f"(0x{lo:04X}, 0x{hi:04X})," for lo, hi in rngs]
    lines, line = [], indent
    for item in items:
        if len(line) + len(item) + 1 > 96:
            lines.append(line.rstrip())
            line = indent
        line += item + " "
    lines.append(line.rstrip())
    return "(\n" + "\n".join(x for x in lines if x.strip()) + "\n" + indent[:-4] + ")"


def render(tables: dict[str, Any]) -> str:
    out = [
        '"""Character tables for policies and identifiers. GENERATED: do not edit.',
        "",
        f"Unicode {unicodedata2.unidata_version}. Generated by tools/gen_chartables.py (run",
        "tools/generate.py) from",
        f"unicodedata2 {_dist_version('unicodedata2')} (general categories, normalization) and",
        "ucdinfo 0.3's UCD XML (UAX #42: DI, White_Space, Bidi_Control, Join_Control,",
        "Variation_Selector, Noncharacter_Code_Point, Ideographic, Script, NFKC_Casefold,",
        "Canonical_Combining_Class, Full_Composition_Exclusion as a check).",
        '"""',
        "",
        "# fmt: off",
        "from __future__ import annotations",
        "",
        f'UNICODE_VERSION = "{unicodedata2.unidata_version}"',
        "",
        "Ranges = tuple[tuple[int, int], ...]",
        "",
        "# Disjoint character categories, in priority order (first match wins).",
        "CATEGORIES: dict[str, Ranges] = {",
    ]
    for name, rngs in tables["categories"].items():
        out.append(f'    "{name}": {_fmt_ranges(rngs, "        ")},')
    out.append("}")
    for key, comment in (
        ("marks", "General_Category M (Mn, Mc, Me): what a combining run is made of."),
        ("graphic", "General_Category L, N, P, S: bases of standardized variation sequences."),
        ("emoji", "So, Sm, keycaps, emoji punctuation, skin tones: emoji ZWJ context (derived)."),
        ("ideographic", "Ideographic: bases of ideographic variation sequences (UTS #37)."),
        ("mongolian", "Script=Mongolian: bases of Mongolian free variation selectors."),
        ("default_ignorable", "Default_Ignorable_Code_Point (DerivedCoreProperties)."),
        ("nfkc_cf_erased", "Code points NFKC_Casefold maps to the empty string."),
        ("nfc_qc_not_yes", "NFC_Quick_Check No or Maybe (UAX #15 §9; derived, see generator)."),
        ("nfkc_qc_not_yes", "NFKC_Quick_Check No or Maybe (UAX #15 §9; derived)."),
        ("ccc_nonzero", "Canonical_Combining_Class != 0 (UCD XML, checked with unicodedata2)."),
    ):
        out += ["", f"# {comment}", f"{key.upper()}: Ranges = {_fmt_ranges(tables[key])}"]
    pairs = tables["nfkc_cf_pairs"]
    packed = ";".join(
        f"{cp:X}:{' '.join(f'{ord(c):X}' for c in v)}" for cp, v in sorted(pairs.items())
    )
    chunks = [packed[i : i + 88] for i in range(0, len(packed), 88)]
    out += [
        "",
        "# NFKC_Casefold for the other CWKCF code points, 'CP:HEX HEX;...' (parsed lazily).",
        "NFKC_CF_PACKED = (",
        *[f'    "{c}"' for c in chunks],
        ")",
        "",
        "# Longest single-code-point expansions (bounds for cheap length checks).",
        f"MAX_NFD_EXPANSION = {tables['max_nfd']}",
        f"MAX_NFKD_EXPANSION = {tables['max_nfkd']}",
        f"MAX_NFKC_CF_EXPANSION = {tables['max_nfkc_cf']}",
        "",
    ]
    return "\n".join(out)


def outputs() -> dict[Path, str]:
    """The generated file, by repo-relative path (the interface of ``tools/generate.py``)."""
    return {TARGET.relative_to(ROOT): render(build(load_ucd()))}
