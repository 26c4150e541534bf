"""Tests of the command line: ``sanitizer/cli/``, one file per module where there is one
(``_check.py`` -> ``test_check.py``, ``_jobs.py`` -> ``test_jobs.py``, ...). Run the command
through ``tests/support/cli_runner.py``."""
