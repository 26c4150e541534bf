"""Why a request was refused: one ``Problem`` value, rendered as RFC 9457 problem+json,
and every function that makes one, so that what a client is told is written in one place.

A problem names the part of the request (``"query parameter 'q'"``) and the kind of attack
(``overlong``, ``bidi-control``, ``charset``, ...) and never echoes what the client sent:
the response holds only text written here.  The bytes themselves, the code point and what
a lax decoder would have read go to ``evidence``, which is logged, never sent.

Two exceptions.  A refused UTF-7 declaration says what the bytes would have
spelled in UTF-7 (``'<script>' encoded as +ADw-script+AD4-``), and a refused run of
invisible characters what it hid (``32 tag characters spelling 'Ignore all previous
instructions'``, ``sanitizer.reveal``), so that the client sees why.  Those texts are
``utf7.spelling``'s and ``Hidden.describe``'s: printable ASCII, bounded, with controls
and non-ASCII escaped; the response body also escapes ``<``, ``>`` and ``&`` (RFC 8259
§7), so no HTML sniffer finds markup in it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from .._categories import Category
from .._errors import Utf8Error
from .._identity_cache import IdentityCache
from .._policy import Action, Finding, Policy, accepts, inspect
from .._policy.compiled import CUT_SEQUENCE, compiled_for
from ..utf7 import spelling as utf7_spelling

# RFC 9457 §3.1.1: "type" is a URI reference identifying the problem type.
PROBLEM_TYPE_BASE = "urn:utf8-sanitizer:problem:"
PROBLEM_CONTENT_TYPE = "application/problem+json"
# Sent with every problem: a browser must not sniff the body as HTML (it may hold the one
# echo, a UTF-7 spelling; WHATWG Fetch §3.5, "X-Content-Type-Options").
NOSNIFF = ("X-Content-Type-Options", "nosniff")
# Most body bytes an adapter reads, after a head refused for a UTF-7 charset, to say what
# they spelled (``sample_size``): a bounded read, never the whole body.
SAMPLE_SIZE = 1024

# Problem types (the "type" member) and their titles; ``kind`` refines the type.
TITLES: dict[str, str] = {
    "ill-formed-utf8": "Ill-formed UTF-8",  # RFC 3629 §3, §10
    "refused-text": "Text refused by policy",  # the part's Policy rejected the value
    "charset": "Charset other than UTF-8",  # HOWTO §5.9.1, §5.9.5
    "content-encoding": "Unsupported content encoding on a checked body",
    "malformed": "Malformed request part",
    "too-large": "Content too large",  # RFC 9110 §15.5.14
    "unchecked-body": "Body kind this server cannot check",  # RFC 9110 §15.5.16
}

_STATUS_REASON = {400: "Bad Request", 413: "Content Too Large", 415: "Unsupported Media Type"}


@dataclass(frozen=True)
class Problem:
    """One reason to refuse a request.

    ``status`` is 400, 413 for the size limit, or 415 for a multipart body when
    python-multipart (the ``web`` extra) is not installed.  ``type`` is a key of ``TITLES``;
    ``kind`` is the precise finding (an ``ErrorKind`` or ``Category`` value, or the type
    itself).  ``part`` is the request part (``path``, ``query``, ``header``, ``cookie``,
    ``form``, ``multipart``, ``json``, ``text``, ``body``, ``websocket``) and ``where``
    says which one in words safe to show.  ``offset`` is a byte offset into the value (a
    character index for JSON strings, whose escapes are resolved first, and WebSocket
    messages, which arrive decoded).  ``evidence`` is for logs only.
    ``utf7`` marks the refusal of a UTF-7 charset, whose ``spelled`` (``with_sample``) is
    the one text from the request a detail shows: ``utf7.spelling``'s, escaped, bounded.
    """

    status: int
    type: str
    kind: str
    part: str
    where: str
    summary: str
    offset: int | None = None
    evidence: str = ""
    utf7: bool = False
    spelled: str = ""

    @property
    def title(self) -> str:
        return TITLES[self.type]

    @property
    def detail(self) -> str:
        at = "" if self.offset is None else f" at {self._unit} {self.offset}"
        spelled = f": {self.spelled}" if self.spelled else ""
        return f"{self.where}{at}: {self.kind} ({self.summary}){spelled}"

    @property
    def _unit(self) -> str:
        text = self.part in ("json", "websocket") and self.type != "ill-formed-utf8"
        return "character" if text else "byte"

    def as_dict(self) -> dict[str, Any]:
        """The RFC 9457 members plus ``part``, ``kind`` and ``offset`` (extension members)."""
        out: dict[str, Any] = {
            "type": PROBLEM_TYPE_BASE + self.type,
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "part": self.part,
            "kind": self.kind,
        }
        if self.offset is not None:
            out["offset"] = self.offset
        return out

    def body(self) -> bytes:
        """``as_dict`` as JSON, ASCII only, with ``<``, ``>`` and ``&`` escaped as \\u003c,
        \\u003e and \\u0026: the same strings to a JSON reader, no markup to a sniffer.
        (They can only occur inside strings, so replacing them keeps the JSON valid.)"""
        text = json.dumps(self.as_dict(), ensure_ascii=True)
        return text.translate(_MARKUP_ESCAPES).encode("ascii")

    def status_line(self) -> str:
        return f"{self.status} {_STATUS_REASON.get(self.status, 'Bad Request')}"

    def log_fields(self) -> dict[str, Any]:
        """``as_dict`` plus the evidence: the structured record for logging."""
        return {**self.as_dict(), "evidence": self.evidence}


_MARKUP_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


# -- the constructors ----------------------------------------------------------------------


def first_rejection(data: bytes | str, policy: Policy) -> Finding | None:
    """The first REJECT finding of ``policy`` on ``data`` in input order (what
    ``inspect(data, policy).rejections[0]`` is when it is listed), None if ``policy``
    passes ``data``.  A response names one problem, so the findings are listed a few at a
    time (``max_findings`` 8, then 16 times more while none of them is a rejection: the
    cap changes which are listed, never ``ok``, and the listed ones are the first in
    input order whatever it is): a flood of 1,000 findings costs no 1,000 objects, and a
    rejection after more than ``max_findings`` findings that are not is still named.
    Under a policy that judges pieces cut before an ASCII character as the whole
    (``_by_prefix``), a long text's prefixes so cut, each four times the last, are judged
    first: a refusal costs the prefix read to find it."""
    if len(data) > _PREFIX and _by_prefix(policy):
        size = _PREFIX
        while size < len(data):
            cut = _ascii_in(data, size, 2 * size)  # (none near: the whole is judged)
            if cut < 0:
                break
            if not accepts(data[:cut], policy):
                first = _listed_first(data[:cut], policy)
                if first is not None and first.error is not None and first.end == cut:
                    # a sequence the prefix leaves open: the whole reads it with the
                    # ASCII character after it, which cannot continue it (RFC 3629 §3)
                    first = _listed_first(data[: cut + 1], policy)
                return first
            size = 4 * cut
    return _listed_first(data, policy)


_PREFIX = 4096  # characters or bytes of the first prefix first_rejection judges
_NON_ASCII = bytes(range(0x80, 0x100))
_ASCII_CHAR = re.compile("[\x00-\x7f]")


def _ascii_in(data: bytes | str, start: int, end: int) -> int:
    """The index of the first ASCII character of ``data[start:end]``, or -1 (bytes: one
    ``translate``, which deletes the rest, then a ``find`` of the first one left)."""
    if isinstance(data, bytes):
        window = data[start:end]
        left = window.translate(None, _NON_ASCII)
        return start + window.find(left[:1]) if left else -1
    found = _ASCII_CHAR.search(data, start, end)
    return -1 if found is None else found.start()


def _by_prefix(policy: Policy) -> bool:
    """``policy`` judges a prefix cut before an ASCII character as it judges it in the
    whole: it judges no whole value, nor hidden payloads, whose carriers may span ASCII
    characters (whitespace: _text.TextStream keeps them whole)."""
    compiled = compiled_for(policy)
    return not compiled.judges_whole_values and Category.HIDDEN_PAYLOAD not in compiled.scanned


def _listed_first(data: bytes | str, policy: Policy) -> Finding | None:
    """The first REJECT finding of ``data``, or None if ``policy`` passes it (one engine
    run, usually)."""
    cap: int | None = _FIRST_LISTED
    while True:
        report = inspect(data, _capped(policy, cap))
        if report.ok:
            return None
        for finding in report.findings:
            if finding.action is Action.REJECT:
                return finding
        if not report.more_findings:  # (the engine's contract: never)
            raise AssertionError(f"refused with no rejection listed: {report!r:.200}")
        cap = cap * 16 if cap is not None and cap * 16 < len(data) else None  # None: all


_FIRST_LISTED = 8
_CAPPED: IdentityCache[dict[int | None, Policy]] = IdentityCache(64)


def _capped(policy: Policy, cap: int | None) -> Policy:
    """``policy`` listing at most ``cap`` findings (made once per policy and cap)."""
    made = _CAPPED.lookup(id(policy))
    if made is None:
        made = _CAPPED.store(policy, {})
    listing = made.get(cap)
    if listing is None:
        listing = made[cap] = policy.replace(max_findings=cap)
    return listing


def from_finding(finding: Finding, part: str, where: str, base: int = 0) -> Problem:
    """The problem for a policy's rejecting ``finding`` in a value of ``part``."""
    err = finding.error
    if err is not None:
        return ill_formed(err, part, where, base + finding.start)
    cat = finding.category
    whole = cat in (
        Category.TOO_LONG,
        Category.EMPTY,
        Category.DOT_SEGMENT,
        Category.MIXED_SCRIPT,
        Category.MIXED_NUMBERS,
    )
    # A run of invisible characters (one finding): its detail says what it spelled,
    # escaped and bounded (sanitizer.reveal), the second thing a problem may echo.
    run = finding.codepoint is None and finding.detail is not None and cat in _RUN_KINDS
    return Problem(
        400,
        "refused-text",
        cat.value,
        part,
        where,
        cat.description,
        None if whole else base + finding.start,
        finding.reason(),
        spelled=finding.detail if run and finding.detail is not None else "",
    )


# The categories whose runs are one finding with what they spell (policy._carrier_runs).
_RUN_KINDS = frozenset(
    {
        Category.TAG,
        Category.VARIATION_SELECTOR,
        Category.INVISIBLE,
        Category.JOINER,
        Category.BIDI_MARK,
        Category.BOM,
        Category.HIDDEN_PAYLOAD,
    }
)


def ill_formed(err: Utf8Error, part: str, where: str, offset: int) -> Problem:
    """Ill-formed UTF-8 (RFC 3629 §3) at byte ``offset`` of a value of ``part``."""
    kind = err.kind
    return Problem(
        400,
        "ill-formed-utf8",
        kind.value,
        part,
        where,
        kind.description,
        offset,
        f"{err.hex}: {err.reason}",
    )


def too_long(part: str, where: str) -> Problem:
    """A streamed value over its policy's max_bytes or max_code_points."""
    return Problem(400, "refused-text", "too-long", part, where, Category.TOO_LONG.description)


def cut_sequence(part: str, where: str) -> Problem:
    """A run of text with no place to cut it that leaves every sequence whole, longer
    than a piece: judged in parts, its verdict could differ from the whole's."""
    return Problem(400, "refused-text", "too-long", part, where, CUT_SEQUENCE)


def too_large(limit: int) -> Problem:
    """A body over ``WebPolicy.max_body_size`` (RFC 9110 §15.5.14)."""
    return Problem(
        413, "too-large", "too-large", "body", "request body", f"larger than {limit} bytes"
    )


def malformed(part: str, where: str, summary: str) -> Problem:
    """A request part that is not what its grammar says, or that parsers read differently."""
    return Problem(400, "malformed", "malformed", part, where, summary)


def ambiguous(part: str, where: str, summary: str) -> Problem:
    """A request part that the supported frameworks (``_readings``) read differently from
    each other or from the middleware: what the app reads cannot be known, so it is not
    judged but refused.  ``kind`` is ``ambiguous-<part>``; ``summary`` names the ambiguity
    (and, where the table says, the readers that disagree)."""
    return Problem(400, "malformed", f"ambiguous-{part}", part, where, summary)


def dot_segment() -> Problem:
    """A '.' or '..' path segment (after percent-decoding)."""
    return Problem(
        400,
        "malformed",
        "dot-segment",
        "path",
        "request path",
        "'.' or '..' segment, a path traversal (RFC 3986 §3.3)",
    )


def wrong_charset(part: str, where: str, charset: str = "", sample: bytes = b"") -> Problem:
    """A charset parameter the policy does not accept (HOWTO §5.9.1, §5.9.5).

    For UTF-7 (RFC 2152) the summary names the smuggling form, and the problem is marked
    ``utf7``: ``with_sample`` adds what ``sample`` (bytes it labels, when at hand) would
    have spelled.  The refusal itself never waits for them."""
    if not _is_utf7(charset):
        declares = "declares a charset other than UTF-8"
    else:
        declares = "declares UTF-7, which hides ASCII in base64 runs (RFC 2152)"
    summary = f"{declares}; the client must not choose how input is read"
    problem = Problem(400, "charset", "charset", part, where, summary)
    if not _is_utf7(charset):
        return problem
    return with_sample(replace(problem, utf7=True, evidence="charset=utf-7"), sample)


def with_sample(problem: Problem, sample: bytes) -> Problem:
    """``problem`` with what ``sample`` would have spelled in UTF-7 in its detail, when it
    refuses a UTF-7 charset and the sample hides ASCII in base64; else
    ``problem`` itself.  The spelling is ``utf7.spelling``'s, cut to ``_SPELLING_LIMIT``
    bytes of the sample and escaped (printable ASCII only).  Pure: the adapters read the
    sample (``sample_size`` bytes) and call this."""
    if not problem.utf7 or not sample:
        return problem
    spelled = utf7_spelling(sample[:SAMPLE_SIZE], _SPELLING_LIMIT)
    if spelled is None:
        return problem
    return replace(problem, spelled=spelled)


def sample_size(problem: Problem, length: int | None) -> int:
    """How many body bytes an adapter reads for ``with_sample`` before answering a head
    refusal: ``SAMPLE_SIZE``, or fewer when the body's ``length`` is known (0: no body;
    None: not known, a chunked body); 0 unless ``problem`` refuses a UTF-7 charset."""
    if not problem.utf7:
        return 0
    return SAMPLE_SIZE if length is None else max(0, min(SAMPLE_SIZE, length))


_SPELLING_LIMIT = 64  # bytes of UTF-7 shown in a detail (and so in a log record)


# UTF-7's labels: IANA's "UTF-7" and "UNICODE-1-1-UTF-7" (with its csUnicode11UTF7) and
# the aliases CPython's codec answers to ("utf7", "u7"); "_" is read as "-".
_UTF7_LABELS = frozenset({"utf-7", "utf7", "u7", "unicode-1-1-utf-7", "csunicode11utf7"})


def _is_utf7(charset: str) -> bool:
    """Whether ``charset`` (a label, as ``charset_label`` gives it) names UTF-7."""
    return charset.replace("_", "-") in _UTF7_LABELS


def multipart_unchecked() -> Problem:
    """A multipart body, and no python-multipart to parse it: refused, never passed on
    unread (RFC 9110 §15.5.16)."""
    return Problem(
        415,
        "unchecked-body",
        "unchecked-body",
        "multipart",
        "multipart/form-data body",
        "multipart bodies cannot be checked here: python-multipart (the 'web' extra) is "
        "not installed",
    )


def content_encoding() -> Problem:
    """A checked body sent compressed: the middleware cannot read what the app will."""
    return Problem(
        400,
        "content-encoding",
        "content-encoding",
        "header",
        "Content-Encoding",
        "a checked body must be sent without content coding",
    )


def json_control(offset: int, char: str) -> Problem:
    """A control character, or any character >= 0x80, between JSON tokens, at character
    ``offset`` (RFC 8259 §2: only JSON whitespace may be there)."""
    if char >= "\x80":
        return Problem(
            400,
            "malformed",
            "malformed",
            "json",
            "JSON body",
            f"U+{ord(char):04X} between JSON tokens (RFC 8259 §2): not JSON, "
            "though a framework's text() reads it",
            offset,
        )
    return Problem(
        400,
        "refused-text",
        "control",
        "json",
        "JSON body",
        "control character between JSON tokens (RFC 8259 §2): not JSON in UTF-8",
        offset,
    )


def lone_surrogate_escape(where: str) -> Problem:
    """A JSON string whose \\u escapes leave a lone surrogate."""
    return Problem(
        400,
        "refused-text",
        "lone-surrogate-escape",
        "json",
        where,
        "\\u escape that leaves a lone surrogate (RFC 8259 §8.2)",
    )


# A name is shown in a problem only if it is short, plain ASCII (and passed its policy).
_SHOWABLE = re.compile(rb"[A-Za-z0-9_.\-\[\]]{1,64}\Z")


def showable(name: bytes) -> str | None:
    """``name`` as text safe to put in a response, or None."""
    return name.decode("ascii") if _SHOWABLE.match(name) else None


def labelled(what: str, name: bytes, number: int) -> str:
    """``what`` named by ``name`` when it is showable, else by its ``number``."""
    shown = showable(name)
    return f"{what} '{shown}'" if shown is not None else f"{what} #{number}"
