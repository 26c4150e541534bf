"""``sanitizer check --policy`` reads a file a piece at a time; a line with no safe place to
cut is cut where it must (``_pieces.piece_end``, rule 3), and a cut inside a sequence --
a joiner's context, a run of marks longer than the policy allows, a flag, an emoji
sequence, a run of carriers -- must never pass what the whole text is refused for: it is
a refused ``too-long`` finding at the cut (``_judge.cut_item``), or, for a carrier run,
the run is carried over the cut.  The piece size is shrunk so that short texts cross
many forced cuts; the verdict is compared with ``inspect`` (``check_source`` under
SOURCE) on the whole text, in UTF-8 and in UTF-16 (``--encoding``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer import inspect, profiles
from sanitizer._policy import _reveal
from sanitizer._policy.compiled import CUT_SEQUENCE, cut_inside, judges_lines_alone, piece_end
from sanitizer._source_gate import check_source
from sanitizer.cli import _judge
from tests.support.cli_runner import policy_check_in_process

# Sequences a forced cut may fall inside, and what cuts fall between: marks (a run of
# 40 is past every profile's max_combining of 30), ZWJ and ZWNJ beside joining letters
# and viramas, regional indicators (a flag), emoji modifiers, keycaps, tags, selectors,
# zero-width bit symbols, Hangul jamo, and ASCII and line feeds where a cut is safe.
VOCABULARY = [
    "a", " ", "\n", "\u0301", "\u0301" * 7, "\u0301" * 40, "\u0644", "\u0628", "\u064e",
    "\u0915", "\u094d", "\u200d", "\u200c", "\u200b", "\u2060", "\u00ad", "\u200e",
    "\U0001f1fa", "\U0001f1f8", "\U0001f468", "\U0001f3fb", "\ufe0f", "\u20e3", "\U000e0067",
    "\U000e007f", "\U0001f3f4", "\u1100", "\u1161", "\u11a8", "\u05d1", "\u202e", "\u2069",
]  # fmt: skip
texts = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=30).map("".join)
# the profiles that judge lines alone: those --policy reads a piece at a time
PROFILES = [
    name.upper().replace("-", "_")
    for name in profiles.NAMES
    if judges_lines_alone(profiles.get(name))
]


@pytest.fixture(autouse=True)
def small_cap(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A carrier run's payload read from its first character (``RUN_CAP``), so that a
    piece of at least 4 bytes holds what is read of a run, as 1 MiB holds 65,536
    characters (``_pieces.carried``)."""
    monkeypatch.setattr(_reveal, "RUN_CAP", 1)
    yield


def _check(
    tmp_path: Path, data: bytes, profile: str, *options: str
) -> tuple[bool, list[dict[str, object]]]:
    """Whether ``check --policy profile`` fails ``data`` (a prose file), and its findings."""
    status, records = policy_check_in_process(tmp_path, data, profile, *options)
    return status == 1, [r for r in records if "rule" in r]


def _whole_refuses(text: str, profile: str) -> bool:
    if profile == "SOURCE":
        return not check_source(text, code=False).ok
    return not inspect(text, profiles.get(profile)).ok


def _inside_cuts(data: bytes, size: int) -> list[int]:
    """The byte offsets where ``Region.pieces`` cuts ``data`` inside a sequence."""
    cuts, start = [], 0
    while start < len(data):
        end = piece_end(data, start, size)[0]
        if end < len(data):
            before = data[:end].decode()[-1]
            if cut_inside(ord(before), ord(data[end:].decode()[0]), carries=True):
                cuts.append(end)
        start = end
    return cuts


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(texts, st.integers(5, 40), st.sampled_from(PROFILES), st.booleans())
def test_pieces_never_pass_what_the_whole_refuses(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    size: int,
    profile: str,
    wide: bool,
) -> None:
    monkeypatch.setattr(_judge, "PIECE", size)
    if wide and profile == "SOURCE":
        profile = "TEXT"  # SOURCE reads UTF-8 source files alone
    if wide:
        fails, found = _check(
            tmp_path, text.encode("utf-16-le"), profile, "--encoding", "utf-16-le"
        )
    else:
        fails, found = _check(tmp_path, text.encode(), profile)
    if _whole_refuses(text, profile):
        assert fails, (text, size, found)
    if not wide and profile != "SOURCE":  # each cut inside a sequence is one finding there
        data = text.encode()
        cuts = [r["start"] for r in found if r["reason"] == CUT_SEQUENCE]
        assert cuts == _inside_cuts(data, size), (text, size, found)


@pytest.mark.parametrize("wide", [False, True], ids=["utf-8", "utf-16"])
@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("a" + "\u0301" * 40 + "\n", "a run of marks past max_combining, judged in halves"),
        ("\u0644" + "\u064e\u200c" * 40 + "\u0628\n", "joiners whose context is in the next piece"),
        ("\U0001f1fa\U0001f1f8" * 20 + "\n", "flags: a regional indicator pair cut apart"),
        ("\U0001f468" + "\U0001f3fb\u200d" * 40 + "\n", "an emoji sequence cut inside"),
    ],
)
def test_a_cut_inside_a_sequence_is_refused_at_the_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, why: str, wide: bool
) -> None:
    monkeypatch.setattr(_judge, "PIECE", 16)
    options = ("--encoding", "utf-16-le") if wide else ()
    data = text.encode("utf-16-le") if wide else text.encode()
    fails, found = _check(tmp_path, data, "TEXT", *options)
    cut = [r for r in found if r["reason"] == CUT_SEQUENCE]
    assert fails and cut, why
    assert all(r["rule"] == "too-long" and r["fails"] and r["start"] == r["end"] for r in cut)
    for r in cut:  # at a character boundary of the input, inside the sequence
        head = data[: int(str(r["start"]))].decode("utf-16-le" if wide else "utf-8")
        assert cut_inside(ord(head[-1]), ord(text[len(head)]), carries=True)


def test_a_carrier_run_is_carried_not_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run of zero-width characters longer than a piece is read whole (``carried``):
    no cut finding, the run's one finding as ``inspect`` makes it."""
    monkeypatch.setattr(_judge, "PIECE", 16)
    text = "x " + "\u200b\u200c" * 30 + " y\n"
    fails, found = _check(tmp_path, text.encode(), "PROMPT")
    assert not [r for r in found if r["reason"] == CUT_SEQUENCE]
    whole = inspect(text, profiles.PROMPT.replace(max_findings=None))
    assert [(r["start"], r["end"]) for r in found] == [
        (len(text[: f.start].encode()), len(text[: f.end].encode())) for f in whole.findings
    ]
    assert fails == (not whole.ok)
