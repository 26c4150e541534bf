"""UTF-7 (RFC 2152): the lax reading equals CPython's codec, the strict one refuses smuggling.

CPython's 'utf-7' codec is the reference for the lax reading: on every short input over
the boundary bytes and on Hypothesis' inputs, ``inspect(data).text`` is what the codec
returns with ``errors="replace"``, and the errors the codec raises come out with its span
and reason.  The strict ``decode`` is checked against an independent base64 encoder
written here (UTF-16BE, RFC 4648 without '='): every single 16-bit unit, every ASCII
character hidden in base64, and CPython's own encoder for round trips.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import importlib.util
import itertools
import json
import string
import types
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import sanitizer
from sanitizer import utf7
from sanitizer.utf7 import DIRECT, Utf7Error, Utf7ErrorKind

K = Utf7ErrorKind


def shifted(text: str) -> bytes:
    """``text`` as one base64 run, '+' ... '-', by RFC 2152 Rule 2 (our own encoder)."""
    return b"+" + base64.b64encode(text.encode("utf-16-be", "surrogatepass")).rstrip(b"=") + b"-"


def cpython(data: bytes, errors: str = "strict") -> tuple[str | None, tuple[int, int, str] | None]:
    try:
        return data.decode("utf-7", errors), None
    except UnicodeDecodeError as exc:
        return None, (exc.start, exc.end, exc.reason)


def first_cpython_error(errors: list[Utf7Error]) -> tuple[int, int, str] | None:
    for err in errors:
        if err.cpython_reason is not None:
            return err.start, err.end, err.cpython_reason
    return None


def check_against_cpython(data: bytes) -> None:
    """The invariants every input must meet."""
    report = utf7.inspect(data)
    errors = list(report.errors)
    assert report.text == cpython(data, "replace")[0]
    strict_text, strict_error = cpython(data)
    assert first_cpython_error(errors) == strict_error
    assert report.cpython == strict_text
    if strict_text is not None:
        assert report.text == strict_text
    assert [e.start for e in errors] == sorted(e.start for e in errors)
    assert all(0 <= e.start < e.end <= len(data) for e in errors)
    assert [repr(e) for e in utf7.find_errors(data)] == [repr(e) for e in errors]
    assert utf7.is_valid(data) is (not errors)
    if errors:
        with pytest.raises(Utf7Error) as info:
            utf7.decode(data)
        assert (info.value.start, info.value.end, info.value.kind) == (
            errors[0].start,
            errors[0].end,
            errors[0].kind,
        )
    else:
        assert utf7.decode(data) == strict_text  # strict accepts only what CPython accepts


# -- RFC 2152's examples -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (b"A+ImIDkQ.", "A\u2262\u0391."),  # "A<NOT IDENTICAL TO><ALPHA>."
        (b"Hi Mom -+Jjo--!", "Hi Mom -\u263a-!"),  # '-' after a run is absorbed
        (b"+ZeVnLIqe-", "\u65e5\u672c\u8a9e"),  # "nihongo", Japanese for Japanese
        (b"Item 3 is +AKM-1.", "Item 3 is \u00a31."),
        (b"+-", "+"),
        (b"a+-b", "a+b"),
        (b"+2D3eAA-", "\U0001f600"),  # a surrogate pair in one run
        (b"", ""),
    ],
)
def test_rfc_2152_examples_decode(data: bytes, text: str) -> None:
    assert utf7.decode(data) == text == data.decode("utf-7")
    assert utf7.is_valid(data)
    report = utf7.inspect(data)
    assert report.ok and report.text == text and report.cpython == text
    assert utf7.spelling(data) is None


# -- the smuggling forms -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "read", "spans"),
    [
        (b"+AC8ALgAuAC8-", "/../", [(0, 13)]),  # a traversal past a '..' filter
        (b"+ADw-script+AD4-", "<script>", [(0, 5), (11, 16)]),
        (b"+ACI- onmouseover+AD0-", '" onmouseover=', [(0, 5), (17, 22)]),
        (b"+AA0ACg-Set-Cookie: a", "\r\nSet-Cookie: a", [(0, 8)]),  # header splitting
    ],
)
def test_smuggled_ascii_is_refused_and_shown(
    data: bytes, read: str, spans: list[tuple[int, int]]
) -> None:
    report = utf7.inspect(data)
    assert report.text == read == report.cpython  # CPython hands it over as is
    assert [(e.start, e.end) for e in report.errors] == spans
    assert all(e.kind is K.ENCODED_DIRECT for e in report.errors) and report.smuggled
    with pytest.raises(Utf7Error) as info:
        utf7.decode(data)
    assert (info.value.start, info.value.end) == spans[0]
    assert info.value.read in read


def test_spelling_for_a_log() -> None:
    assert utf7.spelling(b"+ADw-script+AD4-") == "'<script>' encoded as +ADw-script+AD4-"
    assert utf7.spelling(b"x+AC8ALgAuAC8-y") == "'/../' encoded as +AC8ALgAuAC8-"
    # controls (here a CR LF pair and an escape) never reach the log line raw
    line = utf7.spelling(b"+AA0ACg-\x1b[2J+ADw-")
    assert line == "'\\r\\n\\x1b[2J<' encoded as +AA0ACg-\\x1b[2J+ADw-"
    long = b"+ADw-" + b"A" * 1000 + b"+AD4-"
    shown = utf7.spelling(long, limit=32)
    assert shown is not None and shown.startswith("'<AAA") and len(shown) < 3 * 32 + 40
    with pytest.raises(ValueError, match="limit"):
        utf7.spelling(b"+ADw-", limit=0)


@given(st.binary(max_size=200), st.integers(1, 80))
@example(b"+ADw-\x00\x85\n+AD4-", 8)
def test_spelling_is_one_printable_bounded_line(data: bytes, limit: int) -> None:
    shown = utf7.spelling(data, limit)
    if shown is None:
        assert not utf7.inspect(data).smuggled
        return
    assert shown.isascii() and shown.isprintable()
    # each input byte or character becomes at most 10 characters (\U0010ffff), twice
    assert len(shown) <= 2 * (10 * limit + 3) + len("'' encoded as ")


@given(st.text(alphabet=sorted(DIRECT), min_size=1, max_size=30))
def test_every_hidden_direct_string_is_refused(text: str) -> None:
    data = shifted(text)
    assert data.decode("utf-7") == text  # what CPython lets through
    errors = utf7.find_errors(data)
    assert [(e.kind, e.start, e.end, e.read) for e in errors] == [
        (K.ENCODED_DIRECT, 0, len(data), text)
    ]


def test_every_single_unit_exhaustively() -> None:
    """All 65,536 16-bit units, each alone in a run: refused exactly when it is a
    surrogate or a character RFC 2152 writes directly."""
    for unit in range(0x10000):
        char = chr(unit)
        data = shifted(char)
        errors = utf7.find_errors(data)
        if 0xD800 <= unit <= 0xDFFF:
            assert [(e.kind, e.start, e.end, e.read) for e in errors] == [
                (K.LONE_SURROGATE, 1, 4, char)
            ]
        elif char in DIRECT:
            assert [(e.kind, e.read) for e in errors] == [(K.ENCODED_DIRECT, char)]
        else:
            assert errors == [], hex(unit)
            assert utf7.decode(data) == char == data.decode("utf-7")


def test_direct_set_is_rfc_2152_and_cpythons() -> None:
    set_d = string.ascii_letters + string.digits + "'(),-./:?"
    set_o = '!"#$%&*;<=>@[]^_`{|}'
    assert DIRECT == frozenset(set_d + set_o + " \t\r\n")
    assert DIRECT == {chr(b) for b in range(128) if chr(b).encode("utf-7") == bytes([b])} - {"+"}


# -- lone surrogates and ill-formed runs ---------------------------------------------------


@pytest.mark.parametrize(
    ("data", "kind", "span", "cpython_accepts"),
    [
        (b"+2D0-", K.LONE_SURROGATE, (1, 4), True),  # '\ud83d'
        (b"+3gA-", K.LONE_SURROGATE, (1, 4), True),  # a low surrogate first
        (b"+2D0AYQ-", K.LONE_SURROGATE, (1, 4), True),  # high, then 'a'
        (b"+2D0", K.LONE_SURROGATE, (0, 4), False),  # at the end: "unterminated"
        (b"+AA-", K.PARTIAL_UNIT, (0, 4), False),  # 12 bits
        (b"+AKMA-", K.PARTIAL_UNIT, (0, 6), False),  # 16 + 14 bits
        (b"+AAB-", K.NONZERO_PADDING, (0, 5), False),
        (b"+AAB", K.NONZERO_PADDING, (0, 4), False),
        (b"a+", K.TRAILING_PLUS, (1, 2), True),  # CPython drops it
        (b"+!", K.ILL_FORMED_SHIFT, (0, 2), False),
        (b"+\xff", K.ILL_FORMED_SHIFT, (0, 2), False),
        (b"a\x80b", K.NON_ASCII, (1, 2), False),
    ],
)
def test_ill_formed(
    data: bytes, kind: Utf7ErrorKind, span: tuple[int, int], cpython_accepts: bool
) -> None:
    err = utf7.find_errors(data)[0]
    assert (err.kind, (err.start, err.end)) == (kind, span)
    assert (err.cpython_reason is None) is cpython_accepts
    assert (cpython(data)[0] is not None) is cpython_accepts
    check_against_cpython(data)


def test_pair_split_across_runs_is_two_lone_surrogates() -> None:
    data = b"+2D0-+3gA-"
    assert data.decode("utf-7") == "\ud83d\ude00"  # CPython: two lone code units
    errors = utf7.find_errors(data)
    assert [(e.kind, e.read) for e in errors] == [
        (K.LONE_SURROGATE, "\ud83d"),
        (K.LONE_SURROGATE, "\ude00"),
    ]


def test_error_object() -> None:
    with pytest.raises(UnicodeDecodeError) as info:
        utf7.decode(b"ok +ADw-")
    err = info.value
    assert isinstance(err, Utf7Error) and isinstance(err, ValueError)
    assert (err.encoding, err.object, err.start, err.end) == ("utf-7", b"ok +ADw-", 3, 8)
    assert err.kind is K.ENCODED_DIRECT and err.sequence == b"+ADw-"
    assert "'<'" in err.reason and "RFC 2152" in err.reason
    assert str(err).startswith("invalid UTF-7 at byte 3 (+ADw-): ")
    record = err.as_dict()
    assert json.loads(json.dumps(record)) == record
    assert record["kind"] == "encoded-direct" and record["read"] == "<"
    assert all(k.description for k in K)


@pytest.mark.parametrize("function", [utf7.decode, utf7.inspect, utf7.find_errors, utf7.is_valid])
def test_arguments(function: object) -> None:
    with pytest.raises(TypeError, match="bytes-like object, not str"):
        function("+AKM-")  # type: ignore[operator]
    given = b"x+AKM-1"
    for same in (bytearray(given), memoryview(given)):
        assert repr(function(same)) == repr(function(given))  # type: ignore[operator]


def test_public_names() -> None:
    assert sanitizer.utf7 is utf7
    assert sanitizer.Utf7Error is Utf7Error and sanitizer.Utf7ErrorKind is K


# -- differential against CPython ----------------------------------------------------------

# Base64 characters chosen for their bits (A=0, /=63, g=32, w=48; "2D" and "3g" start
# high and low surrogates), what ends a run ('+' continues one, '-' is absorbed, '.' is
# kept) and a non-ASCII byte: 11 bytes, 16,105 inputs of length <= 4, 161,051 of length 5.
BOUNDARY = b"+-./A2D3gw\x80"


def inputs_of_length(n: int) -> list[bytes]:
    return [bytes(chars) for chars in itertools.product(BOUNDARY, repeat=n)]


def test_every_input_up_to_four_bytes_equals_cpython() -> None:
    inputs = [data for n in range(5) for data in inputs_of_length(n)]
    assert len(inputs) == len(set(inputs)) == 16_105
    for data in inputs:
        check_against_cpython(data)


@pytest.mark.slow
def test_every_five_byte_input_equals_cpython() -> None:
    inputs = inputs_of_length(5)
    assert len(inputs) == 161_051
    for data in inputs:
        check_against_cpython(data)


@given(st.binary(max_size=64))
def test_arbitrary_bytes_equal_cpython(data: bytes) -> None:
    check_against_cpython(data)


utf7_like = st.lists(
    st.sampled_from(
        [b"+", b"-", b"+-", b"A", b"/", b"g", b"2D", b"3g", b"AGE", b"ADw", b".", b"x"]
    ),
    max_size=24,
).map(b"".join)


@given(utf7_like)
def test_utf7_like_bytes_equal_cpython(data: bytes) -> None:
    check_against_cpython(data)


@given(st.text())
@example("a+b-c~\\\x00\U0001f600")
def test_round_trip_through_cpythons_encoder(text: str) -> None:
    encoded = text.encode("utf-7", "surrogatepass")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        assert not utf7.is_valid(encoded)
        return
    assert utf7.decode(encoded) == text


@given(
    st.text(
        alphabet=st.characters(exclude_categories=["Cs"]).filter(lambda c: c not in DIRECT),
        min_size=1,
    )
)
def test_round_trip_through_our_encoder(text: str) -> None:
    data = shifted(text)
    assert utf7.decode(data) == text == data.decode("utf-7")


# -- the fuzz target and its seeds ---------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
SEEDS = sorted((ROOT / "corpus" / "utf7").glob("*.bin"))


def load_fuzz_target() -> ModuleType:
    """A private copy of the utf7 target's oracle (a test may patch its globals)."""
    oracle = ROOT / "sanitizer" / "_fuzzing" / "utf7_oracle.py"
    spec = importlib.util.spec_from_file_location("utf7_oracle_under_test", oracle)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_seeds_cover_every_kind_and_rfc_example() -> None:
    data = [path.read_bytes() for path in SEEDS]
    kinds = {e.kind for d in data for e in utf7.find_errors(d)}
    assert kinds == set(K)
    for rfc in (b"A+ImIDkQ.", b"Hi Mom -+Jjo--!", b"+ZeVnLIqe-", b"Item 3 is +AKM-1."):
        assert rfc in data


def test_fuzz_target_passes_the_seeds_and_flags_a_broken_reading() -> None:
    target = load_fuzz_target()
    assert SEEDS
    for path in SEEDS:
        target.check_utf7(path.read_bytes())
    real: Callable[[bytes], utf7.Utf7Report] = utf7.inspect

    def broken(data: bytes) -> utf7.Utf7Report:  # forgets that '-' ends a run
        report = real(data)
        return dataclasses.replace(report, text=report.text.replace("-", ""))

    target.__dict__["utf7"] = types.SimpleNamespace(**{**vars(utf7), "inspect": broken})
    with pytest.raises(AssertionError, match="lax reading"):
        target.check_utf7(b"Hi Mom -+Jjo--!")


@given(st.one_of(st.binary(max_size=48), utf7_like))
def test_fuzz_target_on_generated_inputs(data: bytes) -> None:
    shared_fuzz_target().check_utf7(data)


@functools.cache
def shared_fuzz_target() -> ModuleType:
    return load_fuzz_target()


# -- the web middleware's refusal of a declared UTF-7 charset ------------------------------


@pytest.mark.parametrize("label", ["utf-7", "UTF-7", '"utf7"', "unicode-1-1-utf-7", "U7"])
def test_web_refusal_names_utf7(label: str) -> None:
    from sanitizer.web import WebPolicy, check_head

    content_type = f"text/plain; charset={label}".encode()
    problem = check_head(WebPolicy(), b"/", b"", [(b"content-type", content_type)])[0]
    assert problem is not None and problem.kind == "charset" and problem.status == 400
    assert "declares UTF-7, which hides ASCII in base64 runs" in problem.detail
    # the response never carries an attack fragment, not even as a fixed example
    assert b"script" not in problem.body() and b"+AD" not in problem.body()
    assert problem.evidence == "charset=utf-7"
    other = check_head(WebPolicy(), b"/", b"", [(b"content-type", b"text/plain; charset=latin1")])
    assert other[0] is not None and "UTF-7" not in other[0].detail


def test_web_refusal_says_what_the_bytes_spelled_escaped_and_bounded() -> None:
    """The detail says what the bytes spelled in UTF-7 (the one echo a problem
    makes), escaped and bounded; the JSON body spells markup as \\u003c..."""
    import json

    from sanitizer.web._problems import wrong_charset

    sample = b"name=+AC8ALgAuAC8-etc+AC8-passwd+AA0ACg-X-Forged: 1"
    problem = wrong_charset("text", "text body", "utf-7", sample)
    assert problem.detail.endswith(
        ": '/../etc/passwd\\r\\n' encoded as +AC8ALgAuAC8-etc+AC8-passwd+AA0ACg-"
    )
    assert json.loads(problem.body())["detail"] == problem.detail
    assert problem.evidence == "charset=utf-7"
    hostile = b"+ADw-" + b"\x1b[2J\n" * 100 + b"+AD4-"
    detail = wrong_charset("text", "text body", "utf-7", hostile).detail
    assert detail.isascii() and detail.isprintable() and len(detail) < 600
    assert b"<" not in wrong_charset("text", "text body", "utf-7", hostile).body()
    assert "encoded as" not in wrong_charset("text", "text body", "utf-7", b"plain").detail


def test_web_refusal_of_an_ext_value_says_what_it_spelled() -> None:
    """RFC 8187 ext-value ``filename*=utf-7''...``: the bytes are at hand, so the detail
    says what they spell in UTF-7, with no raw markup in the response body."""
    from sanitizer.web import WebPolicy, body_check, check_head

    boundary = b"b7"
    policy = WebPolicy()
    head = [(b"content-type", b"multipart/form-data; boundary=" + boundary)]
    problem, found = check_head(policy, b"/", b"", head)
    assert problem is None
    check = body_check(policy, found)
    data = (
        b'--b7\r\nContent-Disposition: form-data; name="f"; '
        b"filename*=utf-7''%2BADw-script%2BAD4-.txt\r\n\r\nx\r\n--b7--\r\n"
    )
    problem = check.feed(data) or check.close()
    assert problem is not None and problem.kind == "charset"
    assert problem.detail.endswith(": '<script>' encoded as +ADw-script+AD4-")
    assert b"<" not in problem.body() and b">" not in problem.body()
