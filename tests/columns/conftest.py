"""Fixtures of the tests of ``sanitizer.columns`` over Arrow columns, and under real engines.

The hooks and the fixtures every folder shares are in ``tests/conftest.py``.
"""
