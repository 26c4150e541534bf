"""Strict checks never ask a caller's subclass: a ``bytes``, ``bytearray``, ``str`` or
``int`` subclass whose methods lie gets the answer its exact value gets.

Each hostile class below overrides every method a check could call on its argument
(``decode`` returning clean text, ``isascii`` saying yes, ``__eq__`` equal to anything,
``__iter__``/``__len__``/``__getitem__`` showing other content, ``__bytes__``...).  Every
public entry point that reads data or a choice is called with the hostile value and with
its exact copy; the outcomes (the result's type and repr, or the exception's type and
message) must be the same.  Under both backends: each table runs in a subprocess with and
without ``SANITIZER_PURE_PYTHON=1`` (the backend is chosen once per process).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys

import pytest

RUNNER = r"""
import json, re, sys
import sanitizer as s
from sanitizer import profiles as p, _lookalike as la, utf7, utf16, utf32

class LaxBytes(bytes):
    def decode(self, *a, **k): return "clean"
    def __bytes__(self): return b"clean"
    def __iter__(self): return iter(b"clean")
    def __len__(self): return 5
    def __getitem__(self, i): return b"clean"[i]
    def __eq__(self, other): return True
    def __hash__(self): return 0
    def startswith(self, *a): return False
    def endswith(self, *a): return False
    def isascii(self): return True
    def translate(self, *a): return b"clean"
    def find(self, *a): return -1
    def count(self, *a): return 0
    def __contains__(self, x): return False
    def __add__(self, other): return b"clean"
    def __radd__(self, other): return b"clean"
    def __repr__(self): return "b'clean'"

class LaxBytearray(bytearray):
    def decode(self, *a, **k): return "clean"
    def __bytes__(self): return b"clean"
    def __iter__(self): return iter(b"clean")
    def __len__(self): return 5
    def __getitem__(self, i): return b"clean"[i]
    def startswith(self, *a): return False
    def isascii(self): return True

class LaxStr(str):
    def encode(self, *a, **k): return b"clean"
    def isascii(self): return True
    def isidentifier(self): return True
    def translate(self, *a): return "clean"
    def __iter__(self): return iter("clean")
    def __len__(self): return 5
    def __getitem__(self, i): return "clean"[i]
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __hash__(self): return hash("keep")
    def __contains__(self, x): return False
    def lower(self): return "clean"
    def upper(self): return "CLEAN"
    def casefold(self): return "clean"
    def strip(self, *a): return "clean"
    def replace(self, *a): return "clean"
    def split(self, *a, **k): return ["clean"]
    def startswith(self, *a): return False
    def endswith(self, *a): return False
    def find(self, *a): return -1
    def count(self, *a): return 0
    def partition(self, *a): return ("clean", "", "")
    def __add__(self, other): return "clean"
    def __radd__(self, other): return "clean"
    def __format__(self, spec): return "clean"
    def __str__(self): return "clean"
    def __repr__(self): return "'clean'"

class LaxInt(int):
    def __lt__(self, other): return False
    def __le__(self, other): return False
    def __gt__(self, other): return False
    def __ge__(self, other): return False
    def __eq__(self, other): return True
    def __hash__(self): return 0
    def __index__(self): return 10**9
    def __int__(self): return 10**9
    def __sub__(self, other): return 10**9
    def __rsub__(self, other): return 10**9
    def __format__(self, spec): return "0"

def exact(value):
    for base in (bool, int, str, bytes, bytearray):
        if isinstance(value, base):
            if base in (bool, int):
                return int.__int__(value)
            return base.__getitem__(value, slice(None))
    return value

def lax(value):
    if type(value) is bytes: return LaxBytes(value)
    if type(value) is bytearray: return LaxBytearray(value)
    if type(value) is str: return LaxStr(value)
    if type(value) is int: return LaxInt(value)
    return value

def feed_all(make, data):
    raw = exact(data)  # the chunks are cut here, then made hostile like the argument
    wrap = type(data) if type(data) is not type(raw) else (lambda x: x)
    dec = make()
    out = [dec.feed(wrap(raw[:1])), dec.feed(wrap(raw[1:]), True)]
    return [(t, [(e.start, e.end) for e in errs]) for t, errs in out]

# (name, function of one argument, arguments): each argument is tried as it is and as
# its hostile twin
TEXT_ATTACKS = ["a\u202eb", "p\u0430ypal", "paypaI", "\u0130stanbul", "ad\x00min", "\ud800", ".."]
BYTE_ATTACKS = [b"\xff", b"\xef\xbb\xbfa", b"a\xc0\xafb", "a\u202eb".encode(), b"\xe2\x82"]
WIDE_ATTACKS = [b"\xff\xfeA\x00", b"\xff\xfe\x00\xd8", b"\xfe\xff\x00A\x00", b"\x00\xdc"]
ATTACKS = TEXT_ATTACKS + BYTE_ATTACKS
BOM_A, BOMS = b"\xef\xbb\xbfa", ["reject", "strip"]
FORMS = ["NFC", "NFKC", "NFKC_CASEFOLD"]
TABLE = [
    ("decode", s.decode, BYTE_ATTACKS + [bytearray(b"\xff")]),
    ("decode.replace", lambda d: s.decode(d, errors="replace"), BYTE_ATTACKS),
    ("decode.bom", lambda d: s.decode(b"\xef\xbb\xbfa", bom=d), ["reject", "strip", "keep"]),
    ("decode.errors", lambda d: s.decode(b"\xff", errors=d), ["strict", "replace"]),
    ("is_valid", s.is_valid, BYTE_ATTACKS + [bytearray(b"\xff")]),
    ("find_errors", lambda d: [(e.start, e.end) for e in s.find_errors(d)], BYTE_ATTACKS),
    ("find_errors.limit", lambda n: len(s.find_errors(b"\xff" * 5, limit=n)), [1, 2]),
    ("encode", s.encode, ["a\ud800", "ok"]),
    ("IncrementalDecoder.feed", lambda d: feed_all(s.IncrementalDecoder, d), BYTE_ATTACKS),
    ("IncrementalDecoder.bom", lambda m: s.IncrementalDecoder(bom=m).decode(BOM_A), BOMS),
    ("IncrementalDecoder.find_errors",
     lambda d: len(s.IncrementalDecoder().find_errors(d, True)), BYTE_ATTACKS),
    ("utf16.decode", utf16.decode, WIDE_ATTACKS),
    ("utf16.is_valid", utf16.is_valid, WIDE_ATTACKS),
    ("utf16.find_errors", lambda d: len(utf16.find_errors(d)), WIDE_ATTACKS),
    ("utf16.byte_order", lambda o: utf16.decode(b"\x00A", byte_order=o), ["be", "le"]),
    ("utf16.IncrementalDecoder", lambda d: feed_all(utf16.IncrementalDecoder, d), WIDE_ATTACKS),
    ("utf32.decode", utf32.decode, [b"\xff\xfe\x00\x00A\x00\x00\x00", b"\x00\x00\x11\x00"]),
    ("utf7.decode", utf7.decode, [b"+ADw-", b"a+", b"+2D0-", b"ok"]),
    ("utf7.is_valid", utf7.is_valid, [b"+ADw-", b"ok"]),
    ("utf7.inspect", lambda d: utf7.inspect(d).ok, [b"+ADw-", b"ok"]),
    ("utf7.spelling", utf7.spelling, [b"+ADw-script+AD4-"]),
    ("inspect", lambda d: [f.category.name for f in s.inspect(d).findings], ATTACKS),
    ("inspect.identifier", lambda d: s.inspect(d, p.IDENTIFIER).ok, ATTACKS),
    ("inspect.encoding", lambda e: s.inspect(WIDE_ATTACKS[0], encoding=e).text, ["utf-16"]),
    ("inspect.utf16", lambda d: s.inspect(d, encoding="utf-16").ok, WIDE_ATTACKS[:2]),
    ("sanitize", lambda d: s.sanitize(d, p.TEXT), ATTACKS),
    ("sanitize.identifier", lambda d: s.sanitize(d, p.IDENTIFIER), TEXT_ATTACKS),
    ("accepts", lambda d: s.policy.accepts(d, p.IDENTIFIER), ATTACKS),
    ("Policy.max_bytes", lambda n: s.sanitize("abcd", s.Policy(max_bytes=n)), [2, 10]),
    ("Policy.max_code_points", lambda n: s.inspect("abcd", s.Policy(max_code_points=n)).ok, [2]),
    ("Policy.normalization", lambda f: s.sanitize("\u212b", s.Policy(normalization=f)), FORMS),
    ("normalize_identifier", s.normalize_identifier, ["\u212b", "ABC", "\ufb01"]),
    ("normalize_identifier.form", lambda f: s.normalize_identifier("\ufb01", form=f), FORMS),
    ("identifiers_equal", lambda a: s.identifiers_equal(a, "x"), ["x", "X", "y"]),
    ("identifiers_equal.form", lambda f: s.identifiers_equal("X", "x", form=f), FORMS),
    ("skeleton", la.skeleton, TEXT_ATTACKS),
    ("confusable", lambda a: str(la.confusable(a, "paypal")), TEXT_ATTACKS),
    ("resolved_scripts", lambda a: sorted(la.resolved_scripts(a)), TEXT_ATTACKS),
    ("restriction_level", lambda a: la.restriction_level(a).name, TEXT_ATTACKS),
    ("mixed_numbers", la.mixed_numbers, ["1\u0661", "12"]),
    ("hidden_overlays", la.hidden_overlays, ["i\u0307", "a"]),
    ("identifier_key", la.identifier_key, TEXT_ATTACKS),
    ("script_extensions", lambda c: sorted(la.script_extensions(c)), ["a", "\u0430"]),
    ("identifier_status", lambda c: la.identifier_status(c).name, ["a", "\u0430"]),
    ("script_name", la.script_name, ["Latn"]),
    ("describe", s.describe, [0x202E, 0x41]),
    ("spelling.limit", lambda n: utf7.spelling(b"+ADw-script+AD4-", n), [3]),
]

def outcome(fn, arg):
    try:
        value = fn(arg)
    except Exception as exc:
        return [type(exc).__name__, re.sub(r" at 0x[0-9a-f]+", "", str(exc))]
    return [type(value).__name__, repr(value)]

result = {}
for name, fn, args in TABLE:
    for arg in args:
        result[f"{name}({arg!r})"] = [outcome(fn, exact(arg)), outcome(fn, lax(arg))]
print(json.dumps(result))
"""


@functools.cache
def outcomes(pure: bool) -> dict[str, list[list[str]]]:
    env = dict(os.environ)
    env.pop("SANITIZER_PURE_PYTHON", None)
    if pure:
        env["SANITIZER_PURE_PYTHON"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", RUNNER],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    result: dict[str, list[list[str]]] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("pure", [pytest.param(False, id="c"), pytest.param(True, id="python")])
def test_a_hostile_subclass_gets_the_answer_of_its_exact_value(pure: bool) -> None:
    found = outcomes(pure)
    assert len(found) > 120
    differ = {call: pair for call, pair in found.items() if pair[0] != pair[1]}
    assert differ == {}


def test_the_backends_agree_on_hostile_subclasses() -> None:
    assert outcomes(False) == outcomes(True)
