/*
 * The web middleware's head fast path in one call:
 * web_head(path, query, headers, groups, heads, limit) -> Head | framing | None.
 *
 * Why it exists: sanitizer.web judges the head of every request, and in Python the
 * common case (every value clean) cost a few dozen interpreter calls: more than the
 * value checks themselves.  This file does the same steps, in the same order, as the
 * pure-Python twin sanitizer.web._head.fast_head_py, through the same C calls
 * (the core's clean(), through its capsule, and percent.c's unquote()); it adds no rule
 * of its own.  None means
 * "not sure" (a value that is not clean, a '%' or '.' in the path, an ambiguous framing
 * header, an argument of an unexpected type): the caller then decides everything again,
 * fully, in Python.  The media type is parsed by the caller, once per value: heads is
 * (Head, the Head of a request without a body, the caller's dict of Content-Type value ->
 * media kind, its "not sure" kind); a value in that dict gives the Head itself (None
 * past limit, the policy's max_body_size or None), one not yet in it gives the framing,
 * (content_type, length, has_body), for the caller to parse and add (_head._head_of,
 * which this mirrors).
 *
 * groups is sanitizer.web._compiled_web.FastHeadArgs: four groups (path, query, headers,
 * cookies), each a FastGroup (allowed, flags, c_args); tests/web/test_native.py checks
 * that layout.  A value passes its group if it is
 * ASCII whose 128 flags are all 1 (no policy of the group scans those bytes), or else if
 * clean() finds it clean under each of c_args, the policies' table arguments (stage1,
 * stage2, tables, max_run); a group with no c_args takes ASCII only (header values and
 * cookies: other bytes are read as Latin-1 by frameworks).  A query string must be ASCII
 * before it is decoded, and a cookie with a '%' is left to Python (Litestar decodes it).
 */
#include "webspeedups.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* 1 if every byte of s[0:n] is ASCII (below 0x80): one OR over the bytes, which the
 * compiler vectorizes. */
static int
is_ascii(const unsigned char *s, Py_ssize_t n)
{
    unsigned char any = 0;
    for (Py_ssize_t i = 0; i < n; i++) any |= s[i];
    return any < 0x80;
}

/* 1 if every byte of s[0:n] is ASCII with its flag set.  Printable ASCII (0x20..0x7E) is
 * passed 16 bytes at a time when the group allows all of it (SINGLE_LINE, TEXT do), so
 * the flags are read only for the other bytes. */
static int
all_allowed(const unsigned char *s, Py_ssize_t n, const unsigned char *allowed)
{
    Py_ssize_t i = 0;
#if defined(__SSE2__)
    if (n >= 16 && memchr(allowed + 0x20, 0, 0x7F - 0x20) == NULL) {
        const __m128i low = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7F);
        for (; i + 16 <= n; i += 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
            /* signed: bytes >= 0x80 are negative, so below 0x20 too */
            __m128i odd = _mm_or_si128(_mm_cmplt_epi8(x, low), _mm_cmpeq_epi8(x, del));
            if (_mm_movemask_epi8(odd) == 0) continue;
            for (Py_ssize_t j = i; j < i + 16; j++) {
                if (s[j] >= 0x80 || !allowed[s[j]]) return 0;
            }
        }
    }
#endif
    for (; i < n; i++) {
        if (s[i] >= 0x80 || !allowed[s[i]]) return 0;
    }
    return 1;
}

/* 1 if data (bytes) passes every policy of the group, 0 if not (or a group of another
 * shape), -1 on error. */
static int
clean_under(const web_state *st, PyObject *data, PyObject *group)
{
    if (!PyTuple_Check(group) || PyTuple_GET_SIZE(group) != 3) return 0;
    PyObject *flags = PyTuple_GET_ITEM(group, 1), *c_args = PyTuple_GET_ITEM(group, 2);
    if (!PyBytes_CheckExact(flags) || PyBytes_GET_SIZE(flags) != 0x80) return 0;
    if (!PyTuple_CheckExact(c_args)) return 0;
    const unsigned char *allowed = (const unsigned char *)PyBytes_AS_STRING(flags);
    if (all_allowed((const unsigned char *)PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data),
                    allowed))
        return 1; /* ASCII that no policy of the group scans */
    if (PyTuple_GET_SIZE(c_args) == 0) return 0; /* a group of ASCII only */
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(c_args); k++) {
        PyObject *args = PyTuple_GET_ITEM(c_args, k);
        if (!PyTuple_CheckExact(args) || PyTuple_GET_SIZE(args) != 4) return 0;
        PyObject *argv[5] = {data, PyTuple_GET_ITEM(args, 0), PyTuple_GET_ITEM(args, 1),
                             PyTuple_GET_ITEM(args, 2), PyTuple_GET_ITEM(args, 3)};
        PyObject *text = st->capi->clean(st->core, argv, 5);
        if (text == NULL) return -1;
        int ok = text != Py_None;
        Py_DECREF(text);
        if (!ok) return 0;
    }
    return 1;
}

/* bytes.lower() == name for an ASCII name of lower-case letters and '-'. */
static int
name_is(const char *s, Py_ssize_t n, const char *name, Py_ssize_t m)
{
    if (n != m) return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c + 32);
        if (c != (unsigned char)name[i]) return 0;
    }
    return 1;
}

#define NAME_IS(s, n, literal) name_is((s), (n), literal, (Py_ssize_t)sizeof(literal) - 1)

/* The framing, cookie and Authorization headers all start with 'c', 't' or 'a'
 * (_head._INTERESTING). */
static int
may_be_framing(const char *s, Py_ssize_t n)
{
    return n > 0 && ((s[0] | 0x20) == 'c' || (s[0] | 0x20) == 't' || (s[0] | 0x20) == 'a');
}

/* _credentials.may_hold_credentials: an Authorization value that starts with "basic"
 * (any case, after bytes.lstrip()'s whitespace) or holds a '*' (RFC 8187 name*=). */
static int
may_hold_credentials(PyObject *value)
{
    const char *v = PyBytes_AS_STRING(value);
    Py_ssize_t n = PyBytes_GET_SIZE(value);
    if (memchr(v, '*', (size_t)n) != NULL) return 1;
    while (n > 0 && (*v == ' ' || (*v >= '\t' && *v <= '\r'))) v++, n--;
    return n >= 5 && name_is(v, 5, "basic", 5);
}

/* bytes.strip()'s whitespace: space, \t, \n, \v, \f, \r. */
static int
is_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static void
strip(const char **s, Py_ssize_t *n)
{
    while (*n > 0 && is_space((unsigned char)(*s)[0])) (*s)++, (*n)--;
    while (*n > 0 && is_space((unsigned char)(*s)[*n - 1])) (*n)--;
}

/* Content-Length as _head._content_length reads it: int(v) if v.strip().isdigit(), else
 * None.  A new reference; NULL on error (int()'s own, for a very long number). */
static PyObject *
content_length(PyObject *value)
{
    const char *s = PyBytes_AS_STRING(value);
    Py_ssize_t n = PyBytes_GET_SIZE(value);
    strip(&s, &n);
    if (n == 0) Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') Py_RETURN_NONE;
    }
    if (n <= 18) {
        long long v = 0;
        for (Py_ssize_t i = 0; i < n; i++) v = v * 10 + (s[i] - '0');
        return PyLong_FromLongLong(v);
    }
    PyObject *digits = PyBytes_FromStringAndSize(s, n); /* NUL-terminated */
    if (digits == NULL) return NULL;
    PyObject *out = PyLong_FromString(PyBytes_AS_STRING(digits), NULL, 10);
    Py_DECREF(digits);
    return out;
}

/* What the Content-Encoding fields joined as _head._framing joins them ("a,b") can be:
 * only "" and "identity" pass. */
enum { CODING_NONE, CODING_IDENTITY, CODING_OTHER };

static PyObject *
not_sure(void)
{
    Py_RETURN_NONE;
}

/* The Head of a request whose values all passed (_head._head_of's steps): the Head of a
 * request without a body; None (not sure) for a Content-Type the caller found ambiguous or
 * a Content-Length past limit; the framing tuple for a Content-Type the caller has not
 * parsed yet (content_type is borrowed, length owned by the caller). */
static PyObject *
head_of(PyObject *heads, PyObject *limit, PyObject *content_type, PyObject *length,
        int has_body)
{
    PyObject *kind = Py_None;
    if (content_type == NULL) {
        if (length == Py_None && !has_body) return Py_NewRef(PyTuple_GET_ITEM(heads, 1));
    } else {
        kind = PyDict_GetItemWithError(PyTuple_GET_ITEM(heads, 2), content_type);
        if (kind == NULL) {
            if (PyErr_Occurred()) return NULL;
            return PyTuple_Pack(3, content_type, length, has_body ? Py_True : Py_False);
        }
        if (kind == PyTuple_GET_ITEM(heads, 3)) return not_sure();
    }
    if (limit != Py_None && length != Py_None) {
        int over = PyObject_RichCompareBool(length, limit, Py_GT);
        if (over < 0) return NULL;
        if (over) return not_sure();
    }
    /* a tuple subclass without fields of its own (a NamedTuple), filled as tuple's own
     * __new__ fills one */
    PyTypeObject *type = (PyTypeObject *)PyTuple_GET_ITEM(heads, 0);
    PyObject *empty = PyBytes_FromStringAndSize(NULL, 0);
    if (empty == NULL) return NULL;
    PyObject *head = type->tp_alloc(type, 4);
    if (head == NULL) {
        Py_DECREF(empty);
        return NULL;
    }
    PyTuple_SET_ITEM(head, 0, Py_NewRef(kind));
    PyTuple_SET_ITEM(head, 1, empty);
    PyTuple_SET_ITEM(head, 2, Py_NewRef(length));
    PyTuple_SET_ITEM(head, 3, Py_NewRef(has_body ? Py_True : Py_False));
    return head;
}

PyObject *
speedups_web_head(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "web_head(path, query, headers, groups, heads, limit) takes 6 arguments");
        return NULL;
    }
    PyObject *path = args[0], *query = args[1], *headers = args[2], *groups = args[3];
    PyObject *heads = args[4], *limit = args[5];
    const web_state *st = (const web_state *)PyModule_GetState(self);
    int ok;
    if (!PyBytes_CheckExact(path) || !PyBytes_CheckExact(query) || !PyList_CheckExact(headers))
        return not_sure();
    if (!PyTuple_Check(groups) || PyTuple_GET_SIZE(groups) != 4) return not_sure();
    if (!PyTuple_CheckExact(heads) || PyTuple_GET_SIZE(heads) != 4 ||
        !PyType_Check(PyTuple_GET_ITEM(heads, 0)) ||
        !PyType_IsSubtype((PyTypeObject *)PyTuple_GET_ITEM(heads, 0), &PyTuple_Type) ||
        ((PyTypeObject *)PyTuple_GET_ITEM(heads, 0))->tp_basicsize != PyTuple_Type.tp_basicsize ||
        !PyDict_CheckExact(PyTuple_GET_ITEM(heads, 2)) ||
        (limit != Py_None && !PyLong_CheckExact(limit)))
        return not_sure();
    /* the path: no percent-escape or '.' (segments), then clean */
    const char *p = PyBytes_AS_STRING(path);
    Py_ssize_t pn = PyBytes_GET_SIZE(path);
    if (memchr(p, '%', (size_t)pn) != NULL || memchr(p, '.', (size_t)pn) != NULL)
        return not_sure();
    if ((ok = clean_under(st, path, PyTuple_GET_ITEM(groups, 0))) <= 0)
        return ok < 0 ? NULL : not_sure();
    /* the query: '+' and percent-decoded (WHATWG URL §5.1), all fields at once */
    if (PyBytes_GET_SIZE(query) > 0) {
        /* raw bytes >= 0x80: some frameworks read them as Latin-1 (_readings) */
        if (!is_ascii((const unsigned char *)PyBytes_AS_STRING(query), PyBytes_GET_SIZE(query)))
            return not_sure();
        PyObject *uargs[2] = {query, Py_True};
        PyObject *data = speedups_unquote(NULL, uargs, 2);
        if (data == NULL) return NULL;
        /* a backslash: a JSON escape to Falcon's get_param_as_json (_head) */
        if (memchr(PyBytes_AS_STRING(data), '\\', (size_t)PyBytes_GET_SIZE(data)) != NULL) {
            Py_DECREF(data);
            return not_sure();
        }
        ok = clean_under(st, data, PyTuple_GET_ITEM(groups, 1));
        Py_DECREF(data);
        if (ok <= 0) return ok < 0 ? NULL : not_sure();
    }
    /* the headers: every name a token (RFC 9110 §5.1: tchar, read from _grammar.TOKEN at
     * init), the values joined by TAB, at once */
    Py_ssize_t count = PyList_GET_SIZE(headers), total = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *pair = PyList_GET_ITEM(headers, i);
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) return not_sure();
        PyObject *name = PyTuple_GET_ITEM(pair, 0), *value = PyTuple_GET_ITEM(pair, 1);
        if (!PyBytes_CheckExact(name) || !PyBytes_CheckExact(value)) return not_sure();
        const unsigned char *s = (const unsigned char *)PyBytes_AS_STRING(name);
        Py_ssize_t n = PyBytes_GET_SIZE(name);
        if (n == 0) return not_sure();
        for (Py_ssize_t j = 0; j < n; j++) {
            if (!st->tchar[s[j]]) return not_sure();
        }
        total += PyBytes_GET_SIZE(value) + (i > 0);
    }
    if (count > 0) {
        PyObject *joined;
        if (count == 1) {
            joined = Py_NewRef(PyTuple_GET_ITEM(PyList_GET_ITEM(headers, 0), 1));
        } else {
            joined = PyBytes_FromStringAndSize(NULL, total);
            if (joined == NULL) return NULL;
            char *d = PyBytes_AS_STRING(joined);
            for (Py_ssize_t i = 0; i < count; i++) {
                PyObject *value = PyTuple_GET_ITEM(PyList_GET_ITEM(headers, i), 1);
                if (i > 0) *d++ = '\t';
                memcpy(d, PyBytes_AS_STRING(value), (size_t)PyBytes_GET_SIZE(value));
                d += PyBytes_GET_SIZE(value);
            }
        }
        ok = clean_under(st, joined, PyTuple_GET_ITEM(groups, 2));
        Py_DECREF(joined);
        if (ok <= 0) return ok < 0 ? NULL : not_sure();
    }
    /* the framing headers (RFC 9110 §8, RFC 9112 §6), as _head._framing reads them */
    PyObject *content_type = NULL, *length = Py_NewRef(Py_None), *result = NULL;
    int content_types = 0, has_body = 0, coding = CODING_NONE, cookies = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *pair = PyList_GET_ITEM(headers, i);
        PyObject *name = PyTuple_GET_ITEM(pair, 0), *value = PyTuple_GET_ITEM(pair, 1);
        const char *s = PyBytes_AS_STRING(name);
        Py_ssize_t n = PyBytes_GET_SIZE(name);
        if (!may_be_framing(s, n)) continue;
        if (NAME_IS(s, n, "content-type")) {
            content_type = value; /* borrowed from headers */
            content_types++;
        } else if (NAME_IS(s, n, "content-length")) {
            Py_SETREF(length, content_length(value));
            if (length == NULL) return NULL;
            has_body = has_body || length == Py_None || PyObject_IsTrue(length);
        } else if (NAME_IS(s, n, "transfer-encoding")) {
            has_body = 1;
        } else if (NAME_IS(s, n, "content-encoding")) {
            /* repeated fields are one list (RFC 9110 §5.3) */
            const char *v = PyBytes_AS_STRING(value);
            Py_ssize_t vn = PyBytes_GET_SIZE(value);
            strip(&v, &vn);
            if (coding != CODING_NONE) coding = CODING_OTHER;
            else if (vn > 0) coding = NAME_IS(v, vn, "identity") ? CODING_IDENTITY : CODING_OTHER;
        } else if (NAME_IS(s, n, "cookie")) {
            cookies++;
        } else if (NAME_IS(s, n, "authorization") && may_hold_credentials(value)) {
            goto unsure; /* Basic, or an RFC 8187 parameter: decoded by some */
        }
    }
    if (content_types > 1 || coding == CODING_OTHER) goto unsure;
    /* cookies, read literally as frameworks read them; quoted-strings are left to Python */
    for (Py_ssize_t i = 0; cookies > 0 && i < count; i++) {
        PyObject *pair = PyList_GET_ITEM(headers, i);
        PyObject *name = PyTuple_GET_ITEM(pair, 0), *value = PyTuple_GET_ITEM(pair, 1);
        if (!NAME_IS(PyBytes_AS_STRING(name), PyBytes_GET_SIZE(name), "cookie")) continue;
        cookies--;
        const char *v = PyBytes_AS_STRING(value);
        Py_ssize_t vn = PyBytes_GET_SIZE(value);
        if (memchr(v, '"', (size_t)vn) != NULL || memchr(v, '\\', (size_t)vn) != NULL ||
            memchr(v, '%', (size_t)vn) != NULL)
            goto unsure; /* quoted-strings, and %-escapes Litestar decodes */
        ok = clean_under(st, value, PyTuple_GET_ITEM(groups, 3));
        if (ok < 0) goto done;
        if (ok == 0) goto unsure;
    }
    result = head_of(heads, limit, content_type, length, has_body);
    goto done;
unsure:
    result = not_sure();
done:
    Py_DECREF(length);
    return result;
}
