"""``sanitizer.columns`` as a polars namespace: ``pl.col("text").sanitizer.is_valid()``.

Why it exists: polars runs Python over a column through ``map_batches``, which wants a
polars Series back and, in a lazy frame, the result's type before anything runs.  This
module gives both for each function of ``sanitizer.columns``, so a lazy scan of Parquet
is judged batch by batch with the library's checks:

    import polars as pl
    import sanitizer.integrations.polars  # registers the namespace "sanitizer"
    from sanitizer import profiles

    pl.scan_parquet("crawl.parquet").select(
        pl.col("text").sanitizer.is_valid(),
        pl.col("text").sanitizer.inspect(profiles.PROMPT).alias("report"),
    ).collect()
    series.sanitizer.find_errors()  # a Series: every error of every value

Importing the module registers the namespace ``sanitizer`` on ``pl.Expr``
(``SanitizerExpr``: the per-value functions, one answer per value) and on ``pl.Series``
(``SanitizerSeries``: those, ``all_valid`` and ``find_errors`` too).  Each answer is the
``sanitizer.columns`` function's, which is the scalar function's for each value; results
come back without a copy.  The result types are read off each function's answer for an
empty column, so they are the columns module's own.  polars is optional: without it,
importing this module raises ImportError saying what to install.
"""

from __future__ import annotations

from collections.abc import Callable

try:
    import polars as pl
except ImportError as exc:  # pragma: no cover - exercised in a child interpreter
    raise ImportError(
        "sanitizer.integrations.polars needs polars: pip install 'polars>=1.0'"
    ) from exc

from .. import columns
from .._policy import Policy

__all__ = ["SanitizerExpr", "SanitizerSeries"]

_Function = Callable[..., object]


def _series(name: str, result: object) -> pl.Series:
    return pl.Series(name, result)  # type: ignore[arg-type]  # the Arrow PyCapsule interface


def _result_type(function: _Function, *args: object) -> pl.DataType:
    """The polars type of ``function``'s answer (the columns module's own), read off its
    answer for an empty column."""
    empty = pl.Series("", [], dtype=pl.Binary)
    return _series("", function(empty, *args)).dtype


@pl.api.register_expr_namespace("sanitizer")
class SanitizerExpr:
    """``pl.col(name).sanitizer.FUNCTION(...)``: a ``sanitizer.columns`` function per
    batch of a ``Binary`` or ``String`` column, one answer per value."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def _map(self, function: _Function, *args: object) -> pl.Expr:
        def batch(series: pl.Series) -> pl.Series:
            return _series(series.name, function(series, *args))

        dtype = _result_type(function, *args)
        return self._expr.map_batches(batch, return_dtype=dtype, is_elementwise=True)

    def is_valid(self) -> pl.Expr:
        """``columns.is_valid``: Boolean, True where the value is well-formed UTF-8."""
        return self._map(columns.is_valid)

    def decode(self, errors: str = "strict") -> pl.Expr:
        """``columns.decode``: String; ``"strict"`` raises on an ill-formed value."""
        return self._map(columns.decode, errors)

    def inspect(self, policy: Policy | None = None) -> pl.Expr:
        """``columns.inspect``: Struct of ``ok``, ``text``, ``findings``."""
        return self._map(columns.inspect, policy)

    def sanitize(self, policy: Policy | None = None) -> pl.Expr:
        """``columns.sanitize``: String, null where the policy refuses the value."""
        return self._map(columns.sanitize, policy)

    def reveal(self) -> pl.Expr:
        """``columns.reveal``: List of Struct ``channel``, ``start``, ``end``,
        ``payload``, ``text``; raises on an ill-formed value."""
        return self._map(columns.reveal)

    def identifier_key(self) -> pl.Expr:
        """``columns.identifier_key``: String; raises on an ill-formed value."""
        return self._map(columns.identifier_key)


@pl.api.register_series_namespace("sanitizer")
class SanitizerSeries:
    """``series.sanitizer.FUNCTION(...)``: a ``sanitizer.columns`` function over a
    ``Binary`` or ``String`` Series, as a Series (``all_valid``: a bool)."""

    def __init__(self, series: pl.Series) -> None:
        self._series = series

    def _call(self, function: _Function, *args: object) -> pl.Series:
        return _series(self._series.name, function(self._series, *args))

    def is_valid(self) -> pl.Series:
        """``columns.is_valid``."""
        return self._call(columns.is_valid)

    def all_valid(self) -> bool:
        """``columns.all_valid``."""
        return columns.all_valid(self._series)

    def find_errors(self, limit: int | None = None) -> pl.Series:
        """``columns.find_errors``: one Struct per error (``row``, ``start``, ``end``,
        ``kind``, ``naive``), not one per value."""
        return self._call(columns.find_errors, limit)

    def decode(self, errors: str = "strict") -> pl.Series:
        """``columns.decode``."""
        return self._call(columns.decode, errors)

    def inspect(self, policy: Policy | None = None) -> pl.Series:
        """``columns.inspect``."""
        return self._call(columns.inspect, policy)

    def sanitize(self, policy: Policy | None = None) -> pl.Series:
        """``columns.sanitize``."""
        return self._call(columns.sanitize, policy)

    def reveal(self) -> pl.Series:
        """``columns.reveal``."""
        return self._call(columns.reveal)

    def identifier_key(self) -> pl.Series:
        """``columns.identifier_key``."""
        return self._call(columns.identifier_key)
