"""What a new user meets first, as README.md and the docs tell it: the Quick start's
corpus check, a tree's clean check, the summary, a mistyped profile, ``check --policy``
against ``inspect``, the gate's words for a look-alike, the pydantic examples.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanitizer import inspect, profiles
from sanitizer.cli import _inputs, main
from tests.support.cli_runner import run_cli

ROOT = Path(__file__).resolve().parents[2]


def test_the_quick_start_skips_none_of_its_own_files() -> None:
    """``sanitizer check corpus/decode``: every valid boundary case is read and passes
    (two of them hold U+0000, which made them "binary")."""
    proc = run_cli("check", ROOT / "corpus" / "decode", cwd=ROOT)
    assert proc.returncode == 1  # the attack files
    assert b"skipped" not in proc.stdout + proc.stderr
    valid = sorted(p.name for p in (ROOT / "corpus" / "decode").glob("valid-*"))
    assert valid and not [v for v in valid if v.encode() in proc.stdout]


@pytest.mark.parametrize(
    ("sample", "whole", "named_binary", "binary"),
    [
        (b"a\x00b", True, False, False),  # the whole file, well-formed UTF-8: text with U+0000
        ("caf\u00e9\x00 \u202e".encode(), True, False, False),
        (b"a\x00b", False, False, True),  # more follows the sniffed bytes: git's rule
        (b"a\x00b\xff", True, False, True),  # not UTF-8
        (b"a\x00b\xe2\x82", True, False, True),  # not UTF-8: cut short at the end of the file
        (b"\x00\x01\x02", True, False, True),  # only controls: no text in it
        (b"\x00", True, False, True),
        (b"a\x00b", True, True, True),  # named .png or .tar: binary with a NUL, as before
        (b"plain text", False, False, False),
        (b"\x89PNG\xff", False, True, True),
    ],
)
def test_what_makes_a_file_binary(
    sample: bytes, whole: bool, named_binary: bool, binary: bool
) -> None:
    assert _inputs.looks_binary(sample, named_binary, whole=whole) is binary


@given(st.text(max_size=40))
def test_a_whole_file_of_text_with_a_nul_is_not_binary(text: str) -> None:
    data = (text + "\x00x").encode("utf-8", "surrogatepass")
    valid = "\ud800" > text or not any("\ud800" <= c <= "\udfff" for c in text)
    assert _inputs.looks_binary(data, whole=True) is (not valid)
    assert _inputs.looks_binary(data, whole=False) is True


def test_skipped_binary_files_are_one_summary_line_unless_verbose(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"blob{i}").write_bytes(b"\x7fELF\x00\x01\xff" * 10)
    (tmp_path / "ok.txt").write_bytes(b"fine\n")
    quiet = run_cli("check", tmp_path)
    assert quiet.returncode == 0 and quiet.stdout == b""
    assert quiet.stderr.count(b"\n") == 1  # the summary, and nothing else
    assert b"skipped 30 binary (--verbose lists them)" in quiet.stderr
    verbose = run_cli("check", "--verbose", tmp_path)
    assert verbose.stdout.count(b": skipped: binary") == 30
    assert b"skipped 30 binary" in verbose.stderr and b"--verbose" not in verbose.stderr


def test_the_summary_counts_failing_findings(tmp_path: Path) -> None:
    (tmp_path / "bad.txt").write_bytes(b"x\xc0\xafy\xff\n")
    (tmp_path / "allowed.txt").write_text("\u05e9\u05dc\u05d5\u05dd\u200f (shalom)\n")
    proc = run_cli("check", "--policy", "TEXT", tmp_path)
    assert proc.returncode == 1
    line = proc.stderr.decode().strip().splitlines()[-1]
    found = re.search(r"(\d+) finding\(s\) in (\d+) file\(s\), (\d+) failing, (\d+) allowed", line)
    assert found is not None, line
    findings, _, failing, allowed = map(int, found.groups())
    assert failing == 2 and allowed >= 1 and findings == failing + allowed


@pytest.mark.parametrize("name", ["NOPE", "text2", ""])
def test_an_unknown_profile_is_a_usage_error_naming_the_profiles(name: str) -> None:
    proc = run_cli("check", "--policy", name, "README.md", cwd=ROOT)
    assert proc.returncode == 2 and proc.stdout == b""
    err = proc.stderr.decode()
    if name:
        assert f"--policy: unknown profile {name!r}" in err
        assert "TEXT, SINGLE_LINE, IDENTIFIER, FILENAME, SOURCE, PROMPT" in err
    assert "profiles.get()" not in err and "Traceback" not in err


# -- check --policy says what inspect() says --------------------------------------------

_PIECES = [
    "a", " ", "\n", "\r\n", "\r", "\t", "\u200b", "\u200d", "\u202e", "\u200f", "\u05d0",
    "e\u0301", "\u00e9", "\x07", "\x00", "\u2028", "\U0001f468\u200d\U0001f469", "\ufe0f",
    "\U000e0041", "\u0430", "\ufffd", "\u0085", "\x1b[0m", "\u3000", "\u061c", "\u2066",
    "\u0300\u0300\u0300", "\ufdd0", "\U0010ffff", "\ue000", "\ufeff",
]  # fmt: skip


def _check_in_process(path: Path, profile: str, *more: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["check", "--policy", profile, *more, str(path)])
    return code, out.getvalue(), err.getvalue()


# every profile but SOURCE, which runs the source gate rather than ``inspect``
_INSPECTED = [n.upper().replace("-", "_") for n in profiles.NAMES if n != "source"]


@pytest.mark.slow  # 50 files a profile, each checked as the command line does
@pytest.mark.parametrize("profile", _INSPECTED)
@given(pieces=st.lists(st.sampled_from(_PIECES), max_size=6))
def test_check_policy_fails_exactly_when_inspect_refuses(
    tmp_path_factory: pytest.TempPathFactory, profile: str, pieces: list[str]
) -> None:
    """A file passes ``check --policy P`` exactly when ``inspect(text, P).ok``: a finding
    the profile strips or replaces is reported, and fails only with ``--strict``."""
    text = "".join(pieces)
    path = tmp_path_factory.mktemp("f") / "x.txt"
    path.write_bytes(text.encode())
    code = _check_in_process(path, profile)[0]
    assert code == (0 if inspect(text.encode(), profiles.get(profile)).ok else 1)


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("caf\u00e9\ufdd0\n", False),  # a noncharacter: TEXT replaces it
        ("x\ufeffy\n", False),  # a byte order mark inside text: stripped
        ("\U0010ffff\n", False),  # replaced
        ("a\u2066b\n", True),  # a bidi isolate: refused
        ("x\u202ey\n", True),  # RLO: refused
        ("a\x00b\n", True),
    ],
)
def test_check_policy_fails_as_inspect_refuses(tmp_path: Path, text: str, refused: bool) -> None:
    """TEXT strips or replaces some characters (``inspect(...).ok``): check reports them
    and passes; fails on them only with ``--strict``."""
    path = tmp_path / "x.txt"
    path.write_bytes(text.encode())
    assert inspect(text.encode(), profiles.TEXT).ok is not refused
    code, out, err = _check_in_process(path, "TEXT")
    assert code == int(refused) and out
    assert (f", {int(refused)} failing" if refused else ", 0 failing") in err
    assert _check_in_process(path, "TEXT", "--strict")[0] == 1


def test_an_empty_file_under_a_whole_value_profile_is_a_finding_not_a_traceback(
    tmp_path: Path,
) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    code, out, _ = _check_in_process(path, "IDENTIFIER")
    assert code == 1 and "empty" in out


# -- the gate's words --------------------------------------------------------------------


def test_the_gate_never_shows_a_skeleton(tmp_path: Path) -> None:
    """UTS #39 §4: a skeleton is a comparison key, never displayed ("commit" has the
    skeleton "cornrnit"); the gate says what the word reads as, its ASCII as written."""
    from sanitizer._lookalike import skeleton
    from sanitizer._source_gate import check_source

    for word in ("c\u043emmit", "Ma\u0456lbox", "pa\u0443ment_id", "\u0430dmin"):
        report = check_source(f"{word} = 1\n", profiles.SOURCE)
        reasons = " ".join(f.reason for f in report.findings)
        assert "mixed-script" in {f.kind for f in report.findings}, word
        ascii_reading = "".join(c if c.isascii() else skeleton(c) for c in word)
        assert f"reads as {ascii_reading!r}" in reasons
        whole = skeleton(word)
        if whole != ascii_reading:
            assert whole not in reasons


# -- the docs' examples ------------------------------------------------------------------


def test_the_pydantic_examples_of_the_identifier_guide_run() -> None:
    pytest.importorskip("pydantic")
    page = (ROOT / "docs" / "identifiers.md").read_text(encoding="utf-8")
    section = page[page.index("### pydantic") : page.index("### Django")]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2
    for block in blocks:
        exec(compile(block, "docs/identifiers.md", "exec"), {"__name__": "docs"})


# -- the docs site -----------------------------------------------------------------------

# Every page in an iframe of a desktop-width window (one browser for the whole site, served
# from loopback so that the frames are the probe's own origin): a table or code block
# wider than its text column, or than its own box, is listed by page.
_OVERFLOW_PROBE = """<!doctype html><html><body>%s<script>
window.addEventListener('load', function () {
  var out = [];
  document.querySelectorAll('iframe').forEach(function (frame) {
    var doc = frame.contentDocument;
    var column = doc.querySelector('.rst-content').getBoundingClientRect();
    doc.querySelectorAll('.rst-content pre, .rst-content table').forEach(function (e) {
      var box = e.getBoundingClientRect();
      if (e.scrollWidth > e.clientWidth + 1 || box.right > column.right + 1) {
        out.push(frame.dataset.page + ': ' + e.tagName + ' ' + e.textContent.slice(0, 40));
      }
    });
  });
  var div = document.createElement('div');
  div.textContent = 'OVERFLOW[' + out.length + '] ' + out.join(' | ');
  document.body.appendChild(div);
});
</script></body></html>"""
_FRAME = '<iframe data-page="%s" src="%s" style="width:1280px;height:900px"></iframe>'


@pytest.mark.slow  # builds the site, starts a browser
def test_no_table_or_code_block_runs_off_the_page(tmp_path: Path) -> None:
    """The reveal channel table and the console blocks ran off the right edge of the
    text column (the theme keeps cells and code lines unwrapped): on a desktop-width
    window no table or code block of any page is wider than the column."""
    import functools
    import http.server
    import shutil
    import subprocess
    import sys
    import threading

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("no headless chromium")
    site = tmp_path / "site"
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)]
    proc = subprocess.run(build, cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    pages = sorted(p.parent.name for p in site.glob("*/index.html"))
    assert len(pages) > 10
    frames = "".join(_FRAME % (page, f"/{page}/") for page in pages)
    (site / "_probe.html").write_text(_OVERFLOW_PROBE % frames, encoding="utf-8")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        dom = subprocess.run(
            [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900",
             "--virtual-time-budget=20000", "--dump-dom",
             f"http://127.0.0.1:{server.server_address[1]}/_probe.html"],
            capture_output=True, text=True, check=False, timeout=300,
        ).stdout  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
    found = re.search(r"OVERFLOW\[(\d+)\]([^<]*)", dom)
    assert found is not None, dom[-2000:]
    assert found.group(1) == "0", found.group(2)
