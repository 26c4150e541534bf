"""encode(): strict UTF-8; lone surrogates are an EncodeError naming their index."""

from __future__ import annotations

import pytest

from sanitizer import EncodeError, encode


def test_encode_valid() -> None:
    assert encode("") == b""
    assert encode("A\u2262\u0391.") == bytes.fromhex("41 E2 89 A2 CE 91 2E")
    assert encode("\U000233b4") == bytes.fromhex("F0 A3 8E B4")
    assert encode("\x00") == b"\x00"  # never C0 80
    assert encode("\ufffe\uffff\U0010ffff") == b"\xef\xbf\xbe\xef\xbf\xbf\xf4\x8f\xbf\xbf"


@pytest.mark.parametrize(
    ("text", "index", "cp"),
    [
        ("\udcff", 0, 0xDCFF),
        (b"ab\xff".decode("utf-8", "surrogateescape"), 2, 0xDCFF),
        ("ok\ud800", 2, 0xD800),
        ("x\U0001f600\udfff\ud800", 2, 0xDFFF),
        ("\ud83d\ude00", 0, 0xD83D),  # a surrogate *pair* in a str is still two lone ones
    ],
)
def test_lone_surrogate(text: str, index: int, cp: int) -> None:
    with pytest.raises(EncodeError) as info:
        encode(text)
    err = info.value
    assert isinstance(err, UnicodeEncodeError)
    assert isinstance(err, ValueError)
    assert (err.start, err.end, err.object) == (index, index + 1, text)
    assert f"index {index}" in str(err)
    assert f"U+{cp:04X}" in str(err)
    assert "surrogate" in str(err)


def test_type_error_for_bytes() -> None:
    for bad in (b"abc", bytearray(b"abc"), None, 5):
        with pytest.raises(TypeError, match="encode\\(\\) argument 'text' must be str"):
            encode(bad)  # type: ignore[arg-type]
