"""One value, one name=value field, one form-encoded run of fields: the checks every part
of a request ends in, so that a query parameter, a form field and a cookie are judged
(and their problems worded) alike.

Each value is strictly decoded (RFC 3629 §3: ill-formed sequences are errors, never
"fixed") before its part's ``Policy`` looks at the characters.  Only REJECT findings
refuse: the middleware never rewrites.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .._policy import Policy, accepts
from .._policy.compiled import CompiledPolicy
from ._grammar import charset_label
from ._percent import form_decode
from ._problems import Problem, first_rejection, from_finding, labelled, wrong_charset

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
    first = first_rejection(raw, check.policy)  # the engine, which names the problem
    return None if first is None else from_finding(first, part, where, base)


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
    and the number of the next field (of the one refused, with a problem).  ``decoded``:
    ``data`` decoded already (``bulk_decoded``).  Many fields are judged in runs
    (``_runs_problem``), a few one by one (``fields_problem``): the same answer."""
    names = compiled.names
    if data.count(b"&") >= _RUNS_FROM and _judged_in_runs(names) and _judged_in_runs(values):
        return _runs_problem(data, compiled, values, what, part, first)
    return fields_problem(data, compiled, values, what, part, first, decoded)


def fields_problem(
    data: bytes,
    compiled: CompiledWebPolicy,
    values: CompiledPolicy | None,
    what: str,
    part: str,
    first: int = 1,
    decoded: bytes | None = None,
) -> tuple[Problem | None, int]:
    """``pairs_problem`` field by field: each name and value judged alone."""
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


# The separators from which a form is judged in runs: with fewer fields, one by one
# costs less.
_RUNS_FROM = 8
# In b"&" + data: each field's '&', name and '=' (what its value follows), and each
# field's '=' and value (what its name precedes).
_FIELD_HEAD = re.compile(rb"&[^&=]*=?")
_FIELD_VALUE = re.compile(rb"=[^&]*")
_AMP = ord("&")


def _judged_in_runs(check: CompiledPolicy | None) -> bool:
    """Whether ``check`` passes a run of values, each after a '&', iff it passes each
    value: it judges no whole value (a limit, '' or '.': ``judges_whole_values``), and
    '&' is none of its findings (an edit of it would join two values).  Then the run
    passes iff each piece cut before a '&' passes (see ``_text.TextStream``), and a '&'
    before a value is no context any check reads: it composes with nothing and begins no
    sequence (UAX #15, UTS #51), as the start of a value begins none."""
    return check is None or (not check.judges_whole_values and _AMP in check.ascii_allowed)


def _runs_problem(
    data: bytes,
    compiled: CompiledWebPolicy,
    values: CompiledPolicy | None,
    what: str,
    part: str,
    first: int,
) -> tuple[Problem | None, int]:
    """``pairs_problem`` for many fields, in one policy call a policy when they pass
    (Python work per field would make a form of short words cost hundreds of times its
    clean twin).  First the fields with each '=' made a '&', decoded: a run of pieces
    each after a '&', that passes iff each piece does (a name; a value, or the parts of
    one a '=' cuts, which pass after a '=' if they pass after a '&').  Else the names,
    each after a '&', are one run, the values another (``_FIELD_HEAD``); a run that
    fails is halved until the first field that fails alone is found
    (``_first_refused``), which ``field_problem`` names as the field-by-field check does."""
    whole = form_decode(data.replace(b"=", b"&"))
    found = None  # the index of the first field that fails, among data.split(b"&")
    if values is not None and not accepts(whole, values.policy):
        found = _first_refused(_FIELD_HEAD.sub(b"&", b"&" + data), values.policy)
    names = compiled.names
    if names is not None and found != 0 and not accepts(whole, names.policy):
        named = _first_refused(_FIELD_VALUE.sub(b"", b"&" + data), names.policy)
        if named is not None and (found is None or named < found):
            found = named
    if found is None and not (b"&&" in data or data[:1] == b"&" or data[-1:] == b"&"):
        return None, first + data.count(b"&") + 1  # (no empty field)
    fields = data.split(b"&")
    if found is None:
        return None, first + len(fields) - fields.count(b"")
    number = first + found - fields[:found].count(b"")
    name, _, value = fields[found].partition(b"=")
    name, value = form_decode(name), form_decode(value)
    problem = field_problem(name, value, number, what, compiled, values, part)
    if problem is None:  # (never: each of its name and value was judged alone, as here)
        return fields_problem(data, compiled, values, what, part, first)
    return problem, number


def _first_refused(run: bytes, policy: Policy) -> int | None:
    """The index of the first piece of ``run`` (b"&" and a form-encoded piece, again and
    again) that ``policy`` refuses alone, once decoded; None if none does.  Stretches of
    pieces from the start, each twice as long as the last (from ``_FIRST_STRETCH``
    bytes), are passed whole until one fails; that one is halved, down to single pieces
    judged alone.  So a refusal costs a few policy calls over twice the prefix read to
    find it, and a run whose every piece passes a few over the run."""
    start, size, n = 0, _FIRST_STRETCH, len(run)
    while start < n:
        end = run.find(b"&", start + size)
        end = n if end < 0 else end
        if not accepts(form_decode(run[start:end]), policy):
            found = _first_in(run, start, end, policy)
            if found is not None:
                return found
        start, size = end, 2 * size
    return None


_FIRST_STRETCH = 64  # bytes of the first stretch _first_refused judges whole


def _first_in(run: bytes, start: int, end: int, policy: Policy) -> int | None:
    """``_first_refused`` within ``run[start:end]``, a stretch of pieces that fails."""
    stack = [(start, end)]
    counted, index = 0, 0  # the pieces before run[counted]
    known = True  # (the stretch on top of the stack fails: the caller judged it)
    while stack:
        start, end = stack.pop()
        if not known and accepts(form_decode(run[start:end]), policy):
            continue
        known = False
        half = (start + end) // 2
        cut = run.find(b"&", half, end)
        if cut <= start:
            cut = run.rfind(b"&", start + 1, half)
        if cut > start:  # the first half first
            stack += ((cut, end), (start, cut))
            continue
        index += run.count(b"&", counted, start)
        counted = start
        if not accepts(form_decode(run[start + 1 : end]), policy):
            return index
    return None


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
