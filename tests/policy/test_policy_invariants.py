"""The policy engine: what a policy refuses is absent from its output whatever
the input, and every entry point is linear with a bounded list of findings.

The output invariant: if ``inspect(x, p).ok``, the output re-inspected with ``p`` has no
finding that ``p`` rejects, strips or replaces, and ``sanitize`` leaves it unchanged.
Sequence exemptions are judged on the text as it will be output: no stripped or replaced
character, and no character of the exempt class itself, earns one.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer import profiles
from sanitizer._categories import CHARACTER_CATEGORIES, MARKS, Category
from sanitizer._policy import Action, Policy, PolicyError, accepts, inspect, sanitize
from sanitizer._policy._sequences import NEIGHBOUR_RULES

DROPPING = {Action.REJECT, Action.STRIP, Action.REPLACE}
TEXT = profiles.TEXT

# Characters that make and break sequences, and their usual neighbours.
PIECES = [
    "a", "\n", " ", "/", "\u4e00", "\u1820", "\U0001f600", "\U0001f3f4", "\u2764",
    "\ufe0f", "\ufe0e", "\ufe00", "\U000e0100", "\U000e01ef", "\u180b", "\u180e",
    "\u200d", "\u200c", "\u200b", "\u3164", "\u115f", "\U000e0067", "\U000e0062",
    "\U000e0065", "\U000e006e", "\U000e007f", "\U000e0041", "\x00", "\x07", "\x1b",
    "\u202e", "\u2066", "\u200e", "\u0301", "\u0308", "\ufffe", "\ue000", "\ufeff",
    "\u00ad", "\ufdfa", "\u2025", "\uff0f", "\u0378", "\U0001f469", "\u2028",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=24).map("".join)

# Variants: each sequence category and CONTROL/INVISIBLE under every action it accepts.
_VARIED = (Category.VARIATION_SELECTOR, Category.JOINER, Category.TAG, Category.CONTROL,
           Category.INVISIBLE, Category.COMBINING_RUN)  # fmt: skip
POLICIES: list[Policy] = [
    *profiles.PROFILES.values(),
    *(
        base.with_actions({cat: act})
        for base in profiles.PROFILES.values()
        for cat in _VARIED
        for act in (Action.STRIP, Action.REPLACE, Action.REJECT, Action.ALLOW)
    ),
    TEXT.replace(max_combining=2).with_actions(COMBINING_RUN=Action.STRIP, JOINER=Action.STRIP),
    TEXT.with_actions(WHITESPACE=Action.STRIP, PATH_SEPARATOR=Action.STRIP, JOINER=Action.REPLACE),
]


def _check_output(text: str, policy: Policy) -> None:
    report = inspect(text, policy)
    assert report.ok == all(f.action is not Action.REJECT for f in report.findings)
    if not report.ok:
        return
    assert report.text is not None
    again = inspect(report.text, policy)
    bad = [
        f for f in again.findings if f.action in DROPPING and f.category is not Category.TOO_LONG
    ]
    assert not bad, (ascii(text), ascii(report.text), bad)
    assert again.ok and sanitize(report.text, policy) == report.text
    assert sanitize(text, policy) == report.text


@given(texts, st.sampled_from(POLICIES))
def test_output_holds_nothing_the_policy_drops(text: str, policy: Policy) -> None:
    _check_output(text, policy)


@pytest.mark.slow
@given(st.lists(st.sampled_from(PIECES), max_size=200).map("".join), st.sampled_from(POLICIES))
@settings(max_examples=10 * settings().max_examples)
def test_output_holds_nothing_the_policy_drops_large(text: str, policy: Policy) -> None:
    _check_output(text, policy)


def test_rule_after_sets_are_never_removed() -> None:
    """The engine re-judges only ``before`` neighbours (_sequences.earned_by_previous):
    no ``after`` set (emoji) meets a category or a combining mark, so none is removed."""
    for rule in NEIGHBOUR_RULES:
        after = rule.after_ranges
        if after is None:
            continue
        for part in [*(c.ranges for c in CHARACTER_CATEGORIES), MARKS]:
            assert not any(max(a, b) <= min(c, d) for a, c in after for b, d in part)


# -- regressions -------------------------------------------------------------------------


def test_second_selector_after_an_emoji_is_stray() -> None:
    assert sanitize("\U0001f600\ufe0f\ufe0f") == "\U0001f600\ufe0f"
    strict = TEXT.with_actions(VARIATION_SELECTOR=Action.REJECT)
    assert not inspect("\U0001f600\ufe0f\ufe0f", strict).ok
    assert inspect("\U0001f600\ufe0f", strict).ok


def test_selector_smuggling_carrier_is_removed() -> None:
    """A base then many selectors (the 'emoji smuggling' carrier) keeps one at most."""
    payload = "".join(chr(0xE0100 + b) for b in range(240)) + "".join(
        map(chr, range(0xFE00, 0xFE10))
    )
    for base in ("\U0001f600", "\u4e00", "a"):
        # one finding for the run (selectors are no marks of a combining run: UAX #15
        # §13 counts non-starters), stripped by TEXT, refused by PROMPT
        report = inspect(base + payload)
        (finding,) = report.findings  # from the first selector not in a sequence
        assert finding.start in (1, 2) and finding.end == 1 + len(payload)
        assert len(sanitize(base + payload)) <= 2
        assert not inspect(base + payload, profiles.PROMPT).ok
        for size in (2, 16, 29):
            out = sanitize(base + payload[:size])
            assert len(out) <= 2, ascii(out)
    strict = TEXT.with_actions(VARIATION_SELECTOR=Action.REJECT)
    assert not inspect("\u4e00" + payload[:5], strict).ok
    assert sanitize("\u4e00" + payload, TEXT.replace(max_combining=None)) == "\u4e00\U000e0100"
    assert sanitize("\u1820\u180b\u180c\u180d") == "\u1820\u180b"  # Mongolian FVS run


@pytest.mark.parametrize("base", ["\u3164", "\u115f", "\u180e"])
def test_stripped_base_earns_no_exemption(base: str) -> None:
    """Hangul fillers are graphic and U+180E Mongolian; TEXT strips them as invisible, so
    the selector after them has no base in the output."""
    report = inspect("\n" + base + "\ufe0f\u180b")
    assert report.ok and report.text == "\n"


def test_stripped_selector_earns_no_joiner_exemption() -> None:
    policy = TEXT.with_actions(JOINER=Action.STRIP)
    assert sanitize("\n\ufe0f\u200d\U0001f600", policy) == "\n\U0001f600"
    assert (
        sanitize("\U0001f600\ufe0f\u200d\U0001f600", policy) == "\U0001f600\ufe0f\u200d\U0001f600"
    )


def test_tags_are_linear_and_capped() -> None:
    data = "\U0001f3f4" + "\U000e0041" * (64 * 1024)
    report = inspect(data)
    assert not report.ok
    (run,) = report.findings  # one finding per carrier run, whatever its length
    assert (run.start, run.end, report.more_findings) == (
        1,
        1 + 64 * 1024,
        0,
    )
    assert run.detail is not None and run.detail.startswith("65536 tag characters spelling 'AAA")
    with pytest.raises(ValueError):
        sanitize(data)


def test_nul_megabyte_is_capped() -> None:
    data = b"\0" * (1 << 20)
    report = inspect(data)
    assert not report.ok and report.text is None
    assert len(report.findings) == 1000 and report.more_findings == (1 << 20) - 1000
    assert [f.start for f in report.findings] == list(range(1000))
    with pytest.raises(PolicyError) as err:
        sanitize(data)
    assert len(err.value.findings) == 1  # sanitize stops at the first refusal
    unlimited = TEXT.replace(max_findings=None)
    assert len(inspect(b"\0" * 5000, unlimited).findings) == 5000
    assert inspect(b"\0" * 10, TEXT.replace(max_findings=0)).more_findings == 10


def test_cap_does_not_change_verdict_or_text() -> None:
    text = ("a\u200b\ufffe" * 3000) + "\U0001f600\ufe0f\ufe0f"
    full = inspect(text, TEXT.replace(max_findings=None))
    for cap in (0, 1, 7, 1000):
        capped = inspect(text, TEXT.replace(max_findings=cap))
        assert (capped.ok, capped.text) == (full.ok, full.text)
        assert capped.findings == full.findings[:cap]
        assert len(capped.findings) + capped.more_findings == len(full.findings)


def test_max_findings_is_validated() -> None:
    with pytest.raises(ValueError):
        TEXT.replace(max_findings=-1)
    with pytest.raises(TypeError):
        TEXT.replace(max_findings="10")


# Bytes as attackers send them: valid text around ill-formed pieces (RFC 3629 §10).
_BAD_PIECES = [b"\xc0\xae", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80", b"\xff"]
_byte_pieces = st.one_of(texts.map(str.encode), st.sampled_from(_BAD_PIECES), st.binary(max_size=6))
byte_texts = st.lists(_byte_pieces, max_size=8).map(b"".join)


@given(byte_texts, st.sampled_from([*POLICIES, TEXT.with_actions(ILL_FORMED=Action.REPLACE)]))
def test_accepts_is_the_report_verdict(data: bytes, policy: Policy) -> None:
    """``accepts`` (its fast paths and its ill-formed shortcut) says what ``inspect``'s
    report says, and ``sanitize`` raises exactly when it is False."""
    ok = inspect(data, policy).ok
    assert accepts(data, policy) is ok
    assert accepts(bytearray(data), policy) is ok
    try:
        sanitize(data, policy)
    except PolicyError:
        assert not ok
    else:
        assert ok
