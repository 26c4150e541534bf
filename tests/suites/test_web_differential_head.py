"""Parser differentials of the request head: the path, the query string, header values and
cookies.  Hypothesis generates the raw bytes; every supported framework's app
(tests/web/webframeworks.py: Starlette, Litestar, Falcon ASGI and WSGI, Quart, Django ASGI
and WSGI, Flask) is called in process with them, and every text it was handed must pass
its part's policy whenever the middleware passed the request -- read the way *that*
framework reads it (Latin-1 or UTF-8, percent-decoded or not).  No reading is excused:
a framework that shows the app "Ã" + U+009B for the bytes C3 9B exposed a terminal
escape, whatever a UTF-8 reader would have made of them.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from sanitizer.web import DEFAULT, WebPolicy

for _module in ("starlette", "werkzeug", "django", "litestar", "falcon", "quart"):
    pytest.importorskip(_module)

from tests.web import webframeworks as wf  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)

_SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Pieces of a value: plain ASCII, separators of every grammar, percent-escapes of what is
# harmless and of what is not, raw UTF-8 whose continuation bytes are C1 controls when read
# as Latin-1 (Û = C3 9B: CSI; Ņ = C5 85: NEL), raw Latin-1, cookie octal escapes.
PIECES = [
    *(b"a", b"Z", b"0", b" ", b"-", b".", b"/", b"_", b"~"),
    *(b"&", b"=", b";", b"+", b",", b'"', b"\\", b"\t", b"{", b"}", b":"),
    *(b"%22", b"%0A", b"%0d", b"%00", b"%1B", b"%25", b"%2B", b"%20", b"%", b"%zz"),
    *(b"%C3%A9", b"%C5%85", b"%E2%80%AE", b"%e2%80%ae", b"%C0%AE", b"%ED%A0%80"),
    *(b"%C2%85", b"%C2%9B", b"%F3%A0%80%81", b"%E6%97%A5"),
    *("é".encode(), "Û".encode(), "Ņ".encode(), "日".encode(), "\u202e".encode()),
    *("\u0085".encode(), "\U000e0041".encode(), b"\xe9", b"\x85", b"\xa0", b"\xff", b"\x1b"),
    *(b"\\012", b"\\342\\200\\256", b"\\000", b"\\042", b"\\\\"),
]
_value = st.lists(st.sampled_from(PIECES), max_size=6).map(b"".join)
_pieces_ascii = [p for p in PIECES if p.isascii()]


@st.composite
def query_strings(draw: st.DrawFn) -> bytes:
    pairs = draw(st.lists(st.tuples(_value, _value, st.booleans()), min_size=1, max_size=3))
    return b"&".join(n + b"=" + v if eq else n for n, v, eq in pairs)


@st.composite
def cookie_headers(draw: st.DrawFn) -> bytes:
    pairs = []
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from([b"a", b"sid", b"", b" b ", b"prefs", b"\xc3\x9b"]))
        value = draw(_value)
        style = draw(st.integers(0, 4))
        if style == 0:
            value = b'"' + value + b'"'
        elif style == 1:
            value = b'{"theme":"' + value + b'"}'
        pairs.append(name + draw(st.sampled_from([b"=", b" = ", b"", b"="])) + value)
    return draw(st.sampled_from([b"; ", b";", b" ;"])).join(pairs)


def _unjudged(
    target: bytes, headers: list[tuple[bytes, bytes]], policy: WebPolicy = DEFAULT
) -> list[tuple[str, str, str]]:
    problem = wf.middleware_verdict(policy, "GET", target, headers, b"")
    event("passed" if problem is None else f"refused: {problem.kind}")
    return wf.unjudged(policy, "GET", target, headers)


@_SETTINGS
@given(query=query_strings())
def test_query_text_every_framework_exposes_was_judged(query: bytes) -> None:
    assert _unjudged(b"/q?" + query, []) == [], query


@_SETTINGS
@given(segments=st.lists(_value, min_size=1, max_size=3))
def test_path_text_every_framework_exposes_was_judged(segments: list[bytes]) -> None:
    path = b"/" + b"/".join(s.replace(b"?", b"").replace(b"#", b"") for s in segments)
    assert _unjudged(path, []) == [], path


@_SETTINGS
@given(
    name=st.sampled_from([b"X-Test", b"User-Agent", b"Accept-Language", b"Referer"]),
    value=_value.filter(lambda v: b"\r" not in v and b"\n" not in v and b"\x00" not in v),
)
def test_header_text_every_framework_exposes_was_judged(name: bytes, value: bytes) -> None:
    assert _unjudged(b"/h", [(name, value.strip(b" \t"))]) == [], value


@_SETTINGS
@given(cookie=cookie_headers())
def test_cookie_text_every_framework_exposes_was_judged(cookie: bytes) -> None:
    assert _unjudged(b"/c", [(b"Cookie", cookie)]) == [], cookie


# -- what testers found: each reached a framework's app unjudged ---------------------------

LATIN_1_HARMS = [
    # Û (C3 9B) read as Latin-1 is "Ã" + CSI; Ņ (C5 85) is "Å" + NEL
    pytest.param(b"/q?q=\xc3\x9b", [], id="query-raw-csi"),
    pytest.param(b"/q?\xc5\x85=1", [], id="query-name-raw-nel"),
    pytest.param(b"/h", [(b"X-Test", b"\xc3\x9b[2J")], id="header-csi"),
    pytest.param(b"/h", [(b"User-Agent", b"app \xc5\x85 x")], id="header-nel"),
    pytest.param(b"/c", [(b"Cookie", b"c=\xc3\x9b")], id="cookie-csi"),
    # Litestar percent-decodes cookie values
    pytest.param(b"/c", [(b"Cookie", b"c=%E2%80%AE")], id="cookie-percent-bidi"),
    pytest.param(b"/c", [(b"Cookie", b"c=a%0D%0Ab")], id="cookie-percent-crlf"),
]


@pytest.mark.parametrize(("target", "headers"), LATIN_1_HARMS)
def test_found_head_holes_are_refused(target: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    assert wf.middleware_verdict(DEFAULT, "GET", target, headers, b"") is not None
    assert wf.unjudged(DEFAULT, "GET", target, headers) == []


BENIGN_COOKIES = [
    b'prefs={"theme":"dark"}',
    b'prefs={"theme":"dark","lang":"en-US"}; sid=abc',
    b"cart=%5B%7B%22id%22%3A1%7D%5D",  # encodeURIComponent of JSON (js-cookie)
    b"sid=YWJjZGVm+/==; _ga=GA1.1.1234.5678",  # base64
    b'quoted="a b"',
    b"name=caf%C3%A9",
]


@pytest.mark.parametrize("cookie", BENIGN_COOKIES)
def test_common_cookies_pass(cookie: bytes) -> None:
    assert wf.middleware_verdict(DEFAULT, "GET", b"/c", [(b"Cookie", cookie)], b"") is None
    assert wf.unjudged(DEFAULT, "GET", b"/c", [(b"Cookie", cookie)]) == []
