"""What each ``Category`` means, in words: the one text the CLI, the web problems and the
docs all show.

Per category: ``description``, a short phrase for a log line or a problem title;
``members``, which code points (or inputs) it holds; ``rationale``, why it matters,
citing the specification.  ``Category.description``, ``.members`` and ``.rationale`` read
this table; the rule registry (``sanitizer._rule_registry``: SARIF's rules and
docs/rules.md), ``sanitizer.web``'s problem titles and the categories table of
docs/profiles.md (``tools/gen_docs_tables.py``) are made from it.  It imports nothing, so
the CLI can describe a rule without loading the character tables.
"""

from __future__ import annotations

# value -> (description, members, rationale); every Category has a row (tests check it).
MEANINGS: dict[str, tuple[str, str, str]] = {
    "ill-formed": (
        "ill-formed UTF-8",
        "bytes that are not UTF-8: overlongs (`C0 AE` for '.'), encoded surrogates, "
        "> U+10FFFF, truncated sequences",
        'RFC 3629 §10, HOWTO §5.9.4: `2F C0 AE 2E 2F` passed "/../" filters in 2001. '
        "Each maximal subpart is one finding carrying the decoder's `Utf8Error`.",
    ),
    "too-long": (
        "value longer than the policy allows",
        "input over `max_bytes`, output over `max_code_points`",
        "Unbounded input is a denial of service (HOWTO §5.9.5). Checked before decoding "
        "and normalizing: an input over `max_bytes` gets this finding alone, even if it is "
        "also ill-formed.",
    ),
    "nul": (
        "NUL character, which truncates C strings",
        "U+0000",
        "It truncates C strings (RFC 3629 §10).",
    ),
    "line-break": (
        "line break, which splits headers and forges log lines",
        "LF, VT, FF, CR, NEL U+0085, LS U+2028, PS U+2029",
        "Mandatory breaks (UAX #14) split headers (CWE-113) and forge log lines (CWE-117). "
        "In source code NEL, LS and PS end a line for some languages and editors and not "
        "for others, so code can hide in what looks like a comment (UTS #55).",
    ),
    "control": (
        "control character, such as a terminal escape",
        "other C0 and C1 controls (not TAB)",
        "Controls inject terminal escapes (ESC, CSI U+009B) and hide text.",
    ),
    "path-separator": (
        "path separator",
        "`/`, `\\`",
        "A separator splits what should be one path segment.",
    ),
    "bidi-control": (
        "bidi embedding, override or isolate (Trojan Source)",
        "LRE RLE PDF LRO RLO U+202A..202E, LRI RLI FSI PDI U+2066..2069",
        "They reorder what is displayed (UAX #9): reviewers read other logic than the "
        'compiler (Trojan Source, CVE-2021-42574, UTS #55); "cod\\u202egnp.exe" shows as '
        '"codexe.png".',
    ),
    "bidi-mark": (
        "bidi mark",
        "ALM U+061C, LRM U+200E, RLM U+200F",
        "Invisible marks without scope (UAX #9 §2.6), legitimate in right-to-left text.",
    ),
    "tag": (
        "tag character, an invisible copy of ASCII",
        "U+E0000..E007F",
        "Invisible copies of ASCII smuggle text past reviewers and into LLM prompts "
        "(UTS #51 §2.8).",
    ),
    "variation-selector": (
        "variation selector",
        "U+FE00..FE0F, U+E0100..E01EF, Mongolian FVS",
        "256 invisible values smuggle bytes after an emoji or after any base they cannot "
        "apply to (UTS #37, UTS #51).",
    ),
    "bom": (
        "byte order mark",
        "U+FEFF",
        "An encoding signature (RFC 3629 §6) or a deprecated zero-width no-break space.",
    ),
    "joiner": (
        "zero-width joiner or non-joiner",
        "ZWNJ U+200C, ZWJ U+200D",
        "Invisible (Join_Control, UAX #31 §2.3), and needed in Persian, Indic scripts and "
        "emoji sequences.",
    ),
    "noncharacter": (
        "noncharacter",
        "U+FDD0..FDEF, U+xxFFFE/xxFFFF",
        "Reserved for internal use, not for interchange (Unicode §23.7).",
    ),
    "private-use": (
        "private-use character",
        "Co",
        "Its meaning is set only by private agreement.",
    ),
    "surrogate": (
        "lone surrogate",
        "U+D800..DFFF in a `str` (e.g. from `surrogateescape`)",
        "Not a scalar value: it cannot be encoded in UTF-8 (RFC 3629 §3).",
    ),
    "invisible": (
        "invisible character",
        "other Default_Ignorable_Code_Point: ZWSP, WJ, SHY, CGJ, invisible operators, "
        "Hangul fillers, reserved ignorables",
        'Hidden text: "admin" and "ad\\u200bmin" are two identifiers that look alike '
        "(HOWTO §5.9.5, UTS #55).",
    ),
    "format": (
        "format character",
        "other Cf: Arabic number signs, interlinear annotation U+FFF9..FFFB, Egyptian "
        "format controls",
        "A visible effect, rarely wanted in identifiers.",
    ),
    "unassigned": (
        "unassigned code point",
        "Cn in this Unicode version",
        "Its meaning is unknown; it may be assigned later.",
    ),
    "whitespace": (
        "whitespace",
        "other White_Space: TAB, SPACE, NBSP, U+1680, U+2000..200A, U+202F, U+205F, U+3000",
        "Spaces that look alike make names that look alike.",
    ),
    "combining-run": (
        "too many combining marks in a row",
        "more than `max_combining` marks (gc M) in a row",
        '"Zalgo" text; long runs are a denial of service for normalizers (UAX #15 §13, '
        "Stream-Safe: 30).",
    ),
    "dot-segment": (
        "'.' or '..' as a whole value",
        "the value is `.` or `..`, or its `also_check` form is",
        "A path step, not a name (RFC 3986 §3.3).",
    ),
    "empty": (
        "empty value",
        "nothing left (empty input, or everything stripped)",
        "An identifier or file name must have content.",
    ),
    "hidden-payload": (
        "invisible characters that carry hidden data",
        "a run of invisible characters that carries data, as `sanitizer.reveal` finds it: "
        "tag characters (also dressed as an emoji flag that is not RGI), variation "
        "selectors after any base (one byte each), bits on zero-width characters or bidi "
        "marks",
        'A language model reads what no reviewer sees (HOWTO §5.9.5, "ASCII '
        'smuggling"). Only REJECT, ALLOW or IGNORE: one finding per payload, saying '
        "what it spells.",
    ),
    "restricted": (
        "character not allowed in identifiers (UTS #39)",
        "a character of the output with Identifier_Status=Restricted (UTS #39 §3.1): "
        "symbols and emoji, `@` `+` `!` and most ASCII punctuation, compatibility variants "
        "(U+00B5 MICRO SIGN), technical, obsolete, uncommon and limited-use characters and "
        "scripts (U+01C3, Ogham, Cherokee)",
        "Outside the General Security Profile: rare enough that no real name needs them, "
        "and many look like something else.",
    ),
    "mixed-script": (
        "letters of scripts that do not belong together (UTS #39)",
        "the output's restriction level (UTS #39 §5.2, by scripts) is over "
        "`Policy.max_restriction_level` (default Highly Restrictive)",
        '"pаypal" with a Cyrillic а is the classic homograph attack: a second name that '
        "reads like the first.",
    ),
    "mixed-numbers": (
        "digits of more than one numbering system (UTS #39)",
        "decimal digits (gc Nd) of more than one system (§5.3)",
        'In "1২3" the Bengali ২ looks like 2 (and ০ like 0).',
    ),
    "hidden-overlay": (
        "marks that cannot be seen or counted (UTS #39)",
        "in a combining sequence of the output, on its NFD (§5.4): U+0307 hidden by its "
        "base (ICU's rule: Soft_Dotted letters such as i and j, l, ı, ȷ, and their "
        "look-alikes such as 1 and I), the same nonspacing mark twice in a row, more than "
        "4 nonspacing marks (Mn, Me) in a row",
        'Marks a reader cannot see or count: "i\\u0307" looks like "i".',
    ),
}
