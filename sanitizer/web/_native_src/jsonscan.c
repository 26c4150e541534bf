/*
 * json_strings(text, start, between, strings) -> (open, joined, starts) | None: the JSON
 * strings of a decoded chunk that need judging, escapes resolved (for sanitizer.web._json).
 *
 * Why it exists: the JSON body check must judge every string with its escapes resolved
 * (RFC 8259 §7) and refuse a control between tokens (§2), but most strings of a real
 * body are plain ASCII that no policy refuses.  Finding the strings with ``re`` and
 * slicing each in Python cost three times json.loads; this pass reads each character
 * once and hands back only the strings that need judging, so an ASCII-only string costs
 * nothing in Python, and resolves their escapes on the way.  It holds no policy
 * knowledge: the two 128-entry tables come from Python.  The pure-Python statement is
 * sanitizer.web._json._json_strings_py; the tests check that the two agree.
 *
 * From text[start] (outside any string) to the end: a '"' opens a string (§7), which a
 * '"' not taken by a backslash closes; a backslash takes the next character whatever it
 * is (an invalid escape is not JSON; the app's parser refuses it).  Outside strings, a
 * character < 0x80 with between[c] != 0 makes the answer None, and so does any character
 * >= 0x80 when between[0] != 0 (a table that refuses NUL there refuses everything that
 * is not JSON whitespace or a token: §2).  A complete string whose
 * content holds a character >= 0x80 or one < 0x80 with strings[c] != 0 (the caller flags
 * '\\' there) needs judging; every complete string does when strings['"'] != 0 (a policy
 * that judges whole values: the empty string too).
 *
 * The answer: open, the index of the quote of a string the text leaves open (-1 if
 * none); joined, the contents of the strings that need judging in order, escapes
 * resolved, each after the first preceded by 'a' (an ASCII letter: the policy layer
 * judges text cut before an ASCII character piece by piece); starts, where each
 * content starts in joined.  A complete string with an invalid escape or an escape
 * that leaves a lone surrogate (RFC 8259 §8.2; a pair is one character) also makes the
 * answer None: the caller walks the chunk string by string to say what fails.
 */
#include "webspeedups.h"


#define SEPARATOR 'a'

static int
hex4(Py_UCS4 a, Py_UCS4 b, Py_UCS4 c, Py_UCS4 d)
{
    Py_UCS4 q[4] = {a, b, c, d};
    int v = 0;
    for (int k = 0; k < 4; k++) {
        Py_UCS4 x = q[k];
        int h;
        if (x >= '0' && x <= '9') h = (int)(x - '0');
        else if (x >= 'a' && x <= 'f') h = (int)(x - 'a' + 10);
        else if (x >= 'A' && x <= 'F') h = (int)(x - 'A' + 10);
        else return -1;
        v = (v << 4) | h;
    }
    return v;
}

typedef struct {
    Py_UCS4 *buf; /* the joined contents, grown as needed */
    Py_ssize_t len, cap;
    PyObject *starts;
} joined_t;

static int
reserve(joined_t *j, Py_ssize_t more)
{
    if (j->len + more <= j->cap) return 0;
    Py_ssize_t cap = j->cap ? j->cap : 1024;
    while (cap < j->len + more) {
        if (cap > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)sizeof(Py_UCS4)) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    Py_UCS4 *buf = PyMem_Realloc(j->buf, (size_t)cap * sizeof(Py_UCS4));
    if (buf == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    j->buf = buf;
    j->cap = cap;
    return 0;
}

/* Appends the content s[a:b] with its escapes resolved; 1 when an escape is invalid or
 * leaves a lone surrogate (nothing usable appended), -1 on a Python error. */
#define RESOLVE_BODY(TYPE)                                                               \
    do {                                                                                 \
        const TYPE *s = (const TYPE *)data;                                              \
        Py_UCS4 *out = j->buf + j->len;                                                  \
        for (Py_ssize_t i = a; i < b;) {                                                 \
            Py_UCS4 c = s[i];                                                            \
            if (c != '\\') {                                                             \
                *out++ = c;                                                              \
                i++;                                                                     \
                continue;                                                                \
            }                                                                            \
            if (i + 1 >= b) return 1;                                                    \
            Py_UCS4 e = s[i + 1];                                                        \
            i += 2;                                                                      \
            switch (e) {                                                                 \
            case '"': case '\\': case '/': *out++ = e; continue;                         \
            case 'b': *out++ = 0x08; continue;                                           \
            case 'f': *out++ = 0x0C; continue;                                           \
            case 'n': *out++ = 0x0A; continue;                                           \
            case 'r': *out++ = 0x0D; continue;                                           \
            case 't': *out++ = 0x09; continue;                                           \
            case 'u': break;                                                             \
            default: return 1;                                                           \
            }                                                                            \
            if (i + 4 > b) return 1;                                                     \
            int u = hex4(s[i], s[i + 1], s[i + 2], s[i + 3]);                            \
            if (u < 0) return 1;                                                         \
            i += 4;                                                                      \
            if (u >= 0xDC00 && u <= 0xDFFF) return 1; /* a low surrogate first */        \
            if (u >= 0xD800 && u <= 0xDBFF) {                                            \
                int lo = -1;                                                             \
                if (i + 6 <= b && s[i] == '\\' && s[i + 1] == 'u')                       \
                    lo = hex4(s[i + 2], s[i + 3], s[i + 4], s[i + 5]);                   \
                if (lo < 0xDC00 || lo > 0xDFFF) return 1; /* a lone high surrogate */    \
                i += 6;                                                                  \
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);                      \
            }                                                                            \
            *out++ = (Py_UCS4)u;                                                         \
        }                                                                                \
        j->len = out - j->buf;                                                           \
    } while (0)

static int
resolve(joined_t *j, int kind, const void *data, Py_ssize_t a, Py_ssize_t b)
{
    if (reserve(j, b - a + 1) < 0) return -1; /* escapes only shorten the content */
    if (PyList_GET_SIZE(j->starts) > 0) j->buf[j->len++] = SEPARATOR;
    PyObject *at = PyLong_FromSsize_t(j->len);
    if (at == NULL) return -1;
    int r = PyList_Append(j->starts, at);
    Py_DECREF(at);
    if (r < 0) return -1;
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        RESOLVE_BODY(Py_UCS1);
        break;
    case PyUnicode_2BYTE_KIND:
        RESOLVE_BODY(Py_UCS2);
        break;
    default:
        RESOLVE_BODY(Py_UCS4);
        break;
    }
    return 0;
}

/* The scan: 0 done, 1 "None" (a flagged character between strings, or a string that
 * cannot be resolved), -1 a Python error. */
#define STRINGS_BODY(TYPE)                                                               \
    do {                                                                                 \
        const TYPE *s = (const TYPE *)data;                                              \
        Py_ssize_t i = start;                                                            \
        while (i < n) {                                                                  \
            Py_UCS4 c = s[i];                                                            \
            if (c != '"') {                                                              \
                if (c < 0x80 ? between[c] : between[0]) return 1;                        \
                i++;                                                                     \
                continue;                                                                \
            }                                                                            \
            Py_ssize_t open = i++;                                                       \
            int flagged = every;                                                         \
            for (;;) {                                                                   \
                if (i >= n) {                                                            \
                    *open_at = open;                                                     \
                    return 0;                                                            \
                }                                                                        \
                c = s[i];                                                                \
                if (c == '"') break;                                                     \
                if (c >= 0x80 || strings[c]) {                                           \
                    flagged = 1;                                                         \
                    if (c == '\\') i++; /* the escaped character, whatever it is */     \
                }                                                                        \
                i++;                                                                     \
            }                                                                            \
            if (flagged) {                                                               \
                int r = resolve(j, kind, data, open + 1, i);                             \
                if (r != 0) return r;                                                    \
            }                                                                            \
            i++;                                                                         \
        }                                                                                \
    } while (0)

static int
scan_strings(joined_t *j, int kind, const void *data, Py_ssize_t n, Py_ssize_t start,
             const unsigned char *between, const unsigned char *strings, Py_ssize_t *open_at)
{
    int every = strings['"'] != 0;
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        STRINGS_BODY(Py_UCS1);
        break;
    case PyUnicode_2BYTE_KIND:
        STRINGS_BODY(Py_UCS2);
        break;
    default:
        STRINGS_BODY(Py_UCS4);
        break;
    }
    return 0;
}

static int
table128(PyObject *obj, const char *what, const unsigned char **out)
{
    if (!PyBytes_CheckExact(obj) || PyBytes_GET_SIZE(obj) != 128) {
        PyErr_Format(PyExc_TypeError, "json_strings() %s must be 128 bytes", what);
        return -1;
    }
    *out = (const unsigned char *)PyBytes_AS_STRING(obj);
    return 0;
}

PyObject *
speedups_json_strings(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError,
                        "json_strings(text, start, between, strings) takes 4 arguments");
        return NULL;
    }
    PyObject *text = args[0];
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "json_strings() text must be str");
        return NULL;
    }
    const unsigned char *between, *strings;
    if (table128(args[2], "between", &between) < 0) return NULL;
    if (table128(args[3], "strings", &strings) < 0) return NULL;
    if (!strings['\\']) { /* the escaped character is skipped only when '\\' is flagged */
        PyErr_SetString(PyExc_ValueError, "json_strings() strings must flag '\\\\'");
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    if (start == -1 && PyErr_Occurred()) return NULL;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) return NULL;
#endif
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (start < 0 || start > n) {
        PyErr_SetString(PyExc_ValueError, "json_strings() start out of range");
        return NULL;
    }
    joined_t j = {NULL, 0, 0, PyList_New(0)};
    if (j.starts == NULL) return NULL;
    Py_ssize_t open_at = -1;
    PyObject *result = NULL;
    int r = scan_strings(&j, PyUnicode_KIND(text), PyUnicode_DATA(text), n, start, between,
                         strings, &open_at);
    if (r == 1) {
        result = Py_None;
        Py_INCREF(result);
    } else if (r == 0) {
        PyObject *joined = j.len ? PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, j.buf, j.len)
                                 : PyUnicode_New(0, 0);
        if (joined != NULL) result = Py_BuildValue("(nNO)", open_at, joined, j.starts);
    }
    PyMem_Free(j.buf);
    Py_DECREF(j.starts);
    return result;
}
