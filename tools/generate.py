"""Every generated file of the project, from one entry point.

    python tools/generate.py              # rewrite every generated file
    python tools/generate.py --check      # exit 1 when one is stale (tests run this check)
    python tools/generate.py lookalike    # only the generators named

A generator is a module ``tools/gen_<name>.py`` exposing ``outputs()``: a dict from a
repo-relative path to the file's exact content (``str``, written as UTF-8, or ``bytes``);
it may also expose ``obsolete(root)``: the files under ``root`` it once wrote that must
go.  Generated modules of the package are named ``*_data.py``; their first lines say which generator
wrote them and the Unicode version of their sources.  Generators live here, never in the
package: nothing imports them at run time and the wheel does not ship them.

``GENERATORS`` is in dependency order: a generator may import what an earlier one wrote,
so when writing, each runs in a fresh interpreter that sees the files written before it.
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from pathlib import Path
from typing import Protocol, cast

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"

# name -> (what it writes, from what); the module is tools/gen_<name>.py
GENERATORS: dict[str, tuple[str, str]] = {
    "utf8_tables": (
        "`sanitizer/_native_src/utf8_tables_data.h`: the UTF-8 byte ranges of the C validator "
        "and decoder (the scalar rules, the SIMD kernels' nibble tables, checked on every "
        "byte pair)",
        "`sanitizer/_grammar.py` (RFC 3629 §4; no Unicode version)",
    ),
    "chartables": (
        "`sanitizer/_chartables_data.py`: the character categories and normalization tables "
        "of the policy layer",
        "unicodedata2 and ucdinfo's UCD (`ucdinfo==0.3`, in the `test` extra)",
    ),
    "normalize": (
        "`sanitizer/_native_src/normalize_data.h`: the C NFC and NFKC's tables (combining "
        "class, segment boundaries, full decompositions, primary composites)",
        "unicodedata2, held equal to the character tables' quick checks",
    ),
    "classtable": (
        "`sanitizer/_policy/_classtable_data.py`: the policy fast path's two-stage class table",
        "the character tables",
    ),
    "lookalike": (
        "`sanitizer/_lookalike/_*_data.py`: UTS #39 scripts, skeletons, identifier status, "
        "types and keys",
        "the vendored files in `tools/unicode-18.0.0/`",
    ),
    "precis": (
        "`sanitizer/precis/_precis_data.py`: the PRECIS derived property of every code point "
        "(RFC 8264 §8) and the profiles' character data: width map, spaces, Bidi groups, "
        "joining types, scripts, Unicode 18 lowercase and case folding",
        "unicodedata2, ucdinfo's UCD XML, `_chartables_data` (Default_Ignorable), "
        "`tools/unicode-18.0.0/HangulSyllableType.txt.xz`",
    ),
    "sequences": (
        "`sanitizer/_policy/_sequences_data.py`: the registered variation sequences "
        "(standardized, emoji, ideographic) and RGI emoji tag sequences that `reveal` never "
        "reports",
        "the vendored StandardizedVariants.txt, emoji-variation-sequences.txt and "
        "emoji-sequences.txt in `tools/unicode-18.0.0/`, and IVD_Sequences.txt (IVD "
        "2022-09-13) in `tools/ivd-2022-09-13/`",
    ),
    "public": (
        "`sanitizer/__init__.pyi`: the types of the public names, so none types as `Any`",
        "`_PUBLIC` in `sanitizer/__init__.py`, the one list of the public names",
    ),
    "corpus": (
        "`corpus/`: the fuzzing seed corpus, its dictionary and the targets' options",
        "`sanitizer/_fuzzing/seeds.py`, `sanitizer/_fuzzing/utf8.dict`",
    ),
    "docs_tables": (
        "the tables of `docs/*.md` that restate the package's data (between BEGIN/END "
        "markers), this one included",
        "the package's data and this registry",
    ),
}


class Generator(Protocol):
    def outputs(self) -> dict[Path, str | bytes]: ...


def load(name: str) -> Generator:
    """The generator module ``tools/gen_<name>.py``."""
    for path in (str(ROOT), str(TOOLS)):
        if path not in sys.path:
            sys.path.insert(0, path)
    return cast(Generator, importlib.import_module(f"gen_{name}"))


def _content(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def _encoded(data: str | bytes) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def _obsolete(generator: Generator, root: Path) -> list[Path]:
    obsolete = getattr(generator, "obsolete", None)
    return [] if obsolete is None else list(obsolete(root))


def stale(name: str, root: Path = ROOT) -> list[str]:
    """What differs between the files of generator ``name`` under ``root`` and what it
    generates now, one line each."""
    generator = load(name)
    problems = [
        f"{'missing' if _content(root / rel) is None else 'stale'}: {rel}"
        for rel, data in sorted(generator.outputs().items())
        if _content(root / rel) != _encoded(data)
    ]
    return problems + [f"not generated: {rel}" for rel in _obsolete(generator, root)]


def write(name: str, root: Path = ROOT) -> int:
    """Write the files of generator ``name`` under ``root`` (and remove its obsolete
    ones); how many it generates."""
    generator = load(name)
    for rel in _obsolete(generator, root):
        (root / rel).unlink()
    outputs = generator.outputs()
    for rel, data in outputs.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if _content(target) != _encoded(data):
            target.write_bytes(_encoded(data))
    return len(outputs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("names", nargs="*", metavar="NAME", help=", ".join(GENERATORS))
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 if stale")
    parser.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in GENERATORS]
    if unknown:
        parser.error(f"unknown generator {unknown[0]!r} (choose from {', '.join(GENERATORS)})")
    names = args.names or list(GENERATORS)
    if args.check:
        problems = [f"{name}: {line}" for name in names for line in stale(name)]
        print("\n".join(problems) or f"{len(names)} generators: every file current")
        if problems:
            print("run: python tools/generate.py", file=sys.stderr)
        return 1 if problems else 0
    for name in names:
        if args.in_process:
            print(f"{name}: {write(name)} files")
        else:  # a fresh interpreter sees what the generators before it wrote
            subprocess.run([sys.executable, __file__, "--in-process", name], check=True, cwd=ROOT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
