"""The verdict pass of ``sanitizer check``: is a regular file valid UTF-8 from end to end?

Most files are, and saying so needs no decoder, no line or column count: the SIMD
validator (``utf8_valid_prefix``) proves them in big reads, at what reading them costs.
A file of ``PARALLEL_MIN`` bytes or more is cut into parts at character
starts and proven in threads (the validator and ``os.preadv`` release the GIL), because
one core cannot read memory as fast as two.  The answer is only ever "valid, this many
bytes" or "not proven": then the stream is back just after the bytes the caller read
first, and the exact path (``_mode_utf8.stream_mode``) reads it again and reports every
error.  Nothing is reported from here, so the output does not depend on this pass.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .._native import VALIDATOR_BLOCK, utf8_valid_prefix
from . import _jobs

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from typing import IO

VERDICT_CHUNK = 1 << 20  # bytes read at a time: a few Python calls a MiB
# The SIMD validator may stop up to one block short of an error (_native), and a
# character cut at a read's end leaves at most 3 bytes: a longer unproven tail is an error.
_UNPROVEN_TAIL = VALIDATOR_BLOCK + 3
# A file this big is proven in parallel parts: below it, starting threads is not worth it.
PARALLEL_MIN = 16 << 20
MAX_PARTS = 4  # memory bandwidth, not cores, bounds the validator beyond a few threads

_Advance = Callable[[int], None]


def parts_for(requested: int, size: int) -> int:
    """How many threads prove a file of ``size`` bytes: one below ``PARALLEL_MIN`` or
    where ``os.preadv`` is missing (Windows); else ``requested`` (``--jobs``), or with 0
    one a core, at most ``MAX_PARTS``."""
    if size < PARALLEL_MIN or not hasattr(os, "preadv"):
        return 1
    return max(1, requested if requested else min(_jobs.cores(), MAX_PARTS))


def valid_size(stream: IO[bytes], first: bytes, advance: _Advance, jobs: int) -> int | None:
    """The size of ``stream``, a file whose first bytes ``first`` were read already,
    when it is valid UTF-8 from its first byte to its end; None as soon as a byte may
    be ill-formed (or the stream cannot be read again), with the stream back just after
    ``first``.  ``advance(n)`` is told of each ``n`` bytes proven; ``jobs`` is
    ``--jobs`` (``parts_for``)."""
    readinto = getattr(stream, "readinto", None)
    if readinto is None or not stream.seekable():  # a pipe: it cannot be read again
        return None
    pending = len(first) - utf8_valid_prefix(first)
    if pending > _UNPROVEN_TAIL:
        return None
    # Where ``first`` began in the file: not 0 for stdin redirected from a file that the
    # shell had read from (``(head -c 9 >/dev/null; sanitizer check -) < FILE``).
    after_first = stream.tell()
    origin = after_first - len(first)
    try:
        fd = stream.fileno()
        rest = os.fstat(fd).st_size - after_first
    except (OSError, ValueError):
        fd, rest = -1, VERDICT_CHUNK
    start = len(first) - pending  # proven so far: a character boundary
    advance(start)
    end: int | None
    parts = parts_for(jobs, rest) if fd >= 0 else 1
    if parts > 1:
        end = _prove_in_parts(fd, origin + start, after_first + rest, parts, advance)
        end = None if end is None else end - origin
    else:
        proven = _prove_stream(readinto, first[start:], rest, advance)
        end = None if proven is None else start + proven
    if end is None:
        stream.seek(after_first)
        return None
    return end


def _prove_stream(
    readinto: Callable[[memoryview], int | None], head: bytes, rest: int, advance: _Advance
) -> int | None:
    """Read to the end after ``head`` (an unproven tail of at most ``_UNPROVEN_TAIL``
    bytes that starts on a character boundary): how many bytes ``head`` and what
    follows it hold when they are valid, else None."""
    # a buffer no larger than the rest of the file (most files end within the first read)
    buffer = bytearray(min(VERDICT_CHUNK, max(rest, 4096)) + _UNPROVEN_TAIL)
    view = memoryview(buffer)
    pending = len(head)
    buffer[:pending] = head
    proven = 0
    while True:
        n = readinto(view[pending:]) or 0
        end = pending + n
        if not n:
            return None if pending else proven
        pending = end - utf8_valid_prefix(view[:end])
        if pending > _UNPROVEN_TAIL:  # an error, not a character cut by the read
            return None
        advance(end - pending)
        proven += end - pending
        if pending:  # the unproven tail starts the next read (a character boundary)
            buffer[:pending] = buffer[end - pending : end]


def _char_start(fd: int, at: int) -> int | None:
    """The first character start at or after ``at``: past at most 3 continuation bytes
    (RFC 3629 §4: a character has at most three); None after four, which no valid
    text has."""
    head = os.pread(fd, 4, at)
    for k, byte in enumerate(head):
        if not 0x80 <= byte <= 0xBF:
            return at + k
    return at + len(head) if len(head) < 4 else None


def _prove_range(fd: int, start: int, stop: int | None, advance: _Advance) -> int | None:
    """Prove the bytes from ``start`` (a character start) to ``stop`` (another one; None:
    to the end of the file) with ``os.preadv``, through ``_prove_stream``: where the
    range ended when it is valid UTF-8 that ends on a character boundary, else None."""
    at = start

    def read(view: memoryview) -> int:
        nonlocal at
        want = len(view) if stop is None else min(len(view), stop - at)
        n = os.preadv(fd, [view[:want]], at) if want > 0 else 0
        at += n
        return n

    if _prove_stream(read, b"", VERDICT_CHUNK, advance) is None:
        return None
    return None if stop is not None and at < stop else at  # the file shrank


def _prove_in_parts(fd: int, start: int, size: int, parts: int, advance: _Advance) -> int | None:
    """``_prove_range`` over ``parts`` ranges cut at character starts, all but the last
    in threads, the last in this one (to the end of the file, should it have grown):
    the file's end when every range is proven, else None."""
    import threading

    cuts: list[int] = [start]
    for k in range(1, parts):
        cut = _char_start(fd, start + (size - start) * k // parts)
        if cut is None:
            return None
        cuts.append(max(cut, cuts[-1]))
    lock = threading.Lock()

    def locked(n: int) -> None:
        with lock:
            advance(n)

    ends: list[int | None] = [None] * parts
    failures: list[BaseException] = []

    def run(k: int) -> None:
        try:
            ends[k] = _prove_range(fd, cuts[k], cuts[k + 1], locked)
        except BaseException as exc:  # raised again in the caller's thread
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(parts - 1)]
    for thread in threads:
        thread.start()
    try:
        last = _prove_range(fd, cuts[-1], None, locked)
    finally:
        for thread in threads:
            thread.join()
    if failures:
        raise failures[0]
    if last is None or any(end is None for end in ends[:-1]):
        return None
    return last
