"""Hypothesis strategies for hostile UTF-8, for testing any decoder or text pipeline.

Random bytes are almost never *interesting* ill-formed UTF-8: they rarely contain an
overlong '/' or a CESU-8 surrogate pair.  These strategies build inputs from the pieces
attacks are made of (RFC 3629 §3/§10, RFC 2279 §2, Kuhn's UTF-8 decoder stress test) and
mix them with valid text, so property tests hit every error kind within a few examples::

    from hypothesis import given
    from sanitizer.strategies import attack_bytes, chunkings

    @given(attack_bytes())
    def test_my_decoder_matches_cpython(data):
        ...

This module imports ``hypothesis`` at the top: install the ``test`` or ``fuzz`` extra
(``pip install 'utf8-sanitizer[test]'``).
"""

from __future__ import annotations

from hypothesis import strategies as st

from ._grammar import LAX_LENGTH, LENGTH_BOUNDS, MAX_SCALAR, SURROGATES, lax_capacity, lax_lead

__all__ = [
    "attack_bytes",
    "chunkings",
    "encode_lax",
    "encoded_surrogates",
    "invalid_bytes",
    "lone_continuations",
    "out_of_range",
    "overlong",
    "truncated",
    "valid_utf8",
]

_LAX_LENGTHS = tuple(n for _, n in LAX_LENGTH)  # RFC 2279 §2: 1 to 6 bytes
_HIGH_SURROGATES = (SURROGATES[0], SURROGATES[0] + 0x3FF)  # Unicode §3.8 D71
_LOW_SURROGATES = (SURROGATES[0] + 0x400, SURROGATES[1])  # D73


def encode_lax(cp: int, length: int) -> bytes:
    """``cp`` in the RFC 2279 ``length``-byte form, shortest or not, valid or not.

    >>> encode_lax(0x2F, 2).hex(" ")          # overlong '/', RFC 3629 §10
    'c0 af'
    >>> encode_lax(0xD800, 3).hex(" ")        # encoded surrogate, RFC 3629 §3
    'ed a0 80'
    """
    if type(cp) is not int or type(length) is not int:  # bool is no count either
        raise TypeError(
            f"encode_lax() takes two ints, not {type(cp).__name__} and {type(length).__name__}"
        )
    if length not in _LAX_LENGTHS:
        raise ValueError(f"encode_lax() length must be 1 to 6 (RFC 2279 §2), not {length}")
    if not 0 <= cp <= lax_capacity(length):
        raise ValueError(f"U+{cp:X} does not fit in {length} bytes")
    if length == 1:
        return bytes([cp])
    tails = []
    for _ in range(length - 1):
        tails.append(0x80 | (cp & 0x3F))
        cp >>= 6
    return bytes([lax_lead(length) | cp, *reversed(tails)])


def _shortest(cp: int) -> int:
    return next(n for n in _LAX_LENGTHS if cp <= lax_capacity(n))


def valid_utf8(min_size: int = 0, max_size: int | None = None) -> st.SearchStrategy[bytes]:
    """Well-formed UTF-8 (RFC 3629 §4): any text without surrogates, encoded.

    >>> valid_utf8().example().decode("utf-8")  # doctest: +SKIP
    'ĳ\\U0001f600a'
    """
    alphabet = st.characters(exclude_categories=["Cs"])
    return st.text(alphabet, min_size=min_size, max_size=max_size).map(str.encode)


def overlong(cp: int | None = None) -> st.SearchStrategy[bytes]:
    """Non-shortest forms (RFC 3629 §3, §10; Kuhn §4) of ``cp``, or of a dangerous or
    boundary code point when None ('/', '.', '\\\\', NUL, U+007F, U+07FF, U+FFFF...).

    >>> overlong(ord("/")).example() in {b"\\xc0\\xaf", b"\\xe0\\x80\\xaf"} or True
    True
    """
    if cp is not None:
        points: st.SearchStrategy[int] = st.just(cp)
    else:
        points = st.one_of(
            st.sampled_from([0x00, 0x2E, 0x2F, 0x5C, 0x3C, 0x27, 0x7F, 0x7FF, 0xFFFF]),
            st.integers(0, 0xFFFF),
        )

    def forms(value: int) -> st.SearchStrategy[bytes]:
        return st.integers(_shortest(value) + 1, 6).map(lambda n: encode_lax(value, n))

    return points.flatmap(forms)


def encoded_surrogates(pairs: bool = True) -> st.SearchStrategy[bytes]:
    """ED A0..BF xx (U+D800..DFFF, RFC 3629 §3; Kuhn §5.1), and with ``pairs`` also
    CESU-8 high+low pairs (Kuhn §5.2)."""
    single = st.integers(*SURROGATES).map(lambda cp: encode_lax(cp, 3))
    if not pairs:
        return single
    pair = st.tuples(st.integers(*_HIGH_SURROGATES), st.integers(*_LOW_SURROGATES)).map(
        lambda hl: encode_lax(hl[0], 3) + encode_lax(hl[1], 3)
    )
    return st.one_of(single, pair)


def out_of_range() -> st.SearchStrategy[bytes]:
    """Values past U+10FFFF (RFC 3629 §3): F4 90.., F5..F7 4-byte forms, and the RFC 2279
    5- and 6-byte forms (F8..FD leads), each in its shortest lax form."""
    return st.one_of(
        st.integers(MAX_SCALAR + 1, lax_capacity(4)).map(lambda cp: encode_lax(cp, 4)),
        st.integers(lax_capacity(4) + 1, lax_capacity(5)).map(lambda cp: encode_lax(cp, 5)),
        st.integers(lax_capacity(5) + 1, lax_capacity(6)).map(lambda cp: encode_lax(cp, 6)),
    )


def truncated() -> st.SearchStrategy[bytes]:
    """A well-formed multi-byte character with 1..n-1 trailing bytes cut off (Kuhn §3.3)."""
    chars = st.integers(LENGTH_BOUNDS[1][0], MAX_SCALAR).filter(
        lambda cp: not SURROGATES[0] <= cp <= SURROGATES[1]
    )
    return chars.map(lambda cp: chr(cp).encode()).flatmap(
        lambda enc: st.integers(1, len(enc) - 1).map(lambda keep: enc[:keep])
    )


def lone_continuations(max_size: int = 4) -> st.SearchStrategy[bytes]:
    """1..``max_size`` bytes from 80..BF with no lead before them (Kuhn §3.1)."""
    return st.lists(st.integers(0x80, 0xBF), min_size=1, max_size=max_size).map(bytes)


def invalid_bytes() -> st.SearchStrategy[bytes]:
    """FE or FF, which never occur in UTF-8 (RFC 3629 §1; Kuhn §3.5)."""
    return st.sampled_from([b"\xfe", b"\xff"])


def attack_bytes(max_pieces: int = 8) -> st.SearchStrategy[bytes]:
    """Valid text interleaved with overlongs, encoded surrogates, out-of-range and 5/6-byte
    forms, truncated sequences, lone continuation bytes and FE/FF.

    >>> from sanitizer import find_errors
    >>> data = attack_bytes().example()
    >>> isinstance(data, bytes)
    True
    """
    piece = st.one_of(
        valid_utf8(max_size=4),
        st.sampled_from([b"/", b".", b"..", b"\x00", b"a", b" ", b"\xef\xbb\xbf"]),
        overlong(),
        encoded_surrogates(),
        out_of_range(),
        truncated(),
        lone_continuations(),
        invalid_bytes(),
    )
    return st.lists(piece, max_size=max_pieces).map(b"".join)


def chunkings(data: bytes, max_chunks: int | None = None) -> st.SearchStrategy[list[bytes]]:
    """Ways to split ``data`` into consecutive chunks (empty ones included) whose
    concatenation is ``data``: for testing incremental decoders.

    >>> chunks = chunkings(b"\\xe2\\x82\\xac").example()
    >>> b"".join(chunks)
    b'\\xe2\\x82\\xac'
    """
    limit = len(data) + 1 if max_chunks is None else max_chunks
    cuts = st.lists(st.integers(0, len(data)), max_size=max(limit - 1, 0)).map(sorted)
    return cuts.map(lambda c: [data[a:b] for a, b in zip([0, *c], [*c, len(data)], strict=True)])
