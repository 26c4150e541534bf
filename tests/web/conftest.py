"""Fixtures of the tests of the web layer: ``sanitizer/web/`` in process. The apps and
servers of every web test are ``webapps.py``, ``webframeworks.py`` and ``webservers.py``.

The hooks and the fixtures every folder shares are in ``tests/conftest.py``.
"""
