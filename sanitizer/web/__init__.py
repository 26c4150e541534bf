"""Web integration: ASGI and WSGI middleware that refuse ill-formed and dangerous input
at the edge, before routing, form parsing or JSON decoding.

    app = sanitizer.web.ASGIMiddleware(app)      # Starlette, FastAPI, any ASGI 3 app
    app = sanitizer.web.WSGIMiddleware(app)      # Flask, Django, any PEP 3333 app
    MIDDLEWARE = ["sanitizer.web.django.SanitizerMiddleware", ...]   # Django settings

What is checked and why: docs/web.md.  The deciding code is sans-IO, in small private
modules with one job each (like h11):

    _grammar        RFC 9110 tokens, quoted strings, media types and parameters
    _percent        percent- and form-decoding (RFC 3986 §2.1, WHATWG URL §5.1)
    _problems       Problem (RFC 9457) and every function that makes one
    _config         WebPolicy: which Policy judges each part of a request
    _compiled_web   CompiledWebPolicy: what the checks derive from a WebPolicy, built once
    _value_checks   one value, one name=value field, one form-encoded run
    _head           check_head: request line and headers, with a C fast path
    _body           BodyCheck: the base of the body checks (size limit, first problem)
    _text, _form, _multipart, _json   one module per body kind
    _dispatch       body_check: the body check for a media kind
    _report         logging and the on_problem callback

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
