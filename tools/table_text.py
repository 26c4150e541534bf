"""How the generators write Python tables as text: items wrapped at 96 columns, and a
``Ranges`` assignment of (lo, hi) code point pairs.  One place, so every generated
module is laid out alike (tools/generate.py --check compares them byte for byte)."""

from __future__ import annotations

WIDTH = 96


def wrapped(items: list[str], indent: str = "    ") -> list[str]:
    """``items`` joined by spaces into lines of at most WIDTH columns, each indented."""
    lines, line = [], indent
    for item in items:
        if len(line) + len(item) + 1 > WIDTH:
            lines.append(line.rstrip())
            line = indent
        line += item + " "
    if line.strip():
        lines.append(line.rstrip())
    return lines


def ranges_assignment(name: str, rngs: tuple[tuple[int, int], ...]) -> list[str]:
    """``NAME: Ranges = (...)`` over ``rngs``, one ``(0xLO, 0xHI),`` item each."""
    items = [f"(0x{lo:04X}, 0x{hi:04X})," for lo, hi in rngs]
    return [f"{name}: Ranges = (", *wrapped(items), ")"]
