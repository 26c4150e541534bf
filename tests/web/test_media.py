"""Media types: JSON is JSON whatever its spelling, and a body's content
coding must be one unambiguous value.  Sans-IO: ``check_head`` and ``body_check``."""

from __future__ import annotations

import json

import pytest

from sanitizer.web import Problem, WebPolicy, body_check, check_head
from sanitizer.web._grammar import media_kind

POLICY = WebPolicy()


def verdict(
    content_type: bytes | None,
    body: bytes,
    *,
    chunk: int | None = None,
    extra: list[tuple[bytes, bytes]] | None = None,
) -> Problem | None:
    """The first problem of a POST with this Content-Type and body, fed in ``chunk``-byte
    pieces (all at once by default)."""
    headers = [(b"content-length", str(len(body)).encode()), *(extra or [])]
    if content_type is not None:
        headers.append((b"content-type", content_type))
    problem, head = check_head(POLICY, b"/", b"", headers)
    if problem is not None:
        return problem
    check = body_check(POLICY, head)
    step = chunk or max(1, len(body))
    for i in range(0, len(body), step):
        if (problem := check.feed(body[i : i + step])) is not None:
            return problem
    return check.close()


@pytest.mark.parametrize(
    ("media", "kind"),
    [
        ("application/json", "json"),
        ("Application/JSON; charset=utf-8", "json"),
        ("application/problem+json", "json"),  # RFC 6839 §3.1 structured suffix
        ("application/vnd.api+json", "json"),
        ("application/merge-patch+json", "json"),
        ("application/x-ndjson", "json"),  # newline-delimited: LF is JSON whitespace
        ("application/ndjson", "json"),
        ("application/json-seq", "json-seq"),  # RFC 7464
        ("application/geo+json-seq", "json-seq"),  # RFC 8091 suffix
        ("text/plain", "text"),
        ("text/json", "text"),  # text/* with JSON in it is still text
        ("text/x-ndjson", "text"),
        ("application/jsonx", None),
        ("application/json5", None),
        ("image/svg+json-ish", None),
        ("application/octet-stream", None),
    ],
)
def test_media_kind(media: str, kind: str | None) -> None:
    assert media_kind(media) == kind


RECORDS = [{"text": "Grüße, 東京 👋"}, {"n": 1, "list": ["é", "\u00e9"]}, "Привет"]
NDJSON = b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in RECORDS)
JSON_SEQ = b"".join(b"\x1e" + json.dumps(r).encode() + b"\n" for r in RECORDS)


@pytest.mark.parametrize("chunk", [None, 1, 3, 7])
@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        (b"application/x-ndjson", NDJSON),
        (b"application/json-seq", JSON_SEQ),
        (b"application/problem+json", NDJSON.splitlines()[0]),
    ],
)
def test_benign_records_pass(content_type: bytes, body: bytes, chunk: int | None) -> None:
    assert verdict(content_type, body, chunk=chunk) is None


@pytest.mark.parametrize("chunk", [None, 1, 5])
@pytest.mark.parametrize(
    ("content_type", "body", "kind"),
    [
        (b"application/x-ndjson", NDJSON + b'{"b": "\\u202e"}\n', "bidi-control"),
        (b"application/x-ndjson", NDJSON + b'{"b": "a\xc0\xaeb"}\n', "overlong"),
        (b"application/json-seq", JSON_SEQ + b'\x1e{"b": "x\\u0000"}\n', "nul"),
        (b"application/json-seq", JSON_SEQ + b'\x1e["\xe2\x80\xae"]\n', "bidi-control"),
        (b"application/vnd.api+json", b'{"data": {"id": "\\udb40\\udc41"}}', "tag"),
        # RS is allowed between the tokens of a JSON text sequence only
        (b"application/json", b'\x1e{"a": 1}\n', "control"),
        (b"application/x-ndjson", b'\x1e{"a": 1}\n', "control"),
        # ... and never inside a string
        (b"application/json-seq", b'\x1e["a\x1eb"]\n', "control"),
    ],
)
def test_each_record_is_checked(
    content_type: bytes, body: bytes, kind: str, chunk: int | None
) -> None:
    problem = verdict(content_type, body, chunk=chunk)
    assert problem is not None and problem.part == "json", problem
    assert problem.kind == kind, problem


def test_text_with_json_in_it_is_text_checked() -> None:
    """text/* is read as text, and as JSON by content (Starlette's and Litestar's
    request.json() parse it whatever its label): escapes are judged too."""
    problem = verdict(b"text/plain", b'{"a": "\\u202e"}')
    assert problem is not None and (problem.part, problem.kind) == ("json", "bidi-control")
    assert verdict(b"text/plain", b'not JSON: "\\u202e"') is None  # no JSON parser reads it
    problem = verdict(b"text/plain; charset=utf-8", '{"a": "\u202e"}'.encode())
    assert problem is not None and (problem.part, problem.kind) == ("text", "bidi-control")


# -- Content-Encoding ------------------------------------------------------------------------

JSON = b"application/json"
CE = b"content-encoding"


@pytest.mark.parametrize("content_type", [JSON, b"application/octet-stream", None])
@pytest.mark.parametrize(
    "encodings",
    [
        [b"gzip", b"identity"],  # last wins in one reader, first in another
        [b"identity", b"gzip"],
        [b"gzip, identity"],  # what a WSGI server makes of the two above
        [b"identity", b"identity"],
        [b"gzip, gzip"],
        [b"br", b"gzip"],
    ],
)
def test_repeated_or_listed_content_encoding_is_ambiguous(
    content_type: bytes | None, encodings: list[bytes]
) -> None:
    extra = [(CE, e) for e in encodings]
    problem = verdict(content_type, b'{"a": 1}', extra=extra)
    assert problem is not None
    assert (problem.part, problem.kind, problem.where) == (
        "header",
        "ambiguous-header",
        "Content-Encoding",
    )
    assert problem.status == 400


def test_one_content_encoding() -> None:
    """One coding: identity is no coding; any other on a checked body is refused (it
    cannot be read as the app will read it), and an unchecked body passes counted."""
    assert verdict(JSON, b'{"a": 1}', extra=[(CE, b"identity")]) is None
    assert verdict(JSON, b'{"a": 1}', extra=[(CE, b" Identity ")]) is None
    problem = verdict(JSON, b"\x1f\x8b\x08\x00", extra=[(CE, b"gzip")])
    assert problem is not None and problem.kind == "content-encoding"
    assert verdict(b"application/octet-stream", b"\x1f\x8b", extra=[(CE, b"gzip")]) is None
    assert verdict(None, b"\x1f\x8b", extra=[(CE, b"gzip")]) is None
