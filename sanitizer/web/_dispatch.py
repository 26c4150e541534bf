"""``body_check``: which body check a request gets, from the media kind ``check_head``
found.  The one place that maps a kind to its module; a part switched off in the
``WebPolicy`` (None) leaves its bodies only counted against the size limit.
"""

from __future__ import annotations

from ._body import BodyCheck
from ._compiled_web import compile_web_policy
from ._config import WebPolicy
from ._form import FormBody
from ._head import Head
from ._json import JSONBody
from ._multipart import MultipartBody
from ._text import TextBody


def body_check(policy: WebPolicy, head: Head) -> BodyCheck:
    """A fresh check for the body of the request whose head was ``head``."""
    compiled = compile_web_policy(policy)
    if not isinstance(head, Head):
        raise TypeError(f"head must be the Head check_head returned, not {type(head).__qualname__}")
    limit = policy.max_body_size
    if head.media == "form" and (compiled.names or compiled.form):
        return FormBody(compiled, limit)
    if head.media == "multipart":
        return MultipartBody(compiled, limit, head.boundary)
    if head.media == "json" and compiled.json is not None:
        return JSONBody(compiled.json, limit)
    if head.media == "json-seq" and compiled.json is not None:
        return JSONBody(compiled.json, limit, sequence=True)  # RFC 7464: RS before records
    if head.media == "text" and compiled.text is not None:
        return TextBody(compiled.text.policy, limit)
    return BodyCheck(limit)
