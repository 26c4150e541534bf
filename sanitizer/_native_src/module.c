/*
 * The sanitizer._speedups module: its method table, its constants and its init.
 *
 * Why it exists: the optional C extension is one module built from one file per job
 * (utf8.c, scan.c, percent.c, lookalike.c, validate.c, jsonscan.c, source.c; shared
 * declarations in speedups.h); this file only puts their functions together.  Python
 * reaches the module through sanitizer/_native.py only, and sanitizer/_speedups.pyi
 * states its signatures for mypy.
 */
#include "speedups.h"

static PyMethodDef speedups_methods[] = {
    {"decode", (PyCFunction)(void (*)(void))speedups_decode, METH_FASTCALL | METH_KEYWORDS,
     "decode($module, data, /, *, errors='strict', bom='keep', allow_overlong_nul=False)\n--\n\n"
     "Decode UTF-8 strictly by RFC 3629.\n\n"
     "errors='strict' raises sanitizer.Utf8Error for the first ill-formed subpart;\n"
     "errors='replace' puts one U+FFFD per maximal subpart (Unicode 3.9), exactly as\n"
     "bytes.decode('utf-8', 'replace').  bom: 'keep' an initial EF BB BF as U+FEFF\n"
     "(RFC 3629 section 6), 'strip' it, or 'reject' it with BomError.\n"
     "allow_overlong_nul accepts exactly C0 80 as U+0000 (Java's Modified UTF-8);\n"
     "nothing else is relaxed.  This is the C entry point of sanitizer.decoder.decode_py,\n"
     "with the same behaviour."},
    {"set_decode_fallback", speedups_set_decode_fallback, METH_VARARGS,
     "set_decode_fallback(fn, table, nclasses, error_class): the Python decode() that\n"
     "non-trivial calls go to, the default machine table, and the class to raise."},
    {"spans", speedups_spans, METH_VARARGS,
     "spans(data, table, nclasses, pos, limit) -> flat list of maximal-subpart offsets"},
    {"replace", speedups_replace, METH_VARARGS,
     "replace(data, table, nclasses, pos, out_spans) -> text with U+FFFD per subpart"},
    {"scan", (PyCFunction)(void (*)(void))speedups_scan, METH_FASTCALL,
     "scan(text, stage1, stage2, tables, max_run, start) -> index of the first character\n"
     "the policy tables flag (see sanitizer._classtable.scan_reference), or len(text)"},
    {"unquote", (PyCFunction)(void (*)(void))speedups_unquote, METH_FASTCALL,
     "unquote(data, plus) -> bytes: %XX decoded as urllib.parse.unquote_to_bytes does;\n"
     "with plus, a literal '+' is a space (form encoding)"},
    {"web_head", (PyCFunction)(void (*)(void))speedups_web_head, METH_FASTCALL,
     "web_head(path, query, headers, groups) -> (content_type, length, has_body) | None:\n"
     "sanitizer.web's head fast path in one call (see webhead.c; reference:\n"
     "sanitizer.web._head.fast_head_py)"},
    {"json_strings", (PyCFunction)(void (*)(void))speedups_json_strings, METH_FASTCALL,
     "json_strings(text, start, between, strings) -> (open, joined, starts) | None: the\n"
     "JSON strings that need judging, escapes resolved, joined by 'a' (see jsonscan.c)"},
    {"clean", (PyCFunction)(void (*)(void))speedups_clean, METH_FASTCALL,
     "clean(data, stage1, stage2, tables, max_run) -> str | None: data (bytes: strictly\n"
     "decoded) when it decodes and scan() flags nothing, else None"},
    {"clean_edit", (PyCFunction)(void (*)(void))speedups_clean_edit, METH_FASTCALL,
     "clean_edit(data, stage1, stage2, tables, max_run, edits) -> str | None: clean(), but\n"
     "flagged characters whose class edits[] marks 1 are stripped and 2 replaced by U+FFFD\n"
     "(adjacent ones by one), when no neighbour's judgement can depend on them; else None\n"
     "(see sanitizer.policy._classtable.edit_reference)"},
    {"index_code_points", (PyCFunction)(void (*)(void))speedups_index_code_points,
     METH_FASTCALL,
     "index_code_points(sources) -> bytes: the lookup index map_code_points reads, for a\n"
     "str of increasing code points"},
    {"map_code_points", (PyCFunction)(void (*)(void))speedups_map_code_points, METH_FASTCALL,
     "map_code_points(sources, index, offsets, values, text) -> str: text with each code\n"
     "point of the sorted str sources replaced by values[offsets[i]:offsets[i + 1]]"},
    {"script_mask", (PyCFunction)(void (*)(void))speedups_script_mask, METH_FASTCALL,
     "script_mask(starts, ids, masks, values, text) -> int: the AND of the masks of the\n"
     "runs (uint32 starts, uint16 ids) the code points of text are in"},
    {"skeleton_tables", (PyCFunction)(void (*)(void))speedups_skeleton_tables, METH_FASTCALL,
     "skeleton_tables(skeleton, decomposition, combining, scripts, verdicts) -> capsule:\n"
     "the checked tables skeleton() and confusable() read"},
    {"skeleton", (PyCFunction)(void (*)(void))speedups_skeleton, METH_FASTCALL,
     "skeleton(tables, s) -> str: the UTS #39 skeleton NFD(map(NFD(s)))"},
    {"confusable", (PyCFunction)(void (*)(void))speedups_confusable, METH_FASTCALL,
     "confusable(tables, a, b) -> one of the four verdicts: equal skeletons, and how the\n"
     "resolved script sets relate (UTS #39 §4)"},
    {"valid_prefix", speedups_valid_prefix, METH_O,
     "valid_prefix(data) -> int: length of a prefix of data proven well-formed UTF-8\n"
     "(RFC 3629), ending on a character boundary; len(data) iff all of it is"},
    {"utf8_kernel", speedups_utf8_kernel, METH_NOARGS,
     "utf8_kernel() -> str: the kernel valid_prefix runs (avx2, sse41, neon, scalar)"},
    {"utf8_kernels", speedups_utf8_kernels, METH_NOARGS,
     "utf8_kernels() -> tuple[str, ...]: the kernels this machine can run, best first"},
    {"valid_prefix_using", (PyCFunction)(void (*)(void))speedups_valid_prefix_using,
     METH_FASTCALL,
     "valid_prefix_using(name, data) -> int: valid_prefix with that kernel, at every\n"
     "length (a test hook)"},
    {"is_valid", (PyCFunction)(void (*)(void))speedups_is_valid,
     METH_FASTCALL | METH_KEYWORDS,
     "is_valid($module, data, /, *, allow_overlong_nul=False)\n--\n\n"
     "True when data is well-formed UTF-8 (RFC 3629 section 4).  The C entry point of\n"
     "sanitizer.decoder.is_valid_py, with the same behaviour."},
    {"set_is_valid_fallback", speedups_set_is_valid_fallback, METH_O,
     "set_is_valid_fallback(fn): the Python is_valid() non-trivial calls go to"},
    {"source_lines", speedups_source_lines, METH_O,
     "source_lines(text) -> (spans, rare): the lines holding non-ASCII characters and the\n"
     "indices of NEL, LS, PS and VS1..VS16, for sanitizer.source_gate (see source.c)"},
    {"identifiers", (PyCFunction)(void (*)(void))speedups_identifiers, METH_FASTCALL,
     "identifiers(text, spans, marks, wide) -> dict[str, int]: the identifiers in those\n"
     "spans holding a non-ASCII character (wide) or not, and where each first starts\n"
     "(see source.c)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT, "sanitizer._speedups",
    "C runner for the RFC 3629 state machine compiled in sanitizer.grammar.", -1,
    speedups_methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    if (speedups_validate_init() < 0) return NULL; /* SANITIZER_UTF8_KERNEL */
    PyObject *m = PyModule_Create(&speedups_module);
    if (m == NULL) return NULL;
    /* The table layout scan.c reads; sanitizer/_classtable.py must write the same. */
    if (PyModule_AddIntConstant(m, "STAGE1_ENTRIES", STAGE1_ENTRIES) < 0 ||
        PyModule_AddIntConstant(m, "FLAGS_OFFSET", FLAGS_OFFSET) < 0 ||
        PyModule_AddIntConstant(m, "RULE_IDS_OFFSET", RULE_IDS_OFFSET) < 0 ||
        PyModule_AddIntConstant(m, "PREFILTER_OFFSET", PREFILTER_OFFSET) < 0 ||
        PyModule_AddIntConstant(m, "RULES_OFFSET", RULES_OFFSET) < 0 ||
        PyModule_AddIntConstant(m, "RULE_SIZE", RULE_SIZE) < 0 ||
        speedups_precis_register(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
