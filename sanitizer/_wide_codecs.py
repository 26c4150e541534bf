"""The UTF-16 and UTF-32 codecs by encoding name: ``codec("utf-16le")``.

The CLI (``--encoding``) and the policy layer (``inspect(..., encoding=)``) name an
encoding by a string; this turns it into the codec of ``sanitizer.utf16`` or
``sanitizer.utf32`` and a byte order.  Apart from ``sanitizer._wide``, which both codecs
are built on: the registry names them, so it sits above them, not beside what they share.
"""

from __future__ import annotations

from . import utf16, utf32
from ._arguments import exact_str
from ._wide import ByteOrder, WideCodec, WideError

__all__ = ["CODECS", "codec"]

# family (the name without "-", lower case) -> its codec
CODECS: dict[str, WideCodec[WideError]] = {"utf16": utf16.CODEC, "utf32": utf32.CODEC}
_ORDERS: dict[str, ByteOrder] = {"": "bom", "le": "le", "be": "be"}


def codec(encoding: str, where: str = "codec") -> tuple[WideCodec[WideError], ByteOrder]:
    """The codec and byte order for an encoding name: "utf-16", "UTF-16LE", "utf_32_be"...
    ("utf-16"/"utf-32" mean BOM detection).  ValueError for any other name (TypeError for
    a non-str), naming ``where``'s argument 'encoding'."""
    encoding = exact_str(encoding, "encoding", where)
    key = encoding.lower().replace("_", "-").replace("utf-", "utf")
    family, order = key[:5], key[5:].lstrip("-")
    found = CODECS.get(family)
    if found is not None and order in _ORDERS:
        return found, _ORDERS[order]
    raise ValueError(
        f"{where}() argument 'encoding' must be utf-8, utf-16, utf-16le, utf-16be, utf-32, "
        f"utf-32le or utf-32be, not {encoding!r}"
        if where != "codec"
        else f"unknown encoding {encoding!r}: expected utf-16, utf-16le, utf-16be, utf-32, "
        "utf-32le or utf-32be"
    )
