"""One value, one name=value field, one form-encoded run of fields: the checks every part
of a request ends in, so that a query parameter, a form field and a cookie are judged
(and their problems worded) alike.

Each value is strictly decoded (RFC 3629 §3: ill-formed sequences are errors, never
"fixed") before its part's ``Policy`` looks at the characters.  Only REJECT findings
refuse: the middleware never rewrites.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from .._policy import inspect
from .._policy.compiled import CompiledPolicy
from ._grammar import charset_label
from ._percent import form_decode
from ._problems import Problem, from_finding, labelled, wrong_charset

if TYPE_CHECKING:
    from ._compiled_web import CompiledWebPolicy


def value_problem(
    raw: bytes | str, check: CompiledPolicy | None, part: str, where: str, base: int = 0
) -> Problem | None:
    """The first REJECT finding of ``check``'s policy on ``raw`` as a Problem, or None."""
    if check is None or (type(raw) is bytes and check.ascii_clean(raw)):
        return None
    if check.fast_sanitize(raw) is not None:
        return None  # (the fast paths: no engine run)
    report = inspect(raw, check.policy)  # the one engine run, which names the problem
    if report.ok:
        return None
    return from_finding(report.rejections[0], part, where, base)


def field_problem(
    name: bytes,
    value: bytes,
    number: int,
    what: str,
    compiled: CompiledWebPolicy,
    values: CompiledPolicy | None,
    part: str,
) -> Problem | None:
    """Check one decoded name and value (``what``: "query parameter", "form field")."""
    names = compiled.names
    if names is not None and not names.ascii_clean(name):
        problem = value_problem(name, names, part, f"name of {what} #{number}")
        if problem is not None:
            return problem
    if values is None or values.ascii_clean(value):
        return None
    return value_problem(value, values, part, labelled(what, name, number))


def pairs_problem(
    data: bytes,
    compiled: CompiledWebPolicy,
    values: CompiledPolicy | None,
    what: str,
    part: str,
    first: int = 1,
    decoded: bytes | None = None,
) -> tuple[Problem | None, int]:
    """Check application/x-www-form-urlencoded ``data`` (a query string or body): each
    name and value after '+' and percent-decoding (WHATWG URL §5.1).  Returns the problem
    and the number of the next field.  ``decoded``: ``data`` decoded already
    (``bulk_decoded``), used as it is when no escape in it spelled a separator."""
    number = first
    if decoded is not None and (
        decoded.count(b"&") != data.count(b"&") or decoded.count(b"=") != data.count(b"=")
    ):
        decoded = None  # %26 or %3D: the decoded run no longer splits where the raw one does
    # Decoding is local ('+', %XX, and an escape never spans '&' or '='): with every '&'
    # and '=' literal, the decoded run's fields are the raw fields decoded.
    for pair in (data if decoded is None else decoded).split(b"&"):
        if not pair:
            continue
        name, _, value = pair.partition(b"=")
        if decoded is None:
            name, value = form_decode(name), form_decode(value)
        problem = field_problem(name, value, number, what, compiled, values, part)
        if problem is not None:
            return problem, number
        number += 1
    return None, number


def charset_problem(
    compiled: CompiledWebPolicy,
    params: Mapping[str, str],
    where: str,
    part: str,
    sample: bytes = b"",
) -> Problem | None:
    """A charset parameter other than the policy's ``charsets`` (HOWTO §5.9.1);
    ``sample``: the bytes it labels, when at hand (an RFC 8187 ext-value), whose UTF-7
    spelling the detail shows (``_problems.with_sample``)."""
    charset = params.get("charset")
    if charset is None or charset_label(charset) in compiled.policy.charsets:
        return None
    return wrong_charset(part, where, charset_label(charset), sample)
