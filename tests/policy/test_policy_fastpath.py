"""The policy fast path (class table + C scan) never answers differently from the engine.

- the class table reproduces ``category_of`` and every flag for all code points;
- the C ``scan`` agrees with ``_classtable.scan_reference`` on random text of all three
  str kinds, with the real policy tables and with random ones;
- whenever the fast path returns text, it is exactly what the engine (``Run``) returns with no
  finding, for every profile and some variants, on text built from the characters that
  matter (controls, emoji sequences, selectors, tags, marks, NFD, compatibility chars);
- the fast path does return text for the benchmark's clean inputs (the speed-up is real);
- malformed tables raise ValueError.
"""

from __future__ import annotations

import random
from array import array
from typing import Any

import pytest
import unicodedata2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer import _chartables_data, profiles
from sanitizer._categories import CHARACTER_CATEGORIES, Category, category_of, nfkc_casefold_table
from sanitizer._native import speedups
from sanitizer._policy import Action, Policy
from sanitizer._policy._classtable import (
    CASEFOLD,
    EMOJI,
    FLAGS,
    GRAPHIC,
    IDEOGRAPHIC,
    MARK,
    MAX_CP,
    MONGOLIAN,
    NFC,
    NFKC,
    RULE_SIZE,
    TAG_END,
    VS16,
    VS_IDEOGRAPHIC,
    VS_MONGOLIAN,
    VS_STANDARD,
    ZWJ,
    class_table,
    prefilter,
    scan_reference,
)
from sanitizer._policy._run import Run
from sanitizer._policy._sequences import NEIGHBOUR_RULES
from sanitizer._policy.compiled import CArgs, compile_policy

C = Category
A = Action
needs_c = pytest.mark.skipif(speedups is None, reason="needs the C extension")


def _flat() -> bytes:
    """The class of every code point, as one bytes object (index = code point)."""
    t = class_table()
    s1 = array("H", t.stage1)
    return b"".join(t.stage2[b << 8 : (b + 1) << 8] for b in s1)


def _painted(ranges: Any) -> bytes:
    out = bytearray(MAX_CP + 1)
    for lo, hi in ranges:
        out[lo : hi + 1] = b"\1" * (hi - lo + 1)
    return bytes(out)


def _expanded(flag: str, flat: bytes) -> bytes:
    info = class_table().info
    return flat.translate(bytes(int(flag in fl) for _, fl in info).ljust(256, b"\0"))


def test_class_table_reproduces_categories() -> None:
    info = class_table().info
    assert len(info) <= 256
    flat = _flat()
    numbers = {cat: i for i, cat in enumerate(CHARACTER_CATEGORIES, 1)}
    expected = bytes(numbers.get(category_of(cp), 0) for cp in range(MAX_CP + 1))  # type: ignore[arg-type]
    actual = flat.translate(bytes(numbers[c] if c else 0 for c, _ in info).ljust(256, b"\0"))
    assert actual == expected


def test_class_table_reproduces_flags() -> None:
    flat = _flat()
    union = _chartables_data
    sources = {
        EMOJI: union.EMOJI,
        GRAPHIC: union.GRAPHIC,
        IDEOGRAPHIC: union.IDEOGRAPHIC,
        MONGOLIAN: union.MONGOLIAN,
        ZWJ: ((0x200D, 0x200D),),
        VS16: ((0xFE0F, 0xFE0F),),
        TAG_END: ((0xE007F, 0xE007F),),
        MARK: union.MARKS,
        NFC: union.NFC_QC_NOT_YES + union.CCC_NONZERO,
        NFKC: union.NFKC_QC_NOT_YES + union.CCC_NONZERO,
        CASEFOLD: [(cp, cp) for cp in nfkc_casefold_table()],
    }
    sources[VS_STANDARD] = [(0xFE00, 0xFE0F)]
    sources[VS_IDEOGRAPHIC] = [(0xE0100, 0xE01EF)]
    sources[VS_MONGOLIAN] = [(0x180B, 0x180F)]
    assert set(sources) == set(FLAGS)
    for flag, ranges in sources.items():
        assert _expanded(flag, flat) == _painted(ranges), flag
    # the sequence flags are what the Python check (_sequences.in_sequence) uses
    zwj_before = bytes(
        a | b | c
        for a, b, c in zip(
            _expanded(EMOJI, flat), _expanded(VS16, flat), _expanded(TAG_END, flat), strict=True
        )
    )
    assert zwj_before == _painted(NEIGHBOUR_RULES[0].before_ranges)
    bases = {VS_STANDARD: GRAPHIC, VS_IDEOGRAPHIC: IDEOGRAPHIC, VS_MONGOLIAN: MONGOLIAN}
    for rule in NEIGHBOUR_RULES:
        before = [_expanded(flag, flat) for flag in rule.before]
        joined = bytes(map(max, *before)) if len(before) > 1 else before[0]
        # a character of the rule's own category never earns its exemption
        in_category = _painted(rule.category.ranges)
        joined = bytes(a & (1 - b) for a, b in zip(joined, in_category, strict=True))
        assert joined == _painted(rule.before_ranges), rule.flag
        if rule.flag in bases:
            assert rule.before == (bases[rule.flag],)
        flagged = _expanded(rule.flag, flat)
        chars = bytes(a & b for a, b in zip(flagged, in_category, strict=True))
        assert chars == _painted(rule.characters), rule.flag


def test_insensitive_characters_are_normalized() -> None:
    """A character without the nfc (nfkc) flag is its own NFC (NFKC) and has ccc 0."""
    flat = _flat()
    info = class_table().info
    for flag, form in ((NFC, "NFC"), (NFKC, "NFKC")):
        quiet = [c for c, (_, fl) in enumerate(info) if flag not in fl]
        table = bytes(int(c in quiet) for c in range(256))
        mask = flat.translate(table)
        for cp in range(0, MAX_CP + 1):
            if mask[cp] and not 0xD800 <= cp <= 0xDFFF:
                ch = chr(cp)
                assert unicodedata2.combining(ch) == 0, hex(cp)
                assert unicodedata2.normalize(form, ch) == ch, (form, hex(cp))


# -- C scan against the reference ----------------------------------------------------------

KIND_SAMPLES = {
    1: "abc\t\n\r \x00\x1b\x7f\x85\xa0\xad\xe9/\\.",
    2: "abc\u0301\u0327\u200d\u200c\ufe0f\ufe0e\u180b\u1820\u200b\u202e\u3042\u1161\uff0f",
    4: "a\u0301\u200d\ufe0f\U0001f469\U0001f4bb\U0001f3fb\U000e0100\u845b"
    "\U000e0067\U000e007f\U0001f3f4\U0001fffe\U0001d15e\u0308",
}


def _tables_for(policy: Policy) -> CArgs:
    args = compile_policy(policy).verdict_args
    assert args is not None
    return args


def _random_tables(rng: random.Random) -> tuple[bytes, int]:
    n = len(class_table().info)
    flags = bytearray(rng.choice([0, 0, 0, 1, 2, 3]) for _ in range(n)).ljust(256, b"\0")
    nrules = rng.randrange(0, 4)
    rule = bytearray(rng.randrange(nrules + 1) if flags[c] & 1 else 0 for c in range(256))
    rules = b"".join(bytes(rng.randrange(2) for _ in range(RULE_SIZE)) for _ in range(nrules))
    t = class_table()
    pre = prefilter([b for b in range(0x7F) if flags[t.class_of(b)]])
    return bytes(flags + rule + pre + rules), rng.choice([-1, 0, 1, 2, 5])


@needs_c
def test_scan_matches_reference() -> None:
    assert speedups is not None
    scan = speedups.scan
    t = class_table()
    rng = random.Random(1234)
    policies = [*profiles.PROFILES.values(), profiles.TEXT.replace(normalization="NFKC_CASEFOLD")]
    for trial in range(1500):
        if trial % 3 == 0:
            tables, max_run = _random_tables(rng)
        else:
            _, _, tables, max_run = _tables_for(rng.choice(policies))
        kind = rng.choice([1, 2, 4])
        alphabet = "".join(KIND_SAMPLES[k] for k in KIND_SAMPLES if k <= kind)
        n = rng.choice([0, 1, 2, 15, 16, 17, 40, 100])
        if rng.random() < 0.5:  # mostly clean text with rare specials (exercises SIMD)
            text = "".join(rng.choice(alphabet) if rng.random() < 0.05 else "x" for _ in range(n))
        else:
            text = "".join(rng.choice(alphabet) for _ in range(n))
        start = rng.randrange(len(text) + 1)
        got = scan(text, t.stage1, t.stage2, tables, max_run, start)
        assert got == scan_reference(text, t.stage1, t.stage2, tables, max_run, start), (
            text,
            start,
        )


@needs_c
def test_malformed_tables() -> None:
    run = speedups
    assert run is not None
    t = class_table()
    _, _, tables, _ = _tables_for(profiles.TEXT)
    bad_s1 = array("H", t.stage1)
    bad_s1[5] = len(t.stage2) // 256
    cases = [
        (t.stage1[:-2], t.stage2, tables),
        (bad_s1.tobytes(), t.stage2, tables),
        (t.stage1, t.stage2[:-1], tables),
        (t.stage1, b"", tables),
        (t.stage1, t.stage2, tables[:-1]),
        (t.stage1, t.stage2, tables[:519]),
        (t.stage1, t.stage2, tables[:256] + bytes([200]) + tables[257:]),  # rule id
        (t.stage1, t.stage2, tables[:512] + b"\x80" + tables[513:]),  # threshold
        (t.stage1, t.stage2, tables[:513] + b"\x05" + tables[514:]),  # extras
        (t.stage1, t.stage2, tables[:512] + b"\x00\x00" + tables[514:]),  # misses NUL
        (t.stage1, t.stage2, tables[:518] + b"\x05" + tables[519:]),  # skips
        (t.stage1, t.stage2, tables[:518] + b"\x01\x00" + tables[520:]),  # skips NUL
        (t.stage1, t.stage2, tables[:518] + b"\x01\x7e" + tables[520:]),  # skip >= T
    ]
    for s1, s2, tb in cases:
        with pytest.raises(ValueError, match="malformed"):
            run.scan("abc", s1, s2, tb, -1, 0)
        with pytest.raises(ValueError, match="malformed"):
            run.clean(b"abc", s1, s2, tb, -1)
    with pytest.raises(TypeError):
        run.scan("abc", bytearray(t.stage1), t.stage2, tables, -1, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        run.scan("abc", t.stage1, t.stage2, tables, -1, 4)
    assert run.clean(bytearray(b"abc"), t.stage1, t.stage2, tables, -1) is None
    assert run.clean(b"\xff", t.stage1, t.stage2, tables, -1) is None
    assert run.scan("abc", t.stage1, t.stage2, tables, -1, 0) == 3  # still works


# -- the fast path against the engine ------------------------------------------------------

PIECES = [
    "a", "Z", "0", " ", "\t", "\n", "\r", "\x00", "\x1b", "\x7f", "\x85", "\xa0", "\xad",
    "é", "ß", "Ü", ".", "..", "/", "\\", "我", "ガ", "가", "👍", "🏽", "👩", "💻", "❤",
    "\u200d", "\u200c", "\ufe0f", "\ufe0e", "\ufe00", "🔥", "🇯", "🇵", "\U000e0100", "葛",
    "\u1820", "\u180b", "\u180f", "\u180e", "🏴", "\U000e0067", "\U000e0062", "\U000e007f",
    "\U000e0041", "\u0301", "\u0327", "\u0308", "\u0301" * 9, "\u0301" * 31, "e\u0301",
    "\u1100", "\u1161", "\u11a8", "\u2025", "\uff0f", "\uff0e", "\u200b", "\u202e", "\u200e",
    "\ufeff", "\ufdd0", "\ue000", "\U0001fffe", "\u0378", "\U000f0000", "ﬁ", "Ａ", "\u2126",
    "\u0344", "\u09be", "\u09c7", "\u0958", "\U0001d15e", "A", "İ", "\u3099", "\u0345",
    "👩\u200d💻", "👨\u200d👩\u200d👧", "❤\ufe0f\u200d🔥", "👍🏽",
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
    "1\ufe0f\u20e3", "\u845b\U000e0100", "\u1820\u180b",
]  # fmt: skip
SURROGATES = ["\ud800", "\udc00", "\udfff"]

POLICIES = [
    *profiles.PROFILES.values(),
    profiles.TEXT.replace(normalization="NFKC_CASEFOLD"),
    profiles.TEXT.replace(normalization="NFKC", name="nfkc"),
    profiles.TEXT.replace(normalization=None, also_check="NFKC"),
    profiles.TEXT.replace(allow_sequences=False),
    profiles.TEXT.replace(max_combining=None),
    profiles.TEXT.replace(max_combining=0),
    profiles.IDENTIFIER.replace(normalization="NFKC_CASEFOLD"),
    profiles.FILENAME.with_actions(COMBINING_RUN=A.IGNORE, UNASSIGNED=A.IGNORE),
    profiles.FILENAME.replace(max_code_points=3, max_bytes=12),
    Policy(),
    Policy(actions={C.SURROGATE: A.IGNORE}, normalization="NFC"),
    Policy(actions={C.JOINER: A.STRIP, C.VARIATION_SELECTOR: A.REPLACE}, allow_sequences=True),
    Policy(normalization="NFC", also_check="NFKC_CASEFOLD", max_code_points=5),
]


def _fast(data: bytes | str, policy: Policy, report: bool = False) -> str | None:
    """What sanitize (inspect, with ``report``) takes from the fast path."""
    compiled = compile_policy(policy)
    return compiled.fast_inspect(data) if report else compiled.fast_sanitize(data)


def _check_agrees(data: bytes | str, policy: Policy) -> bool:
    """Both fast paths agree with the engine when they answer; True if sanitize's answered."""
    full = Run(data, compile_policy(policy)).report()
    for_inspect = _fast(data, policy, report=True)
    if for_inspect is not None:
        assert full.findings == (), (data, policy.name)
        assert full.ok and full.text == for_inspect, (data, policy.name)
    for_sanitize = _fast(data, policy)
    if for_sanitize is None:
        assert for_inspect is None
        return False
    assert full.ok, (data, policy.name, full.findings)
    assert all(f.action is A.ALLOW for f in full.findings), (data, policy.name)
    assert full.text == for_sanitize, (data, policy.name)
    return True


texts = st.lists(st.one_of(st.sampled_from(PIECES), st.characters(codec="utf-8")), max_size=40).map(
    "".join
)


@needs_c
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(texts, st.sampled_from(POLICIES), st.booleans())
def test_fast_path_agrees_with_full_path(text: str, policy: Policy, as_bytes: bool) -> None:
    _check_agrees(text.encode() if as_bytes else text, policy)


@needs_c
@given(
    st.lists(st.sampled_from(PIECES + SURROGATES + ["abc"] * 20), max_size=30).map("".join),
    st.sampled_from(POLICIES),
)
def test_fast_path_agrees_on_str_with_surrogates(text: str, policy: Policy) -> None:
    _check_agrees(text, policy)


@needs_c
def test_fast_path_agrees_on_many_random_texts() -> None:
    """Mostly-clean texts (where the fast path answers) from the pieces, deterministic."""
    rng = random.Random(99)
    clean_pieces = [p for p in PIECES if len(p) == 1 and ord(p) >= 0x20] + ["abc", "de "] * 10
    answered = 0
    for _ in range(3000):
        parts = [rng.choice(clean_pieces if rng.random() < 0.9 else PIECES) for _ in range(8)]
        text = "".join(parts)
        policy = rng.choice(POLICIES)
        answered += _check_agrees(text.encode() if rng.random() < 0.5 else text, policy)
    assert answered > 300  # the comparison is not vacuous


BENCH_UNITS = [
    "The quick brown fox jumps over the lazy dog; 0123456789.\n",
    "Falsches Üben von Xylophonmusik quält jeden größeren Zwerg. Ça été très élevé.\n",
    "我能吞下玻璃而不伤身体。私はガラスを食べられます。나는 유리를 먹을 수 있어요.\n",
    "Nice 👍🏽 👩🏾\u200d💻 👨\u200d👩\u200d👧\u200d👦 ❤\ufe0f\u200d🔥 🇯🇵 😀 ok\n",
]


@needs_c
@pytest.mark.parametrize("unit", BENCH_UNITS, ids=["ascii", "latin", "cjk", "emoji"])
@pytest.mark.parametrize("size", [64, 4096, 1 << 20])
def test_fast_path_answers_clean_bench_inputs(unit: str, size: int) -> None:
    raw = (unit.encode() * (size // len(unit.encode()) + 1))[:size]
    data = raw.decode("utf-8", "ignore").encode()
    for policy in (profiles.TEXT, profiles.SINGLE_LINE.replace(max_combining=30)):
        if policy is not profiles.TEXT and b"\n" in data:
            continue
        assert _fast(data, policy) == data.decode()
        assert _check_agrees(data, policy)
        assert _check_agrees(data.decode(), policy)
        if not data.endswith("\u200d".encode()):  # a ZWJ there is an ALLOW finding
            assert _fast(data, policy, report=True) == data.decode()


@needs_c
def test_fast_path_answers_names() -> None:
    for name in ("alice", "Zoë", "用户名", "δοκιμή"):
        assert _check_agrees(name, profiles.IDENTIFIER)
    for name in ("report.pdf", ".bashrc", "été 2024.txt", "❤\ufe0f.png"):
        assert _check_agrees(name.encode(), profiles.FILENAME)
    for refused in ("", ".", "..", "a/b", "\u2025", "x" * 300):
        assert _fast(refused, profiles.FILENAME) is None


@needs_c
def test_direct_args_are_the_whole_fast_path() -> None:
    """The entry points call C directly with ``direct_*_args``: same answers as the methods."""
    assert speedups is not None
    rng = random.Random(5)
    for policy in POLICIES:
        compiled = compile_policy(policy)
        pairs = [
            (compiled.direct_verdict_args, compiled.fast_sanitize),
            (compiled.direct_report_args, compiled.fast_inspect),
        ]
        for args, method in pairs:
            if args is None:
                continue
            for _ in range(200):
                text = "".join(rng.choice(PIECES) for _ in range(rng.randrange(6)))
                for data in (text, text.encode("utf-8", "surrogatepass")):
                    assert speedups.clean(data, *args) == method(data), (data, policy.name)


def test_compiled_once_per_policy() -> None:
    from sanitizer._policy.compiled import compiled_for

    policy = profiles.TEXT.replace(max_bytes=1000)
    twin = profiles.TEXT.replace(max_bytes=1000)
    assert compile_policy(policy) is compile_policy(twin)  # policies are values
    assert compiled_for(twin).policy is twin  # the entry points' lookup by identity
    assert compiled_for(twin).verdict_args is compile_policy(policy).verdict_args


def test_identity_cache_keeps_its_keys_alive_and_stays_bounded() -> None:
    """An id is only unique while its object lives: the cache keeps each key alive, so a
    new object can never be taken for a dead one; when full it starts over."""
    import gc

    from sanitizer._identity_cache import IdentityCache

    cache: IdentityCache[str] = IdentityCache(4)
    key = object()
    assert cache.lookup(id(key)) is None
    assert cache.store(key, "derived") == "derived"
    ident = id(key)
    del key
    gc.collect()
    assert cache.lookup(ident) == "derived"  # the object is alive: its id is still its own
    keys = [object() for _ in range(4)]
    for k in keys:
        cache.store(k, "x")
    assert len(cache) <= 4
    assert cache.lookup(ident) is None  # full once: started over


def test_the_clean_report_is_the_dataclass_one() -> None:
    """``clean_report`` (the hot path's Report, fields set at once) equals
    ``Report(True, text, (), policy)`` field by field, and sets every field the dataclass
    has: a field added to Report and not to it fails here."""
    import dataclasses

    from sanitizer._policy._model import Report, clean_report

    for text in ("", "abc", "josé_müller"):
        fast, slow = clean_report(text, profiles.TEXT), Report(True, text, (), profiles.TEXT)
        assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
        assert vars(fast) == vars(slow)
        assert list(vars(fast)) == [f.name for f in dataclasses.fields(Report)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.ok = False  # type: ignore[misc]


def test_the_engine_findings_are_the_dataclass_ones() -> None:
    """``new_finding`` and ``moved_findings`` (the engine's Findings, fields set at once)
    equal the dataclass's own ``Finding(...)`` and ``dataclasses.replace``: equality, hash,
    repr, pickle, field order, frozen; a field added to Finding and not to them fails."""
    import dataclasses
    import pickle

    from sanitizer._decoder import find_errors
    from sanitizer._policy._model import Finding, moved_findings, new_finding

    err = find_errors(b"a\xff")[0]
    cases: list[tuple[Category, int, int, Action, dict[str, Any]]] = [
        (Category.JOINER, 1, 2, Action.ALLOW, {"codepoint": 0x200C}),
        (Category.TAG, 0, 9, Action.REJECT, {"detail": "9 tag characters"}),
        (Category.ILL_FORMED, 1, 2, Action.REPLACE, {"raw": b"\xff", "error": err}),
        (
            Category.CONTROL,
            3,
            4,
            Action.STRIP,
            {"codepoint": 0x1B, "produced": "x", "form": "NFKC"},
        ),
    ]
    for cat, start, end, act, more in cases:
        fast, slow = (
            new_finding(cat, start, end, act, **more),
            Finding(cat, start, end, act, **more),
        )
        moved, replaced = (
            moved_findings([fast], [(7, 8)])[0],
            dataclasses.replace(slow, start=7, end=8),
        )
        for a, b in ((fast, slow), (moved, replaced)):
            assert a == b and hash(a) == hash(b) and repr(a) == repr(b) and str(a) == str(b)
            assert vars(a) == vars(b)
            assert list(vars(a)) == [f.name for f in dataclasses.fields(Finding)]
            assert pickle.loads(pickle.dumps(a)) == b
        assert (fast.start, fast.end) == (start, end)  # moving made a new one
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.start = 0  # type: ignore[misc]


def test_byte_offsets_of_many_places_are_those_of_each() -> None:
    """``ByteOffsets.spans`` (one call for the listed findings) gives what ``ByteOffsets``
    gives place by place, in and out of order, with and without ill-formed anchors."""
    import random

    from sanitizer._decoder import find_errors
    from sanitizer._policy._offsets import ByteOffsets

    rng = random.Random(3)
    alphabet = ["a", "é", "中", "\U0001f600", "\ud800", "\u200b"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        n = len(text)
        places = []
        for _ in range(rng.randrange(6)):
            start = rng.randrange(n + 1)
            places.append((start, rng.randrange(start, n + 1)))
        if rng.random() < 0.5:
            places.sort()
        assert ByteOffsets(text).spans(places) == [
            (ByteOffsets(text)(s), ByteOffsets(text)(e)) for s, e in places
        ]
    raw = b"a\xffb\xc3\xa9\xe0\x80c"
    text = raw.decode("utf-8", "replace")
    errors = find_errors(raw)
    index = [i for i, c in enumerate(text) if c == "\ufffd"]
    places = [(0, 1), (1, 2), (2, 4), (4, len(text))]
    one = ByteOffsets(text, errors, index)
    assert ByteOffsets(text, errors, index).spans(places) == [(one(s), one(e)) for s, e in places]
