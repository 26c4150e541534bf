"""Builds the optional C extension; everything else is declared in pyproject.toml.

The extension is optional: without a C compiler the package installs and runs on the
pure-Python reference paths (sanitizer/_machine.py, _classtable.scan_reference, ...),
only slower.  It is one module, ``sanitizer._speedups``, built from one C file per job in
sanitizer/_native_src/ (not a folder named ``_speedups``, which would shadow the module).
"""

from setuptools import Extension, setup

_SRC = "sanitizer/_native_src/"

setup(
    ext_modules=[
        Extension(
            "sanitizer._speedups",
            sources=[
                _SRC + name
                for name in (
                    "module.c",
                    "utf8.c",
                    "scan.c",
                    "percent.c",
                    "lookalike.c",
                    "validate.c",
                    "jsonscan.c",
                    "webhead.c",
                    "source.c",
                    "precis.c",
                )
            ],
            depends=[_SRC + "speedups.h"],
            optional=True,
        ),
    ]
)
