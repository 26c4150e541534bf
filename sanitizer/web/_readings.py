"""How each supported framework turns the bytes of each part of a request into text: the
one table the middleware's ambiguity rules derive from, and that docs/web.md's readings
table is generated from (tools/gen_docs_tables.py).

The rule (docs/web.md): what any supported framework would expose as text must pass the
part's policy *in that framework's reading*; where readings differ in a way that matters
(one has a control the other lacks, one is a file and the other text), the request is
refused as ambiguous, naming the part and the readers that disagree.  So every rule of
the checks that concerns a framework is asked of this table -- which readers decode raw
bytes >= 0x80 as Latin-1, which percent-decode a cookie, which HTML-escapes a multipart
name resolves, which JSON accessor parses a body whatever its Content-Type -- and a test
holds the table to the frameworks' own parsers (tests/suites/test_web_differential*.py).

The readers are the frameworks at the versions the ``test`` extra installs; each entry
was read from the framework's source and is checked by calling it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType

# Reader ids, as docs/web.md and problems name them.
STARLETTE = "Starlette"  # and FastAPI, which reads through Starlette's Request
WERKZEUG = "Werkzeug"  # Flask
QUART = "Quart"
DJANGO_WSGI = "Django (WSGI)"
DJANGO_ASGI = "Django (ASGI)"
LITESTAR = "Litestar"
FALCON_ASGI = "Falcon (ASGI)"
FALCON_WSGI = "Falcon (WSGI)"
AIOHTTP = "aiohttp"  # sanitizer.web.aiohttp
SANIC = "Sanic"  # behind ASGIMiddleware
BLACKSHEEP = "BlackSheep"  # behind ASGIMiddleware
READERS = (
    STARLETTE,
    WERKZEUG,
    QUART,
    DJANGO_WSGI,
    DJANGO_ASGI,
    LITESTAR,
    FALCON_ASGI,
    FALCON_WSGI,
    AIOHTTP,
    SANIC,
    BLACKSHEEP,
)
ASGI_READERS = (STARLETTE, QUART, DJANGO_ASGI, LITESTAR, FALCON_ASGI, SANIC, BLACKSHEEP)

# How raw bytes >= 0x80 (not percent-escaped) become text.
UTF8 = "utf-8"
LATIN1 = "latin-1"
BYTES = "bytes"  # handed over as bytes: the app decodes (UTF-8 assumed)
NONE = "none"  # not exposed: the framework refuses such bytes, or has no accessor


@dataclass(frozen=True)
class Decoding:
    """How one framework reads one part."""

    raw: str  # UTF8, LATIN1, BYTES or NONE: what a raw byte >= 0x80 becomes
    percent: bool = False  # %XX escapes are decoded (as UTF-8, errors replaced)
    # Content-Disposition names and filenames: the HTML standard's escapes undone
    # ("%22" -> '"', "%0D" -> CR, "%0A" -> LF), as a tuple of the escapes resolved.
    html_escapes: tuple[str, ...] = ()
    note: str = ""  # what else the doc table says (quoting, whitespace, ...)

    def describe(self) -> str:
        """The table cell: the reading in words."""
        words = {UTF8: "UTF-8", LATIN1: "**Latin-1**", BYTES: "bytes", NONE: "-"}[self.raw]
        if self.percent:
            words += ", %-decoded"
        if self.html_escapes:
            words += ", " + " ".join(f"`{e}`" for e in self.html_escapes) + " resolved"
        return words + (f"; {self.note}" if self.note else "")


def _all(reading: Decoding, **others: Decoding) -> MappingProxyType[str, Decoding]:
    """``reading`` for every reader but those named in ``others`` (by variable name)."""
    names = {
        "starlette": STARLETTE,
        "werkzeug": WERKZEUG,
        "quart": QUART,
        "django_wsgi": DJANGO_WSGI,
        "django_asgi": DJANGO_ASGI,
        "litestar": LITESTAR,
        "falcon_asgi": FALCON_ASGI,
        "falcon_wsgi": FALCON_WSGI,
        "aiohttp": AIOHTTP,
        "sanic": SANIC,
        "blacksheep": BLACKSHEEP,
    }
    table = dict.fromkeys(READERS, reading)
    for key, value in others.items():
        table[names[key]] = value
    return MappingProxyType(table)


_WERKZEUG_COOKIE = Decoding(
    LATIN1,
    note="a quoted-string may run past `;`; `\\ooo` bytes read as UTF-8; "
    "a value with a quote or space inside is dropped",
)
_AUTHORIZATION = (
    "`request.authorization`: Basic base64, then UTF-8; any scheme's `name*=` RFC 8187, "
    "UTF-8 or ISO-8859-1"
)
_AIOHTTP_PERCENT = "%-decoded as UTF-8 by yarl"
_AIOHTTP_RAW = "raw bytes refused by aiohttp's parser"
_AIOHTTP_CHARSET = "the charset, else UTF-8 (`bytes.decode`)"
_AIOHTTP_DISPOSITION = (
    "`name*`/`filename*` (RFC 5987, its charset) and RFC 2231 continuations preferred; "
    "`\\` escapes undone"
)
_COOKIE_QUOTE = 'a whole `"..."` unquoted, `\\ooo` one code point each (`http.cookies`)'

# part -> reader -> Decoding.  The parts are those of docs/web.md's table of policies.
TABLE: MappingProxyType[str, MappingProxyType[str, Decoding]] = MappingProxyType(
    {
        "path": _all(
            Decoding(UTF8, True, note="the server's percent-decoded `path` / PATH_INFO"),
            aiohttp=Decoding(
                NONE,
                True,
                note="`request.path`, `match_info`: an ill-formed %-sequence left as "
                f"`%XX`, `%2F` a `/`; {_AIOHTTP_RAW}",
            ),
            sanic=Decoding(
                NONE, note="`request.path` and route parameters as sent; raw bytes: Bad URL"
            ),
            blacksheep=Decoding(UTF8, True, note="route values; `request.path` as sent"),
        ),
        "query": _all(
            Decoding(UTF8, True, note="`+` is a space"),
            starlette=Decoding(LATIN1, True, note="`+` is a space"),
            litestar=Decoding(LATIN1, True, note="`+` is a space"),
            falcon_wsgi=Decoding(LATIN1, True, note="`+` is a space"),
            aiohttp=Decoding(NONE, True, note=f"`request.query`: `+` is a space; {_AIOHTTP_RAW}"),
            sanic=Decoding(NONE, True, note="`request.args`: `+` is a space; raw bytes: Bad URL"),
        ),
        # A query value a JSON accessor parses: escapes resolved (_head).
        "query json": _all(
            Decoding(NONE, note="no accessor"),
            falcon_asgi=Decoding(UTF8, note="`get_param_as_json()`: `\\u` escapes resolved"),
            falcon_wsgi=Decoding(UTF8, note="`get_param_as_json()`: `\\u` escapes resolved"),
        ),
        "header": _all(
            Decoding(LATIN1, note="PEP 3333 / ASGI header bytes as Latin-1"),
            aiohttp=Decoding(UTF8, note="an ill-formed byte as a lone surrogate (surrogateescape)"),
            sanic=Decoding(UTF8, note="`request.headers`"),
            blacksheep=Decoding(BYTES, note="`request.headers`: bytes, the app decodes"),
        ),
        # The credentials an accessor decodes from the header (_credentials).
        "authorization": _all(
            Decoding(NONE, note="no accessor"),
            starlette=Decoding(UTF8, note="FastAPI's `HTTPBasic`: base64, then ASCII"),
            werkzeug=Decoding(UTF8, note=_AUTHORIZATION),
            quart=Decoding(UTF8, note=_AUTHORIZATION),
            sanic=Decoding(UTF8, note="`request.credentials`: Basic base64, then UTF-8"),
        ),
        "cookie": _all(
            Decoding(LATIN1, note=_COOKIE_QUOTE),
            werkzeug=_WERKZEUG_COOKIE,
            quart=_WERKZEUG_COOKIE,
            django_wsgi=Decoding(UTF8, note=_COOKIE_QUOTE),
            litestar=Decoding(LATIN1, True, note=_COOKIE_QUOTE + ", then %-decoded"),
            falcon_asgi=Decoding(LATIN1, note=_COOKIE_QUOTE + "; nameless pairs dropped"),
            falcon_wsgi=Decoding(LATIN1, note=_COOKIE_QUOTE + "; nameless pairs dropped"),
            aiohttp=Decoding(UTF8, note=_COOKIE_QUOTE + "; a quoted-string may hold `;`"),
            sanic=Decoding(UTF8, note=_COOKIE_QUOTE),
            blacksheep=Decoding(UTF8, True, note="quotes kept, then %-decoded"),
        ),
        "form": _all(
            Decoding(UTF8, True, note="`+` is a space"),
            starlette=Decoding(LATIN1, True, note="`+` is a space, whatever the charset"),
            litestar=Decoding(LATIN1, True, note="`+` is a space, whatever the charset"),
            falcon_asgi=Decoding(NONE, True, note="ASCII only: other bytes fail the parse"),
            falcon_wsgi=Decoding(NONE, True, note="ASCII only: other bytes fail the parse"),
        ),
        "multipart name": _all(
            Decoding(UTF8),
            werkzeug=Decoding(UTF8, html_escapes=("%22",)),
            quart=Decoding(UTF8, html_escapes=("%22",)),
            litestar=Decoding(UTF8, html_escapes=("%22", "%0D", "%0A")),
            aiohttp=Decoding(UTF8, note=_AIOHTTP_DISPOSITION),
            sanic=Decoding(UTF8, html_escapes=("%22", "%0D%0A")),
        ),
        "multipart filename": _all(
            Decoding(UTF8),
            werkzeug=Decoding(UTF8, html_escapes=("%22",)),
            quart=Decoding(UTF8, html_escapes=("%22",)),
            django_wsgi=Decoding(UTF8, note="HTML character references resolved, last segment"),
            django_asgi=Decoding(UTF8, note="HTML character references resolved, last segment"),
            litestar=Decoding(UTF8, html_escapes=("%22", "%0D", "%0A")),
            falcon_asgi=Decoding(UTF8, note="`filename*` preferred"),
            falcon_wsgi=Decoding(UTF8, note="`filename*` preferred"),
            aiohttp=Decoding(UTF8, note=_AIOHTTP_DISPOSITION + "; leading `\\` and `/` dropped"),
            sanic=Decoding(UTF8, html_escapes=("%22", "%0D%0A"), note="`filename*` preferred"),
        ),
        # the other headers of a part (Content-Type, ...): Content-Disposition's name and
        # filename are the rows above, read as UTF-8 by all (Starlette's UploadFile.headers
        # still shows the raw Content-Disposition as Latin-1)
        "multipart header": _all(
            Decoding(UTF8),
            starlette=Decoding(LATIN1, note="`UploadFile.headers`"),
        ),
        "multipart field": _all(
            Decoding(UTF8, note="the part's charset"),
            falcon_asgi=Decoding(UTF8, note="text/plain parts only (`get_text`)"),
            falcon_wsgi=Decoding(UTF8, note="text/plain parts only (`get_text`)"),
            aiohttp=Decoding(
                UTF8,
                note="`post()`: the part's charset, else a first `_charset_` field's "
                "(RFC 7578 §4.6), else UTF-8; text/* and untyped parts only",
            ),
            blacksheep=Decoding(
                UTF8, note="`form()`: the part's charset, else a `_charset_` field's, else UTF-8"
            ),
        ),
        "json": _all(
            Decoding(UTF8, note="`\\u` escapes resolved"),
            starlette=Decoding(UTF8, note="`\\u` escapes resolved; UTF-16/32 detected"),
            werkzeug=Decoding(UTF8, note="`\\u` escapes resolved; UTF-16/32 detected"),
            quart=Decoding(UTF8, note="`\\u` escapes resolved; UTF-16/32 detected"),
            django_wsgi=Decoding(BYTES, note="no JSON accessor"),
            django_asgi=Decoding(BYTES, note="no JSON accessor"),
            aiohttp=Decoding(UTF8, note=f"`\\u` escapes resolved; {_AIOHTTP_CHARSET}"),
        ),
        # What a framework's JSON accessor parses when the body is *not* declared JSON.
        "json by content": _all(
            Decoding(UTF8, note="any body (`request.json()`)"),
            starlette=Decoding(UTF8, note="any body (`request.json()`); UTF-16/32 detected"),
            werkzeug=Decoding(UTF8, note="`get_json(force=True)`; UTF-16/32 detected"),
            quart=Decoding(UTF8, note="`get_json(force=True)`; UTF-16/32 detected"),
            django_wsgi=Decoding(NONE, note="no JSON accessor"),
            django_asgi=Decoding(NONE, note="no JSON accessor"),
            falcon_asgi=Decoding(UTF8, note="a body without Content-Type (`get_media()`)"),
            falcon_wsgi=Decoding(UTF8, note="a body without Content-Type (`get_media()`)"),
            aiohttp=Decoding(UTF8, note=f"any body (`request.json()`); {_AIOHTTP_CHARSET}"),
            sanic=Decoding(UTF8, note="any body (`request.json`)"),
            blacksheep=Decoding(
                UTF8, note="a Content-Type holding `json` anywhere (`request.json()`)"
            ),
        ),
        # What a MessagePack accessor decodes: any body.
        "msgpack by content": _all(
            Decoding(NONE, note="no MessagePack accessor"),
            litestar=Decoding(UTF8, note="any body (`request.msgpack()`), msgspec"),
        ),
        # A body not declared JSON, form or multipart (text/* is judged as text anyway).
        "text": _all(
            Decoding(BYTES, note="the app decodes"),
            aiohttp=Decoding(
                UTF8,
                note=f"any body (`request.text()`), after aiohttp's own decompression; "
                f"{_AIOHTTP_CHARSET}; at most `client_max_size` bytes",
            ),
            blacksheep=Decoding(
                UTF8,
                note="any body (`request.text()`): the first `charset=` anywhere in the "
                "Content-Type (`loose_charset`), else UTF-8; no size bound",
            ),
        ),
        "websocket": _all(
            Decoding(UTF8, note="text messages, decoded by the server"),
            werkzeug=Decoding(NONE, note="no WebSocket"),
            django_wsgi=Decoding(NONE, note="no WebSocket"),
            django_asgi=Decoding(NONE, note="not without Channels"),
            falcon_wsgi=Decoding(NONE, note="no WebSocket"),
            sanic=Decoding(UTF8, note="text messages (`ws.recv()`)"),
        ),
        # A text message handed to a JSON parser: escapes resolved, as in a JSON body.
        "websocket json": _all(
            Decoding(NONE, note="no WebSocket"),
            starlette=Decoding(UTF8, note="`receive_json()`: `\\u` escapes resolved"),
            quart=Decoding(UTF8, note="`receive_json()`: `\\u` escapes resolved"),
            litestar=Decoding(UTF8, note="`receive_json()`: `\\u` escapes resolved"),
            falcon_asgi=Decoding(UTF8, note="`receive_media()`: `\\u` escapes resolved"),
            django_asgi=Decoding(NONE, note="not without Channels"),
            aiohttp=Decoding(UTF8, note="`receive_json()`: `\\u` escapes resolved"),
            blacksheep=Decoding(UTF8, note="`receive_json()`: `\\u` escapes resolved"),
        ),
        # A binary message handed to a JSON (or MessagePack) parser.
        "websocket binary": _all(
            Decoding(NONE, note="no WebSocket"),
            starlette=Decoding(UTF8, note='`receive_json(mode="binary")`'),
            quart=Decoding(UTF8, note="`receive_json()`: `json.loads`, UTF-16/32 detected"),
            litestar=Decoding(UTF8, note='`receive_json(mode="binary")`, `receive_msgpack()`'),
            falcon_asgi=Decoding(UTF8, note="`receive_media()`: MessagePack"),
            django_asgi=Decoding(NONE, note="not without Channels"),
            aiohttp=Decoding(NONE, note="`receive_json()` refuses a binary message"),
            blacksheep=Decoding(UTF8, note="`receive_json(mode=MessageMode.BYTES)`"),
        ),
    }
)


@dataclass(frozen=True)
class Spelling:
    """A Content-Type media type (lower case, parameters aside) that ``readers`` hand to
    their ``kind`` of parser: "form" (urlencoded), "multipart" or "json".  An
    ``anywhere`` spelling is matched as a substring of the whole Content-Type value,
    parameters included (BlackSheep's ``in`` tests), in the case given unless
    ``any_case``."""

    media: str
    kind: str
    readers: tuple[str, ...]
    note: str = ""
    anywhere: bool = False
    any_case: bool = False


_FALCON = (FALCON_ASGI, FALCON_WSGI)
_RANGE = "the Content-Type matched as a media range (`mediatypes.best_match`)"
_ANYWHERE = "anywhere in the Content-Type value, parameters included"
# Every media type a supported framework maps to its form, multipart or JSON parser, read
# from their sources (Werkzeug's FormDataParser, Quart's parse_functions, Starlette's and
# Litestar's form(), Django's _load_post_and_files, Falcon's media Handlers) and checked
# by calling them (tests/web/test_readings.py).  Werkzeug, Quart, Starlette and Litestar
# lower-case the type; Falcon and Django compare it as sent.  The middleware reads a body
# with a form or multipart spelling as that kind (``media_kinds``); every body not
# declared JSON is read as JSON by content anyway, so the JSON spellings are documented
# here, not needed.
MEDIA_TYPES: tuple[Spelling, ...] = (
    Spelling("application/x-www-form-urlencoded", "form", READERS),
    Spelling("application/x-url-encoded", "form", (QUART,), "Werkzeug dropped it in 3.0"),
    Spelling("*/x-www-form-urlencoded", "form", _FALCON, _RANGE),
    Spelling("multipart/form-data", "multipart", READERS),
    Spelling("multipart/*", "multipart", _FALCON, _RANGE),
    Spelling("*/form-data", "multipart", _FALCON, _RANGE),
    Spelling(
        "application/json",
        "json",
        (STARLETTE, WERKZEUG, QUART, LITESTAR, *_FALCON, AIOHTTP, SANIC, BLACKSHEEP),
        "Starlette, Litestar, aiohttp and Sanic: any body",
    ),
    Spelling("application/*+json", "json", (STARLETTE, WERKZEUG, QUART, LITESTAR), "any suffix"),
    Spelling("*/*", "json", _FALCON, _RANGE + "; also `*`, `application/*`, `*/json`"),
    Spelling(
        "application/x-www-form-urlencoded",
        "form",
        (BLACKSHEEP,),
        _ANYWHERE + ', case kept: `text/plain; a="application/x-www-form-urlencoded"` is a form',
        anywhere=True,
    ),
    Spelling(
        "multipart/form-data;", "multipart", (BLACKSHEEP,), _ANYWHERE + ", case kept", anywhere=True
    ),
    Spelling("json", "json", (BLACKSHEEP,), _ANYWHERE + ", any case", anywhere=True, any_case=True),
)


def media_kinds() -> dict[str, str]:
    """The form and multipart spellings of ``MEDIA_TYPES``: media type -> kind."""
    return {
        s.media: s.kind for s in MEDIA_TYPES if s.kind in ("form", "multipart") and not s.anywhere
    }


def anywhere_kinds() -> tuple[tuple[bytes, str, bool], ...]:
    """The ``anywhere`` spellings of ``MEDIA_TYPES`` that reach a form or multipart parser:
    (the substring, its kind, whether case is ignored).  A Content-Type holding one whose
    media type is of another kind is read as two kinds, so it is ambiguous (JSON needs no
    such rule: every body not declared JSON is read as JSON by content)."""
    return tuple(
        (s.media.encode("ascii"), s.kind, s.any_case)
        for s in MEDIA_TYPES
        if s.anywhere and s.kind in ("form", "multipart")
    )


# BlackSheep's reading of a Content-Type's parameters (messages.pyx, multipart.py): the
# charset is the first "charset=" followed by word characters or "-", anywhere in the
# value, any case; the multipart boundary is what follows the value's first "=", up to
# a space.  So `xcharset=utf-16`, or a `charset=` inside another parameter's quoted value,
# is the charset ``request.text()`` decodes with, and `charset=utf-8; boundary=X` a
# boundary of `utf-8;`.
LOOSE_READERS = (BLACKSHEEP,)
_LOOSE_CHARSET = re.compile(rb"charset=([\w\-]+)", re.IGNORECASE | re.ASCII)


def loose_charset(content_type: bytes) -> str | None:
    """The charset ``LOOSE_READERS`` find in a Content-Type value, or None (UTF-8)."""
    m = _LOOSE_CHARSET.search(content_type)
    return None if m is None else m.group(1).decode("ascii")


def loose_boundary(content_type: bytes) -> bytes | None:
    """The multipart boundary ``LOOSE_READERS`` find in a Content-Type value, or None
    (no "=": BlackSheep's ``form()`` then fails)."""
    _, equals, rest = content_type.partition(b"=")
    return rest.split(b" ", 1)[0] if equals else None


def media_types_table() -> str:
    """docs/web.md's table of media type spellings (tools/gen_docs_tables.py)."""
    lines = ["| media type | parsed as | by | note |", "|---|---|---|---|"]
    for s in MEDIA_TYPES:
        who = "all" if s.readers == READERS else ", ".join(s.readers)
        media = f"`{s.media}`" if not s.anywhere else f"`...{s.media}...`"
        lines.append(f"| {media} | {s.kind} | {who} | {s.note} |")
    return "\n".join(lines) + "\n"


def readers(part: str, raw: str) -> tuple[str, ...]:
    """The readers of ``part`` that read raw bytes >= 0x80 as ``raw`` (UTF8, LATIN1...)."""
    return tuple(name for name, reading in TABLE[part].items() if reading.raw == raw)


def disagree_on_raw_bytes(part: str) -> str | None:
    """Words naming the readers that read raw bytes >= 0x80 of ``part`` differently, or
    None when they all read them alike (as UTF-8)."""
    latin1 = readers(part, LATIN1)
    if not latin1:
        return None
    others = [n for n in READERS if n not in latin1 and TABLE[part][n].raw != NONE]
    said = f"raw bytes >= 0x80, which {_names(latin1)} read as Latin-1"
    return f"{said} and {_names(others)} as UTF-8" if others else said


def percent_readers(part: str) -> tuple[str, ...]:
    """The readers that percent-decode ``part`` (for cookies: Litestar)."""
    return tuple(name for name, reading in TABLE[part].items() if reading.percent)


def html_escape_readings(part: str) -> tuple[tuple[str, ...], ...]:
    """The distinct sets of HTML-standard escapes the readers of ``part`` resolve (the
    empty set, literal, included), each set once."""
    return tuple(dict.fromkeys(reading.html_escapes for reading in TABLE[part].values()))


# the HTML standard's (form submission); Sanic reads the pair %0D%0A as one LF
_ESCAPED = {"%22": b'"', "%0D": b"\r", "%0A": b"\n", "%0D%0A": b"\n"}


def escaped_readings(part: str, value: bytes) -> list[bytes]:
    """``value`` (a multipart name or filename) as each distinct escape set of ``part``'s
    readers reads it, the literal reading excluded, each distinct reading once."""
    out: list[bytes] = []
    if b"%" not in value:
        return out
    for escapes in html_escape_readings(part):
        read = value
        for escape in escapes:
            read = read.replace(escape.encode("ascii"), _ESCAPED[escape])
        if read != value and read not in out:
            out.append(read)
    return out


def escape_readers(part: str, escape: str) -> tuple[str, ...]:
    """The readers of ``part`` that resolve ``escape`` ("%22", "%0A")."""
    return tuple(n for n, reading in TABLE[part].items() if escape in reading.html_escapes)


def parses_json_by_content() -> tuple[str, ...]:
    """The readers whose JSON accessor parses a body not declared JSON."""
    return tuple(n for n, reading in TABLE["json by content"].items() if reading.raw != NONE)


def parses_msgpack_by_content() -> tuple[str, ...]:
    """The readers whose MessagePack accessor decodes a body whatever its label."""
    return tuple(n for n, reading in TABLE["msgpack by content"].items() if reading.raw != NONE)


def parses_websocket(part: str) -> bool:
    """Whether some reader parses WebSocket messages of ``part`` ("websocket json",
    "websocket binary") into text."""
    return any(reading.raw != NONE for reading in TABLE[part].values())


def _names(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


def markdown_table() -> str:
    """docs/web.md's readings table (tools/gen_docs_tables.py writes it there): for each
    part, each distinct reading and the readers that read the part so."""
    lines = ["| part | reading | readers |", "|---|---|---|"]
    for part, row in TABLE.items():
        groups: dict[Decoding, list[str]] = {}
        for name in READERS:
            groups.setdefault(row[name], []).append(name)
        for i, (reading, names) in enumerate(groups.items()):
            who = "all" if len(names) == len(READERS) else ", ".join(names)
            cell = reading.describe().replace("|", "\\|")
            lines.append(f"| {part if i == 0 else ''} | {cell} | {who} |")
    return "\n".join(lines) + "\n"
