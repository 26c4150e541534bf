"""Parser differentials of urlencoded forms and of bodies read as JSON whatever their label.

As in tests/suites/test_web_differential_head.py: Hypothesis generates the body; each supported
framework's app (tests/web/webframeworks.py) is called in process with it, and every text it
was handed -- form names and values, and the strings its JSON accessor returns
(Starlette's and Litestar's ``request.json()`` parse any body, Falcon's ``get_media()`` a
body without Content-Type, Flask's and Quart's ``get_json()`` declared JSON) -- must pass
its part's policy whenever the middleware passed the request.  Multipart bodies are
tests/suites/test_web_differential.py.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from sanitizer.web import DEFAULT

for _module in ("starlette", "werkzeug", "django", "litestar", "falcon", "quart"):
    pytest.importorskip(_module)

from tests.suites.test_web_differential_head import PIECES  # noqa: E402
from tests.web import webframeworks as wf  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)

_SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
_value = st.lists(st.sampled_from(PIECES), max_size=6).map(b"".join)
FORM = b"application/x-www-form-urlencoded"


def _check(content_type: bytes | None, body: bytes) -> list[tuple[str, str, str]]:
    headers = [(b"Content-Type", content_type)] if content_type is not None else []
    problem = wf.middleware_verdict(DEFAULT, "POST", b"/b", headers, body)
    event("passed" if problem is None else f"refused: {problem.kind}")
    return wf.unjudged(DEFAULT, "POST", b"/b", headers, body, apps=BODY_APPS)


# Django under ASGI parses bodies with the same code as under WSGI, at ten times the cost.
BODY_APPS = tuple(app for app in wf.APPS if app != "django_asgi")


@st.composite
def form_bodies(draw: st.DrawFn) -> bytes:
    pairs = draw(st.lists(st.tuples(_value, _value), min_size=1, max_size=3))
    return b"&".join(n + b"=" + v for n, v in pairs)


@_SETTINGS
@given(
    body=form_bodies(),
    charset=st.sampled_from([b"", b"; charset=utf-8", b"; charset=UTF-8"]),
)
def test_form_text_every_framework_exposes_was_judged(body: bytes, charset: bytes) -> None:
    assert _check(FORM + charset, body) == [], body


# JSON strings with escapes of what is harmless and what is not, raw UTF-8 and bytes that
# are not, inside documents of every shape; sent with every label.
ESCAPES = [
    *(b"a", b" ", "é".encode(), "日".encode(), b"\\n", b"\\t", b'\\"', b"\\\\", b"\\/"),
    *(b"\\u00e9", b"\\u202e", b"\\u202E", b"\\u0000", b"\\u001b", b"\\u0085", b"\\u009b"),
    *(b"\\udb40\\udc41", b"\\ud83d\\ude00", b"\\ud800", b"\\b", b"\\f", b"\\r"),
    *("\u202e".encode(), b"\xed\xa0\x80", b"\xff", b"\\x41", b"\\u12"),
]
_string = st.lists(st.sampled_from(ESCAPES), max_size=4).map(lambda p: b'"' + b"".join(p) + b'"')
LABELS = [
    None,
    b"text/plain",
    b"text/plain; charset=utf-8",
    b"application/octet-stream",
    FORM,
    b"application/x-www-form-urlencoded; charset=utf-8",
    b"image/png",
    b"application/json",
]


@st.composite
def json_documents(draw: st.DrawFn) -> bytes:
    key, value = draw(_string), draw(_string)
    shape = draw(st.integers(0, 4))
    if shape == 0:
        doc = b"{" + key + b": " + value + b"}"
    elif shape == 1:
        doc = b"[" + key + b", " + value + b", 1, null]"
    elif shape == 2:
        doc = value
    elif shape == 3:
        doc = b'{"a": {' + key + b": [" + value + b"]}}"
    else:
        doc = b"{" + key + b":" + value + b"," + draw(_string) + b": true}"
    lead = draw(st.sampled_from([b"", b" ", b"\r\n", b"\xef\xbb\xbf", b"\t "]))
    return lead + doc + draw(st.sampled_from([b"", b"\n", b" "]))


@_SETTINGS
@given(body=json_documents(), label=st.sampled_from(LABELS))
def test_json_text_every_framework_exposes_was_judged(body: bytes, label: bytes | None) -> None:
    assert _check(label, body) == [], (label, body)


# json.loads of bytes finds UTF-16 and UTF-32 by where the zero bytes are (json.detect_encoding),
# BOM or none, so Starlette's request.json() and Flask's get_json() read such bodies too.
WIDE = ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "utf-16", "utf-32"]


@settings(_SETTINGS, max_examples=max(10, settings().max_examples // 2))  # 7 apps a body
@given(
    body=json_documents(),
    encoding=st.sampled_from(WIDE),
    label=st.sampled_from([None, b"application/octet-stream", b"application/xml", b"text/plain"]),
)
def test_wide_json_text_every_framework_exposes_was_judged(
    body: bytes, encoding: str, label: bytes | None
) -> None:
    try:
        text = body.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        text = body.decode("latin-1")
    wide = text.encode(encoding, "surrogatepass")
    assert _check(label, wide) == [], (label, wide)


# -- what testers found ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "body", "kind"),
    [
        # Starlette and Litestar decode raw form bytes as Latin-1 (Ņ = C5 85: "Å" + NEL)
        (FORM, "n\u0145=1".encode(), "ambiguous-form"),
        (FORM + b"; charset=utf-8", "a=\u00db".encode(), "ambiguous-form"),
        # request.json() on text/plain (Starlette, Litestar); get_media() without a type
        (b"text/plain", b'{"a": "\\u202e"}', "bidi-control"),
        (None, b'{"a": "\\u202e"}', "bidi-control"),
        (None, b'["\\udb40\\udc41"]', "tag"),
        (b"application/octet-stream", b' {"\\u0000": 1}', "nul"),
        (FORM, b'{"a":"\\u001b[2J"}', "control"),
        # json.loads detects UTF-16 and UTF-32 without a BOM, after whitespace too
        (None, ' {"a": "\u202e"}'.encode("utf-16-le"), "bidi-control"),
        (b"application/octet-stream", '["\\ud800"]'.encode("utf-16-be"), "lone-surrogate-escape"),
        (b"application/xml", '"\U000e0041"'.encode("utf-32-le"), "tag"),
        (None, '\n{"\\u0000": 1}'.encode("utf-32-be"), "nul"),
    ],
)
def test_found_body_holes_are_refused(label: bytes | None, body: bytes, kind: str) -> None:
    headers = [(b"Content-Type", label)] if label is not None else []
    problem = wf.middleware_verdict(DEFAULT, "POST", b"/b", headers, body)
    assert problem is not None and problem.kind == kind, problem
    assert wf.unjudged(DEFAULT, "POST", b"/b", headers, body) == []


@pytest.mark.parametrize(
    ("label", "body"),
    [
        (None, json.dumps({"q": "café 日本 \u00e9", "n": [1, 2]}).encode()),
        (b"text/plain", b'{"path": "C:\\\\Users\\\\me", "t": "a\\tb"}'),
        (b"text/plain", "naïve text, no JSON: \\u202e is six characters here".encode()),
        (None, bytes(range(256))),  # binary, untyped: no JSON reader parses it
        (b"application/octet-stream", b"{\x00\x01\xff binary that starts with a brace"),
        (FORM, b"q=%7B%22a%22%3A1%7D&x=1"),
    ],
)
def test_benign_bodies_pass(label: bytes | None, body: bytes) -> None:
    headers = [(b"Content-Type", label)] if label is not None else []
    assert wf.middleware_verdict(DEFAULT, "POST", b"/b", headers, body) is None
