/*
 * What the files of the policy fast path share: classtable.c (a policy's tables, checked
 * and derived once), scan.c (the scan: scan, clean) and edit.c (sanitize's edits:
 * clean_edit); decode_valid.c, which decodes the bytes they are given, needs none of it.
 *
 * The types of the tables as scan.c reads them (laid out in speedups.h, written by
 * sanitizer/_policy/_classtable.py), what classtable.c derives from them, and the inline
 * per-character step (flagged) both the scan and the edit loops run; scan_avx2.h holds
 * the AVX2 candidate tests they share.
 */
#ifndef SANITIZER_SCAN_H
#define SANITIZER_SCAN_H

#include "speedups.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(SPEEDUPS_X86)
#define SCAN_AVX2 1 /* compiled with a target attribute, used when the CPU has it */
#define SCAN_AVX2_TARGET __attribute__((target("avx2")))
#endif
#include <stdint.h>
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
     * of it is edited), NB_MARK (a mark: its run is counted through strips), NB_SELF
     * (a rule or a mark: not edited itself). */
    unsigned char nb[256];
    /* The text's own block (text_block_of): a BMP block holding a flagged character
     * makes each of its characters a candidate of the vector test by block, so the
     * block most of a long text is written in is tested exactly too, by low byte, like
     * the hot blocks; its sets are made from bmp when first asked (0: none yet). */
    int text_block;
    unsigned char text_ascii[16], text_latin[16];
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

#define CLASS_OF(t, ch) ((t)->stage2[((size_t)(t)->stage1[(ch) >> 8] << 8) | ((ch) & 0xFF)])

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


/* Whether the AVX2 loops run: exactly when the UTF-8 validator runs its AVX2 kernel
 * (validate.c: the CPU has AVX2 and SANITIZER_UTF8_KERNEL does not force a narrower one). */
static inline int
use_avx2(void)
{
    return speedups_avx2;
}

/* classtable.c: *t from a policy's tables (checked once per table object, then cached in
 * st);
 * -1 with ValueError or TypeError when they are malformed. */
SPEEDUPS_INTERNAL int load_scan_tables(speedups_state *st, PyObject *stage1,
                                       PyObject *stage2, PyObject *tables, scan_tables_t *t);

/* scan.c: the first character from i on that the tables flag, or n; and the text clean()
 * and clean_edit() judge, from their data argument (see scan.c). */
SPEEDUPS_INTERNAL Py_ssize_t scan_kind(const scan_tables_t *t, int kind, const void *data,
                                       Py_ssize_t n, Py_ssize_t i, run_state_t *rs);
SPEEDUPS_INTERNAL int input_text(speedups_state *st, const scan_tables_t *t, PyObject *data,
                                  PyObject **text);
/* scan.c: text (a new reference, taken over), decoded from the bytes `data` and given up
 * on unchanged, kept for the next call on data (input_text, take_decoded); bytes shorter
 * than KEEP_DECODED are not kept (decoding them again costs less). */
#define KEEP_DECODED 4096
SPEEDUPS_INTERNAL void keep_decoded(speedups_state *st, PyObject *data, PyObject *text);

#endif /* SANITIZER_SCAN_H */
