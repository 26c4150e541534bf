"""The middleware's configuration: ``WebPolicy`` says which ``Policy`` judges each part
of a request, and the limits.

Plain frozen data, validated when made; what the checks derive from it (the compiled
policies, the bulk groups, the C fast path's arguments) is built once by
``_compiled_web.compile_web_policy``, not stored here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._policy import Policy
from ..profiles import FILENAME, SINGLE_LINE, TEXT
from ._grammar import charset_label, media_kind

MiB = 1 << 20
# Request headers a standard has browsers send as raw UTF-8: WHATWG HTML §9.2
# (server-sent events) sends the last event ID, any string, UTF-8 encoded in
# Last-Event-ID when an EventSource reconnects.
BROWSER_UTF8_HEADERS = frozenset({"last-event-id"})


@dataclass(frozen=True)
class WebPolicy:
    """Which ``Policy`` applies to each part of a request; None turns a check off.

    Defaults: TEXT for free-text values (query values, form fields, JSON strings, text
    bodies, WebSocket text messages), SINGLE_LINE for values that must stay on one line
    (path, names, headers, cookies), FILENAME for multipart filenames.  A policy
    *rejects* a request only with its REJECT findings; what it would strip, replace or
    merely report is left for the app (``sanitizer.sanitize``), since the middleware
    never rewrites.
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
    websocket: Policy | None = TEXT  # WebSocket text messages (ASGI); binary ones pass
    # Declared charsets accepted (lower case; "utf8" means "utf-8").  Any other charset
    # parameter is refused: the client must not choose how a document is read
    # (HOWTO §5.9.1, §5.9.5; charset=utf-7 spells '<' as "+ADw-").
    charsets: frozenset[str] = frozenset({"utf-8"})
    max_body_size: int | None = 16 * MiB  # any request body; over it answers 413
    dot_segments: bool = False  # allow '.' and '..' path segments (after percent-decoding)
    # How to read a body that has no Content-Type, e.g. "application/json" for the full
    # JSON check.  None: only counted, and read as JSON by content (docs/web.md) as every
    # body that is not declared JSON or multipart is.
    untyped_body: str | None = None
    # Raw bytes >= 0x80 in a header value or cookie are obs-text (RFC 9110 §5.5, RFC 6265
    # §4.1.1), which every framework but Django under WSGI hands over as Latin-1 (a
    # harmless "Û", C3 9B, becomes "Ã" and the terminal escape U+009B): refused as
    # ambiguous, except in the headers (names, any case) and cookies (names, exact) listed
    # here, whose values are judged as UTF-8 for an app that decodes them itself.  The
    # default lists the headers a standard has browsers send as raw UTF-8
    # (BROWSER_UTF8_HEADERS); a list given replaces it.
    utf8_headers: frozenset[str] = BROWSER_UTF8_HEADERS
    utf8_cookies: frozenset[str] = frozenset()
    report_only: bool = False  # let everything through; only log and call back

    def __post_init__(self) -> None:
        # Argument rules: the wrong type is a TypeError naming the field, a value
        # out of range a ValueError; flags are bools, the size limit an int (not a bool).
        for name in POLICY_FIELDS:
            value = getattr(self, name)
            if value is not None and not isinstance(value, Policy):
                hint = f" (use sanitizer.profiles.get({value!r}))" if isinstance(value, str) else ""
                raise TypeError(
                    f"WebPolicy() argument {name!r}: {name} must be a sanitizer.Policy or None, "
                    f"not {type(value).__name__}{hint}"
                )
        for flag in ("dot_segments", "report_only"):
            if not isinstance(getattr(self, flag), bool):
                raise TypeError(
                    f"WebPolicy() argument {flag!r} must be a bool, "
                    f"not {type(getattr(self, flag)).__name__}"
                )
        limit = self.max_body_size
        if limit is not None:
            if isinstance(limit, bool) or not isinstance(limit, int):
                raise TypeError(
                    "WebPolicy() argument 'max_body_size' must be None or an int, "
                    f"not {type(limit).__name__}"
                )
            if limit < 0:
                raise ValueError(
                    f"WebPolicy() argument 'max_body_size' must be None or >= 0, not {limit}"
                )
        try:
            listed = not isinstance(self.charsets, str) and all(
                isinstance(c, str) for c in self.charsets
            )
        except TypeError:  # not a collection at all
            listed = False
        if not listed:
            raise TypeError(
                "WebPolicy() argument 'charsets' must be a collection of str "
                f"(e.g. {{'utf-8'}}), not {self.charsets!r:.60}"
            )
        if self.untyped_body is not None and not isinstance(self.untyped_body, str):
            raise TypeError(
                "WebPolicy() argument 'untyped_body' must be None or a str, "
                f"not {type(self.untyped_body).__name__}"
            )
        charsets = frozenset(charset_label(c) for c in self.charsets)
        object.__setattr__(self, "charsets", charsets)  # normalised, so equal policies are ==
        for field in ("utf8_headers", "utf8_cookies"):
            names = getattr(self, field)
            if isinstance(names, (str, bytes)) or not all(isinstance(n, str) for n in names):
                raise TypeError(
                    f"WebPolicy() argument {field!r} must be a collection of str "
                    f"(names), not {names!r:.60}"
                )
            if field == "utf8_headers":
                names = (n.lower() for n in names)  # header names are case-insensitive
            object.__setattr__(self, field, frozenset(names))
        if self.untyped_body is not None and media_kind(self.untyped_body) is None:
            raise ValueError(
                f"WebPolicy() argument 'untyped_body': {self.untyped_body!r} is not a checked "
                "media type"
            )

    def replace(self, **changes: Any) -> WebPolicy:
        from dataclasses import replace

        return replace(self, **changes)


POLICY_FIELDS = (
    *("path", "names", "query", "headers", "cookies"),
    *("form", "filenames", "json", "text", "websocket"),
)

DEFAULT = WebPolicy()
