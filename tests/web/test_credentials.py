"""Text inside header and query values, as frameworks decode it.

The Authorization header's credentials (sanitizer/web/_credentials.py): Basic credentials
base64-decoded, RFC 8187 ``name*=`` parameters percent-decoded.  Differential: whatever
Werkzeug's ``Authorization.from_header`` (Flask's and Quart's ``request.authorization``)
hands over from a header the middleware passed, user names, passwords and every
parameter, passes the ``headers`` policy.  And JSON in query values, as Falcon's
``get_param_as_json`` reads it (escapes resolved).
"""

from __future__ import annotations

import base64
from urllib.parse import quote_from_bytes

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanitizer import inspect
from sanitizer.web import DEFAULT, Problem, check_head

werkzeug_auth = pytest.importorskip("werkzeug.datastructures")

PIECES = [
    *("alice", "Jäger", "日本", "😀", " ", ":", "%", "'", '"', "\\", ",", "="),
    *("\u202e", "\r\n", "\x00", "\x1b[2J", "\x9b", "\u200b", "\U000e0041", "\u0085", "\ufeff"),
]
_text = st.lists(st.sampled_from(PIECES), max_size=4).map("".join)


def _verdict(value: bytes) -> Problem | None:
    return check_head(DEFAULT, b"/", b"", [(b"Authorization", value)])[0]


def _exposed(value: bytes) -> list[str]:
    """What Werkzeug's request.authorization hands the app from ``value``."""
    auth = werkzeug_auth.Authorization.from_header(value.decode("latin-1"))
    if auth is None:
        return []
    found = [auth.token or ""]
    found += [p for kv in auth.parameters.items() for p in kv if p is not None]
    return found


def _passes(text: str) -> bool:
    assert DEFAULT.headers is not None
    return inspect(text, DEFAULT.headers).ok


@given(
    user=_text,
    password=_text,
    encoding=st.sampled_from(["utf-8", "latin-1"]),
    scheme=st.sampled_from([b"Basic ", b"basic ", b"BASIC  "]),
)
def test_basic_credentials_werkzeug_decodes_were_judged(
    user: str, password: str, encoding: str, scheme: bytes
) -> None:
    try:
        raw = f"{user}:{password}".encode(encoding)
    except UnicodeEncodeError:
        raw = f"{user}:{password}".encode()
    value = scheme + base64.b64encode(raw)
    if _verdict(value) is None:
        assert all(_passes(t) for t in _exposed(value)), (value, _exposed(value))


@given(
    name=_text,
    charset=st.sampled_from(["UTF-8", "utf-8", "iso-8859-1", "ISO-8859-1", "us-ascii", "x"]),
    scheme=st.sampled_from([b"Digest", b"Custom"]),
)
def test_rfc8187_parameters_werkzeug_decodes_were_judged(
    name: str, charset: str, scheme: bytes
) -> None:
    try:
        raw = name.encode("latin-1" if charset.lower() == "iso-8859-1" else "utf-8")
    except UnicodeEncodeError:
        raw = name.encode()
    ext = charset.encode() + b"''" + quote_from_bytes(raw, safe="").encode()
    value = scheme + b' realm="x", username*=' + ext + b", nonce=abc"
    if _verdict(value) is None:
        assert all(_passes(t) for t in _exposed(value)), (value, _exposed(value))


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (b"Basic " + base64.b64encode("adm\u202enim:x".encode()), "bidi-control"),
        (b"Basic " + base64.b64encode(b"admin\r\nX-Forwarded-For: 1.2.3.4:x"), "line-break"),
        (b"basic " + base64.b64encode(b"root\x00:x"), "nul"),
        (b"Basic " + base64.b64encode("\u009b31m:x".encode()), "control"),
        (b"Digest username*=UTF-8''%E2%80%AE, realm=\"r\"", "bidi-control"),
        (b"Digest username*=utf-8''a%0D%0Ab", "line-break"),
        (b"Digest username*=iso-8859-1''%9B", "charset"),  # not a charset the policy takes
    ],
)
def test_decoded_credentials_are_refused(value: bytes, kind: str) -> None:
    problem = _verdict(value)
    assert problem is not None and problem.kind == kind, problem
    assert any(not _passes(t) for t in _exposed(value)) or kind == "charset"


@pytest.mark.parametrize(
    "value",
    [
        b"Basic " + base64.b64encode("josé:pässwörd 日本".encode()),
        b"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig-_x",
        b'Digest username="Mufasa", realm="x", nonce="n", uri="/", response="r"',
        b"Digest username*=UTF-8''J%C3%A4ger, realm=\"x\"",
    ],
)
def test_benign_credentials_pass(value: bytes) -> None:
    assert _verdict(value) is None


def test_an_iso_8859_1_parameter_is_read_in_it_when_the_policy_takes_it() -> None:
    policy = DEFAULT.replace(charsets={"utf-8", "iso-8859-1"})
    ok = b"Digest username*=iso-8859-1''J%E4ger"
    assert check_head(policy, b"/", b"", [(b"Authorization", ok)])[0] is None
    csi = b"Digest username*=iso-8859-1''%9B31m"
    problem = check_head(policy, b"/", b"", [(b"Authorization", csi)])[0]
    assert problem is not None and problem.kind == "control"


# -- JSON in query values (Falcon's get_param_as_json) ------------------------------------

_JSON_PIECES = [
    "a",
    "é",
    "\\\\u00e9",
    "\\\\u202e",
    "\\\\u0000",
    "\\\\ud800",
    "\\\\udb40\\\\udc41",
    "\\\\n",
    "\\\\\\\\",
]


@given(
    pieces=st.lists(st.sampled_from(_JSON_PIECES), max_size=4),
    shape=st.sampled_from(['{"k": "%s"}', '["%s", 1]', '"%s"', ' {"%s": 0}']),
    encode=st.booleans(),
)
def test_what_get_param_as_json_hands_over_was_judged(
    pieces: list[str], shape: str, encode: bool
) -> None:
    """Differential: a query the middleware passes gives Falcon's get_param_as_json only
    strings the query policy passes."""
    from urllib.parse import quote

    pytest.importorskip("falcon")
    import falcon.testing

    value = shape % "".join(pieces)
    query = "q=" + (quote(value, safe="") if encode else value)
    if check_head(DEFAULT, b"/", query.encode(), [])[0] is not None:
        return
    request = falcon.Request(falcon.testing.create_environ(query_string=query))
    try:
        found = request.get_param_as_json("q")
    except Exception:
        return  # Falcon refuses it: nothing handed over
    strings = [found] if isinstance(found, str) else []
    if isinstance(found, dict):
        strings = [s for kv in found.items() for s in kv if isinstance(s, str)]
    elif isinstance(found, list):
        strings = [s for s in found if isinstance(s, str)]
    assert DEFAULT.query is not None
    assert all(inspect(s, DEFAULT.query).ok for s in strings), (query, strings)
