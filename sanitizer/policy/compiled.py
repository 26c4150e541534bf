"""One compiled form per Policy: everything the fast paths derive from it, built once.

A ``Policy`` is plain frozen data.  What the scanners, the C fast path and
``sanitizer.web`` need from it (the categories scanned, the ASCII bytes that can never
be a finding, the C tables) is derived here, once per distinct policy, by the cached
``compile_policy``.  This module is the one internal API other packages of this project
may use (``sanitizer.web``); it is not part of the public API.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..chardata import Category
    from . import Policy

# The arguments after ``data`` of the C fast path ``_speedups.clean(data, *args)``:
# (stage1, stage2, policy tables, mark-run limit).
CArgs = tuple[bytes, bytes, bytes, int]


@dataclass(frozen=True, slots=True)
class CompiledPolicy:
    """What the fast paths need from one ``Policy`` (see ``compile_policy``)."""

    policy: Policy
    scanned: frozenset[Category]  # categories whose action is not IGNORE
    dropping: frozenset[Category]  # categories whose action is REJECT, STRIP or REPLACE
    ascii_allowed: bytes  # the ASCII bytes in no scanned category
    refused_values: frozenset[bytes]  # whole values with a finding: b"", b".", b".."
    # A check looks at the value as a whole (a byte or code-point limit, EMPTY,
    # DOT_SEGMENT): if not, a text passes iff each piece cut before an ASCII byte passes.
    judges_whole_values: bool
    # The C fast path's tables (None without the C extension): ``verdict_args`` flags what
    # refuses or changes text (sanitize, accepts); ``report_args`` flags every scanned
    # category (inspect lists ALLOW findings too).
    verdict_args: CArgs | None
    report_args: CArgs | None

    def ascii_clean(self, raw: bytes) -> bool:
        """True if ``raw`` is ASCII with nothing the policy scans for and within its
        limits: then ``raw`` decoded is its own clean text (no finding, no change)."""
        policy = self.policy
        if not raw.isascii() or (policy.max_bytes is not None and len(raw) > policy.max_bytes):
            return False
        if raw.translate(None, self.ascii_allowed) or raw in self.refused_values:
            return False
        return policy.max_code_points is None or len(raw) <= policy.max_code_points


@functools.lru_cache(maxsize=256)
def compile_policy(policy: Policy) -> CompiledPolicy:
    """The compiled form of ``policy`` (cached: policies are values)."""
    from . import _c_tables, _clean, _judges_whole_values

    policy_fast: Any = policy._fast
    verdict_args: CArgs | None = None
    report_args: CArgs | None = None
    if _clean is not None:
        from .._classtable import class_table

        table = class_table()
        tables, max_run = _c_tables(policy, report=False)
        verdict_args = (table.stage1, table.stage2, tables, max_run)
        tables, max_run = _c_tables(policy, report=True)
        report_args = (table.stage1, table.stage2, tables, max_run)
    return CompiledPolicy(
        policy=policy,
        scanned=policy._scanned,
        dropping=policy._strict,
        ascii_allowed=policy_fast.ascii_allowed,
        refused_values=policy_fast.refused_values,
        judges_whole_values=_judges_whole_values(policy),
        verdict_args=verdict_args,
        report_args=report_args,
    )
