"""Builds the optional C extensions; everything else is declared in pyproject.toml.

Both are optional: without a C compiler the package installs and runs on the pure-Python
reference paths (sanitizer/_machine.py, sanitizer/_policy/_classtable.scan_reference,
sanitizer/web/_head.fast_head_py, ...), only slower.  Each extension belongs to one layer
and is built from one C file per job in that package's ``_native_src/`` (not a folder
named ``_speedups``, which would shadow the module):

* ``sanitizer._speedups``, the core's (reached through ``sanitizer/_native.py``);
* ``sanitizer.web._speedups``, the web layer's (through ``sanitizer/web/_native.py``),
  which calls the core's ``clean()`` through a capsule (``speedups_capi.h``).

A failed build is not silent: ``_BuildExt`` ends the build with a warning saying so (pip
shows it with ``-v``), and ``sanitizer --version`` names the backend that runs.
``EXTENSIONS`` is read by tests/suites/test_layering.py and tests/core/test_native.py (every C file
is built once, by the extension of its layer): keep it a literal.
"""

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

CORE_SRC = "sanitizer/_native_src"
# extension -> its C files, each in the extension's package's _native_src/
EXTENSIONS = {
    "sanitizer._speedups": [
        "sanitizer/_native_src/module.c",
        "sanitizer/_native_src/utf8.c",
        "sanitizer/_native_src/validate.c",
        "sanitizer/_native_src/decode_valid.c",
        "sanitizer/_native_src/classtable.c",
        "sanitizer/_native_src/scan.c",
        "sanitizer/_native_src/edit.c",
        "sanitizer/_native_src/lookalike.c",
        "sanitizer/_native_src/source.c",
        "sanitizer/_native_src/precis.c",
        "sanitizer/_native_src/columns.c",
        "sanitizer/_native_src/normalize.c",
    ],
    "sanitizer.web._speedups": [
        "sanitizer/web/_native_src/module.c",
        "sanitizer/web/_native_src/percent.c",
        "sanitizer/web/_native_src/webhead.c",
        "sanitizer/web/_native_src/jsonscan.c",
    ],
}
# headers: a change rebuilds the extension (setuptools does not read #include lines)
DEPENDS = {
    "sanitizer._speedups": [
        "sanitizer/_native_src/speedups.h",
        "sanitizer/_native_src/speedups_capi.h",
        "sanitizer/_native_src/scan.h",
        "sanitizer/_native_src/scan_avx2.h",
        "sanitizer/_native_src/utf8_tables_data.h",
        "sanitizer/_native_src/normalize_data.h",
    ],
    "sanitizer.web._speedups": [
        "sanitizer/web/_native_src/webspeedups.h",
        "sanitizer/_native_src/speedups_capi.h",
    ],
}


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
            name,
            sources=sources,
            depends=DEPENDS[name],
            include_dirs=[CORE_SRC],  # speedups_capi.h, the core's C interface
            optional=True,
        )
        for name, sources in EXTENSIONS.items()
    ],
)
