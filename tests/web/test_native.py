"""The web layer's C extension (sanitizer.web._speedups) and its contract with Python.

- ``_speedups.pyi``, the ``WebSpeedups`` protocol of ``sanitizer/web/_native.py`` and the
  module's methods name the same attributes with the same parameters, and the C functions
  accept and refuse the arities they state; the module reports the ABI version its seam
  checks;
- the seam follows the core's backend choice (with the core on pure Python, so is the web
  layer);
- what webhead.c reads from Python is what Python holds: the token characters of
  ``sanitizer.web._grammar.TOKEN`` (every byte as a header name, against the grammar) and
  the layout of ``FastHeadArgs`` (four groups, in the order path, query, headers, cookies,
  each ``(allowed, flags, c_args)`` with ``c_args`` the arguments of the core's clean()).
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

import sanitizer.web._json as json_check
from sanitizer import _native, profiles
from sanitizer._policy.compiled import compile_policy
from sanitizer.web import DEFAULT, _grammar
from sanitizer.web import _native as web_native
from sanitizer.web._compiled_web import FastGroup, compile_web_policy
from sanitizer.web._head import _HEADS
from tests.support.native_interface import check_interface, require

WEB = Path(web_native.__file__).parent


def _extension() -> ModuleType:
    return require(web_native.speedups, "sanitizer.web._speedups")  # type: ignore[arg-type]


def _fast_args() -> tuple[FastGroup, FastGroup, FastGroup, FastGroup]:
    fast = compile_web_policy(DEFAULT).fast_head_args
    assert fast is not None
    return fast


def test_protocol_stub_and_module_agree() -> None:
    ext = _extension()
    text_strings = json_check._strings_table(compile_policy(profiles.TEXT).ascii_allowed)
    samples: dict[str, tuple[tuple[object, ...], dict[str, object]]] = {
        "unquote": ((b"a%41+b", True), {}),
        "web_head": ((b"/", b"q=1", [(b"host", b"x")], _fast_args(), _HEADS, None), {}),
        "json_strings": (('["a"]', 0, json_check._BETWEEN_TABLE, text_strings), {}),
    }
    check_interface(ext, web_native.WebSpeedups, WEB / "_speedups.pyi", samples)


def test_abi_version_is_the_seams() -> None:
    header = (WEB / "_native_src" / "webspeedups.h").read_text(encoding="utf-8")
    found = re.search(r"#define WEB_SPEEDUPS_ABI_VERSION (\d+)", header)
    assert found is not None
    assert int(found[1]) == web_native.ABI_VERSION == _extension().ABI_VERSION


def test_the_web_seam_follows_the_core() -> None:
    assert web_native.BACKEND == ("c" if web_native.speedups is not None else "python")
    if _native.speedups is None:
        assert web_native.speedups is None


def _head(name: bytes, fast: tuple[FastGroup, ...] | None = None) -> object:
    return _extension().web_head(b"/", b"", [(name, b"x")], fast or _fast_args(), _HEADS, None)


def test_token_characters_are_the_grammars() -> None:
    """webhead.c takes tchar (RFC 9110 §5.6.2) from _grammar.TOKEN at init: a one-byte
    header name passes exactly when the grammar calls it a token."""
    for byte in range(256):
        name = bytes([byte])
        assert (_head(name) is not None) == _grammar.is_token(name), hex(byte)
    assert _head(b"X-Custom_Header.1") is not None
    assert _head(b"") is None and _head(b"a b") is None


def test_fast_head_args_layout() -> None:
    """The layout webhead.c reads: a tuple of four FastGroups (path, query, headers,
    cookies), each (allowed, flags, c_args): 128 flag bytes (1 = ASCII byte allowed, the
    bytes of ``allowed``) and c_args of clean()'s arguments after data."""
    assert FastGroup._fields == ("allowed", "flags", "c_args")
    core = require(_native.speedups, "sanitizer._speedups")  # type: ignore[arg-type]
    fast = _fast_args()  # (built for the C backend only)
    assert isinstance(fast, tuple) and len(fast) == 4
    for group in fast:
        assert group.flags == bytes(c in group.allowed for c in range(0x80))
        for args in group.c_args:
            assert isinstance(args, tuple) and len(args) == 4
            assert core.clean("x", *args) == "x"


_NO_LIMIT = (_HEADS, None)  # web_head's last two arguments: Heads, no body limit

# A group that passes nothing: no ASCII byte allowed, and c_args webhead.c does not
# recognise (it then answers "not sure").
_REFUSING = FastGroup(b"", bytes(0x80), ((),))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("part", "request_with", "request_without"),
    [
        (0, (b"/a", b"", []), (b"", b"", [])),
        (1, (b"/", b"q=1", []), (b"/", b"", [])),
        (2, (b"/", b"", [(b"x-a", b"1")]), (b"/", b"", [])),
        (3, (b"/", b"", [(b"cookie", b"a=1")]), None),
    ],
)
def test_each_group_judges_its_part(
    part: int,
    request_with: tuple[bytes, bytes, list[tuple[bytes, bytes]]],
    request_without: tuple[bytes, bytes, list[tuple[bytes, bytes]]] | None,
) -> None:
    """Group k judges part k (and only it): refusing group k makes a request with that
    part "not sure", and leaves a request without it passing."""
    ext = _extension()
    proper = _fast_args()
    refusing = tuple(_REFUSING if k == part else g for k, g in enumerate(proper))
    assert ext.web_head(*request_with, proper, *_NO_LIMIT) is not None
    assert ext.web_head(*request_with, refusing, *_NO_LIMIT) is None
    if request_without is not None:
        assert ext.web_head(*request_without, refusing, *_NO_LIMIT) is not None
    if part == 3:  # the cookie header is a header too: judged by both groups
        headers_refusing = tuple(_REFUSING if k == 2 else g for k, g in enumerate(proper))
        assert ext.web_head(*request_with, headers_refusing, *_NO_LIMIT) is None
