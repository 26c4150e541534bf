"""Many form fields judged in runs, and a refusal named from the first findings: the same
answers as field by field and as ``inspect``, at a cost that does not grow per field or
per finding.

- ``pairs_problem`` on a form of many fields (names in one run, values in another, a
  failing run halved down to its first failing field) gives the problem and the field
  number ``fields_problem`` (each name and value judged alone) gives: on forms made of
  every character class's representative at the start and the end of values and names,
  and on random forms, under several policies;
- ``first_rejection`` is ``inspect(...).rejections[0]`` whenever that is listed, and
  names a rejection that comes after more than ``max_findings`` findings that are not
  (which ``rejections[0]`` does not hold): a form field, a JSON string and a text body
  of them are refused, not a crash;
- counted work (Python calls, no clock): a form body of 2N fields costs the Python calls
  of N, for every kind of text (tests/policy/text_classes.py), passed or refused at its
  last field, and a JSON array of 2N words those of N; a refused text body, form field
  or JSON string of 2N bytes of a hostile kind costs those of N (no object per finding
  past the first few).
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Callable
from urllib.parse import quote_from_bytes

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer import Policy, accepts, inspect, profiles
from sanitizer._native import speedups
from sanitizer._policy import Action, _classtable
from sanitizer.web import DEFAULT, WebPolicy, body_check, check_head
from sanitizer.web import _problems as problems
from sanitizer.web._compiled_web import compile_web_policy
from sanitizer.web._problems import first_rejection
from sanitizer.web._value_checks import _RUNS_FROM, fields_problem, pairs_problem
from tests.policy.text_classes import HOSTILE, LEGITIMATE, sample
from tests.support.counted_calls import python_calls
from tests.web.sans_io import body_verdict

FORM = b"application/x-www-form-urlencoded"
# The counted work is that of the C backend (the pure-Python one scans in Python).
needs_c = pytest.mark.skipif(speedups is None, reason="needs the C extension")
POLICIES = [
    DEFAULT,
    DEFAULT.replace(names=profiles.TEXT),  # one policy for names and values
    DEFAULT.replace(form=profiles.SINGLE_LINE, names=None),
    DEFAULT.replace(form=profiles.TEXT.replace(max_combining=2, joiner_contexts=True)),
    DEFAULT.replace(form=profiles.PROMPT),
    DEFAULT.replace(names=profiles.IDENTIFIER, form=profiles.TEXT.replace(allow_sequences=False)),
]


def _representatives() -> list[str]:
    """The first code point of each character class of the policies' tables (the
    sequence rules' neighbour tables are by class), and U+0338, which composes with '='."""
    table = _classtable.class_table()
    stage1 = array("H", table.stage1)
    first: dict[int, int] = {}
    for block in range(len(stage1)):
        row = table.stage2[stage1[block] << 8 : (stage1[block] + 1) << 8]
        for low, cls in enumerate(row):
            first.setdefault(cls, (block << 8) | low)
    return [chr(cp) for cp in sorted({*first.values(), 0x0338, 0x094D, 0x200D, 0x200C})]


def _enc(text: str) -> bytes:
    return quote_from_bytes(text.encode("utf-8", "surrogatepass")).encode()


def _both(data: bytes, policy: WebPolicy = DEFAULT) -> None:
    """``pairs_problem`` (in runs when the form has many fields) and ``fields_problem``
    agree on ``data``, as a form body and as a query string."""
    compiled = compile_web_policy(policy)
    for values, what, part in ((compiled.form, "form field", "form"),
                               (compiled.query, "query parameter", "query")):  # fmt: skip
        args = (compiled, values, what, part, 3)
        assert pairs_problem(data, *args) == fields_problem(data, *args), data


# The policies a run is judged with (none judges whole values): a run passes only if
# each value passes alone.
RUN_POLICIES = [
    profiles.TEXT,
    profiles.SINGLE_LINE,
    profiles.PROMPT,
    profiles.TEXT.replace(max_combining=1, joiner_contexts=True),
    profiles.TEXT.replace(allow_sequences=False, normalization="NFKC"),
]


@pytest.mark.parametrize("policy", RUN_POLICIES, ids=range(len(RUN_POLICIES)))
def test_a_separator_before_or_after_a_value_changes_no_verdict(policy: Policy) -> None:
    """What the runs rest on, exhaustive over the character classes: a value that passes
    after a '&' passes alone and after a '=' (a form's '=' is a '&' in the first run),
    and one that passes before a '&' passes alone."""
    for c in _representatives():
        for value in (c, c + "x", "x" + c, "\u0915\u094d" + c, c + c, c + "\u0301"):
            raw = value.encode("utf-8", "surrogatepass")
            if accepts(b"&" + raw, policy):
                assert accepts(raw, policy), (value, policy.name)
                assert accepts(b"=" + raw, policy), (value, policy.name)
            if accepts(raw + b"&", policy):
                assert accepts(raw, policy), (value, policy.name)


@pytest.mark.parametrize("policy", POLICIES[:3], ids=range(3))
def test_every_class_at_the_edges_of_names_and_values(policy: WebPolicy) -> None:
    """Exhaustive over the character classes: each at the start and the end of a value
    and of a name, after '=' and '&', doubled, and after a virama, in a form of more than
    ``_RUNS_FROM`` fields: the runs' answer is the field-by-field one."""
    clean = [b"a=b"] * _RUNS_FROM
    for c in _representatives():
        e = _enc(c)
        fields = [
            b"v=" + e,
            b"v=" + e + b"x",
            b"v=x" + e,
            b"v=" + _enc("\u0915\u094d" + c),
            e + b"=v",
            b"n" + e + b"=" + e + e,
            e,
        ]
        _both(b"&".join([*clean, *fields]), policy)
        _both(b"&".join([*clean, *fields[::-1]]), policy)


_TOKENS = [
    *(b"a", b"=", b"&", b"&&", b"+", b"%26", b"%3D", b"%2", b"%zz", b"%0A", b"%0D%0A"),
    *(_enc(c) for c in "\u0301\u0338\u094d\u200d\u200c\u200b\u00ad\u202e\u2066\u2069"),
    *(_enc(c) for c in "\ufe0f\U000e0041\U000e007f\U0001f3f4\u0915\u0e01\u0627\u2062"),
    *(_enc(c) for c in "\x00\x01\x7f\u0085\ufdd0\ue000\u3000\u2028"),
    b"%C0%AF", b"%ED%A0%80", b"%E2%80", b"\xc3\xa9", b"%F0%9F%87%AB%F0%9F%87%B7",
]  # fmt: skip
_FORMS = st.lists(
    st.lists(st.sampled_from(_TOKENS), max_size=6).map(b"".join), min_size=_RUNS_FROM, max_size=24
).map(b"&".join)


@settings(max_examples=20, deadline=None)
@given(data=_FORMS, policy=st.sampled_from(POLICIES))
def test_runs_give_the_field_by_field_answer(data: bytes, policy: WebPolicy) -> None:
    _both(data, policy)


@settings(max_examples=25, deadline=None)
@given(data=_FORMS)
def test_form_body_in_runs_is_refused_as_field_by_field(data: bytes) -> None:
    """Through the body check: one chunk or many, the problem of the field-by-field check."""
    compiled = compile_web_policy(DEFAULT)
    expected = fields_problem(data, compiled, compiled.form, "form field", "form")[0]
    whole = body_verdict(FORM, [data])
    if not data.isascii():  # raw bytes >= 0x80: ambiguous once the fields pass
        assert expected is not None or (whole is not None and whole.kind.startswith("ambiguous"))
        return
    assert whole == expected
    step = max(1, len(data) // 5)
    assert body_verdict(FORM, [data[i : i + step] for i in range(0, len(data), step)]) == whole


_JSON_STRINGS = st.lists(
    st.lists(
        st.sampled_from(["a", "\u0301", "\u00ad", "\u200d", "\u202e", "\\ud800", "\\u00e9", "x"]),
        max_size=4,
    ).map("".join),
    min_size=1,
    max_size=80,
)


@settings(max_examples=40, deadline=None)
@given(strings=_JSON_STRINGS, between=st.sampled_from([", ", ",\x01", ",\u00e9"]), at=st.integers())
def test_json_strings_in_batches_give_the_string_by_string_answer(
    strings: list[str], between: str, at: int
) -> None:
    """A JSON region judged in batches of strings (``_region_slowly``) has the problem
    of judging each string in turn, and of what stands between them, as it comes."""
    from sanitizer.web._json import _STRING, JSONBody, _unescape_lenient

    seps = [", "] * len(strings)
    seps[at % len(strings)] = between
    region = "[" + "".join(f'{sep}"{v}"' for sep, v in zip(seps, strings, strict=True))[1:] + "]"
    check = JSONBody(compile_web_policy(DEFAULT).json, None)  # type: ignore[arg-type]
    expected, pos = None, 0
    for m in _STRING.finditer(region):  # the reference: string by string
        expected = check._between(region, pos, m.start(), 7)
        if expected is None:
            content = m.group(1)
            escaped = "\\" in content
            value = _unescape_lenient(content) if escaped else content
            expected = check._string_problem(value, 7 + m.start(), escaped)
        if expected is not None:
            break
        pos = m.end()
    else:
        expected = check._between(region, pos, len(region), 7)
    assert check._region_slowly(region, 7) == expected


# -- the first rejection --------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    text=st.lists(st.sampled_from([*"ab \u00ad\u200b\u200d\u0301\u202e\x01\U000e0041\ufdd0"]))
    .map("".join)
    .map(str.encode),
    policy=st.sampled_from([profiles.TEXT, profiles.PROMPT, profiles.SINGLE_LINE]),
)
def test_first_rejection_is_the_first_listed(text: bytes, policy: object) -> None:
    report = inspect(text, policy)  # type: ignore[arg-type]
    first = first_rejection(text, policy)  # type: ignore[arg-type]
    assert (first is None) == report.ok
    if report.rejections:
        assert first == report.rejections[0]


@pytest.mark.parametrize("kind", [*LEGITIMATE, *HOSTILE])
def test_first_rejection_of_a_long_text_is_inspects(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the first prefix (``_PREFIX``, made 64 here), judged by prefixes cut before
    an ASCII character: the rejection ``inspect`` lists first on the whole, bytes or text."""
    monkeypatch.setattr(problems, "_PREFIX", 64)
    base = sample(kind, 2048)
    for policy in (profiles.TEXT, profiles.SINGLE_LINE.replace(max_combining=3)):
        every = policy.replace(max_findings=None)
        for at in (90, 333, 1500):
            for bad in (b"\xe2\x80\xae", b"\xe2\x80"):
                data = base[:at] + bad + base[at:]
                listed = inspect(data, every).rejections
                assert first_rejection(data, policy) == (listed[0] if listed else None)
        text = base.decode("utf-8", "replace")
        listed = inspect(text + "\x01", every).rejections
        assert first_rejection(text + "\x01", policy) == (listed[0] if listed else None)


# 1,001 soft hyphens (each a finding TEXT strips), then a control (refused).
LATE = "a\u00ad" * 1001 + "\x01"


def test_a_rejection_after_max_findings_others_is_named() -> None:
    assert not inspect(LATE.encode(), profiles.TEXT).rejections  # past the listed ones
    first = first_rejection(LATE.encode(), profiles.TEXT)
    assert first is not None and first.action is Action.REJECT
    assert first.start == len(LATE.encode()) - 1
    many = b"&".join([b"a=b"] * _RUNS_FROM)
    for content_type, data in [
        (FORM, b"f=" + _enc(LATE)),
        (FORM, many + b"&f=" + _enc(LATE)),
        (b"application/json", b'["' + LATE.encode() + b'"]'),
        (b"text/plain", LATE.encode()),
    ]:
        problem = body_verdict(content_type, [data])
        assert problem is not None and problem.kind == "control", (content_type, problem)
    problem, _ = check_head(DEFAULT, b"/", b"q=" + _enc(LATE), [])
    assert problem is not None and problem.kind == "control"


# -- counted work ---------------------------------------------------------------------------


def _python_calls(call: Callable[[], object]) -> int:
    """Functions called from Python during ``call()``, Python's and builtins alike."""
    return python_calls(call, builtins=True, quiet=False)


def _as_form(data: bytes) -> bytes:
    """A word a field, percent-encoded (as the cost matrix's form column sends it)."""
    return b"&".join(b"f=" + quote_from_bytes(w).encode() for w in data.split(b" ") if w)


def _fed(content_type: bytes, body: bytes) -> Callable[[], object]:
    def run() -> object:
        _, head = check_head(DEFAULT, b"/", b"", [(b"content-type", content_type)])
        check = body_check(DEFAULT, head)
        return check.feed(body) or check.close()

    return run


@needs_c
@pytest.mark.parametrize("kind", [*LEGITIMATE, *HOSTILE])
@pytest.mark.parametrize("refused", [False, True], ids=["as-is", "refused-last"])
def test_form_fields_cost_no_python_call_each(kind: str, refused: bool) -> None:
    """A form of 2N short fields costs the Python calls of N, give or take the halving
    of a run that fails (a few calls per doubling): not a policy call a field."""
    tail = b"&f=%E2%80%AE" if refused else b""  # a bidi override in the last field
    small = _as_form(sample(kind, 8 * 1024)) + tail
    large = _as_form(sample(kind, 16 * 1024)) + tail
    _python_calls(_fed(FORM, small[:2048]))  # caches
    one, two = _python_calls(_fed(FORM, small)), _python_calls(_fed(FORM, large))
    assert two <= one + 40, (one, two)


@needs_c
@pytest.mark.parametrize("kind", LEGITIMATE)
def test_json_strings_cost_no_python_call_each(kind: str) -> None:
    """A JSON array of 2N words costs the Python calls of N: the strings the C scan
    flags are judged together once they are many, not each looked up in Python."""

    def body(size: int) -> bytes:
        words = sample(kind, size).decode().split(" ")
        return json.dumps(words, ensure_ascii=False).encode()

    _python_calls(_fed(b"application/json", body(2048)))  # caches
    one = _python_calls(_fed(b"application/json", body(8 * 1024)))
    two = _python_calls(_fed(b"application/json", body(16 * 1024)))
    assert two <= one + 20, (one, two)


@needs_c
@pytest.mark.parametrize("kind", HOSTILE)
@pytest.mark.parametrize("content_type", [b"text/plain", FORM, b"application/json"])
def test_a_refusal_costs_no_python_call_per_finding(kind: str, content_type: bytes) -> None:
    """A refused body of 2N bytes of a hostile kind (a text body, one form field, one
    JSON string) costs the Python calls of N: the first findings are listed, not 1,000."""

    def body(size: int) -> bytes:
        text = sample(kind, size)
        if content_type == FORM:
            return b"f=" + quote_from_bytes(text).encode()
        if content_type == b"application/json":
            return b'["' + text.replace(b"\\", b"").replace(b'"', b"") + b'"]'
        return text

    _python_calls(_fed(content_type, body(2048)))  # caches
    one = _python_calls(_fed(content_type, body(32 * 1024)))
    two = _python_calls(_fed(content_type, body(64 * 1024)))
    assert two <= one + 20, (one, two)
    assert one <= 2000, one  # (1,000 findings listed cost over 4,000)
