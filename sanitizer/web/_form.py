"""application/x-www-form-urlencoded bodies: fields checked as each '&' arrives, so
only the current field is held (WHATWG URL §5.1: '+' is a space, then %XX).  Raw
bytes >= 0x80 are refused as ambiguous: some frameworks read them as Latin-1.  The held
field is kept as the chunks it came in and joined once, when its '&' arrives, so the
cost stays linear in the body whatever the chunking."""

from __future__ import annotations

from ._body import GATHER, BodyCheck
from ._compiled_web import CompiledWebPolicy, bulk_decoded
from ._problems import Problem, ambiguous
from ._readings import disagree_on_raw_bytes
from ._value_checks import pairs_problem


class FormBody(BodyCheck):
    """Fields are checked as each '&' arrives; only the current field is held."""

    gather = GATHER

    def __init__(self, compiled: CompiledWebPolicy, limit: int | None) -> None:
        super().__init__(limit)
        self._compiled = compiled
        self._held: list[bytes] = []  # the current field, unjudged
        self._held_size = 0
        self._number = 1

    def _feed(self, chunk: bytes) -> Problem | None:
        cut = chunk.rfind(b"&")  # only the new chunk is scanned
        if cut < 0:
            self._held.append(chunk)
            self._held_size += len(chunk)
            return None
        data = b"".join([*self._held, chunk[:cut]]) if self._held else chunk[:cut]
        self._held, self._held_size = [chunk[cut + 1 :]], len(chunk) - cut - 1
        return self._fields(data)

    def _close(self) -> Problem | None:
        held = b"".join(self._held)
        self._held, self._held_size = [], 0
        return self._fields(held)

    def _judged_size(self) -> int:
        return self.checked - self._held_size

    def _fields(self, data: bytes) -> Problem | None:
        compiled = self._compiled
        passes, decoded = bulk_decoded(data, compiled.form_bulk)
        if passes:  # all fields at once, usually
            fields = data.split(b"&")
            self._number += len(fields) - fields.count(b"")
            problem = None
        else:
            problem, self._number = pairs_problem(
                data, compiled, compiled.form, "form field", "form", self._number, decoded
            )
        if problem is None and _RAW is not None and not data.isascii():
            # Browsers percent-encode a form (WHATWG URL §5.2); raw bytes >= 0x80 are read
            # as Latin-1 by Starlette and Litestar, as UTF-8 by the others (_readings).
            problem = ambiguous("form", "form body", _RAW)
        return problem


_RAW = disagree_on_raw_bytes("form")
