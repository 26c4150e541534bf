"""The sans-IO checks driven as the middleware drives them: the head, then the body a
chunk at a time, then its end; for the tests of ``check_head`` and ``body_check``."""

from __future__ import annotations

from sanitizer.web import DEFAULT, Problem, WebPolicy, body_check, check_head


def body_verdict(
    content_type: bytes, chunks: list[bytes], policy: WebPolicy = DEFAULT
) -> Problem | None:
    """The first problem of a body of ``content_type`` fed as ``chunks``, or None."""
    problem, found = check_head(policy, b"/", b"", [(b"content-type", content_type)])
    assert problem is None, problem
    check = body_check(policy, found)
    for chunk in chunks:
        problem = check.feed(chunk)
        if problem is not None:
            return problem
    return check.close()
