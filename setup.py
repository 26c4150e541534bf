"""Builds the optional C runner; everything else is declared in pyproject.toml.

The extension is optional: without a C compiler the package installs and runs on the
pure-Python reference runner (sanitizer/_machine.py), only slower on ill-formed input.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("sanitizer._speedups", ["sanitizer/_speedups.c"], optional=True),
    ]
)
