/*
 * What the parts of the sanitizer._speedups extension share.
 *
 * The extension is one module built from several files, one job each: module.c (method
 * table, module state and init, exported constants, the capsule of speedups_capi.h),
 * utf8.c (the RFC 3629 state-machine runner: decode, spans, replace), validate.c (the SIMD
 * UTF-8 validator: valid_prefix, is_valid), decode_valid.c (bytes the validator proved,
 * decoded to a str), classtable.c, scan.c and edit.c (the policy fast path: a policy's
 * tables checked and derived once; the scan: scan, clean; sanitize's edits: clean_edit;
 * their shared types in scan.h and scan_avx2.h), lookalike.c (code point map and
 * script-mask lookups for sanitizer._lookalike), source.c (the source gate's passes) and
 * precis.c (PRECIS enforcement for sanitizer.precis) and columns.c (Arrow
 * binary and string columns walked in place, for sanitizer.columns).
 * The web layer's C code is another extension, sanitizer.web._speedups
 * (sanitizer/web/_native_src/), which calls clean() through the capsule.
 *
 * This header declares the functions module.c puts in the method table, the module's
 * state, and the policy-table layout scan.c reads and module.c exports
 * (sanitizer/_policy/_classtable.py writes the same layout; tests/core/test_native.py checks
 * that the two sides agree).
 */
#ifndef SANITIZER_SPEEDUPS_H
#define SANITIZER_SPEEDUPS_H

#include "speedups_capi.h" /* Python.h, the ABI version, the capsule */

/* x86-64 with GCC or clang: the AVX2 / SSE4.1 code is compiled per function with target
 * attributes (so the default flags build it) and runs when the CPU has it. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SPEEDUPS_X86 1
#include <immintrin.h>
#endif

/* The class table scan.c reads (sanitizer/_policy/_classtable.py builds it): stage1 holds
 * one native-endian uint16 block number per 256 code points (U+0000..10FFFF). */
#define STAGE1_ENTRIES 0x1100

/* Layout of a policy's tables (bytes) scan.c reads, offsets in bytes: flags[256] by
 * class, rule ids[256] by class, prefilter[16], then per sequence rule prev_ok[257] and
 * next_ok[257].  module.c exports these under the same names. */
#define FLAGS_OFFSET 0
#define RULE_IDS_OFFSET 256
#define PREFILTER_OFFSET 512
#define RULES_OFFSET 528
#define RULE_SIZE 514

/* A machine table (grammar.MACHINE.table) checked by utf8.c, pointing into its bytes. */
typedef struct {
    const unsigned char *classes;
    const unsigned char *masks;
    const unsigned char *trans;
    Py_ssize_t ntrans;
    int nclasses;
    int ascii_ok; /* every byte < 0x80 is a whole character in ACCEPT */
} machine_t;

typedef struct table_cache table_cache; /* classtable.c */

/* The module's state (PEP 489 multi-phase init, PEP 573): what its functions keep between
 * calls, per module object (one per interpreter).  The functions reach it through their
 * `self`, the module (state_of).  What depends only on the CPU (the validator's kernel)
 * is process-wide instead. */
typedef struct {
    /* utf8.c: decode()'s Python fallback, the default machine (its table kept alive)
     * and the class it raises (Utf8Error), from set_decode_fallback() */
    PyObject *decode_fallback, *default_table, *error_class;
    machine_t default_machine;
    /* validate.c: is_valid()'s Python fallback, from set_is_valid_fallback() */
    PyObject *is_valid_fallback;
    /* classtable.c: the policy tables checked so far, and what was derived from them */
    table_cache *tables;
    /* edit.c: the ACT_* table of the last (tables, edits) pair, both held */
    PyObject *act_tables, *act_edits;
    unsigned char act_table[256];
    /* scan.c: the text clean() or clean_edit() decoded from kept_data (bytes) and gave
     * up on unchanged, for the next call on the same object (take_decoded, or either
     * of them again) instead of a second decode; dropped by the next call either way */
    PyObject *kept_data, *kept_text;
} speedups_state;

static inline speedups_state *
state_of(PyObject *module)
{
    return (speedups_state *)PyModule_GetState(module);
}

/* utf8.c */
SPEEDUPS_INTERNAL PyObject *speedups_decode(PyObject *self, PyObject *const *args,
                                            Py_ssize_t nargs, PyObject *kwnames);
SPEEDUPS_INTERNAL PyObject *speedups_set_decode_fallback(PyObject *self, PyObject *args);
SPEEDUPS_INTERNAL PyObject *speedups_spans(PyObject *self, PyObject *args);
SPEEDUPS_INTERNAL PyObject *speedups_replace(PyObject *self, PyObject *args);

/* classtable.c: the cache in the module's state */
SPEEDUPS_INTERNAL table_cache *classtable_cache_new(void);
SPEEDUPS_INTERNAL void classtable_cache_clear(table_cache *cache);
SPEEDUPS_INTERNAL int classtable_cache_traverse(table_cache *cache, visitproc visit, void *arg);

/* scan.c */
SPEEDUPS_INTERNAL PyObject *speedups_scan(PyObject *self, PyObject *const *args,
                                          Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_clean(PyObject *self, PyObject *const *args,
                                           Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_count_groups(PyObject *self, PyObject *const *args,
                                                  Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_list_groups(PyObject *self, PyObject *const *args,
                                                 Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_list_findings(PyObject *self, PyObject *const *args,
                                                   Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_groups_outside(PyObject *self, PyObject *const *args,
                                                    Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_payload_spans(PyObject *self, PyObject *const *args,
                                                   Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_span_members(PyObject *self, PyObject *const *args,
                                                  Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_word_marks(PyObject *self, PyObject *const *args,
                                                Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_reveal_scan(PyObject *self, PyObject *const *args,
                                                 Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_reveal_runs(PyObject *self, PyObject *const *args,
                                                 Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_utf8_length(PyObject *self, PyObject *const *args,
                                                 Py_ssize_t nargs);

/* edit.c */
SPEEDUPS_INTERNAL PyObject *speedups_clean_edit(PyObject *self, PyObject *const *args,
                                                Py_ssize_t nargs);

/* decode_valid.c: s[0:n] decoded (strict) to a new str when it is valid UTF-8, else None
 * (a new reference) without raising; NULL on error. */
SPEEDUPS_INTERNAL PyObject *speedups_decode_valid(const unsigned char *s, Py_ssize_t n);
SPEEDUPS_INTERNAL PyObject *speedups_decode_valid_method(PyObject *self, PyObject *data);
SPEEDUPS_INTERNAL PyObject *speedups_str_kind(PyObject *self, PyObject *text);
SPEEDUPS_INTERNAL PyObject *speedups_take_decoded(PyObject *self, PyObject *data);

/* lookalike.c */
SPEEDUPS_INTERNAL PyObject *speedups_index_code_points(PyObject *self, PyObject *const *args,
                                                       Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_map_code_points(PyObject *self, PyObject *const *args,
                                                     Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_script_mask(PyObject *self, PyObject *const *args,
                                                 Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_skeleton_tables(PyObject *self, PyObject *const *args,
                                                     Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_skeleton(PyObject *self, PyObject *const *args,
                                              Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_confusable(PyObject *self, PyObject *const *args,
                                                Py_ssize_t nargs);
/* normalize.c: NFC and NFKC (tables: normalize_data.h); its quick-check bitmaps, once */
SPEEDUPS_INTERNAL void speedups_normalize_init(void);
SPEEDUPS_INTERNAL PyObject *speedups_normalize(PyObject *self, PyObject *const *args,
                                               Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_normalize_runs(PyObject *self, PyObject *const *args,
                                                   Py_ssize_t nargs);
/* identifier_key of UTF-8 values without a str each (sanitizer._lookalike.key's
 * column_tables; see lookalike.c): new (tables capsule, key, dots, odd), run (1: the key
 * appended as UTF-8 at *at of the PyMem buffer *w of *cap bytes, grown as needed; 0: left
 * to the scalar function; -1: error), free. */
typedef struct speedups_keyer speedups_keyer;
SPEEDUPS_INTERNAL speedups_keyer *speedups_keyer_new(PyObject *tables, PyObject *key,
                                                     PyObject *dots, PyObject *odd);
SPEEDUPS_INTERNAL int speedups_keyer_run(speedups_keyer *k, const unsigned char *s,
                                         Py_ssize_t n, char **w, Py_ssize_t *cap,
                                         Py_ssize_t *at);
SPEEDUPS_INTERNAL void speedups_keyer_free(speedups_keyer *k);

/* validate.c */
SPEEDUPS_INTERNAL void speedups_validate_init(void);
SPEEDUPS_INTERNAL PyObject *speedups_set_utf8_kernel(PyObject *self, PyObject *name);
/* 1 when the avx2 or avx512 kernel runs: scan.c's and decode_valid.c's AVX2 loops run
 * then, and only then (they have no AVX-512 loops; every AVX-512 CPU has AVX2). */
SPEEDUPS_INTERNAL extern int speedups_avx2;
/* The kernels' block: 64 bytes (one AVX-512 vector, two AVX2, four SSE4.1 or NEON).
 * module.c exports it (VALIDATOR_BLOCK: sanitizer._native.VALIDATOR_BLOCK must be the same). */
#define VALIDATOR_BLOCK 64
SPEEDUPS_INTERNAL PyObject *speedups_valid_prefix(PyObject *self, PyObject *data);
SPEEDUPS_INTERNAL Py_ssize_t speedups_valid_prefix_of(const unsigned char *s, Py_ssize_t n);
SPEEDUPS_INTERNAL PyObject *speedups_utf8_kernel(PyObject *self, PyObject *unused);
SPEEDUPS_INTERNAL PyObject *speedups_utf8_kernels(PyObject *self, PyObject *unused);
SPEEDUPS_INTERNAL PyObject *speedups_valid_prefix_using(PyObject *self, PyObject *const *args,
                                                        Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_is_valid(PyObject *self, PyObject *const *args,
                                              Py_ssize_t nargs, PyObject *kwnames);
SPEEDUPS_INTERNAL PyObject *speedups_set_is_valid_fallback(PyObject *self, PyObject *fn);

/* columns.c: Arrow binary and string columns walked in place */
SPEEDUPS_INTERNAL PyObject *speedups_column_check(PyObject *self, PyObject *const *args,
                                                  Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_column_gather(PyObject *self, PyObject *const *args,
                                                   Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_column_clean(PyObject *self, PyObject *const *args,
                                                  Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_column_translate(PyObject *self, PyObject *const *args,
                                                      Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_column_keys(PyObject *self, PyObject *const *args,
                                                 Py_ssize_t nargs);

/* source.c */
SPEEDUPS_INTERNAL PyObject *speedups_source_lines(PyObject *self, PyObject *text);
SPEEDUPS_INTERNAL PyObject *speedups_count_mark_runs(PyObject *self, PyObject *const *args,
                                                     Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_list_mark_runs(PyObject *self, PyObject *const *args,
                                                    Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_bidi_feed(PyObject *self, PyObject *const *args,
                                              Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_identifiers(PyObject *self, PyObject *const *args,
                                                 Py_ssize_t nargs);

/* precis.c: registers its own functions (precis_enforce, precis_layout) */
SPEEDUPS_INTERNAL int speedups_precis_register(PyObject *module);

#endif /* SANITIZER_SPEEDUPS_H */
