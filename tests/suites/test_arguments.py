"""Argument errors: every public call names the function and the argument in a
TypeError or ValueError, and the C and pure-Python backends agree on every argument.

The backend is chosen once per process (``sanitizer._native``; the C ``decode`` is bound at
import), so each table runs in a subprocess with and without ``SANITIZER_PURE_PYTHON=1``.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sanitizer
from sanitizer import profiles
from sanitizer.web import DEFAULT, ASGIMiddleware, WebPolicy, WSGIMiddleware, body_check, check_head

# (expression, expected exception type, substring of its message).  Evaluated with
# ``sanitizer`` as ``s`` and ``sanitizer.profiles`` as ``p``.
BAD_ARGUMENTS: list[tuple[str, str, str]] = [
    # decoder
    ("s.decode(None)", "TypeError", "decode() argument 'data' must be a bytes-like object, not No"),
    (
        "s.decode('abc')",
        "TypeError",
        "decode() argument 'data' must be a bytes-like object, not str",
    ),
    ("s.decode(b'a', 'replace')", "TypeError", "keyword-only"),
    ("s.decode(b'a', 'replace')", "TypeError", "decode() takes 1 positional argument"),
    ("s.decode(b'a', nope=1)", "TypeError", "decode() got an unexpected keyword argument"),
    ("s.decode(b'a', errors=1)", "TypeError", "decode() argument 'errors' must be str"),
    ("s.decode(b'a', errors='ignore')", "ValueError", "argument 'errors' must be 'strict' or"),
    ("s.decode(b'a', bom=None)", "TypeError", "decode() argument 'bom' must be str"),
    ("s.decode(b'a', bom='drop')", "ValueError", "'keep', 'strip' or 'reject'"),
    ("s.decode(b'a', allow_overlong_nul='x')", "TypeError", "'allow_overlong_nul' must be a bool"),
    ("s.decode(b'\\xc0\\x80', allow_overlong_nul=2)", "TypeError", "must be a bool, not int"),
    ("s.is_valid(None)", "TypeError", "is_valid() argument 'data' must be a bytes-like object"),
    ("s.is_valid(b'a', allow_overlong_nul=1)", "TypeError", "is_valid() argument"),
    ("s.find_errors(b'\\xff', limit=-1)", "ValueError", "find_errors() argument 'limit'"),
    ("s.find_errors(b'\\xff', limit='2')", "TypeError", "'limit' must be None or an int, not str"),
    ("s.find_errors(b'\\xff', limit=1.5)", "TypeError", "not float"),
    ("s.find_errors(b'\\xff', limit=True)", "TypeError", "not bool"),
    ("s.find_errors(b'\\xff', allow_overlong_nul=None)", "TypeError", "must be a bool"),
    ("s.group_errors(None)", "TypeError", "group_errors() argument 'errors'"),
    ("s.group_errors([1])", "TypeError", "group_errors() argument 'errors' must hold only"),
    ("s.ErrorGrouper().add(None)", "TypeError", "ErrorGrouper.add() argument 'err'"),
    ("s.ErrorGrouper().close('x')", "TypeError", "ErrorGrouper.close() argument 'position'"),
    ("s.ErrorGrouper().close(-1)", "ValueError", "ErrorGrouper.close() argument 'position'"),
    ("s.encode(b'x')", "TypeError", "encode() argument 'text' must be str, not bytes"),
    ("s.IncrementalDecoder(errors='x')", "ValueError", "IncrementalDecoder() argument 'errors'"),
    ("s.IncrementalDecoder(bom=1)", "TypeError", "IncrementalDecoder() argument 'bom'"),
    ("s.IncrementalDecoder(allow_overlong_nul=0)", "TypeError", "'allow_overlong_nul'"),
    ("s.IncrementalDecoder().feed('s')", "TypeError", "IncrementalDecoder.feed() argument 'chunk'"),
    ("s.IncrementalDecoder().decode(None)", "TypeError", "IncrementalDecoder.decode() argument 'i"),
    ("s.IncrementalDecoder().feed(b'a', final='x')", "TypeError", "'final' must be a bool"),
    ("s.IncrementalDecoder().decode(b'a', 1)", "TypeError", "'final' must be a bool"),
    ("s.IncrementalDecoder().feed(b'a', limit=0)", "ValueError", "'limit' must be None or >= 1"),
    ("s.IncrementalDecoder().feed(b'a', limit=True)", "TypeError", "'limit' must be None or an"),
    ("s.IncrementalDecoder().setstate(None)", "TypeError", "setstate() argument 'state'"),
    ("s.IncrementalDecoder().setstate((b'', -1))", "ValueError", "setstate() state offset"),
    ("s.describe(-1)", "ValueError", "describe() argument 'cp' must be in 0..0x7FFFFFFF"),
    ("s.describe(2**70)", "ValueError", "describe() argument 'cp'"),
    ("s.describe('a')", "TypeError", "describe() argument 'cp' must be an int, not str"),
    ("s.describe(True)", "TypeError", "not bool"),
    # policy
    ("s.inspect(b'a', 'TEXT')", "TypeError", "inspect() argument 'policy' must be a sanitizer"),
    ("s.inspect(b'a', 'TEXT')", "TypeError", "sanitizer.profiles.get('TEXT')"),
    ("s.sanitize(b'a', 'TEXT')", "TypeError", "sanitize() argument 'policy'"),
    ("s.sanitize(b'a', 1)", "TypeError", "sanitize() argument 'policy'"),
    ("s._policy.accepts(b'a', {})", "TypeError", "accepts() argument 'policy'"),
    ("s.inspect(None)", "TypeError", "inspect() argument 'data' must be bytes or str, not None"),
    ("s.sanitize([1])", "TypeError", "sanitize() argument 'data' must be bytes or str, not list"),
    (
        "s._policy.accepts(1)",
        "TypeError",
        "accepts() argument 'data' must be bytes or str, not int",
    ),
    ("s.Policy(max_bytes=True)", "TypeError", "Policy() argument 'max_bytes'"),
    ("s.Policy(max_bytes=-1)", "ValueError", "Policy() argument 'max_bytes'"),
    ("s.Policy(max_combining=1.0)", "TypeError", "Policy() argument 'max_combining'"),
    ("s.Policy(actions=None)", "TypeError", "Policy() argument 'actions' must be a mapping"),
    ("s.Policy(actions={1: 2})", "TypeError", "Policy() argument 'actions': a category must be"),
    (
        "s.Policy(actions={'CONTROL': 2})",
        "TypeError",
        "Policy() argument 'actions': an action must",
    ),
    ("s.Policy(actions={'NOPE': 'strip'})", "ValueError", "unknown category"),
    ("s.Policy(normalization='nfc')", "ValueError", "Policy() argument 'normalization'"),
    ("s.Policy(also_check=1)", "TypeError", "Policy() argument 'also_check'"),
    ("s.Policy(allow_sequences='no')", "TypeError", "Policy() argument 'allow_sequences'"),
    ("s.Policy(name=None)", "TypeError", "Policy() argument 'name' must be str"),
    ("s.Policy(description=1)", "TypeError", "Policy() argument 'description'"),
    ("p.TEXT.with_actions(CONTROL=1)", "TypeError", "with_actions() argument 'changes': an action"),
    ("p.TEXT.with_actions([1])", "TypeError", "Policy.with_actions() argument 'changes'"),
    ("p.TEXT.with_actions(CONTROL='explode')", "ValueError", "unknown action"),
    ("p.TEXT.action(None)", "TypeError", "Policy.action() argument 'category': a category must"),
    ("p.TEXT.replace(max_bytes='1')", "TypeError", "Policy() argument 'max_bytes'"),
    ("p.get(None)", "TypeError", "profiles.get() argument 'name' must be str"),
    ("p.get('nope')", "ValueError", "unknown profile"),
    # identifiers
    ("s.identifiers_equal(None, 'a')", "TypeError", "identifiers_equal() argument 'a'"),
    ("s.identifiers_equal('a', None)", "TypeError", "identifiers_equal() argument 'b'"),
    ("s.identifiers_equal(b'a', b'a')", "TypeError", "identifiers_equal() argument 'a'"),
    (
        "s.identifiers_equal('a', 'a', form=None)",
        "TypeError",
        "identifiers_equal() argument 'form'",
    ),
    ("s.identifiers_equal('a', 'b', form='nfc')", "ValueError", "'form' must be 'NFC', 'NFKC' or"),
    ("s.normalize_identifier(1)", "TypeError", "normalize_identifier() argument 's'"),
    ("s.normalize_identifier('a', form=1)", "TypeError", "normalize_identifier() argument 'form'"),
    # web configuration (the middleware's keywords are WebPolicy fields)
    ("w.WebPolicy(query='TEXT')", "TypeError", "WebPolicy() argument 'query'"),
    ("w.WebPolicy(query='TEXT')", "TypeError", "query must be a sanitizer.Policy"),
    ("w.WebPolicy(max_body_size=True)", "TypeError", "WebPolicy() argument 'max_body_size'"),
    ("w.WebPolicy(max_body_size=-1)", "ValueError", "WebPolicy() argument 'max_body_size'"),
    ("w.WebPolicy(dot_segments='yes')", "TypeError", "WebPolicy() argument 'dot_segments'"),
    ("w.WebPolicy(report_only=None)", "TypeError", "WebPolicy() argument 'report_only'"),
    ("w.WebPolicy(charsets='utf-8')", "TypeError", "WebPolicy() argument 'charsets'"),
    ("w.WebPolicy(untyped_body=1)", "TypeError", "WebPolicy() argument 'untyped_body'"),
    ("w.ASGIMiddleware(None, json='TEXT')", "TypeError", "WebPolicy() argument 'json'"),
    ("w.WSGIMiddleware(None, max_body_size=1.5)", "TypeError", "'max_body_size'"),
    # strategies and the fuzzing harness
    ("st.encode_lax(0x2F, None)", "TypeError", "encode_lax() takes two ints"),
    ("st.encode_lax(0x2F, 7)", "ValueError", "length must be 1 to 6"),
    ("fz.load(None)", "TypeError", "candidate must be a str MODULE:FUNCTION"),
    ("w.ASGIMiddleware(None, 'TEXT')", "TypeError", "policy must be a sanitizer.web.WebPolicy"),
    ("w.ASGIMiddleware(None, policy=0)", "TypeError", "or None, not int"),
    ("w.WSGIMiddleware(None, on_problem=1)", "TypeError", "on_problem must be a callable"),
    ("w.WSGIMiddleware(None, logger='x')", "TypeError", "logger must be a logging.Logger"),
    ("w.check_head(None, b'/', b'', [])", "TypeError", "policy must be a sanitizer.web.WebPolicy"),
    ("w.body_check(w.DEFAULT, None)", "TypeError", "head must be the Head check_head returned"),
    ("w.body_check({}, w.check_head(w.DEFAULT, b'/', b'', [])[1])", "TypeError", "not dict"),
]

# Arguments that are fine, including edge values the two backends once disagreed on.
GOOD_ARGUMENTS = [
    "s.find_errors(b'\\xff\\xff', limit=2**70)",
    "s.find_errors(b'\\xff\\xff', limit=0)",
    "s.IncrementalDecoder().feed(b'\\xff\\xff', True, limit=2**70)",
    "s.sanitize(b'ab', s.Policy(max_bytes=2**70))",
    "s.describe(0x7FFFFFFF)",
    "s.ErrorGrouper().close(2**70)",
]

# Junk for every argument slot of every public call: (call template, slot count).  ``{}``
# is replaced by one junk value at a time; the other slots keep a valid value.
JUNK = [
    "None", "0", "-1", "1", "2**70", "-(2**70)", "1.5", "float('nan')", "True", "False",
    "''", "'TEXT'", "'strict'", "b''", "b'\\xff'", "bytearray(b'a')", "[]", "[1]", "{}",
    "{'CONTROL': 'strip'}", "object()",
]  # fmt: skip
TEMPLATES = [
    "s.decode({})", "s.decode(b'\\xffa', errors={})", "s.decode(b'\\xef\\xbb\\xbfa', bom={})",
    "s.decode(b'\\xc0\\x80', allow_overlong_nul={})", "s.decode(b'a', {})",
    "s.is_valid({})", "s.is_valid(b'\\xc0\\x80', allow_overlong_nul={})",
    "s.find_errors({})", "s.find_errors(b'\\xff\\xff', limit={})",
    "s.find_errors(b'\\xc0\\x80', allow_overlong_nul={})",
    "s.group_errors({})", "s.ErrorGrouper().add({})", "s.ErrorGrouper().close({})",
    "s.encode({})", "s.describe({})",
    "s.IncrementalDecoder({})", "s.IncrementalDecoder(bom={})",
    "s.IncrementalDecoder(allow_overlong_nul={})",
    "s.IncrementalDecoder().feed({})", "s.IncrementalDecoder().feed(b'\\xff', {})",
    "s.IncrementalDecoder().feed(b'\\xff\\xff', limit={})", "s.IncrementalDecoder().decode({})",
    "s.IncrementalDecoder().setstate({})",
    "s.inspect({})", "s.inspect(b'a\\x00', {})", "s.sanitize({})", "s.sanitize(b'a\\x00', {})",
    "s._policy.accepts({})", "s._policy.accepts('a\\x00', {})",
    "s.Policy(name={})", "s.Policy(actions={})", "s.Policy(max_bytes={})",
    "s.Policy(max_code_points={})", "s.Policy(max_combining={})",
    "s.Policy(normalization={})", "s.Policy(also_check={})", "s.Policy(allow_sequences={})",
    "p.TEXT.with_actions({})", "p.TEXT.with_actions(CONTROL={})", "p.TEXT.action({})",
    "p.get({})",
    "s.identifiers_equal({}, 'a')", "s.identifiers_equal('a', {})",
    "s.identifiers_equal('a', 'a', form={})", "s.normalize_identifier({})",
    "s.normalize_identifier('a', form={})",
    "w.WebPolicy(query={})", "w.WebPolicy(max_body_size={})", "w.WebPolicy(charsets={})",
    "w.WebPolicy(dot_segments={})", "w.WebPolicy(report_only={})",
    "w.WebPolicy(untyped_body={})",
]  # fmt: skip

# Every parameter of every public call: (call, a valid value for each parameter, as code).
# Each parameter in turn gets each of HOSTILE (the others keep their valid value); the
# answer must be a result (the value is valid there, e.g. None for an option), a verdict
# on the content (Utf8Error, ByteOrderError, ...), or a TypeError/ValueError naming the
# parameter -- never another exception, never an error that names something else.
HOSTILE = [
    "None", "0", "1", "-1", "True", "1.5", "b'x'", "'x'", "'nope'", "bytearray(b'x')",
    "[]", "{}", "object()", "'utf-16le'", "b'utf-16le'",
]  # fmt: skip
WIDE_BYTES = "b'a\\x00\\x00\\x00'"
SWEEP: list[tuple[str, dict[str, str]]] = [
    ("s.decode({data}, errors={errors}, bom={bom}, allow_overlong_nul={allow_overlong_nul})",
     {"data": "b'a'", "errors": "'strict'", "bom": "'keep'", "allow_overlong_nul": "False"}),
    ("s.is_valid({data}, allow_overlong_nul={allow_overlong_nul})",
     {"data": "b'a'", "allow_overlong_nul": "False"}),
    ("s.find_errors({data}, limit={limit}, allow_overlong_nul={allow_overlong_nul})",
     {"data": "b'a\\xff'", "limit": "None", "allow_overlong_nul": "False"}),
    ("s.encode({text})", {"text": "'a'"}),
    ("s.describe({cp})", {"cp": "65"}),
    ("s.group_errors({errors})", {"errors": "[]"}),
    ("s.ErrorGrouper().add({err})", {"err": "s.find_errors(b'\\xff')[0]"}),
    ("s.ErrorGrouper().close({position})", {"position": "None"}),
    ("s.IncrementalDecoder({errors}, bom={bom}, allow_overlong_nul={allow_overlong_nul})",
     {"errors": "'strict'", "bom": "'keep'", "allow_overlong_nul": "False"}),
    ("s.IncrementalDecoder().decode({input}, {final})", {"input": "b'a'", "final": "False"}),
    ("s.IncrementalDecoder().feed({chunk}, {final}, limit={limit})",
     {"chunk": "b'a'", "final": "False", "limit": "None"}),
    ("s.IncrementalDecoder().find_errors({chunk}, {final}, limit={limit})",
     {"chunk": "b'a'", "final": "False", "limit": "None"}),
    ("s.IncrementalDecoder().setstate({state})", {"state": "(b'', 0)"}),
    *[
        row
        for m in ("utf16", "utf32")
        for row in [
            (f"s.{m}.decode({{data}}, errors={{errors}}, byte_order={{byte_order}}, "
             "default_endian={default_endian})",
             {"data": WIDE_BYTES, "errors": "'strict'", "byte_order": "'le'",
              "default_endian": "None"}),
            (f"s.{m}.is_valid({{data}}, byte_order={{byte_order}}, "
             "default_endian={default_endian})",
             {"data": WIDE_BYTES, "byte_order": "'bom'", "default_endian": "'le'"}),
            (f"s.{m}.find_errors({{data}}, limit={{limit}}, byte_order={{byte_order}}, "
             "default_endian={default_endian})",
             {"data": WIDE_BYTES, "limit": "None", "byte_order": "'le'",
              "default_endian": "None"}),
            (f"s.{m}.IncrementalDecoder({{errors}}, byte_order={{byte_order}}, "
             "default_endian={default_endian})",
             {"errors": "'strict'", "byte_order": "'bom'", "default_endian": "None"}),
            (f"s.{m}.IncrementalDecoder(byte_order='le').decode({{input}}, {{final}})",
             {"input": WIDE_BYTES, "final": "False"}),
            (f"s.{m}.IncrementalDecoder(byte_order='le').feed({{chunk}}, {{final}}, "
             "limit={limit})",
             {"chunk": WIDE_BYTES, "final": "False", "limit": "None"}),
            (f"s.{m}.IncrementalDecoder().setstate({{state}})", {"state": "(b'', 0)"}),
        ]
    ],
    ("wc.codec({encoding})", {"encoding": "'utf-16'"}),
    *[(f"s.utf7.{f}({{data}})", {"data": "b'a'"})
      for f in ("inspect", "find_errors", "is_valid", "decode")],
    ("s.utf7.spelling({data}, {limit})", {"data": "b'+ADw-'", "limit": "64"}),
    ("s.inspect({data}, {policy}, encoding={encoding})",
     {"data": "b'a'", "policy": "None", "encoding": "'utf-8'"}),
    ("s.sanitize({data}, {policy})", {"data": "b'a'", "policy": "None"}),
    ("s._policy.accepts({data}, {policy})", {"data": "b'a'", "policy": "None"}),
    ("s.Policy(name={name}, actions={actions}, max_bytes={max_bytes}, "
     "max_code_points={max_code_points}, max_combining={max_combining}, "
     "max_findings={max_findings}, normalization={normalization}, also_check={also_check}, "
     "allow_sequences={allow_sequences}, max_restriction_level={max_restriction_level}, "
     "description={description})",
     {"name": "'n'", "actions": "{}", "max_bytes": "None", "max_code_points": "None",
      "max_combining": "None", "max_findings": "None", "normalization": "None",
      "also_check": "None", "allow_sequences": "False", "max_restriction_level": "None",
      "description": "''"}),
    ("p.TEXT.with_actions({changes})", {"changes": "None"}),
    ("p.TEXT.action({category})", {"category": "'control'"}),
    ("p.get({name})", {"name": "'TEXT'"}),
    ("s.normalize_identifier({s}, form={form})", {"s": "'a'", "form": "'NFC'"}),
    ("s.identifiers_equal({a}, {b}, form={form})", {"a": "'a'", "b": "'a'", "form": "'NFC'"}),
    *[
        (f"la.{f}({{s}})", {"s": "'a'"})
        for f in ("skeleton", "resolved_scripts", "restriction_level", "mixed_numbers",
                  "hidden_overlays", "identifier_key")
    ],
    ("la.confusable({a}, {b})", {"a": "'a'", "b": "'a'"}),
    *[(f"la.{f}({{ch}})", {"ch": "'a'"})
      for f in ("script_extensions", "identifier_status", "identifier_types")],
    ("la.script_name({code})", {"code": "'Latn'"}),
    ("w.WebPolicy(path={path}, query={query}, charsets={charsets}, "
     "max_body_size={max_body_size}, dot_segments={dot_segments}, "
     "untyped_body={untyped_body}, report_only={report_only})",
     {"path": "None", "query": "None", "charsets": "frozenset({'utf-8'})",
      "max_body_size": "None", "dot_segments": "False", "untyped_body": "None",
      "report_only": "False"}),
    ("w.ASGIMiddleware(print, {policy}, on_problem={on_problem}, logger={logger})",
     {"policy": "None", "on_problem": "None", "logger": "None"}),
    ("w.WSGIMiddleware(print, {policy}, on_problem={on_problem}, logger={logger})",
     {"policy": "None", "on_problem": "None", "logger": "None"}),
    ("ipyd.IdentifierValidator({policy})", {"policy": "p.IDENTIFIER"}),
    ("idj.IdentifierValidator({policy}, message={message}, code={code})",
     {"policy": "'identifier'", "message": "None", "code": "None"}),
    # rekey() and save_unique() need a database: tests/integrations/test_django.py
]  # fmt: skip
# Verdicts on the content of a valid argument, not argument errors.
CONTENT_ERRORS = {
    "Utf8Error", "BomError", "EncodeError", "Utf16Error", "Utf32Error", "ByteOrderError",
    "Utf7Error", "PolicyError",
}  # fmt: skip


def sweep_expressions() -> dict[str, str]:
    """Each call of SWEEP with one hostile argument -> the parameter it went to."""
    found = {}
    for template, valid in SWEEP:
        for param in valid:
            for value in HOSTILE:
                found[template.format(**{**valid, param: value})] = param
    return found


RUNNER = r"""
import json, re, sys
import sanitizer as s
import sanitizer._policy
import sanitizer.web as w
from sanitizer import profiles as p
from sanitizer import strategies as st
from sanitizer import fuzzing as fz
from sanitizer import _lookalike as la
from sanitizer import _wide_codecs as wc
from sanitizer.integrations import pydantic as ipyd
import django
from django.conf import settings
settings.configure()
django.setup()
from sanitizer.integrations import django as idj

def outcome(expr):
    try:
        value = eval(expr)
    except (TypeError, ValueError) as exc:  # PolicyError, Utf8Error, BomError included
        return [type(exc).__name__, re.sub(r" at 0x[0-9a-f]+", "", str(exc))]
    except Exception as exc:
        return ["ESCAPED " + type(exc).__name__, str(exc)]
    return ["ok", re.sub(r" at 0x[0-9a-f]+", "", repr(value))[:200]]

exprs = json.load(sys.stdin)
print(json.dumps({e: outcome(e) for e in exprs}))
"""


def _all_expressions() -> list[str]:
    junk_calls = [t.replace("{}", j) for t in TEMPLATES for j in JUNK]
    return [row[0] for row in BAD_ARGUMENTS] + GOOD_ARGUMENTS + junk_calls + [*sweep_expressions()]


@functools.cache
def outcomes(pure: bool) -> dict[str, list[str]]:
    env = dict(os.environ)
    env.pop("SANITIZER_PURE_PYTHON", None)
    if pure:
        env["SANITIZER_PURE_PYTHON"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=json.dumps(_all_expressions()),
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    result: dict[str, list[str]] = json.loads(done.stdout)
    return result


BACKENDS = [pytest.param(False, id="c"), pytest.param(True, id="python")]


@pytest.mark.parametrize("pure", BACKENDS)
@pytest.mark.parametrize(("expr", "kind", "message"), BAD_ARGUMENTS)
def test_bad_argument(pure: bool, expr: str, kind: str, message: str) -> None:
    got_kind, got_message = outcomes(pure)[expr]
    assert (got_kind, message in got_message) == (kind, True), got_message


@pytest.mark.parametrize("pure", BACKENDS)
@pytest.mark.parametrize("expr", GOOD_ARGUMENTS)
def test_good_argument(pure: bool, expr: str) -> None:
    assert outcomes(pure)[expr][0] == "ok", outcomes(pure)[expr]


def test_backends_agree_on_every_argument() -> None:
    c, py = outcomes(False), outcomes(True)
    differ = {e: (c[e], py[e]) for e in c if c[e] != py[e]}
    assert not differ


@pytest.mark.parametrize("pure", BACKENDS)
def test_every_argument_error_names_its_parameter(pure: bool) -> None:
    """SWEEP: each hostile argument is accepted, judged as content, or refused by a
    TypeError/ValueError that names the parameter it was given to."""
    found = outcomes(pure)
    wrong = {}
    for expr, param in sweep_expressions().items():
        kind, message = found[expr]
        if kind == "ok" or kind in CONTENT_ERRORS:
            continue
        if kind in ("TypeError", "ValueError") and re.search(rf"\b{param}\b", message):
            continue
        wrong[expr] = (kind, message)
    assert wrong == {}


def test_junk_raises_only_type_or_value_errors() -> None:
    escaped = {e: r for e, r in outcomes(True).items() if r[0].startswith("ESCAPED")}
    escaped |= {e: r for e, r in outcomes(False).items() if r[0].startswith("ESCAPED")}
    assert not escaped


def _junk() -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(min_value=2**62),
        st.floats(),
        st.text(max_size=8),
        st.binary(max_size=8),
        st.sampled_from(["TEXT", "strict", "replace", "keep", "NFC", "CONTROL", "strip"]),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=2)
        ),
        max_leaves=4,
    )


def _app(*args: Any) -> None:
    """An app the middleware wraps; never called here."""


# The public calls, one argument slot at a time (the rest valid), in this process's backend.
SLOTS: dict[str, Any] = {
    "decode": lambda x: sanitizer.decode(x),
    "decode.errors": lambda x: sanitizer.decode(b"\xff", errors=x),
    "decode.bom": lambda x: sanitizer.decode(b"a", bom=x),
    "decode.allow_overlong_nul": lambda x: sanitizer.decode(b"a", allow_overlong_nul=x),
    "is_valid": lambda x: sanitizer.is_valid(x),
    "find_errors": lambda x: sanitizer.find_errors(x),
    "find_errors.limit": lambda x: sanitizer.find_errors(b"\xff\xff", limit=x),
    "group_errors": lambda x: sanitizer.group_errors(x),
    "ErrorGrouper.add": lambda x: sanitizer.ErrorGrouper().add(x),
    "ErrorGrouper.close": lambda x: sanitizer.ErrorGrouper().close(x),
    "encode": lambda x: sanitizer.encode(x),
    "describe": lambda x: sanitizer.describe(x),
    "IncrementalDecoder.errors": lambda x: sanitizer.IncrementalDecoder(x),
    "IncrementalDecoder.bom": lambda x: sanitizer.IncrementalDecoder(bom=x),
    "feed": lambda x: sanitizer.IncrementalDecoder().feed(x),
    "feed.final": lambda x: sanitizer.IncrementalDecoder().feed(b"\xe2", x),
    "feed.limit": lambda x: sanitizer.IncrementalDecoder().feed(b"\xff", limit=x),
    "setstate": lambda x: sanitizer.IncrementalDecoder().setstate(x),
    "inspect": lambda x: sanitizer.inspect(x),
    "inspect.policy": lambda x: sanitizer.inspect(b"a\x00", x),
    "sanitize.policy": lambda x: sanitizer.sanitize("a", x),
    "Policy.actions": lambda x: sanitizer.Policy(actions=x),
    "Policy.max_bytes": lambda x: sanitizer.Policy(max_bytes=x),
    "Policy.normalization": lambda x: sanitizer.Policy(normalization=x),
    "Policy.allow_sequences": lambda x: sanitizer.Policy(allow_sequences=x),
    "Policy.name": lambda x: sanitizer.Policy(name=x),
    "with_actions": lambda x: profiles.TEXT.with_actions(x),
    "with_actions.kw": lambda x: profiles.TEXT.with_actions(CONTROL=x),
    "profiles.get": lambda x: profiles.get(x),
    "identifiers_equal": lambda x: sanitizer.identifiers_equal(x, "a"),
    "identifiers_equal.form": lambda x: sanitizer.identifiers_equal("a", "a", form=x),
    "normalize_identifier": lambda x: sanitizer.normalize_identifier(x),
    "WebPolicy.query": lambda x: WebPolicy(query=x),
    "WebPolicy.max_body_size": lambda x: WebPolicy(max_body_size=x),
    "WebPolicy.charsets": lambda x: WebPolicy(charsets=x),
    "WebPolicy.untyped_body": lambda x: WebPolicy(untyped_body=x),
    "ASGIMiddleware.policy": lambda x: ASGIMiddleware(_app, x),
    "ASGIMiddleware.on_problem": lambda x: ASGIMiddleware(_app, on_problem=x),
    "WSGIMiddleware.logger": lambda x: WSGIMiddleware(_app, logger=x),
    "check_head.policy": lambda x: check_head(x, b"/", b"", []),
    "body_check.head": lambda x: body_check(DEFAULT, x),
}


@pytest.mark.parametrize("slot", sorted(SLOTS))
@settings(max_examples=40, deadline=None)
@given(junk=_junk())
def test_random_junk(slot: str, junk: Any) -> None:
    try:
        SLOTS[slot](junk)
    except (TypeError, ValueError):
        pass
