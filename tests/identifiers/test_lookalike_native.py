"""The one-call C skeleton and confusable check (lookalike.c) answer as the pure-Python
reference (sanitizer._lookalike.skeletons.skeleton_py / confusable_py).

The C path does NFD itself, from tables tools/gen_lookalike.py generates from
unicodedata2, so the comparisons aim where NFD is subtle: every code point, Hangul
syllables (decomposed by arithmetic), runs of combining marks in every order (canonical
ordering; long runs take the counting sort), marks whose prototype has another class, and
default-ignorables.  The package falls back to the reference when the extension is absent
or its NFD tables are of another Unicode version than the installed unicodedata2, and
SANITIZER_PURE_PYTHON=1 gives the same verdicts on the benchmark's pairs.
"""

from __future__ import annotations

import json
import lzma
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import unicodedata2
from hypothesis import given, settings
from hypothesis import strategies as st

import sanitizer
from sanitizer._lookalike import Confusability, _lookups, scripts, skeletons
from tests.support.settings import examples

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "icu-78.3-spoof.json.xz"


def _native() -> tuple[Callable[[str], str], Callable[[str, str], Confusability | None]]:
    found = skeletons.native()
    if found is None:
        pytest.skip("C extension absent, too old, or SANITIZER_PURE_PYTHON=1")
    return found


def test_public_functions_use_the_native_path_when_built() -> None:
    found = skeletons.native()
    sanitizer.confusable("a", "b")
    expected = found if found is not None else (skeletons.skeleton_py, skeletons.confusable_py)
    assert (skeletons._skeleton, skeletons._confusable) == expected


@pytest.mark.slow
def test_every_code_point() -> None:
    native_skeleton, native_confusable = _native()
    every = [chr(cp) for cp in range(0x110000)]
    assert [c for c in every if native_skeleton(c) != skeletons.skeleton_py(c)] == []
    # A code point and its skeleton are confusable, with the reference's script verdict.
    sample = every[::7] + every[0xAC00:0xAD00] + every[0x300:0x370]
    wrong = [
        c
        for c in sample
        if native_confusable(c, skeletons.skeleton_py(c))
        is not skeletons.confusable_py(c, skeletons.skeleton_py(c))
    ]
    assert wrong == []
    # confusable(s, s) is single-script exactly when the resolved set of s is non-empty
    # (§5.1): each code point against Latin, Cyrillic, Han and Hiragana
    for probe in ("a", "\u0430", "\u5c71", "\u3042"):
        texts = [c + probe for c in (every if probe == "a" else every[::5])]
        wrong = [s for s in texts if native_confusable(s, s) is not skeletons.confusable_py(s, s)]
        assert wrong == [], probe


MARKS = "\u0301\u0315\u0316\u0307\u0323\u0345\u05b0\u0f71\u0f72\u0f74\u1dce\u302a\u0e38\u093c"
PIECES = MARKS + (
    "aAlI1|0Oom\u0430\u043e\u1e69\u00e9\u0130\uac01\ud7a3\u1100\u1161\u11a8\u0000\u200b"
    "\u00ad\u05d0\u0f73\u0f75\u1f82\u2126\ufb1d\u0344\U0001d15e\u3099\u304b\u30fc\u5c71"
)
pieces = st.text(st.sampled_from(PIECES), max_size=16)
anything = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)


@settings(max_examples=examples(500), deadline=None)
@given(pieces | anything, pieces | anything)
def test_same_answers_as_the_reference(a: str, b: str) -> None:
    native_skeleton, native_confusable = _native()
    assert native_skeleton(a) == skeletons.skeleton_py(a)
    assert native_confusable(a, b) is skeletons.confusable_py(a, b)
    assert native_confusable(a, a) is skeletons.confusable_py(a, a)
    # canonically equivalent strings have one skeleton
    for form in ("NFC", "NFD"):
        assert native_skeleton(unicodedata2.normalize(form, a)) == native_skeleton(a)


@pytest.mark.parametrize("length", [2, 16, 17, 300, 5000])
def test_long_runs_of_marks_are_ordered_as_nfd_orders_them(length: int) -> None:
    native_skeleton, _ = _native()
    marks = "".join(MARKS[(i * 7) % len(MARKS)] for i in range(length))
    for text in ("a" + marks, marks + "b" + marks[::-1], "\uac00" + marks + "\u0315a"):
        assert native_skeleton(text) == skeletons.skeleton_py(text)


def test_argument_errors_name_the_argument() -> None:
    native_skeleton, native_confusable = _native()
    with pytest.raises(TypeError, match=r"^skeleton\(\) argument 's' must be str, not bytes$"):
        native_skeleton(b"x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^confusable\(\) argument 'b' must be str, not int$"):
        native_confusable("x", 1)  # type: ignore[arg-type]


def test_tables_are_checked_once() -> None:
    _native()
    from sanitizer._native import speedups

    assert speedups is not None
    good = _lookups.skeleton_map().native()
    runs = scripts.native_script_tables()
    verdicts = (None, 1, 2, 3)
    sources, index, offsets, values = good
    with pytest.raises(ValueError, match="index must come from index_code_points"):
        speedups.skeleton_tables((sources, index[:-1], offsets, values), good, good, runs, verdicts)
    with pytest.raises(ValueError, match="offsets out of order or past values"):
        speedups.skeleton_tables((sources, index, offsets, values[:-1]), good, good, runs, verdicts)
    with pytest.raises(TypeError):
        speedups.skeleton_tables(good, good, good, runs[:3], verdicts)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a run's id has no mask"):
        speedups.skeleton_tables(good, good, good, (*runs[:2], b"", 1), verdicts)
    with pytest.raises(ValueError):  # not a capsule of these tables
        speedups.confusable(object(), "a", "b")


def test_falls_back_when_unicodedata2_has_another_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_lookups, "normalization_version", lambda: "0.0.0")
    assert skeletons.native.__wrapped__() is None


@pytest.mark.slow
def test_pure_python_backend_gives_the_same_verdicts_on_the_benchmark_pairs() -> None:
    data = json.loads(lzma.decompress(FIXTURE.read_bytes()))
    strings, pairs = data["strings"], data["pairs"]
    script = (
        "import json, sys, sanitizer; d = json.load(sys.stdin); s = d['strings']\n"
        "out = [sanitizer.confusable(s[i], s[j]) for i, j, _ in d['pairs']]\n"
        "print(json.dumps([None if v is None else v.value for v in out]))"
    )
    env = dict(os.environ, SANITIZER_PURE_PYTHON="1")
    result = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    pure = json.loads(result.stdout)
    here = [sanitizer.confusable(strings[i], strings[j]) for i, j, _ in pairs]
    assert [None if v is None else v.value for v in here] == pure
