"""WebSocket messages (RFC 6455): judged one by one by ``WebPolicy.websocket``, as the
frameworks read them.

The server has decoded each text message as UTF-8 (RFC 6455 §8.1: a message that is not
fails the connection) and joined its fragments, so the ASGI adapter hands over whole
messages.  A text message is judged as it is, and -- where it may be JSON -- as the
frameworks' ``receive_json()`` / ``receive_media()`` read it (``_readings``: "websocket
json"), escapes resolved, so ``{"q": "\\u202e"}`` fails as ``"\\u202e"`` would.  A
binary message is read as ``json.loads`` reads bytes (Quart's ``receive_json()``;
``_readings``: "websocket binary"): UTF-8, or UTF-16/32 where ``json.detect_encoding``
finds it; other binary messages are the app's business and pass.  A message that fails
closes the connection with 1007 (``asgi._Socket``).
"""

from __future__ import annotations

from dataclasses import replace

from ._compiled_web import compile_web_policy
from ._config import WebPolicy
from ._dispatch import json_by_content
from ._json import json_text_problem
from ._problems import Problem
from ._readings import parses_websocket
from ._value_checks import value_problem


def websocket_problem(policy: WebPolicy, message: str | bytes) -> Problem | None:
    """``message``, one WebSocket text (str) or binary (bytes) message, judged by
    ``policy.websocket``: the first REJECT finding as a Problem, or None."""
    compiled = compile_web_policy(policy)
    check = compiled.websocket
    if check is None:
        return None
    if isinstance(message, str):
        problem = value_problem(message, check, "websocket", "WebSocket message")
        if problem is not None:
            return problem
        problem = json_text_problem(check, message) if _TEXT_AS_JSON else None
    elif _BINARY_AS_JSON:
        reading = json_by_content(check)
        problem = reading.feed(message) or reading.close()
    else:
        problem = None
    if problem is None:
        return None
    where = "WebSocket message" if isinstance(message, str) else "binary WebSocket message"
    return replace(problem, part="websocket", where=f"{where} read by content ({problem.where})")


_TEXT_AS_JSON = parses_websocket("websocket json")
_BINARY_AS_JSON = parses_websocket("websocket binary")
