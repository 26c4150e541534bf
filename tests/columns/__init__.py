"""Tests of ``sanitizer.columns`` over Arrow columns, and under real engines."""
