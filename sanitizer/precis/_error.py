"""``PrecisError``: a string a PRECIS profile refuses, with precis-i18n's reason and a
message that says where and why.

The message names the one refused character (``U+202E RIGHT-TO-LEFT OVERRIDE at index
3``), never the whole value: an OpaqueString is a password.
"""

from __future__ import annotations

from .._charnames import describe
from ._lookups import UNICODE_VERSION
from ._rules import bidi_violation

# precis-i18n's reason (after "DISALLOWED/") -> why, citing the rule.
WHY: dict[str, str] = {
    "empty": "nothing is left after the profile's rules, and an empty string is refused",
    "not_idempotent": "applying the profile's rules again would change the result "
    "(RFC 8264 §7: enforcement must be idempotent)",
    "bidi_rule": "breaks the Bidi Rule (RFC 5893 §2), which applies because the string has "
    "right-to-left characters",
    "unassigned": f"is unassigned in Unicode {UNICODE_VERSION} (RFC 8264 §9.10)",
    "controls": "is a control character (RFC 8264 §9.12)",
    "precis_ignorable_properties": "is a default-ignorable code point or a noncharacter "
    "(RFC 8264 §9.13)",
    "old_hangul_jamo": "is a conjoining Hangul jamo; use precomposed syllables (RFC 8264 §9.9)",
    "exceptions": "is DISALLOWED by the exceptions of RFC 5892 §2.6",
    "has_compat": "has a compatibility equivalent (NFKC changes it), which an identifier "
    "may not contain (RFC 8264 §9.17)",
    "other_letter_digits": "is a titlecase letter, letter number, other number or enclosing "
    "mark, which an identifier may not contain (RFC 8264 §9.18)",
    "spaces": "is a space, which an identifier may not contain (RFC 8264 §9.14)",
    "symbols": "is a symbol, which an identifier may not contain (RFC 8264 §9.15)",
    "punctuation": "is punctuation, which an identifier may not contain (RFC 8264 §9.16)",
    "other": "is in no category PRECIS allows: a format, private-use or surrogate code point, "
    "a line or paragraph separator (RFC 8264 §8)",
    "zero_width_nonjoiner": "is allowed only after a virama or between joining letters "
    "(RFC 5892 Appendix A.1)",
    "zero_width_joiner": "is allowed only after a virama (RFC 5892 Appendix A.2)",
    "middle_dot": "is allowed only between two 'l' (RFC 5892 Appendix A.3)",
    "greek_keraia": "is allowed only before a Greek character (RFC 5892 Appendix A.4)",
    "hebrew_punctuation": "is allowed only after a Hebrew character (RFC 5892 Appendix A.5, A.6)",
    "katakana_middle_dot": "is allowed only in a string with Hiragana, Katakana or Han "
    "(RFC 5892 Appendix A.7)",
    "arabic_indic": "cannot be mixed with Extended Arabic-Indic digits (RFC 5892 Appendix A.8)",
    "extended_arabic_indic": "cannot be mixed with Arabic-Indic digits (RFC 5892 Appendix A.9)",
}


class PrecisError(ValueError):
    """A string the profile ``profile`` refuses.

    ``reason`` is precis-i18n's, e.g. ``"DISALLOWED/controls"``; ``string`` is the string
    the failing rule read (the input after the profile's mappings; the input itself when
    they changed nothing) and ``index`` the position in it of ``code_point``, the
    character refused (both None when the whole string is: ``empty``,
    ``not_idempotent``).  ``str(error)`` says where and why.

    Made as ``PrecisError(profile, reason, string, index, mapped)`` (``mapped``: whether
    ``string`` differs from the input), by Python and by the C extension alike; the
    message is written when read, so a refusal costs little (a login form sees many)."""

    __module__ = "sanitizer.precis"  # its public home, as tracebacks and pickles name it

    args: tuple[str, str, str, int | None, bool]

    @property
    def profile(self) -> str:
        """The name of the profile that refused the string."""
        return self.args[0]

    @property
    def reason(self) -> str:
        """precis-i18n's reason: "DISALLOWED/" and the rule ("DISALLOWED/bidi_rule")."""
        return self.args[1]

    @property
    def string(self) -> str:
        """The string the failing rule read (after the profile's mappings)."""
        return self.args[2]

    @property
    def index(self) -> int | None:
        """Where in ``string`` the refused character is; None for the whole string."""
        return self.args[3]

    @property
    def code_point(self) -> int | None:
        """The refused character, or None when the whole string is refused."""
        index = self.args[3]
        return None if index is None else ord(self.args[2][index])

    def __str__(self) -> str:
        if len(self.args) != 5:  # made by hand with other arguments
            return super().__str__()
        profile, reason, string, index, mapped = self.args
        rule = reason.removeprefix("DISALLOWED/")
        why = WHY.get(rule, rule)
        if rule == "bidi_rule" and string:
            violation = bidi_violation(string)
            if violation is not None:
                why = f"{why}: {violation[1]}"
        if index is None:
            return f"{profile}: {why} [{reason}]"
        where = f"at index {index}" + (" after the profile's mappings" if mapped else "")
        return f"{profile}: {describe(ord(string[index]))} {where} {why} [{reason}]"

    def __repr__(self) -> str:
        return f"PrecisError({str(self)!r})"
