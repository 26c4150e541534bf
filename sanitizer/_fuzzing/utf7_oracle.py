"""The oracle of the ``utf7`` fuzz target: UTF-7 (RFC 2152) against CPython's codec.

Asserts ``check_utf7`` for every input:

* the lax reading (``sanitizer.utf7.inspect(data).text``) is what CPython's 'utf-7' codec
  returns with ``errors="replace"``, and where the codec accepts, its strict result;
* the first error the codec raises is the first of ``inspect``'s errors that carries a
  ``cpython_reason``: same start, end and reason;
* the strict ``decode`` accepts only what the codec accepts, with the same text, and then
  re-encoding that text with CPython's encoder and decoding it again gives it back;
  otherwise it raises the first error, a ``Utf7Error`` (nothing else escapes);
* every error's span lies in the input, in order; an ``encoded-direct`` error read only
  characters UTF-7 writes directly, a ``lone-surrogate`` one a single surrogate;
* ``spelling`` is one printable ASCII line (safe for a log).

A violation raises ``AssertionError`` with the input in hex; libFuzzer saves it as
``crash-*``.  Only ``sanitizer.utf7`` is instrumented (``targets.REGISTRY``); CPython's
codec is the oracle.
"""

from __future__ import annotations

from sanitizer import utf7

__all__ = ["check_utf7"]


def _cpython(data: bytes, errors: str) -> tuple[str | None, tuple[int, int, str] | None]:
    try:
        return data.decode("utf-7", errors), None
    except UnicodeDecodeError as exc:
        return None, (exc.start, exc.end, exc.reason)


def _fail(what: str, data: bytes, *values: object) -> None:
    shown = "\n".join(f"  {value!r}" for value in values)
    raise AssertionError(f"utf7: {what}\ninput ({len(data)} bytes): {data.hex(' ')}\n{shown}")


def check_utf7(data: bytes) -> None:
    """The invariants above; raises AssertionError on the first one violated."""
    data = bytes(data)
    report = utf7.inspect(data)
    errors = report.errors
    replaced = _cpython(data, "replace")[0]
    if report.text != replaced:
        _fail("lax reading != CPython's utf-7 with errors='replace'", data, replaced, report.text)
    strict, strict_error = _cpython(data, "strict")
    first = next(((e.start, e.end, e.cpython_reason) for e in errors if e.cpython_reason), None)
    if first != strict_error:
        _fail("first error != CPython's", data, strict_error, first)
    if report.cpython != strict:
        _fail("report.cpython != CPython's strict result", data, strict, report.cpython)
    previous = 0
    for err in errors:
        if not previous <= err.start < err.end <= len(data):
            _fail("error span out of order or out of the input", data, err)
        previous = err.start
        if err.kind is utf7.Utf7ErrorKind.ENCODED_DIRECT and not (
            err.read and set(err.read) <= utf7.DIRECT
        ):
            _fail("encoded-direct error read other characters", data, err)
        if err.kind is utf7.Utf7ErrorKind.LONE_SURROGATE and not (
            len(err.read) == 1 and 0xD800 <= ord(err.read) <= 0xDFFF
        ):
            _fail("lone-surrogate error read no single surrogate", data, err)
    try:
        text: str | None = utf7.decode(data)
    except utf7.Utf7Error as exc:
        text = None
        if not errors or (exc.start, exc.end, exc.kind) != (
            errors[0].start,
            errors[0].end,
            errors[0].kind,
        ):
            _fail("decode raised another error than the first found", data, exc, errors[:1])
    if (text is None) is (not errors) or utf7.is_valid(data) is bool(errors):
        _fail("decode, is_valid and find_errors disagree", data, text, errors)
    if text is not None:
        if text != strict:
            _fail("strict decode accepted what CPython reads otherwise", data, strict, text)
        again = utf7.decode(text.encode("utf-7"))
        if again != text:
            _fail("round trip through CPython's encoder", data, text, again)
    shown = utf7.spelling(data)
    if shown is not None and not (shown.isascii() and shown.isprintable()):
        _fail("spelling is not one printable ASCII line", data, shown)
