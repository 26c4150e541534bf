"""The ``sanitizer`` command line: a thin adapter over the library.

Each subcommand lives in its own module exposing ``register(subparsers)``, which adds its
parser and sets ``func(args) -> int``; ``main`` imports only the module of the command it
is given (a gate in CI starts ``sanitizer check`` once per commit: it never loads the
others), every module for help and for errors.  Exit codes everywhere: 0 clean, 1 something was
found (or differs), 2 usage or I/O error (a one-line message on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .. import __version__
from ..charinfo import UNICODE_VERSION
from ._output import OutputError, end_of_output

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
# Each subcommand -> the module that registers it; modules in the order of the help.
_COMMANDS = {
    "check": "check",
    "normalize": "identifiers",
    "compare": "identifiers",
    "skeleton": "identifiers",
    "collisions": "identifiers",
    "fuzz": "fuzz",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; given the command line ``argv``, with only the subcommand it names
    (when it names one: else all of them, so that help and errors list every one)."""
    parser = _Parser(
        prog="sanitizer",
        description="Strict UTF-8 (RFC 3629) checks, Unicode policies and fuzzing.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"utf8-sanitizer {__version__} (Unicode {UNICODE_VERSION})",
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
