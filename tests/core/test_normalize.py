"""The C NFC and NFKC (``_speedups.normalize``, normalize.c) answer as unicodedata2.

unicodedata2 is the reference and the pure-Python twin (``_categories.unicode_normalize``
is it under SANITIZER_PURE_PYTHON=1).  Every code point is compared in the contexts where
normalization differs (alone, after a starter that composes, before marks out of
canonical order, after a Hangul leading consonant or LV syllable, doubled, after the start
of its own decomposition, after a segment that composed), each piece followed by a
newline: a boundary (UAX #15 §9), so the whole text normalizes as the pieces do and one
call covers many (the BMP in the fast tier, the other planes slow).  Hypothesis mixes
starters that compose, composites, singletons, compatibility characters and marks of
many classes in runs long enough for the counting sort, and text in NFD: stretches of
letters between marks.
"""

from __future__ import annotations

import pytest
import unicodedata2
from hypothesis import given
from hypothesis import strategies as st

from sanitizer import _categories
from sanitizer._native import speedups

FORMS = ("NFC", "NFKC")
# marks of several classes (1, 7, 9, 202, 216, 220, 230, 232, 240) and starters that
# compose, composites, singletons, two-mark decompositions, compatibility characters
MARKS = (
    "\u0334\u093c\u094d\u0327\u031b\u0316\u0301\u0300\u0302\u0308\u0306\u0315\u0345"
    "\u05b0\u0f71\u0f72\u0f80"
)
OTHERS = (
    "aeouAEOUnsz\u03b1\u03c9\u0399\u0415\u0430\u0627\u0648\u0928\u09c7\u0b47\u0cc6\u0d46"
    "\u1100\u1161\u11a8\uac00\uac01\u1ea5\u00c5\u212b\u0344\u0f73\u0f75\u0958\ufb2c\u1e9b"
    "\u00e9\u2126\ufdfa\ufb01\u2460\u3300\u00a0\u017f\u0cd5\u0cc2\u0b57\u09be\u0dcf\u0dca"
    "\U0001109a\U00011099\U000110ba\U0001d15e\U0001d165\u3099\u304b\u30cf\u309a"
)
CONTEXTS = (
    "{0}",
    "a{0}",
    "{0}\u0316\u0301\u0327",
    "\u1100{0}",
    "\uac00{0}",
    "\u0308{0}\u0301",
    "{0}{0}",
    # after a segment that composed, so met by the pass composing as it copies, then a
    # mark it may have to come after (e-acute then U+0316: e U+0316 U+0301)
    "e\u0301{0}\u0316",
)

native = pytest.mark.skipif(speedups is None, reason="the C extension is off")


def _first_difference(got: str, want: str) -> str:
    for g, w in zip(got.split("\n"), want.split("\n"), strict=False):
        if g != w:
            return f"{g!a} != {w!a}"
    return "lengths differ"


def _pieces(context: str, code_points: range) -> str:
    return "".join(
        context.format(chr(cp)) + "\n" for cp in code_points if not 0xD800 <= cp <= 0xDFFF
    )


def _after_own_start(form: str, code_points: range) -> str:
    """Each code point that decomposes after the first of its decomposition (U+1611E U+16123 is
    U+16126 in NFC: a Quick_Check Yes starter can compose with what precedes it)."""
    full = "NFKD" if form == "NFKC" else "NFD"
    out = []
    for cp in code_points:
        if not 0xD800 <= cp <= 0xDFFF:
            decomposed = unicodedata2.normalize(full, chr(cp))
            if decomposed != chr(cp):
                out.append(decomposed[0] + chr(cp) + "\n")
    return "".join(out)


def _same(text: str, form: str) -> None:
    assert speedups is not None
    got, want = speedups.normalize(text, form == "NFKC"), unicodedata2.normalize(form, text)
    assert got == want, _first_difference(got, want)


@native
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("context", CONTEXTS)
def test_every_bmp_code_point_in_context(form: str, context: str) -> None:
    _same(_pieces(context, range(0x10000)), form)


@native
@pytest.mark.parametrize("form", FORMS)
def test_every_code_point_after_its_decompositions_start(form: str) -> None:
    _same(_after_own_start(form, range(0x110000)), form)


@native
@pytest.mark.slow
def test_every_astral_code_point_in_context() -> None:
    """Planes 1-16 after a starter that composes and before marks out of order."""
    text = _pieces("a{0}\u0316\u0301\u0327", range(0x10000, 0x110000))
    for form in FORMS:
        _same(text, form)


@given(
    st.lists(
        st.one_of(
            st.sampled_from(MARKS), st.sampled_from(MARKS), st.sampled_from(OTHERS), st.characters()
        ),
        max_size=60,
    ),
    st.sampled_from(FORMS),
)
def test_sequences_of_marks(chars: list[str], form: str) -> None:
    text = "".join(chars)
    want = unicodedata2.normalize(form, text)
    assert _categories.unicode_normalize(form, text) == want
    if speedups is not None:
        assert speedups.normalize(text, form == "NFKC") == want


@native
def test_long_runs_out_of_order() -> None:
    """Runs of marks past the insertion sort's length, in every order of two classes."""
    assert speedups is not None
    for n in (17, 100, 5000):
        for text in (
            "a" + "\u0301\u0316" * n,
            "a" + "\u0316" * n + "\u0301" * n + "b\u0308",
            "\u0301" * n,
            "\ufdfa" * n + "\u0345\u0301" * n,
        ):
            for form in FORMS:
                _same(text, form)


@native
def test_text_already_normal_is_returned_as_is() -> None:
    assert speedups is not None
    for text in (
        "Tiếng Việt 中文 café",
        "בְּרֵאשִׁית בָּרָא",  # Hebrew points: non-starters of several classes, in order
        "नमस्ते दुनिया",  # Devanagari virama and vowel signs
        "สวัสดี ครับ",  # Thai vowels and tone marks
        "بِسْمِ ٱللَّهِ",  # Arabic harakat
    ):
        for compat in (False, True):
            assert speedups.normalize(text, compat) is text, text


def _quick_check_yes(form: str, text: str) -> bool:
    """UAX #15 §9's quick check, written here from the spec (an independent copy of the
    C scan's test, which asks more of a starter): every code point Quick_Check Yes, no
    non-starter after one of a higher class."""
    not_yes = _categories.NFC_QC_NOT_YES if form == "NFC" else _categories.NFKC_QC_NOT_YES
    last = 0
    for ch in text:
        ccc = unicodedata2.combining(ch)
        if (ccc and last > ccc) or any(lo <= ord(ch) <= hi for lo, hi in not_yes):
            return False
        last = ccc
    return True


@native
@given(
    st.lists(
        st.one_of(st.sampled_from(MARKS), st.sampled_from(OTHERS), st.characters()),
        max_size=40,
    ),
    st.sampled_from(FORMS),
)
def test_the_quick_check_decides_what_is_returned_as_is(chars: list[str], form: str) -> None:
    """The normal form; the text itself only where the quick check says Yes, and always
    when its non-starters are Yes and in order between letters of the samples (Yes
    starters such as U+16D68, whose decomposition composes with what is before it since
    Unicode 16, are no proof: NormalizationTest's U+16D63 U+16D68 is U+16D6A in NFC)."""
    assert speedups is not None
    text = "".join(chars)
    got = speedups.normalize(text, form == "NFKC")
    assert got == unicodedata2.normalize(form, text)
    if got is text:
        assert _quick_check_yes(form, text)
    plain = "".join(c for c in text if c in "aeouAEOUnsz" or unicodedata2.combining(c))
    if _quick_check_yes(form, plain):
        assert speedups.normalize(plain, form == "NFKC") is plain


def test_other_forms_are_unicodedata2s() -> None:
    text = "\u1ea5\ufb01\u0301a"
    for form in ("NFD", "NFKD", *FORMS):
        assert _categories.unicode_normalize(form, text) == unicodedata2.normalize(form, text)


@native
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(
    "prefix",
    ("", "ab\u0301" * 40, "\u00e9\u00bd" * 40, "\u0101\u0301" * 40, "\U0001d15e\u0301" * 20),
)
@pytest.mark.parametrize(
    "tail",
    # a composite in the text's width, one only 4 bytes hold (U+FA6C -> U+242EE), a
    # Latin-1 result (the output narrows), an expansion (U+FDFA: 18 in NFKC)
    ("e\u0301", "\ufa6c", "\U0002f800\u0301", "A\u030a", "\ufdfa" * 30, "\u0344" * 50),
)
def test_output_width(form: str, prefix: str, tail: str) -> None:
    """The C pass writes the width of its input (2 bytes for Latin-1 text, which NFKC
    widens) and starts again 4 bytes wide when a segment makes a supplementary code point;
    room is made before segments only: text of every width, with the widening segment
    early, late, alone and after long stretches, and expansions that outgrow the room."""
    for text in (prefix + tail, tail + prefix, prefix + tail + prefix, (prefix + tail) * 9):
        _same(text, form)


@given(
    st.text(
        st.sampled_from("ae\u00e9\u00bd\u0301\u0302\u0323\u0344\ufa6c\ufdfa\U0002f800"), max_size=80
    ),
    st.sampled_from(FORMS),
)
def test_widths_and_expansions(text: str, form: str) -> None:
    """Mixes of Latin-1, composing marks, singletons to the supplementary planes and
    long expansions: the C pass answers as unicodedata2."""
    if speedups is not None:
        assert speedups.normalize(text, form == "NFKC") == unicodedata2.normalize(form, text)


# What text in NFD is made of: stretches of letters (copied 8 at a time by the pass that
# composes as it copies, or handed back to the quick check after 32), letters that
# decompose (e-acute then U+0323 is reordered), the diacritics and marks of other blocks.
STRETCH_PIECES = st.one_of(
    st.text(st.sampled_from("aeoAEO nt.\n"), min_size=1, max_size=40),
    st.sampled_from("\u00e9\u00c5\u00f1\u00e0\u01a1\u1ea1\u1eb9\u0111"),
    st.sampled_from("\u0300\u0301\u0302\u0303\u0309\u0323\u031b\u0306\u0308\u0345"),
    st.sampled_from(MARKS + OTHERS),
)


@native
@given(st.lists(STRETCH_PIECES, max_size=40), st.sampled_from(FORMS), st.integers(0, 3))
def test_text_in_nfd_with_stretches_between_marks(pieces: list[str], form: str, limit: int) -> None:
    """Marks among stretches of letters of every length, letters that decompose before
    marks out of order, runs over a limit: the C pass answers as unicodedata2 (and
    normalize_runs refuses exactly the runs over the limit)."""
    assert speedups is not None
    text = "".join(pieces)
    _same(text, form)
    want = None if _over(text, limit) else unicodedata2.normalize(form, text)
    assert speedups.normalize_runs(text, form == "NFKC", limit) == want


# marks a combining run counts (of ccc 0 too: U+0903, U+093E, U+20DD; U+0F73 decomposes),
# carriers of hidden payloads it does not (U+FE00, U+034F), and what ends a run
RUN_PIECES = (
    "\u0301\u0316\u0903\u093e\u20dd\u0f73\u0344\ufe00\u034f\u3099" + "ae\u00e9\u200b\ufa6c "
)


def _over(text: str, limit: int) -> bool:
    """A run of more than ``limit`` counted marks (the policy layer's COUNTED_MARKS)."""
    from sanitizer._categories import in_ranges
    from sanitizer._policy._scan import COUNTED_MARKS

    run = 0
    for ch in text:
        run = run + 1 if in_ranges(ord(ch), COUNTED_MARKS) else 0
        if run > limit:
            return True
    return False


@native
@given(
    st.text(st.sampled_from(RUN_PIECES), max_size=60),
    st.sampled_from(FORMS),
    st.integers(min_value=0, max_value=5),
)
def test_runs_counted_in_the_same_pass(text: str, form: str, limit: int) -> None:
    """``normalize_runs(text, compat, max_run)``: None exactly when the text holds a run of
    more than ``max_run`` counted marks, wherever the pass reads them (stretches it
    copies, segments it composes or decomposes, a pass started again 4 bytes wide),
    else the normal form."""
    assert speedups is not None
    want = None if _over(text, limit) else unicodedata2.normalize(form, text)
    assert speedups.normalize_runs(text, form == "NFKC", limit) == want


@native
def test_runs_of_every_counted_mark() -> None:
    """Each mark of every class, alone, twice and in a run over the limit, after a
    starter and between text that must change: the flag in the records is COUNTED_MARKS."""
    from sanitizer._policy._scan import COUNTED_MARKS

    assert speedups is not None
    marks = [chr(cp) for lo, hi in COUNTED_MARKS for cp in range(lo, hi + 1)]
    for m in marks:
        assert speedups.normalize_runs("e\u0301a" + m + "b", False, 1) is not None, hex(ord(m))
        assert speedups.normalize_runs("a" + m * 3 + "e\u0301", False, 2) is None, hex(ord(m))
    text = "".join("x" + m for m in marks)  # one mark a run: nothing over 1
    assert speedups.normalize_runs(text, True, 1) == unicodedata2.normalize("NFKC", text)
