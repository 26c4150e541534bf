/*
 * The C interface sanitizer._speedups (the core's extension) offers the package's other
 * extension, sanitizer.web._speedups, which judges values with the core's policy scan.
 *
 * Why it exists: the web layer's native code lives in its own extension module (its own
 * layer), yet its head fast path (webhead.c) must run clean() once per value without a
 * Python call.  CPython's way for one extension to call another is a capsule: the core
 * module holds `_C_API`, a PyCapsule of the struct below, and the web module imports it
 * once, at its own initialisation, checking the ABI version it was built against.  Only
 * this header crosses from sanitizer/_native_src/ to sanitizer/web/_native_src/
 * (tests/suites/test_layering.py checks the #include lines).
 */
#ifndef SANITIZER_SPEEDUPS_CAPI_H
#define SANITIZER_SPEEDUPS_CAPI_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* The core extension's interface version: its ABI_VERSION attribute, which
 * sanitizer/_native.py checks at import (ABI_VERSION there), and the capsule's `version`.
 * Bump it (on both sides) whenever a function, argument or constant of the module, or
 * this struct, changes. */
#define SANITIZER_SPEEDUPS_ABI_VERSION 3

/* The capsule: `sanitizer._speedups._C_API`, named so for PyCapsule_Import. */
#define SANITIZER_SPEEDUPS_CAPI_NAME "sanitizer._speedups._C_API"

typedef struct {
    int version; /* SANITIZER_SPEEDUPS_ABI_VERSION of the core that made it */
    /* clean(data, stage1, stage2, tables, max_run) of scan.c, for a caller in C: `module`
     * is the core module (its state holds the validated-table cache). */
    PyObject *(*clean)(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
} sanitizer_speedups_capi;

/* Shared between the files of one extension only, not exported from the .so. */
#if defined(__GNUC__)
#define SPEEDUPS_INTERNAL __attribute__((visibility("hidden")))
#else
#define SPEEDUPS_INTERNAL
#endif

#endif /* SANITIZER_SPEEDUPS_CAPI_H */
