"""``sanitizer check --binary fail``: the ``binary`` mode.

A file found in a folder that looks binary (``_inputs.looks_binary``: no known kind of
text, a NUL byte in its first 8 KiB) is skipped by default, and said so; with
``--binary fail`` it is one failing ``binary`` finding, and nothing of it is read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._inputs import BINARY_NOTE, size_of
from ._output import FileFinding, Place
from ._report import Outcome

if TYPE_CHECKING:
    from ._check_args import Settings
    from ._inputs import Opened
    from ._report import Progress


def binary_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """``--binary fail``: a file that looks binary is one failing ``binary`` finding."""
    size = size_of(opened.path) or len(opened.first)
    progress.advance(size, opened.label)
    place = Place(opened.label, 0, 0)
    finding = FileFinding("binary", "", "reject", BINARY_NOTE, place)
    return Outcome([finding], size)
