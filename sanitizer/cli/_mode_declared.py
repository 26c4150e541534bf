"""``sanitizer check`` on a file that declares another encoding: the ``declared`` mode.

A PEP 263 coding cookie, an XML declaration or an HTML meta charset naming an encoding
other than UTF-8, where the file's kind reads such a declaration (``_declared``,
``_kinds``), is one ``declared-encoding`` finding: it fails the check with
``--declared-encoding reject`` (the default), is only reported with ``allow``.  The rest
of the file is not read: its bytes are not UTF-8 text by its own account.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._inputs import size_of
from ._locate import excerpt, locate_all
from ._output import FileFinding, Place
from ._report import Outcome

if TYPE_CHECKING:
    from ._check_args import Settings
    from ._inputs import Opened
    from ._report import Progress


def declared_mode(opened: Opened, settings: Settings, progress: Progress) -> Outcome:
    """A file that declares another encoding (``opened.declared``, found by
    ``_check.name_for``): one ``declared-encoding`` finding, the rest not read."""
    declared = opened.declared
    assert declared is not None, "set when the mode was chosen"
    first, label, start, end = opened.first, opened.label, declared.start, declared.end
    progress.advance(size_of(opened.path) or len(first), label)
    line, column = locate_all(first, [start], [], settings.columns)[start]
    place = Place(label, start, end, line, column, line, column + end - start)  # ASCII
    finding = FileFinding(
        "declared-encoding",
        declared.name,
        settings.declared_encoding,
        declared.reason(),
        place,
        excerpt(first, start, end),
        fails=settings.strict or settings.declared_encoding == "reject",
    )
    return Outcome([finding], len(first))
