"""Worked examples: RFC 3629 §7 and §10, HOWTO §5.9.4 (C0 80), Unicode §3.9's U+FFFD
substitution tables, and Markus Kuhn's UTF-8 decoder stress test.  Every example runs on
both runners (the ``backend`` fixture) and is also checked against CPython."""

from __future__ import annotations

import os
import subprocess
import sys
from types import ModuleType

import pytest

from sanitizer import (
    BomError,
    ErrorKind,
    Utf8Error,
    find_errors,
    group_errors,
    is_valid,
)
from tests.core.oracles import cpython_spans, expected_kind, lax_decode
from tests.support.backends import decode

K = ErrorKind
FFFD = "\ufffd"


def h(text: str) -> bytes:
    return bytes.fromhex(text)


def assert_like_cpython(data: bytes) -> list[Utf8Error]:
    """decode/is_valid/find_errors agree with CPython; kinds and naive with the oracles."""
    spans = cpython_spans(data)
    assert is_valid(data) is (not spans)
    assert decode(data, errors="replace") == data.decode("utf-8", "replace")
    if spans:
        with pytest.raises(Utf8Error) as info:
            decode(data)
        assert (info.value.start, info.value.end) == spans[0]
    else:
        assert decode(data) == data.decode("utf-8")
    errors = find_errors(data)
    assert [(e.start, e.end) for e in errors] == spans
    for err in errors:
        assert err.kind is expected_kind(data, err.start, err.end)
        assert err.naive == lax_decode(data, err.start)[0]
    return errors


# -- RFC 3629 §7 -------------------------------------------------------------------------

RFC3629_S7 = [
    (h("41 E2 89 A2 CE 91 2E"), "A\u2262\u0391."),
    (h("ED 95 9C EA B5 AD EC 96 B4"), "\ud55c\uad6d\uc5b4"),
    (h("E6 97 A5 E6 9C AC E8 AA 9E"), "\u65e5\u672c\u8a9e"),
    (h("EF BB BF F0 A3 8E B4"), "\ufeff\U000233b4"),
]


@pytest.mark.parametrize(("data", "text"), RFC3629_S7)
def test_rfc3629_section7_examples(backend: ModuleType, data: bytes, text: str) -> None:
    assert_like_cpython(data)
    assert decode(data) == text
    assert decode(data, errors="replace") == text
    assert is_valid(data)
    assert find_errors(data) == []


def test_rfc3629_section7_bom(backend: ModuleType) -> None:
    data = h("EF BB BF F0 A3 8E B4")
    assert decode(data, bom="keep") == "\ufeff\U000233b4"
    assert decode(data, bom="strip") == "\U000233b4"
    with pytest.raises(BomError) as info:
        decode(data, bom="reject")
    assert isinstance(info.value, ValueError)
    assert "EF BB BF" in str(info.value)
    # bom= applies only to a leading EF BB BF, in replace mode too
    assert decode(h("41 EF BB BF"), bom="strip") == "A\ufeff"
    assert decode(h("41 EF BB BF"), bom="reject") == "A\ufeff"
    assert decode(data + b"\xff", errors="replace", bom="strip") == "\U000233b4" + FFFD
    with pytest.raises(BomError):
        decode(data + b"\xff", errors="replace", bom="reject")
    assert decode(h("EF BB"), errors="replace", bom="strip") == FFFD


# -- RFC 3629 §10 / HOWTO §5.9.3 ---------------------------------------------------------


def test_rfc3629_section10_smuggled_nul(backend: ModuleType) -> None:
    data = h("C0 80")
    errors = assert_like_cpython(data)
    assert [(e.start, e.end, e.kind) for e in errors] == [
        (0, 1, K.OVERLONG),
        (1, 2, K.UNEXPECTED_CONTINUATION),
    ]
    assert errors[0].naive == 0
    assert errors[0].naive_end == 2
    (group,) = group_errors(errors)
    assert group == tuple(errors)
    assert "overlong 2-byte encoding of U+0000" in group[0].reason
    assert decode(data, errors="replace") == FFFD * 2


def test_rfc3629_section10_smuggled_dot_dot(backend: ModuleType) -> None:
    data = h("2F C0 AE 2E 2F")
    errors = assert_like_cpython(data)
    assert [(e.start, e.end, e.kind, e.naive) for e in errors] == [
        (1, 2, K.OVERLONG, 0x2E),
        (2, 3, K.UNEXPECTED_CONTINUATION, None),
    ]
    groups = group_errors(errors)
    assert len(groups) == 1
    assert [(e.start, e.end) for e in groups[0]] == [(1, 2), (2, 3)]
    first = groups[0][0]
    assert first.naive == 0x2E
    assert first.naive_end == 3
    assert "overlong 2-byte encoding of U+002E FULL STOP '.'" in first.reason
    assert first.hex == "C0"
    assert decode(data, errors="replace") == "/\ufffd\ufffd./"
    with pytest.raises(Utf8Error) as info:
        decode(data)
    assert (info.value.start, info.value.end) == (1, 2)
    assert info.value.kind is K.OVERLONG


# -- HOWTO §5.9.4: C0 80 as Java's Modified UTF-8 NUL --------------------------------------


def test_allow_overlong_nul_accepts_exactly_c0_80(backend: ModuleType) -> None:
    assert decode(h("C0 80"), allow_overlong_nul=True) == "\x00"
    assert decode(h("41 C0 80 42 C0 80"), allow_overlong_nul=True) == "A\x00B\x00"
    assert is_valid(h("C0 80"), allow_overlong_nul=True)
    assert not is_valid(h("C0 80"))
    assert find_errors(h("C0 80"), allow_overlong_nul=True) == []
    assert decode(h("C0 80"), errors="replace", allow_overlong_nul=True) == "\x00"
    for other in ("C0 81", "C1 80", "E0 80 80", "F0 80 80 80", "C0 BF", "C0", "C0 C0 80"):
        data = h(other)
        if data == h("C0 C0 80"):
            assert decode(data, errors="replace", allow_overlong_nul=True) == FFFD + "\x00"
            continue
        assert not is_valid(data, allow_overlong_nul=True), other
        with pytest.raises(Utf8Error):
            decode(data, allow_overlong_nul=True)
        want = [(e.start, e.end, e.kind) for e in find_errors(data)]
        got = [(e.start, e.end, e.kind) for e in find_errors(data, allow_overlong_nul=True)]
        assert got == want, other
        assert decode(data, errors="replace", allow_overlong_nul=True) == decode(
            data, errors="replace"
        )


def test_allow_overlong_nul_keeps_later_offsets(backend: ModuleType) -> None:
    data = h("61 C0 80 62 C0 AE 63 E0 80 80 FF")
    errors = find_errors(data, allow_overlong_nul=True)
    assert [(e.start, e.end, e.kind) for e in errors] == [
        (4, 5, K.OVERLONG),
        (5, 6, K.UNEXPECTED_CONTINUATION),
        (7, 8, K.OVERLONG),
        (8, 9, K.UNEXPECTED_CONTINUATION),
        (9, 10, K.UNEXPECTED_CONTINUATION),
        (10, 11, K.INVALID_BYTE),
    ]
    assert errors[0].naive == 0x2E
    assert decode(data, errors="replace", allow_overlong_nul=True) == (
        "a\x00b" + FFFD * 2 + "c" + FFFD * 4
    )
    with pytest.raises(Utf8Error) as info:
        decode(data, allow_overlong_nul=True)
    assert (info.value.start, info.value.end) == (4, 5)
    assert find_errors(data, limit=1, allow_overlong_nul=True)[0].start == 4
    # without the option the C0 80 is two errors of its own, before the others
    assert [(e.start, e.end) for e in find_errors(data)][:2] == [(1, 2), (2, 3)]


# -- Unicode §3.9, U+FFFD substitution of maximal subparts (Tables 3-8 .. 3-11) -----------

UNICODE_FFFD = [
    ("61 F1 80 80 E1 80 C2 62 80 63 80 BF 64", f"a{FFFD * 3}b{FFFD}c{FFFD * 2}d"),
    ("C0 AF E0 80 BF F0 81 82 41", FFFD * 8 + "A"),
    ("ED A0 80 ED BF BF ED AF 41", FFFD * 8 + "A"),
    ("F4 91 92 93 FF 41 80 BF 42", FFFD * 5 + "A" + FFFD * 2 + "B"),
    ("E1 80 E2 F0 91 92 F1 BF 41", FFFD * 4 + "A"),
]


@pytest.mark.parametrize(("hexdata", "text"), UNICODE_FFFD)
def test_unicode_maximal_subpart_substitution(backend: ModuleType, hexdata: str, text: str) -> None:
    data = h(hexdata)
    errors = assert_like_cpython(data)
    assert decode(data, errors="replace") == text
    assert len(errors) == text.count(FFFD)


def test_unicode_table_3_8_kinds(backend: ModuleType) -> None:
    errors = find_errors(h("61 F1 80 80 E1 80 C2 62 80 63 80 BF 64"))
    assert [(e.hex, e.kind) for e in errors] == [
        ("F1 80 80", K.TRUNCATED),
        ("E1 80", K.TRUNCATED),
        ("C2", K.TRUNCATED),
        ("80", K.UNEXPECTED_CONTINUATION),
        ("80", K.UNEXPECTED_CONTINUATION),
        ("BF", K.UNEXPECTED_CONTINUATION),
    ]
    assert "cut short by byte 0xE1" in errors[0].reason


# -- Markus Kuhn's UTF-8 decoder capability and stress test --------------------------------

KUHN_VALID = {
    "1 kosme": ("CE BA E1 BD B9 CF 83 CE BC CE B5", "\u03ba\u1f79\u03c3\u03bc\u03b5"),  # U+1F79
    "2.1.1 U+0000": ("00", "\x00"),
    "2.1.2 U+0080": ("C2 80", "\x80"),
    "2.1.3 U+0800": ("E0 A0 80", "\u0800"),
    "2.1.4 U+10000": ("F0 90 80 80", "\U00010000"),
    "2.2.1 U+007F": ("7F", "\x7f"),
    "2.2.2 U+07FF": ("DF BF", "\u07ff"),
    "2.2.3 U+FFFF": ("EF BF BF", "\uffff"),
    "2.3.1 U+D7FF": ("ED 9F BF", "\ud7ff"),
    "2.3.2 U+E000": ("EE 80 80", "\ue000"),
    "2.3.3 U+FFFD": ("EF BF BD", "\ufffd"),
    "2.3.4 U+10FFFF": ("F4 8F BF BF", "\U0010ffff"),
    "5.3.1 U+FFFE": ("EF BF BE", "\ufffe"),
    "5.3.1 U+FFFF": ("EF BF BF", "\uffff"),
}


@pytest.mark.parametrize("case", sorted(KUHN_VALID))
def test_kuhn_valid(backend: ModuleType, case: str) -> None:
    hexdata, text = KUHN_VALID[case]
    data = h(hexdata)
    assert is_valid(data)
    assert decode(data) == text
    assert find_errors(data) == []


def test_kuhn_5_3_noncharacters_are_valid(backend: ModuleType) -> None:
    chars = [chr(cp) for cp in range(0xFDD0, 0xFDF0)]
    chars += [chr(plane << 16 | low) for plane in range(17) for low in (0xFFFE, 0xFFFF)]
    text = "".join(chars)
    data = text.encode("utf-8")
    assert is_valid(data)
    assert decode(data) == text
    assert find_errors(data) == []


# (bytes, [(kind, naive) per group]) - each a single character to a lax decoder
KUHN_INVALID = {
    "2.1.5 first 5-byte U+200000": ("F8 88 80 80 80", K.OUT_OF_RANGE, 0x200000),
    "2.1.6 first 6-byte U+4000000": ("FC 84 80 80 80 80", K.OUT_OF_RANGE, 0x4000000),
    "2.2.4 last 4-byte U+1FFFFF": ("F7 BF BF BF", K.OUT_OF_RANGE, 0x1FFFFF),
    "2.2.5 last 5-byte U+3FFFFFF": ("FB BF BF BF BF", K.OUT_OF_RANGE, 0x3FFFFFF),
    "2.2.6 last 6-byte U+7FFFFFFF": ("FD BF BF BF BF BF", K.OUT_OF_RANGE, 0x7FFFFFFF),
    "2.3.5 U+110000": ("F4 90 80 80", K.OUT_OF_RANGE, 0x110000),
    "4.1.1 overlong / 2": ("C0 AF", K.OVERLONG, 0x2F),
    "4.1.2 overlong / 3": ("E0 80 AF", K.OVERLONG, 0x2F),
    "4.1.3 overlong / 4": ("F0 80 80 AF", K.OVERLONG, 0x2F),
    "4.1.4 overlong / 5": ("F8 80 80 80 AF", K.OVERLONG, 0x2F),
    "4.1.5 overlong / 6": ("FC 80 80 80 80 AF", K.OVERLONG, 0x2F),
    "4.2.1 max overlong 2": ("C1 BF", K.OVERLONG, 0x7F),
    "4.2.2 max overlong 3": ("E0 9F BF", K.OVERLONG, 0x7FF),
    "4.2.3 max overlong 4": ("F0 8F BF BF", K.OVERLONG, 0xFFFF),
    "4.2.4 max overlong 5": ("F8 87 BF BF BF", K.OVERLONG, 0x1FFFFF),
    "4.2.5 max overlong 6": ("FC 83 BF BF BF BF", K.OVERLONG, 0x3FFFFFF),
    "4.3.1 overlong NUL 2": ("C0 80", K.OVERLONG, 0),
    "4.3.2 overlong NUL 3": ("E0 80 80", K.OVERLONG, 0),
    "4.3.3 overlong NUL 4": ("F0 80 80 80", K.OVERLONG, 0),
    "4.3.4 overlong NUL 5": ("F8 80 80 80 80", K.OVERLONG, 0),
    "4.3.5 overlong NUL 6": ("FC 80 80 80 80 80", K.OVERLONG, 0),
    "5.1.1 U+D800": ("ED A0 80", K.SURROGATE, 0xD800),
    "5.1.2 U+DB7F": ("ED AD BF", K.SURROGATE, 0xDB7F),
    "5.1.3 U+DB80": ("ED AE 80", K.SURROGATE, 0xDB80),
    "5.1.4 U+DBFF": ("ED AF BF", K.SURROGATE, 0xDBFF),
    "5.1.5 U+DC00": ("ED B0 80", K.SURROGATE, 0xDC00),
    "5.1.6 U+DF80": ("ED BE 80", K.SURROGATE, 0xDF80),
    "5.1.7 U+DFFF": ("ED BF BF", K.SURROGATE, 0xDFFF),
}


@pytest.mark.parametrize("case", sorted(KUHN_INVALID))
def test_kuhn_single_invalid_sequence(backend: ModuleType, case: str) -> None:
    hexdata, kind, naive = KUHN_INVALID[case]
    data = h(hexdata)
    errors = assert_like_cpython(data)
    assert errors, case
    (group,) = group_errors(errors)
    head = group[0]
    assert (head.start, head.kind, head.naive, head.naive_end) == (0, kind, naive, len(data))
    assert all(e.kind is K.UNEXPECTED_CONTINUATION for e in group[1:])
    assert f"U+{naive:04X}" in head.reason
    assert head.as_dict()["naive"] == f"U+{naive:04X}"


@pytest.mark.parametrize(
    "pair",
    [
        (0xD800, 0xDC00),
        (0xD800, 0xDFFF),
        (0xDB7F, 0xDC00),
        (0xDB7F, 0xDFFF),
        (0xDB80, 0xDC00),
        (0xDB80, 0xDFFF),
        (0xDBFF, 0xDC00),
        (0xDBFF, 0xDFFF),
    ],
)
def test_kuhn_5_2_paired_surrogates(backend: ModuleType, pair: tuple[int, int]) -> None:
    data = "".join(map(chr, pair)).encode("utf-8", "surrogatepass")
    assert len(data) == 6
    errors = assert_like_cpython(data)
    assert len(errors) == 6
    groups = group_errors(errors)
    assert [(g[0].start, g[0].kind, g[0].naive, len(g)) for g in groups] == [
        (0, K.SURROGATE, pair[0], 3),
        (3, K.SURROGATE, pair[1], 3),
    ]
    assert decode(data, errors="replace") == FFFD * 6


def test_kuhn_3_1_unexpected_continuation_bytes(backend: ModuleType) -> None:
    for hexdata in ("80", "BF", "80 BF", "80 BF 80", "80 BF 80 BF", "80 BF 80 BF 80"):
        data = h(hexdata)
        errors = assert_like_cpython(data)
        assert len(errors) == len(data)
        assert all(e.kind is K.UNEXPECTED_CONTINUATION and e.naive is None for e in errors)
        assert len(group_errors(errors)) == len(data)
    data = bytes(range(0x80, 0xC0))
    errors = assert_like_cpython(data)
    assert [(e.start, e.end) for e in errors] == [(i, i + 1) for i in range(64)]
    assert decode(data, errors="replace") == FFFD * 64


def test_kuhn_3_2_lonely_start_bytes(backend: ModuleType) -> None:
    for lo, hi, kinds in (
        (0xC0, 0xDF, None),  # 3.2.1
        (0xE0, 0xEF, None),  # 3.2.2
        (0xF0, 0xF7, None),  # 3.2.3
        (0xF8, 0xFB, {K.OUT_OF_RANGE}),  # 3.2.4
        (0xFC, 0xFD, {K.OUT_OF_RANGE}),  # 3.2.5
    ):
        data = b"".join(bytes([b, 0x20]) for b in range(lo, hi + 1))
        errors = assert_like_cpython(data)
        assert [(e.start, e.end) for e in errors] == [(i, i + 1) for i in range(0, len(data), 2)]
        assert decode(data, errors="replace") == (FFFD + " ") * (hi - lo + 1)
        assert all(e.naive is None for e in errors)
        if kinds is not None:
            assert {e.kind for e in errors} == kinds
    # each lonely lead: C0/C1 overlong, C2..F4 truncated, F5.. out of range
    assert find_errors(h("C0 20"))[0].kind is K.OVERLONG
    assert find_errors(h("C2 20"))[0].kind is K.TRUNCATED
    assert find_errors(h("F4 20"))[0].kind is K.TRUNCATED
    assert find_errors(h("F5 20"))[0].kind is K.OUT_OF_RANGE


KUHN_3_3 = [  # (bytes, kinds of the errors when alone)
    ("C0", [K.OVERLONG]),
    ("E0 80", [K.OVERLONG, K.UNEXPECTED_CONTINUATION]),
    ("F0 80 80", [K.OVERLONG] + [K.UNEXPECTED_CONTINUATION] * 2),
    ("F8 80 80 80", [K.OVERLONG] + [K.UNEXPECTED_CONTINUATION] * 3),
    ("FC 80 80 80 80", [K.OVERLONG] + [K.UNEXPECTED_CONTINUATION] * 4),
    ("DF", [K.INCOMPLETE]),
    ("EF BF", [K.INCOMPLETE]),
    ("F7 BF BF", [K.OUT_OF_RANGE] + [K.UNEXPECTED_CONTINUATION] * 2),
    ("FB BF BF BF", [K.OUT_OF_RANGE] + [K.UNEXPECTED_CONTINUATION] * 3),
    ("FD BF BF BF BF", [K.OUT_OF_RANGE] + [K.UNEXPECTED_CONTINUATION] * 4),
]


@pytest.mark.parametrize(("hexdata", "kinds"), KUHN_3_3)
def test_kuhn_3_3_last_byte_missing(backend: ModuleType, hexdata: str, kinds: list) -> None:
    data = h(hexdata)
    errors = assert_like_cpython(data)
    assert [e.kind for e in errors] == kinds
    (group,) = group_errors(errors)
    assert group[0].naive is None
    assert group[0].naive_end == len(data)
    # followed by ASCII, an incomplete sequence is truncated instead
    if kinds[0] is K.INCOMPLETE:
        assert find_errors(data + b"x")[0].kind is K.TRUNCATED
        assert "cut short by byte 0x78" in find_errors(data + b"x")[0].reason
        assert "incomplete" in errors[0].reason


def test_kuhn_3_4_concatenated_incomplete_sequences(backend: ModuleType) -> None:
    data = b"".join(h(x) for x, _ in KUHN_3_3)
    errors = assert_like_cpython(data)
    assert len(errors) == sum(len(k) for _, k in KUHN_3_3) == 29
    groups = group_errors(errors)
    assert [b"".join(e.sequence for e in g).hex(" ").upper() for g in groups] == [
        x for x, _ in KUHN_3_3
    ]
    assert decode(data, errors="replace") == FFFD * 29


def test_kuhn_3_5_impossible_bytes(backend: ModuleType) -> None:
    for hexdata in ("FE", "FF", "FE FE FF FF"):
        data = h(hexdata)
        errors = assert_like_cpython(data)
        assert [e.kind for e in errors] == [K.INVALID_BYTE] * len(data)
        assert all(e.naive is None for e in errors)
        assert "never appears in UTF-8" in errors[0].reason


# -- miscellaneous entry-point behaviour -------------------------------------------------


def test_pure_python_env_switch() -> None:
    env = dict(os.environ, SANITIZER_PURE_PYTHON="1")
    out = subprocess.run(
        [sys.executable, "-c", "import sanitizer; print(sanitizer.BACKEND)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "python"
