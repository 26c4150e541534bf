"""``inspect(data, policy, encoding="utf-16")``: policies over UTF-16 and UTF-32 bytes.

The bytes are decoded strictly (``sanitizer._wide``): each ill-formed code unit is one
ILL_FORMED finding with its byte span, replaced by U+FFFD (or removed when the policy
strips ILL_FORMED); the policy then judges the text, and each finding's code-point
indices are mapped back to byte offsets in the caller's bytes, so every offset in the
report points into ``data`` as for UTF-8 input.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import replace

from .._arguments import exact_bytes
from .._categories import Category
from .._wide import WideError
from .._wide_codecs import codec
from ._model import Action, Finding, Policy, Report

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")  # two UTF-16 code units each (RFC 2781 §2.1)


class _ByteOffsets:
    """Code-point index in the decoded text -> byte offset in the encoded input."""

    def __init__(self, raw_len: int, unit: int, pieces: list[tuple[int, int, str]]) -> None:
        self.unit = unit
        self.text_starts = [t for t, _, _ in pieces]
        self.pieces = pieces
        self.raw_len = raw_len
        # UTF-16 only: where the astral characters of each piece are (2 units each)
        self.astral = [
            [m.start() for m in _ASTRAL.finditer(text)] if unit == 2 else []
            for _, _, text in pieces
        ]

    def __call__(self, index: int) -> int:
        k = max(0, bisect.bisect_right(self.text_starts, index) - 1)
        text_start, byte_start, text = self.pieces[k]
        within = min(index - text_start, len(text))
        extra = bisect.bisect_left(self.astral[k], within)  # astral characters before it
        return min(self.raw_len, byte_start + self.unit * (within + extra))


def inspect_encoded(
    data: object,
    policy: Policy,
    encoding: str,
    inspect_text: Callable[[str, Policy], Report],
) -> Report:
    """``inspect_text`` (the policy's ``inspect`` over str) on ``data`` decoded as
    ``encoding``, with byte offsets into ``data`` and ILL_FORMED findings."""
    if isinstance(data, str):
        raise TypeError("inspect() argument 'encoding' applies to bytes; str is already decoded")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(
            f"inspect() argument 'data' must be bytes or str, not {type(data).__name__}"
        )
    found, order = codec(encoding, "inspect")
    raw = exact_bytes(data, "data", "inspect")
    big, skip = found.resolve(raw, order, None, "inspect")
    errors: list[WideError] = found.find_errors(raw, byte_order=order)
    act = policy.actions[Category.ILL_FORMED]
    mark = "" if act is Action.STRIP else "\ufffd"
    name = found.name(big)
    pieces: list[tuple[int, int, str]] = []  # (text index, byte offset, well-formed text)
    parts: list[str] = []
    length, pos = 0, skip
    for err in [*errors, None]:
        end = len(raw) if err is None else err.start
        piece = raw[pos:end].decode(name)
        pieces.append((length, pos, piece))
        parts.append(piece)
        length += len(piece)
        if err is not None:
            parts.append(mark)
            length += len(mark)
            pos = err.end
    report = inspect_text("".join(parts), policy)
    offset = _ByteOffsets(len(raw), found.unit, pieces)
    findings = [replace(f, start=offset(f.start), end=offset(f.end)) for f in report.findings]
    if act is not Action.IGNORE:
        findings += [
            Finding(Category.ILL_FORMED, e.start, e.end, act, raw=e.sequence, detail=e.reason)
            for e in errors
        ]
    findings.sort(key=lambda f: (f.start, f.end))
    cap = policy.max_findings
    more, more_allowed = report.more_findings, report.more_allowed
    if cap is not None and len(findings) > cap:
        more += len(findings) - cap
        more_allowed += sum(f.action is Action.ALLOW for f in findings[cap:])
        findings = findings[:cap]
    ok = report.ok and not (errors and act is Action.REJECT)
    return Report(ok, report.text if ok else None, tuple(findings), policy, more, more_allowed)
