"""The generated class table (``sanitizer/policy/_classtable_data.py``) is current.

``class_table`` loads the stored table instead of building it (start-up cost of
``sanitizer check --policy``); these tests rebuild it from the range data and compare,
so a change to ``_chartables``, the flags or the categories without running
``python -m sanitizer.policy._classtable_gen`` fails here rather than changing what the
fast path flags.
"""

from __future__ import annotations

from sanitizer.policy import _classtable as ct
from sanitizer.policy import _classtable_gen as gen


def test_generated_module_is_current() -> None:
    current = gen.TARGET.read_text(encoding="utf-8")
    assert gen.render() == current, "stale: run python -m sanitizer.policy._classtable_gen"
    assert gen.main(["--check"]) == 0


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
