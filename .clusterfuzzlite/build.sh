#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script (runs inside base-builder-python).
#
# Installs the package (with its optional C runner, instrumented by the builder's
# CFLAGS), then for every fuzz/fuzz_<name>.py:
#   $OUT/fuzz_<name>                 the fuzzer (compile_python_fuzzer: pyinstaller + atheris)
#   $OUT/fuzz_<name>_seed_corpus.zip corpus/<name>/, the seeds ClusterFuzzLite starts from
#   $OUT/fuzz_<name>.dict            corpus/utf8.dict, the UTF-8 token dictionary
#   $OUT/fuzz_<name>.options         fuzz/fuzz_<name>.options (max_len), when present

cd "$SRC/utf8-sanitizer"

pip3 install .

# Zip the files of directory $1 (flat, no directory entries) into $2.
pack() {
  if command -v zip >/dev/null 2>&1; then
    (cd "$1" && zip -q -r -X -D "$2" .)
  else
    python3 - "$1" "$2" <<'PY'
import os, sys, zipfile
src, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
    for root, _, files in os.walk(src):
        for name in sorted(files):
            path = os.path.join(root, name)
            zf.write(path, os.path.relpath(path, src))
PY
  fi
}

for fuzzer in fuzz/fuzz_*.py; do
  target=$(basename "$fuzzer" .py)   # fuzz_decode
  name=${target#fuzz_}               # decode
  compile_python_fuzzer "$fuzzer"
  if [ -d "corpus/$name" ]; then
    rm -f "$OUT/${target}_seed_corpus.zip"
    pack "corpus/$name" "$OUT/${target}_seed_corpus.zip"
  fi
  if [ -f corpus/utf8.dict ]; then
    cp corpus/utf8.dict "$OUT/$target.dict"
  fi
  if [ -f "fuzz/$target.options" ]; then
    cp "fuzz/$target.options" "$OUT/$target.options"   # libFuzzer flags, e.g. max_len
  fi
done
