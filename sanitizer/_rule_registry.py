"""Every rule ``sanitizer check`` and ``check_source`` report, once: the registry.

A finding's ``kind`` is the id of its rule, a stable string (a future suppression
comment names it): the ``ErrorKind`` of ill-formed UTF-8 (``overlong``), the
``UnitErrorKind`` of ill-formed UTF-16/32, the policy ``Category`` of a character
(``bidi-control``), a rule of the source gate (``confusable``) or of the file
(``declared-encoding``).  Each ``Rule`` here has its id, the checks that report it, its
severity, a title, what it finds, why it matters, how the source gate judges it in code
and in text that is not code, and an example input that triggers it (tests run every
example through its check).  The words of a category are ``category_meanings``' (also the
web problems' and the profiles page's), those of a decoding error its kind's
``description`` and ``rationale``; the rules of the gate and of the file are written
here.  SARIF's rule metadata (``sanitizer check --format sarif``) and the rules page of
the docs (docs/rules.md, ``tools/gen_docs_tables.py``) are made from ``RULES``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._category_meanings import MEANINGS
from ._errors import ErrorKind
from ._wide import UnitErrorKind

__all__ = ["CHECKS", "RULES", "Rule", "rule_for", "shown"]

# The checks a rule belongs to: what reports it.
UTF8 = "utf-8"  # the strict decoder: ill-formed UTF-8 (RFC 3629)
WIDE = "utf-16/32"  # the strict UTF-16 and UTF-32 decoders (--encoding)
POLICY = "policy"  # a policy's character categories (inspect, sanitize, check --policy)
SOURCE = "source"  # the source gate (check_source, check --policy SOURCE)
FILE = "file"  # sanitizer check, about a whole file
CHECKS: dict[str, str] = {
    UTF8: "the strict UTF-8 decoder (RFC 3629 §3, §4)",
    WIDE: "the strict UTF-16 and UTF-32 decoders (`check --encoding`)",
    POLICY: "a policy's character categories (`inspect`, `sanitize`, `check --policy`)",
    SOURCE: "the source gate (`check_source`, `check --policy SOURCE`), UTS #55",
    FILE: "`sanitizer check`, about a whole file",
}


@dataclass(frozen=True)
class Rule:
    """One rule.  ``title`` is one line (SARIF shortDescription); ``why`` says why it
    matters and what to do (SARIF fullDescription); ``what`` which inputs it finds;
    ``in_code`` and ``in_text`` how the source gate judges it in code and in text that is
    not code (``check_source(code=False)``), when it judges it by context; ``example``
    an input its first check reports under it; ``severity`` GitHub's security-severity
    (7.0-8.9 high, 4.0-6.9 medium, below: low)."""

    id: str
    checks: tuple[str, ...]
    severity: str
    title: str
    what: str
    why: str
    example: str | bytes
    in_code: str = ""
    in_text: str = ""


_ILL = "Ill-formed UTF-8 (RFC 3629 §3 forbids decoding it)"
_FIX_BYTES = "Re-encode the file as UTF-8, or remove the bytes."
_ILL_WIDE = "Ill-formed UTF-16 or UTF-32 (Unicode §3.9 D90, D91)"
_WHY_WIDE = (
    "Not a scalar value, or a code unit cut off: a lax decoder keeps a lone surrogate or "
    "guesses, so a check sees other text than the program that reads it. Re-encode the "
    "file, or remove the code units."
)


# A forced cut of a long line inside a sequence (``_pieces.cut_inside``), in every reader.
_CUT_SEQUENCE = (
    "A line longer than a piece (1 MiB) with no safe place to cut is cut where it must; "
    "a cut inside a sequence (a joiner and its neighbours, a run of marks, an emoji or flag "
    "sequence, a run of invisibles) is refused as `too-long` at the cut, in "
    "`check_source_pieces` and every `check --policy` mode (but a run of invisibles, tags "
    "or selectors under a profile other than SOURCE, which is carried over the cut and "
    "reported whole): the sequence was judged in two parts, which could pass what the "
    "whole is refused for."
)


def _sentence(text: str) -> str:
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."


_Row = tuple[tuple[str, ...], str, "str | bytes", str, str]


def _row(
    checks: tuple[str, ...],
    severity: str,
    example: str | bytes,
    in_code: str = "",
    in_text: str = "",
) -> _Row:
    return checks, severity, example, in_code, in_text


# id -> (checks, severity, example, how the gate judges it in code, in text)
_TABLE: dict[str, _Row] = {
    # -- ill-formed UTF-8 (ErrorKind)
    "unexpected-continuation": _row((UTF8,), "7.0", b"a\x80b"),
    "invalid-byte": _row((UTF8,), "7.0", b"a\xfeb"),
    "overlong": _row((UTF8,), "8.0", b"/\xc0\xae\xc0\xae/"),
    "out-of-range": _row((UTF8, WIDE), "7.0", b"\xf4\x90\x80\x80"),
    "truncated": _row((UTF8,), "5.0", b"\xe2\x82x"),
    "incomplete": _row((UTF8,), "5.0", b"caf\xc3"),
    # -- ill-formed UTF-16/32 (UnitErrorKind)
    "lone-high-surrogate": _row((WIDE,), "7.0", b"\x00\xd8a\x00"),
    "lone-low-surrogate": _row((WIDE,), "7.0", b"\x00\xdca\x00"),
    "truncated-unit": _row((WIDE,), "5.0", b"a\x00b"),
    "truncated-pair": _row((WIDE,), "5.0", b"a\x00\x3d\xd8"),
    "surrogate-code-point": _row((WIDE,), "7.0", b"\x00\xd8\x00\x00"),
    # -- policy categories (Category); the gate reports them too
    "ill-formed": _row((POLICY,), "7.0", b"caf\xc3"),
    "too-long": _row(
        (POLICY, SOURCE),
        "4.0",
        "a" * 65,
        in_code="A word cut by a piece boundary of a long "
        "line (`check_source_pieces`) is reported as `too-long` where it was cut: its "
        "identifier is judged in parts. " + _CUT_SEQUENCE,
        in_text=_CUT_SEQUENCE,
    ),
    "nul": _row((POLICY,), "6.0", "ab\x00c"),
    "line-break": _row(
        (POLICY, SOURCE),
        "4.0",
        "x = 1 # note\u2028y = 2",
        in_code="NEL, LS and PS are refused anywhere: some languages end a line there (JavaScript "
        "ends a `//` comment at U+2028) and some editors draw one while others do not, so "
        "code can hide in what looks like a comment (UTS #55). So, in code, is a lone CR in a "
        "file whose lines end otherwise (Python ends a line there, a terminal draws the "
        "rest over it), and a VT or FF after something on its line; LF, CRLF, a file of CR "
        "line ends and a FF at the start of a line (a page break) are ordinary.",
    ),
    "control": _row((POLICY,), "6.0", "red\x1b[31m"),
    "path-separator": _row((POLICY,), "4.0", "../etc/passwd"),
    "bidi-control": _row(
        (POLICY, SOURCE),
        "8.0",
        'access = "user\u202e \u2066// admin\u2069\u2066"',
        in_code="Refused when unpaired within their line, as gcc's `-Wbidi-chars=unpaired` does: "
        "an opener never closed, a closer that closes nothing, or a pair that straddles a "
        "quote or comment delimiter (`` \" ' ` # // /* */ ``), which is how the Trojan Source "
        "attacks (CVE-2021-42574) reorder code around strings and comments; also an "
        "opener nested deeper than UAX #9 allows (max_depth 125) and its closer. A pair "
        "closed on its line without crossing one is reported as allowed (UAX #9 keeps its "
        "effect inside the pair). A bidi control that is the end of a range in a sorted "
        'character table (`"\\u202a-\\u202e"` in a generated regular expression) is data, '
        "not text.",
    ),
    "bidi-mark": _row(
        (POLICY,),
        "3.0",
        "\u05e9\u05dc\u05d5\u05dd\u200f!",
        in_code="Not reported: LRM, RLM and "
        "ALM have no scope, and UTS #55 recommends them to make right-to-left literals "
        "display correctly (LRM and RLM are even Pattern_White_Space, UAX #31 §4).",
    ),
    "tag": _row((POLICY,), "8.0", "ok\U000e0068\U000e0069"),
    "variation-selector": _row(
        (POLICY, SOURCE),
        "7.0",
        "isA\ufe00dmin = True",
        in_code="A variation selector right after an ASCII character (other than a keycap, "
        "`1\\ufe0f\\u20e3`) is refused: selectors are identifier characters (Mn), so "
        "`isA\\ufe00dmin` is a second, invisibly different name.",
    ),
    "bom": _row(
        (POLICY,), "3.0", "a\ufeffb", in_code="A leading U+FEFF is a signature, never a finding."
    ),
    "joiner": _row(
        (POLICY, SOURCE),
        "3.0",
        "is\u200dAdmin = True",
        in_code="Outside emoji sequences, allowed only where UAX #31 §2.3 allows them in "
        "identifiers: after a virama (A2, B) or, for ZWNJ, after a letter of a joining "
        "script (A1: Arabic, Syriac, Mongolian, ...). Elsewhere they are invisible "
        'differences between two spellings ("is\\u200dAdmin") and refused.',
        in_text="A shaping control (Unicode §23.2): allowed beside the letters it shapes, refused "
        "between ASCII characters, where it shapes nothing.",
    ),
    "noncharacter": _row((POLICY,), "4.0", "a\ufdd0b"),
    "private-use": _row((POLICY,), "3.0", "logo \ue000"),
    "surrogate": _row((UTF8, POLICY), "7.0", b"\xed\xa0\x80"),
    "invisible": _row(
        (POLICY, SOURCE),
        "7.0",
        "ad\u200bmin = 1",
        in_code="Refused, except a ZERO WIDTH SPACE between two letters of a script written "
        "without spaces (UAX #14 class SA: Thai, Lao, Myanmar, Khmer, ...), where it marks "
        "a word boundary.",
        in_text="A ZERO WIDTH SPACE and a SOFT HYPHEN are reported as allowed (a "
        "line-break opportunity, UAX #14 class ZW; a hyphenation point, class BA), and one "
        "zero-width character repeated is judged as that character (one symbol carries no "
        "bits).",
    ),
    "format": _row((POLICY,), "3.0", "\u0600123"),
    "unassigned": _row((POLICY,), "3.0", "a\u0378b"),
    "whitespace": _row((POLICY,), "3.0", "john\u00a0smith"),
    "combining-run": _row((POLICY,), "5.0", "Z" + "\u0301" * 31),
    "dot-segment": _row((POLICY,), "6.0", ".."),
    "empty": _row((POLICY,), "3.0", ""),
    "hidden-payload": _row((POLICY,), "8.0", "hi\U000e0068\U000e0069\U000e0021"),
    "restricted": _row(
        (POLICY, SOURCE),
        "7.0",
        "x\u01c3y",
        in_code="A Restricted letter that is an ASCII letter or digit in another dress, "
        "drawn as the plain letter (NFKC `<font>` and `<wide>`: mathematical bold, italic, "
        "sans-serif, monospace, fullwidth; not superscripts, not the long s `ſ` of "
        "historical spelling, not the double-struck, script and fraktur letters mathematics "
        "reads as symbols of their own, `ℕ`, `𝟙`, `ℓ`) touching an ASCII "
        "letter, digit or `_` of the same identifier is refused (`\U0001d41admin`, "
        "`\uff41dmin`): the name reads as its ASCII twin, which compilers that normalize "
        "(Python: NFKC, PEP 3131) take it for and others do not. Reported at every "
        "occurrence.",
    ),
    "mixed-script": _row(
        (POLICY, SOURCE),
        "7.0",
        "p\u0430ypal",
        in_code="Judged per identifier (a run of letters, digits, marks and `_` starting with a "
        "letter that is not all ASCII; no tokenizer, so words in comments and strings "
        "count too), by scripts alone (UTS #39 §5.2): over `Policy.max_restriction_level` "
        "(default Highly Restrictive: Latin with Japanese, Korean or Chinese passes, Latin "
        "with Cyrillic does not), it is refused when the identifier reads as an ASCII "
        'word (its §4 skeleton is ASCII: "p\\u0430ypal") or mixes Latin with Cyrillic, '
        'else reported as allowed (units and formulas: "μs", "Δt"). Each distinct '
        "identifier is judged once and reported at every occurrence. One ASCII letter glued to a "
        "right-to-left word (a format placeholder: `%s\u0643\u06c6`) is two runs on "
        "screen, not one identifier; a date format's field (one ASCII letter repeated, "
        "`MMMM`) glued to a word with no Latin letter (`MMMMын`) reads as no "
        "ASCII word and is reported as allowed, as is, where it follows a `%`, a printf "
        "conversion glued to such a word (`%dц`); the characters of a generated "
        'character table in a string literal (`"A-Za-z\u00aa\u00b5..."`: sorted ranges, '
        "as regex libraries write Unicode properties) are data, not words.",
        in_text="Not judged: the words of text that is not code are not identifiers.",
    ),
    "mixed-numbers": _row((POLICY,), "7.0", "1\u09e83"),
    "hidden-overlay": _row((POLICY,), "7.0", "i\u0307"),
    # -- the source gate's own rules
    "confusable": _row(
        (SOURCE,),
        "8.0",
        "def \u0441ount(): pass\ndef count(): pass\n",
    ),
    "syntax-lookalike": _row((SOURCE,), "8.0", "if x\u01c3= y: pass\n"),
    # -- the file
    "declared-encoding": _row((FILE,), "4.0", b"# coding: latin-1\nx = '\xe9'\n"),
    "binary": _row((FILE,), "4.0", b"\x89PNG\r\n\x1a\n\x00\x00"),
    "no-byte-order-mark": _row((FILE,), "4.0", b"a\x00b\x00"),
    "not-json": _row((FILE,), "5.0", b'{"a": "\\u202e"\n'),
    "invalid-suppression": _row(
        (FILE,), "4.0", b"x = '\xe2\x80\x8b'  # sanitizer: ignore[invisibel]\n"
    ),
}

# id -> (title, what, why) of the rules that are no ErrorKind, UnitErrorKind or Category
_WORDS: dict[str, tuple[str, str, str]] = {
    "confusable": (
        "Identifier that looks like another one in the same file (UTS #39 §4)",
        "an identifier with the same UTS #39 §4 skeleton as another identifier of the file "
        "and a different spelling, where the two are mixed- or whole-script confusables "
        "(their script sets differ) and each has two letters or more. Single-script "
        "look-alikes (`ı`/`i`, `l`/`I`, `rn`/`m`), width variants and single characters "
        "are a linter's business (PEP 8 E741, ruff RUF001-003). Reported at every "
        "occurrence of the suspect spelling (one that mixes scripts, never a clean one), "
        "with the other spelling and its first position.",
        "Two different identifiers of the file have the same UTS #39 skeleton, so a "
        "reader takes one for the other: a function called in review is not the one that "
        "runs (Trojan Source homoglyph function). The related location is the other "
        "spelling. Rename one of them.",
    ),
    "syntax-lookalike": (
        "Identifier letter that looks like punctuation (UTS #39 §4)",
        "a Restricted letter whose skeleton is ASCII punctuation other than quotes, "
        "touching an ASCII name",
        "A Restricted letter such as U+01C3 'ǃ' (looks like '!') inside an identifier "
        "makes 'x ǃ= y' an assignment to a name that reads as a comparison.",
    ),
    "declared-encoding": (
        "The file declares an encoding other than UTF-8",
        "a PEP 263 coding cookie, an XML declaration or an HTML meta charset naming "
        "another encoding",
        "A PEP 263 coding cookie, XML declaration or HTML meta charset names another "
        "encoding, so the file's bytes mean other characters than their UTF-8 reading: "
        "one finding, the bytes are not checked further. Convert the file to UTF-8 or "
        "pass --declared-encoding=allow to accept such files.",
    ),
    "binary": (
        "A file the gate takes for binary (--binary fail)",
        "a file whose name is of no known kind of text and whose first 8 KiB hold a NUL "
        "byte, or named as an archive or an image and not UTF-8",
        "Its name is of no known kind of text and its first 8 KiB hold a NUL byte (or, "
        "named as an archive or an image, bytes that are not UTF-8), so it is not read "
        "as text. Rename it to say what it is, or pass --binary check to read it.",
    ),
    "invalid-suppression": (
        "A suppression comment names a rule the gate does not have",
        "a `sanitizer: ignore[...]` comment naming an id that is not a rule of this page",
        "A typo in a suppression comment would silence nothing while its author believes "
        "the line checked and accepted. Name the rule by its id (this page), or remove the "
        "comment.",
    ),
    "no-byte-order-mark": (
        "UTF-16 or UTF-32 input without a byte order mark",
        "`--encoding utf-16` or `utf-32` (byte order from the BOM) on a file that starts with none",
        "The byte order is not guessed (CPython's utf-16 codec silently picks "
        "little-endian, and the other order reads as other characters). Name the byte "
        "order (utf-16le, utf-16be, ...) or add a byte order mark.",
    ),
    "not-json": (
        "A line of a JSON Lines file that is not JSON",
        "a non-blank line of a `.jsonl` or `.ndjson` file (or `--records jsonl`) that "
        "`json.loads` refuses, or nests too deeply for it",
        "Its strings cannot be read as its consumer reads them, so nothing in it is "
        "judged, and consumers differ on such a line (one skips it, another stops, a "
        "lenient parser reads what the gate did not). The lines after it are still "
        "checked. Fix or drop the record.",
    ),
}


def _words(rule_id: str) -> tuple[str, str, str]:
    """``(title, what, why)``: a category's words win over a decoding error's of the same
    id (``surrogate``), as SARIF has always shown them."""
    if rule_id in MEANINGS:
        description, members, rationale = MEANINGS[rule_id]
        return _sentence(description).rstrip("."), members, _sentence(rationale)
    if rule_id in _WORDS:
        return _WORDS[rule_id]
    for kind in ErrorKind:
        if kind.value == rule_id:
            why = f"{kind.rationale} {_FIX_BYTES}"
            return f"{_ILL}: {kind.description}", _sentence(kind.description), why
    unit = UnitErrorKind(rule_id)
    return f"{_ILL_WIDE}: {unit.description}", _sentence(unit.description), _WHY_WIDE


RULES: dict[str, Rule] = {
    rule_id: Rule(rule_id, checks, severity, *_words(rule_id), example, in_code, in_text)
    for rule_id, (checks, severity, example, in_code, in_text) in _TABLE.items()
}


def rule_for(kind: str) -> Rule:
    """The rule of ``kind`` (a generic one for a kind this registry does not have)."""
    rule = RULES.get(kind)
    if rule is None:
        words = kind.replace("-", " ")
        rule = Rule(kind, (), "7.0", f"Unicode finding: {words}", "", f"A character of "
                    f"category {words}.", "")  # fmt: skip
    return rule


def shown(example: str | bytes) -> str:
    """An example as the docs show it: a Python literal (a run of one character as
    ``"x" * n``), every character that does not show (controls, format characters,
    separators, marks alone) escaped."""
    if isinstance(example, bytes):
        return repr(example)
    import itertools

    import unicodedata2

    parts = []
    for ch, run in itertools.groupby(example):
        n = len(list(run))
        if ch in '\\"':
            text = "\\" + ch
        elif ch == " " or (ch.isprintable() and unicodedata2.category(ch)[0] not in "CMZ"):
            text = ch
        else:
            text = ascii(ch)[1:-1]
        if n >= 8:
            parts.append(f'" + "{text}" * {n} + "')
        else:
            parts.append(text * n)
    literal = '"' + "".join(parts) + '"'
    return literal.removeprefix('"" + ').removesuffix(' + ""') if example else '""'
