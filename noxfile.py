"""Developer sessions: ``nox -l`` lists them, ``nox -s NAME`` runs one (CONTRIBUTING.md).

    nox -s lint typecheck tables       # static checks, generated files current
    nox -s "tests_fast-3.12(c)"        # the fast tier on one Python, with the C extension
    nox -s tests                       # the whole suite on every Python the package claims,
                                       # with the C extension and without (pure)
    nox -s fuzz_smoke                  # 20 s of every fuzz target
    nox -s fuzz_native                 # every target under the ASan+UBSan C build (clang)
    nox -s cflite_build                # the ClusterFuzzLite build for real, 10,000 runs each
    nox -s docs                        # the docs site, strict (warnings are errors), offline
    nox -s engines                     # the Dask, Spark and polars recipes, for real

``python -m pytest`` (the README's command) stays the one command that runs everything;
these sessions run the same tests on other interpreters and in clean environments.
Interpreters installed by pyenv are found even when they are not on PATH.
"""

from __future__ import annotations

import os
from pathlib import Path

import nox

PYTHONS = ["3.10", "3.11", "3.12", "3.13"]  # requires-python = ">=3.10" in pyproject.toml
DEFAULT_PYTHON = "3.11"

nox.options.sessions = ["lint", "typecheck", "tables", "tests_fast"]


def _expose_pyenv_interpreters() -> None:
    """Put ``python3.X`` of every pyenv version on PATH (pyenv's shims answer only for the
    active versions): links in .nox/interpreters/, so nothing else on PATH changes."""
    versions = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    links = Path(__file__).parent / ".nox" / "interpreters"
    for version in PYTHONS:
        found = sorted(versions.glob(f"{version}.*/bin/python{version}"))
        if found:
            links.mkdir(parents=True, exist_ok=True)
            link = links / f"python{version}"
            if not link.exists():
                link.symlink_to(found[-1])
    if links.is_dir():
        os.environ["PATH"] = f"{links}{os.pathsep}{os.environ['PATH']}"


_expose_pyenv_interpreters()


def _install(session: nox.Session, extras: str = "test,fuzz") -> None:
    # editable: the C extension is built in place, one file per interpreter (ABI tag);
    # the fuzz extra pins an atheris wheel for each Python (pyproject.toml)
    session.install("-e", f".[{extras}]")


def _env(pure: bool) -> dict[str, str]:
    # sanitizer._native: any non-empty value forces the pure-Python paths
    return {"SANITIZER_PURE_PYTHON": "1" if pure else ""}


@nox.session(python=DEFAULT_PYTHON)
def lint(session: nox.Session) -> None:
    """ruff: lint rules and formatting (configuration in pyproject.toml)."""
    session.install("ruff>=0.5")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=DEFAULT_PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy --strict over sanitizer/, tools/, bench/ and fuzz/ (pyproject.toml)."""
    _install(session)
    session.run("mypy")


@nox.session(python=DEFAULT_PYTHON)
def tables(session: nox.Session) -> None:
    """The generated files match their sources: Unicode tables and the seed corpus."""
    _install(session, "test")
    session.run("python", "tools/generate.py", "--check")


@nox.session(python=PYTHONS)
@nox.parametrize("pure", [False, True], ids=["c", "pure"])
def tests_fast(session: nox.Session, pure: bool) -> None:
    """The fast tier (under a minute): no slow, servers or fuzz tests."""
    _install(session)
    session.run("python", "-m", "pytest", "--fast", *session.posargs, env=_env(pure))


@nox.session(python=PYTHONS)
@nox.parametrize("pure", [False, True], ids=["c", "pure"])
def tests(session: nox.Session, pure: bool) -> None:
    """Every test, as in CI (Hypothesis profile "ci")."""
    _install(session)
    env = {**_env(pure), "HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci")}
    session.run("python", "-m", "pytest", *session.posargs, env=env)


@nox.session(python=DEFAULT_PYTHON)
def engines(session: nox.Session) -> None:
    """The recipes of docs/datasets.md under the real engines, Spark included (pyspark
    needs a Java runtime)."""
    _install(session, "test")
    session.run("python", "-m", "pytest", "tests/columns/test_engines.py", *session.posargs)


@nox.session(python=DEFAULT_PYTHON)
def docs(session: nox.Session) -> None:
    """The docs site (mkdocs.yml) in strict mode, into build/site/: API reference from the
    docstrings, CLI reference from the parser; then the test that checks what it holds.
    ``nox -s docs -- serve`` serves it on 127.0.0.1:8000 instead."""
    _install(session, "docs,test")
    if session.posargs[:1] == ["serve"]:
        session.run("mkdocs", "serve", "--strict", "--dev-addr", "127.0.0.1:8000")
        return
    session.run("mkdocs", "build", "--strict", "--site-dir", "build/site")
    session.run("python", "-m", "pytest", "tests/suites/test_docs.py")


@nox.session(python=DEFAULT_PYTHON)
def fuzz_smoke(session: nox.Session) -> None:
    """Every fuzz target for 20 s under libFuzzer, from the seed corpus."""
    _install(session)
    session.run("python", "-m", "sanitizer", "fuzz", "all", "--max-time", "20", "--no-progress")


@nox.session(python=DEFAULT_PYTHON)
def fuzz_native(session: nox.Session) -> None:
    """The C extension built with clang, libFuzzer coverage, ASan and UBSan; every fuzz
    target for 15 s under it (docs/fuzzing.md).  ``-- --compare`` adds the plain build."""
    _install(session)
    session.run("python", "tools/build_fuzz_native.py", "build")
    session.run("python", "tools/build_fuzz_native.py", "campaign", *session.posargs)


@nox.session(python=DEFAULT_PYTHON)
def cflite_build(session: nox.Session) -> None:
    """.clusterfuzzlite/build.sh outside Docker (PyInstaller packages, instrumented C),
    then 10,000 executions of every packaged fuzzer on its seed corpus."""
    _install(session)
    session.install("pyinstaller>=6")
    session.run(
        "python",
        "-m",
        "pytest",
        "tests/fuzzing/test_clusterfuzzlite.py",
        "-k",
        "real_build",
        *session.posargs,
        env={"SANITIZER_CFLITE_BUILD": "1"},
    )
