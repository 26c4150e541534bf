"""A single-file Django project with ``sanitizer.web.django.SanitizerMiddleware``: requests
with ill-formed UTF-8 or dangerous characters in the query, a JSON string or a form are
answered 400 (problem+json) before Django routes them.  Run it (waitress on 127.0.0.1:8000;
set PORT to change the port)::

    python examples/django_app.py

and try, from another shell::

    curl -i 'http://127.0.0.1:8000/echo?q=%E6%9D%B1%E4%BA%AC'   # 200 {"q": "東京"}
    curl -i 'http://127.0.0.1:8000/echo?q=%C0%AE'               # 400: overlong '.'
    curl -i -H 'Content-Type: application/json' -d '{"text": "Grüße"}' \\
        http://127.0.0.1:8000/json
    curl -i -F 'file=@README.md' http://127.0.0.1:8000/upload

The whole setup is one line in ``MIDDLEWARE`` (first, before any middleware that reads the
body), with the options in ``settings.SANITIZER``.  The same checks also run as a WSGI
wrapper, ``application = WSGIMiddleware(get_wsgi_application(), ...)``: run the example
with ``SANITIZER_VIA=wsgi`` to see it.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
from collections.abc import Mapping
from typing import Any

import waitress
from django.conf import settings
from django.core.wsgi import get_wsgi_application
from django.http import HttpRequest, JsonResponse
from django.urls import path
from django.views.decorators.http import require_GET, require_POST

from sanitizer.web import Problem, WSGIMiddleware

logging.basicConfig(level=logging.INFO)  # every refusal: a WARNING from "sanitizer.web"
log = logging.getLogger("django_app")


def on_problem(problem: Problem, environ: Mapping[str, Any]) -> None:
    """Called once per refused request (with request.META): a hook for metrics or alerts."""
    log.info("on_problem: %s in %s from %s", problem.kind, problem.part, environ["REMOTE_ADDR"])


WSGI_WRAPPER = os.environ.get("SANITIZER_VIA") == "wsgi"
settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    SECRET_KEY=secrets.token_urlsafe(),  # nothing here is signed: no sessions, no CSRF
    ROOT_URLCONF=__name__,
    MIDDLEWARE=[] if WSGI_WRAPPER else ["sanitizer.web.django.SanitizerMiddleware"],
    # Optional: WebPolicy fields (policies by profile name) and on_problem.
    SANITIZER={"max_body_size": 16 * 1024 * 1024, "on_problem": on_problem},
)


@require_GET
def echo(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"q": request.GET.get("q", "")})


@require_POST
def json_echo(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"text": json.loads(request.body)["text"]})


@require_POST
def upload(request: HttpRequest) -> JsonResponse:
    file = request.FILES["file"]
    return JsonResponse({"filename": file.name, "size": file.size})


urlpatterns = [path("echo", echo), path("json", json_echo), path("upload", upload)]

application = get_wsgi_application()
if WSGI_WRAPPER:
    application = WSGIMiddleware(application, on_problem=on_problem)

if __name__ == "__main__":
    waitress.serve(application, host="127.0.0.1", port=int(os.environ.get("PORT", "8000")))
