"""Generate ``sanitizer/_policy/_sequences_data.py``: sequences ``reveal`` never reports.

Why generated: ``sanitizer.reveal`` tells a hidden payload from a legitimate sequence by
the Unicode registries -- a variation selector VS1..VS16 after a base it has a registered
sequence with (StandardizedVariants.txt; emoji-variation-sequences.txt, UTS #51 §1.4.3)
and an emoji tag sequence that is RGI (emoji-sequences.txt, UTS #51 ED-14a, Annex C) --
and a selector VS17..VS256 after an ideograph it has a registered ideographic variation
sequence with (the Ideographic Variation Database, UTS #37).  None of these lists is in
unicodedata2, so this script reads them once from the files vendored in
``tools/unicode-18.0.0/`` and ``tools/ivd-2022-09-13/`` (see their README.md) and writes
them as literals, with the Unicode and IVD versions they come from.

Run: ``python tools/generate.py sequences`` (rewrites the file) or ``--check`` (exit 1
when it is stale; tests/suites/test_generated_files.py runs it).  ``outputs()`` is the
generator's whole result (repo-relative path -> text).
"""

from __future__ import annotations

import lzma
from pathlib import Path

from unicode_sources import UNICODE_VERSION, data_lines, ranges

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path("sanitizer") / "_policy" / "_sequences_data.py"
SELECTORS = range(0xFE00, 0xFE10)  # VS1..VS16: the selectors a registered base may take
TAG_BASE, CANCEL_TAG = 0x1F3F4, 0xE007F  # UTS #51 ED-14a: tag_base ... tag_term
IVD_VERSION = "2022-09-13"
IVD = Path(__file__).resolve().parent / f"ivd-{IVD_VERSION}" / "IVD_Sequences.txt.xz"
IDEOGRAPHIC_SELECTORS = range(0xE0100, 0xE01F0)  # VS17..VS256, the IVS selectors (UTS #37)


def variation_sequences() -> dict[int, list[tuple[int, int]]]:
    """VS1..VS16 -> the sorted, coalesced ranges of bases with a registered sequence."""
    bases: dict[int, set[int]] = {vs: set() for vs in SELECTORS}
    for name in ("StandardizedVariants.txt", "emoji-variation-sequences.txt"):
        for fields in data_lines(name):
            points = [int(h, 16) for h in fields[0].split()]
            if len(points) != 2:
                raise SystemExit(f"{name}: not a base and a selector: {fields!r}")
            base, selector = points
            if selector in bases:
                bases[selector].add(base)
            elif not 0x180B <= selector <= 0x180F:  # Mongolian FVS: not a byte carrier
                raise SystemExit(f"{name}: unexpected selector U+{selector:04X}")
    return {selector: list(ranges(bases_of)) for selector, bases_of in bases.items()}


def ideographic_variation_sequences() -> dict[int, list[tuple[int, int]]]:
    """VS17..VS256 -> the sorted, coalesced ranges of bases it has a registered ideographic
    variation sequence with (IVD_Sequences.txt: ``base selector; collection; item``, one
    line per sequence and collection); selectors without any are left out."""
    with lzma.open(IVD, "rt", encoding="utf-8-sig") as fh:
        text = fh.read()
    if f"release {IVD_VERSION}" not in text[:2000] and f"Date: {IVD_VERSION}" not in text[:2000]:
        raise SystemExit(f"{IVD.name} is not IVD release {IVD_VERSION}")
    bases: dict[int, set[int]] = {}
    for line in text.splitlines():
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        points = [int(h, 16) for h in body.split(";")[0].split()]
        if len(points) != 2 or points[1] not in IDEOGRAPHIC_SELECTORS:
            raise SystemExit(f"{IVD.name}: not an ideograph and VS17..VS256: {line!r}")
        bases.setdefault(points[1], set()).add(points[0])
    if not bases:
        raise SystemExit(f"{IVD.name}: no sequence")
    return {selector: list(ranges(bases[selector])) for selector in sorted(bases)}


def rgi_tag_specs() -> list[str]:
    """The tag_spec of every RGI emoji tag sequence, as the ASCII its tags copy."""
    specs = []
    for fields in data_lines("emoji-sequences.txt"):
        points_text, kind = fields[:2]
        if kind != "RGI_Emoji_Tag_Sequence":
            continue
        points = [int(h, 16) for h in points_text.split()]
        if points[0] != TAG_BASE or points[-1] != CANCEL_TAG:
            raise SystemExit(f"emoji-sequences.txt: not a flag tag sequence: {fields!r}")
        specs.append("".join(chr(cp - 0xE0000) for cp in points[1:-1]))
    if not specs:
        raise SystemExit("emoji-sequences.txt: no RGI_Emoji_Tag_Sequence")
    return sorted(specs)


def _ranges_literal(ranges: list[tuple[int, int]]) -> list[str]:
    """``ranges`` as lines of text: hex code points, ``lo-hi`` for a range, separated by
    spaces (parsed once, on first use: a tuple of tuples per selector would be 1,700
    lines of ruff-formatted source)."""
    tokens = [f"{lo:04X}" if lo == hi else f"{lo:04X}-{hi:04X}" for lo, hi in ranges]
    lines: list[str] = []
    for token in tokens:
        if lines and len(lines[-1]) + len(token) < 78:
            lines[-1] += " " + token
        else:
            lines.append(token)
    return lines


def _selector_dict(sequences: dict[int, list[tuple[int, int]]]) -> list[str]:
    """The entries of a dict literal: selector -> its bases as ``_ranges_literal`` lines."""
    lines: list[str] = []
    for selector, bases in sequences.items():
        parts = _ranges_literal(bases)
        if len(parts) <= 1:  # ruff format's layout: a 1-tuple stays on one line
            inner = f'"{parts[0]}",' if parts else ""
            lines.append(f"    0x{selector:04X}: ({inner}),")
            continue
        lines.append(f"    0x{selector:04X}: (")
        lines.extend(f'        "{part}",' for part in parts)
        lines.append("    ),")
    return lines


def render() -> str:
    lines = [
        '"""The registered variation sequences and RGI emoji tag sequences, as generated data.',
        "",
        "GENERATED by tools/gen_sequences.py (run tools/generate.py) from",
        f"tools/unicode-18.0.0/ (Unicode {UNICODE_VERSION}) and tools/ivd-{IVD_VERSION}/",
        f"(Ideographic Variation Database {IVD_VERSION}): do not edit.",
        "Read by sanitizer/_policy/_reveal.py: what it never reports as a hidden payload.",
        '"""',
        "",
        f'UNICODE_VERSION = "{UNICODE_VERSION}"',
        f'IVD_VERSION = "{IVD_VERSION}"',
        "",
        "# VS1..VS16 -> the bases it has a registered sequence with (StandardizedVariants.txt,",
        "# emoji-variation-sequences.txt; UTS #51 §1.4.3): hex code points, lo-hi for a range,",
        "# in lines of text.",
        "VARIATION_SEQUENCES: dict[int, tuple[str, ...]] = {",
        *_selector_dict(variation_sequences()),
        "}",
        "",
        "# VS17..VS256 -> the ideographs it has a registered ideographic variation sequence",
        "# with (IVD_Sequences.txt, UTS #37), in the same form; a selector without any is",
        "# left out.",
        "IDEOGRAPHIC_VARIATION_SEQUENCES: dict[int, tuple[str, ...]] = {",
        *_selector_dict(ideographic_variation_sequences()),
        "}",
        "",
        "# The tag_spec of each RGI emoji tag sequence (emoji-sequences.txt), as the ASCII its",
        "# tag characters copy: U+1F3F4, these tags, U+E007F CANCEL TAG (UTS #51 ED-14a).",
        "RGI_TAG_SPECS: tuple[str, ...] = (",
        *[f'    "{spec}",' for spec in rgi_tag_specs()],
        ")",
        "",
    ]
    return "\n".join(lines)


def outputs() -> dict[Path, str]:
    """Repo-relative path -> the exact text this generator writes there."""
    return {TARGET: render()}
