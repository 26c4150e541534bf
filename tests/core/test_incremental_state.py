"""``getstate()`` / ``setstate()`` of the incremental decoders (UTF-8, UTF-16, UTF-32) keep
the ``codecs.IncrementalDecoder`` contract.

The contract: ``getstate()`` is ``(buffered bytes, int)``, the int carrying any other
state (for UTF-16/32, the byte order read from a BOM), and a decoder given ``setstate(s)``
continues as the decoder ``s`` came from.  So at every split point of every small input,
the state is moved to a fresh decoder, which decodes the rest: the text is CPython's for
valid input (and its buffered bytes are CPython's too), the errors and their stream
offsets those of one-shot decoding for any input.  Restoring a fresh decoder's state
after a BOM was read starts a new stream, BOM and all, as CPython's codecs do; and
``io.TextIOWrapper``'s ``tell()``/``seek()``, which rely on the contract, read a UTF-16
file through these decoders as through CPython's.
"""

from __future__ import annotations

import codecs
import io
import itertools
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sanitizer
from sanitizer import utf16, utf32
from tests.support.settings import examples

WIDE: dict[str, ModuleType] = {"utf-16": utf16, "utf-32": utf32}
BOMS = {
    ("utf-16", "le"): codecs.BOM_UTF16_LE,
    ("utf-16", "be"): codecs.BOM_UTF16_BE,
    ("utf-32", "le"): codecs.BOM_UTF32_LE,
    ("utf-32", "be"): codecs.BOM_UTF32_BE,
}
TEXTS = ["", "A", "B\u00e9", "\U0001f642", "A\U0001f642B", "\ufeffx"]
# (byte_order given to the decoder, the order the bytes are in: with a BOM for "bom")
ORDERS = [("bom", "le"), ("bom", "be"), ("le", "le"), ("be", "be")]


def encoded(family: str, order: str, endian: str, text: str) -> tuple[bytes, str]:
    """The bytes of ``text`` (a BOM first when the decoder reads one) and the CPython
    codec that reads them."""
    body = text.encode(f"{family}-{endian}")
    if order == "bom":
        return BOMS[family, endian] + body, family
    return body, f"{family}-{endian}"


def moved(make: Callable[[], Any], data: bytes, cut: int) -> tuple[str, Any, tuple[bytes, int]]:
    """Decode ``data[:cut]``, move the state to a fresh decoder, decode the rest there:
    (all the text, the second decoder, the state moved)."""
    first = make()
    head = first.decode(data[:cut])
    state = first.getstate()
    second = make()
    second.setstate(state)
    return head + second.decode(data[cut:], final=True), second, state


def wide_cases() -> Iterator[tuple[str, str, str, str]]:
    for family, (order, endian), text in itertools.product(WIDE, ORDERS, TEXTS):
        yield family, order, endian, text


@pytest.mark.parametrize(("family", "order", "endian", "text"), list(wide_cases()))
def test_wide_state_moves_at_every_split_point(
    family: str, order: str, endian: str, text: str
) -> None:
    data, cpython = encoded(family, order, endian, text)
    expected = codecs.decode(data, cpython)
    for cut in range(len(data) + 1):

        def make() -> Any:
            return WIDE[family].IncrementalDecoder(byte_order=order)

        text_out, second, state = moved(make, data, cut)
        assert text_out == expected, cut
        assert second.position == len(data)
        # the buffered bytes are CPython's (its int means something else: see getstate)
        reference = codecs.getincrementaldecoder(cpython)()
        reference.decode(data[:cut])
        assert state[0] == reference.getstate()[0], cut


@pytest.mark.parametrize("family", WIDE)
@pytest.mark.parametrize("first", ["le", "be"])
def test_restoring_a_fresh_state_reads_a_new_bom(family: str, first: str) -> None:
    """A decoder that read one BOM, set back to a fresh decoder's state, reads the next
    stream's BOM (the old state kept the first order: '\\ufffe\\u4200' for 'B')."""
    second = "be" if first == "le" else "le"
    for make in (
        lambda: WIDE[family].IncrementalDecoder(),
        lambda: codecs.getincrementaldecoder(family)(),  # CPython does the same
    ):
        decoder = make()
        fresh = decoder.getstate()
        assert decoder.decode(BOMS[family, first] + "A".encode(f"{family}-{first}")) == "A"
        decoder.setstate(fresh)
        again = BOMS[family, second] + "B".encode(f"{family}-{second}")
        assert decoder.decode(again, final=True) == "B"


@pytest.mark.parametrize("family", WIDE)
def test_a_state_after_the_bom_goes_to_a_fresh_decoder(family: str) -> None:
    """setstate(getstate()) of a decoder that read the BOM, on a fresh decoder: the next
    bytes, which have no BOM, are read in that order (it raised ByteOrderError)."""
    decoder = WIDE[family].IncrementalDecoder()
    assert decoder.decode(BOMS[family, "be"]) == ""
    other = WIDE[family].IncrementalDecoder()
    other.setstate(decoder.getstate())
    assert other.endian == "be"
    assert other.decode("B".encode(f"{family}-be"), final=True) == "B"
    assert other.position == len(BOMS[family, "be"]) + len("B".encode(f"{family}-be"))


@pytest.mark.parametrize("family", WIDE)
def test_a_fresh_state_is_zero_and_setstate_refuses_what_getstate_never_gives(
    family: str,
) -> None:
    decoder = WIDE[family].IncrementalDecoder()
    assert decoder.getstate() == (b"", 0)  # 0: the most common extra state (codecs docs)
    for bad in [(b"", -1), (b"", 3), (b"", 4 * 5), (b"1234", 0)]:
        with pytest.raises(ValueError, match="setstate\\(\\) argument 'state'"):
            WIDE[family].IncrementalDecoder().setstate(bad)
    for bad in [None, (b"",), [b"", 0], ("", 0), (b"", "0"), (b"", True)]:
        with pytest.raises(TypeError, match="setstate\\(\\) argument 'state' must be"):
            WIDE[family].IncrementalDecoder().setstate(bad)  # type: ignore[arg-type]
    little = WIDE[family].IncrementalDecoder(byte_order="le")
    with pytest.raises(ValueError, match="other byte order"):
        little.setstate((b"", 4 * 2 + 2))  # a BOM read as big-endian
    little.setstate((b"", 4 * 2 + 1))  # the order it has: accepted


def wide_ill_formed(family: str) -> list[bytes]:
    unit = 2 if family == "utf-16" else 4
    pieces = [
        "A".encode(f"{family}-le"),
        "\U0001f642".encode(f"{family}-le"),
        b"\x3d\xd8" if unit == 2 else b"\x00\xd8\x00\x00",  # a lone high surrogate
        b"\x00\xdc" if unit == 2 else b"\x00\x00\x11\x00",  # lone low / beyond U+10FFFF
        b"\xff",  # a cut unit at the end
    ]
    return [b"".join(p) for n in range(1, 4) for p in itertools.product(pieces, repeat=n)]


@pytest.mark.parametrize("family", WIDE)
def test_wide_errors_keep_their_offsets_across_a_move(family: str) -> None:
    """Ill-formed input: the errors of the two halves are one-shot decoding's, at stream
    offsets (the state carries the offset)."""
    mod = WIDE[family]
    for body in wide_ill_formed(family):
        data = BOMS[family, "le"] + body
        whole = [(e.stream_start, e.stream_end) for e in mod.find_errors(data)]
        for cut in range(len(data) + 1):
            first = mod.IncrementalDecoder()
            errs = first.feed(data[:cut])[1]
            second = mod.IncrementalDecoder()
            second.setstate(first.getstate())
            errs += second.feed(data[cut:], final=True)[1]
            assert [(e.stream_start, e.stream_end) for e in errs] == whole, (data, cut)


# -- UTF-8 -----------------------------------------------------------------------------------

# bytes that make short valid and ill-formed input: ASCII, the parts of é, €, 🙂, a BOM,
# and bytes that are never UTF-8 or start overlongs
UTF8_BYTES = [0x41, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0xEF, 0xBB, 0xBF, 0xC0, 0xFF]


def utf8_inputs(max_len: int) -> Iterator[bytes]:
    for n in range(max_len + 1):
        for combo in itertools.product(UTF8_BYTES, repeat=n):
            yield bytes(combo)


@pytest.mark.parametrize("bom", ["keep", "strip", "reject"])
def test_utf8_state_moves_at_every_split_point(bom: str) -> None:
    """Exhaustive over short inputs from UTF8_BYTES: text and error offsets after a move
    are one-shot decoding's; for valid input the buffered bytes are CPython's."""
    for data in utf8_inputs(3):
        try:
            whole = sanitizer.IncrementalDecoder(bom=bom).feed(data, final=True)  # type: ignore[arg-type]
        except sanitizer.BomError:
            continue
        spans = [(e.stream_start, e.stream_end) for e in whole[1]]
        valid = not whole[1]
        for cut in range(len(data) + 1):
            first = sanitizer.IncrementalDecoder(bom=bom)  # type: ignore[arg-type]
            text, errs = first.feed(data[:cut])
            state = first.getstate()
            second = sanitizer.IncrementalDecoder(bom=bom)  # type: ignore[arg-type]
            second.setstate(state)
            more, later = second.feed(data[cut:], final=True)
            assert (text + more, [(e.stream_start, e.stream_end) for e in errs + later]) == (
                whole[0],
                spans,
            )
            if valid:
                reference = codecs.getincrementaldecoder("utf-8")()
                reference.decode(data[:cut])
                assert state[0] == reference.getstate()[0], (data, cut)


def test_utf8_fresh_state_strips_a_new_bom() -> None:
    decoder = sanitizer.IncrementalDecoder(bom="strip")
    fresh = decoder.getstate()
    assert fresh == (b"", 0)
    assert decoder.decode(codecs.BOM_UTF8 + b"a") == "a"
    assert decoder.decode(codecs.BOM_UTF8 + b"b") == "\ufeffb"  # not at the start
    decoder.setstate(fresh)
    assert decoder.decode(codecs.BOM_UTF8 + b"c", final=True) == "c"


# -- random chunks, the state moved at each boundary ---------------------------------------


def _chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


@settings(max_examples=examples(150), deadline=None)
@given(
    st.text(max_size=12),
    st.sampled_from(list(itertools.product(WIDE, ORDERS))),
    st.lists(st.integers(0, 60), max_size=5),
)
def test_wide_state_moves_across_random_chunks(
    text: str, case: tuple[str, tuple[str, str]], cuts: list[int]
) -> None:
    family, (order, endian) = case
    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")  # no lone ones
    data, cpython = encoded(family, order, endian, text)
    decoder = WIDE[family].IncrementalDecoder(byte_order=order)
    out = []
    for chunk in _chunks(data, cuts):
        out.append(decoder.decode(chunk))
        state = decoder.getstate()
        decoder = WIDE[family].IncrementalDecoder(byte_order=order)
        decoder.setstate(state)
    out.append(decoder.decode(b"", final=True))
    assert "".join(out) == codecs.decode(data, cpython)


@settings(max_examples=examples(150), deadline=None)
@given(st.binary(max_size=24), st.lists(st.integers(0, 30), max_size=5))
def test_utf8_state_moves_across_random_chunks(data: bytes, cuts: list[int]) -> None:
    whole = sanitizer.IncrementalDecoder().feed(data, final=True)
    decoder = sanitizer.IncrementalDecoder()
    text, spans = [], []
    for chunk in _chunks(data, cuts):
        got, errs = decoder.feed(chunk)
        text.append(got)
        spans += [(e.stream_start, e.stream_end) for e in errs]
        state = decoder.getstate()
        decoder = sanitizer.IncrementalDecoder()
        decoder.setstate(state)
    got, errs = decoder.feed(b"", final=True)
    text.append(got)
    spans += [(e.stream_start, e.stream_end) for e in errs]
    assert ("".join(text), spans) == (whole[0], [(e.stream_start, e.stream_end) for e in whole[1]])


# -- io.TextIOWrapper: tell() and seek() use getstate/setstate ------------------------------


def _search(name: str) -> codecs.CodecInfo | None:
    if name != "sanitizer_utf_16":
        return None
    return codecs.CodecInfo(
        codecs.utf_16_encode,
        codecs.utf_16_decode,
        incrementalencoder=codecs.getincrementalencoder("utf-16"),
        incrementaldecoder=utf16.IncrementalDecoder,  # type: ignore[arg-type]
        name="sanitizer-utf-16",
    )


@pytest.fixture
def sanitizer_utf16() -> Iterator[str]:
    codecs.register(_search)
    try:
        yield "sanitizer_utf_16"
    finally:
        codecs.unregister(_search)


@pytest.mark.parametrize("endian", ["le", "be"])
def test_textiowrapper_tell_and_seek_through_the_decoder(sanitizer_utf16: str, endian: str) -> None:
    text = "abc\U0001f642d\u00e9f\n" * 40
    data = BOMS["utf-16", endian] + text.encode(f"utf-16-{endian}")
    results = []
    for encoding in (sanitizer_utf16, "utf-16"):
        stream = io.TextIOWrapper(io.BytesIO(data), encoding=encoding)
        stream._CHUNK_SIZE = 7  # type: ignore[attr-defined]  # odd: pairs split across chunks
        seen = []
        while True:
            where = stream.tell()
            piece = stream.read(5)
            if not piece:
                break
            seen.append(piece)
            stream.seek(where)  # back to a cookie built from getstate() (opaque: not compared)
            assert stream.read(5) == piece
        results.append(seen)
    assert results[0] == results[1]
    assert "".join(results[0]) == text
