"""Where problems go besides the response: the ``logging`` module and a callback.

Shared by both adapters so that a refusal is logged the same way under ASGI and WSGI.
Records are structured: the message is one readable line and ``record.sanitizer`` holds
``Problem.log_fields()`` plus the method, target and client (for JSON log formatters).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from ._config import DEFAULT, WebPolicy
from ._problems import Problem

LOGGER = logging.getLogger("sanitizer.web")

# Called with the problem and the request as the framework gave it (ASGI scope or WSGI
# environ); its return value is ignored and its exceptions are logged, not raised.
ProblemCallback = Callable[[Problem, Mapping[str, Any]], None]


def printable(raw: bytes, limit: int = 200) -> str:
    """Bytes for a log line: printable ASCII kept, everything else as \\xNN (no log
    forging with CR/LF, no terminal escapes; CWE-117)."""
    text = raw[:limit].decode("ascii", "backslashreplace")
    out = "".join(c if " " <= c <= "~" else f"\\x{ord(c):02x}" for c in text)
    return out + ("..." if len(raw) > limit else "")


class Reporter:
    """Logs each problem once and calls the user's callback."""

    def __init__(
        self,
        report_only: bool,
        on_problem: ProblemCallback | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        self.report_only = report_only
        self.on_problem = on_problem
        self.logger = logger or LOGGER

    def __call__(
        self,
        problem: Problem,
        request: Mapping[str, Any],
        method: str,
        target: bytes,
        client: str | None,
    ) -> None:
        verb = "would refuse" if self.report_only else "refused"
        fields = {
            **problem.log_fields(),
            "method": method,
            "target": printable(target),
            "client": client,
            "action": "reported" if self.report_only else "refused",
        }
        self.logger.warning(
            "%s %s %s: %s%s",
            verb,
            printable(method.encode("latin-1", "replace"), 20),
            fields["target"],
            problem.detail,
            f" [{problem.evidence}]" if problem.evidence else "",
            extra={"sanitizer": fields},
        )
        if self.on_problem is not None:
            try:
                self.on_problem(problem, request)
            except Exception:
                self.logger.exception("sanitizer.web: the on_problem callback raised")


def configure(
    policy: WebPolicy | None,
    changes: Mapping[str, Any],
    on_problem: ProblemCallback | None,
    logger: logging.Logger | None,
) -> tuple[WebPolicy, Reporter]:
    """Both middleware constructors: ``policy`` (default ``WebPolicy()``) with any of its
    fields given as keywords, and the Reporter for it.  A missing python-multipart (the
    ``web`` extra) is said here, once, as a warning: multipart bodies are then refused
    with 415, every other part of a request checked as usual."""
    from ._dispatch import multipart_available

    if not multipart_available():
        (logger or LOGGER).warning(
            "sanitizer.web: python-multipart is not installed, so multipart/form-data "
            "bodies will be refused (415): pip install 'utf8-sanitizer[web]'"
        )
    if policy is not None and not isinstance(policy, WebPolicy):
        raise TypeError(f"policy must be a sanitizer.web.WebPolicy or None, not {_kind(policy)}")
    if on_problem is not None and not callable(on_problem):
        raise TypeError(f"on_problem must be a callable or None, not {_kind(on_problem)}")
    if logger is not None and not isinstance(logger, logging.Logger):
        raise TypeError(f"logger must be a logging.Logger or None, not {_kind(logger)}")
    base = DEFAULT if policy is None else policy
    resolved = base.replace(**changes) if changes else base
    return resolved, Reporter(resolved.report_only, on_problem, logger)


def _kind(value: object) -> str:
    return type(value).__qualname__
