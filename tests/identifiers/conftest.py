"""Fixtures of the tests of identifier comparison: ``sanitizer.identifiers``
(``_identifiers.py``), ``sanitizer.lookalike`` (``_lookalike/``) and ``sanitizer.precis``.

The hooks and the fixtures every folder shares are in ``tests/conftest.py``.
"""
