"""How ``sanitizer check`` is cut: settings spelt once, modes by name, one emitter a format.

``Settings`` (a ``_record.Record``: a frozen dataclass for type checkers, built without
``dataclasses`` at run time) holds every field and default once: the parser takes its
defaults from it, and ``resolve`` copies the options taken as given by their names.
Each input mode is registered in ``_check.MODES`` and imported by name, so the import
graph (``test_import_cycles``) does not see the command reach its modes: that no mode
reaches the command is asserted here.
"""

from __future__ import annotations

import argparse
import pickle

import pytest

from sanitizer.cli import _check, _check_args, build_parser
from sanitizer.cli._locate import CODEPOINTS, UTF16
from sanitizer.cli._output import Emitter, Writer
from sanitizer.cli._record import Record
from sanitizer.cli._report import EMITTERS, FORMATS
from sanitizer.cli._walk import WalkNotice
from tests.suites.test_import_cycles import graph


def _resolved(*options: str) -> _check_args.Settings:
    argv = ["check", *options, "-"]
    got = _check_args.resolve(build_parser(argv).parse_args(argv))
    assert not isinstance(got, str), got
    return got


def test_no_option_resolves_to_the_default_settings() -> None:
    assert _resolved() == _check_args.Settings()
    assert _resolved("--format", "sarif") == _check_args.Settings(columns=UTF16)


def test_each_option_taken_as_given_reaches_its_field() -> None:
    parsed = vars(build_parser(["check", "-"]).parse_args(["check", "-"]))
    assert set(_check_args.AS_GIVEN) <= set(parsed)
    changed = _resolved(
        "--encoding=utf-16le", "--strict", "--limit=7", "--max-bytes=9", "--jobs=3",
        "--declared-encoding=allow", "--binary=fail", "--allow-overlong-nul", "--quiet",
        "--verbose",
        "--records=jsonl",
    )  # fmt: skip
    values = {name: getattr(changed, name) for name in _check_args.AS_GIVEN}
    assert values == {
        "encoding": "utf-16le", "strict": True, "limit": 7, "max_bytes": 9, "jobs": 3,
        "declared_encoding": "allow", "binary": "fail", "allow_overlong_nul": True,
        "quiet": True, "verbose": True, "records": "jsonl",
    }  # fmt: skip
    assert changed.utf8 is False and changed.columns == CODEPOINTS
    assert all(getattr(changed, n) != getattr(_check_args.DEFAULTS, n) for n in values)


def test_settings_are_a_frozen_value() -> None:
    settings = _check_args.Settings(limit=5)
    with pytest.raises(AttributeError):
        settings.limit = 6  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del settings.limit  # type: ignore[misc]
    assert settings == _check_args.Settings(limit=5) != _check_args.Settings()
    assert hash(settings) == hash(_check_args.Settings(limit=5))
    assert pickle.loads(pickle.dumps(settings)) == settings
    assert repr(settings).startswith("Settings(policy=None, source=False, ")
    with pytest.raises(TypeError, match="unexpected"):
        _check_args.Settings(no_such_field=1)  # type: ignore[call-arg]


def test_a_record_is_built_as_a_dataclass_is() -> None:
    class Pair(Record):
        first: int
        second: str = "b"

    assert Pair(1) == Pair(first=1) == Pair(1, "b")
    assert Pair.__slots__ == ("first", "second")
    with pytest.raises(TypeError, match="missing"):
        Pair()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="twice"):
        Pair(1, first=2)  # type: ignore[misc]
    with pytest.raises(TypeError, match="takes 2"):
        Pair(1, "b", 3)  # type: ignore[call-arg]
    assert WalkNotice("p", "why").error is True


def test_each_format_has_one_emitter() -> None:
    parser = _check_args.add_parser(argparse.ArgumentParser().add_subparsers(), None)
    choices = next(a.choices for a in parser._actions if a.dest == "format" and a.choices)
    assert tuple(choices) == FORMATS == tuple(EMITTERS)
    for name in FORMATS:
        assert isinstance(EMITTERS[name](Writer(fmt=name), CODEPOINTS), Emitter)


def test_every_mode_is_registered_and_loads() -> None:
    for name in _check.MODES:
        assert callable(_check.load(name))


def test_no_mode_reaches_the_command() -> None:
    edges, _ = graph()
    command = "sanitizer.cli._check"
    for module, _function in _check.MODES.values():
        seen, todo = set(), [f"sanitizer.cli.{module}"]
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(edges[name])
        assert command not in seen, f"{module} imports {command}, directly or not"


def test_cli_exports_main_alone() -> None:
    import sanitizer.cli

    assert sanitizer.cli.__all__ == ["main"]
