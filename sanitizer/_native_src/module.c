/*
 * The sanitizer._speedups module: its method table, its state, its constants and its init.
 *
 * Why it exists: the core's optional C extension is one module built from one file per
 * job (utf8.c, validate.c, decode_valid.c, classtable.c, scan.c, edit.c, lookalike.c,
 * source.c, precis.c, columns.c; shared declarations in speedups.h); this file only puts their
 * functions together (precis.c adds its own: speedups_precis_register).  Python reaches
 * the module through sanitizer/_native.py only, and sanitizer/_speedups.pyi states its
 * signatures for mypy; each method's docstring starts with the same signature
 * (inspect.signature reads it), and tests/core/test_native.py holds the three to the same
 * names and parameters.
 *
 * Multi-phase init (PEP 489) with the module's state in the module (PEP 573, speedups.h):
 * the fallbacks set from Python and the caches of checked tables live per module object,
 * are visited by the garbage collector and released with the module.  A function reaches
 * the state through its `self`, the module (one PyModule_GetState call).  ABI_VERSION
 * (speedups_capi.h) is what sanitizer/_native.py checks before using any of it.
 */
#include "speedups.h"

static PyMethodDef speedups_methods[] = {
    /* utf8.c */
    {"decode", (PyCFunction)(void (*)(void))speedups_decode, METH_FASTCALL | METH_KEYWORDS,
     "decode($module, data, *, errors='strict', bom='keep', allow_overlong_nul=False)\n--\n\n"
     "Decode UTF-8 strictly by RFC 3629.\n\n"
     "errors='strict' raises sanitizer.Utf8Error for the first ill-formed subpart;\n"
     "errors='replace' puts one U+FFFD per maximal subpart (Unicode 3.9), exactly as\n"
     "bytes.decode('utf-8', 'replace').  bom: 'keep' an initial EF BB BF as U+FEFF\n"
     "(RFC 3629 section 6), 'strip' it, or 'reject' it with BomError.\n"
     "allow_overlong_nul accepts exactly C0 80 as U+0000 (Java's Modified UTF-8);\n"
     "nothing else is relaxed.  This is the C entry point of sanitizer._decoder.decode_py,\n"
     "with the same behaviour."},
    {"set_decode_fallback", speedups_set_decode_fallback, METH_VARARGS,
     "set_decode_fallback($module, fn, table, nclasses, error_class, /)\n--\n\n"
     "The Python decode() that non-trivial calls go to, the default machine table, and\n"
     "the class to raise."},
    {"spans", speedups_spans, METH_VARARGS,
     "spans($module, data, table, nclasses, pos, limit, /)\n--\n\n"
     "Flat list of the maximal-subpart offsets in data[pos:], at most limit."},
    {"replace", speedups_replace, METH_VARARGS,
     "replace($module, data, table, nclasses, pos, out_spans, /)\n--\n\n"
     "Text of data[pos:] with U+FFFD per maximal subpart; spans appended to out_spans."},
    /* validate.c */
    {"decode_valid", speedups_decode_valid_method, METH_O,
     "decode_valid($module, data, /)\n--\n\n"
     "bytes decoded (strict) when the SIMD validator proves them well-formed UTF-8 (RFC\n"
     "3629 section 4), else None, without an exception: bytes.decode('utf-8'), a few\n"
     "times faster on text outside ASCII."},
    {"valid_prefix", speedups_valid_prefix, METH_O,
     "valid_prefix($module, data, /)\n--\n\n"
     "Length of a prefix of data proven well-formed UTF-8 (RFC 3629), ending on a\n"
     "character boundary; len(data) iff all of it is."},
    {"utf8_kernel", speedups_utf8_kernel, METH_NOARGS,
     "utf8_kernel($module, /)\n--\n\n"
     "The kernel valid_prefix runs (avx512, avx2, sse41, neon, scalar)."},
    {"utf8_kernels", speedups_utf8_kernels, METH_NOARGS,
     "utf8_kernels($module, /)\n--\n\n"
     "The kernels this machine can run, best first."},
    {"set_utf8_kernel", speedups_set_utf8_kernel, METH_O,
     "set_utf8_kernel($module, name, /)\n--\n\n"
     "Run the kernel `name` from now on (process-wide; 'auto': the best); ValueError for\n"
     "a name that is not a kernel or one this machine cannot run."},
    {"valid_prefix_using", (PyCFunction)(void (*)(void))speedups_valid_prefix_using,
     METH_FASTCALL,
     "valid_prefix_using($module, name, data, /)\n--\n\n"
     "valid_prefix with that kernel, at every length (a test hook)."},
    {"is_valid", (PyCFunction)(void (*)(void))speedups_is_valid,
     METH_FASTCALL | METH_KEYWORDS,
     "is_valid($module, data, *, allow_overlong_nul=False)\n--\n\n"
     "True when data is well-formed UTF-8 (RFC 3629 section 4).  The C entry point of\n"
     "sanitizer._decoder.is_valid_py, with the same behaviour."},
    {"set_is_valid_fallback", speedups_set_is_valid_fallback, METH_O,
     "set_is_valid_fallback($module, fn, /)\n--\n\n"
     "The Python is_valid() non-trivial calls go to."},
    /* scan.c, edit.c */
    {"count_mark_runs", (PyCFunction)(void (*)(void))speedups_count_mark_runs, METH_FASTCALL,
     "count_mark_runs($module, text, stage1, stage2, tables, max_run, start, /)\n--\n\n"
     "How many runs of marks over max_run scan() finds from start on (see scan.c)."},
    {"list_mark_runs", (PyCFunction)(void (*)(void))speedups_list_mark_runs, METH_FASTCALL,
     "list_mark_runs($module, text, stage1, stage2, tables, max_run, start, limit, made,\n"
     "               anchors, last, /)\n--\n\n"
     "The first limit runs count_mark_runs counts as Findings, and how many more (see\n"
     "scan.c)."},
    {"scan", (PyCFunction)(void (*)(void))speedups_scan, METH_FASTCALL,
     "scan($module, text, stage1, stage2, tables, max_run, start, /)\n--\n\n"
     "Index of the first character the policy tables flag (see\n"
     "sanitizer._policy._classtable.scan_reference), or len(text)."},
    {"str_kind", speedups_str_kind, METH_O,
     "str_kind($module, text, /)\n--\n\n"
     "1, 2 or 4: the bytes a character of text takes (PEP 393); 1 iff text fits Latin-1."},
    {"clean", (PyCFunction)(void (*)(void))speedups_clean, METH_FASTCALL,
     "clean($module, data, stage1, stage2, tables, max_run, /)\n--\n\n"
     "data (bytes: strictly decoded) when it decodes and scan() flags nothing, else None\n"
     "(the text of bytes that decode kept for take_decoded)."},
    {"take_decoded", speedups_take_decoded, METH_O,
     "take_decoded($module, data, /)\n--\n\n"
     "The text the last clean() or clean_edit() decoded from the bytes object data (4 KiB\n"
     "or more) and gave up on unchanged, or None; nothing is kept after."},
    {"count_groups", (PyCFunction)(void (*)(void))speedups_count_groups, METH_FASTCALL,
     "count_groups($module, text, stage1, stage2, tables, start, groups, edits_matter, /)\n"
     "--\n\n"
     "(findings, allowed) the policy engine makes of the flagged characters from start\n"
     "on, carrier runs grouped; None when only the engine can tell (see\n"
     "sanitizer._policy._classtable.count_reference)."},
    {"list_groups", (PyCFunction)(void (*)(void))speedups_list_groups, METH_FASTCALL,
     "list_groups($module, text, stage1, stage2, tables, limit, groups, edits_matter, /)\n"
     "--\n\n"
     "(listed, more, more_allowed, worst): the first limit groups the policy engine makes\n"
     "(-1: all) as (start, end, class, severity), the count of the rest and the highest\n"
     "severity; None when only the engine can tell (see\n"
     "sanitizer._policy._classtable.groups_reference)."},
    {"list_findings", (PyCFunction)(void (*)(void))speedups_list_findings, METH_FASTCALL,
     "list_findings($module, text, stage1, stage2, tables, limit, groups, edits_matter, made,\n"
     "              anchors, last, /)\n"
     "--\n\n"
     "(findings, pending, more, allowed, worst, bar): list_groups' groups as Findings at\n"
     "their final offsets (text indices, or byte offsets with anchors); None when only\n"
     "the engine can tell (see sanitizer._policy._listing.findings_reference)."},
    {"groups_outside", (PyCFunction)(void (*)(void))speedups_groups_outside, METH_FASTCALL,
     "groups_outside($module, text, stage1, stage2, tables, limit, groups, spans,\n"
     "edits_matter, /)\n"
     "--\n\n"
     "list_groups of the flagged characters outside spans (int64 [start, end) bounds:\n"
     "hidden payloads' carrier runs), a run cut at each span's ends (see\n"
     "sanitizer._policy._classtable.groups_reference with skip)."},
    {"payload_spans", (PyCFunction)(void (*)(void))speedups_payload_spans, METH_FASTCALL,
     "payload_spans($module, text, stage1, stage2, tables, kinds, ivd, vs, ends, policy,\n"
     "start, /)\n--\n\n"
     "(spans, held, count): the carrier runs reveal reads from start on that hold\n"
     "payloads, as int64 bounds, how many each holds and in all; None where only Python\n"
     "tells (see\n"
     "sanitizer._policy._carrier_runs.payload_spans_reference)."},
    {"span_members", (PyCFunction)(void (*)(void))speedups_span_members, METH_FASTCALL,
     "span_members($module, text, stage1, stage2, tables, groups, spans, /)\n--\n\n"
     "Two bytes a span: 1 + the severity of its most severe flagged character (0: none)\n"
     "and the class of the first of that severity; None when only the engine can tell\n"
     "(see sanitizer._policy._carrier_runs.span_members_reference)."},
    {"word_marks", (PyCFunction)(void (*)(void))speedups_word_marks, METH_FASTCALL,
     "word_marks($module, text, stage1, stage2, tables, kinds, start, near, max_gap, /)\n"
     "--\n\n"
     "(symbols, last, words, every_word, end) of the stretch of marks put after words from\n"
     "start; None when only Python can tell (see\n"
     "sanitizer._policy._reveal._stretch_reference)."},
    {"utf8_length", (PyCFunction)(void (*)(void))speedups_utf8_length, METH_FASTCALL,
     "utf8_length($module, text, start, end, /)\n--\n\n"
     "The UTF-8 length of text[start:end] (lone surrogates: 3 bytes), no bytes made."},
    {"reveal_scan", (PyCFunction)(void (*)(void))speedups_reveal_scan, METH_FASTCALL,
     "reveal_scan($module, text, stage1, stage2, tables, kinds, ivd, start, /)\n--\n\n"
     "scan() past lone registered ideographic variation sequences (see\n"
     "sanitizer._policy._reveal.reveal_scan_reference)."},
    {"reveal_runs", (PyCFunction)(void (*)(void))speedups_reveal_runs, METH_FASTCALL,
     "reveal_runs($module, text, stage1, stage2, tables, kinds, ivd, ivd_on, start, done, limit,\n"
     "            reader, at_index, at_byte, /)\n--\n\n"
     "(items, next, done, at_index, at_byte): the carrier runs reveal reads from the\n"
     "candidate start, up to one only Python reads, as runs or (reader) the payloads of\n"
     "those read in C (see sanitizer._policy._reveal.reveal_runs_reference)."},
    {"clean_edit", (PyCFunction)(void (*)(void))speedups_clean_edit, METH_FASTCALL,
     "clean_edit($module, data, stage1, stage2, tables, max_run, edits, /)\n--\n\n"
     "clean(), but flagged characters whose class edits[] marks 1 are stripped and 2\n"
     "replaced by U+FFFD (adjacent ones by one), when no neighbour's judgement can depend\n"
     "on them; else None (see sanitizer._policy._classtable.edit_reference; the text of\n"
     "bytes kept for take_decoded when nothing was edited before)."},
    /* lookalike.c */
    {"index_code_points", (PyCFunction)(void (*)(void))speedups_index_code_points,
     METH_FASTCALL,
     "index_code_points($module, sources, /)\n--\n\n"
     "The lookup index map_code_points reads, for a str of increasing code points."},
    {"map_code_points", (PyCFunction)(void (*)(void))speedups_map_code_points, METH_FASTCALL,
     "map_code_points($module, sources, index, offsets, values, text, /)\n--\n\n"
     "text with each code point of the sorted str sources replaced by\n"
     "values[offsets[i]:offsets[i + 1]]."},
    {"script_mask", (PyCFunction)(void (*)(void))speedups_script_mask, METH_FASTCALL,
     "script_mask($module, starts, ids, masks, values, text, /)\n--\n\n"
     "The AND of the masks of the runs (uint32 starts, uint16 ids) the code points of\n"
     "text are in."},
    {"skeleton_tables", (PyCFunction)(void (*)(void))speedups_skeleton_tables, METH_FASTCALL,
     "skeleton_tables($module, skeleton, decomposition, combining, scripts, verdicts, /)\n"
     "--\n\n"
     "A capsule: the checked tables skeleton() and confusable() read."},
    {"skeleton", (PyCFunction)(void (*)(void))speedups_skeleton, METH_FASTCALL,
     "skeleton($module, tables, s, /)\n--\n\n"
     "The UTS #39 skeleton NFD(map(NFD(s)))."},
    {"confusable", (PyCFunction)(void (*)(void))speedups_confusable, METH_FASTCALL,
     "confusable($module, tables, a, b, /)\n--\n\n"
     "One of the four verdicts: equal skeletons, and how the resolved script sets relate\n"
     "(UTS #39 section 4)."},
    /* normalize.c */
    {"normalize", (PyCFunction)(void (*)(void))speedups_normalize, METH_FASTCALL,
     "normalize($module, text, compat, /)\n--\n\n"
     "text in NFKC when compat is true, else NFC (UAX #15): only the segments between\n"
     "boundaries are decomposed, ordered and composed."},
    {"normalize_runs", (PyCFunction)(void (*)(void))speedups_normalize_runs, METH_FASTCALL,
     "normalize_runs($module, text, compat, max_run, /)\n--\n\n"
     "normalize(), or None when text holds a run of more than max_run marks a combining\n"
     "run counts (UAX #15 section 13), counted in the same pass."},
    /* source.c */
    /* columns.c */
    {"column_check", (PyCFunction)(void (*)(void))speedups_column_check, METH_FASTCALL,
     "column_check($module, layout, length, offset, validity, values, data, /)\n--\n\n"
     "(bits, bad): bit k set when row k of the Arrow binary column is not null and\n"
     "well-formed UTF-8, and the rows that are not null and ill-formed."},
    {"column_gather", (PyCFunction)(void (*)(void))speedups_column_gather, METH_FASTCALL,
     "column_gather($module, layout, length, offset, validity, values, data, rows, pieces, "
     "out_layout, /)\n--\n\n"
     "(offsets or views, data): the rows' bytes as new buffers of out_layout, rows[i]\n"
     "replaced by pieces[i] (bytes, or None: empty), null rows empty."},
    {"column_clean", (PyCFunction)(void (*)(void))speedups_column_clean, METH_FASTCALL,
     "column_clean($module, layout, length, offset, validity, values, data, stage1, stage2, "
     "tables, max_run, /)\n--\n\n"
     "Bitmap: bit k set when row k is not null and clean() would answer its bytes with\n"
     "a str."},
    {"column_translate", (PyCFunction)(void (*)(void))speedups_column_translate, METH_FASTCALL,
     "column_translate($module, layout, length, offset, validity, values, data, table, /)"
     "\n--\n\n"
     "(offsets, data, rows): the ASCII rows with each byte mapped by table (int64\n"
     "offsets), the other rows that are not null left empty and listed."},
    {"column_keys", (PyCFunction)(void (*)(void))speedups_column_keys, METH_FASTCALL,
     "column_keys($module, layout, length, offset, validity, values, data, tables, key, "
     "dots, odd, /)\n--\n\n"
     "(offsets, data, rows): identifier_key of each row (int64 offsets), the rows left\n"
     "to the scalar function empty and listed."},
    {"source_lines", speedups_source_lines, METH_O,
     "source_lines($module, text, /)\n--\n\n"
     "(spans, rare): the lines holding non-ASCII characters and the indices of NEL, LS,\n"
     "PS and VS1..VS16, for sanitizer._source_gate (see source.c)."},
    {"bidi_feed", (PyCFunction)(void (*)(void))speedups_bidi_feed, METH_FASTCALL,
     "bidi_feed($module, judge, text, at, start, bar, room, /)\n--\n\n"
     "The source gate's bidi pairing of text[start:] (see source.c)."},
    {"identifiers", (PyCFunction)(void (*)(void))speedups_identifiers, METH_FASTCALL,
     "identifiers($module, text, spans, marks, wide, /)\n--\n\n"
     "The identifiers in those spans holding a non-ASCII character (wide) or not, and\n"
     "where each first starts (see source.c)."},
    {NULL, NULL, 0, NULL},
};

/* The C interface sanitizer.web._speedups imports (speedups_capi.h). */
static const sanitizer_speedups_capi capi = {SANITIZER_SPEEDUPS_ABI_VERSION, speedups_clean};

static int
speedups_exec(PyObject *m)
{
    speedups_validate_init(); /* the kernel this CPU runs best, once per process */
    speedups_normalize_init(); /* the quick-check bitmaps (normalize.c), once */
    speedups_state *st = state_of(m);
    st->tables = classtable_cache_new();
    if (st->tables == NULL) return -1;
    PyObject *capsule = PyCapsule_New((void *)&capi, SANITIZER_SPEEDUPS_CAPI_NAME, NULL);
    if (capsule == NULL) return -1;
    if (PyModule_AddObject(m, "_C_API", capsule) < 0) {
        Py_DECREF(capsule);
        return -1;
    }
    /* The interface version (sanitizer/_native.py), the validator's block
     * (_native.VALIDATOR_BLOCK) and the table layout scan.c reads
     * (sanitizer/_policy/_classtable.py must write the same). */
    if (PyModule_AddIntConstant(m, "ABI_VERSION", SANITIZER_SPEEDUPS_ABI_VERSION) < 0 ||
        PyModule_AddIntConstant(m, "VALIDATOR_BLOCK", VALIDATOR_BLOCK) < 0 ||
        PyModule_AddIntConstant(m, "STAGE1_ENTRIES", STAGE1_ENTRIES) < 0 ||
        PyModule_AddIntConstant(m, "FLAGS_OFFSET", FLAGS_OFFSET) < 0 ||
        PyModule_AddIntConstant(m, "RULE_IDS_OFFSET", RULE_IDS_OFFSET) < 0 ||
        PyModule_AddIntConstant(m, "PREFILTER_OFFSET", PREFILTER_OFFSET) < 0 ||
        PyModule_AddIntConstant(m, "RULES_OFFSET", RULES_OFFSET) < 0 ||
        PyModule_AddIntConstant(m, "RULE_SIZE", RULE_SIZE) < 0)
        return -1;
    return speedups_precis_register(m); /* precis.c adds its own functions */
}

static int
speedups_traverse(PyObject *m, visitproc visit, void *arg)
{
    speedups_state *st = state_of(m);
    if (st == NULL) return 0;
    Py_VISIT(st->decode_fallback);
    Py_VISIT(st->default_table);
    Py_VISIT(st->error_class);
    Py_VISIT(st->is_valid_fallback);
    Py_VISIT(st->act_tables);
    Py_VISIT(st->act_edits);
    Py_VISIT(st->kept_data);
    Py_VISIT(st->kept_text);
    return st->tables != NULL ? classtable_cache_traverse(st->tables, visit, arg) : 0;
}

static int
speedups_clear(PyObject *m)
{
    speedups_state *st = state_of(m);
    if (st == NULL) return 0;
    Py_CLEAR(st->decode_fallback);
    Py_CLEAR(st->default_table); /* default_machine pointed into it: unusable now */
    Py_CLEAR(st->error_class);
    Py_CLEAR(st->is_valid_fallback);
    Py_CLEAR(st->act_tables);
    Py_CLEAR(st->act_edits);
    Py_CLEAR(st->kept_data);
    Py_CLEAR(st->kept_text);
    if (st->tables != NULL) classtable_cache_clear(st->tables);
    return 0;
}

static void
speedups_free(void *m)
{
    speedups_clear((PyObject *)m);
    speedups_state *st = state_of((PyObject *)m);
    if (st != NULL) {
        PyMem_Free(st->tables);
        st->tables = NULL;
    }
}

static PyModuleDef_Slot speedups_slots[] = {
    {Py_mod_exec, (void *)speedups_exec},
    {0, NULL},
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "sanitizer._speedups",
    .m_doc = "The core's C passes: the RFC 3629 machine runner, the UTF-8 validator, the "
             "policy scan and edits, look-alike and source-gate lookups.",
    .m_size = sizeof(speedups_state),
    .m_methods = speedups_methods,
    .m_slots = speedups_slots,
    .m_traverse = speedups_traverse,
    .m_clear = speedups_clear,
    .m_free = speedups_free,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    return PyModuleDef_Init(&speedups_module);
}
