"""The HTTP grammar the checks read: tokens, quoted strings, media types and parameters.

Kept apart from the checks so that every rule of RFC 9110 §5.6 (token, quoted-string,
parameters) and §8.3.1 (media type) is spelt once: the head check, the fast head check
and the multipart part headers all parse with these.  Pure functions over bytes and str.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from types import MappingProxyType

from ._readings import media_kinds

# RFC 9110 §5.6.2: tchar, as the bytes bytes.translate deletes and as a regex.
TOKEN = b"!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_TOKEN_RE = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
# RFC 9110 §5.6.6 parameters; lenient (an unquoted value may hold spaces), for
# Content-Disposition as sent in the wild.
_PARAM = re.compile(rf'\s*;\s*({_TOKEN_RE})\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)', re.DOTALL)
# The same, strictly: OWS ";" OWS token "=" ( token / quoted-string ), or an empty one.
_STRICT_PARAM = re.compile(
    rf'[ \t]*;[ \t]*(?:({_TOKEN_RE})=("(?:[^"\\]|\\.)*"|{_TOKEN_RE})[ \t]*)?'
)
# Content-Disposition of a multipart part, as every framework reads it alike (RFC 6266
# §4.1, RFC 7578 §4.2): the intersection of their parameter grammars.  Only spaces after
# ";" (the multipart package, Litestar's parser, skips no tab there); a name of letters,
# digits, "-", "_" (its parameter names) and "*" (RFC 8187 names, refused later by name);
# no whitespace around "=" (Werkzeug sees no parameter there); each value a token or a
# quoted-string without backslashes (python-multipart, Werkzeug and Django unescape
# differently); nothing between parameters.
_DISPOSITION_PARAM = re.compile(
    rf'[ \t]*;[ ]*(?:([A-Za-z0-9_*-]+)=("[^"\\\r\n]*"|{_TOKEN_RE})[ \t]*)?'
)
# The HTML standard's escapes of CR and LF in a name or filename: the multipart package
# turns them into line breaks, the other parsers keep the three characters.
_ESCAPED_LINE_BREAK = re.compile("%0[AD]")
_MEDIA_TYPE = re.compile(rf"{_TOKEN_RE}/{_TOKEN_RE}\Z")  # type "/" subtype (§8.3.1)
# RFC 2046 §5.1.1 bchars, without the space it allows but no browser sends (and parsers
# disagree on: Werkzeug stops an unquoted boundary at a space).
BOUNDARY = re.compile(r"[0-9A-Za-z'()+_,\-./:=?]{1,70}\Z")


def is_token(name: bytes) -> bool:
    """``name`` is a non-empty RFC 9110 token (§5.6.2), as a field name must be (§5.1)."""
    return bool(name) and not name.translate(None, TOKEN)


def names_are_tokens(headers: list[tuple[bytes, bytes]]) -> bool:
    """Every header name a non-empty token (RFC 9110 §5.1), all checked at once."""
    names = [n for n, _ in headers]
    return all(names) and not b"".join(names).translate(None, TOKEN)


def unquote(quoted: str) -> str:
    """The content of an RFC 9110 §5.6.4 quoted-string (quotes and backslashes removed)."""
    return re.sub(r"\\(.)", r"\1", quoted[1:-1], flags=re.DOTALL)


def parse_params(value: str) -> tuple[str, list[tuple[str, str]]]:
    """Split ``type; a=1; b="x"`` (RFC 9110 §5.6.6, quoted-string §5.6.4) into the lower-case
    first item and the (lower-case name, unquoted value) pairs, duplicates kept.  Lenient
    (unquoted values may hold spaces), as Content-Disposition in the wild needs."""
    first, sep, rest = value.partition(";")
    params: list[tuple[str, str]] = []
    for m in _PARAM.finditer(sep + rest):
        raw = m.group(2).strip()
        if raw[:1] == '"':
            raw = unquote(raw)
        params.append((m.group(1).lower(), raw))
    return first.strip().lower(), params


def parse_disposition(value: str) -> tuple[str, list[tuple[str, str]]] | None:
    """A part's Content-Disposition read strictly: the type (lower case) and the
    (name as sent, unquoted value) pairs, or None when parsers could read it differently:
    text that is not a parameter, whitespace around "=", a tab after ";", an unquoted value
    that is not a token, a backslash in a quoted value, an escaped CR or LF (``%0D``,
    ``%0A``) in a value."""
    first, sep, rest = value.partition(";")
    params: list[tuple[str, str]] = []
    rest = sep + rest
    pos = 0
    while pos < len(rest):
        m = _DISPOSITION_PARAM.match(rest, pos)
        if m is None or m.end() == pos:
            return None
        pos = m.end()
        if m.group(1) is not None:
            raw = m.group(2)
            if _ESCAPED_LINE_BREAK.search(raw):
                return None
            params.append((m.group(1), raw[1:-1] if raw[:1] == '"' else raw))
    return first.strip(" \t").lower(), params


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
        params[name] = unquote(raw) if raw[:1] == '"' else raw
    return media, MappingProxyType(params)


def charset_label(label: str) -> str:
    """A charset parameter compared as a label: case and quotes ignored, "utf8" is "utf-8"."""
    label = label.strip().strip('"').lower()
    return "utf-8" if label == "utf8" else label


@functools.lru_cache(maxsize=64)
def media_kind(media: str) -> str | None:
    """Which body check reads a media type (lower case, parameters ignored): "form",
    "multipart", "json", "json-seq", "text", or None for a body that is only counted.

    Forms and multipart are every spelling a supported framework hands to such a parser
    (``_readings.MEDIA_TYPES``: Quart's ``application/x-url-encoded``, Falcon's media
    ranges ``multipart/*`` and ``*/form-data``).

    JSON is JSON whatever its spelling: ``application/json`` (RFC 8259 §8.1), any
    ``+json`` structured suffix (RFC 6839 §3.1: ``application/problem+json``, which
    Starlette's and Werkzeug's ``is_json`` read as JSON too) and newline-delimited JSON
    (``application/x-ndjson``: records separated by LF, which is JSON whitespace).  JSON
    text sequences (RFC 7464, ``application/json-seq`` and the ``+json-seq`` suffix of
    RFC 8091) start each record with RS (0x1E), so they get their own kind.  Any other
    ``text/*``, JSON in it or not, is text."""
    media = media.strip().lower().partition(";")[0].strip()
    spelled = _SPELLED.get(media)  # what frameworks hand to their form or multipart parser
    if spelled is not None:
        return spelled
    if media in _JSON or (media[:12] == "application/" and media[-5:] == "+json"):
        return "json"
    if media == "application/json-seq" or (
        media[:12] == "application/" and media[-9:] == "+json-seq"
    ):
        return "json-seq"
    if media.startswith("text/"):
        return "text"
    return None


_SPELLED = media_kinds()
# Read as JSON: RFC 8259 §11, and NDJSON's names (ndjson spec 1.0 §3; the unregistered
# "application/ndjson" is what some clients send).
_JSON = frozenset({"application/json", "application/x-ndjson", "application/ndjson"})
