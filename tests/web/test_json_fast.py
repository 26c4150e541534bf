"""The JSON body check's fast path: jsonscan.c's ``json_strings`` against its
pure-Python twin, and the check built on it against an oracle that walks the body
character by character and judges every string with ``json.loads`` and ``inspect``.

The fast path only says "everything passes"; when something fails the chunk is walked
string by string.  So the oracle here also names the first problem: its kind and where
(the opening quote of the string, or the control between tokens), whatever the chunking,
with the C scan and with the twin.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sanitizer.web._json as json_check
from sanitizer import Policy, inspect, profiles
from sanitizer._identity_cache import IdentityCache
from sanitizer._policy.compiled import compile_policy
from sanitizer.strategies import chunkings
from sanitizer.web import DEFAULT, Problem, WebPolicy
from sanitizer.web._native import speedups  # the web extension: json_strings
from tests.support.settings import examples
from tests.web.sans_io import body_verdict

needs_c = pytest.mark.skipif(speedups is None, reason="no C extension")

BETWEEN = json_check._BETWEEN_TABLE
BETWEEN_SEQ = json_check._BETWEEN_SEQ_TABLE
TEXT_STRINGS = json_check._strings_table(compile_policy(profiles.TEXT).ascii_allowed)


@pytest.fixture(params=["c", "python"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test runs with the C scan (when built) and with the pure-Python twin."""
    if request.param == "python":
        monkeypatch.setattr(json_check, "_json_strings", json_check._json_strings_py)
        monkeypatch.setattr(json_check, "speedups", None)  # no C narrowing either
        monkeypatch.setattr(
            json_check, "_READINGS", IdentityCache(64)
        )  # (built with the C arguments)
    elif speedups is None:
        pytest.skip("no C extension")
    yield request.param


def body(chunks: list[bytes], policy: WebPolicy = DEFAULT) -> Problem | None:
    return body_verdict(b"application/json", chunks, policy)


# -- json_strings: C against the twin --------------------------------------------------------

_alphabet = st.sampled_from(
    ['"', '"', "\\", "u", "0", "d", "8", "a", " ", ",", ":", "[", "{", "\n", "\x00", "\x1e",
     "\x7f", "\t", "é", "日", "\u202e", "😀", "\u0915\u093f", "\\ud83d", "\\uDE00", "\\u00e9",
     "\\n", "\\\"", "\\x", "\\u12"]
)  # fmt: skip
_texts = st.lists(_alphabet, max_size=40).map("".join)
_tables = st.binary(min_size=128, max_size=128).map(
    lambda b: bytes(x & 1 for x in b[:0x5C]) + b"\x01" + bytes(x & 1 for x in b[0x5D:])
)


@needs_c
@settings(max_examples=examples(500))
@given(
    text=_texts,
    data=st.data(),
    tables=st.sampled_from([(BETWEEN, TEXT_STRINGS), (BETWEEN_SEQ, TEXT_STRINGS)])
    | st.tuples(_tables, _tables),
)
def test_json_strings_c_is_its_twin(
    text: str, data: st.DataObject, tables: tuple[bytes, bytes]
) -> None:
    assert speedups is not None
    start = data.draw(st.integers(0, len(text)))
    between, strings = tables
    expected = json_check._json_strings_py(text, start, between, strings)
    assert speedups.json_strings(text, start, between, strings) == expected, (text, start)


def test_json_strings_twin_examples() -> None:
    def found(text: str, between: bytes = BETWEEN) -> tuple[int, str, list[int]] | None:
        twin = json_check._json_strings_py(text, 0, between, TEXT_STRINGS)
        if speedups is not None:
            assert speedups.json_strings(text, 0, between, TEXT_STRINGS) == twin
        return twin

    assert found('{"a": "b\\"c", "é": 1}') == (-1, 'b"caé', [0, 4])
    assert found('["ok", "x') == (7, "", [])  # the quote of the string left open
    assert found('["\\u00e9", "\\n", "ok", "\\/"]') == (-1, "éa\na/", [0, 2, 4])
    assert found('["a\\') == (1, "", [])  # cut after a backslash: still open
    assert found('["\\ud83d\\ude00"]') == (-1, "😀", [0])  # a pair is one character
    assert found('["\\ud83d"]') is None  # a lone surrogate: walked string by string
    assert found('["\\ude00\\ud83d"]') is None
    assert found('["\\x"]') is None  # an invalid escape
    assert found("[1,\x0b2]") is None  # VT between tokens
    assert found('["\x01"]') == (-1, "\x01", [0])  # in a string: judged
    assert found("\x1e[1]", BETWEEN_SEQ) == (-1, "", [])  # RS: RFC 7464
    assert found("\x1e[1]") is None


@needs_c
def test_json_strings_c_refuses_bad_arguments() -> None:
    assert speedups is not None
    with pytest.raises(TypeError):
        speedups.json_strings(b"[]", 0, BETWEEN, TEXT_STRINGS)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        speedups.json_strings("[]", 0, BETWEEN[:10], TEXT_STRINGS)
    with pytest.raises(ValueError):
        speedups.json_strings("[]", 0, BETWEEN, bytes(128))  # '\\' must be flagged
    with pytest.raises(ValueError):
        speedups.json_strings("[]", 3, BETWEEN, TEXT_STRINGS)


# -- the body check against a character-by-character oracle --------------------------------

_CONTROLS = set(range(0x09)) | {0x0B, 0x0C} | set(range(0x0E, 0x20)) | {0x7F}


def oracle(
    raw: bytes, policy: Policy, sequence: bool = False
) -> tuple[str, str, int | None] | None:
    """(kind, where, offset) of the first problem of a valid-UTF-8 body whose strings
    have valid escapes, read one character at a time; None if it passes."""
    text = raw.decode("utf-8")
    bad = _CONTROLS - ({0x1E} if sequence else set())
    i = 0
    while i < len(text):
        c = text[i]
        if c != '"':
            if ord(c) in bad:
                return ("control", "JSON body", i)
            i += 1
            continue
        j = i + 1
        while j < len(text) and text[j] != '"':
            j += 2 if text[j] == "\\" else 1
        value = json.loads('"' + text[i + 1 : j] + '"', strict=False)
        where = f"JSON string at character {i}"
        try:
            value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
        except UnicodeDecodeError:
            return ("lone-surrogate-escape", where, None)
        report = inspect(value, policy)
        if not report.ok:
            return (report.rejections[0].category.value, where, None)
        i = j + 1
    return None


_WORDS = [
    "plain", "日本語", "हिन्दी", "naïve", "a\u202eb", "\u202e", "x\u0000y", "tab\tbed",
    "line\nbreak", "👩\u200d💻", "e\u0301", "\ufeffbom", "a" + "\u0301" * 40, "\ud83d\ude00",
    "\ud800", "q\"uo\\te",
]  # fmt: skip
_values = st.recursive(
    st.none() | st.integers() | st.sampled_from(_WORDS) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.sampled_from(_WORDS) | st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=20,
)


def _with_controls(raw: bytes, data: st.DataObject) -> bytes:
    """Maybe a control between tokens (after a ',' or ':', outside any string)."""
    if not data.draw(st.booleans()):
        return raw
    places = [k + 1 for k, b in enumerate(raw) if b in b",:" and raw[:k].count(b'"') % 2 == 0]
    if not places:
        return raw
    at = data.draw(st.sampled_from(places))
    control = data.draw(st.sampled_from([b"\x0b", b"\x00", b"\x1e", b"\x7f"]))
    return raw[:at] + control + raw[at:]


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=_values, ascii_only=st.booleans(), data=st.data())
def test_first_problem_is_the_oracles(
    backend: str, value: object, ascii_only: bool, data: st.DataObject
) -> None:
    raw = _with_controls(
        json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass"), data
    )
    if not ascii_only:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:  # a raw lone surrogate: the UTF-8 check refuses it
            raw = json.dumps(value).encode()
    expected = oracle(raw, profiles.TEXT)
    problem = body(data.draw(chunkings(raw)))
    found = None if problem is None else (problem.kind, problem.where, problem.offset)
    assert found == expected, raw


def test_narrowing_judges_only_what_c_flags(backend: str) -> None:
    """Many strings the C scan flags (Devanagari) but the engine passes, and one refused
    string among them: the check finds that one, at its place, in one chunk or many."""
    words = ["हिन्दी", "plain", "日本語"] * 300
    for bad_at in (0, 1, 450, len(words) - 1):
        doc = [*words[:bad_at], "ok \u202e evil", *words[bad_at:]]
        raw = json.dumps(doc, ensure_ascii=False).encode()
        expected = oracle(raw, profiles.TEXT)
        assert expected is not None and expected[0] == "bidi-control"
        for size in (len(raw), 4096, 7):
            problem = body([raw[i : i + size] for i in range(0, len(raw), size)])
            assert problem is not None
            assert (problem.kind, problem.where) == expected[:2], (bad_at, size)
        raw = json.dumps(words).encode()  # escaped: the same verdict
        assert body([raw]) is None
    assert body([json.dumps(words, ensure_ascii=False).encode()]) is None


def test_json_sequence_allows_rs_between_records_only(backend: str) -> None:
    raw = b'\x1e{"a": "\xe6\x97\xa5"}\n\x1e{"b": "\\u202e"}\n'
    problem = body_verdict(b"application/json-seq", [raw])
    assert problem is not None and problem.kind == "bidi-control"
    assert body_verdict(b"application/json-seq", [raw.replace(b"\\u202e", b"ok")]) is None
    problem = body([raw.replace(b"\\u202e", b"ok")])
    assert problem is not None and problem.kind == "control" and problem.offset == 0


def test_policies_that_judge_whole_values(backend: str) -> None:
    """A JSON policy with a length limit judges each string whole (no bulk check)."""
    policy = WebPolicy(json=profiles.TEXT.replace(max_code_points=5))
    raw = json.dumps(["short", "日本語", "x" * 6]).encode()
    problem = body([raw], policy)
    assert problem is not None and problem.kind == "too-long"
    assert problem.where == f"JSON string at character {raw.index(b'xxx') - 1}"
    assert body([json.dumps(["short", "日本語"]).encode()], policy) is None


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    raw=st.binary(max_size=60)
    | st.lists(_alphabet, max_size=40).map(lambda s: "".join(s).encode("utf-8", "surrogatepass")),
    data=st.data(),
)
def test_c_and_twin_agree_on_any_bytes(
    raw: bytes, data: st.DataObject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the bytes (invalid escapes, open strings, bad UTF-8), the C path and the
    twin give the same problem."""
    chunks = data.draw(chunkings(raw))
    with_c = body(chunks)
    with monkeypatch.context() as m:
        m.setattr(json_check, "_json_strings", json_check._json_strings_py)
        m.setattr(json_check, "speedups", None)
        m.setattr(json_check, "_READINGS", IdentityCache(64))
        assert body(chunks) == with_c, raw


@pytest.mark.parametrize(
    "escape", ["\\ud83d\\ude00", "\\n", "\\u00e9", '\\"', "\\\\", "\\x", "\\u12zz"]
)
def test_one_long_string_cut_anywhere(backend: str, escape: str) -> None:
    """A string that spans chunks is read by the stdlib's string scanner, and by the regex
    walk where an escape is cut or invalid: the verdict is the oracle's at every cut."""
    raw = ('{"k": ["ok", "' + escape * 8 + "tail" + escape * 3 + '"]}').encode()
    bad = raw.replace(b"tail", b"\\u202e")
    # (With an invalid escape the body is not JSON: the app's parser refuses it, and a
    # string the chunks cut has its valid escapes resolved, a whole one its raw text
    # judged; so only the verdict on the clean body is the same at every cut.)
    valid = "x" not in escape and "zz" not in escape
    for k in range(1, len(raw)):
        assert body([raw[:k], raw[k:]]) is None, k
        if valid:
            problem = body([bad[:k], bad[k:]])
            assert problem is not None and problem.kind == "bidi-control", (k, problem)
            assert problem.where == oracle(bad, profiles.TEXT)[1]  # type: ignore[index]


_escapes = st.lists(
    st.sampled_from(
        ["a", "d", "8", "0", "c", "\\", "u", "\\u", "\\ud", "\\ud800", "\\udc00", "\\uD83D",
         "\\uDE00", "\\x", "\\~", "\\n", "\\\\", "é", "\u202e", "\\u202e", "\\u0003", "\x03"]
    ),
    max_size=12,
).map("".join)  # fmt: skip


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=_escapes, data=st.data())
def test_invalid_escapes_get_one_verdict_whatever_the_chunking(
    backend: str, content: str, data: st.DataObject
) -> None:
    """A string with an invalid escape is not JSON, but its characters are judged, and
    the same way whole or streamed (found by fuzz_web: ``"k\\ud\\udc00x"`` passed whole
    and was refused as a lone surrogate when split)."""
    raw = b'{"k": "' + content.encode("utf-8", "surrogatepass") + b'"}'
    whole = body([raw])
    split = body(data.draw(chunkings(raw)))
    assert (whole is None) == (split is None), (raw, whole, split)
    if whole is not None and split is not None:
        assert whole.kind == split.kind, (raw, whole, split)


@pytest.mark.parametrize("size", [1, 7, 4096])
@pytest.mark.parametrize(
    ("tail", "kind"),
    [
        ("\\ud83d\\ude00", None),  # a pair, its halves perhaps in two looks
        ("\\ud800x", "lone-surrogate-escape"),
        ("\\u202e", "bidi-control"),
        ("\u202e", "bidi-control"),
        ("plain", None),
    ],
)
def test_open_string_read_in_pieces_is_judged_whole(
    backend: str, size: int, tail: str, kind: str | None
) -> None:
    """A long string streamed in many chunks: its plain pieces are taken as they are (no
    scan), and what follows them -- an escape far into the string, a pair cut between two
    chunks -- is judged with the rest of the value, as the body whole is."""
    raw = b'["' + "é".encode() * 20_000 + tail.encode() + b'", "b"]'
    chunks = [raw[i : i + size] for i in range(0, len(raw), size)]
    for pieces in (chunks, [raw]):
        problem = body(pieces)
        assert (problem and problem.kind) == kind, (size, tail, problem)
