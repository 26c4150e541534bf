"""``sanitizer normalize``, ``compare`` and ``skeleton``: identifiers from the command line.

An adapter over ``sanitizer._identifiers`` and ``sanitizer._lookalike``: it reads arguments
or stdin (strict UTF-8, RFC 3629: ill-formed input is a one-line error, exit 2; closed or
unreadable stdin too) and prints.  Stdin holds one identifier per line, lines ending in LF
or CRLF; ``normalize`` refuses an identifier holding a control character or another line
break (U+001C..U+001E, NEL, U+2028... which ``str.splitlines`` would split on): a line on
stderr names it, nothing is printed for it, the others are normalized, and the exit
status is 1 (as for a PRECIS refusal).  ``compare`` exits 0 when two identifiers are
equal under the form, 1 when not, shows each side's code points as given and normalized,
and where the normal forms differ (``describe``).
``compare --confusable`` asks UTS #39 §4 instead: it exits 0 when A and B are
confusable (equal skeletons), 1 when not, and shows both skeletons, the scripts of each
string (UTS #39 §5.1) and whether the pair is single-, mixed- or whole-script.
``skeleton`` prints UTS #39 skeletons, for comparison only (UTS #39 §4: never display
one to a user).  ``collisions`` (a file of identifiers) lives in ``_collisions``.
``normalize --precis PROFILE`` and ``compare --precis PROFILE`` enforce with a PRECIS
profile (RFC 8264, 8265, 8266; ``sanitizer.precis``) instead of a normal form: a string
the profile refuses is one line on stderr (why, and which character where) and exit 1;
two strings compare equal when both are enforced and the results are equal.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Iterator
from typing import Any

from .._charnames import describe
from .._decoder import decode
from .._errors import Utf8Error
from . import _collisions
from ._collisions import shown
from ._output import OutputError, Writer, display_path, end_of_output

# The policy layer (sanitizer._identifiers, sanitizer._categories, sanitizer._lookalike and
# their tables) is imported only when a command here runs: ``sanitizer check`` does not
# load it.

EXIT_OK, EXIT_DIFFERENT, EXIT_USAGE = 0, 1, 2
MAX_SHOWN = 10  # differing positions listed by compare


def register(sub: Any) -> None:
    """Add ``normalize``, ``compare``, ``skeleton`` and ``collisions`` to an argparse
    subparsers object."""
    p = sub.add_parser(
        "normalize",
        help="print identifiers in a normal form (NFC, NFKC, NFKC_CASEFOLD)",
        description="Print each TEXT (or each line of stdin: LF or CRLF ends a line) in the "
        "normal form. An identifier holding a control character or another line break is "
        "refused: a line on stderr names it, nothing is printed for it, exit status 1.",
    )
    p.add_argument("text", nargs="*", metavar="TEXT", help="identifiers (default: stdin lines)")
    _form_option(p, default=None)
    _precis_option(p)
    p.add_argument("--codepoints", action="store_true", help="also list the code points")
    p.set_defaults(func=_normalize)

    c = sub.add_parser(
        "compare",
        help="exit 0 if two identifiers are equal under a normal form (or, with "
        "--confusable, look alike), 1 if not",
        description="Compare A and B after normalization; show where they differ. With "
        "--confusable, compare their UTS #39 skeletons instead: exit 0 when A and B are "
        "confusable, 1 when not; show both skeletons, the scripts of each, and whether "
        "the pair is single-script, mixed-script or whole-script (UTS #39 §4).",
    )
    c.add_argument("a", metavar="A")
    c.add_argument("b", metavar="B")
    _form_option(c, default=None)
    c.add_argument(
        "--confusable",
        action="store_true",
        help="compare skeletons (UTS #39 §4) rather than normal forms; not with --form",
    )
    _precis_option(c)
    c.set_defaults(func=_compare)

    k = sub.add_parser(
        "skeleton",
        help="print UTS #39 skeletons (for comparing identifiers, never for display)",
        description="Print the UTS #39 §4 skeleton of each TEXT (or of each line of stdin, "
        "LF or CRLF; an empty line gives an empty line). Two strings are confusable when "
        "their skeletons are equal. Characters a terminal would not show (controls, "
        "format characters such as U+202E) are escaped, and a backslash is doubled.",
    )
    k.add_argument("text", nargs="*", metavar="TEXT", help="strings (default: stdin lines)")
    k.add_argument("--codepoints", action="store_true", help="also list the code points")
    k.set_defaults(func=_skeleton)

    _collisions.register(sub)


def _form_option(p: argparse.ArgumentParser, default: str | None = "NFC") -> None:
    p.add_argument(
        "--form",
        default=default,
        type=_normal_form,
        metavar="FORM",
        help="normal form: NFC (default), NFKC or NFKC_CASEFOLD",
    )


def _precis_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--precis",
        default=None,
        type=_precis_profile,
        metavar="PROFILE",
        help="enforce with a PRECIS profile instead of a normal form (RFC 8264; not with "
        "--form): UsernameCaseMapped, UsernameCasePreserved, OpaqueString, "
        "NicknameCaseMapped, NicknameCasePreserved, ... as precis-i18n names them",
    )


def _precis_profile(value: str) -> str:
    """``--precis``: a profile name as ``sanitizer.precis.get_profile`` reads it."""
    from .. import precis

    try:
        return precis.get_profile(value).name
    except KeyError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _exclusive(args: argparse.Namespace, cmd: str) -> bool:
    """--precis goes with neither --form nor --confusable: one line on stderr if it does."""
    others = [name for name in ("form", "confusable") if getattr(args, name, None)]
    if args.precis is None or not others:
        return True
    print(
        f"sanitizer {cmd}: --precis and --{others[0]} exclude each other",
        file=sys.stderr,
    )
    return False


def _normal_form(value: str) -> str:
    """``--form``: one of ``NORMAL_FORMS``, in any case."""
    from .._categories import NORMAL_FORMS

    if value.upper() not in NORMAL_FORMS:
        choices = ", ".join(map(repr, NORMAL_FORMS))
        raise argparse.ArgumentTypeError(f"invalid choice: {value!r} (choose from {choices})")
    return value.upper()


def _codepoints(text: str) -> str:
    return " ".join(f"U+{ord(c):04X}" for c in text)


def _read_stdin(cmd: str) -> list[str] | None:
    """The lines of stdin, split at LF and CRLF only, decoded strictly as a whole (BOM
    stripped); None after a one-line error on stderr (ill-formed, closed, unreadable)."""
    if sys.stdin is None:  # started with stdin closed (<&-)
        print(f"sanitizer {cmd}: stdin: standard input is closed", file=sys.stderr)
        return None
    try:
        data = sys.stdin.buffer.read()
    except (OSError, ValueError) as exc:  # EIO, a directory, a closed file object
        print(f"sanitizer {cmd}: stdin: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
        return None
    try:
        text = decode(data, bom="strip")
    except Utf8Error as exc:
        print(f"sanitizer {cmd}: stdin: {exc}", file=sys.stderr)
        return None
    if text.endswith("\n"):
        text = text[:-1]
    elif not text:
        return []
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


# What ends or breaks a line besides LF: C0/C1 controls (CR, VT, FF, U+001C..U+001E, NEL)
# and the line and paragraph separators (``str.splitlines`` splits on all of them).
_LINE_BREAKING = frozenset("\u2028\u2029")


def _refused(text: str) -> int:
    """The index of the first control character or line break in ``text``, else -1."""
    for i, ch in enumerate(text):
        if ch <= "\x1f" or "\x7f" <= ch <= "\x9f" or ch in _LINE_BREAKING:
            return i
    return -1


def _normalize(args: argparse.Namespace) -> int:
    from .._identifiers import normalize_identifier

    if not _exclusive(args, "normalize"):
        return EXIT_USAGE
    items: list[str] | None = args.text or _read_stdin("normalize")
    if items is None:
        return EXIT_USAGE
    refused = False
    for number, item in enumerate(items, 1):
        if not _encodable(item, "normalize"):
            return EXIT_USAGE
        where = f"TEXT {number}" if args.text else f"stdin: line {number}"
        if args.precis is not None:  # the profile's own refusal first: it says why
            from .. import precis

            try:
                out = precis.get_profile(args.precis).enforce(item)
            except precis.PrecisError as exc:
                print(f"sanitizer normalize: {where}: refused by {exc}", file=sys.stderr)
                refused = True
                continue
        bad = _refused(item)
        if bad >= 0:
            print(
                f"sanitizer normalize: {where}: {describe(ord(item[bad]))} at index {bad}: "
                "an identifier is one line, without control characters or line breaks: "
                "refused",
                file=sys.stderr,
            )
            refused = True
            continue
        if args.precis is None:
            out = normalize_identifier(item, form=args.form or "NFC")
        print(out)
        if args.codepoints:
            print(f"  {_codepoints(out)}")
    return EXIT_DIFFERENT if refused else EXIT_OK


def _encodable(text: str, cmd: str) -> bool:
    """Arguments that were not UTF-8 reach Python as lone surrogates (PEP 383)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        print(f"sanitizer {cmd}: argument is not valid UTF-8 at index {exc.start}", file=sys.stderr)
        return False
    return True


def _compare(args: argparse.Namespace) -> int:
    from .._categories import NormalForm
    from .._identifiers import identifiers_equal, normalize_identifier

    a, b = args.a, args.b
    if not (_encodable(a, "compare") and _encodable(b, "compare")):
        return EXIT_USAGE
    if not _exclusive(args, "compare"):
        return EXIT_USAGE
    if args.precis is not None:
        return _compare_precis(args.precis, a, b)
    if args.confusable:
        if args.form is not None:
            print(
                "sanitizer compare: --form and --confusable exclude each other "
                "(a skeleton starts from NFD, UTS #39 §4)",
                file=sys.stderr,
            )
            return EXIT_USAGE
        return _confusable(a, b)
    form: NormalForm = args.form if args.form is not None else "NFC"
    na = normalize_identifier(a, form=form)
    nb = normalize_identifier(b, form=form)
    equal = identifiers_equal(a, b, form=form)
    width = max(len("(given)"), len(form) + 2)
    for name, given, normal in (("A", a, na), ("B", b, nb)):  # U+212B and U+00C5 look alike
        print(f"{name} {'(given)':<{width}}: {given!r}  {_codepoints(given)}")
        print(f"{name} {f'({form})':<{width}}: {normal!r}  {_codepoints(normal)}")
    if equal:
        print("equal")
        return EXIT_OK
    print("different:")
    for line in _differences(na, nb):
        print(line)
    return EXIT_DIFFERENT


def _compare_precis(name: str, a: str, b: str) -> int:
    """``compare --precis``: both enforced (RFC 8264 §7); a refused string equals nothing."""
    from .. import precis

    profile = precis.get_profile(name)
    enforced: list[str | None] = []
    width = max(len("(given)"), len(name) + 2)
    for label, text in (("A", a), ("B", b)):
        print(f"{label} {'(given)':<{width}}: {text!r}  {_codepoints(text)}")
        try:
            out = profile.enforce(text)
        except precis.PrecisError as exc:
            print(f"{label} {f'({name})':<{width}}: refused by {exc}")
            enforced.append(None)
            continue
        print(f"{label} {f'({name})':<{width}}: {out!r}  {_codepoints(out)}")
        enforced.append(out)
    ea, eb = enforced
    if ea is None or eb is None:
        print("different: a string the profile refuses equals nothing (RFC 8264 §7)")
        return EXIT_DIFFERENT
    if ea == eb:
        print("equal")
        return EXIT_OK
    print("different:")
    for line in _differences(ea, eb):
        print(line)
    return EXIT_DIFFERENT


def _differences(na: str, nb: str) -> list[str]:
    """Where ``na`` and ``nb`` differ, one line per change, at most ``MAX_SHOWN``."""
    # Align the two (difflib) so one extra or missing code point does not make
    # everything after it look different.
    matcher = difflib.SequenceMatcher(a=na, b=nb, autojunk=False)
    lines: list[str] = []
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if len(lines) == MAX_SHOWN:
            lines.append("  ...")
            break
        left = ", ".join(describe(ord(c)) for c in na[a0:a1]) or "(nothing)"
        right = ", ".join(describe(ord(c)) for c in nb[b0:b1]) or "(nothing)"
        lines.append(f"  A[{a0}:{a1}] {left}  vs  B[{b0}:{b1}] {right}")
    return lines


_EXPLAINED = {
    "single-script": "the strings have a resolved script in common",
    "mixed-script": "the resolved script sets are disjoint",
    "whole-script": "mixed-script, and each string is single-script",
}


def _confusable(a: str, b: str) -> int:
    """``compare --confusable``: UTS #39 §4 skeletons, scripts (§5.1) and the kind."""
    from .. import _lookalike as lookalike

    out = Writer(as_json=False)
    try:
        verdict = lookalike.confusable(a, b)
        for name, text in (("A", a), ("B", b)):
            out.line(f"{name}: {shown(text)}")
            out.line(f"   skeleton: {shown(lookalike.skeleton(text))}")
            out.line(f"   scripts: {_scripts(text)}")
        if verdict is None:
            out.line("not confusable: the skeletons differ")
            for line in _differences(lookalike.skeleton(a), lookalike.skeleton(b)):
                out.line(line)
            out.flush()
            return EXIT_DIFFERENT
        kind = verdict.value
        out.line(f"confusable: {kind} (UTS #39 §4: {_EXPLAINED.get(kind, kind)})")
        for line in _differences(a, b) if a != b else ["  A and B are the same string"]:
            out.line(line)
        out.flush()
    except OutputError as exc:
        return end_of_output(exc, "sanitizer compare")
    return EXIT_OK


def _scripts(text: str) -> str:
    """The scripts of ``text`` by full name (Script_Extensions of each character, Common,
    Inherited and Unknown left out) and its resolved script set (UTS #39 §5.1)."""
    from .. import _lookalike as lookalike

    resolved = lookalike.resolved_scripts(text)
    where: dict[str, list[int]] = {}  # scripts of a character (e.g. Hira/Kana) -> positions
    for i, ch in enumerate(text):
        codes = lookalike.script_extensions(ch) - _NOT_A_SCRIPT
        if codes:
            where.setdefault("/".join(sorted(map(_script_name, codes))), []).append(i)
    present = " + ".join(where) or "Common/Inherited only"
    if resolved == lookalike.ALL_SCRIPTS:
        return f"{present}; resolved: any script (UTS #39 §5.1)"
    if not resolved:
        at = "; ".join(f"{name} at {_positions(pos)}" for name, pos in where.items())
        return f"{present}; resolved: none, mixed-script ({at})"
    return f"{present}; resolved: {', '.join(sorted(map(_script_name, resolved)))}"


# Common, Inherited and Unknown (unassigned): no script of their own (UAX #24).
_NOT_A_SCRIPT = frozenset({"Zyyy", "Zinh", "Zzzz"})


def _positions(indices: list[int]) -> str:
    """``0, 2-5`` for [0, 2, 3, 4, 5], at most ``MAX_SHOWN`` ranges."""
    ranges: list[list[int]] = []
    for i in indices:
        if ranges and ranges[-1][1] == i - 1:
            ranges[-1][1] = i
        else:
            ranges.append([i, i])
    parts = [f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in ranges[:MAX_SHOWN]]
    if len(ranges) > MAX_SHOWN:
        parts.append("...")
    return ", ".join(parts)


def _script_name(code: str) -> str:
    """``Latin`` for ``Latn``: the full name (UAX #24), as a person reads it."""
    from .. import _lookalike as lookalike

    return lookalike.script_name(code)


def _skeleton(args: argparse.Namespace) -> int:
    from .. import _lookalike as lookalike

    out = Writer(as_json=False)
    try:
        lines = args.text if args.text else _stdin_lines("skeleton")
        for item in lines:
            if item is None:
                return EXIT_USAGE
            if not _encodable(item, "skeleton"):
                return EXIT_USAGE
            result = lookalike.skeleton(item)
            out.line(display_path(result))
            if args.codepoints:
                out.line(f"  {_codepoints(result)}")
        out.flush()
    except OutputError as exc:
        return end_of_output(exc, "sanitizer skeleton")
    return EXIT_OK


def _stdin_lines(cmd: str) -> Iterator[str | None]:
    """Lines of stdin (LF or CRLF, BOM stripped), decoded strictly one at a time; after
    a one-line error on stderr, ``None`` for an ill-formed line."""
    if sys.stdin is None:
        print(f"sanitizer {cmd}: stdin: standard input is closed", file=sys.stderr)
        yield None
        return
    lines = enumerate(sys.stdin.buffer, 1)
    while True:
        try:
            number, raw = next(lines)
        except StopIteration:
            return
        except (OSError, ValueError) as exc:  # EIO, a closed file object
            reason = getattr(exc, "strerror", None) or exc
            print(f"sanitizer {cmd}: stdin: {reason}", file=sys.stderr)
            yield None
            return
        raw = raw[:-1] if raw.endswith(b"\n") else raw
        raw = raw[:-1] if raw.endswith(b"\r") else raw
        try:
            yield decode(raw, bom="strip") if number == 1 else decode(raw)
        except Utf8Error as exc:
            print(f"sanitizer {cmd}: stdin: line {number}: {exc}", file=sys.stderr)
            yield None
            return
