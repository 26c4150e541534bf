/*
 * The policy fast path: scan(text, stage1, stage2, tables, max_run, start) -> int and
 * clean(data, stage1, stage2, tables, max_run) -> str | None (sanitize's clean_edit, which
 * goes on where clean gives up, is edit.c).
 *
 * Why it exists: sanitizer._policy must decide for every character whether a policy could
 * care about it; in C that is a table lookup a character (and 64 ASCII bytes at a time).
 * Like the decoder runner this holds no Unicode knowledge: Python hands it a two-stage
 * class table (sanitizer/_policy/_classtable.py: code point -> uint8 class) and a policy's
 * tables indexed by class (sanitizer._policy.compiled), checked by classtable.c, and it
 * only looks them up.  The pure-Python statement is _classtable.scan_reference; the tests
 * check that the two agree.
 *
 * Without AVX2 the prefilter of the tables (classtable.c) picks the candidates of a
 * 1-byte str, 64 bytes at a time with SSE2 compares.  With AVX2 (compiled per function
 * with a target attribute, used when the CPU has it and SANITIZER_UTF8_KERNEL does not
 * force a narrower kernel) the test is exact instead: what each validated table flags is
 * derived once (classtable.c's derive): U+0000..00FF and the BMP's 256-code-point blocks
 * as nibble bitmaps tested 32 characters at a time with two shuffles (scan_avx2.h), a bit
 * per BMP code point, and a byte per block (two blocks common in text, U+20xx and U+30xx,
 * by code point; the supplementary planes by super-blocks of 16 blocks).  Clean text then
 * costs a few vector instructions per 32 characters.
 *
 * Bytes are not decoded by CPython's codec when the AVX2 loops run (decode_valid.c): the
 * SIMD validator proves them well-formed, then they are decoded with no checks left to
 * make.  Ill-formed bytes are answered None without a UnicodeDecodeError raised and
 * caught.
 */
#include "scan.h"
#include "scan_avx2.h"

#if defined(SCAN_AVX2)
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

/* UCS1 characters from i on, 64 then 32 at a time, every candidate of a block (exact:
 * avx2_members) judged before the next block is read, not a search restarted after each
 * (text dense in exempt characters: lone bit symbols, soft hyphens between letters).  1
 * with *at = the first flagged index, or 0 with *at = where fewer than 32 remain. */
SCAN_AVX2_TARGET static int
avx2_scan_ucs1(const scan_tables_t *t, const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t i,
               run_state_t *rs, Py_ssize_t *at)
{
    const derived_t *d = t->derived;
    const unsigned char *flags = t->flags, *blk0 = t->blk0;
    const __m256i lo_a = avx2_bcast(d->lo_ascii), lo_l = avx2_bcast(d->lo_latin);
    const __m256i bits = avx2_bcast(ROW_BITS);
    uint64_t m;
#define UCS1_CANDIDATES(STEP)                                                            \
    while (m) {                                                                          \
        Py_ssize_t j = i + __builtin_ctzll(m);                                           \
        m &= m - 1;                                                                      \
        unsigned int c = blk0[s[j]], f = flags[c];                                       \
        if (f && flagged(t, PyUnicode_1BYTE_KIND, s, n, j, c, f, rs)) {                  \
            *at = j;                                                                     \
            return 1;                                                                    \
        }                                                                                \
    }
    for (; i + 64 <= n; i += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + i + 32));
        m = (uint64_t)avx2_members(a, lo_a, lo_l, bits) |
            ((uint64_t)avx2_members(b, lo_a, lo_l, bits) << 32);
        if (m) UCS1_CANDIDATES(64)
    }
    for (; i + 32 <= n; i += 32) {
        m = avx2_members(_mm256_loadu_si256((const __m256i *)(s + i)), lo_a, lo_l, bits);
        if (m) UCS1_CANDIDATES(32)
    }
#undef UCS1_CANDIDATES
    *at = i;
    return 0;
}

/* UCS2 characters from i on, 32 at a time (candidates: avx2_candidates_ucs2).  1 with
 * *at = the first flagged index, or 0 with *at = where fewer than 32 remain. */
SCAN_AVX2_TARGET static int
avx2_scan_ucs2(const scan_tables_t *t, const Py_UCS2 *s, Py_ssize_t n, Py_ssize_t i,
               run_state_t *rs, Py_ssize_t *at)
{
    const derived_t *d = t->derived;
    const avx2_sets_t sets = avx2_sets_for(d, n - i >= 1024 ? text_block_of(d, s, n) : 0);
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


/* Characters i..stop-1 of s (n long): the first one flagged, or stop. */
#define SCAN_WIDE(NAME, TYPE, KIND)                                                     \
    static inline Py_ssize_t NAME(const scan_tables_t *t, const TYPE *s, Py_ssize_t n,   \
                                  Py_ssize_t i, Py_ssize_t stop, run_state_t *rs)        \
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
        if (n - i >= 32 && avx2_scan_ucs1(t, s, n, i, rs, &i)) return i; /* (then < 32 left) */
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

/* The arguments scan() and count_mark_runs() share: (text, stage1, stage2, tables,
 * max_run, start), checked; -1 with an exception when they do not hold. */
static int
scan_call_args(PyObject *self, PyObject *const *args, Py_ssize_t nargs, const char *name,
               scan_tables_t *t, Py_ssize_t *max_run, Py_ssize_t *start)
{
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError,
                     "%s(text, stage1, stage2, tables, max_run, start) takes 6 arguments", name);
        return -1;
    }
    if (!PyUnicode_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "%s() text must be str", name);
        return -1;
    }
    if (load_scan_tables(state_of(self), args[1], args[2], args[3], t) < 0) return -1;
    *max_run = PyLong_AsSsize_t(args[4]);
    if (*max_run == -1 && PyErr_Occurred()) return -1;
    *start = PyLong_AsSsize_t(args[5]);
    if (*start == -1 && PyErr_Occurred()) return -1;
    if (READY(args[0]) < 0) return -1;
    if (*start < 0 || *start > PyUnicode_GET_LENGTH(args[0])) {
        PyErr_SetString(PyExc_ValueError, "start out of range");
        return -1;
    }
    return 0;
}

PyObject *
speedups_scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    scan_tables_t t;
    Py_ssize_t max_run, start;
    if (scan_call_args(self, args, nargs, "scan", &t, &max_run, &start) < 0) return NULL;
    return PyLong_FromSsize_t(scan_text(&t, args[0], start, max_run));
}

/*
 * count_mark_runs(text, stage1, stage2, tables, max_run, start) -> int: how many runs of
 * more than max_run marks scan() with the mark tables (_scan._c_mark_tables: counted
 * marks flagged 2) finds from start on, each run read to its last mark before the scan
 * goes on after it: what sanitizer._policy._scan.mark_runs yields from there, counted
 * without a Python step a run (the engine counts the runs past its last listed one).
 */
PyObject *
speedups_count_mark_runs(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    scan_tables_t t;
    Py_ssize_t max_run, start;
    if (scan_call_args(self, args, nargs, "count_mark_runs", &t, &max_run, &start) < 0)
        return NULL;
    if (max_run < 0) {
        PyErr_SetString(PyExc_ValueError, "count_mark_runs() max_run must be >= 0");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(args[0]);
    int kind = PyUnicode_KIND(args[0]);
    const void *data = PyUnicode_DATA(args[0]);
    Py_ssize_t count = 0, i = start;
    while ((i = scan_text(&t, args[0], i, max_run)) < n) {
        count++;
        for (i++; i < n && (t.flags[CLASS_OF(&t, PyUnicode_READ(kind, data, i))] & 2); i++)
            ;
    }
    return PyLong_FromSsize_t(count);
}

/* The text kept for the bytes object `data` (a new reference), or NULL; whichever
 * object it was kept for, nothing is kept after. */
static PyObject *
take_kept(speedups_state *st, PyObject *data)
{
    if (st->kept_data == NULL) return NULL;
    PyObject *text = st->kept_text;
    st->kept_text = NULL;
    if (st->kept_data != data) Py_CLEAR(text);
    Py_CLEAR(st->kept_data);
    return text;
}

/* The text clean() and clean_edit() judge, from their data argument: 1 and *text (a new
 * reference) to scan; 0 and *text already the answer (clean ASCII bytes as a str, or None
 * for bytes that do not decode and for every other type, subclasses of bytes and str
 * included: the caller copies those to exact ones and takes its full path); -1 on error.
 * Bytes whose text the last call kept (keep_decoded) are not decoded again. */
int
input_text(speedups_state *st, const scan_tables_t *t, PyObject *data, PyObject **text)
{
    PyObject *kept = take_kept(st, data);
    if (kept != NULL) {
        *text = kept;
        return 1;
    }
    if (PyBytes_CheckExact(data)) {
        const unsigned char *s = (const unsigned char *)PyBytes_AS_STRING(data);
        Py_ssize_t n = PyBytes_GET_SIZE(data);
        *text = clean_ascii(t, s, n);
        if (*text != NULL) return 0;
        if (PyErr_Occurred()) return -1;
        *text = speedups_decode_valid(s, n);
        return *text == NULL ? -1 : *text != Py_None;
    } else if (PyUnicode_CheckExact(data)) {
        if (READY(data) < 0) return -1;
        Py_INCREF(data);
        *text = data;
        return 1;
    }
    Py_INCREF(Py_None);
    *text = Py_None;
    return 0;
}

void
keep_decoded(speedups_state *st, PyObject *data, PyObject *text)
{
    if (PyBytes_GET_SIZE(data) < KEEP_DECODED) {
        Py_DECREF(text);
        return;
    }
    Py_XSETREF(st->kept_text, text);
    Py_XSETREF(st->kept_data, Py_NewRef(data));
}

/* take_decoded(data, /) -> str | None: the text the last clean() or clean_edit() decoded
 * from the bytes object data and gave up on unchanged (kept for the engine, which would
 * decode it again), or None; either way nothing is kept after. */
PyObject *
speedups_take_decoded(PyObject *self, PyObject *data)
{
    PyObject *text = take_kept(state_of(self), data);
    return text != NULL ? text : Py_NewRef(Py_None);
}


/* str_kind(text, /) -> 1, 2 or 4: the bytes a character of text takes (PEP 393), so that
 * the engine tells in O(1) whether text fits in Latin-1 (1) without encoding it. */
PyObject *
speedups_str_kind(PyObject *self, PyObject *text)
{
    (void)self;
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "str_kind(text, /): text must be a str");
        return NULL;
    }
    if (READY(text) < 0) return NULL;
    return PyLong_FromLong((long)PyUnicode_KIND(text));
}

PyObject *
speedups_clean(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "clean(data, stage1, stage2, tables, max_run) takes 5 arguments");
        return NULL;
    }
    speedups_state *st = state_of(self);
    scan_tables_t t;
    if (load_scan_tables(st, args[1], args[2], args[3], &t) < 0) return NULL;
    Py_ssize_t max_run = PyLong_AsSsize_t(args[4]);
    if (max_run == -1 && PyErr_Occurred()) return NULL;
    PyObject *text;
    int to_scan = input_text(st, &t, args[0], &text);
    if (to_scan <= 0) return to_scan < 0 ? NULL : text;
    if (scan_text(&t, text, 0, max_run) != PyUnicode_GET_LENGTH(text)) {
        if (text != args[0]) { /* bytes decoded for nothing: kept for the engine */
            keep_decoded(st, args[0], text);
        } else {
            Py_DECREF(text);
        }
        Py_RETURN_NONE;
    }
    return text;
}



Py_ssize_t
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


/* count_groups's byte per class (sanitizer._policy._classtable.GROUP_*): the severity of
 * the class's action (0 ALLOW .. 3 REJECT), its carrier family (0: none), and whether
 * only the engine may judge it (tag characters: their sequences have no table). */
#define GROUP_SEVERITY 3
#define GROUP_FAMILY_SHIFT 2
#define GROUP_ENGINE 16

/* What walk_groups does with a group it may list: emit(ctx, start, end, class, severity)
 * returns 0 when it listed the group, 1 when the group is to be counted instead, -1 on
 * error. */
typedef struct {
    int (*emit)(void *ctx, Py_ssize_t start, Py_ssize_t end, unsigned int c, int severity);
    void *ctx;
} lister_t;

/* scan_kind from i, the next characters tested one by one first (of a
 * 1-byte str, whose vector scan is cheap to restart, the next 4; of a wider one, 16): in
 * text dense in flagged characters (a run, a control or a mark every few letters) the
 * next one is near, and a vector scan from each would set up and read a whole block to
 * find it.  The same answer: rs is unused here (max_run -1), so testing a character
 * twice changes nothing. */
static inline Py_ssize_t
next_flagged(const scan_tables_t *t, int kind, const void *data, Py_ssize_t n, Py_ssize_t i,
             run_state_t *rs)
{
    Py_ssize_t probe = kind == PyUnicode_1BYTE_KIND ? 4 : 16;
    Py_ssize_t stop = n - i > probe ? i + probe : n;
    for (; i < stop; i++) {
        unsigned int c = CLASS_OF(t, PyUnicode_READ(kind, data, i)), f = t->flags[c];
        if (f && flagged(t, kind, data, n, i, c, f, rs)) return i;
    }
    return i < n ? scan_kind(t, kind, data, n, i, rs) : n;
}

#if defined(SCAN_AVX2)
/* The flagged characters of a str, one after another, with each 32-character
 * window's candidates (avx2_candidates_*) computed once: in text dense in flagged
 * characters (a run, a control or a mark every few letters), one vector test a window,
 * not a scan restarted a character.  base: the window s[base..base+32) (-1: none); mask:
 * its candidates not yet passed; sets: what the wide windows test (with the text's own
 * block, text_block_of), made once a walk, not once a window (ready). */
typedef struct {
    Py_ssize_t base;
    uint32_t mask;
    int ready;
    avx2_sets_t sets;
} window_t;

#define WINDOW_NEXT(NAME, TYPE, KIND, CANDIDATES)                                        \
    SCAN_AVX2_TARGET static inline Py_ssize_t NAME(const scan_tables_t *t, const TYPE *s, \
                                                   Py_ssize_t n, Py_ssize_t i,           \
                                                   run_state_t *rs, window_t *w,         \
                                                   unsigned int *cls)                    \
    {                                                                                    \
        const derived_t *d = t->derived;                                                 \
        for (;;) {                                                                       \
            if (w->base < 0 || i < w->base || i >= w->base + 32) {                       \
                if (n - i < 32) {                                                        \
                    w->base = -1;                                                        \
                    return i < n ? scan_kind(t, KIND, s, n, i, rs) : n;                  \
                }                                                                        \
                w->base = i;                                                             \
                w->mask = CANDIDATES;                                                    \
            }                                                                            \
            uint32_t m = w->mask & (0xFFFFFFFFu << (i - w->base));                       \
            while (m) {                                                                  \
                Py_ssize_t j = w->base + __builtin_ctz(m);                               \
                m &= m - 1;                                                              \
                Py_UCS4 ch = s[j];                                                       \
                if (KIND != PyUnicode_1BYTE_KIND && ch < 0x10000 && !BMP_FLAGGED(d, ch))   \
                    continue;                                                            \
                unsigned int c = CLASS_OF(t, ch), f = t->flags[c];                       \
                if (f && flagged(t, KIND, s, n, j, c, f, rs)) {                          \
                    w->mask = m;                                                         \
                    *cls = c;                                                            \
                    return j;                                                            \
                }                                                                        \
            }                                                                            \
            i = w->base + 32;                                                            \
            w->base = -1;                                                                \
        }                                                                                \
    }

/* A window's candidates: of a 1-byte str, exact (avx2_members); of a wider one, those
 * avx2_candidates_* pick, each then tested exactly. */
SCAN_AVX2_TARGET static inline uint32_t
window_candidates_ucs1(const Py_UCS1 *s, const derived_t *d)
{
    return avx2_members(_mm256_loadu_si256((const __m256i *)s), avx2_bcast(d->lo_ascii),
                        avx2_bcast(d->lo_latin), avx2_bcast(ROW_BITS));
}

SCAN_AVX2_TARGET static inline uint32_t
window_candidates_ucs2(const Py_UCS2 *s, Py_ssize_t i, Py_ssize_t n, const derived_t *d,
                       window_t *w)
{
    if (!w->ready) {
        w->sets = avx2_sets_for(d, text_block_of(d, s, n));
        w->ready = 1;
    }
    return avx2_candidates_ucs2(_mm256_loadu_si256((const __m256i *)(s + i)),
                                _mm256_loadu_si256((const __m256i *)(s + i + 16)), &w->sets);
}

SCAN_AVX2_TARGET static inline uint32_t
window_candidates_ucs4(const Py_UCS4 *s, const derived_t *d, window_t *w)
{
    if (!w->ready) {
        w->sets = avx2_sets(d);
        w->ready = 1;
    }
    __m256i v[4];
    avx2_load_ucs4(v, s);
    return avx2_candidates_ucs4(v, s, &w->sets, d);
}

WINDOW_NEXT(window_next_ucs1, Py_UCS1, PyUnicode_1BYTE_KIND, window_candidates_ucs1(s + i, d))
WINDOW_NEXT(window_next_ucs2, Py_UCS2, PyUnicode_2BYTE_KIND,
            window_candidates_ucs2(s, i, n, d, w))
WINDOW_NEXT(window_next_ucs4, Py_UCS4, PyUnicode_4BYTE_KIND, window_candidates_ucs4(s + i, d, w))
#endif


/* The groups the engine makes of the characters the tables flag (its scanner's: exactly
 * the scanned categories, with their sequence rules): adjacent flagged characters of one
 * carrier family are one group, of the most severe action among them and the class of
 * its first member of that action (the engine's grouping,
 * sanitizer._policy._carrier_runs).  The whole text is scanned, so a run is grouped as
 * the engine groups it.  Of the groups that start at or after `start`, the first `limit`
 * (-1: all) that `lister` (when not NULL) lists are listed, the others counted in *total
 * and, of ALLOW, *allowed; *worst is the highest severity met (-1: none).  Returns 1
 * when a flagged character is one only the engine may judge, or, with `edits_matter`,
 * when a character the policy strips or replaces is followed by one flagged with a
 * sequence rule whose `before` set holds it (its exemption may depend on what was
 * removed: the engine re-judges it); 0 when done, -1 on error.
 * The pure-Python statement is sanitizer._policy._classtable.groups_reference. */
/* Characters read one at a time from where a scan resumes close behind a candidate it
 * stopped at (carriers, payloads, ideographic variation sequences come a few characters
 * apart where they come at all), before the vector scan's 32-character steps resume. */
#define SCAN_NEAR 16

/* walk_core: no class known for the flagged character at i (it reads it). */
#define WALK_UNKNOWN 0xFFFFFFFFu

/* scan_kind from i, the first SCAN_NEAR characters of a wide string read one at a time. */
static inline Py_ssize_t
scan_near(const scan_tables_t *t, int kind, const void *data, Py_ssize_t n, Py_ssize_t i,
          run_state_t *rs)
{
    if (kind != PyUnicode_1BYTE_KIND && n - i > SCAN_NEAR) {
        Py_ssize_t j = kind == PyUnicode_2BYTE_KIND
                           ? scan_ucs2_part(t, (const Py_UCS2 *)data, n, i, i + SCAN_NEAR, rs)
                           : scan_ucs4_part(t, (const Py_UCS4 *)data, n, i, i + SCAN_NEAR, rs);
        if (j < i + SCAN_NEAR) return j;
        i += SCAN_NEAR;
    }
    return scan_kind(t, kind, data, n, i, rs);
}

/* Spans of the text whose flagged characters walk_groups passes over (the carrier runs
 * of hidden payloads, each one finding of its own: groups_outside): sorted, disjoint
 * [bounds[2k], bounds[2k + 1]); `at` the first not wholly before the walk. */
typedef struct {
    const int64_t *bounds;
    Py_ssize_t count, at;
} skip_t;

/* The first flagged character from i on that no span of `sk` (NULL: none) holds, or n. */
static Py_ssize_t
scan_outside(const scan_tables_t *t, int kind, const void *data, Py_ssize_t n, Py_ssize_t i,
             run_state_t *rs, skip_t *sk)
{
    for (int near = 0;; near = 1) {
        i = near ? scan_near(t, kind, data, n, i, rs) : scan_kind(t, kind, data, n, i, rs);
        if (sk == NULL || i >= n) return i;
        while (sk->at < sk->count && sk->bounds[2 * sk->at + 1] <= i) sk->at++;
        if (sk->at == sk->count || i < sk->bounds[2 * sk->at]) return i;
        i = (Py_ssize_t)sk->bounds[2 * sk->at + 1];  /* inside a span: on from its end */
    }
}

/* walk_groups with `kind` and `avx2` (the window's vector loops) constants: each
 * instance has its reads and its window inlined, and the class of a flagged character
 * the window found is not read again (text dense in flagged characters: one every few). */
static ALWAYS_INLINE int
walk_core(const scan_tables_t *t, int kind, int avx2, const void *data, Py_ssize_t n,
          Py_ssize_t start, const unsigned char *groups, int edits_matter, Py_ssize_t limit,
          const lister_t *lister, Py_ssize_t *total_out, Py_ssize_t *allowed_out,
          int *worst_out, skip_t *sk)
{
    run_state_t rs = {-1, -1, -1};
#if defined(SCAN_AVX2)
    window_t window = {-1, 0, 0};
#endif
    Py_ssize_t run_end = -1, run_start = -1, nlisted = 0, total = 0, allowed = 0;
    int family = 0, severity = -1, worst = -1, r = 0;
    unsigned int strong = 0, known = WALK_UNKNOWN; /* the class at i when the window read it */
    (void)avx2;
    for (Py_ssize_t i = scan_outside(t, kind, data, n, 0, &rs, sk);;) {
        unsigned int c = 0, g = 0;
        int fam = 0, sev = -1;
        if (i < n) {
            c = known != WALK_UNKNOWN ? known : CLASS_OF(t, PyUnicode_READ(kind, data, i));
            g = groups[c];
            if (g & GROUP_ENGINE) {
                r = 1;
                break;
            }
            fam = (int)(g >> GROUP_FAMILY_SHIFT) & 3;
            sev = (int)(g & GROUP_SEVERITY);
            if (fam && fam == family && run_end == i) {
                if (sev > severity) {
                    severity = sev;
                    strong = c;
                }
                goto next;
            }
        }
        if (severity >= 0 && run_start >= start) { /* the group before i is complete */
            int counted = 1;
            if (lister != NULL && (limit < 0 || nlisted < limit)) {
                counted = lister->emit(lister->ctx, run_start, run_end, strong, severity);
                if (counted < 0) {
                    r = -1;
                    break;
                }
                nlisted += !counted;
            }
            total += counted;
            allowed += counted & (severity == 0);
        }
        if (severity > worst) worst = severity;
        if (i >= n) break;
        family = fam;
        severity = sev;
        strong = c;
        run_start = i;
    next:
        run_end = i + 1;
        if (edits_matter && (sev == 1 || sev == 2) && i + 1 < n) {
            /* the next character's exemption depends on this one only if this one is of
             * its rule's `before` set (prev_ok): then the engine re-judges it */
            unsigned int c2 = CLASS_OF(t, PyUnicode_READ(kind, data, i + 1));
            unsigned int r2 = (t->flags[c2] & 1) ? t->rule[c2] : 0;
            if ((groups[c2] & GROUP_ENGINE) || (r2 && t->rules[(size_t)(r2 - 1) * RULE_SIZE + c])) {
                r = 1;
                break;
            }
        }
        known = WALK_UNKNOWN;
        if (sk != NULL) {
            i = scan_outside(t, kind, data, n, i + 1, &rs, sk);
#if defined(SCAN_AVX2)
        } else if (avx2 && kind == PyUnicode_1BYTE_KIND) {
            i = window_next_ucs1(t, (const Py_UCS1 *)data, n, i + 1, &rs, &window, &known);
        } else if (avx2 && kind == PyUnicode_2BYTE_KIND) {
            i = window_next_ucs2(t, (const Py_UCS2 *)data, n, i + 1, &rs, &window, &known);
        } else if (avx2) {
            i = window_next_ucs4(t, (const Py_UCS4 *)data, n, i + 1, &rs, &window, &known);
#endif
        } else {
            i = next_flagged(t, kind, data, n, i + 1, &rs);
        }
    }
    *total_out = total;
    *allowed_out = allowed;
    *worst_out = worst;
    return r;
}

#if defined(SCAN_AVX2)
#define WALK_AVX2(NAME, KIND)                                                             \
    SCAN_AVX2_TARGET static int NAME(const scan_tables_t *t, const void *data, Py_ssize_t n, \
                                     Py_ssize_t start, const unsigned char *groups,         \
                                     int edits_matter, Py_ssize_t limit,                    \
                                     const lister_t *lister, Py_ssize_t *total,             \
                                     Py_ssize_t *allowed, int *worst, skip_t *sk)           \
    {                                                                                     \
        return walk_core(t, KIND, 1, data, n, start, groups, edits_matter, limit, lister,  \
                         total, allowed, worst, sk);                                      \
    }
WALK_AVX2(walk_avx2_ucs1, PyUnicode_1BYTE_KIND)
WALK_AVX2(walk_avx2_ucs2, PyUnicode_2BYTE_KIND)
WALK_AVX2(walk_avx2_ucs4, PyUnicode_4BYTE_KIND)
#endif

static int
walk_groups(const scan_tables_t *t, PyObject *text, Py_ssize_t start,
            const unsigned char *groups, int edits_matter, Py_ssize_t limit,
            const lister_t *lister, Py_ssize_t *total, Py_ssize_t *allowed, int *worst,
            skip_t *sk)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
#if defined(SCAN_AVX2)
    if (use_avx2()) {
        if (kind == PyUnicode_1BYTE_KIND)
            return walk_avx2_ucs1(t, data, n, start, groups, edits_matter, limit, lister,
                                  total, allowed, worst, sk);
        if (kind == PyUnicode_2BYTE_KIND)
            return walk_avx2_ucs2(t, data, n, start, groups, edits_matter, limit, lister,
                                  total, allowed, worst, sk);
        return walk_avx2_ucs4(t, data, n, start, groups, edits_matter, limit, lister, total,
                              allowed, worst, sk);
    }
#endif
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        return walk_core(t, PyUnicode_1BYTE_KIND, 0, data, n, start, groups, edits_matter,
                         limit, lister, total, allowed, worst, sk);
    case PyUnicode_2BYTE_KIND:
        return walk_core(t, PyUnicode_2BYTE_KIND, 0, data, n, start, groups, edits_matter,
                         limit, lister, total, allowed, worst, sk);
    default:
        return walk_core(t, PyUnicode_4BYTE_KIND, 0, data, n, start, groups, edits_matter,
                         limit, lister, total, allowed, worst, sk);
    }
}

/* list_groups' lister: each group appended to a list as (start, end, class, severity). */
static int
emit_tuple(void *ctx, Py_ssize_t start, Py_ssize_t end, unsigned int c, int severity)
{
    PyObject *item = Py_BuildValue("(nnii)", start, end, (int)c, severity);
    if (item == NULL || PyList_Append((PyObject *)ctx, item) < 0) {
        Py_XDECREF(item);
        return -1;
    }
    Py_DECREF(item);
    return 0;
}

/* The arguments that count_groups, list_groups, word_marks and reveal_runs begin with:
 * text (args[0]), the scan's tables (args[1..3]), and a 256-byte table by class
 * (args[at], named `what` in its error: groups, kinds). */
static int
text_and_tables(PyObject *self, PyObject *const *args, const char *name, scan_tables_t *t,
                Py_ssize_t at, const char *what, const unsigned char **table)
{
    if (!PyUnicode_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "%s() text must be str", name);
        return -1;
    }
    if (load_scan_tables(state_of(self), args[1], args[2], args[3], t) < 0) return -1;
    if (!PyBytes_CheckExact(args[at]) || PyBytes_GET_SIZE(args[at]) != 256) {
        PyErr_Format(PyExc_ValueError, "malformed %s table", what);
        return -1;
    }
    if (READY(args[0]) < 0) return -1;
    *table = (const unsigned char *)PyBytes_AS_STRING(args[at]);
    return 0;
}

/*
 * count_groups(text, stage1, stage2, tables, start, groups, edits_matter) -> (n, allowed)
 * | None: how many findings the engine makes of the groups (walk_groups) that start at or
 * after `start`, and how many of them are ALLOW; None when only the engine can tell.
 * The pure-Python statement is sanitizer._policy._classtable.count_reference.
 */
PyObject *
speedups_count_groups(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError,
                        "count_groups(text, stage1, stage2, tables, start, groups, "
                        "edits_matter) takes 7 arguments");
        return NULL;
    }
    scan_tables_t t;
    const unsigned char *groups;
    if (text_and_tables(self, args, "count_groups", &t, 5, "groups", &groups) < 0) return NULL;
    Py_ssize_t start = PyLong_AsSsize_t(args[4]);
    if (start == -1 && PyErr_Occurred()) return NULL;
    int edits_matter = PyObject_IsTrue(args[6]);
    if (edits_matter < 0) return NULL;
    Py_ssize_t total, allowed;
    int worst;
    int r = walk_groups(&t, args[0], start, groups, edits_matter, 0, NULL, &total, &allowed,
                        &worst, NULL);
    if (r < 0) return NULL;
    if (r > 0) Py_RETURN_NONE;
    return Py_BuildValue("(nn)", total, allowed);
}

/*
 * list_groups(text, stage1, stage2, tables, limit, groups, edits_matter) -> (listed, more,
 * more_allowed, worst) | None: the first `limit` groups (walk_groups; -1: all) as
 * (start, end, class of the group's category, severity), how many more there are and how
 * many of those are ALLOW, and the highest severity of all (-1: no group); None when
 * only the engine can tell.  The pure-Python statement is
 * sanitizer._policy._classtable.groups_reference.
 */
PyObject *
speedups_list_groups(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError,
                        "list_groups(text, stage1, stage2, tables, limit, groups, "
                        "edits_matter) takes 7 arguments");
        return NULL;
    }
    scan_tables_t t;
    const unsigned char *groups;
    if (text_and_tables(self, args, "list_groups", &t, 5, "groups", &groups) < 0) return NULL;
    Py_ssize_t limit = PyLong_AsSsize_t(args[4]);
    if (limit == -1 && PyErr_Occurred()) return NULL;
    if (limit < -1) {
        PyErr_SetString(PyExc_ValueError, "list_groups() limit must be >= -1");
        return NULL;
    }
    int edits_matter = PyObject_IsTrue(args[6]);
    if (edits_matter < 0) return NULL;
    PyObject *listed = PyList_New(0);
    if (listed == NULL) return NULL;
    Py_ssize_t total, allowed;
    int worst;
    lister_t lister = {emit_tuple, listed};
    int r = walk_groups(&t, args[0], 0, groups, edits_matter, limit, &lister, &total,
                        &allowed, &worst, NULL);
    if (r != 0) {
        Py_DECREF(listed);
        if (r < 0) return NULL;
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(Nnni)", listed, total, allowed, worst);
}

/*
 * groups_outside(text, stage1, stage2, tables, limit, groups, spans, edits_matter) ->
 * (listed, more, more_allowed, worst) | None: list_groups of the flagged
 * characters outside `spans` (int64 bounds in native order: sorted, disjoint
 * [start, end) pairs, the carrier runs of hidden payloads, each its own finding), a run
 * cut where a span begins or ends.  The pure-Python statement is
 * sanitizer._policy._classtable.groups_reference with `skip`.
 */
PyObject *
speedups_groups_outside(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError,
                        "groups_outside(text, stage1, stage2, tables, limit, groups, "
                        "spans, edits_matter) takes 8 arguments");
        return NULL;
    }
    int edits_matter = PyObject_IsTrue(args[7]);
    if (edits_matter < 0) return NULL;
    scan_tables_t t;
    const unsigned char *groups;
    if (text_and_tables(self, args, "groups_outside", &t, 5, "groups", &groups) < 0)
        return NULL;
    Py_ssize_t limit = PyLong_AsSsize_t(args[4]);
    if (limit == -1 && PyErr_Occurred()) return NULL;
    if (limit < -1) {
        PyErr_SetString(PyExc_ValueError, "groups_outside() limit must be >= -1");
        return NULL;
    }
    if (!PyBytes_CheckExact(args[6]) || PyBytes_GET_SIZE(args[6]) % 16) {
        PyErr_SetString(PyExc_ValueError, "malformed spans");
        return NULL;
    }
    skip_t sk = {(const int64_t *)PyBytes_AS_STRING(args[6]), PyBytes_GET_SIZE(args[6]) / 16, 0};
    int64_t last = 0;
    for (Py_ssize_t k = 0; k < 2 * sk.count; k++) {
        if (sk.bounds[k] < last || (k % 2 && sk.bounds[k] == last)) {
            PyErr_SetString(PyExc_ValueError, "malformed spans");
            return NULL;
        }
        last = sk.bounds[k];
    }
    PyObject *listed = PyList_New(0);
    if (listed == NULL) return NULL;
    Py_ssize_t total, allowed;
    int worst;
    lister_t lister = {emit_tuple, listed};
    int r = walk_groups(&t, args[0], 0, groups, edits_matter, limit, &lister, &total, &allowed,
                        &worst, &sk);
    if (r != 0) {
        Py_DECREF(listed);
        if (r < 0) return NULL;
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(Nnni)", listed, total, allowed, worst);
}


/* list_findings' lister: each group it lists becomes one Finding (sanitizer._policy.
 * _model), made as new_finding makes it: object.__new__, then its instance dict filled
 * from its class's template (every field, in the dataclass's order) with start and end
 * set, and codepoint for a one-character group; a longer group's detail (what the run
 * spells) is the caller's to say: (finding, start, end), text indices, goes to `pending`.
 * Offsets are text indices, or with `utf8` byte offsets into the input: the UTF-8 length
 * of the text before, where the U+FFFD at text index at[k] stands for an ill-formed
 * subpart of bytes[k] bytes (RFC 3629 §3: between those, the text re-encodes to exactly
 * the input).  Groups that start after text index `last` are counted, not listed. */
typedef struct {
    int kind;
    const void *data;
    PyTypeObject *type;
    PyObject *templates, *empty, *k_start, *k_end, *k_codepoint, *findings, *pending;
    int utf8, runs; /* runs: list_mark_runs' (no codepoint, nothing pending) */
    Py_ssize_t *anchors; /* at[0], bytes[0], at[1], bytes[1], ... (copied from two lists) */
    Py_ssize_t nanchors, next, t, b, last, listed_allowed, bar_start, bar_end;
} finding_lister_t;

/* UTF-8 length of text[from:to] (a lone surrogate: 3 bytes, as "surrogatepass"). */
static Py_ssize_t
utf8_span(int kind, const void *data, Py_ssize_t from, Py_ssize_t to)
{
    Py_ssize_t n = to - from;
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *p = (const Py_UCS1 *)data;
        for (Py_ssize_t i = from; i < to; i++) n += p[i] >> 7;
    } else if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *p = (const Py_UCS2 *)data;
        for (Py_ssize_t i = from; i < to; i++) n += (p[i] >= 0x80) + (p[i] >= 0x800);
    } else {
        const Py_UCS4 *p = (const Py_UCS4 *)data;
        for (Py_ssize_t i = from; i < to; i++)
            n += (p[i] >= 0x80) + (p[i] >= 0x800) + (p[i] >= 0x10000);
    }
    return n;
}

/* The byte offset of text index i (queries never decrease). */
static Py_ssize_t
byte_offset(finding_lister_t *L, Py_ssize_t i)
{
    while (L->next < L->nanchors && L->anchors[2 * L->next] < i) {
        Py_ssize_t at = L->anchors[2 * L->next];
        L->b += utf8_span(L->kind, L->data, L->t, at) + L->anchors[2 * L->next + 1];
        L->t = at + 1;
        L->next++;
    }
    L->b += utf8_span(L->kind, L->data, L->t, i);
    L->t = i;
    return L->b;
}

static int
set_offset(PyObject *d, PyObject *key, Py_ssize_t value)
{
    PyObject *v = PyLong_FromSsize_t(value);
    if (v == NULL) return -1;
    int r = PyDict_SetItem(d, key, v);
    Py_DECREF(v);
    return r;
}

static int
emit_finding(void *ctx, Py_ssize_t start, Py_ssize_t end, unsigned int c, int severity)
{
    finding_lister_t *L = (finding_lister_t *)ctx;
    if (start > L->last) return 1;
    if ((Py_ssize_t)c >= PyTuple_GET_SIZE(L->templates) ||
        !PyDict_CheckExact(PyTuple_GET_ITEM(L->templates, c))) {
        PyErr_Format(PyExc_ValueError, "list_findings(): no finding template for class %u", c);
        return -1;
    }
    Py_ssize_t s = start, e = end;
    if (L->utf8) {
        s = byte_offset(L, start);
        e = byte_offset(L, end);
    }
    PyObject *f = PyBaseObject_Type.tp_new(L->type, L->empty, NULL);
    if (f == NULL) return -1;
    PyObject *d = PyObject_GenericGetDict(f, NULL);
    if (d == NULL) goto fail;
    if (PyDict_Update(d, PyTuple_GET_ITEM(L->templates, c)) < 0 ||
        set_offset(d, L->k_start, s) < 0 || set_offset(d, L->k_end, e) < 0)
        goto fail;
    if (end - start == 1 && !L->runs) {
        PyObject *cp = PyLong_FromUnsignedLong(PyUnicode_READ(L->kind, L->data, start));
        if (cp == NULL) goto fail;
        int r = PyDict_SetItem(d, L->k_codepoint, cp);
        Py_DECREF(cp);
        if (r < 0) goto fail;
    } else if (L->pending != NULL) {
        PyObject *item = Py_BuildValue("(Onn)", f, start, end);
        if (item == NULL || PyList_Append(L->pending, item) < 0) {
            Py_XDECREF(item);
            goto fail;
        }
        Py_DECREF(item);
    }
    if (PyList_Append(L->findings, f) < 0) goto fail;
    Py_DECREF(d);
    Py_DECREF(f);
    L->listed_allowed += severity == 0;
    L->bar_start = start;
    L->bar_end = end;
    return 0;
fail:
    Py_XDECREF(d);
    Py_DECREF(f);
    return -1;
}

/* The lister's anchors from `anchors` (None, or two lists of one length: see
 * finding_lister_t), copied; -1 with an exception when they do not hold. */
static int
load_anchors(finding_lister_t *L, PyObject *anchors, const char *name)
{
    if (anchors == Py_None) return 0;
    if (!PyTuple_CheckExact(anchors) || PyTuple_GET_SIZE(anchors) != 2 ||
        !PyList_CheckExact(PyTuple_GET_ITEM(anchors, 0)) ||
        !PyList_CheckExact(PyTuple_GET_ITEM(anchors, 1)) ||
        PyList_GET_SIZE(PyTuple_GET_ITEM(anchors, 0)) !=
            PyList_GET_SIZE(PyTuple_GET_ITEM(anchors, 1))) {
        PyErr_Format(PyExc_TypeError, "%s() anchors must be None or two lists of one length",
                     name);
        return -1;
    }
    L->utf8 = 1;
    PyObject *at = PyTuple_GET_ITEM(anchors, 0), *size = PyTuple_GET_ITEM(anchors, 1);
    Py_ssize_t m = PyList_GET_SIZE(at);
    if (m == 0) return 0;
    L->anchors = PyMem_New(Py_ssize_t, 2 * m);
    if (L->anchors == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < m; k++) {
        L->anchors[2 * k] = PyLong_AsSsize_t(PyList_GET_ITEM(at, k));
        if (L->anchors[2 * k] == -1 && PyErr_Occurred()) return -1;
        L->anchors[2 * k + 1] = PyLong_AsSsize_t(PyList_GET_ITEM(size, k));
        if (L->anchors[2 * k + 1] == -1 && PyErr_Occurred()) return -1;
        if (k > 0 && L->anchors[2 * k] <= L->anchors[2 * k - 2]) {
            PyErr_Format(PyExc_ValueError, "%s() anchors must increase", name);
            return -1;
        }
    }
    L->nanchors = m;
    return 0;
}

/*
 * list_findings(text, stage1, stage2, tables, limit, groups, edits_matter, made, anchors,
 * last) -> (findings, pending, more, allowed, worst, bar) | None: list_groups' first
 * `limit` groups (of those starting at or before text index `last`) as Findings, made =
 * (Finding, a template dict or None by class), at text indices (anchors None) or at byte
 * offsets into the input (anchors: two lists of its ill-formed subparts, the text index
 * of each one's U+FFFD and its length in bytes, see finding_lister_t); the multi-character ones also as (finding, start, end) in
 * `pending`, their detail unset; how many more there are, how many of all are ALLOW,
 * the highest severity (-1: none) and the last listed group's (start, end) in text
 * indices (None: none listed).  None when only the engine can tell.  The pure-Python
 * statement is sanitizer._policy._listing.findings_reference.
 */
PyObject *
speedups_list_findings(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError,
                        "list_findings(text, stage1, stage2, tables, limit, groups, "
                        "edits_matter, made, anchors, last) takes 10 arguments");
        return NULL;
    }
    scan_tables_t t;
    const unsigned char *groups;
    if (text_and_tables(self, args, "list_findings", &t, 5, "groups", &groups) < 0)
        return NULL;
    Py_ssize_t limit = PyLong_AsSsize_t(args[4]);
    if (limit == -1 && PyErr_Occurred()) return NULL;
    if (limit < -1) {
        PyErr_SetString(PyExc_ValueError, "list_findings() limit must be >= -1");
        return NULL;
    }
    int edits_matter = PyObject_IsTrue(args[6]);
    if (edits_matter < 0) return NULL;
    PyObject *made = args[7], *anchors = args[8];
    if (!PyTuple_CheckExact(made) || PyTuple_GET_SIZE(made) != 2 ||
        !PyType_Check(PyTuple_GET_ITEM(made, 0)) ||
        !PyTuple_CheckExact(PyTuple_GET_ITEM(made, 1))) {
        PyErr_SetString(PyExc_TypeError, "list_findings() made must be (type, tuple)");
        return NULL;
    }
    Py_ssize_t last = PyLong_AsSsize_t(args[9]);
    if (last == -1 && PyErr_Occurred()) return NULL;
    finding_lister_t L = {0};
    L.kind = PyUnicode_KIND(args[0]);
    L.data = PyUnicode_DATA(args[0]);
    L.type = (PyTypeObject *)PyTuple_GET_ITEM(made, 0);
    L.templates = PyTuple_GET_ITEM(made, 1);
    L.last = last;
    L.bar_start = -1;
    PyObject *result = NULL;
    if (load_anchors(&L, anchors, "list_findings") < 0) goto done;
    L.empty = PyTuple_New(0);
    L.k_start = PyUnicode_InternFromString("start");
    L.k_end = PyUnicode_InternFromString("end");
    L.k_codepoint = PyUnicode_InternFromString("codepoint");
    L.findings = PyList_New(0);
    L.pending = PyList_New(0);
    if (L.empty == NULL || L.k_start == NULL || L.k_end == NULL || L.k_codepoint == NULL ||
        L.findings == NULL || L.pending == NULL)
        goto done;
    lister_t lister = {emit_finding, &L};
    Py_ssize_t total, allowed;
    int worst;
    int r = walk_groups(&t, args[0], 0, groups, edits_matter, limit, &lister, &total,
                        &allowed, &worst, NULL);
    if (r < 0) goto done;
    if (r > 0) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    if (L.bar_start < 0)
        result = Py_BuildValue("(OOnniO)", L.findings, L.pending, total,
                               allowed + L.listed_allowed, worst, Py_None);
    else
        result = Py_BuildValue("(OOnni(nn))", L.findings, L.pending, total,
                               allowed + L.listed_allowed, worst, L.bar_start, L.bar_end);
done:
    PyMem_Free(L.anchors);
    Py_XDECREF(L.empty);
    Py_XDECREF(L.k_start);
    Py_XDECREF(L.k_end);
    Py_XDECREF(L.k_codepoint);
    Py_XDECREF(L.findings);
    Py_XDECREF(L.pending);
    return result;
}

/*
 * list_mark_runs(text, stage1, stage2, tables, max_run, start, limit, made, anchors, last)
 * -> (findings, more): the runs count_mark_runs counts from start on (each from its first
 * mark, the max_run+1-th one found by scan() less max_run, to its last), the first `limit`
 * of them (-1: all) that start at or before text index `last` as Findings made from
 * made = (Finding, the template dict of a COMBINING_RUN finding), at text indices (anchors
 * None) or at byte offsets into the input (anchors: as list_findings'); how many others
 * there are.  The engine lists the runs of marks over the limit without a Python step
 * a run; the pure-Python statement is sanitizer._policy._listing.mark_runs_reference.
 */
PyObject *
speedups_list_mark_runs(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError,
                        "list_mark_runs(text, stage1, stage2, tables, max_run, start, limit, "
                        "made, anchors, last) takes 10 arguments");
        return NULL;
    }
    scan_tables_t t;
    Py_ssize_t max_run, start;
    if (scan_call_args(self, args, 6, "list_mark_runs", &t, &max_run, &start) < 0) return NULL;
    if (max_run < 0) {
        PyErr_SetString(PyExc_ValueError, "list_mark_runs() max_run must be >= 0");
        return NULL;
    }
    Py_ssize_t limit = PyLong_AsSsize_t(args[6]);
    if (limit == -1 && PyErr_Occurred()) return NULL;
    if (limit < -1) {
        PyErr_SetString(PyExc_ValueError, "list_mark_runs() limit must be >= -1");
        return NULL;
    }
    PyObject *made = args[7];
    if (!PyTuple_CheckExact(made) || PyTuple_GET_SIZE(made) != 2 ||
        !PyType_Check(PyTuple_GET_ITEM(made, 0)) ||
        !PyDict_CheckExact(PyTuple_GET_ITEM(made, 1))) {
        PyErr_SetString(PyExc_TypeError, "list_mark_runs() made must be (type, dict)");
        return NULL;
    }
    Py_ssize_t last = PyLong_AsSsize_t(args[9]);
    if (last == -1 && PyErr_Occurred()) return NULL;
    PyObject *text = args[0];
    finding_lister_t L = {0};
    L.kind = PyUnicode_KIND(text);
    L.data = PyUnicode_DATA(text);
    L.type = (PyTypeObject *)PyTuple_GET_ITEM(made, 0);
    L.last = last;
    L.runs = 1;
    PyObject *result = NULL;
    if (load_anchors(&L, args[8], "list_mark_runs") < 0) goto done;
    L.templates = PyTuple_Pack(1, PyTuple_GET_ITEM(made, 1));
    L.empty = PyTuple_New(0);
    L.k_start = PyUnicode_InternFromString("start");
    L.k_end = PyUnicode_InternFromString("end");
    L.k_codepoint = PyUnicode_InternFromString("codepoint");
    L.findings = PyList_New(0);
    if (L.templates == NULL || L.empty == NULL || L.k_start == NULL || L.k_end == NULL ||
        L.k_codepoint == NULL || L.findings == NULL)
        goto done;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), listed = 0, more = 0, i = start;
    while ((i = scan_text(&t, text, i, max_run)) < n) {
        Py_ssize_t first = i - max_run;
        for (i++; i < n && (t.flags[CLASS_OF(&t, PyUnicode_READ(L.kind, L.data, i))] & 2); i++)
            ;
        if ((limit < 0 || listed < limit) && first <= last) {
            if (emit_finding(&L, first, i, 0, -1) < 0) goto done;
            listed++;
        } else {
            more++;
        }
    }
    result = Py_BuildValue("(On)", L.findings, more);
done:
    PyMem_Free(L.anchors);
    Py_XDECREF(L.templates);
    Py_XDECREF(L.empty);
    Py_XDECREF(L.k_start);
    Py_XDECREF(L.k_end);
    Py_XDECREF(L.k_codepoint);
    Py_XDECREF(L.findings);
    return result;
}

/* word_marks's byte per class (sanitizer._policy._reveal.word_mark_kinds). */
#define WM_BIT 1     /* a bit symbol (_reveal.BITS) */
#define WM_BLANK 2   /* a space or a line break (_reveal.BLANKS) */
#define WM_JOINER 4  /* a joiner: after a virama it is no mark */
#define WM_MARK 8    /* a combining mark: maybe a virama (only Python tells) */

#define WM_KIND(t, kinds, kind, data, i) ((kinds)[CLASS_OF(t, PyUnicode_READ(kind, data, i))])

/* The first j in [from, stop) (from >= 1) where a bit symbol follows a character that is
 * neither one nor blank and is followed by a blank or by `stop` (the end the search sees:
 * the pattern _reveal._word_end_pattern searched with endpos `stop`), or -1; *gap: the
 * runs of blanks in [from, j) (in [from, stop) when none), a run cut at `from` counted
 * (re's findall there).  One pass, each character's kind read once. */
#define WM_NEXT(NAME, TYPE)                                                              \
    static Py_ssize_t NAME(const scan_tables_t *t, const unsigned char *kinds,            \
                           const TYPE *s, Py_ssize_t from, Py_ssize_t stop, Py_ssize_t *gap) \
    {                                                                                    \
        Py_ssize_t runs = 0;                                                             \
        if (from >= stop) {                                                              \
            *gap = 0;                                                                    \
            return -1;                                                                   \
        }                                                                                \
        unsigned int prev = kinds[CLASS_OF(t, s[from - 1])], cur = kinds[CLASS_OF(t, s[from])]; \
        unsigned int blank_before = 0; /* (a run cut at `from` is counted) */             \
        Py_ssize_t last = stop - 1;                                                      \
        for (Py_ssize_t j = from; j < last; j++) {                                       \
            unsigned int next = kinds[CLASS_OF(t, s[j + 1])];                            \
            if ((cur & WM_BIT) && !(prev & (WM_BIT | WM_BLANK)) &&                     \
                (next & WM_BLANK)) {                                                     \
                *gap = runs;                                                             \
                return j;                                                                \
            }                                                                            \
            unsigned int blank = (cur / WM_BLANK) & 1; /* (no branch a blank) */          \
            runs += blank & (blank_before ^ 1);                                          \
            blank_before = blank;                                                        \
            prev = cur;                                                                  \
            cur = next;                                                                  \
        }                                                                                \
        /* the last character: followed by the end the search sees */                   \
        if ((cur & WM_BIT) && !(prev & (WM_BIT | WM_BLANK))) {                           \
            *gap = runs;                                                                 \
            return last;                                                                 \
        }                                                                                \
        runs += ((cur / WM_BLANK) & 1) & (blank_before ^ 1);                             \
        *gap = runs;                                                                     \
        return -1;                                                                       \
    }

WM_NEXT(wm_next_ucs1, Py_UCS1)
WM_NEXT(wm_next_ucs2, Py_UCS2)
WM_NEXT(wm_next_ucs4, Py_UCS4)

static Py_ssize_t
wm_next(const scan_tables_t *t, const unsigned char *kinds, int kind, const void *data,
        Py_ssize_t from, Py_ssize_t stop, Py_ssize_t *gap)
{
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        return wm_next_ucs1(t, kinds, (const Py_UCS1 *)data, from, stop, gap);
    case PyUnicode_2BYTE_KIND:
        return wm_next_ucs2(t, kinds, (const Py_UCS2 *)data, from, stop, gap);
    default:
        return wm_next_ucs4(t, kinds, (const Py_UCS4 *)data, from, stop, gap);
    }
}

/*
 * word_marks(text, stage1, stage2, tables, kinds, start, near, max_gap) ->
 * (symbols, last, words, every_word, end) | None: the stretch of bit symbols put after
 * words that begins with the mark at `start`, as sanitizer._policy._reveal.
 * _stretch_reference reads it: its marks (a str, in order), the index of the last, the
 * words it spans, whether each has a mark, and where it ends.  None when a mark it meets is a joiner after a combining mark (a
 * virama, UAX #31 §2.3, only Python tells).  `tables`: any valid policy tables (the class
 * table is checked with them); `kinds`: WM_* by class.
 */
PyObject *
speedups_word_marks(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "word_marks(text, stage1, stage2, tables, kinds, "
                                         "start, near, max_gap) takes 8 arguments");
        return NULL;
    }
    scan_tables_t t;
    const unsigned char *kinds;
    if (text_and_tables(self, args, "word_marks", &t, 4, "kinds", &kinds) < 0) return NULL;
    Py_ssize_t start = PyLong_AsSsize_t(args[5]);
    if (start == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t near = PyLong_AsSsize_t(args[6]);
    if (near == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t max_gap = PyLong_AsSsize_t(args[7]);
    if (max_gap == -1 && PyErr_Occurred()) return NULL;
    if (READY(args[0]) < 0) return NULL;
    PyObject *text = args[0];
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (start < 0 || start >= n || near < 1 || max_gap < 0) {
        PyErr_SetString(PyExc_ValueError, "word_marks() argument out of range");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t cap = 64, count = 0, words = 1, pos = start, end;
    int every_word = 1;
    Py_UCS4 *marks = PyMem_Malloc(cap * sizeof(Py_UCS4));
    if (marks == NULL) return PyErr_NoMemory();
    marks[count++] = PyUnicode_READ(kind, data, start);
    for (;;) {
        Py_ssize_t lim = pos + near < n ? pos + near : n;
        Py_ssize_t gap;
        Py_ssize_t j = wm_next(&t, kinds, kind, data, pos + 1, lim, &gap);
        if (j < 0) gap = 0;
        int joiner = j >= 0 && (WM_KIND(&t, kinds, kind, data, j) & WM_JOINER) &&
                     (WM_KIND(&t, kinds, kind, data, j - 1) & WM_MARK);
        if (joiner) goto engine;
        if (j < 0 || gap - 1 > max_gap) {
            /* up to max_gap + 1 words ahead (blanks, then a word): _reveal._words_ahead */
            Py_ssize_t k = pos + 1, pairs = 0;
            while (pairs < max_gap + 1 && k < n &&
                   (WM_KIND(&t, kinds, kind, data, k) & WM_BLANK)) {
                while (k < n && (WM_KIND(&t, kinds, kind, data, k) & WM_BLANK)) k++;
                while (k < n && !(WM_KIND(&t, kinds, kind, data, k) & WM_BLANK)) k++;
                pairs++;
            }
            if (pairs == 0) {
                end = n;
                break;
            }
            Py_ssize_t stop = k + 1 < n ? k + 1 : n;
            j = wm_next(&t, kinds, kind, data, pos + 1, stop, &gap);
            if (j >= 0 && (WM_KIND(&t, kinds, kind, data, j) & WM_JOINER) &&
                (WM_KIND(&t, kinds, kind, data, j - 1) & WM_MARK))
                goto engine;
            if (j < 0) {
                end = k;
                break;
            }
        }
        words += gap;
        every_word = every_word && gap == 1;
        if (count == cap) {
            Py_UCS4 *more = PyMem_Realloc(marks, 2 * cap * sizeof(Py_UCS4));
            if (more == NULL) {
                PyMem_Free(marks);
                return PyErr_NoMemory();
            }
            marks = more;
            cap *= 2;
        }
        marks[count++] = PyUnicode_READ(kind, data, j);
        pos = j;
    }
    PyObject *symbols = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, marks, count);
    PyMem_Free(marks);
    if (symbols == NULL) return NULL;
    return Py_BuildValue("(Nnnin)", symbols, pos, words, every_word, end);
engine:
    PyMem_Free(marks);
    Py_RETURN_NONE;
}


/*
 * reveal_scan(text, stage1, stage2, tables, kinds, ivd, start) -> int: scan() with
 * reveal's tables, going past every lone VS17..VS256 (no selector beside it) that makes
 * a registered ideographic variation sequence with the character before it (UTS #37):
 * where reveal finds nothing, as sanitizer._policy._reveal.reveal_scan_reference says.
 * `kinds`: the WM_* bytes by class (WM_SELECTOR: a selector); `ivd`: uint32 words: the
 * first selector, the number m of selectors, m + 1 offsets into the bounds that follow,
 * and for each selector its registered bases as sorted bounds lo0, hi0 + 1, lo1, ...
 */
#define WM_SELECTOR 16
#define WM_TAG 32        /* a tag character (_reveal.TAGS) */
#define WM_ANNOTATION 64 /* a class of the interlinear annotation characters */

typedef struct {
    uint32_t first, m;
    const uint32_t *offsets, *bounds;
} ivd_t;

/* *v from an ivd table (checked), or -1 with ValueError. */
static int
load_ivd(PyObject *obj, ivd_t *v)
{
    if (!PyBytes_CheckExact(obj)) goto malformed;
    Py_ssize_t words = PyBytes_GET_SIZE(obj) / 4;
    const uint32_t *ivd = (const uint32_t *)PyBytes_AS_STRING(obj);
    if (PyBytes_GET_SIZE(obj) % 4 || words < 3 || ivd[1] > (uint32_t)words - 3) goto malformed;
    v->first = ivd[0];
    v->m = ivd[1];
    v->offsets = ivd + 2;
    v->bounds = ivd + 3 + v->m;
    Py_ssize_t nbounds = words - 3 - (Py_ssize_t)v->m;
    for (uint32_t k = 0; k < v->m; k++) {
        if (v->offsets[k] > v->offsets[k + 1] || v->offsets[k + 1] > (uint64_t)nbounds)
            goto malformed;
    }
    return 0;
malformed:
    PyErr_SetString(PyExc_ValueError, "malformed ivd table");
    return -1;
}

/* Whether `base` followed by the selector `ch` is listed in the table `v` (bisect_right
 * over the selector's bounds lands at an odd index): a registered sequence. */
static int
selector_listed(const ivd_t *v, Py_UCS4 base, Py_UCS4 ch)
{
    if (ch < v->first || ch - v->first >= v->m) return 0;
    uint32_t lo = v->offsets[ch - v->first], hi = v->offsets[ch - v->first + 1], start = lo;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (base < v->bounds[mid]) hi = mid;
        else lo = mid + 1;
    }
    return (lo - start) % 2 == 1;
}

/* Pairs (base, selector) whose registration a reveal_next call remembers: a text that
 * uses ideographic variation sequences repeats its few (the names it writes). */
#define IVD_SEEN 64

/* The first candidate of reveal's scan from i on that is no lone registered VS17..VS256,
 * or n (reveal_scan).  Past a registered one, the next characters are scanned one by one
 * (scan_near) before a vector pass is set up again, and the pair is remembered: such
 * sequences come a few characters apart, and a text repeats its few (Japanese names). */
static Py_ssize_t
reveal_next(const scan_tables_t *t, const unsigned char *kinds, const ivd_t *v, int kind,
            const void *data, Py_ssize_t n, Py_ssize_t i)
{
    run_state_t rs = {-1, -1, -1};
    uint32_t seen[IVD_SEEN]; /* base << 8 | selector - first: registered (lazily zeroed) */
    int seen_ready = 0;
    for (;;) {
        /* (from 0: the whole text ahead; else just past a run or a selector) */
        Py_ssize_t j = i ? scan_near(t, kind, data, n, i, &rs) : scan_kind(t, kind, data, n, i, &rs);
        if (j >= n || j == 0) return j;
        Py_UCS4 ch = PyUnicode_READ(kind, data, j);
        if (ch < v->first || ch - v->first >= v->m) return j;
        if (WM_KIND(t, kinds, kind, data, j - 1) & WM_SELECTOR) return j;
        if (j + 1 < n && (WM_KIND(t, kinds, kind, data, j + 1) & WM_SELECTOR)) return j;
        Py_UCS4 base = PyUnicode_READ(kind, data, j - 1);
        /* (base <= 0x10FFFF: 21 bits; selector - first < 256: the key is one uint32) */
        uint32_t key = (uint32_t)base << 8 | (ch - v->first), *slot = NULL;
        if (base > 0) {
            if (!seen_ready) {
                memset(seen, 0, sizeof seen);
                seen_ready = 1;
            }
            slot = &seen[(key * 2654435761u) >> 26]; /* (64 slots: the top 6 bits) */
            if (*slot == key) {
                i = j + 1;
                continue;
            }
        }
        if (!selector_listed(v, base, ch)) return j;
        if (slot != NULL) *slot = key;
        i = j + 1;
    }
}

PyObject *
speedups_reveal_scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "reveal_scan(text, stage1, stage2, tables, kinds, "
                                         "ivd, start) takes 7 arguments");
        return NULL;
    }
    if (!PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "reveal_scan() text must be str");
        return NULL;
    }
    scan_tables_t t;
    if (load_scan_tables(state_of(self), args[1], args[2], args[3], &t) < 0) return NULL;
    Py_ssize_t i = PyLong_AsSsize_t(args[6]);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (!PyBytes_CheckExact(args[4]) || PyBytes_GET_SIZE(args[4]) != 256 ||
        !PyBytes_CheckExact(args[5])) {
        PyErr_SetString(PyExc_ValueError, "malformed reveal_scan tables");
        return NULL;
    }
    const unsigned char *kinds = (const unsigned char *)PyBytes_AS_STRING(args[4]);
    ivd_t v;
    if (load_ivd(args[5], &v) < 0) return NULL;
    if (READY(args[0]) < 0) return NULL;
    PyObject *text = args[0];
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (i < 0 || i > n) {
        PyErr_SetString(PyExc_ValueError, "start out of range");
        return NULL;
    }
    return PyLong_FromSsize_t(
        reveal_next(&t, kinds, &v, PyUnicode_KIND(text), PyUnicode_DATA(text), n, i));
}

/*
 * utf8_length(text, start, end) -> int: the UTF-8 length of text[start:end] (a lone
 * surrogate: 3 bytes, as "surrogatepass"), with no bytes made: where the engine places a
 * finding that spans much of a text (a payload) at byte offsets.  The pure-Python
 * statement is len(text[start:end].encode("utf-8", "surrogatepass")).
 */
PyObject *
speedups_utf8_length(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "utf8_length(text, start, end) takes 3 arguments");
        return NULL;
    }
    if (!PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "utf8_length() text must be str");
        return NULL;
    }
    if (READY(args[0]) < 0) return NULL;
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    if (start == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t end = PyLong_AsSsize_t(args[2]);
    if (end == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(args[0]);
    if (start < 0 || end > n || start > end) {
        PyErr_SetString(PyExc_ValueError, "utf8_length() span out of range");
        return NULL;
    }
    return PyLong_FromSsize_t(
        utf8_span(PyUnicode_KIND(args[0]), PyUnicode_DATA(args[0]), start, end));
}

/* The index of the channel of a carrier character's kinds in _reveal.CHANNEL_RANGES (0
 * tags, 1 selectors, 2 bit symbols, 3 annotations; the last listed wins, as in
 * _reveal._channels), or -1. */
static int
channel_of_kinds(unsigned int k)
{
    return k & WM_ANNOTATION ? 3 : k & WM_BIT ? 2 : k & WM_SELECTOR ? 1 : k & WM_TAG ? 0 : -1;
}

#define CHANNEL_AT(j) channel_of_kinds(WM_KIND(&t, kinds, kind, data, j))
#define WM_BIDI_MARK 128 /* a bidi mark (_reveal.c_kinds): bits on these alone are BIDI_MARK_BITS */

/* What reveal_runs needs to read the runs it can read itself (_reveal._c_reader): the
 * Hidden class, its field names, the channels (tags, selectors, zero-width bits, bidi-mark
 * bits), the registered bases of VS1..VS16 (an ivd table's layout), RUN_CAP, and where
 * byte offsets stand (at_byte < 0: code-point offsets). */
typedef struct {
    PyObject *type, *names[5], *channels[4];
    ivd_t bases;
    Py_ssize_t run_cap; /* _reveal.RUN_CAP: longer runs are Python's */
    Py_ssize_t at_index, at_byte;
} reader_t;
#define TAG_BASE 0xE0000
#define LANGUAGE_TAG 0xE0001
#define CANCEL_TAG 0xE007F
#define BLACK_FLAG 0x1F3F4

/* The offset the Hidden objects give for the index i: i, or its byte offset (the anchor
 * moves forward; an index before it is counted back from it). */
static Py_ssize_t
offset_of(reader_t *r, int kind, const void *data, Py_ssize_t i)
{
    if (r->at_byte < 0) return i;
    if (i < r->at_index) return r->at_byte - utf8_span(kind, data, i, r->at_index);
    r->at_byte += utf8_span(kind, data, r->at_index, i);
    r->at_index = i;
    return r->at_byte;
}

/* Append Hidden(start, end, channel, payload, None) to `out` (payload: a new reference,
 * stolen); -1 on error. */
static int
append_hidden(reader_t *r, PyObject *out, int kind, const void *data, Py_ssize_t start,
              Py_ssize_t end, PyObject *channel, PyObject *payload)
{
    if (payload == NULL) return -1;
    PyObject *values[5] = {NULL, NULL, channel, payload, Py_None};
    PyObject *h = NULL;
    int rc = -1;
    values[0] = PyLong_FromSsize_t(offset_of(r, kind, data, start));
    values[1] = PyLong_FromSsize_t(offset_of(r, kind, data, end));
    if (values[0] == NULL || values[1] == NULL) goto done;
    /* object.__new__(Hidden), its fields set as the dataclass's __init__ sets them */
    PyObject *no_args = PyTuple_New(0);
    if (no_args == NULL) goto done;
    h = ((PyTypeObject *)r->type)->tp_new((PyTypeObject *)r->type, no_args, NULL);
    Py_DECREF(no_args);
    if (h == NULL) goto done;
    for (int f = 0; f < 5; f++) {
        if (PyObject_GenericSetAttr(h, r->names[f], values[f]) < 0) goto done;
    }
    /* Its values are atomic (ints, bytes, a Channel, None), it is frozen: it can be in no
     * reference cycle, and the collector need not walk it (as CPython untracks tuples
     * and dicts of atomic values): a flood of payloads sets off no full collections. */
    if (PyObject_GC_IsTracked(h)) PyObject_GC_UnTrack(h);
    rc = PyList_Append(out, h);
done:
    Py_XDECREF(h);
    Py_XDECREF(values[0]);
    Py_XDECREF(values[1]);
    Py_DECREF(payload);
    return rc;
}

/* The byte a tag or selector carries (-1: a tag that frames: LANGUAGE TAG, CANCEL TAG). */
static int
carried_byte(Py_UCS4 c)
{
    if (c >= TAG_BASE && c <= CANCEL_TAG) return c == LANGUAGE_TAG || c == CANCEL_TAG ? -1 : (int)(c - TAG_BASE);
    if (c >= 0xFE00 && c <= 0xFE0F) return (int)(c - 0xFE00);
    return (int)(c - 0xE0100 + 16);
}

/* The bytes text[lo:hi] (tags or selectors) carry. */
static PyObject *
carried(int kind, const void *data, Py_ssize_t lo, Py_ssize_t hi)
{
    Py_ssize_t m = 0;
    for (Py_ssize_t i = lo; i < hi; i++) m += carried_byte(PyUnicode_READ(kind, data, i)) >= 0;
    PyObject *out = PyBytes_FromStringAndSize(NULL, m);
    if (out == NULL) return NULL;
    char *p = PyBytes_AS_STRING(out);
    for (Py_ssize_t i = lo; i < hi; i++) {
        int b = carried_byte(PyUnicode_READ(kind, data, i));
        if (b >= 0) *p++ = (char)b;
    }
    return out;
}

/* Whether the selector text[i] makes a legitimate sequence with its base
 * (_reveal._selector_ok): VS1..VS16 by `r->bases`, VS17..VS256 by the IVD `v`. */
static int
selector_ok(const reader_t *r, const ivd_t *v, int kind, const void *data, Py_ssize_t i)
{
    if (i == 0) return 0;
    Py_UCS4 base = PyUnicode_READ(kind, data, i - 1), ch = PyUnicode_READ(kind, data, i);
    return ch >= 0xE0100 ? selector_listed(v, base, ch) : selector_listed(&r->bases, base, ch);
}

/* Read the carrier run text[s:e] of channel k into `out` when it reads mechanically (the
 * statement is _reveal._reads_in_c): 1 read (maybe nothing to append), 0 Python reads
 * it, -1 error. */
static int
read_run_c(reader_t *r, const ivd_t *v, const scan_tables_t *tp, const unsigned char *kinds,
           PyObject *out, int kind, const void *data, Py_ssize_t s, Py_ssize_t e, int k)
{
    if (e - s > r->run_cap) return 0;
    if (k == 0) { /* tags, cut after each CANCEL TAG; after U+1F3F4 maybe an RGI flag */
        if (s > 0 && PyUnicode_READ(kind, data, s - 1) == BLACK_FLAG) return 0;
        Py_ssize_t piece = s;
        while (piece < e) {
            Py_ssize_t stop = piece;
            while (stop < e && PyUnicode_READ(kind, data, stop) != CANCEL_TAG) stop++;
            stop = stop < e ? stop + 1 : e;
            if (append_hidden(r, out, kind, data, piece, stop, r->channels[0],
                              carried(kind, data, piece, stop)) < 0)
                return -1;
            piece = stop;
        }
        return 1;
    }
    if (k == 1) { /* selectors: one byte each, unless the first makes a sequence */
        if (!selector_ok(r, v, kind, data, s)) {
            return append_hidden(r, out, kind, data, s, e, r->channels[1],
                                 carried(kind, data, s, e)) < 0 ? -1 : 1;
        }
        return e - s == 1 ? 1 : 0; /* more after a legitimate one: weighed in Python */
    }
    /* bits: fewer than MIN_BITS, or one symbol: nothing; more than three symbols even
     * with a symbol left out at either end: no reading, an empty payload */
    if (e - s < 8) return 1;
    Py_UCS4 seen[4];
    int distinct = 0, marks = 1;
    for (Py_ssize_t i = s + 1; i < e - 1 && distinct < 4; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        int known = 0;
        for (int q = 0; q < distinct; q++) known |= seen[q] == c;
        if (!known) seen[distinct++] = c;
    }
    if (distinct < 4) {
        Py_UCS4 c0 = PyUnicode_READ(kind, data, s);
        for (Py_ssize_t i = s + 1; i < e; i++) {
            if (PyUnicode_READ(kind, data, i) != c0) return 0;
        }
        return 1; /* one symbol */
    }
    for (Py_ssize_t i = s; i < e && marks; i++) {
        marks = (kinds[CLASS_OF(tp, PyUnicode_READ(kind, data, i))] & WM_BIDI_MARK) != 0;
    }
    return append_hidden(r, out, kind, data, s, e, r->channels[marks ? 3 : 2],
                         PyBytes_FromStringAndSize("", 0)) < 0 ? -1 : 1;
}

/* *r from reveal_runs' `reader` argument (checked), or -1 with an error. */
static int
load_reader(PyObject *obj, reader_t *r)
{
    if (!PyTuple_CheckExact(obj) || PyTuple_GET_SIZE(obj) != 5 ||
        !PyType_Check(PyTuple_GET_ITEM(obj, 0)) || !PyTuple_CheckExact(PyTuple_GET_ITEM(obj, 1)) ||
        PyTuple_GET_SIZE(PyTuple_GET_ITEM(obj, 1)) != 5 ||
        !PyTuple_CheckExact(PyTuple_GET_ITEM(obj, 2)) || PyTuple_GET_SIZE(PyTuple_GET_ITEM(obj, 2)) != 4) {
        PyErr_SetString(PyExc_ValueError, "malformed reveal_runs reader");
        return -1;
    }
    r->type = PyTuple_GET_ITEM(obj, 0);
    for (int f = 0; f < 5; f++) {
        r->names[f] = PyTuple_GET_ITEM(PyTuple_GET_ITEM(obj, 1), f);
        if (!PyUnicode_CheckExact(r->names[f])) {
            PyErr_SetString(PyExc_ValueError, "malformed reveal_runs reader");
            return -1;
        }
    }
    for (int c = 0; c < 4; c++) r->channels[c] = PyTuple_GET_ITEM(PyTuple_GET_ITEM(obj, 2), c);
    r->run_cap = PyLong_AsSsize_t(PyTuple_GET_ITEM(obj, 4));
    if (r->run_cap == -1 && PyErr_Occurred()) return -1;
    return load_ivd(PyTuple_GET_ITEM(obj, 3), &r->bases);
}

/*
 * reveal_runs(text, stage1, stage2, tables, kinds, ivd, ivd_on, start, done, limit, reader,
 * at_index, at_byte) -> (items, next, done, at_index, at_byte): _reveal.iter_find's walk
 * from the candidate `start` (`done`: where the last run it read ended), in one pass: the
 * carrier runs it reads, at most `limit` of them, and the candidate where it stopped: at
 * `limit`, the end, or one only Python reads (an annotation or a character of its class,
 * a lone bit symbol, the first VS17..VS256 while not `ivd_on`).  The next candidate is
 * reveal_scan's when `ivd_on`, scan()'s else.  A run is an item (start, end, channel) for
 * Python to read, or, with a `reader` (None: every run is Python's), the Hidden objects
 * of a run that reads mechanically (_reveal._reads_in_c), with byte offsets when
 * at_byte >= 0 (at_byte: the byte offset of the index at_index, an anchor that moves on
 * and is returned).  The pure-Python statement is _reveal.reveal_runs_reference.
 */
PyObject *
speedups_reveal_runs(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 13) {
        PyErr_SetString(PyExc_TypeError, "reveal_runs(text, stage1, stage2, tables, kinds, "
                                         "ivd, ivd_on, start, done, limit, reader, at_index, "
                                         "at_byte) takes 13 arguments");
        return NULL;
    }
    scan_tables_t t;
    const unsigned char *kinds;
    if (text_and_tables(self, args, "reveal_runs", &t, 4, "kinds", &kinds) < 0) return NULL;
    ivd_t v;
    if (load_ivd(args[5], &v) < 0) return NULL;
    int ivd_on = PyObject_IsTrue(args[6]);
    if (ivd_on < 0) return NULL;
    Py_ssize_t j = PyLong_AsSsize_t(args[7]);
    if (j == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t done = PyLong_AsSsize_t(args[8]);
    if (done == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t limit = PyLong_AsSsize_t(args[9]);
    if (limit == -1 && PyErr_Occurred()) return NULL;
    reader_t r;
    int reading = args[10] != Py_None;
    if (reading && load_reader(args[10], &r) < 0) return NULL;
    r.at_index = PyLong_AsSsize_t(args[11]);
    if (r.at_index == -1 && PyErr_Occurred()) return NULL;
    r.at_byte = PyLong_AsSsize_t(args[12]);
    if (r.at_byte == -1 && PyErr_Occurred()) return NULL;
    PyObject *text = args[0];
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (j < 0 || j > n || done < 0 || done > j || limit < 0 || r.at_index < 0 ||
        r.at_index > n) {
        PyErr_SetString(PyExc_ValueError, "reveal_runs() argument out of range");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    ivd_t none = {0, 0, v.offsets, v.bounds}; /* no selector past: scan() alone */
    const ivd_t *next = ivd_on ? &v : &none;
    PyObject *items = PyList_New(0);
    if (items == NULL) return NULL;
    Py_ssize_t count = 0; /* runs read */
    while (j < n && count < limit) {
        int k = CHANNEL_AT(j);
        if (k < 0) { /* no carrier (the scan's rules stop at nothing else) */
            done = j + 1;
            j = reveal_next(&t, kinds, next, kind, data, n, j + 1);
            continue;
        }
        if (k == 3) break;
        Py_ssize_t s = j, e = j + 1;
        while (s > done && CHANNEL_AT(s - 1) == k) s--;
        while (e < n && CHANNEL_AT(e) == k) e++;
        if (k == 1 && !ivd_on && PyUnicode_READ(kind, data, j) >= v.first) break;
        if (k == 2 && e - s == 1) break;
        int in_c = reading ? read_run_c(&r, &v, &t, kinds, items, kind, data, s, e, k) : 0;
        if (in_c < 0) goto error;
        if (!in_c) {
            PyObject *run = Py_BuildValue("(nni)", s, e, k);
            if (run == NULL || PyList_Append(items, run) < 0) {
                Py_XDECREF(run);
                goto error;
            }
            Py_DECREF(run);
        }
        count++;
        done = e;
        j = reveal_next(&t, kinds, next, kind, data, n, e);
    }
    return Py_BuildValue("(Nnnnn)", items, j, done, r.at_index, r.at_byte);
error:
    Py_DECREF(items);
    return NULL;
}

/* payload_spans's byte per class: a bit symbol that a reading may leave out at a run's
 * end where it stands legitimately (a joiner, a bidi mark: _reveal._legitimate_here),
 * and an emoji (a base of VS15/VS16 presentation sequences). */
#define PS_END_SYMBOL 1
#define PS_EMOJI 2
#define PS_RUN_CAP ((Py_ssize_t)1 << 16) /* _reveal.RUN_CAP */
#define PS_CANCEL_TAG 0xE007F
#define PS_VS15 0xFE0E
#define PS_VS16 0xFE0F

/* Whether `sel` after `base` is registered in `v` (bisect_right lands at an odd index);
 * 0 when `sel` is not one of v's selectors. */
static int
ps_registered(const ivd_t *v, Py_UCS4 base, Py_UCS4 sel)
{
    if (sel < v->first || sel - v->first >= v->m) return 0;
    uint32_t lo = v->offsets[sel - v->first], hi = v->offsets[sel - v->first + 1], start = lo;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (base < v->bounds[mid]) hi = mid;
        else lo = mid + 1;
    }
    return (lo - start) % 2 == 1;
}

/* Whether the scan of `t` stops at character i (one of 2 or 4 bytes: a selector). */
static int
ps_flagged(const scan_tables_t *t, int kind, const void *data, Py_ssize_t n, Py_ssize_t i)
{
    run_state_t rs = {-1, -1, -1};
    if (kind == PyUnicode_2BYTE_KIND)
        return scan_ucs2_part(t, (const Py_UCS2 *)data, n, i, i + 1, &rs) == i;
    return scan_ucs4_part(t, (const Py_UCS4 *)data, n, i, i + 1, &rs) == i;
}

/*
 * payload_spans(text, stage1, stage2, tables, kinds, ivd, vs, ends, policy, start) ->
 * (spans, held, count) | None: the carrier runs _reveal.iter_find reads from `start` on
 * (a run read before it ends at or before it), as sorted int64 [start, end) bounds of
 * the runs that hold payloads, how many payloads each holds (int64) and in all, without
 * reading one: a tag
 * run holds one a piece (cut after each CANCEL TAG; no tag base in the text, so none is
 * an RGI tag sequence), a selector run one (one selector: unless it makes a registered
 * sequence: `ivd` for VS17..VS256, `vs` in the same layout for VS1..VS16, VS15/VS16 after
 * an emoji), a run of 8 or more bit symbols of two or more symbols one.  None where only
 * Python tells a payload's span or whether there is one: an annotation, a lone bit
 * symbol (maybe marks after words), a run longer than RUN_CAP, a bit run whose end
 * symbol a reading may leave out (`ends`), a selector run whose first selector may make
 * a legitimate sequence and is flagged by `policy` (the policy's scan tables: the
 * payload's span then decides whether that hit is a finding of its own).  The
 * pure-Python statement is sanitizer._policy._carrier_runs.payload_spans_reference.
 */
PyObject *
speedups_payload_spans(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "payload_spans(text, stage1, stage2, tables, kinds, "
                                         "ivd, vs, ends, policy, start) takes 10 arguments");
        return NULL;
    }
    scan_tables_t t, pt;
    const unsigned char *kinds;
    if (text_and_tables(self, args, "payload_spans", &t, 4, "kinds", &kinds) < 0) return NULL;
    ivd_t v, vs;
    if (load_ivd(args[5], &v) < 0 || load_ivd(args[6], &vs) < 0) return NULL;
    if (!PyBytes_CheckExact(args[7]) || PyBytes_GET_SIZE(args[7]) != 256) {
        PyErr_SetString(PyExc_ValueError, "malformed ends table");
        return NULL;
    }
    const unsigned char *ends = (const unsigned char *)PyBytes_AS_STRING(args[7]);
    if (load_scan_tables(state_of(self), args[1], args[2], args[8], &pt) < 0) return NULL;
    Py_ssize_t j = PyLong_AsSsize_t(args[9]);
    if (j == -1 && PyErr_Occurred()) return NULL;
    PyObject *text = args[0];
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (j < 0 || j > n) {
        PyErr_SetString(PyExc_ValueError, "payload_spans() start out of range");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    /* the results, written where they are returned (grown by doubling: a flood of
     * payloads makes its bounds once, no copy of them made) */
    Py_ssize_t room = 32;
    PyObject *spans = PyBytes_FromStringAndSize(NULL, room * 16);
    PyObject *held_by = PyBytes_FromStringAndSize(NULL, room * 8);
    if (spans == NULL || held_by == NULL) goto error;
    Py_ssize_t count = 0, nspans = 0, done = j;
    j = reveal_next(&t, kinds, &v, kind, data, n, j);
    while (j < n) {
        int k = CHANNEL_AT(j);
        if (k < 0) { /* no carrier (the scan's rules stop at nothing else) */
            done = j + 1;
            j = reveal_next(&t, kinds, &v, kind, data, n, j + 1);
            continue;
        }
        if (k == 3) goto python;
        Py_ssize_t s = j, e = j + 1;
        while (s > done && CHANNEL_AT(s - 1) == k) s--;
        while (e < n && CHANNEL_AT(e) == k) e++;
        if (e - s > PS_RUN_CAP) goto python;
        Py_ssize_t held = 0;
        if (k == 0) { /* tags: a piece a CANCEL TAG, and the rest */
            for (Py_ssize_t i = s; i < e; i++)
                held += PyUnicode_READ(kind, data, i) == PS_CANCEL_TAG;
            held += PyUnicode_READ(kind, data, e - 1) != PS_CANCEL_TAG;
        } else if (k == 1) { /* selectors */
            Py_UCS4 sel = PyUnicode_READ(kind, data, s);
            int ok = 0; /* the first makes a legitimate sequence with its base */
            if (s > 0) {
                Py_UCS4 base = PyUnicode_READ(kind, data, s - 1);
                ok = sel >= v.first ? ps_registered(&v, base, sel)
                                    : ps_registered(&vs, base, sel) ||
                                          ((sel == PS_VS15 || sel == PS_VS16) &&
                                           (ends[CLASS_OF(&t, base)] & PS_EMOJI));
            }
            if (e - s == 1) held = !ok;
            else if (ok && ps_flagged(&pt, kind, data, n, s)) goto python;
            else held = 1;
        } else { /* bit symbols */
            if (e - s == 1) goto python;
            if (e - s >= 8) {
                Py_UCS4 first = PyUnicode_READ(kind, data, s);
                for (Py_ssize_t i = s + 1; i < e && !held; i++)
                    held = PyUnicode_READ(kind, data, i) != first;
            }
            if (held && ((s > 0 && (WM_KIND(&t, ends, kind, data, s) & PS_END_SYMBOL)) ||
                         (e < n && (WM_KIND(&t, ends, kind, data, e - 1) & PS_END_SYMBOL))))
                goto python;
        }
        if (held) {
            if (nspans == room) { /* (doubling: amortized constant a span) */
                room *= 2;
                if (_PyBytes_Resize(&spans, room * 16) < 0 ||
                    _PyBytes_Resize(&held_by, room * 8) < 0)
                    goto error;
            }
            int64_t *sp = (int64_t *)PyBytes_AS_STRING(spans);
            sp[2 * nspans] = s;
            sp[2 * nspans + 1] = e;
            ((int64_t *)PyBytes_AS_STRING(held_by))[nspans++] = held;
            count += held;
        }
        done = e;
        j = reveal_next(&t, kinds, &v, kind, data, n, e);
    }
    if (_PyBytes_Resize(&spans, nspans * 16) < 0 || _PyBytes_Resize(&held_by, nspans * 8) < 0)
        goto error;
    return Py_BuildValue("(NNn)", spans, held_by, count);
python:
    Py_DECREF(spans);
    Py_DECREF(held_by);
    Py_RETURN_NONE;
error:
    Py_XDECREF(spans);
    Py_XDECREF(held_by);
    return NULL;
}

/*
 * span_members(text, stage1, stage2, tables, groups, spans) -> bytes | None: for each
 * span (int64 bounds as groups_outside takes them), two bytes: 1 + the severity of the
 * most severe flagged character it holds (0: none), and the class of the first of that
 * severity (what a hidden payload's finding takes from its members when one is more
 * severe than the payload's own action); None when one is a character only the engine
 * may judge, or one the policy strips or replaces before a character whose sequence rule
 * may then judge it otherwise (walk_groups' edits_matter).  The pure-Python statement is
 * sanitizer._policy._carrier_runs.span_members_reference.
 */
PyObject *
speedups_span_members(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "span_members(text, stage1, stage2, tables, groups, spans) takes 6 "
                        "arguments");
        return NULL;
    }
    scan_tables_t t;
    const unsigned char *groups;
    if (text_and_tables(self, args, "span_members", &t, 4, "groups", &groups) < 0)
        return NULL;
    if (!PyBytes_CheckExact(args[5]) || PyBytes_GET_SIZE(args[5]) % 16) {
        PyErr_SetString(PyExc_ValueError, "malformed spans");
        return NULL;
    }
    const int64_t *bounds = (const int64_t *)PyBytes_AS_STRING(args[5]);
    Py_ssize_t count = PyBytes_GET_SIZE(args[5]) / 16;
    PyObject *text = args[0];
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int64_t last = 0;
    for (Py_ssize_t k = 0; k < 2 * count; k++) {
        if (bounds[k] < last || (k % 2 && bounds[k] == last) || bounds[k] > n) {
            PyErr_SetString(PyExc_ValueError, "malformed spans");
            return NULL;
        }
        last = bounds[k];
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, 2 * count);
    if (out == NULL) return NULL;
    unsigned char *o = (unsigned char *)PyBytes_AS_STRING(out);
    memset(o, 0, (size_t)(2 * count));
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    run_state_t rs = {-1, -1, -1};
    for (Py_ssize_t k = 0; k < count; k++) {
        Py_ssize_t e = (Py_ssize_t)bounds[2 * k + 1];
        for (Py_ssize_t i = scan_kind(&t, kind, data, n, (Py_ssize_t)bounds[2 * k], &rs); i < e;
             i = scan_near(&t, kind, data, n, i + 1, &rs)) {
            unsigned int c = CLASS_OF(&t, PyUnicode_READ(kind, data, i));
            if (groups[c] & GROUP_ENGINE) {
                Py_DECREF(out);
                Py_RETURN_NONE;
            }
            int sev = 1 + (groups[c] & GROUP_SEVERITY);
            if ((sev == 2 || sev == 3) && i + 1 < n) {
                /* stripped or replaced: the next character's exemption may depend on it
                 * (walk_groups' edits_matter): the engine re-judges it */
                unsigned int c2 = CLASS_OF(&t, PyUnicode_READ(kind, data, i + 1));
                unsigned int r = (t.flags[c2] & 1) ? t.rule[c2] : 0;
                if ((groups[c2] & GROUP_ENGINE) || (r && t.rules[(size_t)(r - 1) * RULE_SIZE + c])) {
                    Py_DECREF(out);
                    Py_RETURN_NONE;
                }
            }
            if (sev > o[2 * k]) {
                o[2 * k] = (unsigned char)sev;
                o[2 * k + 1] = (unsigned char)c;
            }
        }
    }
    return out;
}
