/*
 * Generic per-code-point lookups over a str, for sanitizer.lookalike (UTS #39):
 *
 *   index_code_points(sources) -> bytes
 *       the lookup index of a str of distinct code points in order: per block of 64 code
 *       points b, the number of sources below b * 64 (uint32, 0x4401 of them, the last
 *       for the end), then per block a uint64 whose bit i says whether b * 64 + i is a
 *       source; so the position of a source is one bit test and one popcount.
 *   map_code_points(sources, index, offsets, values, text) -> str
 *       text with every code point found in ``sources`` replaced by its value
 *       values[offsets[i]:offsets[i + 1]], the others kept (reference: str.translate with
 *       the same map as a dict, _data.CodePointMap.table); index from index_code_points.
 *   script_mask(starts, ids, masks, values, text) -> int
 *       the AND of the bit masks of the runs the code points of text fall in: starts are
 *       the first code points of the runs, in order, from 0; ids the mask number of each
 *       run; masks the same number of uint64 words per mask, low word first; values[i]
 *       the int of mask i, and values[-1] the int with every bit of the words set (the
 *       answer for no code point), returned as they are when the AND equals one of them
 *       (reference: scripts.resolved_mask_py).
 *
 * Why it exists: a confusable check of two strings is a skeleton (NFD, this map, NFD) and
 * a resolved script set (§5.1, this mask) of each; str.translate calls back into Python
 * for every code point its cache has not seen, and a set intersection per character is a
 * Python loop.  The tables are built by Python (sanitizer/lookalike/_data.py, scripts.py)
 * as bytes of native-order integers (index, offsets, starts: uint32; ids: uint16; masks:
 * uint64); this file knows nothing of Unicode data.  Every index read is checked against
 * the buffer it reads, so wrong tables give wrong answers, never a bad read.
 */
#include "speedups.h"

#include <stdint.h>
#include <string.h>

#define MAX_MASK_WORDS 8
#define STACK_INDICES 128
#define BLOCKS 0x4400 /* of 64 code points */
#define INDEX_SIZE (4 * (BLOCKS + 1) + 8 * BLOCKS)

static uint32_t
read_u32(const char *buf, Py_ssize_t i)
{
    uint32_t v;
    memcpy(&v, buf + 4 * i, 4);
    return v;
}

static int
popcount64(uint64_t x)
{
#if defined(__GNUC__)
    return __builtin_popcountll(x);
#else
    int n = 0;
    for (; x; x &= x - 1) n++;
    return n;
#endif
}

PyObject *
speedups_index_code_points(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "index_code_points(sources: str)");
        return NULL;
    }
    PyObject *sources = args[0];
    int kind = PyUnicode_KIND(sources);
    const void *data = PyUnicode_DATA(sources);
    Py_ssize_t n = PyUnicode_GET_LENGTH(sources);
    uint32_t *ranks = PyMem_Calloc(BLOCKS + 1, sizeof(uint32_t));
    uint64_t *bits = PyMem_Calloc(BLOCKS, sizeof(uint64_t));
    PyObject *out = NULL;
    if (ranks == NULL || bits == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 cp = PyUnicode_READ(kind, data, i);
        if (i > 0 && cp <= PyUnicode_READ(kind, data, i - 1)) {
            PyErr_SetString(PyExc_ValueError, "index_code_points: sources must increase");
            goto done;
        }
        bits[cp >> 6] |= (uint64_t)1 << (cp & 63);
        ranks[(cp >> 6) + 1]++;
    }
    for (Py_ssize_t b = 1; b <= BLOCKS; b++) ranks[b] += ranks[b - 1];
    out = PyBytes_FromStringAndSize(NULL, INDEX_SIZE);
    if (out == NULL) goto done;
    memcpy(PyBytes_AS_STRING(out), ranks, 4 * (BLOCKS + 1));
    memcpy(PyBytes_AS_STRING(out) + 4 * (BLOCKS + 1), bits, 8 * BLOCKS);
done:
    PyMem_Free(ranks);
    PyMem_Free(bits);
    return out;
}

/* The sources as the lookup needs them. */
typedef struct {
    Py_ssize_t count;
    const char *ranks; /* BLOCKS + 1 uint32 */
    const char *bits;  /* BLOCKS uint64 */
} Sources;

/* The index of cp in the sources, or -1. */
static Py_ssize_t
find_source(const Sources *src, Py_UCS4 cp)
{
    Py_ssize_t block = (Py_ssize_t)(cp >> 6);
    uint64_t word;
    memcpy(&word, src->bits + 8 * block, 8);
    uint64_t bit = (uint64_t)1 << (cp & 63);
    if (!(word & bit)) return -1;
    Py_ssize_t at = (Py_ssize_t)read_u32(src->ranks, block) + popcount64(word & (bit - 1));
    return at < src->count ? at : -1;
}

PyObject *
speedups_map_code_points(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 || !PyUnicode_Check(args[0]) || !PyBytes_CheckExact(args[1]) ||
        !PyBytes_CheckExact(args[2]) || !PyUnicode_Check(args[3]) || !PyUnicode_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError, "map_code_points(sources: str, index: bytes, "
                                         "offsets: bytes, values: str, text: str)");
        return NULL;
    }
    PyObject *values = args[3], *text = args[4];
    Sources src = {PyUnicode_GET_LENGTH(args[0]), PyBytes_AS_STRING(args[1]),
                   PyBytes_AS_STRING(args[1]) + 4 * (BLOCKS + 1)};
    const char *offs = PyBytes_AS_STRING(args[2]);
    if (PyBytes_GET_SIZE(args[1]) != INDEX_SIZE ||
        PyBytes_GET_SIZE(args[2]) != 4 * (src.count + 1)) {
        PyErr_SetString(PyExc_ValueError, "map_code_points: index must come from "
                                          "index_code_points, offsets one uint32 more than sources");
        return NULL;
    }
    Py_ssize_t nval = PyUnicode_GET_LENGTH(values), n = PyUnicode_GET_LENGTH(text);
    int vkind = PyUnicode_KIND(values), tkind = PyUnicode_KIND(text);
    const void *vdata = PyUnicode_DATA(values), *tdata = PyUnicode_DATA(text);
    /* Pass 1: the first code point that maps; none -> text itself. */
    Py_ssize_t first = 0;
    Py_UCS4 maxchar = 0;
    Py_ssize_t k = -1;
    for (; first < n; first++) {
        Py_UCS4 c = PyUnicode_READ(tkind, tdata, first);
        k = find_source(&src, c);
        if (k >= 0) break;
        if (c > maxchar) maxchar = c;
    }
    if (first == n) return Py_NewRef(text);
    /* Pass 2: the source index of each code point from first on (-1: kept), the length
     * and the widest code point of the result. */
    Py_ssize_t stack[STACK_INDICES];
    Py_ssize_t *found = stack;
    if (n - first > STACK_INDICES) {
        found = PyMem_New(Py_ssize_t, n - first);
        if (found == NULL) return PyErr_NoMemory();
    }
    PyObject *out = NULL;
    Py_ssize_t length = first;
    for (Py_ssize_t i = first; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(tkind, tdata, i);
        if (i > first) k = find_source(&src, c);
        found[i - first] = k;
        if (k < 0) {
            length++;
            if (c > maxchar) maxchar = c;
            continue;
        }
        Py_ssize_t start = read_u32(offs, k), end = read_u32(offs, k + 1);
        if (start > end || end > nval) {
            PyErr_SetString(PyExc_ValueError, "map_code_points: offsets out of order or past values");
            goto done;
        }
        length += end - start;
        for (Py_ssize_t j = start; j < end; j++) {
            Py_UCS4 v = PyUnicode_READ(vkind, vdata, j);
            if (v > maxchar) maxchar = v;
        }
    }
    out = PyUnicode_New(length, maxchar);
    if (out == NULL) goto done;
    int okind = PyUnicode_KIND(out);
    void *odata = PyUnicode_DATA(out);
    /* Pass 3: write (the offsets were checked in pass 2). */
    Py_ssize_t o = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t at = i < first ? -1 : found[i - first];
        if (at < 0) {
            PyUnicode_WRITE(okind, odata, o++, PyUnicode_READ(tkind, tdata, i));
            continue;
        }
        for (Py_ssize_t j = read_u32(offs, at), end = read_u32(offs, at + 1); j < end; j++) {
            PyUnicode_WRITE(okind, odata, o++, PyUnicode_READ(vkind, vdata, j));
        }
    }
done:
    if (found != stack) PyMem_Free(found);
    return out;
}

/* The index of the last start <= cp (starts[0] == 0, checked by the caller). */
static Py_ssize_t
find_run(const char *starts, Py_ssize_t n, Py_UCS4 cp)
{
    Py_ssize_t lo = 0, hi = n; /* starts[lo] <= cp, and cp < starts[hi] when hi < n */
    while (hi - lo > 1) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (read_u32(starts, mid) <= cp) lo = mid;
        else hi = mid;
    }
    return lo;
}

PyObject *
speedups_script_mask(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 || !PyBytes_CheckExact(args[0]) || !PyBytes_CheckExact(args[1]) ||
        !PyBytes_CheckExact(args[2]) || !PyTuple_CheckExact(args[3]) ||
        !PyUnicode_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError, "script_mask(starts: bytes, ids: bytes, "
                                         "masks: bytes, values: tuple[int, ...], text: str)");
        return NULL;
    }
    const char *starts = PyBytes_AS_STRING(args[0]), *ids = PyBytes_AS_STRING(args[1]);
    const char *masks = PyBytes_AS_STRING(args[2]);
    PyObject *ints = args[3], *text = args[4];
    Py_ssize_t nruns = PyBytes_GET_SIZE(args[0]) / 4, nmasks = PyTuple_GET_SIZE(ints) - 1;
    Py_ssize_t words = nmasks > 0 ? PyBytes_GET_SIZE(args[2]) / (8 * nmasks) : 0;
    if (PyBytes_GET_SIZE(args[0]) != 4 * nruns || nruns == 0 || read_u32(starts, 0) != 0 ||
        PyBytes_GET_SIZE(args[1]) != 2 * nruns || words < 1 || words > MAX_MASK_WORDS ||
        PyBytes_GET_SIZE(args[2]) != 8 * words * nmasks) {
        PyErr_SetString(PyExc_ValueError, "script_mask: starts (uint32, from 0) and ids "
                                          "(uint16) must match, masks 1-8 words per value");
        return NULL;
    }
    uint64_t acc[MAX_MASK_WORDS];
    for (Py_ssize_t w = 0; w < words; w++) acc[w] = ~(uint64_t)0;
    Py_ssize_t same = nmasks; /* the value acc equals, when known: values[-1] to start */
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_UCS4 run_lo = 1, run_hi = 0; /* the code points of the last run ANDed: none yet */
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= run_lo && c <= run_hi) continue; /* the same mask again changes nothing */
        Py_ssize_t r = find_run(starts, nruns, c);
        run_lo = read_u32(starts, r);
        run_hi = r + 1 < nruns ? read_u32(starts, r + 1) - 1 : 0x10FFFF;
        uint16_t id;
        memcpy(&id, ids + 2 * r, 2);
        if ((Py_ssize_t)id >= nmasks) {
            PyErr_SetString(PyExc_ValueError, "script_mask: a run's id has no mask");
            return NULL;
        }
        int changed = 0, is_mask = 1, any = 0;
        for (Py_ssize_t w = 0; w < words; w++) {
            uint64_t m, before = acc[w];
            memcpy(&m, masks + 8 * (id * words + w), 8);
            acc[w] &= m;
            changed |= acc[w] != before;
            is_mask &= acc[w] == m;
            any |= acc[w] != 0;
        }
        if (is_mask) same = id;
        else if (changed) same = -1;
        if (!any) return PyLong_FromLong(0); /* empty stays empty */
    }
    if (same >= 0) return Py_NewRef(PyTuple_GET_ITEM(ints, same));
    unsigned char bytes[8 * MAX_MASK_WORDS];
    for (Py_ssize_t w = 0; w < words; w++) {
        for (int b = 0; b < 8; b++) bytes[8 * w + b] = (unsigned char)(acc[w] >> (8 * b));
    }
    return _PyLong_FromByteArray(bytes, (size_t)(8 * words), 1, 0);
}
