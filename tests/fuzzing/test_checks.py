"""Regression replay of the fuzz targets in plain pytest, and the oracle's own behaviour.

Every seed in corpus/<target>/ and every saved finding in fuzz/findings/<target>/ goes
through the target's check (``targets.oracle_for``; no atheris needed), so a fixed bug
stays fixed.  The rest
shows that check_decode does flag broken decoders, with a report a human can read.
"""

from __future__ import annotations

import codecs
import dataclasses
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import sanitizer
from sanitizer import _native
from sanitizer._fuzzing import oracles, targets
from sanitizer._fuzzing.oracles import Divergence, check_decode

ROOT = Path(__file__).resolve().parents[2]


def _inputs(kind: str) -> list[Path]:
    paths = []
    for target in targets.TARGET_NAMES:
        base = ROOT / ("corpus" if kind == "corpus" else "fuzz/findings") / target
        paths += sorted(p for p in base.glob("*") if p.is_file() and not p.name.startswith("."))
    return paths


def _target_of(path: Path) -> str:
    return path.parent.name


@pytest.mark.parametrize("path", _inputs("corpus"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_replays_clean(path: Path) -> None:
    targets.oracle_for(_target_of(path))(path.read_bytes())


FINDINGS = _inputs("findings")


@pytest.mark.skipif(not FINDINGS, reason="no saved findings yet (fuzz/findings/ is empty)")
@pytest.mark.parametrize("path", FINDINGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_saved_findings_stay_fixed(path: Path) -> None:
    targets.oracle_for(_target_of(path))(path.read_bytes())


def test_targets_interface() -> None:
    assert targets.TARGET_NAMES == ("decode", "policy", "identifiers", "utf16", "utf7", "web")
    assert targets.oracle_for("decode") is check_decode
    with pytest.raises(KeyError):
        targets.oracle_for("nope")


@pytest.mark.parametrize(
    "data",
    [b"", b"\x00", bytes(range(256)), b"\xf4\x8f\xbf\xbf" * 300, b"\xc0\x80" * 2500, b"a" * 9000],
)
def test_check_decode_passes_on_edge_inputs(data: bytes) -> None:
    check_decode(data)  # includes inputs longer than PY_RUNNER_LIMIT


def test_chunking_is_deterministic_and_covers_input() -> None:
    data = bytes(range(200))
    assert list(oracles.chunk_sizes(data)) == list(oracles.chunk_sizes(data))
    assert sum(oracles.chunk_sizes(data)) == len(data)
    assert oracles.chunk_sizes(b"") == []
    assert all(2 <= len(oracles.chunk_sizes(bytes([b]) * 50)) <= 4 for b in range(256))


def test_cpython_spans_matches_replace() -> None:
    data = b"a\xf1\x80\x80\xe1\x80\xc2b\x80c\x80\xbfd"  # Unicode §3.9, Table 3-8
    text, spans = oracles.cpython_spans(data)
    assert text == data.decode("utf-8", "replace")
    assert spans == [(1, 4), (4, 6), (6, 7), (8, 9), (10, 11), (11, 12)]


def test_expected_kind_reads_first_two_bytes() -> None:
    k = sanitizer.ErrorKind
    assert oracles.expected_kind(b"\xc0\xae", 0, 1) is k.OVERLONG
    assert oracles.expected_kind(b"\xe0\x9f\xbf", 0, 1) is k.OVERLONG
    assert oracles.expected_kind(b"\xed\xa0\x80", 0, 1) is k.SURROGATE
    assert oracles.expected_kind(b"\xf4\x90\x80\x80", 0, 1) is k.OUT_OF_RANGE
    assert oracles.expected_kind(b"\xf8\x88", 0, 1) is k.OUT_OF_RANGE
    assert oracles.expected_kind(b"\xf8\x80", 0, 1) is k.OVERLONG
    assert oracles.expected_kind(b"\xe1\x80", 0, 2) is k.INCOMPLETE
    assert oracles.expected_kind(b"\xe1\x80A", 0, 2) is k.TRUNCATED
    assert oracles.expected_kind(b"\x80", 0, 1) is k.UNEXPECTED_CONTINUATION
    assert oracles.expected_kind(b"\xff", 0, 1) is k.INVALID_BYTE


def test_expected_kind_refuses_a_span_no_subpart_can_have() -> None:
    with pytest.raises(Divergence, match="a subpart cannot start with 41"):
        oracles.expected_kind(b"A", 0, 1)


def test_split_pair_uses_ff() -> None:
    assert oracles.split_pair(b"abc\xffdef\xffx") == (b"abc", b"def\xffx")
    assert oracles.split_pair(b"abc") == (b"abc", b"")


# -- the oracle flags broken candidates, readably -------------------------------------------


def _lenient(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def test_divergence_for_accepting_candidate_is_readable() -> None:
    with pytest.raises(Divergence) as info:
        check_decode(b"/\xc0\xae./", candidate=_lenient)
    report = str(info.value)
    assert "accepts ill-formed UTF-8" in report
    assert "input (5 bytes): 2F C0 AE 2E 2F" in report
    assert "strict" in report and "Utf8Error" in report and "[start=1, end=2]" in report
    assert "overlong 2-byte encoding of U+002E FULL STOP '.'" in report  # the reference says why
    assert "_lenient" in report and "'/\\ufffd\\ufffd./'" in report
    assert report.count("\n") >= 3  # multi-line: what, input, one line per answer
    assert info.value.data == b"/\xc0\xae./"


def test_divergence_for_rejecting_candidate() -> None:
    def refuses_euro(data: bytes) -> str:
        if b"\xe2\x82\xac" in data:
            raise ValueError("no euros")
        return data.decode("utf-8")

    with pytest.raises(Divergence, match="rejects well-formed UTF-8"):
        check_decode("5 €".encode(), candidate=refuses_euro)


def test_divergence_for_wrong_offset_and_text() -> None:
    def late(data: bytes) -> str:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UnicodeDecodeError("utf-8", data, exc.start + 1, exc.end, "x") from None

    with pytest.raises(Divergence, match=r"wrong error offsets \(offsets only\): FE/FF byte"):
        check_decode(b"ab\xff", candidate=late)
    with pytest.raises(Divergence, match="different text"):
        check_decode(b"abc", candidate=lambda b: b.decode("utf-8").upper())


def test_candidate_crash_is_a_finding() -> None:
    def crashes(data: bytes) -> str:
        return data.decode("utf-8")[5]

    with pytest.raises(Divergence, match="crashed") as info:
        check_decode(b"ab", candidate=crashes)
    assert "IndexError" in str(info.value)
    with pytest.raises(Divergence, match="returned bytes, not str"):
        check_decode(b"ab", candidate=lambda b: b)  # type: ignore[arg-type,return-value]


def test_correct_candidates_pass() -> None:
    for data in (b"", b"abc", b"\xc0\xae", "€𝄞".encode(), b"\xed\xa0\x80"):
        check_decode(data, candidate=lambda b: b.decode("utf-8"))
        check_decode(data, candidate=sanitizer.decode)


def test_project_divergence_is_detected(monkeypatch: pytest.MonkeyPatch) -> None:
    # A broken find_errors (drops the last error) must be caught, not only candidates.
    real = sanitizer.find_errors
    monkeypatch.setattr(sanitizer, "find_errors", lambda data, **kw: real(data, **kw)[:-1])
    with pytest.raises(Divergence, match="find_errors spans != CPython"):
        check_decode(b"\xc0\xae")


def test_incremental_divergence_is_detected(monkeypatch: pytest.MonkeyPatch) -> None:
    class Forgetful(sanitizer.IncrementalDecoder):
        """Drops a held-back tail at final=True."""

        def feed(
            self, chunk: Any, final: bool = False, *, limit: int | None = None
        ) -> tuple[str, list[sanitizer.Utf8Error]]:
            return super().feed(chunk, False, limit=limit)

    monkeypatch.setattr(sanitizer, "IncrementalDecoder", Forgetful)
    with pytest.raises(Divergence, match="IncrementalDecoder"):
        check_decode(b"ab\xe2\x82")


def test_record_handler_is_registered() -> None:
    assert codecs.lookup_error("sanitizer.fuzzing.record") is not None


def test_policy_and_identifier_checks_flag_violations(monkeypatch: pytest.MonkeyPatch) -> None:
    oracles.check_policy(b"ok text")
    oracles.check_identifiers(b"file\xff\xef\xac\x81le")
    monkeypatch.setattr(sanitizer, "identifiers_equal", lambda a, b, form="NFC": a != b)
    with pytest.raises(Divergence, match="identifiers_equal"):
        oracles.check_identifiers(b"abc\xffabd")


# -- candidate loading ----------------------------------------------------------------------


def test_load_candidate_from_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sanitizer._fuzzing.candidate import load

    (tmp_path / "my_fuzz_candidate.py").write_text(
        "class Codec:\n"
        "    @staticmethod\n"
        "    def decode(b):\n"
        "        return b.decode('utf-8')\n"
        "NOT_CALLABLE = 3\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.path", [p for p in __import__("sys").path if p not in ("", ".")])
    func = load("my_fuzz_candidate:Codec.decode")
    assert func(b"ok") == "ok"
    check_decode(b"\xc0\xae", candidate=func)
    with pytest.raises(ValueError, match="not callable"):
        load("my_fuzz_candidate:NOT_CALLABLE")
    with pytest.raises(ValueError, match="has no attribute 'missing'"):
        load("my_fuzz_candidate:missing")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_colon", "MODULE:FUNCTION"),
        (":decode", "MODULE:FUNCTION"),
        ("sanitizer:", "MODULE:FUNCTION"),
        ("surely_not_a_module_xyz:decode", "cannot import module 'surely_not_a_module_xyz'"),
        ("sanitizer:no_such_function", "has no attribute 'no_such_function'"),
        ("sanitizer:BACKEND", "not callable"),
    ],
)
def test_load_candidate_errors(spec: str, message: str) -> None:
    from sanitizer._fuzzing.candidate import load

    with pytest.raises(ValueError, match=message):
        load(spec)


def test_load_candidate_builtin_spec() -> None:
    from sanitizer._fuzzing.candidate import load

    assert load("sanitizer:decode") is sanitizer.decode
    assert load("sanitizer._fuzzing.mutants:modified_utf8")(b"\xc0\x80") == "\x00"


# -- every UTF-8 validator kernel against the machine -------------------------


class _Kernels:
    """Stands in for the native seam's module: records each kernel call, or answers
    ``wrong(name, view, right)`` instead of the real kernel's ``right``."""

    def __init__(self, wrong: Callable[[str, memoryview, int], int] | None = None) -> None:
        real = _native.speedups  # the module itself (oracles.speedups may be a stand-in)
        assert real is not None
        self.real = real
        self.wrong = wrong
        self.calls: list[tuple[str, int, bytes]] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)

    def valid_prefix_using(self, name: str, view: memoryview) -> int:
        assert isinstance(view, memoryview)
        right = self.real.valid_prefix_using(name, view)
        padded = view.obj  # the buffer the input was copied into, 0..63 bytes in
        assert isinstance(padded, bytearray)
        self.calls.append((name, len(padded) - len(view), bytes(view)))
        return right if self.wrong is None else self.wrong(name, view, right)


needs_kernels = pytest.mark.skipif(not oracles.KERNELS, reason="the C extension is not built")


@needs_kernels
def test_every_kernel_runs_on_every_input_at_varied_alignments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert "scalar" in oracles.KERNELS
    assert _native.speedups is not None
    assert oracles.KERNELS == _native.speedups.utf8_kernels()
    fake = _Kernels()
    monkeypatch.setattr(oracles, "speedups", fake)
    inputs = [bytes([i]) * 70 + "\u00e9\u4e2d".encode() * i for i in range(40)]
    inputs.append(b"")
    for data in inputs:
        check_decode(data, deep=False)  # the lean tier: a campaign's every input
    for data in inputs:
        ran = [(name, copied) for name, _, copied in fake.calls if copied == data]
        assert sorted(name for name, _ in ran) == sorted(oracles.KERNELS)
    offsets = {offset for _, offset, _ in fake.calls}
    assert len(offsets) > 20 and offsets <= set(range(64))
    # the same input, the same offsets: a replay repeats what a campaign checked
    again = _Kernels()
    monkeypatch.setattr(oracles, "speedups", again)
    for data in inputs:
        check_decode(data, deep=False)
    assert again.calls == fake.calls


@needs_kernels
@pytest.mark.parametrize(
    ("data", "wrong", "what"),
    [
        # accepts an overlong '/' after a full block
        (b"a" * 70 + b"\xc0\xaf", lambda n, v, r: len(v), "breaks its contract"),
        # scalar must stop exactly at the first error
        (b"ab\xed\xa0\x80", lambda n, v, r: r - 1 if n == "scalar" else r, "scalar"),
        # past the first error
        (b"a" * 100 + b"\xff" + b"b" * 30, lambda n, v, r: r + 1, "breaks its contract"),
        # a SIMD kernel stopping before the block that holds the error
        (b"a" * 150 + b"\xff", lambda n, v, r: r if n == "scalar" else 60, "breaks"),
        # inside a character
        ("\u00e9".encode() * 40 + b"\xff", lambda n, v, r: 1, "breaks its contract"),
        # rejects well-formed text
        ("\u4e2d".encode() * 30, lambda n, v, r: 0, "breaks its contract"),
    ],
)
def test_a_broken_kernel_is_a_divergence(
    monkeypatch: pytest.MonkeyPatch,
    data: bytes,
    wrong: Callable[[str, memoryview, int], int],
    what: str,
) -> None:
    check_decode(data, deep=False)  # the real kernels keep the contract
    monkeypatch.setattr(oracles, "speedups", _Kernels(wrong))
    with pytest.raises(Divergence, match=f"UTF-8 validator kernel .*{what}") as info:
        check_decode(data, deep=False)
    assert "first error" in str(info.value) and " at +" in str(info.value)


def test_the_python_twin_is_checked_in_the_deep_tier(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(oracles, "utf8_valid_prefix_py", lambda data: 0)
    check_decode(b"abc", deep=False)
    with pytest.raises(Divergence, match="Python twin"):
        check_decode(b"abc", deep=True)


# -- the campaign's targets ----------------------------------------------------------------


@pytest.mark.parametrize("target", targets.TARGET_NAMES)
def test_every_target_check_replays_its_seeds(target: str) -> None:
    from sanitizer._fuzzing import seeds

    check = targets.check_for(target)
    found = seeds.files(target)
    assert found
    for data in found.values():
        check(data)
    assert targets.target(target).include  # a worker instruments something


def test_the_utf7_target_check_is_its_oracle() -> None:
    check = targets.check_for("utf7")
    real = check.__globals__["utf7"]

    def broken(data: bytes) -> object:  # forgets that '-' ends a run
        report = real.inspect(data)
        return dataclasses.replace(report, text=report.text.replace("-", ""))

    check.__globals__["utf7"] = types.SimpleNamespace(**{**vars(real), "inspect": broken})
    try:
        with pytest.raises(AssertionError, match="lax reading"):
            check(b"Hi Mom -+Jjo--!")
    finally:
        check.__globals__["utf7"] = real
