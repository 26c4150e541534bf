"""A bounded cache of what is derived from an object, found by the object's identity.

The hot paths (``inspect``/``sanitize`` per call, the middleware per request, the source
gate per file) look up what they derived once from a policy.  Hashing a frozen policy
runs Python code (a ``WebPolicy`` hashes nine ``Policy`` values); ``id()`` and a dict
lookup run in C.  An id is only unique while its object lives, so the cache keeps every
key object alive as long as its entry: an id in the cache is never reused meanwhile.
Bounded: when full it starts over (policies are few; a program making them by the
thousand pays a recompile, never unbounded memory).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")


class IdentityCache(Generic[V]):
    """``lookup(id(obj))``: the value stored for ``obj``, or None; ``store(obj, value)``.
    ``lookup`` is the dict's own ``get``: a hot path binds it to a module global once
    (``_lookup = CACHE.lookup``), as reading it from the instance's slot per call costs
    a generic attribute lookup."""

    __slots__ = ("_alive", "_size", "_values", "lookup")

    def __init__(self, size: int) -> None:
        self._size = size
        self._values: dict[int, V] = {}
        self._alive: dict[int, object] = {}  # the key objects, so their ids stay theirs
        self.lookup: Callable[[int], V | None] = self._values.get

    def store(self, obj: object, value: V) -> V:
        """Remember ``value`` for ``obj`` (forgetting everything first when full)."""
        if len(self._values) >= self._size:
            self._values.clear()
            self._alive.clear()
        self._values[id(obj)] = value
        self._alive[id(obj)] = obj
        return value

    def __len__(self) -> int:
        return len(self._values)
