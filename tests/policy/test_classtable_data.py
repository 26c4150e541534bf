"""The stored class table (``sanitizer/_policy/_classtable_data.py``) is the built one.

``class_table`` loads the stored table instead of building it (start-up cost of
``sanitizer check --policy``); these tests rebuild it from the range data and compare
what the fast path flags.  That the file is current (``tools/gen_classtable.py``) is
tests/suites/test_generated_files.py's.
"""

from __future__ import annotations

from sanitizer._policy import _classtable as ct


def test_loaded_table_equals_built_table() -> None:
    loaded = ct.class_table.__wrapped__()
    built = ct.build_class_table()
    assert loaded.stage1 == built.stage1
    assert loaded.stage2 == built.stage2
    assert loaded.info == built.info
    assert loaded == built


def test_loaded_table_classifies_like_built_table() -> None:
    """Spot checks through the public lookup, both tables (every block boundary)."""
    loaded, built = ct.class_table.__wrapped__(), ct.build_class_table()
    for cp in (*range(0, ct.MAX_CP + 1, 0x80), 0x200D, 0xFE0F, 0xE007F, ct.MAX_CP):
        assert loaded.class_of(cp) == built.class_of(cp)
