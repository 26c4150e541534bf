"""Sanic and BlackSheep behind ``ASGIMiddleware``, in process (tests/web/webframeworks.py):
what each framework's own parsers hand its app must have been judged.

Each attack is handed over by the bare framework as text that fails its part's policy (so
the case is real in that framework's reading) and refused behind the middleware; the
benign corpus passes with the same texts handed over.  Sanic pins packages the ``test``
extra cannot share (multidict < 7), so its cases run where it is installed.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from sanitizer.web import DEFAULT
from tests.web.request_builder import field, multipart_message

CORPUS = Path(__file__).resolve().parents[1] / "data" / "web_benign"
FRAMEWORKS = ("sanic", "blacksheep")


_multipart = functools.partial(multipart_message, boundary=b"XX")
FORM = [(b"Content-Type", b"application/x-www-form-urlencoded")]
JSON = [(b"Content-Type", b"application/json")]
RLO = "\u202e".encode()

# (id, frameworks whose own parsers hand the attack over, method, target, headers, body)
ATTACKS = [
    ("query-rlo", FRAMEWORKS, "GET", b"/x?q=%E2%80%AE", [], b""),
    ("route-rlo", ("blacksheep",), "GET", b"/a%E2%80%AE", [], b""),
    ("header-rlo", FRAMEWORKS, "GET", b"/x", [(b"X-Note", RLO)], b""),
    ("cookie-percent", ("blacksheep",), "GET", b"/x", [(b"Cookie", b"c=%E2%80%AE")], b""),
    ("cookie-raw", FRAMEWORKS, "GET", b"/x", [(b"Cookie", b"c=" + RLO)], b""),
    ("form-rlo", FRAMEWORKS, "POST", b"/x", FORM, b"a=%E2%80%AE"),
    ("form-nul", FRAMEWORKS, "POST", b"/x", FORM, b"a=x%00"),
    ("multipart-field", FRAMEWORKS, "POST", b"/x", *_multipart(field(b"a", RLO))),
    (
        "multipart-name-crlf",  # Sanic reads %0D%0A as LF
        ("sanic",),
        "POST",
        b"/x",
        *_multipart(field(b"a%0D%0Ab", b"v")),
    ),
    (
        "multipart-charset-latin1",  # BlackSheep decodes the next fields as _charset_ says
        ("blacksheep",),
        "POST",
        b"/x",
        *_multipart(field(b"_charset_", b"iso-8859-1"), field(b"a", "Û2J".encode())),
    ),
    ("json-escape", FRAMEWORKS, "POST", b"/x", JSON, b'{"a": "\\u202e"}'),
    ("json-surrogate", FRAMEWORKS, "POST", b"/x", JSON, b'{"a": "\\ud800"}'),
    ("json-by-content", ("sanic",), "POST", b"/x", [], b'{"a": "\\u0000"}'),
]


def _framework(name: str) -> object:
    pytest.importorskip(name)
    return pytest.importorskip("tests.web.webframeworks")


@pytest.mark.parametrize("name", FRAMEWORKS)
@pytest.mark.parametrize("case", ATTACKS, ids=[c[0] for c in ATTACKS])
def test_attacks(name: str, case: tuple[object, ...]) -> None:
    wf = _framework(name)
    _, readers, method, target, headers, body = case
    bare = wf.expose(name, method, target, headers, body)  # type: ignore[attr-defined]
    failing = [(w, t) for w, t in bare if not wf.judged(DEFAULT, w, t)]  # type: ignore[attr-defined]
    assert bool(failing) == (name in readers), bare  # type: ignore[operator]
    guarded = wf.expose(name + "_guarded", method, target, headers, body)  # type: ignore[attr-defined]
    if name in readers:  # type: ignore[operator]
        assert guarded == []  # refused: the framework's answer is the middleware's 400
    else:  # refused, or passed (a body the app never reads is never judged): nothing failing
        assert [(w, t) for w, t in guarded if not wf.judged(DEFAULT, w, t)] == []  # type: ignore[attr-defined]


def _corpus() -> list[Path]:
    return sorted(CORPUS.glob("*.http"))


@pytest.mark.parametrize("name", FRAMEWORKS)
@pytest.mark.parametrize("path", _corpus(), ids=[p.stem for p in _corpus()])
def test_benign_requests_pass_unchanged(name: str, path: Path) -> None:
    wf = _framework(name)
    from tests.web.test_benign import load

    method, target, headers, body = load(path)
    bare = wf.expose(name, method, target, headers, body)  # type: ignore[attr-defined]
    assert wf.expose(name + "_guarded", method, target, headers, body) == bare  # type: ignore[attr-defined]
    assert [(w, t) for w, t in bare if not wf.judged(DEFAULT, w, t)] == []  # type: ignore[attr-defined]
