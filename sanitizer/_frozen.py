"""Frozen value classes without ``dataclasses``: the start-up of ``sanitizer check``.

``import dataclasses`` loads ``inspect`` (and with it ``ast``, ``dis``, ``tokenize``):
about a third of what ``sanitizer check FILE`` ran before its first byte, and each frozen
dataclass costs about 4M instructions more when its class is created.  Only the modules
plain ``sanitizer check FILE`` imports use it (the core's tables ``_grammar.Row`` and
``_grammar.Machine``, the CLI's ``_record.Record``; ``tests/suites/test_imports.py`` holds the
rule); every other value class is an ordinary frozen dataclass or ``NamedTuple``.
"""

from __future__ import annotations

__all__ = ["Frozen"]


class Frozen:
    """A value compared, hashed, shown and pickled by its fields, which cannot be
    reassigned, as a frozen dataclass is.  A subclass lists its fields in ``__slots__``
    in its constructor's order and sets them with ``object.__setattr__``."""

    __slots__: tuple[str, ...] = ()

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({shown})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[type[Frozen], tuple[object, ...]]:
        return type(self), self._fields()
