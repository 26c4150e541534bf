"""sanitizer._lookalike against ICU's SpoofChecker, the UTS #39 reference implementation.

ICU is no test dependency: ``tools/icu_fixture.py`` stored what ICU 78.3 (Unicode 17.0
data) says in ``tests/data/icu-78.3-spoof.json.xz``, and this module compares.  Our data
is UTS #39 18.0.0, so some answers must differ; every difference is listed, one code
point a line, in ``tests/data/icu-78.3-vs-uts39-18.0.0.txt``, and the tests check both
that the differences are exactly that list and that each entry is a change of the 18.0.0
data files (confusables.txt, ScriptExtensions.txt) relative to what ICU applies.  No
tolerance beyond that list.

Regenerate the list after a data update (then review its diff):
``python tests/identifiers/test_lookalike_icu.py --write-allow-list``.
"""

from __future__ import annotations

import functools
import json
import lzma
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import unicodedata2

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "icu-78.3-spoof.json.xz"
ALLOW_LIST = ROOT / "tests" / "data" / "icu-78.3-vs-uts39-18.0.0.txt"
CONFUSABLES = ROOT / "tools" / "unicode-18.0.0" / "confusables.txt.xz"
SCRIPT_EXTENSIONS = ROOT / "tools" / "unicode-18.0.0" / "ScriptExtensions.txt.xz"

lookalike = pytest.importorskip("sanitizer._lookalike")
if not hasattr(lookalike, "skeleton"):  # the package is being written
    pytest.skip("sanitizer._lookalike has no skeleton() yet", allow_module_level=True)

EXPLAINED_PAIR_DISAGREEMENTS = 75  # of 10,000 pairs; see test_confusable_equals_icu_*

# ICU's areConfusable bits (uspoof.h) for each Confusability.
BITS = {
    None: 0,
    lookalike.Confusability.SINGLE_SCRIPT: 1,
    lookalike.Confusability.MIXED_SCRIPT: 2,
    lookalike.Confusability.WHOLE_SCRIPT: 2 | 4,
}


@functools.cache
def fixture() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(lzma.decompress(FIXTURE.read_bytes()))
    return data


def nfd(s: str) -> str:
    return str(unicodedata2.normalize("NFD", s))


def icu_assigned() -> Iterator[int]:
    """Code points ICU has data for: assigned in Unicode 17.0, surrogates excepted."""
    for first, last in fixture()["assigned"]:
        for cp in range(first, last + 1):
            if not 0xD800 <= cp <= 0xDFFF:
                yield cp


@functools.cache
def icu_skeletons() -> dict[int, str]:
    return {cp: skel for cp, skel in fixture()["skeleton"]}


def icu_skeleton(cp: int) -> str:
    return icu_skeletons().get(cp, nfd(chr(cp)))


@functools.cache
def icu_script_extensions() -> dict[int, str]:
    return {
        cp: codes
        for first, last, codes in fixture()["script_extensions"]
        for cp in range(first, last + 1)
    }


def our_script_extensions(cp: int) -> str:
    return " ".join(sorted(lookalike.script_extensions(chr(cp))))


def hexes(s: str) -> str:
    return " ".join(f"{ord(c):04X}" for c in s) or "-"


# --- the 18.0.0 data files, read here independently of tools/gen_lookalike.py -------------


def data_lines(path: Path) -> Iterator[list[str]]:
    for line in lzma.decompress(path.read_bytes()).decode("utf-8-sig").splitlines():
        fields = line.partition("#")[0].split(";")
        if len(fields) > 1:
            yield [f.strip() for f in fields]


@functools.cache
def confusables_18() -> dict[int, str]:
    """confusables.txt 18.0.0: source code point -> prototype string."""
    return {
        int(src, 16): "".join(chr(int(h, 16)) for h in target.split())
        for src, target, *_ in data_lines(CONFUSABLES)
    }


@functools.cache
def script_extensions_18() -> dict[int, str]:
    """ScriptExtensions.txt 18.0.0 (only code points whose Script_Extensions != {Script})."""
    out: dict[int, str] = {}
    for cps, codes, *_ in data_lines(SCRIPT_EXTENSIONS):
        first, _, last = cps.partition("..")
        for cp in range(int(first, 16), int(last or first, 16) + 1):
            out[cp] = " ".join(sorted(codes.split()))
    return out


# --- the differences, computed, and the reviewed list -------------------------------------


@functools.cache
def skeleton_differences() -> dict[int, tuple[str, str]]:
    """Every ICU-assigned code point whose skeleton differs: cp -> (ICU's, ours)."""
    out = {}
    for cp in icu_assigned():
        theirs, ours = icu_skeleton(cp), lookalike.skeleton(chr(cp))
        if theirs != ours:
            out[cp] = (theirs, ours)
    return out


def skeleton_roots() -> dict[int, tuple[str, str]]:
    """The differences of characters without a decomposition: one confusables.txt line each."""
    return {cp: d for cp, d in skeleton_differences().items() if nfd(chr(cp)) == chr(cp)}


def skeleton_change_kind(cp: int) -> str:
    """Why ICU (Unicode 17.0) and confusables.txt 18.0.0 disagree on a character."""
    if cp not in confusables_18():
        return "removed"  # ICU maps it; the 18.0.0 file has no line for it
    if icu_skeleton(cp) == chr(cp):
        return "added"  # the 18.0.0 file has a line; ICU leaves it alone
    return "changed"


@functools.cache
def script_differences() -> dict[int, tuple[str, str]]:
    out = {}
    for cp in icu_assigned():
        theirs, ours = icu_script_extensions()[cp], our_script_extensions(cp)
        if theirs != ours:
            out[cp] = (theirs, ours)
    return out


@functools.cache
def status_differences() -> dict[int, tuple[str, str]]:
    icu_allowed = {cp for first, last in fixture()["allowed"] for cp in range(first, last + 1)}
    allowed = lookalike.IdentifierStatus.ALLOWED
    out = {}
    for cp in icu_assigned():
        theirs = cp in icu_allowed
        ours = lookalike.identifier_status(chr(cp)) is allowed
        if theirs != ours:
            out[cp] = (str(theirs), str(ours))
    return out


def render_allow_list() -> str:
    lines = [
        "# Where sanitizer._lookalike (UTS #39 18.0.0) and ICU 78.3 (Unicode 17.0 data) differ.",
        "# Checked by tests/identifiers/test_lookalike_icu.py: the differences are exactly these,"
        " and each",
        "# is a change of the 18.0.0 data file named in its section.  Regenerate with",
        "# `python tests/identifiers/test_lookalike_icu.py --write-allow-list`, then review the"
        " diff.",
        "",
        "[skeleton] confusables.txt 18.0.0; characters without a decomposition only (the",
        "# decomposed ones follow from these); kind: added = new line in 18.0.0, changed =",
        "# different prototype, removed = no line in 18.0.0.",
        "# code point ; kind ; ICU 78.3 skeleton ; 18.0.0 skeleton",
    ]
    for cp, (theirs, ours) in sorted(skeleton_roots().items()):
        kind = skeleton_change_kind(cp)
        lines.append(f"{cp:04X} ; {kind} ; {hexes(theirs)} ; {hexes(ours)}")
    lines += ["", "[script_extensions] ScriptExtensions.txt / Scripts.txt 18.0.0"]
    lines.append("# code point ; ICU 78.3 ; 18.0.0")
    for cp, (theirs, ours) in sorted(script_differences().items()):
        lines.append(f"{cp:04X} ; {theirs} ; {ours}")
    lines += ["", "[identifier_status] IdentifierStatus.txt 18.0.0 (True = Allowed)"]
    lines.append("# code point ; ICU 78.3 ; 18.0.0")
    for cp, (theirs, ours) in sorted(status_differences().items()):
        lines.append(f"{cp:04X} ; {theirs} ; {ours}")
    return "\n".join(lines) + "\n"


@functools.cache
def allow_list() -> dict[str, dict[int, list[str]]]:
    sections: dict[str, dict[int, list[str]]] = {}
    current: dict[int, list[str]] = {}
    for line in ALLOW_LIST.read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            current = sections.setdefault(line[1 : line.index("]")], {})
        elif line.strip() and not line.startswith("#"):
            cp, *rest = (field.strip() for field in line.split(";"))
            current[int(cp, 16)] = rest
    return sections


def explained(section: str, *strings: str) -> bool:
    """Whether a string touches a change listed in ``section`` (directly or through its NFD).

    Skeleton changes explain a different same-skeleton verdict and a different hidden
    overlay (ICU looks up the base's prototype); Script_Extensions and Identifier_Status
    changes explain a different confusable kind or restriction level.
    """
    listed = allow_list()[section]
    return any(ord(c) in listed for s in strings for c in s + nfd(s))


# --- tests ---------------------------------------------------------------------------------


def test_fixture_records_its_reference() -> None:
    ref = fixture()["reference"]
    assert ref["icu_version"] == "78.3"
    assert ref["unicode_version"] == "17.0"
    assert "icukit-pyicu 78.3.1" in ref["built_with"]
    assert lookalike.UTS39_VERSION == "18.0.0"
    assert FIXTURE.name == f"icu-{ref['icu_version']}-spoof.json.xz"


@pytest.mark.slow
def test_skeleton_equals_icu_on_every_code_point_but_the_listed_changes() -> None:
    listed = allow_list()["skeleton"]
    roots = skeleton_roots()
    assert sorted(roots) == sorted(listed), "differences are not the reviewed list"
    for cp, (theirs, ours) in roots.items():
        kind, icu_hex, our_hex = listed[cp]
        assert (kind, icu_hex, our_hex) == (skeleton_change_kind(cp), hexes(theirs), hexes(ours))


@pytest.mark.slow
def test_listed_skeleton_changes_are_the_18_0_0_confusables_lines() -> None:
    table = confusables_18()
    for cp, (kind, _, _) in allow_list()["skeleton"].items():
        ours = lookalike.skeleton(chr(cp))
        if kind == "removed":
            assert ours == chr(cp), f"U+{cp:04X}: no 18.0.0 line, yet mapped"
            assert icu_skeleton(cp) != chr(cp)
        else:
            # §4: the line's prototype, NFD'd (it can carry a decomposable character).
            assert ours == lookalike.skeleton(table[cp]) == nfd(ours), f"U+{cp:04X}"
            assert icu_skeleton(cp) != ours


@pytest.mark.slow
def test_decomposed_characters_differ_only_through_a_listed_line() -> None:
    """A precomposed character's skeleton differs only because a part's line changed,
    and ICU's answer is the §4 composition of ICU's own per-character answers."""
    roots = allow_list()["skeleton"]
    for cp, (theirs, ours) in skeleton_differences().items():
        parts = nfd(chr(cp))
        if parts == chr(cp):
            continue
        assert any(ord(p) in roots for p in parts), f"U+{cp:04X}: {hexes(theirs)} {hexes(ours)}"
        assert theirs == nfd("".join(icu_skeleton(ord(p)) for p in parts))
        assert ours == nfd("".join(lookalike.skeleton(p) for p in parts))


@pytest.mark.slow
def test_script_extensions_equal_icu_but_the_listed_changes() -> None:
    listed = allow_list()["script_extensions"]
    differences = script_differences()
    assert sorted(differences) == sorted(listed)
    for cp, (theirs, ours) in differences.items():
        assert listed[cp] == [theirs, ours]
        if cp in script_extensions_18():  # the 18.0.0 line is what we use
            assert ours == script_extensions_18()[cp], f"U+{cp:04X}"
        else:  # no line: Script_Extensions = {Script}, from Scripts.txt
            assert len(ours.split()) == 1, f"U+{cp:04X}"


@pytest.mark.slow
def test_identifier_status_equals_icu_but_the_listed_changes() -> None:
    listed = allow_list()["identifier_status"]
    differences = status_differences()
    assert sorted(differences) == sorted(listed)
    for cp, pair in differences.items():
        assert listed[cp] == list(pair)


def test_allow_list_file_is_current() -> None:
    if not all(
        hasattr(lookalike, name) for name in ("script_extensions", "identifier_status")
    ):  # pragma: no cover - the package is being written
        pytest.skip("sanitizer._lookalike is incomplete")
    # Cheap check of the header and sections; the slow tests compare the entries.
    assert set(allow_list()) == {"skeleton", "script_extensions", "identifier_status"}


@functools.cache
def pair_disagreements() -> list[tuple[str, str, int, int]]:
    data = fixture()
    strings = data["strings"]
    out = []
    for i, j, bits in data["pairs"]:
        a, b = strings[i], strings[j]
        ours = BITS[lookalike.confusable(a, b)]
        if ours != bits:
            out.append((a, b, bits, ours))
    return out


def test_confusable_equals_icu_are_confusable_on_every_pair() -> None:
    """10,000 generated username pairs (half confusable): the verdict and its kind."""
    unexplained = []
    for a, b, theirs, ours in pair_disagreements():
        if bool(theirs) != bool(ours):
            why = explained("skeleton", a, b)
        else:  # same skeleton for both; the kind comes from the resolved scripts (§4)
            why = explained("script_extensions", a, b)
        if not why:
            unexplained.append((a, b, theirs, ours))
    assert unexplained == [], unexplained[:20]
    # The explained ones: pairs ICU 78.3 finds confusable through a confusables.txt line
    # that 18.0.0 changed (CJK compatibility ideographs such as U+90DE, Arabic
    # mathematical letters such as U+1EE67 ...).  A change in this number is a change in
    # behaviour to review.
    assert len(pair_disagreements()) == EXPLAINED_PAIR_DISAGREEMENTS


def test_pairs_cover_every_verdict() -> None:
    counts: dict[int, int] = {}
    for _, _, bits in fixture()["pairs"]:
        counts[bits] = counts.get(bits, 0) + 1
    assert set(counts) == {0, 1, 2, 6}
    assert min(counts.values()) >= 20
    assert 4_000 <= counts[0] <= 6_000


def test_same_skeleton_exactly_when_icu_says_confusable() -> None:
    data = fixture()
    strings = data["strings"]
    wrong = [
        (strings[i], strings[j])
        for i, j, bits in data["pairs"]
        if (lookalike.skeleton(strings[i]) == lookalike.skeleton(strings[j])) != bool(bits)
        and not explained("skeleton", strings[i], strings[j])
    ]
    assert wrong == [], wrong[:20]


def test_restriction_level_equals_icu() -> None:
    """UTS #39 §5.2 on every string of the fixture (ICU: uspoof_check2 with AUX_INFO)."""
    data = fixture()
    wrong = []
    for s, (level, _, _) in zip(data["strings"], data["checks"], strict=True):
        ours = lookalike.restriction_level(s)
        if ours != level and not (
            explained("script_extensions", s) or explained("identifier_status", s)
        ):
            wrong.append((s, level, ours))
    assert wrong == [], wrong[:20]
    assert {level for level, _, _ in data["checks"]} == set(range(1, 7))


def test_mixed_numbers_equal_icu() -> None:
    """UTS #39 §5.3: digits of more than one decimal system."""
    data = fixture()
    wrong = [
        (s, flag)
        for s, (_, flag, _) in zip(data["strings"], data["checks"], strict=True)
        if lookalike.mixed_numbers(s) != bool(flag)
    ]
    assert wrong == [], wrong[:20]
    assert sum(flag for _, flag, _ in data["checks"]) >= 50


def test_hidden_overlays_equal_icu() -> None:
    """UTS #39 §5.4 / ICU HIDDEN_OVERLAY: the first U+0307 hidden by its base."""
    data = fixture()
    wrong = []
    for s, (_, _, first) in zip(data["strings"], data["checks"], strict=True):
        found = lookalike.hidden_overlays(s)
        ours = found[0] if found else -1
        if ours != first and not explained("skeleton", s):
            wrong.append((s, first, found))
    assert wrong == [], wrong[:20]
    assert sum(first >= 0 for _, _, first in data["checks"]) >= 5


if __name__ == "__main__":
    if sys.argv[1:] != ["--write-allow-list"]:
        sys.exit("usage: python tests/identifiers/test_lookalike_icu.py --write-allow-list")
    ALLOW_LIST.write_text(render_allow_list(), encoding="utf-8")
    print(f"wrote {ALLOW_LIST.relative_to(ROOT)}: review the diff")
