"""The Authorization header's credentials, as the frameworks that decode them read them.

Werkzeug's and Quart's ``request.authorization`` (and FastAPI's ``HTTPBasic``) hand the
app text that is not in the header as sent: Basic credentials are base64 (RFC 7617 §2),
decoded and read as UTF-8 (FastAPI: ASCII), and any scheme's ``name*=`` parameters are
RFC 8187 ext-values (``username*=UTF-8''%E2%80%AE``, RFC 7616 §3.4.4), percent-decoded in
their charset.  A user name with an RLO, CR LF or a C1 control would reach the app
unjudged, so both readings are judged by the ``headers`` policy, the ext-value's charset
by ``WebPolicy.charsets`` as elsewhere (``_readings``: "authorization").
"""

from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import unquote_to_bytes

from ._compiled_web import CompiledWebPolicy
from ._grammar import charset_label
from ._problems import Problem
from ._value_checks import charset_problem, value_problem

# RFC 8187 §3.2 ext-value after a "name*=", as Werkzeug's parse_dict_header reads it
# (http._charset_value_re: charset'language'value, the value one or more token
# characters with its %XX escapes).
_EXT_VALUE = re.compile(
    r"\*\s*=\s*([\w!#$%&*+\-.^`|~]*)'[\w!#$%&*+\-.^`|~]*'([\w!#$%&'*+\-.^`|~]+)", re.ASCII
)
_AS_UTF8 = frozenset({"utf-8", "ascii", "us-ascii"})  # read as UTF-8 (ASCII is a subset)
_WHERE = "header 'Authorization'"


def may_hold_credentials(value: bytes) -> bool:
    """Whether an Authorization value may decode to other text (webhead.c's twin):
    a Basic scheme, or a ``*`` (an RFC 8187 ``name*=`` parameter)."""
    return value.lstrip()[:5].lower() == b"basic" or b"*" in value


def credentials_problem(compiled: CompiledWebPolicy, value: bytes) -> Problem | None:
    """The problem of the text a framework decodes from an Authorization ``value``."""
    check = compiled.headers
    if check is None:
        return None
    text = value.decode("latin-1")  # how a framework receives a header (PEP 3333, ASGI)
    scheme, _, rest = text.strip().partition(" ")
    if scheme.lower() == "basic":
        try:  # as Werkzeug: characters outside the alphabet are skipped
            raw = base64.b64decode(rest.strip())
        except (binascii.Error, ValueError):
            raw = None  # no credentials to any reader
        if raw is not None:
            where = f"{_WHERE} (Basic credentials, base64-decoded)"
            problem = value_problem(raw, check, "header", where)
            if problem is not None:
                return problem
    for m in _EXT_VALUE.finditer(text):
        charset, raw = charset_label(m.group(1)), unquote_to_bytes(m.group(2))
        where = f"{_WHERE} (an RFC 8187 parameter, percent-decoded)"
        if charset not in _AS_UTF8:
            problem = charset_problem(compiled, {"charset": charset}, where, "header", raw)
            if problem is not None:
                return problem
            try:  # a charset the policy accepts: read in it
                read: bytes | str = raw.decode(charset, "replace")
            except LookupError:
                read = raw.decode("latin-1")
        else:
            read = raw
        problem = value_problem(read, check, "header", where)
        if problem is not None:
            return problem
    return None
