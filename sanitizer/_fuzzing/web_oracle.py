"""The oracle of the ``web`` fuzz target: the web layer's sans-IO checks on hostile requests.

An input is a request: byte 0 chooses the Content-Type added to the headers (``KINDS``:
none, urlencoded, multipart with boundary ``fuzz``, JSON, JSON text sequence, text,
text in a refused charset, an untyped body read as JSON, and two other spellings
frameworks read as a form and as multipart) and, with the input's
CRC-32, the chunkings; then the head, ``CR LF CR LF`` and the body.  The head's first
line is the request target (path, ``?``, query), each further line a ``name: value``
header.  Only public names of ``sanitizer.web`` are used (``check_head``, ``body_check``,
``BodyCheck``, ``WebPolicy``).

Asserts, for every input:

* no exception escapes ``check_head`` or a body check (none is documented for bytes);
* the verdict does not depend on the chunking: the body fed whole, in random pieces
  and (up to 128 bytes) byte by byte is passed by all, or refused by all with the same
  status;
* ``judged()`` never passes the bytes fed, never goes back, and is everything at close;
* what a framework's parser exposes as text was judged (the web layer's differential rule):
  for a urlencoded body passed, every name and value ``urllib.parse.parse_qsl`` reads
  (Django's reading) passes its policy; for a multipart body passed, every field name,
  filename and field value python-multipart (Starlette's parser) reads does; for any
  other body passed that is not declared JSON, every string ``json.loads`` reads from its
  bytes (Starlette's ``request.json()``, in every encoding ``json.detect_encoding``
  finds), and every string msgspec's MessagePack decoder reads (Litestar's
  ``request.msgpack()``), passes the ``json`` policy.

Cost must stay linear: the target's entry in ``targets.REGISTRY`` sets libFuzzer's
``-timeout`` and ``-rss_limit_mb`` (``fuzz/fuzz_web.options``), so a quadratic path or
unbounded memory is a finding.  It lives in the package so that an installed wheel runs
the target; the fuzzing package reaches the web layer through its public names only
(docs/design.md).
"""

from __future__ import annotations

import json
import logging
import random
import zlib
from collections.abc import Callable
from urllib.parse import parse_qsl

import python_multipart
from python_multipart.multipart import parse_options_header

from sanitizer import Policy, inspect
from sanitizer.web import DEFAULT, BodyCheck, Problem, WebPolicy, body_check, check_head

__all__ = ["KINDS", "WebDivergence", "check_web", "chunkings", "parse_request"]

logging.getLogger("python_multipart").setLevel(logging.CRITICAL)  # its parse errors, per input

BOUNDARY = b"fuzz"
KINDS: tuple[tuple[bytes | None, WebPolicy], ...] = (
    (None, DEFAULT),
    (b"application/x-www-form-urlencoded", DEFAULT),
    (b"multipart/form-data; boundary=" + BOUNDARY, DEFAULT),
    (b"application/json", DEFAULT),
    (b"application/json-seq", DEFAULT),
    (b"text/plain; charset=utf-8", DEFAULT),
    (b"text/plain; charset=latin-1", DEFAULT),  # refused: HOWTO §5.9.1
    (None, DEFAULT.replace(untyped_body="application/json")),
    (b"application/x-url-encoded", DEFAULT),  # Quart's form spelling
    (b"multipart/*; boundary=" + BOUNDARY, DEFAULT),  # Falcon's media range
)
BYTEWISE_UP_TO = 128  # byte-by-byte feeding costs a check per byte: short bodies only


class WebDivergence(AssertionError):
    """An invariant of the web checks broke; the message says which, with the input."""


def parse_request(data: bytes) -> tuple[int, bytes, bytes, list[tuple[bytes, bytes]], bytes]:
    """(control byte, path, query, headers, body) from a fuzz input (format: docstring)."""
    control, rest = (data[0], data[1:]) if data else (0, b"")
    head, _, body = rest.partition(b"\r\n\r\n")
    target, *lines = head.split(b"\r\n")
    path, _, query = target.partition(b"?")
    headers = []
    for line in lines:
        name, _, value = line.partition(b":")
        headers.append((name, value.lstrip(b" \t")))
    content_type = KINDS[control % len(KINDS)][0]
    if content_type is not None:
        headers.append((b"Content-Type", content_type))
    return control, path, query, headers, body


def chunkings(body: bytes, seed: int) -> list[list[bytes]]:
    """The body whole, in pieces of random sizes (two draws), and byte by byte."""
    found = [[body]]
    rng = random.Random(seed)
    for _ in range(2):
        pieces, pos = [], 0
        while pos < len(body):
            size = rng.choice((1, 2, 3, rng.randint(1, 64), rng.randint(1, 4096)))
            pieces.append(body[pos : pos + size])
            pos += size
        found.append(pieces)
    if len(body) <= BYTEWISE_UP_TO:
        found.append([body[i : i + 1] for i in range(len(body))])
    return found


def run_body(check: BodyCheck, pieces: list[bytes]) -> Problem | None:
    """Feed ``pieces`` then close, as an adapter does; the first problem, checking judged()."""
    problem, judged = None, 0
    for piece in pieces:
        problem = problem or check.feed(piece)
        now = check.judged()
        if not judged <= now <= check.size:
            raise WebDivergence(f"judged() went from {judged} to {now} of {check.size} fed")
        judged = now
    problem = problem or check.close()
    if check.judged() != check.size:
        raise WebDivergence(f"judged() is {check.judged()} of {check.size} after close")
    return problem


def passes(policy: Policy | None, raw: bytes) -> bool:
    return policy is None or inspect(raw, policy).ok


def passes_text(policy: Policy | None, text: str) -> bool:
    """As tests/suites/test_web_differential.judged: the text passes, or it is latin-1 read from
    bytes (how headers reach a framework) and those bytes pass."""
    if policy is None or inspect(text, policy).ok:
        return True
    try:
        return inspect(text.encode("latin-1"), policy).ok
    except UnicodeEncodeError:
        return False


def form_exposes(body: bytes) -> list[tuple[str, Policy | None, bytes]]:
    """What Django's reading (``parse_qsl`` over the raw body) exposes."""
    # latin-1 both ways: the bytes after '+' and percent-decoding, whatever they are
    pairs = parse_qsl(body.decode("latin-1"), keep_blank_values=True, encoding="latin-1")
    return [
        item
        for name, value in pairs
        for item in (
            ("name", DEFAULT.names, name.encode("latin-1")),
            ("value", DEFAULT.form, value.encode("latin-1")),
        )
    ]


def multipart_exposes(body: bytes) -> list[tuple[str, Policy | None, str]]:
    """What python-multipart, read as Starlette reads it, exposes: field names, filenames
    and the values of fields without a filename (latin-1 where UTF-8 fails)."""
    found: list[tuple[str, Policy | None, str]] = []
    part: dict[str, bytes] = {}

    def decoded(raw: bytes) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw.decode("latin-1")

    def add(key: str) -> Callable[[bytes, int, int], None]:
        def on_data(data: bytes, start: int, end: int) -> None:
            part[key] = part.get(key, b"") + data[start:end]

        return on_data

    def header_end() -> None:
        if part.pop("field", b"").lower() == b"content-disposition":
            part["disposition"] = part.get("value", b"")
        part.pop("value", None)

    def part_end() -> None:
        _, options = parse_options_header(part.get("disposition", b""))
        if b"name" in options:
            found.append(("name", DEFAULT.names, decoded(options[b"name"])))
        if b"filename" in options:
            found.append(("filename", DEFAULT.filenames, decoded(options[b"filename"])))
        elif b"name" in options:
            found.append(("value", DEFAULT.form, decoded(part.get("data", b""))))
        part.clear()

    callbacks = {
        "on_header_field": add("field"),
        "on_header_value": add("value"),
        "on_header_end": header_end,
        "on_part_data": add("data"),
        "on_part_end": part_end,
    }
    try:
        python_multipart.MultipartParser(BOUNDARY, callbacks).write(body)  # type: ignore[arg-type]
    except Exception:  # python-multipart refuses the body: Starlette raises, exposes nothing
        return []
    return found


def json_exposes(body: bytes) -> list[str]:
    """The strings, keys included, ``json.loads`` reads from ``body`` (none if it fails)."""
    try:
        stack = [json.loads(body)]
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return []
    found: list[str] = []
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            found += value.keys()
            stack += value.values()
        elif isinstance(value, list):
            stack += value
    return found


def msgpack_exposes(body: bytes) -> list[str]:
    """The strings, keys included, msgspec's MessagePack decoder (Litestar's
    ``request.msgpack()``) reads from ``body`` (none if it fails or is not installed)."""
    try:
        import msgspec
    except ImportError:  # pragma: no cover - installed with the test and fuzz extras
        return []
    try:
        stack = [msgspec.msgpack.decode(body)]
    except (msgspec.DecodeError, RecursionError, ValueError):
        return []
    found: list[str] = []
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            stack += [*value.keys(), *value.values()]
        elif isinstance(value, (list, tuple)):
            stack += value
    return found


def check_web(data: bytes) -> None:
    control, path, query, headers, body = parse_request(data)
    policy = KINDS[control % len(KINDS)][1]
    problem, head = check_head(policy, path, query, headers)
    if problem is not None:
        return
    problems = [
        run_body(body_check(policy, head), pieces)
        for pieces in chunkings(body, zlib.crc32(data) ^ control)
    ]
    # The verdict: passed, or refused with which status.  (Which problem is named first
    # may differ: byte by byte, python-multipart can fail before a delimiter is judged.)
    verdicts = {None if p is None else p.status for p in problems}
    if len(verdicts) > 1:
        raise WebDivergence(f"the verdict depends on the chunking: {problems}\ninput: {data!r}")
    if problems[0] is not None or policy.report_only:
        return
    if head.media == "form":
        for what, part_policy, raw in form_exposes(body):
            if not passes(part_policy, raw):
                raise WebDivergence(f"form {what} {raw!r} unjudged\ninput: {data!r}")
    elif head.media == "multipart":
        for what, part_policy, text in multipart_exposes(body):
            if (text or what != "filename") and not passes_text(part_policy, text):
                raise WebDivergence(f"multipart {what} {text!r} unjudged\ninput: {data!r}")
    if head.media not in ("json", "json-seq", "multipart"):  # read as JSON by content
        for text in json_exposes(body) + msgpack_exposes(body):
            if policy.json is not None and not inspect(text, policy.json).ok:
                raise WebDivergence(
                    f"JSON or MessagePack string {text!r} unjudged\ninput: {data!r}"
                )
