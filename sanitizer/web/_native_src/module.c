/*
 * The sanitizer.web._speedups module: its method table, its state and its init.
 *
 * Why it exists: the web layer's optional C code (percent.c, webhead.c, jsonscan.c;
 * shared declarations in webspeedups.h) is one module of its own, apart from the core's
 * sanitizer._speedups, so that it sits in the layer it serves.  This file only puts the
 * functions together and fetches, once, what they read from elsewhere: the core's clean()
 * (its capsule, speedups_capi.h) and the RFC 9110 token characters
 * (sanitizer.web._grammar.TOKEN).  Python reaches the module through
 * sanitizer/web/_native.py only; sanitizer/web/_speedups.pyi states its signatures.
 * Multi-phase init (PEP 489) with the module's state in the module (PEP 573): nothing
 * here is process-wide.
 */
#include "webspeedups.h"

#include <string.h>

static PyMethodDef web_methods[] = {
    {"unquote", (PyCFunction)(void (*)(void))speedups_unquote, METH_FASTCALL,
     "unquote($module, data, plus, /)\n--\n\n"
     "%XX decoded as urllib.parse.unquote_to_bytes does; with plus, a literal '+' is a\n"
     "space (form encoding)."},
    {"web_head", (PyCFunction)(void (*)(void))speedups_web_head, METH_FASTCALL,
     "web_head($module, path, query, headers, groups, heads, limit, /)\n--\n\n"
     "Head | (content_type, length, has_body) | None: sanitizer.web's head fast path\n"
     "in one call (see webhead.c; reference: sanitizer.web._head.fast_head_py)."},
    {"json_strings", (PyCFunction)(void (*)(void))speedups_json_strings, METH_FASTCALL,
     "json_strings($module, text, start, between, strings, /)\n--\n\n"
     "(open, joined, starts) | None: the JSON strings that need judging, escapes\n"
     "resolved, joined by 'a' (see jsonscan.c)."},
    {NULL, NULL, 0, NULL},
};

/* The core's capsule, checked against the interface this module was built with. */
static int
bind_core(web_state *st)
{
    st->core = PyImport_ImportModule("sanitizer._speedups");
    if (st->core == NULL) return -1;
    PyObject *capsule = PyObject_GetAttrString(st->core, "_C_API");
    if (capsule == NULL) goto stale;
    st->capi = (const sanitizer_speedups_capi *)PyCapsule_GetPointer(
        capsule, SANITIZER_SPEEDUPS_CAPI_NAME);
    Py_DECREF(capsule);
    if (st->capi == NULL) goto stale;
    if (st->capi->version != SANITIZER_SPEEDUPS_ABI_VERSION) goto stale;
    return 0;
stale:
    PyErr_Clear();
    st->capi = NULL;
    PyErr_Format(PyExc_ImportError,
                 "sanitizer.web._speedups was built for another sanitizer._speedups "
                 "(ABI version %d): a stale build; reinstall the package",
                 SANITIZER_SPEEDUPS_ABI_VERSION);
    return -1;
}

/* tchar (RFC 9110 §5.6.2) from the one place the package spells it. */
static int
read_token(web_state *st)
{
    PyObject *grammar = PyImport_ImportModule("sanitizer.web._grammar");
    if (grammar == NULL) return -1;
    PyObject *token = PyObject_GetAttrString(grammar, "TOKEN");
    Py_DECREF(grammar);
    if (token == NULL) return -1;
    int rc = -1;
    if (!PyBytes_Check(token)) {
        PyErr_SetString(PyExc_TypeError, "sanitizer.web._grammar.TOKEN must be bytes");
    } else {
        const unsigned char *s = (const unsigned char *)PyBytes_AS_STRING(token);
        memset(st->tchar, 0, sizeof st->tchar);
        for (Py_ssize_t i = 0; i < PyBytes_GET_SIZE(token); i++) st->tchar[s[i]] = 1;
        rc = 0;
    }
    Py_DECREF(token);
    return rc;
}

static int
web_exec(PyObject *m)
{
    web_state *st = (web_state *)PyModule_GetState(m);
    if (bind_core(st) < 0 || read_token(st) < 0) return -1;
    return PyModule_AddIntConstant(m, "ABI_VERSION", WEB_SPEEDUPS_ABI_VERSION);
}

static int
web_traverse(PyObject *m, visitproc visit, void *arg)
{
    web_state *st = (web_state *)PyModule_GetState(m);
    if (st != NULL) Py_VISIT(st->core);
    return 0;
}

static int
web_clear(PyObject *m)
{
    web_state *st = (web_state *)PyModule_GetState(m);
    if (st != NULL) {
        st->capi = NULL;
        Py_CLEAR(st->core);
    }
    return 0;
}

static void
web_free(void *m)
{
    web_clear((PyObject *)m);
}

static PyModuleDef_Slot web_slots[] = {
    {Py_mod_exec, (void *)web_exec},
    {0, NULL},
};

static struct PyModuleDef web_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "sanitizer.web._speedups",
    .m_doc = "C passes of sanitizer.web: percent-decoding, the head fast path, JSON strings.",
    .m_size = sizeof(web_state),
    .m_methods = web_methods,
    .m_slots = web_slots,
    .m_traverse = web_traverse,
    .m_clear = web_clear,
    .m_free = web_free,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    return PyModuleDef_Init(&web_module);
}
