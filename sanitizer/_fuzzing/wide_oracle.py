"""The UTF-16/UTF-32 fuzz oracle and the broken decoders it must catch.

``check_wide(data)`` decodes the same bytes as UTF-16LE, UTF-16BE, UTF-32LE and UTF-32BE
(and as ``utf-16``/``utf-32`` with BOM detection) and asserts, against CPython's codec:
the verdict, the replace text, the first error's span, every error's span (CPython's
error handler is called once per ill-formed unit), and that an incremental decoder fed a
chunking derived from the bytes equals one-shot decoding.  With a ``candidate``
(bytes -> str, raising ``UnicodeDecodeError``), the candidate's UTF-16LE verdict, text and
first error span must equal ``sanitizer.utf16``'s.  ``MUTANTS`` are plausible UTF-16 bugs;
the seed corpus (``corpus/utf16/``) must catch each (``tests/core/test_utf16.py``).
"""

from __future__ import annotations

import codecs
import zlib
from collections.abc import Callable

from sanitizer import utf16, utf32
from sanitizer._wide import WideCodec, WideError

from .oracles import Divergence

__all__ = ["MUTANTS", "check_wide"]

Decoder = Callable[[bytes], str]
_FORMS: tuple[tuple[str, WideCodec[WideError], str], ...] = (
    ("utf-16-le", utf16.CODEC, "le"),
    ("utf-16-be", utf16.CODEC, "be"),
    ("utf-32-le", utf32.CODEC, "le"),
    ("utf-32-be", utf32.CODEC, "be"),
)
_recorded: list[tuple[int, int]] = []


def _record(exc: UnicodeError) -> tuple[str, int]:
    assert isinstance(exc, UnicodeDecodeError)
    _recorded.append((exc.start, exc.end))
    return "\ufffd", exc.end


codecs.register_error("sanitizer-fuzz-wide-record", _record)


def _cpython(data: bytes, name: str) -> tuple[str, list[tuple[int, int]]]:
    """CPython's replace text and every error span it reports."""
    _recorded.clear()
    text = data.decode(name, "sanitizer-fuzz-wide-record")
    return text, list(_recorded)


def _strict(decode: Decoder, data: bytes) -> tuple[str | None, tuple[int, int] | None]:
    try:
        return decode(data), None
    except UnicodeDecodeError as exc:
        return None, (exc.start, exc.end)


def _cuts(data: bytes) -> list[int]:
    """A chunking derived from the bytes (deterministic, so a replay repeats it)."""
    seed = zlib.crc32(data)
    cuts, pos = [], 0
    while pos < len(data):
        pos += 1 + seed % 7
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        cuts.append(min(pos, len(data)))
    return cuts


def _check_form(data: bytes, name: str, codec: WideCodec[WideError], order: str) -> None:
    text, spans = _cpython(data, name)
    kw = {"byte_order": order}
    ours = codec.decode(data, errors="replace", **kw)  # type: ignore[arg-type]
    if ours != text:
        raise Divergence(f"{name}: replace text differs", data, [("cpython", text), ("ours", ours)])
    found = [(e.start, e.end) for e in codec.find_errors(data, **kw)]  # type: ignore[arg-type]
    if found != spans:
        raise Divergence(f"{name}: error spans differ", data, [("cpython", spans), ("ours", found)])
    if codec.is_valid(data, **kw) != (not spans):  # type: ignore[arg-type]
        raise Divergence(f"{name}: verdict differs", data, [("cpython", not spans)])
    reference = _strict(lambda d: d.decode(name), data)
    mine = _strict(lambda d: codec.decode(d, **kw), data)  # type: ignore[arg-type]
    if reference != mine:
        raise Divergence(
            f"{name}: strict result differs", data, [("cpython", reference), ("ours", mine)]
        )
    dec = codec.incremental_decoder("replace", byte_order=order)  # type: ignore[arg-type]
    pieces, errs, prev = [], [], 0
    for cut in [*_cuts(data), len(data)]:
        part, more = dec.feed(data[prev:cut], final=cut == len(data))
        pieces.append(part)
        errs += more
        prev = cut
    chunked = "".join(pieces)
    if chunked != text or [(e.stream_start, e.stream_end) for e in errs] != spans:
        raise Divergence(
            f"{name}: chunked decoding differs", data, [("one-shot", text), ("chunked", chunked)]
        )


def check_wide(data: bytes, candidate: Decoder | None = None) -> None:
    """The invariants in the module docstring; raises ``Divergence`` on the first broken."""
    data = bytes(data)
    for name, codec, order in _FORMS:
        _check_form(data, name, codec, order)
    for family, codec, boms in (
        ("utf-16", utf16.CODEC, utf16.CODEC.boms),
        ("utf-32", utf32.CODEC, utf32.CODEC.boms),
    ):
        if data.startswith(boms):
            text, spans = _cpython(data, family)
            ours = codec.decode(data, errors="replace")
            found = [(e.start, e.end) for e in codec.find_errors(data)]
            if (ours, found) != (text, spans):
                raise Divergence(
                    f"{family} with BOM differs",
                    data,
                    [("cpython", (text, spans)), ("ours", (ours, found))],
                )
    if candidate is not None:
        reference = _strict(lambda d: utf16.decode(d, byte_order="le"), data)
        got = _strict(candidate, data)
        if got != reference:
            raise Divergence(
                "candidate differs from strict UTF-16LE",
                data,
                [("reference", reference), ("candidate", got)],
            )


# -- broken UTF-16LE decoders the corpus must catch -------------------------------------


def accepts_lone_surrogates(data: bytes) -> str:
    """Bug: lone surrogates pass through (as JavaScript strings and 'surrogatepass' do)."""
    return data.decode("utf-16-le", "surrogatepass")


def swaps_pair_order(data: bytes) -> str:
    """Bug: a low surrogate followed by a high one is read as a pair (a reversed pair)."""
    units = [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data) - 1, 2)]
    for i in range(len(units) - 1):
        if 0xDC00 <= units[i] <= 0xDFFF and 0xD800 <= units[i + 1] <= 0xDBFF:
            units[i], units[i + 1] = units[i + 1], units[i]
    fixed = b"".join(u.to_bytes(2, "little") for u in units) + data[len(units) * 2 :]
    return fixed.decode("utf-16-le")


def drops_odd_trailing_byte(data: bytes) -> str:
    """Bug: an odd last byte is ignored (a length rounded down to whole code units)."""
    return data[: len(data) & ~1].decode("utf-16-le")


MUTANTS: dict[str, Decoder] = {
    "accepts-lone-surrogates": accepts_lone_surrogates,
    "swaps-pair-order": swaps_pair_order,
    "drops-odd-trailing-byte": drops_odd_trailing_byte,
}
