/*
 * source_lines(text) -> (spans, rare): where the source gate (sanitizer/_source_gate.py) has
 * work to do in a decoded file that is not all ASCII.
 *
 * Why it exists: source code is nearly all ASCII even where it is not all ASCII (CPython's
 * standard library: 7.2 million characters in its non-ASCII files, 3,269 of them not
 * ASCII).  The rules of UTS #55 that check_source applies beyond the policy look only at
 * non-ASCII characters and at the lines holding them, so finding those with re and
 * str.isascii over 1024-character slices cost more than all the rest of the gate.  This
 * pass reads each character at most twice (8 bytes at a time where it is ASCII) and
 * hands back only positions.  It holds no Unicode knowledge beyond the five characters
 * below; the pure-Python statement is sanitizer._source_gate._source_lines_py and the tests
 * check that the two agree.
 *
 * spans: a flat list [start0, end0, start1, end1, ...] of the lines holding a character
 * >= U+0080, a line running from after a "\n" (or the text's start) to the next "\n"
 * (excluded, or the text's end); consecutive such lines are one span (the "\n" between
 * them inside it).  rare: the indices of NEL U+0085, LS U+2028, PS U+2029 and the
 * variation selectors U+FE00..U+FE0F (UTS #55: line ends for some, invisible marks), in
 * order.
 *
 * identifiers(text, spans, marks, wide) -> {identifier: first start}: the identifiers in
 * those spans that hold a character >= U+0080 (wide true) or that are all ASCII (wide
 * false), as sanitizer._source_gate._identifiers_py and _ascii_spellings find them with the
 * pattern ESCAPE|([^\W\d][\w{marks}]*) (their pure-Python twin; the tests check that
 * the two agree).  Word and decimal are what re's Unicode \w and \d
 * ask of CPython (Py_UNICODE_ISALNUM or '_', Py_UNICODE_ISDECIMAL), so the two read the
 * same Unicode version; marks is the packed (lo, hi) uint32 ranges of categories.MARKS.
 * Reading the spans with re built a match object for every word of every line holding a
 * non-ASCII character; this builds one str per identifier that is not ASCII.
 */
#include "speedups.h"

#include <string.h>

static inline int
is_rare(Py_UCS4 c)
{
    return c == 0x85 || c == 0x2028 || c == 0x2029 || (c >= 0xFE00 && c <= 0xFE0F);
}

/* The index of the first character >= 0x80 in data[i:n], or n: eight bytes at a time,
 * each mask holding the bits above 0x7F of every character in a 64-bit word. */
#define NEXT_NON_ASCII(NAME, T, MASK)                                                     \
    static Py_ssize_t NAME(const T *data, Py_ssize_t i, Py_ssize_t n)                     \
    {                                                                                     \
        const Py_ssize_t per = (Py_ssize_t)(sizeof(uint64_t) / sizeof(T));                \
        while (i + per <= n) {                                                            \
            uint64_t word;                                                                \
            memcpy(&word, data + i, sizeof word);                                         \
            if (word & (MASK))                                                            \
                break;                                                                    \
            i += per;                                                                     \
        }                                                                                 \
        while (i < n && data[i] < 0x80)                                                   \
            i++;                                                                          \
        return i;                                                                         \
    }

NEXT_NON_ASCII(next_non_ascii_1, Py_UCS1, UINT64_C(0x8080808080808080))
NEXT_NON_ASCII(next_non_ascii_2, Py_UCS2, UINT64_C(0xFF80FF80FF80FF80))
NEXT_NON_ASCII(next_non_ascii_4, Py_UCS4, UINT64_C(0xFFFFFF80FFFFFF80))

static int
append_index(PyObject *list, Py_ssize_t i)
{
    PyObject *v = PyLong_FromSsize_t(i);
    if (v == NULL)
        return -1;
    int rc = PyList_Append(list, v);
    Py_DECREF(v);
    return rc;
}

/* One kind of str: covered is where the last span ended (its "\n"), so the search back
 * for a line's start never reads a character twice. */
#define SCAN_KIND(NAME, T, NEXT)                                                          \
    static int NAME(const T *data, Py_ssize_t n, PyObject *spans, PyObject *rare)         \
    {                                                                                     \
        Py_ssize_t covered = 0, i = 0;                                                    \
        while ((i = NEXT(data, i, n)) < n) {                                              \
            Py_ssize_t start = i;                                                         \
            while (start > covered && data[start - 1] != '\n')                            \
                start--;                                                                  \
            Py_ssize_t end = i;                                                           \
            for (; end < n && data[end] != '\n'; end++) {                                 \
                if (data[end] >= 0x80 && is_rare((Py_UCS4)data[end])                      \
                    && append_index(rare, end) < 0)                                       \
                    return -1;                                                            \
            }                                                                             \
            Py_ssize_t count = PyList_GET_SIZE(spans);                                    \
            if (count && start > 0 && start - 1 == covered) { /* the line after a span */ \
                PyObject *v = PyLong_FromSsize_t(end);                                    \
                if (v == NULL)                                                            \
                    return -1;                                                            \
                if (PyList_SetItem(spans, count - 1, v) < 0)                              \
                    return -1;                                                            \
            }                                                                             \
            else if (append_index(spans, start) < 0 || append_index(spans, end) < 0)      \
                return -1;                                                                \
            covered = i = end;                                                            \
        }                                                                                 \
        return 0;                                                                         \
    }

SCAN_KIND(scan_1, Py_UCS1, next_non_ascii_1)
SCAN_KIND(scan_2, Py_UCS2, next_non_ascii_2)
SCAN_KIND(scan_4, Py_UCS4, next_non_ascii_4)

PyObject *
speedups_source_lines(PyObject *self, PyObject *text)
{
    (void)self;
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "source_lines() argument must be str, not %.100s",
                     Py_TYPE(text)->tp_name);
        return NULL;
    }
    if (PyUnicode_READY(text) < 0)
        return NULL;
    PyObject *spans = PyList_New(0);
    PyObject *rare = PyList_New(0);
    if (spans == NULL || rare == NULL)
        goto fail;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const void *data = PyUnicode_DATA(text);
    int rc = 0;
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        rc = scan_1((const Py_UCS1 *)data, n, spans, rare);
        break;
    case PyUnicode_2BYTE_KIND:
        rc = scan_2((const Py_UCS2 *)data, n, spans, rare);
        break;
    default:
        rc = scan_4((const Py_UCS4 *)data, n, spans, rare);
        break;
    }
    if (rc < 0)
        goto fail;
    PyObject *out = PyTuple_Pack(2, spans, rare);
    Py_DECREF(spans);
    Py_DECREF(rare);
    return out;
fail:
    Py_XDECREF(spans);
    Py_XDECREF(rare);
    return NULL;
}


/* -- identifiers ---------------------------------------------------------------------- */

typedef struct {
    const uint32_t *ranges; /* (lo, hi) pairs, sorted */
    Py_ssize_t count;       /* pairs */
} marks_t;

static int
is_mark(const marks_t *marks, Py_UCS4 c)
{
    Py_ssize_t lo = 0, hi = marks->count;
    while (lo < hi) { /* the first range whose hi >= c */
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (marks->ranges[2 * mid + 1] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < marks->count && marks->ranges[2 * lo] <= c;
}

static inline int
is_word(Py_UCS4 c)
{
    return c == '_' || Py_UNICODE_ISALNUM(c);
}

static inline int
is_hex(Py_UCS4 c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The end of the escape sequence at text[p] == '\\' (_ESCAPE in _source_gate.py: \\u or \\U
 * and 4 to 8 hex digits, \\x and 2, \\N{...} closed on its line, else \\ and any character
 * but a line feed), or p when none matches before end. */
static Py_ssize_t
escape_end(int kind, const void *data, Py_ssize_t p, Py_ssize_t end)
{
    if (p + 1 >= end)
        return p;
    Py_UCS4 d = PyUnicode_READ(kind, data, p + 1);
    if (d == 'u' || d == 'U') {
        Py_ssize_t q = p + 2;
        while (q < end && q < p + 10 && is_hex(PyUnicode_READ(kind, data, q)))
            q++;
        if (q - (p + 2) >= 4)
            return q;
    }
    else if (d == 'x') {
        if (p + 3 < end && is_hex(PyUnicode_READ(kind, data, p + 2))
            && is_hex(PyUnicode_READ(kind, data, p + 3)))
            return p + 4;
    }
    else if (d == 'N' && p + 2 < end && PyUnicode_READ(kind, data, p + 2) == '{') {
        Py_ssize_t q = p + 3;
        for (; q < end; q++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, q);
            if (c == '}')
                return q + 1;
            if (c == '\n')
                break;
        }
    }
    return d == '\n' ? p : p + 2; /* the last alternative: \\ and any character */
}

PyObject *
speedups_identifiers(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "identifiers() takes text, spans, marks, wide");
        return NULL;
    }
    PyObject *text = args[0], *spans = args[1];
    if (!PyUnicode_Check(text) || !PyList_Check(spans)) {
        PyErr_SetString(PyExc_TypeError, "identifiers() takes a str and a list");
        return NULL;
    }
    int wide = PyObject_IsTrue(args[3]);
    if (wide < 0)
        return NULL;
    if (PyUnicode_READY(text) < 0)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[2], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *found = NULL;
    if (view.len % (2 * sizeof(uint32_t)) != 0) {
        PyErr_SetString(PyExc_ValueError, "identifiers(): marks must be uint32 pairs");
        goto done;
    }
    marks_t marks = {(const uint32_t *)view.buf, view.len / (Py_ssize_t)(2 * sizeof(uint32_t))};
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t count = PyList_GET_SIZE(spans);
    if (count % 2 != 0) {
        PyErr_SetString(PyExc_ValueError, "identifiers(): spans must be start, end pairs");
        goto done;
    }
    found = PyDict_New();
    if (found == NULL)
        goto done;
    for (Py_ssize_t k = 0; k < count; k += 2) {
        Py_ssize_t p = PyLong_AsSsize_t(PyList_GET_ITEM(spans, k));
        Py_ssize_t end = PyLong_AsSsize_t(PyList_GET_ITEM(spans, k + 1));
        if ((p == -1 || end == -1) && PyErr_Occurred())
            goto fail;
        if (p < 0 || end > n || p > end) {
            PyErr_SetString(PyExc_ValueError, "identifiers(): a span is out of range");
            goto fail;
        }
        while (p < end) {
            Py_UCS4 c = PyUnicode_READ(kind, data, p);
            if (c == '\\') {
                Py_ssize_t e = escape_end(kind, data, p, end);
                p = e > p ? e : p + 1;
                continue;
            }
            if (c < 0x80 ? !(c == '_' || Py_ISALPHA(c))
                         : !is_word(c) || Py_UNICODE_ISDECIMAL(c)) {
                p++;
                continue;
            }
            /* An identifier: [^\W\d] then [\w{marks}]* */
            Py_UCS4 widest = c;
            Py_ssize_t q = p + 1;
            for (; q < end; q++) {
                Py_UCS4 d = PyUnicode_READ(kind, data, q);
                if (d < 0x80) {
                    if (!(d == '_' || Py_ISALNUM(d)))
                        break;
                }
                else if (!is_word(d) && !is_mark(&marks, d))
                    break;
                if (d > widest)
                    widest = d;
            }
            if ((widest >= 0x80) == wide) {
                PyObject *name = PyUnicode_Substring(text, p, q);
                PyObject *start = name ? PyLong_FromSsize_t(p) : NULL;
                PyObject *had = start ? PyDict_SetDefault(found, name, start) : NULL;
                Py_XDECREF(name);
                Py_XDECREF(start);
                if (had == NULL)
                    goto fail;
            }
            p = q;
        }
    }
    goto done;
fail:
    Py_CLEAR(found);
done:
    PyBuffer_Release(&view);
    return found;
}

/*
 * bidi_feed(judge, text, at, start, bar, room) -> (verdicts, next, counted, allowed, refused)
 *
 * The bidi pairing of the source gate (gcc -Wbidi-chars=unpaired; UAX #9 BD7, X5a-X6a)
 * over text[start:], text's index 0 being `at` in the whole input: the C twin of
 * sanitizer._source_gate._BidiJudge._feed_py, which documents it (the tests hold the two
 * equal).  `judge` holds the state carried from piece to piece (stack, isolates, crossed,
 * overflow), read at the start and written back at the end.  A verdict is (index, code
 * point, code, delimiter crossed or None), codes as _source_gate's _PAIRED.._UNCLOSED_I;
 * those `bar` (the cap's bar: a 4-tuple, or None) wants are given, until more than `room`
 * (-1: no bound) are, when the pass stops at a control and says where to go on; the
 * others are only counted.  A flood of controls costs no Python object a control.
 */
enum { V_PAIRED, V_TOO_DEEP, V_CLOSES_TOO_DEEP, V_NOT_CLOSED_BY_PDF, V_CLOSES_NOTHING,
       V_CROSSES, V_UNCLOSED_E, V_UNCLOSED_I };
#define BIDI_MAX_DEPTH 125 /* UAX #9 BD2 (_source_gate._MAX_DEPTH) */

typedef struct {
    int isolate; /* 0: embedding or override ("E"), 1: isolate ("I") */
    Py_ssize_t index;
    Py_UCS4 cp;
    PyObject *crossing; /* a str, or NULL: a strong reference */
} bidi_entry;

typedef struct {
    bidi_entry stack[BIDI_MAX_DEPTH];
    Py_ssize_t depth, isolates, crossed, overflow;
    int has_bar;
    long long bar[4];
    PyObject *out;
    Py_ssize_t counted, allowed, refused;
} bidi_state;

static int
bidi_is_control(Py_UCS4 c)
{
    return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

static int
bidi_is_eol(Py_UCS4 c)
{
    return c == '\n' || c == 0x0B || c == 0x0C || c == '\r' || c == 0x85 || c == 0x2028
           || c == 0x2029;
}

/* a verdict: given when the bar wants it, else counted; -1 on error */
static int
bidi_emit(bidi_state *st, Py_ssize_t index, Py_UCS4 cp, int code, PyObject *crossing)
{
    int allowed = code == V_PAIRED;
    if (st->has_bar) {
        long long key[4] = {allowed, (long long)index, (long long)index + 1, 0};
        int wanted = 0;
        for (int i = 0; i < 4; i++) {
            if (key[i] != st->bar[i]) {
                wanted = key[i] < st->bar[i];
                break;
            }
        }
        if (!wanted) {
            st->counted++;
            if (allowed)
                st->allowed++;
            else
                st->refused++;
            return 0;
        }
    }
    PyObject *v = Py_BuildValue("(nIiO)", index, (unsigned int)cp, code,
                                crossing ? crossing : Py_None);
    if (v == NULL)
        return -1;
    int r = PyList_Append(st->out, v);
    Py_DECREF(v);
    return r;
}

static int
bidi_unclosed(bidi_state *st)
{
    for (Py_ssize_t i = 0; i < st->depth; i++) {
        bidi_entry *e = &st->stack[i];
        if (bidi_emit(st, e->index, e->cp, e->isolate ? V_UNCLOSED_I : V_UNCLOSED_E, NULL) < 0)
            return -1;
    }
    for (Py_ssize_t i = 0; i < st->depth; i++)
        Py_CLEAR(st->stack[i].crossing);
    st->depth = st->isolates = st->crossed = st->overflow = 0;
    return 0;
}

/* text[lo:hi], between two controls, read while a pair is open: a line end closes the
 * line; else the first string or comment delimiter (_source_gate._DELIMITER) is what the
 * open pairs not yet crossing one now straddle */
static int
bidi_between(bidi_state *st, PyObject *text, int kind, const void *data, Py_ssize_t lo,
             Py_ssize_t hi)
{
    for (Py_ssize_t t = lo; t < hi; t++) {
        if (bidi_is_eol(PyUnicode_READ(kind, data, t)))
            return bidi_unclosed(st);
    }
    if (st->crossed >= st->depth)
        return 0;
    for (Py_ssize_t t = lo; t < hi; t++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, t);
        Py_UCS4 next = t + 1 < hi ? PyUnicode_READ(kind, data, t + 1) : 0;
        Py_ssize_t width = 0;
        if (c == '"' || c == '\'' || c == '`' || c == '#')
            width = 1;
        else if ((c == '/' && (next == '/' || next == '*')) || (c == '*' && next == '/'))
            width = 2;
        if (width) {
            PyObject *found = PyUnicode_Substring(text, t, t + width);
            if (found == NULL)
                return -1;
            for (Py_ssize_t i = st->crossed; i < st->depth; i++) {
                Py_INCREF(found);
                Py_XSETREF(st->stack[i].crossing, found);
            }
            Py_DECREF(found);
            st->crossed = st->depth;
            return 0;
        }
    }
    return 0;
}

static int
bidi_close(bidi_state *st, Py_ssize_t index, Py_UCS4 cp)
{
    bidi_entry e = st->stack[--st->depth];
    st->isolates -= e.isolate;
    if (st->crossed > st->depth)
        st->crossed = st->depth;
    int code = e.crossing == NULL ? V_PAIRED : V_CROSSES;
    int r = bidi_emit(st, e.index, e.cp, code, e.crossing);
    if (r == 0)
        r = bidi_emit(st, index, cp, code, e.crossing);
    Py_XDECREF(e.crossing);
    return r;
}

static int
bidi_control(bidi_state *st, Py_UCS4 c, Py_ssize_t index)
{
    if (c != 0x202C && c != 0x2069) { /* an opener: LRE RLE LRO RLO, LRI RLI FSI */
        if (st->depth >= BIDI_MAX_DEPTH) {
            st->overflow++;
            return bidi_emit(st, index, c, V_TOO_DEEP, NULL);
        }
        bidi_entry *e = &st->stack[st->depth++];
        e->isolate = c >= 0x2066;
        e->index = index;
        e->cp = c;
        e->crossing = NULL;
        st->isolates += e->isolate;
        return 0;
    }
    if (st->overflow) {
        st->overflow--;
        return bidi_emit(st, index, c, V_CLOSES_TOO_DEEP, NULL);
    }
    if (c == 0x202C && st->depth && !st->stack[st->depth - 1].isolate) /* X7 */
        return bidi_close(st, index, c);
    if (c == 0x2069 && st->isolates) { /* X6a: closes embeddings inside too */
        while (!st->stack[st->depth - 1].isolate) {
            bidi_entry e = st->stack[--st->depth];
            if (st->crossed > st->depth)
                st->crossed = st->depth;
            int r = bidi_emit(st, e.index, e.cp, V_NOT_CLOSED_BY_PDF, NULL);
            Py_XDECREF(e.crossing);
            if (r < 0)
                return -1;
        }
        return bidi_close(st, index, c);
    }
    return bidi_emit(st, index, c, V_CLOSES_NOTHING, NULL);
}

static int
bidi_get_count(PyObject *judge, const char *name, Py_ssize_t *out)
{
    PyObject *v = PyObject_GetAttrString(judge, name);
    if (v == NULL)
        return -1;
    *out = PyLong_AsSsize_t(v);
    Py_DECREF(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static int
bidi_set_count(PyObject *judge, const char *name, Py_ssize_t value)
{
    PyObject *v = PyLong_FromSsize_t(value);
    if (v == NULL)
        return -1;
    int r = PyObject_SetAttrString(judge, name, v);
    Py_DECREF(v);
    return r;
}

/* judge's stack ([kind, index, code point, crossing] lists) into st; -1 on error */
static int
bidi_load(bidi_state *st, PyObject *judge)
{
    PyObject *stack = PyObject_GetAttrString(judge, "stack");
    if (stack == NULL)
        return -1;
    int r = -1;
    if (!PyList_Check(stack) || PyList_GET_SIZE(stack) > BIDI_MAX_DEPTH) {
        PyErr_SetString(PyExc_ValueError, "bidi_feed: bad stack");
        goto done;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(stack); i++) {
        PyObject *entry = PyList_GET_ITEM(stack, i);
        if (!PyList_Check(entry) || PyList_GET_SIZE(entry) != 4) {
            PyErr_SetString(PyExc_ValueError, "bidi_feed: bad stack entry");
            goto done;
        }
        PyObject *kind = PyList_GET_ITEM(entry, 0), *crossing = PyList_GET_ITEM(entry, 3);
        bidi_entry *e = &st->stack[st->depth];
        e->isolate = PyUnicode_Check(kind) && PyUnicode_CompareWithASCIIString(kind, "I") == 0;
        e->index = PyLong_AsSsize_t(PyList_GET_ITEM(entry, 1));
        e->cp = (Py_UCS4)PyLong_AsUnsignedLong(PyList_GET_ITEM(entry, 2));
        if (PyErr_Occurred())
            goto done;
        e->crossing = crossing == Py_None ? NULL : Py_NewRef(crossing);
        st->depth++;
    }
    r = 0;
done:
    Py_DECREF(stack);
    return r;
}

/* st's stack back into judge's list, and the counts */
static int
bidi_store(bidi_state *st, PyObject *judge)
{
    PyObject *stack = PyList_New(st->depth);
    if (stack == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < st->depth; i++) {
        bidi_entry *e = &st->stack[i];
        PyObject *entry = Py_BuildValue("[snIO]", e->isolate ? "I" : "E", e->index,
                                        (unsigned int)e->cp, e->crossing ? e->crossing : Py_None);
        if (entry == NULL) {
            Py_DECREF(stack);
            return -1;
        }
        PyList_SET_ITEM(stack, i, entry);
    }
    int r = PyObject_SetAttrString(judge, "stack", stack);
    Py_DECREF(stack);
    if (r == 0)
        r = bidi_set_count(judge, "isolates", st->isolates);
    if (r == 0)
        r = bidi_set_count(judge, "crossed", st->crossed);
    if (r == 0)
        r = bidi_set_count(judge, "overflow", st->overflow);
    return r;
}

PyObject *
speedups_bidi_feed(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6 || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "bidi_feed(judge, text, at, start, bar, room, /)");
        return NULL;
    }
    PyObject *judge = args[0], *text = args[1], *bar = args[4], *result = NULL;
    Py_ssize_t at = PyLong_AsSsize_t(args[2]), start = PyLong_AsSsize_t(args[3]);
    Py_ssize_t room = PyLong_AsSsize_t(args[5]);
    if (PyErr_Occurred())
        return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (start < 0 || start > n) {
        PyErr_SetString(PyExc_ValueError, "bidi_feed: start out of range");
        return NULL;
    }
    bidi_state *st = PyMem_Calloc(1, sizeof(bidi_state));
    if (st == NULL)
        return PyErr_NoMemory();
    if (bar != Py_None) {
        if (!PyTuple_Check(bar) || PyTuple_GET_SIZE(bar) != 4) {
            PyErr_SetString(PyExc_TypeError, "bidi_feed: bar must be a 4-tuple or None");
            goto done;
        }
        st->has_bar = 1;
        for (int i = 0; i < 4; i++)
            st->bar[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(bar, i));
        if (PyErr_Occurred())
            goto done;
    }
    st->out = PyList_New(0);
    if (st->out == NULL || bidi_load(st, judge) < 0
        || bidi_get_count(judge, "isolates", &st->isolates) < 0
        || bidi_get_count(judge, "crossed", &st->crossed) < 0
        || bidi_get_count(judge, "overflow", &st->overflow) < 0)
        goto done;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t pos = start, k = start, next = -1;
    for (; k < n; k++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, k);
        if (!bidi_is_control(c))
            continue;
        if (k > pos && (st->depth || st->overflow)
            && bidi_between(st, text, kind, data, pos, k) < 0)
            goto done;
        pos = k + 1;
        if (room >= 0 && PyList_GET_SIZE(st->out) > room) {
            next = k; /* (what is before it read) */
            break;
        }
        if (bidi_control(st, c, at + k) < 0)
            goto done;
    }
    if (next < 0 && (st->depth || st->overflow) && bidi_between(st, text, kind, data, pos, n) < 0)
        goto done;
    if (bidi_store(st, judge) < 0)
        goto done;
    result = Py_BuildValue("(Onnnn)", st->out, next, st->counted, st->allowed, st->refused);
done:
    for (Py_ssize_t i = 0; i < st->depth; i++)
        Py_XDECREF(st->stack[i].crossing);
    Py_XDECREF(st->out);
    PyMem_Free(st);
    return result;
}
