"""Generates ``_classtable_data``: the policy fast path's class table, stored.

Why a generated table: ``_classtable.build_class_table`` derives every code point's
class from ``sanitizer/_chartables.py`` in about 20 ms (more with the NFKC_Casefold table
it parses), which every ``sanitizer check --policy`` start would pay; loading this file
costs well under a millisecond.  It stores the table's two stages (zlib, base64: a few
KiB) and its class list, with the Unicode version, flags and categories it was made for;
``class_table`` builds the table instead when any of those differ.

Run: ``python -m sanitizer.policy._classtable_gen`` (rewrites the file) or ``--check``
(exit 1 when the file is stale), after ``tools/gen_chartables.py``; it lives in the
policy package because it reads that package's private class table builder.  Nothing
imports it at run time.  ``tests/test_classtable_data.py`` regenerates in memory and
compares.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import zlib
from array import array
from pathlib import Path

TARGET = Path(__file__).resolve().with_name("_classtable_data.py")
WIDTH = 88  # base64 characters per line


def _tuple(items: tuple[str, ...]) -> str:
    """``items`` as ruff format writes a short tuple of strings."""
    inner = ", ".join(json.dumps(i) for i in items)
    return f"({inner},)" if len(items) == 1 else f"({inner})"


def render() -> str:
    """The module's text, from the class table built the slow way."""
    from ..chardata import CHARACTER_CATEGORIES
    from ..charinfo import UNICODE_VERSION
    from . import _classtable as ct

    table = ct.build_class_table()
    stage1 = array("H", table.stage1)
    if sys.byteorder == "big":  # stored little-endian
        stage1.byteswap()
    packed = base64.b64encode(zlib.compress(stage1.tobytes() + table.stage2, 9)).decode()
    lines = [
        '"""The policy fast path\'s class table (``_classtable``), as generated data.',
        "",
        "Generated from sanitizer/_chartables.py by python -m sanitizer.policy._classtable_gen:",
        "do not edit.",
        '"""',
        "",
        "# What the table was made for: class_table() builds it instead if any differs.",
        f"UNICODE_VERSION = {json.dumps(UNICODE_VERSION)}",
        "FLAGS = (",
        *[f"    {json.dumps(f)}," for f in ct.FLAGS],
        ")",
        "CATEGORIES = (",
        *[f"    {json.dumps(c.value)}," for c in CHARACTER_CATEGORIES],
        ")",
        "",
        "# Class id -> (category value or None, flags).",
        "INFO = (",
        *[
            f"    ({'None' if cat is None else json.dumps(cat.value)}, "
            f"{_tuple(tuple(sorted(flags)))}),"
            for cat, flags in table.info
        ],
        ")",
        "",
        f"# zlib of stage1 ({ct.BLOCKS} little-endian uint16 block numbers) + stage2 "
        f"({len(table.stage2) >> 8} blocks), base64.",
        "PACKED = (",
        *[f'    "{packed[i : i + WIDTH]}"' for i in range(0, len(packed), WIDTH)],
        ")",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(
                f"{TARGET} is stale: run python -m sanitizer.policy._classtable_gen",
                file=sys.stderr,
            )
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
