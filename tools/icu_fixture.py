"""Write ``tests/data/icu-<version>-spoof.json.xz``: ICU's SpoofChecker verdicts as test data.

Why a fixture: ICU's SpoofChecker is the reference implementation of UTS #39, but it
reaches Python only through a large binary wheel, so it is neither a runtime nor a test
dependency.  This script runs once, in its own environment, and stores what ICU says;
``tests/identifiers/test_lookalike_icu.py`` compares ``sanitizer._lookalike`` with it, and
``bench/bench_confusable.py`` reuses its pairs.

Environment (ICU 78.3, Unicode 17.0, PyICU 2.16.2, all inside one manylinux wheel)::

    python -m venv tools/.venv-icu
    tools/.venv-icu/bin/pip install icukit-pyicu==78.3.1
    tools/.venv-icu/bin/python tools/icu_fixture.py          # writes the fixture
    tools/.venv-icu/bin/python tools/icu_fixture.py --check  # exit 1 when it differs

What it holds (code points as integers, strings as UTF-8 JSON):

``skeleton``
    ``[cp, skeleton]`` for every code point (surrogates excepted) whose ICU skeleton
    (UTS #39 §4, ``getSkeleton``) differs from its NFD; every other code point's skeleton
    is its NFD.  ``assigned`` (ranges of code points not ``Cn`` in ICU) says where ICU has
    data.
``script_extensions``
    ``[first, last, "Latn Grek"]`` ranges of UAX #24 Script_Extensions (ISO 15924 codes)
    over the assigned code points.
``allowed``
    ranges of ICU's Identifier_Status=Allowed set (recommended plus inclusion; §3.1).
``strings`` and ``checks``
    generated usernames and, per string, ``[restriction level 1..6 (§5.2), mixed numbers
    (§5.3), index of the first hidden overlay U+0307 in code points or -1 (§5.4)]`` from
    ``uspoof_check2`` with USPOOF_AUX_INFO, the allowed set above and every check on.
``pairs``
    ``[i, j, bits]``: indices into ``strings`` and ICU's ``areConfusable`` bitmask
    (1 single-script, 2 mixed-script, 4 whole-script; 0 = not confusable).  Half are built
    to be confusable (look-alike substitutions by ICU's own skeletons into usernames of
    many scripts), half near misses; the seed makes the list the same on every run.
"""

from __future__ import annotations

import argparse
import json
import lzma
import random
import sys
import unicodedata
from collections import defaultdict
from collections.abc import Iterator, Sequence
from importlib.metadata import version as dist_version
from pathlib import Path
from typing import Any

import icu  # type: ignore[import-not-found, unused-ignore]

ROOT = Path(__file__).resolve().parent.parent
SEED = 20260812
PAIRS = 10_000
WHEEL = "icukit-pyicu"

# ICU's USpoofChecks bits (uspoof.h): areConfusable and check results.
SINGLE_SCRIPT, MIXED_SCRIPT, WHOLE_SCRIPT = 1, 2, 4
RESTRICTION_LEVEL, MIXED_NUMBERS, HIDDEN_OVERLAY, AUX_INFO = 16, 128, 256, 0x40000000
RESTRICTION_LEVEL_MASK = 0x7F000000  # URestrictionLevel: ASCII 1 << 28 ... UNRESTRICTIVE 6 << 28

# Names people register, by script (given names, places, brands, handles).  Real-looking,
# not real accounts.
# fmt: off
NAMES: dict[str, Sequence[str]] = {
    "Latn": (
        "admin", "paypal", "google", "apple", "amazon", "microsoft", "support", "security",
        "root", "login", "account", "billing", "john", "alice", "bob", "smith", "maria",
        "moderator", "official", "olivia", "william", "coinbase", "binance", "github",
        "openai", "netflix", "youtube", "discord", "telegram", "whatsapp", "facebook",
        "instagram", "twitter", "linkedin", "dropbox", "oracle", "cisco", "intel", "nvidia",
        "modern", "clippy", "wallet", "help", "info", "office", "police", "payments",
        "jose", "muller", "francois", "lukasz", "soren", "angstrom", "zoe", "noel", "chloe",
    ),
    "Latn-diacritics": (
        "josé", "müller", "françois", "łukasz", "søren", "ångström", "zoë", "noël", "çelik",
        "şahin", "nguyễn", "đặng", "ørsted", "piñata", "dvořák", "gülşen", "ţară", "ärzte",
    ),
    "Cyrl": (
        "иван", "петров", "наташа", "сергей", "ольга", "москва", "админ", "алексей",
        "екатерина", "смирнов", "попов", "сова", "рожок", "сорока", "коса", "хор", "рыба",
        "олександр", "їжак", "ґанок", "љубав", "џеп", "ђорђе",
    ),
    "Grek": (
        "νίκος", "αλέξης", "ελένη", "σοφία", "γιώργος", "κώστας", "αθηνά", "ορέστης",
        "τοπος", "κανονας", "ιστος", "ποταμος",
    ),
    "Armn": ("արամ", "աննա", "դավիթ", "նարեկ", "սոնա", "հայկ"),
    "Geor": ("გიორგი", "ნინო", "დავითი", "თამარი", "ლაშა"),
    "Hebr": ("דוד", "שרה", "משה", "יעקב", "רחל", "אבי"),
    "Arab": ("محمد", "أحمد", "فاطمة", "علي", "عمر", "ليلى", "يوسف", "حسن"),
    "Deva": ("राहुल", "प्रिया", "अमित", "सुनीता", "विकास", "गणेश"),
    "Beng": ("রাহুল", "অমিত", "সুমন", "দীপা"),
    "Taml": ("முருகன்", "கண்ணன்", "லட்சுமி"),
    "Thai": ("สมชาย", "สมศรี", "วิชัย", "มาลี"),
    "Hani": ("王伟", "李娜", "张敏", "刘洋", "陈静", "北京", "上海"),
    "Jpan": (
        "さくら", "たなか", "ユウキ", "山田太郎", "田中さくら", "すずき", "カタカナ", "へいせい",
    ),
    "Kore": ("김민준", "이서연", "박지훈", "최유나", "서울", "金民俊"),
    "Cher": ("ᏣᎳᎩ", "ᎠᏍᎦᏯ", "ᏌᏊ", "ᎧᏃᎮᏗ"),
    "Ethi": ("አበበ", "ሰላም", "ትግራይ"),
    "Mixed": (
        "tanaka田中", "yamadaヤマダ", "김kim", "seoul서울", "ivan_иван", "alex_αλέξης",
        "x_дед", "user١٢", "abc१२", "a1١", "neo٣", "i̇stanbul", "bıl", "ǉubo",
    ),
}
# fmt: on
SEPARATORS = ("", "", "", "_", ".", "-")
SUFFIXES = ("", "", "", "1", "42", "2024", "_official", "0", "007", "١٢", "७", "x")


def icu_info() -> dict[str, str]:
    """The reference's identity, recorded in the fixture and in tests/data/README.md."""
    return {
        "icu_version": icu.ICU_VERSION,
        "unicode_version": icu.UNICODE_VERSION,
        "pyicu_version": icu.VERSION,
        "built_with": (
            f"{WHEEL} {dist_version(WHEEL)} (PyPI manylinux wheel: ICU {icu.ICU_VERSION} built"
            f" from source with its full data library, PyICU {icu.VERSION} linked against it)"
        ),
        "generator": "tools/icu_fixture.py",
        "seed": str(SEED),
    }


def ranges(cps: Iterator[int]) -> list[list[int]]:
    """Sorted code points -> ``[first, last]`` runs."""
    out: list[list[int]] = []
    for cp in cps:
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return out


def code_points() -> Iterator[int]:
    """Every code point that a Python str can hand to ICU (surrogates excepted)."""
    yield from range(0xD800)
    yield from range(0xE000, 0x110000)


def utf16_to_cp_index(s: str, utf16_index: int) -> int:
    """ICU reports offsets in UTF-16 units; the fixture stores code point indices."""
    units = 0
    for i, ch in enumerate(s):
        if units == utf16_index:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(s)


def set_members(uset: Any) -> set[int]:
    """An ICU UnicodeSet's code points, surrogates excepted."""
    members: set[int] = set()
    for first, last in uset.ranges():
        members.update(range(ord(first), ord(last) + 1))
    return members - set(range(0xD800, 0xE000))


class Reference:
    """One configured SpoofChecker and the per-code-point tables it implies."""

    def __init__(self) -> None:
        self.checker = icu.SpoofChecker()
        self.nfd = icu.Normalizer2.getNFDInstance()
        recommended = self.checker.getRecommendedUnicodeSet().toPattern()
        inclusion = self.checker.getInclusionUnicodeSet().toPattern()
        allowed = icu.UnicodeSet(f"[{recommended}{inclusion}]")  # the union
        allowed.freeze()
        self.allowed = set_members(allowed)
        # UTS #39 §5.2 step 1 needs the Identifier_Status=Allowed set; ICU's default allows all.
        self.checker.setAllowedUnicodeSet(allowed)
        self.checker.setRestrictionLevel(icu.URestrictionLevel.ASCII)
        self.checker.setChecks(0xFFFF | AUX_INFO)
        self.assigned = sorted(set_members(icu.UnicodeSet("[:^Cn:]")))
        self._skeleton_table: list[list[Any]] | None = None

    def skeleton(self, s: str) -> str:
        return str(self.checker.getSkeleton(0, s))

    def skeleton_table(self) -> list[list[Any]]:
        if self._skeleton_table is not None:
            return self._skeleton_table
        table: list[list[Any]] = []
        for cp in code_points():
            ch = chr(cp)
            skel = self.skeleton(ch)
            if skel != str(self.nfd.normalize(ch)):
                table.append([cp, skel])
        self._skeleton_table = table
        return table

    def script_extensions(self) -> list[list[Any]]:
        out: list[list[Any]] = []
        for cp in self.assigned:
            codes = sorted(icu.Script(c).getShortName() for c in icu.Script.getScriptExtensions(cp))
            value = " ".join(codes)
            if out and out[-1][1] == cp - 1 and out[-1][2] == value:
                out[-1][1] = cp
            else:
                out.append([cp, cp, value])
        return out

    def check(self, s: str) -> list[int]:
        bits = int(self.checker.check(s))
        level = (bits & RESTRICTION_LEVEL_MASK) >> 28
        hidden = -1
        if bits & HIDDEN_OVERLAY:
            hidden = self._first_hidden_overlay(s)
        return [level, int(bool(bits & MIXED_NUMBERS)), hidden]

    def _first_hidden_overlay(self, s: str) -> int:
        # check() reports the flag only; the shortest prefix that raises it ends at the index.
        for end in range(1, len(s) + 1):
            if int(self.checker.check(s[:end])) & HIDDEN_OVERLAY:
                return end - 1
        raise AssertionError(f"HIDDEN_OVERLAY flag without a prefix: {s!r}")

    def are_confusable(self, a: str, b: str) -> int:
        return int(self.checker.areConfusable(a, b)) & (SINGLE_SCRIPT | MIXED_SCRIPT | WHOLE_SCRIPT)


NEUTRAL = frozenset({"Zyyy", "Zinh"})  # Common, Inherited: no script of their own


def script_of(text: str) -> str:
    """The Script property (ISO 15924) of a string's first character."""
    return str(icu.Script.getScript(ord(text[0])).getShortName())


class PairMaker:
    """Deterministic username pairs: look-alike substitutions and near misses."""

    def __init__(self, ref: Reference, rng: random.Random) -> None:
        self.ref = ref
        self.rng = rng
        by_skeleton: dict[str, list[str]] = defaultdict(list)
        for cp, skel in ref.skeleton_table():
            by_skeleton[skel].append(chr(cp))
        # Prototypes are their own skeleton; add them so "а" can become "a" and back.
        for skel, chars in list(by_skeleton.items()):
            if len(skel) <= 3 and ref.skeleton(skel) == skel and skel not in chars:
                chars.append(skel)
        self.by_skeleton = {k: v for k, v in by_skeleton.items() if len(v) > 1}
        self.allowed_cache: dict[str, bool] = {}
        letters: dict[str, set[str]] = defaultdict(set)
        for script, names in NAMES.items():
            for name in names:
                letters[script].update(ch for ch in name if ch.isalpha())
        self.letters = {k: sorted(v) for k, v in letters.items()}

    def is_allowed(self, s: str) -> bool:
        if s not in self.allowed_cache:
            self.allowed_cache[s] = all(ord(c) in self.ref.allowed for c in s)
        return self.allowed_cache[s]

    def username(self) -> tuple[str, str]:
        script = self.rng.choice(sorted(NAMES))
        name = self.rng.choice(NAMES[script])
        if self.rng.random() < 0.3:
            other = self.rng.choice(NAMES[script])
            name = name + self.rng.choice(SEPARATORS) + other
        name += self.rng.choice(SUFFIXES)
        if self.rng.random() < 0.1:
            name = name.upper() if script.startswith("Latn") else name
        return script, unicodedata.normalize("NFC", name)

    def look_alikes(self, text: str) -> list[str]:
        """Other spellings of one character or short string with the same skeleton."""
        chars = self.by_skeleton.get(self.ref.skeleton(text), [])
        options = [c for c in chars if c != text]
        allowed = [c for c in options if self.is_allowed(c)]
        # Half the time only identifier characters (what a registration form lets through).
        if allowed and self.rng.random() < 0.5:
            return allowed
        return options

    def all_look_alikes(self, text: str) -> list[str]:
        return [c for c in self.by_skeleton.get(self.ref.skeleton(text), []) if c != text]

    def confusable_variant(self, name: str) -> str:
        positions = [i for i, ch in enumerate(name) if self.look_alikes(ch)]
        if not positions:
            return ""
        if self.rng.random() < 0.35:
            whole = self.whole_script_variant(name, positions)
            if whole:
                return whole
        if self.rng.random() < 0.2:
            chosen = set(positions)  # every substitutable character, scripts mixed
        else:
            k = 1 + int(self.rng.random() < 0.3)
            chosen = set(self.rng.sample(positions, min(k, len(positions))))
        out = []
        for i, ch in enumerate(name):
            out.append(self.rng.choice(self.look_alikes(ch)) if i in chosen else ch)
        return "".join(out)

    def whole_script_variant(self, name: str, positions: list[int]) -> str:
        """Every letter replaced by a look-alike from one other script (UTS #39 §4)."""
        letters = [i for i, ch in enumerate(name) if script_of(ch) not in NEUTRAL]
        own = {script_of(name[i]) for i in letters}
        options = {i: self.all_look_alikes(name[i]) for i in positions}
        covering = None
        for i in letters:
            scripts = {script_of(c) for c in options.get(i, ())}
            covering = scripts if covering is None else covering & scripts
        targets = sorted((covering or set()) - own - NEUTRAL)
        if not targets:
            return ""
        target = self.rng.choice(targets)
        out = []
        for i, ch in enumerate(name):
            same = [c for c in options.get(i, ()) if script_of(c) == target]
            out.append(self.rng.choice(same) if same else ch)
        return "".join(out)

    def near_miss(self, script: str, name: str) -> str:
        roll = self.rng.random()
        i = self.rng.randrange(len(name))
        pool = self.letters.get(script) or self.letters["Latn"]
        if roll < 0.5:
            return name[:i] + self.rng.choice(pool) + name[i + 1 :]
        if roll < 0.7:
            return name[:i] + self.rng.choice(pool) + name[i:]
        if roll < 0.85 and len(name) > 2:
            return name[:i] + name[i + 1 :]
        return self.username()[1]

    def pairs(self, count: int) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        seen: set[tuple[str, str]] = set()
        while len(out) < count:
            script, name = self.username()
            other = self.confusable_variant(name) if len(out) % 2 == 0 else ""
            if not other:
                other = self.near_miss(script, name)
            if other == name or (name, other) in seen:
                continue
            seen.add((name, other))
            out.append((name, other) if self.rng.random() < 0.5 else (other, name))
        return out


# UTS #39 §5.2 and §5.3 examples and edge cases, checked on their own.
# fmt: off
EXTRA_STRINGS = (
    "", "abc", "ABC", "a-b.c_d", "abc\u0430", "abcαβγ", "\u0430\u0431\u0432", "αβγ",
    "日本語ひらがなabc", "한국어漢字", "漢字ㄅㄆ", "abc\u0915", "abc\u13a0", "ᎠᏍᎦᏯabc",
    "a1\u0661", "\u0661\u0662", "\u06f1\u0661", "a\u0967\u0031", "\U0001d7ce\u0031",
    "i\u0307", "l\u0307", "j\u0307", "\u0131\u0307", "i\u0301\u0307", "a\u0307",
    "\u0456\u0307", "ì\u0307", "a\x00b", "!!", "123", "é", "e\u0301", "paypal",
    "p\u0430yp\u0430l", "ѕсоре", "scope", "rn", "m", "l", "I", "1", "0", "O", "o",
    "\u2060abc", "abc\u200d", "ab\u200cc", "\u3006\u3005", "ー", "カーー", "o'neil", "a.b:c",
    "\u0130", "a\u0130", "\u0130stanbul", "\u0130brahim", "I\u0307stanbul", "\u017baneta",
    "\u0117gl\u0117",
)
# UTS #39 §4 and folklore look-alikes, kept whatever the generator draws.
EXTRA_PAIRS = (
    ("scope", "ѕсоре"), ("paypal", "p\u0430yp\u0430l"), ("rn", "m"), ("modern", "rnodern"),
    ("l", "I"), ("l", "1"), ("I", "1"), ("0", "O"), ("0", "o"), ("O", "o"), ("ſ", "f"),
    ("ǉ", "lj"), ("a", "ɑ"), ("'", "\u2019"), ("vv", "w"), ("cl", "d"), ("e\u0301", "é"),
    ("ab", "a\u200bb"), ("ab", "a\u2060b"), ("Ꭺ", "A"), ("ᏚᎢᎵᎬᎢᎬᏒ", "STLETER"),
)
# fmt: on


def build() -> dict[str, Any]:
    ref = Reference()
    maker = PairMaker(ref, random.Random(SEED))
    pairs = maker.pairs(PAIRS - len(EXTRA_PAIRS)) + list(EXTRA_PAIRS)
    strings = sorted({s for pair in pairs for s in pair} | set(EXTRA_STRINGS))
    index = {s: i for i, s in enumerate(strings)}
    return {
        "reference": icu_info(),
        "assigned": ranges(iter(ref.assigned)),
        "skeleton": ref.skeleton_table(),
        "script_extensions": ref.script_extensions(),
        "allowed": ranges(iter(sorted(ref.allowed))),
        "strings": strings,
        "checks": [ref.check(s) for s in strings],
        "pairs": [[index[a], index[b], ref.are_confusable(a, b)] for a, b in pairs],
    }


def encode(fixture: dict[str, Any]) -> bytes:
    # One top-level key per line keeps `xzcat | head` readable; no whitespace inside.
    lines = [
        f"{json.dumps(k)}:{json.dumps(v, ensure_ascii=False, separators=(',', ':'))}"
        for k, v in fixture.items()
    ]
    text = "{\n" + ",\n".join(lines) + "\n}\n"
    return lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME)


def target() -> Path:
    return ROOT / "tests" / "data" / f"icu-{icu.ICU_VERSION}-spoof.json.xz"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 if the fixture differs")
    args = parser.parse_args(argv)
    fixture = build()
    path = target()
    if args.check:
        current = json.loads(lzma.decompress(path.read_bytes())) if path.exists() else None
        if current != fixture:
            print(f"{path.relative_to(ROOT)} is stale: run tools/icu_fixture.py", file=sys.stderr)
            return 1
        return 0
    data = encode(fixture)
    path.write_bytes(data)
    confusable = sum(1 for p in fixture["pairs"] if p[2])
    print(
        f"wrote {path.relative_to(ROOT)}: {len(data):,} bytes, {len(fixture['skeleton']):,}"
        f" skeleton entries, {len(fixture['pairs']):,} pairs ({confusable:,} confusable),"
        f" {len(fixture['strings']):,} strings"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
