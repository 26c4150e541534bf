"""Encoders of hidden payloads and legitimate text, for the tests of ``sanitizer.reveal``.

The encoders are written from the schemes' own descriptions (ASCII smuggling in tag
characters, Paul Butler's variation-selector bytes, 8-bit groups on two zero-width
symbols as StegCloak, zwsp-steg and "Sneaky Bits" write them), independently of
``sanitizer/_policy/_reveal.py``: a deliberate second statement, so a test fails when the
decoder's reading of a scheme is wrong.

The legitimate text comes from real sources installed here: the translations Django
ships (``.po`` files of ~100 languages), CLDR data through ``babel``, and the Unicode
files vendored in ``tools/unicode-18.0.0/`` (every emoji of emoji-test.txt, the RGI
sequences, the standardized and emoji variation sequences), plus hand-picked words of
scripts that need joiners, marks or selectors (Persian ZWNJ, Sinhala and Malayalam ZWJ,
Mongolian FVS, Khmer ZWSP, bidi marks around numbers, ideographic variation sequences).
"""

from __future__ import annotations

import functools
import lzma
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tools" / "unicode-18.0.0"

# -- encoders -----------------------------------------------------------------------------

CANCEL_TAG = "\U000e007f"
BLACK_FLAG = "\U0001f3f4"


def tags(payload: bytes, language_tag: bool = False, cancel: bool = False) -> str:
    """ASCII smuggling: each byte 0x20..0x7E as U+E0000 + byte."""
    assert all(0x20 <= b <= 0x7E for b in payload)
    body = "".join(chr(0xE0000 + b) for b in payload)
    return ("\U000e0001" if language_tag else "") + body + (CANCEL_TAG if cancel else "")


def flag_dressed(payload: bytes) -> str:
    """Tags dressed as an emoji flag: U+1F3F4, the tags, CANCEL TAG."""
    return BLACK_FLAG + tags(payload) + CANCEL_TAG


def selectors(payload: bytes) -> str:
    """Butler: byte b < 16 -> U+FE00 + b, else U+E0100 + (b - 16)."""
    return "".join(chr(0xFE00 + b) if b < 16 else chr(0xE0100 + b - 16) for b in payload)


def bits(payload: bytes, zero: str, one: str, separator: str = "", msb_first: bool = True) -> str:
    """Each byte as 8 symbols (``zero``/``one``), in either bit order, ``separator``
    between bytes."""
    groups = []
    for byte in payload:
        digits = format(byte, "08b")
        if not msb_first:
            digits = digits[::-1]
        groups.append("".join(one if d == "1" else zero for d in digits))
    return separator.join(groups)


ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\u2060", "\u2062", "\u2064", "\ufeff", "\u2063")
BIDI_MARKS = ("\u200e", "\u200f", "\u061c")

# -- legitimate units ---------------------------------------------------------------------

# Words and phrases that need invisible characters, or sit beside them: each must pass
# PROMPT and reveal nothing, alone and next to any other.
SPECIAL_UNITS = (
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian می‌خواهم (ZWNJ)
    "\u0646\u0627\u0645\u0647\u200c\u0647\u0627",  # Persian نامه‌ها
    "\u0dc1\u0dca\u200d\u0dbb\u0dd3",  # Sinhala ශ්‍රී (ZWJ after al-lakuna)
    "\u0d28\u0d4d\u200d",  # Malayalam chillu, old encoding (ZWJ after virama)
    "\u0915\u094d\u200d\u0937",  # Devanagari half form (ZWJ)
    "\u0915\u094d\u200c\u0937",  # Devanagari explicit virama (ZWNJ)
    "\u0c95\u0ccd\u200c\u0c95",  # Kannada (ZWNJ)
    "\u0995\u09cd\u200d\u09af",  # Bengali ya-phala (ZWJ)
    "\u1798\u17d2\u1793\u17bb\u179f\u17d2\u179f\u200b\u1782\u17d2\u179a\u1794\u17cb",  # Khmer
    "\u1000\u103b\u103d\u1014\u103a\u200b\u1010\u1031\u102c\u103a",  # Myanmar with ZWSP
    "\u0e20\u0e32\u0e29\u0e32\u200b\u0e44\u0e17\u0e22",  # Thai with ZWSP
    "\u1824\u182d\u180b\u1823\u1837",  # Mongolian with FVS1
    "\u182e\u1824\u1829\u182d\u180c\u1823\u182f",  # Mongolian with FVS2
    "\u1828\u1820\u1822\u182e\u1820\u180e\u1820",  # Mongolian with MVS
    "\u200f(\u0661\u0662\u0663)\u200e",  # RLM, Arabic digits, LRM
    "\u05e9\u05dc\u05d5\u05dd\u200e 2024",  # Hebrew, LRM before a number
    "\u0627\u0644\u0639\u062f\u062f \u061c-5",  # ALM before a minus sign
    "\u845b\U000e0100",  # 葛 + VS17 (IVD Adobe-Japan1)
    "\u8fbb\U000e0101",  # 辻 + VS18
    "\u9089\U000e0102",  # 邉 + VS19
    "\u2764\ufe0f",  # ❤️
    "#\ufe0f\u20e3",  # keycap #
    "\u263a\ufe0e",  # ☺ text presentation
    "\U0001f44d\U0001f3fd",  # skin tone
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",  # family
    "\U0001f3f3\ufe0f\u200d\U0001f308",  # rainbow flag
    "\U0001f3f4\u200d\u2620\ufe0f",  # pirate flag
    BLACK_FLAG + tags(b"gbsct") + CANCEL_TAG,  # Scotland: RGI tag sequence
    "\U0001f1fa\U0001f1e6",  # regional indicators
    "\u2205\ufe00",  # standardized variation sequence
    "\u0030\ufe00",  # zero with short diagonal stroke
    "\u1000\ufe00",  # Myanmar dotted form
    "\u2018\ufe01",  # left quotation mark, right-justified (CJK)
)


# Paragraphs of real writing dense in what the carriers are made of (joiners and marks at
# word ends, space characters of many kinds, selectors), each must pass PROMPT and reveal
# nothing as a whole: the stretches ``reveal`` reads across words.
LEGITIMATE_PARAGRAPHS = (
    # Persian: ZWNJ inside words (prefix mi-, plural -ha, suffixes), many in a row
    "\u0645\u0646 \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 "
    "\u06a9\u062a\u0627\u0628\u200c\u0647\u0627\u06cc "
    "\u062e\u0648\u062f \u0631\u0627 \u0628\u0647 \u062e\u0627\u0646\u0647\u200c\u0627\u06cc "
    "\u0628\u0628\u0631\u0645 "
    "\u06a9\u0647 \u0646\u0627\u0645\u0647\u200c\u0647\u0627 \u062f\u0631 "
    "\u0622\u0646 \u0645\u06cc\u200c\u0645\u0627\u0646\u062f. " * 6,
    # Malayalam in the old encoding: a chillu is consonant + virama + ZWJ, at word ends
    "\u0d05\u0d35\u0d28\u0d4d\u200d \u0d05\u0d35\u0d33\u0d4d\u200d \u0d05\u0d35\u0d30\u0d4d\u200d "
    "\u0d15\u0d3e\u0d32\u0d4d\u200d \u0d15\u0d23\u0d4d\u200d \u0d2e\u0d28\u0d4d\u200d "
    "\u0d2a\u0d3e\u0d32\u0d4d\u200d "
    "\u0d35\u0d46\u0d33\u0d4d\u200d \u0d24\u0d3e\u0d34\u0d4d\u200d \u0d06\u0d7b " * 4,
    # Devanagari, Bengali, Kannada, Sinhala: ZWJ/ZWNJ with viramas, ra + ZWJ + virama + ya
    "\u0915\u094d\u200d\u0937 \u0915\u094d\u200c\u0937 \u0995\u09cd\u200d\u09af "
    "\u09b0\u200d\u09cd\u09af\u09be\u09ac "
    "\u0c95\u0ccd\u200c\u0c95 \u0dc1\u0dca\u200d\u0dbb\u0dd3 \u0dbd\u0d82\u0d9a\u0dcf\u0dc0 " * 6,
    # Mongolian: free variation selectors and the vowel separator inside words
    "\u1824\u182d\u180b\u1823\u1837 \u182e\u1824\u1829\u182d\u180c\u1823\u182f "
    "\u1828\u1820\u1822\u182e\u1820\u180e\u1820 \u1832\u1820\u1837\u180e\u1820 " * 6,
    # Hebrew and Arabic with the marks their numbers and mixed text need
    "\u05d4\u05de\u05d7\u05d9\u05e8 \u05d4\u05d5\u05d0 120\u200e \u05e9\u05f4\u05d7 "
    "\u05dc\u05d2\u05e8\u05e1\u05d4 Python 3.12\u200e \u05d5\u05d2\u05dd Django 5\u200e. "
    "\u0627\u0644\u0639\u062f\u062f \u061c-5 \u0648\u0627\u0644\u062a\u0627\u0631\u064a\u062e "
    "\u200f9/3/2024\u200f "
    "\u0641\u064a \u0627\u0644\u0633\u0627\u0639\u0629 \u200f14:05\u200f. " * 4,
    # French typography: U+202F before ; : ! ? and in numbers, U+00A0 inside guillemets,
    # after a dash, between a number and its unit, after an abbreviation
    "Le chat dort\u202f; il r\u00eave\u202f! Pourquoi\u202f? Elle dit\u202f: "
    "\u00ab\u00a0viens\u00a0\u00bb \u2014\u00a0Oui, \u00e0 10\u00a0km, "
    "pour 1\u202f250\u202f000\u202f\u20ac et 25\u00a0%\u202f; "
    "M.\u00a0Dupont lit la p.\u00a012 \u00e0 14\u00a0h\u202f30. "
    "Le 3\u2009000\u2009m\u00e8tres est loin\u202f: "
    "\u2039\u00a0non\u00a0\u203a, dit-il\u00a0!\n" * 6,
    "\u00ab\u202fBonjour\u202f\u00bb, r\u00e9pondit-elle\u202f; puis, \u00e0 voix basse\u202f: "
    "\u00ab\u202fQue voulez-vous\u202f?\u202f\u00bb Il \u00e9tait 7\u202fh, le thermom\u00e8tre "
    "marquait \u22125\u202f\u00b0C et la facture 1\u202f234,56\u00a0\u20ac. " * 6,
    # Japanese: U+3000 between sentences and at the start of a paragraph
    "\u3000\u4eca\u65e5\u306f\u6674\u308c\u3067\u3059\u3002\u3000\u660e\u65e5\u3082"
    "\u6674\u308c\u307e\u3059\u3002\u3000\u305d\u3046\u3067\u3059\u306d\u3002\n" * 8,
    # Names with ideographic variation sequences (IVD), emoji with ZWJ, VS16, flags
    "\u845b\U000e0100\u98fe\u533a \u8fbb\U000e0101\u672c \u9089\U000e0102\u7530\u3055\u3093\u3000"
    "\U0001f468\u200d\U0001f469\u200d\U0001f467 \u2764\ufe0f \U0001f3f3\ufe0f\u200d\U0001f308 "
    "\U0001f1ef\U0001f1f5 \U0001f44d\U0001f3fd " * 6,
)


def vendored(name: str) -> str:
    with lzma.open(DATA / f"{name}.xz", "rt", encoding="utf-8") as fh:
        return fh.read()


def _code_point_lines(name: str) -> Iterator[str]:
    """The sequence of each data line of a UTS #51 / UCD file (first field)."""
    for line in vendored(name).splitlines():
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        field = data.split(";", 1)[0].strip()
        points = field.split("..")
        if len(points) == 2:  # a range of single code points
            lo, hi = (int(p, 16) for p in points)
            yield from (chr(cp) for cp in range(lo, hi + 1))
        else:
            yield "".join(chr(int(h, 16)) for h in field.split())


@functools.cache
def emoji_corpus() -> tuple[str, ...]:
    """Every emoji of emoji-test.txt (fully-, minimally-, unqualified and components),
    every RGI sequence, every standardized and emoji variation sequence."""
    out: list[str] = []
    for name in (
        "emoji-test.txt",
        "emoji-sequences.txt",
        "emoji-zwj-sequences.txt",
        "emoji-variation-sequences.txt",
        "StandardizedVariants.txt",
    ):
        out.extend(_code_point_lines(name))
    return tuple(dict.fromkeys(out))


_MSGSTR = re.compile(r'^msgstr(?:\[\d+\])? "(.*)"$')
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), s)


@functools.cache
def django_translations(languages: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """The translated strings of Django's own .po files (``languages``: their folder
    names, e.g. ``fa``; None: all)."""
    import django

    base = Path(django.__file__).parent
    out: list[str] = []
    for po in sorted(base.glob("**/locale/*/LC_MESSAGES/*.po")):
        if languages is not None and po.parent.parent.name not in languages:
            continue
        for line in po.read_text(encoding="utf-8").splitlines():
            m = _MSGSTR.match(line)
            if m and m.group(1):
                out.append(_unescape(m.group(1)))
    return tuple(dict.fromkeys(out))


@functools.cache
def cldr_strings(locales: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """CLDR data through babel: language, territory and script names, months, days,
    and sample numbers and dates formatted in each locale."""
    import datetime

    import babel
    from babel import Locale, dates, numbers

    names = locales if locales is not None else tuple(babel.localedata.locale_identifiers())
    out: list[str] = []
    when = datetime.datetime(2024, 3, 9, 14, 5)
    for name in names:
        try:
            loc = Locale.parse(name)
        except (ValueError, babel.UnknownLocaleError):
            continue
        out.extend(loc.languages.values())
        out.extend(loc.territories.values())
        out.extend(loc.scripts.values())
        out.extend(loc.months["format"]["wide"].values())
        out.extend(loc.days["format"]["wide"].values())
        try:
            out.append(dates.format_datetime(when, "full", locale=loc))
            out.append(numbers.format_decimal(-1234567.891, locale=loc))
            out.append(numbers.format_currency(1234.5, "EUR", locale=loc))
        except Exception:  # a locale without these patterns
            pass
    return tuple(dict.fromkeys(s for s in out if s))
