"""The source gate over a text read in pieces: the same report as over the whole text,
every bidi control, joiner and invisible judged whether listed or not (none passes
because it comes after the 1000th finding), memory and work bounded by the listed
findings, and the rules that keep real trees free of false alarms (words written
without spaces, generated character tables, placeholders glued to right-to-left words)
without letting a Trojan Source sample through."""

from __future__ import annotations

import itertools
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer import _source_gate as source_gate
from sanitizer import profiles
from sanitizer._policy import Action, Policy
from sanitizer._policy.compiled import CUT_SEQUENCE, cut_inside, piece_end
from sanitizer._source_gate import check_source, check_source_pieces
from tests.policy import source_samples as samples
from tests.support.settings import examples

# What the rules look at: bidi controls and the delimiters their pairs may straddle,
# joiners beside viramas and joining letters, ZWSP beside Khmer and Latin, identifiers
# that look alike across scripts, emoji sequences, marks, line separators, selectors.
VOCABULARY = [
    "x = ", " ", "'", '"', "#", "//", "/*", "*/", "(", "-", "\\", "\n", "\r\n", "\u2028",
    "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
    "\u200d", "\u200c", "\u200b", "\u00ad", "\ufe0f", "\u20e3", "1", "\u0301\u0301", "\x00",
    "\u0915\u094d", "\u0644", "\u1781\u1784", "\u1798", "p\u0430ypal", "paypal", "post",
    "p\u043est", "\u01c3", "caf\u00e9", "\U0001f468", "\U0001f469", "\u05d1F", "%s\u0628\u0698",
    "\u0417\u0434\u0440\u0430\u0432\u0441\u0442\u0432\u0443\u0439", "a_b",
]  # fmt: skip
texts = st.lists(st.sampled_from(VOCABULARY), max_size=60).map("".join)


def cut(text: str, window: int) -> tuple[list[str], bool]:
    """``text`` in the pieces ``piece_end`` cuts with ``window`` bytes, and whether a cut
    was forced."""
    data = text.encode()
    pieces, start, forced = [], 0, False
    while start < len(data):
        end, was_forced = piece_end(data, start, window)
        forced = forced or was_forced
        pieces.append(data[start:end].decode())
        start = end
    return pieces, forced


@settings(max_examples=examples(300), deadline=None)
@given(texts, st.integers(5, 48), st.booleans(), st.integers(0, 4))
def test_pieces_report_what_the_whole_reports(text: str, window: int, code: bool, cap: int) -> None:
    policy = profiles.SOURCE.replace(max_findings=cap or None)
    pieces, forced = cut(text, window)
    whole = check_source(text, policy, code=code)
    piecewise = check_source_pieces(lambda: pieces, policy, code=code)
    if forced:  # a line with no safe place to cut: the verdict may only get stricter
        assert piecewise.ok <= whole.ok
    else:
        assert piecewise == whole


# Where forced cuts fall inside sequences: marks (a run of 40 is past max_combining),
# regional indicators, emoji modifiers, tags, selectors, Hangul jamo, zero-width runs,
# and the ASCII that rule 2 never cuts beside ('%' glued to a word, '/' and '*', CR LF).
FORCED = [
    *VOCABULARY, "\u2060", "\u0301" * 40, "\U0001f1fa", "\U0001f1f8", "\U0001f3fb",
    "\u1100", "\u1161", "\u11a8", "\U000e0067", "\U000e007f", "\U0001f3f4", "\u200e",
    "\ufe0e", "\x0c", "\x0b", "%", "*", "/", "s",
]  # fmt: skip


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(st.sampled_from(FORCED), max_size=30).map("".join), st.integers(5, 24), st.booleans()
)
def test_a_cut_inside_a_sequence_is_refused_there(text: str, window: int, code: bool) -> None:
    """Small windows, so that cuts are forced inside sequences: never laxer than the
    whole, and each cut inside a sequence (``cut_inside``) one ``too-long`` finding."""
    pieces, forced = cut(text, window)
    whole = check_source(text, code=code)
    piecewise = check_source_pieces(lambda: pieces, code=code)
    if forced:
        assert piecewise.ok <= whole.ok
    else:
        assert piecewise == whole
    inside, at = [], 0
    for before, after in itertools.pairwise(pieces):
        at += len(before)
        if cut_inside(ord(before[-1]), ord(after[0])):
            inside.append(at)
    found = [f for f in piecewise.findings if f.reason == CUT_SEQUENCE]
    assert [f.start for f in found] == inside
    assert all(f.kind == "too-long" and f.action is Action.REJECT for f in found)


@pytest.mark.parametrize("code", [True, False])
@pytest.mark.parametrize(
    ("pieces", "what"),
    [
        (["\u0644\u200d", "\u200b"], "a joiner whose neighbour is in the next piece"),
        (["\u0644\u200b", "\u00ad"], "a run of two invisibles judged one by one"),
        (["a" + "\u0301" * 20, "\u0301" * 20], "40 marks past max_combining, in halves"),
        (["\U0001f1fa", "\U0001f1f8"], "a flag's regional indicators"),
        (["\U0001f468", "\U0001f3fb"], "an emoji and its modifier"),
        (["\U0001f3f4\U000e0067", "\U000e007f"], "a tag sequence"),
        (["\u1100", "\u1161"], "a Hangul syllable's jamo"),
    ],
)
def test_each_sequence_cut_apart_is_refused(pieces: list[str], what: str, code: bool) -> None:
    report = check_source_pieces(lambda: pieces, code=code)
    assert not report.ok, what
    (found,) = [f for f in report.findings if f.reason == CUT_SEQUENCE]
    assert (found.kind, found.start, found.end) == ("too-long", len(pieces[0]), len(pieces[0]))


@pytest.mark.parametrize(
    "text",
    [
        "x = 1\r\ny = 2 # a line of CR LF ends\r\n",
        "x = 1 \x0cy = 2\n",  # a form feed after something on its line
        "a = 1\rb = 2\r" * 3 + "c = 3\n",  # lone CRs before the first line feed
        "s = '%s\u0628\u0698'\n",  # a printf conversion glued to a word
        "x = 1 \u2215* y\n",  # a look-alike of '/' beside '*'
    ],
)
def test_safe_cuts_keep_what_rules_look_across(text: str) -> None:
    """The cuts of rules 1 and 2 at every window: the report of the whole."""
    whole = check_source(text)
    for window in range(5, len(text.encode()) + 1):
        pieces, forced = cut(text, window)
        if not forced:
            assert check_source_pieces(lambda: pieces) == whole, (text, window, pieces)  # noqa: B023


@given(texts)
def test_pieces_are_read_again_only_for_ascii_look_alikes(text: str) -> None:
    calls = []

    def pieces() -> list[str]:
        calls.append(1)
        return [text]

    check_source_pieces(pieces)
    # at most: the first read, one for the ASCII spellings of look-alikes, and, in a
    # file with a confusable, one for its later uses (each reported, ``_later_uses``)
    assert len(calls) <= 3
    if text.isascii():
        assert len(calls) == 1


# A deliberate independent copy of the bidi pairing as it was before the gate read
# texts in pieces (one pass over the whole text, a dict of every verdict): the oracle
# for ``_BidiJudge`` while nesting stays within UAX #9's max_depth.
def oracle_bidi(text: str) -> dict[int, Action]:
    import re

    openers = {"\u202a": "E", "\u202b": "E", "\u202d": "E", "\u202e": "E",
               "\u2066": "I", "\u2067": "I", "\u2068": "I"}  # fmt: skip
    delimiter = re.compile(r"[\"'`#]|//|/\*|\*/")
    verdicts: dict[int, Action] = {}
    stack: list[tuple[str, int]] = []

    def close(opener: int, closer: int) -> None:
        crossed = delimiter.search(text, opener + 1, closer) is not None
        verdicts[opener] = verdicts[closer] = Action.REJECT if crossed else Action.ALLOW

    def unclosed() -> None:
        for _, index in stack:
            verdicts[index] = Action.REJECT
        stack.clear()

    for m in re.finditer("[\u202a-\u202e\u2066-\u2069]|[\n\x0b\x0c\r\x85\u2028\u2029]", text):
        ch, i = m.group(), m.start()
        if ch in openers:
            stack.append((openers[ch], i))
        elif ch == "\u202c":
            if stack and stack[-1][0] == "E":
                close(stack.pop()[1], i)
            else:
                verdicts[i] = Action.REJECT
        elif ch == "\u2069":
            if any(kind == "I" for kind, _ in stack):
                while stack[-1][0] == "E":
                    verdicts[stack.pop()[1]] = Action.REJECT
                close(stack.pop()[1], i)
            else:
                verdicts[i] = Action.REJECT
        else:
            unclosed()
    unclosed()
    return verdicts


@settings(max_examples=examples(500), deadline=None)
@given(texts)
def test_bidi_pairing_equals_the_oracle(text: str) -> None:
    report = check_source(text, profiles.SOURCE.replace(max_findings=None), code=False)
    found = {f.start: f.action for f in report.findings if f.kind == "bidi-control"}
    assert found == oracle_bidi(text)


def test_nesting_past_max_depth_is_refused_and_bounded() -> None:
    line = "\u2066" * 200 + "x" + "\u2069" * 200 + "\n"
    report = check_source(line * 3, profiles.SOURCE.replace(max_findings=None))
    assert not report.ok
    verdicts = [f.action for f in report.findings if f.kind == "bidi-control"]
    assert verdicts.count(Action.ALLOW) == 3 * 2 * 125  # the pairs within max_depth
    judge = source_gate._BidiJudge()
    verdicts, _, counted, allowed, refused = judge.feed("\u202e" * 100_000, 0)
    assert len(judge.stack) == source_gate._MAX_DEPTH
    assert len(verdicts) == refused + len(verdicts) - counted == 100_000 - 125
    assert allowed == 0


def test_a_bidi_flood_is_paired_in_a_few_feeds_with_or_without_a_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The gate hands the judge a whole piece: one feed gives every verdict when nothing
    caps the findings, and a capped run asks again only as its cap's bar moves (a
    feed a control would be Python work a control)."""
    calls = [0]
    real = source_gate._BidiJudge.feed

    def feed(self: object, *args: object) -> object:
        calls[0] += 1
        return real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(source_gate._BidiJudge, "feed", feed)
    flood = "\u2066\u2069" * 20_000
    for cap in (None, 1000):
        calls[0] = 0
        report = check_source(flood, profiles.SOURCE.replace(max_findings=cap), code=False)
        assert report.ok and len(report.findings) + report.more_findings == len(flood)
        assert calls[0] <= 4, (cap, calls[0])


BIDI_VOCABULARY = [*"\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069", "x", " ", "'",
                   "//", "/", "*", "*/", "#", "\n", "\r", "\u2028"]  # fmt: skip
bidi_texts = st.lists(st.sampled_from(BIDI_VOCABULARY), max_size=80).map("".join)
bars = st.one_of(
    st.none(),
    st.tuples(st.integers(0, 1), st.integers(0, 200)).map(lambda t: (t[0], t[1], t[1] + 1, 0)),
)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(bidi_texts, min_size=1, max_size=4), bars, st.integers(-1, 4), st.booleans())
def test_bidi_feed_in_c_equals_its_twin(
    pieces: list[str], bar: tuple[int, int, int, int] | None, room: int, deep: bool
) -> None:
    """``_BidiJudge.feed`` in C (``bidi_feed``) and its twin give the same verdicts, the
    same place to go on, the same counts and leave the same state, piece after piece,
    whatever the cap's bar and the room (a nesting past max_depth too)."""
    if source_gate.speedups is None:
        pytest.skip("the C extension is not in use")
    if deep:
        pieces = ["\u2066" * 127 + pieces[0], *pieces[1:]]
    c_judge, py_judge = source_gate._BidiJudge(), source_gate._BidiJudge()
    at = 0
    for piece in pieces:
        start = 0
        while start >= 0:
            got = source_gate.speedups.bidi_feed(c_judge, piece, at, start, bar, room)
            want = py_judge._feed_py(piece, at, start, bar, room)
            assert got == want
            assert (c_judge.stack, c_judge.isolates, c_judge.crossed, c_judge.overflow) == (
                py_judge.stack,
                py_judge.isolates,
                py_judge.crossed,
                py_judge.overflow,
            )
            assert want[1] == -1 or want[1] > start  # each call reads a control at least
            start = want[1]
        at += len(piece)
    assert c_judge.end() == py_judge.end()


# -- nothing passes, nor goes unlisted, for coming after allowed findings ---------------


@pytest.mark.parametrize(
    "late",
    [
        "s = '\u202eevil' # unpaired RLO\n",
        "q\u200dz = 1\n",  # a joiner outside the contexts of UAX #31
        "is\u200badmin = 1\n",  # an invisible
    ],
)
def test_a_refusal_after_the_cap_still_fails(late: str) -> None:
    paired = "# ok \u202a x \u202c\n" * 1001  # 2002 allowed findings first
    report = check_source(paired + late)
    assert not report.ok
    assert len(report.findings) == 1000
    # Listed: the cap keeps refused findings before allowed ones.
    assert sum(f.refused for f in report.findings) == 1
    assert report.more_findings == report.more_allowed == 2002 - 999


def test_flood_builds_no_more_findings_than_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    built = []
    real = source_gate.SourceFinding.__init__

    def counting(self: object, *args: object, **kwargs: object) -> None:
        built.append(1)
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(source_gate.SourceFinding, "__init__", counting)
    text = "\u202e" * 50_000 + "\n" + "\u200b" * 50_000 + "\n" + "q\u200dz\n" * 20_000
    report = check_source(text)
    assert not report.ok
    # 50,000 controls, one run of invisibles (one finding: ``_carrier_runs``), 20,000 joiners
    assert report.more_findings == 70_001 - 1000
    assert len(built) <= 3 * 1000  # the listed ones, and those trimmed off the list


def peak(text: str, policy: Policy | None = None) -> int:
    tracemalloc.start()
    try:
        pieces = lambda: (text[i : i + 4096] for i in range(0, len(text), 4096))  # noqa: E731
        check_source_pieces(pieces, policy)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow  # tracemalloc over floods of megabytes
@pytest.mark.parametrize("unit", ["\u202e", "\u202a\u202c", "\u200b", "q\u200dz ", "\u2028"])
def test_memory_does_not_grow_with_a_flood(unit: str) -> None:
    """Past the listed findings (a few here: a run of invisibles is one a piece, and
    nothing of it is kept but its finding) nothing grows with the flood."""
    policy = profiles.SOURCE.replace(max_findings=3)
    small, large = unit * (20_000 // len(unit)), unit * (80_000 // len(unit))
    peak(small, policy)  # what is built once (tables, patterns) is not the input's
    assert peak(large, policy) < 1.3 * peak(small, policy)


def test_distinct_identifiers_are_bounded_and_fail_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source_gate, "_MAX_IDENTIFIERS", 50)
    words = " ".join("\u0436" + chr(0x430 + k % 32) + chr(0x430 + k // 32) for k in range(200))
    report = check_source(words + "\n")
    assert not report.ok
    assert [f.kind for f in report.findings] == ["too-long"]


def test_a_forced_cut_inside_a_word_fails_closed() -> None:
    word = "\u0436" * 40 + "abc"  # one identifier, no place to cut but inside it
    pieces, forced = cut(word, 16)
    assert forced
    report = check_source_pieces(lambda: pieces)
    assert not report.ok
    assert {f.kind for f in report.findings} == {"too-long"}


# -- what real trees hold ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        'msgstr "\u179b\u17c1\u1781\u200b\u179f\u17c6\u1782\u17b6\u179b\u17cb"\n',  # Khmer
        "# \u1019\u103c\u1014\u103a\u200b\u1019\u102c\n",  # Myanmar
        "s = '\u0e20\u0e32\u0e29\u0e32\u200b\u0e44\u0e17\u0e22'\n",  # Thai
    ],
)
def test_zero_width_space_between_words_of_spaceless_scripts(text: str) -> None:
    assert check_source(text) == check_source(text.replace("\u200b", " "))
    assert check_source(text).ok


@pytest.mark.parametrize(
    "text",
    [
        "is\u200badmin = True\n",  # between Latin letters: hidden
        "x = '\u200b\u1781'\n",  # at a word's edge, not between two words
        "\u1781\u200b\n",
    ],
)
def test_zero_width_space_elsewhere_is_refused(text: str) -> None:
    report = check_source(text)
    assert not report.ok
    assert [f.kind for f in report.findings if f.refused] == ["invisible"]


@pytest.mark.parametrize(
    "text",
    [
        'msgstr "Boolean (\u17a2\u17b6\u1785 True\u200b \u179a\u17ba False)"\n',  # Khmer
        'msgstr "\u1791\u17b7\u1793\u200b\u200b\u200b\u00a0\u179a"\n',  # a repeated separator
        'msgstr "vari\u00e1veis \u200b\u200bde uma"\n',  # left by a translation tool
        "# sag\u200be <someone@example.com>\n",
        "long\u200bword\u200bwith\u200bbreaks\n",
    ],
)
def test_zero_width_space_in_text_is_allowed(text: str) -> None:
    """In text that is not code a ZWSP is a line-break opportunity: reported, allowed;
    the same line as code still fails."""
    report = check_source(text, code=False)
    assert report.ok
    assert {f.kind for f in report.findings} <= {"invisible"}
    assert all(f.action is Action.ALLOW for f in report.findings)
    if "\u200b " not in text and "\u200b\u200b\u200b" not in text:
        assert not check_source(text).ok


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("\u0d15\u0d41\u0d15\u200c\u200c\u0d7e\n", True),  # Malayalam, ZWNJ twice
        ("\u0645\u06cc\u200c\u200c\u062e\u0648\u0627\u0647\u0645\n", True),  # Persian
        ("a\u200c\u200cb\n", False),  # between ASCII: shapes nothing
        ("a\u200c\u200c\u0645\n", True),  # beside an Arabic letter
        ("\u0645\u200c\u200d\u200c\u0645\n", False),  # two symbols: bits
        ("a\u200b\u200c\u200b\u200cb\n", False),
        ("\u1781\u200b\u2060\u1781\n", False),  # ZWSP with WJ, even in Khmer
        ("\u1781\u180e\u1781\n", False),  # other invisibles are still refused
    ],
)
def test_zero_width_runs_in_text(text: str, ok: bool) -> None:
    """One zero-width character repeated is judged as that character; a run of two or
    more kinds can carry bits and is refused."""
    assert check_source(text, code=False).ok is ok
    assert not check_source(text).ok  # in code, every such run is refused


TABLE = "".join(f"{chr(lo)}-{chr(lo + 5)}" for lo in range(0x370, 0x370 + 20 * 8, 8))


@pytest.mark.parametrize(
    "line",
    [
        f'bmp:"\\0-\x1f\x7f-\x9f\xad{TABLE}\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"\n',
        f"var Cf = 'A-Za-z\u00aa\u00b5\u00ba\u00c0-\u00d6\u02c1\u02c6-\u02d1{TABLE}';\n",
    ],
)
def test_generated_character_tables_are_data(line: str) -> None:
    report = check_source(line)
    assert report.ok and not report.findings


@pytest.mark.parametrize(
    "line",
    [
        f'bmp:"{TABLE}\u202e" + x\n'.replace("-", "", 12),  # too few ranges: not a table
        f'bmp:"\u202e{TABLE}\u202a"\n',  # not in order: RLO first
        f"s = '\u202e{TABLE[::-1]}'\n",  # descending
        f's = "{TABLE}" # \u202e comment\n',  # outside the literal
    ],
)
def test_what_only_looks_like_a_table_is_still_judged(line: str) -> None:
    assert not check_source(line).ok


@pytest.mark.parametrize(
    "text", ['DATE_FORMAT = "j \u05d1F Y"\n', 'msg = "%s\u0643\u06c6\u0631\u06c8\u0634"\n']
)
def test_placeholder_glued_to_a_right_to_left_word(text: str) -> None:
    assert check_source(text).ok


@pytest.mark.parametrize("identifier", ["va\u05d5ue", "p\u0430ypal", "\u05d1FF", "ab\u0628"])
def test_mixed_scripts_beyond_one_placeholder_letter(identifier: str) -> None:
    report = check_source(f"{identifier} = 1\n")
    assert "mixed-script" in {f.kind for f in report.findings}


@pytest.mark.parametrize("name", sorted(samples.ATTACKS))
def test_every_trojan_source_sample_is_still_caught(name: str) -> None:
    content, _ = samples.ATTACKS[name]
    if isinstance(content, bytes):  # ill-formed files: the CLI reports their bytes
        return
    assert not check_source(content).ok
    pieces, _ = cut(content, 16)
    assert not check_source_pieces(lambda: pieces).ok


@pytest.mark.parametrize("name", sorted(samples.LEGIT))
def test_legitimate_samples_pass_in_pieces(name: str) -> None:
    content = samples.LEGIT[name]
    if isinstance(content, bytes):
        return
    pieces, forced = cut(content, 64)
    assert len(pieces) > 1
    assert check_source_pieces(lambda: pieces).ok
    if not forced:
        assert check_source_pieces(lambda: pieces) == check_source(content)


def test_identifiers_in_reasons_are_shortened() -> None:
    name = "p\u0430" * 5000
    report = check_source(f"{name} = 1\n")
    assert all(len(f.reason) < 400 for f in report.findings)
    assert report.findings[0].identifier == name  # the finding keeps it whole
