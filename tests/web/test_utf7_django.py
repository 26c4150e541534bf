"""UTF-7 under Django: a refused UTF-7 declaration says what the bytes spelled, through
Django's test client (WSGI), its ASGI handler and a real server (waitress), with the
project of tests/web/test_django.py."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("django")
pytest.importorskip("waitress")

from django.test import Client, override_settings  # type: ignore[import-untyped]

from sanitizer.web._problems import wrong_charset
from tests.web import test_django as project
from tests.web.request_builder import http
from tests.web.test_utf7 import SCRIPT, SPELLED, UTF7_PART, multipart
from tests.web.webservers import free_port, send, start

UTF7 = "text/plain; charset=utf-7"
PLAIN_DETAIL = wrong_charset("header", "Content-Type", "utf-7").detail


@pytest.fixture
def client() -> Iterator[Client]:
    with override_settings(**project.PROJECT):
        yield Client(raise_request_exception=False)


def problem_of(status: int, headers: Any, body: bytes) -> dict[str, Any]:
    assert status == 400, body
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert body.isascii() and not set(body) & set(b"<>&"), body
    problem: dict[str, Any] = json.loads(body)
    assert problem["kind"] == "charset"
    return problem


def test_request_level(client: Client) -> None:
    project.CALLS.clear()
    # (generic(): post() would re-encode the bytes in the declared charset, '+' as '+-')
    response = client.generic("POST", "/body", SCRIPT, content_type=UTF7)
    problem = problem_of(response.status_code, response, response.content)
    assert problem["detail"] == PLAIN_DETAIL + ": " + SPELLED
    assert project.CALLS == [("charset", "header")]
    response = client.generic("POST", "/body", b"no runs", content_type=UTF7)
    assert problem_of(response.status_code, response, response.content)["detail"] == PLAIN_DETAIL


def test_part_level(client: Client) -> None:
    body = multipart((UTF7_PART, SCRIPT))
    content_type = "multipart/form-data; boundary=utf7-boundary"
    response = client.post("/upload", body, content_type=content_type)
    problem = problem_of(response.status_code, response, response.content)
    assert problem["part"] == "multipart" and problem["detail"].endswith(": " + SPELLED)


def test_other_problems_echo_nothing(client: Client) -> None:
    response = client.post("/body", SCRIPT, content_type="text/plain; charset=latin-1")
    assert b"ADw" not in response.content and response["X-Content-Type-Options"] == "nosniff"


def test_under_django_asgi(client: Client) -> None:
    status, content = asyncio.run(project.asgi_call(b"/body", b"", UTF7.encode(), SCRIPT))
    assert status == 400 and json.loads(content)["detail"] == PLAIN_DETAIL + ": " + SPELLED


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    port = free_port()
    command = [sys.executable, "-c", "from tests.web import test_django; test_django.main()"]
    with start(command, port, cwd=project.ROOT, env={"PORT": str(port)}, output=subprocess.DEVNULL):
        yield port


@pytest.mark.servers
@pytest.mark.parametrize("chunked", [False, True])
def test_server(server: int, chunked: bool) -> None:
    request = http("POST", b"/body", [(b"Content-Type", UTF7.encode())], SCRIPT, chunked=chunked)
    response = send(server, request)
    problem = problem_of(response.status, _Headers(response.headers), response.body)
    assert problem["detail"].endswith(": " + SPELLED)


class _Headers(dict[str, str]):
    """A raw response's headers (lower-case names) looked up in any case."""

    def __getitem__(self, key: str) -> str:
        return super().__getitem__(key.lower())
