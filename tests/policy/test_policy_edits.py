"""sanitize's C fast path with edits, and the vector scan loops under it.

- the C scan (AVX2 loops over 1-, 2- and 4-byte strs, SSE2 or scalar otherwise) agrees
  with ``_classtable.scan_reference`` on long texts of clean characters from many blocks
  with rare specials at every offset, and on runs of marks across 32-character windows;
  the same under ``SANITIZER_UTF8_KERNEL=sse41`` (no AVX2 loops), in a subprocess;
- ``_speedups.clean_edit`` agrees with ``_classtable.edit_reference``, with the real
  tables of every profile and with random ones;
- whenever ``clean_edit`` answers, the engine (``Run``) gives the same text, and finds
  nothing it refuses; the answer is a canonical str (equal to the engine's, whose kind
  may be narrower than the input's after a strip);
- it does answer for prose in which TEXT strips and replaces characters (not vacuous).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer import profiles, sanitize
from sanitizer._categories import Category
from sanitizer._native import speedups
from sanitizer._policy import Action, Policy
from sanitizer._policy._classtable import (
    EDIT_REPLACE,
    EDIT_STRIP,
    class_table,
    edit_reference,
    scan_reference,
)
from sanitizer._policy._run import Run
from sanitizer._policy.compiled import compile_policy

needs_c = pytest.mark.skipif(speedups is None, reason="needs the C extension")
A = Action
C = Category

# Clean characters of several blocks (fillers) and characters some policy flags.
FILLERS = {
    1: "abc xyz.,é\xa0ß\n\t",
    2: "abc \u2019\u201c\u201d\u2014我能ガラス나는é\u3000",
    4: "ab \U0001f44d\U0001f3fd\U0001f600\u2019我é",
}
SPECIALS = (
    "\x00\x1b\x7f\x85\xad\u0301\u0327\u200b\u200d\u200c\ufe0f\ufe0e\u180b\u1820\u202e"
    "\u2060\ufeff\ufdd0\ufffe\u3164\uff0f\u1161\U000e0041\U000e0100\U0001fffe\U0001f469"
    "\u845b\U000e007f\U0001f3f4\U0001d15e"
    # in the blocks tested exactly (U+20xx, U+30xx) and other supplementary super-blocks
    "\u2066\u20d0\u3099\u302a\u300b\U000101fd\U0001d167\U0010fffe\U000f0000\U0001e944"
)
POLICIES = [
    *profiles.PROFILES.values(),
    profiles.TEXT.replace(allow_sequences=False),
    profiles.TEXT.replace(max_combining=2),
    profiles.TEXT.with_actions(NUL=A.STRIP, CONTROL=A.REPLACE, TAG=A.STRIP),
    profiles.TEXT.with_actions(VARIATION_SELECTOR=A.REPLACE, PRIVATE_USE=A.STRIP),
    Policy(actions={C.INVISIBLE: A.STRIP, C.NONCHARACTER: A.REPLACE}),
]


def _text(rng: random.Random, kind: int, n: int, rate: float) -> str:
    fill = "".join(FILLERS[k] for k in FILLERS if k <= kind)
    out = [rng.choice(fill) if rng.random() >= rate else rng.choice(SPECIALS) for _ in range(n)]
    if rng.random() < 0.2:  # a run of marks across a window edge
        at = rng.randrange(n + 1)
        out[at:at] = ["\u0301"] * rng.randrange(1, 40)
    return "".join(out)


def _scan_agrees(trials: int, seed: int) -> None:
    assert speedups is not None
    t = class_table()
    rng = random.Random(seed)
    for _ in range(trials):
        args = compile_policy(rng.choice(POLICIES)).verdict_args
        assert args is not None
        text = _text(rng, rng.choice([1, 2, 4]), rng.choice([31, 32, 33, 64, 65, 100, 300]), 0.01)
        start = rng.randrange(len(text) + 1)
        got = speedups.scan(text, t.stage1, t.stage2, args[2], args[3], start)
        want = scan_reference(text, t.stage1, t.stage2, args[2], args[3], start)
        assert got == want, (text, start)


@needs_c
def test_vector_scan_matches_reference() -> None:
    _scan_agrees(3000, 14)


@needs_c
def test_vector_scan_without_avx2_matches_reference() -> None:
    env = dict(os.environ, SANITIZER_UTF8_KERNEL="sse41")
    code = "import tests.policy.test_policy_edits as m; m._scan_agrees(800, 15)"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=600)


def _edit_args(policy: Policy) -> tuple[bytes, bytes, bytes, int, bytes]:
    args = compile_policy(policy).direct_edit_args
    assert args is not None, policy.name
    return args


@needs_c
def test_clean_edit_matches_reference() -> None:
    assert speedups is not None
    rng = random.Random(7)
    direct = [p for p in POLICIES if compile_policy(p).direct_edit_args is not None]
    assert len(direct) >= 4
    t = class_table()
    answered = 0
    for trial in range(3000):
        args = _edit_args(rng.choice(direct))
        if trial % 4 == 0:  # random edits over the real flags
            edits = bytes(rng.choice([0, EDIT_STRIP, EDIT_REPLACE, 3]) for _ in range(256))
            args = (*args[:4], edits)
        text = _text(rng, rng.choice([1, 2, 4]), rng.choice([0, 1, 5, 33, 70, 200]), 0.05)
        got = speedups.clean_edit(text, *args)
        assert got == edit_reference(text, *args), (text, trial)
        answered += got is not None and got != text
        assert speedups.clean_edit(text.encode("utf-8", "surrogatepass"), *args) == got
    assert answered > 100  # the comparison is not vacuous
    with pytest.raises(ValueError, match="edits"):
        speedups.clean_edit("a", t.stage1, t.stage2, args[2], args[3], b"\0" * 255)


def _edits_agree(trials: int, seed: int) -> None:
    """clean_edit on long texts dense with edits (str, and bytes: then edited in place)
    against edit_reference: every vector block edge, in place or not."""
    assert speedups is not None
    rng = random.Random(seed)
    direct = [p for p in POLICIES if compile_policy(p).direct_edit_args is not None]
    for _ in range(trials):
        args = _edit_args(rng.choice(direct))
        kind = rng.choice([1, 2, 4])
        n = rng.choice([31, 32, 33, 63, 64, 65, 97, 130, 400, 1000])
        text = _text(rng, kind, n, rng.choice([0.02, 0.1, 0.3]))
        want = edit_reference(text, *args)
        assert speedups.clean_edit(text, *args) == want, text
        assert speedups.clean_edit(text.encode(), *args) == want, text


@needs_c
def test_clean_edit_matches_reference_on_long_texts() -> None:
    _edits_agree(1500, 21)


@needs_c
def test_clean_edit_without_avx2_matches_reference() -> None:
    env = dict(os.environ, SANITIZER_UTF8_KERNEL="sse41")
    code = "import tests.policy.test_policy_edits as m; m._edits_agree(400, 22)"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=600)


@needs_c
@pytest.mark.parametrize("filler", ["abcé", "ab\u2019\u4e00", "a\U0001f600\u2019"])
def test_clean_edit_at_every_offset(filler: str) -> None:
    """One or two edits (strips, replacements, adjacent or not) at every offset of a text
    spanning several vector blocks, as str and as bytes (edited in place)."""
    assert speedups is not None
    args = _edit_args(profiles.TEXT)
    base = (filler * 40)[:100]
    for at in range(len(base) + 1):
        for edit in ("\u200b", "\ufffe", "\u200b\u200b", "\ufffe\ufffe", "\ufffe\u200b\ufffe"):
            for text in (base[:at] + edit + base[at:], base[:at] + edit + base[at:] + edit):
                want = edit_reference(text, *args)
                assert want is not None
                assert speedups.clean_edit(text, *args) == want, (at, edit)
                assert speedups.clean_edit(text.encode(), *args) == want, (at, edit)


@needs_c
@pytest.mark.parametrize("size", [31, 255, 256, 257, 600, 5000])
@pytest.mark.parametrize("filler", ["abc", "abcé"])
def test_clean_edit_narrows_long_texts(size: int, filler: str) -> None:
    """A strip that leaves a wide str holding only narrower characters: the answer is the
    canonical str (ASCII or Latin-1 kind; == compares kinds first), wherever the strip."""
    assert speedups is not None
    args = _edit_args(profiles.TEXT)
    base = (filler * size)[:size]
    for at in (0, size // 3, size - 1, size):
        for data in (base[:at] + "\u200b" + base[at:], base[:at] + "\u200b\u4e00" + base[at:]):
            want = edit_reference(data, *args)
            assert want is not None
            for arg in (data, data.encode()):
                got = speedups.clean_edit(arg, *args)
                assert got == want
                assert got is not None and got.isascii() == want.isascii()


def _agrees_with_engine(data: bytes | str, policy: Policy) -> bool:
    args = compile_policy(policy).direct_edit_args
    if args is None:
        return False
    assert speedups is not None
    got = speedups.clean_edit(data, *args)
    if got is None:
        return False
    full = Run(data, compile_policy(policy)).report()
    assert full.ok, (data, policy.name, full.findings)
    assert full.text == got, (data, policy.name)
    assert sanitize(data, policy) == got
    return True


texts = st.lists(
    st.one_of(
        st.sampled_from([*SPECIALS, "\u200b\u200b", "\ufffe\ufffe", "e\u200b\u0301"]),
        st.sampled_from(list("".join(FILLERS.values()))),
        st.characters(codec="utf-8"),
    ),
    max_size=40,
).map("".join)


@needs_c
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(texts, st.sampled_from(POLICIES), st.booleans())
def test_clean_edit_agrees_with_engine(text: str, policy: Policy, as_bytes: bool) -> None:
    _agrees_with_engine(text.encode() if as_bytes else text, policy)


@needs_c
def test_clean_edit_agrees_with_engine_on_many_texts() -> None:
    rng = random.Random(3)
    answered = 0
    for _ in range(3000):
        policy = rng.choice(POLICIES)
        text = _text(rng, rng.choice([1, 2, 4]), rng.choice([1, 8, 40]), 0.15)
        data: bytes | str = text.encode() if rng.random() < 0.5 else text
        answered += _agrees_with_engine(data, policy)
    assert answered > 300


@needs_c
@pytest.mark.parametrize(
    "text, out",
    [
        ("a\u200bb", "ab"),  # a wide str that narrows to ASCII
        ("caf\u00e9\u200b", "caf\u00e9"),  # ... to Latin-1
        ("\u2019\u200b", "\u2019"),  # stays UCS2
        ("\U0001f600\u200b", "\U0001f600"),
        ("\U0001f600\u200b\u2019", "\U0001f600\u2019"),
        ("x\ufffe\ufffey\ufffe", "x\ufffdy\ufffd"),  # adjacent replacements: one U+FFFD
        ("x\ufffe\u200b\ufffe", "x\ufffd\ufffd"),
        ("\u200b", ""),
    ],
)
def test_clean_edit_examples(text: str, out: str) -> None:
    for data in (text, text.encode()):
        assert speedups is not None
        got = speedups.clean_edit(data, *_edit_args(profiles.TEXT))
        assert got == out
        assert _agrees_with_engine(data, profiles.TEXT)


@needs_c
@pytest.mark.parametrize("size", [64, 4096, 1 << 20])
def test_clean_edit_answers_prose_with_edits(size: int) -> None:
    unit = "\u201cIt\u2019s fine\u201d, she\u200b said \u2014 and left the café\ufffe.\n".encode()
    data = (unit * (size // len(unit) + 1))[:size].decode("utf-8", "ignore").encode()
    assert speedups is not None
    got = speedups.clean_edit(data, *_edit_args(profiles.TEXT))
    assert got is not None
    assert got == data.decode().replace("\u200b", "").replace("\ufffe", "\ufffd")
    assert _agrees_with_engine(data[:4096], profiles.TEXT)
