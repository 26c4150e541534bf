"""The UTF-8 validator (``_native.utf8_valid_prefix``) against the grammar.

Every kernel this machine can run (AVX-512, AVX2, SSE4.1, NEON, scalar: through the
``valid_prefix_using`` test hook, at every input length) and the pure-Python twin are
held to the contract callers rely on: the answer is a prefix that is well-formed and ends
on a character boundary; it is the whole input exactly when the input is well-formed; a
SIMD kernel stops at most at the start of the 64-byte block holding the first error
(less the up to 3 bytes of a character open across the block edge); scalar and the
twin stop exactly at the first error.  The expectations are derived from
``grammar.UTF8_CHAR`` (the rows, read here by a small recognizer checked against the
machine), not from the validator's own tables.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sanitizer import BomError, _machine, _native
from sanitizer import _decoder as decoder
from sanitizer._grammar import UTF8_CHAR, machine
from sanitizer._grammar import rows as grammar_rows

speedups = _native.speedups
C_KERNELS: tuple[str, ...] = speedups.utf8_kernels() if speedups is not None else ()
SIMD_KERNELS = tuple(k for k in C_KERNELS if k != "scalar")
KERNELS = (*C_KERNELS, "python")
BLOCK = _native.VALIDATOR_BLOCK
# The x86 kernels test the error bits once per four blocks and re-run a failing group a
# block at a time (validate.c GROUP): offsets must reach past a group's edge too.
GROUP_BYTES = 4 * BLOCK


def run_kernel(kernel: str, data: bytes | memoryview) -> int:
    if kernel == "python":
        return _native.utf8_valid_prefix_py(data)
    assert speedups is not None
    return speedups.valid_prefix_using(kernel, data)


# -- the expectation, from the grammar ------------------------------------------------


def _row_by_lead() -> dict[int, tuple[tuple[int, int], ...]]:
    table = {}
    for row in UTF8_CHAR:
        for lead in range(row.lead[0], row.lead[1] + 1):
            table[lead] = row.tails
    return table


ROW_BY_LEAD = _row_by_lead()


@functools.cache
def first_error(seq: bytes) -> int:
    """Where the first ill-formed or truncated character of ``seq`` starts (RFC 3629 §4
    rows), or len(seq)."""
    i, n = 0, len(seq)
    while i < n:
        tails = ROW_BY_LEAD.get(seq[i])
        if tails is None:
            return i
        for k, (lo, hi) in enumerate(tails, 1):
            if i + k >= n or not lo <= seq[i + k] <= hi:
                return i  # ill-formed, or cut short by the end of the input
        i += 1 + len(tails)
    return n


def machine_first_error(seq: bytes) -> int:
    m = machine()
    spans = _machine.spans(seq, m.table, m.nclasses, 0, 1)
    return spans[0] if spans else len(seq)


def boundary_bytes() -> bytes:
    """Both ends of every byte range of ``UTF8_CHAR`` and the bytes just outside them,
    plus FF: where a wrong table entry would show."""
    out = {0xFF}
    for row in grammar_rows(modified_nul=True):
        for lo, hi in (row.lead, *row.tails):
            out.update(b for b in (lo - 1, lo, hi, hi + 1) if 0 <= b <= 0xFF)
    return bytes(sorted(out))


BOUNDARY = boundary_bytes()


def sequences(max_len: int) -> Iterator[bytes]:
    frontier = [b""]
    for _ in range(max_len):
        frontier = [s + bytes([b]) for s in frontier for b in BOUNDARY]
        yield from frontier


def check_answer(kernel: str, data: bytes, got: int, exact: int) -> None:
    """The contract of ``utf8_valid_prefix`` for one input whose first error is at
    ``exact`` (== len(data) when well-formed)."""
    n = len(data)
    assert 0 <= got <= exact, (kernel, data.hex(), got, exact)
    if exact == n:
        assert got == n, (kernel, data.hex(), got)
        return
    if kernel in ("scalar", "python"):
        assert got == exact, (kernel, data.hex(), got, exact)
        return
    assert got >= exact // BLOCK * BLOCK - 3, (kernel, data.hex(), got, exact)
    # A character boundary: the prefix up to `exact` is well-formed, so it suffices
    # that `got` does not fall on a continuation byte.
    assert got == exact or not 0x80 <= data[got] <= 0xBF, (kernel, data.hex(), got)


# Fillers around the sequence under test: all-ASCII blocks take the kernels' ASCII
# shortcut, two-byte characters the full check; both in whole characters.
def filler(size: int, kind: int) -> bytes:
    if kind == 0:
        return b"x" * size
    return b"x" * (size % 2) + "\u00e9".encode() * (size // 2)


# -- the recognizer is the machine ------------------------------------------------------


def test_grammar_recognizer_agrees_with_the_machine() -> None:
    for seq in sequences(3):
        assert first_error(seq) == machine_first_error(seq), seq.hex()


def test_boundary_bytes_cover_every_range_end() -> None:
    for row in UTF8_CHAR:
        for lo, hi in (row.lead, *row.tails):
            assert lo in BOUNDARY and hi in BOUNDARY


# -- exhaustive boundary inputs at every alignment --------------------------------------


@pytest.mark.parametrize("kernel", KERNELS)
def test_short_sequences_at_every_alignment(kernel: str) -> None:
    """Every 1- and 2-byte sequence over the boundary bytes, at every offset of two
    blocks and the partial block after them, followed by nothing (a truncation at the
    end of the input) or by 3 or 63..69 bytes; from one sequence to the next those two
    blocks turn through the blocks of a group and over its edge."""
    for index, seq in enumerate(sequences(2)):
        bad = first_error(seq)
        lead = index % 5 * BLOCK
        for at in range(lead, lead + 2 * BLOCK + 4):
            for after in (0, 3 if at % 2 else BLOCK + 5 - at % 7):
                kind = (at + after) % 2
                data = filler(at, kind) + seq + filler(after, kind)
                exact = at + bad if bad < len(seq) else len(data)
                check_answer(kernel, data, run_kernel(kernel, data), exact)


def check_rotating(kernel: str, seqs: Iterator[bytes]) -> None:
    """Each of ``seqs`` once; its offset turns through 0..330 (every lane, vector,
    block and group edge, and the tail) from one sequence to the next, and so does what
    follows it (nothing, a few bytes, past a block edge) and the filler's kind."""
    span = GROUP_BYTES + 75
    for index, seq in enumerate(seqs):
        bad = first_error(seq)
        at = index % span
        after = (0, 2, 61, 3)[index // span % 4]
        kind = index // (4 * span) % 2
        data = filler(at, kind) + seq + filler(after, kind)
        exact = at + bad if bad < len(seq) else len(data)
        check_answer(kernel, data, run_kernel(kernel, data), exact)


# The bytes around the continuation ranges: what may follow a 3- or 4-byte lead.
NEAR_TAILS = bytes(b for b in BOUNDARY if 0x7F <= b <= 0xC2)


@pytest.mark.parametrize("kernel", KERNELS)
def test_three_byte_sequences_rotating_alignment(kernel: str) -> None:
    check_rotating(kernel, (s for s in sequences(3) if len(s) == 3))


@pytest.mark.parametrize("kernel", KERNELS)
def test_four_byte_sequences_after_long_leads(kernel: str) -> None:
    """Every 4-byte sequence that starts with a boundary byte from E0 up and goes on
    with bytes around the continuation ranges: the 3rd/4th-byte checks."""
    leads = bytes(b for b in BOUNDARY if b >= 0xE0)
    check_rotating(
        kernel,
        (
            bytes([a, b, c, d])
            for a in leads
            for b in NEAR_TAILS
            for c in NEAR_TAILS
            for d in NEAR_TAILS
        ),
    )


@pytest.mark.slow
@pytest.mark.parametrize("kernel", C_KERNELS)
def test_four_byte_sequences_rotating_alignment(kernel: str) -> None:
    check_rotating(kernel, (s for s in sequences(4) if len(s) == 4))


@pytest.mark.slow
@pytest.mark.parametrize("kernel", SIMD_KERNELS)
def test_three_byte_sequences_at_every_alignment(kernel: str) -> None:
    for seq in sequences(3):
        bad = first_error(seq)
        for at in range(0, BLOCK + 4):
            for after in (0, BLOCK):
                data = filler(at, 1) + seq + filler(after, 1)
                exact = at + bad if bad < len(seq) else len(data)
                check_answer(kernel, data, run_kernel(kernel, data), exact)


@pytest.mark.parametrize("kernel", KERNELS)
def test_every_character_valid_across_block_edges(kernel: str) -> None:
    """Every well-formed character the rows allow at their range ends, straddling each
    block edge: all valid, so the answer is the length; cut short, a truncation."""
    chars = [s for s in sequences(4) if first_error(s) == len(s)]
    stream = b"".join(chars)
    for shift in range(4):
        data = b"x" * shift + stream
        assert run_kernel(kernel, data) == len(data)
        for cut in range(len(data) - 9, len(data)):
            exact = first_error(data[:cut])
            check_answer(kernel, data[:cut], run_kernel(kernel, data[:cut]), exact)


@pytest.mark.parametrize("kernel", KERNELS)
def test_unaligned_buffers(kernel: str) -> None:
    """Through a memoryview at every start address: loads need no alignment."""
    text = ("gr\u00fc\u00df \u4e16\u754c \U0001f600 " * 40).encode()
    buf = bytearray(b"." * 40 + text + b"\xed\xa0\x80" + text)
    for start in range(33):
        view = memoryview(buf)[start:]
        exact = first_error(bytes(view))
        check_answer(kernel, bytes(view), run_kernel(kernel, view), exact)


# -- properties ---------------------------------------------------------------------------

mutated = st.builds(
    lambda text, edits: functools.reduce(
        lambda data, edit: (
            data[: edit[0] % (len(data) + 1)] + edit[1] + data[edit[0] % (len(data) + 1) :]
        ),
        edits,
        text.encode("utf-8", "surrogatepass"),
    ),
    st.text(max_size=300),
    st.lists(st.tuples(st.integers(0, 1000), st.binary(min_size=1, max_size=3)), max_size=3),
)


@settings(max_examples=5 * settings().max_examples)
@given(data=mutated, prefix=st.integers(0, GROUP_BYTES + BLOCK))
@example(data=b"\xe2\x82", prefix=62)
@example(data="\U0001f600".encode() * 40 + b"\xf4\x90\x80\x80", prefix=1)
def test_every_kernel_keeps_the_contract(data: bytes, prefix: int) -> None:
    data = b"a" * prefix + data
    exact = machine_first_error(data)
    for kernel in KERNELS:
        check_answer(kernel, data, run_kernel(kernel, data), exact)
    got = _native.utf8_valid_prefix(data)
    check_answer(_native.utf8_kernel(), data, got, exact)


@given(data=mutated)
def test_public_verdicts_unchanged(data: bytes) -> None:
    """is_valid and find_errors on the validator give what the machine alone gives."""
    m = machine()
    spans = _machine.spans(data, m.table, m.nclasses, 0, -1)
    assert decoder.is_valid(data) is (not spans)
    assert decoder.is_valid_py(data) is (not spans)
    assert decoder.is_valid(bytearray(data)) is (not spans)
    assert [x for e in decoder.find_errors(data) for x in (e.start, e.end)] == spans
    assert [x for e in decoder.find_errors(data, limit=2) for x in (e.start, e.end)] == spans[:4]


@given(data=mutated, cuts=st.lists(st.integers(0, 400), max_size=4))
def test_incremental_find_errors_is_feed_without_text(data: bytes, cuts: list[int]) -> None:
    feeding, finding = decoder.IncrementalDecoder(), decoder.IncrementalDecoder()
    points = sorted({min(c, len(data)) for c in cuts})
    pieces = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    for index, piece in enumerate(pieces):
        final = index == len(pieces) - 1
        want = [(e.start, e.end, e.naive, e.final) for e in feeding.feed(piece, final)[1]]
        got = [(e.start, e.end, e.naive, e.final) for e in finding.find_errors(piece, final)]
        assert got == want
        assert finding.getstate() == feeding.getstate()


def test_incremental_find_errors_limit_and_bom() -> None:
    dec = decoder.IncrementalDecoder()
    errs = dec.find_errors(b"ok \xff \xc0\xaf \xed\xa0\x80", True, limit=2)
    assert [(e.start, e.end) for e in errs] == [(3, 4), (5, 6)]
    assert dec.position == 11
    with pytest.raises(BomError):
        decoder.IncrementalDecoder(bom="reject").find_errors(b"\xef\xbb\xbfx")
    with pytest.raises(ValueError, match="limit"):
        decoder.IncrementalDecoder().find_errors(b"x", limit=0)


def test_overlong_nul_still_allowed() -> None:
    data = b"x" * 100 + b"\xc0\x80" + b"y" * 100 + b"\xc0\x80"
    assert decoder.is_valid(data, allow_overlong_nul=True)
    assert not decoder.is_valid(data)
    assert decoder.find_errors(data, allow_overlong_nul=True) == []
    assert [e.start for e in decoder.find_errors(data + b"\xff", allow_overlong_nul=True)] == [
        len(data)
    ]


def test_twin_is_exact_over_large_inputs() -> None:
    """The twin decodes in 1 MiB pieces: a character split between two is not an error."""
    text = ("\u00e9\u4e16\U0001f600" * 200_000).encode()
    assert _native.utf8_valid_prefix_py(text) == len(text)
    assert _native.utf8_valid_prefix_py(text[:-1]) == len(text) - 4
    head = text[: 9 * 120_000]  # whole characters, past the first piece
    assert _native.utf8_valid_prefix_py(head + b"\xff" + text) == len(head)
    assert _native.utf8_valid_prefix_py(text[: 1 << 20]) == (1 << 20) - 2  # a cut character


# -- kernel selection ---------------------------------------------------------------------


def _python(code: str, kernel: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SANITIZER_UTF8_KERNEL": kernel}
    env.pop("SANITIZER_PURE_PYTHON", None)
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.skipif(speedups is None, reason="the C extension is not in use")
@pytest.mark.parametrize("kernel", C_KERNELS)
def test_environment_forces_each_kernel(kernel: str) -> None:
    code = (
        "from sanitizer import _decoder as decoder, _native\n"
        "data = 'gr\\u00fc\\u00df \\u4e16 \\U0001f600'.encode() * 50\n"
        "assert decoder.is_valid(data) and not decoder.is_valid(data + b'\\xe2\\x82')\n"
        "assert [e.start for e in decoder.find_errors(data + b'\\xff' + data)] == [len(data)]\n"
        "print(_native.utf8_kernel())\n"
    )
    done = _python(code, kernel)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == kernel


@pytest.mark.skipif(speedups is None, reason="the C extension is not in use")
def test_environment_auto_picks_the_best() -> None:
    done = _python("from sanitizer import _native; print(_native.utf8_kernel())", "auto")
    assert done.stdout.strip() == C_KERNELS[0]


@pytest.mark.skipif(speedups is None, reason="the C extension is not in use")
def test_environment_unknown_kernel_is_a_clear_warning() -> None:
    """An unknown name never fails the import: one warning naming the kernels, and the
    best kernel runs."""
    done = _python("from sanitizer import _native; print(_native.utf8_kernel())", "avx9000")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == C_KERNELS[0]
    assert "SANITIZER_UTF8_KERNEL=avx9000: expected avx512, avx2, sse41, neon, scalar or auto" in (
        done.stderr
    )
    assert done.stderr.count("RuntimeWarning") == 1
    assert done.stderr.count("\n") < 30  # the message, not a deep traceback


def test_kernel_names() -> None:
    assert _native.utf8_kernel() in (*C_KERNELS, "python")
    assert C_KERNELS == () or C_KERNELS[-1] == "scalar"
    if speedups is not None:
        with pytest.raises(ValueError, match="no kernel"):
            speedups.valid_prefix_using("avx9000", b"")


def _cpu_flags() -> set[str] | None:
    """The CPU flags Linux reports (it leaves out AVX-512 when the OS does not save the
    ZMM state), or None where there is no /proc/cpuinfo."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        return None
    return None


AVX512_FLAGS = {"avx512f", "avx512bw", "avx512vbmi"}


@pytest.mark.skipif(speedups is None, reason="the C extension is not in use")
def test_avx512_kernel_runs_where_the_cpu_has_it() -> None:
    """The avx512 kernel is listed (so every parametrized test above runs it) exactly
    when the CPU and OS have AVX-512 F, BW and VBMI; it is then first only if measured
    faster (docs/benchmarks.md), which it was on Zen 4."""
    flags = _cpu_flags()
    if flags is None or "avx2" not in flags:
        pytest.skip("not Linux on x86-64: no CPU flags to check the avx512 kernel against")
    if not AVX512_FLAGS <= flags:
        assert "avx512" not in C_KERNELS
        pytest.skip("this CPU lacks AVX-512 F/BW/VBMI: the avx512 kernel cannot run here")
    assert "avx512" in C_KERNELS
    assert C_KERNELS[:2] == ("avx512", "avx2")
    assert speedups.valid_prefix_using("avx512", "\u00e9".encode() * 100) == 200


def test_is_valid_entry_points_agree() -> None:
    """``sanitizer.is_valid`` (C for plain bytes, with the extension) and ``is_valid_py``
    on every kind of argument: the fast path answers only plain valid bytes."""

    class Raw(bytes):
        pass

    good, bad = "caf\u00e9 \u4e16".encode() * 20, b"x" * 70 + b"\xc0\x80"
    for fn in (decoder.is_valid, decoder.is_valid_py):
        assert fn(good) and fn(Raw(good)) and fn(memoryview(good)) and fn(bytearray(good))
        assert not fn(bad) and not fn(Raw(bad)) and not fn(bad, allow_overlong_nul=False)
        assert fn(bad, allow_overlong_nul=True)
        with pytest.raises(TypeError, match="is_valid"):
            fn("text")  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            fn(good, True)  # type: ignore[call-arg]
