"""A policy that refuses hidden payloads (``profiles.PROMPT``) on carrier-dense text: the
same Report from the C passes as from the engine's reference path, and no Python work
per character.

- inspect: the payloads it lists are read, the others counted without reading
  (``_carrier_runs.payload_spans``, C and reference agreeing, and agreeing with
  ``_reveal.iter_find``), the other hits' groups listed and counted in one C pass that
  passes over the payloads (``_speedups.groups_outside`` = ``groups_reference`` with
  ``skip``); every finding, count (``more_findings``, ``more_allowed``), verdict and text
  equal to the engine's grouping of every hit (``_carrier_runs.grouped``), under and
  over ``max_findings``, on bytes and str, on both backends;
- accepts/sanitize: a payload found refuses at once (or the first refused character
  before it): the Report equals the engine's, and the Python work does not grow with
  the text before the payload (docs/profiles.md: a refusing verdict stops at the first
  refusal).
"""

from __future__ import annotations

import dataclasses
import random
from array import array

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer import Action, Policy, profiles
from sanitizer._native import speedups
from sanitizer._policy import _carrier_runs, _reveal, accepts, inspect, sanitize
from sanitizer._policy import _run as run_module
from sanitizer._policy._classtable import groups_reference
from sanitizer._policy._model import Report
from sanitizer._policy._run import Run, _group_table
from sanitizer._policy._scan import scanner
from sanitizer._policy.compiled import CompiledPolicy, compile_policy
from tests.policy.reveal_samples import CANCEL_TAG, bits, selectors, tags
from tests.policy.text_classes import sample
from tests.support.counted_calls import python_calls as _python_calls
from tests.support.settings import examples

needs_c = pytest.mark.skipif(speedups is None, reason="needs the C extension")
A = Action

# Carrier-dense pieces: tag runs (with CANCEL TAGs inside and alone, a LANGUAGE TAG),
# selector runs and single selectors (registered and not), bit runs of two symbols and
# more (ZWSP/ZWNJ, bidi marks, invisible operators, joiners at their ends), too-short
# and one-symbol runs, annotation characters; and what splits them: letters,
# ideographs, emoji, spaces, marks, a control, a bidi control, a noncharacter.
PIECES = [
    tags(b"hi"),
    tags(b"ab") + CANCEL_TAG,
    CANCEL_TAG,
    tags(b"x"),
    "\U000e0001" + tags(b"en"),
    selectors(b"exf"),
    selectors(b"\x01\x20"),
    "\ufe0f",
    "\ufe0e",
    "\U000e0100",
    "\U000e0101\U000e0102",
    "\u180b",
    bits(b"U", "\u200b", "\u200c"),
    bits(b"Hi", "\u200b", "\u200c"),
    "\u200b\u200c\u200d\u2060" * 2,
    bits(b"k", "\u200e", "\u200f"),
    bits(b"o", "\u2062", "\u2064"),
    "\u200d",
    "\u200e",
    "\u200b",
    "\u200b" * 9,
    "\u00ad",
    "\ufeff",
    "\ufff9",
    "\ufffa",
    "\ufffb",
    *"ab x\n1",
    "葛",
    "❤",
    "👍",
    "\u0643",
    "\u0915\u094d",
    "\u0301",
    "\x01",
    "\u202e",
    "\ufdd0",
]
# The same without the pieces only reading tells apart (annotations, lone bit symbols,
# bit runs ending in a joiner or bidi mark): the unread payloads counted in C.
REGULAR = [
    p
    for p in PIECES
    if p not in ("\ufff9", "\ufffa", "\ufffb", "\u200d", "\u200e", "\u200b")
    and not p.startswith("\u200e")
]
POLICIES = [
    profiles.PROMPT,
    profiles.PROMPT.replace(allow_sequences=False),
    profiles.PROMPT.with_actions(INVISIBLE=A.REJECT, JOINER=A.IGNORE, CONTROL=A.STRIP),
    profiles.FILENAME.with_actions(HIDDEN_PAYLOAD=A.REJECT),  # RFC 5892 joiner contexts
    profiles.PROMPT.with_actions(HIDDEN_PAYLOAD=A.ALLOW),  # members' actions, the edits
    profiles.PROMPT.with_actions(HIDDEN_PAYLOAD=A.ALLOW, TAG=A.ALLOW, CONTROL=A.STRIP),
]


def _reference(data: bytes | str, compiled: CompiledPolicy, verdict: bool) -> Report:
    """The engine's Report: every hit grouped by ``_carrier_runs.grouped``, no C listing,
    no C edit pass, no verdict shortcut, no fast path of the policy without the search."""
    saved = run_module._c_outside, run_module._c_list, Run._refuse_first
    without = Run._clean_without_search
    run_module._c_outside = run_module._c_list = None
    Run._refuse_first = lambda *args: None  # type: ignore[method-assign]
    Run._clean_without_search = lambda *args: None  # type: ignore[method-assign]
    try:
        return Run(data, dataclasses.replace(compiled, bulk_edit_args=None), verdict).report()
    finally:
        run_module._c_outside, run_module._c_list = saved[:2]
        Run._refuse_first = saved[2]  # type: ignore[method-assign]
        Run._clean_without_search = without  # type: ignore[method-assign]


def _same_reports(data: bytes | str, policy: Policy) -> None:
    compiled = compile_policy(policy)
    for verdict in (False, True):
        got = Run(data, compiled, verdict).report()
        want = _reference(data, compiled, verdict)
        assert (got.ok, got.text) == (want.ok, want.text), (data, policy.name, verdict)
        assert got.findings == want.findings, (data, policy.name, verdict)
        assert (got.more_findings, got.more_allowed) == (want.more_findings, want.more_allowed)
    assert Run(data, compiled, True).accepted() is got.ok  # accepts: no Report built


def _texts(pieces: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces), max_size=50).map("".join)


@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    st.one_of(_texts(PIECES), _texts(REGULAR)),
    st.sampled_from(POLICIES),
    st.sampled_from([0, 1, 2, 5, None]),
    st.booleans(),
)
def test_reports_equal_the_engines(
    text: str, policy: Policy, cap: int | None, as_bytes: bool
) -> None:
    _same_reports(text.encode() if as_bytes else text, policy.replace(max_findings=cap))


def test_reports_equal_the_engines_on_many_texts() -> None:
    rng = random.Random(7)
    for _ in range(120):
        pieces = rng.choice([PIECES, REGULAR])
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 80)))
        policy = rng.choice(POLICIES).replace(max_findings=rng.choice([0, 1, 3, None]))
        _same_reports(text.encode() if rng.random() < 0.5 else text, policy)


# What legitimate text puts beside carriers that hides nothing: registered ideographic
# variation sequences, joiners and ZWNJ in words, soft hyphens, bidi marks after words,
# invisible operators, ZWSP between words, emoji presentation and ZWJ sequences; and
# what a policy refuses, strips or normalizes (a control, a noncharacter, a bidi control,
# a decomposed letter).
LEGITIMATE = [
    "葛\U000e0100",
    "辻\U000e0101",
    "邊\U000e0102",
    "می\u200cخ",
    "क\u094d\u200dष",
    "Silben\u00adtren",
    "שלום\u200f ",
    "f\u2061(x)\u2062y",
    "ส\u200bค",
    "❤\ufe0f",
    "👨\u200d👩",
    "e\u0301",
    "\U000e0110",
    *"ab x\n1",
    "\x01",
    "\ufdd0",
    "\u202e",
]


@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(_texts(LEGITIMATE), st.sampled_from(POLICIES), st.booleans())
def test_text_hiding_nothing_gets_the_answer_of_the_policy_without_the_search(
    text: str, policy: Policy, as_bytes: bool
) -> None:
    """Where the search finds nothing, the run may end in the one C pass of the policy
    with HIDDEN_PAYLOAD ignored (``Run._clean_without_search``): the same Report as
    the engine's, on both backends."""
    _same_reports(text.encode() if as_bytes else text, policy)


def test_the_policy_without_the_search_answers_legitimate_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Japanese with registered ideographic variation sequences, clean under TEXT, is
    answered by the fast path of PROMPT without the search: no engine pass after it
    (no C listing, no edit pass of the engine's)."""
    data = sample("Japanese with IVS", 4096)
    compiled = compile_policy(profiles.PROMPT)
    for verdict in (False, True):
        run = Run(data, compiled, verdict)
        assert run._clean_without_search(data.decode()) == (
            None if speedups is None else data.decode()
        )
    if speedups is not None:

        def engine(*args: object) -> None:
            raise AssertionError("an engine pass ran")

        monkeypatch.setattr(run_module, "_c_list", engine)
        monkeypatch.setattr(Run, "_bulk", engine)
    assert inspect(data, profiles.PROMPT) == Report(True, data.decode(), (), profiles.PROMPT)
    assert sanitize(data, profiles.PROMPT) == data.decode()
    assert accepts(data, profiles.PROMPT)


@pytest.mark.parametrize(
    "unit",
    [
        "a" + tags(b"ab") + CANCEL_TAG + tags(b"cd") + " ",  # two payloads a tag run
        "x\u200d" + bits(b"UU", "\u200b", "\u200c") + "\u200dy ",  # joiners left out
        "a" + selectors(b"exfiltrate"),
        "x" + CANCEL_TAG + " ",
    ],
)
def test_the_count_past_max_findings_is_of_payloads(unit: str) -> None:
    """Past ``max_findings``, payloads are counted as the engine groups them (one a
    payload over the hits it holds, none ALLOW), not as runs of hits: the same on both
    backends (the count once followed runs in C, payloads in Python)."""
    data = (unit * 150).encode()
    policy = profiles.PROMPT.replace(max_findings=20)
    report = inspect(data, policy)
    want = _reference(data, compile_policy(policy), False)
    assert report == want
    assert len(report.findings) == 20 and report.more_findings >= 130


@needs_c
def test_groups_outside_matches_reference() -> None:
    assert speedups is not None
    rng = random.Random(3)
    for _ in range(600):
        policy = rng.choice(POLICIES[:3])
        compiled = compile_policy(policy)
        scan = scanner(compiled.scanned, policy.allow_sequences)
        assert scan.c_args is not None
        stage1, stage2, tables, _ = scan.c_args
        groups = _group_table(policy, scan.cats, False)
        text = "".join(rng.choice(REGULAR) for _ in range(rng.randint(0, 40)))
        cuts = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, 2 * rng.randint(0, 4))))
        cuts = cuts[: len(cuts) // 2 * 2]
        spans = [(a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=True) if a < b]
        bounds = array("q", [x for span in spans for x in span]).tobytes()
        limit = rng.choice([-1, 0, 1, 3])
        matter = rng.random() < 0.5
        got = speedups.groups_outside(text, stage1, stage2, tables, limit, groups, bounds, matter)
        want = groups_reference(text, stage1, stage2, tables, limit, groups, matter, 0, spans)
        assert got == want, (text, spans, limit)


@needs_c
def test_span_members_matches_reference() -> None:
    rng = random.Random(4)
    for _ in range(400):
        policy = rng.choice(POLICIES[:3] + POLICIES[4:])
        scan = scanner(compile_policy(policy).scanned, policy.allow_sequences)
        assert scan.c_args is not None
        groups = _group_table(policy, scan.cats, False)
        text = "".join(rng.choice(REGULAR) for _ in range(rng.randint(0, 40)))
        cuts = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, 2 * rng.randint(0, 5))))
        cuts = cuts[: len(cuts) // 2 * 2]
        bounds = array(
            "q", [x for a, b in zip(cuts[::2], cuts[1::2], strict=True) if a < b for x in (a, b)]
        )
        args = scan.c_args[:3]
        got = _carrier_runs.span_members(text, args, groups, bounds)
        assert got == _carrier_runs.span_members_reference(text, args, groups, bounds), text


@needs_c
def test_groups_outside_refuses_malformed_spans() -> None:
    assert speedups is not None
    scan = scanner(compile_policy(profiles.PROMPT).scanned, True)
    assert scan.c_args is not None
    args = ("abc", *scan.c_args[:3], -1, bytes(256))
    for bad in ([1, 1], [2, 3, 1, 2], [0, 1, 1]):
        with pytest.raises(ValueError, match="malformed spans"):
            speedups.groups_outside(*args, array("q", bad).tobytes()[: 8 * len(bad)], False)


def _spans(
    found: tuple[array[int], array[int], int] | None,
) -> tuple[list[int], list[int], int] | None:
    return None if found is None else (list(found[0]), list(found[1]), found[2])


def test_payload_spans_agree_with_reveal() -> None:
    """The C pass, its reference and reveal itself: the same count of payloads, each
    payload inside one span, every span holding one; None where only reading tells."""
    tables = scanner(compile_policy(profiles.PROMPT).scanned, True).c_args
    policy_tables = None if tables is None else tables[2]
    rng = random.Random(5)
    told = 0
    for _ in range(800):
        pieces = rng.choice([PIECES, REGULAR])
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        start = rng.choice([0, rng.randint(0, len(text))])
        got = _carrier_runs.payload_spans(text, policy_tables, start)
        want = _carrier_runs.payload_spans_reference(text, policy_tables, start)
        assert _spans(got) == _spans(want), (text, start)
        if got is None or start:
            continue
        told += 1
        found = list(_reveal.iter_find(text))
        b = list(got[0])
        spans = list(zip(b[::2], b[1::2], strict=True))
        assert got[2] == len(found) == sum(got[1]), (text, found, spans)
        held = [sum(s <= h.start < h.end <= e for h in found) for s, e in spans]
        assert held == list(got[1]), (text, found, spans)
        assert all(any(s <= h.start < h.end <= e for s, e in spans) for h in found), text
    assert told > 100


@pytest.mark.parametrize("api", [accepts, sanitize])
@pytest.mark.parametrize(
    "kind", ["Thai/Khmer with ZWSP", "German with soft hyphens", "math, invisible operators"]
)
def test_a_verdict_costs_no_python_per_character_before_the_payload(api: object, kind: str) -> None:
    """Text the policy strips from (ZWSP, soft hyphens, invisible operators), a payload at
    its end: refused with the same Python work at 16 and 32 KiB."""
    end = ("x" + tags(b"hi")).encode()
    small, large = sample(kind, 16 * 1024) + end, sample(kind, 32 * 1024) + end
    call = api
    _python_calls(lambda: call(small[:2048] + end, profiles.PROMPT))  # type: ignore[operator]
    one = _python_calls(lambda: call(small, profiles.PROMPT))  # type: ignore[operator]
    two = _python_calls(lambda: call(large, profiles.PROMPT))  # type: ignore[operator]
    assert two <= one + 10, (one, two)
    with pytest.raises(Exception) as info:
        sanitize(large, profiles.PROMPT)
    (finding,) = info.value.report.findings  # type: ignore[attr-defined]
    assert finding.category.name == "HIDDEN_PAYLOAD" and finding.end == len(large)


@needs_c
@pytest.mark.parametrize("kind", ["tag runs", "selector runs", "one-character payloads"])
def test_inspect_reads_only_the_payloads_it_lists(kind: str) -> None:
    """64 findings listed: 16 and 32 KiB of payloads cost the same Python work (the
    unread payloads counted in C)."""
    policy = profiles.PROMPT.replace(max_findings=64)
    small, large = sample(kind, 16 * 1024), sample(kind, 32 * 1024)
    inspect(small[:4096], policy)
    one = _python_calls(lambda: inspect(small, policy))
    two = _python_calls(lambda: inspect(large, policy))
    assert two <= one + 20, (one, two)


@needs_c
def test_reveal_scan_past_repeated_ideographic_sequences() -> None:
    """``_speedups.reveal_scan`` remembers the registered pairs it has gone past and reads
    the characters just after one before its vector scan resumes: the same stops as
    ``reveal_scan_reference`` on text repeating a few pairs, registered or not, near
    and far apart."""
    assert speedups is not None
    registered = [
        chr(base) + chr(sel)
        for sel in (0xE0100, 0xE0101, 0xE0102)
        for base in (0x845B, 0x8FBB, 0x908A, 0x4E00, 0x9F8D)
    ]
    registered = [p for p in registered if _reveal.ivd_registered(ord(p[0]), ord(p[1]))]
    unregistered = ["a\U000e0100", "\u845b\U000e01ef", "\u4e00\U000e0150"]
    assert len(registered) >= 4
    args = (*_reveal._c_tables(), _reveal.c_kinds(), _reveal.ivd_table())
    rng = random.Random(9)
    for _ in range(300):
        fill = rng.choice(["", "城", "城市 ", "x" * 40])
        pieces = [rng.choice(registered) for _ in range(rng.randint(0, 30))]
        for _ in range(rng.randint(0, 2)):
            pieces.insert(rng.randint(0, len(pieces)), rng.choice(unregistered))
        text = fill.join(pieces)
        for start in (0, rng.randint(0, len(text))):
            got = speedups.reveal_scan(text, *args, start)
            assert got == _reveal.reveal_scan_reference(text, start), (text, start)
