"""The SOURCE gate (UTS #55): every Trojan Source attack class in Python, C,
JavaScript and Rust, tag and selector payloads and ill-formed files are found, and
legitimate multilingual source passes, through ``check_source`` and the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sanitizer import profiles
from sanitizer._policy import Action
from sanitizer._source_gate import check_source, check_source_pieces, script_level
from tests.policy import source_samples as samples
from tests.support.cli_runner import run_cli

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str | Path, cwd: Path | None = None) -> tuple[int, list[dict[str, Any]], str]:
    env = {"PYTHONPATH": str(ROOT)}
    proc = run_cli("check", "--progress", "never", *args, cwd=cwd, env=env)
    out = proc.stdout.decode("utf-8").splitlines()
    records = [json.loads(line) for line in out] if "json" in args else []
    return proc.returncode, records, proc.stderr.decode("utf-8", "replace")


@pytest.mark.parametrize("name", sorted(samples.ATTACKS))
def test_every_attack_is_found_by_the_cli(tmp_path: Path, name: str) -> None:
    kinds = samples.ATTACKS[name][1]
    samples.write(tmp_path, {name: samples.ATTACKS[name]})
    code, records, _ = cli("--policy", "SOURCE", "--format", "json", name, cwd=tmp_path)
    findings = [r for r in records if "summary" not in r]
    failing = {r["rule"] for r in findings if r["fails"]}
    assert code == 1
    assert kinds <= failing, (name, findings)
    for r in findings:  # every place is exact: the bytes at start..end are the finding
        data = (tmp_path / name).read_bytes()
        if r.get("code_point"):
            assert data[r["start"] : r["end"]].decode() == chr(int(r["code_point"][2:], 16))


@pytest.mark.parametrize("name", sorted(samples.ATTACKS))
def test_every_attack_is_found_by_check_source(name: str) -> None:
    content, kinds = samples.ATTACKS[name]
    if isinstance(content, bytes):  # ill-formed: the CLI's job (check_source takes str)
        return
    report = check_source(content)
    assert not report.ok
    assert kinds <= {f.kind for f in report.findings if f.refused}
    for f in report.findings:
        if f.codepoint is not None:
            assert content[f.start] == chr(f.codepoint)
        if f.identifier is not None and f.kind != "syntax-lookalike":
            assert content[f.start : f.end] == f.identifier


def test_legitimate_corpus_never_fails_the_build(tmp_path: Path) -> None:
    samples.write(tmp_path, samples.LEGIT)
    code, records, _ = cli("--policy", "SOURCE", "--format", "json", ".", cwd=tmp_path)
    failing = [r for r in records if r.get("fails")]
    # the PEP 263 latin-1 file is one clear finding, nothing else fails
    assert [(Path(r["path"]).name, r["rule"], r["what"]) for r in failing] == [
        (samples.LEGIT_DECLARED, "declared-encoding", "latin-1")
    ]
    assert code == 1
    code, records, _ = cli(
        "--policy", "SOURCE", "--declared-encoding", "allow", "--format", "json", ".",
        cwd=tmp_path,
    )  # fmt: skip
    assert code == 0
    assert not [r for r in records if r.get("fails")]
    allowed = {r["rule"] for r in records if "rule" in r}
    assert allowed <= {"bidi-control", "joiner", "declared-encoding"}  # reported, not failing


@pytest.mark.parametrize("name", sorted(n for n, c in samples.LEGIT.items() if isinstance(c, str)))
def test_legitimate_samples_pass_check_source(name: str) -> None:
    report = check_source(str(samples.LEGIT[name]))
    assert report.ok, report.findings
    assert all(f.action is Action.ALLOW for f in report.findings)


def test_strict_fails_on_allowed_findings(tmp_path: Path) -> None:
    samples.write(tmp_path, {"rtl_strings.py": samples.LEGIT["rtl_strings.py"]})
    assert cli("--policy", "SOURCE", "rtl_strings.py", cwd=tmp_path)[0] == 0
    assert cli("--policy", "SOURCE", "--strict", "rtl_strings.py", cwd=tmp_path)[0] == 1


# -- bidi pairing, rule by rule ---------------------------------------------------------

R, L, RI, P, PDF = samples.RLO, samples.LRI, samples.RLI, samples.PDI, "\u202c"


@pytest.mark.parametrize(
    ("line", "refused"),
    [
        (f"s = '{RI}שלום{P}'", []),  # an isolate closed on its line
        (f"s = '{R}abc{PDF}'", []),  # an override closed by PDF
        (f"s = '{L}a{R}b{PDF}c{P}'", []),  # nested
        (f"s = '{RI}abc'", [5]),  # never closed
        (f"s = 'abc{P}'", [8]),  # closes nothing
        (f"s = 'abc{PDF}'", [8]),
        (f"s = '{L}a{R}b{P}'", [7]),  # PDI closes the override implicitly (X6a)
        (f"s = '{RI}'; x = '{P}'", [5, 14]),  # pair straddles string delimiters
        (f"x = 1  # {RI}note{P}", []),
        (f"x = 1  /* {RI} */ y{P}", [10, 16]),
    ],
)
def test_bidi_pairing(line: str, refused: list[int]) -> None:
    report = check_source(line + "\n")
    assert [f.start for f in report.findings if f.refused] == refused
    assert report.ok is (not refused)


def test_pairs_never_span_lines() -> None:
    for eol in ("\n", "\r", "\r\n", "\x0b", "\x0c", "\x85", "\u2028", "\u2029"):
        text = f"a = '{RI}x{eol}y{P}'\n"
        bidi = [f for f in check_source(text).findings if f.kind == "bidi-control"]
        assert [f.action for f in bidi] == [Action.REJECT, Action.REJECT], repr(eol)


def test_bidi_marks_are_not_reported() -> None:
    text = f"s = 'שלום{samples.RLM}' + '{samples.LRM}x' + '{samples.ALM}١'\n"
    assert check_source(text).findings == ()


def test_leading_bom_is_a_signature_but_a_later_one_is_refused() -> None:
    assert check_source("\ufeffx = 1\n").ok
    report = check_source("\ufeffx = 1\ny\ufeff = 2\n")
    assert [(f.kind, f.start) for f in report.findings] == [("bom", 8)]


# -- identifiers ------------------------------------------------------------------------


def test_confusable_carries_both_spellings_and_positions() -> None:
    text = "def scope(): pass\n\ndef \u0455\u0441\u043e\u0440\u0435(): pass\n"
    (f,) = check_source(text).findings
    assert f.kind == "confusable" and f.identifier == "\u0455\u0441\u043e\u0440\u0435"
    assert text[f.start : f.end] == f.identifier
    assert f.other == (4, 9, "scope") and text[4:9] == "scope"


def test_single_script_and_ascii_lookalikes_are_left_to_linters() -> None:
    assert check_source("l = 1\nI = 2\nmodern = modem = 0\n").ok  # PEP 8 E741's business
    assert check_source("# 'i' vs 'ı' and 'μ' vs 'µ'\nimplicit = ımplicit = 0\n").ok


def test_escapes_are_not_part_of_identifiers() -> None:
    assert check_source("print('\\nМир \\u0345ι \\N{DASH}Да')\n").ok


def test_restriction_level_is_configurable(tmp_path: Path) -> None:
    text = "F\u03b1tal = 0.01  # Greek + Latin\n"
    (f,) = check_source(text).findings
    assert f.kind == "mixed-script" and "Latin + Greek" in f.reason and "'Fatal'" in f.reason
    assert f.action is Action.REJECT
    loose = profiles.SOURCE.replace(max_restriction_level="minimally-restrictive")
    assert check_source(text, loose).ok
    (tmp_path / "dt.py").write_text(text, encoding="utf-8")
    assert cli("--policy", "SOURCE", "dt.py", cwd=tmp_path)[0] == 1
    args = ("--policy", "SOURCE", "--max-restriction-level", "minimally-restrictive", "dt.py")
    assert cli(*args, cwd=tmp_path)[0] == 0
    assert cli("--policy", "TEXT", "--max-restriction-level", "single-script", "dt.py",
               cwd=tmp_path)[0] == 2  # fmt: skip


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ('T = {"\uff22\uff11\u3042": 1, "B1\u3042": 2}\n', True),  # width variants, one script set
        ('T = ["\u0a2b\u0a3c", "\u0922\u093c"]\n', True),  # one letter and its nukta each
        ('T = ["\u0455\u0441\u043e\u0440\u0435", "scope"]\n', False),  # Cyrillic "scope"
        ("p\u0430ypal = paypal\n", False),
    ],
)
def test_confusable_pairs_across_scripts(text: str, ok: bool) -> None:
    report = check_source(text)
    assert report.ok is ok
    assert ("confusable" in {f.kind for f in report.findings}) is not ok


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("if (environment\u01c3=ENV_PROD) {}\n", False),  # reads as "environment != ..."
        ("x = \u01c3y\n", False),
        ("x_\u01c3 = 1\n", False),
        ('HAT = "\u02c6"  # a table of symbols\n', True),  # alone: no operator between names
        ('GLOTTAL = {"\\glottal": "\u0294"}\n', True),
        ('s = "\u02c6\u00f8\u03c0"\n', True),  # among other letters
    ],
)
def test_syntax_lookalikes_between_ascii_names(text: str, ok: bool) -> None:
    assert check_source(text).ok is ok
    if not ok:
        assert "syntax-lookalike" in {f.kind for f in check_source(text).findings}


@pytest.mark.parametrize(
    "text",
    [
        "api_\u043aey = 1\n",  # Cyrillic ka: reads as no ASCII word, still Latin + Cyrillic
        "x = '\u041fi\u0432\u0434\u0435\u043d\u043d\u0438\u0439'\n",  # a Latin i in Cyrillic
        "s\u0430y\u041dello()\n",  # reads as "sayHello"
    ],
)
def test_latin_with_cyrillic_always_fails(text: str) -> None:
    report = check_source(text)
    assert not report.ok
    assert [f.kind for f in report.findings if f.refused] == ["mixed-script"]


@pytest.mark.parametrize("text", ["\u0394t = 0.01\n", "x = 5  # \u03bcs\n", "n\u03c0f = 1\n"])
def test_mixed_scripts_that_read_as_no_ascii_word_are_allowed(text: str, tmp_path: Path) -> None:
    """A unit or a formula ("\u03bcs", "\u0394t") mixes scripts but spoofs no ASCII word
    (UTS #39 §4): reported, allowed; --strict fails on it."""
    report = check_source(text)
    assert report.ok
    (f,) = report.findings
    assert f.kind == "mixed-script" and f.action is Action.ALLOW
    assert "reads as no ASCII word" in f.reason
    (tmp_path / "units.py").write_text(text, encoding="utf-8")
    assert cli("--policy", "SOURCE", "units.py", cwd=tmp_path)[0] == 0
    assert cli("--policy", "SOURCE", "--strict", "units.py", cwd=tmp_path)[0] == 1


@pytest.mark.parametrize(
    ("identifier", "level"),
    [
        ("admin", "ASCII_ONLY"),
        ("Дмитрий", "SINGLE_SCRIPT"),
        ("yamadaたろう", "HIGHLY_RESTRICTIVE"),
        ("Kim민준", "HIGHLY_RESTRICTIVE"),
        ("Amitअमित", "MODERATELY_RESTRICTIVE"),
        ("p\u0430ypal", "MINIMALLY_RESTRICTIVE"),
        ("ab\u03bf", "MINIMALLY_RESTRICTIVE"),
    ],
)
def test_script_level(identifier: str, level: str) -> None:
    assert script_level(identifier).name == level


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
def test_offsets_are_exact_and_never_raise(text: str) -> None:
    report = check_source(text)
    for f in report.findings:
        assert 0 <= f.start < f.end <= len(text)
        if f.codepoint is not None:
            assert text[f.start] == chr(f.codepoint)
    assert report.ok is not any(f.refused for f in report.findings) or report.more_findings


def test_bad_arguments_are_clear() -> None:
    with pytest.raises(TypeError, match="'text' must be str"):
        check_source(b"x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"'policy' must be a sanitizer\.Policy"):
        check_source("x", "SOURCE")  # type: ignore[arg-type]


def test_sarif_related_location_for_confusable(tmp_path: Path) -> None:
    name = "homoglyph_function.js"
    samples.write(tmp_path, {name: samples.ATTACKS[name]})
    env = {"PYTHONPATH": str(ROOT)}
    proc = run_cli("check", "--policy", "SOURCE", "--format", "sarif", name, cwd=tmp_path, env=env)
    (run,) = json.loads(proc.stdout)["runs"]
    result = next(r for r in run["results"] if r["ruleId"] == "confusable")  # its first use
    region = result["locations"][0]["physicalLocation"]["region"]
    related = result["relatedLocations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (2, 10)
    assert (related["startLine"], related["startColumn"]) == (1, 10)


_SPELLING_ALPHABET = "abmnrlIO01_ \n\\xu{}N.\u043e\u0430\u0440\u00e9\u0301"


@given(
    st.text(alphabet=_SPELLING_ALPHABET, max_size=80),
    st.lists(st.text(alphabet="abmnrlIO01_\u043e", min_size=1, max_size=6), max_size=10),
)
def test_ascii_spellings_equal_a_whole_text_reading(text: str, words: list[str]) -> None:
    """The line-finding search (a pattern from the skeletons, or past eight of them the
    ASCII-word reading) gives what reading every identifier of the text gives."""
    from sanitizer import _source_gate as source
    from sanitizer._lookalike import skeleton

    keys = {skeleton(w) for w in words} | {"rn", "lO"}
    pattern = source._identifier_pattern()
    expected: dict[str, int] = {}
    for m in pattern.finditer(text):
        name = m.group(1)
        if name and name.isascii() and len(name) > 1 and skeleton(name) in keys:
            expected.setdefault(name, m.start(1))
    assert source._ascii_spellings(text, keys) == expected
    reader, source._identifiers = source._identifiers, source._identifiers_py
    try:  # the pure-Python twin of the C line reading
        assert source._ascii_spellings(text, keys) == expected
    finally:
        source._identifiers = reader


def test_ascii_spellings_search_is_built_from_the_skeleton_table() -> None:
    from sanitizer import _source_gate as source

    table = source._ascii_skeletons()
    assert table is not None  # ASCII skeletons stay ASCII (UTS #39 confusables data)
    search = source._spelling_search({"rnOl"}, table)
    assert search is not None
    spellings = ("rnOl", "m0l", "mO1", "rn0I", "xmOl")  # the last: ends where one ends
    assert all(search.search(s) for s in spellings)
    assert not search.search("mOlx") and not search.search("nOl")
    assert source._spelling_search({f"k{i}" for i in range(9)}, table) is None


@given(st.text(alphabet="ab1_ \n\\u{}N.-\u00e9\u2014\u0430\u0301\u05d0\u4e00", max_size=60))
@example("\\\\\u00e9")  # an escaped backslash before the run (found on 3.13)
@example("\\N{\u00e9}")  # the run inside a \N{...} escape
@example("\\N{a \u00e9}\n\u00e9")
def test_wide_identifiers_equal_a_whole_text_reading(text: str) -> None:
    """Reading only the lines of the non-ASCII runs finds what reading all of the text
    finds: where a run's word ends inside the next run, after an escaped backslash, and
    inside a \\N{...} escape."""
    from sanitizer import _source_gate as source

    pattern = source._identifier_pattern()
    expected: dict[str, int] = {}
    for m in pattern.finditer(text):
        name = m.group(1)
        if name and not name.isascii():
            expected.setdefault(name, m.start(1))
    for lines in (source._source_lines(text), source._source_lines_py(text)):
        assert source._identifiers(text, lines[0], True) == expected
        assert source._identifiers_py(text, lines[0], True) == expected


def test_an_identifier_after_a_non_word_character_of_a_run_is_read() -> None:
    # The word "é1é" that starts at the first run ends inside the second run, at "—";
    # the Cyrillic "аb" after it was once skipped with the rest of that run.
    report = check_source("ok\u00e91\u00e9\u2014\u0430b = 1\n")
    assert [(f.kind, f.identifier) for f in report.findings] == [("mixed-script", "\u0430b")]


# A locale bundle written as code: words of many languages, two of them look-alikes
# across scripts (Greek and Latin capitals), as date libraries ship them.
LOCALES = (
    'export const el = { am: "\u03a0\u039c", months: "\u039c\u03b1\u03c1" };\n'
    'export const en = { am: "AM", months: "Map" };\n'
)


def test_as_text_checks_matching_files_without_the_identifier_rules(tmp_path: Path) -> None:
    locale = tmp_path / "src" / "locale"
    locale.mkdir(parents=True)
    (locale / "all.js").write_text(LOCALES, encoding="utf-8")
    (tmp_path / "src" / "app.js").write_text(LOCALES, encoding="utf-8")
    code, records, _ = cli("--policy", "SOURCE", "--format", "json", ".", cwd=tmp_path)
    failing = {Path(r["path"]).as_posix() for r in records if r.get("fails")}
    assert code == 1 and failing == {"src/app.js", "src/locale/all.js"}
    args = ("--policy", "SOURCE", "--format", "json", "--as-text", "locale/", ".")
    code, records, _ = cli(*args, cwd=tmp_path)
    assert code == 1
    assert {Path(r["path"]).as_posix() for r in records if r.get("fails")} == {"src/app.js"}
    # a named PATH is matched as given
    assert cli("--policy", "SOURCE", "--as-text", "*.js", "src/app.js", cwd=tmp_path)[0] == 0


def test_as_text_keeps_the_character_rules(tmp_path: Path) -> None:
    """Bidi pairing and invisibles still apply to a file checked as text."""
    (tmp_path / "all.js").write_text(
        LOCALES + 'var isAdmin = "\u202e } \u2066if (isAdmin)\u2069 \u2066 begin admins only";\n',
        encoding="utf-8",
    )
    code, records, _ = cli(
        "--policy", "SOURCE", "--format", "json", "--as-text", "*.js", ".", cwd=tmp_path
    )
    assert code == 1
    assert {r["rule"] for r in records if r.get("fails")} == {"bidi-control"}


@pytest.mark.parametrize("allowed", ["a\u200bb\n", "a\ufdd0b\n"])  # the gate's, the policy's
def test_a_cap_lists_refused_findings_before_allowed_ones(allowed: str) -> None:
    policy = profiles.SOURCE.replace(max_findings=5)
    report = check_source(allowed * 20 + "x\x1b\n", policy, code=False)
    refused = [f for f in report.findings if f.refused]
    assert [(f.kind, f.start) for f in refused] == [("control", 20 * len(allowed) + 1)]
    assert len(report.findings) == 5
    assert report.more_findings == 16 and report.more_allowed == 16
    starts = [f.start for f in report.findings]
    assert starts == sorted(starts)


def test_a_mixed_script_identifier_is_reported_at_every_occurrence() -> None:
    word = "p\u0430ypal"
    text = f's = "{word}"\nx = {word} + {word}\n' + "pass\n" * 10 + f"{word}()\n"
    starts = [i for i in range(len(text)) if text.startswith(word, i)]
    report = check_source(text)
    assert [(f.kind, f.start) for f in report.findings] == [("mixed-script", i) for i in starts]
    # the same across pieces
    lines = text.splitlines(keepends=True)
    assert check_source_pieces(lambda: lines) == report


# -- attacks that passed, and writing that was refused ----------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "char"),
    [
        ("\U0001d41admin = True\n", "restricted", "\U0001d41a"),  # mathematical bold a
        ("is_\uff41dmin = True\n", "restricted", "\uff41"),  # fullwidth a
        ("v\U0001d7cf = 1\n", "restricted", "\U0001d7cf"),  # mathematical bold digit
        ("is_\U0001d68admin = 1\n", "restricted", "\U0001d68a"),  # monospace a
        ("\U0001d5badmin = 1\n", "restricted", "\U0001d5ba"),  # sans-serif a
        ("to\u212aen = 1\n", "restricted", "\u212a"),  # KELVIN SIGN: a canonical K
        ("/* hidden *\u2215 evil(); /* */\n", "syntax-lookalike", "\u2215"),
        ("x \uff1d 1\n", "syntax-lookalike", "\uff1d"),
        ("echo hi\u037e rm -rf x\n", "syntax-lookalike", "\u037e"),
        ("rm \u2010rf /\n", "syntax-lookalike", "\u2010"),
        ("x = 1 # note\rexec(evil)\ny = 2\n", "line-break", "\r"),
        ("# note\x0bexec(evil)\n", "line-break", "\x0b"),
        ("x = 1  # page\x0cexec(evil)\n", "line-break", "\x0c"),
    ],
)
def test_lookalikes_of_code_are_refused_in_code(text: str, kind: str, char: str) -> None:
    report = check_source(text)
    assert not report.ok
    assert [(f.kind, text[f.start]) for f in report.findings if f.refused] == [(kind, char)]
    assert check_source(text, code=False).ok or kind == "line-break"


@pytest.mark.parametrize(
    "text",
    [
        "# pages 1\u201310, a well\u2010known rule\n",  # dashes in prose
        'x = "\u03c4\u03b9 \u03ba\u03ac\u03bd\u03b5\u03b9\u03c2\u037e"\n',  # a Greek question
        "# \u5024\uff1d\u5024\n",  # fullwidth punctuation in CJK text
        "area = 3  # m\u00b2, x\u207f\n",  # superscripts: units and formulas
        "a = 1\rb = 2\r",  # a file of CR line ends
        "\x0c\ndef f(): pass\n",  # a page break (PEP 8)
        "\u03bb\u03cc\u03b3\u03bf\u03c2 = \u03c4\u0302\u03b9\n",  # a circumflex on Greek
        "\u0995\u09b0\u200d\u09cd\u09af = 1\n",  # Bengali ra + ZWJ + virama + ya
        # mathematics' own letters: blackboard bold, script, fraktur (Agda, sympy, Lean)
        "data Co\u2115 : Set where\n",
        'assert split("w\U0001d7d9") == ("w", ["\U0001d7d9"])\n',
        "norm_\u2113 = 2; lie_\U0001d524 = 3\n",
        # the long s of historical spelling, a letter of its own (NFKC <compat>)
        "# Car mai\u017ftre en fu bien dire loz, \u017fon grant engin\n",
        # a date format's field glued to a word of the locale (moment's Mongolian)
        "LL: 'YYYY \u043e\u043d\u044b MMMM\u044b\u043d D',\n",
    ],
)
def test_writing_is_not_refused_in_code(text: str) -> None:
    report = check_source(text)
    assert report.ok, report.findings


@pytest.mark.parametrize(
    "text",
    [
        "MM\u043aey = 1\n",  # a field beside a Cyrillic letter that reads as ASCII
        "x = '\u0412\u0430\u0441\u043e\u0432a'\n",  # one Latin letter glued: a typo
        "x = 'MMMM\u0438\u043da'\n",  # Latin in the word after the field
    ],
)
def test_latin_with_cyrillic_beside_a_field_still_fails(text: str) -> None:
    assert not check_source(text).ok


def test_a_format_conversion_glued_to_a_word_is_allowed_where_it_follows_a_percent() -> None:
    bundle = 'relativeTime: {h: "%d\u0446", hh: "%d\u0436"}\n'  # dayjs's Mongolian hours
    report = check_source(bundle)
    assert report.ok
    assert {(f.kind, f.action.value) for f in report.findings} == {("mixed-script", "allow")}
    for attack in (
        "x = d\u0446 + 1\n",  # the same word with no '%' before it
        's = "%s\u043aey"\n',  # a Cyrillic letter among Latin ones after the conversion
        "y = x%d\u0430ta\n",  # the rest is not all of another script
        'm = "%d\u0441"\n',  # the rest reads as ASCII ("dc")
    ):
        assert not check_source(attack).ok, attack


def test_soft_hyphen_is_a_hyphenation_point_in_text_not_in_code() -> None:
    prose = "Donau\u00addampf\u00adschiff, 170 \u00aa \u00ab \u00ac \u00ad \u00ae\n"
    report = check_source(prose, code=False)
    assert report.ok
    assert {(f.kind, f.action.value) for f in report.findings} == {("invisible", "allow")}
    assert not check_source("pass\u00adword = 1\n").ok  # in code: invisible
    assert not check_source("a\u00ad\u200cb\n", code=False).ok  # a run of two: bits


def test_a_clean_spelling_is_never_the_suspect() -> None:
    text = "- uses: \u0430ctions/checkout@v4\n- uses: actions/checkout@v4\n"
    report = check_source(text)
    confusables = [f for f in report.findings if f.kind == "confusable"]
    assert [f.identifier for f in confusables] == ["\u0430ctions"]
    later = "actions = 1\n\u0430ctions = 2\n"
    assert [f.identifier for f in check_source(later).findings if f.kind == "confusable"] == [
        "\u0430ctions"
    ]


def test_whole_script_lookalikes_among_words_of_that_script_are_a_language() -> None:
    bundle = (
        'x = {"AM": "\u0391\u039c", "day": "\u03bc\u03ad\u03c1\u03b1", '
        '"week": "\u03b5\u03b2\u03b4\u03bf\u03bc\u03ac\u03b4\u03b1", '
        '"month": "\u03bc\u03ae\u03bd\u03b1\u03c2"}\n'
    )
    assert check_source(bundle).ok
    spoof = "def \u0441\u043e\u0440\u0443(): pass\ndef copy(): pass\n"  # the only Cyrillic
    assert [f.kind for f in check_source(spoof).findings if f.refused] == ["confusable"]


@pytest.mark.parametrize(
    "text",
    [
        "(r'\\{\\*|\u2039', String, 'cartouche'),\n",  # a quoted guillemet in a lexer
        "x = '2015/01/01\uff5e2017/01/01'\n",  # a fullwidth tilde in a date range
        "dash = '[-\u2013\u2014]'\n",  # dashes in a character class
        "frac = 'f0{f1{$1}\u2044f2{$2}}'\n",  # a fraction slash in markup
    ],
)
def test_punctuation_of_data_is_not_a_stand_in(text: str) -> None:
    assert check_source(text).ok


def test_a_confusable_is_reported_at_every_use() -> None:
    text = "def \u0441ount(): pass\ndef count(): pass\nx = \u0441ount() + count()\n"
    report = check_source(text)
    uses = [i for i in range(len(text)) if text.startswith("\u0441ount", i)]
    assert [f.start for f in report.findings if f.kind == "confusable"] == uses
    lines = text.splitlines(keepends=True)
    assert check_source_pieces(lambda: lines) == report


# -- the searches in C that stand for a Python step a character ----------------------------


def test_twin_candidates_hold_every_character_with_a_syntax_twin() -> None:
    """``_twin_candidates`` (what ``_syntax_twins`` searches a block for before sifting
    it) matches every non-ASCII punctuation mark and symbol: all ``_syntax_twin`` may
    answer for, so no block with a look-alike is passed over."""
    import unicodedata2

    from sanitizer import _source_gate as gate

    candidates = gate._twin_candidates()
    missed = [
        cp
        for cp in range(0x80, 0x110000)
        if unicodedata2.category(chr(cp))[0] in "PS" and not candidates.match(chr(cp))
    ]
    assert missed == []
    assert not candidates.search("a\u0301\ufe00\u2061\u200db1_")  # marks, invisibles, words


@given(
    st.text(st.sampled_from("ab_1 \u0430\u01c3\u0251\uff41\ufe00\u2061\u0301\u2215"), max_size=90)
)
def test_restricted_characters_found_by_pattern_as_one_by_one(identifier: str) -> None:
    """The identifier rules of a long identifier (its Restricted characters beside an
    ASCII name found by a pattern) are those found a character at a time."""
    from sanitizer import _source_gate as gate
    from sanitizer._lookalike import RestrictionLevel

    level = RestrictionLevel.MODERATELY_RESTRICTIVE
    by_pattern = list(_problems_with(gate, identifier, level, long=0))
    one_by_one = list(_problems_with(gate, identifier, level, long=1 << 30))
    assert by_pattern == one_by_one
    pattern = gate._beside_ascii_name_pattern(frozenset(identifier) or frozenset("x"))
    assert [m.start() for m in pattern.finditer(identifier)] == [
        i for i in range(len(identifier)) if gate._beside_ascii_name(identifier, i)
    ]


def _problems_with(gate: Any, identifier: str, level: Any, long: int) -> list[object]:
    saved = gate._LONG_IDENTIFIER
    gate._LONG_IDENTIFIER = long
    try:
        return list(gate._problems(identifier, level))
    finally:
        gate._LONG_IDENTIFIER = saved
