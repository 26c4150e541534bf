/*
 * Generic per-code-point lookups over a str, for sanitizer._lookalike (UTS #39):
 *
 *   index_code_points(sources) -> bytes
 *       the lookup index of a str of distinct code points in order: per block of 64 code
 *       points b, the number of sources below b * 64 (uint32, 0x4401 of them, the last
 *       for the end), then per block a uint64 whose bit i says whether b * 64 + i is a
 *       source; so the position of a source is one bit test and one popcount.
 *   map_code_points(sources, index, offsets, values, text) -> str
 *       text with every code point found in ``sources`` replaced by its value
 *       values[offsets[i]:offsets[i + 1]], the others kept (reference: str.translate with
 *       the same map as a dict, _code_point_map.CodePointMap.table); index from index_code_points.
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
 * Python loop.  The tables are built by Python (sanitizer/_lookalike/_lookups.py, scripts.py)
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

/* The index of the last start <= cp in starts[lo:hi] (starts[lo] <= cp, and cp <
 * starts[hi] when hi is not the end; starts[0] == 0, checked by the caller). */
static Py_ssize_t
find_run_in(const char *starts, Py_ssize_t lo, Py_ssize_t hi, Py_UCS4 cp)
{
    while (hi - lo > 1) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (read_u32(starts, mid) <= cp) lo = mid;
        else hi = mid;
    }
    return lo;
}

static Py_ssize_t
find_run(const char *starts, Py_ssize_t n, Py_UCS4 cp)
{
    return find_run_in(starts, 0, n, cp);
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

/*
 * The whole skeleton in one pass (UTS #39 §4), and confusable() on top of it:
 *
 *   skeleton_tables(skeleton, decomposition, combining, scripts, verdicts) -> capsule
 *       the tables below, checked once: three maps as (sources, index, offsets, values)
 *       tuples like map_code_points' arguments (the skeleton map; each code point's full
 *       canonical decomposition, Hangul syllables aside; each non-zero
 *       Canonical_Combining_Class as a one-character value), scripts as
 *       (starts, ids, masks, words) like script_mask's, and the four objects confusable
 *       returns (not confusable, single-, mixed-, whole-script).
 *   skeleton(tables, s) -> str
 *       NFD(map(NFD(s))) (UAX #15 canonical decomposition and ordering, done here from
 *       the tables: no intermediate str).
 *   confusable(tables, a, b) -> verdicts[0..3]
 *       both skeletons compared, then the resolved script sets (§5.1) as masks:
 *       intersecting -> single-script, both non-empty -> whole-script, else mixed.
 *
 * Reference: sanitizer/_lookalike/skeletons.py (unicodedata2.normalize and str.translate);
 * the tables are generated from the same unicodedata2 version (tools/gen_lookalike.py),
 * and Python uses this path only when the versions agree.  Canonical ordering is a
 * stable sort by class of each run of non-starters: insertion sort for short runs,
 * counting sort for long ones, so the cost stays linear in the input.
 */

#define TABLES_CAPSULE "sanitizer._speedups.skeleton_tables"
#define STACK_CHARS 256
#define SHORT_RUN 16
#define RUN_BLOCKS 0x1100 /* of 256 code points: where resolve() starts its search */

typedef struct {
    Sources src;
    const char *offs;
    int vkind;
    const void *vdata;
} Map;

typedef struct {
    PyObject *keep; /* the argument tuple: owns every buffer below */
    Map skeleton, decomposition, combining;
    const char *starts, *ids, *masks;
    Py_ssize_t nruns, words;
    uint32_t block_run[RUN_BLOCKS + 1]; /* the run holding each block's first code point */
    PyObject *verdicts[4];
} Tables;

static void
tables_free(PyObject *capsule)
{
    Tables *t = PyCapsule_GetPointer(capsule, TABLES_CAPSULE);
    if (t == NULL) return;
    Py_XDECREF(t->keep);
    PyMem_Free(t);
}

static int
map_from(PyObject *tuple, Map *map, const char *what)
{
    if (!PyTuple_CheckExact(tuple) || PyTuple_GET_SIZE(tuple) != 4 ||
        !PyUnicode_Check(PyTuple_GET_ITEM(tuple, 0)) ||
        !PyBytes_CheckExact(PyTuple_GET_ITEM(tuple, 1)) ||
        !PyBytes_CheckExact(PyTuple_GET_ITEM(tuple, 2)) ||
        !PyUnicode_Check(PyTuple_GET_ITEM(tuple, 3))) {
        PyErr_Format(PyExc_TypeError, "skeleton_tables: %s must be (sources: str, index: "
                     "bytes, offsets: bytes, values: str)", what);
        return -1;
    }
    PyObject *sources = PyTuple_GET_ITEM(tuple, 0), *index = PyTuple_GET_ITEM(tuple, 1);
    PyObject *offsets = PyTuple_GET_ITEM(tuple, 2), *values = PyTuple_GET_ITEM(tuple, 3);
    Py_ssize_t count = PyUnicode_GET_LENGTH(sources);
    if (PyBytes_GET_SIZE(index) != INDEX_SIZE || PyBytes_GET_SIZE(offsets) != 4 * (count + 1)) {
        PyErr_Format(PyExc_ValueError, "skeleton_tables: %s: index must come from "
                     "index_code_points, offsets one uint32 more than sources", what);
        return -1;
    }
    const char *offs = PyBytes_AS_STRING(offsets);
    Py_ssize_t nval = PyUnicode_GET_LENGTH(values);
    for (Py_ssize_t i = 0; i < count; i++) {
        if (read_u32(offs, i) > read_u32(offs, i + 1) || read_u32(offs, i + 1) > nval) {
            PyErr_Format(PyExc_ValueError, "skeleton_tables: %s: offsets out of order or "
                         "past values", what);
            return -1;
        }
    }
    map->src = (Sources){count, PyBytes_AS_STRING(index),
                         PyBytes_AS_STRING(index) + 4 * (BLOCKS + 1)};
    map->offs = offs;
    map->vkind = PyUnicode_KIND(values);
    map->vdata = PyUnicode_DATA(values);
    return 0;
}

PyObject *
speedups_skeleton_tables(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 || !PyTuple_CheckExact(args[3]) || PyTuple_GET_SIZE(args[3]) != 4 ||
        !PyTuple_CheckExact(args[4]) || PyTuple_GET_SIZE(args[4]) != 4) {
        PyErr_SetString(PyExc_TypeError, "skeleton_tables(skeleton, decomposition, combining, "
                                         "scripts: tuple of 4, verdicts: tuple of 4)");
        return NULL;
    }
    Tables *t = PyMem_Calloc(1, sizeof(Tables));
    if (t == NULL) return PyErr_NoMemory();
    PyObject *scripts = args[3];
    if (map_from(args[0], &t->skeleton, "skeleton") < 0 ||
        map_from(args[1], &t->decomposition, "decomposition") < 0 ||
        map_from(args[2], &t->combining, "combining") < 0)
        goto fail;
    PyObject *starts = PyTuple_GET_ITEM(scripts, 0), *ids = PyTuple_GET_ITEM(scripts, 1);
    PyObject *masks = PyTuple_GET_ITEM(scripts, 2), *words = PyTuple_GET_ITEM(scripts, 3);
    if (!PyBytes_CheckExact(starts) || !PyBytes_CheckExact(ids) || !PyBytes_CheckExact(masks) ||
        !PyLong_CheckExact(words)) {
        PyErr_SetString(PyExc_TypeError, "skeleton_tables: scripts must be (starts: bytes, "
                                         "ids: bytes, masks: bytes, words: int)");
        goto fail;
    }
    t->words = PyLong_AsSsize_t(words);
    t->nruns = PyBytes_GET_SIZE(starts) / 4;
    t->starts = PyBytes_AS_STRING(starts);
    t->ids = PyBytes_AS_STRING(ids);
    t->masks = PyBytes_AS_STRING(masks);
    if (t->words < 1 || t->words > MAX_MASK_WORDS || t->nruns == 0 ||
        PyBytes_GET_SIZE(starts) != 4 * t->nruns || read_u32(t->starts, 0) != 0 ||
        PyBytes_GET_SIZE(ids) != 2 * t->nruns || PyBytes_GET_SIZE(masks) % (8 * t->words)) {
        PyErr_SetString(PyExc_ValueError, "skeleton_tables: scripts: starts (uint32, from 0) "
                                          "and ids (uint16) must match, masks 1-8 words each");
        goto fail;
    }
    Py_ssize_t nmasks = PyBytes_GET_SIZE(masks) / (8 * t->words);
    for (Py_ssize_t r = 0; r < t->nruns; r++) {
        uint16_t id;
        memcpy(&id, t->ids + 2 * r, 2);
        if ((Py_ssize_t)id >= nmasks) {
            PyErr_SetString(PyExc_ValueError, "skeleton_tables: a run's id has no mask");
            goto fail;
        }
    }
    for (Py_ssize_t b = 0; b <= RUN_BLOCKS; b++)
        t->block_run[b] = (uint32_t)find_run(t->starts, t->nruns, (Py_UCS4)(b << 8));
    for (int i = 0; i < 4; i++) t->verdicts[i] = PyTuple_GET_ITEM(args[4], i);
    t->keep = PyTuple_New(5);
    if (t->keep == NULL) goto fail;
    for (int i = 0; i < 5; i++) PyTuple_SET_ITEM(t->keep, i, Py_NewRef(args[i]));
    PyObject *capsule = PyCapsule_New(t, TABLES_CAPSULE, tables_free);
    if (capsule == NULL) {
        Py_DECREF(t->keep);
        goto fail;
    }
    return capsule;
fail:
    PyMem_Free(t);
    return NULL;
}

/* A growable UCS4 buffer that starts on the stack. */
typedef struct {
    Py_UCS4 *p;
    Py_ssize_t n, cap;
    int marks; /* whether a non-starter was pushed (else canonical ordering is a no-op) */
    Py_UCS4 stack[STACK_CHARS];
} Buf;

static void
buf_init(Buf *b)
{
    b->p = b->stack;
    b->n = 0;
    b->cap = STACK_CHARS;
    b->marks = 0;
}

static void
buf_free(Buf *b)
{
    if (b->p != b->stack) PyMem_Free(b->p);
}

/* Room for `more` more characters. */
static int
buf_reserve(Buf *b, Py_ssize_t more)
{
    if (b->n + more <= b->cap) return 0;
    Py_ssize_t cap = b->cap;
    while (cap < b->n + more) {
        if (cap > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)sizeof(Py_UCS4)) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    Py_UCS4 *p = PyMem_Malloc(cap * sizeof(Py_UCS4));
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(p, b->p, b->n * sizeof(Py_UCS4));
    buf_free(b);
    b->p = p;
    b->cap = cap;
    return 0;
}

/* The value of cp in map as [*start, *end) of its values, or 0 when cp is not a source. */
static int
map_get(const Map *map, Py_UCS4 cp, Py_ssize_t *start, Py_ssize_t *end)
{
    Py_ssize_t k = find_source(&map->src, cp);
    if (k < 0) return 0;
    *start = read_u32(map->offs, k);
    *end = read_u32(map->offs, k + 1);
    return 1;
}

/* Canonical_Combining_Class (UAX #44): none below U+0300 (the generator checks). */
static int is_mark(const Tables *t, Py_UCS4 cp);

static unsigned int
combining_class(const Tables *t, Py_UCS4 cp)
{
    Py_ssize_t start, end;
    if (!is_mark(t, cp) || !map_get(&t->combining, cp, &start, &end) || start == end) return 0;
    return (unsigned int)PyUnicode_READ(t->combining.vkind, t->combining.vdata, start);
}

/* Whether cp is a non-starter (one bit of the combining map's index). */
static int
is_mark(const Tables *t, Py_UCS4 cp)
{
    if (cp < 0x300) return 0;
    uint64_t word;
    memcpy(&word, t->combining.src.bits + 8 * (cp >> 6), 8);
    return (int)((word >> (cp & 63)) & 1);
}

/* Append cp, noting a non-starter. */
static void
push_one(const Tables *t, Buf *b, Py_UCS4 cp)
{
    b->p[b->n++] = cp;
    if (!b->marks && is_mark(t, cp)) b->marks = 1;
}

/* Append the full canonical decomposition of cp (UAX #15; Unicode §3.12 for Hangul). */
static int
push_decomposed(const Tables *t, Buf *b, Py_UCS4 cp)
{
    if (buf_reserve(b, 4) < 0) return -1;
    if (cp < 0xC0) { /* nothing below U+00C0 decomposes (the generator checks) */
        b->p[b->n++] = cp;
        return 0;
    }
    if (cp >= 0xAC00 && cp <= 0xD7A3) { /* Hangul jamo are starters */
        Py_UCS4 index = cp - 0xAC00, trail = index % 28;
        b->p[b->n++] = 0x1100 + index / 588;
        b->p[b->n++] = 0x1161 + index % 588 / 28;
        if (trail) b->p[b->n++] = 0x11A7 + trail;
        return 0;
    }
    Py_ssize_t start, end;
    if (!map_get(&t->decomposition, cp, &start, &end)) {
        push_one(t, b, cp);
        return 0;
    }
    if (buf_reserve(b, end - start) < 0) return -1;
    for (Py_ssize_t j = start; j < end; j++)
        push_one(t, b, PyUnicode_READ(t->decomposition.vkind, t->decomposition.vdata, j));
    return 0;
}

/* Stable sort of a run of non-starters by combining class. */
static int
sort_run(const Tables *t, Py_UCS4 *s, Py_ssize_t n)
{
    if (n <= SHORT_RUN) {
        unsigned int cls[SHORT_RUN];
        for (Py_ssize_t i = 0; i < n; i++) cls[i] = combining_class(t, s[i]);
        for (Py_ssize_t i = 1; i < n; i++) {
            Py_UCS4 c = s[i];
            unsigned int k = cls[i];
            Py_ssize_t j = i;
            for (; j > 0 && cls[j - 1] > k; j--) {
                s[j] = s[j - 1];
                cls[j] = cls[j - 1];
            }
            s[j] = c;
            cls[j] = k;
        }
        return 0;
    }
    Py_ssize_t count[257] = {0};
    unsigned char *cls = PyMem_Malloc(n);
    Py_UCS4 *copy = PyMem_New(Py_UCS4, n);
    if (cls == NULL || copy == NULL) {
        PyMem_Free(cls);
        PyMem_Free(copy);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        cls[i] = (unsigned char)combining_class(t, s[i]);
        count[cls[i] + 1]++;
        copy[i] = s[i];
    }
    for (int c = 1; c < 257; c++) count[c] += count[c - 1];
    for (Py_ssize_t i = 0; i < n; i++) s[count[cls[i]]++] = copy[i];
    PyMem_Free(cls);
    PyMem_Free(copy);
    return 0;
}

/* Canonical ordering (Unicode §3.11, UAX #15): each run of non-starters sorted. */
static int
reorder(const Tables *t, Buf *b)
{
    if (!b->marks) return 0;
    Py_ssize_t i = 0, n = b->n;
    while (i < n) {
        if (combining_class(t, b->p[i]) == 0) {
            i++;
            continue;
        }
        Py_ssize_t j = i + 1;
        while (j < n && combining_class(t, b->p[j]) != 0) j++;
        if (j - i > 1 && sort_run(t, b->p + i, j - i) < 0) return -1;
        i = j;
    }
    return 0;
}

/* out = skeleton(text): NFD, the skeleton map, NFD.  `work` is scratch. */
static int
skeleton_into(const Tables *t, PyObject *text, Buf *work, Buf *out)
{
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    work->n = 0;
    work->marks = 0;
    out->n = 0;
    out->marks = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (push_decomposed(t, work, PyUnicode_READ(kind, data, i)) < 0) return -1;
    }
    if (reorder(t, work) < 0) return -1;
    int mapped = 0;
    for (Py_ssize_t i = 0; i < work->n; i++) {
        Py_UCS4 c = work->p[i];
        Py_ssize_t start, end;
        if (!map_get(&t->skeleton, c, &start, &end)) {
            if (buf_reserve(out, 1) < 0) return -1;
            if (work->marks) push_one(t, out, c);
            else out->p[out->n++] = c;
            continue;
        }
        mapped = 1;
        for (Py_ssize_t j = start; j < end; j++) {
            Py_UCS4 v = PyUnicode_READ(t->skeleton.vkind, t->skeleton.vdata, j);
            if (push_decomposed(t, out, v) < 0) return -1;
        }
    }
    return mapped ? reorder(t, out) : 0; /* unmapped text is NFD already */
}

static Tables *
tables_of(PyObject *capsule)
{
    return PyCapsule_GetPointer(capsule, TABLES_CAPSULE);
}

static int
check_str(PyObject *value, const char *name, const char *where)
{
    if (PyUnicode_Check(value)) return 0;
    PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be str, not %.200s", where, name,
                 Py_TYPE(value)->tp_name);
    return -1;
}

PyObject *
speedups_skeleton(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "skeleton(tables, s)");
        return NULL;
    }
    Tables *t = tables_of(args[0]);
    if (t == NULL || check_str(args[1], "s", "skeleton") < 0) return NULL;
    Buf work, out;
    buf_init(&work);
    buf_init(&out);
    PyObject *result = NULL;
    if (skeleton_into(t, args[1], &work, &out) == 0)
        result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out.p, out.n);
    buf_free(&work);
    buf_free(&out);
    return result;
}

/* The resolved script set of text as a mask (UTS #39 §5.1; script_mask's loop). */
static void
resolve(const Tables *t, PyObject *text, uint64_t *acc)
{
    for (Py_ssize_t w = 0; w < t->words; w++) acc[w] = ~(uint64_t)0;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_UCS4 run_lo = 1, run_hi = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= run_lo && c <= run_hi) continue;
        Py_ssize_t block = (Py_ssize_t)(c >> 8);
        Py_ssize_t r = find_run_in(t->starts, t->block_run[block], t->block_run[block + 1] + 1, c);
        run_lo = read_u32(t->starts, r);
        run_hi = r + 1 < t->nruns ? read_u32(t->starts, r + 1) - 1 : 0x10FFFF;
        uint16_t id;
        memcpy(&id, t->ids + 2 * r, 2);
        uint64_t any = 0;
        for (Py_ssize_t w = 0; w < t->words; w++) {
            uint64_t m;
            memcpy(&m, t->masks + 8 * (id * t->words + w), 8);
            any |= acc[w] &= m;
        }
        if (!any) return; /* empty stays empty */
    }
}

static int
same_str(PyObject *a, PyObject *b)
{
    if (a == b) return 1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    int kind = PyUnicode_KIND(a);
    return n == PyUnicode_GET_LENGTH(b) && kind == PyUnicode_KIND(b) &&
           memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * kind) == 0;
}

PyObject *
speedups_confusable(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "confusable(tables, a, b)");
        return NULL;
    }
    Tables *t = tables_of(args[0]);
    if (t == NULL || check_str(args[1], "a", "confusable") < 0 ||
        check_str(args[2], "b", "confusable") < 0)
        return NULL;
    if (!same_str(args[1], args[2])) {
        Buf work, sa, sb;
        buf_init(&work);
        buf_init(&sa);
        buf_init(&sb);
        int failed = skeleton_into(t, args[1], &work, &sa) < 0 ||
                     skeleton_into(t, args[2], &work, &sb) < 0;
        int equal = !failed && sa.n == sb.n &&
                    memcmp(sa.p, sb.p, (size_t)sa.n * sizeof(Py_UCS4)) == 0;
        buf_free(&work);
        buf_free(&sa);
        buf_free(&sb);
        if (failed) return NULL;
        if (!equal) return Py_NewRef(t->verdicts[0]);
    }
    uint64_t ra[MAX_MASK_WORDS], rb[MAX_MASK_WORDS];
    resolve(t, args[1], ra);
    resolve(t, args[2], rb);
    uint64_t both = 0, any_a = 0, any_b = 0;
    for (Py_ssize_t w = 0; w < t->words; w++) {
        both |= ra[w] & rb[w];
        any_a |= ra[w];
        any_b |= rb[w];
    }
    int verdict = both ? 1 : (any_a && any_b) ? 3 : 2;
    return Py_NewRef(t->verdicts[verdict]);
}

/* ---- identifier_key of UTF-8 values, for column_keys (columns.c) ----
 *
 * sanitizer._lookalike.key.column_tables() builds, from the scalar function's own steps,
 * the key of each code point alone, G(c) = NFD(N(NFKD(c))) (the map `key`), the dot
 * leads (`dots`) and the code points whose NFKD holds a mark that N maps to another
 * combining class (`odd`).  Without an odd code point, a value's key is the canonical
 * ordering of its characters' G joined (NFKD, N and NFD each act per character but for
 * their orderings, and N keeps each other mark's class, so one ordering at the end gives
 * the same string), then the hidden dots dropped (key.py's _drop_hidden_dots).  A value
 * with an odd code point is left to the scalar function. */
struct speedups_keyer {
    const Tables *t;
    Map key, dots, odd;
    int ascii_ok; /* every ASCII character's G is short, not empty, without marks */
    unsigned char alen[128];     /* then: its length, */
    unsigned char autf8[128][8]; /* and its bytes (8 at most, else ascii_ok is 0) */
    uint32_t ascii[128][2];      /* G of each ASCII character: [start, end) in key's values */
    Buf buf;
};

/* Whether cp is one of src's code points (one bit of its index). */
static inline int
has_source(const Sources *src, Py_UCS4 cp)
{
    uint64_t word;
    memcpy(&word, src->bits + 8 * (cp >> 6), 8);
    return (int)((word >> (cp & 63)) & 1);
}

speedups_keyer *
speedups_keyer_new(PyObject *tables, PyObject *key, PyObject *dots, PyObject *odd)
{
    const Tables *t = tables_of(tables);
    if (t == NULL) return NULL;
    speedups_keyer *k = PyMem_Calloc(1, sizeof(speedups_keyer));
    if (k == NULL) return (speedups_keyer *)PyErr_NoMemory();
    k->t = t;
    if (map_from(key, &k->key, "key") < 0 || map_from(dots, &k->dots, "dots") < 0 ||
        map_from(odd, &k->odd, "odd") < 0) {
        PyMem_Free(k);
        return NULL;
    }
    k->ascii_ok = 1;
    for (Py_UCS4 cp = 0; cp < 128; cp++) {
        Py_ssize_t start = cp, end = cp + 1;
        int mapped = map_get(&k->key, cp, &start, &end);
        k->ascii[cp][0] = mapped ? (uint32_t)start : UINT32_MAX;
        k->ascii[cp][1] = (uint32_t)end;
        if (!mapped) {
            k->alen[cp] = 1;
            k->autf8[cp][0] = (unsigned char)cp;
            continue;
        }
        unsigned char size = 0;
        for (Py_ssize_t i = start; k->ascii_ok && i < end; i++) {
            Py_UCS4 v = PyUnicode_READ(k->key.vkind, k->key.vdata, i);
            if (is_mark(t, v) || v >= 0x800 || size > 6 || start == end) {
                k->ascii_ok = 0; /* never so (the generator checks): the general path */
                break;
            }
            if (v < 0x80) {
                k->autf8[cp][size++] = (unsigned char)v;
            } else {
                k->autf8[cp][size++] = (unsigned char)(0xC0 | (v >> 6));
                k->autf8[cp][size++] = (unsigned char)(0x80 | (v & 0x3F));
            }
        }
        k->alen[cp] = size;
    }
    buf_init(&k->buf);
    return k;
}

void
speedups_keyer_free(speedups_keyer *k)
{
    if (k == NULL) return;
    buf_free(&k->buf);
    PyMem_Free(k);
}

/* Room for `more` bytes at *at in the PyMem buffer *w of *cap bytes. */
static int
out_reserve(char **w, Py_ssize_t *cap, Py_ssize_t at, Py_ssize_t more)
{
    if (more > PY_SSIZE_T_MAX / 2 - at) {
        PyErr_NoMemory();
        return -1;
    }
    if (at + more <= *cap) return 0;
    Py_ssize_t grown = *cap ? *cap : 1 << 16;
    while (grown < at + more) grown *= 2;
    char *p = PyMem_Realloc(*w, (size_t)grown);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *w = p;
    *cap = grown;
    return 0;
}

/* The key of the UTF-8 s[0:n] appended as UTF-8 at *at of the PyMem buffer *w (*cap
 * bytes, grown as needed; *at moved past it): 1; 0 when the scalar function must answer
 * (an odd code point, or bytes that are not well-formed: never read past n), nothing
 * written; -1 with an exception. */
/* Append cp as UTF-8 at q; the byte after it. */
static inline unsigned char *
put_utf8(unsigned char *q, Py_UCS4 ch)
{
    if (ch < 0x80) {
        *q++ = (unsigned char)ch;
    } else if (ch < 0x800) {
        *q++ = (unsigned char)(0xC0 | (ch >> 6));
        *q++ = (unsigned char)(0x80 | (ch & 0x3F));
    } else if (ch < 0x10000) {
        *q++ = (unsigned char)(0xE0 | (ch >> 12));
        *q++ = (unsigned char)(0x80 | ((ch >> 6) & 0x3F));
        *q++ = (unsigned char)(0x80 | (ch & 0x3F));
    } else {
        *q++ = (unsigned char)(0xF0 | (ch >> 18));
        *q++ = (unsigned char)(0x80 | ((ch >> 12) & 0x3F));
        *q++ = (unsigned char)(0x80 | ((ch >> 6) & 0x3F));
        *q++ = (unsigned char)(0x80 | (ch & 0x3F));
    }
    return q;
}

/* The common case in one pass, UTF-8 straight to the output: each character's G in
 * order, when no two marks meet (no ordering to do) and no U+0307 comes (no dot to
 * drop).  1: written; 2: the general path must run (nothing kept); 0 / -1 as
 * speedups_keyer_run. */
static int
key_direct(speedups_keyer *k, const unsigned char *s, Py_ssize_t n, char **w,
           Py_ssize_t *cap, Py_ssize_t *at)
{
    const Tables *t = k->t;
    /* room for 8 bytes per byte left (an ASCII character's key is copied 8 at a time) */
    if (out_reserve(w, cap, *at, 8 * n + 8) < 0) return -1;
    unsigned char *q = (unsigned char *)*w + *at;
    int prev_mark = 0;
    for (Py_ssize_t j = 0; j < n;) {
        unsigned char b0 = s[j];
        if (b0 < 0x80) { /* a run of ASCII: each key is one or more starters */
            do {
                memcpy(q, k->autf8[s[j]], 8);
                q += k->alen[s[j]];
            } while (++j < n && s[j] < 0x80);
            prev_mark = 0;
            continue;
        }
        Py_ssize_t len = b0 < 0xC2 ? 0 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : b0 < 0xF5 ? 4 : 0;
        if (len == 0 || j + len > n) return 0;
        Py_UCS4 cp = b0 & (0x7F >> len);
        for (Py_ssize_t i = 1; i < len; i++) {
            if ((s[j + i] & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (s[j + i] & 0x3F);
        }
        int mark = is_mark(t, cp);
        if (!has_source(&k->key.src, cp)) { /* itself: its own bytes */
            if (mark && prev_mark) return 2;
            if (mark && find_source(&k->odd.src, cp) >= 0) return 0;
            if (cp == 0x0307) return 2;
            prev_mark = mark;
            if (j + 4 <= n) {
                memcpy(q, s + j, 4); /* the next bytes after it are overwritten */
            } else {
                memcpy(q, s + j, (size_t)len);
            }
            q += len;
            j += len;
            continue;
        }
        if (find_source(&k->odd.src, cp) >= 0) return 0;
        j += len;
        Py_ssize_t start = 0, end = 0;
        map_get(&k->key, cp, &start, &end);
        Py_ssize_t done = (Py_ssize_t)((char *)q - *w);
        if (out_reserve(w, cap, done, 4 * (end - start) + 8 * (n - j) + 8) < 0) return -1;
        q = (unsigned char *)*w + done;
        for (Py_ssize_t i = start; i < end; i++) {
            Py_UCS4 v = PyUnicode_READ(k->key.vkind, k->key.vdata, i);
            int m = is_mark(t, v);
            if ((m && prev_mark) || v == 0x0307) return 2;
            prev_mark = m;
            q = put_utf8(q, v);
        }
    }
    *at = (Py_ssize_t)((char *)q - *w);
    return 1;
}

int
speedups_keyer_run(speedups_keyer *k, const unsigned char *s, Py_ssize_t n, char **w,
                   Py_ssize_t *cap, Py_ssize_t *at)
{
    Py_ssize_t j;
    if (k->ascii_ok) {
        int direct = key_direct(k, s, n, w, cap, at);
        if (direct != 2) return direct;
    }
    Buf *b = &k->buf;
    const Tables *t = k->t;
    b->n = 0;
    b->marks = 0;
    int dot = 0, sort = 0, prev_mark = 0;
    /* room for one character per byte left, so that unmapped ones need no check */
    if (buf_reserve(b, n) < 0) return -1;
    for (j = 0; j < n;) {
        unsigned char b0 = s[j];
        Py_UCS4 cp;
        Py_ssize_t start, end;
        if (b0 < 0x80) {
            j++;
            if (k->ascii[b0][0] == UINT32_MAX) {
                b->p[b->n++] = b0;
                prev_mark = 0;
                continue;
            }
            start = k->ascii[b0][0];
            end = k->ascii[b0][1];
        } else {
            Py_ssize_t len = b0 < 0xC2 ? 0 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : b0 < 0xF5 ? 4 : 0;
            if (len == 0 || j + len > n) return 0;
            cp = b0 & (0x7F >> len);
            for (Py_ssize_t i = 1; i < len; i++) {
                if ((s[j + i] & 0xC0) != 0x80) return 0;
                cp = (cp << 6) | (s[j + i] & 0x3F);
            }
            j += len;
            int mark = is_mark(t, cp);
            if (!mark && !has_source(&k->key.src, cp)) { /* itself, a starter: not odd */
                b->p[b->n++] = cp;
                prev_mark = 0;
                continue;
            }
            if (find_source(&k->odd.src, cp) >= 0) return 0;
            if (!map_get(&k->key, cp, &start, &end)) {
                b->p[b->n++] = cp;
                if (cp == 0x0307) dot = 1;
                if (mark && prev_mark) sort = 1;
                prev_mark = mark;
                b->marks |= mark;
                continue;
            }
        }
        if (buf_reserve(b, end - start + (n - j)) < 0) return -1;
        for (Py_ssize_t i = start; i < end; i++) {
            Py_UCS4 v = PyUnicode_READ(k->key.vkind, k->key.vdata, i);
            int mark = is_mark(t, v);
            if (v == 0x0307) dot = 1;
            if (mark && prev_mark) sort = 1;
            prev_mark = mark;
            b->marks |= mark;
            b->p[b->n++] = v;
        }
    }
    if (sort && reorder(t, b) < 0) return -1; /* a lone mark is in order */
    if (dot) {
        /* a U+0307 whose nearest preceding character of class 0 or 230, U+0307 aside,
         * is a dot lead is dropped; the kept prefix holds the same such characters */
        Py_ssize_t kept = 0;
        for (Py_ssize_t i = 0; i < b->n; i++) {
            Py_UCS4 c = b->p[i];
            if (c == 0x0307) {
                Py_ssize_t base = kept - 1;
                for (; base >= 0; base--) {
                    Py_UCS4 p = b->p[base];
                    unsigned int cls = p == 0x0307 ? 1 : combining_class(t, p);
                    if (cls == 0 || cls == 230) break;
                }
                if (base >= 0 && find_source(&k->dots.src, b->p[base]) >= 0) continue;
            }
            b->p[kept++] = c;
        }
        b->n = kept;
    }
    if (out_reserve(w, cap, *at, 4 * b->n) < 0) return -1;
    unsigned char *q = (unsigned char *)*w + *at;
    for (Py_ssize_t i = 0; i < b->n; i++) q = put_utf8(q, b->p[i]);
    *at = (Py_ssize_t)((char *)q - *w);
    return 1;
}
