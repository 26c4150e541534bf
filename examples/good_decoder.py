"""A correct hand-written UTF-8 decoder: ``examples/my_decoder.py`` with its bug fixed.

It exists as the passing counterpart in the docs and tests: a campaign against it runs to
the time limit and exits 0::

    python -m sanitizer fuzz decode --candidate examples.good_decoder:decode --max-time 30

The one difference from ``my_decoder``: after ED the first continuation byte must be in
80..9F (RFC 3629 §4), which keeps the UTF-16 surrogates U+D800..U+DFFF out.
"""

from __future__ import annotations

# Allowed range of the first continuation byte after each lead byte (RFC 3629 §4).
_SECOND = {0xE0: (0xA0, 0xBF), 0xED: (0x80, 0x9F), 0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}


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
