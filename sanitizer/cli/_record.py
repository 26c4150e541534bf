"""``typing.NamedTuple``'s class syntax without importing ``typing`` at run time.

``sanitizer check`` starts once per commit in CI, and ``typing`` is about 12M of its
instructions (~3 ms) while the check path needs nothing else from it.  The CLI's value
classes are written as usual::

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
