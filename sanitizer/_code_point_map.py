"""Maps code point -> string applied to a whole string in one call, and how the generated
tables store them.

The look-alike skeletons and keys (UTS #39) and the PRECIS case and width mappings
(RFC 8264 §9) each replace code points by strings.  A generator writes such a map as
three strings (``sources``, one base-36 ``lengths`` digit per source, ``values``);
``CodePointMap`` holds it with native offsets; ``mapper`` applies it in C
(``_speedups.map_code_points``) when the extension is built, else with ``str.translate``
over a ``TranslateTable`` (the same map, tested equal).
"""

from __future__ import annotations

import array
import functools
import itertools
from collections.abc import Callable
from typing import NamedTuple

from ._native import speedups

_LENGTH_DIGITS = bytes.maketrans(b"0123456789abcdefghijklmnopqrstuvwxyz", bytes(range(36)))


class CodePointMap(NamedTuple):
    """A map code point -> str: ``sources`` in code point order, and the value of
    ``sources[i]`` is ``values[offsets[i]:offsets[i + 1]]`` (``offsets``: native uint32,
    one more than there are sources)."""

    sources: str
    offsets: array.array[int]
    values: str

    @classmethod
    def parse(cls, sources: str, lengths: str, values: str) -> CodePointMap:
        """From a generator's strings (``lengths``: one base-36 digit per source)."""
        sizes = lengths.encode("ascii").translate(_LENGTH_DIGITS)
        offsets = array.array("I", itertools.accumulate(sizes, initial=0))
        assert offsets.itemsize == 4 and len(offsets) == len(sources) + 1 == len(sizes) + 1
        assert offsets[-1] == len(values)
        return cls(sources, offsets, values)

    @classmethod
    def of(cls, table: dict[int, str]) -> CodePointMap:
        """From a dict code point -> value."""
        items = sorted(table.items())
        sizes = (len(value) for _, value in items)
        offsets = array.array("I", itertools.accumulate(sizes, initial=0))
        return cls("".join(chr(cp) for cp, _ in items), offsets, "".join(v for _, v in items))

    def table(self) -> dict[int, str]:
        """The map as a dict (a ``str.translate`` table)."""
        values, ends = self.values, self.offsets
        return {
            ord(source): values[start:end]
            for source, start, end in zip(self.sources, ends, ends[1:])  # noqa: B905
        }

    def native(self) -> tuple[str, bytes, bytes, str]:
        """The map as the C extension takes it: (sources, index, offsets, values)."""
        assert speedups is not None
        index = speedups.index_code_points(self.sources)
        return self.sources, index, self.offsets.tobytes(), self.values


class TranslateTable(dict[int, "str | int"]):
    """A ``str.translate`` table that also remembers the code points it leaves alone.

    ``str.translate`` pays for a missing key with a KeyError it catches; mapping each
    unmapped code point seen to itself makes later lookups plain dict hits.  At most
    ``extra`` such entries are kept (then the table starts again from ``base``); a lookup
    racing with that reset reaches ``__missing__``, which answers from ``base``, so the
    result never depends on timing."""

    def __init__(self, base: dict[int, str], extra: int = 8192) -> None:
        super().__init__(base)
        self._base = base
        self._limit = len(base) + extra

    def __missing__(self, cp: int) -> str | int:
        value: str | int = self._base.get(cp, cp)
        if len(self) >= self._limit:
            self.clear()
            self.update(self._base)
        self[cp] = value
        return value


def mapper(codepoints: CodePointMap) -> Callable[[str], str]:
    """``s -> s`` with every code point of ``codepoints.sources`` replaced by its value:
    in C when the extension is built, else by ``str.translate``."""
    if speedups is not None:
        return functools.partial(speedups.map_code_points, *codepoints.native())
    table = TranslateTable(codepoints.table())

    def translate(s: str) -> str:
        return s.translate(table)

    return translate
