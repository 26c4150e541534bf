"""Which scripts a string is written in: UTS #39 §5.1 resolved script sets.

A character belongs to the scripts of its Script_Extensions property (UAX #24): U+30FC
KATAKANA-HIRAGANA PROLONGED SOUND MARK is both Hiragana and Katakana.  §5.1 *augments* the
set so that Han, Hiragana, Katakana, Hangul and Bopomofo meet in the writing systems that
mix them (Jpan = Han + Hiragana + Katakana, Kore = Han + Hangul, Hanb = Han + Bopomofo),
and treats Common and Inherited characters (digits, punctuation, combining marks) as
belonging to every script.  The *resolved* script set of a string is the intersection of
the augmented sets of its characters: empty means mixed-script, non-empty single-script.

Lookups are cached per code point in a bounded dict that ``str.translate`` reads in C, so
resolving a string costs one translate and one set intersection per distinct script set.
``resolved_mask`` gives the same set as a bit mask (bit i: ``SCRIPT_ORDER[i]``), in C when
the extension is built (``_speedups.script_mask``, reference ``resolved_mask_py``); the
confusable check uses it, as ``ra & rb`` costs one int operation.
"""

from __future__ import annotations

import array
import functools
import re
from collections.abc import Callable

from .._arguments import check_char, exact_str
from .._native import Speedups, speedups
from . import _lookups, _tables_data

# UTS #39 §5.1: augmented script sets.
AUGMENT: dict[str, frozenset[str]] = {
    "Hani": frozenset({"Hanb", "Jpan", "Kore"}),
    "Hira": frozenset({"Jpan"}),
    "Kana": frozenset({"Jpan"}),
    "Hang": frozenset({"Kore"}),
    "Bopo": frozenset({"Hanb"}),
}
ALL_SCRIPTS: frozenset[str] = frozenset(_tables_data.SCRIPT_CODES) | frozenset(
    {"Hanb", "Jpan", "Kore"}
)
LATIN: frozenset[str] = frozenset({"Latn"})


def augment(codes: frozenset[str]) -> frozenset[str]:
    """The augmented script set of one character's Script_Extensions (UTS #39 §5.1):
    ALL_SCRIPTS for Common (Zyyy) or Inherited (Zinh), Han etc. with their combinations."""
    if "Zyyy" in codes or "Zinh" in codes:
        return ALL_SCRIPTS
    extra = [AUGMENT[code] for code in codes if code in AUGMENT]
    return codes.union(*extra) if extra else codes


# Augmented sets by the index of the Script_Extensions value; ALL_SCRIPTS is shared.
AUGMENTED: tuple[frozenset[str], ...] = tuple(augment(s) for s in _lookups.SCRIPT_SETS)
_MEMO_LIMIT = 4096
ASCII_LETTER = re.compile("[A-Za-z]").search


class _ScriptIds(dict[int, str]):
    """code point -> chr(index into AUGMENTED), filled on demand (str.translate calls
    __missing__ for a code point not seen yet); cleared when it grows past _MEMO_LIMIT."""

    def __missing__(self, cp: int) -> str:
        if len(self) >= _MEMO_LIMIT:
            self.clear()
        value = self[cp] = chr(_lookups.script_set_index(cp))
        return value


_IDS = _ScriptIds()


# The same sets as bit masks, bit i for SCRIPT_ORDER[i], in whole 64-bit words; Common and
# Inherited (ALL_SCRIPTS) have every bit of the words set, so an empty AND is the only
# empty set, and ALL_MASK is what a string of Common characters resolves to.
SCRIPT_ORDER: tuple[str, ...] = tuple(sorted(ALL_SCRIPTS))
MASK_WORDS = (len(SCRIPT_ORDER) + 63) // 64
ALL_MASK = (1 << (64 * MASK_WORDS)) - 1
_BITS = {code: 1 << i for i, code in enumerate(SCRIPT_ORDER)}
LATIN_MASK = _BITS["Latn"]


def mask_of(scripts: frozenset[str]) -> int:
    """The bit mask of a script set (ALL_MASK for ALL_SCRIPTS)."""
    return ALL_MASK if scripts == ALL_SCRIPTS else sum(_BITS[code] for code in scripts)


AUGMENTED_MASKS: tuple[int, ...] = tuple(mask_of(s) for s in AUGMENTED)


def resolved_mask_py(s: str) -> int:
    """The resolved script set of ``s`` as a bit mask (no argument check): the AND of the
    masks of its distinct Script_Extensions values (the reference of script_mask in C)."""
    mask = ALL_MASK
    for sid in set(s.translate(_IDS)):
        mask &= AUGMENTED_MASKS[ord(sid)]
    return mask


def native_script_tables() -> tuple[bytes, bytes, bytes, int]:
    """The runs and masks as the C extension reads them: run starts (uint32), the mask id
    of each run (uint16), MASK_WORDS uint64 words per mask (low first), MASK_WORDS."""
    low = (1 << 64) - 1
    words = [(m >> (64 * w)) & low for m in AUGMENTED_MASKS for w in range(MASK_WORDS)]
    return (
        array.array("I", _tables_data.SCRIPT_STARTS).tobytes(),
        array.array("H", _tables_data.SCRIPT_RUNS).tobytes(),
        array.array("Q", words).tobytes(),
        MASK_WORDS,
    )


def native_resolved_mask(native: Speedups) -> Callable[[str], int]:
    """resolved_mask_py in C: ``native.script_mask`` with this module's tables."""
    starts, ids, masks, _ = native_script_tables()
    return functools.partial(native.script_mask, starts, ids, masks, (*AUGMENTED_MASKS, ALL_MASK))


resolved_mask: Callable[[str], int] = (
    resolved_mask_py if speedups is None else native_resolved_mask(speedups)
)


def script_extensions(ch: str) -> frozenset[str]:
    """The Script_Extensions of one character as ISO 15924 codes (UAX #24): "Latn",
    "Zyyy" (Common), "Zinh" (Inherited), "Zzzz" (unassigned); not augmented."""
    ch = check_char(ch, "ch", "script_extensions")
    return _lookups.SCRIPT_SETS[_lookups.script_set_index(ord(ch))]


_AUGMENTED_NAMES = {"Hanb": "Han with Bopomofo", "Jpan": "Japanese", "Kore": "Korean"}


def script_name(code: str) -> str:
    """The name of a script code as a person reads it (Scripts.txt, UAX #24): "Latin" for
    "Latn", "Common" for "Zyyy", "Japanese" for the augmented "Jpan" (§5.1)."""
    if type(code) is not str:
        code = exact_str(code, "code", "script_name")
    name = _tables_data.SCRIPT_NAMES.get(code) or _AUGMENTED_NAMES.get(code)
    if name is None:
        raise ValueError(f"script_name() argument 'code' is not a script code: {code!r}")
    return name


def resolved_from(s: str, skip: str | None = None) -> frozenset[str]:
    """The intersection of the augmented script sets of the characters of ``s`` (no
    argument check), leaving out characters whose set contains ``skip``."""
    result = ALL_SCRIPTS
    for sid in set(s.translate(_IDS)):
        scripts = AUGMENTED[ord(sid)]
        if scripts is ALL_SCRIPTS or (skip is not None and skip in scripts):
            continue
        result = scripts if result is ALL_SCRIPTS else result & scripts
        if not result:
            break
    return result


def resolved_scripts(s: str) -> frozenset[str]:
    """The resolved script set of ``s`` (UTS #39 §5.1): empty when ``s`` mixes scripts,
    ALL_SCRIPTS when it has only Common and Inherited characters (or is empty)."""
    if type(s) is not str:
        s = exact_str(s, "s", "resolved_scripts")
    if s.isascii():  # ASCII letters are Latn; everything else in ASCII is Common
        return LATIN if ASCII_LETTER(s) else ALL_SCRIPTS
    return resolved_from(s)


__all__ = ["ALL_SCRIPTS", "resolved_scripts", "script_extensions", "script_name"]
