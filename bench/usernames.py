#!/usr/bin/env python3
"""Lists of distinct user names, to measure how often ``identifier_key`` joins names that
real people chose independently (bench/bench_key_collisions.py).

    python bench/usernames.py --faker 150000 -o names.txt
    python bench/usernames.py --installed --names projects.txt -o names.txt

Sources, each deterministic (a fixed seed, a sorted walk):

* ``faker`` (``pip install faker``; not a dependency of the package): in every locale faker
  has, ``user_name()`` (the ASCII handles sites suggest: "maria.kowalska", "jsmith42")
  and the first and last name run together in the locale's own script ("ТаисияГусев",
  "İlkerAkdeniz"), round-robin over the locales;
* ``--installed``: the distributions installed here (``importlib.metadata``): project names,
  author and maintainer names, and the local parts of their e-mail addresses;
* ``--names FILE``: any list of names chosen by people, one per line or as the first
  tab-separated column (a header line whose first field is ``name`` is skipped), e.g. a
  package registry's project names.

The output holds each name once (first occurrence kept), one per line, in the order the
sources give them.
"""

from __future__ import annotations

import argparse
import itertools
import re
from collections.abc import Iterable, Iterator
from email.utils import getaddresses
from importlib import metadata
from pathlib import Path

SEED = 39  # UTS #39


def faker_names(count: int, seed: int = SEED) -> Iterator[str]:
    """``count`` names from faker, half handles, half native-script full names."""
    try:
        from faker import Faker
        from faker.config import AVAILABLE_LOCALES
    except ImportError as exc:  # pragma: no cover - optional
        raise SystemExit("the faker source needs faker: pip install faker") from exc
    fakers = []
    for locale in sorted(AVAILABLE_LOCALES):
        fake = Faker(locale)
        fake.seed_instance(seed)
        fakers.append(fake)
    made = 0
    for fake in itertools.cycle(fakers):
        if made >= count:
            return
        yield fake.user_name()
        yield re.sub(r"\s+", "", f"{fake.first_name()}{fake.last_name()}")
        made += 2


def installed_names() -> Iterator[str]:
    """Names from the metadata of every distribution installed in this interpreter."""
    for dist in sorted(metadata.distributions(), key=lambda d: d.metadata["Name"] or ""):
        meta = dist.metadata
        yield meta["Name"] or ""
        for field in ("Author", "Maintainer"):
            for person in re.split(r",| and ", meta[field] or ""):
                yield person.strip()
        for field in ("Author-email", "Maintainer-email"):
            for person, address in getaddresses([meta[field] or ""]):
                yield person.strip()
                yield address.partition("@")[0]


def file_names(path: Path) -> Iterator[str]:
    """The first tab-separated field of each line of ``path`` (a ``name`` header skipped)."""
    with path.open(encoding="utf-8", errors="replace") as lines:
        for number, line in enumerate(lines):
            name = line.rstrip("\r\n").split("\t", 1)[0]
            if number == 0 and name == "name":
                continue
            yield name


def distinct(names: Iterable[str]) -> list[str]:
    """Each non-empty name once, first occurrence kept."""
    return list(dict.fromkeys(name for name in names if name))


def build(faker: int = 0, installed: bool = False, files: Iterable[Path] = ()) -> list[str]:
    sources: list[Iterable[str]] = []
    if faker:
        sources.append(faker_names(faker))
    if installed:
        sources.append(installed_names())
    sources.extend(file_names(path) for path in files)
    return distinct(itertools.chain.from_iterable(sources))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faker", type=int, default=0, metavar="N", help="N names from faker")
    parser.add_argument("--installed", action="store_true", help="installed metadata")
    parser.add_argument("--names", type=Path, action="append", default=[], metavar="FILE")
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    names = build(args.faker, args.installed, args.names)
    args.output.write_text("".join(f"{name}\n" for name in names), encoding="utf-8")
    print(f"{len(names)} distinct names -> {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
