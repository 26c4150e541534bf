"""Every Python block of README.md and docs/ runs as printed, and says what it does: a
statement whose comment names an exception (``# PolicyError: ...``, ``# raises
sanitizer.Utf8Error``) raises it, and one whose comment starts with a Python literal
(``# 'café'``, ``# False: ...``) evaluates to it.

The few blocks that configure a framework (a middleware line per framework, a Django
model) need that framework's application around them; they are listed in ``NEEDS_AN_APP``
with why.  A block written as a session (``>>>``) runs as a doctest.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
_RAISES = re.compile(r"^(?:raises\s+)?(?:[a-z_.]+\.)?([A-Z]\w*(?:Error|Exception))\b")

# (page, first line of the block's code) -> why it does not run alone
_WEB = "from sanitizer.web import ASGIMiddleware, WSGIMiddleware"
_DJANGO_PRECIS = "from sanitizer.integrations.django import PrecisField, PrecisValidator"
NEEDS_AN_APP = {
    ("README.md", _WEB): "one line per web framework",
    ("docs/middleware.md", _WEB): "one line per web framework",
    ("docs/reveal.md", "from sanitizer import reveal"): "reads the caller's untrusted text",
    ("docs/identifiers.md", "from django.db import models"): "a Django model",
    ("docs/identifiers.md", _DJANGO_PRECIS): "a Django model",
    ("docs/web.md", "class SanitizedHandler(tornado.web.RequestHandler):"): (
        "a Tornado handler (examples/tornado_app.py runs it)"
    ),
}
# A block after a ``<!-- recipe: NAME -->`` line runs under its engine (Dask, Spark,
# polars) in tests/columns/test_engines.py, as written.
_RECIPE = re.compile(r"<!-- recipe: [\w-]+ -->\s*$")


def _blocks() -> list[tuple[str, int, str]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        rel = page.relative_to(ROOT).as_posix()
        for m in _BLOCK.finditer(text):
            if _RECIPE.search(text[: m.start()]):
                continue
            found.append((rel, text[: m.start()].count("\n") + 2, m.group(1)))
    return found


BLOCKS = _blocks()


def _comments(code: str) -> dict[int, str]:
    """Line number -> the comment on it (the first comment line of a statement)."""
    out: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            out.setdefault(tok.start[0], tok.string.lstrip("#").strip())
    return out


def _literal(comment: str) -> tuple[bool, object]:
    """(True, value) when the comment starts with a Python literal."""
    for cut in (comment, *re.split(r"  |: | \(|, ", comment)[:1]):
        try:
            return True, ast.literal_eval(cut.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return False, None


def _sample_files(folder: Path) -> None:
    """The files the pages read, in the folder their blocks run in: ``crawl.parquet``, a
    crawl whose ``text`` column holds one overlong '.' (row 18, byte 2), as the
    datasets page shows."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    values = [f"page {i}: caf\u00e9 \u6f22\u5b57".encode() for i in range(40)]
    values[18] = b"ab\xc0\xae./etc/passwd"
    table = pa.table({"text": pa.array(values, pa.binary())})
    pq.write_table(table, folder / "crawl.parquet", row_group_size=16)


@pytest.mark.parametrize(("page", "line", "code"), BLOCKS, ids=[f"{p}:{n}" for p, n, _ in BLOCKS])
def test_python_block_runs_as_printed(
    page: str, line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = code.strip().splitlines()[0]
    if (page, first) in NEEDS_AN_APP:
        pytest.skip(NEEDS_AN_APP[page, first])
    if "crawl.parquet" in code:
        _sample_files(tmp_path)
    monkeypatch.chdir(tmp_path)  # a block's files: its own, or the samples above
    if code.lstrip().startswith(">>>"):
        import doctest

        test = doctest.DocTestParser().get_doctest(code, {}, page, page, line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        report = io.StringIO()
        assert runner.run(test, out=report.write).failed == 0, report.getvalue()
        return
    comments = _comments(code)
    namespace: dict[str, object] = {"__name__": "docs"}
    for node in ast.parse(code).body:
        source = ast.get_source_segment(code, node) or ""
        comment = comments.get(node.lineno, "")
        raises = _RAISES.match(comment)
        where = f"{page}:{line + node.lineno - 1}: {source.splitlines()[0]}"
        is_expr = isinstance(node, ast.Expr)
        compiled = compile(
            ast.Expression(node.value) if is_expr else ast.Module([node], []),  # type: ignore[attr-defined]
            where,
            "eval" if is_expr else "exec",
        )
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                value = eval(compiled, namespace) if is_expr else exec(compiled, namespace)
        except Exception as exc:  # the block's own exceptions are the point
            names = {k.__name__ for k in type(exc).__mro__}
            assert raises is not None and raises.group(1) in names, f"{where}: {exc!r}"
            continue
        assert raises is None, f"{where}: did not raise {raises.group(1)}"
        if is_expr and comment:
            ok, expected = _literal(comment)
            if ok:
                assert value == expected, f"{where}: {value!r}, the page says {comment!r}"
