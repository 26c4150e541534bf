/*
 * sanitize's edits: clean_edit(data, stage1, stage2, tables, max_run, edits) -> str | None.
 *
 * Why it exists: sanitize must strip or replace the characters its policy says to, and
 * for most text those are a few format characters among clean ones.  clean_edit is
 * clean() (scan.c) that goes on where clean() gives up when every flagged character is
 * one the policy strips or replaces by itself and no neighbour's sequence rule can depend
 * on it (marks either side of a strip are one run, counted as the output's),
 * writing the edited text in the same pass; anything else is None, and the engine
 * (sanitizer._policy._run) decides.  The pure-Python statement is
 * sanitizer._policy._classtable.edit_reference; the tests check that the two agree.
 *
 * clean_edit on bytes edits the str it has just decoded in place (edit_text): the AVX2
 * loops copy each block they pass over behind the scan and edit without leaving the loop,
 * so text with edits costs one pass and no second allocation.  An edit with no candidate
 * beside it in its block takes one table lookup (edit_actions) and no neighbour check.
 */
#include "scan.h"
#include "scan_avx2.h"

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
    const unsigned char *rule, *rules; /* sequence rules (scan_tables_t's) */
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
         char *out, Py_ssize_t *olen, run_state_t *rs)
{
    unsigned int e = es->edits[c];
    Py_UCS4 nch;
    /* e not 1 or 2, or a mark (runs) */
    if (e - 1 > EDIT_REPLACE - 1 || (es->nb[c] & NB_MARK)) return -1;
    if ((es->nb[c] & NB_SELF) && !(es->nb[c] & NB_RULE)) return -1;
    if (e == EDIT_REPLACE && kind == PyUnicode_1BYTE_KIND) return -1; /* U+FFFD won't fit */
    /* The character after, when it has a sequence rule: its exemption may rest on this
     * character when the rule accepts it before (the engine re-judges it), and after a
     * replacement it would read U+FFFD, which in place overwrites this one.  (A stop
     * with a rule of its own failed it: it is no part of a sequence, and is edited.) */
    if (i + 1 < es->n && (NEIGHBOUR_CLASS(es, kind, s, i + 1) & NB_RULE)) {
        unsigned int next = CLASS_OF(es, nch);
        if (e == EDIT_REPLACE || es->rules[(size_t)(es->rule[next] - 1) * RULE_SIZE + c])
            return -1;
    }
    /* A strip just after a counted mark joins the marks on either side in the output
     * (UAX #15 §13 counts the output's runs): the run goes on through it, one shorter. */
    if (e == EDIT_STRIP && rs->max_run >= 0 && rs->mark_end == i) {
        rs->mark_end = i + 1;
        rs->run_start++;
    }
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

/* The ACT_* table of a policy's tables and an edits table, kept for the last pair in the
 * module's state (both held, so neither address can be reused while it is): most calls
 * use one policy. */
static const unsigned char *
edit_actions(speedups_state *st, const scan_tables_t *t, PyObject *tables, PyObject *edits)
{
    unsigned char *act_table = st->act_table;
    if (tables != st->act_tables || edits != st->act_edits) {
        const unsigned char *e = (const unsigned char *)PyBytes_AS_STRING(edits);
        for (int c = 0; c < 256; c++) {
            unsigned int f = t->flags[c];
            int editable = (f & 1) && !(t->derived->nb[c] & NB_SELF) &&
                           (e[c] == EDIT_STRIP || e[c] == EDIT_REPLACE);
            act_table[c] = (unsigned char)(!f ? ACT_CLEAN : editable ? e[c] : ACT_OTHER);
        }
        Py_INCREF(tables);
        Py_XSETREF(st->act_tables, tables);
        Py_INCREF(edits);
        Py_XSETREF(st->act_edits, edits);
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
#define AVX2_EDIT_LOOP(KIND, STEP, BLOCK, CANDIDATES, STORE)                                \
    const derived_t *d = t->derived;                                                    \
    /* (1 byte: the lo_* sets alone, exact; 2: with the text's own block) */            \
    const avx2_sets_t sets = avx2_sets_for(d, BLOCK);                                   \
    (void)sets;                                                                         \
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
            if (a != ACT_OTHER && !((near >> k) & 1) &&                                 \
                (KIND != PyUnicode_1BYTE_KIND || a == EDIT_STRIP)) {                    \
                /* an edit between two characters no policy flags (so the one before   \
                 * was not replaced: a U+FFFD of its own; none fits 1 byte: edit_one) */ \
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
            if (edit_one(&e, KIND, s, j, ch, c, o, &olen, rs) < 0) {                        \
                es->edited_end = e.edited_end; /* (whether anything was edited) */          \
                return -1;                                                              \
            }                                                                           \
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
avx2_edit_ucs1(const scan_tables_t *t, run_state_t *rs, edits_t *es, const void *data,
               Py_ssize_t *at, out_t *out)
{
    const Py_UCS1 *s = (const Py_UCS1 *)data;
    const __m256i lo_a = avx2_bcast(t->derived->lo_ascii), lo_l = avx2_bcast(t->derived->lo_latin);
    const __m256i bits = avx2_bcast(ROW_BITS);
    __m256i a;
    AVX2_EDIT_LOOP(PyUnicode_1BYTE_KIND, 32, 0,
                   (a = _mm256_loadu_si256((const __m256i *)(s + i)),
                    avx2_members(a, lo_a, lo_l, bits)),
                   _mm256_storeu_si256((__m256i *)(o + olen), a))
}

SCAN_AVX2_TARGET static int
avx2_edit_ucs2(const scan_tables_t *t, run_state_t *rs, edits_t *es, const void *data,
               Py_ssize_t *at, out_t *out)
{
    const Py_UCS2 *s = (const Py_UCS2 *)data;
    __m256i a, b;
    AVX2_EDIT_LOOP(PyUnicode_2BYTE_KIND, 32,
                   es->n - *at >= 1024 ? text_block_of(t->derived, s, es->n) : 0,
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
    AVX2_EDIT_LOOP(PyUnicode_4BYTE_KIND, 32, 0,
                   (avx2_load_ucs4(v, s + i), avx2_candidates_ucs4(v, s + i, &sets, d)),
                   for (int k = 0; k < 4; k++)
                       _mm256_storeu_si256((__m256i *)(o + olen * 4 + 32 * k), v[k]))
}
#endif

/*
 * text with the flagged characters from `i` on removed (edits[class] 1) or replaced by
 * U+FFFD (2; adjacent replaced characters share one, as the engine coalesces its spans),
 * or NULL without an exception when a flagged character is anything else, or when an
 * edit could change how a neighbour is judged: the next character has a sequence rule
 * that accepts this one before it (its exemption may be earned by this character: the
 * engine re-judges it); a stop with a rule of its own failed it and is edited.  A strip
 * between two combining marks joins their runs: the run count goes on through it
 * (edit_one).  The tables give edits only to characters that are no mark and have no
 * normal-form sensitivity, so the output is in the form the input was (UAX #15 §9:
 * U+FFFD is a Quick_Check=Yes starter).
 *
 * One pass: the scan copies the characters it passes over to the output, which is a new
 * str of the input's kind or, when `in_place` (text is a str only this call holds: just
 * decoded from bytes), text itself.  In place the output is written behind the scan (it
 * never grows: a strip drops a character, a replacement writes one for one or more), so
 * what the scan reads ahead is still the input's; behind it, only the character before i
 * may be overwritten, and only when that one was replaced (a vector block is stored only
 * when all of it is copied).  When stripping removed characters that only that kind
 * holds, and none is left, the output is copied into the narrower kind a str must have
 * (`narrowed`).  When `in_place`, the caller's reference to text is taken over; when
 * the engine must decide before anything was edited, text (the input's, decoded from
 * `input`, the bytes) is kept for it (keep_decoded).
 */
static PyObject *
edit_text(speedups_state *st, const scan_tables_t *t, PyObject *tables, PyObject *edits_obj,
          PyObject *text, Py_ssize_t i, run_state_t *rs, int in_place, PyObject *input)
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
    edits_t es = {t->stage1, t->stage2, t->flags, t->derived->nb, edits, t->rule, t->rules,
                  edit_actions(st, t, tables, edits_obj), t->derived, n, -1, -1, wide, 0};
    Py_UCS4 ch = PyUnicode_READ(kind, data, i);
    if (edit_one(&es, kind, data, i, ch, CLASS_OF(t, ch), out.at, &out.len, rs) < 0) goto bail;
    i++;
#if defined(SCAN_AVX2)
    if (use_avx2()) { /* whole vector blocks, edits included; then fewer than a block left */
        if (kind == PyUnicode_1BYTE_KIND && avx2_edit_ucs1(t, rs, &es, data, &i, &out) < 0)
            goto bail;
        if (kind == PyUnicode_2BYTE_KIND && avx2_edit_ucs2(t, rs, &es, data, &i, &out) < 0)
            goto bail;
        if (kind == PyUnicode_4BYTE_KIND && avx2_edit_ucs4(t, rs, &es, data, &i, &out) < 0)
            goto bail;
    }
#endif
    for (i = copy_scan(t, kind, data, n, i, rs, &out); i < n;
         i = copy_scan(t, kind, data, n, i + 1, rs, &out)) {
        ch = PyUnicode_READ(kind, data, i);
        if (edit_one(&es, kind, data, i, ch, CLASS_OF(t, ch), out.at, &out.len, rs) < 0) goto bail;
    }
    if (es.removed_wide && !(kind == PyUnicode_1BYTE_KIND && PyUnicode_IS_ASCII(text))) {
        Py_UCS4 acc = or_of(kind, out.at, out.len, wide);
        if (acc < wide) return narrowed(result, kind, out.len, acc);
    }
    if (out.len < n && PyUnicode_Resize(&result, out.len) < 0) return NULL;
    return result;
bail:
    if (in_place && es.edited_end < 0 && !PyErr_Occurred()) {
        keep_decoded(st, input, result);
        return NULL;
    }
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
    speedups_state *st = state_of(self);
    if (load_scan_tables(st, args[1], args[2], args[3], &t) < 0) return NULL;
    Py_ssize_t max_run = PyLong_AsSsize_t(args[4]);
    if (max_run == -1 && PyErr_Occurred()) return NULL;
    if (!PyBytes_CheckExact(args[5]) || PyBytes_GET_SIZE(args[5]) != 256) {
        PyErr_SetString(PyExc_ValueError, "malformed edits table");
        return NULL;
    }
    PyObject *text;
    int to_scan = input_text(st, &t, args[0], &text);
    if (to_scan <= 0) return to_scan < 0 ? NULL : text;
    run_state_t rs = {-1, -1, max_run};
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t i = scan_kind(&t, PyUnicode_KIND(text), PyUnicode_DATA(text), n, 0, &rs);
    if (i == n) return text;
    /* A str just decoded from bytes, that only this call holds, is edited in place. */
    int in_place = text != args[0] && Py_REFCNT(text) == 1 && PyUnicode_CheckExact(text) &&
                   !PyUnicode_CHECK_INTERNED(text);
    PyObject *edited = edit_text(st, &t, args[3], args[5], text, i, &rs, in_place, args[0]);
    if (!in_place) Py_DECREF(text);
    if (edited == NULL && !PyErr_Occurred()) Py_RETURN_NONE;
    return edited;
}

