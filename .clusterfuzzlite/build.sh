#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script (runs inside base-builder-python).
#
# Installs the package with its C extensions instrumented (sanitizer._speedups and
# sanitizer.web._speedups; the builder's CC=clang and CFLAGS carry the sanitizer of this
# build, address or undefined; libFuzzer's coverage is added: atheris'
# native_extension_fuzzing.md), checks both really were built so (setup.py makes them
# optional), then for every fuzz/fuzz_<name>.py (one per target of
# sanitizer._fuzzing.targets.REGISTRY, a thin entry point; tests/fuzzing/test_targets.py):
#   $OUT/fuzz_<name>                 the fuzzer (compile_python_fuzzer: pyinstaller + atheris)
#   $OUT/fuzz_<name>_seed_corpus.zip corpus/<name>/, the seeds ClusterFuzzLite starts from
#                                    (tools/generate.py corpus writes them from the package's
#                                    sanitizer/_fuzzing/seeds.py; --check proves them equal)
#   $OUT/fuzz_<name>.dict            corpus/utf8.dict, the UTF-8 token dictionary
#   $OUT/fuzz_<name>.options         fuzz/fuzz_<name>.options (the registry's libFuzzer flags)

cd "$SRC/utf8-sanitizer"

# -fsanitize=fuzzer-no-link: coverage counters in C that libFuzzer (preloaded with the
# sanitizer runtime by each fuzzer's wrapper) steers by; LDSHARED: link with clang too.
export CC="${CC:-clang}"
export CFLAGS="${CFLAGS:-} -fsanitize=fuzzer-no-link"
export LDSHARED="$CC -shared"
pip3 install '.[web]'   # web: python-multipart, which the web target reads bodies with

# The extensions are optional in setup.py: a failed compile would silently leave the
# pure-Python paths, and the C code unfuzzed.  Refuse to go on without both, instrumented.
(cd / && python3 - <<'PY'
import importlib.util, pathlib, sys
spec = importlib.util.find_spec("sanitizer")
package = pathlib.Path(spec.origin).parent
for folder, name in ((package, "sanitizer._speedups"), (package / "web", "sanitizer.web._speedups")):
    found = sorted(folder.glob("_speedups*.so"))
    if not found or b"__sanitizer_cov" not in found[0].read_bytes():
        sys.exit(f"build.sh: no instrumented {name} in {folder}")
    print(f"build.sh: instrumented extension {found[0]}")
PY
)  # (from /: the installed package, not the source tree's)

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
  # every submodule: `sanitizer` loads its public names lazily (importlib), which
  # PyInstaller's static analysis misses; the modules that import a framework or
  # Hypothesis are left out (PyInstaller logs them as "Hidden import ... not found").
  compile_python_fuzzer "$fuzzer" --collect-submodules=sanitizer \
    --exclude-module=sanitizer.web.django --exclude-module=sanitizer.integrations \
    --exclude-module=sanitizer.strategies
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
