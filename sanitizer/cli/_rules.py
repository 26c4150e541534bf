"""The rules of SARIF output: what each kind of finding means, and how severe it is.

A finding's kind is its rule id: the ``ErrorKind`` of ill-formed UTF-8 (``overlong``,
``surrogate``, ...), the policy ``Category`` of a character (``bidi-control``, ``tag``,
...), or a kind of the file or of the source gate (``declared-encoding``, ``confusable``).
Code scanning shows a rule's description beside every result.  The words come from where
each kind is defined (``ErrorKind.description``/``.rationale`` and
``sanitizer._category_meanings``, which the web problems and the docs also use); this
module adds only the SARIF severities and the kinds defined here.  A kind without an
entry (a category added later) still gets a rule, with a generic text.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._category_meanings import MEANINGS
from .._errors import ErrorKind


@dataclass(frozen=True)
class Rule:
    id: str
    short: str  # one line (SARIF shortDescription)
    help: str  # why it matters and what to do (SARIF help / fullDescription)
    severity: str = "7.0"  # GitHub's security-severity: 7.0-8.9 high, 4.0-6.9 medium


_ILL = "Ill-formed UTF-8 (RFC 3629 §3 forbids decoding it)"
_FIX_BYTES = "Re-encode the file as UTF-8, or remove the bytes."

# GitHub's security-severity of each kind (default 7.0).
SEVERITY: dict[str, str] = {
    "overlong": "8.0",
    "truncated": "5.0",
    "incomplete": "5.0",
    "declared-encoding": "4.0",
    "too-long": "4.0",
    "binary": "4.0",
    "nul": "6.0",
    "line-break": "4.0",
    "control": "6.0",
    "path-separator": "4.0",
    "bidi-control": "8.0",
    "bidi-mark": "3.0",
    "tag": "8.0",
    "bom": "3.0",
    "joiner": "3.0",
    "noncharacter": "4.0",
    "private-use": "3.0",
    "format": "3.0",
    "unassigned": "3.0",
    "whitespace": "3.0",
    "combining-run": "5.0",
    "confusable": "8.0",
    "syntax-lookalike": "8.0",
    "dot-segment": "6.0",
    "empty": "3.0",
    "hidden-payload": "8.0",
}


def _sentence(text: str) -> str:
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def _rule(kind: str, short: str, help: str) -> Rule:
    return Rule(kind, short, help, SEVERITY.get(kind, "7.0"))


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        *(
            _rule(k.value, f"{_ILL}: {k.description}", f"{k.rationale} {_FIX_BYTES}")
            for k in ErrorKind
        ),
        *(
            _rule(kind, _sentence(description).rstrip("."), _sentence(rationale))
            for kind, (description, _, rationale) in MEANINGS.items()
        ),
        _rule(
            "declared-encoding",
            "The file declares an encoding other than UTF-8",
            "A PEP 263 coding cookie, XML declaration or HTML meta charset names another "
            "encoding, so the file's bytes mean other characters than their UTF-8 reading: "
            "one finding, the bytes are not checked further. Convert the file to UTF-8 or "
            "pass --declared-encoding=allow to accept such files.",
        ),
        _rule(
            "binary",
            "A file the gate takes for binary (--binary fail)",
            "Its name is of no known kind of text and its first 8 KiB hold a NUL byte (or, "
            "named as an archive or an image, bytes that are not UTF-8), so it is not read "
            "as text. Rename it to say what it is, or pass --binary check to read it.",
        ),
        _rule(
            "confusable",
            "Identifier that looks like another one in the same file (UTS #39 §4)",
            "Two different identifiers of the file have the same UTS #39 skeleton, so a "
            "reader takes one for the other: a function called in review is not the one that "
            "runs (Trojan Source homoglyph function). The related location is the other "
            "spelling. Rename one of them.",
        ),
        _rule(
            "syntax-lookalike",
            "Identifier letter that looks like punctuation (UTS #39 §4)",
            "A Restricted letter such as U+01C3 'ǃ' (looks like '!') inside an identifier "
            "makes 'x ǃ= y' an assignment to a name that reads as a comparison.",
        ),
    )
}


def rule_for(kind: str) -> Rule:
    """The rule of ``kind`` (a generic one for kinds this table does not describe)."""
    rule = RULES.get(kind)
    if rule is None:
        words = kind.replace("-", " ")
        rule = Rule(kind, f"Unicode finding: {words}", f"A character of category {words}.")
    return rule
