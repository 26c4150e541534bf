"""The kinds of file of ``sanitizer check`` (``_kinds``): one table, shown in
docs/check.md as it is in the code, read by name, extension and shebang."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sanitizer.cli._kinds import BINARY, KINDS, PEP_263, UNKNOWN, XML, Kind, kind_of, known

DOCS = Path(__file__).resolve().parents[2] / "docs" / "check.md"


def rows() -> list[str]:
    """The table's rows as docs/check.md must show them."""

    def files(kind: Kind) -> str:
        return " ".join([f"`{e}`" for e in kind.extensions] + [f"`{n}`" for n in kind.names])

    out = []
    for k in KINDS:
        extra = {"Python": " (and a `python` shebang)", "code": " (and any other shebang)"}
        rules = "the whole gate" if k.code else "character rules only"
        out.append(
            f"| {k.name} | {files(k)}{extra.get(k.name, '')} | {rules} | {k.declares or '-'} |"
        )
    out.append(f"| {UNKNOWN.name} | any other name | the whole gate | {XML} at its first byte |")
    return out


def test_the_docs_show_the_table_of_the_code() -> None:
    page = DOCS.read_text(encoding="utf-8")
    table = re.search(r"<!-- kinds-table -->\n(.*?)<!-- /kinds-table -->", page, re.DOTALL)
    assert table is not None
    assert table.group(1).splitlines()[2:] == rows()


def test_no_extension_or_name_is_of_two_kinds() -> None:
    seen: dict[str, str] = {}
    for kind in (*KINDS, BINARY):
        for key in (*kind.extensions, *kind.names):
            assert seen.setdefault(key, kind.name) == kind.name, key
    assert all(e == e.lower() for kind in (*KINDS, BINARY) for e in kind.extensions)


@pytest.mark.parametrize(
    ("path", "head", "name", "code"),
    [
        ("a/b/mod.py", b"", "Python", True),
        ("A.PY", b"", "Python", True),  # extensions: any case
        ("Makefile", b"", "code", True),
        ("src/CMakeLists.txt", b"", "code", True),  # a name before its extension
        ("run", b"#!/bin/sh\n", "code", True),
        ("tool", b"#!/usr/bin/env python3\n", "Python", True),
        ("notes.txt", b"#!/usr/bin/env python3\n", "prose", False),  # the name wins
        ("locale/fr/django.po", b"", "translation catalogue", False),
        ("README", b"", "prose", False),
        ("docutils-0.23/PKG-INFO", b"", "prose", False),  # core metadata: a page break in it
        ("x.dist-info/METADATA", b"", "prose", False),  # is the README's (Emacs ^L)
        ("data.JSON", b"", "data", False),
        ("repo/.github/workflows/ci.yml", b"", "CI workflow", True),  # uses: names code
        (".github/workflows/ci.YAML", b"", "CI workflow", True),
        ("docs/workflows/ci.yml", b"", "data", False),
        (".gitignore", b"", "data", False),
        ("page.html", b"", "HTML", False),
        ("feed.xml", b"", "XML", False),
        ("", b"", "other", True),  # standard input without a shebang
        ("blob", b"\x00\x01", "other", True),
        ("logo.png", b"", "binary", False),
    ],
)
def test_kind_of(path: str, head: bytes, name: str, code: bool) -> None:
    kind = kind_of(path, head)
    assert (kind.name, kind.code) == (name, code)
    assert known(kind) is (name not in ("other", "binary"))


def test_only_python_reads_coding_cookies() -> None:
    assert [k.name for k in KINDS if k.declares == PEP_263] == ["Python"]
