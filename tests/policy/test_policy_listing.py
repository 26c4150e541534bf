"""The findings ``inspect`` lists from one C pass (``_speedups.list_findings``) are the
engine's, Finding by Finding.

- ``list_findings`` agrees with its pure-Python statement ``_listing.findings_reference``
  (every field of every Finding in its dict's order, the runs whose detail is pending,
  the counts, the highest severity, the bar), at text indices and at byte offsets,
  ill-formed subparts included, over and under the limit;
- a report listed in C equals the engine's alone (no C pass: what the pure-Python
  backend runs), Finding by Finding (fields, dict order, repr, pickle,
  ``dataclasses.replace``), on texts dense in findings, str, UTF-8 and ill-formed bytes,
  over and under ``max_findings``;
- the listing costs no Python call per finding (only a carrier run's detail does).
"""

from __future__ import annotations

import dataclasses
import pickle
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer import profiles
from sanitizer._categories import Category, category_of
from sanitizer._native import speedups
from sanitizer._policy import Action, _listing, _reveal, inspect
from sanitizer._policy._carrier_runs import FAMILY, span_detail
from sanitizer._policy._model import Finding, Policy, Report, new_finding
from sanitizer._policy._run import Run, _group_table
from sanitizer._policy._scan import scanner
from sanitizer._policy.compiled import compile_policy
from tests.policy.test_policy_cliffs import EXTRA, POLICIES, _engine_report
from tests.policy.test_policy_edits import FILLERS, SPECIALS

needs_c = pytest.mark.skipif(speedups is None, reason="needs the C extension")

# Ill-formed pieces (Unicode §3.9: one U+FFFD per maximal subpart), and a literal U+FFFD.
ILL = [b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\xf0\x9f\x98", b"\xef\xbf\xbd"]
DENSE = [*SPECIALS, *EXTRA, "\u00ad\u00ad", "\U000e0041\U000e0042", "\u200b\u200c\u200d"]
FILL = "".join(FILLERS.values())


def _dense(rng: random.Random, n: int, rate: float) -> str:
    return "".join(rng.choice(DENSE) if rng.random() < rate else rng.choice(FILL) for _ in range(n))


def _as_input(rng: random.Random, text: str, form: str) -> bytes | str:
    """``text`` as str, as UTF-8, or as UTF-8 with ill-formed pieces put between
    characters."""
    if form == "str":
        return text
    if form == "utf8":
        return text.encode("utf-8", "surrogatepass")
    out = b""
    for ch in text:
        if rng.random() < 0.15:
            out += rng.choice(ILL)
        out += ch.encode("utf-8", "surrogatepass")
    return out


def _fields(findings: tuple[Finding, ...] | list[Finding]) -> list[list[tuple[str, object]]]:
    """Every field, in the dict's order (an error, equal only to itself, by its repr)."""
    return [[(k, repr(v) if k == "error" else v) for k, v in vars(f).items()] for f in findings]


def _same(got: Report, want: Report, where: object) -> None:
    assert (got.ok, got.text) == (want.ok, want.text), where
    assert _fields(got.findings) == _fields(want.findings), where
    assert got.findings == want.findings, where
    assert [repr(f) for f in got.findings] == [repr(f) for f in want.findings], where
    assert [pickle.loads(pickle.dumps(f)) for f in got.findings] == list(want.findings), where
    assert [dataclasses.replace(f) for f in got.findings] == list(want.findings), where
    assert (got.more_findings, got.more_allowed) == (want.more_findings, want.more_allowed)


def _reports_agree(data: bytes | str, policy: Policy) -> None:
    compiled = compile_policy(policy)
    got = Run(data, compiled).report()
    _same(got, _engine_report(data, compiled, False), (data, policy.name))


@needs_c
def test_list_findings_matches_reference() -> None:
    assert speedups is not None
    rng = random.Random(12)
    for trial in range(800):
        policy = rng.choice(POLICIES)
        compiled = compile_policy(policy)
        scan = scanner(compiled.scanned, policy.allow_sequences)
        assert scan.c_args is not None
        stage1, stage2, tables, _ = scan.c_args
        groups = _group_table(policy, scan.cats, rng.random() < 0.5)
        text = _dense(rng, rng.choice([1, 20, 90]), rng.choice([0.2, 0.6]))
        form = rng.choice(["str", "utf8", "ill"])
        run = Run(_as_input(rng, text, form), compiled)
        anchors: tuple[list[int], list[int]] | None = None
        last = len(text)
        if form != "str":
            assert run.raw is not None
            run._decode(run.raw)  # the text, and its listed errors (max_findings of them)
            text = run.text
            last = len(text)
            if run.ill_formed:
                anchors = (run.error_index, run.error_bytes)
                assert run.error_bytes == [e.end - e.start for e in run.errors]
            else:
                anchors = ([], [])
            if rng.random() < 0.3 and run.error_index:
                last = rng.choice(run.error_index)
        limit = rng.choice([-1, 0, 1, 3, 1000])
        made = _listing.templates(policy)
        args = (text, stage1, stage2, tables, limit, groups, True, made, anchors, last)
        got = speedups.list_findings(*args)
        want = _listing.findings_reference(*args)
        if want is None:
            assert got is None, (trial, text)
            continue
        assert got is not None, (trial, text)
        found, pending, *rest = got
        assert _fields(found) == _fields(want[0]), (trial, text, form)
        assert [(vars(f), s, e) for f, s, e in pending] == [(vars(f), s, e) for f, s, e in want[1]]
        assert all(any(f is g for g in found) for f, _, _ in pending)
        assert tuple(rest) == want[2:], (trial, text, form)


def _marked(rng: random.Random, n: int) -> str:
    """Texts of runs of marks of every length around a limit, between dense findings."""
    marks = ["\u0301", "\u0323", "\u0e49", "\U0001d167", "\u05b0"]
    out = []
    for _ in range(n):
        if rng.random() < 0.6:
            out.append(rng.choice("aé\u0915") + "".join(rng.choices(marks, k=rng.randint(0, 7))))
        else:
            out.append(_dense(rng, 2, 0.5))
    return "".join(out)


@needs_c
def test_list_mark_runs_matches_reference() -> None:
    """``list_mark_runs`` is ``_listing.mark_runs_reference``: every field of every run's
    Finding in its dict's order, at text indices and at byte offsets (ill-formed
    subparts), from any run's end, over and under the limit, before and after ``last``."""
    assert speedups is not None
    from sanitizer._policy._scan import _c_mark_tables, mark_runs

    rng = random.Random(15)
    for trial in range(400):
        max_run = rng.choice([0, 1, 2, 3, 5])
        form = rng.choice(["str", "utf8", "ill"])
        data = _as_input(rng, _marked(rng, rng.choice([1, 10, 40])), form)
        run = Run(data, compile_policy(profiles.TEXT))
        anchors: tuple[list[int], list[int]] | None = None
        if form == "str":
            text = run.text
        else:
            assert run.raw is not None
            run._decode(run.raw)
            text = run.text
            anchors = (run.error_index, run.error_bytes) if run.ill_formed else ([], [])
        runs = list(mark_runs(text, max_run))
        start = rng.choice([0, *(e for _, e in runs)])
        last = rng.choice([len(text), *(s for s, _ in runs), *(s - 1 for s, _ in runs)])
        cap = rng.choice([-1, 0, 1, 2, 1000])
        made = _listing.run_template(rng.choice([Action.REJECT, Action.ALLOW]))
        args = (text, max_run, start, cap, made, anchors, last)
        got, more = speedups.list_mark_runs(
            text, *_c_mark_tables(), max_run, start, cap, made, anchors, last
        )
        want, want_more = _listing.mark_runs_reference(*args)
        where = (trial, text, form, max_run, start, cap, last)
        assert _fields(got) == _fields(want), where
        assert more == want_more, where
        assert all(type(f) is Finding for f in got)


@needs_c
@pytest.mark.parametrize("act", [Action.REJECT, Action.ALLOW, Action.STRIP])
@pytest.mark.parametrize("cap", [0, 1, 4, None])
def test_mark_runs_listed_in_c_are_the_engines(act: Action, cap: int | None) -> None:
    """Runs of marks over the limit between dense findings, str and bytes (well-formed or
    not): the report listed in C (the runs made by ``list_mark_runs``, at input offsets
    when the scan's groups were listed in C) is the engine's alone."""
    rng = random.Random(f"{act.value}{cap}")
    for _ in range(40):
        policy = rng.choice(POLICIES).replace(max_findings=cap, max_combining=rng.choice([1, 3]))
        policy = policy.with_actions(COMBINING_RUN=act)
        text = _marked(rng, rng.choice([5, 30]))
        _reports_agree(_as_input(rng, text, rng.choice(["str", "utf8", "ill"])), policy)


@needs_c
@pytest.mark.parametrize("window", [1, 2, 3, 7, 64])
def test_character_groups_listed_in_c_are_the_engines(
    window: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``character_groups`` listed by the C walk a window at a time (runs across a
    window's end, longer than a window) is the engine's walk (``grouped`` over ``hits``):
    every group's category, place, action, code point, detail and members."""
    from sanitizer._policy import compiled
    from sanitizer._policy._carrier_runs import grouped
    from sanitizer._policy._scan import hits, scanner

    monkeypatch.setattr(compiled, "GROUPS_WINDOW", window)
    rng = random.Random(window)
    every_cat = sorted({c for c in map(category_of, map(ord, "".join(DENSE))) if c}, key=str)
    for trial in range(150):
        policy = rng.choice(POLICIES)
        cats = frozenset(rng.sample(every_cat, rng.randint(1, len(every_cat))))
        text = _dense(rng, rng.choice([1, 10, 60]), rng.choice([0.3, 0.8]))
        got = list(compiled.character_groups(text, policy, cats))
        scan = scanner(cats, policy.allow_sequences)
        found = hits(text, scan, policy.allow_sequences, None, policy.joiner_contexts)
        want = list(grouped(found, text, policy.actions))
        where = (trial, text, policy.name, sorted(c.name for c in cats))
        assert [
            (g.category, g.start, g.end, g.action, g.codepoint, g.detail, g.members) for g in got
        ] == [
            (g.category, g.start, g.end, g.action, g.codepoint, g.detail, g.members) for g in want
        ], where


@needs_c
@pytest.mark.parametrize("cap", [0, 1, 5, 40, None])
def test_reports_listed_in_c_are_the_engines(cap: int | None) -> None:
    """Dense texts, str and bytes (well-formed or not), under and over the cap."""
    rng = random.Random(cap or 0)
    for _ in range(60):
        policy = rng.choice(POLICIES).replace(max_findings=cap)
        text = _dense(rng, rng.choice([10, 80, 200]), rng.choice([0.3, 0.8]))
        _reports_agree(_as_input(rng, text, rng.choice(["str", "utf8", "ill"])), policy)


@needs_c
@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None, max_examples=100)
@given(
    st.lists(st.sampled_from([*DENSE, *FILL, *(b.decode("latin-1") for b in ILL)]), max_size=50),
    st.sampled_from(POLICIES),
    st.sampled_from([0, 1, 2, 7, None]),
    st.sampled_from(["str", "utf8", "ill"]),
)
def test_reports_listed_in_c_are_the_engines_property(
    pieces: list[str], policy: Policy, cap: int | None, form: str
) -> None:
    ill = {b.decode("latin-1"): b for b in ILL}
    if form == "str":
        data: bytes | str = "".join(p for p in pieces if p not in ill)
    else:
        data = b"".join(
            ill[p] if p in ill else p.encode("utf-8", "surrogatepass")
            for p in pieces
            if form == "ill" or p not in ill
        )
    _reports_agree(data, policy.replace(max_findings=cap))


@needs_c
def test_listing_makes_no_python_call_a_finding() -> None:
    """1,000 single-character findings (German soft hyphens, C0/C1 controls): a fixed
    few Python calls for all of them, str and bytes."""
    from tests.policy.text_classes import sample
    from tests.support.counted_calls import python_calls as _python_calls

    for kind in ("German with soft hyphens", "C0/C1 floods"):
        data = sample(kind, 64 * 1024)
        for value in (data, data.decode()):
            inspect(value[:4096], profiles.TEXT)  # caches: tables, scanners
            assert len(inspect(value, profiles.TEXT).findings) == 1000
            calls = _python_calls(lambda v=value: inspect(v, profiles.TEXT))  # type: ignore[misc]
            assert calls <= 40, (kind, type(value), calls)


def test_carriers_are_the_characters_carrier_run_reads_through() -> None:
    """``_listing.CARRIERS`` (its pattern, its set) is ``_reveal._is_carrier`` (at every
    range's edges)."""
    pattern = _listing._carrier_patterns()[0]
    edges = {cp + d for lo, hi in _listing.CARRIERS for cp in (lo, hi) for d in (-1, 0, 1)}
    edges |= {cp for lo, hi in _listing.CARRIERS for cp in range(lo, min(hi, lo + 300) + 1)}
    for cp in sorted(edges):
        if 0 <= cp < 0x110000:
            assert bool(pattern.match(chr(cp))) == _reveal._is_carrier(cp), hex(cp)
            assert (chr(cp) in _listing._carrier_set()) == _reveal._is_carrier(cp), hex(cp)


# Runs of one carrier family, repeated with different characters around them: the same
# run must be told apart by its context (a tag base, a selector's base, a bit's neighbour).
_RUNS = [
    "\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",  # an RGI tag_spec
    "".join(chr(0xE0000 + ord(c)) for c in "hi there"),
    "\ufe0f\ufe0e\ufe0f",
    "\ufe00\ufe01\ufe02\ufe03\ufe00\ufe01\ufe02\ufe03",
    "\U000e0100\U000e0101",
    "\u200b\u200c\u200b\u200c\u200c\u200b\u200c\u200b" * 2,
    "\u200e\u200f\u200e\u200e\u200f\u200f\u200e\u200f",
    "\u200d\u200d",
]
_AROUND = ["a", " ", "\U0001f3f4", "\u845b", "\u2764", "\u0915\u094d", "", "\ufe0f", "\u200b"]


def _family_runs(text: str) -> list[tuple[int, int]]:
    """The multi-character runs of one carrier family (the engine's carrier groups)."""
    out = []
    i = 0
    while i < len(text):
        cat = category_of(ord(text[i]))
        fam = FAMILY.get(cat) if cat is not None else None
        j = i + 1
        while fam is not None and j < len(text):
            nxt = category_of(ord(text[j]))
            if nxt is None or FAMILY.get(nxt) != fam:
                break
            j += 1
        if fam is not None and j - i > 1:
            out.append((i, j))
        i = j
    return out


def test_details_are_span_detail() -> None:
    """``_listing.details`` (each distinct run in its context worked out once) says what
    ``span_detail`` says of every run: the same runs in different contexts, stretches
    longer than it remembers, runs at the text's edges."""
    rng = random.Random(4)
    for trial in range(300):
        runs, around = rng.sample(_RUNS, 2), rng.sample(_AROUND, 3)  # often met again
        pieces = [rng.choice(around) + rng.choice(runs) for _ in range(rng.choice([1, 4, 12]))]
        if rng.random() < 0.1:
            pieces.insert(rng.randrange(len(pieces) + 1), "\U000e0041" * 300)
        text = "".join(pieces) + rng.choice(around)
        spans = _family_runs(text)
        spans += [(s + 1, e) for s, e in spans if e - s > 2 and rng.random() < 0.3]
        spans.sort()
        pending = [(new_finding(Category.TAG, s, e, Action.ALLOW), s, e) for s, e in spans]
        _listing.details(text, pending)
        for finding, s, e in pending:
            assert finding.detail == span_detail(text, s, e), (trial, text, s, e)


@pytest.mark.parametrize("act", [Action.REJECT, Action.ALLOW])
def test_a_capped_report_is_the_full_reports_first_findings(act: Action) -> None:
    """Under any ``max_findings`` the listed findings are the first of the uncapped list
    and the rest are counted (ALLOW ones apart), whatever lists them (the C pass, the
    engine, mark runs past the last listed one only counted): texts dense in findings
    and in runs of marks over the limit."""
    rng = random.Random(act.value)
    marks = ["a" + "\u0301" * k for k in (1, 3, 5, 9)]
    for trial in range(30):
        base = rng.choice(POLICIES).replace(max_combining=rng.choice([2, 4]))
        base = base.with_actions(COMBINING_RUN=act)
        text = "".join(
            rng.choice(marks) if rng.random() < 0.5 else _dense(rng, 3, 0.5) for _ in range(30)
        )
        data = _as_input(rng, text, rng.choice(["str", "utf8", "ill"]))
        full = inspect(data, base.replace(max_findings=None))
        for cap in (0, 1, 3, 10):
            got = inspect(data, base.replace(max_findings=cap))
            where = (trial, data, base.name, cap)
            assert (got.ok, got.text) == (full.ok, full.text), where
            assert _fields(got.findings) == _fields(full.findings[:cap]), where
            rest = full.findings[cap:]
            assert got.more_findings == len(rest), where
            assert got.more_allowed == sum(f.action is Action.ALLOW for f in rest), where
