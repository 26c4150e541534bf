"""Django middleware: the same checks as ``WSGIMiddleware``, added as Django users expect::

    MIDDLEWARE = ["sanitizer.web.django.SanitizerMiddleware", ...]  # first, or near it
    SANITIZER = {"query": "SINGLE_LINE", "max_body_size": 1048576}  # optional

``settings.SANITIZER`` holds ``WebPolicy`` fields (a policy as a profile name or a
``Policy``) and optionally ``on_problem`` (a callable or its dotted path); it is validated
when Django loads the middleware, as ``ImproperlyConfigured``.

The head is judged from the raw request target when the server gives it (``RAW_URI``,
``REQUEST_URI``; ASGI's ``raw_path``), else from PATH_INFO, which is percent-decoded.
The body is checked as Django reads it: the request's stream is wrapped in the WSGI
adapter's ``CheckedInput`` before any view or later middleware parses ``request.POST``,
``request.FILES`` or ``request.body``, so uploads still stream to Django's upload
handlers and nothing is read that the app does not read.  A refused body makes Django's
read fail (``UnreadablePostError`` or the upload parser's error): ``process_exception``
answers the problem instead, and a response made from the failure elsewhere (a later
middleware's 500) is replaced too.  This module is the only one in ``sanitizer.web``
that imports Django.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings  # type: ignore[import-untyped]
from django.core.exceptions import ImproperlyConfigured  # type: ignore[import-untyped]
from django.http import HttpRequest, HttpResponse  # type: ignore[import-untyped]
from django.utils.module_loading import import_string  # type: ignore[import-untyped]

from .. import profiles
from ._body import BodyCheck
from ._config import POLICY_FIELDS, WebPolicy
from ._dispatch import body_check
from ._head import check_head
from ._problems import NOSNIFF, PROBLEM_CONTENT_TYPE, Problem, sample_size, with_sample
from ._report import ProblemCallback, Reporter, configure
from .wsgi import CheckedInput, read_sample, report_environ, request_headers

__all__ = ["SanitizerMiddleware", "policy_from_settings"]

_FIELDS = frozenset(WebPolicy.__dataclass_fields__)
_REFUSED = "_sanitizer_refused"  # request attribute: the problem that refused its body


def policy_from_settings(
    config: Mapping[str, Any] | None,
) -> tuple[WebPolicy, ProblemCallback | None]:
    """``settings.SANITIZER`` as a ``WebPolicy`` and the ``on_problem`` callback, or
    ``ImproperlyConfigured`` saying which key is wrong and why."""
    if config is None:
        return WebPolicy(), None
    if not isinstance(config, Mapping):
        raise ImproperlyConfigured(
            f"settings.SANITIZER must be a dict of WebPolicy fields, not {type(config).__name__}"
        )
    fields: dict[str, Any] = {}
    on_problem: ProblemCallback | None = None
    for key, value in config.items():
        where = f"settings.SANITIZER[{key!r}]"
        if key == "on_problem":
            on_problem = _callback(value, where)
        elif key not in _FIELDS:
            known = ", ".join(sorted(_FIELDS | {"on_problem"}))
            raise ImproperlyConfigured(f"{where}: unknown key; the keys are {known}")
        elif key in POLICY_FIELDS and isinstance(value, str):
            try:
                fields[key] = profiles.get(value)
            except (LookupError, ValueError) as exc:
                raise ImproperlyConfigured(f"{where}: {exc}") from None
        elif key == "charsets" and isinstance(value, (list, tuple, set)):
            fields[key] = frozenset(value)
        else:
            fields[key] = value
    try:
        return WebPolicy(**fields), on_problem
    except (TypeError, ValueError) as exc:
        raise ImproperlyConfigured(f"settings.SANITIZER: {exc}") from None


def _callback(value: object, where: str) -> ProblemCallback | None:
    if value is None or callable(value):
        return value
    if isinstance(value, str):
        try:
            found = import_string(value)
        except ImportError as exc:
            raise ImproperlyConfigured(f"{where}: {exc}") from None
        if callable(found):
            return found  # type: ignore[no-any-return]
    raise ImproperlyConfigured(f"{where}: must be a callable or its dotted path, not {value!r}")


class SanitizerMiddleware:
    """Refuse ill-formed and dangerous input before Django routes, parses or decodes it.

    Configured by ``settings.SANITIZER`` (see the module docstring).  Put it first in
    ``MIDDLEWARE``, or at least before any middleware that reads ``request.POST`` or the
    body (``CsrfViewMiddleware`` does, for a POST without a CSRF header).  Each refusal
    is logged to ``sanitizer.web`` and passed to ``on_problem(problem, request.META)``.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        policy, on_problem = policy_from_settings(getattr(settings, "SANITIZER", None))
        self.policy: WebPolicy
        self.reporter: Reporter
        self.policy, self.reporter = configure(policy, {}, on_problem, None)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        meta = request.META
        path, query, headers, decoded = _head(request)
        problem, head = check_head(self.policy, path, query, headers, path_decoded=decoded)
        if problem is not None:
            if not self.policy.report_only:  # a UTF-7 charset: what the body spelled
                wanted = sample_size(problem, _body_length(request, head.content_length))
                problem = with_sample(problem, read_sample(request, wanted))
            self._report(problem, meta, path, query)
            if not self.policy.report_only:
                return problem_response(problem)

        def failed(problem: Problem) -> bool:
            self._report(problem, meta, path, query)
            if self.policy.report_only:
                return False
            setattr(request, _REFUSED, problem)
            return True

        check = body_check(self.policy, head)
        if hasattr(request, "_body"):  # an earlier middleware read it all: check it whole
            check.feed(request._body)
            check.close()
            if check.problem is not None and failed(check.problem):
                return problem_response(check.problem)
        else:
            length = _body_length(request, head.content_length)
            request._stream = _CheckedStream(request._stream, check, length, failed)
        response = self.get_response(request)
        refused: Problem | None = getattr(request, _REFUSED, None)
        if refused is not None:  # whatever Django made of the failed read (a 500 page)
            return problem_response(refused)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """A view's read of a refused body failed: answer the problem, so Django neither
        logs an internal error nor renders its 500 page."""
        refused: Problem | None = getattr(request, _REFUSED, None)
        return None if refused is None else problem_response(refused)

    def _report(self, problem: Problem, meta: Mapping[str, Any], path: bytes, query: bytes) -> None:
        report_environ(self.reporter, problem, meta, path, query)


class _CheckedStream(CheckedInput):
    """``CheckedInput`` as Django's request stream: Django closes it once read."""

    def __init__(
        self,
        stream: Any,
        check: BodyCheck,
        length: int | None,
        failed: Callable[[Problem], bool],
    ) -> None:
        super().__init__(stream, check, length, failed)
        self._inner = stream

    def close(self) -> None:
        close = getattr(self._inner, "close", None)
        if close is not None:
            close()


def problem_response(problem: Problem) -> HttpResponse:
    """The RFC 9457 problem+json answer, as the WSGI and ASGI adapters send it."""
    response = HttpResponse(
        problem.body(), status=problem.status, content_type=PROBLEM_CONTENT_TYPE
    )
    response[NOSNIFF[0]] = NOSNIFF[1]
    return response


def _body_length(request: HttpRequest, length: int | None) -> int | None:
    """How much of the body may be read: Content-Length's ``length``, or None: to its end
    (ASGI: Django spooled the whole body; WSGI: the server says the input is terminated),
    or 0 (PEP 3333: no CONTENT_LENGTH, no body)."""
    if length is None and not (
        request.META.get("wsgi.input_terminated") or hasattr(request, "scope")
    ):
        return 0
    return length


def _head(request: HttpRequest) -> tuple[bytes, bytes, list[tuple[bytes, bytes]], bool]:
    """The raw path, query and headers of a Django request, and whether the path is
    percent-decoded already."""
    meta = request.META
    scope = getattr(request, "scope", None)  # ASGIRequest: the ASGI scope as received
    if isinstance(scope, Mapping) and scope.get("type") == "http":
        raw_path = scope.get("raw_path")
        if raw_path:
            path, decoded = bytes(raw_path).partition(b"?")[0], False
        else:
            path, decoded = (scope.get("root_path", "") + scope["path"]).encode("utf-8"), True
        headers = [(bytes(k), bytes(v)) for k, v in scope.get("headers", ())]
        return path, bytes(scope.get("query_string", b"")), headers, decoded
    raw = meta.get("RAW_URI") or meta.get("REQUEST_URI")  # gunicorn, waitress...
    if raw:
        path, decoded = raw.encode("latin-1").partition(b"?")[0], False
    else:  # PEP 3333: SCRIPT_NAME and PATH_INFO are percent-decoded, as latin-1 str
        script = meta.get("SCRIPT_NAME", "")
        path, decoded = (script + meta.get("PATH_INFO", "")).encode("latin-1"), True
    query = meta.get("QUERY_STRING", "").encode("latin-1")
    return path, query, list(request_headers(meta)), decoded
