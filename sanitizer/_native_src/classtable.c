/*
 * A policy's tables, as the policy fast path (scan.c, edit.c) reads them: checked once
 * per table object, and what the AVX2 loops test derived from them once.
 *
 * Why it exists: Python hands the C scan a two-stage class table (code point -> uint8
 * class; sanitizer/_policy/_classtable.py builds it) and a policy's tables indexed by class
 * (sanitizer._policy.compiled); every index the loops make must be in bounds without a
 * check per character.  load_scan_tables checks the layout (speedups.h) and every entry
 * an index comes from, keeps the table objects it checked (bytes are immutable: holding a
 * reference makes a second check unnecessary, so the common call costs a pointer
 * comparison, not a 4,352-entry check) and derives, once per policy table, the bitmaps
 * the vector loops test (derive: see derived_t in scan.h).
 *
 * tables (layout in speedups.h): flags[256] (bit 0: interesting, bit 1: mark), rule[256]
 * (0: none, else 1..R), prefilter[16], then per rule prev_ok[257] and next_ok[257] (entry
 * 256 stands for "no previous / next character").
 *
 * prefilter: T (<= 0x7F), number of extras (<= 4), 4 extras, number of skips (<= 4),
 * 4 skips, 5 unused.  A byte b is a candidate when (b < T or b >= 0x7F) and b is not a
 * skip, or b is an extra.  Skips are bytes below T that no class flags (e.g. LF, TAB),
 * so common whitespace does not stop the vector loop.  Every byte whose class is
 * flagged must be a candidate (checked here); candidates are then looked up exactly,
 * other bytes are skipped 64 at a time.
 */
#include "scan.h"

#include <stdlib.h>

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
/* In the module's state (speedups_state.tables): the class table checked last, and the
 * last VALID_CACHE policy tables checked against it with what was derived from each. */
struct table_cache {
    PyObject *stage1, *stage2;
    PyObject *tables[VALID_CACHE];
    derived_t derived[VALID_CACHE];
    int next;
};

table_cache *
classtable_cache_new(void)
{
    table_cache *cache = (table_cache *)PyMem_Calloc(1, sizeof(table_cache));
    if (cache == NULL) PyErr_NoMemory();
    return cache;
}

void
classtable_cache_clear(table_cache *cache)
{
    Py_CLEAR(cache->stage1);
    Py_CLEAR(cache->stage2);
    for (int k = 0; k < VALID_CACHE; k++) Py_CLEAR(cache->tables[k]);
}

int
classtable_cache_traverse(table_cache *cache, visitproc visit, void *arg)
{
    Py_VISIT(cache->stage1);
    Py_VISIT(cache->stage2);
    for (int k = 0; k < VALID_CACHE; k++) Py_VISIT(cache->tables[k]);
    return 0;
}

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
    d->text_block = 0; /* (text_sets: made when first asked) */
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

int
load_scan_tables(speedups_state *st, PyObject *stage1, PyObject *stage2, PyObject *tables,
                 scan_tables_t *t)
{
    if (!PyBytes_CheckExact(stage1) || !PyBytes_CheckExact(stage2) ||
        !PyBytes_CheckExact(tables)) {
        PyErr_SetString(PyExc_TypeError, "class tables must be bytes");
        return -1;
    }
    table_cache *cache = st->tables;
    const char *s1 = PyBytes_AS_STRING(stage1);
    Py_ssize_t n2 = PyBytes_GET_SIZE(stage2), nt = PyBytes_GET_SIZE(tables);
    if (stage1 != cache->stage1 || stage2 != cache->stage2) {
        if (PyBytes_GET_SIZE(stage1) != 2 * STAGE1_ENTRIES || ((uintptr_t)s1 & 1) != 0 ||
            n2 < 256 || n2 % 256 != 0)
            return malformed("class");
        Py_ssize_t nblocks = n2 / 256;
        for (int k = 0; k < STAGE1_ENTRIES; k++) {
            if (((const uint16_t *)s1)[k] >= nblocks) return malformed("class");
        }
        Py_INCREF(stage1);
        Py_XSETREF(cache->stage1, stage1);
        Py_INCREF(stage2);
        Py_XSETREF(cache->stage2, stage2);
        for (int k = 0; k < VALID_CACHE; k++) Py_CLEAR(cache->tables[k]);
    }
    t->stage1 = (const uint16_t *)s1;
    t->stage2 = (const unsigned char *)PyBytes_AS_STRING(stage2);
    t->blk0 = t->stage2 + ((size_t)t->stage1[0] << 8);
    const unsigned char *tb = (const unsigned char *)PyBytes_AS_STRING(tables);
    int known = 0;
    for (int k = 0; k < VALID_CACHE; k++) {
        if (cache->tables[k] == tables) {
            known = 1;
            t->derived = &cache->derived[k];
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
        derive(t, n2 / 256, &cache->derived[cache->next]);
        t->derived = &cache->derived[cache->next];
        Py_INCREF(tables);
        Py_XSETREF(cache->tables[cache->next], tables);
        cache->next = (cache->next + 1) % VALID_CACHE;
    }
    return 0;
}

