"""Web integration: ASGI and WSGI middleware that refuse ill-formed and dangerous input
at the edge, before routing, form parsing or JSON decoding.

    app = sanitizer.web.ASGIMiddleware(app)      # Starlette, FastAPI, any ASGI 3 app
    app = sanitizer.web.WSGIMiddleware(app)      # Flask, Django, any PEP 3333 app
    MIDDLEWARE = ["sanitizer.web.django.SanitizerMiddleware", ...]   # Django settings

What is checked and why: docs/web.md.  The deciding code is sans-IO, in small private
modules with one job each (like h11); docs/web.md lists them, from their docstrings.

The adapters (``asgi``, ``wsgi``, and ``django``, which imports Django and is not
imported here) only translate.  Multipart bodies need
the ``web`` extra (python-multipart).
"""

from __future__ import annotations

from ._body import BodyCheck
from ._config import BROWSER_UTF8_HEADERS, DEFAULT, WebPolicy
from ._dispatch import body_check
from ._head import check_head
from ._problems import PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE, Problem
from ._report import LOGGER, ProblemCallback
from .asgi import ASGIMiddleware
from .wsgi import RequestRejected, WSGIMiddleware

__all__ = [
    "BROWSER_UTF8_HEADERS",
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
