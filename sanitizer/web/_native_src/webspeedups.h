/*
 * What the parts of the sanitizer.web._speedups extension share.
 *
 * The web layer's optional C code, apart from the core's extension (sanitizer._speedups)
 * since it belongs to the web layer: module.c (method table, module state, init),
 * percent.c (percent-decoding: unquote), webhead.c (the head fast path: web_head) and
 * jsonscan.c (the JSON strings that need judging: json_strings).  Python reaches it through
 * sanitizer/web/_native.py only; sanitizer/web/_speedups.pyi states its signatures.
 *
 * From the core it uses clean() only, through the core's capsule (speedups_capi.h), and
 * from Python the token characters of sanitizer.web._grammar (TOKEN), read at init.
 */
#ifndef SANITIZER_WEB_SPEEDUPS_H
#define SANITIZER_WEB_SPEEDUPS_H

#include "speedups_capi.h" /* the core's C interface: clean() */

/* This module's interface version: its ABI_VERSION attribute, which
 * sanitizer/web/_native.py checks at import.  Bump it (on both sides) whenever a
 * function, argument or constant of the module changes. */
#define WEB_SPEEDUPS_ABI_VERSION 2

/* Per-module state (PEP 489 multi-phase init, PEP 573 state). */
typedef struct {
    PyObject *core;                     /* sanitizer._speedups: clean() belongs to it */
    const sanitizer_speedups_capi *capi; /* its capsule, checked at init */
    /* RFC 9110 §5.6.2 tchar, 1 per byte of sanitizer.web._grammar.TOKEN (read at init) */
    unsigned char tchar[256];
} web_state;

/* percent.c */
SPEEDUPS_INTERNAL PyObject *speedups_unquote(PyObject *self, PyObject *const *args,
                                             Py_ssize_t nargs);

/* webhead.c */
SPEEDUPS_INTERNAL PyObject *speedups_web_head(PyObject *self, PyObject *const *args,
                                              Py_ssize_t nargs);

/* jsonscan.c */
SPEEDUPS_INTERNAL PyObject *speedups_json_strings(PyObject *self, PyObject *const *args,
                                                  Py_ssize_t nargs);

#endif /* SANITIZER_WEB_SPEEDUPS_H */
