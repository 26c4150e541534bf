"""Fixtures of the tests of the suites that cut across the package rather than test one module:
layering, import cycles and budgets, the public edge, static checks (mypy, ruff), docs and
examples, generated files, restated facts, contracts every public call keeps, and the web
differentials and real-server runs.

The hooks and the fixtures every folder shares are in ``tests/conftest.py``.
"""
