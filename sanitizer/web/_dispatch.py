"""``body_check``: which body check a request gets, from the media kind ``check_head``
found.  The one place that maps a kind to its module; a part switched off in the
``WebPolicy`` (None) leaves its bodies only counted against the size limit.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from .._policy.compiled import CompiledPolicy
from ._body import BodyCheck
from ._compiled_web import compile_web_policy
from ._config import WebPolicy
from ._form import FormBody
from ._grammar import charset_label, parse_media_type
from ._head import Head
from ._json import JSONBody, JSONByContent
from ._msgpack import MsgpackByContent
from ._multipart import MultipartBody
from ._problems import Problem, multipart_unchecked
from ._readings import parses_json_by_content, parses_msgpack_by_content
from ._text import TextBody, TextByContent


def body_check(policy: WebPolicy, head: Head) -> BodyCheck:
    """A fresh check for the body of the request whose head was ``head``."""
    compiled = compile_web_policy(policy)
    if not isinstance(head, Head):
        raise TypeError(f"head must be the Head check_head returned, not {type(head).__qualname__}")
    limit = policy.max_body_size
    check: BodyCheck
    if head.media == "multipart":
        if not multipart_available():
            return _Unchecked(limit, multipart_unchecked())
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


def text_by_content(
    policy: WebPolicy,
    head: Head,
    headers: Iterable[tuple[bytes, bytes]],
    bound: int | None,
    *,
    hold: bool,
) -> BodyCheck:
    """``body_check``, and for a body whose media type no check reads (``head.media`` None)
    also the reading of an accessor that decodes any body as text (``_readings``: "text";
    aiohttp's and BlackSheep's ``request.text()``): in the declared charset (``headers``'
    Content-Type; UTF-8 without one), judged by the ``text`` policy
    (``_text.TextByContent``; ``bound`` and ``hold`` as there)."""
    check = body_check(policy, head)
    compiled = compile_web_policy(policy)
    if head.media is not None or compiled.text is None:
        return check
    by_content = check.json_by_content
    charset = "utf-8"
    for name, value in headers:
        if name.lower() == b"content-type":
            parsed = parse_media_type(value)  # check_head passed it: it parses
            label = parsed[1].get("charset") if parsed is not None else None
            charset = charset_label(label) if label is not None else charset
            break
    text = TextByContent(
        compiled.text.policy, policy.max_body_size, bound, hold=hold, charset=charset
    )
    text.json_by_content = by_content
    return text


@functools.cache
def multipart_available() -> bool:
    """Whether python-multipart (the ``web`` extra) can be imported: without it,
    ``sanitizer.web`` still imports and checks every other body, and refuses multipart
    ones (415) instead of passing them on unread."""
    try:
        import python_multipart  # noqa: F401
    except ImportError:
        return False
    return True


class _Unchecked(BodyCheck):
    """A body no check here can read: refused at its first byte (or its end, if empty)."""

    __slots__ = ("_refusal",)

    def __init__(self, limit: int | None, refusal: Problem) -> None:
        super().__init__(limit)
        self._refusal = refusal

    def _feed(self, chunk: bytes) -> Problem | None:
        return self._refusal

    def _close(self) -> Problem | None:
        return self._refusal


def json_by_content(compiled: CompiledPolicy) -> BodyCheck:
    """A check that only reads its input as JSON by content (a binary WebSocket message,
    which Quart's ``receive_json()`` hands to ``json.loads``), strings judged by
    ``compiled``."""
    check = BodyCheck(None)
    check.json_by_content = functools.partial(_by_content, compiled)
    return check


def _by_content(
    compiled: CompiledPolicy, wide: str | None = None, packed: bool = False
) -> BodyCheck:
    """The check of a body read by content: as JSON (``wide``: the UTF-16 or UTF-32
    encoding ``json.detect_encoding`` found in its first bytes, if it did), and as
    MessagePack when ``packed`` (its first byte starts a map, an array or a string)."""
    if not packed:
        return JSONByContent(compiled, wide)
    if wide is None or not _MSGPACK_BY_CONTENT:
        return MsgpackByContent(compiled) if _MSGPACK_BY_CONTENT else JSONByContent(compiled, wide)
    return _Both(JSONByContent(compiled, wide), MsgpackByContent(compiled))


class _Both(BodyCheck):
    """Two readings of one body (a MessagePack map that json.loads reads as UTF-16)."""

    def __init__(self, first: BodyCheck, second: BodyCheck) -> None:
        super().__init__(None)
        self._readings = (first, second)

    def feed(self, chunk: bytes) -> Problem | None:
        problems = [reading.feed(chunk) for reading in self._readings]
        return next((p for p in problems if p is not None), None)

    def close(self) -> Problem | None:
        problems = [reading.close() for reading in self._readings]
        return next((p for p in problems if p is not None), None)


_JSON_BY_CONTENT = bool(parses_json_by_content())
_MSGPACK_BY_CONTENT = bool(parses_msgpack_by_content())
_JSON_KINDS = ("json", "json-seq")
