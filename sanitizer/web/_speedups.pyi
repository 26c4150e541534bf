"""Types of the optional C extension ``sanitizer.web._speedups`` (sources: ``_native_src/``).

Why a stub: mypy cannot read a C module, so without it every call into the extension
would be unchecked.  Reach the module through ``sanitizer.web._native.speedups``
(``None`` when it is not built, is a stale build, or the core runs on the pure-Python
backend).  tests/web/test_native.py checks that this file, the ``WebSpeedups`` protocol
of ``_native.py`` and the module's methods name the same attributes with the same
parameters.
"""

# -- module.c -----------------------------------------------------------------------------

ABI_VERSION: int  # WEB_SPEEDUPS_ABI_VERSION (webspeedups.h); sanitizer.web._native.ABI_VERSION

# -- percent.c: percent-decoding (RFC 3986 §2.1) ------------------------------------------

def unquote(data: bytes, plus: bool, /) -> bytes:
    """%XX decoded as urllib.parse.unquote_to_bytes does; with plus, '+' is a space."""

# -- webhead.c: the head fast path in one call ----------------------------------------------

def web_head(
    path: bytes,
    query: bytes,
    headers: list[tuple[bytes, bytes]],
    groups: tuple[object, ...],
    heads: tuple[object, ...],
    limit: int | None,
    /,
) -> tuple[object, ...] | None:
    """When every value is clean under every policy of its group (groups:
    sanitizer.web._compiled_web.FastHeadArgs): the Head (heads: _head._HEADS), or the
    framing (content_type, length, has_body) for a Content-Type not yet in heads' dict;
    else None: "not sure" (reference: sanitizer.web._head.fast_head_py)."""

# -- jsonscan.c: the JSON strings of a decoded chunk that need judging ----------------------

def json_strings(
    text: str, start: int, between: bytes, strings: bytes, /
) -> tuple[int, str, list[int]] | None:
    """(open, joined, starts): the index of the quote of a string left open (-1 if none),
    the strings that need judging with escapes resolved, joined by 'a', and where each
    starts in joined; None on a flagged character between strings or a string whose
    escapes cannot be resolved (see jsonscan.c)."""
