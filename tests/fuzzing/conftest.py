"""Fixtures of the tests of the fuzzing harness: ``sanitizer.fuzzing`` and
``sanitizer/_fuzzing/`` (one file per module where there is one: ``ledger.py`` ->
``test_ledger.py``), the seed corpus, ``sanitizer.strategies``, ClusterFuzzLite.

The hooks and the fixtures every folder shares are in ``tests/conftest.py``.
"""
