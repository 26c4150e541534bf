/*
 * Bytes proven valid UTF-8, decoded: speedups_decode_valid(s, n) -> str | None (for
 * Python: decode_valid(data, /), bytes only).
 *
 * Why it exists: clean() and clean_edit() take bytes, and decoding them was most of
 * sanitize's cost.  This is the extension's second UTF-8 decoder, beside the RFC 3629
 * machine (utf8.c): it decodes only what the SIMD validator (validate.c) has proven
 * well-formed, so it checks nothing and never reports an error (ill-formed bytes are
 * answered None, and the caller's full path decides).  The byte ranges it relies on
 * (which lead starts a 2-, 3- or 4-byte form, which one a character >= U+0100) come from
 * utf8_tables_data.h, generated from sanitizer/_grammar.py; the vector code tests the same
 * sets by their RFC 3629 §3 bit patterns (10xxxxxx a continuation, 110xxxxx, 1110xxxx and
 * 11110xxx the leads of 2, 3 and 4 bytes), which the generator checks are the grammar's.
 */
#include "speedups.h"
#include "utf8_tables_data.h" /* generated from sanitizer/_grammar.py */

#include <stdint.h>
#include <string.h>
#if defined(SPEEDUPS_X86)
#define SCAN_AVX2 1 /* compiled with a target attribute, used with the AVX2 kernel */
#define SCAN_AVX2_TARGET __attribute__((target("avx2")))
#endif

/* ---- bytes proven valid, decoded ------------------------------------------
 * CPython's strict decoder goes a character at a time outside ASCII (about 10 instructions
 * a byte on prose with typographic quotes), which made the decode most of sanitize's
 * cost.  Here the SIMD validator (validate.c: RFC 3629 §4, derived from grammar.UTF8_CHAR
 * and tested against it) proves the bytes well-formed first, so decoding them is plain
 * arithmetic: a pass counts the characters and finds the str kind (a lead byte C4..EF
 * starts a character >= U+0100, F0..F4 one >= U+10000; continuation bytes 80..BF start
 * none), then blocks are widened to the kind, each lead combined with its continuation
 * bytes (RFC 3629 §3) and those squeezed out (below); the last bytes go one by one. */
#if defined(SCAN_AVX2)
/* One character at s[i] (valid UTF-8) stored at out[o], both advanced. */
#define DECODE_ONE(TYPE)                                                                 \
    do {                                                                                 \
        unsigned int b0 = s[i];                                                          \
        Py_UCS4 cp;                                                                      \
        if (b0 < UTF8_TAIL_LO) {                                                         \
            cp = b0;                                                                     \
            i += 1;                                                                      \
        } else if (b0 < UTF8_LEAD3_MIN) {                                                \
            cp = ((b0 & 0x1Fu) << 6) | (s[i + 1] & 0x3Fu);                               \
            i += 2;                                                                      \
        } else if (b0 < UTF8_LEAD4_MIN) {                                                \
            cp = ((b0 & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu);   \
            i += 3;                                                                      \
        } else {                                                                         \
            cp = ((b0 & 0x07u) << 18) | ((s[i + 1] & 0x3Fu) << 12) |                     \
                 ((s[i + 2] & 0x3Fu) << 6) | (s[i + 3] & 0x3Fu);                          \
            i += 4;                                                                      \
        }                                                                                \
        out[o++] = (TYPE)cp;                                                             \
    } while (0)

/* For an 8-bit mask of bytes to drop, the indices of the bytes kept, in order (then 0x80:
 * a zero byte); squeeze16 the same for 2-byte units (byte indices).  Built on first use. */
static unsigned char squeeze8[256][8], squeeze16[256][16];
static int squeeze_built = 0;

static void
build_squeeze(void)
{
    for (int m = 0; m < 256; m++) {
        int k = 0;
        for (int j = 0; j < 8; j++)
            if (!(m >> j & 1)) squeeze8[m][k++] = (unsigned char)j;
        while (k < 8) squeeze8[m][k++] = 0x80;
        for (k = 0; k < 16; k++) {
            unsigned char j = squeeze8[m][k / 2];
            squeeze16[m][k] = j == 0x80 ? 0x80 : (unsigned char)(2 * j + k % 2);
        }
    }
    squeeze_built = 1;
}

/* Valid s[0:n] into a 1-byte str (nchars long): every character is below U+0100, so
 * every lead byte is C2 or C3 and starts a 2-byte form (RFC 3629 §3).  16 bytes at a
 * time: each lead becomes its character, ((lead & 3) << 6) | (next & 0x3F), and the
 * continuation bytes are squeezed out 8 at a time by a shuffle (squeeze8).  A lead at
 * a block's end takes its continuation from the byte after the block, which the next
 * block drops (or the tail skips).  No store reaches out[nchars] (the str's NUL). */
SCAN_AVX2_TARGET static void
avx2_decode_latin1(const unsigned char *s, Py_ssize_t n, Py_UCS1 *out, Py_ssize_t nchars)
{
    const __m128i m3f = _mm_set1_epi8(0x3F), mc0 = _mm_set1_epi8((char)0xC0);
    const __m128i x80 = _mm_set1_epi8((char)0x80), three = _mm_set1_epi8(3);
    const __m128i eight = _mm_set1_epi8(8);
    Py_ssize_t i = 0, o = 0;
    if (!squeeze_built) build_squeeze();
    while (i + 17 <= n && o + 16 <= nchars) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        if (!_mm_movemask_epi8(v)) {
            _mm_storeu_si128((__m128i *)(out + o), v);
            i += 16;
            o += 16;
            continue;
        }
        __m128i next = _mm_loadu_si128((const __m128i *)(s + i + 1));
        __m128i cont = _mm_cmpeq_epi8(_mm_and_si128(v, mc0), x80);
        /* (v & 3) << 6 stays within each byte (at most 0xC0) */
        __m128i ch = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(v, three), 6),
                                  _mm_and_si128(next, m3f));
        /* leads (high bit set, not a continuation) take ch; ASCII stays */
        __m128i text = _mm_blendv_epi8(v, ch, _mm_andnot_si128(cont, v));
        unsigned int drop = (unsigned int)_mm_movemask_epi8(cont);
        unsigned int d0 = drop & 0xFF, d1 = drop >> 8;
        __m128i lo = _mm_loadl_epi64((const __m128i *)squeeze8[d0]);
        __m128i hi = _mm_add_epi8(_mm_loadl_epi64((const __m128i *)squeeze8[d1]), eight);
        _mm_storel_epi64((__m128i *)(out + o), _mm_shuffle_epi8(text, lo));
        o += 8 - __builtin_popcount(d0);
        /* 0x80 + 8 = 0x88 still has its high bit: still a zero byte */
        _mm_storel_epi64((__m128i *)(out + o), _mm_shuffle_epi8(text, hi));
        o += 8 - __builtin_popcount(d1);
        i += 16;
    }
    if (i < n && (s[i] & 0xC0) == 0x80) i++; /* taken by the lead before the last block */
    while (i < n) DECODE_ONE(Py_UCS1);
}
/* Valid s[0:n] into a 2-byte str (nchars long): no 4-byte form (no character above
 * U+FFFF).  16 bytes at a time, widened to 16 lanes of 16 bits: each lead becomes its
 * character from the one or two bytes after it (RFC 3629 §3: 110xxxxx 10xxxxxx,
 * 1110xxxx 10xxxxxx 10xxxxxx), then the continuation bytes are squeezed out of each
 * half by a shuffle (squeeze16).  A character whose lead is near the block's end takes
 * its continuation bytes from after the block; the next block starts after them, so a
 * block always starts on a character.  No store reaches out[nchars]. */
SCAN_AVX2_TARGET static void
avx2_decode_ucs2(const unsigned char *s, Py_ssize_t n, Py_UCS2 *out, Py_ssize_t nchars)
{
    const __m128i mc0 = _mm_set1_epi8((char)0xC0), x80 = _mm_set1_epi8((char)0x80);
    const __m128i me0 = _mm_set1_epi8((char)0xE0), mf0 = _mm_set1_epi8((char)0xF0);
    const __m256i m1f = _mm256_set1_epi16(0x1F), m0f = _mm256_set1_epi16(0x0F);
    const __m256i m3f = _mm256_set1_epi16(0x3F);
    Py_ssize_t i = 0, o = 0;
    if (!squeeze_built) build_squeeze();
    while (i + 18 <= n && o + 16 <= nchars) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        __m256i w = _mm256_cvtepu8_epi16(v);
        if (!_mm_movemask_epi8(v)) {
            _mm256_storeu_si256((__m256i *)(out + o), w);
            i += 16;
            o += 16;
            continue;
        }
        __m256i n1 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(s + i + 1)));
        __m256i n2 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(s + i + 2)));
        __m128i cont = _mm_cmpeq_epi8(_mm_and_si128(v, mc0), x80);
        __m256i lead2 = _mm256_cvtepi8_epi16(_mm_cmpeq_epi8(_mm_and_si128(v, me0), mc0));
        __m256i lead3 = _mm256_cvtepi8_epi16(_mm_cmpeq_epi8(_mm_and_si128(v, mf0), me0));
        __m256i tail1 = _mm256_and_si256(n1, m3f);
        __m256i c2 = _mm256_or_si256(_mm256_slli_epi16(_mm256_and_si256(w, m1f), 6), tail1);
        __m256i c3 = _mm256_or_si256(
            _mm256_or_si256(_mm256_slli_epi16(_mm256_and_si256(w, m0f), 12),
                            _mm256_slli_epi16(tail1, 6)),
            _mm256_and_si256(n2, m3f));
        __m256i text = _mm256_blendv_epi8(_mm256_blendv_epi8(w, c2, lead2), c3, lead3);
        unsigned int drop = (unsigned int)_mm_movemask_epi8(cont);
        unsigned int d0 = drop & 0xFF, d1 = drop >> 8;
        __m256i shuffle = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)squeeze16[d0])),
            _mm_loadu_si128((const __m128i *)squeeze16[d1]), 1);
        text = _mm256_shuffle_epi8(text, shuffle); /* within each 128-bit half */
        _mm_storeu_si128((__m128i *)(out + o), _mm256_castsi256_si128(text));
        o += 8 - __builtin_popcount(d0);
        _mm_storeu_si128((__m128i *)(out + o), _mm256_extracti128_si256(text, 1));
        o += 8 - __builtin_popcount(d1);
        /* past the continuation bytes of a character begun in the last two bytes */
        i += 16 + (s[i + 15] >= UTF8_LEAD3_MIN  ? 2
                   : s[i + 15] > UTF8_TAIL_HI ? 1
                                              : s[i + 14] >= UTF8_LEAD3_MIN);
    }
    while (i < n) DECODE_ONE(Py_UCS2);
}
/* Valid s[0:n] into a 4-byte str (nchars long), 16 bytes at a time as two blocks of 8
 * in 8 lanes of 32 bits: each lead becomes its character from the one to three bytes
 * after it (RFC 3629 §3) and the continuation bytes are squeezed out by a lane
 * permutation (squeeze8 as 32-bit indices).  A character begun near a block's end takes
 * its continuation bytes from after the block, where the next block drops them: blocks
 * go at a fixed stride, so no block waits for the one before.  No store reaches
 * out[nchars]. */
typedef struct {
    __m256i m3f, m1f, m0f, m07, xc0, x80, xe0, xf0, xf8;
} ucs4_consts_t;

/* The 8 characters (or dropped lanes) of the block at p, and the mask of lanes to drop. */
SCAN_AVX2_TARGET static inline __m256i
avx2_ucs4_block(const unsigned char *p, const ucs4_consts_t *k, unsigned int *drop)
{
    __m256i w = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
    __m256i t1 = _mm256_and_si256(
        _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p + 1))), k->m3f);
    __m256i t2 = _mm256_and_si256(
        _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p + 2))), k->m3f);
    __m256i t3 = _mm256_and_si256(
        _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p + 3))), k->m3f);
    __m256i c2 = _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(w, k->m1f), 6), t1);
    __m256i c3 = _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(w, k->m0f), 12),
                                 _mm256_or_si256(_mm256_slli_epi32(t1, 6), t2));
    __m256i c4 = _mm256_or_si256(
        _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(w, k->m07), 18),
                        _mm256_slli_epi32(t1, 12)),
        _mm256_or_si256(_mm256_slli_epi32(t2, 6), t3));
    __m256i lead2 = _mm256_cmpeq_epi32(_mm256_and_si256(w, k->xe0), k->xc0);
    __m256i lead3 = _mm256_cmpeq_epi32(_mm256_and_si256(w, k->xf0), k->xe0);
    __m256i lead4 = _mm256_cmpeq_epi32(_mm256_and_si256(w, k->xf8), k->xf0);
    __m256i text = _mm256_blendv_epi8(w, c2, lead2);
    text = _mm256_blendv_epi8(text, c3, lead3);
    text = _mm256_blendv_epi8(text, c4, lead4);
    __m256i cont = _mm256_cmpeq_epi32(_mm256_and_si256(w, k->xc0), k->x80);
    *drop = (unsigned int)_mm256_movemask_ps(_mm256_castsi256_ps(cont));
    /* the kept lanes first (a dropped lane's index is 0x80: any lane, stored past the
     * kept ones and written again later) */
    __m256i order = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)squeeze8[*drop]));
    return _mm256_permutevar8x32_epi32(text, order);
}

SCAN_AVX2_TARGET static void
avx2_decode_ucs4(const unsigned char *s, Py_ssize_t n, Py_UCS4 *out, Py_ssize_t nchars)
{
    const ucs4_consts_t k = {
        _mm256_set1_epi32(0x3F), _mm256_set1_epi32(0x1F), _mm256_set1_epi32(0x0F),
        _mm256_set1_epi32(0x07), _mm256_set1_epi32(0xC0), _mm256_set1_epi32(0x80),
        _mm256_set1_epi32(0xE0), _mm256_set1_epi32(0xF0), _mm256_set1_epi32(0xF8),
    };
    Py_ssize_t i = 0, o = 0;
    if (!squeeze_built) build_squeeze();
    while (i + 19 <= n && o + 16 <= nchars) {
        __m128i bytes = _mm_loadu_si128((const __m128i *)(s + i));
        if (!_mm_movemask_epi8(bytes)) {
            _mm256_storeu_si256((__m256i *)(out + o), _mm256_cvtepu8_epi32(bytes));
            _mm256_storeu_si256((__m256i *)(out + o + 8),
                                _mm256_cvtepu8_epi32(_mm_srli_si128(bytes, 8)));
            i += 16;
            o += 16;
            continue;
        }
        unsigned int d0, d1;
        __m256i a = avx2_ucs4_block(s + i, &k, &d0);
        __m256i b = avx2_ucs4_block(s + i + 8, &k, &d1);
        _mm256_storeu_si256((__m256i *)(out + o), a);
        o += 8 - __builtin_popcount(d0);
        _mm256_storeu_si256((__m256i *)(out + o), b);
        o += 8 - __builtin_popcount(d1);
        i += 16;
    }
    while (i < n && (s[i] & 0xC0) == 0x80) i++; /* taken by a lead before the last block */
    while (i < n) DECODE_ONE(Py_UCS4);
}

/* Of valid s[0:n]: how many characters (bytes that are not continuation bytes) and the
 * largest code point's kind, as a maxchar for PyUnicode_New (0x7F, 0xFF, 0xFFFF or
 * 0x10FFFF: the str's kind is then the one its characters need). */
SCAN_AVX2_TARGET static Py_ssize_t
avx2_count_kind(const unsigned char *s, Py_ssize_t n, Py_UCS4 *maxchar)
{
    const __m256i c0 = _mm256_set1_epi8((char)0xC0), x80 = _mm256_set1_epi8((char)0x80);
    const __m256i c4 = _mm256_set1_epi8((char)UTF8_LEAD_U0100);
    __m256i top = _mm256_setzero_si256(), wide = _mm256_setzero_si256();
    Py_ssize_t cont = 0, i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(s + i));
        top = _mm256_max_epu8(top, v);
        /* C4..FF: unsigned max(v, C4) == v */
        wide = _mm256_or_si256(wide, _mm256_cmpeq_epi8(_mm256_max_epu8(v, c4), v));
        cont += __builtin_popcount(
            (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(v, c0), x80)));
    }
    unsigned char lanes[32];
    _mm256_storeu_si256((__m256i *)lanes, top);
    unsigned int hi = 0, w = !_mm256_testz_si256(wide, wide);
    for (int k = 0; k < 32; k++) hi = lanes[k] > hi ? lanes[k] : hi;
    for (; i < n; i++) {
        hi = s[i] > hi ? s[i] : hi;
        w |= s[i] >= UTF8_LEAD_U0100;
        cont += (s[i] & 0xC0) == 0x80;
    }
    *maxchar = hi >= UTF8_LEAD4_MIN ? 0x10FFFF : w ? 0xFFFF : hi >= UTF8_TAIL_LO ? 0xFF : 0x7F;
    return n - cont;
}
#endif

/* s[0:n] decoded (strict): a new str; None (a new reference) when the bytes are not
 * valid UTF-8, without raising and catching CPython's UnicodeDecodeError; NULL on error. */
PyObject *
speedups_decode_valid(const unsigned char *s, Py_ssize_t n)
{
    if (speedups_valid_prefix_of(s, n) != n) Py_RETURN_NONE;
#if defined(SCAN_AVX2)
    if (speedups_avx2) { /* fewer instructions than CPython's decoder from 16 bytes on */
        Py_UCS4 maxchar;
        Py_ssize_t nchars = avx2_count_kind(s, n, &maxchar);
        PyObject *text = PyUnicode_New(nchars, maxchar);
        if (text == NULL) return NULL;
        switch (PyUnicode_KIND(text)) {
        case PyUnicode_1BYTE_KIND:
            avx2_decode_latin1(s, n, PyUnicode_1BYTE_DATA(text), nchars);
            break;
        case PyUnicode_2BYTE_KIND:
            avx2_decode_ucs2(s, n, PyUnicode_2BYTE_DATA(text), nchars);
            break;
        default:
            avx2_decode_ucs4(s, n, PyUnicode_4BYTE_DATA(text), nchars);
        }
        return text;
    }
#endif
    return PyUnicode_DecodeUTF8((const char *)s, n, "strict");
}

/* decode_valid(data, /) -> str | None: the method for Python (bytes only). */
PyObject *
speedups_decode_valid_method(PyObject *self, PyObject *data)
{
    (void)self;
    if (!PyBytes_CheckExact(data)) {
        PyErr_SetString(PyExc_TypeError, "decode_valid(data, /): data must be bytes");
        return NULL;
    }
    return speedups_decode_valid((const unsigned char *)PyBytes_AS_STRING(data),
                                 PyBytes_GET_SIZE(data));
}

