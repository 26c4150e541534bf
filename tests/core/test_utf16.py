"""Strict UTF-16 against CPython's codecs, exhaustively at the boundaries and by property.

The reference is CPython: its strict ``utf-16-le``/``-be`` codecs for the verdict and the
first error, its ``replace`` for the text, and a recording error handler for *every*
error span (CPython calls the handler once per ill-formed unit, at the offsets it
resumes from).  The kinds are checked against a reading of the issue's list written here,
independently of ``sanitizer.utf16``.  CPython's replacement equals the WHATWG Encoding
Standard's UTF-16 decoders (one U+FFFD per ill-formed code unit; a cut-off high surrogate
and an odd last byte together give one): compared with node 20's
``TextDecoder('utf-16le')`` in ``bench/bench_utf16.py --whatwg``.
"""

from __future__ import annotations

import codecs
import itertools
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanitizer import utf16, utf32
from sanitizer._fuzzing.oracles import Divergence
from sanitizer._fuzzing.wide_oracle import MUTANTS, check_wide
from sanitizer._wide import ByteOrder, ByteOrderError, UnitErrorKind
from sanitizer._wide_codecs import codec

K = UnitErrorKind
# The boundary code units: both ends of every range that matters to UTF-16.
BOUNDARY = (
    0x0000, 0x007F, 0x0080, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF,
    0xE000, 0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF,
)  # fmt: skip
ORDERS: dict[ByteOrder, str] = {"le": "utf-16-le", "be": "utf-16-be"}

_recorded: list[tuple[int, int]] = []


def _record(exc: UnicodeError) -> tuple[str, int]:
    assert isinstance(exc, UnicodeDecodeError)
    _recorded.append((exc.start, exc.end))
    return "\ufffd", exc.end


codecs.register_error("test-utf16-record", _record)


def cpython_spans(data: bytes, name: str) -> list[tuple[int, int]]:
    """Every error span CPython's codec reports (one handler call per U+FFFD)."""
    _recorded.clear()
    data.decode(name, "test-utf16-record")
    return list(_recorded)


def expected_kind(data: bytes, start: int, end: int, big: bool) -> UnitErrorKind:
    """The issue's kinds, read from the bytes of one CPython error span."""
    if end - start < 2:
        return K.TRUNCATED_UNIT
    unit = int.from_bytes(data[start : start + 2], "big" if big else "little")
    if unit >= 0xDC00:
        return K.LONE_LOW_SURROGATE
    return K.TRUNCATED_PAIR if start + 4 > len(data) else K.LONE_HIGH_SURROGATE


def units(values: tuple[int, ...], order: ByteOrder) -> bytes:
    return b"".join(v.to_bytes(2, "big" if order == "be" else "little") for v in values)


def check(data: bytes, order: ByteOrder) -> None:
    """Verdict, text, first error, all errors and kinds against CPython, for one input."""
    name = ORDERS[order]
    spans = cpython_spans(data, name)
    assert utf16.is_valid(data, byte_order=order) == (not spans)
    assert utf16.decode(data, byte_order=order, errors="replace") == data.decode(name, "replace")
    flat = [x for span in spans for x in span]  # the walk's own text (decode uses CPython's)
    assert utf16.CODEC.replaced(data, order == "be", 0, flat) == data.decode(name, "replace")
    errors = utf16.find_errors(data, byte_order=order)
    assert [(e.start, e.end) for e in errors] == spans, data.hex(" ")
    for err in errors:
        assert err.kind is expected_kind(data, err.start, err.end, order == "be")
        assert err.sequence == data[err.start : err.end] and err.reason
    if spans:
        with pytest.raises(UnicodeDecodeError) as cpython:
            data.decode(name)
        with pytest.raises(utf16.Utf16Error) as ours:
            utf16.decode(data, byte_order=order)
        assert (ours.value.start, ours.value.end) == (cpython.value.start, cpython.value.end)
        assert ours.value.encoding == cpython.value.encoding
        first = utf16.find_errors(data, byte_order=order, limit=1)
        assert [(e.start, e.end) for e in first] == spans[:1]
    else:
        assert utf16.decode(data, byte_order=order) == data.decode(name)


def check_chunked(data: bytes, order: ByteOrder) -> None:
    """Every split into two chunks, and byte by byte, equals one-shot decoding."""
    text = utf16.decode(data, byte_order=order, errors="replace")
    spans = [(e.start, e.end) for e in utf16.find_errors(data, byte_order=order)]
    cuts_list = [[k] for k in range(len(data) + 1)] + [list(range(1, len(data)))]
    for cuts in cuts_list:
        dec = utf16.IncrementalDecoder(byte_order=order)
        got, found = "", []
        for a, b in zip([0, *cuts], [*cuts, len(data)], strict=False):
            part, errs = dec.feed(data[a:b])
            got += part
            found += errs
            assert dec.position <= b and b - dec.position <= 3
        part, errs = dec.feed(b"", final=True)
        got += part
        found += errs
        assert got == text, (data.hex(" "), cuts)
        assert [(e.stream_start, e.stream_end) for e in found] == spans
        assert all(e.object[e.start : e.end] == e.sequence != b"" for e in found)
        assert [e.kind for e in found] == [
            e.kind for e in utf16.find_errors(data, byte_order=order)
        ]


SHORT = [v for n in range(4) for v in itertools.product(BOUNDARY, repeat=n)]


def test_input_count() -> None:
    assert len(SHORT) == 1 + 13 + 13**2 + 13**3


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_exhaustive_boundary_units(order: ByteOrder) -> None:
    for values in SHORT:
        data = units(values, order)
        check(data, order)
        check(data + b"\x41", order)  # and cut short by an odd trailing byte


@pytest.mark.slow
@pytest.mark.parametrize("order", sorted(ORDERS))
def test_exhaustive_chunk_splits(order: ByteOrder) -> None:
    for values in SHORT:
        data = units(values, order)
        check_chunked(data, order)
        check_chunked(data + b"\x00", order)


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_bom_mode_equals_cpython_utf16(order: ByteOrder) -> None:
    """With a BOM, byte_order="bom" skips it and reports what CPython's utf-16 reports."""
    bom = codecs.BOM_UTF16_LE if order == "le" else codecs.BOM_UTF16_BE
    for values in SHORT[:200]:
        data = bom + units(values, order)
        spans = cpython_spans(data, "utf-16")
        assert utf16.decode(data, errors="replace") == data.decode("utf-16", "replace")
        assert [(e.start, e.end) for e in utf16.find_errors(data)] == spans
        assert utf16.is_valid(data) == (not spans)
        check_chunked(data, "bom")


def test_no_bom_is_refused_not_guessed() -> None:
    data = "hi".encode("utf-16-be")
    for call in (utf16.decode, utf16.is_valid, utf16.find_errors):
        with pytest.raises(ByteOrderError, match="no byte order mark"):
            call(data)
    assert utf16.decode(data, default_endian="be") == "hi"
    assert utf16.decode(b"") == ""
    assert utf16.decode(codecs.BOM_UTF16_LE + data, default_endian="be") == "\u6800\u6900"
    with pytest.raises(ByteOrderError):
        utf16.IncrementalDecoder().decode(data, final=True)
    # an explicit byte order keeps an initial U+FEFF, as CPython's utf-16-le does
    assert utf16.decode(codecs.BOM_UTF16_LE, byte_order="le") == "\ufeff"


def test_kinds_and_reasons() -> None:
    cases = {
        b"\x3d\xd8A\x00": (K.LONE_HIGH_SURROGATE, "lone high surrogate U+D83D"),
        b"\x00\xdc\x3d\xd8\x00\xdc": (K.LONE_LOW_SURROGATE, "with no high surrogate before it"),
        b"A\x00\x3d\xd8": (K.TRUNCATED_PAIR, "cut off by the end of input"),
        b"A\x00B": (K.TRUNCATED_UNIT, "odd trailing byte 0x42"),
    }
    for data, (kind, words) in cases.items():
        err = utf16.find_errors(data, byte_order="le")[0]
        assert err.kind is kind and words in err.reason, err.reason
        assert err.as_dict()["kind"] == kind.value
        assert isinstance(err, UnicodeDecodeError) and str(err).startswith("invalid UTF-16-LE")


def test_arguments() -> None:
    with pytest.raises(ValueError, match="'byte_order' must be"):
        utf16.decode(b"", byte_order="little")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bytes-like"):
        utf16.decode("text")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'errors' must be"):
        utf16.decode(b"", errors="ignore")  # type: ignore[arg-type]
    assert codec("UTF-16LE") == (utf16.CODEC, "le")
    assert codec("utf_16") == (utf16.CODEC, "bom")
    with pytest.raises(ValueError, match="unknown encoding"):
        codec("utf-16x")


# -- properties --------------------------------------------------------------------------

surrogate_heavy = st.lists(
    st.one_of(st.sampled_from(BOUNDARY), st.integers(0, 0xFFFF)), max_size=40
).map(lambda vs: units(tuple(vs), "le"))


@given(st.one_of(st.binary(max_size=80), surrogate_heavy), st.sampled_from(sorted(ORDERS)))
def test_agrees_with_cpython(data: bytes, order: ByteOrder) -> None:
    check(data, order)


@given(surrogate_heavy, st.lists(st.integers(0, 80), max_size=6))
def test_any_chunking_equals_one_shot(data: bytes, cuts: list[int]) -> None:
    cuts = sorted(min(c, len(data)) for c in cuts)
    dec = utf16.IncrementalDecoder(errors="replace", byte_order="le")
    text = "".join(
        dec.decode(data[a:b]) for a, b in zip([0, *cuts], [*cuts, len(data)], strict=False)
    )
    text += dec.decode(b"", final=True)
    assert text == data.decode("utf-16-le", "replace")


@given(st.text(max_size=40))
def test_round_trip(text: str) -> None:
    """Text without surrogates (Hypothesis' default) encodes to valid UTF-16 and back."""
    for order, name in ORDERS.items():
        data = text.encode(name)
        assert utf16.is_valid(data, byte_order=order)
        assert utf16.decode(data, byte_order=order) == text
    assert utf16.decode(text.encode("utf-16")) == text  # CPython writes a BOM


def test_limit() -> None:
    data = b"\x00\xdc" * 10
    assert len(utf16.find_errors(data, byte_order="le", limit=3)) == 3
    assert utf16.find_errors(data, byte_order="le", limit=0) == []
    text, errs = utf16.IncrementalDecoder(byte_order="le").feed(data, limit=2)
    assert text == "\ufffd\ufffd" and len(errs) == 2


@pytest.mark.parametrize("gap", [2040, 2044, 2045, 2046, 2047, 2048, 8190, 8191])
def test_limit_over_window_edges(gap: int) -> None:
    """A limited search looks at growing windows from the first error; a pair or an
    error at a window's edge must come out as in a full search."""
    tails = [(0xD800, 0xDC00), (0xD800,), (0xDC00,), (0xD800, 0x41), (0xDBFF, 0xD800, 0xDC00)]
    for tail in tails:
        data = units((0x41, 0xDC00, *([0x41] * gap), *tail, 0xDFFF, 0x41), "le")
        full = [(e.start, e.end) for e in utf16.find_errors(data, byte_order="le")]
        assert full == cpython_spans(data, "utf-16-le")
        for limit in range(1, len(full) + 2):
            got = utf16.find_errors(data, byte_order="le", limit=limit)
            assert [(e.start, e.end) for e in got] == full[:limit]
            assert [e.kind for e in got] == [expected_kind(data, *f, False) for f in full[:limit]]


# -- the fuzz target's oracle on the seed corpus -------------------------------------------

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "utf16"
SEEDS = sorted(CORPUS.glob("*.bin"))


def test_corpus_seeds_pass_the_oracle() -> None:
    assert len(SEEDS) >= 15
    for path in SEEDS:
        check_wide(path.read_bytes())


@given(st.binary(max_size=48))
def test_oracle_holds(data: bytes) -> None:
    check_wide(data)


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_corpus_catches_each_mutant(name: str) -> None:
    caught = []
    for path in SEEDS:
        try:
            check_wide(path.read_bytes(), MUTANTS[name])
        except Divergence:
            caught.append(path.stem)
    assert caught, f"no seed in corpus/utf16 catches {name}"


# -- policies over UTF-16/32 bytes: inspect(data, policy, encoding=...) -------------------

_POLICY_TEXT = st.text(
    st.sampled_from("ab \n\u00e9\u202e\u200b\u0301\U0001f642\u0430\ufeff\x07"), max_size=20
)


@given(_POLICY_TEXT, st.sampled_from(["utf-16le", "utf-16be", "utf-32le", "utf-32be"]))
def test_inspect_encoded_equals_inspect_of_text(text: str, encoding: str) -> None:
    """Same verdict, output and findings as inspecting the text, each finding's byte span
    holding exactly the characters of its code-point span."""
    from sanitizer import inspect

    name = encoding[:6] + "-" + encoding[6:]
    data = text.encode(name)
    expected = inspect(text)
    got = inspect(data, encoding=encoding)
    assert (got.ok, got.text) == (expected.ok, expected.text)
    assert len(got.findings) == len(expected.findings)
    for mine, theirs in zip(got.findings, expected.findings, strict=True):
        assert mine.category is theirs.category and mine.action is theirs.action
        assert data[mine.start : mine.end].decode(name) == text[theirs.start : theirs.end]


def test_inspect_encoded_ill_formed_units() -> None:
    from sanitizer import Category, inspect, profiles

    data = "ab".encode("utf-16-le") + b"\x00\xdc" + "c".encode("utf-16-le") + b"\x41"
    report = inspect(data, profiles.TEXT, encoding="utf-16le")
    assert not report.ok and report.text is None
    ill = [(f.start, f.end) for f in report.findings if f.category is Category.ILL_FORMED]
    assert ill == [(4, 6), (8, 9)]
    assert "lone low surrogate" in report.findings[0].reason()
    with pytest.raises(ByteOrderError):
        inspect(data, encoding="utf-16")
    with pytest.raises(TypeError, match="already decoded"):
        inspect("text", encoding="utf-16le")
    with pytest.raises(ValueError, match="inspect\\(\\) argument 'encoding' must be utf-8, "):
        inspect(data, encoding="latin-1")
    assert inspect(codecs.BOM_UTF16_BE + "ok".encode("utf-16-be"), encoding="UTF-16").text == "ok"


# -- sanitizer check --encoding ------------------------------------------------------------


def test_cli_check_encoding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Findings with byte spans and line:column, exit codes, and BOM handling; a file
    larger than a read chunk (64 KiB) with errors on both sides of chunk edges."""
    import json

    from sanitizer.cli import main

    clean = tmp_path / "clean.txt"
    clean.write_bytes("héllo\nwörld \U0001f642\n".encode("utf-16"))
    bad = tmp_path / "bad.txt"
    bad.write_bytes(codecs.BOM_UTF16_LE + "ab\ncd".encode("utf-16-le") + b"\x00\xdc" + b"\x3d\xd8")
    nobom = tmp_path / "nobom.txt"
    nobom.write_bytes("hi".encode("utf-16-le"))
    assert main(["check", "--encoding", "utf-16", str(clean)]) == 0
    capsys.readouterr()
    assert main(["check", "--encoding", "utf-16", str(bad), str(nobom)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{bad}:2:3: lone-low-surrogate  00 DC  reject")
    assert out[1].startswith(f"{bad}:2:4: truncated-pair  3D D8")
    assert out[2].startswith(f"{nobom}:1:1: no-byte-order-mark")
    assert main(["check", "--encoding", "utf-16x", str(clean)]) == 2
    assert main(["check", "--encoding", "utf-16", "--policy", "SOURCE", str(clean)]) == 2
    capsys.readouterr()
    policed = tmp_path / "policed.txt"
    policed.write_bytes("ok\nx\u202ey \U0001f642\u200bz\n".encode("utf-32") + b"\x00\xdc\x00\x00")
    assert main(["check", "--encoding", "utf-32", "--policy", "TEXT", str(policed)]) == 1
    out = capsys.readouterr().out.splitlines()
    # Not well-formed: what it is without a policy (which judges text), one answer.
    assert main(["check", "--encoding", "utf-32", str(policed)]) == 1
    assert capsys.readouterr().out.splitlines() == out
    assert [line.split(": ")[0].rsplit(":", 2)[1:] for line in out] == [["3", "1"]]
    policed.write_bytes("ok\nx\u202ey \U0001f642\u200bz\n".encode("utf-32"))
    assert main(["check", "--encoding", "utf-32", "--policy", "TEXT", str(policed)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[0].rsplit(":", 2)[1:] for line in out] == [["2", "2"], ["2", "6"]]
    assert "bidi-control  U+202E" in out[0]

    line = "x" * 40 + "\U0001f642\n"
    big = tmp_path / "big.txt"
    data = bytearray(line.encode("utf-32-le") * 2000)  # 336,000 bytes: several chunks
    for at in (4 * 16383, 4 * 16384, 4 * 32768 - 4, 300_000):
        data[at : at + 4] = (0xD800 + at % 7).to_bytes(4, "little")
    big.write_bytes(bytes(data))
    assert main(["check", "--encoding", "utf-32le", "--format", "json", str(big)]) == 1
    records = [json.loads(r) for r in capsys.readouterr().out.splitlines()]
    found = [(r["start"], r["line"], r["column"]) for r in records if "start" in r]
    expected = []
    text = bytes(data).decode("utf-32-le", "replace")
    for err in utf32.find_errors(bytes(data), byte_order="le"):
        index = err.start // 4
        before = text[:index]
        expected.append((err.start, before.count("\n") + 1, index - before.rfind("\n")))
    assert found == expected and len(found) == 4


def test_public_names_and_state() -> None:
    import sanitizer

    assert sanitizer.utf16 is utf16 and sanitizer.utf32 is utf32
    assert sanitizer.Utf16Error is utf16.Utf16Error and sanitizer.Utf32Error is utf32.Utf32Error
    assert sanitizer.UnitErrorKind is UnitErrorKind and sanitizer.ByteOrderError is ByteOrderError
    assert {"utf16", "utf32", "Utf16Error", "Utf32Error"} <= set(sanitizer.__all__)
    dec = utf16.IncrementalDecoder(byte_order="le")
    assert dec.decode(b"A\x00\x3d\xd8\x42") == "A"  # high surrogate and a byte held back
    state = dec.getstate()
    assert state == (b"\x3d\xd8\x42", 2 * 4)  # offset 2, times 4; no BOM read (0)
    again = utf16.IncrementalDecoder(byte_order="le")
    again.setstate(state)
    assert again.decode(b"\xde", final=True) == "\U0001f642" and again.position == 6
    with pytest.raises(utf16.Utf16Error) as info:
        utf16.IncrementalDecoder(byte_order="le").decode(b"A\x00\x00\xdc", final=True)
    assert (info.value.start, info.value.end) == (2, 4)


# A long input's strict decode reads its first units alone first (wide._PROBE): the error
# it reports must be CPython's, and a pair or unit cut by the probe's end is no error.
_LONG_UNITS = {
    "utf-16-le": [b"\x3d\xd8\x00\xde", b"\x00\xdc", b"\x00\xd8", b"A\x00"],  # pair, low, high, 'A'
    "utf-32-le": [b"\x00\xf6\x01\x00", b"\x00\xd8\x00\x00", b"\x00\x00\x11\x00", b"A\x00\x00\x00"],
}


@pytest.mark.parametrize("name", sorted(_LONG_UNITS))
@pytest.mark.parametrize("at", [0, 2, 4088, 4090, 4092, 4094, 4096, 4098, 8192])
def test_long_input_first_error_is_cpythons_around_the_probe(name: str, at: int) -> None:
    module = utf16 if name.startswith("utf-16") else utf32
    pair, bad, odd, filler = _LONG_UNITS[name]
    at -= at % len(filler)
    base = filler * ((1 << 17) // len(filler))
    for inserted in (pair, bad, odd, pair + bad, odd + filler):
        data = base[:at] + inserted + base[at + len(inserted) :]
        try:
            expected = data.decode(name)
        except UnicodeDecodeError as exc:
            with pytest.raises(UnicodeDecodeError) as caught:
                module.decode(data, byte_order="le")
            assert (caught.value.start, caught.value.end) == (exc.start, exc.end), (at, inserted)
        else:
            assert module.decode(data, byte_order="le") == expected
