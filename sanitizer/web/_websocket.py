"""WebSocket text messages (RFC 6455): judged one by one by ``WebPolicy.websocket``.

The server has decoded each text message as UTF-8 (RFC 6455 §8.1: a message that is not
fails the connection) and joined its fragments, so the ASGI adapter hands over whole
messages as str; binary messages are the app's business and pass.  A message that fails
closes the connection with 1007 (``asgi._Socket``).
"""

from __future__ import annotations

from ._compiled_web import compile_web_policy
from ._config import WebPolicy
from ._problems import Problem
from ._value_checks import value_problem


def websocket_problem(policy: WebPolicy, text: str) -> Problem | None:
    """``text``, one WebSocket text message, judged by ``policy.websocket``: the first
    REJECT finding as a Problem (offsets in characters), or None."""
    compiled = compile_web_policy(policy)
    return value_problem(text, compiled.websocket, "websocket", "WebSocket message")
