"""Deprecated: the old path of ``sanitizer._fuzzing.wide_oracle``, which is internal; it
forwards there, with a DeprecationWarning, for one release (``sanitizer._moved``)."""

from __future__ import annotations

from ..._moved import forward

__getattr__ = forward(__name__, "import check_wide from sanitizer.fuzzing")
