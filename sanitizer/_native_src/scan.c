/*
 * The policy fast path: scan(text, stage1, stage2, tables, max_run, start) -> int and
 * clean(data, stage1, stage2, tables, max_run) -> str | None.
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
 */
#include "speedups.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdint.h>
#include <string.h>

typedef struct {
    const uint16_t *stage1;
    const unsigned char *stage2;
    const unsigned char *flags;
    const unsigned char *rule;
    const unsigned char *rules;
    const unsigned char *blk0; /* classes of U+0000..00FF */
    int threshold, nextra, nskip;
    unsigned char extras[4], skips[4];
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
static PyObject *valid_tables[VALID_CACHE];
static int valid_next = 0;

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
        if (valid_tables[k] == tables) known = 1;
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

#define CLASS_OF(t, ch) ((t)->stage2[((size_t)(t)->stage1[(ch) >> 8] << 8) | ((ch) & 0xFF)])

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

#define SCAN_WIDE(NAME, TYPE, KIND)                                                     \
    static Py_ssize_t NAME(const scan_tables_t *t, const TYPE *s, Py_ssize_t n,          \
                           Py_ssize_t i, run_state_t *rs)                                \
    {                                                                                    \
        const unsigned char *flags = t->flags;                                           \
        for (; i < n; i++) {                                                             \
            Py_UCS4 ch = s[i];                                                           \
            unsigned int c = CLASS_OF(t, ch);                                            \
            unsigned int f = flags[c];                                                   \
            if (f && flagged(t, KIND, s, n, i, c, f, rs)) return i;                      \
        }                                                                                \
        return n;                                                                        \
    }

SCAN_WIDE(scan_ucs2, Py_UCS2, PyUnicode_2BYTE_KIND)
SCAN_WIDE(scan_ucs4, Py_UCS4, PyUnicode_4BYTE_KIND)

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
    PyObject *data = args[0], *text;
    if (PyBytes_Check(data)) {
        const unsigned char *s = (const unsigned char *)PyBytes_AS_STRING(data);
        Py_ssize_t n = PyBytes_GET_SIZE(data);
        text = clean_ascii(&t, s, n);
        if (text != NULL) return text;
        if (PyErr_Occurred()) return NULL;
        text = PyUnicode_DecodeUTF8((const char *)s, n, NULL);
        if (text == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) return NULL;
            PyErr_Clear();
            Py_RETURN_NONE;
        }
    } else if (PyUnicode_Check(data)) {
        if (READY(data) < 0) return NULL;
        Py_INCREF(data);
        text = data;
    } else {
        Py_RETURN_NONE; /* other types: the caller's full path decides */
    }
    if (scan_text(&t, text, 0, max_run) != PyUnicode_GET_LENGTH(text)) {
        Py_DECREF(text);
        Py_RETURN_NONE;
    }
    return text;
}
