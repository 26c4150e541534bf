"""WSGI (PEP 3333) middleware: translates a WSGI environ into ``check_head``/``body_check`` calls.

The head is judged before the app is called (a head refused for a UTF-7 charset first
reads up to 1 KiB of the body, to say what it spelled).  ``wsgi.input`` is
wrapped so the body is checked as the app reads it: a byte is handed over only once every
check that could refuse the request because of it has passed, and the last bytes only
after the end of the body passed.  The server's input is only ever read in bounded blocks
with a size (``read(n)``: PEP 3333 lets servers refuse ``read()`` and ``read(-1)``),
never past CONTENT_LENGTH, and never more than one byte past ``max_body_size``, so a
chunked upload of any size costs a block of memory and gets its 413 at the limit.  A
failure raises ``RequestRejected`` (an ``OSError``, which frameworks treat as a broken
client stream) inside the app's read; the middleware then discards the app's response and
answers 400 (or 413).  The app's ``start_response`` is held back until its first body
chunk, so nothing reaches the client before that decision.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any

from ._body import BodyCheck
from ._config import WebPolicy
from ._dispatch import body_check
from ._head import check_head
from ._problems import NOSNIFF, PROBLEM_CONTENT_TYPE, Problem, sample_size, with_sample
from ._report import ProblemCallback, Reporter, configure

__all__ = ["RequestRejected", "WSGIMiddleware"]

if TYPE_CHECKING:  # typeshed's PEP 3333 types, so frameworks' apps type-check as given
    from _typeshed import OptExcInfo
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

    Write = Callable[[bytes], object]


class RequestRejected(OSError):
    """Raised by the wrapped ``wsgi.input`` when the body fails; ``.problem`` says why."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.detail)
        self.problem = problem

    def __reduce__(self) -> tuple[Any, ...]:
        # OSError's would call RequestRejected(detail): made again from the problem.
        return type(self), (self.problem,), self.__dict__


class WSGIMiddleware:
    """Refuse ill-formed and dangerous input before a WSGI app sees it.

    ``WSGIMiddleware(app)`` uses ``WebPolicy()``; pass a ``policy`` and/or any of its
    fields as keywords.  ``on_problem(problem, environ)`` is called for every refusal (or,
    in report-only mode, every would-be refusal); records also go to ``logger``.
    """

    def __init__(
        self,
        app: WSGIApplication,
        /,
        policy: WebPolicy | None = None,
        *,
        on_problem: ProblemCallback | None = None,
        logger: logging.Logger | None = None,
        **changes: Any,
    ) -> None:
        self.app = app
        self.policy, self.reporter = configure(policy, changes, on_problem, logger)

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")  # gunicorn, waitress...
        if raw:
            path, _, _ = raw.encode("latin-1").partition(b"?")
            decoded = False
        else:  # PEP 3333: SCRIPT_NAME and PATH_INFO are percent-decoded, as latin-1 str
            path = (environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")).encode("latin-1")
            decoded = True
        query = environ.get("QUERY_STRING", "").encode("latin-1")
        headers = request_headers(environ)
        problem, head = check_head(self.policy, path, query, headers, path_decoded=decoded)
        length = head.content_length
        if length is None and not environ.get("wsgi.input_terminated"):
            length = 0  # PEP 3333: without CONTENT_LENGTH the app must not read
        if problem is not None:
            if not self.policy.report_only:  # a UTF-7 charset: what the body spelled
                wanted = sample_size(problem, length)
                problem = with_sample(problem, read_sample(environ["wsgi.input"], wanted))
            self._report(problem, environ, path, query)
            if not self.policy.report_only:
                return _respond(start_response, problem)
        exchange = _Exchange(self, environ, path, query)
        environ["wsgi.input"] = CheckedInput(
            environ["wsgi.input"], body_check(self.policy, head), length, exchange.failed
        )
        return exchange.run(start_response)

    def _report(
        self, problem: Problem, environ: WSGIEnvironment, path: bytes, query: bytes
    ) -> None:
        report_environ(self.reporter, problem, environ, path, query)


def report_environ(
    reporter: Reporter, problem: Problem, environ: Mapping[str, Any], path: bytes, query: bytes
) -> None:
    """Log and call back for ``problem`` with what a WSGI environ (or Django's META) says
    about the request: method, target and client address."""
    host, port = environ.get("REMOTE_ADDR"), environ.get("REMOTE_PORT")
    reporter(
        problem,
        environ,
        environ.get("REQUEST_METHOD", "GET"),
        path + b"?" + query if query else path,
        None if not host else f"{host}:{port}" if port else host,
    )


def read_sample(stream: Any, size: int) -> bytes:
    """Up to ``size`` bytes from the start of a refused request's body (``with_sample``):
    read with a size, as PEP 3333 asks; b"" when the read fails (the server's error or
    timeout: the detail then says less, the answer is the same)."""
    sample = b""
    try:
        while len(sample) < size:
            data = stream.read(size - len(sample))
            if not data:
                break
            sample += data
    except (OSError, ValueError):
        return b""
    return sample


def request_headers(environ: Mapping[str, Any]) -> Iterator[tuple[bytes, bytes]]:
    """The request headers back as bytes (PEP 3333: HTTP_* and CONTENT_*, latin-1 str)."""
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            name = key[5:]
        elif key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            name = key
        else:
            continue
        if isinstance(value, str):
            yield name.replace("_", "-").lower().encode("latin-1"), value.encode("latin-1")


class _Exchange:
    """One request: holds the app's start_response until the body verdict is known."""

    def __init__(
        self, mw: WSGIMiddleware, environ: WSGIEnvironment, path: bytes, query: bytes
    ) -> None:
        self.mw, self.environ, self.path, self.query = mw, environ, path, query
        self.refused: Problem | None = None
        self.pending: tuple[str, list[tuple[str, str]], OptExcInfo | None] | None = None
        self.started = False

    def failed(self, problem: Problem) -> bool:
        """Called by CheckedInput; True if the app must not get the rest of the body."""
        self.mw._report(problem, self.environ, self.path, self.query)
        if self.mw.policy.report_only:
            return False
        if not self.started:  # else the response is under way: the app's read just fails
            self.refused = problem
        return True

    def run(self, start_response: StartResponse) -> Iterable[bytes]:
        def held_start_response(
            status: str, headers: list[tuple[str, str]], exc_info: OptExcInfo | None = None
        ) -> Write:
            self.pending = (status, headers, exc_info)
            return write

        def write(data: bytes) -> object:  # PEP 3333's legacy write(): starts for real
            return self._start(start_response)(data)

        # Whatever the app raises after a refusal -- RequestRejected, or the framework's own
        # error made from it (Django's UnreadablePostError) -- the answer is the 400.
        try:
            result = self.mw.app(self.environ, held_start_response)
        except Exception:
            if self.refused is None:
                raise
            return _respond(start_response, self.refused)
        try:
            chunks = iter(result)
            first = next(chunks, None)  # runs a generator app up to its first chunk
        except Exception:
            _close(result)
            if self.refused is None:
                raise
            return _respond(start_response, self.refused)
        if self.refused is not None:
            _close(result)
            return _respond(start_response, self.refused)
        self._start(start_response)
        return _Response(first, chunks, result)

    def _start(self, start_response: StartResponse) -> Write:
        if self.pending is None:
            raise RuntimeError("the WSGI app returned without calling start_response")
        status, headers, exc_info = self.pending
        self.started = True
        return (
            start_response(status, headers, exc_info)
            if exc_info
            else start_response(status, headers)
        )


class _Response:
    """The app's iterable with its first chunk put back; close() is passed on (PEP 3333)."""

    def __init__(self, first: bytes | None, rest: Iterator[bytes], result: Iterable[bytes]) -> None:
        self._first, self._rest, self._result = first, rest, result

    def __iter__(self) -> Iterator[bytes]:
        if self._first is not None:
            yield self._first
        yield from self._rest

    def close(self) -> None:
        _close(self._result)


def _close(result: Iterable[bytes]) -> None:
    close = getattr(result, "close", None)
    if close is not None:
        close()


def _respond(start_response: StartResponse, problem: Problem) -> list[bytes]:
    # No "Connection: close" here: PEP 3333 leaves hop-by-hop headers to the server, which
    # drains or closes on a body the app did not read.
    body = problem.body()
    headers = [("Content-Type", PROBLEM_CONTENT_TYPE), ("Content-Length", str(len(body))), NOSNIFF]
    start_response(problem.status_line(), headers)
    return [body]


_BLOCK = 64 * 1024  # most bytes asked of the server's input at once


class CheckedInput:
    """``wsgi.input`` that checks bytes before handing them over (read with any size,
    ``None`` or none; readline, readlines, iteration).  The server's stream is read in
    blocks of at most 64 KiB, never past CONTENT_LENGTH (as PEP 3333 asks of apps) nor
    past ``max_body_size`` + 1.  Bytes whose verdict is not known yet (an open form field,
    JSON string or text run: ``BodyCheck.judged``) are held back until it is."""

    def __init__(
        self,
        stream: IO[bytes],
        check: BodyCheck,
        length: int | None,
        failed: Callable[[Problem], bool],
    ) -> None:
        self._stream = stream
        self._check = check
        self._left = length  # None: read to EOF (wsgi.input_terminated: chunked bodies)
        self._failed = failed
        self._problem: Problem | None = None
        self._eof = False
        self._ready = bytearray()  # judged bytes not yet handed over
        self._unjudged = bytearray()  # read and fed, verdict pending
        self._searched = 0  # _ready[:_searched] holds no b"\n" (readline)

    def _fail(self, problem: Problem) -> None:
        if self._failed(problem):
            self._problem = problem
            raise RequestRejected(problem)

    def _fill(self) -> None:
        """Read one block from the server, check it, and move what is judged to _ready."""
        if self._problem is not None:
            raise RequestRejected(self._problem)
        if self._eof:
            return
        check = self._check
        want = _BLOCK if self._left is None else min(_BLOCK, self._left)
        if check.limit is not None and check.problem is None:
            want = min(want, check.limit + 1 - check.size)  # one byte past it is a 413
        data = self._stream.read(want) if want > 0 else b""
        data = data or b""  # (a few servers' inputs answer None at the end)
        if self._left is not None:
            self._left -= len(data)
        problem = check.feed(data)
        if problem is not None:
            self._fail(problem)
        if not data or self._left == 0:
            self._eof = True
            problem = check.close()
            if problem is not None:
                self._fail(problem)
        held = check.size - check.judged()  # the unjudged tail of what was read
        if not self._unjudged and not held:
            self._ready += data
            return
        self._unjudged += data
        ready = len(self._unjudged) - held
        if ready:
            self._ready += self._unjudged[:ready]
            del self._unjudged[:ready]

    def _take(self, size: int) -> bytes:
        out = bytes(self._ready[:size])
        del self._ready[:size]
        self._searched = max(0, self._searched - size)
        return out

    # The io.RawIOBase questions apps and frameworks ask (Django 6 asks seekable() before
    # reading a body): a checked stream reads forward only.
    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def read(self, size: int | None = -1) -> bytes:
        if self._problem is not None:
            raise RequestRejected(self._problem)
        if size is None or size < 0:
            while not self._eof:
                self._fill()
            return self._take(len(self._ready))
        while len(self._ready) < size and not self._eof:
            self._fill()
        return self._take(size)

    def readline(self, size: int | None = -1) -> bytes:
        if self._problem is not None:
            raise RequestRejected(self._problem)
        size = -1 if size is None else size
        while True:
            end = self._ready.find(b"\n", self._searched) + 1
            if end or self._eof or 0 <= size <= len(self._ready):
                break
            self._searched = len(self._ready)  # scanned once, however long the line
            self._fill()
        end = end or len(self._ready)
        return self._take(end if size < 0 else min(end, size))

    def readlines(self, hint: int | None = -1) -> list[bytes]:
        lines: list[bytes] = []
        total = 0
        while line := self.readline():
            lines.append(line)
            total += len(line)
            if hint is not None and 0 < hint <= total:
                break
        return lines

    def __iter__(self) -> Iterator[bytes]:
        while line := self.readline():
            yield line
