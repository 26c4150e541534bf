"""``sanitizer fuzz``: run a fuzzing campaign from the command line.

The campaign logic lives in ``sanitizer._fuzzing.campaign``; this module only turns arguments
into a ``CampaignConfig``, checks what can be checked before spawning anything (atheris
installed, target known, candidate importable, corpus present) so that mistakes end in a
one-line message and exit status 2, and maps the outcome to 0 (no finding) or 1.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
# No finding, but the campaign ran far fewer executions than its time allows (dead or
# hanging workers): not a pass.  130 after Ctrl-C or SIGTERM, as a shell reports it.
EXIT_INCOMPLETE, EXIT_INTERRUPTED = 3, 130
INSTALL_HINT = (
    "fuzzing needs atheris: pip install 'utf8-sanitizer[fuzz]' "
    "(atheris 3.0.0 on Python 3.11, atheris>=3.1 on Python 3.12+)"
)


def target_choices() -> tuple[str, ...]:
    """The registry's targets (``sanitizer._fuzzing.targets``, which loads no oracle) and
    ``all``."""
    from sanitizer._fuzzing.targets import TARGET_NAMES

    return (*TARGET_NAMES, "all")


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "fuzz",
        help="run a libFuzzer/atheris campaign against a target",
        description=(
            "Fuzz TARGET with N libFuzzer workers for a time budget: live progress, each "
            "crash minimized with a report next to it, new corpus entries merged back. "
            "Exit 0 if no finding, 1 if any, 2 on usage errors, 3 if the campaign ran far "
            "fewer executions than its time allows. Flags after '--' go to "
            "libFuzzer unchanged (e.g. -- -max_len=64)."
        ),
    )
    parser.add_argument(
        "target",
        metavar="TARGET",
        help=f"{', '.join(target_choices()[:-1])} (decode is differential and accepts "
        "--candidate), or all (every target in turn)",
    )
    parser.add_argument(
        "--max-time",
        type=float,
        default=60.0,
        metavar="S",
        help="time budget in seconds for the whole campaign: screening, fuzzing, minimizing "
        "and merging (split between targets for 'all'; default 60)",
    )
    parser.add_argument(
        "-j", "--jobs", type=int, default=1, metavar="N", help="parallel workers (default 1)"
    )
    parser.add_argument(
        "--candidate",
        metavar="MODULE:FUNCTION",
        default=None,
        help="a decoder of yours (bytes -> str, raising UnicodeDecodeError/ValueError) to "
        "check against the strict reference (decode target; default: "
        "$SANITIZER_FUZZ_CANDIDATE)",
    )
    parser.add_argument(
        "--corpus",
        metavar="DIR",
        type=Path,
        default=None,
        help="working corpus directory (must exist; new entries are merged into it; "
        "default .sanitizer-fuzz/corpus/TARGET/CANDIDATE, one per candidate, seeded from "
        "the bundled seeds)",
    )
    parser.add_argument(
        "--artifacts",
        metavar="DIR",
        type=Path,
        default=Path(".sanitizer-fuzz/artifacts"),
        help="where crashing inputs, minimized inputs and reports go "
        "(default .sanitizer-fuzz/artifacts)",
    )
    parser.add_argument(
        "--stop-on-first",
        action="store_true",
        help="stop the campaign at the first finding instead of restarting the worker",
    )
    parser.add_argument(
        "--minimize-time",
        type=int,
        default=20,
        metavar="S",
        help="time limit for minimizing each finding (default 20), within --max-time",
    )
    parser.add_argument(
        "--no-seeds",
        action="store_true",
        help="do not add the bundled seed corpus: start from --corpus DIR alone (which may "
        "be empty), e.g. to measure time-to-flag from nothing",
    )
    parser.add_argument(
        "--timeout",
        type=int,
        default=10,
        metavar="S",
        help="seconds one input may run before it is a 'timeout' finding (default 10)",
    )
    parser.add_argument(
        "--no-instrument-candidate",
        action="store_true",
        help="do not coverage-instrument the candidate's module (it is by default, so "
        "libFuzzer is guided by the candidate's own branches)",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="the summary on stdout: a text table (default) or JSON",
    )
    parser.add_argument("--no-progress", action="store_true", help="no live progress on stderr")
    parser.set_defaults(func=run, libfuzzer_args=[])
    # Everything after "--" is libFuzzer's: split it off before argparse sees "-flag=value".
    parser.__class__ = type("FuzzParser", (_SplitLibFuzzerArgs, type(parser)), {})


class _SplitLibFuzzerArgs(argparse.ArgumentParser):
    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        items = list(sys.argv[1:] if args is None else args)
        extra: list[str] = []
        if "--" in items:
            cut = items.index("--")
            items, extra = items[:cut], items[cut + 1 :]
        ns, rest = super().parse_known_args(items, namespace)
        ns.libfuzzer_args = extra
        return ns, rest


def _fail(message: str) -> int:
    print(f"sanitizer fuzz: {message}", file=sys.stderr)
    return EXIT_USAGE


def have_atheris() -> bool:
    try:
        importlib.import_module("atheris")
    except ImportError:
        return False
    return True


def run(args: argparse.Namespace) -> int:
    from sanitizer._fuzzing import campaign
    from sanitizer._fuzzing.candidate import CANDIDATE_ENV, load
    from sanitizer._fuzzing.progress import Progress
    from sanitizer._fuzzing.results import format_summary, summary_dict

    target: str = args.target
    extra = list(args.libfuzzer_args)
    problem = _argument_problem(target, extra)
    if problem is not None:
        return _fail(problem)
    targets = list(campaign.TARGET_NAMES) if target == "all" else [target]
    candidate = args.candidate
    if candidate is None and "decode" in targets:
        candidate = os.environ.get(CANDIDATE_ENV) or None
    if candidate is not None:
        if "decode" not in targets:
            return _fail("--candidate only applies to the decode target")
        try:
            load(candidate)
        except ValueError as exc:
            return _fail(str(exc))
    if not have_atheris():
        print(f"sanitizer fuzz: {INSTALL_HINT}", file=sys.stderr)
        return EXIT_USAGE
    config = campaign.CampaignConfig(
        targets=targets,
        max_time=args.max_time,
        jobs=args.jobs,
        candidate=candidate,
        corpus=args.corpus,
        artifacts=args.artifacts,
        extra_args=extra,
        stop_on_first=args.stop_on_first,
        minimize_time=args.minimize_time,
        seeds=not args.no_seeds,
        timeout=args.timeout,
        instrument_candidate=not args.no_instrument_candidate,
    )
    try:
        config.validate()
    except campaign.UsageError as exc:
        return _fail(str(exc))
    for name in targets:
        missing = _missing(name)
        if missing:
            return _fail(
                f"fuzz target {name!r} needs {', '.join(missing)}: "
                "pip install 'utf8-sanitizer[fuzz]'"
            )
    progress = Progress(sys.stderr, enabled=not args.no_progress)
    try:
        results = campaign.run_campaign(config, progress)
    except campaign.UsageError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "))
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: workers stopped, workspace removed
        print("sanitizer fuzz: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.format == "json":
        print(json.dumps(summary_dict(results), indent=2))
    else:
        print(format_summary(results))
    if any(r.findings for r in results):
        return EXIT_FOUND
    return EXIT_INCOMPLETE if any(r.shortfall for r in results) else EXIT_OK


def _argument_problem(target: str, extra: Sequence[str]) -> str | None:
    """What is wrong with TARGET or the libFuzzer flags after '--', if anything."""
    choices = target_choices()
    if target not in choices:
        return f"unknown target {target!r} (choose from {', '.join(choices)})"
    if any(not a.startswith("-") for a in extra):
        bad = next(a for a in extra if not a.startswith("-"))
        return (
            f"unexpected argument {bad!r} after '--': only -flag=value libFuzzer flags "
            "go there (use --corpus DIR for a corpus)"
        )
    spawning = [a for a in extra if a.split("=", 1)[0] in ("-jobs", "-workers", "-fork")]
    if spawning:
        return f"{spawning[0]}: use --jobs N (the campaign runs its own workers)"
    return None


def _missing(target: str) -> list[str]:
    """The modules TARGET needs that this installation lacks (python-multipart for web)."""
    from importlib.util import find_spec

    from sanitizer._fuzzing.targets import target as registered

    return [name for name in registered(target).requires if find_spec(name) is None]
