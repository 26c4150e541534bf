"""The bytes path of ``clean`` and ``clean_edit``, and the edit loop's fast path.

- Bytes are proven valid by the SIMD validator and then decoded in C (decode_valid.c, not by
  CPython's codec, when the AVX2 loops run): the answer for ``data`` is the answer for
  ``data.decode()``, kind included (``==`` on str compares kinds first), for every code
  point class boundary at every offset of the 32-byte vectors, for random text of all
  three str kinds and sizes below and above a 32-byte vector, and under the narrower
  kernels (in a subprocess: ``SANITIZER_UTF8_KERNEL``);
- ill-formed bytes (every RFC 3629 §4 failure: lone continuation, overlong, surrogate,
  above U+10FFFF, bytes that never appear, a sequence cut short, also at the very end)
  are answered ``None`` without an exception, whatever their size, so the engine decides;
  ``decode_valid``, the decoder alone (the engine's), answers as ``bytes.decode`` or None;
- the vector edit loop's fast path (an edit with no candidate beside it) agrees with
  ``_classtable.edit_reference`` when the edit, or a neighbour with a rule or a mark, is
  at a block edge (offsets 0, 31, 32, 63, 64, the end), for all three str kinds.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer import profiles
from sanitizer._native import speedups
from sanitizer._policy import Policy
from sanitizer._policy._classtable import edit_reference
from sanitizer._policy.compiled import CArgs, EditArgs, compile_policy

needs_c = pytest.mark.skipif(speedups is None, reason="needs the C extension")

POLICIES = [  # the profiles sanitize answers in one C call
    p
    for p in profiles.PROFILES.values()
    if compile_policy(p).direct_edit_args is not None
    and compile_policy(p).direct_verdict_args is not None
]
# first and last code point of each UTF-8 length and str kind, and some neighbours
BOUNDARIES = [
    0x00, 0x41, 0x7F, 0x80, 0xE9, 0xFF, 0x100, 0x7FF, 0x800, 0x2019, 0x4E00, 0xD7FF,
    0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF,
]  # fmt: skip
ILL_FORMED = [
    b"\x80", b"\xbf", b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xe0\x9f\xbf",
    b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf0\x80\x80\x80", b"\xf0\x8f\xbf\xbf",
    b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff", b"\xfe", b"\xc3", b"\xe4\xb8",
    b"\xf0\x9f\x98", b"\xc3\x41", b"\xe4\x41\xb8",
]  # fmt: skip


def _args(policy: Policy) -> tuple[CArgs, EditArgs]:
    compiled = compile_policy(policy)
    verdict, edit = compiled.direct_verdict_args, compiled.direct_edit_args
    assert verdict is not None and edit is not None, policy.name
    return verdict, edit


def _same_as_str(data: bytes, policies: list[Policy] = POLICIES) -> None:
    """clean and clean_edit answer bytes as they answer the decoded str."""
    assert speedups is not None
    text = data.decode()
    for policy in policies:
        verdict, edit = _args(policy)
        pairs = [
            (speedups.clean(data, *verdict), speedups.clean(text, *verdict)),
            (speedups.clean_edit(data, *edit), speedups.clean_edit(text, *edit)),
        ]
        for got, want in pairs:
            assert got == want, (policy.name, data[:80])
            if got is not None:  # same kind: same size (3.13's one-character singletons
                # also hold their UTF-8 form, so only longer strs are compared)
                assert type(got) is str
                assert len(got) < 2 or sys.getsizeof(got) == sys.getsizeof(want)


@needs_c
@pytest.mark.parametrize("size", [40, 300, 1000])
@pytest.mark.parametrize("filler", ["a", "é", "\u4e00", "\U0001f600"])
def test_every_boundary_at_every_offset(size: int, filler: str) -> None:
    base = filler * (size // len(filler.encode()))
    for cp in BOUNDARIES:
        for at in [*range(0, 70), len(base) - 1, len(base)]:
            _same_as_str((base[:at] + chr(cp) + base[at:]).encode(), [profiles.TEXT])


@needs_c
def test_clean_text_of_every_kind_decodes_exactly() -> None:
    """Text TEXT leaves as it is: the answer is the text itself, kind included."""
    assert speedups is not None
    verdict, edit = _args(profiles.TEXT)
    for filler in ["abc ", "abcé ", "ab\u2019c\u4e00 ", "ab\U0001f600c\u2019é "]:
        for size in (255, 256, 257, 1000, 4099):
            text = (filler * size)[:size]
            data = text.encode()
            for got in (speedups.clean(data, *verdict), speedups.clean_edit(data, *edit)):
                assert got == text and sys.getsizeof(got) == sys.getsizeof(text)


# Dense text of each str kind, every UTF-8 length the kind holds in turn: the vector
# decoders squeeze continuation bytes out of 16-byte (1- and 2-byte str) or 8-byte
# (4-byte str) blocks and start the next block after a character begun at a block's end.
DENSE = {
    "1-byte": "a\u00e9 \u00ff\u00c0b",
    "2-byte": "a\u00e9\u4e00\u0416 \uffe0\u2019\u07ff\u0800",
    "4-byte": "a\u00e9\u4e00\U0001f600 \U00020000\u2019\U00010000\u07ff",
}


@needs_c
@pytest.mark.parametrize("kind", sorted(DENSE))
def test_dense_text_at_every_length_and_phase(kind: str) -> None:
    cycle = DENSE[kind]
    for size in range(0, 90):
        for phase in range(len(cycle)):
            text = "".join(cycle[(phase + k) % len(cycle)] for k in range(size))
            _same_as_str(text.encode(), [profiles.TEXT])


texts = st.text(st.characters(codec="utf-8"), max_size=700)


@needs_c
@settings(deadline=None)
@given(texts, st.text(st.sampled_from("ab é\u2019\u4e00"), min_size=250, max_size=300))
def test_bytes_answer_as_their_str(text: str, pad: str) -> None:
    _same_as_str(text.encode())
    _same_as_str((pad + text).encode())  # past a few vectors of mostly ASCII
    assert speedups is not None
    for data in (text.encode(), (pad + text).encode()):  # the decoder alone, kind included
        got = speedups.decode_valid(data)
        assert got == data.decode() and got is not None
        assert len(got) < 2 or sys.getsizeof(got) == sys.getsizeof(data.decode())


@needs_c
@pytest.mark.parametrize("size", [0, 20, 255, 300, 5000])
def test_ill_formed_bytes_are_none(size: int) -> None:
    assert speedups is not None
    verdict, edit = _args(profiles.TEXT)
    for bad in ILL_FORMED:
        for at in sorted({0, 31, 32, 33, size // 2, size}):
            for data in (b"a" * at + bad + b"b" * (size - at), "é".encode() * size + bad):
                assert speedups.clean(data, *verdict) is None, data[:40]
                assert speedups.clean_edit(data, *edit) is None, data[:40]
                assert speedups.decode_valid(data) is None, data[:40]


def _kernel_run(seed: int) -> None:
    """The checks above, briefly, under the kernel SANITIZER_UTF8_KERNEL names."""
    import random

    rng = random.Random(seed)
    chars = [chr(cp) for cp in BOUNDARIES] + list("ab é\u2019\u200b\ufffe\u0301")
    for _ in range(300):
        text = "".join(rng.choice(chars) for _ in range(rng.choice([5, 40, 300, 700])))
        _same_as_str(text.encode(), [profiles.TEXT])
    test_ill_formed_bytes_are_none(300)


@needs_c
@pytest.mark.parametrize("kernel", ["avx2", "sse41", "scalar"])
def test_narrower_kernels(kernel: str) -> None:
    assert speedups is not None
    if kernel not in speedups.utf8_kernels() or kernel == speedups.utf8_kernels()[0]:
        pytest.skip(f"{kernel} is not a narrower kernel this machine runs")
    env = dict(os.environ, SANITIZER_UTF8_KERNEL=kernel)
    code = "import tests.policy.test_policy_decode as m; m._kernel_run(5)"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=600)


# An edit beside: nothing flagged, a mark (U+0301), a character with a sequence rule
# (U+200D ZWJ, U+FE0F), another edit; the edits are TEXT's strip (ZWSP) and replacement.
AROUND = [
    "\u200b", "\ufffe", "\u0301\u200b", "\u200b\u0301", "\u0301\ufffe", "\u200d\u200b",
    "\u200b\u200d", "\ufffe\ufe0f", "\u200b\ufffe", "\ufffe\ufffe", "\u200b\u200b",
    "\U0001f469\u200d\u200b",
]  # fmt: skip


@needs_c
@pytest.mark.parametrize("filler", ["abcé", "ab\u2019\u4e00", "a\U0001f600\u2019"])
def test_edits_and_neighbours_at_block_edges(filler: str) -> None:
    assert speedups is not None
    _, edit = _args(profiles.TEXT)
    base = (filler * 60)[:160]
    for snippet in AROUND:
        for at in (0, 1, 30, 31, 32, 33, 62, 63, 64, 65, 95, 96, 127, 128, 159, 160):
            for text in (base[:at] + snippet + base[at:], base[: at + 1] + snippet):
                want = edit_reference(text, *edit)
                assert speedups.clean_edit(text, *edit) == want, (at, snippet)
                assert speedups.clean_edit(text.encode(), *edit) == want, (at, snippet)


@needs_c
def test_the_text_decoded_for_nothing_is_kept_for_the_engine() -> None:
    """``clean`` and ``clean_edit`` keep the text they decoded from bytes (4 KiB or more)
    and gave up on unchanged, for ``take_decoded`` on the same object (the engine, which
    would decode it again) or for the next of them on it; clean bytes, ill-formed or short
    bytes, a str, and text clean_edit edited before giving up leave nothing, a call on
    other data drops it; and the reports are those of the str."""
    from sanitizer import _policy as policy

    assert speedups is not None
    verdict, edit = _args(profiles.TEXT)
    unclean = "Silben\u00adtren\u00adnung \u05e9\u05dc\u05d5\u05dd\u200f ".encode() * 400
    for data, kept in (
        (unclean, unclean.decode()),
        (b"clean text " * 400, None),
        (unclean + b"\xff", None),
        (unclean[:200], None),
    ):
        speedups.clean(data, *verdict)
        assert speedups.take_decoded(data) == kept
        assert speedups.take_decoded(data) is None  # taken: nothing kept after
    speedups.clean(unclean.decode(), *verdict)
    assert speedups.take_decoded(unclean) is None
    speedups.clean(unclean, *verdict)
    speedups.clean(b"x" * 5000, *verdict)  # another call drops it
    assert speedups.take_decoded(unclean) is None
    speedups.clean(unclean, *verdict)
    assert speedups.take_decoded(bytes(bytearray(unclean))) is None  # (an equal copy: another)
    first_mark = "e\u0301 " + "Text mit \u00adWeich " * 300  # a mark NFC composes: gives up
    for filler in ("ab", "\u05d0\u05d1", "\U0001f600x"):
        gives_up = (first_mark + filler * 40).encode()
        assert speedups.clean_edit(gives_up, *edit) is None
        assert speedups.take_decoded(gives_up) == gives_up.decode()
        speedups.clean(gives_up, *verdict)  # kept by clean, taken by clean_edit
        assert speedups.clean_edit(gives_up, *edit) is None
        assert speedups.take_decoded(gives_up) == gives_up.decode()
        edited_first = ("Text\u00ad mit " * 300 + filler * 40 + "e\u0301").encode()
        assert speedups.clean_edit(edited_first, *edit) is None
        assert speedups.take_decoded(edited_first) is None  # stripped in place first
    # above and below the size kept; a mark first: clean_edit gives up before any edit
    for data in (unclean, unclean[: len(unclean) // 400 * 3], "e\u0301 ".encode() + unclean):
        text = data.decode()
        for p in (profiles.TEXT, profiles.PROMPT, profiles.IDENTIFIER):
            got, want_report = policy.inspect(data, p), policy.inspect(text, p)
            assert (got.ok, got.text, len(got.findings)) == (
                want_report.ok,
                want_report.text,
                len(want_report.findings),
            )
            assert policy.accepts(data, p) == policy.accepts(text, p)
            assert _sanitized(policy.sanitize, data, p) == _sanitized(policy.sanitize, text, p)


def _sanitized(sanitize: object, data: bytes | str, p: Policy) -> str | None:
    try:
        return sanitize(data, p)  # type: ignore[operator,no-any-return]
    except ValueError:  # PolicyError
        return None


@given(texts)
def test_fits_latin1_is_the_latin1_encoding(text: str) -> None:
    """``_scan.fits_latin1`` (the str's kind in C, ``str_kind``) says what encoding to
    Latin-1 says: whether every character is below U+0100."""
    from sanitizer._policy._scan import fits_latin1

    for t in (text, text + "\u00e9", text + "\u0100", text + "\U0001f600"):
        assert fits_latin1(t) == all(ord(c) < 0x100 for c in t)
        if speedups is not None:
            assert speedups.str_kind(t) == (
                1 if max(t, default="\0") < "\u0100" else 2 if max(t) < "\U00010000" else 4
            )
