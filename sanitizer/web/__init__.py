"""Web integration: ASGI and WSGI middleware that refuse ill-formed and dangerous input
at the edge, before routing, form parsing or JSON decoding.

    app = sanitizer.web.ASGIMiddleware(app)      # Starlette, FastAPI, any ASGI 3 app
    app = sanitizer.web.WSGIMiddleware(app)      # Flask, Django, any PEP 3333 app

What is checked and why: docs/web.md.  The deciding code is sans-IO (``checks``,
``bodies``); the two middleware classes only translate.  Multipart bodies need the
``web`` extra (python-multipart).
"""

from __future__ import annotations

from .asgi import ASGIMiddleware
from .bodies import BodyCheck, body_check
from .checks import DEFAULT, WebPolicy, check_head
from .problem import PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE, Problem
from .report import LOGGER, ProblemCallback
from .wsgi import RequestRejected, WSGIMiddleware

__all__ = [
    "DEFAULT",
    "LOGGER",
    "PROBLEM_CONTENT_TYPE",
    "PROBLEM_TYPE_BASE",
    "ASGIMiddleware",
    "BodyCheck",
    "Problem",
    "ProblemCallback",
    "RequestRejected",
    "WSGIMiddleware",
    "WebPolicy",
    "body_check",
    "check_head",
]
