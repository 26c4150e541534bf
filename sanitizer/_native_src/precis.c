/*
 * PRECIS enforcement in one call, for sanitizer.precis (RFC 8264 §7, RFC 8265, RFC 8266):
 *
 *   precis_enforce(stage1, stage2, config, text) -> str
 *       text as the profile enforces it, or PrecisError raised, or whatever
 *       config's fallback(text) gives for what this file does not decide (not an exact
 *       str, U+03A3 under a lowercasing profile, a result that one more pass of the
 *       rules would change, a contextual code point this file has no rule for).
 *   precis_layout() -> dict[str, int | tuple[str, ...]]
 *       the bit layout of the table, the config flags and the reason order, which
 *       sanitizer/precis/_native_table.py builds against (the one place they are defined).
 *
 * Why it exists: most strings a login or signup sees need no step-by-step work, and in
 * Python the handful of calls to find that out (and the exception for a refusal) cost
 * more than the rules.  Python builds the table (a uint32 per code point in two stages:
 * stage1 a uint16 block number per 256 code points, stage2 the blocks) from the generated
 * Unicode 18 data, and hands over the two things this file does not do itself: the
 * composed code point map (width, spaces, case) and NFC/NFKC (_categories.unicode_normalize),
 * called only when the table says a character needs them.  The pure-Python twin is
 * sanitizer/precis/_profile.py's enforce path, tested equal on the golden cases and by
 * Hypothesis.  Every table read is bounded (a block number past stage2 reads block 0), so
 * a wrong table gives wrong answers, never a bad read.
 */
#include "speedups.h"

#include <stdint.h>
#include <string.h>

/* The table entry of a code point. */
#define P_KIND_MASK 0xFu /* index into DERIVED_KINDS (RFC 8264 §8 value and reason) */
#define P_BIDI_SHIFT 4   /* 3 bits: the Bidi Rule group, G_* below */
#define P_WIDTH (1u << 7) /* changed by the width mapping (RFC 8265 §3.3.1) */
#define P_SPACE (1u << 8) /* a non-ASCII space (RFC 8265 §4.2.1, RFC 8266 §2.1) */
#define P_LOWER (1u << 9) /* changed by toLowerCase */
#define P_FOLD (1u << 10) /* changed by toCasefold */
#define P_NFC (1u << 11)  /* NFC_Quick_Check not Yes, or ccc != 0 */
#define P_NFKC (1u << 12) /* NFKC_Quick_Check not Yes, or ccc != 0 */
#define P_JOIN_SHIFT 13   /* 3 bits: Joining_Type, J_* below (RFC 5892 A.1) */
#define P_VIRAMA (1u << 16) /* Canonical_Combining_Class=Virama (A.1, A.2) */
#define P_SCRIPT_SHIFT 17   /* 2 bits: S_* below (A.4, A.5, A.7) */
#define P_CASED (1u << 19)  /* Cased (Unicode §3.13, D135): Final_Sigma's context */
#define P_CASE_IGNORABLE (1u << 20) /* Case_Ignorable (D136) */

enum { G_OTHER, G_L, G_R_AL, G_AN, G_EN, G_NEUTRAL, G_NSM };
enum { J_U, J_D, J_R, J_L, J_T };
enum { S_OTHER, S_GREEK, S_HEBREW, S_HIRAGANA_KATAKANA_HAN };

/* config flags */
#define F_WIDTH 1
#define F_SPACES 2
#define F_NICKNAME 4 /* strip and collapse spaces; the mappings twice (RFC 8266 §2.4) */
#define F_LOWER 8
#define F_FOLD 16
#define F_BIDI 32
#define F_CLASS_ONLY 64 /* a string class alone: no rules, an empty string allowed */
#define F_FREEFORM 128  /* FreeformClass: U+0020 allowed (ID_DIS or FREE_PVAL, §9.14) */

/* The reasons after the 16 derived kinds, in config's reasons tuple. */
enum {
    R_BIDI = 16, R_EMPTY, R_ZWNJ, R_ZWJ, R_MIDDLE_DOT, R_KERAIA, R_HEBREW, R_KATAKANA,
    R_ARABIC_INDIC, R_EXTENDED_ARABIC_INDIC, R_COUNT
};
static const char *const extra_reasons[] = {
    "bidi_rule", "empty", "zero_width_nonjoiner", "zero_width_joiner", "middle_dot",
    "greek_keraia", "hebrew_punctuation", "katakana_middle_dot", "arabic_indic",
    "extended_arabic_indic",
};

#define STAGE1 0x1100
#define CONFIG_SIZE 10

typedef struct {
    const char *stage1;
    const char *stage2;
    Py_ssize_t blocks;
} Table;

static uint32_t
prop_of(const Table *tab, Py_UCS4 c)
{
    uint16_t block;
    uint32_t v;
    if (c > 0x10FFFF) return 0;
    memcpy(&block, tab->stage1 + 2 * (c >> 8), 2);
    if (block >= tab->blocks) block = 0;
    memcpy(&v, tab->stage2 + 4 * ((Py_ssize_t)block * 256 + (c & 255)), 4);
    return v;
}

typedef struct {
    long flags;
    long allowed;  /* bit k: derived kind k is allowed by the string class */
    long context;  /* bit k: derived kind k is CONTEXTJ or CONTEXTO */
    PyObject *name, *reasons, *mapper, *normalize, *form, *error, *fallback;
} Config;

static int
read_config(PyObject *tuple, Config *cfg)
{
    if (!PyTuple_CheckExact(tuple) || PyTuple_GET_SIZE(tuple) != CONFIG_SIZE) return -1;
    cfg->flags = PyLong_AsLong(PyTuple_GET_ITEM(tuple, 0));
    cfg->allowed = PyLong_AsLong(PyTuple_GET_ITEM(tuple, 1));
    cfg->context = PyLong_AsLong(PyTuple_GET_ITEM(tuple, 2));
    if (PyErr_Occurred()) return -1;
    cfg->name = PyTuple_GET_ITEM(tuple, 3);
    cfg->reasons = PyTuple_GET_ITEM(tuple, 4);
    cfg->mapper = PyTuple_GET_ITEM(tuple, 5);
    cfg->normalize = PyTuple_GET_ITEM(tuple, 6);
    cfg->form = PyTuple_GET_ITEM(tuple, 7);
    cfg->error = PyTuple_GET_ITEM(tuple, 8);
    cfg->fallback = PyTuple_GET_ITEM(tuple, 9);
    if (!PyTuple_CheckExact(cfg->reasons) || PyTuple_GET_SIZE(cfg->reasons) != R_COUNT ||
        (cfg->form != Py_None && !PyUnicode_CheckExact(cfg->form)))
        return -1;
    return 0;
}

static uint32_t
mapped_bits(const Config *cfg)
{
    return ((cfg->flags & F_WIDTH) ? P_WIDTH : 0) | ((cfg->flags & F_SPACES) ? P_SPACE : 0) |
           ((cfg->flags & F_LOWER) ? P_LOWER : 0) | ((cfg->flags & F_FOLD) ? P_FOLD : 0);
}

/* Raise config's error class with (name, reason, string, index or None, mapped). */
static PyObject *
refuse(const Config *cfg, int reason, PyObject *t, Py_ssize_t index, PyObject *text)
{
    int mapped = t != text && PyUnicode_Compare(t, text) != 0;
    PyObject *at = index < 0 ? Py_NewRef(Py_None) : PyLong_FromSsize_t(index);
    if (at == NULL) return NULL;
    PyObject *exc = PyObject_CallFunctionObjArgs(
        cfg->error, cfg->name, PyTuple_GET_ITEM(cfg->reasons, reason), t, at,
        mapped ? Py_True : Py_False, NULL);
    Py_DECREF(at);
    if (exc != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

/* RFC 8266 §2.1 on t (a new reference, stolen): no U+0020 at either end, runs of it one. */
static PyObject *
nickname_spaces(PyObject *t)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(t), lo = 0, hi = n;
    int kind = PyUnicode_KIND(t);
    const void *data = PyUnicode_DATA(t);
    while (lo < hi && PyUnicode_READ(kind, data, lo) == ' ') lo++;
    while (hi > lo && PyUnicode_READ(kind, data, hi - 1) == ' ') hi--;
    Py_ssize_t length = 0;
    Py_UCS4 maxchar = 0;
    int doubled = 0;
    for (Py_ssize_t i = lo; i < hi; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == ' ' && PyUnicode_READ(kind, data, i - 1) == ' ') {
            doubled = 1;
            continue;
        }
        length++;
        if (c > maxchar) maxchar = c;
    }
    if (!doubled) {
        if (lo == 0 && hi == n) return t;
        PyObject *out = PyUnicode_Substring(t, lo, hi);
        Py_DECREF(t);
        return out;
    }
    PyObject *out = PyUnicode_New(length, maxchar);
    if (out != NULL) {
        int okind = PyUnicode_KIND(out);
        void *odata = PyUnicode_DATA(out);
        Py_ssize_t o = 0;
        for (Py_ssize_t i = lo; i < hi; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (c == ' ' && PyUnicode_READ(kind, data, i - 1) == ' ') continue;
            PyUnicode_WRITE(okind, odata, o++, c);
        }
    }
    Py_DECREF(t);
    return out;
}

#define GROUP(p) (((p) >> P_BIDI_SHIFT) & 7u)
#define BIT(g) (1u << (g))

/* RFC 5893 §2: the index where t (not empty) breaks the Bidi Rule, or -1. */
static Py_ssize_t
bidi_violation(const Table *tab, int kind, const void *data, Py_ssize_t n)
{
    unsigned first = GROUP(prop_of(tab, PyUnicode_READ(kind, data, 0)));
    unsigned allowed, last, numbers;
    if (first == G_L) {
        allowed = BIT(G_L) | BIT(G_EN) | BIT(G_NEUTRAL) | BIT(G_NSM); /* condition 5 */
        last = BIT(G_L) | BIT(G_EN);                                  /* 6 */
        numbers = 0;
    }
    else if (first == G_R_AL) {
        allowed = BIT(G_R_AL) | BIT(G_AN) | BIT(G_EN) | BIT(G_NEUTRAL) | BIT(G_NSM); /* 2 */
        last = BIT(G_R_AL) | BIT(G_EN) | BIT(G_AN);                                  /* 3 */
        numbers = BIT(G_EN) | BIT(G_AN);                                             /* 4 */
    }
    else {
        return 0; /* condition 1 */
    }
    Py_ssize_t end = n - 1;
    while (end > 0 && GROUP(prop_of(tab, PyUnicode_READ(kind, data, end))) == G_NSM) end--;
    unsigned g = GROUP(prop_of(tab, PyUnicode_READ(kind, data, end)));
    if (!(last & BIT(g))) return end;
    unsigned seen = (numbers & BIT(g)) ? g : G_OTHER;
    for (Py_ssize_t i = 1; i < end; i++) {
        g = GROUP(prop_of(tab, PyUnicode_READ(kind, data, i)));
        if (!(allowed & BIT(g))) return i;
        if ((numbers & BIT(g)) && g != seen) {
            if (seen != G_OTHER) return i;
            seen = g;
        }
    }
    return -1;
}

#define JOINING(p) (((p) >> P_JOIN_SHIFT) & 7u)
#define SCRIPT(p) (((p) >> P_SCRIPT_SHIFT) & 3u)

/* A.1: the first non-Transparent character from i by step joins on that side. */
static int
joins(const Table *tab, int kind, const void *data, Py_ssize_t n, Py_ssize_t i, int step,
      unsigned side)
{
    for (; i >= 0 && i < n; i += step) {
        unsigned j = JOINING(prop_of(tab, PyUnicode_READ(kind, data, i)));
        if (j == side || j == J_D) return 1;
        if (j != J_T) return 0;
    }
    return 0;
}

typedef struct {
    int han, arabic_indic, extended_arabic_indic; /* anywhere in the string */
} Whole;

/* RFC 5892 Appendix A for t[i]: 0 when the rule passes, its reason when it fails, -1 for a
 * code point without a rule here. */
static int
context_refuses(const Table *tab, int kind, const void *data, Py_ssize_t n, Py_ssize_t i,
                const Whole *whole)
{
    Py_UCS4 c = PyUnicode_READ(kind, data, i);
    Py_UCS4 before = i > 0 ? PyUnicode_READ(kind, data, i - 1) : 0;
    Py_UCS4 after = i + 1 < n ? PyUnicode_READ(kind, data, i + 1) : 0;
    switch (c) {
    case 0x200C: /* A.1 */
        if (i == 0) return R_ZWNJ;
        if (prop_of(tab, before) & P_VIRAMA) return 0;
        return joins(tab, kind, data, n, i - 1, -1, J_L) && joins(tab, kind, data, n, i + 1, 1, J_R)
                   ? 0
                   : R_ZWNJ;
    case 0x200D: /* A.2 */
        return i > 0 && (prop_of(tab, before) & P_VIRAMA) ? 0 : R_ZWJ;
    case 0x00B7: /* A.3 */
        return i > 0 && i + 1 < n && before == 0x6C && after == 0x6C ? 0 : R_MIDDLE_DOT;
    case 0x0375: /* A.4 */
        return i + 1 < n && SCRIPT(prop_of(tab, after)) == S_GREEK ? 0 : R_KERAIA;
    case 0x05F3:
    case 0x05F4: /* A.5, A.6 */
        return i > 0 && SCRIPT(prop_of(tab, before)) == S_HEBREW ? 0 : R_HEBREW;
    case 0x30FB: /* A.7 */
        return whole->han ? 0 : R_KATAKANA;
    default:
        if (c >= 0x0660 && c <= 0x0669) /* A.8 */
            return whole->extended_arabic_indic ? R_ARABIC_INDIC : 0;
        if (c >= 0x06F0 && c <= 0x06F9) /* A.9 */
            return whole->arabic_indic ? R_EXTENDED_ARABIC_INDIC : 0;
        return -1;
    }
}

/* Whether the U+03A3 at i of text is final (Unicode §3.13, Table 3-17, Final_Sigma: a
 * Cased character before it and none after, Case_Ignorable ones skipped), as CPython's
 * str.lower reads it.  Read on the text before the width and space mappings, which keep
 * both properties (tests/identifiers/test_precis.py checks every code point they map). */
static int
final_sigma(const Table *tab, int kind, const void *data, Py_ssize_t n, Py_ssize_t i)
{
    uint32_t p = 0;
    Py_ssize_t j = i - 1;
    for (; j >= 0; j--) {
        p = prop_of(tab, PyUnicode_READ(kind, data, j));
        if (!(p & P_CASE_IGNORABLE)) break;
    }
    if (j < 0 || !(p & P_CASED)) return 0;
    for (j = i + 1; j < n; j++) {
        p = prop_of(tab, PyUnicode_READ(kind, data, j));
        if (!(p & P_CASE_IGNORABLE)) return !(p & P_CASED);
    }
    return 1;
}

/* cfg's mapper on text, which holds U+03A3 under a lowercasing profile: the mapper (a
 * composed per-character map, exact but for U+03A3) on each stretch between them, and
 * each U+03A3 as U+03C2 FINAL SIGMA or U+03C3 (final_sigma). */
static PyObject *
map_with_sigmas(const Config *cfg, const Table *tab, PyObject *text)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), from = 0;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    PyObject *parts = PyList_New(0);
    if (parts == NULL) return NULL;
    for (Py_ssize_t i = 0; i <= n; i++) {
        if (i < n && PyUnicode_READ(kind, data, i) != 0x03A3) continue;
        PyObject *piece = PyUnicode_Substring(text, from, i);
        PyObject *mapped = piece == NULL ? NULL : PyObject_CallOneArg(cfg->mapper, piece);
        Py_XDECREF(piece);
        if (mapped == NULL || PyList_Append(parts, mapped) < 0) goto fail_mapped;
        Py_DECREF(mapped);
        if (i < n) {
            mapped = PyUnicode_FromOrdinal(final_sigma(tab, kind, data, n, i) ? 0x03C2 : 0x03C3);
            if (mapped == NULL || PyList_Append(parts, mapped) < 0) goto fail_mapped;
            Py_DECREF(mapped);
        }
        from = i + 1;
        continue;
    fail_mapped:
        Py_XDECREF(mapped);
        Py_DECREF(parts);
        return NULL;
    }
    PyObject *empty = PyUnicode_New(0, 0);
    PyObject *out = empty == NULL ? NULL : PyUnicode_Join(empty, parts);
    Py_XDECREF(empty);
    Py_DECREF(parts);
    return out;
}

/* One pass of the mapping rules (RFC 8264 §7 steps 1-4) on text: a new reference, or NULL
 * with an exception set (*defer is kept for callers: this pass decides every string). */
static PyObject *
prepare(const Config *cfg, const Table *tab, PyObject *text, int *defer)
{
    uint32_t mapped_by = mapped_bits(cfg);
    uint32_t unnormal = cfg->form == Py_None ? 0
                        : PyUnicode_CompareWithASCIIString(cfg->form, "NFKC") == 0 ? P_NFKC
                                                                                    : P_NFC;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    uint32_t seen = 0;
    int sigmas = 0;
    (void)defer;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        sigmas |= c == 0x03A3;
        seen |= prop_of(tab, c);
    }
    sigmas &= (cfg->flags & F_LOWER) != 0;
    PyObject *t = Py_NewRef(text);
    if (seen & mapped_by) {
        Py_SETREF(t, sigmas ? map_with_sigmas(cfg, tab, t) : PyObject_CallOneArg(cfg->mapper, t));
        if (t == NULL) return NULL;
        if (!PyUnicode_CheckExact(t)) {
            Py_DECREF(t);
            PyErr_SetString(PyExc_TypeError, "precis_enforce: the mapper must return str");
            return NULL;
        }
        /* what the mapped text needs from normalization */
        n = PyUnicode_GET_LENGTH(t);
        kind = PyUnicode_KIND(t);
        data = PyUnicode_DATA(t);
        seen = 0;
        for (Py_ssize_t i = 0; i < n; i++) seen |= prop_of(tab, PyUnicode_READ(kind, data, i));
    }
    if (cfg->flags & F_NICKNAME) {
        t = nickname_spaces(t);
        if (t == NULL) return NULL;
    }
    if (seen & unnormal) {
        PyObject *out = PyObject_CallFunctionObjArgs(cfg->normalize, cfg->form, t, NULL);
        Py_DECREF(t);
        if (out == NULL) return NULL;
        if (!PyUnicode_CheckExact(out)) {
            Py_DECREF(out);
            PyErr_SetString(PyExc_TypeError, "precis_enforce: normalize must return str");
            return NULL;
        }
        t = out;
    }
    return t;
}

/* ASCII (RFC 8264 §9.11): no width, space or Final_Sigma mapping, normalization or Bidi
 * Rule applies, 0x21..0x7E are PVALID and U+0020 FREE_PVAL; so the result is the text,
 * lowercased under a case-mapping profile.  Py_None (a new reference) when the text is
 * refused: the general path finds the reason. */
static PyObject *
enforce_ascii(const Config *cfg, PyObject *text)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const unsigned char *s = PyUnicode_1BYTE_DATA(text);
    int space_ok = (cfg->flags & F_FREEFORM) != 0, upper = 0;
    if (n == 0) return cfg->flags & F_CLASS_ONLY ? Py_NewRef(text) : Py_NewRef(Py_None);
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c < 0x20 || c == 0x7F || (c == ' ' && !space_ok)) return Py_NewRef(Py_None);
        if (c >= 'A' && c <= 'Z') upper = 1;
    }
    if (!upper || !(cfg->flags & (F_LOWER | F_FOLD))) return Py_NewRef(text);
    PyObject *out = PyUnicode_New(n, 127);
    if (out == NULL) return NULL;
    unsigned char *o = PyUnicode_1BYTE_DATA(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        o[i] = (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
    }
    return out;
}

PyObject *
speedups_precis_enforce(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Config cfg;
    if (nargs != 4 || !PyBytes_CheckExact(args[0]) || !PyBytes_CheckExact(args[1]) ||
        PyBytes_GET_SIZE(args[0]) != 2 * STAGE1 || PyBytes_GET_SIZE(args[1]) % 1024 != 0 ||
        PyBytes_GET_SIZE(args[1]) == 0 || read_config(args[2], &cfg) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError,
                            "precis_enforce(stage1: bytes, stage2: bytes, config: tuple, text)");
        return NULL;
    }
    Table tab = {PyBytes_AS_STRING(args[0]), PyBytes_AS_STRING(args[1]),
                 PyBytes_GET_SIZE(args[1]) / 1024};
    PyObject *text = args[3];
    if (!PyUnicode_CheckExact(text)) return PyObject_CallOneArg(cfg.fallback, text);
    if (PyUnicode_IS_ASCII(text) && !(cfg.flags & F_NICKNAME)) {
        PyObject *out = enforce_ascii(&cfg, text);
        if (out != Py_None) return out; /* the result, or NULL for an error */
        Py_DECREF(out);                 /* a refusal: the general path says which */
    }
    uint32_t mapped_by = mapped_bits(&cfg);
    int defer = 0;
    PyObject *t = prepare(&cfg, &tab, text, &defer);
    if (t == NULL) return defer ? PyObject_CallOneArg(cfg.fallback, text) : NULL;

    /* t is the first pass but the Bidi Rule. */
    Py_ssize_t n, refused;
    int kind, context, rtl, unstable, settled = 0;
    const void *data;
    Whole whole;
    for (;;) {
        n = PyUnicode_GET_LENGTH(t);
        kind = PyUnicode_KIND(t);
        data = PyUnicode_DATA(t);
        refused = -1; /* the first character the class refuses outright */
        context = rtl = unstable = 0;
        whole = (Whole){0, 0, 0};
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            uint32_t p = prop_of(&tab, c);
            unsigned k = p & P_KIND_MASK, g = GROUP(p);
            if (p & mapped_by) unstable = 1;
            if (g == G_R_AL || g == G_AN) rtl = 1;
            if (SCRIPT(p) == S_HIRAGANA_KATAKANA_HAN) whole.han = 1;
            if (c >= 0x0660 && c <= 0x0669) whole.arabic_indic = 1;
            if (c >= 0x06F0 && c <= 0x06F9) whole.extended_arabic_indic = 1;
            if (cfg.context & (1L << k))
                context = 1;
            else if (!(cfg.allowed & (1L << k)) && refused < 0)
                refused = i;
        }
        if (cfg.flags & F_NICKNAME) {
            /* NFKC can make spaces (U+00A8 -> U+0020 U+0308): a next pass strips them */
            for (Py_ssize_t i = 0; i < n && !unstable; i++) {
                if (PyUnicode_READ(kind, data, i) != ' ') continue;
                if (i == 0 || i == n - 1 || PyUnicode_READ(kind, data, i + 1) == ' ')
                    unstable = 1;
            }
        }
        if ((cfg.flags & F_BIDI) && rtl) {
            Py_ssize_t at = bidi_violation(&tab, kind, data, n);
            if (at >= 0) {
                refuse(&cfg, R_BIDI, t, at, text);
                Py_DECREF(t);
                return NULL;
            }
        }
        if (settled || !unstable) break;
        /* A character the next pass maps, often back to itself once normalized: that
         * pass.  The result must not change (RFC 8264 §7); a nickname's is the second
         * pass, which the third must not change (RFC 8266 §2.4).  Else the rules one by
         * one decide (not_idempotent, or Bidi on the second pass). */
        PyObject *again = prepare(&cfg, &tab, t, &defer);
        if (again == NULL) {
            Py_DECREF(t);
            return defer ? PyObject_CallOneArg(cfg.fallback, text) : NULL;
        }
        settled = 1;
        if (PyUnicode_Compare(again, t) == 0) {
            Py_DECREF(again);
            break;
        }
        PyObject *third = (cfg.flags & F_NICKNAME) ? prepare(&cfg, &tab, again, &defer) : NULL;
        int same = third != NULL && PyUnicode_Compare(third, again) == 0;
        Py_XDECREF(third);
        Py_DECREF(t);
        if (!same) {
            Py_DECREF(again);
            if (PyErr_Occurred()) return NULL;
            return PyObject_CallOneArg(cfg.fallback, text);
        }
        t = again; /* read the second pass for the checks */
    }
    if (n == 0 && !(cfg.flags & F_CLASS_ONLY)) {
        refuse(&cfg, R_EMPTY, t, -1, text);
        Py_DECREF(t);
        return NULL;
    }
    /* RFC 8264 §8: the first refused character, a failed context rule included */
    int reason = -1;
    Py_ssize_t at = refused;
    if (refused >= 0) reason = (int)(prop_of(&tab, PyUnicode_READ(kind, data, refused)) & P_KIND_MASK);
    if (context) {
        Py_ssize_t end = refused >= 0 ? refused : n;
        for (Py_ssize_t i = 0; i < end; i++) {
            uint32_t p = prop_of(&tab, PyUnicode_READ(kind, data, i));
            if (!(cfg.context & (1L << (p & P_KIND_MASK)))) continue;
            int r = context_refuses(&tab, kind, data, n, i, &whole);
            if (r < 0) { /* no rule here for this code point */
                Py_DECREF(t);
                return PyObject_CallOneArg(cfg.fallback, text);
            }
            if (r > 0) {
                reason = r;
                at = i;
                break;
            }
        }
    }
    if (reason >= 0) {
        refuse(&cfg, reason, t, at, text);
        Py_DECREF(t);
        return NULL;
    }
    return t;
}

static const struct {
    const char *name;
    long value;
} layout[] = {
    {"KIND_MASK", P_KIND_MASK}, {"BIDI_SHIFT", P_BIDI_SHIFT}, {"WIDTH", P_WIDTH},
    {"SPACE", P_SPACE}, {"LOWER", P_LOWER}, {"FOLD", P_FOLD}, {"NFC", P_NFC},
    {"NFKC", P_NFKC}, {"JOIN_SHIFT", P_JOIN_SHIFT}, {"VIRAMA", P_VIRAMA},
    {"CASED", P_CASED}, {"CASE_IGNORABLE", P_CASE_IGNORABLE},
    {"SCRIPT_SHIFT", P_SCRIPT_SHIFT}, {"G_L", G_L}, {"G_R_AL", G_R_AL}, {"G_AN", G_AN},
    {"G_EN", G_EN}, {"G_NEUTRAL", G_NEUTRAL}, {"G_NSM", G_NSM}, {"J_D", J_D}, {"J_R", J_R},
    {"J_L", J_L}, {"J_T", J_T}, {"S_GREEK", S_GREEK}, {"S_HEBREW", S_HEBREW},
    {"S_HIRAGANA_KATAKANA_HAN", S_HIRAGANA_KATAKANA_HAN}, {"F_WIDTH", F_WIDTH},
    {"F_SPACES", F_SPACES}, {"F_NICKNAME", F_NICKNAME}, {"F_LOWER", F_LOWER},
    {"F_FOLD", F_FOLD}, {"F_BIDI", F_BIDI}, {"F_CLASS_ONLY", F_CLASS_ONLY},
    {"F_FREEFORM", F_FREEFORM},
    {"STAGE1_ENTRIES", STAGE1}, {"KINDS", 16},
};

PyObject *
speedups_precis_layout(PyObject *self, PyObject *unused)
{
    PyObject *out = PyDict_New();
    PyObject *reasons = PyTuple_New(R_COUNT - 16);
    if (out == NULL || reasons == NULL) goto error;
    for (int i = 16; i < R_COUNT; i++) {
        PyObject *s = PyUnicode_FromString(extra_reasons[i - 16]);
        if (s == NULL) goto error;
        PyTuple_SET_ITEM(reasons, i - 16, s);
    }
    if (PyDict_SetItemString(out, "REASONS", reasons) < 0) goto error;
    Py_CLEAR(reasons);
    for (size_t i = 0; i < sizeof(layout) / sizeof(layout[0]); i++) {
        PyObject *v = PyLong_FromLong(layout[i].value);
        if (v == NULL || PyDict_SetItemString(out, layout[i].name, v) < 0) {
            Py_XDECREF(v);
            goto error;
        }
        Py_DECREF(v);
    }
    return out;
error:
    Py_XDECREF(out);
    Py_XDECREF(reasons);
    return NULL;
}

static PyMethodDef precis_methods[] = {
    {"precis_enforce", (PyCFunction)(void (*)(void))speedups_precis_enforce, METH_FASTCALL,
     "precis_enforce($module, stage1, stage2, config, text, /)\n--\n\n"
     "text as a PRECIS profile enforces it, PrecisError, or config's fallback(text)\n"
     "(see precis.c)."},
    {"precis_layout", speedups_precis_layout, METH_NOARGS,
     "precis_layout($module, /)\n--\n\n"
     "The table layout, config flags and reason order of precis_enforce."},
    {NULL, NULL, 0, NULL},
};

int
speedups_precis_register(PyObject *module)
{
    return PyModule_AddFunctions(module, precis_methods);
}
