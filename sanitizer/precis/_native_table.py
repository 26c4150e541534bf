"""The table ``precis_enforce`` (sanitizer/_native_src/precis.c) reads: a uint32 per code
point in two stages (a uint16 block number per 256 code points, then the distinct
blocks), built on first use from the generated Unicode 18 data, to the bit layout
``precis_layout()`` states.

Built a field at a time (one byte per code point, painted range by range), the fields
put together as whole-plane integers and interleaved by slice assignment, so building
costs milliseconds, not a Python step per code point.
"""

from __future__ import annotations

import array
import sys
from collections.abc import Iterable

from .._categories import CCC_NONZERO, NFC_QC_NOT_YES, NFKC_QC_NOT_YES
from .._native import speedups
from . import _lookups
from . import _precis_data as _d

N = _lookups.MAX_CP + 1
Ranges = _lookups.Ranges


def _plane(painted: Iterable[tuple[Ranges, int]]) -> int:
    """One byte per code point (each range's value), as a little-endian int."""
    plane = bytearray(N)
    for ranges, value in painted:
        for lo, hi in ranges:
            plane[lo : hi + 1] = bytes([value]) * (hi - lo + 1)
    return int.from_bytes(plane, "little")


def build() -> tuple[bytes, bytes, dict[str, object]]:
    """(stage1, stage2, layout) for ``speedups.precis_enforce``."""
    assert speedups is not None
    layout: dict[str, object] = speedups.precis_layout()

    def at(name: str) -> int:
        value = layout[name]
        assert isinstance(value, int)
        return value

    assert at("KINDS") == len(_d.DERIVED_KINDS) == at("KIND_MASK") + 1
    ends = [*_d.DERIVED_STARTS[1:], N]
    runs = zip(_d.DERIVED_STARTS, ends, _d.DERIVED_RUNS)  # noqa: B905 - one end per start
    flag = {
        "WIDTH": _lookups.ranges_of(_lookups.WIDTH),
        "SPACE": _lookups.SPACES,
        "LOWER": _lookups.ranges_of(_lookups.lower_table()),
        "FOLD": _lookups.ranges_of(_lookups.fold_table()),
        "NFC": _lookups.merge([*NFC_QC_NOT_YES, *CCC_NONZERO]),
        "NFKC": _lookups.merge([*NFKC_QC_NOT_YES, *CCC_NONZERO]),
        "VIRAMA": _lookups.VIRAMA,
        "CASED": _d.CASED,
        "CASE_IGNORABLE": _d.CASE_IGNORABLE,
    }
    # (first bit, widest value, the planes painted)
    fields: list[tuple[int, int, Iterable[tuple[Ranges, int]]]] = [
        (0, at("KIND_MASK"), ((((lo, end - 1),), run) for lo, end, run in runs)),
        (
            at("BIDI_SHIFT"),
            7,
            ((ranges, at(f"G_{name}")) for name, ranges in _lookups.BIDI_GROUPS.items()),
        ),
        (
            at("JOIN_SHIFT"),
            7,
            (
                (_lookups.JOINING_DUAL, at("J_D")),
                (_lookups.JOINING_RIGHT, at("J_R")),
                (_lookups.JOINING_LEFT, at("J_L")),
                (_lookups.JOINING_TRANSPARENT, at("J_T")),
            ),
        ),
        (
            at("SCRIPT_SHIFT"),
            3,
            (
                (_lookups.GREEK, at("S_GREEK")),
                (_lookups.HEBREW, at("S_HEBREW")),
                (_lookups.HIRAGANA_KATAKANA_HAN, at("S_HIRAGANA_KATAKANA_HAN")),
            ),
        ),
        *[(at(name).bit_length() - 1, 1, ((ranges, 1),)) for name, ranges in flag.items()],
    ]
    lanes = [0, 0, 0, 0]  # byte k of every entry, as an int of one byte per code point
    for first, widest, painted in fields:
        lane, shift = divmod(first, 8)
        assert widest << shift < 256, "a field must not cross a byte"
        lanes[lane] |= _plane(painted) << shift
    order = range(4) if sys.byteorder == "little" else range(3, -1, -1)
    table = bytearray(4 * N)
    for position, lane in zip(order, lanes):  # noqa: B905 - four each
        table[position::4] = lane.to_bytes(N, "little")
    blocks: dict[bytes, int] = {}
    stage1 = array.array("H")
    for b in range(N // 256):
        stage1.append(blocks.setdefault(bytes(table[b * 1024 : (b + 1) * 1024]), len(blocks)))
    assert len(stage1) == at("STAGE1_ENTRIES") and stage1.itemsize == 2
    return stage1.tobytes(), b"".join(blocks), layout
