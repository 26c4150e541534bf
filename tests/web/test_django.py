"""``sanitizer.web.django.SanitizerMiddleware``, used as a Django user would: one string
in ``MIDDLEWARE`` and a ``SANITIZER`` dict in the settings.

The project below (ORM-free: views and URLs in this module) is run two ways: with
Django's test ``Client``, and as a real server (Django's WSGI handler under waitress on
127.0.0.1, in a child process that imports this module: ``main``) spoken to in raw HTTP,
so every attack reaches the middleware byte for byte.  Benign multilingual requests must
reach the views exactly as sent; attacks must get the middleware's 400 problem+json.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

django = pytest.importorskip("django")
pytest.importorskip("waitress")

from django.conf import settings  # type: ignore[import-untyped]  # noqa: E402

if not settings.configured:  # the same base as test_web_differential.py, whichever runs first
    settings.configure(
        DEFAULT_CHARSET="utf-8",
        ALLOWED_HOSTS=["*"],
        FILE_UPLOAD_HANDLERS=["django.core.files.uploadhandler.MemoryFileUploadHandler"],
        DATA_UPLOAD_MAX_NUMBER_FIELDS=None,
    )
    django.setup()

from django.core.exceptions import ImproperlyConfigured  # type: ignore[import-untyped]  # noqa: E402
from django.http import HttpRequest, JsonResponse  # type: ignore[import-untyped]  # noqa: E402
from django.test import Client, override_settings  # type: ignore[import-untyped]  # noqa: E402
from django.urls import path  # type: ignore[import-untyped]  # noqa: E402

from sanitizer import profiles  # noqa: E402
from sanitizer.web import Problem, WebPolicy  # noqa: E402
from tests.web.request_builder import (  # noqa: E402
    OCTETS,
    field,
    file_part,
    http,
    multipart,
)
from tests.web.webservers import HOST, free_port, send, start  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

# -- the project -----------------------------------------------------------------------------

CALLS: list[tuple[str, str]] = []  # (kind, part) of each on_problem call, in this process


def on_problem(problem: Problem, meta: Mapping[str, Any]) -> None:
    CALLS.append((problem.kind, problem.part))


PROJECT: dict[str, Any] = {
    "ROOT_URLCONF": __name__,
    "MIDDLEWARE": ["sanitizer.web.django.SanitizerMiddleware"],
    "SANITIZER": {
        "max_body_size": 1 << 20,
        "report_only": False,
        "on_problem": f"{__name__}.on_problem",
    },
    "FILE_UPLOAD_HANDLERS": [  # Django's defaults: big files stream to a temporary file
        "django.core.files.uploadhandler.MemoryFileUploadHandler",
        "django.core.files.uploadhandler.TemporaryFileUploadHandler",
    ],
    "FILE_UPLOAD_MAX_MEMORY_SIZE": 1000,
}


def query_view(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"query": request.META["QUERY_STRING"], "q": request.GET.getlist("q")})


def form_view(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"fields": {k: request.POST.getlist(k) for k in request.POST}})


def body_view(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"body": request.body.hex()})


def upload_view(request: HttpRequest) -> JsonResponse:
    files = {
        name: [f.name, hashlib.sha256(f.read()).hexdigest()] for name, f in request.FILES.items()
    }
    return JsonResponse({"files": files, "fields": {k: request.POST[k] for k in request.POST}})


def early_view(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"read": False})  # answers without reading the body


urlpatterns = [
    path("query", query_view),
    path("form", form_view),
    path("body", body_view),
    path("upload", upload_view),
    path("early", early_view),
]


def main() -> None:
    """The project under waitress on 127.0.0.1:$PORT (run by the server tests)."""
    import waitress  # type: ignore[import-untyped]
    from django.core.wsgi import get_wsgi_application  # type: ignore[import-untyped]

    with override_settings(**PROJECT):
        application = get_wsgi_application()
        waitress.serve(application, host=HOST, port=int(os.environ["PORT"]), _quiet=True)


# -- requests --------------------------------------------------------------------------------

TEXT = "Grüße, 東京, Привет, مرحبا, नमस्ते 👋"  # NFC, no controls: every policy lets it through
FILENAME = "отчёт 東京 👋.txt"
BOUNDARY = b"sanitizer-django-boundary"
MULTIPART = "multipart/form-data; boundary=" + BOUNDARY.decode()
FILE_CONTENT = bytes(range(256)) * 20 + b"\xc0\xaf\xed\xa0\x80"  # not text: passes as is


def multipart_body(filename: bytes, content: bytes, note: bytes = TEXT.encode()) -> bytes:
    """The upload form: a text field "note" and a file "file"."""
    return multipart(
        field(b"note", note), file_part(b"file", filename, content, OCTETS), boundary=BOUNDARY
    )


FORM = ("application/x-www-form-urlencoded", b"name=" + quote(TEXT).encode() + b"&n=2")
JSON_BODY = json.dumps({"text": TEXT, TEXT: [1, "\u00e9"]}, ensure_ascii=False).encode()

# name: (method, target, content type, body, part, kind)
ATTACKS: dict[str, tuple[str, bytes, str | None, bytes, str, str]] = {
    "query-overlong": ("GET", b"/query?q=%C0%AE%C0%AE%2F", None, b"", "query", "overlong"),
    "form-bidi": (
        "POST",
        b"/form",
        FORM[0],
        b"name=invoice%E2%80%AEfdp.exe",
        "form",
        "bidi-control",
    ),
    "json-nul": ("POST", b"/body", "application/json", b'{"a": "x\\u0000y"}', "json", "nul"),
    "ndjson-bidi": (
        "POST",
        b"/body",
        "application/x-ndjson",
        b'{"a": 1}\n{"b": "\\u202e"}\n',
        "json",
        "bidi-control",
    ),
    "multipart-filename": (
        "POST",
        b"/upload",
        MULTIPART,
        multipart_body(b"a\xc0\xaf..\xc0\xafpasswd", b"hi"),
        "multipart",
        "overlong",
    ),
    "multipart-traversal": (
        "POST",
        b"/upload",
        MULTIPART,
        multipart_body(b"../../etc/passwd", b"hi"),
        "multipart",
        "path-separator",
    ),
}


@pytest.fixture
def client() -> Iterator[Client]:
    with override_settings(**PROJECT):
        yield Client(raise_request_exception=False)


def problem_of(status: int, content_type: str, body: bytes) -> dict[str, Any]:
    assert status in (400, 413), body
    assert content_type == "application/problem+json"
    problem: dict[str, Any] = json.loads(body)
    assert problem["status"] == status
    return problem


# -- Django's test client --------------------------------------------------------------------


def test_benign_query(client: Client) -> None:
    response = client.get("/query", {"q": TEXT})
    assert response.status_code == 200
    assert response.json()["q"] == [TEXT]


def test_benign_form(client: Client) -> None:
    response = client.post("/form", FORM[1], content_type=FORM[0])
    assert response.status_code == 200, response.content
    assert response.json()["fields"] == {"name": [TEXT], "n": ["2"]}


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/problem+json", "application/x-ndjson", "text/plain"],
)
def test_benign_body_byte_for_byte(client: Client, content_type: str) -> None:
    response = client.post("/body", JSON_BODY, content_type=content_type)
    assert response.status_code == 200, response.content
    assert bytes.fromhex(response.json()["body"]) == JSON_BODY


def test_benign_upload(client: Client) -> None:
    body = multipart_body(FILENAME.encode(), FILE_CONTENT)
    response = client.post("/upload", body, content_type=MULTIPART)
    assert response.status_code == 200, response.content
    digest = hashlib.sha256(FILE_CONTENT).hexdigest()
    assert response.json() == {"files": {"file": [FILENAME, digest]}, "fields": {"note": TEXT}}


@pytest.mark.parametrize("attack", ATTACKS)
def test_attack_refused(client: Client, attack: str, caplog: pytest.LogCaptureFixture) -> None:
    method, target, content_type, body, part, kind = ATTACKS[attack]
    CALLS.clear()
    path_, _, query = target.decode("latin-1").partition("?")
    extra = {"QUERY_STRING": query}
    with caplog.at_level(logging.WARNING, logger="sanitizer.web"):
        if method == "GET":
            response = client.get(path_, **extra)
        else:
            response = client.post(path_, body, content_type=content_type, **extra)
    problem = problem_of(response.status_code, response["Content-Type"], response.content)
    assert (problem["part"], problem["kind"]) == (part, kind), problem
    assert CALLS == [(kind, part)]
    refusals = [r for r in caplog.records if r.name == "sanitizer.web"]
    assert len(refusals) == 1 and refusals[0].getMessage().startswith(f"refused {method} ")
    # The failed read is answered by process_exception: Django logs no internal error
    # (only its usual "Bad Request" warning for a 4xx answer).
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_view_that_does_not_read_is_not_refused(client: Client) -> None:
    """Nothing unchecked reached the app: a view that never reads the body answers."""
    response = client.post("/early", b'{"a": "\\u202e"}', content_type="application/json")
    assert response.status_code == 200


def test_too_large(client: Client) -> None:
    body = b"x=" + b"a" * (1 << 20)
    response = client.post("/form", body, content_type=FORM[0])
    problem = problem_of(response.status_code, response["Content-Type"], response.content)
    assert problem["status"] == 413


def test_report_only(client: Client) -> None:
    sanitizer = {**PROJECT["SANITIZER"], "report_only": True}
    with override_settings(SANITIZER=sanitizer):
        response = Client().post("/form", b"name=%E2%80%AE", content_type=FORM[0])
    assert response.status_code == 200
    assert response.json()["fields"] == {"name": ["\u202e"]}


def test_profile_names_in_settings(client: Client) -> None:
    with override_settings(SANITIZER={"query": "SINGLE_LINE"}):
        response = Client().get("/query", {"q": "two\nlines"})
        assert response.status_code == 400
        assert response.json()["part"] == "query"
    assert Client().get("/query", {"q": "two\nlines"}).status_code == 200  # TEXT by default


def test_body_read_by_an_earlier_middleware(client: Client) -> None:
    """A body some middleware before this one read whole is checked whole."""
    middleware = ["tests.web.test_django.ReadsBody", "sanitizer.web.django.SanitizerMiddleware"]
    with override_settings(MIDDLEWARE=middleware):
        response = Client().post("/body", b'["\\u202e"]', content_type="application/json")
        assert response.status_code == 400
        assert response.json()["kind"] == "bidi-control"
        benign = Client().post("/body", JSON_BODY, content_type="application/json")
        assert bytes.fromhex(benign.json()["body"]) == JSON_BODY


class ReadsBody:
    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> Any:
        request.body  # noqa: B018
        return self.get_response(request)


# -- settings validation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"querry": "TEXT"}, "settings.SANITIZER['querry']: unknown key"),
        ({"query": "NO_SUCH_PROFILE"}, "settings.SANITIZER['query']"),
        ({"max_body_size": "1MiB"}, "'max_body_size' must be None or an int"),
        ({"max_body_size": -1}, "'max_body_size' must be None or >= 0"),
        ({"report_only": "yes"}, "'report_only' must be a bool"),
        ({"on_problem": "no.such.module.callback"}, "settings.SANITIZER['on_problem']"),
        ({"on_problem": 3}, "must be a callable or its dotted path"),
        (["query"], "must be a dict"),
    ],
)
def test_bad_settings_are_improperly_configured(config: Any, message: str) -> None:
    from sanitizer.web.django import SanitizerMiddleware

    with override_settings(SANITIZER=config), pytest.raises(ImproperlyConfigured) as info:
        SanitizerMiddleware(lambda request: None)
    assert message in str(info.value)


def test_settings_to_policy() -> None:
    from sanitizer.web.django import policy_from_settings

    policy, callback = policy_from_settings(
        {
            "query": "SINGLE_LINE",
            "text": None,
            "json": profiles.SINGLE_LINE,
            "charsets": ["utf-8", "UTF8"],
            "max_body_size": 1024,
            "on_problem": on_problem,
        }
    )
    assert policy == WebPolicy(
        query=profiles.SINGLE_LINE, text=None, json=profiles.SINGLE_LINE, max_body_size=1024
    )
    assert callback is on_problem
    assert policy_from_settings(None) == (WebPolicy(), None)


def test_importing_sanitizer_web_does_not_import_django() -> None:
    code = "import sys, sanitizer.web; assert 'django' not in sys.modules, 'django imported'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


# -- a real server: Django's WSGI handler under waitress -------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    port = free_port()
    command = [sys.executable, "-c", "from tests.web import test_django; test_django.main()"]
    with start(command, port, cwd=ROOT, env={"PORT": str(port)}):
        yield port


def raw(method: str, target: bytes, content_type: str | None, body: bytes) -> bytes:
    headers = [] if content_type is None else [(b"Content-Type", content_type.encode())]
    return http(method, target, headers, body)


@pytest.mark.servers
def test_server_benign_byte_for_byte(server: int) -> None:
    query = b"q=" + quote(TEXT).encode() + b"&q=%2B%20%26"
    response = send(server, http("GET", b"/query?" + query))
    assert response.status == 200, response
    assert response.json() == {"query": query.decode(), "q": [TEXT, "+ &"]}
    for content_type in ("application/json", "application/x-ndjson", "text/plain; charset=utf-8"):
        response = send(server, raw("POST", b"/body", content_type, JSON_BODY))
        assert response.status == 200, response
        assert bytes.fromhex(response.json()["body"]) == JSON_BODY
    response = send(server, raw("POST", b"/form", *FORM))
    assert response.json()["fields"] == {"name": [TEXT], "n": ["2"]}
    response = send(
        server, raw("POST", b"/upload", MULTIPART, multipart_body(FILENAME.encode(), FILE_CONTENT))
    )
    assert response.status == 200, response
    digest = hashlib.sha256(FILE_CONTENT).hexdigest()
    assert response.json() == {"files": {"file": [FILENAME, digest]}, "fields": {"note": TEXT}}


@pytest.mark.servers
@pytest.mark.parametrize("attack", ATTACKS)
def test_server_attack_refused(server: int, attack: str) -> None:
    method, target, content_type, body, part, kind = ATTACKS[attack]
    response = send(server, raw(method, target, content_type, body))
    problem = problem_of(response.status, response.headers["content-type"], response.body)
    assert (problem["part"], problem["kind"]) == (part, kind), problem


@pytest.mark.servers
@pytest.mark.parametrize(
    ("target", "kind"),
    [(b"/query/%2e%2e/x", "dot-segment"), (b"/query/%C0%AF..", "overlong")],
)
def test_server_raw_path_is_checked(server: int, target: bytes, kind: str) -> None:
    """waitress gives REQUEST_URI: the path is checked as sent, and percent-decoded once."""
    response = send(server, http("GET", target))
    problem = problem_of(response.status, response.headers["content-type"], response.body)
    assert (problem["part"], problem["kind"]) == ("path", kind)


@pytest.mark.servers
def test_example_as_a_wsgi_wrapper() -> None:
    """examples/django_app.py uses MIDDLEWARE (tests/suites/test_web_examples.py runs it so); with
    SANITIZER_VIA=wsgi it shows the WSGI wrapper instead, which must refuse alike."""
    port = free_port()
    command = [sys.executable, str(ROOT / "examples" / "django_app.py")]
    env = {"PORT": str(port), "SANITIZER_VIA": "wsgi"}
    with start(command, port, cwd=ROOT, env=env, output=subprocess.DEVNULL):
        response = send(port, http("GET", b"/echo?q=" + quote(TEXT).encode()))
        assert (response.status, response.json()) == (200, {"q": TEXT})
        response = send(port, http("GET", b"/echo?q=%C0%AE"))
        problem = problem_of(response.status, response.headers["content-type"], response.body)
        assert (problem["part"], problem["kind"]) == ("query", "overlong")


async def asgi_call(
    path_: bytes, query: bytes, content_type: bytes, body: bytes
) -> tuple[int, bytes]:
    """One request through Django's ASGI handler (the scope as a server gives it)."""
    from django.core.handlers.asgi import ASGIHandler  # type: ignore[import-untyped]

    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    scope = {
        **{"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1"},
        **{"method": "POST", "scheme": "http", "root_path": "", "headers": headers},
        **{"path": path_.decode("latin-1"), "raw_path": path_, "query_string": query},
        **{"client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80)},
    }
    messages = [{"type": "http.request", "body": body, "more_body": False}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop(0)
        await asyncio.Event().wait()  # no disconnect: Django would cancel the response
        raise AssertionError

    async def send_(message: dict[str, Any]) -> None:
        sent.append(message)

    await ASGIHandler()(scope, receive, send_)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


@pytest.mark.parametrize(
    ("target", "content_type", "body", "status", "kind"),
    [
        (b"/body", b"application/json", JSON_BODY, 200, None),
        (b"/body", b"application/json", b'{"a": "\\u202e"}', 400, "bidi-control"),
        (b"/form", FORM[0].encode(), b"name=%E2%80%AE", 400, "bidi-control"),
        (b"/query?q=%C0%AE", b"text/plain", b"", 400, "overlong"),
    ],
)
def test_under_django_asgi(
    client: Client, target: bytes, content_type: bytes, body: bytes, status: int, kind: str | None
) -> None:
    path_, _, query = target.partition(b"?")
    got, content = asyncio.run(asgi_call(path_, query, content_type, body))
    assert got == status, content
    if kind is None:
        assert bytes.fromhex(json.loads(content)["body"]) == body
    else:
        assert json.loads(content)["kind"] == kind
