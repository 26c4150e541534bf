"""The one way web tests build requests: multipart/form-data bodies, urlencoded forms,
JSON bodies, a body cut into chunks, and the raw HTTP/1.1 request (``Content-Length`` or
``Transfer-Encoding: chunked``, RFC 9112 §7.1) that carries any of them.

Everything is bytes, written byte for byte: the attacks live in exactly the bytes a test
gives (a raw overlong in a filename, a bare CR in a part's head), and no client library
normalises them on the way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote_from_bytes

BOUNDARY = b"sanitizer-boundary"
FORM_TYPE = b"application/x-www-form-urlencoded"
JSON_TYPE = b"application/json"
OCTETS = b"Content-Type: application/octet-stream"

# A part: (its header lines, joined by CRLF; its content).
Part = tuple[bytes, bytes]


def multipart_type(boundary: bytes = BOUNDARY) -> bytes:
    """The Content-Type value of a multipart/form-data body with ``boundary``."""
    return b"multipart/form-data; boundary=" + boundary


def disposition(params: bytes) -> bytes:
    """A part's Content-Disposition header line; ``params`` follow ``form-data; ``."""
    return b"Content-Disposition: form-data; " + params


def part(params: bytes, content: bytes, *headers: bytes) -> Part:
    """A form-data part; ``params`` follow ``form-data; ``, ``headers`` are more header
    lines (``OCTETS``, ``Content-Transfer-Encoding: base64``)."""
    return b"\r\n".join([disposition(params), *headers]), content


def field(name: bytes, value: bytes) -> Part:
    """A form field: ``name="NAME"`` and its value."""
    return part(b'name="' + name + b'"', value)


def file_part(name: bytes, filename: bytes, content: bytes, *headers: bytes) -> Part:
    """A file part: ``name="NAME"; filename="FILENAME"`` and its content."""
    return part(b'name="' + name + b'"; filename="' + filename + b'"', content, *headers)


def multipart(*parts: Part, boundary: bytes = BOUNDARY, tail: bytes = b"\r\n") -> bytes:
    """A multipart/form-data body (RFC 7578, RFC 2046 §5.1.1): each part after a delimiter
    line, then the close delimiter and ``tail`` (its epilogue's start)."""
    body = b"".join(
        b"--" + boundary + b"\r\n" + head + b"\r\n\r\n" + content + b"\r\n"
        for head, content in parts
    )
    return body + b"--" + boundary + b"--" + tail


def multipart_message(
    *parts: Part, boundary: bytes = BOUNDARY
) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """(headers, body) of a multipart/form-data request: its Content-Type and its body."""
    return [(b"Content-Type", multipart_type(boundary))], multipart(*parts, boundary=boundary)


def form(pairs: Iterable[tuple[bytes, bytes]], *, raw: bool = False) -> bytes:
    """An application/x-www-form-urlencoded body; each name and value percent-encoded,
    or written as given with ``raw=True`` (for bodies whose escapes are the point)."""
    if raw:
        return b"&".join(name + b"=" + value for name, value in pairs)
    return b"&".join(
        quote_from_bytes(name).encode() + b"=" + quote_from_bytes(value).encode()
        for name, value in pairs
    )


def json_body(value: Any) -> bytes:
    """``value`` as a UTF-8 JSON body, non-ASCII characters written as they are."""
    return json.dumps(value, ensure_ascii=False).encode()


def in_chunks(data: bytes, size: int) -> list[bytes]:
    """``data`` in pieces of ``size`` bytes (the last one shorter), as a server hands a
    body over."""
    return [data[i : i + size] for i in range(0, len(data), size)]


def http(
    method: str,
    target: bytes,
    headers: list[tuple[bytes, bytes]] | None = None,
    body: bytes = b"",
    *,
    chunked: bool = False,
    close: bool = True,
) -> bytes:
    """A raw HTTP/1.1 request; ``target`` and header values are sent byte for byte.
    ``chunked=True`` sends the body in 7-byte chunks; ``close=False`` leaves out
    ``Connection: close`` (keep-alive, for ``webservers.send_many``)."""
    lines = [method.encode() + b" " + target + b" HTTP/1.1", b"Host: 127.0.0.1"]
    lines += [name + b": " + value for name, value in headers or []]
    if chunked:
        lines.append(b"Transfer-Encoding: chunked")
        payload = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in in_chunks(body, 7)) + b"0\r\n\r\n"
    else:
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append(b"Content-Length: " + str(len(body)).encode())
        payload = body
    if close:
        lines.append(b"Connection: close")
    return b"\r\n".join(lines) + b"\r\n\r\n" + payload
