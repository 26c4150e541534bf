"""Generate the UTS #39 tables of ``sanitizer._lookalike``: ``_tables_data.py``,
``_skeletons_data.py`` and ``_confusables_data.py``.

Why generated: the look-alike checks need confusables.txt, Identifier_Status,
Identifier_Type, Script and Script_Extensions (UTS #39, UAX #24), none of which
unicodedata2 carries, and a per-character key map whose fixpoint costs seconds to compute.
This script computes everything once, from the files vendored in ``tools/unicode-18.0.0/``
(see its README.md), and checks the facts the runtime fast paths rely on.

Sources, all pinned to one Unicode version (refused otherwise):
- ``tools/unicode-18.0.0/*.txt.xz`` (Unicode 18.0.0, UTS #39 and UCD data files);
- unicodedata2 (normalization, combining classes, general categories);
- ``sanitizer._categories`` (Default_Ignorable_Code_Point and NFKC_Casefold, itself generated
  from the UCD by tools/gen_chartables.py);
- ucdinfo 0.3's UCD XML (UAX #42): Soft_Dotted, the ISO 15924 code (``sc``) of each
  long script name in Scripts.txt, and the full case mappings (``uc``, ``lc``, ``tc``) that
  make the case variants of identifier_key's rule 3.

Three files: ``_tables_data.py`` (small: scripts, identifier status, ASCII fast-path tables;
loaded on first use of the package's functions), ``_skeletons_data.py`` (the skeleton map, and
NFD's decompositions and combining classes from unicodedata2 for the one-pass C skeleton
of lookalike.c; loaded when the first skeleton is needed) and ``_confusables_data.py`` (the
identifier-key map and Identifier_Type, loaded only when a function needs them).  The two
maps are written as three parallel string literals (sources, value lengths, values): no
parsing at load, so a first call costs little even where no .pyc can be written.

Run by ``tools/generate.py`` (rewrites the files) or ``--check`` (exit 1 when a file is
stale); ``tests/suites/test_generated_files.py`` runs the check.
"""

from __future__ import annotations

import itertools
from importlib.metadata import version as _dist_version
from pathlib import Path
from typing import Any

import unicodedata2
from table_text import ranges_assignment, wrapped
from unicode_sources import UNICODE_VERSION as UTS39_VERSION
from unicode_sources import code_range, expand, load_ucd, prop, ranges
from unicode_sources import data_lines as lines_of

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "sanitizer" / "_lookalike"
TARGETS = {
    "tables": PACKAGE / "_tables_data.py",
    "skeletons": PACKAGE / "_skeletons_data.py",
    "confusables": PACKAGE / "_confusables_data.py",
}
MAP_LENGTH_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"  # a value's length, one digit
MAX_CP = 0x10FFFF
KEY_ALGORITHM_REVISION = 2  # bump when the identifier_key construction changes

IDENTIFIER_TYPES = (
    "Recommended",
    "Inclusion",
    "Limited_Use",
    "Exclusion",
    "Obsolete",
    "Technical",
    "Uncommon_Use",
    "Not_Character",
    "Deprecated",
    "Default_Ignorable",
    "Not_NFKC",
    "Not_XID",
)
# ICU's USPOOF_HIDDEN_OVERLAY leads besides Soft_Dotted: l, dotless i, dotless j.
DOT_LEAD_EXTRA = (0x006C, 0x0131, 0x0237)
COMBINING_DOT_ABOVE = 0x0307


# Every non-starter (Canonical_Combining_Class != 0), for str.strip.
_MARKS = "".join(chr(cp) for cp in range(MAX_CP + 1) if unicodedata2.combining(chr(cp)))


def nfd(s: str) -> str:
    return str(unicodedata2.normalize("NFD", s))


def runs(values: list[str]) -> tuple[list[int], list[str]]:
    """A per-code-point list as sorted run starts and the value of each run (for bisect)."""
    starts: list[int] = []
    vals: list[str] = []
    for cp, value in enumerate(values):
        if not vals or vals[-1] != value:
            starts.append(cp)
            vals.append(value)
    return starts, vals


def read_confusables() -> dict[int, str]:
    table: dict[int, str] = {}
    for fields in lines_of("confusables.txt"):
        source, target, kind = fields[:3]
        assert kind == "MA", fields  # one table since Unicode 9 (UTS #39 §4)
        table[int(source, 16)] = "".join(chr(int(h, 16)) for h in target.split())
    return table


def read_scripts(data: Any, short: dict[str, str]) -> list[str]:
    """Script_Extensions of every code point (ISO 15924 codes, sorted, space-separated);
    Script where ScriptExtensions.txt lists nothing, "Zzzz" where Scripts.txt lists nothing.
    Fills ``short`` with the long name of each script -> its code."""
    per_cp = ["Zzzz"] * (MAX_CP + 1)
    for field, long_name in lines_of("Scripts.txt"):
        lo, hi = code_range(field)
        for cp in (lo, hi):  # Scripts.txt spells long names; the UCD XML has the code
            code = prop(data, cp, "sc")
            assert short.setdefault(long_name, code) == code, (long_name, code)
        per_cp[lo : hi + 1] = [short[long_name]] * (hi - lo + 1)
    for field, codes in lines_of("ScriptExtensions.txt"):
        lo, hi = code_range(field)
        value = " ".join(sorted(codes.split()))
        assert set(value.split()) <= set(short.values()), value
        for cp in (lo, hi):
            assert sorted(str(prop(data, cp, "scx")).split()) == value.split(), hex(cp)
        per_cp[lo : hi + 1] = [value] * (hi - lo + 1)
    return per_cp


def read_status() -> tuple[tuple[int, int], ...]:
    allowed: list[int] = []
    for field, value in lines_of("IdentifierStatus.txt"):
        assert value == "Allowed", value  # everything else is Restricted (@missing)
        lo, hi = code_range(field)
        allowed.extend(range(lo, hi + 1))
    return ranges(allowed)


def read_types() -> list[str]:
    per_cp = ["Not_Character"] * (MAX_CP + 1)  # @missing: 0000..10FFFF; Not_Character
    for field, value in lines_of("IdentifierType.txt"):
        assert set(value.split()) <= set(IDENTIFIER_TYPES), value
        lo, hi = code_range(field)
        per_cp[lo : hi + 1] = [value] * (hi - lo + 1)
    return per_cp


def soft_dotted(data: Any) -> set[int]:
    found = set()
    for cp in range(MAX_CP + 1):
        if unicodedata2.category(chr(cp)) not in ("Cn", "Cs") and prop(data, cp, "SD"):
            found.add(cp)
    assert {0x69, 0x6A, 0x456, 0x458} <= found, "Soft_Dotted must have i, j, і, ј"
    return found


def nfkd(s: str) -> str:
    return str(unicodedata2.normalize("NFKD", s))


def is_nfkd_stable(cp: int) -> bool:
    """Whether ``cp`` is a character NFKD leaves alone (the key's per-character domain)."""
    return not 0xD800 <= cp < 0xE000 and nfkd(chr(cp)) == chr(cp)


def keeps_classes(cp: int, confusables: dict[int, str]) -> bool:
    """Whether the key applies the skeleton map to ``cp``: it has a prototype and, for a
    combining mark, one made of marks of its own combining class (67 marks of confusables
    18.0 map elsewhere, e.g. U+0315 (232) -> U+0313 (230); mapping them would make the key
    depend on the order of canonically equivalent marks)."""
    if cp not in confusables:
        return False
    ccc = unicodedata2.combining(chr(cp))
    return ccc == 0 or all(unicodedata2.combining(e) == ccc for e in nfkd(confusables[cp]))


# Scripts that are no script of their own (UAX #24): a prototype in one of them shares no
# script with anything.
NO_SCRIPT = frozenset({"Zyyy", "Zinh", "Zzzz"})
CASE_MAPPINGS = ("uc", "lc", "tc")  # full upper, lower and title case mappings (UCD)


def case_variants(data: Any, casefold_stable: set[int], stable: set[int]) -> dict[int, set[int]]:
    """The case variants the key reads the skeleton of: each NFKD-stable character that is
    not casefold-stable but is the full uppercase, lowercase or titlecase mapping (one
    character long) of a casefold-stable one -> those casefold-stable characters.  "I" (of
    "i" and "ı") is one; U+017F ſ is not (no casefold-stable character has it as a case
    mapping: it only casefolds to "s")."""
    found: dict[int, set[int]] = {}
    for cp in sorted(casefold_stable):
        record = data[cp] if cp < len(data) else None  # read directly: data.get is slow
        if record is None:
            continue
        for key in CASE_MAPPINGS:
            mapped = record[key] or chr(cp)  # UCD XML: "" means the character itself
            assert cp > 0x7F or mapped == (prop(data, cp, key) or chr(cp)), (cp, key)
            if len(mapped) == 1 and ord(mapped) != cp and ord(mapped) in stable:
                if ord(mapped) not in casefold_stable:
                    found.setdefault(ord(mapped), set()).add(cp)
    return found


def shares_a_script(cp: int, image: str, scripts: list[str]) -> bool:
    """Whether ``image`` (a prototype of ``cp``) is in the script of ``cp``: it has a
    character of a real script (not Common, Inherited or Unknown), and every such character
    shares a Script_Extensions value with ``cp`` (UAX #24)."""
    own = set(scripts[cp].split()) - NO_SCRIPT
    theirs = [set(scripts[ord(e)].split()) - NO_SCRIPT for e in image]
    theirs = [s for s in theirs if s]
    return bool(own) and bool(theirs) and all(own & s for s in theirs)


Step = tuple[str, str]  # (the map: "casefold", "skeleton" or "variant"; NFKD image)


def key_steps(
    confusables: dict[int, str], ignorable: set[int], casefold: dict[int, str]
) -> tuple[list[int], dict[int, list[Step]]]:
    """The NFKD-stable code points, and the rewrite N starts from for each that has one:
    NFKC_Casefold where it changes the character, else the skeleton map (``keeps_classes``)."""
    stable: list[int] = []
    steps: dict[int, list[Step]] = {}
    for cp in range(MAX_CP + 1):
        c = chr(cp)
        if not is_nfkd_stable(cp):
            continue
        stable.append(cp)
        if cp in ignorable:
            steps[cp] = [("casefold", "")]  # NFKC_Casefold erases Default_Ignorable
        elif nfkd(casefold.get(cp, c)) != c:
            steps[cp] = [("casefold", nfkd(casefold[cp]))]
        elif keeps_classes(cp, confusables) and nfkd(confusables[cp]) != c:
            steps[cp] = [("skeleton", nfkd(confusables[cp]))]
    return stable, steps


def variant_steps(
    confusables: dict[int, str], variants: dict[int, set[int]], scripts: list[str]
) -> list[tuple[int, Step]]:
    """The skeleton steps of case variants, in code point order: each variant with a
    prototype (``keeps_classes``) in its own script (``shares_a_script``)."""
    return [
        (cp, ("variant", nfkd(confusables[cp])))
        for cp in sorted(variants)
        if keeps_classes(cp, confusables)
        and nfkd(confusables[cp]) != chr(cp)
        and shares_a_script(cp, nfkd(confusables[cp]), scripts)
    ]


class KeyClasses:
    """The classes of characters the key cannot tell apart, and the value N of each.

    Characters joined by one-character steps form a class (union-find); a class whose
    members have steps to longer images takes K of those images as its value (they must
    agree), any other class the member that most of the class's steps lead to (its UTS #39
    prototype: "l" for 1, I, | and l), the lowest code point on a tie or in a class with
    no step out of it (a cycle such as U+A779 -> U+A77A -> U+A779)."""

    def __init__(self, stable: list[int], steps: dict[int, list[Step]]) -> None:
        self.stable = set(stable)
        self.steps: dict[int, list[Step]] = {cp: list(s) for cp, s in steps.items()}
        self.parent: dict[int, int] = {}
        self.solved: dict[int, str] | None = None  # values() of the steps as they are

    def find(self, cp: int) -> int:
        root = cp
        while (up := self.parent.get(root, root)) != root:
            root = up
        while cp != root:
            self.parent[cp], cp = root, self.parent[cp]
        return root

    def values(self) -> dict[int, str] | None:
        """N of every code point with a step or in a class with one; None when the steps
        contradict each other (two images of one class with different keys, or a class
        whose key would contain itself)."""
        self.parent = {}
        for cp, steps in self.steps.items():
            for _, image in steps:
                if len(image) == 1:
                    a, b = self.find(cp), self.find(ord(image))
                    if a != b:
                        self.parent[max(a, b)] = min(a, b)
        members: dict[int, set[int]] = {}
        for cp in {*self.steps, *self.parent}:
            root = self.find(cp)
            members.setdefault(root, {root}).add(cp)
        longer: dict[int, list[str]] = {}
        votes: dict[int, dict[int, int]] = {}
        for cp, steps in self.steps.items():
            root = self.find(cp)
            for name, image in steps:
                if len(image) != 1:
                    longer.setdefault(root, []).append(image)
                elif name != "casefold" and ord(image) not in self.steps:
                    tally = votes.setdefault(root, {})
                    tally[ord(image)] = tally.get(ord(image), 0) + 1
        memo: dict[int, str] = {}
        busy: set[int] = set()

        def value(root: int) -> str | None:
            if root in memo:
                return memo[root]
            if root in busy:
                return None  # the class's key would contain itself
            busy.add(root)
            if root in longer:
                found = set()
                for image in longer[root]:
                    parts = [char(e) for e in image]
                    if any(p is None for p in parts):
                        return None
                    found.add(nfd("".join(p for p in parts if p is not None)))
                if len(found) != 1:
                    return None
                result = found.pop()
            else:
                group = members.get(root, {root})
                tally = votes.get(root, {})
                bases = [cp for cp in group if cp not in self.steps]
                if bases:
                    result = chr(min(bases, key=lambda cp: (-tally.get(cp, 0), cp)))
                else:
                    result = chr(min(group))
            busy.discard(root)
            memo[root] = result
            return result

        def char(e: str) -> str | None:
            return value(self.find(ord(e))) if ord(e) in self.stable else e

        out: dict[int, str] = {}
        for cp in {c for group in members.values() for c in group}:
            found_value = value(self.find(cp))
            if found_value is None:
                return None
            out[cp] = found_value
        return out

    def try_add(self, cp: int, step: Step) -> bool:
        """Add ``step`` to ``cp`` unless the steps would then contradict each other, or
        the step would join two classes of which one has a key longer than a character
        (Latin capital beta U+A7B4 -> "B" would join "b" to U+A7B5 -> U+00DF -> "ss")."""
        image = step[1]
        now = self.solved if self.solved is not None else self.values()
        assert now is not None
        if len(image) == 1:
            keys = {now.get(c, chr(c)) for c in (cp, ord(image))}
            if len(keys) > 1 and any(len(key) != 1 for key in keys):
                return False
        self.steps.setdefault(cp, []).append(step)
        if nfd("".join(now.get(ord(e), e) for e in image)) == now.get(cp, chr(cp)):
            self.solved = now  # the step says what the key says already
            return True
        self.solved = self.values()
        if self.solved is None:
            self.steps[cp].pop()
            if not self.steps[cp]:
                del self.steps[cp]
            return False
        return True


def identifier_key_map(
    confusables: dict[int, str],
    ignorable: set[int],
    casefold: dict[int, str],
    variants: dict[int, set[int]],
    scripts: list[str],
) -> tuple[dict[int, str], list[int]]:
    """The per-character map N of ``identifier_key`` (see sanitizer/_lookalike/key.py), as
    N(c) for every NFKD-stable code point whose value is not c itself, and the case
    variants whose skeleton step was left out.

    With K(x) = NFD(N(d) for d in NFKD(x)), N makes K(image) = N(c) for every step
    c -> image: NFKC_Casefold where it changes c (Default_Ignorable c: ""), else the
    skeleton map where ``keeps_classes``; and the skeleton map of each case variant
    (``case_variants``) whose prototype is in its own script (``shares_a_script``), taken in
    code point order and each left out when it contradicts the steps before it (``Ƒ`` ->
    "F̦" would need "f" -> "f̦").  ``KeyClasses`` solves the steps; ``check_key_map`` then
    checks the facts the key's proof needs."""
    stable, steps = key_steps(confusables, ignorable, casefold)
    classes = KeyClasses(stable, steps)
    left_out = [
        cp
        for cp, step in variant_steps(confusables, variants, scripts)
        if not classes.try_add(cp, step)
    ]
    values = classes.values()
    assert values is not None
    result = {cp: value for cp, value in values.items() if value != chr(cp)}
    check_key_map(result, stable, classes.steps)
    return result, left_out


def check_key_map(key_map: dict[int, str], stable: list[int], steps: dict[int, list[Step]]) -> None:
    """The facts key.py's proof rests on, for K(x) = NFD(N(d) for d in NFKD(x)):
    (a) K(image) = N(c) for each step c -> image (so K(NFKC_Casefold(c)) = N(c) for every
        NFKD-stable c, and K(prototype of c) = N(c) wherever a skeleton step applies), and
        N(e) = e for every character e of a value (K is idempotent);
    (b) NFD never reorders the value of a mark against a neighbour's: for marks a, b with
        ccc(a) > ccc(b) that can meet out of order after one map (a ends one of its images
        or b begins one), NFD(N(a) N(b)) == NFD(N(b) N(a))."""

    def n(cp: int) -> str:
        return key_map.get(cp, chr(cp))

    def k(x: str) -> str:
        return nfd("".join(n(ord(d)) for d in nfkd(x)))

    for cp, value in key_map.items():
        if any(n(ord(e)) != e for e in value) or nfkd(value) != value:
            raise SystemExit(f"identifier_key: N(U+{cp:04X}) is not a fixpoint")
    # Where NFD can reorder, per map: marks at the ends of its images, and the marks they
    # can meet (those of other images, and those the map leaves alone).  The skeleton
    # steps of case variants are the skeleton map.
    head: dict[str, set[int]] = {"casefold": set(), "skeleton": set()}
    tail: dict[str, set[int]] = {"casefold": set(), "skeleton": set()}
    meets: dict[str, set[int]] = {"casefold": set(), "skeleton": set()}
    for cp, cp_steps in steps.items():
        for kind, image in cp_steps:
            name = "casefold" if kind == "casefold" else "skeleton"
            if k(image) != n(cp):
                raise SystemExit(f"identifier_key: N(U+{cp:04X}) is not fixed by {kind}")
            meets[name].update(ord(e) for e in image if unicodedata2.combining(e))
            ccc = unicodedata2.combining(chr(cp))
            if ccc and all(unicodedata2.combining(e) == ccc for e in image):
                continue  # a mark's image in its own class stays in canonical order
            head[name].update(ord(e) for e in image[: len(image) - len(image.lstrip(_MARKS))])
            tail[name].update(ord(e) for e in image[len(image.rstrip(_MARKS)) :])
    marks = [cp for cp in stable if unicodedata2.combining(chr(cp))]
    casefolded = {cp for cp, s in steps.items() if any(kind == "casefold" for kind, _ in s)}
    meets["casefold"].update(cp for cp in marks if cp not in casefolded)
    meets["skeleton"].update(cp for cp in marks if cp not in steps)  # the key's domain
    for name in ("casefold", "skeleton"):
        for a in marks:
            for b in marks:
                if unicodedata2.combining(chr(a)) <= unicodedata2.combining(chr(b)):
                    continue
                if not (a in tail[name] and b in meets[name]) and not (
                    b in head[name] and a in meets[name]
                ):
                    continue
                if nfd(n(a) + n(b)) != nfd(n(b) + n(a)):
                    raise SystemExit(
                        f"identifier_key: N(U+{a:04X}), N(U+{b:04X}) do not commute under NFD"
                    )


def build(data: Any) -> dict[str, Any]:
    """Every table, as plain Python values."""
    from sanitizer._categories import DEFAULT_IGNORABLE, UNICODE_VERSION, nfkc_casefold_table

    assert UNICODE_VERSION == UTS39_VERSION, UNICODE_VERSION
    confusables = read_confusables()
    short: dict[str, str] = {"Unknown": "Zzzz"}  # the @missing value of Scripts.txt
    scripts = read_scripts(data, short)
    types = read_types()
    ignorable = expand(DEFAULT_IGNORABLE)
    casefold = nfkc_casefold_table()

    # Facts the ASCII fast paths rely on (sanitizer/_lookalike/scripts.py, skeletons.py).
    for cp in range(128):
        letter = chr(cp).isalpha()
        assert scripts[cp] == ("Latn" if letter else "Zyyy"), (cp, scripts[cp])
        assert cp not in ignorable, cp
    ascii_skeleton = {cp: confusables[cp] for cp in range(128) if cp in confusables}
    for proto in ascii_skeleton.values():  # translate alone is then NFD(map(NFD(s)))
        assert nfd(proto) == proto and not any(unicodedata2.combining(ch) for ch in proto)
    stable = {cp for cp in range(MAX_CP + 1) if is_nfkd_stable(cp)}
    casefold_stable = {
        cp for cp in stable if cp not in ignorable and nfkd(casefold.get(cp, chr(cp))) == chr(cp)
    }
    variants = case_variants(data, casefold_stable, stable)
    key_map, left = identifier_key_map(confusables, ignorable, casefold, variants, scripts)
    left_out = [(cp, nfkd(confusables[cp])) for cp in left]
    ascii_key = {cp: key_map[cp] for cp in range(128) if cp in key_map}
    for value in ascii_key.values():  # the ASCII fast path of identifier_key is exact
        assert nfkd(value) == value and not any(unicodedata2.combining(ch) for ch in value)

    for table in (ascii_skeleton, ascii_key):  # _lookups.ascii_mapper: no value maps again
        assert not any(ord(ch) in table for value in table.values() for ch in value)
    # UTS #39 §5.4 / ICU USPOOF_HIDDEN_OVERLAY: bases after which U+0307 is hidden.
    leads = soft_dotted(data) | set(DOT_LEAD_EXTRA)
    by_prototype = {
        cp for cp, proto in confusables.items() if proto[-1] != chr(cp) and ord(proto[-1]) in leads
    }
    dot_leads = leads | by_prototype
    assert unicodedata2.combining(chr(COMBINING_DOT_ABOVE)) == 230

    skeleton_map = dict(confusables)  # UTS #39 §4 steps 2 and 3: ignorables map to ""
    skeleton_map.update(dict.fromkeys(ignorable, ""))
    # skeleton.confusable maps two strings at once across a U+0000 (a starter of class 0,
    # with no decomposition): nothing may map from or to it.
    assert 0 not in skeleton_map and not any("\0" in v for v in skeleton_map.values())
    assert unicodedata2.combining("\0") == 0 and not unicodedata2.decomposition("\0")
    return {
        **normalization_tables(),
        "scripts": runs(scripts),
        "types": runs(types),
        "allowed": read_status(),
        "dot_leads": ranges(dot_leads),
        "ascii_skeleton": ascii_skeleton,
        "ascii_key": ascii_key,
        "skeleton_map": skeleton_map,
        "key_map": key_map,
        "key_left_out": left_out,
        "script_codes": sorted({c for v in scripts for c in v.split()}),
        "script_names": {code: name.replace("_", " ") for name, code in short.items()},
    }


HANGUL_SYLLABLES = range(0xAC00, 0xD7A4)  # decomposed by arithmetic (Unicode §3.12)


def hangul_nfd(cp: int) -> str:
    """The canonical decomposition of a precomposed Hangul syllable (Unicode §3.12)."""
    index = cp - 0xAC00
    lead, vowel, trail = 0x1100 + index // 588, 0x1161 + index % 588 // 28, index % 28
    return chr(lead) + chr(vowel) + (chr(0x11A7 + trail) if trail else "")


def normalization_tables() -> dict[str, dict[int, str]]:
    """NFD's data for the C skeleton (lookalike.c): each code point's full canonical
    decomposition (Hangul syllables aside) and each non-zero Canonical_Combining_Class, as
    maps to str (the class as one character), from unicodedata2 (checked: the version)."""
    assert unicodedata2.unidata_version == UTS39_VERSION, unicodedata2.unidata_version
    decomposition: dict[int, str] = {}
    combining: dict[int, str] = {}
    for cp in range(MAX_CP + 1):
        ch = chr(cp)
        full = nfd(ch)
        if cp in HANGUL_SYLLABLES:
            assert full == hangul_nfd(cp), hex(cp)
        elif full != ch:
            decomposition[cp] = full
        if ccc := unicodedata2.combining(ch):
            combining[cp] = chr(ccc)
    # lookalike.c's shortcuts: nothing below U+00C0 decomposes, nothing below U+0300 is a
    # non-starter, and a decomposition is already in canonical order.
    assert min(decomposition) >= 0xC0 and min(combining) >= 0x300
    assert not any(0x1100 <= cp <= 0x11FF for cp in combining)  # Hangul jamo are starters
    for full in decomposition.values():
        classes = [ord(combining.get(ord(c), "\0")) for c in full]
        assert all(x <= y or y == 0 for x, y in itertools.pairwise(classes)), full
    return {"decomposition": decomposition, "combining": combining}


def _fmt_runs(name: str, starts: list[int], vals: list[str]) -> list[str]:
    """Run starts, the distinct values and, per run, the index of its value."""
    distinct = sorted(set(vals))
    index = {v: i for i, v in enumerate(distinct)}
    out = [f"{name}_VALUES: tuple[str, ...] = ("]
    for v in distinct:  # one per line (in index order), long ones in pieces
        pieces = [""]
        for word in v.split():
            if len(pieces[-1]) + len(word) > 80:
                pieces.append("")
            pieces[-1] += word + " "
        out += [f'    "{p}"' for p in pieces[:-1]] + [f'    "{pieces[-1].rstrip()}",']
    out += [")", f"{name}_STARTS: tuple[int, ...] = ("]
    out += wrapped([f"0x{cp:X}," for cp in starts])
    out += [")", f"{name}_RUNS: tuple[int, ...] = ("]
    out += wrapped([f"{index[v]}," for v in vals])
    out.append(")")
    return out


def _fmt_str(name: str, text: str, per_line: int) -> list[str]:
    chunks = [text[i : i + per_line] for i in range(0, len(text), per_line)] or [""]
    return [f"{name} = (", *[f"    {c!a}" for c in chunks], ")"]


def _fmt_map(name: str, mapping: dict[int, str]) -> list[str]:
    """A code point map as three parallel strings (see sanitizer/_lookalike/_lookups.py,
    CodePointMap): the sources in code point order, the length of each value as one
    digit of MAP_LENGTH_DIGITS, and the values one after another."""
    items = sorted(mapping.items())
    assert all(len(v) < len(MAP_LENGTH_DIGITS) for _, v in items)
    return [
        *_fmt_str(f"{name}_SOURCES", "".join(chr(cp) for cp, _ in items), 8),
        *_fmt_str(f"{name}_LENGTHS", "".join(MAP_LENGTH_DIGITS[len(v)] for _, v in items), 88),
        *_fmt_str(f"{name}_VALUES", "".join(v for _, v in items), 8),
    ]


def _fmt_small_map(name: str, mapping: dict[int, str]) -> list[str]:
    items = [f"0x{cp:02X}: {v!a}," for cp, v in sorted(mapping.items())]
    return [f"{name}: dict[int, str] = {{", *wrapped(items), "}"]


def _header(what: str) -> list[str]:
    return [
        f'"""{what} GENERATED: do not edit.',
        "",
        f"UTS #39 {UTS39_VERSION} (confusables.txt, IdentifierStatus.txt, IdentifierType.txt)",
        f"and UCD {UTS39_VERSION} (Scripts.txt, ScriptExtensions.txt), in tools/unicode-18.0.0/;",
        f"unicodedata2 {_dist_version('unicodedata2')}, sanitizer._categories (Default_Ignorable,",
        "NFKC_Casefold) and ucdinfo 0.3's UCD XML (Soft_Dotted, script codes,",
        "case mappings).",
        "Generated by tools/gen_lookalike.py (run tools/generate.py).",
        '"""',
        "",
        "# fmt: off",
        "from __future__ import annotations",
        "",
        f'UTS39_VERSION = "{UTS39_VERSION}"',
        f'UNICODE_VERSION = "{unicodedata2.unidata_version}"',
        "",
    ]


def render(tables: dict[str, Any]) -> dict[str, str]:
    small = _header("UTS #39 scripts, identifier status, ASCII maps.")
    small += [
        f"IDENTIFIER_KEY_REVISION = {KEY_ALGORITHM_REVISION}",
        "",
        "Ranges = tuple[tuple[int, int], ...]",
        "",
        "# Every script code in Scripts.txt / ScriptExtensions.txt (ISO 15924, UAX #24).",
        "SCRIPT_CODES: tuple[str, ...] = (",
        *wrapped([f'"{c}",' for c in tables["script_codes"]]),
        ")",
        "",
        "# ISO 15924 code -> the script's name in Scripts.txt (UAX #24), '_' read as ' '.",
        "SCRIPT_NAMES: dict[str, str] = {",
        *wrapped([f'"{c}": "{n}",' for c, n in sorted(tables["script_names"].items())]),
        "}",
        "",
        "# Script_Extensions per code point run (Script where unlisted; Zzzz where unassigned).",
        *_fmt_runs("SCRIPT", *tables["scripts"]),
        "",
        "# Identifier_Status=Allowed (UTS #39 §3.1); every other code point is Restricted.",
        *ranges_assignment("ALLOWED", tables["allowed"]),
        "",
        "# Bases that hide a following U+0307 (ICU USPOOF_HIDDEN_OVERLAY): Soft_Dotted, l, ı, ȷ",
        "# and every character whose prototype ends with one of them.",
        *ranges_assignment("DOT_LEADS", tables["dot_leads"]),
        "",
        "# The skeleton map of ASCII (confusables.txt): str.translate of ASCII is its skeleton.",
        *_fmt_small_map("ASCII_SKELETON", tables["ascii_skeleton"]),
        "",
        "# identifier_key's map of ASCII: str.translate of ASCII is its key.",
        *_fmt_small_map("ASCII_KEY", tables["ascii_key"]),
        "",
    ]
    skeletons = _header("UTS #39 skeleton map.")
    skeletons += [
        "# The skeleton map (UTS #39 §4 steps 2-3): each Default_Ignorable_Code_Point -> '',",
        "# each other source of confusables.txt -> its prototype.  Three parallel strings:",
        "# sources in code point order, the length of each value as one base-36 digit, values.",
        *_fmt_map("SKELETON", tables["skeleton_map"]),
        "",
        f"# NFD (UAX #15) for the C skeleton (unicodedata2 {unicodedata2.unidata_version}):",
        "# each code point's full canonical decomposition but the Hangul syllables' (arithmetic)",
        "# and each non-zero Canonical_Combining_Class (as one character), in the same form.",
        *_fmt_map("DECOMPOSITION", tables["decomposition"]),
        *_fmt_map("COMBINING", tables["combining"]),
        "",
    ]
    big = _header("UTS #39 identifier-key map, Identifier_Type.")
    big += [
        "# identifier_key: the NFKD-stable code points whose key is not themselves, as",
        "# three parallel strings (sources, value lengths in base 36, values).",
        *_fmt_map("KEY", tables["key_map"]),
        "# Case variants whose prototype the key does not follow, with the prototype: each",
        "# would contradict the key of the character it is a case of (identifier_key_map).",
        "KEY_CASE_VARIANTS_LEFT_OUT: dict[int, str] = {",
        *wrapped([f"0x{cp:04X}: {proto!a}," for cp, proto in tables["key_left_out"]]),
        "}",
        "",
        "# Identifier_Type per code point run (UTS #39 §3.1; Not_Character where unlisted).",
        *_fmt_runs("TYPE", *tables["types"]),
        "",
    ]
    return {
        "tables": "\n".join(small),
        "skeletons": "\n".join(skeletons),
        "confusables": "\n".join(big),
    }


def outputs() -> dict[Path, str]:
    """The generated files, by repo-relative path (the interface of ``tools/generate.py``)."""
    texts = render(build(load_ucd()))
    return {TARGETS[name].relative_to(ROOT): text for name, text in texts.items()}
