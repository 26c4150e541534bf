"""Deliberately broken UTF-8 decoders, one classic bug each, to test the oracle and corpus.

A differential fuzzer that never finds anything proves nothing.  Every function here is a
decoder with exactly one well-known mistake (RFC 3629 §10's overlongs, CESU-8 surrogates,
values above U+10FFFF, RFC 2279 5/6-byte forms, Java's Modified UTF-8 (HOWTO §5.9.4),
lenient truncation handling, wrong error offsets, BOM and noncharacter mix-ups...).
``tests/fuzzing/test_mutants.py`` asserts that ``check_decode(data, candidate=mutant)`` flags each
of them on the seed corpus within seconds, and the campaign runner can use them to show
that a fuzzing setup works ("mutation testing" of the harness).

Most are a few lines around ``bytes.decode``: a regex that rewrites the accepted
ill-formed sequence to the well-formed encoding of what a lax RFC 2279 decoder reads, an
error handler, or a post-check on the decoded text.  Their byte patterns and limits are
spelled out on purpose, independently of ``sanitizer._grammar``: each mutant is a
deliberately wrong copy of the grammar, as the decoders it imitates are.
"""

from __future__ import annotations

import codecs
import os
import re
import signal
import sys
import unicodedata
from collections.abc import Callable
from types import FunctionType

from sanitizer._errors import lax_read

__all__ = ["CAMPAIGN_MUTANTS", "MUTANTS"]

Decoder = Callable[[bytes], str]


def _lax_value(seq: bytes) -> int:
    value = lax_read(seq, 0)[0]
    assert value is not None
    return value


def _encoded(value: int) -> bytes:
    """The well-formed bytes for what a lax decoder read; U+FFFD when none exist."""
    if value > 0x10FFFF:
        return "\ufffd".encode()
    return chr(value).encode("utf-8", "surrogatepass")


def _accepting(pattern: bytes) -> Callable[[bytes], str]:
    """A decoder that reads every match of ``pattern`` the lax RFC 2279 way (§2)."""
    regex = re.compile(pattern)

    def decode(data: bytes) -> str:
        fixed = regex.sub(lambda m: _encoded(_lax_value(m.group())), data)
        return fixed.decode("utf-8", "surrogatepass" if fixed is not data else "strict")

    return decode


def _handler(name: str, fix: Callable[[bytes, int, int], tuple[str, int] | None]) -> str:
    """Register a codecs error handler that applies ``fix`` or re-raises."""

    def handle(exc: UnicodeError) -> tuple[str, int]:
        assert isinstance(exc, UnicodeDecodeError)
        fixed = fix(exc.object, exc.start, exc.end)
        if fixed is None:
            raise exc
        return fixed

    full = f"sanitizer.mutants.{name}"
    codecs.register_error(full, handle)
    return full


# -- accepts what RFC 3629 forbids ----------------------------------------------------------

_overlong_2 = _accepting(rb"[\xc0\xc1][\x80-\xbf]")
_overlong_3 = _accepting(rb"\xe0[\x80-\x9f][\x80-\xbf]")
_overlong_4 = _accepting(rb"\xf0[\x80-\x8f][\x80-\xbf]{2}")
_surrogates = _accepting(rb"\xed[\xa0-\xbf][\x80-\xbf]")
_above_max = _accepting(rb"\xf4[\x90-\xbf][\x80-\xbf]{2}")
_f5_f7 = _accepting(rb"[\xf5-\xf7][\x80-\xbf]{3}")
_five_six = _accepting(rb"[\xf8-\xfb][\x80-\xbf]{4}|[\xfc\xfd][\x80-\xbf]{5}")
_e0_off_by_one = _accepting(rb"\xe0\x9f[\x80-\xbf]")
_f0_off_by_one = _accepting(rb"\xf0\x8f[\x80-\xbf]{2}")
_ed_off_by_one = _accepting(rb"\xed\xa0[\x80-\xbf]")
_f4_off_by_one = _accepting(rb"\xf4\x90[\x80-\xbf]{2}")
_c1_lead = _accepting(rb"\xc1[\x80-\xbf]")


def accepts_overlong_2byte(data: bytes) -> str:
    """Bug: accepts 2-byte overlongs C0/C1 xx, so C0 AE is '.' (RFC 3629 §10, CVE-2000-0884)."""
    return _overlong_2(data)


def accepts_overlong_3byte(data: bytes) -> str:
    """Bug: accepts 3-byte overlongs E0 80..9F xx (E0 80 AF is '/'; Kuhn UTF-8-test §4.1)."""
    return _overlong_3(data)


def accepts_overlong_4byte(data: bytes) -> str:
    """Bug: accepts 4-byte overlongs F0 80..8F xx xx (Kuhn UTF-8-test §4.1, §4.2)."""
    return _overlong_4(data)


def accepts_surrogates(data: bytes) -> str:
    """Bug: accepts encoded surrogates ED A0..BF xx as lone U+D800..DFFF (WTF-8; RFC 3629 §3)."""
    return _surrogates(data)


_CESU_PAIR = re.compile(rb"\xed[\xa0-\xaf][\x80-\xbf]\xed[\xb0-\xbf][\x80-\xbf]")


def accepts_cesu8_pairs(data: bytes) -> str:
    """Bug: joins a CESU-8 surrogate pair ED A0..AF xx ED B0..BF xx into one supplementary
    character (Kuhn UTF-8-test §5.2); lone surrogates are still refused."""

    def join(m: re.Match[bytes]) -> bytes:
        hi, lo = _lax_value(m.group()[:3]), _lax_value(m.group()[3:])
        return chr(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)).encode()

    return _CESU_PAIR.sub(join, data).decode("utf-8")


def accepts_above_10ffff(data: bytes) -> str:
    """Bug: accepts F4 90..BF xx xx (U+110000..13FFFF) as U+FFFD (RFC 3629 §3)."""
    return _above_max(data)


def accepts_f5_f7_leads(data: bytes) -> str:
    """Bug: accepts 4-byte forms with leads F5..F7 (beyond U+10FFFF; RFC 3629 §3, Kuhn §3.3)."""
    return _f5_f7(data)


def accepts_5_6_byte_forms(data: bytes) -> str:
    """Bug: accepts RFC 2279 5- and 6-byte forms (F8..FD leads), overlong or not."""
    return _five_six(data)


def accepts_e0_9f(data: bytes) -> str:
    """Bug: off by one on E0's second byte (allows 9F: overlong U+07C0..07FF)."""
    return _e0_off_by_one(data)


def accepts_f0_8f(data: bytes) -> str:
    """Bug: off by one on F0's second byte (allows 8F: overlong U+F000..FFFF)."""
    return _f0_off_by_one(data)


def accepts_ed_a0(data: bytes) -> str:
    """Bug: off by one on ED's second byte (allows A0: surrogates U+D800..D83F)."""
    return _ed_off_by_one(data)


def accepts_f4_90(data: bytes) -> str:
    """Bug: off by one on the F4 8F limit (allows F4 90: U+110000..110FFF)."""
    return _f4_off_by_one(data)


def accepts_c1_lead(data: bytes) -> str:
    """Bug: off by one on the lowest 2-byte lead (C1 instead of C2: overlong U+0040..007F)."""
    return _c1_lead(data)


def modified_utf8(data: bytes) -> str:
    """Bug: Java's Modified UTF-8 reads C0 80 as U+0000 (HOWTO §5.9.4: "not legal UTF-8")."""
    return data.replace(b"\xc0\x80", b"\x00").decode("utf-8")


_LATIN1 = _handler(
    "latin1",
    lambda data, start, end: (
        (chr(data[start]), end) if end - start == 1 and 0x80 <= data[start] <= 0xBF else None
    ),
)


def lone_continuation_as_latin1(data: bytes) -> str:
    """Bug: a lone continuation byte 80..BF decodes as the Latin-1 character of that byte
    (Kuhn UTF-8-test §3.1)."""
    return data.decode("utf-8", _LATIN1)


def falls_back_to_latin1(data: bytes) -> str:
    """Bug: ill-formed input is decoded as Latin-1 instead of being refused."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def surrogateescape(data: bytes) -> str:
    """Bug: decodes with errors="surrogateescape" (like os.fsdecode): never refuses."""
    return data.decode("utf-8", "surrogateescape")


def replaces_with_question_mark(data: bytes) -> str:
    """Bug: ill-formed bytes become '?' instead of an error (silent data change)."""
    return data.decode("utf-8", "replace").replace("\ufffd", "?") if data else ""


def sniffs_utf16_bom(data: bytes) -> str:
    """Bug: FE FF / FF FE at the start switch to UTF-16 (FE, FF never occur in UTF-8)."""
    if data[:2] in (b"\xfe\xff", b"\xff\xfe") and len(data) % 2 == 0:
        return data.decode("utf-16")
    return data.decode("utf-8")


# -- mishandles truncation and error reporting ----------------------------------------------


def drops_truncated_tail(data: bytes) -> str:
    """Bug: a sequence cut short by the end of input is silently dropped (stream decoders
    that forget ``final=True``)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.end == len(data) and data[exc.start] >= 0xC2:
            return data[: exc.start].decode("utf-8")
        raise


_DROP_BEFORE_ASCII = _handler(
    "drop_before_ascii",
    lambda data, start, end: (
        ("", end) if 0xC2 <= data[start] <= 0xF4 and end < len(data) and data[end] < 0x80 else None
    ),
)


def drops_truncated_before_ascii(data: bytes) -> str:
    """Bug: a multi-byte sequence cut short by an ASCII byte is silently dropped, so
    E1 80 2F reads as '/' (the truncated lead "eats nothing")."""
    return data.decode("utf-8", _DROP_BEFORE_ASCII)


def error_offset_off_by_one(data: bytes) -> str:
    """Bug: reports the error one byte too late (start and end + 1)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnicodeDecodeError("utf-8", data, exc.start + 1, exc.end + 1, exc.reason) from None


def error_end_is_lax_length(data: bytes) -> str:
    """Bug: the error spans the whole sequence the lead announces (RFC 2279 reading), not
    the maximal subpart (Unicode §3.9), e.g. C0 AF is one 2-byte error."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        end = exc.start + lax_read(data, exc.start)[1]
        raise UnicodeDecodeError("utf-8", data, exc.start, end, exc.reason) from None


# -- refuses or changes well-formed text ----------------------------------------------------


def _refusing(name: str, bad: Callable[[str], bool], doc: str) -> Callable[[bytes], str]:
    """A decoder that refuses well-formed text for which ``bad`` holds."""

    def decode(data: bytes) -> str:
        text = data.decode("utf-8")
        if bad(text):
            raise ValueError(f"{name}: refused")
        return text

    decode.__name__ = decode.__qualname__ = name
    decode.__doc__ = doc
    return decode


def strips_bom(data: bytes) -> str:
    """Bug: strips an initial EF BB BF without being asked (utf-8-sig; RFC 3629 §6)."""
    return data.decode("utf-8-sig")


rejects_bom = _refusing(
    "rejects_bom",
    lambda t: "\ufeff" in t,
    "Bug: refuses U+FEFF (BOM or ZWNBSP), which is well-formed (RFC 3629 §6).",
)
rejects_noncharacters = _refusing(
    "rejects_noncharacters",
    lambda t: any(ord(c) & 0xFFFE == 0xFFFE or 0xFDD0 <= ord(c) <= 0xFDEF for c in t),
    "Bug: refuses noncharacters such as U+FFFE/U+FFFF: valid UTF-8 (Kuhn UTF-8-test §5.3).",
)
rejects_10ffff = _refusing(
    "rejects_10ffff",
    lambda t: "\U0010ffff" in t,
    "Bug: refuses U+10FFFF (F4 8F BF BF), the last code point.",
)
rejects_f4_8f = _refusing(
    "rejects_f4_8f",
    lambda t: any(0x10F000 <= ord(c) for c in t),
    "Bug: off by one on the F4 limit the other way (refuses F4 8F xx xx).",
)
rejects_4byte = _refusing(
    "rejects_4byte",
    lambda t: any(ord(c) > 0xFFFF for c in t),
    "Bug: refuses every 4-byte character (MySQL 'utf8'/utf8mb3, UCS-2).",
)
rejects_u07ff = _refusing(
    "rejects_u07ff",
    lambda t: "\u07ff" in t,
    "Bug: 2-byte range ends one early (refuses DF BF, U+07FF).",
)
rejects_u0800 = _refusing(
    "rejects_u0800",
    lambda t: "\u0800" in t,
    "Bug: 3-byte range starts one late (refuses E0 A0 80, U+0800).",
)
rejects_nul = _refusing(
    "rejects_nul",
    lambda t: "\x00" in t,
    "Bug: refuses U+0000, which is well-formed UTF-8 (00).",
)


def truncates_at_nul(data: bytes) -> str:
    """Bug: stops at the first 00 byte, as a C string would (RFC 3629 §10)."""
    return data.split(b"\x00", 1)[0].decode("utf-8")


def normalizes_nfc(data: bytes) -> str:
    """Bug: decoding also applies NFC, so e + U+0301 comes back as U+00E9."""
    return unicodedata.normalize("NFC", data.decode("utf-8"))


# -- escapes, long inputs: what the harness itself must not miss ---------------------------


def decodes_1024_byte_blocks(data: bytes) -> str:
    """Bug: decodes 1,024-byte blocks independently (a reader decoding each ``read()`` on
    its own), so a character straddling a block boundary is refused."""
    return "".join(data[i : i + 1024].decode("utf-8") for i in range(0, len(data), 1024))


def exits_on_ill_formed(data: bytes) -> str:
    """Bug: calls ``sys.exit(3)`` on ill-formed input (a command's error path reused as a
    library); unguarded, the fuzzer process would just end."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        sys.exit(3)


def os_exit_on_ill_formed(data: bytes) -> str:
    """Bug: calls ``os._exit(0)`` on ill-formed input: no handler runs, exit status 0."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        os._exit(0)


def interrupts_on_ill_formed(data: bytes) -> str:
    """Bug: raises KeyboardInterrupt on ill-formed input (libFuzzer's "stopping")."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise KeyboardInterrupt from None


# Every function above whose docstring starts with "Bug:", by name ("accepts-overlong-2byte").
MUTANTS: dict[str, Decoder] = {
    name.replace("_", "-"): func
    for name, func in sorted(globals().items())
    if isinstance(func, FunctionType) and (func.__doc__ or "").startswith("Bug:")
}


# -- for campaigns only: the process-level misbehaviours and the needle ---------------------
# These cannot be replayed in the test process (a hang, a SIGKILL, an exit the oracle
# cannot intercept) or are, on purpose, out of the seed corpus's reach (the needle): the
# campaign runner's tests run them in real libFuzzer workers (tests/fuzzing/test_runner.py).

_bound_exit = os._exit  # bound at import: replacing os._exit later does not reach it


def _ill_formed(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def hangs_on_ill_formed(data: bytes) -> str:
    """Campaign bug: loops forever on ill-formed input (libFuzzer's -timeout must flag it)."""
    if _ill_formed(data):
        while True:
            pass
    return data.decode("utf-8")


def kills_itself_on_ill_formed(data: bytes) -> str:
    """Campaign bug: SIGKILLs its own process on ill-formed input (no handler can run: the
    worker's breadcrumb names the input)."""
    if _ill_formed(data):
        os.kill(os.getpid(), signal.SIGKILL)
    return data.decode("utf-8")


def bound_exit_on_ill_formed(data: bytes) -> str:
    """Campaign bug: ``os._exit(0)`` through a reference taken at import, which the
    oracle's stand-in for ``os._exit`` does not replace (the breadcrumb names the input)."""
    if _ill_formed(data):
        _bound_exit(0)
    return data.decode("utf-8")


def needle_after_multibyte(data: bytes) -> str:
    """Campaign bug: accepts ill-formed input only right after U+9F8D (E9 BE 8D, in no
    seed), tested byte by byte: found only with coverage of the candidate's own branches."""
    for i in range(len(data) - 3):
        if data[i] == 0xE9:
            if data[i + 1] == 0xBE:
                if data[i + 2] == 0x8D:
                    if data[i + 3] >= 0xF5:
                        return data.decode("utf-8", "replace")
    return data.decode("utf-8")


CAMPAIGN_MUTANTS: dict[str, Decoder] = {
    name.replace("_", "-"): func
    for name, func in sorted(globals().items())
    if isinstance(func, FunctionType) and (func.__doc__ or "").startswith("Campaign bug:")
}
