"""The options of ``sanitizer check``: its argument parser, and the settings read from it.

Apart from ``_check`` (which reads the files) so that the options can be read as one list
and the parser built without the checking code: ``_check.register`` adds this parser to
``sanitizer``'s subcommands, and ``resolve`` turns the parsed arguments into the
``Settings`` every input mode reads (one frozen value, its fields and defaults spelt
once: the parser takes its defaults), or into the usage error to print.  Nothing here
loads the policy layer unless ``--policy`` names a profile.
"""

from __future__ import annotations

from . import _jobs, _verdict
from ._locate import CODEPOINTS, UTF16
from ._record import Record
from ._report import FORMATS

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from .._policy import Policy

DEFAULT_LIMIT = 1000  # findings listed per file, as Policy.max_findings lists per report

LEVELS = (  # UTS #39 §5.2, strictest first (sanitizer.RestrictionLevel)
    "ascii-only",
    "single-script",
    "highly-restrictive",
    "moderately-restrictive",
    "minimally-restrictive",
    "unrestricted",
)


class Settings(Record):
    """What checking each input reads from the command line, resolved once.  The fields
    after ``baseline`` are options taken as given (``--max-bytes`` is ``max_bytes``)."""

    policy: Policy | None = None  # the profile of --policy, or None
    source: bool = False  # --policy SOURCE: the source-code gate (sanitizer._source_gate)
    columns: str = CODEPOINTS  # the column unit (_locate)
    utf8: bool = True  # the encoding is UTF-8 (else UTF-16/32: _mode_wide)
    baseline: str | None = None  # --baseline FILE: its findings do not fail (_suppress)
    encoding: str = "utf-8"
    strict: bool = False
    limit: int = DEFAULT_LIMIT
    max_bytes: int = 64 << 20
    jobs: int = 0
    declared_encoding: str = "reject"
    binary: str = "skip"
    allow_overlong_nul: bool = False
    quiet: bool = False  # --quiet: failing findings only
    verbose: bool = False  # --verbose: each skipped file on a line of text
    records: str = "auto"  # --records: records files by their names, or every input as ...


DEFAULTS = Settings()
RECORD_CHOICES = ("auto", "off", "jsonl", "parquet", "arrow")
# The fields that are options as given: ``--max-bytes N`` sets ``max_bytes``.
AS_GIVEN = Settings.__slots__[Settings.__slots__.index("encoding") :]


def add_parser(sub: Any, description: str | None) -> argparse.ArgumentParser:
    """Add the ``check`` parser to an argparse subparsers object."""
    p: argparse.ArgumentParser = sub.add_parser(
        "check",
        help="the gate: report ill-formed UTF-8 (and, with --policy, unwanted characters)",
        description=description,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="file, folder (recursive) or -")
    p.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=DEFAULTS.jobs,
        metavar="N",
        help="with --policy, check files in N processes (default 0: one a core, at most "
        f"{_jobs.MAX_AUTO_JOBS}, for {_jobs.AUTO_MIN_BYTES >> 20} MiB or more; 1: one "
        "process); without, prove a valid file of "
        f"{_verdict.PARALLEL_MIN >> 20} MiB or more in N threads (0: one a core, at most "
        f"{_verdict.MAX_PARTS}); the output is the same for any N",
    )
    out = p.add_argument_group("output")
    out.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text lines (default), JSON Lines, or one SARIF 2.1.0 log (code scanning)",
    )
    out.add_argument(
        "--json", action="store_const", const="json", dest="format", help="--format json"
    )
    out.add_argument(
        "--columns",
        choices=(CODEPOINTS, UTF16),
        default=None,
        help="column unit: code points (default for text and JSON) or UTF-16 code units "
        "(LSP editors; the default for SARIF)",
    )
    out.add_argument(
        "--limit",
        type=int,
        default=DEFAULTS.limit,
        metavar="N",
        help=f"list at most N findings per file (default {DEFAULT_LIMIT}; 0: all); the rest "
        "are counted (summary, one 'more' line), never built or shown",
    )
    out.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="show only the findings that fail the check (and the summary): allowed "
        "findings and skipped files are counted, not listed; the exit status is the same",
    )
    out.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="also list each skipped binary file on its own line (text output; JSON and "
        "SARIF always list them): else the summary counts them",
    )
    out.add_argument(
        "--statistics",
        action="store_true",
        help="after the findings, how many each rule reported (failing, allowed, "
        "suppressed), one line a rule, most first",
    )
    out.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="progress bar on stderr (auto: only when stderr is a terminal)",
    )
    gate = p.add_argument_group("what fails the check")
    gate.add_argument(
        "--policy",
        metavar="PROFILE",
        help="also apply a policy profile to files that are UTF-8 (e.g. TEXT, SINGLE_LINE; "
        "PROMPT: text for a language model, every hidden payload refused; "
        "SOURCE: the source-code gate of UTS #55 on code, its character rules on prose, "
        "translations, markup and data: docs/check.md lists the kinds of file)",
    )
    gate.add_argument(
        "--max-restriction-level",
        choices=LEVELS,
        default=None,
        metavar="LEVEL",
        help="with --policy SOURCE: the widest script mix an identifier may have (UTS #39 "
        "§5.2; default highly-restrictive): " + ", ".join(LEVELS),
    )
    gate.add_argument(
        "--strict",
        action="store_true",
        help="findings the profile allows (and reports) fail the check too",
    )
    gate.add_argument(
        "--baseline",
        metavar="FILE",
        default=None,
        help="findings recorded in FILE (by --write-baseline) do not fail the check: a "
        "legacy tree fails only on new findings (they are counted as suppressed)",
    )
    gate.add_argument(
        "--write-baseline",
        metavar="FILE",
        default=None,
        help="write the findings that fail the check to FILE (path, rule and a fingerprint "
        "of the line around each, not line numbers) and exit 0; inline comments and "
        "[tool.sanitizer] in pyproject.toml still apply (docs/check.md)",
    )
    gate.add_argument(
        "--declared-encoding",
        choices=("reject", "allow", "ignore"),
        default=DEFAULTS.declared_encoding,
        help="a file declaring a non-UTF-8 encoding (PEP 263 cookie, XML, HTML meta) is one "
        "finding that fails (reject, default) or is only reported (allow); ignore: check "
        "its bytes as UTF-8 anyway",
    )
    gate.add_argument(
        "--max-bytes",
        type=int,
        default=DEFAULTS.max_bytes,
        metavar="N",
        help="with --policy: a file larger than N bytes is one too-long finding and the "
        "policy is not applied to it (default 64 MiB); ill-formed UTF-8 is reported in "
        "every file, whatever its size (memory does not grow with it either way); in a "
        "JSON Lines file, a line larger than N is one too-long finding, skipped",
    )
    gate.add_argument(
        "--encoding",
        default=DEFAULTS.encoding,
        metavar="NAME",
        help="how the files are encoded: utf-8 (default), utf-16le, utf-16be, utf-32le, "
        "utf-32be, or utf-16 / utf-32 (byte order from the BOM, never guessed)",
    )
    gate.add_argument(
        "--allow-overlong-nul",
        action="store_true",
        help="accept exactly C0 80 as U+0000 (Java Modified UTF-8, HOWTO §5.9.4)",
    )
    gate.add_argument(
        "--records",
        choices=RECORD_CHOICES,
        default=DEFAULTS.records,
        help="read records: each JSON string (as json.loads reads it, keys too) or each "
        "Parquet/Arrow binary and string cell judged on its own, at PATH:LINE:/json/pointer "
        "or PATH:ROW:COLUMN. auto (default): files named .jsonl, .ndjson, .parquet, .arrow, "
        ".feather; jsonl, parquet, arrow: every input (stdin too) in that format; off: "
        "none (Parquet and Arrow need pyarrow: the [parquet] extra; --max-bytes caps a "
        "record)",
    )
    walk = p.add_argument_group("which files in folders (files named as PATH are always read)")
    walk.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="only files matching GLOB (gitignore syntax; repeatable)",
    )
    walk.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out files and folders matching GLOB (gitignore syntax; repeatable)",
    )
    walk.add_argument(
        "--as-text",
        action="append",
        default=[],
        metavar="GLOB",
        help="check files matching GLOB (gitignore syntax, on the path below the folder, or "
        "a PATH as given) as text that is not code: --policy SOURCE applies its character "
        "rules only, not the identifier rules (locale bundles and other data written as "
        "code; repeatable)",
    )
    walk.add_argument(
        "--binary",
        choices=("skip", "check", "fail"),
        default=DEFAULTS.binary,
        help="a file found in a folder whose name is of no known kind of text (docs/check.md"
        " lists them) and whose first 8 KiB hold a NUL byte (unless they are the whole file, "
        "well-formed UTF-8 and not only controls; or, named .tar, .png..., bytes that are "
        "not UTF-8) is binary: skipped (default; counted in the summary, listed with "
        "--verbose), checked as text, or one failing 'binary' finding",
    )
    walk.add_argument(
        "--no-ignore",
        action="store_true",
        help="do not honour .gitignore and .ignore files",
    )
    walk.add_argument(
        "--no-git",
        action="store_true",
        help="read .gitignore files without asking git (then tracked files that an ignore "
        "rule matches are left out too)",
    )
    walk.add_argument(
        "--follow",
        action="store_true",
        help="follow symbolic links (loops are detected); by default they are counted, not read",
    )
    return p


def is_utf8(name: str) -> bool:
    return name.lower().replace("_", "-") in ("utf-8", "utf8")


def check_encoding(name: str) -> str | None:
    """None when ``name`` is an encoding ``--encoding`` takes, else the usage error."""
    if is_utf8(name):
        return None
    from .._wide_codecs import codec  # UTF-16/32: loaded only when asked for

    try:
        codec(name)
    except ValueError as exc:
        return f"--encoding: {exc}"
    return None


def resolve(args: argparse.Namespace) -> Settings | str:
    """The settings of a run, or the usage error (one line) when the options conflict."""
    policy = None
    source = False
    if args.policy is not None:  # "" is a profile name too, and none is called so
        from .. import profiles  # policy layer: only loaded when asked for

        try:
            policy = profiles.get(args.policy)
        except ValueError:
            names = ", ".join(n.upper().replace("-", "_") for n in profiles.NAMES)
            return f"--policy: unknown profile {args.policy!r}; the profiles are {names}"
        source = policy is profiles.SOURCE
        if args.max_restriction_level is not None:
            if not source:
                return "--max-restriction-level needs --policy SOURCE"
            policy = policy.replace(max_restriction_level=args.max_restriction_level)
    problem = check_encoding(args.encoding)
    utf8 = is_utf8(args.encoding)
    if problem is None and source and not utf8:
        problem = "--policy SOURCE reads UTF-8 source files: --encoding must be utf-8"
    if problem is not None:
        return problem
    if args.limit < 0 or args.max_bytes < 0 or args.jobs < 0:
        return "--limit, --max-bytes and --jobs must be >= 0"
    for option in ("include", "exclude", "as_text"):
        patterns = getattr(args, option)
        if patterns:
            from ._ignore import invalid

            bad = invalid(patterns)
            if bad is not None:
                name = option.replace("_", "-")
                return f"--{name} {bad!r} is not a gitignore pattern (gitignore(5))"
    given = {name: getattr(args, name) for name in AS_GIVEN}
    if args.baseline or args.write_baseline or args.statistics:
        given["limit"] = 0  # every finding listed to be matched or counted; shown: --limit
    return Settings(
        policy=policy,
        source=source,
        columns=args.columns or (UTF16 if args.format == "sarif" else CODEPOINTS),
        utf8=utf8,
        baseline=args.baseline,
        **given,
    )
