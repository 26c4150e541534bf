"""The generated UTS #39 tables (sanitizer/lookalike/_tables.py, _confusables.py) are what
tools/gen_lookalike.py makes from the files vendored in tools/unicode-18.0.0/.

The generator runs again in memory and its output is compared with the committed files;
it also re-checks, while generating, the facts the fast paths and the identifier key rely
on (see its docstrings).  The vendored files' checksums are those README.md records.
"""

from __future__ import annotations

import hashlib
import importlib.util
import lzma
import re
import sys
from pathlib import Path

import pytest
import unicodedata2

from sanitizer.lookalike import _confusables, _tables

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tools" / "unicode-18.0.0"


def test_versions_agree() -> None:
    assert _tables.UTS39_VERSION == _confusables.UTS39_VERSION == unicodedata2.unidata_version
    assert _tables.UNICODE_VERSION == _confusables.UNICODE_VERSION == _tables.UTS39_VERSION


def test_vendored_files_are_the_ones_the_readme_describes() -> None:
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    recorded = dict(re.findall(r"\| `([\w.]+\.txt)\.xz` \|.*\| `([0-9a-f]{64})` \|", readme))
    assert len(recorded) == 5
    for name, digest in recorded.items():
        with lzma.open(DATA / f"{name}.xz") as fh:
            assert hashlib.sha256(fh.read()).hexdigest() == digest, name
    assert (DATA / "LICENSE.txt").read_text(encoding="utf-8").startswith("UNICODE LICENSE V3")


@pytest.mark.skipif(importlib.util.find_spec("ucdinfo") is None, reason="needs ucdinfo==0.3")
@pytest.mark.slow
def test_generated_tables_are_current() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_lookalike
    finally:
        sys.path.pop(0)
    fresh = gen_lookalike.render(gen_lookalike.build(gen_lookalike.load_ucd()))
    for name, target in gen_lookalike.TARGETS.items():
        current = target.read_text(encoding="utf-8")
        assert fresh[name] == current, f"{target.name} is stale: run tools/gen_lookalike.py"
