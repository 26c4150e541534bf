"""No kind of text falls off a cliff: the engine's edits and its count of the findings past
``max_findings`` are made in C passes, with the answers of the Python engine.

- ``_speedups.count_groups`` agrees with ``_classtable.count_reference`` (findings and
  allowed ones past an index, carrier runs grouped, None where only the engine can tell),
  and ``_speedups.list_groups`` (the groups listed as tuples, the rest counted) with
  ``_classtable.groups_reference``;
- the engine with those C passes (``compiled.bulk_edit_args``) reports exactly what it
  reports without them (every finding, count, text), for inspect and for the verdict;
- a strip between two combining marks joins their runs, in ``clean_edit``, its reference
  and the engine alike (UAX #15 §13 counts the output);
- a verdict run that refuses stops at the first refusal, payloads looked for only before;
- counted work (callgrind instructions, tests/support/instructions.py): for each kind of text
  (tests/policy/text_classes.py) and API, the work on 2N bytes is within 2.2x of N.  A few
  kinds run in the fast tier, the whole matrix is ``slow``.
"""

from __future__ import annotations

import dataclasses
import functools
import pickle
import random
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer import Channel, Hidden, profiles
from sanitizer import _policy as policy_api
from sanitizer._categories import Category
from sanitizer._native import speedups
from sanitizer._policy import (
    Action,
    Policy,
    _classtable,
    _reveal,
    accepts,
    inspect,
    reveal,
    sanitize,
)
from sanitizer._policy import _run as run_module
from sanitizer._policy._classtable import count_reference, edit_reference, groups_reference
from sanitizer._policy._model import Report
from sanitizer._policy._run import Run, _group_table
from sanitizer._policy._scan import scanner
from sanitizer._policy.compiled import CompiledPolicy, compile_policy
from tests.policy.test_policy_edits import FILLERS, SPECIALS, _text
from tests.policy.text_classes import HOSTILE, LEGITIMATE, sample
from tests.support.counted_calls import python_calls as _python_calls
from tests.support.instructions import instructions, needs_callgrind

needs_c = pytest.mark.skipif(speedups is None, reason="needs the C extension")
A = Action
C = Category

POLICIES = [
    *profiles.PROFILES.values(),
    profiles.TEXT.replace(allow_sequences=False),
    profiles.TEXT.replace(max_combining=2),
    profiles.TEXT.replace(normalization="NFKC", max_combining=2),
    profiles.TEXT.replace(normalization=None, max_combining=3),
    profiles.TEXT.with_actions(NUL=A.STRIP, CONTROL=A.REPLACE, TAG=A.STRIP),
    profiles.TEXT.with_actions(VARIATION_SELECTOR=A.REPLACE, PRIVATE_USE=A.STRIP),
    Policy(actions={C.INVISIBLE: A.STRIP, C.NONCHARACTER: A.REPLACE, C.JOINER: A.ALLOW}),
    # runs of marks counted by the pass that normalizes, whatever their action
    *(
        profiles.TEXT.replace(normalization=form, max_combining=2).with_actions(COMBINING_RUN=a)
        for form in ("NFC", "NFKC")
        for a in (A.ALLOW, A.REJECT, A.REPLACE)
    ),
]
# (U+0344 and U+0F73 decompose to two marks that NFC leaves apart: a run normalizing made)
EXTRA = "\u0e49\u0e35\u200b\u00ad\u200c\u200d\u200e\u200f\u2061\u2062\u0301\u0323"
EXTRA += "\u0344\u0f73\u05b0\u05bc"
# carrier marks (selectors, U+034F, U+17B4): stripped like a format character, their
# neighbours' mark runs joined
EXTRA += "\ufe00\ufe01\U000e0110\u034f\u17b4"


def _without_c_passes(compiled: CompiledPolicy) -> CompiledPolicy:
    return dataclasses.replace(compiled, bulk_edit_args=None)


def _engine_report(data: bytes | str, compiled: CompiledPolicy, verdict: bool) -> Report:
    """The report of the engine alone: no C edit pass, no C listing (``list_findings``,
    ``list_mark_runs``)."""
    saved = run_module._c_list, run_module._c_mark_runs
    run_module._c_list = run_module._c_mark_runs = None
    try:
        return Run(data, _without_c_passes(compiled), verdict).report()
    finally:
        run_module._c_list, run_module._c_mark_runs = saved


def _same_reports(data: bytes | str, policy: Policy) -> None:
    compiled = compile_policy(policy)
    for verdict in (False, True):
        got = Run(data, compiled, verdict).report()
        want = _engine_report(data, compiled, verdict)
        assert got.ok == want.ok, (data, policy.name, verdict)
        assert got.text == want.text, (data, policy.name, verdict)
        assert got.findings == want.findings, (data, policy.name, verdict)
        assert (got.more_findings, got.more_allowed) == (want.more_findings, want.more_allowed)


texts = st.lists(
    st.one_of(
        st.sampled_from(
            [*SPECIALS, *EXTRA, "\u0301\u200b\u0301", "\u00ad\u00ad", "\u0e35\ufe00\u0e35"]
        ),
        st.sampled_from(list("".join(FILLERS.values()) + "สวัสดี")),
    ),
    max_size=60,
).map("".join)


@needs_c
@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(texts, st.sampled_from(POLICIES), st.sampled_from([0, 1, 3, 1000, None]), st.booleans())
def test_c_passes_report_what_the_engine_reports(
    text: str, policy: Policy, cap: int | None, as_bytes: bool
) -> None:
    _same_reports(text.encode() if as_bytes else text, policy.replace(max_findings=cap))


@needs_c
def test_c_passes_report_what_the_engine_reports_on_many_texts() -> None:
    rng = random.Random(11)
    for _ in range(400):
        policy = rng.choice(POLICIES).replace(max_findings=rng.choice([0, 2, 5]))
        text = _text(rng, rng.choice([1, 2, 4]), rng.choice([8, 40, 120]), 0.3)
        text = "".join(c if rng.random() > 0.2 else rng.choice(EXTRA) for c in text)
        _same_reports(text.encode() if rng.random() < 0.5 else text, policy)


def _block_texts(stage1: bytes, stage2: bytes, tables: bytes) -> list[tuple[str, int]]:
    """For each BMP block (not U+00xx, not a hot one, not surrogates) holding characters
    the tables flag and others: 2,300 of its unflagged characters (enough for the vector
    loops to take it for the text's own block and test it exactly), or 800 of them each
    after two ASCII letters, with one flagged character at an edge of a 32-character
    vector or within one, and where it is."""
    from array import array

    blocks = array("H", stage1)
    out = []
    for block in range(1, 0x100):
        if block in (0x20, 0x30) or 0xD8 <= block <= 0xDF:
            continue
        classes = stage2[blocks[block] << 8 : (blocks[block] + 1) << 8]  # (as CLASS_OF)
        hits = [block << 8 | b for b in range(256) if tables[classes[b]]]
        clean = [chr(block << 8 | b) for b in range(256) if not tables[classes[b]]][:16]
        if not hits or not clean:
            continue
        filler = "".join(clean[k % len(clean)] for k in range(2300))
        # the block between ASCII letters (marks after letters, as in text in NFD)
        sparse = "".join("ab" + clean[k % len(clean)] for k in range(800))
        for k, cp in enumerate(hits[:: max(1, len(hits) // 3)]):
            for at in (31, 33 + k, 1099):
                out.append((filler[:at] + chr(cp) + filler[at + 1 :], at))
            out.append((sparse[:1100] + chr(cp) + sparse[1101:], 1100))
    return out


@needs_c
def test_the_texts_own_block_is_tested_exactly() -> None:
    """A long text written in one block holding a flagged character has that block tested
    exactly, by low byte (``text_block_of``): the scan, the walk that counts groups and
    the edit pass answer as they answer the 7 characters around the flagged one (too few
    for a vector: the scalar loop, the oracle), for every such block under the tables of
    each profile (scanned and dropped categories); only that character can stop them."""
    assert speedups is not None
    checked = 0
    for policy in profiles.PROFILES.values():
        name = policy.name
        compiled = compile_policy(policy)
        for cats in (compiled.scanned, compiled.dropping):
            scan = scanner(cats, policy.allow_sequences)
            assert scan.c_args is not None
            stage1, stage2, tables, _ = scan.c_args
            groups = _group_table(policy, cats)
            for text, at in _block_texts(stage1, stage2, tables):
                near = text[at - 3 : at + 4]
                start = at - 3  # (still over 1,024 characters to scan: the vector loop)
                alone = speedups.scan(near, stage1, stage2, tables, -1, 0)
                want = at if alone == 3 else len(text)
                got = speedups.scan(text, stage1, stage2, tables, -1, start)
                assert got == want, (name, hex(ord(text[at])), at)
                counted = speedups.count_groups(text, stage1, stage2, tables, 0, groups, False)
                assert counted == speedups.count_groups(
                    near, stage1, stage2, tables, 0, groups, False
                )
                checked += 1
        edit = compiled.bulk_edit_args
        if edit is not None:
            for text, at in _block_texts(*edit[:3]):
                alone_edited = speedups.clean_edit(text[at - 3 : at + 4], *edit)
                want_edited = (
                    None if alone_edited is None else text[: at - 3] + alone_edited + text[at + 4 :]
                )
                assert speedups.clean_edit(text, *edit) == want_edited, (name, at)
    assert checked > 500


@needs_c
def test_count_groups_matches_reference() -> None:
    assert speedups is not None
    rng = random.Random(5)
    for _ in range(1500):
        policy = rng.choice(POLICIES)
        compiled = compile_policy(policy)
        cats = rng.choice([compiled.scanned, compiled.dropping])
        scan = scanner(cats, policy.allow_sequences)
        assert scan.c_args is not None
        stage1, stage2, tables, _ = scan.c_args
        groups = _group_table(policy, cats)
        text = _text(rng, rng.choice([1, 2, 4]), rng.choice([1, 33, 100]), 0.3)
        text = "".join(c if rng.random() > 0.2 else rng.choice(EXTRA) for c in text)
        start = rng.randrange(len(text) + 1)
        matter = rng.random() < 0.5
        got = speedups.count_groups(text, stage1, stage2, tables, start, groups, matter)
        assert got == count_reference(text, stage1, stage2, tables, start, groups, matter)
        limit = rng.choice([-1, 0, 1, 3, 1000])
        walked = speedups.list_groups(text, stage1, stage2, tables, limit, groups, matter)
        want = groups_reference(text, stage1, stage2, tables, limit, groups, matter)
        assert walked == want, (text, policy.name, limit)


@needs_c
def test_word_marks_matches_reference() -> None:
    """``_speedups.word_marks`` reads a stretch of marks after words as
    ``_stretch_reference`` does (None only at a joiner after a combining mark), windows
    (``near``) and word gaps included."""
    assert speedups is not None
    stage1, stage2, tables = _reveal._c_tables()
    kinds = _reveal.c_kinds()
    rng = random.Random(7)
    alphabet = [*"ab\u05e9 \n\u200e\u200f\u200b\u200d\u094d\u0301\u00ad", "  ", "abcdefgh"]
    told = 0
    for _ in range(600):
        text = "".join(rng.choice(alphabet) for _ in range(rng.choice([10, 60, 200])))
        for m in _reveal._word_end_pattern().finditer(text):
            got = speedups.word_marks(
                text, stage1, stage2, tables, kinds, m.start(), _reveal._NEAR, _reveal.MAX_WORD_GAP
            )
            if got is not None:
                told += 1
                assert got == _reveal._stretch_reference(text, m.start()), (text, m.start())
    assert told > 1000


@needs_c
def test_reveal_scan_matches_reference() -> None:
    """``_speedups.reveal_scan`` goes past exactly the lone registered ideographic
    variation selectors (``reveal_scan_reference``)."""
    assert speedups is not None
    args = (*_reveal._c_tables(), _reveal.c_kinds(), _reveal.ivd_table())
    rng = random.Random(3)
    alphabet = [*"葛辻邊a ❤", *map(chr, (0xE0100, 0xE0101, 0xE0102, 0xE0110, 0xE01EF)), "\ufe0f"]
    alphabet += ["\u200b", "\U000e0041"]
    for _ in range(1500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.choice([1, 5, 30])))
        for start in range(len(text) + 1):
            got = speedups.reveal_scan(text, *args, start)
            assert got == _reveal.reveal_scan_reference(text, start), (text, start)


def test_reveal_kinds_follow_the_ranges() -> None:
    """The C passes' kinds by class are the ranges ``_reveal`` reads (every code point,
    a bytes.translate a block), and every virama (ccc 9) is in a class of marks."""
    table = _classtable.class_table()
    kinds = _reveal.c_kinds()
    per_cp = b"".join(_block_classes(table, block).translate(kinds) for block in range(0x1100))
    for bit, ranges in (
        (1, _reveal.BITS),
        (2, _reveal.BLANKS),
        (4, C.JOINER.ranges),
        (16, _reveal.SELECTORS),
        (32, _reveal.TAGS),
        (128, C.BIDI_MARK.ranges),  # bits on these alone: bidi-mark bits
    ):
        want = bytearray(0x110000)
        for lo, hi in ranges:
            want[lo : hi + 1] = b"\1" * (hi + 1 - lo)
        assert per_cp.translate(bytes(int(k & bit != 0) for k in range(256))) == want, bit
    annotations = per_cp.translate(bytes(int(k & 64 != 0) for k in range(256)))
    for lo, hi in _reveal.ANNOTATIONS:  # (their class: a few other format characters)
        assert annotations[lo : hi + 1] == b"\1" * (hi + 1 - lo)
    viramas = [cp for cp in range(0x110000) if unicodedata.combining(chr(cp)) == 9]
    assert viramas and all(per_cp[cp] & 8 for cp in viramas)


def _block_classes(table: _classtable.ClassTable, block: int) -> bytes:
    """The classes of the 256 code points of ``block`` (the two-stage table's row)."""
    row = int.from_bytes(table.stage1[2 * block : 2 * block + 2], sys.byteorder)
    return table.stage2[row << 8 : (row + 1) << 8]


@needs_c
@pytest.mark.parametrize("before, after", [(1, 1), (2, 1), (1, 2), (3, 1), (2, 2), (0, 4)])
@pytest.mark.parametrize("strips", [1, 2])
@pytest.mark.parametrize("stripped", ["\u200b", "\ufe00", "\U000e0101", "\u034f"])
def test_strip_between_marks_joins_their_runs(
    before: int, after: int, strips: int, stripped: str
) -> None:
    """Thai-style text: marks, ZWSP (or a carrier mark: a selector, U+034F, counted in
    no run), marks; the limit counts the output's run."""
    assert speedups is not None
    policy = profiles.TEXT.replace(normalization=None, max_combining=3)
    args = compile_policy(policy).direct_edit_args
    assert args is not None
    text = "ก" + "\u0e35" * before + stripped * strips + "\u0e35" * after + " x"
    want = edit_reference(text, *args)
    assert speedups.clean_edit(text, *args) == want
    over = before + after > 3
    assert (want is None) == over
    report = inspect(text, policy)
    assert report.ok is not over
    if not over:
        assert want == report.text == sanitize(text, policy)
    assert accepts(text, policy) is not over


@needs_c
@pytest.mark.parametrize("form", ["NFC", "NFKC", None])
@pytest.mark.parametrize("name", ["TEXT", "SINGLE_LINE", "PROMPT"])
def test_engine_leaves_dropped_runs_to_the_c_passes(
    name: str, form: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Text that normalization changes (Vietnamese in NFD) takes the engine's C passes
    (``Run._bulk``).  When the policy drops runs of marks over its limit, the pass that
    normalizes counts them (``_speedups.normalize_runs``), or the edit pass when
    there is no NFC or NFKC (``bulk_edit_args``: counted marks flagged, the limit), as
    ``edit_reference`` does; the reports are the engine's alone, and the engine does not
    scan the input for them again (only the normalized output)."""
    assert speedups is not None
    p = getattr(profiles, name).replace(normalization=form)
    args = compile_policy(p).bulk_edit_args
    assert args is not None and args[3] == (-1 if form else p.max_combining)
    data = sample("Vietnamese NFD", 4096)
    text = data.decode()
    limit = p.max_combining or 0
    for t in (
        text,
        text + "a" + "\u0301" * (limit + 1),
        text + "a" + "\u0301" * limit + "\u200b" + "\u0301" + text,
    ):
        assert speedups.clean_edit(t, *args) == edit_reference(t, *args)
        _same_reports(t, p)
    scanned: list[str] = []
    real = run_module.mark_runs

    def spy(t: str, *rest: object) -> object:
        scanned.append(t)
        return real(t, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(run_module, "mark_runs", spy)
    out = unicodedata.normalize(form, text) if form else text
    assert sanitize(data, p) == accepts(data, p) * out
    assert inspect(data, p).ok
    assert text not in scanned


def test_thai_with_zwsp_is_cleaned() -> None:
    text = "สวัสดี\u200bครับ\u200bวันนี้\u200b" * 50
    assert sanitize(text, profiles.TEXT) == text.replace("\u200b", "")
    report = inspect(text.encode(), profiles.TEXT.replace(max_findings=10))
    assert len(report.findings) == 10
    assert report.more_findings == 140


def test_verdict_stops_at_the_first_refusal() -> None:
    """A control character, then letter + tag pairs: the payload search stops at the
    control character (PROMPT refuses it), whatever follows."""
    for n in (10, 1000):
        text = "\x01" + "a\U000e0041" * n
        assert not accepts(text, profiles.PROMPT)
        with pytest.raises(Exception) as info:
            sanitize(text, profiles.PROMPT)
        findings = info.value.report.findings  # type: ignore[attr-defined]
        assert findings[0].category is C.CONTROL and findings[0].start == 0


# -- counted work --------------------------------------------------------------------

APIS = {
    "inspect": "policy.inspect({d}, P.{p})",
    "sanitize": "_q(policy.sanitize, {d}, P.{p})",
    "accepts": "policy.accepts({d}, P.{p})",
}
# every profile but FILENAME (IDENTIFIER's rules, for one path segment)
PROFILES = tuple(n.upper().replace("-", "_") for n in profiles.NAMES if n != "filename")
# Cells whose Python work still grows with the text: the engine on runs of characters
# with a sequence rule (zero-width bits mixing ZWJ) judges their findings one by one
# (PROMPT: each listed payload read in Python; the others are counted in C,
# ``_carrier_runs.payload_spans``; a listed carrier run costs no Python call:
# ``_listing``, each distinct run's detail said once; a listed mark run neither:
# ``_speedups.list_mark_runs``).
_ALL = tuple(APIS)
_INSPECT = ("inspect",)
KNOWN = {
    *(
        (k, "PROMPT", api)
        for k, apis in {
            "zero-width bits": _INSPECT,
        }.items()
        for api in apis
    ),
}

# Cells whose Python work the fast tier counts (test_python_work_is_bounded_on_selector_runs)
# that the callgrind matrix leaves out, as it did while they were KNOWN (its run must
# not grow; the C passes they take, clean_edit and count_groups, are counted on other
# kinds there: 2N within 2.2x of N for these too, measured when they were fixed).
CALLS_COUNTED_ONLY = frozenset(
    ("selector runs", p, api) for p in ("TEXT", "SINGLE_LINE") for api in APIS
)
# The valgrind tier leaves out the known cliffs, and cells the fast Python-call guards
# already bound that it did not count before (its time is CI's: about 80 s).
NOT_COUNTED = (
    KNOWN
    | CALLS_COUNTED_ONLY
    | {
        (k, p, "inspect")
        for k in ("tag runs", "one-character payloads", "zero-width bits")
        for p in ("TEXT", "SOURCE")
    }
)


def _cells(kinds: tuple[str, ...]) -> list[object]:
    return [
        pytest.param(
            k, p, api, marks=pytest.mark.xfail(strict=True) if (k, p, api) in KNOWN else ()
        )
        for k in kinds
        for p in PROFILES
        for api in APIS
    ]


def _python_work_is_bounded(kind: str, name: str, api: str) -> None:
    """The Python work does not grow with the text past ``max_findings`` findings: 64 KiB
    and 128 KiB of each kind (over 1,000 findings for the dense kinds) cost the same
    Python calls, give or take a few (the C passes do the rest)."""
    fn, p = getattr(policy_api, api), getattr(profiles, name)
    small, large = sample(kind, 64 * 1024), sample(kind, 128 * 1024)
    _python_calls(lambda: fn(small[:4096], p))  # caches: tables, scanners
    _python_calls(lambda: fn(small, p))  # and what a path builds the first time it runs
    one = _python_calls(lambda: fn(small, p))
    two = _python_calls(lambda: fn(large, p))
    assert two <= one + 20, (one, two)


@needs_c
@pytest.mark.parametrize("kind, name, api", _cells(LEGITIMATE))
def test_python_work_is_bounded_on_legitimate_text(kind: str, name: str, api: str) -> None:
    _python_work_is_bounded(kind, name, api)


@needs_c
@pytest.mark.parametrize("name", ["TEXT", "SINGLE_LINE"])
@pytest.mark.parametrize("api", APIS)
def test_python_work_is_bounded_on_selector_runs(name: str, api: str) -> None:
    """Selectors (marks counted in no combining run) are stripped in the C passes: the
    edit pass, and the count past ``max_findings`` (a selector after a stripped one is
    judged without it: its rule does not accept a selector before it).  64 findings
    listed, 16 KiB and 32 KiB (over 500 and 1,000 selector runs): the same Python calls."""
    fn, p = getattr(policy_api, api), getattr(profiles, name).replace(max_findings=64)
    small, large = sample("selector runs", 16 * 1024), sample("selector runs", 32 * 1024)
    _python_calls(lambda: fn(small[:4096], p))  # caches: tables, scanners
    one = _python_calls(lambda: fn(small, p))
    two = _python_calls(lambda: fn(large, p))
    assert two <= one + 20, (one, two)


@needs_c
@pytest.mark.slow
@pytest.mark.parametrize("kind, name, api", _cells(HOSTILE))
def test_python_work_is_bounded_on_hostile_text(kind: str, name: str, api: str) -> None:
    _python_work_is_bounded(kind, name, api)


# The profiles that list what they find (IDENTIFIER refuses at its first finding).
LISTING = tuple(p for p in PROFILES if p != "IDENTIFIER")
# Cells whose listed findings still cost Python work per finding: ill-formed bytes
# (each listed error is found, decoded around and noted in Python) and, under PROMPT,
# each listed payload, read for what it spells (a dozen calls).
KNOWN_LISTING = {("ill-formed bytes", p) for p in ("TEXT", "SINGLE_LINE", "SOURCE")} | {
    (k, "PROMPT")
    for k in (
        "tag runs",
        "selector runs",
        "zero-width bits",
        "one-character payloads",
        "ill-formed bytes",
    )
}


@needs_c
@pytest.mark.parametrize(
    "kind, name",
    [
        pytest.param(k, p, marks=pytest.mark.xfail(strict=True) if (k, p) in KNOWN_LISTING else ())
        for k in (*LEGITIMATE, *HOSTILE)
        for p in LISTING
    ],
)
def test_listed_findings_cost_no_python_call_each(kind: str, name: str) -> None:
    """inspect lists its findings from one C pass (``list_findings``), each Finding made
    in C at its final offsets, each distinct carrier run's detail said once
    (``_listing.details``): a fixed few Python calls, however many findings are listed,
    whatever their kind, on 64 KiB (1,000 findings listed of the dense kinds, the rest
    counted in C)."""
    p = getattr(profiles, name)
    data = sample(kind, 64 * 1024)
    inspect(data[:4096], p)  # caches: tables, scanners
    listed = len(inspect(data, p).findings)
    calls = _python_calls(lambda: inspect(data, p))
    assert calls <= 100, (listed, calls)


SETUP = """
import sys
sys.path.insert(0, {root!r})
from tests.policy.text_classes import sample
from sanitizer import _policy as policy, profiles
class P:  # 64 findings listed: what grows past them is the count (most of inspect's cost)
    TEXT = profiles.TEXT.replace(max_findings=64)
    SOURCE = profiles.SOURCE.replace(max_findings=64)
def _q(f, *a):
    try:
        return f(*a)
    except Exception:
        return None
"""


@pytest.fixture(scope="module")
def counted_work(tmp_path_factory: pytest.TempPathFactory) -> dict[str, int]:
    """Instructions (callgrind) of each kind, profile and API on N and 2N bytes, not in
    NOT_COUNTED: one valgrind process for the whole matrix (its start-up, most of the cost under
    callgrind, paid once), a child per workload."""
    size = 16 * 1024
    setup = SETUP.format(root=str(Path(__file__).resolve().parents[2]))
    workloads = {}
    for i, kind in enumerate((*LEGITIMATE, *HOSTILE)):
        setup += f"d{i}_1 = sample({kind!r}, {size})\nd{i}_2 = sample({kind!r}, {2 * size})\n"
        for p in ("TEXT", "SOURCE"):
            for api, call in APIS.items():
                if (kind, p, api) in NOT_COUNTED:
                    continue
                setup += call.format(d=f"d{i}_1[:4096]", p=p) + "\n"  # warms the caches
                for n in (1, 2):
                    workloads[f"{kind}|{p} {api}|{n}"] = call.format(d=f"d{i}_{n}", p=p)
    return instructions(setup, workloads, tmp_path_factory.mktemp("callgrind"))


@needs_c
@needs_callgrind
@pytest.mark.slow  # one valgrind process, four workloads
def test_text_that_normalization_changes_costs_a_few_decodes(
    tmp_path: Path,
) -> None:
    """Vietnamese in NFD (NFC changes every word) through TEXT: one C edit pass, one C
    pass that normalizes and counts the runs of marks, one scan of what it made -- a few
    times the decode of the same bytes in instructions (callgrind), not the 8x and more
    the engine cost when it also read the text for its runs and normalized through a
    buffer (the cost matrix's goal, in time, is 3x)."""
    setup = SETUP.format(root=str(Path(__file__).resolve().parents[2]))
    # 64 KiB: the size whose fixed costs (the Python calls) no longer hide the passes
    setup += "d = sample('Vietnamese NFD', 65536)\n"
    setup += "".join(call.format(d="d[:4000]", p="TEXT") + "\n" for call in APIS.values())
    workloads = {"decode": "d.decode()"}
    workloads.update({api: call.format(d="d", p="TEXT") for api, call in APIS.items()})
    counted = instructions(setup, workloads, tmp_path)
    ratios = {api: counted[api] / counted["decode"] for api in APIS}
    assert all(r < 7.6 for r in ratios.values()), ratios  # (8.1x to 8.6x before)


@needs_c
@needs_callgrind
@pytest.mark.slow  # one valgrind process for every kind: a few minutes in all
@pytest.mark.parametrize("kind", (*LEGITIMATE, *HOSTILE))
def test_instructions_grow_linearly(kind: str, counted_work: dict[str, int]) -> None:
    """Instructions (callgrind) on 2N bytes within 2.2x of N, for each API and profile
    not in NOT_COUNTED: nothing superlinear in C either."""
    bad = []
    for name, one in counted_work.items():
        what, cell, n = name.split("|")
        if what == kind and n == "1":
            two = counted_work[f"{what}|{cell}|2"]
            if two > 2.2 * max(one, 1):
                bad.append(f"{cell}: {one:,} -> {two:,}")
    assert not bad, bad


def test_every_kind_has_a_sample() -> None:
    for kind in (*LEGITIMATE, *HOSTILE):
        data = sample(kind, 1000)
        assert 500 <= len(data) <= 1000


_CARRIER_ALPHABET = [
    *"葛辻a ❤\n",
    *map(chr, (0xE0100, 0xE0101, 0xE0110, 0xFE00, 0xFE0F, 0x180B, 0x180E, 0x17B4)),
    *"\u200b\u200c\u200d\u2060\u200e\u200f\u061c\ufff9\ufffa\ufffb\u0600\u0915\u094d",
    *map(chr, (0xE0001, 0xE0041, 0xE0067, 0xE007F, 0x1F3F4)),
]


@needs_c
def test_reveal_runs_matches_reference() -> None:
    """``_speedups.reveal_runs`` reads the runs ``reveal_runs_reference`` reads, and stops
    where it stops, from every candidate, with and without the IVD scan; with a reader,
    the payloads of the runs it reads itself are ``read_run``'s, with code-point or byte
    offsets (the anchor anywhere before the run)."""
    assert speedups is not None
    args = (*_reveal._c_tables(), _reveal.c_kinds(), _reveal.ivd_table())
    rng = random.Random(7)
    for _ in range(600):
        text = "".join(rng.choice(_CARRIER_ALPHABET) for _ in range(rng.choice([1, 6, 40])))
        for ivd_on in (False, True):
            start = 0
            while start < len(text):
                done = rng.randrange(start + 1)
                limit = rng.choice([0, 1, 3, 100])
                at_index = rng.randrange(start + 1)
                at_byte = rng.choice([-1, len(text[:at_index].encode())])
                for reader in (False, True):
                    c_reader = _reveal._c_reader() if reader else None
                    where = (ivd_on, start, done, limit)
                    got = speedups.reveal_runs(text, *args, *where, c_reader, at_index, at_byte)
                    want = _reveal.reveal_runs_reference(text, *where, reader, at_index, at_byte)
                    assert got == want, (text, ivd_on, start, done, limit, reader, at_byte)
                start = _reveal._candidates(text, start + 1)


# carrier-dense texts: every channel, runs after U+1F3F4, selectors after their bases,
# bits of one to five symbols, characters of 1 to 4 UTF-8 bytes between them
_DENSE = [
    *_CARRIER_ALPHABET,
    *"\u2062\u2063\u2064\u200e\u200f\u061cé",
    "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
    "\U000e0067\U000e0062\U000e007f",
    "\u200b\u200c" * 5,
    "\u200e\u200f\u061c\u200e\u200f\u061c\u200e\u200f\u061c\u200e",
    "\u2764\ufe0f\ufe01\ufe02",
    "\u845b\U000e0100\U000e0101",
]


def _dense_texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return [
        "".join(rng.choice(_DENSE) for _ in range(rng.choice([2, 10, 60]))) for _ in range(count)
    ]


@needs_c
def test_reveal_reads_in_c_what_python_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """``reveal`` with the mechanical runs read in C (``_reads_in_c``) finds what the
    pure-Python backend finds on carrier-dense texts, as str and as bytes (byte offsets
    built in the walk), and on runs longer than ``RUN_CAP`` (read in Python)."""
    texts = _dense_texts(9, 150)
    cap = _reveal.RUN_CAP
    texts += [
        "é" + "\U000e0041" * (cap + 3) + "\U000e007f" + "\U000e0042",
        "é" + "\u200b\u200c\u200d\u2060" * (cap // 4 + 1) + "x",
        "é" + "\ufe01" * (cap + 1),
    ]
    got = [(reveal(t), reveal(t.encode())) for t in texts]
    monkeypatch.setattr(_reveal, "speedups", None)
    from sanitizer._policy import _blank_bits

    monkeypatch.setattr(_blank_bits, "speedups", None)
    assert got == [(reveal(t), reveal(t.encode())) for t in texts]


@needs_c
def test_a_hidden_built_in_c_is_a_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``Hidden`` built in C is the dataclass the Python readers build: equal, the same
    hash, repr, fields in order and pickle, frozen."""
    text = "a\U000e0041\U000e007f b\ufe01\ufe02 c" + "\u200b\u200c\u200d\u2060" * 3 + "é\U000e007f"
    built = [*reveal(text), *reveal(text.encode())]
    assert [h.channel for h in built[:4]] == [
        Channel.TAGS,
        Channel.VARIATION_SELECTORS,
        Channel.ZERO_WIDTH_BITS,
        Channel.TAGS,
    ]
    monkeypatch.setattr(_reveal, "speedups", None)
    want = [*reveal(text), *reveal(text.encode())]
    assert built == want
    for got, ref in zip(built, want, strict=True):
        assert type(got) is Hidden and hash(got) == hash(ref) and repr(got) == repr(ref)
        assert list(vars(got)) == list(vars(ref))
        assert pickle.dumps(got) == pickle.dumps(ref) and pickle.loads(pickle.dumps(got)) == ref
        with pytest.raises(dataclasses.FrozenInstanceError):
            got.start = 0  # type: ignore[misc]


@needs_c
@pytest.mark.parametrize(
    "kind", ["tag runs", "selector runs", "zero-width bits", "one-character payloads"]
)
def test_reveal_reads_hostile_runs_in_c(kind: str) -> None:
    """``reveal`` on the floods whose runs read mechanically: the Python work does not
    grow with the payloads (their ``Hidden`` built in C, str and bytes alike), but for
    a C call per 4,096 runs (and the run read in Python where it stops): 32 KiB
    within two such calls of 16 KiB (170 to 5,500 payloads)."""
    small, large = sample(kind, 16 * 1024), sample(kind, 32 * 1024)
    for data in (small, small.decode()):
        reveal(data)  # caches: tables
    for one, two in ((small, large), (small.decode(), large.decode())):
        calls = (
            _python_calls(functools.partial(reveal, one)),
            _python_calls(functools.partial(reveal, two)),
        )
        assert calls[1] <= calls[0] + 24, (kind, type(one), calls)
        assert len(reveal(two)) >= 2 * len(reveal(one)) - 1 > 300


class _NoRuns:
    """The C extension without ``reveal_runs``' walk: every candidate read in Python."""

    def __getattr__(self, name: str) -> object:
        return getattr(speedups, name)

    @staticmethod
    def reveal_runs(
        text: str, *args: object
    ) -> tuple[list[object], object, object, object, object]:
        return [], args[-6], args[-5], args[-2], args[-1]


@needs_c
def test_reveal_with_runs_in_c_finds_what_python_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """``iter_find`` with the runs read in one C pass finds what it finds reading each
    candidate in Python: every payload, in order, and a caller that stops at the first."""
    rng = random.Random(8)
    texts = [
        "".join(rng.choice(_CARRIER_ALPHABET) for _ in range(rng.choice([3, 20, 80])))
        for _ in range(150)
    ]
    texts += [sample(k, 600).decode("utf-8", "replace") for k in HOSTILE]
    texts += _dense_texts(10, 100)
    got = [_reveal.find(t) for t in texts]
    as_bytes = [reveal(t.encode()) for t in texts]
    firsts = [next(_reveal.iter_find(t), None) for t in texts]
    monkeypatch.setattr(_reveal, "speedups", _NoRuns())
    assert got == [_reveal.find(t) for t in texts]
    assert as_bytes == [reveal(t.encode()) for t in texts]
    assert firsts == [next(_reveal.iter_find(t), None) for t in texts]
