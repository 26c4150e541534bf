"""Sanic and BlackSheep behind ``ASGIMiddleware``, in process (tests/web/webframeworks.py):
what each framework's own parsers hand its app must have been judged.

Each attack is handed over by the bare framework as text that fails its part's policy (so
the case is real in that framework's reading) and refused behind the middleware; the
benign corpus passes with the same texts handed over.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer.web import DEFAULT
from tests.web.request_builder import field, multipart_message

CORPUS = Path(__file__).resolve().parents[1] / "data" / "web_benign"
FRAMEWORKS = ("sanic", "blacksheep")


_multipart = functools.partial(multipart_message, boundary=b"XX")
FORM = [(b"Content-Type", b"application/x-www-form-urlencoded")]
JSON = [(b"Content-Type", b"application/json")]
RLO = "\u202e".encode()


def _typed(content_type: bytes) -> list[tuple[bytes, bytes]]:
    return [(b"Content-Type", content_type)]


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
    # BlackSheep's request.text() decodes any body: untyped, octet-stream, XML
    ("text-untyped", ("blacksheep",), "POST", b"/x?read=text", [], b"a " + RLO),
    (
        "text-octet",
        ("blacksheep",),
        "POST",
        b"/x?read=text",
        _typed(b"application/octet-stream"),
        RLO,
    ),
    (
        "text-xml",
        ("blacksheep",),
        "POST",
        b"/x?read=text",
        _typed(b"application/xml"),
        b"<a>\x1b[2J</a>",
    ),
    # ... in the charset it finds anywhere in the Content-Type: ". " in UTF-16-LE is RLO
    (
        "text-xcharset",
        ("blacksheep",),
        "POST",
        b"/x?read=text",
        _typed(b"text/plain; xcharset=utf-16-le"),
        b". ",
    ),
    (
        "text-quoted-charset",
        ("blacksheep",),
        "POST",
        b"/x?read=text",
        _typed(b'text/plain; a="charset=utf-16-le"'),
        b". ",
    ),
    # BlackSheep finds a form or multipart type anywhere in the Content-Type value
    (
        "form-anywhere",
        ("blacksheep",),
        "POST",
        b"/x",
        _typed(b'text/plain; a="application/x-www-form-urlencoded"'),
        b"a=%E2%80%AE",
    ),
    (
        "form-anywhere-json",
        ("blacksheep",),
        "POST",
        b"/x",
        _typed(b'application/json; a="application/x-www-form-urlencoded"'),
        b'{"a=%E2%80%AE": 1}',
    ),
    (
        "form-anywhere-subtype",
        ("blacksheep",),
        "POST",
        b"/x",
        _typed(b"application/x-www-form-urlencoded-v2"),
        b"a=%E2%80%AE",
    ),
    # ... and the boundary after the value's first "=": fields hidden in a file part
    (
        "multipart-loose-boundary",
        ("blacksheep",),
        "POST",
        b"/x",
        _typed(b"multipart/form-data; charset=utf-8; boundary=XX"),
        b'--XX\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\n\r\n'
        b'--utf-8;\r\nContent-Disposition: form-data; name="a"\r\n\r\n'
        + RLO
        + b"\r\n--utf-8;--\r\n"
        b"\r\n--XX--\r\n",
    ),
    # ... quotes and all, from a quoted boundary (the others unquote it)
    (
        "multipart-quoted-boundary",
        ("blacksheep",),
        "POST",
        b"/x",
        _typed(b'multipart/form-data; boundary="XX"'),
        b'--XX\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\n\r\n'
        b'--"XX"\r\nContent-Disposition: form-data; name="a"\r\n\r\n' + RLO + b'\r\n--"XX"--\r\n'
        b"\r\n--XX--\r\n",
    ),
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


def test_a_quoted_boundary_passes() -> None:
    """.NET's HttpClient quotes its boundaries: such an upload passes, whatever its
    chunking, unless its body holds the boundary with its quotes as a delimiter."""
    from sanitizer.web import body_check, check_head

    body = (
        b'--XX\r\nContent-Disposition: form-data; name="a"\r\n\r\n\xc3\xa9\r\n'
        b'--XX\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\n'
        b'x--"XY"--"X\r\n--XX--\r\n'
    )
    headers = [(b"Content-Type", b'multipart/form-data; boundary="XX"')]
    headers.append((b"Content-Length", b"%d" % len(body)))
    for hidden, refused in ((b"", False), (b'--"XX"', True)):
        whole = body.replace(b"x--", b"x" + hidden + b"--")
        for size in (1, 5, len(whole)):
            problem, head = check_head(DEFAULT, b"/", b"", headers)
            assert problem is None
            check = body_check(DEFAULT, head)
            pieces = [whole[i : i + size] for i in range(0, len(whole), size)]
            problems = [check.feed(p) for p in pieces] + [check.close()]
            assert (
                any(p is not None and p.kind == "ambiguous-multipart" for p in problems) == refused
            )


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


_TEXTS = st.sampled_from(["a", " ", "é", "\u202e", "\x1b", "\U0001f1eb\U0001f1f7", "\u200d", "\n"])


@pytest.mark.slow  # 25 requests to BlackSheep, bare and behind the middleware: ~1.5 s
@settings(max_examples=25, deadline=None)
@given(
    st.lists(_TEXTS.map(str.encode) | st.binary(max_size=2), max_size=6).map(b"".join),
    st.sampled_from([None, b"application/octet-stream", b"application/xml", b"image/png"]),
)
def test_blacksheep_text_of_any_body_was_judged(body: bytes, content_type: bytes | None) -> None:
    """What BlackSheep's ``request.text()`` hands the app, behind the middleware, passed
    the text policy; and a body the middleware refused would have handed BlackSheep text
    that fails it, or was refused by another reading (the same body by content)."""
    wf = _framework("blacksheep")
    headers = [] if content_type is None else [(b"Content-Type", content_type)]
    guarded = wf.expose("blacksheep_guarded", "POST", b"/x?read=text", headers, body)  # type: ignore[attr-defined]
    assert [(w, t) for w, t in guarded if not wf.judged(DEFAULT, w, t)] == []  # type: ignore[attr-defined]
    if guarded == []:  # refused: the bare app's text fails, or another reading did
        bare = wf.expose("blacksheep", "POST", b"/x?read=text", headers, body)  # type: ignore[attr-defined]
        assert [(w, t) for w, t in bare if not wf.judged(DEFAULT, w, t)] != []  # type: ignore[attr-defined]
