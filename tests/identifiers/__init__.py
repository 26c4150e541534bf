"""Tests of identifier comparison: ``sanitizer.identifiers`` (``_identifiers.py``),
``sanitizer.lookalike`` (``_lookalike/``) and ``sanitizer.precis``."""
