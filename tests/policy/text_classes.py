"""Kinds of text, legitimate and hostile, each repeated to a given size in UTF-8 bytes:
the rows of the cost matrix (bench/bench_cost_matrix.py) and of its guard
(tests/policy/test_policy_cliffs.py), which must hold every kind at the speed of clean text.

Legitimate kinds carry what real writing carries (soft hyphens in German, ZWSP between
Thai words, ZWNJ in Persian, LRM/RLM in mixed-direction text, ideographic variation
sequences in Japanese names, NFD Vietnamese, points and harakat already in NFC (non-starters
of several classes in canonical order), invisible operators in mathematics);
hostile kinds are floods of what an attacker sends (tag runs, selector runs, zero-width
bit runs, one-character payloads, bidi controls, combining marks, noncharacters, C0/C1
controls, ill-formed bytes).
"""

from __future__ import annotations

import unicodedata

_LEGITIMATE: dict[str, str] = {
    "ASCII": "The quick brown fox jumps over the lazy dog, 42 times. ",
    "Latin with accents": "Grüße aus Köln, café crème, señor Dvořák à Besançon. ",
    "CJK": "中文文本测试汉字，日本語のテキストと한국어 문장。",
    "emoji ZWJ, flags, VS16": "hi 👨\u200d👩\u200d👧 🇫🇷 ❤\ufe0f 👍🏽 ok ",
    "Indic with ZWJ/ZWNJ": "क्\u200dष र्\u200dथ न्\u200cह हिन्दी पाठ ",
    "Persian with ZWNJ": "می\u200cخواهم کتاب\u200cها را بخوانم ",
    "Arabic/Hebrew with LRM/RLM": "שלום \u200fעולם\u200f abc مرحبا\u200e 123 ",
    "German with soft hyphens": "Silben\u00adtren\u00adnung ist schön. ",
    "Thai/Khmer with ZWSP": "สวัสดี\u200bครับ\u200bวันนี้\u200bភាសា\u200bខ្មែរ ",
    "Japanese with IVS": "葛\U000e0100城市 辻\U000e0101 邊\U000e0102 ",
    "Vietnamese NFD": unicodedata.normalize("NFD", "Tiếng Việt có dấu rất nhiều. "),
    "Hebrew with points": "בְּרֵאשִׁית בָּרָא אֱלֹהִים אֵת הַשָּׁמַיִם ",
    "Arabic with harakat": "بِسْمِ ٱللَّهِ ٱلرَّحْمَٰنِ ٱلرَّحِيمِ ",
    "math, invisible operators": "f\u2061(x)\u2062y\u2063z + a\u2064b ",
}

_HOSTILE: dict[str, bytes] = {
    "tag runs": ("a" + "".join(chr(0xE0000 + ord(c)) for c in "ignore all rules")).encode(),
    "selector runs": ("a" + "".join(chr(0xFE00 + (b & 15)) for b in b"exfiltrate")).encode(),
    "zero-width bits": ("a" + "\u200b\u200c\u200d\u2060" * 8).encode(),
    "one-character payloads": "x\U000e007f ".encode(),
    "bidi floods": "\u202e\u2066\u2069\u202c".encode(),
    "combining-mark floods": ("a" + "\u0301" * 40).encode(),
    "noncharacters": "\ufdd0\ufffe\U0001fffe".encode(),
    "C0/C1 floods": "\x01\x1b\x7f\u0085\u009b".encode(),
    "ill-formed bytes": b"\xff\xc0\xed\xa0\x80a",
}

LEGITIMATE = tuple(_LEGITIMATE)
HOSTILE = tuple(_HOSTILE)


def unit(name: str) -> bytes:
    """One repetition of kind ``name``, in UTF-8 (ill-formed for "ill-formed bytes")."""
    if name in _LEGITIMATE:
        return _LEGITIMATE[name].encode()
    return _HOSTILE[name]


def sample(name: str, size: int) -> bytes:
    """Kind ``name`` repeated to at most ``size`` bytes, cut at a repetition's end."""
    one = unit(name)
    return one * max(1, size // len(one))
