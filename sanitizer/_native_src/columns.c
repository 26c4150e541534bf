/*
 * Arrow binary and string columns walked in place: column_check, column_gather,
 * column_clean.
 *
 * Why it exists: sanitizer.columns judges columns of millions of values, and a Python
 * call per value costs far more than the judging.  sanitizer/_arrow.py reads the column's
 * buffers through the Arrow C Data Interface and passes them here as buffers; these
 * walks never touch a Python object per value.  Their twins (the reference) are
 * _arrow.column_check_py and _arrow.column_gather_py; tests hold the two equal.
 *
 * Layouts (the Arrow columnar format): 0 int32 offsets, 1 int64 offsets (both: `values`
 * is the offsets buffer, `data` the data buffer), 2 views (`values` holds 16 bytes a
 * row: int32 length, then up to 12 bytes inline, or a 4-byte prefix, an int32 buffer
 * index and an int32 offset into `data`, a tuple of buffers).  Row k of the array is
 * slot offset + k; bit offset + k of `validity` (None: no nulls) says it is not null.
 *
 * column_check: with offsets, one pass of the SIMD validator over the data buffer and a
 * test that every value starts and ends on a character boundary (exact: a substring of
 * well-formed UTF-8 between two character boundaries is well-formed; a value that starts
 * on a continuation byte, or ends before one, is not, RFC 3629 section 4); where the
 * validator stops, the value holding that point is checked on its own and the pass goes
 * on from the next value.  Views are checked value by value (no materialising).
 */
#include "speedups.h"
#include "scan.h" /* the policy tables and their scan, for column_clean */

#include <stdint.h>
#include <string.h>

#define IS_TAIL(b) (((b) & 0xC0) == 0x80)

typedef struct {
    int layout;
    Py_ssize_t length, offset;
    Py_buffer validity, values;
    int has_validity;
    Py_buffer *data; /* 1 for offsets, the variadic buffers for views */
    Py_ssize_t ndata;
} column_t;

static void
column_release(column_t *c)
{
    if (c->has_validity) PyBuffer_Release(&c->validity);
    if (c->values.obj != NULL) PyBuffer_Release(&c->values);
    if (c->data != NULL) {
        for (Py_ssize_t i = 0; i < c->ndata; i++) {
            if (c->data[i].obj != NULL) PyBuffer_Release(&c->data[i]);
        }
        PyMem_Free(c->data);
    }
}

static int
malformed(const char *what, Py_ssize_t row)
{
    if (row < 0) {
        PyErr_Format(PyExc_ValueError, "malformed Arrow array: %s", what);
    } else {
        PyErr_Format(PyExc_ValueError, "malformed Arrow array: row %zd's %s", row, what);
    }
    return -1;
}

/* The six leading arguments of both functions, checked: buffer sizes cover every row. */
static int
column_load(column_t *c, PyObject *const *args)
{
    memset(c, 0, sizeof(*c));
    c->layout = PyLong_AsLong(args[0]);
    c->length = PyLong_AsSsize_t(args[1]);
    c->offset = PyLong_AsSsize_t(args[2]);
    if (PyErr_Occurred()) return -1;
    if (c->layout < 0 || c->layout > 2 || c->length < 0 || c->offset < 0
        || c->offset > PY_SSIZE_T_MAX / 16 - c->length - 1) {
        PyErr_SetString(PyExc_ValueError, "column: bad layout, length or offset");
        return -1;
    }
    Py_ssize_t end = c->offset + c->length;
    if (args[3] != Py_None) {
        if (PyObject_GetBuffer(args[3], &c->validity, PyBUF_SIMPLE) < 0) return -1;
        c->has_validity = 1;
        if (c->validity.len < (end + 7) / 8) return malformed("validity bitmap too short", -1);
    }
    if (PyObject_GetBuffer(args[4], &c->values, PyBUF_SIMPLE) < 0) return -1;
    if (c->layout < 2) {
        Py_ssize_t need = c->length ? (end + 1) * (c->layout ? 8 : 4) : 0;
        if (c->values.len < need) return malformed("offsets buffer too short", -1);
        c->data = PyMem_Calloc(1, sizeof(Py_buffer));
        if (c->data == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        c->ndata = 1;
        if (PyObject_GetBuffer(args[5], &c->data[0], PyBUF_SIMPLE) < 0) return -1;
    } else {
        if (c->values.len < 16 * end) return malformed("views buffer too short", -1);
        if (!PyTuple_Check(args[5])) {
            PyErr_SetString(PyExc_TypeError, "column: views' data must be a tuple of buffers");
            return -1;
        }
        Py_ssize_t n = PyTuple_GET_SIZE(args[5]);
        c->data = PyMem_Calloc(n ? (size_t)n : 1, sizeof(Py_buffer));
        if (c->data == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        c->ndata = n;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (PyObject_GetBuffer(PyTuple_GET_ITEM(args[5], i), &c->data[i], PyBUF_SIMPLE) < 0)
                return -1;
        }
    }
    return 0;
}

static inline int
is_null(const column_t *c, Py_ssize_t k)
{
    return c->has_validity && !((((const unsigned char *)c->validity.buf)[k >> 3] >> (k & 7)) & 1);
}

static inline int64_t
offset_at(const column_t *c, Py_ssize_t k)
{
    if (c->layout == 0) {
        int32_t v;
        memcpy(&v, (const char *)c->values.buf + 4 * k, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, (const char *)c->values.buf + 8 * k, 8);
    return v;
}

/* Offsets layouts: every offset from slot `offset` to `offset + length` is monotonic and
 * within the data buffer.  -1 with ValueError otherwise (GIL held). */
static int
check_offsets(const column_t *c)
{
    if (c->length == 0) return 0;
    int64_t prev = offset_at(c, c->offset);
    if (prev < 0) return malformed("offsets are negative", 0);
    for (Py_ssize_t row = 0; row < c->length; row++) {
        int64_t next = offset_at(c, c->offset + row + 1);
        if (next < prev) return malformed("offsets decrease", row);
        prev = next;
    }
    if (prev > c->data[0].len) return malformed("bytes are outside its buffer", c->length - 1);
    return 0;
}

/* Views layout: row k's bytes, or NULL with *bad set for a view outside its buffers. */
static inline const unsigned char *
view_at(const column_t *c, Py_ssize_t k, Py_ssize_t *size, int *bad)
{
    const unsigned char *v = (const unsigned char *)c->values.buf + 16 * k;
    int32_t n, index, start;
    memcpy(&n, v, 4);
    *size = n;
    if (n < 0) {
        *bad = 1;
        return NULL;
    }
    if (n <= 12) return v + 4;
    memcpy(&index, v + 8, 4);
    memcpy(&start, v + 12, 4);
    if (index < 0 || index >= c->ndata || start < 0 || (Py_ssize_t)start + n > c->data[index].len) {
        *bad = 1;
        return NULL;
    }
    return (const unsigned char *)c->data[index].buf + start;
}

typedef struct {
    int64_t *rows;
    Py_ssize_t n, cap;
} rows_t;

static int
rows_add(rows_t *r, Py_ssize_t row)
{
    if (r->n == r->cap) {
        Py_ssize_t cap = r->cap ? 2 * r->cap : 64;
        int64_t *grown = PyMem_RawRealloc(r->rows, (size_t)cap * sizeof(int64_t));
        if (grown == NULL) return -1;
        r->rows = grown;
        r->cap = cap;
    }
    r->rows[r->n++] = row;
    return 0;
}

static inline int
valid_alone(const unsigned char *s, Py_ssize_t n)
{
    return speedups_valid_prefix_of(s, n) == n;
}

#define STRETCH (1 << 14) /* bytes validated at a time: within L1 */
#define SET_BIT(bits, row) ((bits)[(row) >> 3] |= (unsigned char)(1u << ((row) & 7)))
#define NULL_AT(vb, k) ((vb) != NULL && !(((vb)[(k) >> 3] >> ((k) & 7)) & 1))

/* Rows lo..hi-1 valid: their bits set, but for nulls (vb: the validity bits by row, or
 * NULL), a byte at a time where whole bytes are covered. */
static void
set_rows(unsigned char *bits, const unsigned char *vb, Py_ssize_t lo, Py_ssize_t hi)
{
    for (; lo < hi && (lo & 7); lo++) {
        if (!NULL_AT(vb, lo)) SET_BIT(bits, lo);
    }
    Py_ssize_t whole = (hi - lo) >> 3;
    if (whole > 0) {
        if (vb != NULL) {
            memcpy(bits + (lo >> 3), vb + (lo >> 3), (size_t)whole);
        } else {
            memset(bits + (lo >> 3), 0xFF, (size_t)whole);
        }
        lo += whole << 3;
    }
    for (; lo < hi; lo++) {
        if (!NULL_AT(vb, lo)) SET_BIT(bits, lo);
    }
}

/* The offsets walk for offsets of type T (int32_t, int64_t), everything in locals (the
 * bitmap's stores may alias any byte).  A stretch of rows about STRETCH bytes long is
 * found by galloping over its offsets and validated; then, its bytes in the L1 cache,
 * one loop over its rows sees that no offset decreases and no row starts on a
 * continuation byte.  When so and the validator passed the whole stretch, every row of
 * it is valid (its bytes lie between two character boundaries) and its bits are set a
 * byte at a time; otherwise its rows are judged one by one. */
#define DEFINE_OFFSETS_WALK(NAME, T)                                                       \
    static Py_ssize_t NAME(const T *o, const unsigned char *d, const unsigned char *vb,           \
                    Py_ssize_t length, unsigned char *bits, rows_t *bad)                    \
    {                                                                                       \
        const int64_t last = o[length];                                                     \
        Py_ssize_t row = 0;                                                                 \
        while (row < length) {                                                              \
            const int64_t from = o[row];                                                    \
            /* j: the first row end STRETCH bytes or more past `from` (or `length`), by  \
             * galloping then halving (offsets that decrease end in the row walk) */      \
            Py_ssize_t lo = row, j = row + 1, step = 1;                                     \
            while (j < length && o[j] - from < STRETCH) {                                   \
                lo = j;                                                                     \
                step *= 2;                                                                  \
                j = step < length - row ? row + step : length;                              \
            }                                                                               \
            while (j - lo > 1) { /* o[lo] - from < STRETCH; o[j] - from >= STRETCH or j == length */ \
                const Py_ssize_t mid = lo + (j - lo) / 2;                                   \
                if (o[mid] - from < STRETCH) lo = mid; else j = mid;                        \
            }                                                                               \
            const int64_t stop = o[j] < last && o[j] >= from ? o[j] : last;                 \
            const int64_t p = from + speedups_valid_prefix_of(d + from, (Py_ssize_t)(stop - from)); \
            /* the stretch's bytes are in the cache now: the rows' first bytes */           \
            int64_t prev = from;                                                            \
            unsigned decreasing = 0, tails = 0;                                             \
            for (Py_ssize_t k = row; k < j; k++) {                                          \
                const int64_t x = o[k];                                                     \
                decreasing |= x < prev;                                                     \
                /* (unsigned: a garbage offset, negative or past the data, reads nothing) */ \
                tails |= (uint64_t)x < (uint64_t)last ? (unsigned)IS_TAIL(d[x]) : 0u;       \
                prev = x;                                                                   \
            }                                                                               \
            if (!decreasing && !tails && p == stop && o[j] == stop && prev <= stop) {       \
                set_rows(bits, vb, row, j);                                                 \
                row = j;                                                                    \
                continue;                                                                   \
            }                                                                               \
            int64_t s = from;                                                               \
            for (; row < length; row++) {                                                   \
                const int64_t e = o[row + 1];                                               \
                if (e > p) break;                                                           \
                if (e < s) return -2 - row;                                                 \
                if (!NULL_AT(vb, row)) {                                                    \
                    if (s == e || (!IS_TAIL(d[s]) && (e == p || !IS_TAIL(d[e])))) {         \
                        SET_BIT(bits, row);                                                 \
                    } else if (rows_add(bad, row) < 0) {                                    \
                        return -1;                                                          \
                    }                                                                       \
                }                                                                           \
                s = e;                                                                      \
            }                                                                               \
            if (row == length) break;                                                       \
            if (o[row + 1] < s || o[row + 1] > last) return -2 - row;                       \
            if (!NULL_AT(vb, row)) {                                                        \
                const int64_t e = o[row + 1];                                               \
                if (valid_alone(d + s, (Py_ssize_t)(e - s))) {                              \
                    SET_BIT(bits, row);                                                     \
                } else if (rows_add(bad, row) < 0) {                                        \
                    return -1;                                                              \
                }                                                                           \
            }                                                                               \
            row++;                                                                          \
        }                                                                                   \
        return 0;                                                                           \
    }

DEFINE_OFFSETS_WALK(walk_offsets32, int32_t)
DEFINE_OFFSETS_WALK(walk_offsets64, int64_t)

/* The walk (no Python API: run without the GIL).  0, or -1 for no memory, or -2 - row
 * for a row whose offsets decrease or whose bytes are outside their buffer.  The offsets and bitmap pointers passed
 * on are shifted to the array's first row (bit shifts: the bitmap is read by slot). */
static Py_ssize_t
check_walk(const column_t *c, unsigned char *bits, rows_t *bad)
{
    Py_ssize_t length = c->length, offset = c->offset;
    if (c->layout == 2) {
        for (Py_ssize_t row = 0; row < length; row++) {
            Py_ssize_t k = offset + row, n;
            int broken = 0;
            const unsigned char *s = view_at(c, k, &n, &broken);
            if (broken) return -2 - row;
            if (is_null(c, k)) continue;
            if (valid_alone(s, n)) {
                SET_BIT(bits, row);
            } else if (rows_add(bad, row) < 0) {
                return -1;
            }
        }
        return 0;
    }
    const unsigned char *d = (const unsigned char *)c->data[0].buf;
    const unsigned char *vb = c->has_validity ? (const unsigned char *)c->validity.buf : NULL;
    if (vb != NULL && (offset & 7)) {
        /* a bitmap starting mid-byte: the rows' own bits, shifted to bit 0 */
        unsigned char *shifted = PyMem_RawMalloc((size_t)(length + 7) / 8 + 1);
        if (shifted == NULL) return -1;
        for (Py_ssize_t i = 0; i < (length + 7) / 8; i++) {
            Py_ssize_t k = offset + 8 * i;
            unsigned v = vb[k >> 3] >> (k & 7);
            if ((k >> 3) + 1 < c->validity.len) v |= (unsigned)vb[(k >> 3) + 1] << (8 - (k & 7));
            shifted[i] = (unsigned char)v;
        }
        Py_ssize_t status = c->layout == 0
            ? walk_offsets32((const int32_t *)c->values.buf + offset, d, shifted, length, bits, bad)
            : walk_offsets64((const int64_t *)c->values.buf + offset, d, shifted, length, bits, bad);
        PyMem_RawFree(shifted);
        return status;
    }
    if (vb != NULL) vb += offset >> 3;
    return c->layout == 0
        ? walk_offsets32((const int32_t *)c->values.buf + offset, d, vb, length, bits, bad)
        : walk_offsets64((const int64_t *)c->values.buf + offset, d, vb, length, bits, bad);
}

PyObject *
speedups_column_check(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "column_check(layout, length, offset, validity, values, data, /)");
        return NULL;
    }
    column_t c;
    PyObject *bits = NULL, *list = NULL, *out = NULL;
    rows_t bad = {NULL, 0, 0};
    if (column_load(&c, args) < 0) goto done;
    if (c.layout < 2 && c.length) { /* the ends; the walk checks the rest */
        int64_t first = offset_at(&c, c.offset), last = offset_at(&c, c.offset + c.length);
        if (first < 0 || last < first || last > c.data[0].len) {
            malformed("offsets are outside the data buffer", -1);
            goto done;
        }
    }
    bits = PyBytes_FromStringAndSize(NULL, (c.length + 7) / 8);
    if (bits == NULL) goto done;
    memset(PyBytes_AS_STRING(bits), 0, (size_t)PyBytes_GET_SIZE(bits));
    Py_ssize_t status;
    Py_BEGIN_ALLOW_THREADS
    status = check_walk(&c, (unsigned char *)PyBytes_AS_STRING(bits), &bad);
    Py_END_ALLOW_THREADS
    if (status == -1) {
        PyErr_NoMemory();
        goto done;
    }
    if (status <= -2) {
        malformed("bytes are outside its buffer (offsets decrease or pass its end)",
                  -2 - status);
        goto done;
    }
    list = PyList_New(bad.n);
    if (list == NULL) goto done;
    for (Py_ssize_t i = 0; i < bad.n; i++) {
        PyObject *row = PyLong_FromLongLong(bad.rows[i]);
        if (row == NULL) goto done;
        PyList_SET_ITEM(list, i, row);
    }
    out = PyTuple_Pack(2, bits, list);
done:
    Py_XDECREF(bits);
    Py_XDECREF(list);
    PyMem_RawFree(bad.rows);
    column_release(&c);
    return out;
}

/* Row `row`'s bytes (not null), or NULL with ValueError. */
static const unsigned char *
row_bytes(const column_t *c, Py_ssize_t row, Py_ssize_t *n)
{
    Py_ssize_t k = c->offset + row;
    if (c->layout < 2) {
        int64_t s = offset_at(c, k);
        *n = (Py_ssize_t)(offset_at(c, k + 1) - s);
        return (const unsigned char *)c->data[0].buf + s;
    }
    int broken = 0;
    const unsigned char *s = view_at(c, k, n, &broken);
    if (broken) malformed("bytes are outside its buffer", row);
    return s;
}

/* The bytes of row `row` for column_gather: a replacement, nothing for a null, or the
 * row's own bytes. */
static const unsigned char *
gather_piece(const column_t *c, Py_ssize_t row, const int64_t *rep, PyObject *pieces,
             Py_ssize_t nrep, Py_ssize_t *next, Py_ssize_t *n)
{
    *n = 0;
    if (*next < nrep && rep[*next] == row) {
        PyObject *piece = PyList_GET_ITEM(pieces, (*next)++);
        if (piece == Py_None) return NULL;
        *n = PyBytes_GET_SIZE(piece);
        return (const unsigned char *)PyBytes_AS_STRING(piece);
    }
    if (is_null(c, c->offset + row)) return NULL;
    return row_bytes(c, row, n);
}

PyObject *
speedups_column_gather(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 9 || !PyList_Check(args[6]) || !PyList_Check(args[7])
        || PyList_GET_SIZE(args[6]) != PyList_GET_SIZE(args[7])) {
        PyErr_SetString(PyExc_TypeError, "column_gather(layout, length, offset, validity, "
                                         "values, data, rows: list, pieces: list, out_layout, /)");
        return NULL;
    }
    column_t c;
    PyObject *values = NULL, *data = NULL, *out = NULL;
    PyObject *rows = args[6], *pieces = args[7];
    Py_ssize_t nrep = PyList_GET_SIZE(rows);
    int64_t *rep = NULL;
    long out_layout = PyLong_AsLong(args[8]);
    if (out_layout == -1 && PyErr_Occurred()) return NULL;
    if (out_layout < 0 || out_layout > 2) {
        PyErr_SetString(PyExc_ValueError, "column_gather: out_layout must be 0, 1 or 2");
        return NULL;
    }
    if (column_load(&c, args) < 0) goto done;
    if (c.layout < 2 && check_offsets(&c) < 0) goto done;
    rep = PyMem_Malloc((size_t)(nrep ? nrep : 1) * sizeof(int64_t));
    if (rep == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nrep; i++) {
        Py_ssize_t r = PyLong_AsSsize_t(PyList_GET_ITEM(rows, i));
        if (r == -1 && PyErr_Occurred()) goto done;
        PyObject *piece = PyList_GET_ITEM(pieces, i);
        if (r < 0 || (i && r <= rep[i - 1]) || r >= c.length
            || (piece != Py_None && !PyBytes_CheckExact(piece))) {
            PyErr_SetString(PyExc_ValueError,
                            "column_gather: rows must ascend within the column and pieces be "
                            "bytes or None");
            goto done;
        }
        rep[i] = r;
    }
    /* pass 1: the size of the data (views: of the values longer than 12 bytes only) */
    Py_ssize_t total = 0, next = 0, n;
    for (Py_ssize_t row = 0; row < c.length; row++) {
        if (gather_piece(&c, row, rep, pieces, nrep, &next, &n) == NULL && PyErr_Occurred())
            goto done;
        if (out_layout < 2 || n > 12) total += n;
    }
    if ((out_layout == 0 && total > INT32_MAX) || (out_layout == 2 && total > INT32_MAX)) {
        PyErr_SetString(PyExc_OverflowError,
                        "the column's chunk would pass 2 GiB of data: read it as large_binary");
        goto done;
    }
    Py_ssize_t width = out_layout == 0 ? 4 : out_layout == 1 ? 8 : 16;
    values = PyBytes_FromStringAndSize(NULL, (c.length + (out_layout < 2)) * width);
    data = PyBytes_FromStringAndSize(NULL, total);
    if (values == NULL || data == NULL) goto done;
    char *o = PyBytes_AS_STRING(values);
    char *w = PyBytes_AS_STRING(data);
    if (out_layout == 2) memset(o, 0, (size_t)PyBytes_GET_SIZE(values));
    int64_t at = 0;
    next = 0;
    for (Py_ssize_t row = 0; row <= c.length; row++) {
        if (out_layout == 0) {
            int32_t at32 = (int32_t)at;
            memcpy(o + 4 * row, &at32, 4);
        } else if (out_layout == 1) {
            memcpy(o + 8 * row, &at, 8);
        }
        if (row == c.length) break;
        const unsigned char *src = gather_piece(&c, row, rep, pieces, nrep, &next, &n);
        if (out_layout == 2) {
            char *v = o + 16 * row;
            int32_t n32 = (int32_t)n, zero = 0, at32 = (int32_t)at;
            memcpy(v, &n32, 4);
            if (n <= 12) {
                if (n) memcpy(v + 4, src, (size_t)n);
                continue;
            }
            memcpy(v + 4, src, 4);
            memcpy(v + 8, &zero, 4);
            memcpy(v + 12, &at32, 4);
        }
        if (n) memcpy(w + at, src, (size_t)n);
        at += n;
    }
    out = PyTuple_Pack(2, values, data);
done:
    PyMem_Free(rep);
    Py_XDECREF(values);
    Py_XDECREF(data);
    column_release(&c);
    return out;
}

/* Well-formed UTF-8 s[0:n] decoded into out (n code points at most); the count. */
static Py_ssize_t
decode_into(const unsigned char *s, Py_ssize_t n, Py_UCS4 *out)
{
    Py_ssize_t len = 0;
    for (Py_ssize_t j = 0; j < n;) {
        unsigned char b0 = s[j];
        Py_UCS4 cp;
        if (b0 < 0x80) {
            cp = b0;
            j += 1;
        } else if (b0 < 0xE0) {
            cp = ((Py_UCS4)(b0 & 0x1F) << 6) | (s[j + 1] & 0x3F);
            j += 2;
        } else if (b0 < 0xF0) {
            cp = ((Py_UCS4)(b0 & 0x0F) << 12) | ((Py_UCS4)(s[j + 1] & 0x3F) << 6)
                 | (s[j + 2] & 0x3F);
            j += 3;
        } else {
            cp = ((Py_UCS4)(b0 & 0x07) << 18) | ((Py_UCS4)(s[j + 1] & 0x3F) << 12)
                 | ((Py_UCS4)(s[j + 2] & 0x3F) << 6) | (s[j + 3] & 0x3F);
            j += 4;
        }
        out[len++] = cp;
    }
    return len;
}

static inline int
clean_alone(const scan_tables_t *t, const Py_UCS4 *text, Py_ssize_t len, Py_ssize_t max_run)
{
    run_state_t rs = {-1, -1, max_run};
    return scan_kind(t, PyUnicode_4BYTE_KIND, text, len, 0, &rs) == len;
}

/* A character whose verdict depends on its neighbours (a sequence rule: scan.h's
 * flagged()), which a value's first or last character sees differently alone. */
static inline int
has_rule(const scan_tables_t *t, Py_UCS4 ch)
{
    unsigned int c = CLASS_OF(t, ch);
    return (t->flags[c] & 1) && t->rule[c] != 0;
}

/* The code point that starts at s (well-formed UTF-8). */
static inline Py_UCS4
first_char(const unsigned char *s)
{
    Py_UCS4 out;
    decode_into(s, s[0] < 0x80 ? 1 : s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : 4, &out);
    return out;
}

/* The offsets layouts without nulls: one decode and one scan of all the chunk's bytes
 * (as clean() does for one value).  When that scan flags nothing, every value whose two
 * ends are character boundaries is well-formed alone and clean alone, but those whose
 * first or last character has a sequence rule (it sees another neighbour alone), which
 * are scanned alone; a run of marks is only longer joined.  0 when the path does not
 * apply or the joined scan flags something (the caller then judges every value alone),
 * 1 when the bits are set, -1 on error. */
static int
clean_joined(const column_t *c, const scan_tables_t *t, Py_ssize_t max_run, unsigned char *b,
             Py_UCS4 **scratch, Py_ssize_t *scratch_size)
{
    if (c->layout == 2 || c->has_validity || c->length == 0) return 0;
    const unsigned char *d = (const unsigned char *)c->data[0].buf;
    int64_t first = offset_at(c, c->offset), last = offset_at(c, c->offset + c->length);
    PyObject *text = speedups_decode_valid(d + first, (Py_ssize_t)(last - first));
    if (text == NULL) return -1;
    if (text == Py_None) {
        Py_DECREF(text);
        return 0;
    }
    run_state_t rs = {-1, -1, max_run};
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    int clean = scan_kind(t, PyUnicode_KIND(text), PyUnicode_DATA(text), len, 0, &rs) == len;
    Py_DECREF(text);
    if (!clean) return 0;
    for (Py_ssize_t row = 0; row < c->length; row++) {
        int64_t s = offset_at(c, c->offset + row), e = offset_at(c, c->offset + row + 1);
        if (s == e) {
            SET_BIT(b, row);
            continue;
        }
        if (IS_TAIL(d[s]) || (e < last && IS_TAIL(d[e]))) continue; /* split: ill-formed */
        Py_ssize_t z = (Py_ssize_t)e - 1;
        while (IS_TAIL(d[z])) z--;
        if (has_rule(t, first_char(d + s)) || has_rule(t, first_char(d + z))) {
            Py_ssize_t n = (Py_ssize_t)(e - s);
            if (n > *scratch_size) {
                Py_UCS4 *grown = PyMem_Realloc(*scratch, (size_t)n * sizeof(Py_UCS4));
                if (grown == NULL) {
                    PyErr_NoMemory();
                    return -1;
                }
                *scratch = grown;
                *scratch_size = n;
            }
            if (!clean_alone(t, *scratch, decode_into(d + s, n, *scratch), max_run)) continue;
        }
        SET_BIT(b, row);
    }
    return 1;
}

/* column_clean(layout, length, offset, validity, values, data, stage1, stage2, tables,
 * max_run) -> bytes: bit k set when row k is not null and clean() would answer its bytes
 * with a str (well-formed, and the policy tables flag nothing): the rows whose scalar
 * answer is the clean one.  ASCII with no flagged byte is clean at once (clean_ascii);
 * any other value is validated, decoded into one scratch buffer and scanned (scan.c),
 * as clean() decodes and scans it, without a str per value.  Its reference is the scalar function:
 * sanitizer.columns asks it for every row this does not mark. */
PyObject *
speedups_column_clean(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "column_clean(layout, length, offset, validity, "
                                         "values, data, stage1, stage2, tables, max_run, /)");
        return NULL;
    }
    scan_tables_t t;
    if (load_scan_tables(state_of(self), args[6], args[7], args[8], &t) < 0) return NULL;
    Py_ssize_t max_run = PyLong_AsSsize_t(args[9]);
    if (max_run == -1 && PyErr_Occurred()) return NULL;
    column_t c;
    PyObject *bits = NULL, *out = NULL;
    Py_UCS4 *scratch = NULL;
    Py_ssize_t scratch_size = 0;
    if (column_load(&c, args) < 0) goto done;
    if (c.layout < 2 && check_offsets(&c) < 0) goto done;
    bits = PyBytes_FromStringAndSize(NULL, (c.length + 7) / 8);
    if (bits == NULL) goto done;
    unsigned char *b = (unsigned char *)PyBytes_AS_STRING(bits);
    memset(b, 0, (size_t)PyBytes_GET_SIZE(bits));
    int joined = clean_joined(&c, &t, max_run, b, &scratch, &scratch_size);
    if (joined < 0) goto done;
    for (Py_ssize_t row = 0; !joined && row < c.length; row++) {
        if (is_null(&c, c.offset + row)) continue;
        Py_ssize_t n;
        const unsigned char *s = row_bytes(&c, row, &n);
        if (s == NULL && PyErr_Occurred()) goto done;
        /* ASCII with no flagged byte is clean without a str (scan.c's clean_ascii) */
        Py_ssize_t i = 0;
        while (i < n && s[i] < 0x80 && !t.flags[t.blk0[s[i]]]) i++;
        if (i == n) {
            SET_BIT(b, row);
            continue;
        }
        if (!valid_alone(s, n)) continue; /* ill-formed: clean() answers None */
        /* well-formed: decoded into the scratch buffer (n code points at most) and
         * scanned as a str of the widest kind (scan_kind reads code points) */
        if (n > scratch_size) {
            Py_UCS4 *grown = PyMem_Realloc(scratch, (size_t)n * sizeof(Py_UCS4));
            if (grown == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            scratch = grown;
            scratch_size = n;
        }
        if (clean_alone(&t, scratch, decode_into(s, n, scratch), max_run)) SET_BIT(b, row);
    }
    out = bits;
    bits = NULL;
done:
    PyMem_Free(scratch);
    Py_XDECREF(bits);
    column_release(&c);
    return out;
}

/* column_translate(layout, length, offset, validity, values, data, table, /) ->
 * (offsets, data, rows): each row that is not null and ASCII with every byte mapped to
 * table[byte] (a tuple of 128 bytes), as int64 offsets and data; the other rows that are
 * not null (a byte >= 0x80) left empty and listed in rows, for the caller to fill.  For a
 * per-character key of ASCII text (lookalike.key's ASCII map) without a str per value. */
PyObject *
speedups_column_translate(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 7 || !PyTuple_Check(args[6]) || PyTuple_GET_SIZE(args[6]) != 128) {
        PyErr_SetString(PyExc_TypeError, "column_translate(layout, length, offset, validity, "
                                         "values, data, table: tuple of 128 bytes, /)");
        return NULL;
    }
    const char *map[128];
    Py_ssize_t size[128];
    for (int i = 0; i < 128; i++) {
        PyObject *item = PyTuple_GET_ITEM(args[6], i);
        if (!PyBytes_CheckExact(item)) {
            PyErr_SetString(PyExc_TypeError, "column_translate: the table holds bytes");
            return NULL;
        }
        map[i] = PyBytes_AS_STRING(item);
        size[i] = PyBytes_GET_SIZE(item);
    }
    column_t c;
    PyObject *offsets = NULL, *data = NULL, *rows = NULL, *out = NULL;
    if (column_load(&c, args) < 0) goto done;
    if (c.layout < 2 && check_offsets(&c) < 0) goto done;
    rows = PyList_New(0);
    offsets = PyBytes_FromStringAndSize(NULL, (c.length + 1) * 8);
    if (rows == NULL || offsets == NULL) goto done;
    /* pass 1: sizes, and the rows left to the caller */
    Py_ssize_t total = 0;
    for (Py_ssize_t row = 0; row < c.length; row++) {
        if (is_null(&c, c.offset + row)) continue;
        Py_ssize_t n, add = 0;
        const unsigned char *s = row_bytes(&c, row, &n);
        if (s == NULL && PyErr_Occurred()) goto done;
        Py_ssize_t i = 0;
        for (; i < n && s[i] < 0x80; i++) add += size[s[i]];
        if (i < n) {
            PyObject *r = PyLong_FromSsize_t(row);
            if (r == NULL || PyList_Append(rows, r) < 0) {
                Py_XDECREF(r);
                goto done;
            }
            Py_DECREF(r);
            continue;
        }
        total += add;
    }
    data = PyBytes_FromStringAndSize(NULL, total);
    if (data == NULL) goto done;
    char *o = PyBytes_AS_STRING(offsets), *w = PyBytes_AS_STRING(data);
    int64_t at = 0;
    Py_ssize_t next = 0, nrows = PyList_GET_SIZE(rows);
    for (Py_ssize_t row = 0; row < c.length; row++) {
        memcpy(o + 8 * row, &at, 8);
        if (next < nrows && PyLong_AsSsize_t(PyList_GET_ITEM(rows, next)) == row) {
            next++;
            continue;
        }
        if (is_null(&c, c.offset + row)) continue;
        Py_ssize_t n;
        const unsigned char *s = row_bytes(&c, row, &n);
        for (Py_ssize_t i = 0; i < n; i++) {
            memcpy(w + at, map[s[i]], (size_t)size[s[i]]);
            at += size[s[i]];
        }
    }
    memcpy(o + 8 * c.length, &at, 8);
    out = PyTuple_Pack(3, offsets, data, rows);
done:
    Py_XDECREF(offsets);
    Py_XDECREF(data);
    Py_XDECREF(rows);
    column_release(&c);
    return out;
}

/* column_keys(layout, length, offset, validity, values, data, tables, key, dots, odd, /)
 * -> (offsets, data, rows): identifier_key of each row that is not null (lookalike.c's
 * keyer: one walk, no str per value), as int64 offsets and UTF-8 data; the rows the
 * keyer leaves to the scalar function (and null rows: not listed) left empty, listed in
 * rows for the caller to fill.  The same answer as column_translate's caller gives with
 * the scalar function, tested equal. */
PyObject *
speedups_column_keys(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "column_keys(layout, length, offset, validity, "
                                         "values, data, tables, key, dots, odd, /)");
        return NULL;
    }
    column_t c;
    PyObject *offsets = NULL, *data = NULL, *rows = NULL, *out = NULL;
    speedups_keyer *k = NULL;
    char *w = NULL;
    Py_ssize_t cap = 0, at = 0;
    if (column_load(&c, args) < 0) goto done;
    if (c.layout < 2 && check_offsets(&c) < 0) goto done;
    k = speedups_keyer_new(args[6], args[7], args[8], args[9]);
    if (k == NULL) goto done;
    rows = PyList_New(0);
    offsets = PyBytes_FromStringAndSize(NULL, (c.length + 1) * 8);
    if (rows == NULL || offsets == NULL) goto done;
    char *o = PyBytes_AS_STRING(offsets);
    for (Py_ssize_t row = 0; row < c.length; row++) {
        int64_t at64 = at;
        memcpy(o + 8 * row, &at64, 8);
        if (is_null(&c, c.offset + row)) continue;
        Py_ssize_t n;
        const unsigned char *s = row_bytes(&c, row, &n);
        if (s == NULL && PyErr_Occurred()) goto done;
        int status = speedups_keyer_run(k, s, n, &w, &cap, &at);
        if (status < 0) goto done;
        if (status == 0) {
            PyObject *r = PyLong_FromSsize_t(row);
            if (r == NULL || PyList_Append(rows, r) < 0) {
                Py_XDECREF(r);
                goto done;
            }
            Py_DECREF(r);
        }
    }
    int64_t at64 = at;
    memcpy(o + 8 * c.length, &at64, 8);
    data = PyBytes_FromStringAndSize(w, at);
    if (data == NULL) goto done;
    out = PyTuple_Pack(3, offsets, data, rows);
done:
    PyMem_Free(w);
    speedups_keyer_free(k);
    Py_XDECREF(offsets);
    Py_XDECREF(data);
    Py_XDECREF(rows);
    column_release(&c);
    return out;
}
