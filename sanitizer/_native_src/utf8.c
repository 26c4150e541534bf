/*
 * The RFC 3629 state-machine runner: decode, set_decode_fallback, spans, replace.
 *
 * Why it exists: ill-formed input is walked one byte at a time, which is slow in Python.
 * It holds no UTF-8 knowledge of its own: Python hands it the transition table compiled
 * from the RFC 3629 §4 rows in _grammar.py, and it walks that table exactly as
 * sanitizer/_machine.py (the reference) does.  The two must agree byte for byte; the
 * test-suite and fuzz/fuzz_decode.py check that.  If the extension cannot be built, the
 * package falls back to _machine.py.
 *
 *   spans(data, table, nclasses, pos, limit) -> list[int]   (flat start/end pairs)
 *   replace(data, table, nclasses, pos, out_spans) -> str    (U+FFFD per maximal subpart)
 */
#include "speedups.h"

#define ACCEPT 0
#define REJECT 0xFF
#define REPLACEMENT 0xFFFD

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

PyObject *
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

PyObject *
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
/* (What set_decode_fallback() registers is in the module's state, speedups.h: the Python
 * decode, grammar.MACHINE.table, kept alive, as a machine checked once, and Utf8Error.) */

/*
 * Strict decoding failed in CPython's codec at `good` (everything before it is valid):
 * find the first maximal subpart with the machine and raise Utf8Error for it.  Returns 1
 * when the error is set, 0 when the machine found nothing (the caller then falls back).
 */
static int
raise_first_error(const speedups_state *st, PyObject *bytes, Py_ssize_t good)
{
    PyObject *spans = PyList_New(0);
    if (spans == NULL) return -1;
    int rc = -1;
    if (run(&st->default_machine, (const unsigned char *)PyBytes_AS_STRING(bytes),
            PyBytes_GET_SIZE(bytes), good, 1, spans, NULL) >= 0) {
        rc = 0;
        if (PyList_GET_SIZE(spans) == 2) {
            PyObject *exc = PyObject_CallFunction(st->error_class, "sOOOs", "utf-8", bytes,
                                                  PyList_GET_ITEM(spans, 0),
                                                  PyList_GET_ITEM(spans, 1), "");
            if (exc != NULL) {
                PyErr_SetObject(st->error_class, exc);
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
replace_all(const speedups_state *st, PyObject *bytes)
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
        run(&st->default_machine, (const unsigned char *)PyBytes_AS_STRING(bytes), n, 0, -1, NULL, out);
    if (w >= 0) result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, w);
    if (out != small) PyMem_Free(out);
    return result;
}

PyObject *
speedups_decode(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs == 1 && PyBytes_CheckExact(args[0])) {
        if (kwnames == NULL) {
            PyObject *text = PyUnicode_DecodeUTF8(PyBytes_AS_STRING(args[0]),
                                                  PyBytes_GET_SIZE(args[0]), NULL);
            if (text != NULL || !PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) return text;
            const speedups_state *st = state_of(self);
            if (st->default_table != NULL && st->error_class != NULL) {
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
                int rc = raise_first_error(st, args[0], good);
                if (rc != 0) return NULL; /* Utf8Error raised, or a real failure */
            }
            PyErr_Clear();
        } else if (state_of(self)->default_table != NULL && PyTuple_GET_SIZE(kwnames) == 1 &&
                   PyUnicode_Check(args[1]) &&
                   PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "errors") == 0 &&
                   PyUnicode_CompareWithASCIIString(args[1], "replace") == 0) {
            /* errors="replace" alone: the state machine straight away. */
            return replace_all(state_of(self), args[0]);
        }
    }
    PyObject *fallback = state_of(self)->decode_fallback;
    if (fallback == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "decode fallback not registered");
        return NULL;
    }
    return PyObject_Vectorcall(fallback, args, (size_t)nargs, kwnames);
}

PyObject *
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
    speedups_state *st = state_of(self);
    Py_INCREF(fn);
    Py_XSETREF(st->decode_fallback, fn);
    Py_INCREF(table);
    Py_XSETREF(st->default_table, table);
    st->default_machine = m;
    Py_INCREF(errcls);
    Py_XSETREF(st->error_class, errcls);
    Py_RETURN_NONE;
}
