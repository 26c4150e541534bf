"""What the web middleware checks in a request, decided without I/O (sans-IO, like h11).

The ASGI and WSGI adapters only translate: they hand ``check_head`` the raw path, query
string and headers before the app runs, and feed the body through the ``BodyCheck`` it
returns as the body streams.  Every verdict is a ``Problem`` or None.  Nothing here
rewrites input: a request is let through exactly as sent, or refused.

Order: the request line and headers first (a refusal there costs the app nothing), then
the body.  Each value is strictly decoded (RFC 3629 §3: ill-formed sequences are errors,
never "fixed") before its part's ``Policy`` looks at the characters -- after
percent-decoding, since ``%C0%AF`` is the overlong '/' of the 2001 IIS traversal.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple
from urllib.parse import unquote_to_bytes

from ..decoder import _runner
from ..policy import (
    Action,
    Policy,
    _ascii_clean,
    _judges_whole_values,
    _prepare_fast,
    accepts,
    inspect,
)
from ..policy import _clean as _c_clean
from ..profiles import FILENAME, SINGLE_LINE, TEXT
from .problem import Problem, from_finding

MiB = 1 << 20


@dataclass(frozen=True)
class WebPolicy:
    """Which ``Policy`` applies to each part of a request; None turns a check off.

    Defaults: TEXT for free-text values (query values, form fields, JSON strings, text
    bodies), SINGLE_LINE for values that must stay on one line (path, names, headers,
    cookies), FILENAME for multipart filenames.  A policy *rejects* a request only with
    its REJECT findings; what it would strip, replace or merely report is left for the
    app (``sanitizer.sanitize``), since the middleware never rewrites.
    """

    path: Policy | None = SINGLE_LINE
    names: Policy | None = SINGLE_LINE  # query, form and multipart field names, cookie names
    query: Policy | None = TEXT  # query parameter values (forms sent by GET hold textareas)
    headers: Policy | None = SINGLE_LINE
    cookies: Policy | None = SINGLE_LINE  # cookie values, after percent-decoding
    form: Policy | None = TEXT  # urlencoded values and multipart fields without a filename
    filenames: Policy | None = FILENAME  # multipart filename= and filename*=
    json: Policy | None = TEXT  # every JSON string, keys included, escapes resolved
    text: Policy | None = TEXT  # text/* bodies
    # Declared charsets accepted (lower case; "utf8" means "utf-8").  Any other charset
    # parameter is refused: the client must not choose how a document is read
    # (HOWTO §5.9.1, §5.9.5; charset=utf-7 spells '<' as "+ADw-").
    charsets: frozenset[str] = frozenset({"utf-8"})
    max_body_size: int | None = 16 * MiB  # any request body; over it answers 413
    dot_segments: bool = False  # allow '.' and '..' path segments (after percent-decoding)
    # How to read a body that has no Content-Type, e.g. "application/json" for frameworks
    # that parse such bodies as JSON anyway (FastAPI does).  None: pass it unchecked.
    untyped_body: str | None = None
    report_only: bool = False  # let everything through; only log and call back
    # Derived: the ASCII bytes that pass every policy of a group of values at once (see
    # _bulk_allowed), or None when a policy of the group checks whole values.
    _query_bulk: Bulk | None = field(init=False, repr=False, compare=False, default=None)
    _cookie_bulk: Bulk | None = field(init=False, repr=False, compare=False, default=None)
    _header_bulk: Bulk | None = field(init=False, repr=False, compare=False, default=None)
    _form_bulk: Bulk | None = field(init=False, repr=False, compare=False, default=None)
    _fast_args: tuple[Any, ...] | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        for name in POLICY_FIELDS:
            value = getattr(self, name)
            if value is not None and not isinstance(value, Policy):
                raise TypeError(f"{name} must be a sanitizer.Policy or None, not {value!r}")
        limit = self.max_body_size
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise ValueError(f"max_body_size must be None or an int >= 0, not {limit!r}")
        charsets = frozenset(_charset_label(c) for c in self.charsets)
        object.__setattr__(self, "charsets", charsets)
        if self.untyped_body is not None and _kind_of_media(self.untyped_body) is None:
            raise ValueError(f"untyped_body {self.untyped_body!r} is not a checked media type")
        object.__setattr__(self, "_query_bulk", _bulk(self.names, self.query))
        object.__setattr__(self, "_cookie_bulk", _bulk(self.names, self.cookies))
        object.__setattr__(self, "_header_bulk", _bulk(self.headers))
        object.__setattr__(self, "_form_bulk", _bulk(self.names, self.form))

    def replace(self, **changes: Any) -> WebPolicy:
        from dataclasses import replace

        return replace(self, **changes)


POLICY_FIELDS = (
    *("path", "names", "query", "headers", "cookies"),
    *("form", "filenames", "json", "text"),
)


# -- one value -----------------------------------------------------------------------------


def value_problem(
    raw: bytes | str, policy: Policy | None, part: str, where: str, base: int = 0
) -> Problem | None:
    """The first REJECT finding of ``policy`` on ``raw`` as a Problem, or None."""
    if policy is None or (type(raw) is bytes and _ascii_clean(raw, policy)) or accepts(raw, policy):
        return None
    report = inspect(raw, policy)
    if report.ok:
        return None
    return from_finding(report.rejections[0], part, where, base)


def _c_args(policies: tuple[Policy, ...]) -> tuple[tuple[Any, ...], ...] | None:
    if _c_clean is None:
        return None
    out = []
    for policy in policies:
        args, plain = policy._cfast or _prepare_fast(policy)
        if not plain:
            return None
        out.append(args)
    return tuple(out)


@dataclass
class Bulk:
    """How to pass a run of form-encoded values (names, values, '&', '=') at once: it
    passes every policy of the group if, after '+' and percent-decoding, it holds only
    ``allowed`` ASCII bytes (one bytes.translate), or else if each policy passes the whole
    run.  Valid because the separators are ASCII: cutting text before an ASCII byte never
    changes a verdict (see bodies.TextStream), and none of these policies judges whole
    values.  When the run fails, values are checked one by one to name the culprit."""

    allowed: bytes
    policies: tuple[Policy, ...]

    @functools.cached_property
    def c_args(self) -> tuple[tuple[Any, ...], ...] | None:
        """The C fast path's arguments for each policy (policy._prepare_fast), or None
        without the C runner."""
        return _c_args(self.policies)

    def passes(self, data: bytes) -> bool:
        data = form_decode(data)
        if not data.translate(None, self.allowed):
            return True
        for policy in self.policies:
            if not accepts(data, policy):
                return False
        return True


def _percent_decode_py(data: bytes) -> bytes:
    """``urllib.parse.unquote_to_bytes`` through a C codec for well-formed input: each %XX
    becomes a \\xXX escape for unicode_escape (backslashes doubled first, raw bytes pass as
    Latin-1).  A malformed escape ("%zz", a "%" at the end) takes the stdlib's route."""
    if b"%" not in data:
        return data
    try:
        escaped = data.replace(b"\\", b"\\\\").replace(b"%", b"\\x")
        return escaped.decode("unicode_escape").encode("latin-1")
    except UnicodeDecodeError:
        return unquote_to_bytes(data)


def _form_decode_py(data: bytes) -> bytes:
    return _percent_decode_py(data.replace(b"+", b" ") if b"+" in data else data)


_c_unquote: Callable[[bytes, bool], bytes] | None = getattr(_runner, "unquote", None)


def percent_decode(data: bytes) -> bytes:
    """%XX decoded exactly as ``urllib.parse.unquote_to_bytes`` does (in C when built)."""
    data = data if type(data) is bytes else bytes(data)  # a server may hand a bytearray
    return _c_unquote(data, False) if _c_unquote is not None else _percent_decode_py(data)


def form_decode(data: bytes) -> bytes:
    """A form-encoded name or value: '+' is a space, then %XX (WHATWG URL §5.1)."""
    data = data if type(data) is bytes else bytes(data)
    return _c_unquote(data, True) if _c_unquote is not None else _form_decode_py(data)


def _bulk(*group: Policy | None) -> Bulk | None:
    """The Bulk check for a group of policies, or None if one of them judges whole values
    (limits, '.', ''): then values must be checked one by one."""
    policies = tuple(dict.fromkeys(p for p in group if p is not None))
    # One inspect suffices where one policy is stricter than the other (SINGLE_LINE, TEXT).
    policies = tuple(p for p in policies if not any(_stricter(q, p) for q in policies))
    allowed = set(range(0x80))
    for policy in policies:
        if _judges_whole_values(policy):
            return None
        allowed &= set(policy._fast.ascii_allowed)
    return Bulk(bytes(sorted(allowed)), policies)


def _stricter(a: Policy, b: Policy) -> bool:
    """``a`` differs from ``b`` only by refusing more categories, so text ``a`` passes
    ``b`` passes too: with no character of those categories, both run alike."""
    return (
        a is not b
        and (a.max_combining, a.normalization, a.also_check, a.allow_sequences)
        == (b.max_combining, b.normalization, b.also_check, b.allow_sequences)
        and all(act is b.actions[c] or act is Action.REJECT for c, act in a.actions.items())
        and a.actions != b.actions
    )


def bulk_passes(data: bytes, bulk: Bulk | None) -> bool:
    return bulk is not None and bulk.passes(data)


# A name is shown in a problem only if it is short, plain ASCII (and passed its policy).
_SHOWABLE = re.compile(rb"[A-Za-z0-9_.\-\[\]]{1,64}\Z")


def showable(name: bytes) -> str | None:
    return name.decode("ascii") if _SHOWABLE.match(name) else None


def field_problem(
    name: bytes,
    value: bytes,
    number: int,
    what: str,
    policy: WebPolicy,
    values: Policy | None,
    part: str,
) -> Problem | None:
    """Check one decoded name and value (``what``: "query parameter", "form field")."""
    names = policy.names
    if names is not None and not _ascii_clean(name, names):
        problem = value_problem(name, names, part, f"name of {what} #{number}")
        if problem is not None:
            return problem
    if values is None or _ascii_clean(value, values):
        return None
    shown = showable(name)
    where = f"{what} '{shown}'" if shown is not None else f"{what} #{number}"
    return value_problem(value, values, part, where)


def pairs_problem(
    data: bytes, policy: WebPolicy, values: Policy | None, what: str, part: str, first: int = 1
) -> tuple[Problem | None, int]:
    """Check application/x-www-form-urlencoded ``data`` (a query string or body): each
    name and value after '+' and percent-decoding (WHATWG URL §5.1).  Returns the problem
    and the number of the next field."""
    number = first
    for pair in data.split(b"&"):
        if not pair:
            continue
        name, _, value = pair.partition(b"=")
        problem = field_problem(
            form_decode(name), form_decode(value), number, what, policy, values, part
        )
        if problem is not None:
            return problem, number
        number += 1
    return None, number


# -- request line and headers -----------------------------------------------------------


class Head(NamedTuple):
    """What ``check_head`` learnt from the headers that the body check needs."""

    media: str | None = None  # "form", "multipart", "json", "text" or None (unchecked)
    boundary: bytes = b""
    content_length: int | None = None
    has_body: bool = False


# content types, content length, has a body, content encoding, cookies
_Framing = tuple[list[bytes], "int | None", bool, bytes, list[bytes]]


def _framing(headers: list[tuple[bytes, bytes]]) -> _Framing:
    """The headers that say what the body is (RFC 9110 §8, RFC 9112 §6), and the cookies
    (a plain tuple: this runs on every request)."""
    content_types: list[bytes] = []
    cookies: list[bytes] = []
    encoding = b""
    length: int | None = None
    has_body = False
    for raw_name, value in headers:
        if raw_name[:1] not in _INTERESTING:
            continue
        name = raw_name.lower()
        if name == b"content-type":
            content_types.append(value)
        elif name == b"content-length":
            length = _content_length(value)
            has_body = has_body or length != 0
        elif name == b"transfer-encoding":
            has_body = True
        elif name == b"content-encoding":
            encoding = value.strip().lower()
        elif name == b"cookie":
            cookies.append(value)
    return content_types, length, has_body, encoding, cookies


def _fast_head(
    policy: WebPolicy, path: bytes, query: bytes, headers: list[tuple[bytes, bytes]]
) -> Head | None:
    """The common case in a few C calls: every value clean under every policy of its group
    (_speedups.clean: strictly decoded, nothing to refuse, strip or replace), no
    percent-escape or '.' in the path, an unambiguous Content-Type.  None means "not
    sure": check_head then decides everything again, so this may only ever pass what
    check_head passes (a property test holds it to that)."""
    fast = policy._fast_args
    if fast is None:
        fast = _fast_args(policy)
        object.__setattr__(policy, "_fast_args", fast)
    if not fast or b"%" in path or b"." in path:
        return None
    clean = _c_clean
    path_args, query_args, header_args, cookie_args = fast
    for args in path_args:
        if clean(path, *args) is None:
            return None
    if query:
        data = form_decode(query)
        for args in query_args:
            if clean(data, *args) is None:
                return None
    if not _names_are_tokens(headers):
        return None
    values = b"\t".join([v for _, v in headers])
    for args in header_args:
        if clean(values, *args) is None:
            return None
    content_types, length, has_body, encoding, cookies = _framing(headers)
    if len(content_types) > 1 or encoding not in (b"", b"identity"):
        return None
    for value in cookies:
        data = percent_decode(value)
        for args in cookie_args:
            if clean(data, *args) is None:
                return None
    content_type = content_types[0] if content_types else None
    limit = policy.max_body_size
    if limit is not None and length is not None and length > limit:
        return None
    kind = None
    if content_type is not None:
        parsed = parse_media_type(content_type)
        if parsed is None or "charset" in parsed[1]:
            return None
        kind = _kind_of_media(parsed[0])
        if kind == "multipart":
            return None
    return Head(kind, b"", length, has_body)


def _fast_args(policy: WebPolicy) -> tuple[tuple[tuple[Any, ...], ...], ...] | tuple[()]:
    """The C arguments _fast_head needs, per group; () when it cannot apply (no C runner,
    a part switched off, a policy that judges whole values, untyped_body)."""
    groups = (
        _bulk(policy.path) if policy.path is not None else None,
        policy._query_bulk,
        policy._header_bulk,
        policy._cookie_bulk,
    )
    if policy.untyped_body is not None or any(g is None or not g.policies for g in groups):
        return ()
    out = []
    for group in groups:
        args = group.c_args if group is not None else None
        if args is None:
            return ()
        out.append(args)
    return tuple(out)


def check_head(
    policy: WebPolicy,
    path: bytes,
    query: bytes,
    headers: Iterable[tuple[bytes, bytes]],
    *,
    path_decoded: bool = False,
) -> tuple[Problem | None, Head]:
    """Judge the request target and headers.  ``path`` is the raw path as sent (no query);
    ``path_decoded`` says it is already percent-decoded (WSGI's PATH_INFO).  ``headers``
    are (name, value) pairs of bytes as received, names in any case."""
    headers = headers if isinstance(headers, list) else list(headers)
    try:
        fast = _fast_head(policy, path, query, headers)
        if fast is not None:
            return None, fast
        return _check_head_fully(policy, path, query, headers, path_decoded)
    except TypeError:  # a server that hands bytearray or memoryview (ASGI says bytes)
        values = [path, query, *(x for pair in headers for x in pair)]
        if all(type(x) is bytes for x in values):
            raise  # a bug of ours: let it show
        pairs = [(bytes(name), bytes(value)) for name, value in headers]
        return check_head(policy, bytes(path), bytes(query), pairs, path_decoded=path_decoded)


def _check_head_fully(
    policy: WebPolicy,
    path: bytes,
    query: bytes,
    headers: list[tuple[bytes, bytes]],
    path_decoded: bool,
) -> tuple[Problem | None, Head]:
    problem = None
    check = policy.path
    if check is None or b"%" in path or b"." in path or not _ascii_clean(path, check):
        problem = _path_problem(policy, path, path_decoded)
    if problem is None and query and not bulk_passes(query, policy._query_bulk):
        problem = pairs_problem(query, policy, policy.query, "query parameter", "query")[0]
    content_types, length, has_body, encoding, cookies = _framing(headers)
    if problem is None:  # all at once first; one by one only to name what failed
        bulk = policy._header_bulk
        if (
            bulk is None
            or not _names_are_tokens(headers)
            or not _headers_pass(bulk, [v for _, v in headers])
        ):
            problem = _headers_problem(policy, headers)
        else:
            for value in cookies:
                if not bulk_passes(value, policy._cookie_bulk):
                    problem = _cookie_problem(policy, value)
                    if problem is not None:
                        break
    limit = policy.max_body_size
    if (
        not content_types
        and problem is None
        and policy.untyped_body is None
        and (limit is None or length is None or length <= limit)
    ):
        return None, Head(None, b"", length, has_body)  # most GETs: nothing more to decide
    parsed = parse_media_type(content_types[0]) if content_types else ("", {})
    media, params = parsed or ("", {})
    kind = _kind_of_media(media) if media else None
    if not content_types and policy.untyped_body is not None:
        kind = _kind_of_media(policy.untyped_body)
    boundary = params.get("boundary", "") if kind == "multipart" else ""
    if problem is not None:
        pass  # the first problem wins; the Head is still complete (report-only goes on)
    elif limit is not None and length is not None and length > limit:
        problem = too_large(limit)
    elif len(content_types) > 1 or parsed is None:
        problem = malformed("header", "Content-Type", _AMBIGUOUS)
    elif (problem := charset_problem(policy, params, "Content-Type", "header")) is not None:
        pass
    elif kind is not None and encoding not in (b"", b"identity"):
        problem = Problem(
            400,
            "content-encoding",
            "content-encoding",
            "header",
            "Content-Encoding",
            "a checked body must be sent without content coding",
        )
    elif kind == "multipart" and not _BOUNDARY.match(boundary):
        problem = malformed("header", "Content-Type", "multipart without a valid boundary")
    if kind == "multipart" and not _BOUNDARY.match(boundary):
        kind = None  # report-only: nothing to parse with
    return problem, Head(kind, boundary.encode("latin-1"), length, has_body)


_INTERESTING = (b"c", b"C", b"t", b"T")  # first letters of the headers check_head reads
_AMBIGUOUS = "ambiguous Content-Type: one type/subtype, each parameter once, no name*= forms"


def _path_problem(policy: WebPolicy, path: bytes, decoded: bool) -> Problem | None:
    problem = value_problem(path, policy.path, "path", "request path")
    if problem is not None or decoded or b"%" not in path:
        plain = path
    else:
        plain = percent_decode(path)
        problem = value_problem(plain, policy.path, "path", "request path (percent-decoded)")
    if problem is None and not policy.dot_segments and b"." in plain:
        segments = plain.replace(b"\\", b"/").split(b"/")
        if b".." in segments or b"." in segments:
            problem = Problem(
                400,
                "malformed",
                "dot-segment",
                "path",
                "request path",
                "'.' or '..' segment, a path traversal (RFC 3986 §3.3)",
            )
    return problem


def _names_are_tokens(headers: list[tuple[bytes, bytes]]) -> bool:
    """Every header name a non-empty RFC 9110 token (§5.1), all checked at once."""
    names = [n for n, _ in headers]
    return all(names) and not b"".join(names).translate(None, _TOKEN)


def _headers_pass(bulk: Bulk, values: list[bytes]) -> bool:
    """All header values at once (no percent-decoding here: header values are literal)."""
    if not b"".join(values).translate(None, bulk.allowed):
        return True
    joined = b"\t".join(values)  # TAB: ASCII, and a header value may hold it (RFC 9110 §5.5)
    return all(accepts(joined, policy) for policy in bulk.policies)


def _headers_problem(policy: WebPolicy, headers: list[tuple[bytes, bytes]]) -> Problem | None:
    for name, value in headers:
        problem = None
        if name.lower() == b"cookie":  # pairs first, so the problem names the cookie
            problem = _cookie_problem(policy, value)
        problem = problem or _header_problem(policy, name, value)
        if problem is not None:
            return problem
    return None


def _header_problem(policy: WebPolicy, name: bytes, value: bytes) -> Problem | None:
    if not name or name.translate(None, _TOKEN):
        return malformed("header", "a header name", "not an RFC 9110 token")
    check = policy.headers
    if check is None or _ascii_clean(value, check):
        return None
    shown = showable(name)
    return value_problem(value, check, "header", f"header '{shown}'" if shown else "a header")


_TOKEN = b"!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _cookie_problem(policy: WebPolicy, header: bytes) -> Problem | None:
    """Cookie pairs (RFC 6265 §4.2.1), values percent-decoded as most frameworks do."""
    for number, pair in enumerate(header.split(b";"), 1):
        pair = pair.strip(b" \t")
        if not pair:
            continue
        name, _, value = pair.partition(b"=")
        value = value.strip(b" \t")
        if len(value) >= 2 and value[:1] == value[-1:] == b'"':
            value = value[1:-1]
        if b"%" in value:
            value = percent_decode(value)
        problem = field_problem(
            name.strip(b" \t"), value, number, "cookie", policy, policy.cookies, "cookie"
        )
        if problem is not None:
            return problem
    return None


def _content_length(value: bytes) -> int | None:
    value = value.strip()
    return int(value) if value.isdigit() else None


def too_large(limit: int) -> Problem:
    return Problem(
        413, "too-large", "too-large", "body", "request body", f"larger than {limit} bytes"
    )


def malformed(part: str, where: str, summary: str) -> Problem:
    return Problem(400, "malformed", "malformed", part, where, summary)


# -- media types and charsets -----------------------------------------------------------

_TOKEN_RE = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_PARAM = re.compile(rf'\s*;\s*({_TOKEN_RE})\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)', re.DOTALL)
_STRICT_PARAM = re.compile(
    rf'[ \t]*;[ \t]*(?:({_TOKEN_RE})=("(?:[^"\\]|\\.)*"|{_TOKEN_RE})[ \t]*)?'
)
_MEDIA_TYPE = re.compile(rf"{_TOKEN_RE}/{_TOKEN_RE}\Z")
# RFC 2046 §5.1.1 bchars, without the space it allows but no browser sends (and parsers
# disagree on: Werkzeug stops an unquoted boundary at a space).
_BOUNDARY = re.compile(r"[0-9A-Za-z'()+_,\-./:=?]{1,70}\Z")


def parse_params(value: str) -> tuple[str, list[tuple[str, str]]]:
    """Split ``type; a=1; b="x"`` (RFC 9110 §5.6.6, quoted-string §5.6.4) into the lower-case
    first item and the (lower-case name, unquoted value) pairs, duplicates kept.  Lenient
    (unquoted values may hold spaces), as Content-Disposition in the wild needs."""
    first, sep, rest = value.partition(";")
    params: list[tuple[str, str]] = []
    for m in _PARAM.finditer(sep + rest):
        raw = m.group(2).strip()
        if raw[:1] == '"':
            raw = _unquote(raw)
        params.append((m.group(1).lower(), raw))
    return first.strip().lower(), params


def _unquote(quoted: str) -> str:
    return re.sub(r"\\(.)", r"\1", quoted[1:-1], flags=re.DOTALL)


@functools.lru_cache(maxsize=256)  # a few values (application/json, ...) recur all day
def parse_media_type(value: bytes) -> tuple[str, Mapping[str, str]] | None:
    """A Content-Type parsed strictly (RFC 9110 §8.3.1), or None when it is ambiguous:
    not ``type/subtype``, a repeated parameter, an RFC 8187 ``name*`` parameter (a second
    ``charset*`` or ``boundary*`` that some parsers prefer to the plain one), or text that
    is not a parameter.  Different parsers read such a header differently, so the
    middleware cannot know what the app will read."""
    text = value.decode("latin-1")
    first, sep, rest = text.partition(";")
    media = first.strip(" \t").lower()
    if not _MEDIA_TYPE.match(media):
        return None
    params: dict[str, str] = {}
    rest = sep + rest
    pos = 0
    while pos < len(rest):
        m = _STRICT_PARAM.match(rest, pos)
        if m is None or m.end() == pos:
            return None
        pos = m.end()
        if m.group(1) is None:
            continue
        name, raw = m.group(1).lower(), m.group(2)
        if "*" in name or name in params:
            return None
        params[name] = _unquote(raw) if raw[:1] == '"' else raw
    return media, MappingProxyType(params)


def _charset_label(label: str) -> str:
    label = label.strip().strip('"').lower()
    return "utf-8" if label == "utf8" else label


def charset_problem(
    policy: WebPolicy, params: Mapping[str, str], where: str, part: str
) -> Problem | None:
    charset = params.get("charset")
    if charset is None or _charset_label(charset) in policy.charsets:
        return None
    return Problem(
        400,
        "charset",
        "charset",
        part,
        where,
        "declares a charset other than UTF-8; the client must not choose how input is read",
    )


@functools.lru_cache(maxsize=64)
def _kind_of_media(media: str) -> str | None:
    """Which body check applies to a media type (lower case, no parameters)."""
    media = media.strip().lower().partition(";")[0].strip()
    if media == "application/x-www-form-urlencoded":
        return "form"
    if media == "multipart/form-data":
        return "multipart"
    if media == "application/json" or (media[:12] == "application/" and media[-5:] == "+json"):
        return "json"  # RFC 8259 §8.1, RFC 6839 §3.1
    if media.startswith("text/"):
        return "text"
    return None


DEFAULT = WebPolicy()
