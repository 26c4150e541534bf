"""Ready-made policies for the places untrusted text usually goes.

Each profile is a ``Policy`` value; derive a variant in one line
(``TEXT.with_actions(CONTROL=Action.STRIP)``, ``IDENTIFIER.replace(max_code_points=32)``).
The reasons for every choice are in the docstrings below and in docs/profiles.md.
This module imports only the policy model, so the policy engine can use ``TEXT`` as its
default; ``sanitizer.profiles`` is the same module under its public name.
"""

from __future__ import annotations

from .._arguments import exact_str
from .._categories import Category as C
from ._model import Action as A
from ._model import Policy

# Free text (comments, messages, descriptions).  Ordinary writing in any script passes:
# tabs, every line break, every space and unassigned code points (characters of a newer
# Unicode version, such as new emoji) are kept silently; ZWJ/ZWNJ outside emoji (Persian,
# Indic scripts), bidi marks (LRM/RLM/ALM), private use and Cf format characters are kept
# and reported.  Refused: NUL and other controls (terminal escapes,
# C-string truncation; RFC 3629 §10), bidi embeddings/overrides/isolates (Trojan Source,
# CVE-2021-42574), tag characters outside emoji flag sequences (ASCII smuggling), lone
# surrogates, ill-formed UTF-8, runs of more than 30 combining marks (UAX #15 §13).
# Stripped: other invisibles (ZWSP, WJ, SHY, ...; HOWTO §5.9.5: hidden text), variation
# selectors that follow no possible base (emoji-selector smuggling), a BOM.
# Replaced: noncharacters (not for interchange).  Output is NFC (W3C Charmod-Norm).
TEXT = Policy(
    name="text",
    actions={
        C.NUL: A.REJECT,
        C.CONTROL: A.REJECT,
        C.LINE_BREAK: A.IGNORE,
        C.WHITESPACE: A.IGNORE,
        C.PATH_SEPARATOR: A.IGNORE,
        C.BIDI_CONTROL: A.REJECT,
        C.BIDI_MARK: A.ALLOW,
        C.TAG: A.REJECT,
        C.VARIATION_SELECTOR: A.STRIP,
        C.BOM: A.STRIP,
        C.JOINER: A.ALLOW,
        C.NONCHARACTER: A.REPLACE,
        C.PRIVATE_USE: A.ALLOW,
        C.SURROGATE: A.REJECT,
        C.INVISIBLE: A.STRIP,
        C.FORMAT: A.ALLOW,
        C.UNASSIGNED: A.IGNORE,  # may be characters of a newer Unicode (new emoji)
        C.COMBINING_RUN: A.REJECT,
        C.ILL_FORMED: A.REJECT,
    },
    max_combining=30,
    normalization="NFC",
    allow_sequences=True,
    description="free text: any script, emoji, tabs and line breaks",
)

# One line of text (HTTP header values, display names, subjects, log fields): TEXT with
# every line break refused -- CR, LF, VT, FF, NEL, LS, PS (UAX #14 mandatory breaks) --
# because a break there splits a header or forges a log line (CWE-113, CWE-117).
SINGLE_LINE = TEXT.replace(
    name="single-line",
    description="one line of text: TEXT without line breaks of any kind",
).with_actions(LINE_BREAK=A.REJECT)

# Usernames, handles, tags, keys: something people compare by eye.  NFC (UAX #15), and
# nothing invisible or ambiguous: no whitespace (not even SPACE), controls, invisibles,
# joiners, bidi controls or marks, tags, variation selectors, noncharacters, private use,
# unassigned code points, BOM or Cf.  And what UTS #39 says identifiers need, judged on
# the output: only Identifier_Status=Allowed characters (§3.1: no emoji, symbols, '@',
# obsolete or limited-use scripts), a script mix no wider than Highly Restrictive (§5.2:
# one script, or Latin with Japanese, Korean or Chinese; not Latin with Cyrillic), digits
# of one system (§5.3), no hidden or stacked marks (§5.4).  At most 64 code points, 256
# bytes, 8 marks in a row.  Compare with identifiers_equal(..., form="NFKC_CASEFOLD") for
# case-insensitive uniqueness, and sanitizer.identifier_key for look-alikes.
IDENTIFIER = Policy(
    name="identifier",
    actions={
        **dict.fromkeys(
            (
                C.NUL,
                C.CONTROL,
                C.LINE_BREAK,
                C.WHITESPACE,
                C.BIDI_CONTROL,
                C.BIDI_MARK,
                C.TAG,
                C.VARIATION_SELECTOR,
                C.BOM,
                C.JOINER,
                C.NONCHARACTER,
                C.PRIVATE_USE,
                C.SURROGATE,
                C.INVISIBLE,
                C.FORMAT,
                C.UNASSIGNED,
                C.COMBINING_RUN,
                C.EMPTY,
                C.RESTRICTED,
                C.MIXED_SCRIPT,
                C.MIXED_NUMBERS,
                C.HIDDEN_OVERLAY,
            ),
            A.REJECT,
        ),
    },
    max_bytes=256,
    max_code_points=64,
    max_combining=8,
    normalization="NFC",
    description="usernames and handles: NFC, nothing invisible, no whitespace, UTS #39",
)

# One path segment (an uploaded file's name, an archive member's last component).
# Refused: '/', '\\', NUL, controls and line breaks (RFC 3629 §10's "/../" attack), names
# that are '.', '..' or empty, and names whose NFKC form is any of those or contains a
# separator (U+2025 TWO DOT LEADER, U+FF0E FULLWIDTH FULL STOP, U+FF0F FULLWIDTH SOLIDUS:
# CWE-180, some file systems and later steps apply compatibility mappings).  Also refused:
# bidi controls (name spoofing such as "exe.txt" shown for "txt.exe"), tags, noncharacters,
# lone surrogates.  Invisibles are refused too (two names that look the same).  Spaces,
# dot-files (.bashrc) and names in any script pass; output is NFC.
FILENAME = Policy(
    name="filename",
    actions={
        **dict.fromkeys(
            (
                C.NUL,
                C.CONTROL,
                C.LINE_BREAK,
                C.PATH_SEPARATOR,
                C.BIDI_CONTROL,
                C.BIDI_MARK,
                C.TAG,
                C.BOM,
                C.JOINER,
                C.NONCHARACTER,
                C.SURROGATE,
                C.INVISIBLE,
                C.COMBINING_RUN,
                C.DOT_SEGMENT,
                C.EMPTY,
            ),
            A.REJECT,
        ),
        C.VARIATION_SELECTOR: A.STRIP,
        C.PRIVATE_USE: A.ALLOW,
        C.FORMAT: A.ALLOW,
        C.UNASSIGNED: A.ALLOW,
    },
    joiner_contexts=True,  # ZWNJ, ZWJ where a script needs them (RFC 5892 A.1/A.2)
    max_bytes=255,  # NAME_MAX on Linux/ext4 and most Unix file systems
    max_combining=8,
    normalization="NFC",
    also_check="NFKC",
    allow_sequences=True,
    description="one path segment: no separators, no '.'/'..' even after NFKC",
)

# Source code (UTS #55, Unicode Source Code Handling), for
# sanitizer.check_source and `sanitizer check --policy SOURCE`, which judge by context
# what one character cannot tell: bidi controls are refused here, and check_source
# allows those paired within their line (gcc -Wbidi-chars=unpaired); joiners likewise
# where UAX #31 §2.3 allows them; max_restriction_level applies per identifier there.
# Refused: ill-formed UTF-8, NUL and controls other than TAB/LF/CR/VT/FF, tags and
# variation selectors outside emoji sequences, invisibles (default ignorables: ZWSP,
# WJ, SHY, Hangul fillers), a BOM after the start, lone surrogates, > 30 marks in a row.
# Bidi marks (LRM, RLM, ALM: recommended for RTL literals by UTS #55), whitespace,
# private use and unassigned code points are kept silently; noncharacters and other
# Cf are reported.  No normalization: a gate reports, it does not rewrite.
SOURCE = TEXT.with_actions(
    BIDI_MARK=A.IGNORE,
    VARIATION_SELECTOR=A.REJECT,
    BOM=A.REJECT,
    JOINER=A.REJECT,
    NONCHARACTER=A.ALLOW,
    PRIVATE_USE=A.IGNORE,
    INVISIBLE=A.REJECT,
).replace(
    name="source",
    normalization=None,
    description="source code (UTS #55): Trojan Source, invisibles, look-alike identifiers",
)

# Text headed to a language model (a prompt, a document it will read, a tool's output it
# will be shown): TEXT, and every hidden payload refused (HIDDEN_PAYLOAD: sanitizer.reveal
# -- tag characters, also dressed as a flag that is not RGI; variation selectors after
# any base; bits on zero-width characters or bidi marks, in a run or one after each word
# of a stretch, which TEXT keeps since joiners and marks belong in Persian, Indic and
# Arabic text; interlinear annotations, which some renderers do not show).  Bits in
# which space character stands in a gap, and trailing whitespace, are reveal's only
# (docs/reveal.md: a policy's C pass does not stop at spaces).  A model reads what a person does
# not see (HOWTO §5.9.5), so a payload is refused, never silently passed or stripped, and
# the refusal says what it spelled.  Refused too, as in TEXT: bidi controls (Trojan
# Source), controls, tags outside RGI flags.  What passes: every script, joiners inside
# words, single bidi marks, emoji ZWJ/keycap/skin-tone/RGI flag sequences, registered
# variation sequences (standardized, emoji presentation, ideographic: the IVD, UTS #37),
# Mongolian FVS.  ZWSP is stripped as in TEXT, also between words of
# Thai, Lao, Khmer and Myanmar, where it is a line-break hint: the words read the same
# without it, and a model tokenizes unspaced text of these scripts anyway; a run of ZWSP
# with another invisible that carries bits is refused instead.
PROMPT = TEXT.with_actions(HIDDEN_PAYLOAD=A.REJECT).replace(
    name="prompt",
    description="text for a language model: TEXT, and every hidden payload refused",
)

PROFILES: dict[str, Policy] = {
    "text": TEXT,
    "single-line": SINGLE_LINE,
    "identifier": IDENTIFIER,
    "filename": FILENAME,
    "source": SOURCE,
    "prompt": PROMPT,
}
NAMES: tuple[str, ...] = tuple(PROFILES)


def get(name: str) -> Policy:
    """The profile called ``name`` (case-insensitive; '_' and '-' are the same)."""
    name = exact_str(name, "name", "profiles.get")
    key = name.strip().lower().replace("_", "-")
    try:
        return PROFILES[key]
    except KeyError:
        raise ValueError(
            f"profiles.get() argument 'name': unknown profile {name!r}; "
            f"choose one of: {', '.join(NAMES)}"
        ) from None


__all__ = [
    "FILENAME",
    "IDENTIFIER",
    "NAMES",
    "PROFILES",
    "PROMPT",
    "SINGLE_LINE",
    "SOURCE",
    "TEXT",
    "get",
]
