/*
 * The UTF-8 validator: valid_prefix(data) -> int, utf8_kernel(), utf8_kernels(),
 * valid_prefix_using(name, data).
 *
 * Why it exists: is_valid, find_errors, the incremental decoder and `sanitizer check`
 * need a verdict, not a str, and a verdict can be had far below the cost of decoding.
 * This is the "lookup" algorithm of Keiser & Lemire, "Validating UTF-8 In Less Than One
 * Instruction Per Byte" (Software: Practice and Experience, 2021), written from the
 * paper: every byte is classified by three 16-entry table lookups (high and low nibble of
 * the previous byte, high nibble of the current one) whose AND is a bit set of the errors
 * that pair of bytes shows; a byte that must be the 3rd or 4th of a sequence (the byte 2
 * or 3 places back is a 3- or 4-byte lead) must show exactly the "two continuations"
 * bit.  Input goes by 64-byte blocks; the last vector of a block is the "previous" input
 * of the next, so sequences that straddle blocks are checked the same way, and a block
 * ending inside a sequence is an error only if the next block does not complete it.
 * The x86 kernels OR the error bits of four blocks before testing them (GROUP).  One
 * block driver (DEFINE_VALID_PREFIX) serves every SIMD kernel; a kernel is its block op.
 * docs/design.md explains the algorithm in a page.
 *
 * It answers "valid up to where", never "which error": on a failing block it returns the
 * start of that block, moved back to the start of a sequence left open by the previous
 * one, so that the prefix is proven well-formed (RFC 3629 §4) and ends on a character
 * boundary.  The RFC 3629 machine (utf8.c / _machine.py) takes over from there and
 * reports every error exactly as it always did.  The scalar kernel (the fallback, and the
 * path for inputs under 64 bytes) returns the exact start of the first error.
 *
 * Kernels: AVX-512 (F, BW, VBMI: one 64-byte vector a block), AVX2 and SSE4.1 (x86-64,
 * compiled per function with target attributes so the default flags build them; chosen
 * at run time: CPUID and XGETBV for AVX-512, whose ZMM state the OS must save,
 * __builtin_cpu_supports for the others), NEON (AArch64), scalar.  The first one in
 * KERNELS this machine runs is chosen at init (avx512 is first because it measured
 * faster on Zen 4, docs/benchmarks.md); set_utf8_kernel(name) forces another
 * (sanitizer/_native.py calls it once, at import, for SANITIZER_UTF8_KERNEL).  The
 * choice is process-wide, like the CPU it depends on, and scan.c and decode_valid.c
 * follow it (speedups_avx2): their AVX2 loops run under the avx2 and avx512 kernels
 * (they have no AVX-512 ones), their scalar loops under the others.
 */
#include "speedups.h"
#include "utf8_tables_data.h" /* generated from sanitizer/_grammar.py */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(SPEEDUPS_X86)
#define VALIDATE_X86 1
#include <cpuid.h>
#endif
#if defined(__aarch64__)
#define VALIDATE_NEON 1
#include <arm_neon.h>
#endif

#define BLOCK VALIDATOR_BLOCK /* 64 (speedups.h) */
/* The x86 kernels test the error bits once per GROUP blocks (a branch per block cost a
 * fifth of their speed); a failing group is run again one block at a time from the state
 * it started with, so the answer is the block-by-block one. */
#define GROUP 4
/* Inputs shorter than this take the scalar path: no vector set-up for a few bytes. */
#define SHORT_INPUT 16
/* Inputs at least this long are validated with the GIL released. */
#define NOGIL_INPUT (64 * 1024)

typedef Py_ssize_t (*kernel_fn)(const unsigned char *s, Py_ssize_t n);

/* ---- scalar: RFC 3629 §4 rows, one character at a time --------------------------- */
/* (The rows as tables by lead byte, utf8_tables_data.h: generated from _grammar.py.) */

/* Exact: the start of the first ill-formed or truncated character, or n. */
static Py_ssize_t
valid_prefix_scalar(const unsigned char *s, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    while (i < n) {
        /* ASCII, 8 bytes at a time. */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (w & UINT64_C(0x8080808080808080)) break;
            i += 8;
        }
        if (i >= n) break;
        unsigned char b = s[i];
        if (b < 0x80) {
            i++;
            continue;
        }
        /* RFC 3629 §4: the lead fixes the length and the range of the second byte. */
        Py_ssize_t len = UTF8_LENGTH[b];
        if (len == 0) return i; /* a continuation, or a byte no character starts with */
        if (i + len > n) return i;
        if (s[i + 1] < UTF8_SECOND_LO[b] || s[i + 1] > UTF8_SECOND_HI[b]) return i;
        for (Py_ssize_t k = 2; k < len; k++) {
            if (s[i + k] < UTF8_TAIL_LO || s[i + k] > UTF8_TAIL_HI) return i;
        }
        i += len;
    }
    return n;
}

/* ---- the lookup tables (Keiser & Lemire §5) ---------------------------------------- */

/* One bit per kind of error a pair (previous byte, current byte) can show; a pair is in
 * error when all three lookups agree on a bit.  The tables (UTF8_PREV_HIGH by the high
 * nibble of the previous byte, UTF8_PREV_LOW by its low nibble, UTF8_CUR_HIGH by the high
 * nibble of the current byte), their kinds and the block-end limits (UTF8_LAST_MAX) are
 * generated from grammar.UTF8_CHAR into utf8_tables_data.h by tools/gen_utf8_tables.py,
 * which checks them against the grammar on every byte pair.  UTF8_TWO_CONTS (a
 * continuation, then another) is legal only as a 3rd or 4th byte: the kernels XOR it with
 * "the byte two back is >= UTF8_LEAD3_MIN or three back >= UTF8_LEAD4_MIN". */

/* Where the proven prefix ends when the block at `at` failed: `at`, or the start of a
 * sequence the bytes before `at` leave open (those bytes passed every check, so they are
 * well-formed but for such a tail). */
static Py_ssize_t
back_to_boundary(const unsigned char *s, Py_ssize_t at)
{
    for (Py_ssize_t k = 1; k <= 3 && k <= at; k++) {
        unsigned char b = s[at - k];
        if (b < UTF8_TAIL_LO) break; /* ASCII */
        if (b > UTF8_TAIL_HI) {      /* a lead: the bytes before `at` passed, so a valid one */
            Py_ssize_t need = b >= UTF8_LEAD4_MIN ? 4 : b >= UTF8_LEAD3_MIN ? 3 : 2;
            return need > k ? at - k : at;
        }
    }
    return at;
}

/* The last partial block, padded with spaces: a sequence left open at the end of the
 * input is then followed by ASCII, which the pair check flags (a lead then no
 * continuation).  An input that ends on a block edge has no such block: the last one must
 * not leave a sequence open (the UTF8_LAST_MAX test). */
static void
pad_tail(unsigned char *buf, const unsigned char *s, Py_ssize_t rem)
{
    memset(buf, 0x20, BLOCK);
    if (rem > 0) memcpy(buf, s, (size_t)rem);
}

/* ---- the block driver, one for every SIMD kernel ------------------------------------ */

/* A SIMD kernel K is its block op and a few vector words (simdutf's idea: one driver, a
 * kernel per target); DEFINE_VALID_PREFIX(K, TARGET, GROUP_OF) writes valid_prefix_K
 * from them, with K's target attribute so every call inlines:
 *   K##_vec                     a vector;
 *   K##_consts, K##_CONSTANTS   the tables and the block-end limits (an initializer);
 *   K##_zero(), K##_or(a, b), K##_any(v)   zero, OR, "some bit set";
 *   K##_block(p, &prev, &open, &c)  the error bits of the 64-byte block at p; `prev`
 *       becomes its last vector and `open` what a sequence it leaves open must see next.
 * GROUP_OF blocks are tested at a time; a failing group is run again one block at a
 * time from the state it started with, so the answer is the block-by-block one. */
#define DEFINE_VALID_PREFIX(K, TARGET, GROUP_OF)                                             \
    TARGET static Py_ssize_t valid_prefix_##K(const unsigned char *s, Py_ssize_t n)           \
    {                                                                                        \
        const K##_consts c = K##_CONSTANTS;                                                  \
        K##_vec prev = K##_zero(), open = K##_zero();                                        \
        Py_ssize_t at = 0;                                                                   \
        while ((GROUP_OF) > 1 && at + (GROUP_OF) * BLOCK <= n) {                             \
            K##_vec prev0 = prev, open0 = open, err = K##_zero();                            \
            for (int k = 0; k < (GROUP_OF); k++)                                             \
                err = K##_or(err, K##_block(s + at + k * BLOCK, &prev, &open, &c));          \
            if (K##_any(err)) {                                                              \
                prev = prev0;                                                                \
                open = open0;                                                                \
                break;                                                                       \
            }                                                                                \
            at += (GROUP_OF) * BLOCK;                                                        \
        }                                                                                    \
        unsigned char tail[BLOCK];                                                           \
        for (;;) {                                                                           \
            const unsigned char *p;                                                          \
            int last = 0;                                                                    \
            if (at + BLOCK <= n) {                                                           \
                p = s + at;                                                                  \
            } else if (at == n) { /* ended on a block edge: inside a sequence? */            \
                return !K##_any(open) ? n : back_to_boundary(s, at);                         \
            } else {                                                                         \
                pad_tail(tail, s + at, n - at);                                              \
                p = tail;                                                                    \
                last = 1;                                                                    \
            }                                                                                \
            K##_vec err = K##_block(p, &prev, &open, &c);                                    \
            if (K##_any(err)) return back_to_boundary(s, at);                                \
            if (last) return n;                                                              \
            at += BLOCK;                                                                     \
        }                                                                                    \
    }

/* ---- SSE4.1 (16-byte vectors, four to a block) ------------------------------------- */
#ifdef VALIDATE_X86

#define SSE_TARGET __attribute__((target("sse4.1")))

typedef __m128i sse41_vec;

SSE_TARGET static inline __m128i
sse_table(const unsigned char *t)
{
    return _mm_loadu_si128((const __m128i *)t);
}

SSE_TARGET static inline __m128i
sse41_zero(void)
{
    return _mm_setzero_si128();
}

SSE_TARGET static inline __m128i
sse41_or(__m128i a, __m128i b)
{
    return _mm_or_si128(a, b);
}

SSE_TARGET static inline int
sse41_any(__m128i v)
{
    return !_mm_testz_si128(v, v);
}

/* The error bits of vector `in` whose previous 16 bytes are `prev`. */
SSE_TARGET static inline __m128i
sse_check(__m128i in, __m128i prev, __m128i t_ph, __m128i t_pl, __m128i t_ch)
{
    const __m128i nib = _mm_set1_epi8(0x0F);
    __m128i prev1 = _mm_alignr_epi8(in, prev, 15);
    __m128i e = _mm_and_si128(
        _mm_and_si128(_mm_shuffle_epi8(t_ph, _mm_and_si128(_mm_srli_epi16(prev1, 4), nib)),
                      _mm_shuffle_epi8(t_pl, _mm_and_si128(prev1, nib))),
        _mm_shuffle_epi8(t_ch, _mm_and_si128(_mm_srli_epi16(in, 4), nib)));
    /* 3rd and 4th bytes: prev2 >= LEAD3_MIN or prev3 >= LEAD4_MIN (saturating: the high
     * bit is set iff so). */
    __m128i prev2 = _mm_alignr_epi8(in, prev, 14);
    __m128i prev3 = _mm_alignr_epi8(in, prev, 13);
    __m128i must23 =
        _mm_or_si128(_mm_subs_epu8(prev2, _mm_set1_epi8((char)(UTF8_LEAD3_MIN - 0x80))),
                     _mm_subs_epu8(prev3, _mm_set1_epi8((char)(UTF8_LEAD4_MIN - 0x80))));
    must23 = _mm_and_si128(must23, _mm_set1_epi8((char)UTF8_TWO_CONTS));
    return _mm_xor_si128(e, must23);
}

typedef struct {
    __m128i ph, pl, ch, last_max;
} sse41_consts;

#define sse41_CONSTANTS                                                                \
    {sse_table(UTF8_PREV_HIGH), sse_table(UTF8_PREV_LOW), sse_table(UTF8_CUR_HIGH),        \
     sse_table(UTF8_LAST_MAX)}

/* As avx2_block, in four 16-byte vectors. */
SSE_TARGET static inline __m128i
sse41_block(const unsigned char *p, __m128i *prev, __m128i *open, const sse41_consts *c)
{
    __m128i v0 = _mm_loadu_si128((const __m128i *)p);
    __m128i v1 = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i v2 = _mm_loadu_si128((const __m128i *)(p + 32));
    __m128i v3 = _mm_loadu_si128((const __m128i *)(p + 48));
    __m128i any = _mm_or_si128(_mm_or_si128(v0, v1), _mm_or_si128(v2, v3));
    __m128i err;
    if (_mm_movemask_epi8(any) == 0) {
        err = *open; /* all ASCII: only a sequence left open before it can fail */
        *open = _mm_setzero_si128();
    } else {
        err = sse_check(v0, *prev, c->ph, c->pl, c->ch);
        err = _mm_or_si128(err, sse_check(v1, v0, c->ph, c->pl, c->ch));
        err = _mm_or_si128(err, sse_check(v2, v1, c->ph, c->pl, c->ch));
        err = _mm_or_si128(err, sse_check(v3, v2, c->ph, c->pl, c->ch));
        *open = _mm_subs_epu8(v3, c->last_max);
    }
    *prev = v3;
    return err;
}

DEFINE_VALID_PREFIX(sse41, SSE_TARGET, GROUP)

/* ---- AVX2 (32-byte vectors, two to a block) ---------------------------------------- */

#define AVX2_TARGET __attribute__((target("avx2")))

typedef __m256i avx2_vec;

AVX2_TARGET static inline __m256i
avx2_table(const unsigned char *t)
{
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
}

AVX2_TARGET static inline __m256i
avx2_zero(void)
{
    return _mm256_setzero_si256();
}

AVX2_TARGET static inline __m256i
avx2_or(__m256i a, __m256i b)
{
    return _mm256_or_si256(a, b);
}

AVX2_TARGET static inline int
avx2_any(__m256i v)
{
    return !_mm256_testz_si256(v, v);
}

/* `in` shifted right by k bytes across the lane boundary, the gap filled from `prev`. */
#define AVX2_PREV(in, prev, k) \
    _mm256_alignr_epi8((in), _mm256_permute2x128_si256((prev), (in), 0x21), 16 - (k))

AVX2_TARGET static inline __m256i
avx2_check(__m256i in, __m256i prev, __m256i t_ph, __m256i t_pl, __m256i t_ch)
{
    const __m256i nib = _mm256_set1_epi8(0x0F);
    __m256i prev1 = AVX2_PREV(in, prev, 1);
    __m256i e = _mm256_and_si256(
        _mm256_and_si256(
            _mm256_shuffle_epi8(t_ph, _mm256_and_si256(_mm256_srli_epi16(prev1, 4), nib)),
            _mm256_shuffle_epi8(t_pl, _mm256_and_si256(prev1, nib))),
        _mm256_shuffle_epi8(t_ch, _mm256_and_si256(_mm256_srli_epi16(in, 4), nib)));
    __m256i prev2 = AVX2_PREV(in, prev, 2);
    __m256i prev3 = AVX2_PREV(in, prev, 3);
    __m256i must23 =
        _mm256_or_si256(_mm256_subs_epu8(prev2, _mm256_set1_epi8((char)(UTF8_LEAD3_MIN - 0x80))),
                        _mm256_subs_epu8(prev3, _mm256_set1_epi8((char)(UTF8_LEAD4_MIN - 0x80))));
    must23 = _mm256_and_si256(must23, _mm256_set1_epi8((char)UTF8_TWO_CONTS));
    return _mm256_xor_si256(e, must23);
}

/* The constants of a kernel: the three tables and UTF8_LAST_MAX (high lane only: the low
 * lane never limits). */
typedef struct {
    __m256i ph, pl, ch, last_max;
} avx2_consts;

#define avx2_CONSTANTS                                                                 \
    {avx2_table(UTF8_PREV_HIGH), avx2_table(UTF8_PREV_LOW), avx2_table(UTF8_CUR_HIGH),     \
     _mm256_inserti128_si256(_mm256_set1_epi8((char)0xFF),                                 \
                             _mm_loadu_si128((const __m128i *)UTF8_LAST_MAX), 1)}

/* The error bits of the 64-byte block at `p`; `*prev` becomes its last vector and
 * `*open` what a sequence it leaves open must see next. */
AVX2_TARGET static inline __m256i
avx2_block(const unsigned char *p, __m256i *prev, __m256i *open, const avx2_consts *c)
{
    __m256i v0 = _mm256_loadu_si256((const __m256i *)p);
    __m256i v1 = _mm256_loadu_si256((const __m256i *)(p + 32));
    __m256i err;
    if (_mm256_movemask_epi8(_mm256_or_si256(v0, v1)) == 0) {
        err = *open; /* all ASCII: only a sequence left open before it can fail */
        *open = _mm256_setzero_si256();
    } else {
        err = _mm256_or_si256(avx2_check(v0, *prev, c->ph, c->pl, c->ch),
                              avx2_check(v1, v0, c->ph, c->pl, c->ch));
        *open = _mm256_subs_epu8(v1, c->last_max);
    }
    *prev = v1;
    return err;
}

DEFINE_VALID_PREFIX(avx2, AVX2_TARGET, GROUP)

/* ---- AVX-512 (one 64-byte vector a block; F + BW + VBMI) -------------------------- */

/* Needs AVX-512 F, BW and VBMI (Ice Lake, Zen 4 and later) and an OS that saves the
 * opmask and ZMM state (avx512_usable: CPUID and XGETBV).  Zen 4 runs a 512-bit op as
 * two 256-bit halves, so the gain is in fewer instructions a block: one vector, one
 * cross-lane op for the three shifts, no nibble masks (vpermb), ternary logic. */
#define AVX512_TARGET __attribute__((target("avx512f,avx512bw,avx512vbmi")))

typedef __m512i avx512_vec;

AVX512_TARGET static inline __m512i
avx512_table(const unsigned char *t)
{
    return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)t));
}

AVX512_TARGET static inline __m512i
avx512_zero(void)
{
    return _mm512_setzero_si512();
}

AVX512_TARGET static inline __m512i
avx512_or(__m512i a, __m512i b)
{
    return _mm512_or_si512(a, b);
}

AVX512_TARGET static inline int
avx512_any(__m512i v)
{
    return _mm512_test_epi8_mask(v, v) != 0;
}

/* `in` shifted right by k bytes, the gap filled from the end of `prev`.  The in-lane
 * alignr needs each lane's predecessor lane: `in` moved up one 16-byte lane, the last
 * lane of `prev` in the first (one cross-lane op for the three shifts). */
#define AVX512_PREV(in, lanes, k) _mm512_alignr_epi8((in), (lanes), 16 - (k))

AVX512_TARGET static inline __m512i
avx512_check(__m512i in, __m512i prev, const __m512i *t_ph, const __m512i *t_pl,
             const __m512i *t_ch)
{
    __m512i lanes = _mm512_alignr_epi32(in, prev, 12); /* prev.lane3, in.lane0..2 */
    __m512i prev1 = AVX512_PREV(in, lanes, 1);
    /* vpermb reads 6 index bits of a table repeated in each 16-byte lane: bits 4-5 pick
     * a copy, so the nibbles need no mask (bits 6-7 are ignored). */
    __m512i a = _mm512_permutexvar_epi8(_mm512_srli_epi16(prev1, 4), *t_ph);
    __m512i b = _mm512_permutexvar_epi8(prev1, *t_pl);
    __m512i d = _mm512_permutexvar_epi8(_mm512_srli_epi16(in, 4), *t_ch);
    __m512i e = _mm512_ternarylogic_epi32(a, b, d, 0x80); /* a & b & d */
    __m512i prev2 = AVX512_PREV(in, lanes, 2);
    __m512i prev3 = AVX512_PREV(in, lanes, 3);
    __m512i must23 =
        _mm512_or_si512(_mm512_subs_epu8(prev2, _mm512_set1_epi8((char)(UTF8_LEAD3_MIN - 0x80))),
                        _mm512_subs_epu8(prev3, _mm512_set1_epi8((char)(UTF8_LEAD4_MIN - 0x80))));
    /* e ^ (must23 & UTF8_TWO_CONTS) */
    return _mm512_ternarylogic_epi32(e, must23, _mm512_set1_epi8((char)UTF8_TWO_CONTS), 0x78);
}

/* As avx2_consts; UTF8_LAST_MAX in the last lane only. */
typedef struct {
    __m512i ph, pl, ch, last_max;
} avx512_consts;

#define avx512_CONSTANTS                                                                \
    {avx512_table(UTF8_PREV_HIGH), avx512_table(UTF8_PREV_LOW),                           \
     avx512_table(UTF8_CUR_HIGH),                                                         \
     _mm512_inserti32x4(_mm512_set1_epi8((char)0xFF),                                     \
                        _mm_loadu_si128((const __m128i *)UTF8_LAST_MAX), 3)}

/* As avx2_block, in one vector. */
AVX512_TARGET static inline __m512i
avx512_block(const unsigned char *p, __m512i *prev, __m512i *open, const avx512_consts *c)
{
    __m512i v = _mm512_loadu_si512((const void *)p);
    __m512i err;
    /* ASCII test through a 256-bit movemask: on Zen 4, vpmovb2m and kortest made an
     * all-ASCII block a third slower than AVX2's two-vector test. */
    __m256i half = _mm256_or_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    if (_mm256_movemask_epi8(half) == 0) {
        err = *open; /* all ASCII: only a sequence left open before it can fail */
        *open = _mm512_setzero_si512();
    } else {
        err = avx512_check(v, *prev, &c->ph, &c->pl, &c->ch);
        *open = _mm512_subs_epu8(v, c->last_max);
    }
    *prev = v;
    return err;
}

DEFINE_VALID_PREFIX(avx512, AVX512_TARGET, GROUP)

/* CPUID.7.0: EBX bits 16 (AVX512F) and 30 (AVX512BW), ECX bit 1 (AVX512VBMI); and, with
 * OSXSAVE, XGETBV(0) showing the OS saves the SSE, AVX, opmask and both ZMM states (bits
 * 1, 2, 5, 6, 7; Intel SDM vol. 1 §13.3 and §15.2). */
static int
avx512_usable(void)
{
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return 0; /* OSXSAVE */
    unsigned int lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    if ((lo & 0xE6) != 0xE6) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b & (1u << 16)) && (b & (1u << 30)) && (c & (1u << 1));
}
#endif /* VALIDATE_X86 */

/* ---- NEON (AArch64: 16-byte vectors, four to a block) ------------------------------ */
#ifdef VALIDATE_NEON

#define NEON_TARGET /* part of AArch64: no attribute */

typedef uint8x16_t neon_vec;

static inline uint8x16_t
neon_zero(void)
{
    return vdupq_n_u8(0);
}

static inline uint8x16_t
neon_or(uint8x16_t a, uint8x16_t b)
{
    return vorrq_u8(a, b);
}

static inline int
neon_any(uint8x16_t v)
{
    return vmaxvq_u8(v) != 0;
}

static inline uint8x16_t
neon_check(uint8x16_t in, uint8x16_t prev, uint8x16_t t_ph, uint8x16_t t_pl, uint8x16_t t_ch)
{
    const uint8x16_t nib = vdupq_n_u8(0x0F);
    uint8x16_t prev1 = vextq_u8(prev, in, 15);
    uint8x16_t e = vandq_u8(vandq_u8(vqtbl1q_u8(t_ph, vshrq_n_u8(prev1, 4)),
                                     vqtbl1q_u8(t_pl, vandq_u8(prev1, nib))),
                            vqtbl1q_u8(t_ch, vshrq_n_u8(in, 4)));
    uint8x16_t prev2 = vextq_u8(prev, in, 14);
    uint8x16_t prev3 = vextq_u8(prev, in, 13);
    uint8x16_t must23 = vorrq_u8(vqsubq_u8(prev2, vdupq_n_u8(UTF8_LEAD3_MIN - 0x80)),
                                 vqsubq_u8(prev3, vdupq_n_u8(UTF8_LEAD4_MIN - 0x80)));
    must23 = vandq_u8(must23, vdupq_n_u8(UTF8_TWO_CONTS));
    return veorq_u8(e, must23);
}

typedef struct {
    uint8x16_t ph, pl, ch, last_max;
} neon_consts;

#define neon_CONSTANTS                                                                 \
    {vld1q_u8(UTF8_PREV_HIGH), vld1q_u8(UTF8_PREV_LOW), vld1q_u8(UTF8_CUR_HIGH),           \
     vld1q_u8(UTF8_LAST_MAX)}

/* As avx2_block, in four 16-byte vectors. */
static inline uint8x16_t
neon_block(const unsigned char *p, uint8x16_t *prev, uint8x16_t *open, const neon_consts *c)
{
    uint8x16_t v0 = vld1q_u8(p), v1 = vld1q_u8(p + 16), v2 = vld1q_u8(p + 32),
               v3 = vld1q_u8(p + 48);
    uint8x16_t any = vorrq_u8(vorrq_u8(v0, v1), vorrq_u8(v2, v3));
    uint8x16_t err;
    if (vmaxvq_u8(any) < 0x80) {
        err = *open; /* all ASCII: only a sequence left open before it can fail */
        *open = vdupq_n_u8(0);
    } else {
        err = neon_check(v0, *prev, c->ph, c->pl, c->ch);
        err = vorrq_u8(err, neon_check(v1, v0, c->ph, c->pl, c->ch));
        err = vorrq_u8(err, neon_check(v2, v1, c->ph, c->pl, c->ch));
        err = vorrq_u8(err, neon_check(v3, v2, c->ph, c->pl, c->ch));
        *open = vqsubq_u8(v3, c->last_max);
    }
    *prev = v3;
    return err;
}

/* One block a test, as this kernel was measured (no x86 group figures apply here). */
DEFINE_VALID_PREFIX(neon, NEON_TARGET, 1)
#endif /* VALIDATE_NEON */

/* ---- dispatch ---------------------------------------------------------------------- */

typedef struct {
    const char *name;
    kernel_fn fn;
} kernel_t;

/* Best first. */
static const kernel_t KERNELS[] = {
#ifdef VALIDATE_X86
    {"avx512", valid_prefix_avx512},
    {"avx2", valid_prefix_avx2},
    {"sse41", valid_prefix_sse41},
#endif
#ifdef VALIDATE_NEON
    {"neon", valid_prefix_neon},
#endif
    {"scalar", valid_prefix_scalar},
};
#define NKERNELS ((int)(sizeof(KERNELS) / sizeof(KERNELS[0])))

#ifdef VALIDATE_X86
/* Set once at init (speedups_validate_init). */
static int avx512_ok = 0;
#endif

static int
kernel_available(const kernel_t *k)
{
#ifdef VALIDATE_X86
    if (k->fn == valid_prefix_avx512) return avx512_ok;
    if (k->fn == valid_prefix_avx2) return __builtin_cpu_supports("avx2");
    if (k->fn == valid_prefix_sse41) return __builtin_cpu_supports("sse4.1");
#endif
    (void)k;
    return 1; /* NEON is part of AArch64; scalar runs anywhere */
}

static const kernel_t *active = &KERNELS[NKERNELS - 1];
int speedups_avx2 = 0;

static void
use_kernel(const kernel_t *k)
{
    active = k;
#ifdef VALIDATE_X86
    /* scan.c and decode_valid.c have no AVX-512 loops: under the avx512 validator they
     * keep their AVX2 ones (every AVX-512 CPU has AVX2; the test is for an odd
     * hypervisor). */
    speedups_avx2 = k->fn == valid_prefix_avx2
                    || (k->fn == valid_prefix_avx512 && __builtin_cpu_supports("avx2"));
#endif
}

static const kernel_t *
find_kernel(const char *name)
{
    for (int i = 0; i < NKERNELS; i++) {
        if (strcmp(KERNELS[i].name, name) == 0) return &KERNELS[i];
    }
    return NULL;
}

static const kernel_t *
best_kernel(void)
{
    for (int i = 0; i < NKERNELS; i++) {
        if (kernel_available(&KERNELS[i])) return &KERNELS[i];
    }
    return &KERNELS[NKERNELS - 1];
}

void
speedups_validate_init(void)
{
    static int done = 0; /* the choice is process-wide: a second module keeps it */
    if (done) return;
    done = 1;
#ifdef VALIDATE_X86
    __builtin_cpu_init();
    avx512_ok = avx512_usable();
#endif
    use_kernel(best_kernel());
}

PyObject *
speedups_set_utf8_kernel(PyObject *self, PyObject *name)
{
    (void)self;
    if (!PyUnicode_Check(name)) {
        PyErr_SetString(PyExc_TypeError, "set_utf8_kernel() name must be str");
        return NULL;
    }
    const char *want = PyUnicode_AsUTF8(name);
    if (want == NULL) return NULL;
    if (strcmp(want, "auto") == 0) {
        use_kernel(best_kernel());
        Py_RETURN_NONE;
    }
    const kernel_t *k = find_kernel(want);
    if (k == NULL && strcmp(want, "avx512") && strcmp(want, "avx2") && strcmp(want, "sse41")
        && strcmp(want, "neon") && strcmp(want, "scalar")) {
        PyErr_SetString(PyExc_ValueError, "expected avx512, avx2, sse41, neon, scalar or auto");
        return NULL;
    }
    if (k == NULL || !kernel_available(k)) {
        PyErr_SetString(PyExc_ValueError, "this CPU or build cannot run it");
        return NULL;
    }
    use_kernel(k);
    Py_RETURN_NONE;
}

static Py_ssize_t
run_kernel(kernel_fn fn, const unsigned char *s, Py_ssize_t n)
{
    Py_ssize_t good;
    if (n >= NOGIL_INPUT) {
        Py_BEGIN_ALLOW_THREADS
        good = fn(s, n);
        Py_END_ALLOW_THREADS
    } else {
        good = fn(s, n);
    }
    return good;
}

/* For the other C files (scan.c decodes bytes it has proven valid): the same answer as
 * valid_prefix, from C, with the GIL held. */
Py_ssize_t
speedups_valid_prefix_of(const unsigned char *s, Py_ssize_t n)
{
    return (n < SHORT_INPUT ? valid_prefix_scalar : active->fn)(s, n);
}

PyObject *
speedups_valid_prefix(PyObject *self, PyObject *data)
{
    (void)self;
    if (PyBytes_CheckExact(data)) {
        const unsigned char *s = (const unsigned char *)PyBytes_AS_STRING(data);
        Py_ssize_t n = PyBytes_GET_SIZE(data);
        kernel_fn fn = n < SHORT_INPUT ? valid_prefix_scalar : active->fn;
        return PyLong_FromSsize_t(run_kernel(fn, s, n));
    }
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) return NULL;
    kernel_fn fn = view.len < SHORT_INPUT ? valid_prefix_scalar : active->fn;
    Py_ssize_t good = run_kernel(fn, (const unsigned char *)view.buf, view.len);
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(good);
}

PyObject *
speedups_utf8_kernel(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(active->name);
}

PyObject *
speedups_utf8_kernels(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    PyObject *names[NKERNELS];
    Py_ssize_t count = 0;
    for (int i = 0; i < NKERNELS; i++) {
        if (kernel_available(&KERNELS[i])) names[count++] = PyUnicode_FromString(KERNELS[i].name);
    }
    PyObject *out = PyTuple_New(count);
    for (Py_ssize_t i = 0; i < count; i++) {
        if (names[i] == NULL || out == NULL) {
            Py_XDECREF(names[i]);
            continue;
        }
        PyTuple_SET_ITEM(out, i, names[i]);
    }
    if (out != NULL && PyErr_Occurred()) Py_CLEAR(out);
    return out;
}

/* The test hook: valid_prefix_using(name, data) runs that kernel on every length (no
 * scalar path for short inputs), so the suite checks each kernel this CPU can run. */
PyObject *
speedups_valid_prefix_using(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "valid_prefix_using(name: str, data, /)");
        return NULL;
    }
    const char *name = PyUnicode_AsUTF8(args[0]);
    if (name == NULL) return NULL;
    const kernel_t *k = find_kernel(name);
    if (k == NULL || !kernel_available(k)) {
        PyErr_Format(PyExc_ValueError, "no kernel %R on this machine", args[0]);
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_SIMPLE) < 0) return NULL;
    Py_ssize_t good = run_kernel(k->fn, (const unsigned char *)view.buf, view.len);
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(good);
}

/* ---- is_valid: the C entry point of sanitizer._decoder.is_valid ----------------------- */

/* The Python is_valid (decoder.is_valid_py, in the module's state) that every call but
 * the plain one goes to: options, other buffer types, argument errors, and ill-formed
 * input (which the machine judges, as allow_overlong_nul may accept what the validator
 * refuses). */
PyObject *
speedups_is_valid(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs == 1 && kwnames == NULL && PyBytes_CheckExact(args[0])) {
        const unsigned char *s = (const unsigned char *)PyBytes_AS_STRING(args[0]);
        Py_ssize_t n = PyBytes_GET_SIZE(args[0]);
        kernel_fn fn = n < SHORT_INPUT ? valid_prefix_scalar : active->fn;
        if (run_kernel(fn, s, n) == n) Py_RETURN_TRUE;
    } else if (nargs == 1 && kwnames == NULL
               && (PyByteArray_CheckExact(args[0]) || PyMemoryView_Check(args[0]))) {
        /* read in place (no copy); a non-contiguous memoryview refuses PyBUF_SIMPLE and
         * goes to the fallback, which copies it */
        Py_buffer view;
        if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) == 0) {
            kernel_fn fn = view.len < SHORT_INPUT ? valid_prefix_scalar : active->fn;
            int ok = run_kernel(fn, (const unsigned char *)view.buf, view.len) == view.len;
            PyBuffer_Release(&view);
            if (ok) Py_RETURN_TRUE;
        } else {
            PyErr_Clear();
        }
    }
    PyObject *fallback = state_of(self)->is_valid_fallback;
    if (fallback == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "is_valid fallback not registered");
        return NULL;
    }
    return PyObject_Vectorcall(fallback, args, (size_t)nargs, kwnames);
}

PyObject *
speedups_set_is_valid_fallback(PyObject *self, PyObject *fn)
{
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "fallback must be callable");
        return NULL;
    }
    Py_INCREF(fn);
    Py_XSETREF(state_of(self)->is_valid_fallback, fn);
    Py_RETURN_NONE;
}
