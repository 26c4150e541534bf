/*
 * Optional C runner for sanitizer.grammar.Machine.
 *
 * It holds no UTF-8 knowledge of its own: Python hands it the transition table compiled
 * from the RFC 3629 §4 rows in grammar.py, and it walks that table exactly as
 * sanitizer/_machine.py (the reference) does.  The two must agree byte for byte; the
 * test-suite and fuzz/fuzz_decode.py check that.  If this module cannot be built, the
 * package falls back to _machine.py.
 *
 *   spans(data, table, nclasses, pos, limit) -> list[int]   (flat start/end pairs)
 *   replace(data, table, nclasses, pos, out_spans) -> str    (U+FFFD per maximal subpart)
 *
 * It also runs the policy fast path over class tables (scan, clean; see below).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define ACCEPT 0
#define REJECT 0xFF
#define REPLACEMENT 0xFFFD

typedef struct {
    const unsigned char *classes;
    const unsigned char *masks;
    const unsigned char *trans;
    Py_ssize_t ntrans;
    int nclasses;
    int ascii_ok; /* every byte < 0x80 is a whole character in ACCEPT */
} machine_t;

/* Check the table once per call so the inner loop needs no bounds checks: every class is
 * < nclasses and every transition is REJECT or a state whose row exists. */
static int
load_machine(Py_buffer *tb, int nclasses, machine_t *m)
{
    if (nclasses <= 0 || nclasses > 255 || tb->len < 512 + nclasses ||
        (tb->len - 512) % nclasses != 0) {
        PyErr_SetString(PyExc_ValueError, "malformed machine table");
        return -1;
    }
    m->classes = (const unsigned char *)tb->buf;
    m->masks = m->classes + 256;
    m->trans = m->classes + 512;
    m->ntrans = tb->len - 512;
    m->nclasses = nclasses;
    Py_ssize_t nstates = m->ntrans / nclasses;
    for (int b = 0; b < 256; b++) {
        if (m->classes[b] >= nclasses) goto bad;
    }
    for (Py_ssize_t k = 0; k < m->ntrans; k++) {
        if (m->trans[k] != REJECT && m->trans[k] >= nstates) goto bad;
    }
    m->ascii_ok = 1;
    for (int b = 0; b < 0x80; b++) {
        if (m->trans[m->classes[b]] != ACCEPT) m->ascii_ok = 0;
    }
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "malformed machine table");
    return -1;
}

/* Append (start, end) to a Python list; -1 on error. */
static int
append_span(PyObject *list, Py_ssize_t start, Py_ssize_t end)
{
    PyObject *a = PyLong_FromSsize_t(start);
    if (a == NULL) return -1;
    int rc = PyList_Append(list, a);
    Py_DECREF(a);
    if (rc < 0) return -1;
    PyObject *b = PyLong_FromSsize_t(end);
    if (b == NULL) return -1;
    rc = PyList_Append(list, b);
    Py_DECREF(b);
    return rc;
}

/*
 * Walk data[pos:].  For each maximal subpart call append_span (when spans != NULL) and
 * write U+FFFD (when out != NULL); for each character write its code point.  Stops after
 * `limit` subparts when limit >= 0.  Returns the number of code points written, or -1.
 */
static Py_ssize_t
run(const machine_t *m, const unsigned char *s, Py_ssize_t n, Py_ssize_t pos,
    Py_ssize_t limit, PyObject *spans, Py_UCS4 *out)
{
    const unsigned char *classes = m->classes, *masks = m->masks, *trans = m->trans;
    const int nc = m->nclasses, ascii_ok = m->ascii_ok;
    Py_ssize_t i = pos, start = pos, w = 0, found = 0;
    unsigned int state = ACCEPT;
    Py_UCS4 cp = 0;

    while (i < n) {
        unsigned char byte = s[i];
        if (state == ACCEPT && byte < 0x80 && ascii_ok) {
            /* ASCII: the common case, one comparison a byte. */
            if (out != NULL) out[w] = byte;
            w++;
            i++;
            continue;
        }
        unsigned int nxt = trans[(Py_ssize_t)state * nc + classes[byte]];
        if (nxt != REJECT) {
            if (state == ACCEPT) {
                start = i;
                cp = byte & masks[byte];
            } else {
                cp = (cp << 6) | (byte & 0x3F);
            }
            state = nxt;
            i++;
            if (state == ACCEPT) {
                if (out != NULL) out[w] = cp;
                w++;
            }
            continue;
        }
        if (state == ACCEPT) {
            start = i;
            i++;
        }
        if (spans != NULL && append_span(spans, start, i) < 0) return -1;
        if (out != NULL) out[w] = REPLACEMENT;
        w++;
        found++;
        state = ACCEPT;
        if (limit >= 0 && found >= limit) return w;
    }
    if (state != ACCEPT) {
        if (spans != NULL && append_span(spans, start, n) < 0) return -1;
        if (out != NULL) out[w] = REPLACEMENT;
        w++;
    }
    return w;
}

static PyObject *
speedups_spans(PyObject *self, PyObject *args)
{
    Py_buffer data, table;
    int nclasses;
    Py_ssize_t pos, limit;
    if (!PyArg_ParseTuple(args, "y*y*inn:spans", &data, &table, &nclasses, &pos, &limit))
        return NULL;
    PyObject *result = NULL;
    machine_t m;
    if (load_machine(&table, nclasses, &m) < 0) goto done;
    if (pos < 0 || pos > data.len) {
        PyErr_SetString(PyExc_ValueError, "pos out of range");
        goto done;
    }
    result = PyList_New(0);
    if (result == NULL) goto done;
    if (limit != 0 &&
        run(&m, (const unsigned char *)data.buf, data.len, pos, limit, result, NULL) < 0) {
        Py_CLEAR(result);
    }
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&table);
    return result;
}

static PyObject *
speedups_replace(PyObject *self, PyObject *args)
{
    Py_buffer data, table;
    int nclasses;
    Py_ssize_t pos;
    PyObject *spans;
    if (!PyArg_ParseTuple(args, "y*y*inO:replace", &data, &table, &nclasses, &pos, &spans))
        return NULL;
    PyObject *result = NULL;
    Py_UCS4 *out = NULL;
    machine_t m;
    if (load_machine(&table, nclasses, &m) < 0) goto done;
    if (pos < 0 || pos > data.len) {
        PyErr_SetString(PyExc_ValueError, "pos out of range");
        goto done;
    }
    if (spans == Py_None) {
        spans = NULL;
    } else if (!PyList_Check(spans)) {
        PyErr_SetString(PyExc_TypeError, "out_spans must be a list or None");
        goto done;
    }
    /* At most one code point per input byte. */
    Py_ssize_t cap = data.len - pos;
    out = PyMem_Malloc((size_t)(cap > 0 ? cap : 1) * sizeof(Py_UCS4));
    if (out == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t w = run(&m, (const unsigned char *)data.buf, data.len, pos, -1, spans, out);
    if (w >= 0) result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, w);
done:
    PyMem_Free(out);
    PyBuffer_Release(&data);
    PyBuffer_Release(&table);
    return result;
}

/*
 * decode(data, /, **kw): the package's public decode() with its fast path in C.  Exact
 * bytes and no keywords: CPython's strict codec, and its text is the answer when it
 * accepts (valid input costs one bytes.decode).  Anything else goes to the Python
 * implementation registered with set_decode_fallback(), which runs the state machine.
 */
static PyObject *decode_fallback = NULL;
static PyObject *default_table = NULL; /* bytes: grammar.MACHINE.table, kept alive */
static machine_t default_machine;      /* loaded and validated once, at registration */
static PyObject *error_class = NULL;   /* sanitizer.Utf8Error */

/*
 * Strict decoding failed in CPython's codec at `good` (everything before it is valid):
 * find the first maximal subpart with the machine and raise Utf8Error for it.  Returns 1
 * when the error is set, 0 when the machine found nothing (the caller then falls back).
 */
static int
raise_first_error(PyObject *bytes, Py_ssize_t good)
{
    PyObject *spans = PyList_New(0);
    if (spans == NULL) return -1;
    int rc = -1;
    if (run(&default_machine, (const unsigned char *)PyBytes_AS_STRING(bytes),
            PyBytes_GET_SIZE(bytes), good, 1, spans, NULL) >= 0) {
        rc = 0;
        if (PyList_GET_SIZE(spans) == 2) {
            PyObject *exc = PyObject_CallFunction(error_class, "sOOOs", "utf-8", bytes,
                                                  PyList_GET_ITEM(spans, 0),
                                                  PyList_GET_ITEM(spans, 1), "");
            if (exc != NULL) {
                PyErr_SetObject(error_class, exc);
                Py_DECREF(exc);
                rc = 1;
            }
            else {
                rc = -1;
            }
        }
    }
    Py_DECREF(spans);
    return rc;
}

/* decode(bytes, errors="replace") with the default machine; short inputs use the stack. */
static PyObject *
replace_all(PyObject *bytes)
{
    Py_ssize_t n = PyBytes_GET_SIZE(bytes);
    Py_UCS4 small[256];
    Py_UCS4 *out = small;
    if (n > (Py_ssize_t)(sizeof(small) / sizeof(small[0]))) {
        out = PyMem_Malloc((size_t)n * sizeof(Py_UCS4));
        if (out == NULL) return PyErr_NoMemory();
    }
    PyObject *result = NULL;
    Py_ssize_t w =
        run(&default_machine, (const unsigned char *)PyBytes_AS_STRING(bytes), n, 0, -1, NULL, out);
    if (w >= 0) result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, w);
    if (out != small) PyMem_Free(out);
    return result;
}

static PyObject *
speedups_decode(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs == 1 && PyBytes_CheckExact(args[0])) {
        if (kwnames == NULL) {
            PyObject *text = PyUnicode_DecodeUTF8(PyBytes_AS_STRING(args[0]),
                                                  PyBytes_GET_SIZE(args[0]), NULL);
            if (text != NULL || !PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) return text;
            if (default_table != NULL && error_class != NULL) {
                /* Only the offset CPython accepted up to is reused; the machine decides. */
                PyObject *type, *value, *tb;
                PyErr_Fetch(&type, &value, &tb);
                PyErr_NormalizeException(&type, &value, &tb);
                Py_ssize_t good = 0;
                int ok = value != NULL && PyUnicodeDecodeError_GetStart(value, &good) == 0;
                Py_XDECREF(type);
                Py_XDECREF(value);
                Py_XDECREF(tb);
                if (!ok) return NULL;
                int rc = raise_first_error(args[0], good);
                if (rc != 0) return NULL; /* Utf8Error raised, or a real failure */
            }
            PyErr_Clear();
        } else if (default_table != NULL && PyTuple_GET_SIZE(kwnames) == 1 &&
                   PyUnicode_Check(args[1]) &&
                   PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "errors") == 0 &&
                   PyUnicode_CompareWithASCIIString(args[1], "replace") == 0) {
            /* errors="replace" alone: the state machine straight away. */
            return replace_all(args[0]);
        }
    }
    if (decode_fallback == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "decode fallback not registered");
        return NULL;
    }
    return PyObject_Vectorcall(decode_fallback, args, (size_t)nargs, kwnames);
}

static PyObject *
speedups_set_decode_fallback(PyObject *self, PyObject *args)
{
    PyObject *fn, *table, *errcls;
    int nclasses;
    if (!PyArg_ParseTuple(args, "OSiO:set_decode_fallback", &fn, &table, &nclasses, &errcls))
        return NULL;
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "fallback must be callable");
        return NULL;
    }
    /* Validate once; the machine then points into `table`, which stays referenced. */
    Py_buffer view;
    machine_t m;
    if (PyObject_GetBuffer(table, &view, PyBUF_SIMPLE) < 0) return NULL;
    int bad = load_machine(&view, nclasses, &m);
    PyBuffer_Release(&view);
    if (bad) return NULL;
    Py_INCREF(fn);
    Py_XSETREF(decode_fallback, fn);
    Py_INCREF(table);
    Py_XSETREF(default_table, table);
    default_machine = m;
    Py_INCREF(errcls);
    Py_XSETREF(error_class, errcls);
    Py_RETURN_NONE;
}

/*
 * Policy fast path: scan(text, stage1, stage2, tables, max_run, start) -> int and
 * clean(data, stage1, stage2, tables, max_run) -> str | None.
 *
 * Like the decoder runner this holds no Unicode knowledge: Python hands it a two-stage
 * class table (sanitizer/_classtable.py: code point -> uint8 class) and a policy's tables
 * indexed by class (policy._c_tables), and it only looks them up.  The pure-Python
 * statement is _classtable.scan_reference; the tests check that the two agree.
 *
 * tables: flags[256] (bit 0: interesting, bit 1: mark), rule[256] (0: none, else 1..R),
 * prefilter[16], then per rule prev_ok[257] and next_ok[257] (entry 256 stands for "no
 * previous / next character").
 *
 * prefilter: T (<= 0x7F), number of extras (<= 4), 4 extras, number of skips (<= 4),
 * 4 skips, 5 unused.  A byte b is a candidate when (b < T or b >= 0x7F) and b is not a
 * skip, or b is an extra.  Skips are bytes below T that no class flags (e.g. LF, TAB),
 * so common whitespace does not stop the vector loop.  Every byte whose class is
 * flagged must be a candidate (checked when the tables are validated); candidates are
 * then looked up exactly, other bytes are skipped 64 at a time.
 */
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdint.h>
#include <string.h>

#define STAGE1_ENTRIES 0x1100
#define T_FLAGS 0
#define T_RULE 256
#define T_PREFILTER 512
#define T_RULES 528
#define RULE_SIZE 514

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
    if (!known && (nt < T_RULES || (nt - T_RULES) % RULE_SIZE != 0)) return malformed("policy");
    const unsigned char *pre = tb + T_PREFILTER;
    t->flags = tb + T_FLAGS;
    t->rule = tb + T_RULE;
    t->rules = tb + T_RULES;
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
        Py_ssize_t nrules = (nt - T_RULES) / RULE_SIZE;
        for (int c = 0; c < 256; c++) {
            if (tb[T_RULE + c] > nrules) return malformed("policy");
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

static PyObject *
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

static PyObject *
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

/* -- percent-decoding for sanitizer.web ---------------------------------------------- */
/* WHATWG URL 5.1 (application/x-www-form-urlencoded) and urllib.parse.unquote_to_bytes:
   "%" and two hex digits become that byte, any other "%" stays; with plus, a literal "+"
   becomes a space first.  A web request holds a dozen such values: in C each costs about
   as much as one bytes.replace. */

static int
hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static PyObject *
speedups_unquote(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyBytes_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "unquote(data: bytes, plus: bool)");
        return NULL;
    }
    int plus = PyObject_IsTrue(args[1]);
    if (plus < 0) return NULL;
    const unsigned char *s = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t n = PyBytes_GET_SIZE(args[0]);
    if (memchr(s, '%', (size_t)n) == NULL && (!plus || memchr(s, '+', (size_t)n) == NULL)) {
        Py_INCREF(args[0]);
        return args[0];
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, n);
    if (out == NULL) return NULL;
    unsigned char *d = (unsigned char *)PyBytes_AS_STRING(out);
    Py_ssize_t j = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c == '%' && i + 2 < n) {
            int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
            if (hi >= 0 && lo >= 0) {
                d[j++] = (unsigned char)((hi << 4) | lo);
                i += 2;
                continue;
            }
        }
        d[j++] = (plus && c == '+') ? ' ' : c;
    }
    if (_PyBytes_Resize(&out, j) < 0) return NULL;
    return out;
}

static PyMethodDef speedups_methods[] = {
    {"decode", (PyCFunction)(void (*)(void))speedups_decode, METH_FASTCALL | METH_KEYWORDS,
     "decode($module, data, /, *, errors='strict', bom='keep', allow_overlong_nul=False)\n--\n\n"
     "Decode UTF-8 strictly by RFC 3629.\n\n"
     "errors='strict' raises sanitizer.Utf8Error for the first ill-formed subpart;\n"
     "errors='replace' puts one U+FFFD per maximal subpart (Unicode 3.9), exactly as\n"
     "bytes.decode('utf-8', 'replace').  bom: 'keep' an initial EF BB BF as U+FEFF\n"
     "(RFC 3629 section 6), 'strip' it, or 'reject' it with BomError.\n"
     "allow_overlong_nul accepts exactly C0 80 as U+0000 (Java's Modified UTF-8);\n"
     "nothing else is relaxed.  This is the C entry point of sanitizer.decoder.decode_py,\n"
     "with the same behaviour."},
    {"set_decode_fallback", speedups_set_decode_fallback, METH_VARARGS,
     "set_decode_fallback(fn, table, nclasses, error_class): the Python decode() that\n"
     "non-trivial calls go to, the default machine table, and the class to raise."},
    {"spans", speedups_spans, METH_VARARGS,
     "spans(data, table, nclasses, pos, limit) -> flat list of maximal-subpart offsets"},
    {"replace", speedups_replace, METH_VARARGS,
     "replace(data, table, nclasses, pos, out_spans) -> text with U+FFFD per subpart"},
    {"scan", (PyCFunction)(void (*)(void))speedups_scan, METH_FASTCALL,
     "scan(text, stage1, stage2, tables, max_run, start) -> index of the first character\n"
     "the policy tables flag (see sanitizer._classtable.scan_reference), or len(text)"},
    {"unquote", (PyCFunction)(void (*)(void))speedups_unquote, METH_FASTCALL,
     "unquote(data, plus) -> bytes: %XX decoded as urllib.parse.unquote_to_bytes does;\n"
     "with plus, a literal '+' is a space (form encoding)"},
    {"clean", (PyCFunction)(void (*)(void))speedups_clean, METH_FASTCALL,
     "clean(data, stage1, stage2, tables, max_run) -> str | None: data (bytes: strictly\n"
     "decoded) when it decodes and scan() flags nothing, else None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT, "sanitizer._speedups",
    "C runner for the RFC 3629 state machine compiled in sanitizer.grammar.", -1,
    speedups_methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    return PyModule_Create(&speedups_module);
}
