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
delays what the app gets; ``close()`` looks at the rest.  The gathered chunks are handed
over as a list (``_feed_pieces``): a check that can use them unjoined (``_text``) copies
each byte once, when it must hold a run whole; the others join them once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from ._problems import Problem, too_large

GATHER = 64 << 10  # most bytes gathered before a content check looks at them
# A JSON text that holds a string starts, after whitespace (RFC 8259 §2), with '{', '['
# or '"'.
_NOT_SPACE = re.compile(rb"[^ \t\r\n]")
# MessagePack format bytes that start a map, an array or a string (_msgpack.FIRST, which
# a test holds equal): a body read by content as MessagePack too.
_MSGPACK_FIRST = frozenset([*range(0x80, 0xC0), *range(0xD9, 0xE0)])


class BodyCheck:
    """Counts the body against the size limit; subclasses check its content."""

    gather = 0  # a subclass that checks content sets GATHER: only counting needs no gathering
    # Slots keep the per-chunk path's attribute reads fast whatever a subclass adds (a
    # multipart check's many attributes made them twice as slow).
    __slots__ = (
        "_gather",
        "_gathered",
        "_json",
        "_json_wait",
        "_look_at",
        "checked",
        "closed",
        "json_by_content",
        "limit",
        "problem",
        "size",
    )

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.size = 0  # bytes fed, counted against the limit
        self.checked = 0  # bytes handed to ``_feed``; the rest are gathered
        self.problem: Problem | None = None  # the first problem found; later input is ignored
        self.closed = False
        self._gathered: list[bytes] = []  # fed since ``checked``, handed over when looked at
        self._gather = self._gathered.append
        self._look_at = self._next_look()  # the size at which the gathered bytes are looked at
        # JSON by content (docs/web.md): frameworks' JSON accessors (Starlette's and
        # Litestar's request.json(), Falcon's get_media() without a Content-Type) parse a
        # body whatever it is labelled.  ``body_check`` sets ``json_by_content`` to make
        # the check that reads it so, engaged if the body starts like JSON with strings.
        self.json_by_content: Callable[..., BodyCheck] | None = None
        self._json: BodyCheck | None = None
        self._json_wait: list[bytes] | None = []  # the body's first pieces, < 4 bytes

    def feed(self, chunk: bytes) -> Problem | None:
        """Check the next chunk; the first problem is returned once, then None.
        RuntimeError after ``close()`` (unless a problem was found: then ignored)."""
        size = self.size + len(chunk)  # (the per-chunk path: kept short)
        if size < self._look_at:  # a small chunk: looked at with the next ones
            self.size = size
            self._gather(chunk)
            return None
        return self._look(chunk, size)

    def _next_look(self) -> int:
        """Gathered bytes are looked at once they are a quarter of what was looked at
        before, or ``gather``; a body over the limit is refused at the chunk that
        crosses it.  After a problem, -1: every chunk takes the slow path, ignored."""
        if self.problem is not None or self.closed:
            return -1
        look_at = self.checked + min(self.gather, self.checked >> 2)
        return look_at if self.limit is None else min(look_at, self.limit + 1)

    def _look(self, chunk: bytes, size: int) -> Problem | None:
        if self.problem is not None or not chunk:
            return None
        if self.closed:  # bytes after the end would pass unjudged: a caller's error
            raise RuntimeError("BodyCheck.feed() after close(): the body had ended")
        self.size = size
        if self.limit is not None and size > self.limit:
            self.problem = too_large(self.limit)
            self._look_at = -1
            return self.problem
        pieces = [chunk]
        if self._gathered:
            self._gather(chunk)
            pieces = self._gathered.copy()
            self._gathered.clear()
        new = size - self.checked
        self.checked = size
        self.problem = self._feed_pieces(pieces, new)
        if self.problem is None and (self._json is not None or self.json_by_content is not None):
            self.problem = self._json_pieces(pieces)
        self._look_at = self._next_look()
        return self.problem

    def _json_pieces(self, pieces: list[bytes], final: bool = False) -> Problem | None:
        """The body read as JSON by content, as ``json.loads`` reads bytes: in the
        encoding ``json.detect_encoding`` finds in its first 4 bytes (UTF-16 or UTF-32
        after such a byte order mark, or from where its zero bytes are, RFC 4627 §3; else
        UTF-8 after an optional UTF-8 byte order mark); engaged at the first character
        that is not whitespace if it may start a JSON text holding a string, else never.
        A body whose first byte starts a MessagePack map, array or string is read as
        MessagePack too (``_msgpack``; Litestar's ``request.msgpack()``)."""
        reading = self._json
        if reading is None:
            start = self.json_by_content
            assert start is not None
            waiting = self._json_wait
            if waiting is not None:  # the body's first 4 bytes decide its encoding
                waiting.extend(pieces)
                head = b"".join(p[:4] for p in waiting[:4])[:4]
                if len(head) < 4 and not final:
                    return None
                self._json_wait = None
                pieces = waiting
                # (on a body of fewer than 4 bytes, head is the body: the same answer)
                encoding = json.detect_encoding(head)
                packed = head[:1] != b"" and head[0] in _MSGPACK_FIRST  # MessagePack too
                if encoding == "utf-8-sig":  # json.loads skips the BOM
                    pieces = [b"".join(waiting)[3:]]
                elif encoding != "utf-8":  # its decoder looks for the JSON start itself
                    reading = self._json = start(wide=encoding, packed=packed)
                elif packed:  # (no JSON text in UTF-8 starts so)
                    reading = self._json = start(packed=True)
            if reading is None:
                for i, piece in enumerate(pieces):
                    m = _NOT_SPACE.search(piece)
                    if m is None:
                        continue  # whitespace so far
                    self.json_by_content = None
                    if piece[m.start() : m.start() + 1] not in (b"{", b"[", b'"'):
                        return None  # no JSON text with a string: nothing to read
                    reading = self._json = start()
                    pieces = [piece[m.start() :], *pieces[i + 1 :]]
                    break
                else:
                    return None
        for piece in pieces:
            problem = reading.feed(piece)
            if problem is not None:
                return problem
        return None

    def close(self) -> Problem | None:
        """The body ended: check what was gathered and what was held back."""
        self.closed = True
        self._look_at = -1
        if self.problem is not None:
            return None
        if self._gathered:
            pieces, size = self._gathered.copy(), self.size - self.checked
            self._gathered.clear()
            self.checked = self.size
            self.problem = self._feed_pieces(pieces, size)
            if self.problem is None and (
                self._json is not None or self.json_by_content is not None
            ):  # read as JSON by content too, as _look reads what it hands over
                self.problem = self._json_pieces(pieces)
            if self.problem is not None:
                return self.problem
        self.problem = self._close()
        if self.problem is None and self.json_by_content is not None and self._json_wait:
            self.problem = self._json_pieces([], final=True)  # a body of < 4 bytes
        if self.problem is None and self._json is not None:
            self.problem = self._json.close()
        return self.problem

    def judged(self) -> int:
        """How many bytes from the start of the body no check can refuse any more (all
        of them once the body is closed, or once a problem is found: then nothing more
        is handed over in any case, or everything is, in report-only mode).  Never more
        than ``checked``: gathered bytes are not judged yet."""
        if self.closed or self.problem is not None:
            return self.size
        return self._judged_size()

    def _feed_pieces(self, pieces: list[bytes], size: int) -> Problem | None:
        """Check the next ``size`` bytes, fed as ``pieces`` (the chunks gathered since the
        last look); a check that needs them contiguous gets them joined, once."""
        return self._feed(b"".join(pieces))  # (one piece is passed on as it is, uncopied)

    def _feed(self, chunk: bytes) -> Problem | None:
        return None

    def _close(self) -> Problem | None:
        return None

    def _judged_size(self) -> int:
        return self.checked  # a body only counted: each byte is judged as it is counted
