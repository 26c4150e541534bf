"""Fixtures of the tests of ``sanitizer.integrations``: Django and pydantic.

The hooks and the fixtures every folder shares are in ``tests/conftest.py``.
"""
