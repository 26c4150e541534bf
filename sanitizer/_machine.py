"""The reference runner for ``_grammar.Machine``: pure Python, one byte at a time.

This is the spec implementation.  The C extension (``_native_src/utf8.c``) runs the same
transition table and must agree with it byte for byte (tests and ``fuzz/fuzz_decode.py``
check both against each other and against CPython).  Both expose the same two functions:

``spans(data, table, nclasses, pos, limit)``
    Flat list ``[start0, end0, start1, end1, ...]`` of the maximal subparts (Unicode §3.9)
    found in ``data[pos:]``, at most ``limit`` of them (``limit < 0``: all).

``replace(data, table, nclasses, pos, out_spans)``
    The text of ``data[pos:]`` with one U+FFFD per maximal subpart; when ``out_spans`` is
    a list, the subparts' (start, end) pairs are appended to it, flat.

Both are linear: every byte is read at most twice (once more when it ends a subpart).
"""

from __future__ import annotations

from ._grammar import ACCEPT, REJECT

REPLACEMENT = "\ufffd"


def spans(data: bytes | memoryview, table: bytes, nclasses: int, pos: int, limit: int) -> list[int]:
    out: list[int] = []
    if limit != 0:  # at most ``limit`` subparts: none for 0 (as the C runner)
        _run(data, table, nclasses, pos, limit, out, None)
    return out


def replace(data: bytes, table: bytes, nclasses: int, pos: int, out_spans: list[int] | None) -> str:
    chars: list[str] = []
    _run(data, table, nclasses, pos, -1, out_spans, chars)
    return "".join(chars)


def _run(
    data: bytes | memoryview,
    table: bytes,
    nclasses: int,
    pos: int,
    limit: int,
    out_spans: list[int] | None,
    chars: list[str] | None,
) -> None:
    classes = table[:256]
    masks = table[256:512]
    trans = table[512:]
    n = len(data)
    found = 0
    state = ACCEPT
    start = pos  # where the current character (or subpart) began
    cp = 0
    i = pos
    while i < n:
        byte = data[i]
        nxt = trans[state * nclasses + classes[byte]]
        if nxt != REJECT:
            cp = (byte & masks[byte]) if state == ACCEPT else (cp << 6) | (byte & 0x3F)
            if state == ACCEPT:
                start = i
            state = nxt
            i += 1
            if state == ACCEPT and chars is not None:
                chars.append(chr(cp))
            continue
        # A maximal subpart ends here: [start, i) if inside a character, else [i, i+1).
        if state == ACCEPT:
            start, i = i, i + 1
        if out_spans is not None:
            out_spans += (start, i)
        if chars is not None:
            chars.append(REPLACEMENT)
        found += 1
        state = ACCEPT
        if found == limit:
            return
    if state != ACCEPT:  # input ends inside a character
        if out_spans is not None:
            out_spans += (start, n)
        if chars is not None:
            chars.append(REPLACEMENT)
