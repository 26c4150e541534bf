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
 * shuffles, a bit per BMP code point, and a byte per block (two blocks common in text,
 * U+20xx and U+30xx, by code point; the supplementary planes by super-blocks of 16
 * blocks).  Clean text then costs a few vector instructions per 32 characters.
 *
 * clean_edit on bytes edits the str it has just decoded in place (edit_text): the AVX2
 * loops copy each block they pass over behind the scan and edit without leaving the loop,
 * so text with edits costs one pass and no second allocation (issue #14).  An edit with
 * no candidate beside it in its block takes one table lookup (edit_actions) and no
 * neighbour check.
 *
 * Bytes are not decoded by CPython's codec when the AVX2 loops run (decode_or_none): the
 * SIMD validator proves them well-formed, then they are decoded here with no checks left
 * to make (16 or 8 bytes at a time).  Ill-formed bytes are answered None without a
 * UnicodeDecodeError raised and caught.
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
    /* Two BMP blocks common in text that hold flagged characters, U+20xx (General
     * Punctuation: quotes, dashes beside ZWSP and the bidi controls) and U+30xx (CJK
     * punctuation, kana beside their combining marks), are tested exactly, by low byte
     * like U+00xx, and left out of blk_*; sb_*: the supplementary super-blocks (16
     * blocks, SUPER_BLOCK) holding a flagged class, not counting the last block of a
     * plane (noncharacters U+xFFFE..xFFFF: its lanes are tested by value). */
    unsigned char hot1_ascii[16], hot1_latin[16], hot2_ascii[16], hot2_latin[16];
    unsigned char sb_ascii[16], sb_latin[16];
    /* By class, for sanitize's edits: NB_RULE (flagged with a sequence rule: no neighbour
     * of it is edited), NB_MARK (a mark: the character after it is not stripped), NB_SELF
     * (a rule or a mark: not edited itself). */
    unsigned char nb[256];
} derived_t;

#define NB_RULE 1
#define NB_MARK 2
#define NB_SELF 4

#define HOT_BLOCK_1 0x20
#define HOT_BLOCK_2 0x30
/* The super-block of the block `mid` of plane `plane` (1..16; plane 16 shares 15's). */
#define SUPER_BLOCK(plane, mid) ((((plane) < 15 ? (plane) : 15) << 4) | ((mid) >> 4))

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

/* Byte b in (on > 0) or out of (on < 0) a set held as nibble bitmaps (bit b >> 4 of
 * ascii[b & 15] for b < 0x80, bit (b >> 4) - 8 of latin[b & 15] above). */
static void
nibble_set(unsigned char *ascii, unsigned char *latin, int b, int on)
{
    unsigned char *row = b < 0x80 ? &ascii[b & 15] : &latin[b & 15];
    unsigned char bit = (unsigned char)(1u << ((b >> 4) & 7));
    if (on > 0) *row |= bit;
    if (on < 0) *row &= (unsigned char)~bit;
}

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
    memset(d->hot1_ascii, 0, 16);
    memset(d->hot1_latin, 0, 16);
    memset(d->hot2_ascii, 0, 16);
    memset(d->hot2_latin, 0, 16);
    for (int b = 0; b < 256; b++) {
        nibble_set(d->hot1_ascii, d->hot1_latin, b, BMP_FLAGGED(d, (HOT_BLOCK_1 << 8) | b));
        nibble_set(d->hot2_ascii, d->hot2_latin, b, BMP_FLAGGED(d, (HOT_BLOCK_2 << 8) | b));
    }
    nibble_set(d->blk_ascii, d->blk_latin, HOT_BLOCK_1, -1);
    nibble_set(d->blk_ascii, d->blk_latin, HOT_BLOCK_2, -1);
    memset(d->sb_ascii, 0, 16);
    memset(d->sb_latin, 0, 16);
    for (int k = 0x100; k < STAGE1_ENTRIES; k++) {
        if (d->dirty[k] && (k & 0xFF) != 0xFF)
            nibble_set(d->sb_ascii, d->sb_latin, SUPER_BLOCK(k >> 8, k & 0xFF), 1);
    }
    for (int c = 0; c < 256; c++) {
        unsigned int f = t->flags[c], r = t->rule[c];
        d->nb[c] = (unsigned char)(((f & 1) && r ? NB_RULE : 0) | (f & 2 ? NB_MARK : 0) |
                                   (r || (f & 2) ? NB_SELF : 0));
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

/* Where sanitize's edits write (edit_text): the output's characters (possibly the input's
 * own buffer, written behind the scan) and how many are written. */
typedef struct {
    char *at;
    Py_ssize_t len;
} out_t;

/* Characters start..stop-1 of s (of `kind` bytes each) appended to out (if not NULL):
 * memmove, as out may be s itself, behind it.  Returns stop. */
static inline Py_ssize_t
out_prefix(out_t *out, const void *s, Py_ssize_t start, Py_ssize_t stop, int kind)
{
    if (out != NULL) {
        memmove(out->at + out->len * kind, (const char *)s + start * kind,
                (size_t)(stop - start) * kind);
        out->len += stop - start;
    }
    return stop;
}

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* A flagged character at i (flags f, class c): 1 when the scan stops there.  Inlined,
 * with a constant kind, in the loops (the rule checks of emoji sequences are common). */
static ALWAYS_INLINE int
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

/* The first flagged byte of s[i:n] (exact), or where fewer than 32 bytes remain.  With
 * an output (out not NULL: sanitize's edits) the bytes before it are copied to it. */
SCAN_AVX2_TARGET static Py_ssize_t
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

/* The sets the wide-string loops test, in registers, as nibble bitmaps (derived_t):
 * characters below U+0100 (lo_*), in the two hot blocks (h1_*, h2_*), the other BMP
 * blocks (blk_*) and the supplementary super-blocks (sb_*). */
typedef struct {
    __m256i lo_a, lo_l, h1_a, h1_l, h2_a, h2_l, blk_a, blk_l, sb_a, sb_l, bits;
} avx2_sets_t;

SCAN_AVX2_TARGET static inline avx2_sets_t
avx2_sets(const derived_t *d)
{
    avx2_sets_t v = {avx2_bcast(d->lo_ascii),   avx2_bcast(d->lo_latin),
                     avx2_bcast(d->hot1_ascii), avx2_bcast(d->hot1_latin),
                     avx2_bcast(d->hot2_ascii), avx2_bcast(d->hot2_latin),
                     avx2_bcast(d->blk_ascii),  avx2_bcast(d->blk_latin),
                     avx2_bcast(d->sb_ascii),   avx2_bcast(d->sb_latin),
                     avx2_bcast(ROW_BITS)};
    return v;
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
    __m256i in_lo = _mm256_or_si256(
        avx2_in_block(lo, hi, 0, v->lo_a, v->lo_l),
        _mm256_or_si256(avx2_in_block(lo, hi, HOT_BLOCK_1, v->h1_a, v->h1_l),
                        avx2_in_block(lo, hi, HOT_BLOCK_2, v->h2_a, v->h2_l)));
    __m256i hit = _mm256_or_si256(
        _mm256_and_si256(in_lo, avx2_bitsel(lo, v->bits)),
        _mm256_and_si256(avx2_rows(hi, v->blk_a, v->blk_l), avx2_bitsel(hi, v->bits)));
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

/* UCS2 characters from i on, 32 at a time (candidates: avx2_candidates_ucs2).  1 with
 * *at = the first flagged index, or 0 with *at = where fewer than 32 remain. */
SCAN_AVX2_TARGET static int
avx2_scan_ucs2(const scan_tables_t *t, const Py_UCS2 *s, Py_ssize_t n, Py_ssize_t i,
               run_state_t *rs, Py_ssize_t *at)
{
    const derived_t *d = t->derived;
    const avx2_sets_t sets = avx2_sets(d);
    for (; i + 32 <= n; i += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + i + 16));
        uint32_t m = avx2_candidates_ucs2(a, b, &sets);
        while (m) {
            Py_ssize_t j = i + __builtin_ctz(m);
            m &= m - 1;
            WIDE_CANDIDATE(PyUnicode_2BYTE_KIND);
        }
    }
    *at = i;
    return 0;
}

/* The same for UCS4, 32 at a time (candidates: avx2_candidates_ucs4). */
SCAN_AVX2_TARGET static int
avx2_scan_ucs4(const scan_tables_t *t, const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i,
               run_state_t *rs, Py_ssize_t *at)
{
    const derived_t *d = t->derived;
    const avx2_sets_t sets = avx2_sets(d);
    for (; i + 32 <= n; i += 32) {
        __m256i v[4];
        avx2_load_ucs4(v, s + i);
        uint32_t m = avx2_candidates_ucs4(v, s + i, &sets, d);
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
    if (use_avx2() && n - i >= 32) {
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
            i = avx2_find_ucs1(s, i, n, t->derived, NULL);
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
    /* Most text that is not clean ASCII says so early: look before allocating a large
     * str (one allocated and freed for nothing costs the page faults of the next one). */
    const unsigned char *flags = t->flags, *blk0 = t->blk0;
    for (Py_ssize_t k = 0; n > 4096 && k < 256; k++) {
        if (s[k] >= 0x80 || flags[blk0[s[k]]]) return NULL;
    }
    PyObject *out = PyUnicode_New(n, 127);
    if (out == NULL) return NULL;
    unsigned char *dst = PyUnicode_1BYTE_DATA(out);
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

/* ---- bytes proven valid, decoded (issue #14) ------------------------------------------
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
        if (b0 < 0x80) {                                                                 \
            cp = b0;                                                                     \
            i += 1;                                                                      \
        } else if (b0 < 0xE0) {                                                          \
            cp = ((b0 & 0x1Fu) << 6) | (s[i + 1] & 0x3Fu);                               \
            i += 2;                                                                      \
        } else if (b0 < 0xF0) {                                                          \
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
        i += 16 + (s[i + 15] >= 0xE0 ? 2 : s[i + 15] >= 0xC0 ? 1 : s[i + 14] >= 0xE0);
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
    const __m256i c4 = _mm256_set1_epi8((char)0xC4);
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
        w |= s[i] >= 0xC4;
        cont += (s[i] & 0xC0) == 0x80;
    }
    *maxchar = hi >= 0xF0 ? 0x10FFFF : w ? 0xFFFF : hi >= 0x80 ? 0xFF : 0x7F;
    return n - cont;
}
#endif

/* s[0:n] decoded (strict): a new str; None (a new reference) when the bytes are not
 * valid UTF-8, without raising and catching CPython's UnicodeDecodeError; NULL on error. */
static PyObject *
decode_or_none(const unsigned char *s, Py_ssize_t n)
{
    if (speedups_valid_prefix_of(s, n) != n) Py_RETURN_NONE;
#if defined(SCAN_AVX2)
    if (use_avx2()) { /* fewer instructions than CPython's decoder from 16 bytes on */
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
        *text = decode_or_none(s, n);
        return *text == NULL ? -1 : *text != Py_None;
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

#if defined(SCAN_AVX2)
/* or_of for UCS2 (stop a power of two), 16 characters an instruction. */
SCAN_AVX2_TARGET static Py_UCS4
avx2_or_ucs2(const Py_UCS2 *p, Py_ssize_t n, Py_UCS4 stop)
{
    const __m256i high = _mm256_set1_epi16((short)(uint16_t)~(stop - 1));
    __m256i acc = _mm256_setzero_si256();
    Py_ssize_t k = 0;
    for (; k + 256 <= n && _mm256_testz_si256(acc, high); k += 256) {
        for (int j = 0; j < 256; j += 16)
            acc = _mm256_or_si256(acc, _mm256_loadu_si256((const __m256i *)(p + k + j)));
    }
    uint16_t lanes[16];
    _mm256_storeu_si256((__m256i *)lanes, acc);
    Py_UCS4 r = 0;
    for (int j = 0; j < 16; j++) r |= lanes[j];
    for (; k < n && r < stop; k++) r |= p[k];
    return r;
}

/* UCS2 characters, all below U+0100, to UCS1. */
SCAN_AVX2_TARGET static void
avx2_ucs2_to_ucs1(const Py_UCS2 *src, Py_UCS1 *dst, Py_ssize_t n)
{
    Py_ssize_t j = 0;
    for (; j + 32 <= n; j += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(src + j));
        __m256i b = _mm256_loadu_si256((const __m256i *)(src + j + 16));
        _mm256_storeu_si256((__m256i *)(dst + j),
                            _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8));
    }
    for (; j < n; j++) dst[j] = (Py_UCS1)src[j];
}
#endif

static Py_UCS4
or_of(int kind, const void *p, Py_ssize_t n, Py_UCS4 stop)
{
    Py_UCS4 acc = 0;
#if defined(SCAN_AVX2)
    if (kind == PyUnicode_2BYTE_KIND && use_avx2())
        return avx2_or_ucs2((const Py_UCS2 *)p, n, stop);
#endif
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
#if defined(SCAN_AVX2)
            if (use_avx2()) {
                avx2_ucs2_to_ucs1((const Py_UCS2 *)src, (Py_UCS1 *)dst, n);
                goto done;
            }
#endif
            for (Py_ssize_t j = 0; j < n; j++) ((Py_UCS1 *)dst)[j] = (Py_UCS1)((const Py_UCS2 *)src)[j];
        } else if (to == PyUnicode_2BYTE_KIND) {
            for (Py_ssize_t j = 0; j < n; j++) ((Py_UCS2 *)dst)[j] = (Py_UCS2)((const Py_UCS4 *)src)[j];
        } else {
            for (Py_ssize_t j = 0; j < n; j++) ((Py_UCS1 *)dst)[j] = (Py_UCS1)((const Py_UCS4 *)src)[j];
        }
    }
#if defined(SCAN_AVX2)
done:
#endif
    Py_DECREF(wide);
    return out;
}

#define EDIT_STRIP 1
#define EDIT_REPLACE 2

/* Scans from i like scan_kind, and appends the characters before the stop to out. */
static Py_ssize_t
copy_scan(const scan_tables_t *t, int kind, const void *data, Py_ssize_t n, Py_ssize_t i,
          run_state_t *rs, out_t *out)
{
#if defined(SCAN_AVX2)
    if (use_avx2()) { /* the vector loops copy what they pass over: one read of the text */
        if (kind == PyUnicode_1BYTE_KIND) {
            const Py_UCS1 *s = (const Py_UCS1 *)data;
            while (n - i >= 32) {
                i = avx2_find_ucs1(s, i, n, t->derived, out);
                if (i == n) return n;
                unsigned int c = t->blk0[s[i]], f = t->flags[c];
                if (!f) break; /* fewer than 32 left: scan_kind below */
                if (flagged(t, PyUnicode_1BYTE_KIND, s, n, i, c, f, rs)) return i;
                out->at[out->len++] = (char)s[i++];
            }
        } /* wide strs: the fused loops of edit_text (avx2_edit_ucs2, _ucs4) */
    }
#endif
    return out_prefix(out, data, i, scan_kind(t, kind, data, n, i, rs), kind);
}

/* An edit pass (edit_text): the tables edit_one reads, and what is known of the edits so
 * far.  The vector loops work on a copy of their own (a local: the compiler keeps it in
 * registers, though the output is written through a char pointer). */
typedef struct {
    const uint16_t *stage1;
    const unsigned char *stage2, *flags, *nb, *edits;
    const unsigned char *act; /* by class: ACT_* (edit_actions) */
    const derived_t *d;
    Py_ssize_t n, replaced_end, edited_end; /* ends of the last replaced / edited character */
    Py_UCS4 wide;                            /* below: fits the next narrower kind */
    int removed_wide;                        /* an edited character did not */
} edits_t;

/* The class of character k of s for the edit checks' neighbours: 0 (no flags, so no
 * NB_* bit) for a BMP character the bitmap does not flag, saving two lookups. */
#define NEIGHBOUR_CLASS(es, kind, s, k)                                                  \
    ((nch = PyUnicode_READ(kind, s, k)) < 0x10000 && !BMP_FLAGGED((es)->d, nch)          \
         ? 0u                                                                            \
         : (es)->nb[CLASS_OF(es, nch)])

/* The scan stopped at i, at ch of class c (the characters before are in out): edit it,
 * or -1 when the engine must decide (see edit_text).  Inlined with a constant kind in
 * the vector loops. */
static ALWAYS_INLINE int
edit_one(edits_t *es, int kind, const void *s, Py_ssize_t i, Py_UCS4 ch, unsigned int c,
         char *out, Py_ssize_t *olen)
{
    unsigned int e = es->edits[c];
    Py_UCS4 nch;
    if (e - 1 > EDIT_REPLACE - 1 || (es->nb[c] & NB_SELF)) return -1; /* e not 1 or 2 */
    if (e == EDIT_REPLACE && kind == PyUnicode_1BYTE_KIND) return -1; /* U+FFFD won't fit */
    /* The character before: an edited one (no rule, no mark: nothing to check) may have
     * been overwritten in place, any other is the input's. */
    if (i > 0 && i != es->edited_end &&
        (NEIGHBOUR_CLASS(es, kind, s, i - 1) & (e == EDIT_STRIP ? NB_RULE | NB_MARK : NB_RULE)))
        return -1;
    if (i + 1 < es->n && (NEIGHBOUR_CLASS(es, kind, s, i + 1) & NB_RULE)) return -1;
    es->removed_wide |= ch >= es->wide;
    if (e == EDIT_REPLACE) {
        if (es->replaced_end != i) {
            PyUnicode_WRITE(kind, out, *olen, 0xFFFD);
            ++*olen;
        }
        es->replaced_end = i + 1;
    }
    es->edited_end = i + 1;
    return 0;
}

/* What the vector edit loops do with a flagged character, by class, in one lookup:
 * ACT_CLEAN: not flagged (a candidate for nothing); EDIT_STRIP / EDIT_REPLACE: an edit
 * (flagged, no rule, not a mark) that needs no neighbour check when neither neighbour is
 * a candidate (a character with a rule or a mark is flagged, so it is one); ACT_OTHER:
 * anything else, judged as before (flagged(), edit_one). */
#define ACT_CLEAN 0
#define ACT_OTHER 3

/* The ACT_* table of a policy's tables and an edits table, kept for the last pair (both
 * held, so neither address can be reused while it is): most calls use one policy. */
static PyObject *act_tables = NULL, *act_edits = NULL;
static unsigned char act_table[256];

static const unsigned char *
edit_actions(const scan_tables_t *t, PyObject *tables, PyObject *edits)
{
    if (tables != act_tables || edits != act_edits) {
        const unsigned char *e = (const unsigned char *)PyBytes_AS_STRING(edits);
        for (int c = 0; c < 256; c++) {
            unsigned int f = t->flags[c];
            int editable = (f & 1) && !(t->derived->nb[c] & NB_SELF) &&
                           (e[c] == EDIT_STRIP || e[c] == EDIT_REPLACE);
            act_table[c] = (unsigned char)(!f ? ACT_CLEAN : editable ? e[c] : ACT_OTHER);
        }
        Py_INCREF(tables);
        Py_XSETREF(act_tables, tables);
        Py_INCREF(edits);
        Py_XSETREF(act_edits, edits);
    }
    return act_table;
}

#if defined(SCAN_AVX2)
/* len (<= 128) bytes from src to dst <= src: every load before any store, so the copy
 * is right when the two overlap (in place), and nothing past dst + len is written. */
SCAN_AVX2_TARGET static ALWAYS_INLINE void
copy_small(char *dst, const char *src, size_t len)
{
    if (len >= 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)src);
        __m256i b = _mm256_loadu_si256((const __m256i *)(src + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(src + len - 64));
        __m256i d = _mm256_loadu_si256((const __m256i *)(src + len - 32));
        _mm256_storeu_si256((__m256i *)dst, a);
        _mm256_storeu_si256((__m256i *)(dst + 32), b);
        _mm256_storeu_si256((__m256i *)(dst + len - 64), c);
        _mm256_storeu_si256((__m256i *)(dst + len - 32), d);
    } else if (len >= 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)src);
        __m256i b = _mm256_loadu_si256((const __m256i *)(src + len - 32));
        _mm256_storeu_si256((__m256i *)dst, a);
        _mm256_storeu_si256((__m256i *)(dst + len - 32), b);
    } else if (len >= 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)src);
        __m128i b = _mm_loadu_si128((const __m128i *)(src + len - 16));
        _mm_storeu_si128((__m128i *)dst, a);
        _mm_storeu_si128((__m128i *)(dst + len - 16), b);
    } else if (len >= 8) {
        uint64_t a, b;
        memcpy(&a, src, 8);
        memcpy(&b, src + len - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + len - 8, &b, 8);
    } else if (len >= 4) {
        uint32_t a, b;
        memcpy(&a, src, 4);
        memcpy(&b, src + len - 4, 4);
        memcpy(dst, &a, 4);
        memcpy(dst + len - 4, &b, 4);
    } else if (len >= 2) {
        uint16_t a, b;
        memcpy(&a, src, 2);
        memcpy(&b, src + len - 2, 2);
        memcpy(dst, &a, 2);
        memcpy(dst + len - 2, &b, 2);
    } else if (len == 1) {
        *dst = *src;
    }
}

/* The edit loop over whole vector blocks of a wide str from *at on (the characters before
 * are in out): a block with no stop is stored whole; in one with stops, the pieces between
 * them are copied (copy_small: in place, nothing the scan has yet to read is written) and
 * each stop edited (edit_one) there, without leaving the loop.  0 with *at = where fewer
 * than a block remain (all before it in out), or -1 when the engine must decide. */
#define AVX2_EDIT_LOOP(KIND, STEP, CANDIDATES, STORE)                                       \
    const derived_t *d = t->derived;                                                    \
    const avx2_sets_t sets = avx2_sets(d);                                              \
    edits_t e = *es;                                                                    \
    Py_ssize_t i = *at, n = e.n, olen = out->len;                                       \
    char *o = out->at;                                                                  \
    for (; i + STEP <= n; i += STEP) {                                                  \
        uint32_t m = CANDIDATES;                                                        \
        if (!m) { /* no candidate: the block whole */                                   \
            STORE;                                                                      \
            olen += STEP;                                                               \
            continue;                                                                   \
        }                                                                               \
        /* bit k: character k has a candidate beside it, or is at an edge of the block \
         * (its neighbour outside is not in m): its neighbours are checked one by one */ \
        uint32_t near = (m << 1) | (m >> 1) | 1u | (1u << (STEP - 1));                  \
        Py_ssize_t from = i; /* the block's first character not yet in out */           \
        while (m) {                                                                     \
            int k = __builtin_ctz(m);                                                   \
            Py_ssize_t j = i + k;                                                       \
            m &= m - 1;                                                                 \
            Py_UCS4 ch = s[j];                                                          \
            unsigned int c = CLASS_OF(&e, ch), a = e.act[c];                            \
            if (a == ACT_CLEAN) continue;                                               \
            if (a != ACT_OTHER && !((near >> k) & 1)) {                                 \
                /* an edit between two characters no policy flags (so the one before   \
                 * was not replaced: a U+FFFD of its own) */                            \
                copy_small(o + olen * KIND, (const char *)(s + from),                   \
                           (size_t)(j - from) * KIND);                                  \
                olen += j - from;                                                       \
                e.removed_wide |= ch >= e.wide;                                         \
                if (a == EDIT_REPLACE) {                                                \
                    PyUnicode_WRITE(KIND, o, olen, 0xFFFD);                             \
                    olen++;                                                             \
                    e.replaced_end = j + 1;                                             \
                }                                                                       \
                e.edited_end = j + 1;                                                   \
                from = j + 1;                                                           \
                continue;                                                               \
            }                                                                           \
            unsigned int f = e.flags[c];                                                \
            /* a stop: flagged without a rule (what edits have), else as flagged() says */ \
            if (!((f & 1) && !(e.nb[c] & NB_SELF)) && !flagged(t, KIND, s, n, j, c, f, rs)) \
                continue;                                                               \
            copy_small(o + olen * KIND, (const char *)(s + from), (size_t)(j - from) * KIND); \
            olen += j - from;                                                           \
            if (edit_one(&e, KIND, s, j, ch, c, o, &olen) < 0) return -1;               \
            from = j + 1;                                                               \
        }                                                                               \
        if (from == i) { /* no stop: the block whole */                                \
            STORE;                                                                      \
            olen += STEP;                                                               \
        } else {                                                                        \
            copy_small(o + olen * KIND, (const char *)(s + from),                       \
                       (size_t)(i + STEP - from) * KIND);                               \
            olen += i + STEP - from;                                                    \
        }                                                                               \
    }                                                                                   \
    out->len = olen;                                                                    \
    *es = e;                                                                            \
    *at = i;                                                                            \
    return 0;

SCAN_AVX2_TARGET static int
avx2_edit_ucs2(const scan_tables_t *t, run_state_t *rs, edits_t *es, const void *data,
               Py_ssize_t *at, out_t *out)
{
    const Py_UCS2 *s = (const Py_UCS2 *)data;
    __m256i a, b;
    AVX2_EDIT_LOOP(PyUnicode_2BYTE_KIND, 32,
                   (a = _mm256_loadu_si256((const __m256i *)(s + i)),
                    b = _mm256_loadu_si256((const __m256i *)(s + i + 16)),
                    avx2_candidates_ucs2(a, b, &sets)),
                   (_mm256_storeu_si256((__m256i *)(o + olen * 2), a),
                    _mm256_storeu_si256((__m256i *)(o + olen * 2 + 32), b)))
}

SCAN_AVX2_TARGET static int
avx2_edit_ucs4(const scan_tables_t *t, run_state_t *rs, edits_t *es, const void *data,
               Py_ssize_t *at, out_t *out)
{
    const Py_UCS4 *s = (const Py_UCS4 *)data;
    __m256i v[4];
    AVX2_EDIT_LOOP(PyUnicode_4BYTE_KIND, 32,
                   (avx2_load_ucs4(v, s + i), avx2_candidates_ucs4(v, s + i, &sets, d)),
                   for (int k = 0; k < 4; k++)
                       _mm256_storeu_si256((__m256i *)(o + olen * 4 + 32 * k), v[k]))
}
#endif

/*
 * text with the flagged characters from `i` on removed (edits[class] 1) or replaced by
 * U+FFFD (2; adjacent replaced characters share one, as the engine coalesces its spans),
 * or NULL without an exception when a flagged character is anything else, or when an
 * edit could change how a neighbour is judged: a neighbour with a sequence rule (its
 * exemption may be earned by this character: the engine re-judges it) or, for a strip,
 * a combining mark just before (the output could join two runs of marks).  The tables
 * give edits only to characters that are no mark, have no rule and no normal-form
 * sensitivity, so the output is in the form the input was (UAX #15 §9: U+FFFD is a
 * Quick_Check=Yes starter).
 *
 * One pass: the scan copies the characters it passes over to the output, which is a new
 * str of the input's kind or, when `in_place` (text is a str only this call holds: just
 * decoded from bytes), text itself.  In place the output is written behind the scan (it
 * never grows: a strip drops a character, a replacement writes one for one or more), so
 * what the scan reads ahead is still the input's; behind it, only the character before i
 * may be overwritten, and only when that one was replaced (a vector block is stored only
 * when all of it is copied).  When stripping removed characters that only that kind
 * holds, and none is left, the output is copied into the narrower kind a str must have
 * (`narrowed`).  When `in_place`, the caller's reference to text is taken over.
 */
static PyObject *
edit_text(const scan_tables_t *t, PyObject *tables, PyObject *edits_obj, PyObject *text,
          Py_ssize_t i, run_state_t *rs, int in_place)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    PyObject *result;
    if (in_place) {
        result = text; /* the caller's reference, which this call takes over */
    } else {
        result = PyUnicode_New(n, PyUnicode_MAX_CHAR_VALUE(text));
        if (result == NULL) return NULL;
        memcpy(PyUnicode_DATA(result), data, (size_t)i * kind);
    }
    out_t out = {(char *)PyUnicode_DATA(result), i};
    /* the smallest code point only this kind holds (ASCII is a kind of its own) */
    Py_UCS4 wide = kind == PyUnicode_1BYTE_KIND ? 0x80 : kind == PyUnicode_2BYTE_KIND ? 0x100
                                                                                     : 0x10000;
    const unsigned char *edits = (const unsigned char *)PyBytes_AS_STRING(edits_obj);
    edits_t es = {t->stage1, t->stage2, t->flags, t->derived->nb, edits,
                  edit_actions(t, tables, edits_obj), t->derived, n, -1, -1, wide, 0};
    Py_UCS4 ch = PyUnicode_READ(kind, data, i);
    if (edit_one(&es, kind, data, i, ch, CLASS_OF(t, ch), out.at, &out.len) < 0) goto bail;
    i++;
#if defined(SCAN_AVX2)
    if (use_avx2()) { /* whole vector blocks, edits included; then fewer than a block left */
        if (kind == PyUnicode_2BYTE_KIND && avx2_edit_ucs2(t, rs, &es, data, &i, &out) < 0)
            goto bail;
        if (kind == PyUnicode_4BYTE_KIND && avx2_edit_ucs4(t, rs, &es, data, &i, &out) < 0)
            goto bail;
    }
#endif
    for (i = copy_scan(t, kind, data, n, i, rs, &out); i < n;
         i = copy_scan(t, kind, data, n, i + 1, rs, &out)) {
        ch = PyUnicode_READ(kind, data, i);
        if (edit_one(&es, kind, data, i, ch, CLASS_OF(t, ch), out.at, &out.len) < 0) goto bail;
    }
    if (es.removed_wide && !(kind == PyUnicode_1BYTE_KIND && PyUnicode_IS_ASCII(text))) {
        Py_UCS4 acc = or_of(kind, out.at, out.len, wide);
        if (acc < wide) return narrowed(result, kind, out.len, acc);
    }
    if (out.len < n && PyUnicode_Resize(&result, out.len) < 0) return NULL;
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
    PyObject *text;
    int to_scan = input_text(&t, args[0], &text);
    if (to_scan <= 0) return to_scan < 0 ? NULL : text;
    run_state_t rs = {-1, -1, max_run};
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t i = scan_kind(&t, PyUnicode_KIND(text), PyUnicode_DATA(text), n, 0, &rs);
    if (i == n) return text;
    /* A str just decoded from bytes, that only this call holds, is edited in place. */
    int in_place = text != args[0] && Py_REFCNT(text) == 1 && PyUnicode_CheckExact(text) &&
                   !PyUnicode_CHECK_INTERNED(text);
    PyObject *edited = edit_text(&t, args[3], args[5], text, i, &rs, in_place);
    if (!in_place) Py_DECREF(text);
    if (edited == NULL && !PyErr_Occurred()) Py_RETURN_NONE;
    return edited;
}
