"""One compiled form per ``WebPolicy``: what the checks derive from it, built once.

A ``WebPolicy`` is plain configuration.  The checks need more: each part's
``CompiledPolicy`` (its ASCII fast path and C tables), the *bulk groups* that pass a
whole query string, all headers or all cookies at once, and the C arguments of the fast
head check.  ``compile_web_policy`` builds them on first use of a policy and keeps them,
mirroring ``sanitizer._policy.compiled``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .._identity_cache import IdentityCache
from .._policy import Action, Policy
from .._policy.compiled import CArgs, CompiledPolicy, compile_policy
from ._config import WebPolicy
from ._percent import form_decode


@dataclass(frozen=True, slots=True)
class Bulk:
    """How to pass a run of values at once (form-encoded names and values with their
    '&' and '=', once decoded; header values; cookie pairs): it passes every policy of the
    group if it holds only ``allowed`` ASCII bytes (one bytes.translate), or else if each
    policy's fast path (``CompiledPolicy.fast_sanitize``) passes the whole run.  Valid
    because the separators are ASCII: cutting text before an ASCII byte never changes a
    verdict (see _text.TextStream), and none of these policies judges whole values.  Any
    other run is checked value by value, which names the culprit: the policy engine runs
    once, on the values the fast paths cannot pass, never on the run first."""

    allowed: bytes
    policies: tuple[Policy, ...]
    checks: tuple[CompiledPolicy, ...]  # the policies, compiled
    # The C fast path's arguments for each policy (None without the C extension).
    c_args: tuple[CArgs, ...] | None

    def passes(self, data: bytes) -> bool:
        """``data`` (decoded already, where its part is encoded) passes at once."""
        if not data.translate(None, self.allowed):
            return True
        return all(check.fast_sanitize(data) is not None for check in self.checks)


def bulk_decoded(data: bytes, bulk: Bulk | None) -> tuple[bool, bytes | None]:
    """A form-encoded run, decoded once ('+' and %XX, WHATWG URL §5.1): whether ``bulk``
    passes it at once, and the decoded run (None without a bulk), which the value-by-value
    check reuses (``_value_checks.pairs_problem``)."""
    if bulk is None:
        return False, None
    decoded = form_decode(data)
    return bulk.passes(decoded), decoded


def _bulk(*group: Policy | None) -> Bulk | None:
    """The Bulk check for a group of policies, or None if one of them judges whole values
    (limits, '.', ''): then values must be checked one by one."""
    policies = tuple(dict.fromkeys(p for p in group if p is not None))
    # One inspect suffices where one policy is stricter than the other (SINGLE_LINE, TEXT).
    policies = tuple(p for p in policies if not any(_stricter(q, p) for q in policies))
    allowed = set(range(0x80))
    c_args: list[CArgs] | None = []
    checks = tuple(compile_policy(policy) for policy in policies)
    for compiled in checks:
        if compiled.judges_whole_values:
            return None
        allowed &= set(compiled.ascii_allowed)
        if compiled.verdict_args is None:
            c_args = None
        elif c_args is not None:
            c_args.append(compiled.verdict_args)
    return Bulk(bytes(sorted(allowed)), policies, checks, None if c_args is None else tuple(c_args))


def _stricter(a: Policy, b: Policy) -> bool:
    """``a`` differs from ``b`` only by refusing more categories, so text ``a`` passes
    ``b`` passes too: with no character of those categories, both run alike."""
    return (
        a is not b
        and (a.max_combining, a.normalization, a.also_check, a.allow_sequences, a.joiner_contexts)
        == (b.max_combining, b.normalization, b.also_check, b.allow_sequences, b.joiner_contexts)
        and all(act is b.actions[c] or act is Action.REJECT for c, act in a.actions.items())
        and a.actions != b.actions
    )


class FastGroup(NamedTuple):
    """One group of the fast head check: a value passes if it is ASCII made of
    ``allowed`` bytes (Bulk.allowed: no policy of the group scans them), or else if
    ``speedups.clean`` finds it clean under each policy (``c_args``); with no ``c_args``,
    only such ASCII passes (header values and cookies: frameworks read their other bytes
    as Latin-1, so the full check decides)."""

    allowed: bytes  # for bytes.translate (fast_head_py)
    flags: bytes  # the same as 128 flags, 1 = allowed (webhead.c)
    c_args: tuple[CArgs, ...]


# The fast head check's groups: path, query, headers, cookies.
FastHeadArgs = tuple[FastGroup, FastGroup, FastGroup, FastGroup]


@dataclass(frozen=True, slots=True)
class CompiledWebPolicy:
    """What the checks need from one ``WebPolicy`` (see ``compile_web_policy``)."""

    policy: WebPolicy
    # Each part's compiled policy, None where the part is not checked.
    path: CompiledPolicy | None
    names: CompiledPolicy | None
    query: CompiledPolicy | None
    headers: CompiledPolicy | None
    cookies: CompiledPolicy | None
    form: CompiledPolicy | None
    filenames: CompiledPolicy | None
    json: CompiledPolicy | None
    text: CompiledPolicy | None
    websocket: CompiledPolicy | None
    # The bulk groups (None: some policy of the group judges whole values).
    query_bulk: Bulk | None  # names and query values
    cookie_bulk: Bulk | None  # names and cookie values
    header_bulk: Bulk | None  # header values
    form_bulk: Bulk | None  # names and form values
    # The C arguments of _head.fast_head, or None when it cannot apply (no C extension,
    # a part switched off, a policy that judges whole values, untyped_body).
    fast_head_args: FastHeadArgs | None


def _compiled(policy: Policy | None) -> CompiledPolicy | None:
    return None if policy is None else compile_policy(policy)


# Which fast groups (path, query, headers, cookies) pass ASCII only (see FastGroup).
_ASCII_ONLY = (False, False, True, True)


def _fast_head_args(policy: WebPolicy, groups: tuple[Bulk | None, ...]) -> FastHeadArgs | None:
    if policy.untyped_body is not None:
        return None
    out = []
    for group, ascii_only in zip(groups, _ASCII_ONLY, strict=True):
        if group is None or not group.policies or group.c_args is None:
            return None
        flags = bytes(c in group.allowed for c in range(0x80))
        out.append(FastGroup(group.allowed, flags, () if ascii_only else group.c_args))
    path, query, headers, cookies = out
    return path, query, headers, cookies


def _compile(policy: WebPolicy) -> CompiledWebPolicy:
    query_bulk = _bulk(policy.names, policy.query)
    cookie_bulk = _bulk(policy.names, policy.cookies)
    header_bulk = _bulk(policy.headers)
    path_bulk = _bulk(policy.path) if policy.path is not None else None
    return CompiledWebPolicy(
        policy=policy,
        path=_compiled(policy.path),
        names=_compiled(policy.names),
        query=_compiled(policy.query),
        headers=_compiled(policy.headers),
        cookies=_compiled(policy.cookies),
        form=_compiled(policy.form),
        filenames=_compiled(policy.filenames),
        json=_compiled(policy.json),
        text=_compiled(policy.text),
        websocket=_compiled(policy.websocket),
        query_bulk=query_bulk,
        cookie_bulk=cookie_bulk,
        header_bulk=header_bulk,
        form_bulk=_bulk(policy.names, policy.form),
        fast_head_args=_fast_head_args(policy, (path_bulk, query_bulk, header_bulk, cookie_bulk)),
    )


# Keyed by identity: a dict lookup per request, where hashing a WebPolicy would hash
# nine Policies.
_BY_IDENTITY: IdentityCache[CompiledWebPolicy] = IdentityCache(64)
_lookup = _BY_IDENTITY.lookup  # a global: one load per request, not a slot's


def compile_web_policy(policy: WebPolicy) -> CompiledWebPolicy:
    """The compiled form of ``policy`` (cached per policy object)."""
    compiled = _lookup(id(policy))
    if compiled is not None:
        return compiled
    if not isinstance(policy, WebPolicy):
        kind = type(policy).__qualname__
        raise TypeError(f"policy must be a sanitizer.web.WebPolicy, not {kind}")
    return _BY_IDENTITY.store(policy, _compile(policy))
