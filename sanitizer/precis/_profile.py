"""The PRECIS profiles: RFC 8265 (UsernameCaseMapped, UsernameCasePreserved, OpaqueString),
RFC 8266 (NicknameCaseMapped, NicknameCasePreserved) and the two string classes of
RFC 8264 used alone (IdentifierClass, FreeFormClass), each a ``Profile``.

``enforce`` follows RFC 8264 §7 as precis-i18n does (the reference the tests compare with):
the five rules in order (width, additional mapping, case mapping, normalization,
directionality), the Nickname rules applied twice (RFC 8266 §2.4: they are not
idempotent in one pass), a check that one more pass changes nothing, an empty result
refused, then the string class's per-character rule (``_rules.first_refused``).

Speed: most strings need no step-by-step work.  With the C extension, ``enforce`` is
``speedups.precis_enforce`` (sanitizer/_native_src/precis.c), which hands what it does
not decide to ``_enforce_py``.  In Python, ASCII takes a few ``str`` methods; other text
is mapped in one call (width, spaces and case composed, ``_mapping.composed``) and
normalized, then one regular expression decides whether the result is final: every
character allowed by the string class without a context rule, and none that a second
pass would change; a refusal is found by another.  Anything else (U+03A3 with its
Final_Sigma context, a result a second pass would change) takes ``_enforce_exact``, the
rules one by one, which is also what the fast paths and the C path are tested against.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from .._categories import char_class, unicode_normalize
from .._decoder import decode
from .._native import speedups
from . import _lookups, _mapping, _rules
from ._error import PrecisError
from ._lookups import FREE_PVAL, PVALID, Ranges

IDENTIFIER_CLASS, FREEFORM_CLASS = "IdentifierClass", "FreeformClass"  # RFC 8264 §4.2, §4.3
_ALLOWED = {
    IDENTIFIER_CLASS: frozenset({PVALID}),
    FREEFORM_CLASS: frozenset({PVALID, FREE_PVAL}),
}
_MULTIPLE_SPACES = re.compile("  +")
_EMOJI_AND_CJK = ((0x1F000, 0x1FAFF), (0x20000, 0x3FFFF))  # astral ranges tried first


def _atom(ranges: Ranges) -> str:
    """A regex matching one code point of ``ranges``, fast for every input character.

    ``re`` compiles the BMP part of a class to a bitmap but tests its supplementary ranges
    one by one, in the order written, for every character the bitmap refuses (BMP ones
    too).  So the BMP part is a class of its own, and the supplementary part is tried only
    for a supplementary character, the likely ranges (emoji, CJK) first."""
    bmp = [(lo, min(hi, 0xFFFF)) for lo, hi in ranges if lo <= 0xFFFF]
    astral = [(max(lo, 0x10000), hi) for lo, hi in ranges if hi > 0xFFFF]

    def likely(r: tuple[int, int]) -> int:
        hits = [i for i, (a, b) in enumerate(_EMOJI_AND_CJK) if r[0] <= b and a <= r[1]]
        return hits[0] if hits else len(_EMOJI_AND_CJK)

    astral.sort(key=lambda r: (likely(r), r))
    parts = [f"[{char_class(bmp)}]"] if bmp else []
    if astral:
        parts.append(f"(?=[{char_class([(0x10000, 0x10FFFF)])}])[{char_class(astral)}]")
    if not parts:
        return "(?!)"
    return parts[0] if len(parts) == 1 else f"(?:{'|'.join(parts)})"


class Profile:
    """A PRECIS profile: ``enforce(s)`` gives the string to store and compare, or raises
    ``PrecisError``; ``compare(a, b)`` says whether two strings are the same under it."""

    def __init__(
        self,
        name: str,
        *,
        base: str,
        width: bool = False,
        additional: str | None = None,
        case: str | None = None,
        form: str | None = None,
        bidi: bool = False,
    ) -> None:
        self._name = name
        self.base = base  # "IdentifierClass" or "FreeformClass" (RFC 8264 §4)
        self._width = width  # RFC 8265 §3.3.1
        self._additional = additional  # None, "spaces" (RFC 8265 §4.2.1), "nickname" (8266)
        self._case = case  # None, "lower" (toLowerCase) or "fold" (toCasefold)
        self._form = form  # None, "NFC" or "NFKC"
        self._bidi = bidi  # RFC 5893 §2, for strings with right-to-left characters
        self._twice = additional == "nickname"  # RFC 8266 §2.4
        self._fast: Callable[[str], str | None] | None = None
        self._map: tuple[dict[int, str], Callable[[str], str] | None] | None = None
        self._enforcer: Callable[[str | bytes], str] | None = None

    @property
    def name(self) -> str:
        """The profile's name, as precis-i18n spells it ("UsernameCaseMapped")."""
        return self._name

    def __repr__(self) -> str:
        return f"<PRECIS profile {self._name}>"

    def __reduce__(self) -> tuple[object, ...]:
        return (get_profile, (self._name,))

    # -- the public API ----------------------------------------------------------------
    def enforce(self, s: str | bytes) -> str:
        """``s`` as the profile stores and compares it (RFC 8264 §7), or ``PrecisError``.

        ``s`` is a str, or bytes read as UTF-8 strictly (``sanitizer.decode``: ill-formed
        bytes raise ``Utf8Error``, a ValueError that is not a PrecisError)."""
        # From the first call on, ``profile.enforce`` is the C function itself when the
        # extension is built (an instance attribute: no Python frame per call), else the
        # Python path; a method bound before that first call delegates to the same.
        enforce = self._enforcer
        if enforce is None:
            enforce = self._enforcer = self._native() or self._enforce_py
            self.__dict__["enforce"] = enforce
        return enforce(s)

    def _enforce_py(self, s: str | bytes) -> str:
        """``enforce`` in Python: the C extension's twin, and where it hands what it does
        not decide itself."""
        if type(s) is not str:
            s = self._text(s, "s", "enforce")
        if s.isascii() and (out := self._ascii(s)) is not None:
            return out
        if (out := (self._fast or self._compile())(s)) is not None:
            return out
        return self._enforce_exact(s)

    def compare(self, a: str | bytes, b: str | bytes) -> bool:
        """Whether ``a`` and ``b`` are the same string under this profile: both enforced,
        then equal (RFC 8264 §7).  A string the profile refuses equals nothing."""
        if type(a) is not str:
            a = self._text(a, "a", "compare")
        if type(b) is not str:
            b = self._text(b, "b", "compare")
        try:
            return self.enforce(a) == self.enforce(b)
        except PrecisError:
            return False

    def _text(self, value: object, name: str, where: str) -> str:
        if isinstance(value, str):
            return str(value)  # a subclass of str: its plain value
        if isinstance(value, bytes):  # as precis-i18n: bytes, not bytearray or memoryview
            return decode(bytes(value))
        raise TypeError(
            f"{self._name}.{where}() argument '{name}' must be str or bytes, "
            f"not {type(value).__name__}"
        )

    # -- the rules one by one (the reference for the fast paths) -------------------------
    def _enforce_exact(self, s: str) -> str:
        if self._form is None:  # a string class alone: no rules but its own (RFC 8264 §4)
            self._check(s, s)
            return s
        t = self._prepare(s, s)
        if self._twice:
            t = self._prepare(t, s)
        if self._prepare(t, s) != t:
            raise _refusal(self._name, "not_idempotent", t, None, s)
        if not t:
            raise _refusal(self._name, "empty", t, None, s)
        self._check(t, s)
        return t

    def _prepare(self, s: str, original: str) -> str:
        """One pass of the five rules (RFC 8264 §7); the directionality rule raises."""
        t = _mapping.width_map(s) if self._width else s
        if self._additional == "spaces":
            t = _mapping.map_spaces(t)
        elif self._additional == "nickname":
            t = _mapping.nickname_spaces(t)
        if self._case is not None:
            t = _mapping.CASE_MAPS[self._case](t)
        if self._form is not None:
            t = _mapping.normalize(self._form, t)
        if self._bidi and _rules.has_rtl(t):
            violation = _rules.bidi_violation(t)
            if violation is not None:
                raise _refusal(self._name, "bidi_rule", t, violation[0], original)
        return t

    def _check(self, t: str, original: str) -> None:
        refused = _rules.first_refused(t, _ALLOWED[self.base])
        if refused is not None:
            index, reason = refused
            raise _refusal(self._name, reason, t, index, original)

    # -- fast paths ------------------------------------------------------------------------
    def _ascii(self, s: str) -> str | None:
        """ASCII: no width, space or Final_Sigma mapping, normalization or bidi to do;
        0x21..0x7E are PVALID and U+0020 FREE_PVAL (RFC 8264 §9.11, §9.14).  The result,
        or None when the exact path must decide (to refuse)."""
        t = s
        if self._twice:
            t = t.strip(" ")
            if "  " in t:
                t = _MULTIPLE_SPACES.sub(" ", t)
        if self._case is not None:
            t = t.lower()
        if t.isprintable() and (self.base == FREEFORM_CLASS or " " not in t):
            if t or self._form is None:
                return t
        return None

    def _mapping(self) -> tuple[dict[int, str], Callable[[str], str] | None]:
        """The composed per-character mappings of the profile, and a function applying
        them (None when there are none)."""
        if self._map is None:
            table = _mapping.composed(
                width=self._width, spaces=self._additional is not None, case=self._case
            )
            self._map = (table, _lookups.mapper(table) if table else None)
        return self._map

    def _native(self) -> Callable[[str | bytes], str] | None:
        """``speedups.precis_enforce`` bound to this profile's tables, or None without
        the C extension."""
        if speedups is None:
            return None
        stage1, stage2, layout = _native_table()
        reasons = layout["REASONS"]
        assert isinstance(reasons, tuple)
        flags = 0
        for wanted, name in (
            (self._width, "F_WIDTH"),
            (self._additional is not None, "F_SPACES"),
            (self._twice, "F_NICKNAME"),
            (self._case == "lower", "F_LOWER"),
            (self._case == "fold", "F_FOLD"),
            (self._bidi, "F_BIDI"),
            (self._form is None, "F_CLASS_ONLY"),
            (self.base == FREEFORM_CLASS, "F_FREEFORM"),
        ):
            if wanted:
                value = layout[name]
                assert isinstance(value, int)
                flags |= value
        kinds = _lookups.DERIVED_KINDS
        context = (_lookups.CONTEXTJ, _lookups.CONTEXTO)
        config = (
            flags,
            sum(1 << k for k, (value, _) in enumerate(kinds) if value in _ALLOWED[self.base]),
            sum(1 << k for k, (value, _) in enumerate(kinds) if value in context),
            self._name,
            tuple(f"DISALLOWED/{reason}" for reason in [*(r for _, r in kinds), *reasons]),
            self._mapping()[1],
            unicode_normalize,
            self._form,
            PrecisError,
            self._enforce_py,
        )
        native = functools.partial(speedups.precis_enforce, stage1, stage2, config)
        native.__doc__ = Profile.enforce.__doc__
        return native

    def _compile(self) -> Callable[[str], str | None]:
        """The fast path, built on first use (see the module docstring): the result, a
        ``PrecisError``, or None when the rules must be taken one by one."""
        table, mapper = self._mapping()
        allowed = _lookups.derived_ranges(_ALLOWED[self.base])
        changing = _lookups.ranges_of(table)
        final = _lookups.subtract(allowed, changing)
        if self._twice:
            final = _lookups.subtract(final, ((0x20, 0x20),))
        atom = _atom(final)
        if self._twice:  # no space at either end, none doubled (RFC 8266 §2.1)
            done = re.compile(f"{atom}+(?: {atom}+)*")
        else:
            done = re.compile(f"{atom}{'*' if self._form is None else '+'}")
        fullmatch = done.fullmatch
        # a character that one more pass of the mappings would change
        unstable = re.compile(_atom(changing)).search if changing else None
        # a character the string class refuses (RFC 8264 §8), or a contextual one
        refused = re.compile(_atom(_lookups.subtract(((0, _lookups.MAX_CP),), allowed))).search
        rtl = re.compile(_atom(_lookups.RTL)).search if self._bidi else None
        sigma = self._case == "lower"  # Final_Sigma: U+03A3 depends on its neighbours
        twice, form, name = self._twice, self._form, self._name
        normalize = unicode_normalize

        def fast(s: str) -> str | None:
            if sigma and _mapping.FINAL_SIGMA_SOURCE in s:
                return None
            t = mapper(s) if mapper is not None else s
            if twice:
                t = t.strip(" ")
                if "  " in t:
                    t = _MULTIPLE_SPACES.sub(" ", t)
            if form is not None and not t.isascii():
                t = normalize(form, t)
            # t is the first pass of the rules but the Bidi Rule (RFC 8264 §7)
            if rtl is not None and rtl(t) is not None:
                violation = _rules.bidi_violation(t)
                if violation is not None:
                    raise _refusal(name, "bidi_rule", t, violation[0], s)
            if fullmatch(t) is not None:
                return t
            # Stable: a second pass (and RFC 8266's third) would give t again.
            if (unstable is not None and unstable(t) is not None) or (
                twice and (t[:1] == " " or t[-1:] == " " or "  " in t)
            ):
                return None
            if not t and form is not None:
                raise _refusal(name, "empty", t, None, s)
            # the first character the string class refuses (RFC 8264 §8), by regex
            start, decided = 0, dict[str, bool]()
            while (match := refused(t, start)) is not None:
                i = start = match.start()
                value, reason = _lookups.derived_property(ord(t[i]))
                if value in (_lookups.CONTEXTJ, _lookups.CONTEXTO):
                    reason = _rules.context_refuses(t, i, decided)
                    if not reason:
                        start += 1
                        continue
                raise _refusal(name, reason, t, i, s)
            return t

        self._fast = fast
        return fast


def _refusal(profile: str, rule: str, t: str, index: int | None, original: str) -> PrecisError:
    return PrecisError(profile, f"DISALLOWED/{rule}", t, index, t != original)


# precis-i18n's profiles, by the names it gives them.
_DEFINITIONS: dict[str, dict[str, object]] = {
    "IdentifierClass": {"base": IDENTIFIER_CLASS},
    "FreeFormClass": {"base": FREEFORM_CLASS},
    "UsernameCasePreserved": {"base": IDENTIFIER_CLASS, "width": True, "form": "NFC"},
    "UsernameCaseMapped": {"base": IDENTIFIER_CLASS, "width": True, "case": "lower"},
    "UsernameCaseMapped:ToLower": {"base": IDENTIFIER_CLASS, "width": True, "case": "lower"},
    "UsernameCaseMapped:CaseFold": {"base": IDENTIFIER_CLASS, "width": True, "case": "fold"},
    "OpaqueString": {"base": FREEFORM_CLASS, "additional": "spaces", "form": "NFC"},
    "NicknameCasePreserved": {"base": FREEFORM_CLASS, "additional": "nickname"},
    "NicknameCaseMapped": {"base": FREEFORM_CLASS, "additional": "nickname", "case": "lower"},
    "NicknameCaseMapped:ToLower": {
        "base": FREEFORM_CLASS,
        "additional": "nickname",
        "case": "lower",
    },
    "NicknameCaseMapped:CaseFold": {
        "base": FREEFORM_CLASS,
        "additional": "nickname",
        "case": "fold",
    },
}
for _name, _rules_of in _DEFINITIONS.items():
    if _name.startswith("Username"):
        _rules_of.update(form="NFC", bidi=True)
    elif _name.startswith("Nickname"):
        _rules_of.update(form="NFKC")

PROFILE_NAMES: tuple[str, ...] = tuple(_DEFINITIONS)
_ALIASES = {"nickname": "NicknameCaseMapped"}  # precis-i18n's name for it before RFC 8266


class UnknownProfileError(KeyError, ValueError):
    """``get_profile`` was given a name it does not know (a KeyError, as precis-i18n
    raises, and a ValueError)."""

    __module__ = "sanitizer.precis"  # its public home, as tracebacks and pickles name it

    def __str__(self) -> str:
        return str(self.args[0])


@functools.cache
def _native_table() -> tuple[bytes, bytes, dict[str, object]]:
    from . import _native_table as table

    return table.build()


@functools.cache
def _profile(name: str) -> Profile:
    return Profile(name, **_DEFINITIONS[name])  # type: ignore[arg-type]


_BY_KEY = {name.lower().replace(":", "_"): name for name in PROFILE_NAMES}
_BY_KEY.update(_ALIASES)


def get_profile(name: str) -> Profile:
    """The profile called ``name``: one of ``PROFILE_NAMES``, spelt as precis-i18n accepts
    it (any case, ':' or '_' before the variant; "Nickname" for NicknameCaseMapped)."""
    if not isinstance(name, str):
        raise TypeError(f"get_profile() argument 'name' must be str, not {type(name).__name__}")
    canonical = _BY_KEY.get(name.lower().replace(":", "_"))
    if canonical is None:
        raise UnknownProfileError(
            f"unknown PRECIS profile {name!r}; the profiles are: {', '.join(PROFILE_NAMES)}"
        )
    return _profile(canonical)
