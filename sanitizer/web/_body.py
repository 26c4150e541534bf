"""``BodyCheck``: the base of every body check, and the one that only counts bytes.

The adapter calls ``feed(chunk)`` for every chunk *before* passing it to the app and
``close()`` before the last one, so the app never holds a complete body that fails.
This class keeps the size limit and the rule that the first problem wins; each media
kind's subclass (``_form``, ``_multipart``, ``_json``, ``_text``) checks the content,
keeping only what a verdict still depends on, so memory stays bounded.
"""

from __future__ import annotations

from ._problems import Problem, too_large


class BodyCheck:
    """Counts the body against the size limit; subclasses check its content."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.size = 0
        self.problem: Problem | None = None  # the first problem found; later input is ignored

    def feed(self, chunk: bytes) -> Problem | None:
        """Check the next chunk; the first problem is returned once, then None."""
        if self.problem is not None or not chunk:
            return None
        self.size += len(chunk)
        if self.limit is not None and self.size > self.limit:
            self.problem = too_large(self.limit)
        else:
            self.problem = self._feed(chunk)
        return self.problem

    def close(self) -> Problem | None:
        """The body ended: check what was held back."""
        if self.problem is not None:
            return None
        self.problem = self._close()
        return self.problem

    def _feed(self, chunk: bytes) -> Problem | None:
        return None

    def _close(self) -> Problem | None:
        return None
