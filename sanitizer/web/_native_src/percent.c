/*
 * Percent-decoding (RFC 3986 §2.1): unquote(data, plus) -> bytes.
 *
 * Why it exists: sanitizer.web decodes a dozen query and form values a request before
 * checking them, and in C each costs about as much as one bytes.replace.  It is a generic
 * byte transform with no UTF-8 or policy knowledge: WHATWG URL §5.1
 * (application/x-www-form-urlencoded) and
 * urllib.parse.unquote_to_bytes: "%" and two hex digits become that byte, any other "%"
 * stays; with plus, a literal "+" becomes a space first.
 */
#include "webspeedups.h"

#include <string.h>

static int
hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

PyObject *
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
#ifdef SANITIZER_FUZZ_SELFTEST_OOB
        /* The ASan self-test only (tools/build_fuzz_native.py --selftest-oob): the
         * bound forgotten, so a value ending in '%' has s[i + 2] read one byte past the end
         * of the bytes object (s[n] is its NUL). */
        if (c == '%') {
#else
        if (c == '%' && i + 2 < n) {
#endif
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
