"""Fixtures of the tests of the command line: ``sanitizer/cli/``, one file per module where
there is one (``_check.py`` -> ``test_check.py``, ``_jobs.py`` -> ``test_jobs.py``, ...).
Run the command through ``tests/support/cli_runner.py``.

The hooks and the fixtures every folder shares are in ``tests/conftest.py``.
"""
