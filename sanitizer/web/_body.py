"""``BodyCheck``: the base of every body check, and the one that only counts bytes.

The adapter calls ``feed(chunk)`` for every chunk *before* passing it to the app and
``close()`` before the last one, so the app never holds a complete body that fails.
This class keeps the size limit and the rule that the first problem wins; each media
kind's subclass (``_form``, ``_multipart``, ``_json``, ``_text``) checks the content,
keeping only what a verdict still depends on, so memory stays bounded.

``judged()`` says how far the verdict has got: the bytes before it can no longer make
any check refuse the request, so an adapter may hand them to the app; the rest (an open
form field, JSON string or text run) is held until its check is done.
"""

from __future__ import annotations

from ._problems import Problem, too_large


class BodyCheck:
    """Counts the body against the size limit; subclasses check its content."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.size = 0
        self.problem: Problem | None = None  # the first problem found; later input is ignored
        self.closed = False

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
        self.closed = True
        if self.problem is not None:
            return None
        self.problem = self._close()
        return self.problem

    def judged(self) -> int:
        """How many bytes from the start of the body no check can refuse any more (all
        of them once the body is closed, or once a problem is found: then nothing more
        is handed over in any case, or everything is, in report-only mode)."""
        if self.closed or self.problem is not None:
            return self.size
        return self._judged_size()

    def _feed(self, chunk: bytes) -> Problem | None:
        return None

    def _close(self) -> Problem | None:
        return None

    def _judged_size(self) -> int:
        return self.size  # a body only counted: each byte is judged as it is counted
