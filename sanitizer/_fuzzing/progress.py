"""Live progress for a fuzzing campaign, on a terminal or in a CI log.

A campaign runs for minutes with nothing to show but counters, so the runner reports them
as it goes: on a TTY one status line rewritten in place, elsewhere (CI logs, pipes) a plain
line every few seconds so the log stays readable.  Notes (a finding, a restarted worker)
are printed on their own lines in both modes without garbling the status line.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["Progress", "human_count"]


def human_count(n: float) -> str:
    """``1234567`` -> ``"1.23M"``: short, fixed-ish width for a status line."""
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= limit:
            return f"{n / limit:.3g}{suffix}"
    return f"{n:.0f}"


class Progress:
    """One updating status line (``interactive``) or periodic plain lines.

    ``update(text)`` may be called as often as wanted: interactive output is redrawn at most
    every ``min_redraw`` seconds, plain output printed every ``interval`` seconds.
    """

    def __init__(
        self,
        stream: TextIO,
        *,
        interactive: bool | None = None,
        interval: float = 10.0,
        min_redraw: float = 0.2,
        clock: Callable[[], float] = time.monotonic,
        enabled: bool = True,
    ) -> None:
        self.stream = stream
        if interactive is None:
            isatty = getattr(stream, "isatty", None)
            interactive = bool(isatty and isatty())
        self.interactive = interactive
        self.interval = interval
        self.min_redraw = min_redraw
        self.clock = clock
        self.enabled = enabled
        self._last: float | None = None
        self._shown = ""  # what the in-place line currently shows

    def update(self, text: str, *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = self.clock()
        wait = self.min_redraw if self.interactive else self.interval
        if not force and self._last is not None and now - self._last < wait:
            return
        self._last = now
        if self.interactive:
            self.stream.write("\r\x1b[2K" + text)
            self._shown = text
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def note(self, text: str) -> None:
        """A message on its own line (above the status line when interactive)."""
        if not self.enabled:
            return
        if self.interactive and self._shown:
            self.stream.write("\r\x1b[2K" + text + "\n" + self._shown)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        """End the in-place line so later output starts on a fresh line."""
        if self.enabled and self.interactive and self._shown:
            self.stream.write("\n")
            self.stream.flush()
        self._shown = ""
