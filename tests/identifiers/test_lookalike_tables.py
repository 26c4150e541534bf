"""The generated UTS #39 tables (sanitizer/_lookalike/_tables_data.py, _confusables_data.py)
are what tools/gen_lookalike.py makes from the files vendored in tools/unicode-18.0.0/.

The generator runs again in memory and its output is compared with the committed files;
it also re-checks, while generating, the facts the fast paths and the identifier key rely
on (see its docstrings).  The vendored files' checksums are those README.md records.
"""

from __future__ import annotations

import hashlib
import lzma
import re
from pathlib import Path

import unicodedata2

from sanitizer._lookalike import _confusables_data, _tables_data

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tools" / "unicode-18.0.0"


def test_versions_agree() -> None:
    assert (
        _tables_data.UTS39_VERSION
        == _confusables_data.UTS39_VERSION
        == unicodedata2.unidata_version
    )
    assert (
        _tables_data.UNICODE_VERSION
        == _confusables_data.UNICODE_VERSION
        == _tables_data.UTS39_VERSION
    )


def test_vendored_files_are_the_ones_the_readme_describes() -> None:
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    recorded = dict(re.findall(r"\| `([\w.-]+\.txt)\.xz` \|.*\| `([0-9a-f]{64})` \|", readme))
    # 5 for gen_lookalike, HangulSyllableType for gen_precis, 5 of UTS #51 for gen_sequences
    assert len(recorded) == 11
    for name, digest in recorded.items():
        with lzma.open(DATA / f"{name}.xz") as fh:
            assert hashlib.sha256(fh.read()).hexdigest() == digest, name
    assert (DATA / "LICENSE.txt").read_text(encoding="utf-8").startswith("UNICODE LICENSE V3")
