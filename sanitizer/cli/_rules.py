"""What each kind of finding means, in words: the rules of SARIF output and ``--help``.

A finding's kind is its rule id: the ``ErrorKind`` of ill-formed UTF-8 (``overlong``,
``surrogate``, ...), the policy ``Category`` of a character (``bidi-control``, ``tag``,
...), or a file-level kind (``declared-encoding``).  Code scanning shows a rule's
description beside every result, so each says what the finding is and why it matters,
citing the specification.  A kind without an entry (a category added later) still gets a
rule, with a generic text.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    id: str
    short: str  # one line (SARIF shortDescription)
    help: str  # why it matters and what to do (SARIF help / fullDescription)
    severity: str = "7.0"  # GitHub's security-severity: 7.0-8.9 high, 4.0-6.9 medium


_ILL = "Ill-formed UTF-8 (RFC 3629 §3 forbids decoding it)"
_FIX_BYTES = (
    "Re-encode the file as UTF-8, or remove the bytes. Lax decoders read such bytes as "
    "characters a check never saw (RFC 3629 §10)."
)

RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule(
            "unexpected-continuation",
            f"{_ILL}: a continuation byte with no lead byte",
            _FIX_BYTES,
        ),
        Rule("invalid-byte", f"{_ILL}: byte 0xFE or 0xFF", _FIX_BYTES),
        Rule(
            "overlong",
            f"{_ILL}: an overlong encoding",
            "An overlong form smuggles a character such as '/' or NUL past a check on its "
            "shortest form (RFC 3629 §10, CVE-2000-0884). " + _FIX_BYTES,
            "8.0",
        ),
        Rule(
            "surrogate",
            f"{_ILL}: an encoded surrogate (CESU-8/WTF-8)",
            "Surrogates are not scalar values (RFC 3629 §3). " + _FIX_BYTES,
        ),
        Rule("out-of-range", f"{_ILL}: beyond U+10FFFF", _FIX_BYTES),
        Rule("truncated", f"{_ILL}: a sequence cut short", _FIX_BYTES, "5.0"),
        Rule("incomplete", f"{_ILL}: a sequence cut short by the end", _FIX_BYTES, "5.0"),
        Rule(
            "declared-encoding",
            "The file declares an encoding other than UTF-8",
            "A PEP 263 coding cookie, XML declaration or HTML meta charset names another "
            "encoding, so the file's bytes mean other characters than their UTF-8 reading: "
            "one finding, the bytes are not checked further. Convert the file to UTF-8 or "
            "pass --declared-encoding=allow to accept such files.",
            "4.0",
        ),
        Rule(
            "ill-formed",
            _ILL,
            _FIX_BYTES,
        ),
        Rule(
            "too-long",
            "Over the size limit",
            "Larger than the limit (--max-bytes, or the profile's): the policy was not applied.",
            "4.0",
        ),
        Rule("nul", "NUL character", "U+0000 truncates C strings (RFC 3629 §10).", "6.0"),
        Rule(
            "line-break",
            "Line break",
            "A mandatory break (UAX #14) where none may be; in source code (SOURCE), NEL, LS "
            "or PS, where some languages and editors end a line and others do not, so code "
            "can hide in what looks like a comment (UTS #55).",
            "4.0",
        ),
        Rule(
            "control",
            "Control character",
            "C0/C1 controls such as ESC send terminal escapes and hide text.",
            "6.0",
        ),
        Rule("path-separator", "Path separator", "'/' or '\\' inside one path segment.", "4.0"),
        Rule(
            "bidi-control",
            "Bidirectional formatting character (Trojan Source)",
            "Embeddings, overrides and isolates reorder how code is displayed, so reviewers "
            "read other logic than the compiler (CVE-2021-42574, UAX #9, UTS #55).",
            "8.0",
        ),
        Rule(
            "bidi-mark",
            "Bidi mark (LRM, RLM, ALM)",
            "Marks without scope; legitimate in right-to-left text (UAX #9 §2.6).",
            "3.0",
        ),
        Rule(
            "tag",
            "Tag character",
            "U+E0000..E007F are invisible copies of ASCII, used to smuggle text (UTS #51 §2.8).",
            "8.0",
        ),
        Rule(
            "variation-selector",
            "Variation selector",
            "A selector that follows no base it can apply to carries invisible data "
            "(UTS #37, UTS #51).",
            "7.0",
        ),
        Rule("bom", "Byte order mark", "U+FEFF (RFC 3629 §6).", "3.0"),
        Rule("joiner", "Zero-width joiner or non-joiner", "Join_Control (UAX #31 §2.3).", "3.0"),
        Rule("noncharacter", "Noncharacter", "Not for interchange (Unicode §23.7).", "4.0"),
        Rule("private-use", "Private-use character", "Meaning by private agreement only.", "3.0"),
        Rule(
            "invisible",
            "Invisible character",
            "Default-ignorable characters (ZWSP, WJ, SHY, fillers) hide text and make two "
            "different identifiers look alike (UTS #55).",
            "7.0",
        ),
        Rule("format", "Format character", "Other Cf characters.", "3.0"),
        Rule("unassigned", "Unassigned code point", "Not assigned in this Unicode version.", "3.0"),
        Rule("whitespace", "Whitespace other than SPACE", "Other White_Space characters.", "3.0"),
        Rule(
            "combining-run",
            "Long run of combining marks",
            "More marks in a row than the limit (UAX #15 §13 Stream-Safe: 30).",
            "5.0",
        ),
        Rule(
            "mixed-script",
            "Identifier mixing scripts (UTS #39 §5.2)",
            "An identifier whose scripts go beyond the restriction level (default Highly "
            "Restrictive: one script, or Latin with Chinese, Japanese or Korean). A Cyrillic "
            "'а' in 'isАdmin' makes a second name that reads like the first (Trojan Source "
            "homoglyph attack, UTS #55). Spell it in one script.",
            "7.0",
        ),
        Rule(
            "confusable",
            "Identifier that looks like another one in the same file (UTS #39 §4)",
            "Two different identifiers of the file have the same UTS #39 skeleton, so a "
            "reader takes one for the other: a function called in review is not the one that "
            "runs (Trojan Source homoglyph function). The related location is the other "
            "spelling. Rename one of them.",
            "8.0",
        ),
        Rule(
            "syntax-lookalike",
            "Identifier letter that looks like punctuation (UTS #39 §4)",
            "A Restricted letter such as U+01C3 'ǃ' (looks like '!') inside an identifier "
            "makes 'x ǃ= y' an assignment to a name that reads as a comparison.",
            "8.0",
        ),
        Rule("dot-segment", "'.' or '..'", "A path segment that walks the tree (RFC 3986).", "6.0"),
        Rule("empty", "Empty value", "Nothing left after the policy.", "3.0"),
    )
}


def rule_for(kind: str) -> Rule:
    """The rule of ``kind`` (a generic one for kinds this table does not describe)."""
    rule = RULES.get(kind)
    if rule is None:
        words = kind.replace("-", " ")
        rule = Rule(kind, f"Unicode finding: {words}", f"A character of category {words}.")
    return rule
