"""A sample third-party UTF-8 decoder to plug into ``sanitizer fuzz --candidate``.

It exists to show what a finding looks like: it is a careful hand-written decoder with one
classic, deliberate bug (RFC 3629 §3, §10): after the lead byte ED it accepts any
continuation byte, so ``ED A0 80`` .. ``ED BF BF`` decode to lone UTF-16 surrogates
(U+D800..U+DFFF) instead of being rejected, as CESU-8/"WTF-8" style decoders do.  Try::

    python -m sanitizer fuzz decode --candidate examples.my_decoder:decode --max-time 20

and compare with ``examples/good_decoder.py``, the same decoder with the bug fixed.

The contract a candidate follows: take ``bytes``, return ``str`` for well-formed UTF-8, and
raise ``UnicodeDecodeError`` (with CPython's start/end of the first maximal ill-formed
subpart) or ``ValueError`` for anything else.
"""

from __future__ import annotations

# Allowed range of the first continuation byte after each lead byte (RFC 3629 §4).
_SECOND = {0xE0: (0xA0, 0xBF), 0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}
# BUG (deliberate): missing ``0xED: (0x80, 0x9F)``, which excludes the surrogates.


def _error(data: bytes, start: int, end: int, reason: str) -> UnicodeDecodeError:
    return UnicodeDecodeError("utf-8", data, start, end, reason)


def decode(data: bytes) -> str:
    out: list[str] = []
    i, n = 0, len(data)
    while i < n:
        lead = data[i]
        if lead < 0x80:
            out.append(chr(lead))
            i += 1
            continue
        if 0xC2 <= lead <= 0xDF:
            need, cp = 1, lead & 0x1F
        elif 0xE0 <= lead <= 0xEF:
            need, cp = 2, lead & 0x0F
        elif 0xF0 <= lead <= 0xF4:
            need, cp = 3, lead & 0x07
        else:
            raise _error(data, i, i + 1, "invalid start byte")
        j = i + 1
        for k in range(need):
            if j >= n:
                raise _error(data, i, n, "unexpected end of data")
            low, high = _SECOND.get(lead, (0x80, 0xBF)) if k == 0 else (0x80, 0xBF)
            byte = data[j]
            if not low <= byte <= high:
                raise _error(data, i, j, "invalid continuation byte")
            cp = cp << 6 | (byte & 0x3F)
            j += 1
        out.append(chr(cp))
        i = j
    return "".join(out)
