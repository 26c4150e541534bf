"""Policies: every category at the right offset under every action, for bytes and str.

Offsets are byte offsets into bytes input and code-point indices into str input; the
prefix "aé" (one 1-byte and one 2-byte character) makes the two differ.
"""

from __future__ import annotations

import dataclasses

import pytest

import sanitizer
from sanitizer import Action, Category, Finding, Policy, PolicyError, inspect, profiles, sanitize
from sanitizer._categories import CHARACTER_CATEGORIES

PREFIX = "aé"
SUFFIX = "b"

# One representative per character category (the first code point is the sample used).
SAMPLES: dict[Category, str] = {
    Category.NUL: "\x00",
    Category.LINE_BREAK: "\u2028",
    Category.CONTROL: "\x1b",
    Category.PATH_SEPARATOR: "/",
    Category.BIDI_CONTROL: "\u202e",
    Category.BIDI_MARK: "\u200f",
    Category.TAG: "\U000e0041",
    Category.VARIATION_SELECTOR: "\ufe0f",
    Category.BOM: "\ufeff",
    Category.JOINER: "\u200d",
    Category.NONCHARACTER: "\ufdd0",
    Category.PRIVATE_USE: "\ue000",
    Category.SURROGATE: "\ud800",
    Category.INVISIBLE: "\u200b",
    Category.FORMAT: "\u0600",
    Category.UNASSIGNED: "\u0378",
    Category.WHITESPACE: "\u3000",
}
ACTIONS = [Action.REJECT, Action.STRIP, Action.REPLACE, Action.ALLOW, Action.IGNORE]


def test_samples_cover_every_character_category() -> None:
    assert set(SAMPLES) == set(CHARACTER_CATEGORIES)
    for cat, ch in SAMPLES.items():
        assert sanitizer._categories.category_of(ord(ch)) is cat


def _expected_text(ch: str, action: Action) -> str | None:
    return {
        Action.REJECT: None,
        Action.STRIP: PREFIX + SUFFIX,
        Action.REPLACE: PREFIX + "\ufffd" + SUFFIX,
        Action.ALLOW: PREFIX + ch + SUFFIX,
        Action.IGNORE: PREFIX + ch + SUFFIX,
    }[action]


# A surrogate cannot be in well-formed UTF-8, so SURROGATE has no bytes case here (see
# test_encoded_surrogate for ED A0 80).
CASES = [
    pytest.param(category, action, kind, id=f"{category.value}-{action.value}-{kind}")
    for category in SAMPLES
    for action in ACTIONS
    for kind in ("str", "bytes")
    if not (category is Category.SURROGATE and kind == "bytes")
]


@pytest.mark.parametrize(("category", "action", "kind"), CASES)
def test_character_category(category: Category, action: Action, kind: str) -> None:
    ch = SAMPLES[category]
    policy = Policy(actions={category: action})
    text = PREFIX + ch + SUFFIX
    data: str | bytes = text if kind == "str" else text.encode("utf-8")
    report = inspect(data, policy)
    assert report.ok is (action is not Action.REJECT)
    assert report.text == _expected_text(ch, action)
    if action is Action.IGNORE:
        assert report.findings == ()
        return
    (finding,) = report.findings
    start = len(PREFIX) if kind == "str" else len(PREFIX.encode())
    width = 1 if kind == "str" else len(ch.encode())
    assert finding == Finding(category, start, start + width, action, codepoint=ord(ch))
    assert str(finding).startswith(f"{category.value} at {start}..{start + width}")


def test_encoded_surrogate() -> None:
    report = inspect(b"a\xed\xa0\x80b", Policy())
    assert not report.ok
    assert [(f.category, f.start, f.end) for f in report.findings] == [
        (Category.ILL_FORMED, 1, 2),
        (Category.ILL_FORMED, 2, 3),
        (Category.ILL_FORMED, 3, 4),
    ]


@pytest.mark.parametrize("action", [Action.REJECT, Action.REPLACE], ids=lambda a: a.value)
def test_ill_formed(action: Action) -> None:
    data = b"a\xc0\xaf\xe2\x80\x8bz\xf0\x9f"  # overlong '/', ZWSP, truncated 4-byte form
    policy = Policy(actions={Category.ILL_FORMED: action, Category.INVISIBLE: Action.ALLOW})
    report = inspect(data, policy)
    errors = sanitizer.find_errors(data)
    ill = [f for f in report.findings if f.category is Category.ILL_FORMED]
    assert [(f.start, f.end) for f in ill] == [(e.start, e.end) for e in errors]
    assert [f.raw for f in ill] == [b"\xc0", b"\xaf", b"\xf0\x9f"]
    assert all(isinstance(f.error, sanitizer.Utf8Error) for f in ill)
    (zwsp,) = [f for f in report.findings if f.category is Category.INVISIBLE]
    assert (zwsp.start, zwsp.end) == (3, 6)  # byte offsets despite the errors before it
    if action is Action.REJECT:
        assert report.text is None
    else:
        assert report.text == "a\ufffd\ufffd\u200bz\ufffd"


def test_ill_formed_cannot_be_stripped_or_allowed() -> None:
    with pytest.raises(ValueError, match="ILL_FORMED cannot be STRIP"):
        Policy(actions={Category.ILL_FORMED: Action.STRIP})
    with pytest.raises(ValueError, match="TOO_LONG cannot be ALLOW"):
        Policy(actions={Category.TOO_LONG: Action.ALLOW})


def test_offsets_after_errors_and_multibyte() -> None:
    data = b"\xff\xe2\x80\x8bx\xc0\xafy\xe2\x80\xae\xf0\x9f\x98\x80\xe2\x80\x8b"
    report = inspect(data, profiles.TEXT.with_actions(ILL_FORMED=Action.REPLACE))
    got = [(f.category, f.start, f.end) for f in report.findings]
    assert got == [
        (Category.ILL_FORMED, 0, 1),
        (Category.INVISIBLE, 1, 4),
        (Category.ILL_FORMED, 5, 6),
        (Category.ILL_FORMED, 6, 7),
        (Category.BIDI_CONTROL, 8, 11),
        (Category.INVISIBLE, 15, 18),
    ]
    for f in report.findings:
        if f.codepoint is not None:
            assert data[f.start : f.end].decode() == chr(f.codepoint)


@pytest.mark.parametrize("kind", ["str", "bytes"])
@pytest.mark.parametrize(
    "action", [Action.REJECT, Action.STRIP, Action.REPLACE, Action.ALLOW], ids=lambda a: a.value
)
def test_combining_run(action: Action, kind: str) -> None:
    text = "xé" + "a" + "\u0301" * 5 + "z"
    policy = Policy(actions={Category.COMBINING_RUN: action}, max_combining=3)
    data: str | bytes = text if kind == "str" else text.encode()
    report = inspect(data, policy)
    (f,) = report.findings
    assert f.category is Category.COMBINING_RUN and f.action is action
    start = 3 if kind == "str" else 4
    assert (f.start, f.end) == (start, start + (5 if kind == "str" else 10))
    assert (
        report.text
        == {
            Action.REJECT: None,
            Action.STRIP: "xéa\u0301\u0301\u0301z",
            Action.REPLACE: "xéa\u0301\u0301\u0301\ufffdz",
            Action.ALLOW: text,
        }[action]
    )


def test_combining_run_under_limit_passes() -> None:
    assert inspect("a\u0301\u0302\u0303", Policy(max_combining=3)).findings == ()


def test_combining_run_made_by_stripping_is_refused() -> None:
    policy = Policy(max_combining=3, actions={Category.INVISIBLE: Action.STRIP})
    report = inspect("a\u0301\u0301\u200b\u0301\u0301", policy)
    assert not report.ok
    assert Category.COMBINING_RUN in {f.category for f in report.findings}


@pytest.mark.parametrize("kind", ["str", "bytes"])
def test_too_long_bytes(kind: str) -> None:
    text = "é" * 10  # 20 bytes
    data: str | bytes = text if kind == "str" else text.encode()
    assert inspect(data, Policy(max_bytes=20)).ok
    report = inspect(data, Policy(max_bytes=19))
    assert not report.ok and report.text is None
    (f,) = report.findings
    assert (f.category, f.start, f.end) == (Category.TOO_LONG, 0, len(data))


def test_too_long_str_surrogate_and_bounds() -> None:
    assert not inspect("\U0001f600" * 5, Policy(max_bytes=19)).ok  # 20 bytes
    assert inspect("a" * 5, Policy(max_bytes=5)).ok
    assert not inspect("a" * 6, Policy(max_bytes=5)).ok


def test_too_long_checked_before_decoding() -> None:
    data = b"\xff" * 1000
    report = inspect(data, Policy(max_bytes=10))
    assert [f.category for f in report.findings] == [Category.TOO_LONG]


def test_max_code_points_after_normalization() -> None:
    policy = Policy(max_code_points=10, normalization="NFKC")
    assert inspect("\ufdfa" * 1, Policy(max_code_points=10)).ok  # no normalization: 1
    report = inspect("\ufdfa", policy)  # NFKC: 18 code points
    assert not report.ok
    (f,) = report.findings
    assert f.category is Category.TOO_LONG and f.form == "NFKC"
    # Decomposed input that composes below the limit passes.
    assert inspect("e\u0301" * 10, Policy(max_code_points=10, normalization="NFC")).text == (
        "é" * 10
    )


def test_max_code_points_cheap_bound_rejects_before_normalizing() -> None:
    # 4x the limit cannot compose below it (MAX_NFD_EXPANSION = 4).
    report = inspect("a\u0301" * 25, Policy(max_code_points=12, normalization="NFC"))
    assert not report.ok


def test_dot_segment_and_empty() -> None:
    policy = Policy(actions={Category.DOT_SEGMENT: Action.REJECT, Category.EMPTY: Action.REJECT})
    for value in (".", "..", b".."):
        (f,) = inspect(value, policy).findings
        assert f.category is Category.DOT_SEGMENT
    (f,) = inspect("", policy).findings
    assert (f.category, f.start, f.end) == (Category.EMPTY, 0, 0)
    report = inspect("\u200b", policy.with_actions(INVISIBLE=Action.STRIP))
    assert [g.category for g in report.findings] == [Category.INVISIBLE, Category.EMPTY]
    assert inspect("...", policy).ok


def test_nothing_found_in_clean_input() -> None:
    for data in ("hello, world", b"plain ascii", "Grüße 你好 😀", b""):
        report = inspect(data, Policy())
        assert report.ok and report.findings == ()


def test_inspect_type_error() -> None:
    with pytest.raises(TypeError, match="bytes or str"):
        inspect(123, Policy())  # type: ignore[arg-type]


def test_sanitize_and_policy_error() -> None:
    assert sanitize(b"caf\xc3\xa9", profiles.TEXT) == "café"
    with pytest.raises(PolicyError) as info:
        sanitize("a\u202eb", profiles.TEXT)
    err = info.value
    assert isinstance(err, ValueError)
    assert [f.category for f in err.findings] == [Category.BIDI_CONTROL]
    assert err.report.text is None
    assert "bidi-control" in str(err) and "U+202E" in str(err)


def test_default_policy_is_text() -> None:
    assert inspect("x\x1b").ok is False
    assert sanitize("x\u200by") == "xy"


# -- CWE-180: checks after normalization -------------------------------------------------


def test_recheck_after_nfkc_rejects_fullwidth_solidus() -> None:
    policy = Policy(normalization="NFKC", actions={Category.PATH_SEPARATOR: Action.REJECT})
    report = inspect("a\uff0fb".encode(), policy)
    (f,) = report.findings
    assert (f.category, f.start, f.end, f.codepoint) == (Category.PATH_SEPARATOR, 1, 4, 0xFF0F)
    assert f.produced == "/" and f.form == "NFKC"
    assert "becomes U+002F" in str(f)


@pytest.mark.parametrize(
    ("ch", "made"),
    [("\ufe68", "\\"), ("\u2100", "a/c"), ("\uff3c", "\\"), ("\u2101", "a/s")],
)
def test_recheck_compatibility_separators(ch: str, made: str) -> None:
    policy = Policy(normalization="NFKC", actions={Category.PATH_SEPARATOR: Action.REJECT})
    (f,) = inspect(f"x{ch}y", policy).findings
    assert f.codepoint == ord(ch) and f.produced == made


@pytest.mark.parametrize("action", [Action.STRIP, Action.REPLACE], ids=lambda a: a.value)
def test_recheck_applies_action_to_source_character(action: Action) -> None:
    policy = Policy(normalization="NFKC", actions={Category.PATH_SEPARATOR: action})
    report = inspect("a\uff0fb", policy)
    assert report.text == ("ab" if action is Action.STRIP else "a\ufffdb")
    assert [f.action for f in report.findings] == [action]


def test_nfkc_casefold_policy_normalizes_output() -> None:
    report = inspect("ＡＤＭＩＮ", Policy(normalization="NFKC_CASEFOLD"))
    assert report.text == "admin"


def test_also_check_does_not_change_output() -> None:
    policy = Policy(normalization="NFC", also_check="NFKC")
    assert inspect("ﬁle", policy).text == "ﬁle"


# -- the Policy value ---------------------------------------------------------------------


def test_policy_is_immutable_and_hashable() -> None:
    p = profiles.TEXT
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.max_bytes = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        p.actions[Category.NUL] = Action.ALLOW  # type: ignore[index]
    assert hash(p) == hash(profiles.TEXT.replace())
    assert p == p.replace() and p != p.with_actions(CONTROL=Action.STRIP)
    assert len({p, p.replace(), profiles.IDENTIFIER}) == 2


def test_one_line_derivations() -> None:
    stricter = profiles.TEXT.with_actions(CONTROL=Action.STRIP)
    assert stricter.action(Category.CONTROL) is Action.STRIP
    assert profiles.TEXT.action("control") is Action.REJECT  # the original is unchanged
    assert sanitize("a\x1bb", stricter) == "ab"
    capped = profiles.TEXT.replace(max_bytes=4)
    assert capped.max_bytes == 4 and not inspect("hello", capped).ok
    by_map = profiles.TEXT.with_actions({"bidi-control": "strip"})
    assert by_map.action(Category.BIDI_CONTROL) is Action.STRIP


def test_policy_validation() -> None:
    with pytest.raises(ValueError, match="unknown category"):
        Policy(actions={"NOPE": Action.ALLOW})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="unknown action"):
        profiles.TEXT.with_actions({Category.NUL: "explode"})
    with pytest.raises(ValueError, match="normalization"):
        Policy(normalization="NFD")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_bytes"):
        Policy(max_bytes=-1)


def test_policy_as_dict() -> None:
    d = profiles.FILENAME.as_dict()
    assert d["name"] == "filename" and d["also_check"] == "NFKC"
    assert d["actions"]["path-separator"] == "reject"


def test_finding_as_dict() -> None:
    (f,) = inspect(b"\xc0\xaf", Policy(max_bytes=None)).findings[:1]
    d = f.as_dict()
    assert (d["kind"], d["bytes"], d["start"], d["action"]) == ("overlong", "C0", 0, "reject")
    assert "overlong 2-byte encoding" in d["reason"]
    (g,) = inspect("x\uff0f", profiles.FILENAME).findings
    d = g.as_dict()
    assert (d["produced"], d["form"], d["code_point"]) == ("/", "NFKC", "U+FF0F")
    assert d["reason"].startswith("U+FF0F FULLWIDTH SOLIDUS")


@pytest.mark.parametrize("kind", ["str", "bytes"])
def test_combining_run_of_supplementary_marks(kind: str) -> None:
    text = "x" + "\U0001d167" * 40  # MUSICAL SYMBOL COMBINING TREMOLO-1 (Mn, astral)
    data: str | bytes = text if kind == "str" else text.encode()
    report = inspect(data, profiles.TEXT)
    assert not report.ok
    (f,) = report.findings
    assert f.category is Category.COMBINING_RUN
    assert (f.start, f.end) == ((1, 41) if kind == "str" else (1, 161))


def test_mixed_bmp_and_supplementary_hits_in_order() -> None:
    text = "a\U000e0041b\u202ec\U000f0000d\u200b"
    policy = Policy(
        actions={
            c: Action.ALLOW
            for c in (Category.TAG, Category.BIDI_CONTROL, Category.PRIVATE_USE, Category.INVISIBLE)
        }
    )
    got = [(f.category, f.start) for f in inspect(text.encode(), policy).findings]
    assert got == [
        (Category.TAG, 1),
        (Category.BIDI_CONTROL, 6),
        (Category.PRIVATE_USE, 10),
        (Category.INVISIBLE, 15),
    ]
