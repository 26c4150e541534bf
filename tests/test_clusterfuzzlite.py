"""The ClusterFuzzLite build, run here without Docker: build.sh with stand-ins for the
builder's ``compile_python_fuzzer`` and ``pip3``, temporary $SRC/$OUT, and checks on what
lands in $OUT (one fuzzer per fuzz/fuzz_*.py, its seed corpus zip and dictionary).
Also sanity checks of the Dockerfile, project.yaml and the two workflows.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CFLITE = ROOT / ".clusterfuzzlite"
WORKFLOWS = ROOT / ".github" / "workflows"

COMPILE_STUB = """\
#!/bin/sh
# Stand-in for OSS-Fuzz's compile_python_fuzzer: record the call, emit a fuzzer stub.
echo "$@" >> "$CALLS"
name=$(basename "$1" .py)
printf '#!/bin/sh\\necho stub for %s\\n' "$name" > "$OUT/$name"
chmod +x "$OUT/$name"
"""

PIP_STUB = """\
#!/bin/sh
echo "pip3 $@" >> "$CALLS"
"""


def _fuzzers() -> list[Path]:
    return sorted((ROOT / "fuzz").glob("fuzz_*.py"))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    if shutil.which("bash") is None:
        pytest.skip("bash not available")
    if not _fuzzers():
        pytest.skip("no fuzz/fuzz_*.py yet")
    tmp = tmp_path_factory.mktemp("cflite")
    src, out, bin_dir = tmp / "src", tmp / "out", tmp / "bin"
    for d in (src, out, bin_dir):
        d.mkdir()
    os.symlink(ROOT, src / "utf8-sanitizer")
    for name, body in (("compile_python_fuzzer", COMPILE_STUB), ("pip3", PIP_STUB)):
        (bin_dir / name).write_text(body)
        (bin_dir / name).chmod(0o755)
    calls = tmp / "calls.txt"
    env = {
        **os.environ,
        "SRC": str(src),
        "OUT": str(out),
        "CALLS": str(calls),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    proc = subprocess.run(
        ["bash", str(CFLITE / "build.sh")],
        env=env,
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return out, calls.read_text().splitlines()


def test_build_installs_then_compiles_every_fuzzer(built: tuple[Path, list[str]]) -> None:
    out, calls = built
    assert calls[0] == "pip3 install ."
    assert calls[1:] == [f"fuzz/{p.name}" for p in _fuzzers()]
    for script in _fuzzers():
        stub = out / script.stem
        assert stub.is_file() and os.access(stub, os.X_OK)


def test_seed_corpus_zips_hold_every_corpus_file(built: tuple[Path, list[str]]) -> None:
    out, _ = built
    for script in _fuzzers():
        seeds = ROOT / "corpus" / script.stem.removeprefix("fuzz_")
        if not seeds.is_dir():
            continue
        archive = out / f"{script.stem}_seed_corpus.zip"
        assert archive.is_file(), f"missing {archive.name}"
        expected = {
            p.relative_to(seeds).as_posix(): p.read_bytes() for p in seeds.rglob("*") if p.is_file()
        }
        with zipfile.ZipFile(archive) as zf:
            names = [n for n in zf.namelist() if not n.endswith("/")]
            got = {n.removeprefix("./"): zf.read(n) for n in names}
        assert got == expected


def test_dictionary_per_fuzzer(built: tuple[Path, list[str]]) -> None:
    out, _ = built
    dictionary = ROOT / "corpus" / "utf8.dict"
    if not dictionary.is_file():
        pytest.skip("no corpus/utf8.dict yet")
    for script in _fuzzers():
        assert (out / f"{script.stem}.dict").read_bytes() == dictionary.read_bytes()


def test_nothing_else_in_out(built: tuple[Path, list[str]]) -> None:
    out, _ = built
    allowed = set()
    for script in _fuzzers():
        allowed |= {script.stem, f"{script.stem}_seed_corpus.zip", f"{script.stem}.dict"}
        allowed.add(f"{script.stem}.options")
    assert {p.name for p in out.iterdir()} <= allowed


def test_options_files_land_with_max_len(built: tuple[Path, list[str]]) -> None:
    out, _ = built
    for script in _fuzzers():
        options = (out / f"{script.stem}.options").read_text()
        assert "[libfuzzer]" in options and "max_len = 256" in options


def test_docker_and_project_files() -> None:
    dockerfile = (CFLITE / "Dockerfile").read_text()
    assert "FROM gcr.io/oss-fuzz-base/base-builder-python" in dockerfile
    assert "COPY . $SRC/utf8-sanitizer" in dockerfile
    assert "COPY .clusterfuzzlite/build.sh $SRC/" in dockerfile
    assert "language: python" in (CFLITE / "project.yaml").read_text().splitlines()
    assert os.access(CFLITE / "build.sh", os.X_OK)


@pytest.mark.parametrize(
    ("name", "mode"), [("cflite_pr.yml", "code-change"), ("cflite_batch.yml", "batch")]
)
def test_workflows(name: str, mode: str) -> None:
    text = (WORKFLOWS / name).read_text()
    assert "google/clusterfuzzlite/actions/build_fuzzers@v1" in text
    assert "google/clusterfuzzlite/actions/run_fuzzers@v1" in text
    assert f'mode: "{mode}"' in text
    assert "language: python" in text


@pytest.mark.parametrize("name", ["cflite_pr.yml", "cflite_batch.yml"])
def test_workflows_parse(name: str) -> None:
    yaml = pytest.importorskip("yaml")
    doc = yaml.safe_load((WORKFLOWS / name).read_text())
    steps = next(iter(doc["jobs"].values()))["steps"]
    assert [s["uses"].split("@")[0] for s in steps] == [
        "google/clusterfuzzlite/actions/build_fuzzers",
        "google/clusterfuzzlite/actions/run_fuzzers",
    ]
