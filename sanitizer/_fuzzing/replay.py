"""Helper processes of a campaign: run a target's oracle on given inputs, in process.

``python -m sanitizer._fuzzing.replay screen TARGET DIR [--probe]`` replays a corpus once
before the workers start (inputs that already fail become findings at once instead of
crashing every worker while it loads); with ``--probe`` it also says what the candidate
is (``probes.candidate_code``) and its verdict on every probe of every ill-formed class
(``probes``), one JSON line each; and ``... shrink TARGET IN OUT HEADLINE`` delta-debugs a finding
while keeping its *same* failure (libFuzzer's ``-minimize_crash`` only keeps "it crashes").
They run in a child process (a crashing or hanging candidate cannot take the campaign
down with it) and call the oracle directly, far cheaper than a libFuzzer re-run per try.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from .candidate import CANDIDATE_ENV, load
from .libfuzzer import TIMEOUT_HEADLINE, headline
from .oracles import InputTimeout, check_decode
from .targets import check_for

__all__ = ["TIMEOUT_ENV", "InputTimeout", "failure_text", "main", "shrink", "target_check"]


def shrink(data: bytes, fails: Callable[[bytes], bool], budget: int = 5000) -> bytes:
    """Delta debugging (ddmin, chunk removal): a shortest-found ``x`` with ``fails(x)``,
    given ``fails(data)``.  At most ``budget`` calls of ``fails``."""
    calls = 0

    def check(candidate: bytes) -> bool:
        nonlocal calls
        calls += 1
        return fails(candidate)

    if check(b""):
        return b""
    parts = 2
    while len(data) >= 2 and calls < budget:
        chunk = max(1, len(data) // parts)
        for start in range(0, len(data), chunk):
            candidate = data[:start] + data[start + chunk :]
            if calls >= budget:
                break
            if check(candidate):
                data = candidate
                parts = max(parts - 1, 2)
                break
        else:
            if chunk == 1:
                break
            parts = min(len(data), parts * 2)
    # ddmin only cuts at multiples of the chunk size; a UTF-8 sequence straddling two
    # chunks (a 3-byte sequence at an odd offset) needs a cut at any offset: try removing
    # 2..4 bytes wherever they start, until nothing more can go.
    changed = True
    while changed and calls < budget:
        changed = False
        for width in (4, 3, 2):
            start = 0
            while start + width <= len(data) and calls < budget:
                candidate = data[:start] + data[start + width :]
                if check(candidate):
                    data, changed = candidate, True
                else:
                    start += 1
    return data


def failure_text(exc: BaseException) -> str:
    """``Divergence: <report>`` then the traceback, as atheris prints an uncaught one."""
    trace = "".join(traceback.format_exception(exc)).rstrip("\n")
    return f"{type(exc).__name__}: {exc}\n{trace}"


def target_check(target: str) -> Callable[[bytes], None]:
    """The check a fuzz target runs, with ``$SANITIZER_FUZZ_CANDIDATE`` for decode
    (``targets.check_for``: the in-package oracle, or the script's for utf7 and web)."""
    spec = os.environ.get(CANDIDATE_ENV, "")
    if target == "decode" and spec:
        decoder = load(spec)
        return lambda data: check_decode(data, decoder)
    return check_for(target)


def main(argv: Sequence[str]) -> int:
    """``screen TARGET DIR [--probe]``: one JSON line per failing file (and per probe).
    ``shrink TARGET IN OUT HEADLINE``: write to OUT a smaller input failing with the same
    headline."""
    mode, target, *rest = argv
    check = target_check(target)
    if mode == "screen":
        if "--probe" in rest:
            _probe()
        return _screen(check, Path(rest[0]))
    if mode == "shrink":
        return _shrink_file(check, Path(rest[0]), Path(rest[1]), rest[2])
    return 2


def _on_alarm(signum: int, frame: object) -> None:
    raise InputTimeout


def _fails_how(check: Callable[[bytes], None], data: bytes) -> str | None:
    """The failure text of ``check(data)``, None if it passes.  An input running longer
    than the per-input limit fails as libFuzzer's ``-timeout`` would (same headline);
    any other ``BaseException`` (``SystemExit``...) is a failure too, not the helper's end."""
    limit = _input_timeout()
    if limit:
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        check(data)
    except InputTimeout:
        return f"{TIMEOUT_HEADLINE}\n(the replay helper's alarm: over {limit:g} s for one input)"
    except Exception as exc:
        return failure_text(exc)
    except BaseException as exc:
        return failure_text(exc)
    finally:
        if limit:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return None


# The per-input limit of a replay helper, in seconds (the campaign passes its -timeout).
TIMEOUT_ENV = "SANITIZER_FUZZ_TIMEOUT"


def _input_timeout() -> float:
    try:
        return max(0.0, float(os.environ.get(TIMEOUT_ENV, "0")))
    except ValueError:
        return 0.0


def _probe() -> None:
    """The candidate's code kind, then one line per probe (``probes.judge``)."""
    from .classes import WELL_FORMED, first_class
    from .probes import DIFFERS, Probe, candidate_code, judge, probe_inputs

    spec = os.environ.get(CANDIDATE_ENV, "")
    if not spec:
        return
    try:
        decoder = load(spec)
    except ValueError:  # the screen's own load reports it
        return
    info = {"spec": spec, "code": candidate_code(decoder), "type": type(decoder).__name__}
    print(json.dumps({"candidate": info}), flush=True)
    limit = _input_timeout()
    signal.signal(signal.SIGALRM, _on_alarm)
    for data in probe_inputs():
        if limit:
            signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            probe = judge(decoder, data)
        except InputTimeout:  # a hanging candidate: the screen files it as a timeout
            found = first_class(data)
            probe = Probe(data, found.key if found else WELL_FORMED, DIFFERS, "timeout")
        finally:
            if limit:
                signal.setitimer(signal.ITIMER_REAL, 0)
        print(json.dumps({"probe": probe.as_dict()}), flush=True)


def _screen(check: Callable[[bytes], None], directory: Path) -> int:
    for path in sorted(directory.iterdir()):
        if path.is_file():
            failure = _fails_how(check, path.read_bytes())
            if failure is not None:
                print(json.dumps({"path": str(path), "failure": failure}), flush=True)
    return 0


def _shrink_file(check: Callable[[bytes], None], source: Path, dest: Path, wanted: str) -> int:
    def fails(data: bytes) -> bool:
        failure = _fails_how(check, data)
        return failure is not None and headline(failure) == wanted

    data = source.read_bytes()
    if fails(data):
        dest.write_bytes(shrink(data, fails))
        return 0
    return 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
