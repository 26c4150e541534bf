"""Value classes written as usual, without ``typing`` or ``dataclasses`` at run time.

``sanitizer check`` starts once per commit in CI, and ``typing`` is about 12M of its
instructions (~3 ms), ``dataclasses`` (with ``inspect``) more, while the check path needs
nothing else from them.  Two bases, whose fields are each spelt once, as annotations:

- ``NamedTuple``: ``typing.NamedTuple`` for type checkers, ``collections.namedtuple`` at
  run time;
- ``Record``: a frozen dataclass for type checkers (PEP 681 ``dataclass_transform``), a
  slotted class at run time whose one ``__init__`` is shared: no code is compiled per
  class, as ``namedtuple`` and ``dataclass`` compile theirs (about 0.5M instructions a
  class), so a value that needs no tuple behaviour is a ``Record``.

The CLI's value classes are written as usual::

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from typing import NamedTuple
    else:
        from ._record import NamedTuple

Type checkers see ``typing.NamedTuple``; at run time the class statement builds the same
class with ``collections.namedtuple``: fields in annotation order, defaults from the class
body, and the body's methods, properties and docstring copied onto it (no ``super()``:
the body's functions are not the class's own).
"""

from __future__ import annotations

import collections
from collections.abc import Callable

from .._frozen import Frozen

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any

    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**kwargs: object) -> Callable[[type], type]:
        """PEP 681's marker, for type checkers alone."""
        return lambda cls: cls


# Class-body names that are not fields, methods or the docstring.
_NOT_COPIED = frozenset({"__module__", "__qualname__", "__annotations__", "__orig_bases__"})


class _NamedTupleMeta(type):
    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, object]) -> type:
        if not bases:  # the NamedTuple base itself
            return super().__new__(mcs, name, bases, namespace)
        annotations = namespace.get("__annotations__", {})
        assert isinstance(annotations, dict)
        fields = tuple(annotations)
        defaults = [namespace[field] for field in fields if field in namespace]
        make: Callable[..., type] = collections.namedtuple
        cls = make(name, fields, defaults=defaults, module=namespace["__module__"])
        cls.__qualname__ = str(namespace["__qualname__"])
        for key, value in namespace.items():
            if key not in _NOT_COPIED and key not in fields:
                setattr(cls, key, value)
        return cls


class NamedTuple(metaclass=_NamedTupleMeta):
    """Base of a CLI value class at run time (see the module's docstring)."""


class _RecordMeta(type):
    """Makes a ``Record`` subclass's annotated names its slots, their values its defaults."""

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> type:
        if not any(isinstance(base, _RecordMeta) for base in bases):  # Record itself
            return super().__new__(mcs, name, bases, namespace)
        fields = tuple(namespace.get("__annotations__", {}))
        defaults = {field: namespace.pop(field) for field in fields if field in namespace}
        namespace["__slots__"] = fields
        cls = super().__new__(mcs, name, bases, namespace)
        cls._defaults = defaults  # type: ignore[attr-defined]
        return cls


@dataclass_transform(frozen_default=True)
class Record(Frozen, metaclass=_RecordMeta):
    """Base of a frozen value class of the CLI: built as a dataclass is (fields in
    order, or by keyword); compared, hashed, shown and pickled by its fields, which
    cannot be reassigned, as ``Frozen`` is (see the module's docstring)."""

    __slots__: tuple[str, ...] = ()
    _defaults: dict[str, Any]

    def __init__(self, *args: Any, **values: Any) -> None:
        names = self.__slots__
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes {len(names)} arguments")
        for name, value in zip(names, args, strict=False):
            if name in values:
                raise TypeError(f"{type(self).__name__}() got {name!r} twice")
            values[name] = value
        for name in names:
            if name in values:
                value = values.pop(name)
            elif name in self._defaults:
                value = self._defaults[name]
            else:
                raise TypeError(f"{type(self).__name__}() missing argument {name!r}")
            object.__setattr__(self, name, value)
        if values:
            unknown = ", ".join(sorted(values))
            raise TypeError(f"{type(self).__name__}() got unexpected keyword(s): {unknown}")
