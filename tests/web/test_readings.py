"""The readings table (sanitizer/web/_readings.py) against the frameworks themselves
(docs/web.md's copy of it is tools/gen_docs_tables.py's, checked by tools/generate.py).

Each row is asked of the framework's own app in process (tests/web/webframeworks.py): a raw
"Û" (C3 9B) must come out as "Ã" + U+009B from a Latin-1 reader and as "Û" from a UTF-8
one; a percent-decoding reader of cookies must hand over the decoded text; a multipart
name's HTML escapes must be resolved by exactly the readers the table says; a body not
declared JSON must be parsed by exactly the readers of "json by content".
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer.web import _readings
from sanitizer.web._readings import BYTES, LATIN1, NONE, READERS, TABLE, UTF8
from tests.support.settings import examples

APP_OF = {
    _readings.STARLETTE: "starlette",
    _readings.WERKZEUG: "flask",
    _readings.QUART: "quart",
    _readings.DJANGO_WSGI: "django_wsgi",
    _readings.DJANGO_ASGI: "django_asgi",
    _readings.LITESTAR: "litestar",
    _readings.FALCON_ASGI: "falcon_asgi",
    _readings.FALCON_WSGI: "falcon_wsgi",
    _readings.AIOHTTP: "aiohttp",
    _readings.SANIC: "sanic",
    _readings.BLACKSHEEP: "blacksheep",
}
RAW = "Û".encode()  # C3 9B
AS = {UTF8: "Û", LATIN1: "Ã\x9b", BYTES: "Û"}  # bytes: the app decodes them as UTF-8


def test_every_part_names_every_reader() -> None:
    assert set(APP_OF) == set(READERS)
    for part, row in TABLE.items():
        assert tuple(row) == READERS, part


def _exposed(reader: str, what: str, *request: object) -> list[str]:
    wf = pytest.importorskip("tests.web.webframeworks")
    if APP_OF[reader] in wf.LIFESPAN_APPS:
        pytest.importorskip(APP_OF[reader])  # a framework missing here: said, not failed
    return [t for w, t in wf.expose(APP_OF[reader], *request) if w == what]  # type: ignore[arg-type]


@pytest.mark.parametrize("reader", READERS)
def test_raw_bytes(reader: str) -> None:
    for part in ("path", "query", "header", "cookie", "form"):
        reading = TABLE[part][reader]
        if part == "path":
            got = _exposed(reader, "path", "GET", b"/" + RAW, [])[:1]
            want = [] if reading.raw == NONE else ["/" + AS[reading.raw]]
        elif part == "query":
            got = _exposed(reader, "query", "GET", b"/?q=" + RAW, [])
            want = [] if reading.raw == NONE else [AS[reading.raw]]
        elif part == "header":
            got = _exposed(reader, "header", "GET", b"/", [(b"X-Test", RAW)])
            want = [AS[reading.raw]]
        elif part == "cookie":
            got = _exposed(reader, "cookie", "GET", b"/", [(b"Cookie", b"c=" + RAW)])
            want = [AS[reading.raw]]
        else:
            form = [(b"Content-Type", b"application/x-www-form-urlencoded")]
            got = _exposed(reader, "value", "POST", b"/", form, b"q=" + RAW)
            want = [] if reading.raw == NONE else [AS[reading.raw]]
        assert [t for t in got if t in AS.values() or t == "/" + AS[UTF8]] == want, part


@pytest.mark.parametrize("reader", READERS)
def test_percent_decoded_cookies(reader: str) -> None:
    got = _exposed(reader, "cookie", "GET", b"/", [(b"Cookie", b"c=%C3%9B")])
    assert got == (["Û"] if TABLE["cookie"][reader].percent else ["%C3%9B"])


@pytest.mark.parametrize("reader", READERS)
def test_html_escapes_in_multipart_names(reader: str) -> None:
    body = b'--XX\r\nContent-Disposition: form-data; name="a%22b%0Ac"\r\n\r\nv\r\n--XX--\r\n'
    headers = [(b"Content-Type", b"multipart/form-data; boundary=XX")]
    got = _exposed(reader, "name", "POST", b"/", headers, body)
    name = "a%22b%0Ac"
    for escape in TABLE["multipart name"][reader].html_escapes:
        name = name.replace(escape, {"%22": '"', "%0D": "\r", "%0A": "\n", "%0D%0A": "\n"}[escape])
    assert got == [name]


@pytest.mark.parametrize("reader", READERS)
def test_json_by_content(reader: str) -> None:
    reading = TABLE["json by content"][reader]
    body = b'{"k": "\\u00e9"}'
    text = _exposed(reader, "json", "POST", b"/", [(b"Content-Type", b"text/plain")], body)
    untyped = _exposed(reader, "json", "POST", b"/", [], body)
    if reading.raw == NONE:
        assert text == untyped == []
    elif "without Content-Type" in reading.note:
        assert (text, untyped) == ([], ["k", "é"])
    elif "holding `json` anywhere" in reading.note:  # BlackSheep
        hinted = [(b"Content-Type", b"text/plain; profile=JSON")]
        assert _exposed(reader, "json", "POST", b"/", hinted, body) == ["k", "é"]
        assert text == untyped == []
    else:
        assert text == untyped == ["k", "é"]


def test_multipart_part_headers() -> None:
    """Starlette's UploadFile.headers reads a part's headers as Latin-1 (the others
    expose no part header but Content-Type, which is ASCII)."""
    body = (
        b'--XX\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n'
        b"X-Note: " + RAW + b"\r\n\r\nv\r\n--XX--\r\n"
    )
    headers = [(b"Content-Type", b"multipart/form-data; boundary=XX")]
    got = _exposed(_readings.STARLETTE, "header", "POST", b"/", headers, body)
    assert AS[TABLE["multipart header"][_readings.STARLETTE].raw] in got
    assert _readings.readers("multipart header", LATIN1) == (_readings.STARLETTE,)


# -- media type spellings -----------------------------------------------------------------

_BODIES = {
    "form": b"q=%E2%80%AE",
    "multipart": (
        b'--XX\r\nContent-Disposition: form-data; name="q"\r\n\r\n\xe2\x80\xae\r\n--XX--\r\n'
    ),
    "json": b'{"q": "\\u202e"}',
}


# A Content-Type that holds an ``anywhere`` spelling without being of its media type.
_HIDDEN = {
    "form": b'text/plain; a="application/x-www-form-urlencoded"',
    "multipart": b"x/multipart/form-data; boundary=XX",
    "json": b"text/plain; a=JSON",
}


def _spelled(spelling: _readings.Spelling) -> bytes:
    """A concrete Content-Type for a spelling (a suffix pattern made a suffix)."""
    if spelling.anywhere:
        return _HIDDEN[spelling.kind]
    value = spelling.media.replace("application/*+json", "application/vnd.api+json").encode()
    return value + b"; boundary=XX" if value.startswith((b"multipart/", b"*/form")) else value


@pytest.mark.parametrize("spelling", _readings.MEDIA_TYPES, ids=lambda s: s.media)
@pytest.mark.parametrize("reader", READERS)
def test_media_type_spellings(spelling: _readings.Spelling, reader: str) -> None:
    """Each reader hands a body of each form or multipart spelling to that parser exactly
    when the table says so (JSON spellings: at least when it says so, since some parse
    any body)."""
    headers = [(b"Content-Type", _spelled(spelling))]
    got = [t for t in _exposed(reader, "value", "POST", b"/", headers, _BODIES[spelling.kind])]
    got += _exposed(reader, "json", "POST", b"/", headers, _BODIES[spelling.kind])
    if spelling.kind == "json" and reader not in spelling.readers:
        return
    assert ("\u202e" in got) == (reader in spelling.readers), (spelling, got)


# Spellings a client might try: case, whitespace, parameters, media ranges, near misses.
SPELLINGS = [
    *(
        b"application/x-url-encoded",
        b"Application/X-URL-Encoded",
        b"APPLICATION/X-WWW-FORM-URLENCODED",
    ),
    *(b"application/x-www-form-urlencoded; q=0.5", b"\tapplication/x-www-form-urlencoded "),
    *(b"*/x-www-form-urlencoded", b"*/*", b"*", b"application/*", b"application/urlencoded"),
    *(b"application/www-form-urlencoded", b"application/x-form-urlencoded", b"text/*"),
    *(b"multipart/*", b"*/form-data", b"Multipart/Form-Data", b"multipart/mixed", b"*/*;q=1"),
    *(b"multipart/related", b"multipart/form-data;q=0.9", b"MULTIPART/*", b"form-data"),
]


@pytest.mark.parametrize("content_type", SPELLINGS)
@pytest.mark.parametrize("kind", ["form", "multipart"])
def test_no_spelling_reaches_a_form_parser_unjudged(content_type: bytes, kind: str) -> None:
    """Whatever a framework parses as a form or multipart, under any of these spellings,
    the middleware judged (or refused) first; and the table names every spelling that
    some framework parses so."""
    wf = pytest.importorskip("tests.web.webframeworks")
    from sanitizer.web import DEFAULT

    value = content_type + (b"; boundary=XX" if kind == "multipart" else b"")
    headers = [(b"Content-Type", value)]
    body = _BODIES[kind]
    assert wf.unjudged(DEFAULT, "POST", b"/", headers, body) == []
    parsed = [
        a for a in wf.APPS if ("value", "\u202e") in wf.expose(a, "POST", b"/", headers, body)
    ]
    media = content_type.decode().partition(";")[0].strip().lower()
    if parsed:
        assert _readings.media_kinds().get(media) == kind, (content_type, parsed)


# -- Content-Type parameters searched, not parsed (BlackSheep) ------------------------------

_CONTENT_TYPE_BYTES = st.sampled_from(
    [b"charset=", b"Charset=", b"boundary=", b"=", b" ", b";", b'"', b"utf-8", b"utf-16", b"x"]
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_CONTENT_TYPE_BYTES | st.binary(max_size=3), max_size=8).map(b"".join))
def test_loose_parameters_are_blacksheeps(value: bytes) -> None:
    """``loose_charset`` and ``loose_boundary`` find what BlackSheep's own functions find
    (``Request.charset``'s regex; ``get_boundary_from_header``)."""
    pytest.importorskip("blacksheep")
    from blacksheep.messages import parse_charset
    from blacksheep.multipart import get_boundary_from_header

    assert _readings.loose_charset(value) == parse_charset(value)
    try:
        boundary: bytes | None = get_boundary_from_header(value)
    except IndexError:
        boundary = None
    assert _readings.loose_boundary(value) == boundary


@pytest.mark.parametrize(
    ("content_type", "refused"),
    [
        (b"text/plain; charset=utf-8", False),
        (b"text/plain; xcharset=utf-8", False),  # the same charset either way
        (b"text/plain; xcharset=utf-16", True),
        (b'text/plain; a="charset=latin-1"', True),
        (b'text/plain; charset="utf-8"', False),  # BlackSheep: no charset, so UTF-8
        (b'text/plain; a="application/x-www-form-urlencoded"', True),
        (b'application/x-www-form-urlencoded; a="application/x-www-form-urlencoded"', False),
        (b"application/x-www-form-urlencoded-v2", True),
        (b"Application/X-WWW-Form-Urlencoded", False),  # a form to all that parse it
        (b"multipart/form-data; boundary=XX", False),
        (b"multipart/form-data;boundary=XX", False),
        (b"multipart/form-data; charset=utf-8; boundary=XX", True),
        (b'multipart/form-data; boundary="XX"', False),  # BlackSheep's is "XX": see below
        (b'multipart/form-data; boundary="XX"; a=b', True),
        (b"multipart/form-data ; boundary=XX", False),  # not multipart to BlackSheep
        (b'application/json; a="multipart/form-data; boundary=XX"', True),
    ],
)
def test_a_content_type_searched_otherwise_is_ambiguous(content_type: bytes, refused: bool) -> None:
    from sanitizer.web import DEFAULT, check_head

    headers = [(b"Content-Type", content_type), (b"Content-Length", b"3")]
    problem, _ = check_head(DEFAULT, b"/", b"", headers)
    assert (problem is not None and problem.kind == "ambiguous-header") == refused, problem
