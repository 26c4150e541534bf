"""The request line and headers, judged before the app runs (sans-IO, like h11).

``check_head`` takes the raw path, query string and headers, and returns the first
``Problem`` (or None) and a ``Head``: what the body check needs to know (the media kind,
the multipart boundary, the framing).  A refusal here costs the app nothing.  Values are
checked after percent-decoding, since ``%C0%AF`` is the overlong '/' of the 2001 IIS
traversal.

Most requests are clean, so a fast path (``fast_head``: one C call, ``web_head`` in
webhead.c, whose pure-Python twin is ``fast_head_py``) passes them; anything it is not
sure of is decided again, fully, by ``check_head_fully``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from .._native import speedups
from .._policy.compiled import CompiledPolicy
from ._compiled_web import Bulk, CompiledWebPolicy, FastGroup, bulk_decoded, compile_web_policy
from ._config import WebPolicy
from ._credentials import credentials_problem, may_hold_credentials
from ._grammar import (
    BOUNDARY,
    TOKEN,
    charset_label,
    is_token,
    media_kind,
    names_are_tokens,
    parse_media_type,
)
from ._json import json_text_problem
from ._native import speedups as web_speedups
from ._percent import form_decode, percent_decode
from ._problems import (
    Problem,
    ambiguous,
    content_encoding,
    dot_segment,
    labelled,
    malformed,
    showable,
    too_large,
)
from ._readings import (
    LOOSE_READERS,
    anywhere_kinds,
    disagree_on_raw_bytes,
    loose_boundary,
    loose_charset,
    percent_readers,
)
from ._value_checks import charset_problem, field_problem, pairs_problem, value_problem


class Head(NamedTuple):
    """What ``check_head`` learnt from the headers that the body check needs."""

    media: str | None = None  # a _grammar.media_kind ("form", "json", ...) or None: unchecked
    boundary: bytes = b""  # multipart; in its quotes when BlackSheep reads them (_head_boundary)
    content_length: int | None = None
    has_body: bool = False


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
    return judge_head(compile_web_policy(policy), path, query, headers, path_decoded)


def judge_head(
    compiled: CompiledWebPolicy,
    path: bytes,
    query: bytes,
    headers: Iterable[tuple[bytes, bytes]],
    path_decoded: bool,
) -> tuple[Problem | None, Head]:
    """``check_head`` on a compiled policy, all arguments positional: what the ASGI
    middleware calls on every request (one Python call less)."""
    headers = headers if type(headers) is list else list(headers)
    try:
        head = fast_head(compiled, path, query, headers)
        if head is not None:
            return None, head
        return check_head_fully(compiled, path, query, headers, path_decoded)
    except TypeError:  # a server that hands bytearray or memoryview (ASGI says bytes)
        values = [path, query, *(x for pair in headers for x in pair)]
        if all(type(x) is bytes for x in values):
            raise  # a bug of ours: let it show
        pairs = [(bytes(name), bytes(value)) for name, value in headers]
        return judge_head(compiled, bytes(path), bytes(query), pairs, path_decoded)


# content types, content length, has a body, content encoding, cookies, Authorization
_Framing = tuple[list[bytes], "int | None", bool, bytes, list[bytes], list[bytes]]
_INTERESTING = (b"c", b"C", b"t", b"T", b"a", b"A")  # first letters of what _framing reads


def _framing(headers: list[tuple[bytes, bytes]]) -> _Framing:
    """The headers that say what the body is (RFC 9110 §8, RFC 9112 §6), the cookies and
    the Authorization values (a plain tuple: this runs on every request)."""
    content_types: list[bytes] = []
    cookies: list[bytes] = []
    auth: list[bytes] = []
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
        elif name == b"content-encoding":  # repeated: joined as a list (RFC 9110 §5.3)
            value = value.strip().lower()
            encoding = encoding + b"," + value if encoding else value
        elif name == b"cookie":
            cookies.append(value)
        elif name == b"authorization":
            auth.append(value)
    return content_types, length, has_body, encoding, cookies, auth


def _content_length(value: bytes) -> int | None:
    value = value.strip()
    return int(value) if value.isdigit() else None


# -- the fast path ---------------------------------------------------------------------------

# The C fast path of the policies: strictly decoded clean text, or None (not sure).
_clean: Callable[..., str | None] | None = None if speedups is None else speedups.clean
# fast_head_py's steps in one C call (webhead.c): the Head, the framing of a Content-Type
# not in _MEDIA_KINDS yet, or None (not sure).
_web_head: Callable[..., Any] | None = (  # Head | (content_type, length, has_body) | None
    None if web_speedups is None else web_speedups.web_head
)


def fast_head(
    compiled: CompiledWebPolicy, path: bytes, query: bytes, headers: list[tuple[bytes, bytes]]
) -> Head | None:
    """The common case: every value clean under every policy of its group
    (``speedups.clean``: strictly decoded, nothing to refuse, strip or replace), no
    percent-escape or '.' in the path, an unambiguous Content-Type.  None means "not
    sure": check_head then decides everything again, so this may only ever pass what
    check_head_fully passes (a property test holds it to that).  One C call
    (``web_head``, which answers "not sure" for values of any odd type) when built, else
    ``fast_head_py``; tests hold the two to the same answers."""
    web_head = _web_head
    if web_head is None:
        return fast_head_py(compiled, path, query, headers)
    fast = compiled.fast_head_args
    if fast is None:
        return None
    got = web_head(path, query, headers, fast, _HEADS, compiled.policy.max_body_size)
    if type(got) is tuple:  # a Content-Type not parsed yet: the framing
        return _head_of(compiled, *got)
    return got  # type: ignore[no-any-return]


def fast_head_py(
    compiled: CompiledWebPolicy, path: bytes, query: bytes, headers: list[tuple[bytes, bytes]]
) -> Head | None:
    """``fast_head`` in Python, a few C calls (the reference of webhead.c)."""
    fast = compiled.fast_head_args
    clean = _clean
    if fast is None or clean is None or b"%" in path or b"." in path:
        return None
    path_group, query_group, header_group, cookie_group = fast
    if not _clean_in(path, path_group, clean):
        return None
    if query:
        if not query.isascii():
            return None  # raw bytes >= 0x80 in a query: read as Latin-1 by some (_readings)
        decoded = form_decode(query)
        if b"\\" in decoded or not _clean_in(decoded, query_group, clean):
            return None  # a backslash: a JSON escape to Falcon's get_param_as_json
    if headers:  # names and values in one C-level pass (this runs on every request)
        names, values = zip(*headers, strict=True)
        # RFC 9110 §5.1: every name a non-empty token (_grammar.names_are_tokens)
        if not all(names) or b"".join(names).translate(None, TOKEN):
            return None
        if not _clean_in(b"\t".join(values), header_group, clean):
            return None
    content_types, length, has_body, encoding, cookies, auth = _framing(headers)
    if len(content_types) > 1 or encoding not in (b"", b"identity"):
        return None
    if auth and any(may_hold_credentials(value) for value in auth):
        return None  # Basic, or an RFC 8187 parameter: decoded by some (_credentials)
    for value in cookies:  # literally; quoted-strings and %-escapes (Litestar) fully
        if b'"' in value or b"\\" in value or b"%" in value:
            return None
        if not _clean_in(value, cookie_group, clean):
            return None
    return _head_of(compiled, content_types[0] if content_types else None, length, has_body)


def _clean_in(data: bytes, group: FastGroup, clean: Callable[..., str | None]) -> bool:
    """``data`` passes every policy of the group: ASCII they all allow, or clean text
    (a group without policies' C arguments, ``()``, takes ASCII only: header values and
    cookies, whose other bytes frameworks read as Latin-1)."""
    if not data.translate(None, group.allowed):
        return True
    return bool(group.c_args) and all(clean(data, *args) is not None for args in group.c_args)


_NO_BODY = Head()  # most GETs
_new_head = tuple.__new__  # Head(...) without NamedTuple's Python-level __new__
# Content-Type value -> its media kind, or _NOT_SURE (a charset, multipart, malformed):
# parsed once per distinct value; bounded, cleared when full (values come from clients).
_NOT_SURE = "not sure"
_MEDIA_KINDS: dict[bytes, str | None] = {}
_MEDIA_KINDS_SIZE = 256
# What webhead.c needs to build a Head as _head_of does (the layout it reads).
_HEADS = (Head, _NO_BODY, _MEDIA_KINDS, _NOT_SURE)


def _fast_media_kind(content_type: bytes) -> str | None:
    kind = _MEDIA_KINDS.get(content_type, _NOT_SURE)
    if kind is not _NOT_SURE:
        return kind
    parsed = parse_media_type(content_type)
    if parsed is None or "charset" in parsed[1]:
        kind = _NOT_SURE
    else:
        kind = media_kind(parsed[0])
        if kind == "multipart" or loose_problem(content_type, kind, parsed[1], "") is not None:
            kind = _NOT_SURE
    if len(_MEDIA_KINDS) >= _MEDIA_KINDS_SIZE:
        _MEDIA_KINDS.clear()
    _MEDIA_KINDS[content_type] = kind
    return kind


def _head_of(
    compiled: CompiledWebPolicy, content_type: bytes | None, length: int | None, has_body: bool
) -> Head | None:
    """The fast path's Head from the framing headers, or None (not sure)."""
    if content_type is None:
        if length is None and not has_body:
            return _NO_BODY
        kind = None
    else:
        kind = _fast_media_kind(content_type)
        if kind is _NOT_SURE:
            return None
    limit = compiled.policy.max_body_size
    if limit is not None and length is not None and length > limit:
        return None
    head: Head = _new_head(Head, (kind, b"", length, has_body))
    return head


# -- the full check --------------------------------------------------------------------------

_AMBIGUOUS = "ambiguous Content-Type: one type/subtype, each parameter once, no name*= forms"


def check_head_fully(
    compiled: CompiledWebPolicy,
    path: bytes,
    query: bytes,
    headers: list[tuple[bytes, bytes]],
    path_decoded: bool,
) -> tuple[Problem | None, Head]:
    """``check_head`` without the fast path: every rule, the first problem named."""
    policy = compiled.policy
    problem = None
    check = compiled.path
    if check is None or b"%" in path or b"." in path or not check.ascii_clean(path):
        problem = _path_problem(compiled, path, path_decoded)
    if problem is None and query:
        passes, decoded = bulk_decoded(query, compiled.query_bulk)
        if not passes:
            what = "query parameter"
            problem = pairs_problem(query, compiled, compiled.query, what, "query", 1, decoded)[0]
    if problem is None and query and compiled.query is not None:
        problem = _query_json_problem(compiled.query, query)
    # Raw bytes >= 0x80 that pass as UTF-8: some frameworks read them as Latin-1 (browsers
    # percent-encode a query, WHATWG URL §4.4), so what the app reads is not known.
    if problem is None and query and not query.isascii() and _QUERY_RAW is not None:
        if compiled.query is not None or compiled.names is not None:
            problem = ambiguous("query", "query string", _QUERY_RAW)
    content_types, length, has_body, encoding, cookies, auth = _framing(headers)
    if problem is None:  # all at once first; one by one only to name what failed
        bulk = compiled.header_bulk
        if (
            bulk is None
            or not names_are_tokens(headers)
            or not _headers_pass(bulk, [v for _, v in headers])
        ):
            problem = _headers_problem(compiled, headers)
        else:
            for value in cookies:
                if not _cookies_pass(compiled.cookie_bulk, value):
                    problem = _cookie_problem(compiled, value)
                    if problem is not None:
                        break
    if problem is None:  # what Werkzeug's request.authorization decodes (_credentials)
        for value in auth:
            if may_hold_credentials(value):
                problem = credentials_problem(compiled, value)
                if problem is not None:
                    break
    limit = policy.max_body_size
    codings = _codings(encoding)
    if (
        not content_types
        and problem is None
        and policy.untyped_body is None
        and (limit is None or length is None or length <= limit)
        and len(codings) < 2
    ):
        return None, Head(None, b"", length, has_body)  # most GETs: nothing more to decide
    parsed = parse_media_type(content_types[0]) if content_types else ("", {})
    media, params = parsed or ("", {})
    kind = media_kind(media) if media else None
    if not content_types and policy.untyped_body is not None:
        kind = media_kind(policy.untyped_body)
    boundary = params.get("boundary", "") if kind == "multipart" else ""
    if problem is not None:
        pass  # the first problem wins; the Head is still complete (report-only goes on)
    elif limit is not None and length is not None and length > limit:
        problem = too_large(limit)
    elif len(content_types) > 1 or parsed is None:
        problem = malformed("header", "Content-Type", _AMBIGUOUS)
    elif (problem := charset_problem(compiled, params, "Content-Type", "header")) is not None:
        pass
    elif (
        content_types
        and (problem := loose_problem(content_types[0], kind, params, boundary)) is not None
    ):
        pass
    elif len(codings) > 1:
        problem = ambiguous("header", "Content-Encoding", _AMBIGUOUS_CODING)
    elif kind is not None and codings not in ([], [b"identity"]):
        problem = content_encoding()
    elif kind == "multipart" and not BOUNDARY.match(boundary):
        problem = malformed("header", "Content-Type", "multipart without a valid boundary")
    if kind == "multipart" and not BOUNDARY.match(boundary):
        kind = None  # report-only: nothing to parse with
    if kind == "multipart":
        sent = content_types[0] if content_types else b""
        return problem, Head(kind, _head_boundary(sent, boundary), length, has_body)
    return problem, Head(kind, boundary.encode("latin-1"), length, has_body)


_ANYWHERE = anywhere_kinds()
_LOOSE = " and ".join(LOOSE_READERS)


def loose_problem(
    content_type: bytes, kind: str | None, params: Mapping[str, str], boundary: str
) -> Problem | None:
    """The Content-Type as the readers that search it rather than parse it read it
    (``_readings.LOOSE_READERS``: BlackSheep): a form or multipart spelling anywhere in a
    value of another media kind, a charset found by search that is not the parameter's
    (``xcharset=utf-16``, ``charset=`` inside a quoted value), or a multipart boundary
    found by search that is not the parameter's.  Each would make the app read the body
    otherwise than it was judged, so the header is refused as ambiguous."""
    for spelled, spelled_kind, any_case in _ANYWHERE:
        if spelled_kind != kind and spelled in (content_type.lower() if any_case else content_type):
            return ambiguous(
                "header",
                "Content-Type",
                f"'{spelled.decode()}' inside a Content-Type of another media type, "
                f"which {_LOOSE} read as {spelled_kind}",
            )
    charset = loose_charset(content_type)
    if charset is not None and charset_label(charset) != charset_label(
        params.get("charset", "utf-8")
    ):
        return ambiguous(
            "header", "Content-Type", f"a charset that {_LOOSE} find elsewhere than its parameter"
        )
    if kind == "multipart" and b"multipart/form-data;" in content_type:
        loose = loose_boundary(content_type)
        if loose != boundary.encode("latin-1") and loose != _quoted(boundary):
            return ambiguous(
                "header", "Content-Type", f"a multipart boundary that {_LOOSE} read otherwise"
            )
    return None


def _quoted(boundary: str) -> bytes:
    return b'"' + boundary.encode("latin-1") + b'"'


def _head_boundary(content_type: bytes, boundary: str) -> bytes:
    """The Head's boundary: in its quotes when ``LOOSE_READERS`` read them as part of it
    (``boundary="X"``, as .NET's HttpClient sends it), so that the multipart check also
    refuses their delimiters in the body; else as the parameter says."""
    if b"multipart/form-data;" in content_type and loose_boundary(content_type) == _quoted(
        boundary
    ):
        return _quoted(boundary)
    return boundary.encode("latin-1")


# RFC 9110 §8.4: codings are listed in the order applied, and repeated fields are one list
# (§5.3), so "Content-Encoding: gzip" + "Content-Encoding: identity" is "gzip, identity".
# Intermediaries and apps take the first, the last or the whole (a WSGI server joins the
# fields): more than one coding is refused, whatever the body.
_AMBIGUOUS_CODING = "more than one content coding (a list, or the header repeated)"


def _codings(encoding: bytes) -> list[bytes]:
    """The content codings of the joined Content-Encoding fields, empty elements dropped
    (RFC 9110 §5.6.1)."""
    if not encoding:
        return []
    return [c for c in (c.strip(b" \t") for c in encoding.split(b",")) if c]


def _query_json_problem(check: CompiledPolicy, query: bytes) -> Problem | None:
    """Query values as Falcon's ``get_param_as_json`` reads them (_readings: "query
    json"): a value that may be JSON (``{``, ``[`` or ``"`` after whitespace) with an
    escape has its strings judged with the escapes resolved; without a backslash its
    strings are its own text, judged already."""
    decoded = form_decode(query)
    if b"\\" not in decoded:
        return None
    for number, pair in enumerate(query.split(b"&"), 1):
        name, _, value = pair.partition(b"=")
        value = form_decode(value)
        if b"\\" in value:
            problem = json_text_problem(check, value.decode("utf-8", "replace"))
            if problem is not None:
                where = labelled("query parameter", form_decode(name), number) + " read as JSON"
                return replace(problem, part="query", where=f"{where} ({problem.where})")
    return None


def _path_problem(compiled: CompiledWebPolicy, path: bytes, decoded: bool) -> Problem | None:
    problem = value_problem(path, compiled.path, "path", "request path")
    if problem is not None or decoded or b"%" not in path:
        plain = path
    else:
        plain = percent_decode(path)
        problem = value_problem(plain, compiled.path, "path", "request path (percent-decoded)")
    if problem is None and not compiled.policy.dot_segments and b"." in plain:
        segments = plain.replace(b"\\", b"/").split(b"/")
        if b".." in segments or b"." in segments:
            problem = dot_segment()
    return problem


def _headers_pass(bulk: Bulk, values: list[bytes]) -> bool:
    """All header values at once (no percent-decoding here: header values are literal);
    a byte >= 0x80 is itemised (``_header_problem``: frameworks read it as Latin-1)."""
    joined = b"\t".join(values)  # TAB: ASCII, and a header value may hold it (RFC 9110 §5.5)
    return joined.isascii() and bulk.passes(joined)


def _headers_problem(
    compiled: CompiledWebPolicy, headers: list[tuple[bytes, bytes]]
) -> Problem | None:
    for name, value in headers:
        problem = None
        if name.lower() == b"cookie":  # pairs first, so the problem names the cookie
            problem = _cookie_problem(compiled, value)
        problem = problem or _header_problem(compiled, name, value)
        if problem is not None:
            return problem
    return None


def _header_problem(compiled: CompiledWebPolicy, name: bytes, value: bytes) -> Problem | None:
    if not is_token(name):
        return malformed("header", "a header name", "not an RFC 9110 token")
    check = compiled.headers
    if check is None or check.ascii_clean(value):
        return None
    shown = showable(name)
    where = f"header '{shown}'" if shown else "a header"
    problem = value_problem(value, check, "header", where)  # as UTF-8 first: names the attack
    if problem is None and not value.isascii() and name.lower() != b"cookie":
        # obs-text (RFC 9110 §5.5): every framework hands it over as Latin-1 (_readings),
        # unless the app decodes this header itself (WebPolicy.utf8_headers).  (Cookies:
        # _cookie_problem.)
        if name.decode("ascii").lower() not in compiled.policy.utf8_headers:
            problem = ambiguous("header", where, _HEADER_RAW)
    return problem


def _cookies_pass(bulk: Bulk | None, header: bytes) -> bool:
    """A Cookie header's pairs at once, read literally and percent-decoded (Litestar
    decodes cookie values); one with a quote, a backslash or a byte >= 0x80 is read pair
    by pair."""
    if bulk is None or b'"' in header or b"\\" in header or not header.isascii():
        return False
    if not bulk.passes(header):
        return False
    # read percent-decoded too (its ';' and '=' stay ASCII: same verdict)
    return b"%" not in header or not _COOKIE_PERCENT or bulk.passes(percent_decode(header))


# RFC 6265 §4.1.1 allows DQUOTE around a value; frameworks also undo backslash escapes
# inside (Python's http.cookies._unquote: \ooo octal or \c), Werkzeug then decoding the
# bytes as UTF-8 and the others keeping each escape as one code point.  Werkzeug reads a
# value that starts with a quote as a quoted-string, which may run past ';'.
_QUOTED_PREFIX = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_COOKIE_ESCAPE = re.compile(rb"\\(?:([0-3][0-7][0-7])|(.))", re.DOTALL)
_HEADER_RAW = (
    disagree_on_raw_bytes("header") or ""
) + "; list the header in WebPolicy.utf8_headers if the app decodes it as UTF-8"
_QUERY_RAW = disagree_on_raw_bytes("query")
_COOKIE_RAW = disagree_on_raw_bytes("cookie")
_COOKIE_PERCENT = bool(percent_readers("cookie"))  # Litestar


def _cookie_value(value: bytes) -> bytes | str:
    """A cookie value as the frameworks read it (quotes and escapes undone), or why they
    read it differently.  A quote inside a value (JSON: ``{"theme":"dark"}``) is read
    literally by all of them but Werkzeug, which drops the pair."""
    if value[:1] != b'"':
        return value  # read literally
    if _QUOTED_PREFIX.match(value) is None:  # Werkzeug's quoted-string runs past ';'
        return "quoted-string that does not end in its pair, which Werkzeug reads past ';'"
    if len(value) < 2 or value[-1:] != b'"':
        return value  # Werkzeug drops it, the others read it literally
    inner = value[1:-1]
    if b"\\" not in inner:
        return inner
    high = [m for m in _COOKIE_ESCAPE.finditer(inner) if m.group(1) and m.group(1) >= b"200"]
    if high:  # Werkzeug decodes \342\200\256 as UTF-8 (U+202E), Django as three code points
        return "octal escape of a byte above 0x7F, read as UTF-8 or as Latin-1"
    return _COOKIE_ESCAPE.sub(
        lambda m: bytes([int(m.group(1), 8)]) if m.group(1) else m.group(2), inner
    )


def _cookie_problem(compiled: CompiledWebPolicy, header: bytes) -> Problem | None:
    """Cookie pairs (RFC 6265 §4.2.1) as Starlette and Django split them (Werkzeug alike
    once values are plain or whole quoted-strings); each value read literally with its
    quoted-string undone, and percent-decoded (Litestar).  Bytes >= 0x80 are refused
    as ambiguous (read as Latin-1 by all but Django under WSGI) unless the cookie is one
    of ``WebPolicy.utf8_cookies``."""
    if compiled.cookies is None and compiled.names is None:
        return None
    for number, pair in enumerate(header.split(b";"), 1):
        pair = pair.strip(b" \t")
        if not pair:
            continue
        name, equals, raw = pair.partition(b"=")
        if not equals:  # Werkzeug: a name; Starlette and Django: the value of name ""
            raw = pair
        name = name.strip(b" \t")
        value = _cookie_value(raw.strip(b" \t"))
        if isinstance(value, str):
            return ambiguous("cookie", f"cookie #{number}", value)
        cookies = compiled.cookies
        problem = field_problem(name, value, number, "cookie", compiled, cookies, "cookie")
        if problem is None and _COOKIE_PERCENT and b"%" in value:  # as Litestar reads it
            decoded = percent_decode(value)
            what = "cookie (percent-decoded)"
            problem = field_problem(name, decoded, number, what, compiled, cookies, "cookie")
        if problem is None and not pair.isascii() and _COOKIE_RAW is not None:
            if not name.isascii() or name.decode("ascii") not in compiled.policy.utf8_cookies:
                problem = ambiguous("cookie", labelled("cookie", name, number), _COOKIE_RAW)
        if problem is not None:
            return problem
    return None
