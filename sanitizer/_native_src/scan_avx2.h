/*
 * The AVX2 candidate tests the scan (scan.c) and the edit loops (edit.c) share: which of
 * 32 characters the derived bitmaps (derived_t, scan.h) cannot rule out.  Static inline,
 * compiled with a target attribute in each file that includes it, so that the loops of
 * both keep them inlined (a call a block would cost more than the test).
 */
#ifndef SANITIZER_SCAN_AVX2_H
#define SANITIZER_SCAN_AVX2_H

#include "scan.h"

#if defined(SCAN_AVX2)
static const unsigned char ROW_BITS[16] = {1, 2, 4, 8, 16, 32, 64, 128,
                                           1, 2, 4, 8, 16, 32, 64, 128};

SCAN_AVX2_TARGET static inline __m256i
avx2_bcast(const unsigned char *t)
{
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
}

/* Bit k set when byte k of v is in the set: the low nibble picks a row mask (lo_a for
 * bytes below 0x80, lo_l above: blendv by the sign bit), the high nibble a bit of it. */
SCAN_AVX2_TARGET static inline uint32_t
avx2_members(__m256i v, __m256i lo_a, __m256i lo_l, __m256i bits)
{
    const __m256i nib = _mm256_set1_epi8(0x0F);
    __m256i lo = _mm256_and_si256(v, nib);
    __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), nib);
    __m256i rows = _mm256_blendv_epi8(_mm256_shuffle_epi8(lo_a, lo),
                                      _mm256_shuffle_epi8(lo_l, lo), v);
    __m256i hit = _mm256_and_si256(rows, _mm256_shuffle_epi8(bits, hi));
    return ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hit, _mm256_setzero_si256()));
}

/* The first flagged byte of s[i:n] (exact), or where fewer than 32 bytes remain.  With
 * an output (out not NULL: sanitize's edits) the bytes before it are copied to it. */
SCAN_AVX2_TARGET static inline Py_ssize_t
avx2_find_ucs1(const unsigned char *s, Py_ssize_t i, Py_ssize_t n, const derived_t *d,
               out_t *out)
{
    __m256i lo_a = avx2_bcast(d->lo_ascii), lo_l = avx2_bcast(d->lo_latin);
    __m256i bits = avx2_bcast(ROW_BITS);
    for (; i + 64 <= n; i += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + i + 32));
        uint32_t m0 = avx2_members(a, lo_a, lo_l, bits), m1 = avx2_members(b, lo_a, lo_l, bits);
        uint64_t m = (uint64_t)m0 | ((uint64_t)m1 << 32);
        if (m) return out_prefix(out, s, i, i + __builtin_ctzll(m), 1);
        if (out != NULL) { /* stored only when all 64 are copied (the output may be s) */
            _mm256_storeu_si256((__m256i *)(out->at + out->len), a);
            _mm256_storeu_si256((__m256i *)(out->at + out->len + 32), b);
            out->len += 64;
        }
    }
    for (; i + 32 <= n; i += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(s + i));
        uint32_t m = avx2_members(a, lo_a, lo_l, bits);
        if (m) return out_prefix(out, s, i, i + __builtin_ctz(m), 1);
        if (out != NULL) {
            _mm256_storeu_si256((__m256i *)(out->at + out->len), a);
            out->len += 32;
        }
    }
    return i;
}

/* The sets the wide-string loops test, in registers, as nibble bitmaps (derived_t):
 * characters below U+0100 (lo_*), in the two hot blocks (h1_*, h2_*) and in the text's
 * own block (tb_*, block tb: 0 for none), the other BMP blocks (blk_*) and the
 * supplementary super-blocks (sb_*). */
typedef struct {
    __m256i lo_a, lo_l, h1_a, h1_l, h2_a, h2_l, blk_a, blk_l, sb_a, sb_l, bits;
    __m256i tb_a, tb_l, tb;
} avx2_sets_t;

/* The text block's sets in d (made from bmp when the block changes): exactly the
 * flagged characters of the block, as BMP_FLAGGED says. */
static inline void
text_sets(derived_t *d, int block)
{
    if (d->text_block == block) return;
    memset(d->text_ascii, 0, 16);
    memset(d->text_latin, 0, 16);
    for (int b = 0; b < 256; b++) {
        if (!BMP_FLAGGED(d, (unsigned int)(block << 8 | b))) continue;
        if (b < 0x80) d->text_ascii[b & 15] |= (unsigned char)(1u << (b >> 4));
        else d->text_latin[b & 15] |= (unsigned char)(1u << ((b >> 4) - 8));
    }
    d->text_block = block;
}

/* The sets, with `block` (text_block_of; 0: none) as the text's own block. */
SCAN_AVX2_TARGET static inline avx2_sets_t
avx2_sets_for(const derived_t *d, int block)
{
    const __m256i none = _mm256_setzero_si256();
    avx2_sets_t v = {avx2_bcast(d->lo_ascii),   avx2_bcast(d->lo_latin),
                     avx2_bcast(d->hot1_ascii), avx2_bcast(d->hot1_latin),
                     avx2_bcast(d->hot2_ascii), avx2_bcast(d->hot2_latin),
                     avx2_bcast(d->blk_ascii),  avx2_bcast(d->blk_latin),
                     avx2_bcast(d->sb_ascii),   avx2_bcast(d->sb_latin),
                     avx2_bcast(ROW_BITS),      none,
                     none,                      none};
    if (block) { /* (the caller's derived_t is the module's, written under the GIL) */
        text_sets((derived_t *)d, block);
        v.tb_a = avx2_bcast(d->text_ascii);
        v.tb_l = avx2_bcast(d->text_latin);
        v.tb = _mm256_set1_epi8((char)block);
    }
    return v;
}

SCAN_AVX2_TARGET static inline avx2_sets_t
avx2_sets(const derived_t *d)
{
    return avx2_sets_for(d, 0);
}

/* The block most of a long str of 2 bytes a character is written in, when the vector
 * test would take each of its characters for a candidate (a flagged character in it,
 * neither U+00xx nor a hot block), else 0: at 16 places spread over the whole str, the
 * first such character of the next 16 (text mostly ASCII, its marks or letters of
 * another block between, is sampled by those), so that every scan of one str picks the
 * same. */
static inline int
text_block_of(const derived_t *d, const Py_UCS2 *s, Py_ssize_t n)
{
    if (n < 1024) return 0; /* (short: the scalar checks cost less than the sets) */
    int count[16] = {0}, blocks[16], kinds = 0, best = 0, most = 0;
    for (int k = 0; k < 16; k++) {
        const Py_UCS2 *p = s + (n / 16) * k;
        int b = 0;
        for (int j = 0; j < 16; j++) {
            b = p[j] >> 8;
            if (b && b != HOT_BLOCK_1 && b != HOT_BLOCK_2 && d->dirty[b]) break;
            b = 0;
        }
        if (!b) continue;
        int j = 0;
        while (j < kinds && blocks[j] != b) j++;
        if (j == kinds) blocks[kinds++] = b;
        if (++count[j] > most) {
            most = count[j];
            best = b;
        }
    }
    return best;
}

/* Per byte of v: nonzero when it is in the set (a, l); `sel` is the bit its high nibble
 * selects (avx2_bitsel), so tests of several sets on the same bytes share it. */
SCAN_AVX2_TARGET static inline __m256i
avx2_bitsel(__m256i v, __m256i bits)
{
    const __m256i nib = _mm256_set1_epi8(0x0F);
    return _mm256_shuffle_epi8(bits, _mm256_and_si256(_mm256_srli_epi16(v, 4), nib));
}

SCAN_AVX2_TARGET static inline __m256i
avx2_rows(__m256i v, __m256i a, __m256i l)
{
    __m256i lo = _mm256_and_si256(v, _mm256_set1_epi8(0x0F));
    return _mm256_blendv_epi8(_mm256_shuffle_epi8(a, lo), _mm256_shuffle_epi8(l, lo), v);
}

/* Per character (low byte lo, block hi): nonzero rows when its block is `block` and its
 * low byte in the set (a, l) (to be ANDed with avx2_bitsel(lo)). */
SCAN_AVX2_TARGET static inline __m256i
avx2_in_block(__m256i lo, __m256i hi, int block, __m256i a, __m256i l)
{
    return _mm256_and_si256(avx2_rows(lo, a, l),
                            _mm256_cmpeq_epi8(hi, _mm256_set1_epi8((char)block)));
}

/* The candidates among 32 UCS2 characters (a: 0-15, b: 16-31), bit k for character k:
 * exact below U+0100 and in the hot blocks (by low byte), else by block (high byte). */
SCAN_AVX2_TARGET static inline uint32_t
avx2_candidates_ucs2(__m256i a, __m256i b, const avx2_sets_t *v)
{
    const __m256i ff = _mm256_set1_epi16(0xFF);
    __m256i hi = _mm256_permute4x64_epi64(
        _mm256_packus_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8)), 0xD8);
    __m256i lo = _mm256_permute4x64_epi64(
        _mm256_packus_epi16(_mm256_and_si256(a, ff), _mm256_and_si256(b, ff)), 0xD8);
    __m256i in_tb = _mm256_cmpeq_epi8(hi, v->tb); /* (tb 0: U+00xx, never in blk_*) */
    __m256i in_lo = _mm256_or_si256(
        _mm256_or_si256(avx2_in_block(lo, hi, 0, v->lo_a, v->lo_l),
                        _mm256_and_si256(avx2_rows(lo, v->tb_a, v->tb_l), in_tb)),
        _mm256_or_si256(avx2_in_block(lo, hi, HOT_BLOCK_1, v->h1_a, v->h1_l),
                        avx2_in_block(lo, hi, HOT_BLOCK_2, v->h2_a, v->h2_l)));
    __m256i hit = _mm256_or_si256(
        _mm256_and_si256(in_lo, avx2_bitsel(lo, v->bits)),
        _mm256_andnot_si256(in_tb, _mm256_and_si256(avx2_rows(hi, v->blk_a, v->blk_l),
                                                     avx2_bitsel(hi, v->bits))));
    return ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hit, _mm256_setzero_si256()));
}

/* Byte `shift / 8` of 32 UCS4 characters (v[0..3], 8 each), in their order. */
SCAN_AVX2_TARGET static inline __m256i
avx2_byte_of(const __m256i *v, int shift)
{
    const __m256i ff = _mm256_set1_epi32(0xFF);
    __m256i a = _mm256_and_si256(_mm256_srli_epi32(v[0], shift), ff);
    __m256i b = _mm256_and_si256(_mm256_srli_epi32(v[1], shift), ff);
    __m256i c = _mm256_and_si256(_mm256_srli_epi32(v[2], shift), ff);
    __m256i d = _mm256_and_si256(_mm256_srli_epi32(v[3], shift), ff);
    /* per 128-bit lane, groups of 4 bytes: a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7 */
    __m256i x = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
    return _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* The candidates among 32 UCS4 characters (v[0..3], read from s), bit k for character k:
 * in the BMP as for UCS2 (by low byte, or by block); above it, by super-block, then the
 * block's entry in wide[] (and the last block of each plane by its entry). */
SCAN_AVX2_TARGET static inline uint32_t
avx2_candidates_ucs4(const __m256i *v, const Py_UCS4 *s, const avx2_sets_t *sets,
                     const derived_t *d)
{
    const __m256i zero = _mm256_setzero_si256();
    __m256i lo = avx2_byte_of(v, 0), mid = avx2_byte_of(v, 8), plane = avx2_byte_of(v, 16);
    __m256i bmp = _mm256_cmpeq_epi8(plane, zero);
    __m256i in_lo = _mm256_or_si256(
        avx2_in_block(lo, mid, 0, sets->lo_a, sets->lo_l),
        _mm256_or_si256(avx2_in_block(lo, mid, HOT_BLOCK_1, sets->h1_a, sets->h1_l),
                        avx2_in_block(lo, mid, HOT_BLOCK_2, sets->h2_a, sets->h2_l)));
    __m256i hit = _mm256_or_si256(
        _mm256_and_si256(in_lo, avx2_bitsel(lo, sets->bits)),
        _mm256_and_si256(avx2_rows(mid, sets->blk_a, sets->blk_l), avx2_bitsel(mid, sets->bits)));
    hit = _mm256_and_si256(hit, bmp);
    uint32_t m = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hit, zero));
    uint32_t astral = ~(uint32_t)_mm256_movemask_epi8(bmp);
    if (astral) {
        /* SUPER_BLOCK(plane, mid) of each byte (plane <= 15 keeps plane << 4 in its byte) */
        __m256i sb = _mm256_or_si256(
            _mm256_slli_epi16(_mm256_min_epu8(plane, _mm256_set1_epi8(15)), 4),
            _mm256_and_si256(_mm256_srli_epi16(mid, 4), _mm256_set1_epi8(0x0F)));
        __m256i in_sb =
            _mm256_and_si256(avx2_rows(sb, sets->sb_a, sets->sb_l), avx2_bitsel(sb, sets->bits));
        uint32_t sb_m = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(in_sb, zero));
        uint32_t plane_end = (uint32_t)_mm256_movemask_epi8(
            _mm256_cmpeq_epi8(mid, _mm256_set1_epi8((char)0xFF)));
        astral &= sb_m | plane_end;
        while (astral) { /* supplementary: the block's entry */
            int k = __builtin_ctz(astral);
            astral &= astral - 1;
            if (d->wide[s[k] >> 8]) m |= 1u << k;
        }
    }
    return m;
}

/* Loads 32 UCS4 characters from s into v[0..3]. */
SCAN_AVX2_TARGET static inline void
avx2_load_ucs4(__m256i *v, const Py_UCS4 *s)
{
    for (int k = 0; k < 4; k++) v[k] = _mm256_loadu_si256((const __m256i *)(s + 8 * k));
}

#endif /* SCAN_AVX2 */

#endif /* SANITIZER_SCAN_AVX2_H */
