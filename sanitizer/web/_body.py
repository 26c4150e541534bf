"""``BodyCheck``: the base of every body check, and the one that only counts bytes.

The adapter calls ``feed(chunk)`` for every chunk *before* passing it to the app and
``close()`` before the last one, so the app never holds a complete body that fails.
This class keeps the size limit and the rule that the first problem wins; each media
kind's subclass (``_form``, ``_multipart``, ``_json``, ``_text``) checks the content,
keeping only what a verdict still depends on, so memory stays bounded.

``judged()`` says how far the verdict has got: the bytes before it can no longer make
any check refuse the request, so an adapter may hand them to the app; the rest (an open
form field, JSON string or text run) is held until its check is done.

Content checks gather small chunks before they look at them: each look has a fixed
cost (a C scan's setup, python-multipart's ``write``, the UTF-8 decoder's state), so
1 MiB in 4,096 chunks would otherwise cost several times 1 MiB in one.  What is gathered
is at most a quarter of what was looked at before, and at most ``GATHER`` bytes: the
start of a body, and so a small body, is looked at chunk by chunk as before, and a large
one in pieces of up to 64 KiB, a bounded number of looks per MiB.  Gathered bytes count
against the size limit at once and are unjudged until looked at, so gathering only
delays what the app gets; ``close()`` looks at the rest.
"""

from __future__ import annotations

from ._problems import Problem, too_large

GATHER = 64 << 10  # most bytes gathered before a content check looks at them


class BodyCheck:
    """Counts the body against the size limit; subclasses check its content."""

    gather = 0  # a subclass that checks content sets GATHER: only counting needs no gathering

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.size = 0  # bytes fed, counted against the limit
        self.checked = 0  # bytes handed to ``_feed``; the rest are gathered
        self.problem: Problem | None = None  # the first problem found; later input is ignored
        self.closed = False
        self._gathered: list[bytes] = []  # fed since ``checked``, joined once when looked at
        self._look_at = self._next_look()  # the size at which the gathered bytes are looked at

    def feed(self, chunk: bytes) -> Problem | None:
        """Check the next chunk; the first problem is returned once, then None."""
        if self.problem is None and chunk:  # (the per-chunk path: kept short)
            size = self.size = self.size + len(chunk)
            if size < self._look_at:  # a small chunk: looked at with the next ones
                self._gathered.append(chunk)
                return None
            return self._look(chunk)
        return None

    def _next_look(self) -> int:
        """Gathered bytes are looked at once they are a quarter of what was looked at
        before, or ``gather``; a body over the limit is refused at the chunk that
        crosses it."""
        look_at = self.checked + min(self.gather, self.checked >> 2)
        return look_at if self.limit is None else min(look_at, self.limit + 1)

    def _look(self, chunk: bytes) -> Problem | None:
        if self.limit is not None and self.size > self.limit:
            self.problem = too_large(self.limit)
            return self.problem
        if self._gathered:
            self._gathered.append(chunk)
            chunk = b"".join(self._gathered)
            self._gathered = []
        self.checked = self.size
        self._look_at = self._next_look()
        self.problem = self._feed(chunk)
        return self.problem

    def close(self) -> Problem | None:
        """The body ended: check what was gathered and what was held back."""
        self.closed = True
        if self.problem is not None:
            return None
        if self._gathered:
            chunk = b"".join(self._gathered)
            self._gathered = []
            self.checked = self.size
            self.problem = self._feed(chunk)
            if self.problem is not None:
                return self.problem
        self.problem = self._close()
        return self.problem

    def judged(self) -> int:
        """How many bytes from the start of the body no check can refuse any more (all
        of them once the body is closed, or once a problem is found: then nothing more
        is handed over in any case, or everything is, in report-only mode).  Never more
        than ``checked``: gathered bytes are not judged yet."""
        if self.closed or self.problem is not None:
            return self.size
        return self._judged_size()

    def _feed(self, chunk: bytes) -> Problem | None:
        return None

    def _close(self) -> Problem | None:
        return None

    def _judged_size(self) -> int:
        return self.checked  # a body only counted: each byte is judged as it is counted
