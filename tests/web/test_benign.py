"""False alarms: real browser and mobile-client requests (tests/data/web_benign, whose
README says where each shape comes from) must all pass the middleware with the default
policy -- whole and in 7-byte chunks -- and every supported framework must be handed
only text that passes its part's policy.  The goal, and the assertion, is 0 false
alarms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sanitizer.web import DEFAULT, body_check, check_head
from sanitizer.web._websocket import websocket_problem

CORPUS = Path(__file__).resolve().parents[1] / "data" / "web_benign"
FILES = sorted(CORPUS.glob("*.http"))


def load(path: Path) -> tuple[str, bytes, list[tuple[bytes, bytes]], bytes]:
    """(method, target, headers, body) of a corpus file (its README: the format)."""
    raw = path.read_bytes()
    head, _, body = raw.partition(b"\n\n")
    lines = head.rstrip(b"\n").split(b"\n")
    method, target, _ = lines[0].split(b" ")
    headers = [tuple(line.split(b": ", 1)) for line in lines[1:]]
    content_type = dict((n.lower(), v) for n, v in headers).get(b"content-type", b"")
    if content_type.startswith(b"multipart/"):
        body = body.replace(b"\n", b"\r\n")
    fixed = [(n, b"%d" % len(body) if v == b"*" else v) for n, v in headers]
    return method.decode(), target, fixed, body  # type: ignore[return-value]


def verdict(
    target: bytes, headers: list[tuple[bytes, bytes]], body: bytes, step: int = 0
) -> object:
    path, _, query = target.partition(b"?")
    problem, head = check_head(DEFAULT, path, query, headers)
    if problem is not None:
        return problem
    check = body_check(DEFAULT, head)
    pieces = [body[i : i + step] for i in range(0, len(body), step)] if step else [body]
    for piece in pieces:
        problem = check.feed(piece)
        if problem is not None:
            return problem
    return check.close()


def test_the_corpus_is_there() -> None:
    assert len(FILES) >= 25


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_no_false_alarm(path: Path) -> None:
    _, target, headers, body = load(path)
    assert verdict(target, headers, body) is None
    assert verdict(target, headers, body, step=7) is None


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_framework_is_handed_judged_text(path: Path) -> None:
    for module in ("starlette", "litestar", "falcon", "quart", "flask", "django"):
        pytest.importorskip(module)
    from tests.web import webframeworks as wf

    method, target, headers, body = load(path)
    exposed = []
    for app in wf.APPS:
        exposed += [(app, w, t) for w, t in wf.expose(app, method, target, headers, body)]
    assert [e for e in exposed if not wf.judged(DEFAULT, e[1], e[2])] == []
    assert len(exposed) > len(wf.APPS)  # the apps read the requests


def test_websocket_messages() -> None:
    messages = json.loads((CORPUS / "websocket-messages.json").read_text(encoding="utf-8"))
    assert [m for m in messages if websocket_problem(DEFAULT, m) is not None] == []
