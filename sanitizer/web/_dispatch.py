"""``body_check``: which body check a request gets, from the media kind ``check_head``
found.  The one place that maps a kind to its module; a part switched off in the
``WebPolicy`` (None) leaves its bodies only counted against the size limit.
"""

from __future__ import annotations

import functools

from .._policy.compiled import CompiledPolicy
from ._body import BodyCheck
from ._compiled_web import compile_web_policy
from ._config import WebPolicy
from ._form import FormBody
from ._head import Head
from ._json import JSONBody, JSONByContent, wide_json
from ._multipart import MultipartBody
from ._readings import parses_json_by_content
from ._text import TextBody


def body_check(policy: WebPolicy, head: Head) -> BodyCheck:
    """A fresh check for the body of the request whose head was ``head``."""
    compiled = compile_web_policy(policy)
    if not isinstance(head, Head):
        raise TypeError(f"head must be the Head check_head returned, not {type(head).__qualname__}")
    limit = policy.max_body_size
    check: BodyCheck
    if head.media == "multipart":
        return MultipartBody(compiled, limit, head.boundary)
    if head.media == "json" and compiled.json is not None:
        return JSONBody(compiled.json, limit)
    if head.media == "json-seq" and compiled.json is not None:
        return JSONBody(compiled.json, limit, sequence=True)  # RFC 7464: RS before records
    if head.media == "form" and (compiled.names or compiled.form):
        check = FormBody(compiled, limit)
    elif head.media == "text" and compiled.text is not None:
        check = TextBody(compiled.text.policy, limit)
    else:
        check = BodyCheck(limit)
    # Any other body may be parsed as JSON whatever its label (_readings: Starlette's and
    # Litestar's request.json(), Falcon's get_media() on an untyped body).
    if compiled.json is not None and _JSON_BY_CONTENT and head.media not in _JSON_KINDS:
        check.json_by_content = functools.partial(_by_content, compiled.json)
    return check


def _by_content(compiled: CompiledPolicy, wide: bytes = b"") -> BodyCheck:
    """The check of a body read as JSON by content; ``wide``: its first bytes, when they
    are a UTF-16 or UTF-32 byte order mark."""
    return JSONByContent(compiled, wide_json(wide) if wide else None)


_JSON_BY_CONTENT = bool(parses_json_by_content())
_JSON_KINDS = ("json", "json-seq")
