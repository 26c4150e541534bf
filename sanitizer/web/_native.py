"""The web layer's native seam: whether its optional C extension (``_speedups``) is used.

The web layer's C passes (percent-decoding, the head fast path, the JSON strings that
need judging) are an extension of their own, ``sanitizer.web._speedups``, so that they sit
in the layer they serve; the modules of ``sanitizer.web`` reach it through this seam
only.  It follows the core's choice (``sanitizer._native``): with the core on the
pure-Python backend (``SANITIZER_PURE_PYTHON=1``, no compiler, a stale build), so is
the web layer, since its head pass calls the core's ``clean()``.  An extension of another
ABI version is not used, with a ``RuntimeWarning`` saying to reinstall.

Its sources are in ``_native_src/`` and its types in ``_speedups.pyi``; ``speedups`` is
typed by the ``WebSpeedups`` protocol below (tests/web/test_native.py holds the protocol,
the stub and the module's methods to the same signatures).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _native

if TYPE_CHECKING:
    from typing import Protocol
else:
    Protocol = object  # at run time ``WebSpeedups`` is a plain class naming the same members

__all__ = ["ABI_VERSION", "BACKEND", "WebSpeedups", "speedups"]


class WebSpeedups(Protocol):
    """The ``_speedups`` module as its callers see it (documented in ``_speedups.pyi``)."""

    # module.c: the interface version (ABI_VERSION below when the build is current)
    @property
    def ABI_VERSION(self) -> int: ...

    # percent.c: percent-decoding (RFC 3986 §2.1; reference: _percent._percent_decode_py)
    def unquote(self, data: bytes, plus: bool, /) -> bytes: ...

    # webhead.c: the head fast path in one call (reference: _head.fast_head_py)
    def web_head(
        self,
        path: bytes,
        query: bytes,
        headers: list[tuple[bytes, bytes]],
        groups: tuple[object, ...],
        heads: tuple[object, ...],
        limit: int | None,
        /,
    ) -> tuple[object, ...] | None: ...

    # jsonscan.c: the JSON strings that need judging (reference: _json._json_strings_py)
    def json_strings(
        self, text: str, start: int, between: bytes, strings: bytes, /
    ) -> tuple[int, str, list[int]] | None: ...


# Bumped with WEB_SPEEDUPS_ABI_VERSION (_native_src/webspeedups.h) whenever the
# extension's interface changes; an extension reporting another one is a stale build.
ABI_VERSION = 2

speedups: WebSpeedups | None = None
if _native.speedups is not None:
    try:
        from . import _speedups
    except ModuleNotFoundError as exc:  # not built: the pure-Python twins serve
        if exc.name != f"{__package__}._speedups":
            raise
    except ImportError as exc:  # built, but cannot be loaded here (e.g. for another core)
        _native.stale_build(f"{__package__}._speedups cannot be loaded ({exc})")
    else:
        if _native.checked_extension(_speedups, ABI_VERSION) is not None:
            speedups = _speedups

# What runs the web layer's C passes: "c" or "python".
BACKEND = "c" if speedups is not None else "python"
