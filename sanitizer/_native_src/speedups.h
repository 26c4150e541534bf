/*
 * What the parts of the sanitizer._speedups extension share.
 *
 * The extension is one module built from several files, one job each: module.c (method
 * table, module init, exported constants), utf8.c (the RFC 3629 state-machine runner:
 * decode, spans, replace), scan.c (the policy class-table scan: scan, clean, clean_edit),
 * percent.c (percent-decoding for sanitizer.web), lookalike.c (code point map and
 * script-mask lookups for sanitizer.lookalike) and validate.c (the SIMD UTF-8 validator:
 * valid_prefix, is_valid).  This header declares the functions
 * module.c puts in the method table, and the policy-table layout scan.c reads and
 * module.c exports (sanitizer/_classtable.py writes the same layout; tests/test_native.py
 * checks that the two sides agree).
 */
#ifndef SANITIZER_SPEEDUPS_H
#define SANITIZER_SPEEDUPS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Shared between the files of this extension only, not exported from the .so. */
#if defined(__GNUC__)
#define SPEEDUPS_INTERNAL __attribute__((visibility("hidden")))
#else
#define SPEEDUPS_INTERNAL
#endif

/* The class table scan.c reads (sanitizer/_classtable.py builds it): stage1 holds one
 * native-endian uint16 block number per 256 code points (U+0000..10FFFF). */
#define STAGE1_ENTRIES 0x1100

/* Layout of a policy's tables (bytes) scan.c reads, offsets in bytes: flags[256] by
 * class, rule ids[256] by class, prefilter[16], then per sequence rule prev_ok[257] and
 * next_ok[257].  module.c exports these under the same names. */
#define FLAGS_OFFSET 0
#define RULE_IDS_OFFSET 256
#define PREFILTER_OFFSET 512
#define RULES_OFFSET 528
#define RULE_SIZE 514

/* utf8.c */
SPEEDUPS_INTERNAL PyObject *speedups_decode(PyObject *self, PyObject *const *args,
                                            Py_ssize_t nargs, PyObject *kwnames);
SPEEDUPS_INTERNAL PyObject *speedups_set_decode_fallback(PyObject *self, PyObject *args);
SPEEDUPS_INTERNAL PyObject *speedups_spans(PyObject *self, PyObject *args);
SPEEDUPS_INTERNAL PyObject *speedups_replace(PyObject *self, PyObject *args);

/* scan.c */
SPEEDUPS_INTERNAL PyObject *speedups_scan(PyObject *self, PyObject *const *args,
                                          Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_clean(PyObject *self, PyObject *const *args,
                                           Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_clean_edit(PyObject *self, PyObject *const *args,
                                                Py_ssize_t nargs);

/* percent.c */
SPEEDUPS_INTERNAL PyObject *speedups_unquote(PyObject *self, PyObject *const *args,
                                             Py_ssize_t nargs);

/* webhead.c */
SPEEDUPS_INTERNAL PyObject *speedups_web_head(PyObject *self, PyObject *const *args,
                                              Py_ssize_t nargs);

SPEEDUPS_INTERNAL PyObject *speedups_json_strings(PyObject *self, PyObject *const *args,
                                                  Py_ssize_t nargs);

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

/* validate.c */
SPEEDUPS_INTERNAL int speedups_validate_init(void);
SPEEDUPS_INTERNAL PyObject *speedups_valid_prefix(PyObject *self, PyObject *data);
SPEEDUPS_INTERNAL Py_ssize_t speedups_valid_prefix_of(const unsigned char *s, Py_ssize_t n);
SPEEDUPS_INTERNAL PyObject *speedups_utf8_kernel(PyObject *self, PyObject *unused);
SPEEDUPS_INTERNAL PyObject *speedups_utf8_kernels(PyObject *self, PyObject *unused);
SPEEDUPS_INTERNAL PyObject *speedups_valid_prefix_using(PyObject *self, PyObject *const *args,
                                                        Py_ssize_t nargs);
SPEEDUPS_INTERNAL PyObject *speedups_is_valid(PyObject *self, PyObject *const *args,
                                              Py_ssize_t nargs, PyObject *kwnames);
SPEEDUPS_INTERNAL PyObject *speedups_set_is_valid_fallback(PyObject *self, PyObject *fn);

/* source.c */
SPEEDUPS_INTERNAL PyObject *speedups_source_lines(PyObject *self, PyObject *text);
SPEEDUPS_INTERNAL PyObject *speedups_identifiers(PyObject *self, PyObject *const *args,
                                                 Py_ssize_t nargs);

/* precis.c: registers its own functions (precis_enforce, precis_layout) */
SPEEDUPS_INTERNAL int speedups_precis_register(PyObject *module);

#endif /* SANITIZER_SPEEDUPS_H */
