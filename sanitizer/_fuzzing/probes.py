"""A candidate decoder's verdict on every ill-formed class, probed on purpose.

A fuzzer finds what it happens to hit; a user deciding whether a decoder is safe needs
every class answered, even after a ten-second campaign.  The probes are the decode seeds
(``seeds.SEEDS``: Kuhn's stress test, RFC 3629 §10, Unicode §3.9 Table 3-8, CESU-8 pairs
...), each filed under its class (``classes``); ``tests/fuzzing/test_summary.py`` holds that
every class has probes.  ``judge`` runs one through the candidate with the oracle's own
judgement (``oracles.judge_candidate``), and ``class_table`` folds probes and a
campaign's findings into one row per class: accepted, refused or differs, with the
shortest example.

``candidate_code`` says whether libFuzzer can see inside the candidate at all: a native
function (C, Rust, a builtin) is never coverage-instrumented, so a campaign's coverage
figures say nothing about it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import FunctionType, MethodType

from .classes import CLASSES, WELL_FORMED, by_key

__all__ = [
    "ACCEPTED",
    "DECODED",
    "DIFFERS",
    "NOT_PROBED",
    "REFUSED",
    "ClassRow",
    "Probe",
    "candidate_code",
    "class_table",
    "judge",
    "probe_inputs",
    "worst_row",
]

# A row's verdict.  Ill-formed classes: ACCEPTED (returned something: the bug that matters),
# DIFFERS (refused, but not as CPython: wrong offsets, or crashed), REFUSED (as CPython).
# The well-formed row: DECODED (as CPython) or DIFFERS.
ACCEPTED, DIFFERS, REFUSED, DECODED, NOT_PROBED = (
    "accepted",
    "differs",
    "refused",
    "decoded",
    "not probed",
)
_PRECEDENCE = {ACCEPTED: 0, DIFFERS: 1, REFUSED: 2, DECODED: 2, NOT_PROBED: 3}
ANSWER_SHOWN = 60  # characters of a candidate's answer in a table cell


@dataclass(frozen=True)
class Probe:
    """One input's verdict: its class key (``classes`` or ``WELL_FORMED``), the verdict,
    and what the candidate answered (shortened)."""

    data: bytes
    klass: str
    verdict: str
    answer: str
    headline: str = ""  # the finding's headline when the verdict is not the right one

    def as_dict(self) -> dict[str, str]:
        return {
            "input": self.data.hex(" ").upper(),
            "class": self.klass,
            "verdict": self.verdict,
            "answer": self.answer,
            "headline": self.headline,
        }


@dataclass(frozen=True)
class ClassRow:
    """One row of a candidate's table."""

    key: str
    label: str
    verdict: str
    example: bytes | None = None
    answer: str = ""
    headline: str = ""  # the finding's headline, when the verdict is a finding

    def as_dict(self) -> dict[str, object]:
        return {
            "class": self.key,
            "label": self.label,
            "verdict": self.verdict,
            "example": None if self.example is None else self.example.hex(" ").upper(),
            "answer": self.answer,
            "headline": self.headline or None,
        }


def probe_inputs() -> list[bytes]:
    """The decode seeds, each once, in table order."""
    from .seeds import files

    return list(dict.fromkeys(files("decode").values()))


def judge(candidate: Callable[[bytes], str], data: bytes) -> Probe:
    """Run ``data`` through ``candidate`` and file the answer under its class."""
    from .oracles import judge_candidate

    verdict, klass, answer, headline = judge_candidate(data, candidate)
    return Probe(data, klass, verdict, _short(answer), headline)


def _short(answer: str) -> str:
    return answer if len(answer) <= ANSWER_SHOWN else answer[: ANSWER_SHOWN - 3] + "..."


def candidate_code(candidate: object) -> str:
    """``"python"`` when a worker can coverage-instrument the candidate (a Python function
    or method, ``candidate.load_instrumented``), else ``"native"``."""
    target = candidate.__func__ if isinstance(candidate, MethodType) else candidate
    if isinstance(target, FunctionType):
        return "python"
    # an instance of a Python class: its __call__, found along the MRO
    call = next(
        (vars(k)["__call__"] for k in type(candidate).__mro__ if "__call__" in vars(k)), None
    )
    return "python" if isinstance(call, FunctionType) else "native"


def class_table(probes: Iterable[Probe]) -> list[ClassRow]:
    """One row per class (``CLASSES`` order), then the well-formed row: the worst verdict
    among the probes of that class (accepted before differs before refused), with the
    shortest input that shows it (the first probe when the class is refused)."""
    best: dict[str, tuple[tuple[int, int, int], Probe]] = {}
    for index, probe in enumerate(probes):
        order = _key(probe, index)
        held = best.get(probe.klass)
        if held is None or order < held[0]:
            best[probe.klass] = (order, probe)
    rows = []
    for key, label in [(c.key, c.label) for c in CLASSES] + [(WELL_FORMED, "well-formed")]:
        found = best[key][1] if key in best else None
        if found is None:
            rows.append(ClassRow(key, label, NOT_PROBED))
        else:
            rows.append(
                ClassRow(key, label, found.verdict, found.data, found.answer, found.headline)
            )
    return rows


def _key(probe: Probe, index: int) -> tuple[int, int, int]:
    """The worst verdict first; then the shortest input that shows a bug, or the first
    probe (the seed table's canonical attack) when the candidate got the class right."""
    right = probe.verdict in (REFUSED, DECODED)
    return (_PRECEDENCE.get(probe.verdict, 3), 0 if right else len(probe.data), index)


def worst_row(rows: Iterable[ClassRow]) -> ClassRow | None:
    """The row a campaign's verdict names: the most severe class accepted, else the most
    severe one refused differently, else a well-formed difference; None when every
    probed row is right."""
    rows = list(rows)
    for verdict in (ACCEPTED, DIFFERS):
        for row in rows:
            if row.verdict == verdict and row.key != WELL_FORMED:
                return row
    return next((r for r in rows if r.key == WELL_FORMED and r.verdict == DIFFERS), None)


def label_of(key: str) -> str:
    return "well-formed" if key == WELL_FORMED else by_key(key).label
