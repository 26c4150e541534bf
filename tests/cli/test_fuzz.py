"""``sanitizer fuzz`` end to end: real atheris campaigns against the sample decoders in
examples/ and the project's own decoder, plus the usage errors (exit 2, one line).

The real campaigns take ~40 s in all; they are skipped when atheris is not installed (the
missing-atheris message itself is tested in-process by hiding the module).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sanitizer.cli import main
from tests.support.cli_runner import CliText, run_cli

ROOT = Path(__file__).resolve().parents[2]
HAVE_ATHERIS = importlib.util.find_spec("atheris") is not None
needs_atheris = pytest.mark.skipif(not HAVE_ATHERIS, reason="atheris is not installed")
needs_decode_target = pytest.mark.skipif(
    not (ROOT / "fuzz" / "fuzz_decode.py").is_file(), reason="fuzz/fuzz_decode.py missing"
)

# A clean campaign is bounded by executions, not seconds: with a few seconds, start-up on a
# loaded machine left no time to fuzz (cov 0, too few executions: exit 3).  The time is a
# generous deadline; each worker ends after its -runs.
RUNS = ("--max-time", "600", "--", "-runs=600")


def _sanitizer(*args: str, cwd: Path, timeout: float = 120) -> CliText:
    env = {"SANITIZER_FUZZ_CANDIDATE": None}
    return run_cli(*args, cwd=cwd, env=env, timeout=timeout, text=True)


@pytest.mark.fuzz
@needs_atheris
@needs_decode_target
def test_buggy_candidate_is_flagged_minimized_and_reported(tmp_path: Path) -> None:
    artifacts, corpus = tmp_path / "artifacts", tmp_path / "corpus"
    corpus.mkdir()
    # A well-formed seed one byte away from the bug (ED 9F BF is U+D7FF; ED A0 80 is not).
    (corpus / "seed").write_bytes("caf\u00e9 \ud7ff".encode())
    proc = _sanitizer(
        "fuzz",
        "decode",
        "--candidate",
        "examples.my_decoder:decode",
        "--max-time",
        "20",
        "--artifacts",
        str(artifacts),
        "--corpus",
        str(corpus),
        cwd=ROOT,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    reports = sorted(artifacts.glob("crash-*.txt"))
    assert reports, proc.stdout + proc.stderr
    for report in reports:
        crash = report.with_suffix("")
        minimized = crash.with_name(crash.name + ".min")
        assert crash.is_file() and minimized.is_file()
        assert 0 < minimized.stat().st_size <= crash.stat().st_size
        text = report.read_text()
        assert "Divergence: candidate decode" in text
        assert f"input hex ({minimized.stat().st_size} bytes): ED" in text
        assert "SANITIZER_FUZZ_CANDIDATE=examples.my_decoder:decode" in text
        assert str(minimized) in text  # the reproduce command
    assert "| decode |" in proc.stdout and "finding (decode)" in proc.stdout
    # The verdict names its one bug: an encoded surrogate accepted (not "wrong offsets"),
    # and the class table answers every class, probed on purpose.
    assert (
        "verdict:  ACCEPTS ILL-FORMED UTF-8 (encoded surrogate: ED A0 80 -> '\\ud800')"
        in proc.stdout
    ), proc.stdout
    table = proc.stdout.split("| class ", 1)[1].split("\n\n", 1)[0]
    assert "| encoded surrogate       | accepted |" in table
    assert "| overlong form           | refused  |" in table
    assert "not probed" not in table
    first = proc.stdout.split("finding (decode): ", 1)[1].splitlines()[0]
    assert first == "Divergence: candidate decode accepts ill-formed UTF-8: encoded surrogate"
    # The reproduce command line from the report replays the finding.
    repro = reports[0].read_text().split("--- reproduce ---\n", 1)[1].splitlines()[0]
    replay = subprocess.run(repro, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert replay.returncode != 0 and "Divergence" in replay.stdout + replay.stderr


@pytest.mark.fuzz
@needs_atheris
@needs_decode_target
def test_correct_candidate_runs_to_the_limit(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    proc = _sanitizer(
        "fuzz",
        "decode",
        "--candidate",
        "examples.good_decoder:decode",
        "--artifacts",
        str(tmp_path / "artifacts"),
        "--corpus",
        str(corpus),
        *RUNS,  # last: libFuzzer's flags follow its '--'
        cwd=ROOT,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no findings" in proc.stdout
    assert not list((tmp_path / "artifacts").glob("crash-*"))
    row = next(line for line in proc.stdout.splitlines() if line.startswith("| decode"))
    assert int(row.split("|")[4].strip().replace(",", "")) > 0  # executions happened


@pytest.mark.fuzz
@needs_atheris
@needs_decode_target
def test_own_decoder_campaign_prints_summary(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("sanitizer")
    cmd = [str(script)] if script.is_file() else [sys.executable, "-m", "sanitizer"]
    env = {k: v for k, v in os.environ.items() if k != "SANITIZER_FUZZ_CANDIDATE"}
    proc = subprocess.run(
        [*cmd, "fuzz", "decode", *RUNS],
        cwd=tmp_path,  # the default state dir .sanitizer-fuzz/ lands here
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    header = proc.stdout.splitlines()[0]
    assert [c.strip() for c in header.split("|")[1:-1]][:5] == [
        "target",
        "jobs",
        "time",
        "execs",
        "exec/s",
    ]
    row = next(line for line in proc.stdout.splitlines() if line.startswith("| decode"))
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert int(cells[3].replace(",", "")) > 0  # executions happened
    assert cells[-2:] == ["0", "-"]  # no finding, so no time to the first one
    assert (tmp_path / ".sanitizer-fuzz" / "corpus" / "decode" / "sanitizer").is_dir()
    assert "[decode]" in proc.stderr  # progress lines (stderr is not a TTY here)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--candidate", "no_colon_here"], "candidate must be MODULE:FUNCTION"),
        (["--candidate", "no_such_module_xyz:decode"], "cannot import module"),
        (["--candidate", "examples.my_decoder:nope"], "has no attribute 'nope'"),
    ],
)
def test_bad_candidate_exits_2_with_one_line(args: list[str], message: str) -> None:
    proc = _sanitizer("fuzz", "decode", *args, "--max-time", "1", cwd=ROOT, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_usage_errors_in_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SANITIZER_FUZZ_CANDIDATE", raising=False)
    assert main(["fuzz", "nosuchtarget"]) == 2
    assert "unknown target 'nosuchtarget'" in capsys.readouterr().err
    assert main(["fuzz", "policy", "--candidate", "examples.good_decoder:decode"]) == 2
    assert "only applies to the decode target" in capsys.readouterr().err
    assert main(["fuzz", "decode", "--", "-jobs=4"]) == 2
    assert "use --jobs N" in capsys.readouterr().err
    assert main(["fuzz", "decode", "--", "corpus_dir"]) == 2
    assert "unexpected argument 'corpus_dir' after '--'" in capsys.readouterr().err
    if HAVE_ATHERIS:
        assert main(["fuzz", "decode", "--corpus", str(tmp_path / "missing")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "corpus directory not found" in err[0]


def test_libfuzzer_flags_after_double_dash() -> None:
    from sanitizer.cli import build_parser

    args = build_parser().parse_args(
        ["fuzz", "decode", "--max-time", "3", "--", "-max_len=64", "-use_value_profile=1"]
    )
    assert args.max_time == 3.0
    assert args.libfuzzer_args == ["-max_len=64", "-use_value_profile=1"]
    assert build_parser().parse_args(["fuzz", "decode"]).libfuzzer_args == []


def test_missing_atheris_prints_install_hint(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "atheris", None)  # makes `import atheris` fail
    monkeypatch.delenv("SANITIZER_FUZZ_CANDIDATE", raising=False)
    assert main(["fuzz", "decode", "--max-time", "1"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'utf8-sanitizer[fuzz]'" in err
    assert "atheris 3.0.0 on Python 3.11" in err and "3.12" in err
    assert len(err.strip().splitlines()) == 1


def test_examples_behave_as_documented() -> None:
    """Sanity check without fuzzing: the good decoder agrees with CPython, the buggy one
    lets a surrogate through."""
    sys.path.insert(0, str(ROOT))
    try:
        from examples import good_decoder, my_decoder
    finally:
        sys.path.remove(str(ROOT))
    samples = [b"", b"abc", "h\u00e9\u20ac\U0001f600".encode(), b"\xed\x9f\xbf"]
    for data in samples:
        assert good_decoder.decode(data) == my_decoder.decode(data) == data.decode()
    for bad in (b"\xc0\xae", b"\xe0\x80\xaf", b"\xf4\x90\x80\x80", b"\xed\xa0\x80", b"\xe2\x82"):
        with pytest.raises(UnicodeDecodeError) as info:
            good_decoder.decode(bad)
        try:
            bad.decode()
        except UnicodeDecodeError as exc:
            assert (info.value.start, info.value.end) == (exc.start, exc.end)
    assert my_decoder.decode(b"\xed\xa0\x80") == "\ud800"  # the deliberate bug


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs a shell")
def test_help_mentions_libfuzzer_flags() -> None:
    proc = _sanitizer("fuzz", "--help", cwd=ROOT, timeout=60)
    assert proc.returncode == 0
    assert "--candidate" in proc.stdout and "--max-time" in proc.stdout and "'--'" in proc.stdout


def test_timeout_and_seed_flags(capsys: pytest.CaptureFixture[str]) -> None:
    from sanitizer.cli import build_parser

    args = build_parser().parse_args(
        ["fuzz", "decode", "--no-seeds", "--timeout", "3", "--no-instrument-candidate"]
    )
    assert (args.no_seeds, args.timeout, args.no_instrument_candidate) == (True, 3, True)
    defaults = build_parser().parse_args(["fuzz", "decode"])
    assert (defaults.no_seeds, defaults.timeout, defaults.no_instrument_candidate) == (
        False,
        10,
        False,
    )
    if HAVE_ATHERIS:
        assert main(["fuzz", "decode", "--timeout", "0"]) == 2
        assert "--timeout must be at least 1 second" in capsys.readouterr().err


@pytest.mark.fuzz
@needs_atheris
@needs_decode_target
def test_empty_corpus_without_seeds_still_flags(tmp_path: Path) -> None:
    # --corpus EMPTY_DIR --no-seeds: nothing bundled is added, and an exiting candidate is
    # found from nothing (exit 1, not "no findings" and 0).
    empty, artifacts = tmp_path / "empty", tmp_path / "artifacts"
    empty.mkdir()
    proc = _sanitizer(
        "fuzz", "decode", "--candidate", "sanitizer._fuzzing.mutants:os_exit_on_ill_formed",
        "--corpus", str(empty), "--no-seeds", "--artifacts", str(artifacts),
        "--max-time", "10", "--stop-on-first", "--minimize-time", "2", "--no-progress",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "| 0 -> " in proc.stdout  # the working corpus started empty
    assert "tried to end the process: called os._exit(0)" in proc.stdout


@pytest.mark.fuzz
@needs_atheris
@needs_decode_target
def test_campaign_far_below_its_time_exits_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # In process, with the shortfall judged from 2 s of campaign on (not 10): a 6 s campaign
    # is judged however loaded the machine is, and the test does not wait 12 s.
    from sanitizer._fuzzing import campaign

    monkeypatch.setattr(campaign, "SHORTFALL_MIN_SECONDS", 2.0)
    monkeypatch.delenv("SANITIZER_FUZZ_CANDIDATE", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "crawling.py").write_text(
        "import time\n\ndef decode(data):\n    time.sleep(0.2)\n    return data.decode()\n"
    )
    code = main([
        "fuzz", "decode", "--candidate", "crawling:decode", "--max-time", "6",
        "--minimize-time", "2", "--no-progress", "--artifacts", str(tmp_path / "art"),
        "--corpus", str(tmp_path), "--no-seeds",
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 3, out
    assert "incomplete (decode)" in out and "every input met" not in out


def test_target_choices_are_the_campaign_targets() -> None:
    from sanitizer._fuzzing.targets import TARGET_NAMES
    from sanitizer.cli._fuzz import target_choices

    assert target_choices() == (*TARGET_NAMES, "all")
    assert set(TARGET_NAMES) >= {"utf16", "utf7", "web"}


@needs_atheris
def test_all_runs_every_target_this_installation_has(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sanitizer._fuzzing import campaign, layout
    from sanitizer._fuzzing.targets import TARGET_NAMES

    monkeypatch.delenv("SANITIZER_FUZZ_CANDIDATE", raising=False)
    ran: list[list[str]] = []

    def fake_campaign(config: campaign.CampaignConfig, progress: object) -> list[object]:
        ran.append(list(config.targets))
        return []

    monkeypatch.setattr(campaign, "run_campaign", fake_campaign)
    assert main(["fuzz", "all", "--max-time", "6", "--no-progress"]) == 0
    assert ran[-1] == list(TARGET_NAMES)
    # Installed without fuzz/: every target still (their oracles are in the package).
    monkeypatch.setattr(layout, "detect_layout", lambda: layout.Layout(None))
    assert main(["fuzz", "all", "--max-time", "6", "--no-progress"]) == 0
    assert ran[-1] == list(TARGET_NAMES)
    # A target whose extra module is missing says which and how to get it.
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "python_multipart" else real_find_spec(name, *a),
    )
    assert main(["fuzz", "web", "--max-time", "6"]) == 2
    err = capsys.readouterr().err
    assert "'web' needs python_multipart" in err and "utf8-sanitizer[fuzz]" in err


@pytest.mark.fuzz
@needs_atheris
@pytest.mark.parametrize("target", ["utf16", "utf7", "web"])
def test_campaign_on_the_other_targets(target: str, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    proc = _sanitizer(
        "fuzz", target, "--no-progress", "--corpus", str(corpus),
        "--artifacts", str(tmp_path / "artifacts"), *RUNS,
        cwd=ROOT, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no findings" in proc.stdout
    row = next(line for line in proc.stdout.splitlines() if line.startswith(f"| {target} "))
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert int(cells[3].replace(",", "")) > 0  # executions happened
    assert int(cells[5]) > 0  # coverage: the code under test is instrumented
    assert not list((tmp_path / "artifacts").glob("crash-*"))
