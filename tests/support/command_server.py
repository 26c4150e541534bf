"""A process that starts Python and imports the command once, then forks a child for
each ``python -m sanitizer ARGS`` that ``cli_runner.run_cli`` asks of it.

An interpreter's start is most of what a short run of the command costs (about 0.1 s
of its 0.12 s), and the suite runs the command hundreds of times.  A child forked from
here is still a process of its own: its own standard streams (the caller's pipes,
passed over the socket), environment, working directory, exit status and signals; it
runs ``sanitizer.__main__`` as ``python -m`` does and ends as the interpreter would
(threads joined, ``atexit`` run, streams flushed).  What a child cannot get from here is
what Python reads before it runs anything (``PYTHON*``, the locale, the backend choice
``SANITIZER_*``): ``run_cli`` starts a fresh interpreter when a call changes one of those.

Protocol, over a SOCK_SEQPACKET socket (one message a call): the caller sends a JSON
object ``{"argv", "env", "cwd"}`` with three file descriptors (stdin, stdout, stderr);
the server answers the child's pid, then its wait status, each as 8 bytes.
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import socket
import struct
import sys
import threading
import traceback

PID = struct.Struct("q")


def _exit_status(code: object) -> int:
    """The status ``SystemExit(code)`` ends the interpreter with (as Python does)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _run_command(argv: list[str]) -> int:
    sys.argv = ["sanitizer", *argv]  # run_module sets argv[0] to the module's file
    try:
        runpy.run_module("sanitizer", run_name="__main__", alter_sys=True)
        status = 0
    except SystemExit as exc:
        status = _exit_status(exc.code)
    except BaseException:  # what the interpreter prints for an uncaught exception
        traceback.print_exc()
        status = 1
    threading._shutdown()  # type: ignore[attr-defined]  # as at exit: join the threads
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:  # a closed pipe at exit: Python's status for it
            status = 120
    return status


def _child(request: dict[str, object], fds: list[int]) -> None:
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    env = request["env"]
    assert isinstance(env, dict)
    os.environ.clear()
    os.environ.update(env)
    cwd = request["cwd"]
    if isinstance(cwd, str):
        os.chdir(cwd)
    sys.path[0] = os.getcwd()  # as ``python -m`` starts
    argv = request["argv"]
    assert isinstance(argv, list)
    os._exit(_run_command(argv))


def serve(sock: socket.socket) -> None:
    import sanitizer.cli  # noqa: F401  (warm: what every call imports)

    while True:
        message, fds, _, _ = socket.recv_fds(sock, 1 << 20, 3)
        if not message:
            return  # the caller is gone
        request = json.loads(message)
        pid = os.fork()
        if pid == 0:
            try:
                sock.close()
                _child(request, fds)
            finally:
                os._exit(70)  # not reached unless the set-up failed
        for fd in fds:
            os.close(fd)
        sock.send(PID.pack(pid))
        _, status = os.waitpid(pid, 0)
        sock.send(PID.pack(status))


if __name__ == "__main__":
    serve(socket.socket(fileno=int(sys.argv[1])))
