"""The package version, written once: packaging (pyproject's dynamic version),
``sanitizer.__version__`` and ``sanitizer --version`` all read it from here."""

__version__ = "0.1.0"
