"""The Unicode data the table generators read, read in one way and at one version.

Two sources: ucdinfo's bundled UCD in its XML form (UAX #42; ``ucdinfo==0.3`` is in the
``test`` extra) and the UCD, UTS #39 and UTS #51 files vendored in ``tools/unicode-18.0.0/``
(xz-compressed, listed with their sha256 in its README).  Both must be of
``UNICODE_VERSION``, the version of unicodedata2 the package normalizes with; a source of
another version stops the generator rather than mixing versions in one table.
"""

from __future__ import annotations

import lzma
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import unicodedata2

UNICODE_VERSION = "18.0.0"
DATA = Path(__file__).resolve().parent / f"unicode-{UNICODE_VERSION}"


def load_ucd() -> Any:
    """ucdinfo's bundled UCD, refusing any version other than ``UNICODE_VERSION`` (and a
    unicodedata2 of another version)."""
    if unicodedata2.unidata_version != UNICODE_VERSION:
        raise SystemExit(
            f"unicodedata2 has Unicode {unicodedata2.unidata_version}, the generators "
            f"{UNICODE_VERSION}"
        )
    try:
        from ucdinfo import ucd  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError as exc:  # pragma: no cover - tool dependency
        raise SystemExit("the generators need ucdinfo==0.3: pip install ucdinfo==0.3") from exc
    data = ucd._get_local_ucd()
    if data.metadata.get("ucdversion") != UNICODE_VERSION:
        raise SystemExit(f"ucdinfo has Unicode {data.metadata.get('ucdversion')}")
    return data


def prop(data: Any, cp: int, key: str) -> Any:
    """A property of ``cp`` from ucdinfo, or None for reserved code points it omits."""
    try:
        return data.get(cp, key)
    except (KeyError, IndexError):
        return None


def vendored_text(name: str) -> str:
    """The text of a vendored file (``name`` as in Unicode's data, e.g. "Scripts.txt"),
    after checking that its header is of ``UNICODE_VERSION`` (a ``Version: 18.0.0`` line,
    a ``Name-18.0.0.txt`` line, or an emoji file's ``Version: 18.0``)."""
    with lzma.open(DATA / f"{name}.xz", "rt", encoding="utf-8-sig") as fh:
        text = fh.read()
    head = text[:2000]
    stem = name.removesuffix(".txt")
    major_minor = UNICODE_VERSION.rsplit(".", 1)[0]
    if not any(
        marker in head
        for marker in (
            f"Version: {UNICODE_VERSION}",
            f"{stem}-{UNICODE_VERSION}.txt",
            f"Version: {major_minor}\n",
        )
    ):
        raise SystemExit(f"{name} is not of Unicode {UNICODE_VERSION}")
    return text


def data_lines(name: str) -> Iterator[list[str]]:
    """The data lines of a vendored file as lists of ';'-separated fields, comments and
    blank lines dropped (UAX #44 §4.2)."""
    for line in vendored_text(name).splitlines():
        body = line.split("#", 1)[0].strip()
        if body:
            yield [field.strip() for field in body.split(";")]


def code_range(field: str) -> tuple[int, int]:
    """``0041..005A`` or ``0041`` as an inclusive range."""
    lo, _, hi = field.partition("..")
    return int(lo, 16), int(hi or lo, 16)


def ranges(cps: Iterable[int]) -> tuple[tuple[int, int], ...]:
    """Code points as sorted, merged inclusive ranges."""
    out: list[list[int]] = []
    for cp in sorted(set(cps)):
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return tuple((lo, hi) for lo, hi in out)


def expand(rngs: Iterable[tuple[int, int]]) -> set[int]:
    """The code points of inclusive ranges."""
    return {cp for lo, hi in rngs for cp in range(lo, hi + 1)}
