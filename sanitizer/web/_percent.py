"""Percent-decoding (RFC 3986 §2.1) and form decoding (WHATWG URL §5.1), exactly as the
stdlib's ``urllib.parse.unquote_to_bytes`` does, in C when the extension is built.

Values are checked *after* decoding, since ``%C0%AF`` is the overlong '/' of the 2001 IIS
traversal; this runs on every query string and cookie, hence the C path.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote_to_bytes

from ._native import speedups

_c_unquote: Callable[[bytes, bool], bytes] | None = None if speedups is None else speedups.unquote


def _percent_decode_py(data: bytes) -> bytes:
    """``urllib.parse.unquote_to_bytes`` through a C codec for well-formed input: each %XX
    becomes a \\xXX escape for unicode_escape (backslashes doubled first, raw bytes pass as
    Latin-1).  A malformed escape ("%zz", a "%" at the end) takes the stdlib's route."""
    if b"%" not in data:
        return data
    try:
        escaped = data.replace(b"\\", b"\\\\").replace(b"%", b"\\x")
        return escaped.decode("unicode_escape").encode("latin-1")
    except UnicodeDecodeError:
        return unquote_to_bytes(data)


def _form_decode_py(data: bytes) -> bytes:
    return _percent_decode_py(data.replace(b"+", b" ") if b"+" in data else data)


def percent_decode(data: bytes) -> bytes:
    """%XX decoded exactly as ``urllib.parse.unquote_to_bytes`` does (in C when built)."""
    data = data if type(data) is bytes else bytes(data)  # a server may hand a bytearray
    return _c_unquote(data, False) if _c_unquote is not None else _percent_decode_py(data)


def form_decode(data: bytes) -> bytes:
    """A form-encoded name or value: '+' is a space, then %XX (WHATWG URL §5.1)."""
    data = data if type(data) is bytes else bytes(data)
    return _c_unquote(data, True) if _c_unquote is not None else _form_decode_py(data)
