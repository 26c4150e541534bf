"""Builds the optional C extension; everything else is declared in pyproject.toml.

The extension is optional: without a C compiler the package installs and runs on the
pure-Python reference paths (sanitizer/_machine.py, _classtable.scan_reference, ...),
only slower.  It is one module, ``sanitizer._speedups``, built from one C file per job in
sanitizer/_native_src/ (not a folder named ``_speedups``, which would shadow the module).
A failed build is not silent: ``_BuildExt`` ends the build with a warning saying so (pip
shows it with ``-v``), and ``sanitizer --version`` names the backend that runs.
"""

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

_SRC = "sanitizer/_native_src/"


class _BuildExt(build_ext):
    """build_ext that warns, once the build is over, about an optional extension that
    failed to build (setuptools notes it in one line among the compiler's output)."""

    def run(self) -> None:
        self._failed: list[str] = []
        super().run()
        for failure in self._failed:
            sys.stderr.write(
                f"\n{'=' * 78}\nWARNING: {failure}\nutf8-sanitizer will run without its "
                "C extension, on its pure-Python paths, about ten times slower.\n"
                "Install a C compiler and the Python headers (e.g. build-essential and "
                "python3-dev) and reinstall;\n`sanitizer --version` names the backend in "
                f"use.\n{'=' * 78}\n\n"
            )

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # CompileError, CCompilerError, DistutilsError...
            if ext.optional:
                self._failed.append(f"the optional extension {ext.name} did not build: {exc}")
            raise  # setuptools passes over an optional extension's failure


setup(
    cmdclass={"build_ext": _BuildExt},
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
    ],
)
