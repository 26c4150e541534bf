/*
 * The policy fast path: scan(text, stage1, stage2, tables, max_run, start) -> int,
 * clean(data, stage1, stage2, tables, max_run) -> str | None and, for sanitize,
 * clean_edit(data, stage1, stage2, tables, max_run, edits) -> str | None (clean, or the
 * text with the characters the policy strips or replaces edited out, in the same pass).
 *
 * Why it exists: sanitizer.policy must decide for every character whether a policy could
 * care about it; in C that is a table lookup a character (and 64 ASCII bytes at a time).
 * Like the decoder runner this holds no Unicode knowledge: Python hands it a two-stage
 * class table (sanitizer/_classtable.py: code point -> uint8 class) and a policy's tables
 * indexed by class (sanitizer.policy.compiled), and it only looks them up.  The
 * pure-Python statement is _classtable.scan_reference; the tests check that the two agree.
 *
 * tables (layout in speedups.h): flags[256] (bit 0: interesting, bit 1: mark), rule[256]
 * (0: none, else 1..R), prefilter[16], then per rule prev_ok[257] and next_ok[257] (entry
 * 256 stands for "no previous / next character").
 *
 * prefilter: T (<= 0x7F), number of extras (<= 4), 4 extras, number of skips (<= 4),
 * 4 skips, 5 unused.  A byte b is a candidate when (b < T or b >= 0x7F) and b is not a
 * skip, or b is an extra.  Skips are bytes below T that no class flags (e.g. LF, TAB),
 * so common whitespace does not stop the vector loop.  Every byte whose class is
 * flagged must be a candidate (checked when the tables are validated); candidates are
 * then looked up exactly, other bytes are skipped 64 at a time.
 *
 * With AVX2 (compiled per function with a target attribute, used when the CPU has it and
 * SANITIZER_UTF8_KERNEL does not force a narrower kernel) the prefilter is exact instead:
 * what each validated table flags is derived once (`derive`): U+0000..00FF and the BMP's
 * 256-code-point blocks as nibble bitmaps tested 32 characters at a time with two
 * shuffles, a bit per BMP code point, and a byte per block.  Clean text then costs a few
 * vector instructions per 32 (1-, 2-byte strs) or 8 (4-byte strs) characters.
 */
#include "speedups.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SCAN_AVX2 1 /* compiled with a target attribute, used when the CPU has it */
#include <immintrin.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What is derived from one validated policy table (with the class table it was validated
 * against), once: which 256-code-point blocks hold a flagged class (so wide strings pay
 * one lookup per clean character) and the flagged code points U+0000..00FF as nibble
 * bitmaps (lo_ascii[b & 15] bit b >> 4 for b < 0x80, lo_latin for 0x80..0xFF), so a
 * vector loop tests 32 characters exactly with two shuffles. */
typedef struct {
    unsigned char dirty[STAGE1_ENTRIES];
    unsigned char lo_ascii[16], lo_latin[16];
    unsigned char bmp[0x10000 / 8]; /* bit ch & 7 of byte ch >> 3: U+ch (BMP) is flagged */
    /* For the vector loops over wide strings: blk_ascii / blk_latin: the BMP blocks
     * 1..FF holding a flagged class as nibble bitmaps (like lo_ascii, lo_latin); wide[k]:
     * 1 when block k (k >= 1) holds one (padded for 4-byte gathers). */
    unsigned char blk_ascii[16], blk_latin[16];
    unsigned char wide[STAGE1_ENTRIES + 4];
} derived_t;

#define BMP_FLAGGED(d, ch) (((d)->bmp[(ch) >> 3] >> ((ch) & 7)) & 1)

typedef struct {
    const uint16_t *stage1;
    const unsigned char *stage2;
    const unsigned char *flags;
    const unsigned char *rule;
    const unsigned char *rules;
    const unsigned char *blk0; /* classes of U+0000..00FF */
    int threshold, nextra, nskip;
    unsigned char extras[4], skips[4];
    const derived_t *derived;
} scan_tables_t;

static int
is_candidate(const scan_tables_t *t, unsigned int b)
{
    int c = (b < (unsigned int)t->threshold || b >= 0x7F);
    for (int k = 0; k < t->nskip; k++) {
        if (b == t->skips[k]) c = 0;
    }
    for (int k = 0; k < t->nextra; k++) {
        if (b == t->extras[k]) c = 1;
    }
    return c;
}

/* Validation is done once per distinct table object: bytes are immutable, so holding a
 * reference to a validated object makes re-validation unnecessary (policies cache their
 * tables, so the common call costs a pointer comparison, not a 4,352-entry check). */
#define VALID_CACHE 8
static PyObject *valid_stage1 = NULL, *valid_stage2 = NULL;
#define CLASS_OF(t, ch) ((t)->stage2[((size_t)(t)->stage1[(ch) >> 8] << 8) | ((ch) & 0xFF)])

static PyObject *valid_tables[VALID_CACHE];
static derived_t valid_derived[VALID_CACHE];
static int valid_next = 0;

static void
derive(const scan_tables_t *t, Py_ssize_t nblocks, derived_t *d)
{
    unsigned char *block_dirty = (unsigned char *)calloc((size_t)nblocks, 1);
    for (Py_ssize_t b = 0; b < nblocks; b++) {
        const unsigned char *cls = t->stage2 + ((size_t)b << 8);
        unsigned char any = 0;
        for (int k = 0; k < 256; k++) any |= t->flags[cls[k]];
        if (block_dirty != NULL) block_dirty[b] = any != 0;
    }
    for (int k = 0; k < STAGE1_ENTRIES; k++)
        d->dirty[k] = block_dirty == NULL ? 1 : block_dirty[t->stage1[k]];
    free(block_dirty);
    memset(d->bmp, 0, sizeof d->bmp);
    for (unsigned int ch = 0; ch < 0x10000; ch++) {
        if (d->dirty[ch >> 8] && t->flags[CLASS_OF(t, ch)])
            d->bmp[ch >> 3] |= (unsigned char)(1u << (ch & 7));
    }
    memset(d->blk_ascii, 0, 16);
    memset(d->blk_latin, 0, 16);
    memset(d->wide, 0, sizeof d->wide);
    for (int k = 1; k < STAGE1_ENTRIES; k++) {
        d->wide[k] = d->dirty[k];
        if (k < 0x80 && d->dirty[k]) d->blk_ascii[k & 15] |= (unsigned char)(1u << (k >> 4));
        if (k >= 0x80 && k < 0x100 && d->dirty[k])
            d->blk_latin[k & 15] |= (unsigned char)(1u << ((k >> 4) - 8));
    }
    memset(d->lo_ascii, 0, 16);
    memset(d->lo_latin, 0, 16);
    for (int b = 0; b < 256; b++) {
        if (!t->flags[t->blk0[b]]) continue;
        if (b < 0x80)
            d->lo_ascii[b & 15] |= (unsigned char)(1u << (b >> 4));
        else
            d->lo_latin[b & 15] |= (unsigned char)(1u << ((b >> 4) - 8));
    }
}

static int
malformed(const char *what)
{
    PyErr_Format(PyExc_ValueError, "malformed %s table", what);
    return -1;
}

static int
load_scan_tables(PyObject *stage1, PyObject *stage2, PyObject *tables, scan_tables_t *t)
{
    if (!PyBytes_CheckExact(stage1) || !PyBytes_CheckExact(stage2) ||
        !PyBytes_CheckExact(tables)) {
        PyErr_SetString(PyExc_TypeError, "class tables must be bytes");
        return -1;
    }
    const char *s1 = PyBytes_AS_STRING(stage1);
    Py_ssize_t n2 = PyBytes_GET_SIZE(stage2), nt = PyBytes_GET_SIZE(tables);
    if (stage1 != valid_stage1 || stage2 != valid_stage2) {
        if (PyBytes_GET_SIZE(stage1) != 2 * STAGE1_ENTRIES || ((uintptr_t)s1 & 1) != 0 ||
            n2 < 256 || n2 % 256 != 0)
            return malformed("class");
        Py_ssize_t nblocks = n2 / 256;
        for (int k = 0; k < STAGE1_ENTRIES; k++) {
            if (((const uint16_t *)s1)[k] >= nblocks) return malformed("class");
        }
        Py_INCREF(stage1);
        Py_XSETREF(valid_stage1, stage1);
        Py_INCREF(stage2);
        Py_XSETREF(valid_stage2, stage2);
        for (int k = 0; k < VALID_CACHE; k++) Py_CLEAR(valid_tables[k]);
    }
    t->stage1 = (const uint16_t *)s1;
    t->stage2 = (const unsigned char *)PyBytes_AS_STRING(stage2);
    t->blk0 = t->stage2 + ((size_t)t->stage1[0] << 8);
    const unsigned char *tb = (const unsigned char *)PyBytes_AS_STRING(tables);
    int known = 0;
    for (int k = 0; k < VALID_CACHE; k++) {
        if (valid_tables[k] == tables) {
            known = 1;
            t->derived = &valid_derived[k];
        }
    }
    if (!known && (nt < RULES_OFFSET || (nt - RULES_OFFSET) % RULE_SIZE != 0))
        return malformed("policy");
    const unsigned char *pre = tb + PREFILTER_OFFSET;
    t->flags = tb + FLAGS_OFFSET;
    t->rule = tb + RULE_IDS_OFFSET;
    t->rules = tb + RULES_OFFSET;
    t->threshold = pre[0];
    t->nextra = pre[1];
    t->nskip = pre[6];
    if (t->threshold > 0x7F || t->nextra > 4 || t->nskip > 4) return malformed("policy");
    for (int k = 0; k < 4; k++) {
        /* Unused slots repeat values that change nothing: 0x7F is a candidate anyway,
         * T is not below T (the vector loop only runs for T <= 0x7E). */
        t->extras[k] = k < t->nextra ? pre[2 + k] : 0x7F;
        t->skips[k] = k < t->nskip ? pre[7 + k] : (unsigned char)t->threshold;
    }
    if (!known) {
        Py_ssize_t nrules = (nt - RULES_OFFSET) / RULE_SIZE;
        for (int c = 0; c < 256; c++) {
            if (tb[RULE_IDS_OFFSET + c] > nrules) return malformed("policy");
        }
        for (int k = 0; k < t->nskip; k++) {
            if (t->skips[k] >= t->threshold) return malformed("policy prefilter");
        }
        /* The prefilter must let every flagged 1-byte character through. */
        for (int b = 0; b < 256; b++) {
            if (t->flags[t->blk0[b]] && !is_candidate(t, (unsigned int)b))
                return malformed("policy prefilter");
        }
        derive(t, n2 / 256, &valid_derived[valid_next]);
        t->derived = &valid_derived[valid_next];
        Py_INCREF(tables);
        Py_XSETREF(valid_tables[valid_next], tables);
        valid_next = (valid_next + 1) % VALID_CACHE;
    }
    return 0;
}

#if PY_VERSION_HEX < 0x030C0000
#define READY(o) PyUnicode_READY(o)
#else
#define READY(o) 0 /* every str is ready since 3.12 */
#endif


typedef struct {
    Py_ssize_t run_start, mark_end, max_run;
} run_state_t;

/* A flagged character at i (flags f, class c): 1 when the scan stops there. */
static int
flagged(const scan_tables_t *t, int kind, const void *data, Py_ssize_t n, Py_ssize_t i,
        unsigned int c, unsigned int f, run_state_t *rs)
{
    if (f & 1) {
        unsigned int r = t->rule[c];
        if (r == 0) return 1;
        const unsigned char *rule = t->rules + (size_t)(r - 1) * RULE_SIZE;
        unsigned int prev = 256, next = 256;
        if (i > 0) prev = CLASS_OF(t, PyUnicode_READ(kind, data, i - 1));
        if (i + 1 < n) next = CLASS_OF(t, PyUnicode_READ(kind, data, i + 1));
        if (!rule[prev] || !rule[257 + next]) return 1;
    }
    if ((f & 2) && rs->max_run >= 0) {
        if (i != rs->mark_end) rs->run_start = i;
        rs->mark_end = i + 1;
        if (rs->mark_end - rs->run_start > rs->max_run) return 1;
    }
    return 0;
}

/* ---- AVX2: exact membership of 32 characters below U+0100 at a time -------------------- */
#if defined(SCAN_AVX2)
#define SCAN_AVX2_TARGET __attribute__((target("avx2")))
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

/* The first flagged byte of s[i:n] (exact), or where fewer than 32 bytes remain. */
SCAN_AVX2_TARGET static Py_ssize_t
avx2_find_ucs1(const unsigned char *s, Py_ssize_t i, Py_ssize_t n, const derived_t *d)
{
    __m256i lo_a = avx2_bcast(d->lo_ascii), lo_l = avx2_bcast(d->lo_latin);
    __m256i bits = avx2_bcast(ROW_BITS);
    for (; i + 64 <= n; i += 64) {
        uint32_t m0 = avx2_members(_mm256_loadu_si256((const __m256i *)(s + i)), lo_a, lo_l, bits);
        uint32_t m1 =
            avx2_members(_mm256_loadu_si256((const __m256i *)(s + i + 32)), lo_a, lo_l, bits);
        uint64_t m = (uint64_t)m0 | ((uint64_t)m1 << 32);
        if (m) return i + __builtin_ctzll(m);
    }
    for (; i + 32 <= n; i += 32) {
        uint32_t m = avx2_members(_mm256_loadu_si256((const __m256i *)(s + i)), lo_a, lo_l, bits);
        if (m) return i + __builtin_ctz(m);
    }
    return i;
}

/* ASCII bytes copied to dst while none is flagged or >= 0x80: how many (a multiple of
 * 64), or -1 at a flagged or non-ASCII byte. */
SCAN_AVX2_TARGET static Py_ssize_t
avx2_copy_ascii(const unsigned char *s, unsigned char *dst, Py_ssize_t n, const derived_t *d)
{
    __m256i lo_a = avx2_bcast(d->lo_ascii), lo_l = _mm256_set1_epi8((char)0xFF);
    __m256i bits = avx2_bcast(ROW_BITS);
    Py_ssize_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + i + 32));
        _mm256_storeu_si256((__m256i *)(dst + i), a);
        _mm256_storeu_si256((__m256i *)(dst + i + 32), b);
        if (avx2_members(a, lo_a, lo_l, bits) | avx2_members(b, lo_a, lo_l, bits)) return -1;
    }
    return i;
}

/* A candidate j of a wide string: the scalar test (exact), then the rule / run check. */
#define WIDE_CANDIDATE(KIND)                                                             \
    do {                                                                                 \
        Py_UCS4 ch = s[j];                                                               \
        if (ch < 0x10000 && !BMP_FLAGGED(d, ch)) break;                                  \
        unsigned int c = CLASS_OF(t, ch), f = t->flags[c];                               \
        if (f && flagged(t, KIND, s, n, j, c, f, rs)) {                                  \
            *at = j;                                                                     \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

/* UCS2 characters from i on, 32 at a time: a character is a candidate when its block
 * (high byte, 1..FF) holds a flagged class or it is a flagged character below U+0100.
 * 1 with *at = the first flagged index, or 0 with *at = where fewer than 32 remain. */
SCAN_AVX2_TARGET static int
avx2_scan_ucs2(const scan_tables_t *t, const Py_UCS2 *s, Py_ssize_t n, Py_ssize_t i,
               run_state_t *rs, Py_ssize_t *at)
{
    const derived_t *d = t->derived;
    __m256i lo_a = avx2_bcast(d->lo_ascii), lo_l = avx2_bcast(d->lo_latin);
    __m256i blk_a = avx2_bcast(d->blk_ascii), blk_l = avx2_bcast(d->blk_latin);
    __m256i bits = avx2_bcast(ROW_BITS), ff = _mm256_set1_epi16(0xFF);
    for (; i + 32 <= n; i += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + i + 16));
        __m256i hi = _mm256_permute4x64_epi64(
            _mm256_packus_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8)), 0xD8);
        __m256i lo = _mm256_permute4x64_epi64(
            _mm256_packus_epi16(_mm256_and_si256(a, ff), _mm256_and_si256(b, ff)), 0xD8);
        uint32_t narrow =
            (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, _mm256_setzero_si256()));
        uint32_t m = (avx2_members(lo, lo_a, lo_l, bits) & narrow) |
                     avx2_members(hi, blk_a, blk_l, bits);
        while (m) {
            Py_ssize_t j = i + __builtin_ctz(m);
            m &= m - 1;
            WIDE_CANDIDATE(PyUnicode_2BYTE_KIND);
        }
    }
    *at = i;
    return 0;
}

/* The same for UCS4, 8 at a time: below U+10000 the nibble bitmaps (the character's
 * below U+0100, else its block's), above it the block's entry in wide[]. */
SCAN_AVX2_TARGET static int
avx2_scan_ucs4(const scan_tables_t *t, const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i,
               run_state_t *rs, Py_ssize_t *at)
{
    const derived_t *d = t->derived;
    const __m256i byte = _mm256_set1_epi32(0xFF), zero = _mm256_setzero_si256();
    __m256i lo_a = avx2_bcast(d->lo_ascii), lo_l = avx2_bcast(d->lo_latin);
    __m256i bits = avx2_bcast(ROW_BITS);
    __m256i blk_a = avx2_bcast(d->blk_ascii), blk_l = avx2_bcast(d->blk_latin);
    const __m256i bmp_max = _mm256_set1_epi32(0xFFFF);
    for (; i + 8 <= n; i += 8) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(s + i));
        __m256i blk = _mm256_srli_epi32(v, 8);
        /* lanes of the 8 characters: below U+0100, other BMP, supplementary */
        uint32_t narrow = (uint32_t)_mm256_movemask_ps(
            _mm256_castsi256_ps(_mm256_cmpeq_epi32(blk, zero)));
        uint32_t astral = (uint32_t)_mm256_movemask_ps(
            _mm256_castsi256_ps(_mm256_cmpgt_epi32(v, bmp_max)));
        /* bytes packed: characters 0-3 in bytes 0-3 of the low lane, 4-7 in bytes 16-19 */
        __m256i lo = _mm256_and_si256(v, byte), hi = _mm256_and_si256(blk, byte);
        lo = _mm256_packus_epi32(lo, hi);      /* words: lo 0-3, hi 0-3 | lo 4-7, hi 4-7 */
        lo = _mm256_packus_epi16(lo, lo);      /* bytes 0-3 lo, 4-7 hi (per lane) */
        uint32_t in_lo = avx2_members(lo, lo_a, lo_l, bits);
        uint32_t in_blk = avx2_members(lo, blk_a, blk_l, bits);
        uint32_t m = (((in_lo & 0xF) | ((in_lo >> 12) & 0xF0)) & narrow) |
                     ((((in_blk >> 4) & 0xF) | ((in_blk >> 16) & 0xF0)) & ~narrow & ~astral);
        while (astral) { /* supplementary: the block's entry */
            int k = __builtin_ctz(astral);
            astral &= astral - 1;
            if (d->wide[s[i + k] >> 8]) m |= 1u << k;
        }
        while (m) {
            Py_ssize_t j = i + __builtin_ctz(m);
            m &= m - 1;
            WIDE_CANDIDATE(PyUnicode_4BYTE_KIND);
        }
    }
    *at = i;
    return 0;
}
#endif

/* Whether the AVX2 loops run: the CPU has AVX2 and SANITIZER_UTF8_KERNEL (which forces the
 * UTF-8 validator's kernel, validate.c) does not ask for a narrower one. */
static int
use_avx2(void)
{
    static int use = -1;
    if (use < 0) {
        use = 0;
#if defined(SCAN_AVX2)
        const char *want = getenv("SANITIZER_UTF8_KERNEL");
        int narrower = want != NULL && want[0] != '\0' && strcmp(want, "avx2") != 0 &&
                       strcmp(want, "auto") != 0;
        use = !narrower && __builtin_cpu_supports("avx2");
#endif
    }
    return use;
}

/* Characters i..stop-1 of s (n long): the first one flagged, or stop. */
#define SCAN_WIDE(NAME, TYPE, KIND)                                                     \
    static Py_ssize_t NAME(const scan_tables_t *t, const TYPE *s, Py_ssize_t n,          \
                           Py_ssize_t i, Py_ssize_t stop, run_state_t *rs)               \
    {                                                                                    \
        const unsigned char *flags = t->flags, *dirty = t->derived->dirty;               \
        for (; i < stop; i++) {                                                          \
            Py_UCS4 ch = s[i];                                                           \
            if (!dirty[ch >> 8]) continue; /* a block with no flagged class */           \
            if (ch < 0x10000 && !BMP_FLAGGED(t->derived, ch)) continue;                  \
            unsigned int c = CLASS_OF(t, ch);                                            \
            unsigned int f = flags[c];                                                   \
            if (f && flagged(t, KIND, s, n, i, c, f, rs)) return i;                      \
        }                                                                                \
        return stop;                                                                     \
    }

SCAN_WIDE(scan_ucs2_part, Py_UCS2, PyUnicode_2BYTE_KIND)
SCAN_WIDE(scan_ucs4_part, Py_UCS4, PyUnicode_4BYTE_KIND)

static Py_ssize_t
scan_ucs2(const scan_tables_t *t, const Py_UCS2 *s, Py_ssize_t n, Py_ssize_t i,
          run_state_t *rs)
{
#if defined(SCAN_AVX2)
    if (use_avx2() && n - i >= 32) {
        if (avx2_scan_ucs2(t, s, n, i, rs, &i)) return i;
    }
#endif
    return scan_ucs2_part(t, s, n, i, n, rs);
}

static Py_ssize_t
scan_ucs4(const scan_tables_t *t, const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i,
          run_state_t *rs)
{
#if defined(SCAN_AVX2)
    if (use_avx2() && n - i >= 8) {
        if (avx2_scan_ucs4(t, s, n, i, rs, &i)) return i;
    }
#endif
    return scan_ucs4_part(t, s, n, i, n, rs);
}

#if defined(__SSE2__)
typedef struct {
    __m128i one, t1, extra[4], skip[4];
    int nextra, nskip;
} vec_prefilter_t;

static void
vec_prefilter(const scan_tables_t *t, vec_prefilter_t *v)
{
    v->one = _mm_set1_epi8(1);
    v->t1 = _mm_set1_epi8((char)(t->threshold + 1));
    for (int k = 0; k < 4; k++) {
        v->extra[k] = _mm_set1_epi8((char)t->extras[k]);
        v->skip[k] = _mm_set1_epi8((char)t->skips[k]);
    }
    v->nextra = t->nextra;
    v->nskip = t->nskip;
}

/* Candidate mask of 16 bytes.  (b + 1) as a signed byte is < T + 1 exactly when b < T or
 * b >= 0x7F (0x7F..0xFE become negative, 0xFF becomes 0), for T <= 0x7E. */
static inline unsigned int
candidates16(const vec_prefilter_t *p, __m128i v)
{
    __m128i m = _mm_cmplt_epi8(_mm_add_epi8(v, p->one), p->t1);
    if (p->nskip) {
        __m128i s = _mm_or_si128(_mm_cmpeq_epi8(v, p->skip[0]), _mm_cmpeq_epi8(v, p->skip[1]));
        s = _mm_or_si128(s, _mm_or_si128(_mm_cmpeq_epi8(v, p->skip[2]),
                                          _mm_cmpeq_epi8(v, p->skip[3])));
        m = _mm_andnot_si128(s, m);
    }
    if (p->nextra) {
        __m128i e = _mm_or_si128(_mm_cmpeq_epi8(v, p->extra[0]), _mm_cmpeq_epi8(v, p->extra[1]));
        e = _mm_or_si128(e, _mm_or_si128(_mm_cmpeq_epi8(v, p->extra[2]),
                                          _mm_cmpeq_epi8(v, p->extra[3])));
        m = _mm_or_si128(m, e);
    }
    return (unsigned int)_mm_movemask_epi8(m);
}

/* Candidate mask of 64 bytes at s; when dst is not NULL the bytes are copied there. */
static inline uint64_t
candidates64(const vec_prefilter_t *p, const unsigned char *s, unsigned char *dst)
{
    __m128i a = _mm_loadu_si128((const __m128i *)s);
    __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
    __m128i d = _mm_loadu_si128((const __m128i *)(s + 48));
    if (dst != NULL) {
        _mm_storeu_si128((__m128i *)dst, a);
        _mm_storeu_si128((__m128i *)(dst + 16), b);
        _mm_storeu_si128((__m128i *)(dst + 32), c);
        _mm_storeu_si128((__m128i *)(dst + 48), d);
    }
    return (uint64_t)candidates16(p, a) | ((uint64_t)candidates16(p, b) << 16) |
           ((uint64_t)candidates16(p, c) << 32) | ((uint64_t)candidates16(p, d) << 48);
}
#endif

static Py_ssize_t
scan_ucs1(const scan_tables_t *t, const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t i,
          run_state_t *rs)
{
    const unsigned char *flags = t->flags, *blk0 = t->blk0;
#if defined(SCAN_AVX2)
    if (use_avx2()) {
        while (n - i >= 32) {
            i = avx2_find_ucs1(s, i, n, t->derived);
            if (i == n) return n;
            unsigned int c = blk0[s[i]], f = flags[c];
            if (!f) break; /* fewer than 32 left: the scalar loop below */
            if (flagged(t, PyUnicode_1BYTE_KIND, s, n, i, c, f, rs)) return i;
            i++;
        }
    }
    else
#endif
#if defined(__SSE2__)
    if (t->threshold <= 0x7E) {
        vec_prefilter_t p;
        vec_prefilter(t, &p);
        for (; i + 64 <= n; i += 64) {
            uint64_t mask = candidates64(&p, s + i, NULL);
            while (mask) {
                Py_ssize_t j = i + __builtin_ctzll(mask);
                mask &= mask - 1;
                unsigned int c = blk0[s[j]];
                unsigned int f = flags[c];
                if (f && flagged(t, PyUnicode_1BYTE_KIND, s, n, j, c, f, rs)) return j;
            }
        }
    }
#endif
    for (; i < n; i++) {
        unsigned int c = blk0[s[i]];
        unsigned int f = flags[c];
        if (f && flagged(t, PyUnicode_1BYTE_KIND, s, n, i, c, f, rs)) return i;
    }
    return n;
}

static Py_ssize_t
scan_text(const scan_tables_t *t, PyObject *text, Py_ssize_t start, Py_ssize_t max_run)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const void *data = PyUnicode_DATA(text);
    run_state_t rs = {-1, -1, max_run};
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        return scan_ucs1(t, (const Py_UCS1 *)data, n, start, &rs);
    case PyUnicode_2BYTE_KIND:
        return scan_ucs2(t, (const Py_UCS2 *)data, n, start, &rs);
    default:
        return scan_ucs4(t, (const Py_UCS4 *)data, n, start, &rs);
    }
}

/*
 * ASCII bytes with no flagged byte: the str, built in the same pass that checks it (the
 * strict decoding of ASCII is a copy).  NULL without an exception means "not that case":
 * a byte >= 0x80 or any flagged byte (rules and runs are left to the general path).
 */
static PyObject *
clean_ascii(const scan_tables_t *t, const unsigned char *s, Py_ssize_t n)
{
    PyObject *out = PyUnicode_New(n, 127);
    if (out == NULL) return NULL;
    unsigned char *dst = PyUnicode_1BYTE_DATA(out);
    const unsigned char *flags = t->flags, *blk0 = t->blk0;
    Py_ssize_t i = 0;
#if defined(SCAN_AVX2)
    if (use_avx2()) {
        i = avx2_copy_ascii(s, dst, n, t->derived);
        if (i < 0) goto other;
    }
    else
#endif
#if defined(__SSE2__)
    if (t->threshold <= 0x7E) {
        vec_prefilter_t p;
        vec_prefilter(t, &p);
        for (; i + 64 <= n; i += 64) {
            uint64_t mask = candidates64(&p, s + i, dst + i);
            while (mask) {
                unsigned int b = s[i + __builtin_ctzll(mask)];
                mask &= mask - 1;
                if (b >= 0x80 || flags[blk0[b]]) goto other;
            }
        }
    }
#endif
    for (; i < n; i++) {
        unsigned int b = s[i];
        if (b >= 0x80 || flags[blk0[b]]) goto other;
        dst[i] = (unsigned char)b;
    }
    return out;
other:
    Py_DECREF(out);
    return NULL;
}

PyObject *
speedups_scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "scan(text, stage1, stage2, tables, max_run, start) takes 6 arguments");
        return NULL;
    }
    if (!PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "scan() text must be str");
        return NULL;
    }
    scan_tables_t t;
    if (load_scan_tables(args[1], args[2], args[3], &t) < 0) return NULL;
    Py_ssize_t max_run = PyLong_AsSsize_t(args[4]);
    if (max_run == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t start = PyLong_AsSsize_t(args[5]);
    if (start == -1 && PyErr_Occurred()) return NULL;
    if (READY(args[0]) < 0) return NULL;
    if (start < 0 || start > PyUnicode_GET_LENGTH(args[0])) {
        PyErr_SetString(PyExc_ValueError, "start out of range");
        return NULL;
    }
    return PyLong_FromSsize_t(scan_text(&t, args[0], start, max_run));
}

/* The text clean() and clean_edit() judge, from their data argument: 1 and *text (a new
 * reference) to scan; 0 and *text already the answer (clean ASCII bytes as a str, or None
 * for bytes that do not decode and for other types: the caller's full path decides); -1
 * on error. */
static int
input_text(const scan_tables_t *t, PyObject *data, PyObject **text)
{
    if (PyBytes_Check(data)) {
        const unsigned char *s = (const unsigned char *)PyBytes_AS_STRING(data);
        Py_ssize_t n = PyBytes_GET_SIZE(data);
        *text = clean_ascii(t, s, n);
        if (*text != NULL) return 0;
        if (PyErr_Occurred()) return -1;
        *text = PyUnicode_DecodeUTF8((const char *)s, n, NULL);
        if (*text != NULL) return 1;
        if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) return -1;
        PyErr_Clear();
    } else if (PyUnicode_Check(data)) {
        if (READY(data) < 0) return -1;
        Py_INCREF(data);
        *text = data;
        return 1;
    }
    Py_INCREF(Py_None);
    *text = Py_None;
    return 0;
}

PyObject *
speedups_clean(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "clean(data, stage1, stage2, tables, max_run) takes 5 arguments");
        return NULL;
    }
    scan_tables_t t;
    if (load_scan_tables(args[1], args[2], args[3], &t) < 0) return NULL;
    Py_ssize_t max_run = PyLong_AsSsize_t(args[4]);
    if (max_run == -1 && PyErr_Occurred()) return NULL;
    PyObject *text;
    int to_scan = input_text(&t, args[0], &text);
    if (to_scan <= 0) return to_scan < 0 ? NULL : text;
    if (scan_text(&t, text, 0, max_run) != PyUnicode_GET_LENGTH(text)) {
        Py_DECREF(text);
        Py_RETURN_NONE;
    }
    return text;
}

/* ---- sanitize's edits: strip or replace single characters in one pass ----------------- */

static Py_ssize_t
scan_kind(const scan_tables_t *t, int kind, const void *data, Py_ssize_t n, Py_ssize_t i,
          run_state_t *rs)
{
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        return scan_ucs1(t, (const Py_UCS1 *)data, n, i, rs);
    case PyUnicode_2BYTE_KIND:
        return scan_ucs2(t, (const Py_UCS2 *)data, n, i, rs);
    default:
        return scan_ucs4(t, (const Py_UCS4 *)data, n, i, rs);
    }
}

/* The OR of the code points of a str's data (all below 2**k iff the OR is: so it picks
 * the same kind as their maximum), stopping early once it reaches `stop`. */
#define OR_OF(TYPE)                                                                      \
    for (Py_ssize_t k = 0; k < n && acc < stop; k += 256) {                               \
        Py_ssize_t end = n - k < 256 ? n : k + 256;                                      \
        for (Py_ssize_t j = k; j < end; j++) acc |= ((const TYPE *)p)[j];                \
    }

static Py_UCS4
or_of(int kind, const void *p, Py_ssize_t n, Py_UCS4 stop)
{
    Py_UCS4 acc = 0;
    if (kind == PyUnicode_1BYTE_KIND) {
        OR_OF(Py_UCS1)
    } else if (kind == PyUnicode_2BYTE_KIND) {
        OR_OF(Py_UCS2)
    } else {
        OR_OF(Py_UCS4)
    }
    return acc;
}

/* The first n characters of `wide` (of `kind`) as a new str of the narrower kind that
 * `acc` (their OR) needs; `wide` is released. */
static PyObject *
narrowed(PyObject *wide, int kind, Py_ssize_t n, Py_UCS4 acc)
{
    PyObject *out = PyUnicode_New(n, acc);
    if (out != NULL) {
        const void *src = PyUnicode_DATA(wide);
        void *dst = PyUnicode_DATA(out);
        int to = PyUnicode_KIND(out);
        if (to == kind) {
            memcpy(dst, src, (size_t)n * kind);
        } else if (kind == PyUnicode_2BYTE_KIND) {
            for (Py_ssize_t j = 0; j < n; j++) ((Py_UCS1 *)dst)[j] = (Py_UCS1)((const Py_UCS2 *)src)[j];
        } else if (to == PyUnicode_2BYTE_KIND) {
            for (Py_ssize_t j = 0; j < n; j++) ((Py_UCS2 *)dst)[j] = (Py_UCS2)((const Py_UCS4 *)src)[j];
        } else {
            for (Py_ssize_t j = 0; j < n; j++) ((Py_UCS1 *)dst)[j] = (Py_UCS1)((const Py_UCS4 *)src)[j];
        }
    }
    Py_DECREF(wide);
    return out;
}

#define EDIT_STRIP 1
#define EDIT_REPLACE 2

/*
 * text with the flagged characters from `first` on removed (edits[class] 1) or replaced by
 * U+FFFD (2; adjacent replaced characters share one, as the engine coalesces its spans),
 * or NULL without an exception when a flagged character is anything else, or when an
 * edit could change how a neighbour is judged: a neighbour with a sequence rule (its
 * exemption may be earned by this character: the engine re-judges it) or, for a strip,
 * a combining mark just before (the output could join two runs of marks).  The tables
 * give edits only to characters that are no mark, have no rule and no normal-form
 * sensitivity, so the output is in the form the input was (UAX #15 §9: U+FFFD is a
 * Quick_Check=Yes starter).  The output is written straight into a str of the input's
 * kind; when stripping removed characters that only that kind holds, and none is left,
 * it is copied into the narrower kind a str must have (`narrowed`).
 */
static PyObject *
edit_text(const scan_tables_t *t, const unsigned char *edits, PyObject *text, Py_ssize_t i,
          run_state_t *rs)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const unsigned char *flags = t->flags;
    /* the smallest code point only this kind holds (ASCII is a kind of its own) */
    Py_UCS4 wide = kind == PyUnicode_1BYTE_KIND ? 0x80 : kind == PyUnicode_2BYTE_KIND ? 0x100
                                                                                     : 0x10000;
    PyObject *result = PyUnicode_New(n, PyUnicode_MAX_CHAR_VALUE(text));
    if (result == NULL) return NULL;
    char *out = (char *)PyUnicode_DATA(result);
    Py_ssize_t pos = 0, olen = 0, replaced_end = -1;
    int removed_wide = 0;
    while (i < n) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        unsigned int c = CLASS_OF(t, ch);
        unsigned int e = edits[c];
        if (e == 0 || e > EDIT_REPLACE || (flags[c] & 2) || t->rule[c] != 0) goto bail;
        if (e == EDIT_REPLACE && kind == PyUnicode_1BYTE_KIND) goto bail; /* U+FFFD won't fit */
        if (i > 0) {
            unsigned int p = CLASS_OF(t, PyUnicode_READ(kind, data, i - 1));
            if (((flags[p] & 1) && t->rule[p] != 0) || (e == EDIT_STRIP && (flags[p] & 2)))
                goto bail;
        }
        if (i + 1 < n) {
            unsigned int q = CLASS_OF(t, PyUnicode_READ(kind, data, i + 1));
            if ((flags[q] & 1) && t->rule[q] != 0) goto bail;
        }
        removed_wide |= ch >= wide;
        memcpy(out + olen * kind, (const char *)data + pos * kind, (size_t)(i - pos) * kind);
        olen += i - pos;
        if (e == EDIT_REPLACE) {
            if (replaced_end != i) {
                PyUnicode_WRITE(kind, out, olen, 0xFFFD);
                olen++;
            }
            replaced_end = i + 1;
        }
        pos = i + 1;
        i = scan_kind(t, kind, data, n, pos, rs);
    }
    memcpy(out + olen * kind, (const char *)data + pos * kind, (size_t)(n - pos) * kind);
    olen += n - pos;
    if (removed_wide && !(kind == PyUnicode_1BYTE_KIND && PyUnicode_IS_ASCII(text))) {
        Py_UCS4 acc = or_of(kind, out, olen, wide);
        if (acc < wide) return narrowed(result, kind, olen, acc);
    }
    if (olen < n && PyUnicode_Resize(&result, olen) < 0) return NULL;
    return result;
bail:
    Py_DECREF(result);
    return NULL;
}

PyObject *
speedups_clean_edit(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "clean_edit(data, stage1, stage2, tables, max_run, edits) takes 6 "
                        "arguments");
        return NULL;
    }
    scan_tables_t t;
    if (load_scan_tables(args[1], args[2], args[3], &t) < 0) return NULL;
    Py_ssize_t max_run = PyLong_AsSsize_t(args[4]);
    if (max_run == -1 && PyErr_Occurred()) return NULL;
    if (!PyBytes_CheckExact(args[5]) || PyBytes_GET_SIZE(args[5]) != 256) {
        PyErr_SetString(PyExc_ValueError, "malformed edits table");
        return NULL;
    }
    const unsigned char *edits = (const unsigned char *)PyBytes_AS_STRING(args[5]);
    PyObject *text;
    int to_scan = input_text(&t, args[0], &text);
    if (to_scan <= 0) return to_scan < 0 ? NULL : text;
    run_state_t rs = {-1, -1, max_run};
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t i = scan_kind(&t, PyUnicode_KIND(text), PyUnicode_DATA(text), n, 0, &rs);
    if (i == n) return text;
    PyObject *edited = edit_text(&t, edits, text, i, &rs);
    Py_DECREF(text);
    if (edited == NULL && !PyErr_Occurred()) Py_RETURN_NONE;
    return edited;
}
