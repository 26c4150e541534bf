"""What a campaign against a candidate decoder tells its user: the ill-formed classes (from
the library's error kinds), the probes that answer every class, the class table, the
verdict, the headline of each finding, the notes (native code, offsets-only), the corpus
per candidate, and the same in JSON.  All in process, no atheris: a few ms each.
"""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest

import sanitizer
from sanitizer import ErrorKind
from sanitizer._fuzzing import classes, oracles, probes, seeds
from sanitizer._fuzzing.classes import CLASSES, WELL_FORMED, groups, worst_class
from sanitizer._fuzzing.layout import candidate_slug
from sanitizer._fuzzing.oracles import Divergence, check_decode
from sanitizer._fuzzing.probes import ACCEPTED, DECODED, DIFFERS, REFUSED, class_table, judge
from sanitizer._fuzzing.results import FuzzFinding, TargetResult, format_summary, summary_dict

ROOT = Path(__file__).resolve().parents[2]


def _my_decoder() -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location("my_decoder", ROOT / "examples/my_decoder.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.decode


def _lax(data: bytes) -> str:
    """Accepts everything: a Tcl-like reader (overlong NUL and CESU-8 pairs joined), else
    CPython's replacement."""
    text = data.replace(b"\xc0\x80", b"\x00").decode("utf-8", "surrogatepass")
    return text if text.isascii() else data.decode("utf-8", "replace")


def _accept_all(data: bytes) -> str:
    return data.decode("utf-8", "replace")


# -- the classes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hexstr", "key"),
    [
        ("C0 AE", "overlong"),
        ("E0 80 AF", "overlong"),
        ("C0 80", "overlong-nul"),
        ("E0 80 80", "overlong-nul"),
        ("ED A0 80", "surrogate"),
        ("ED A0", "surrogate"),
        ("ED A0 BD ED B8 80", "cesu8-pair"),
        ("E2 82", "truncated"),
        ("E2 82 41", "truncated"),
        ("F4 90 80 80", "beyond-10ffff"),
        ("F8 88 80 80 80", "five-six-byte"),
        ("FC 80 80 80 80 AF", "five-six-byte"),
        ("80", "stray-continuation"),
        ("FF", "fe-ff"),
    ],
)
def test_each_class_from_the_error_kinds(hexstr: str, key: str) -> None:
    data = bytes.fromhex(hexstr)
    ((found, start, _),) = groups(data)
    assert (found.key, start) == (key, 0)
    first = sanitizer.find_errors(data)[0]
    assert first.kind in found.kinds  # every class is drawn from the library's kinds


def test_every_error_kind_has_a_class_and_the_order_is_defined() -> None:
    assert {k for c in CLASSES for k in c.kinds} == set(ErrorKind)
    assert [c.key for c in CLASSES][:3] == ["overlong", "overlong-nul", "surrogate"]
    assert [c.rank for c in CLASSES] == list(range(len(CLASSES)))
    assert classes.by_key("fe-ff") is CLASSES[-1]


def test_an_input_is_filed_under_its_worst_class() -> None:
    # BOM + overlong '.': the overlong, not what minimizing could turn it into
    data = b"\xef\xbb\xbf\xc0\xae"
    worst = worst_class(data)
    assert worst is not None and worst.key == "overlong"
    mixed = worst_class(b"\xff\xc0\x80")
    assert mixed is not None and mixed.key == "overlong-nul"
    assert worst_class(b"fine") is None


def test_every_class_has_probes_among_the_decode_seeds() -> None:
    filed = {judge(_accept_all, data).klass for data in probes.probe_inputs()}
    assert filed >= {c.key for c in CLASSES} | {WELL_FORMED}
    assert probes.probe_inputs() == list(dict.fromkeys(seeds.files("decode").values()))


# -- headlines --------------------------------------------------------------------------------


def _report(data: bytes, candidate: object) -> str:
    with pytest.raises(Divergence) as caught:
        check_decode(data, candidate)  # type: ignore[arg-type]
    return str(caught.value)


def _headline(data: bytes, candidate: object) -> str:
    return _report(data, candidate).splitlines()[0]


def as_bytes(data: bytes) -> bytes:  # a proto2-style decoder: raw bytes back
    return data


def test_my_decoders_bug_is_headlined_by_its_class() -> None:
    decode = _my_decoder()
    assert _headline(b"\xed\xa0\x80", decode) == (
        "candidate decode accepts ill-formed UTF-8: encoded surrogate"
    )
    # Refusing ED A0 with end=2 (CPython: 1) is an offsets-only difference, said so, with
    # the contract named.
    report = _report(b"\xed\xa0", decode)
    assert report.splitlines()[0] == (
        "candidate decode reports the wrong error offsets (offsets only): encoded surrogate"
    )
    assert "contract : a candidate must report the offsets of the first maximal" in report
    assert "within the bytes it was given, as CPython does" in report
    # Accepting a CESU-8 pair and refusing later is acceptance of the pair, not offsets.
    assert _headline(b"\xed\xa0\x80\xed\xb0\x80\xed\xa0", decode) == (
        "candidate decode accepts ill-formed UTF-8: CESU-8 surrogate pair"
    )


def test_a_bytes_returning_candidate_is_filed_by_what_it_accepts() -> None:
    report = _report(b"\xc0\x80", as_bytes)
    assert (
        report.splitlines()[0]
        == "candidate as_bytes accepts ill-formed UTF-8: overlong NUL (C0 80)"
    )
    assert "note     : it also returned bytes, not str" in report.replace("as_bytes ", "")
    # on well-formed input the type is all there is to say
    assert _headline(b"abc", as_bytes) == "candidate as_bytes returned bytes, not str"


def test_a_wrapper_passing_on_a_librarys_error_gets_the_hint() -> None:
    def wrapper(data: bytes) -> str:  # decodes inside a larger document
        return (b"<doc>" + data).decode("utf-8")[5:]

    report = _report(b"ab\xff", wrapper)
    assert "(offsets only): FE/FF byte" in report.splitlines()[0]
    assert (
        "hint" in report and "its UnicodeDecodeError is about other bytes (8, not the 3" in report
    )
    assert "the contract is the wrapper's" in report


# -- the class table and the verdict ----------------------------------------------------------


def _table(candidate: object) -> list[probes.ClassRow]:
    return class_table(judge(candidate, data) for data in probes.probe_inputs())  # type: ignore[arg-type]


def test_a_candidate_accepting_every_class_gets_a_full_table() -> None:
    rows = _table(_accept_all)
    assert [r.key for r in rows] == [c.key for c in CLASSES] + [WELL_FORMED]
    assert [r.verdict for r in rows] == [ACCEPTED] * len(CLASSES) + [DECODED]
    nul = next(r for r in rows if r.key == "overlong-nul")
    assert nul.example == b"\xc0\x80" and nul.answer == "'\\ufffd\\ufffd'"
    assert probes.worst_row(rows) is rows[0]  # the most severe class heads the verdict


def test_a_lax_reader_shows_what_it_turns_the_input_into() -> None:
    rows = {r.key: r for r in _table(_lax)}
    assert rows["overlong-nul"].verdict == ACCEPTED and rows["overlong-nul"].answer == "'\\x00'"
    assert rows["cesu8-pair"].verdict == ACCEPTED


def test_the_strict_codec_refuses_every_class() -> None:
    rows = _table(lambda b: codecs.decode(b, "utf-8"))
    assert {r.verdict for r in rows[:-1]} == {REFUSED} and rows[-1].verdict == DECODED
    assert probes.worst_row(rows) is None
    assert rows[0].example == bytes.fromhex("C0 AE")  # the table's canonical attack


def test_my_decoders_table_and_verdict() -> None:
    rows = _table(_my_decoder())
    verdicts = {r.key: r.verdict for r in rows}
    assert verdicts["surrogate"] == ACCEPTED and verdicts["cesu8-pair"] == ACCEPTED
    assert verdicts["overlong"] == REFUSED and verdicts["fe-ff"] == REFUSED
    result = _result(classes=rows)
    assert result.verdict == "ACCEPTS ILL-FORMED UTF-8 (encoded surrogate: ED A0 80 -> '\\ud800')"


def _result(**kw: object) -> TargetResult:
    base: dict[str, object] = {
        "target": "decode",
        "jobs": 1,
        "seconds": 10.0,
        "execs": 1_000_000,
        "cov": 0,
        "ft": 0,
        "corpus_before": 0,
        "corpus_after": 0,
        "candidate": "mod:decode",
        "candidate_code": "python",
    }
    base.update(kw)
    return TargetResult(**base)  # type: ignore[arg-type]


def test_the_summary_shows_the_table_the_verdict_and_the_first_finding(tmp_path: Path) -> None:
    finding = FuzzFinding(
        "decode",
        tmp_path / "crash-1",
        failure="Divergence: candidate decode accepts ill-formed UTF-8: encoded surrogate",
        verdict=ACCEPTED,
        klass="surrogate",
        found_after=0.4,
    )
    later = FuzzFinding(
        "decode",
        tmp_path / "crash-2",
        failure="Divergence: candidate decode reports the wrong error offsets (offsets only): "
        "FE/FF byte",
        verdict=DIFFERS,
        klass="fe-ff",
        found_after=0.2,
    )
    result = _result(
        classes=_table(_my_decoder()),
        findings=[later, finding],
        first_finding=0.2,
        corpus_dir=tmp_path / "corpus",
        cov=36,
    )
    text = format_summary([result], cwd=tmp_path)
    assert "| first finding |" in text.splitlines()[0] and "| 0.2s" in text.splitlines()[2]
    assert "candidate (decode): mod:decode (Python, coverage-instrumented)" in text
    assert "verdict:  ACCEPTS ILL-FORMED UTF-8 (encoded surrogate" in text
    assert "corpus:   corpus" in text
    assert "| encoded surrogate       | accepted | ED A0 80" in text
    # the accepted class first, though found later
    assert text.index("finding (decode): Divergence: candidate decode accepts") < text.index(
        "finding (decode): Divergence: candidate decode reports"
    )
    data = summary_dict([result], cwd=tmp_path)
    json.dumps(data)
    (target,) = data["targets"]  # type: ignore[misc]
    assert target["first_finding_seconds"] == 0.2
    assert target["candidate"]["verdict"].startswith("ACCEPTS ILL-FORMED UTF-8")
    rows = {row["class"]: row for row in target["candidate"]["classes"]}
    assert rows["surrogate"] == {
        "class": "surrogate",
        "label": "encoded surrogate",
        "verdict": "accepted",
        "example": "ED A0 80",
        "answer": "'\\ud800'",
        "headline": "candidate accepts ill-formed UTF-8: encoded surrogate",
    }
    assert [f["class"] for f in target["findings"]] == ["surrogate", "fe-ff"]


def test_a_native_candidate_says_coverage_does_not_apply() -> None:
    assert probes.candidate_code(codecs.utf_8_decode) == "native"
    assert probes.candidate_code(_my_decoder()) == "python"
    result = _result(candidate_code="native", candidate_type="builtin_function_or_method")
    text = format_summary([result])
    row = text.splitlines()[2]
    assert "| n/a | n/a |" in row and "| 0   |" not in row
    assert "note:     the candidate is native code (builtin_function_or_method)" in text
    assert "cov, ft and corpus growth say nothing" in text
    data = summary_dict([result])["targets"][0]  # type: ignore[index]
    assert data["cov"] is None and data["candidate"]["note"].startswith("the candidate is native")
    # not instrumented on request: the same, with its own reason
    plain = _result(instrumented=False)
    assert "(--no-instrument-candidate)" in format_summary([plain])
    assert "| 0   | 0  |" in format_summary([_result()])  # a Python candidate: the figures


def test_two_candidates_get_two_corpus_directories() -> None:
    assert candidate_slug("examples.my_decoder:decode") == "examples.my_decoder.decode"
    assert candidate_slug("examples.good_decoder:decode") == "examples.good_decoder.decode"
    assert candidate_slug(None) == "sanitizer"
    odd = candidate_slug("pkg/mod:f x")
    assert "/" not in odd and " " not in odd and odd != candidate_slug("pkg_mod:f x")


def test_filed_under_reads_the_headline() -> None:
    assert oracles.filed_under(
        "Divergence: candidate d accepts ill-formed UTF-8: overlong form", b"\xef\xbb\xbf\xc0\xae"
    ) == (ACCEPTED, "overlong")
    assert oracles.filed_under(
        "Divergence: candidate d reports the wrong error offsets (offsets only): FE/FF byte",
        b"a\xff",
    ) == (DIFFERS, "fe-ff")
    assert oracles.filed_under("Divergence: candidate d decodes to different text", b"a") == (
        DIFFERS,
        WELL_FORMED,
    )
    assert oracles.filed_under("Divergence: C runner spans != CPython", b"\xff") is None
