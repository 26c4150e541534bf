"""The one line:column rule of ``sanitizer check`` and the one code-point -> byte mapper.

``_locate.Position`` ends lines at CR LF, LF or a lone CR (as Python and LSP do) and
counts columns on the decoded line, in code points or UTF-16 code units, an ill-formed
part as one column; every input mode counts by it.  It is checked against a naive
reference (the decoded text split at CR LF, LF and CR by a regular expression) on random
text with CR, LF, CRLF, tabs and characters of every UTF-8 length, and end to end: the
same text with ill-formed parts at the same places, read as UTF-8 and as UTF-16/32,
gives every finding the same line and column.  ``ByteOffsets`` (lent to the CLI by
``sanitizer._policy.compiled``) is checked against encoding each prefix.
"""

from __future__ import annotations

import io
import itertools
import re
import tokenize

from hypothesis import given
from hypothesis import strategies as st

from sanitizer._policy.compiled import ByteOffsets
from sanitizer.cli import _locate, _mode_utf8, _mode_wide
from sanitizer.cli._check_args import Settings
from sanitizer.cli._inputs import CHUNK, Opened
from sanitizer.cli._locate import CODEPOINTS, UTF16, Locator, Position, locate_all
from sanitizer.cli._report import Progress

PIECES = ["a", " ", "\t", "\r", "\n", "\r\n", "\x00", "\u00e9", "\u65e5", "\U0001f600", "\u202e"]
BAD = "\ufffd"  # where an ill-formed part goes (it shows as one U+FFFD)
COLUMNS = (CODEPOINTS, UTF16)
# An ill-formed part in each encoding: a byte never in UTF-8, a lone low surrogate.
ILL_FORMED = {
    "utf-8": b"\xff",
    "utf-16-le": b"\x00\xdc",
    "utf-16-be": b"\xdc\x00",
    "utf-32-le": b"\x00\xdc\x00\x00",
    "utf-32-be": b"\x00\x00\xdc\x00",
}

texts = st.lists(st.sampled_from(PIECES), max_size=40)
# An ill-formed part is followed by "x": adjacent ones would be one group in UTF-8.
texts_with_errors = st.lists(st.sampled_from([*PIECES, BAD + "x"]), max_size=40)


def reference(before: str, columns: str, after: str = "") -> tuple[int, int]:
    """Line and column just after ``before`` (followed by ``after``), the naive way (an
    independent copy of the rule, on purpose: the oracle).  The place between the CR and
    the LF of a CR LF is on the CR's line."""
    if before.endswith("\r") and (after.startswith("\n") or not after):
        lines = re.split("\r\n|\r|\n", before[:-1])
        lines[-1] += "\r"
    else:
        lines = re.split("\r\n|\r|\n", before)
    line = lines[-1]
    width = len(line)
    if columns == UTF16:
        width += sum(1 for ch in line if ord(ch) > 0xFFFF)
    return len(lines), width + 1


def test_a_lone_cr_ends_a_line_as_python_counts_lines() -> None:
    source = "a = 1\rb = 2\r\nc = 3\nd = '\u202e'\r"
    data = source.encode()
    where = data.index("\u202e".encode())
    assert locate_all(data, [where], [], CODEPOINTS)[where] == (4, 6)
    # Python's own count: the tokenizer's line numbers (universal newlines).
    tokens = list(tokenize.generate_tokens(io.StringIO(source, newline="").readline))
    assert [t.start for t in tokens if t.type == tokenize.STRING] == [(4, 4)]


@given(texts, st.sampled_from(COLUMNS), st.integers(1, 9))
def test_utf8_offsets_are_located_as_the_reference_says(
    pieces: list[str], columns: str, chunk: int
) -> None:
    text = "".join(pieces)
    data = text.encode()
    boundaries = [len(text[:i].encode()) for i in range(len(text) + 1)]
    expected = [reference(text[:i], columns, text[i:]) for i in range(len(text) + 1)]
    assert [locate_all(data, [b], [], columns)[b] for b in boundaries] == expected
    locator = Locator(columns)  # fed in chunks, asked about increasing offsets
    got = []
    queue = list(reversed(boundaries))
    for start in range(0, len(data) + 1, chunk):
        locator.feed(data[start : start + chunk])
        while queue and queue[-1] < locator.end:  # the next character fed already
            got.append(locator.at(queue.pop()))
    got.extend(locator.at(offset) for offset in reversed(queue))
    assert got == expected


@given(texts, st.sampled_from(COLUMNS))
def test_text_and_utf8_bytes_count_alike(pieces: list[str], columns: str) -> None:
    by_text, by_bytes = Position(columns), Position(columns)
    for piece in pieces:
        by_text.count_text(piece)
        by_bytes.count_utf8(piece.encode())
    expected = reference("".join(pieces), columns)
    assert (by_text.line, by_text.column) == (by_bytes.line, by_bytes.column) == expected


def _places(data: bytes, encoding: str, columns: str) -> list[tuple[int, int, int, int]]:
    """Line, column, end line and end column of each finding of ``check`` on ``data``."""
    stream = io.BytesIO(data)
    opened = Opened("x", "x", stream, stream.read(CHUNK))
    progress = Progress(0, enabled=False)
    if encoding == "utf-8":
        outcome = _mode_utf8.stream_mode(opened, Settings(columns=columns), progress)
    else:
        settings = Settings(encoding=encoding, utf8=False, columns=columns)
        outcome = _mode_wide.wide_mode(opened, settings, progress)
    return [(f.place.line, f.place.column, f.place.end_line, f.place.end_column) for f in outcome]


@given(texts_with_errors, st.sampled_from(COLUMNS))
def test_every_encoding_places_a_finding_alike(pieces: list[str], columns: str) -> None:
    text = "".join(pieces)
    expected = []
    for at, ch in enumerate(text):
        if ch == BAD:
            line, column = reference(text[:at], columns, text[at:])
            expected.append((line, column, line, column + 1))
    for encoding, bad in ILL_FORMED.items():
        data = b"".join(bad if ch == BAD else ch.encode(encoding) for ch in text)
        assert _places(data, encoding, columns) == expected, encoding


@given(st.text(), st.data())
def test_byte_offsets_are_those_of_each_prefix(text: str, data: st.DataObject) -> None:
    indices = data.draw(st.lists(st.integers(0, len(text))))
    to_byte = ByteOffsets(text)
    for i in sorted(indices):  # the usual order: non-decreasing
        assert to_byte(i) == len(text[:i].encode("utf-8", "surrogatepass"))
    to_byte = ByteOffsets(text)
    for i in indices:  # any order
        assert to_byte(i) == len(text[:i].encode("utf-8", "surrogatepass"))


def excerpt_in_parts(data: bytes, start: int, end: int) -> str:
    """The excerpt as three parts made visible one by one: the statement ``excerpt``'s
    one-decode path for well-formed windows must equal."""
    start = max(0, min(start, len(data)))
    end = max(start, min(end, len(data)))
    left, right = _locate._line_bounds(data, start, end)
    trim_tail = right < len(data) and right == end + _locate.CONTEXT
    right_text = _locate.visible(data[end:right], trim_tail=trim_tail)
    middle = _locate._middle(data, start, end)
    return (_locate.visible(data[left:start]) + middle + right_text).strip()


PARTS = ["a", " ", "\n", "\r", "é", "中", "\U0001f600", "\u202e", "\u00ad", "\x00", "\t",
         "\u200b", "\U000e0041", "\ufe0f", "\x85"]  # fmt: skip


@given(
    st.lists(st.sampled_from(PARTS), max_size=120),
    st.integers(0, 130),
    st.integers(0, 200),
    st.sampled_from([b"", b"\xff", b"\xc0\xaf", b"\xe6\x97"]),
)
def test_excerpt_equals_its_parts_made_visible(
    parts: list[str], first: int, width: int, bad: bytes
) -> None:
    chars = [p.encode() for p in parts]
    if bad and chars:
        chars[len(chars) // 2] = bad  # an ill-formed part somewhere
    data = b"".join(chars)
    cuts = [0, *itertools.accumulate(len(c) for c in chars)]  # character boundaries
    start = cuts[min(first, len(cuts) - 1)]
    end = cuts[min(first + width, len(cuts) - 1)]
    assert _locate.excerpt(data, start, end) == excerpt_in_parts(data, start, end)
