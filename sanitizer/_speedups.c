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
static PyObject *default_table = NULL; /* bytes: grammar.MACHINE.table */
static int default_nclasses = 0;

static PyObject *
replace_all(PyObject *bytes)
{
    Py_buffer data, table;
    machine_t m;
    PyObject *result = NULL;
    if (PyObject_GetBuffer(bytes, &data, PyBUF_SIMPLE) < 0) return NULL;
    if (PyObject_GetBuffer(default_table, &table, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&data);
        return NULL;
    }
    Py_UCS4 *out = NULL;
    if (load_machine(&table, default_nclasses, &m) == 0) {
        out = PyMem_Malloc((size_t)(data.len > 0 ? data.len : 1) * sizeof(Py_UCS4));
        if (out == NULL) {
            PyErr_NoMemory();
        } else {
            Py_ssize_t w = run(&m, (const unsigned char *)data.buf, data.len, 0, -1, NULL, out);
            if (w >= 0) result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, w);
        }
    }
    PyMem_Free(out);
    PyBuffer_Release(&table);
    PyBuffer_Release(&data);
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
    PyObject *fn, *table;
    int nclasses;
    if (!PyArg_ParseTuple(args, "OSi:set_decode_fallback", &fn, &table, &nclasses)) return NULL;
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "fallback must be callable");
        return NULL;
    }
    Py_INCREF(fn);
    Py_XSETREF(decode_fallback, fn);
    Py_INCREF(table);
    Py_XSETREF(default_table, table);
    default_nclasses = nclasses;
    Py_RETURN_NONE;
}

static PyMethodDef speedups_methods[] = {
    {"decode", (PyCFunction)(void (*)(void))speedups_decode, METH_FASTCALL | METH_KEYWORDS,
     "decode($module, data, /, *, errors='strict', bom='keep', allow_overlong_nul=False)\n--\n\n"
     "Decode UTF-8 strictly by RFC 3629 (see sanitizer.decoder.decode_py for details)."},
    {"set_decode_fallback", speedups_set_decode_fallback, METH_VARARGS,
     "set_decode_fallback(fn, table, nclasses): the Python decode() that non-trivial calls\n"
     "go to, and the default machine table for errors='replace'."},
    {"spans", speedups_spans, METH_VARARGS,
     "spans(data, table, nclasses, pos, limit) -> flat list of maximal-subpart offsets"},
    {"replace", speedups_replace, METH_VARARGS,
     "replace(data, table, nclasses, pos, out_spans) -> text with U+FFFD per subpart"},
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
