"""Parser differentials of multipart bodies and cookies: what
every supported framework exposes to an app as text must have passed the part's policy,
read the way that framework reads it.

Each framework's own app reads the request in process (tests/web/webframeworks.py:
Starlette over python-multipart, Litestar over the ``multipart`` package, Falcon ASGI
and WSGI, Quart, Django ASGI and WSGI, Flask over Werkzeug), and the ``multipart``
package is also asked directly; every text they expose (field names and values, file
names, cookie names and values) is judged by ``sanitizer.inspect`` with the part's
policy.  No reading is excused: text is judged as the framework hands it over.  If the
middleware passed the request, every such text must pass.  Hypothesis generates the
multipart bodies, part headers, Content-Disposition parameters and Cookie headers.  The
head's parts are tests/suites/test_web_differential_head.py, the other bodies
tests/suites/test_web_differential_body.py.
"""

from __future__ import annotations

import functools
import io
import warnings
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from sanitizer.web import DEFAULT, Problem

for _module in ("starlette", "werkzeug", "django", "multipart", "litestar", "falcon", "quart"):
    pytest.importorskip(_module)

from tests.web import request_builder  # noqa: E402
from tests.web import webframeworks as wf  # noqa: E402

# Starlette leaves a spooled file to the collector when python-multipart stops mid-body.
pytestmark = pytest.mark.filterwarnings(
    "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)

BOUNDARY = b"b0undary"
MULTIPART_TYPE = b"multipart/form-data; boundary=" + BOUNDARY

Exposed = list[tuple[str, "str | None"]]  # (what: "name", "value", "filename", "cookie", ...)


def multipart_package_reads(headers: list[tuple[bytes, bytes]], body: bytes) -> Exposed:
    """The ``multipart`` package's parser, which Litestar reads form bodies with."""
    import multipart  # type: ignore[import-untyped]

    out: Exposed = []
    media = dict(headers).get(b"Content-Type", b"").decode("latin-1")
    if not media.startswith("multipart/form-data"):
        return out
    _, options = multipart.parse_options_header(media)
    try:
        parser = multipart.MultipartParser(io.BytesIO(body), options["boundary"])
        for part in parser:
            out.append(("name", part.name))
            if part.filename is None:
                out.append(("value", part.value))
            else:
                out.append(("filename", part.filename))
    except Exception:
        pass
    return out


def _app_reader(app: str) -> Callable[[list[tuple[bytes, bytes]], bytes], Exposed]:
    def read(headers: list[tuple[bytes, bytes]], body: bytes) -> Exposed:
        method = "POST" if body else "GET"
        exposed = wf.expose(app, method, b"/", headers, body)
        return [(w, t) for w, t in exposed if w not in ("path", "header")]

    return read


# Django under ASGI parses bodies with the same code as under WSGI (MultiPartParser,
# QueryDict) and costs ten times as much per request: its cookies and headers are
# tests/suites/test_web_differential_head.py's.
BODY_APPS = tuple(app for app in wf.APPS if app != "django_asgi")
READERS: dict[str, Callable[[list[tuple[bytes, bytes]], bytes], Exposed]] = {
    **{app: _app_reader(app) for app in BODY_APPS},
    "multipart": multipart_package_reads,
}


def judged(what: str, text: str | None) -> bool:
    """The text passes its part's policy, as the framework handed it over."""
    return wf.judged(DEFAULT, what, text)


def middleware_verdict(headers: list[tuple[bytes, bytes]], body: bytes) -> Problem | None:
    return wf.middleware_verdict(DEFAULT, "POST" if body else "GET", b"/", headers, body)


def unjudged(headers: list[tuple[bytes, bytes]], body: bytes) -> list[tuple[str, str, str | None]]:
    """What a framework exposes that fails its policy although the middleware passed."""
    if middleware_verdict(headers, body) is not None:
        return []
    with warnings.catch_warnings():  # the frameworks' own (unclosed spooled files, ...)
        warnings.simplefilter("ignore")
        exposed = [(f, *pair) for f, read in READERS.items() for pair in read(headers, body)]
    return [(f, what, text) for f, what, text in exposed if not judged(what, text)]


# -- generators -------------------------------------------------------------------------

ATTACKS = [
    "\u202e",
    "\x00",
    "\r\n",
    "\n",
    "\x1b[31m",
    "\u2028",
    "\ufeff",
    "../",
    "..\\",
    "\U000e0041",
]
_BENIGN = ["a", "b", "é", "日", " ", "x.txt"] * 4
_text = st.lists(
    st.sampled_from([*_BENIGN, '"', "\\", ";", "=", "%", "*", "'", *ATTACKS]),
    max_size=5,
).map("".join)
_raw_bytes = st.sampled_from([b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x80\xae", b"\xff", b"%C0%AE"])
_value_bytes = st.one_of(
    _text.map(str.encode),
    st.tuples(_text.map(str.encode), _raw_bytes).map(b"".join),
)


def _quoted(raw: bytes, style: int) -> bytes:
    if style == 0:
        return b'"' + raw + b'"'
    if style == 1:
        return b'"' + raw.replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"'
    if style == 2:
        return raw
    return b'"' + b"".join(b"\\%03o" % c for c in raw) + b'"'  # octal escapes


@st.composite
def disposition_params(draw: st.DrawFn) -> bytes:
    keys = draw(
        st.lists(
            st.sampled_from(
                [
                    b"name",
                    b"NAME",
                    b"filename",
                    b"FileName",
                    b"filename*",
                    b"name*",
                    b"filename*0",
                    b"filename*1",
                    b"filename*0*",
                    b"size",
                ]
            ),
            min_size=1,
            max_size=4,
        )
    )
    if draw(st.booleans()):
        keys = [b"name", *keys]
    out = []
    for key in keys:
        raw = draw(_value_bytes)
        if key.endswith(b"*") or key == b"filename*0*":
            from urllib.parse import quote_from_bytes

            value = b"utf-8''" + quote_from_bytes(raw).encode()
        else:
            value = _quoted(raw, draw(st.integers(0, 3)))
        sep = draw(st.sampled_from([b"; ", b";", b" ; "]))
        out.append(sep + key + b"=" + value)
    kind = draw(st.sampled_from([b"form-data", b"Form-Data", b"form-data", b"attachment"]))
    return kind + b"".join(out)


@st.composite
def parts(draw: st.DrawFn) -> bytes:
    headers = [b"Content-Disposition: " + draw(disposition_params())]
    extra = draw(
        st.lists(
            st.sampled_from(
                [
                    b"Content-Type: text/plain",
                    b"Content-Type: application/octet-stream",
                    b"Content-Type: image/png",
                    b"content-type: TEXT/PLAIN",
                    b"Content-Type: text/plain; charset=utf-8",
                    b'Content-Disposition: form-data; name="other"',
                    b'content-disposition: form-data; name="x"; filename="a.txt"',
                    b"X-Other: 1",
                ]
            ),
            max_size=2,
        )
    )
    headers += extra
    if draw(st.booleans()):
        headers = headers[::-1]
    content = draw(_value_bytes)
    return b"--" + BOUNDARY + b"\r\n" + b"\r\n".join(headers) + b"\r\n\r\n" + content + b"\r\n"


@st.composite
def multipart_bodies(draw: st.DrawFn) -> bytes:
    body = b"".join(draw(st.lists(parts(), min_size=1, max_size=3)))
    body += b"--" + BOUNDARY + b"--"
    body += draw(
        st.sampled_from(
            [
                b"",
                b"\r\n",
                b"\r\n\r\n",
                b" \r\n",
                b"\r\n--" + BOUNDARY + b'\r\nContent-Disposition: form-data; name="late"'
                b"\r\n\r\n\xe2\x80\xae\r\n--" + BOUNDARY + b"--\r\n",
                b"epilogue \xe2\x80\xae",
            ]
        )
    )
    preamble = draw(st.sampled_from([b"", b"\r\n", b"preamble\r\n"]))
    return preamble + body


@st.composite
def cookie_headers(draw: st.DrawFn) -> bytes:
    pairs = []
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from([b"a", b"sid", b"", b" b ", b"\xe2\x80\xae", b'"q"']))
        raw = draw(_value_bytes)
        value = _quoted(raw, draw(st.integers(0, 3)))
        value = draw(st.sampled_from([value, b" " + value + b" ", value + b"x"]))
        pairs.append(name + draw(st.sampled_from([b"=", b" = ", b""])) + value)
    return draw(st.sampled_from([b"; ", b";", b" ;"])).join(pairs)


# -- benign-but-odd multipart bodies with one attack in one spot ------------------------
#
# Most bodies above hold something the middleware refuses, so few reach the frameworks.
# These are valid UTF-8 throughout, with odd but legal (or tolerated) structure, and at
# most one attack, placed in exactly one spot: a name, a filename, a header, the content,
# the preamble or the epilogue.  What the middleware passes then reaches every framework.

_PLAIN = [*"abcxyz019_-. ", "é", "ü", "日本", "ñ", "Ω"]
_ODD = ["%22", '\\"', "&amp;", "&#233;", ";", "=", "'", ",", "%", "+", "*", ":", "/"]
_plain_text = st.lists(st.sampled_from(_PLAIN), max_size=6).map("".join)
_odd_text = st.lists(st.sampled_from(_PLAIN * 3 + _ODD), max_size=6).map("".join)
# what the frameworks might read as something else: controls, bidi, traversal, bytes
# that are not UTF-8, and spellings of them (HTML references, percent, RFC 2047, UTF-7)
ONE_ATTACK = [
    *(a.encode() for a in ATTACKS),
    *(b"\xc0\xaf", b"\xed\xa0\x80", b"\xff", b"\xe9", b"\xe2\x80"),
    *(b"&#x202e;", b"&#8238;", b"&#xff0e;&#xff0e;", b"&#xff0f;x", b"&#x2024;&#x2024;"),
    *(b"&#x1b;", b"&NewLine;", b"&#0;", b"&sol;", b"&#92;", b"%0a", b"%C0%AE", b"%e2%80%ae"),
    *(b"=?utf-8?b?4oCu?=", b"=?utf-8?q?=E2=80=AE?=", b"+ICo-", b"+ADw-script+AD4-"),
]
CHARSETS = [
    *(b"utf-8", b"UTF-8", b'"utf-8"', b"utf8", b"utf-8", b"", b"utf-8", b'"UTF8"'),
    *(b"utf-7", b"UTF-7", b"latin-1"),
    *(b"iso-8859-1", b"us-ascii", b"ascii", b"utf-16", b"cp1252", b"", b"utf-8 "),
]


class _Spots:
    """Hands out values; one of them, of a drawn kind ("name", "filename", "content",
    "header", "edge"), gets the attack (or none: a benign body)."""

    KINDS = ("name", "filename", "content", "header", "edge", "none")

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.kind = draw(st.sampled_from(self.KINDS))
        self.target = draw(st.integers(0, 2))  # the first, second or third of its kind
        self.attack = draw(st.sampled_from(ONE_ATTACK))
        self.used: dict[str, int] = {}

    def value(self, kind: str, text: st.SearchStrategy[str] = _plain_text) -> bytes:
        raw = self.draw(text).encode()
        number = self.used.get(kind, 0)
        self.used[kind] = number + 1
        if kind != self.kind or number != self.target:
            return raw
        at = self.draw(st.integers(0, len(raw)))
        return raw[:at] + self.attack + raw[at:]


def _param_value(spots: _Spots, draw: st.DrawFn, key: bytes) -> bytes:
    """A Content-Disposition value as browsers and odd clients send it."""
    style = draw(st.sampled_from(["quoted"] * 6 + ["token", "empty", "long", "pct", "slash"]))
    if style == "empty":
        return b'""'
    if style == "token":
        return draw(st.sampled_from([b"a", b"f.txt", b"x-1", b"A_B"]))
    kind = "filename" if key == b"filename" else "name"
    raw = spots.value(kind, _odd_text if style in ("pct", "slash") else _plain_text)
    if style == "long":
        raw += b"n" * draw(st.sampled_from([900, 4000, 9000]))
    if style == "pct":
        raw = raw.replace(b'"', b"%22")
    elif style == "slash":
        raw = raw.replace(b"\\", b"\\\\").replace(b'"', b'\\"')
    return b'"' + raw.replace(b'"', b"%22") + b'"' if style != "slash" else b'"' + raw + b'"'


@st.composite
def odd_parts(draw: st.DrawFn, spots: _Spots, eol: bytes) -> bytes:
    keys = [b"name"]
    if draw(st.integers(0, 2)) == 0:  # a file
        keys.append(b"filename")
    if draw(st.integers(0, 9)) == 0:  # a rarer key, or one repeated
        keys.append(draw(st.sampled_from([b"size", b"name", b"filename", b"creation-date"])))
    if draw(st.booleans()):
        keys = keys[::-1]
    params = b"".join(
        draw(st.sampled_from([b"; ", b";", b" ; ", b";\t"]))
        + key
        + draw(st.sampled_from([b"="] * 12 + [b" =", b"= ", b" = ", b"\t="]))
        + (
            draw(st.sampled_from([b'""', b'"a"', b'"b"', b'"a[]"', b"a"]))
            if key == b"name" and draw(st.integers(0, 3)) == 0  # duplicate and empty names
            else _param_value(spots, draw, key)
        )
        for key in keys
    )
    disposition = draw(st.sampled_from([b"form-data", b"form-data", b"Form-Data"])) + params
    colon = draw(st.sampled_from([b": ", b": ", b":", b":  ", b":\t"]))
    headers = [draw(st.sampled_from([b"Content-Disposition", b"content-disposition"]))]
    headers[0] += colon + disposition
    if draw(st.integers(0, 3)) == 0:
        media = draw(st.sampled_from([b"text/plain", b"application/octet-stream", b"TEXT/html"]))
        charset = draw(st.sampled_from(CHARSETS))
        headers.append(b"Content-Type: " + media + (b"; charset=" + charset if charset else b""))
    if draw(st.integers(0, 5)) == 0:
        cte = draw(st.sampled_from([b"7bit", b"8bit", b"binary", b"BINARY", b"base64"]))
        headers.append(b"Content-Transfer-Encoding: " + cte)
    if draw(st.integers(0, 5)) == 0:
        headers.append(b"X-Note: " + spots.value("header", _odd_text))
    if draw(st.booleans()):
        headers = draw(st.permutations(headers))
    if draw(st.integers(0, 19)) == 0:  # obs-fold: a header continued on the next line
        i = draw(st.integers(0, len(headers) - 1))
        cut = draw(st.integers(0, len(headers[i])))
        fold = draw(st.sampled_from([b" ", b"\t", b"  "]))
        headers[i] = headers[i][:cut] + eol + fold + headers[i][cut:]
    head_eol = draw(st.sampled_from([eol] * 15 + [b"\n"]))
    if draw(st.booleans()):
        content = spots.value("content")
    else:  # a body with lines, and things that look like delimiters but are not
        content = b"\r\n".join(
            [spots.value("content"), b"--" + BOUNDARY[:-1], spots.value("content"), b"-- x"]
        )
    return head_eol.join(headers) + head_eol + head_eol + content


@st.composite
def odd_multipart_bodies(draw: st.DrawFn) -> bytes:
    spots = _Spots(draw)
    eol = draw(st.sampled_from([b"\r\n"] * 19 + [b"\n"]))
    delimiter = b"--" + BOUNDARY
    preamble = [b"", b"", b"\r\n", b"\r\n\r\n"] * 5 + [b"\n", b"preamble\r\n"]
    out = [draw(st.sampled_from(preamble))]
    for part in draw(st.lists(odd_parts(spots, eol), min_size=1, max_size=3)):
        out.append(delimiter + draw(st.sampled_from([eol] * 19 + [b" " + eol])) + part + eol)
    out.append(delimiter + b"--")
    epilogue = [b"", b"\r\n", b"\r\n\r\n", b"\n", b" \t\r\n"] * 4 + [b"\r\nepilogue "]
    out.append(draw(st.sampled_from(epilogue)))
    if out[-1].endswith(b" "):
        out.append(spots.value("edge") + b"\r\n")
    return b"".join(out)


# -- the differential properties --------------------------------------------------------

_SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
_MANY = settings(
    _SETTINGS,
    max_examples=5 * settings().max_examples,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _multipart_unjudged(body: bytes) -> list[tuple[str, str, str | None]]:
    headers = [(b"Content-Type", MULTIPART_TYPE), (b"Content-Length", b"%d" % len(body))]
    problem = middleware_verdict(headers, body)
    event("passed" if problem is None else f"refused: {problem.kind}")
    return unjudged(headers, body)


@settings(_SETTINGS, max_examples=max(10, settings().max_examples // 3))  # 7 apps a body
@given(body=multipart_bodies())
def test_multipart_text_every_framework_exposes_was_judged(body: bytes) -> None:
    assert _multipart_unjudged(body) == [], body


@pytest.mark.slow
@_MANY
@given(body=multipart_bodies())
def test_multipart_many_examples(body: bytes) -> None:
    assert _multipart_unjudged(body) == [], body


@_SETTINGS
@given(body=odd_multipart_bodies())
def test_odd_multipart_text_every_framework_exposes_was_judged(body: bytes) -> None:
    assert _multipart_unjudged(body) == [], body


@pytest.mark.slow
@_MANY
@given(body=odd_multipart_bodies())
def test_odd_multipart_many_examples(body: bytes) -> None:
    assert _multipart_unjudged(body) == [], body


@_SETTINGS
@given(cookie=cookie_headers())
def test_cookie_text_every_framework_exposes_was_judged(cookie: bytes) -> None:
    assert unjudged([(b"Cookie", cookie)], b"") == [], cookie


# -- the differentials found: each was exposed by a framework, unjudged --------

CD = b"Content-Disposition: form-data; "
ATTACK = "x\u202ey".encode()


_multipart = functools.partial(request_builder.multipart, boundary=BOUNDARY)


LATE_PART = b"\r\n--" + BOUNDARY + b"\r\n" + CD + b'name="late"\r\n\r\n\xe2\x80\xae\r\n'


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        # a field sent as application/octet-stream: all three hand it to the app as text
        (
            _multipart((CD + b'name="a"\r\nContent-Type: application/octet-stream', ATTACK)),
            "bidi-control",
        ),
        # Content-Disposition twice: python-multipart and Django take the last, Werkzeug
        # the first (a file there, a text field here)
        (
            _multipart((CD + b'name="a"; filename="f.txt"\r\n' + CD + b'name="b"', ATTACK)),
            "ambiguous-multipart",
        ),
        # a part after the closing boundary: Django parses it
        (
            _multipart((CD + b'name="a"', b"ok"), tail=LATE_PART + b"--" + BOUNDARY + b"--\r\n"),
            "ambiguous-multipart",
        ),
        # FILENAME=: Werkzeug and Django read a file, python-multipart a text field
        (_multipart((CD + b'name="a"; FILENAME="f.txt"', ATTACK)), "ambiguous-multipart"),
        # filename*= alone: Werkzeug and Django read a file, python-multipart a text field
        (_multipart((CD + b"name=\"a\"; filename*=utf-8''f.txt", ATTACK)), "ambiguous-multipart"),
        (_multipart((CD + b'name="a"; filename*0="f.txt"', ATTACK)), "ambiguous-multipart"),
        # name*=: Django names the field by it, the others by name=
        (_multipart((CD + b"name*=utf-8''b; name=\"a\"", b"x")), "ambiguous-multipart"),
        # whitespace around "=": Werkzeug sees no filename (a text field), the others a file
        (_multipart((CD + b'name="a"; filename = "x.bin"', ATTACK)), "ambiguous-multipart"),
        (_multipart((CD + b'name="a"; filename ="x.bin"', ATTACK)), "ambiguous-multipart"),
        (_multipart((CD + b'name="a"; filename=\t"x.bin"', ATTACK)), "ambiguous-multipart"),
        (_multipart((CD + b'name = "a"', ATTACK)), "ambiguous-multipart"),
        # a tab after ";": the multipart package (Litestar) sees no filename, the others do
        (_multipart((CD + b'name="a";\tfilename="x.bin"', ATTACK)), "ambiguous-multipart"),
        # %0A and %0D: the multipart package reads line breaks, the others the characters
        (_multipart((CD + b'name="a%0Ab"', b"x")), "ambiguous-multipart"),
        (_multipart((CD + b'name="a"; filename="x%0D.txt"', b"x")), "ambiguous-multipart"),
        # an unquoted value with a space: Werkzeug stops at the space
        (_multipart((CD + b"name=a b; filename=f.txt", ATTACK)), "ambiguous-multipart"),
        # a backslash in a quoted value: python-multipart and Django end the value at the
        # escaped quote differently from Werkzeug
        (_multipart((CD + b'name="a\\"; filename="f.txt', ATTACK)), "ambiguous-multipart"),
        # HTML character references in a filename: Django resolves them (html.unescape in
        # sanitize_file_name), so it hands the app "．．" or "／etc"; the others the text
        (_multipart((CD + b'name="a"; filename="&#xff0e;&#xff0e;"', b"x")), "dot-segment"),
        (_multipart((CD + b'name="a"; filename="&#xff0f;etc"', b"x")), "path-separator"),
        (_multipart((CD + b'name="a"; filename="x&#47;&#x2024;&#x2024;"', b"x")), "dot-segment"),
        # raw bytes in a part header: Starlette's UploadFile.headers reads them as Latin-1
        (
            _multipart((CD + b'name="a"; filename="f.txt"\r\nX-Note: \xc3\x9b[2J', b"x")),
            "ambiguous-multipart",
        ),
        # a delimiter with padding or after a bare LF
        (
            _multipart((CD + b'name="a"', b"ok")).replace(
                b"--" + BOUNDARY + b"--",
                b"\n--"
                + BOUNDARY
                + b" \r\n"
                + CD
                + b'name="b"\r\n\r\n'
                + ATTACK
                + b"\r\n--"
                + BOUNDARY
                + b"--",
            ),
            None,
        ),
    ],
)
def test_multipart_differentials_are_refused(body: bytes, kind: str | None) -> None:
    headers = [(b"Content-Type", MULTIPART_TYPE), (b"Content-Length", b"%d" % len(body))]
    problem = middleware_verdict(headers, body)
    assert problem is not None
    assert kind is None or problem.kind == kind, problem
    assert unjudged(headers, body) == []


@pytest.mark.parametrize(
    ("cookie", "kind"),
    [
        (b'a="\\000"', "nul"),  # every framework unescapes to NUL
        (b'a="\\012"', "line-break"),
        (b'a="\\342\\200\\256"', "ambiguous-cookie"),  # Werkzeug: U+202E; Django: 3 chars
        (b'a="x;b=\xe2\x80\xae"', "ambiguous-cookie"),  # Werkzeug: one pair; others: two
        (b'a="x\\"; b=\\342\\200\\256"', "ambiguous-cookie"),
    ],
)
def test_cookie_differentials_are_refused(cookie: bytes, kind: str) -> None:
    problem = middleware_verdict([(b"Cookie", cookie)], b"")
    assert problem is not None and problem.kind == kind, problem


@pytest.mark.parametrize(
    "head",
    [
        # Django drops the bidi control it resolves (not printable): nothing refused
        CD + b'name="a"; filename="&#x202e;gpj.exe"',
        CD + b'name="a"; filename="a&amp;b.txt"',
        # %22 is a quote for Werkzeug (the HTML standard's escape), text for the others
        CD + b'name="a%22b"; filename="c%22d.txt"',
        CD + b'name="a"; filename=""',  # a file input left empty: a text field
        CD + b'name=""',
        CD + b'name="a"\r\nContent-Type: text/plain; charset="UTF-8"',
        CD + b'name="a"\r\nContent-Transfer-Encoding: 8bit',
    ],
)
def test_odd_but_benign_multipart_passes(head: bytes) -> None:
    body = _multipart((head, "h\u00e9".encode()), (CD + b'name="a"', b"dup"))
    headers = [(b"Content-Type", MULTIPART_TYPE), (b"Content-Length", b"%d" % len(body))]
    assert middleware_verdict(headers, body) is None
    assert unjudged(headers, body) == []


def test_percent_encoded_cookie_is_read_by_litestar_decoded() -> None:
    # Starlette, Werkzeug, Django and Falcon read a cookie literally; Litestar
    # percent-decodes it, so both readings are judged (an overlong, as in a query).
    headers = [(b"Cookie", b"a=%E2%80%AE")]
    readings = {app: dict(READERS[app](headers, b""))["cookie"] for app in BODY_APPS}
    assert readings.pop("litestar") == "\u202e"
    assert set(readings.values()) == {"%E2%80%AE"}
    assert middleware_verdict(headers, b"") is not None
    assert middleware_verdict([(b"Cookie", b"a=%C0%AE")], b"") is not None
    assert middleware_verdict([(b"Cookie", b"a=caf%C3%A9")], b"") is None
