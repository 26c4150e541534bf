"""The ``sanitizer`` command line: a thin adapter over the library.

Each subcommand lives in its own module exposing ``register(subparsers)``, which adds its
parser and sets ``func(args) -> int``.  Exit codes everywhere: 0 clean, 1 something was
found (or differs), 2 usage or I/O error (a one-line message on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__
from ..charinfo import UNICODE_VERSION
from . import check, fuzz, identifiers
from ._output import OutputError, end_of_output

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
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
    for module in (check, identifiers, fuzz):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except KeyboardInterrupt:
        print("sanitizer: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError as exc:  # output closed early (| head): never "all valid"
        return end_of_output(OutputError(exc), parser.prog)
    return code
