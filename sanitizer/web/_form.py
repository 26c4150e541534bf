"""application/x-www-form-urlencoded bodies: fields checked as each '&' arrives, so
only the current field is held (WHATWG URL §5.1: '+' is a space, then %XX)."""

from __future__ import annotations

from ._body import BodyCheck
from ._compiled import CompiledWebPolicy, bulk_passes
from ._problems import Problem
from ._values import pairs_problem


class FormBody(BodyCheck):
    """Fields are checked as each '&' arrives; only the current field is held."""

    def __init__(self, compiled: CompiledWebPolicy, limit: int | None) -> None:
        super().__init__(limit)
        self._compiled = compiled
        self._held = b""
        self._number = 1

    def _feed(self, chunk: bytes) -> Problem | None:
        data = self._held + chunk
        cut = data.rfind(b"&")
        if cut < 0:
            self._held = data
            return None
        self._held = data[cut + 1 :]
        return self._fields(data[:cut])

    def _close(self) -> Problem | None:
        held, self._held = self._held, b""
        return self._fields(held)

    def _fields(self, data: bytes) -> Problem | None:
        compiled = self._compiled
        if bulk_passes(data, compiled.form_bulk):  # all fields at once, usually
            fields = data.split(b"&")
            self._number += len(fields) - fields.count(b"")
            return None
        problem, self._number = pairs_problem(
            data, compiled, compiled.form, "form field", "form", self._number
        )
        return problem
