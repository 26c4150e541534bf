"""The ``sanitizer`` command line: a thin adapter over the library.

Its one public name is ``main`` (the ``sanitizer`` console script).  Each subcommand lives
in its own internal module exposing ``register(subparsers)``, which adds its parser and
sets ``func(args) -> int``; ``main`` imports only the module of the command it
is given (a gate in CI starts ``sanitizer check`` once per commit: it never loads the
others), every module for help and for errors.  Exit codes everywhere: 0 clean, 1 something was
found (or differs), 2 usage or I/O error (a one-line message on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from .. import __version__
from .._charnames import UNICODE_VERSION
from ._output import OutputError, end_of_output

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["main"]  # the console script's entry point; every module here is internal

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
# Each subcommand -> the module that registers it; modules in the order of the help.
_COMMANDS = {
    "check": "_check",
    "normalize": "_identifiers",
    "compare": "_identifiers",
    "skeleton": "_identifiers",
    "collisions": "_identifiers",
    "reveal": "_reveal",
    "fuzz": "_fuzz",
}


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` finds it ($COLUMNS, else the
    terminal of stdout, else 80), without importing ``shutil`` (which loads zlib, bz2 and
    lzma: ~7M instructions of every ``sanitizer check``)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, given the width it would ask ``shutil`` for."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
        **more: Any,  # what later Pythons add (3.14: color)
    ) -> None:
        if width is None:
            width = _columns() - 2  # as argparse does
        super().__init__(prog, indent_increment, max_help_position, width, **more)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _version() -> str:
    """``--version``: the release, the Unicode version, and what runs the checks: the C
    extension and its UTF-8 kernel, or the pure-Python paths and why."""
    from .._native import PURE_REASON, utf8_kernel

    backend = "c" if PURE_REASON is None else f"pure ({PURE_REASON})"
    return (
        f"utf8-sanitizer {__version__} (Unicode {UNICODE_VERSION})\n"
        f"backend: {backend}; UTF-8 validator kernel: {utf8_kernel()}"
    )


class _VersionAction(argparse.Action):
    """``--version``: ``_version()`` as it is (argparse's own action rewraps the lines)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.update(nargs=0, default=argparse.SUPPRESS)
        super().__init__(option_strings, argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(_version())  # to stdout, as argparse's own version action does
        parser.exit()


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; given the command line ``argv``, with only the subcommand it names
    (when it names one: else all of them, so that help and errors list every one)."""
    parser = _Parser(
        prog="sanitizer",
        description="Strict UTF-8 (RFC 3629) checks, Unicode policies and fuzzing.",
    )
    parser.add_argument(
        "--version", action=_VersionAction, help="show the version and the backend, and exit"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    command = next((a for a in argv if not a.startswith("-")), None) if argv else None
    if command in _COMMANDS:
        names = [_COMMANDS[command]]
    else:
        names = list(dict.fromkeys(_COMMANDS.values()))
    for name in names:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except KeyboardInterrupt:
        print("sanitizer: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError as exc:  # output closed early (| head): never "all valid"
        return end_of_output(OutputError(exc), parser.prog)
    return code
