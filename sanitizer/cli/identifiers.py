"""``sanitizer normalize`` and ``sanitizer compare``: identifiers from the command line.

An adapter over ``sanitizer.identifiers``: it reads arguments or stdin (strict UTF-8,
RFC 3629: ill-formed input is a one-line error, exit 2), normalizes, and prints.
``compare`` exits 0 when two identifiers are equal under the form, 1 when not, and then
shows both normal forms and the code points where they differ (``describe``).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import Any

from ..charinfo import describe
from ..decoder import decode
from ..errors import Utf8Error

# The policy layer (sanitizer.identifiers, sanitizer.chardata and its tables) is imported
# only when ``normalize`` or ``compare`` runs, so ``sanitizer check`` does not load it.

EXIT_OK, EXIT_DIFFERENT, EXIT_USAGE = 0, 1, 2
MAX_SHOWN = 10  # differing positions listed by compare


def register(sub: Any) -> None:
    """Add ``normalize`` and ``compare`` to an argparse subparsers object."""
    p = sub.add_parser(
        "normalize",
        help="print identifiers in a normal form (NFC, NFKC, NFKC_CASEFOLD)",
        description="Print each TEXT (or each line of stdin) in the normal form.",
    )
    p.add_argument("text", nargs="*", metavar="TEXT", help="identifiers (default: stdin lines)")
    _form_option(p)
    p.add_argument("--codepoints", action="store_true", help="also list the code points")
    p.set_defaults(func=_normalize)

    c = sub.add_parser(
        "compare",
        help="exit 0 if two identifiers are equal under a normal form, 1 if not",
        description="Compare A and B after normalization; show where they differ.",
    )
    c.add_argument("a", metavar="A")
    c.add_argument("b", metavar="B")
    _form_option(c)
    c.set_defaults(func=_compare)


def _form_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--form",
        default="NFC",
        type=_normal_form,
        metavar="FORM",
        help="normal form: NFC (default), NFKC or NFKC_CASEFOLD",
    )


def _normal_form(value: str) -> str:
    """``--form``: one of ``NORMAL_FORMS``, in any case."""
    from ..chardata import NORMAL_FORMS

    if value.upper() not in NORMAL_FORMS:
        choices = ", ".join(map(repr, NORMAL_FORMS))
        raise argparse.ArgumentTypeError(f"invalid choice: {value!r} (choose from {choices})")
    return value.upper()


def _codepoints(text: str) -> str:
    return " ".join(f"U+{ord(c):04X}" for c in text)


def _read_stdin() -> list[str] | None:
    data = sys.stdin.buffer.read()
    try:
        text = decode(data, bom="strip")
    except Utf8Error as exc:
        print(f"sanitizer normalize: stdin: {exc}", file=sys.stderr)
        return None
    return text.splitlines()


def _normalize(args: argparse.Namespace) -> int:
    from ..identifiers import normalize_identifier

    items: list[str] | None = args.text or _read_stdin()
    if items is None:
        return EXIT_USAGE
    for item in items:
        if not _encodable(item, "normalize"):
            return EXIT_USAGE
        out = normalize_identifier(item, form=args.form)
        print(out)
        if args.codepoints:
            print(f"  {_codepoints(out)}")
    return EXIT_OK


def _encodable(text: str, cmd: str) -> bool:
    """Arguments that were not UTF-8 reach Python as lone surrogates (PEP 383)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        print(f"sanitizer {cmd}: argument is not valid UTF-8 at index {exc.start}", file=sys.stderr)
        return False
    return True


def _compare(args: argparse.Namespace) -> int:
    from ..identifiers import identifiers_equal, normalize_identifier

    a, b, form = args.a, args.b, args.form
    if not (_encodable(a, "compare") and _encodable(b, "compare")):
        return EXIT_USAGE
    na = normalize_identifier(a, form=form)
    nb = normalize_identifier(b, form=form)
    equal = identifiers_equal(a, b, form=form)
    print(f"A ({form}): {na!r}  {_codepoints(na)}")
    print(f"B ({form}): {nb!r}  {_codepoints(nb)}")
    if equal:
        print("equal")
        return EXIT_OK
    print("different:")
    # Align the two forms (difflib) so one extra or missing code point does not make
    # everything after it look different.
    matcher = difflib.SequenceMatcher(a=na, b=nb, autojunk=False)
    shown = 0
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            continue
        shown += 1
        if shown > MAX_SHOWN:
            print("  ...")
            break
        left = ", ".join(describe(ord(c)) for c in na[a0:a1]) or "(nothing)"
        right = ", ".join(describe(ord(c)) for c in nb[b0:b1]) or "(nothing)"
        print(f"  A[{a0}:{a1}] {left}  vs  B[{b0}:{b1}] {right}")
    return EXIT_DIFFERENT
