"""Library contracts a caller relies on without reading the code: every public value and
every exception survives ``pickle`` and ``copy.deepcopy`` (what a process pool does to
arguments, results and what a worker raises), and a decode error from a stream decoder
is self-consistent (``object[start:end]`` is the bad bytes, as for CPython's errors).

The public classes are enumerated from the package (``sanitizer``, ``sanitizer.precis``,
``sanitizer.web``) and every exception class from every module: one without an example
below fails ``test_every_class_has_an_example``, so a new class is covered or noticed.
"""

from __future__ import annotations

import codecs
import concurrent.futures
import copy
import dataclasses
import importlib
import importlib.util
import inspect as pyinspect
import itertools
import multiprocessing
import pickle
import pkgutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import sanitizer
from sanitizer import (
    IncrementalDecoder,
    Policy,
    PolicyError,
    find_errors,
    inspect,
    precis,
    profiles,
    reveal,
    sanitize,
    utf7,
    utf16,
    utf32,
)
from sanitizer._moved import MOVED


def _raised(call: Callable[[], object]) -> BaseException:
    try:
        call()
    except BaseException as exc:  # the example is the exception
        return exc
    raise AssertionError(f"{call} raised nothing")


def _derived() -> list[Policy]:
    return [
        profiles.TEXT.with_actions(CONTROL=sanitizer.Action.STRIP),
        profiles.IDENTIFIER.replace(max_code_points=32, normalization="NFKC_CASEFOLD"),
        Policy(name="mine", max_restriction_level="moderately-restrictive", max_bytes=9),
    ]


def _every_profile() -> list[Policy]:
    return [p for p in vars(profiles).values() if isinstance(p, Policy)]


MIXED = "abc\u202e\u200b\x07 p\u0430ypal \U000e0068\U000e0069 \u0301" * 2


def _policy_errors() -> list[BaseException]:
    return [_raised(lambda p=p: sanitize(MIXED, p)) for p in _every_profile()]


def _utf8_errors() -> list[BaseException]:
    dec = IncrementalDecoder("replace")
    dec.feed(b"0123456789\xe2")
    _, later = dec.feed(b"\x82x\xff\xc0\xaf", final=True)
    return [*find_errors(b"a\xc0\xafb\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82"), *later]


def _wide_errors() -> list[BaseException]:
    dec = utf16.IncrementalDecoder("replace", byte_order="le")
    dec.feed(b"a\x00b\x00")
    _, later = dec.feed(b"\x00\xd8c\x00\x00", final=True)
    return [
        *utf16.find_errors(b"\x00\xdca\x00\x00\xd8", byte_order="le"),
        *utf32.find_errors(b"\x00\x00\x11\x00\x00\xd8\x00\x00\x01", byte_order="le"),
        *later,
        _raised(lambda: utf16.decode(b"A\x00")),
        _raised(lambda: utf32.decode(b"A\x00\x00\x00")),
    ]


def _web() -> list[object]:
    web = pytest.importorskip("sanitizer.web")
    from sanitizer.web._problems import Problem

    problem = Problem(400, "ill-formed-utf8", "overlong", "query", "query string", "x", 3)
    return [web.WebPolicy(), web.WebPolicy(max_body_size=10), problem, web.RequestRejected(problem)]


def _fuzzing_errors() -> list[BaseException]:
    from sanitizer._fuzzing.campaign import UsageError
    from sanitizer._fuzzing.oracles import CandidateEscape, Divergence, InputTimeout, Note
    from sanitizer._fuzzing.web_oracle import WebDivergence

    return [
        UsageError("unknown target 'x'"),
        Divergence("texts differ", b"\xc0\xaf", [("ours", "a"), ("cpython", Note("b"))]),
        CandidateEscape("SystemExit(3)"),
        InputTimeout(),
        WebDivergence("verdicts differ"),
    ]


def _cli_errors() -> list[BaseException]:
    from sanitizer.cli._external_sort import TemporaryFileError
    from sanitizer.cli._output import OutputError
    from sanitizer.cli._suppress import ConfigError

    return [
        ConfigError("pyproject.toml: [tool.sanitizer] ignore must be a list of rule ids"),
        TemporaryFileError(OSError(28, "No space left on device")),
        OutputError(BrokenPipeError(32, "Broken pipe")),
    ]


def _body_refused(problem: Any) -> Any:
    from sanitizer.web.aiohttp import BodyRefused

    return BodyRefused(problem)


def _examples() -> dict[str, Callable[[], list[Any]]]:
    """Class name -> examples of it (several where the class has several shapes)."""
    enum_classes = (
        "Action Category Channel Confusability ErrorKind IdentifierStatus IdentifierType "
        "RestrictionLevel UnitErrorKind Utf7ErrorKind"
    ).split()
    examples: dict[str, Callable[[], list[Any]]] = {
        name: (lambda name=name: list(getattr(sanitizer, name))) for name in enum_classes
    }
    report = inspect(MIXED.encode() + b"\xc0\xaf", profiles.TEXT)
    hidden = reveal("hi \U000e0068\U000e0069\U000e0021 there")
    examples.update(
        Policy=lambda: [*_every_profile(), *_derived()],
        Report=lambda: [report, inspect("plain", profiles.TEXT), inspect("", profiles.PROMPT)],
        Finding=lambda: list(report.findings),
        Hidden=lambda: list(hidden),
        Reading=lambda: [h.reading for h in reveal("x" + "\u200b\u200c" * 40) if h.reading],
        PolicyError=_policy_errors,
        Utf8Error=_utf8_errors,
        BomError=lambda: [_raised(lambda: sanitizer.decode(b"\xef\xbb\xbfa", bom="reject"))],
        EncodeError=lambda: [_raised(lambda: sanitizer.encode("a\ud800"))],
        Utf7Error=lambda: utf7.find_errors(b"+ADw-script+AD4- +2D0- \xff a+"),
        Utf16Error=lambda: [e for e in _wide_errors() if type(e).__name__ == "Utf16Error"],
        Utf32Error=lambda: [e for e in _wide_errors() if type(e).__name__ == "Utf32Error"],
        ByteOrderError=lambda: [e for e in _wide_errors() if type(e).__name__ == "ByteOrderError"],
        ErrorGrouper=lambda: [sanitizer.ErrorGrouper()],
        Utf7Report=lambda: [utf7.inspect(b"+ADw-script+AD4- ok +2D0-"), utf7.inspect(b"plain")],
        IncrementalDecoder=lambda: [IncrementalDecoder(), _mid_stream()],
        PrecisError=lambda: [
            _raised(lambda n=n: precis.get_profile(n).enforce("a\u202eb\u0000"))
            for n in precis.PROFILE_NAMES
        ],
        UnknownProfileError=lambda: [_raised(lambda: precis.get_profile("nope"))],
        Profile=lambda: [precis.get_profile(n) for n in precis.PROFILE_NAMES],
        WebPolicy=lambda: _web()[:2],
        Problem=lambda: _web()[2:3],
        RequestRejected=lambda: _web()[3:],
        ASGIMiddleware=list,  # wrap an application: pickled as the application is
        WSGIMiddleware=list,
        BodyCheck=list,  # a request's state, not a value
        BodyRefused=lambda: [_body_refused(_web()[2])],
    )
    for codec in (utf16, utf32):
        examples[f"{codec.__name__.rsplit('.', 1)[1]}.IncrementalDecoder"] = lambda codec=codec: [
            codec.IncrementalDecoder(),
            _wide_mid_stream(codec),
        ]
    for exc in [*_fuzzing_errors(), *_cli_errors()]:
        examples[type(exc).__name__] = lambda exc=exc: [exc]
    examples["WideError"] = lambda: [
        e for e in _wide_errors() if type(e).__name__ != "ByteOrderError"
    ]
    return examples


def _wide_mid_stream(codec: Any) -> Any:
    dec = codec.IncrementalDecoder("replace", byte_order="bom")
    dec.decode(codec.CODEC.boms[0] + "a".encode(f"{codec.CODEC.family}-le") + b"\x3d")
    return dec


def _mid_stream() -> IncrementalDecoder:
    dec = IncrementalDecoder()
    dec.decode(b"abc\xe2\x82")
    return dec


def _public_classes() -> dict[str, type]:
    """Name -> class, for the classes the public modules export (a class exported by a
    codec module under a name taken already is prefixed with the module's name)."""
    found: dict[str, type] = {}
    spaces = [("", sanitizer), ("", precis), ("utf7.", utf7), ("utf16.", utf16)]
    spaces.append(("utf32.", utf32))
    try:
        spaces.append(("", importlib.import_module("sanitizer.web")))
    except ImportError:  # pragma: no cover -- an extra not installed
        pass
    for prefix, space in spaces:
        for name in space.__all__:
            value = getattr(space, name)
            if pyinspect.isclass(value) and value not in found.values():
                found[name if name not in found else prefix + name] = value
    return found


def _names(path: Path, prefix: str) -> Iterator[str]:
    """The modules under ``path``, the old import paths kept for one release left out
    (``sanitizer._moved.MOVED``: they warn, hold nothing of their own, and walk_packages
    would import them)."""
    for info in pkgutil.iter_modules([str(path)]):
        if info.name == "__main__" or prefix + info.name in MOVED:
            continue
        yield prefix + info.name
        if info.ispkg:
            yield from _names(path / info.name, f"{prefix}{info.name}.")


def _modules() -> Iterator[Any]:
    for name in _names(Path(sanitizer.__path__[0]), "sanitizer."):
        try:
            yield importlib.import_module(name)
        except ImportError:  # an optional extra (a framework, atheris) not installed
            continue
        except Exception:  # a framework's adapter needs its settings
            if ".django" not in name:
                raise


def _exception_classes() -> dict[str, type]:
    found: dict[str, type] = {}
    for module in _modules():
        for name, value in vars(module).items():
            if (
                issubclass(type(value), type)  # not isclass: django's lazy settings
                and issubclass(value, BaseException)
                and value.__module__.startswith("sanitizer")
                and not name.startswith("_")
            ):
                found[name] = value
    return found


def _same(a: object, b: object) -> None:
    """``b`` is a faithful copy of ``a``."""
    assert type(a) is type(b)
    if isinstance(a, BaseException):
        assert a.args == b.args and str(a) == str(b) and repr(a) == repr(b)
        for name in ("report", "problem", "what", "data", "answers", "exc"):
            if hasattr(a, name):
                assert repr(getattr(a, name)) == repr(getattr(b, name)), name
        if isinstance(a, UnicodeError):
            assert a.encoding == b.encoding  # type: ignore[attr-defined]
            assert (a.object, a.start, a.end) == (b.object, b.start, b.end)  # type: ignore[attr-defined]
            for name in ("stream_start", "stream_end", "sequence", "kind", "reason"):
                if hasattr(a, name):
                    assert getattr(a, name) == getattr(b, name), name
    elif isinstance(a, (utf16.IncrementalDecoder, utf32.IncrementalDecoder)):
        assert a.getstate() == b.getstate()  # type: ignore[attr-defined]
        assert (a.byte_order, a.errors) == (b.byte_order, b.errors)  # type: ignore[attr-defined]
    elif isinstance(a, IncrementalDecoder):
        assert a.getstate() == b.getstate()  # type: ignore[attr-defined]
        assert a.feed(b"\xac", final=True)[0] == b.feed(b"\xac", final=True)[0]  # type: ignore[attr-defined]
    elif isinstance(a, sanitizer.ErrorGrouper):
        pass  # no fields to compare: its behaviour is its state's
    else:
        assert a == b
        if type(a).__hash__ is not None:
            assert hash(a) == hash(b)


def _every_example() -> list[tuple[str, object]]:
    examples = _examples()
    out = []
    for name in sorted({*_public_classes(), *_exception_classes()}):
        for value in examples[name]():
            out.append((name, value))
    return out


def test_every_class_has_an_example() -> None:
    examples = _examples()
    classes = {**_public_classes(), **_exception_classes()}
    assert sorted(set(classes) - set(examples)) == []
    for name, cls in classes.items():
        made = examples[name]()
        # WideError is abstract: its examples are its two encodings' errors
        assert all(type(x) is cls or (name == "WideError" and isinstance(x, cls)) for x in made)
        if name not in ("ASGIMiddleware", "WSGIMiddleware", "BodyCheck"):
            assert made, name


@pytest.mark.parametrize(
    "copier",
    [
        pytest.param(lambda x: pickle.loads(pickle.dumps(x)), id="pickle"),
        pytest.param(lambda x: pickle.loads(pickle.dumps(x, protocol=0)), id="pickle-protocol-0"),
        pytest.param(copy.deepcopy, id="deepcopy"),
        pytest.param(copy.copy, id="copy"),
    ],
)
def test_every_public_value_and_exception_round_trips(copier: Callable[[object], object]) -> None:
    for name, value in _every_example():
        try:
            got = copier(value)
        except Exception as exc:  # name the class that fails
            raise AssertionError(f"{name}: {type(exc).__name__}: {exc}") from exc
        _same(value, got)


def test_every_frozen_value_refuses_any_assignment() -> None:
    """A frozen value refuses to take any attribute, a field or a new name, with an
    AttributeError (a slotted frozen dataclass raises TypeError for a new name)."""
    report = sanitizer.check_source("x = '\u202e'\nb\u0430d = 1\n")
    values = [*(v for _, v in _every_example()), report, *report.findings]
    frozen = [v for v in values if dataclasses.is_dataclass(v) and v.__dataclass_params__.frozen]
    assert {type(v).__name__ for v in frozen} >= {"Hidden", "SourceFinding", "SourceReport"}
    for value in frozen:
        for name in (dataclasses.fields(value)[0].name, "not_a_field"):
            with pytest.raises(AttributeError):
                setattr(value, name, 1)
            with pytest.raises(AttributeError):
                delattr(value, name)


def test_exceptions_name_their_public_module() -> None:
    """A traceback names the class where a caller imports it from, and pickle finds it
    there (``__module__`` + ``__qualname__``)."""
    for name, cls in _exception_classes().items():
        if name in _public_classes():
            module = importlib.import_module(cls.__module__)
            assert not any(part.startswith("_") for part in cls.__module__.split(".")), name
            assert getattr(module, cls.__qualname__) is cls, name
    assert sanitizer.PolicyError.__module__ == "sanitizer"
    assert precis.PrecisError.__module__ == "sanitizer.precis"


def test_a_policy_copy_hashes_in_its_own_process() -> None:
    """str hashes are salted per process: a policy's cached hash is made again when it
    is unpickled, never carried over (else a policy from a worker misses every dict)."""
    policy = profiles.TEXT.with_actions(CONTROL=sanitizer.Action.STRIP)
    object.__setattr__(policy, "_hash", 12345)  # as another process would have it
    for got in (pickle.loads(pickle.dumps(policy)), copy.deepcopy(policy)):
        assert got == policy and hash(got) == hash(
            profiles.TEXT.with_actions(CONTROL=sanitizer.Action.STRIP)
        )
    assert dict(pickle.loads(pickle.dumps(profiles.TEXT)).actions) == dict(profiles.TEXT.actions)
    with pytest.raises(TypeError):
        pickle.loads(pickle.dumps(profiles.TEXT)).actions[sanitizer.Category.CONTROL] = "x"  # type: ignore[index]


@st.composite
def _policies(draw: st.DrawFn) -> Policy:
    base = draw(st.sampled_from(_every_profile()))
    changes: dict[sanitizer.Category | str, sanitizer.Action | str] = draw(
        st.dictionaries(
            st.sampled_from(list(sanitizer.Category)), st.sampled_from(list(sanitizer.Action))
        )
    )
    try:
        base = base.with_actions(dict(changes))
    except ValueError:  # an action that category cannot take
        pass
    return base.replace(
        max_bytes=draw(st.none() | st.integers(0, 99)),
        max_findings=draw(st.none() | st.integers(0, 5)),
        normalization=draw(st.sampled_from([None, "NFC", "NFKC", "NFKC_CASEFOLD"])),
    )


@pytest.mark.slow  # a derived policy is compiled for each example
@given(policy=_policies(), text=st.text(max_size=20))
def test_derived_policies_reports_and_refusals_round_trip(policy: Policy, text: str) -> None:
    report = inspect(text, policy)
    for value in (policy, report, *report.findings):
        _same(value, pickle.loads(pickle.dumps(value)))
        _same(value, copy.deepcopy(value))
    if not report.ok:
        error = _raised(lambda: sanitize(text, policy))
        assert isinstance(error, PolicyError)
        _same(error, pickle.loads(pickle.dumps(error)))


# -- a real process pool ------------------------------------------------------------------


def _sanitize_in_worker(text: str, policy: Policy) -> str:
    return sanitize(text, policy)


def _inspect_in_worker(text: str, policy: Policy) -> tuple[sanitizer.Report, Policy]:
    return inspect(text, policy), policy


def _decode_in_worker(data: bytes) -> str:
    return sanitizer.decode(data)


@pytest.mark.slow  # starts a Python process (spawn: its own str hash salt)
def test_a_process_pool_round_trips_policies_reports_and_errors() -> None:
    policy = profiles.PROMPT.with_actions(CONTROL=sanitizer.Action.STRIP)
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        report, back = pool.submit(_inspect_in_worker, MIXED, policy).result()
        assert back == policy and {policy: 1}[back] == 1  # hash made in this process
        assert report == inspect(MIXED, policy)
        with pytest.raises(PolicyError) as caught:
            pool.submit(_sanitize_in_worker, "a\u202eb", profiles.TEXT).result()
        assert caught.value.report == inspect("a\u202eb", profiles.TEXT)
        with pytest.raises(sanitizer.Utf8Error) as bad:
            pool.submit(_decode_in_worker, b"ab\xc0\xaf").result()
        assert (bad.value.start, bad.value.kind.value) == (2, "overlong")


# -- stream decoders' errors --------------------------------------------------------------

_WIDE = [
    (utf16.IncrementalDecoder, utf16.find_errors, "le"),
    (utf16.IncrementalDecoder, utf16.find_errors, "be"),
    (utf32.IncrementalDecoder, utf32.find_errors, "le"),
    (utf32.IncrementalDecoder, utf32.find_errors, "be"),
]
_UNITS = st.sampled_from(
    [b"\x00\xd8", b"\x00\xdc", b"\xd8\x00", b"\x41\x00", b"\x00\x41", b"\x00\x00\x11\x00"]
) | st.binary(max_size=3)


def _cuts(draw: Callable[[st.SearchStrategy[Any]], Any], data: bytes) -> list[bytes]:
    points = sorted(draw(st.sets(st.integers(0, len(data)), max_size=4)))
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def _self_consistent(err: UnicodeDecodeError, data: bytes, one: UnicodeDecodeError) -> None:
    """``err`` (from a stream) is ``one`` (one-shot), with CPython's meaning of
    ``object``/``start``/``end``, and the stream offsets in their own attributes."""
    assert err.object[err.start : err.end] == data[err.stream_start : err.stream_end]  # type: ignore[attr-defined]
    assert (err.stream_start, err.stream_end) == (one.start, one.end)  # type: ignore[attr-defined]
    assert 0 <= err.start < err.end <= len(err.object)
    assert err.sequence == one.sequence and err.kind == one.kind  # type: ignore[attr-defined]
    assert str(err) == str(one) and err.as_dict() == one.as_dict()  # type: ignore[attr-defined]
    # CPython's readers of a UnicodeDecodeError see the bad bytes: its message and the
    # error handlers (which index ``object`` with ``start``/``end``).
    assert codecs.backslashreplace_errors(err)[0] == codecs.backslashreplace_errors(one)[0]
    span = f"{err.start}" if err.end - err.start == 1 else f"{err.start}-{err.end - 1}"
    assert f"in position {span}: " in UnicodeDecodeError.__str__(err)


@given(
    data=st.data(),
    raw=st.lists(
        st.sampled_from(
            [
                b"a",
                b"\xc0\xaf",
                b"\xed\xa0\x80",
                b"\xe2\x82",
                b"\xff",
                b"\xf4\x90\x80\x80",
                b"\xe2\x82\xac",
            ]
        ),
        max_size=8,
    ).map(b"".join),
)
def test_utf8_stream_errors_are_self_consistent(data: st.DataObject, raw: bytes) -> None:
    dec = IncrementalDecoder("replace")
    errors: list[Any] = []
    chunks = _cuts(data.draw, raw)
    for i, chunk in enumerate(chunks):
        errors += dec.feed(chunk, final=i == len(chunks) - 1)[1]
    errors += dec.feed(b"", final=True)[1]
    whole = find_errors(raw)
    assert len(errors) == len(whole)
    for err, one in zip(errors, whole, strict=True):
        _self_consistent(err, raw, one)
        assert err.base + err.naive_end == one.naive_end and err.naive == one.naive


@given(data=st.data(), units=st.lists(_UNITS, max_size=6), which=st.sampled_from(_WIDE))
def test_wide_stream_errors_are_self_consistent(
    data: st.DataObject, units: list[bytes], which: tuple[Any, Any, str]
) -> None:
    make, find, order = which
    raw = b"".join(units)
    dec = make("replace", byte_order=order)
    errors: list[Any] = []
    chunks = _cuts(data.draw, raw)
    for chunk in chunks:
        errors += dec.feed(chunk)[1]
    errors += dec.feed(b"", final=True)[1]
    whole = find(raw, byte_order=order)
    assert len(errors) == len(whole)
    for err, one in zip(errors, whole, strict=True):
        _self_consistent(err, raw, one)


def test_the_strict_stream_decoders_raise_errors_cpython_can_print() -> None:
    """``codecs`` protocol, strict: the error raised mid-stream prints the offending byte
    in CPython's own message, not an empty span ("position 12-12")."""
    dec = IncrementalDecoder()
    dec.decode(b"0123456789ab")
    err = _raised(lambda: dec.decode(b"c\xff"))
    assert isinstance(err, sanitizer.Utf8Error)
    assert "can't decode byte 0xff in position 1" in UnicodeDecodeError.__str__(err)
    assert str(err).startswith("invalid UTF-8 at byte 13 (FF)")
    wide = utf16.IncrementalDecoder(byte_order="le")
    wide.decode(b"a\x00b\x00")
    err = _raised(lambda: wide.decode(b"\x00\xdc"))
    assert isinstance(err, sanitizer.Utf16Error)
    assert err.object[err.start : err.end] == b"\x00\xdc" and err.stream_start == 4
    assert str(err).startswith("invalid UTF-16-LE at byte 4 (00 DC)")


@given(
    raw=st.binary(max_size=24).map(lambda b: bytes(x & 0x7F for x in b)) | st.binary(max_size=12)
)
def test_utf7_errors_index_their_own_object(raw: bytes) -> None:
    for err in utf7.find_errors(raw):
        assert err.object is raw or err.object == raw
        assert err.object[err.start : err.end] == err.sequence
        assert 0 <= err.start <= err.end <= len(raw)
