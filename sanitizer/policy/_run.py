"""The engine: one application of a policy to one input, deciding everything.

The entry points (``inspect``, ``sanitize``, ``accepts``) come here when the fast paths
(``compiled``) cannot answer.  Order of work, cheapest first and limits before costly
steps (HOWTO §5.9.5; UAX #15 §13): byte limit, strict decoding (RFC 3629 §10: ill-formed
bytes are findings, never silently decoded), one regex scan per policy (``_scan``),
combining-run limit, a code-point bound, normalization, then the same checks again on
what normalization produced (CWE-180: NFKC turns U+FF0F into '/').  Findings are placed
in the caller's input at the end (``_offsets``).
"""

from __future__ import annotations

import dataclasses
import re

from ..chardata import MAX_NFD_EXPANSION, Category, category_of, min_normalized_length, normalize
from ..decoder import find_errors
from ..errors import Utf8Error
from ._model import DROPPING, Action, Finding, Policy, Report
from ._offsets import ByteOffsets, utf8_length
from ._scan import fits_latin1, has_astral, hits, mark_runs, scanner
from .compiled import CompiledPolicy

_C = Category
_NON_ASCII = re.compile("[^\\x00-\\x7f]")
_ANY = re.compile(".", re.DOTALL)


class Run:
    """One application of a policy to one input (keeps the state out of the hot path)."""

    def __init__(self, data: object, compiled: CompiledPolicy) -> None:
        if isinstance(data, str):
            self.raw: bytes | None = None
            self.text = data
        elif isinstance(data, (bytes, bytearray, memoryview)):
            self.raw = bytes(data)
            self.text = ""
        else:
            raise TypeError(f"inspect() takes bytes or str, not {type(data).__name__}")
        self.compiled = compiled
        self.policy: Policy = compiled.policy
        self.acts = compiled.policy.actions
        self.findings: list[Finding] = []  # start/end are text indices until _finish
        self.index_findings: list[Finding] = []
        self.errors: list[Utf8Error] = []
        self.error_index: list[int] = []
        self.edits: dict[int, str] = {}  # text index -> replacement ("" strips)
        self.range_edits: list[tuple[int, int, str]] = []
        self.rejected = False

    def _add(self, finding: Finding, *, is_index: bool = True) -> None:
        (self.index_findings if is_index else self.findings).append(finding)
        if finding.action is Action.REJECT:
            self.rejected = True

    def _input_len(self) -> int:
        return len(self.raw) if self.raw is not None else len(self.text)

    def _whole(self, cat: Category, form: str | None = None) -> None:
        """A finding about the whole input (limits, dot segments, emptiness)."""
        act = self.acts[cat]
        if act is not Action.IGNORE:
            self._add(Finding(cat, 0, self._input_len(), act, form=form), is_index=False)

    def _refuse_whole(self, cat: Category, form: str | None) -> None:
        """A problem no single input character accounts for: the input is refused."""
        finding = Finding(cat, 0, self._input_len(), Action.REJECT, form=form)
        self._add(finding, is_index=False)

    def report(self) -> Report:
        text = self._run()
        findings = self._finish()
        ok = not self.rejected
        return Report(ok, text if ok else None, findings, self.policy)

    # -- steps ---------------------------------------------------------------------------

    def _run(self) -> str | None:
        p = self.policy
        if p.max_bytes is not None:
            size = len(self.raw) if self.raw is not None else utf8_length(self.text, p.max_bytes)
            if size > p.max_bytes:
                self._whole(_C.TOO_LONG)
                return None
        if self.raw is not None:
            self._decode(self.raw)
        text = self.text
        is_ascii = text.isascii()
        is_latin1 = is_ascii or fits_latin1(text)
        utf8 = self.raw if self.raw is not None and not self.errors else None
        scan = scanner(self.compiled.scanned, p.allow_sequences)
        for cat, i in hits(text, scan, p.allow_sequences, utf8):
            act = self.acts[cat]
            self._add(Finding(cat, i, i + 1, act, codepoint=ord(text[i])))
            if act is Action.STRIP or act is Action.REPLACE:
                self.edits[i] = "" if act is Action.STRIP else "\ufffd"
        if not is_latin1:  # no combining marks below U+0300
            self._combining_runs(text)
        if self.rejected:
            return None
        edited = self._edited()
        if p.max_code_points is not None:
            if min_normalized_length(p.normalization, len(edited)) > p.max_code_points:
                self._whole(_C.TOO_LONG, p.normalization)  # cheap bound, before normalizing
                return None
        out = self._normalized_and_rechecked(edited, is_ascii, is_latin1)
        if out is None:
            return None
        return self._final_checks(out)

    def _decode(self, raw: bytes) -> None:
        try:
            self.text = raw.decode("utf-8")  # CPython's codec accepts exactly RFC 3629 §4
            return
        except UnicodeDecodeError:
            pass
        self.errors = find_errors(raw)
        act = self.acts[_C.ILL_FORMED]
        pieces: list[str] = []
        pos = 0
        length = 0
        for err in self.errors:
            piece = raw[pos : err.start].decode("utf-8")
            pieces += [piece, "\ufffd"]
            length += len(piece)
            self.error_index.append(length)
            length += 1
            pos = err.end
            self._add(
                Finding(_C.ILL_FORMED, err.start, err.end, act, raw=err.sequence, error=err),
                is_index=False,
            )
        pieces.append(raw[pos:].decode("utf-8"))
        self.text = "".join(pieces)

    def _combining_runs(self, text: str) -> None:
        limit = self.policy.max_combining
        act = self.acts[_C.COMBINING_RUN]
        if limit is None or act is Action.IGNORE:
            return
        astral = self.raw is None or bool(self.errors) or has_astral(self.raw)
        for start, end in mark_runs(text, limit, astral):
            self._add(Finding(_C.COMBINING_RUN, start, end, act))
            if act is Action.STRIP or act is Action.REPLACE:
                repl = "" if act is Action.STRIP else "\ufffd"
                self.range_edits.append((start + limit, end, repl))

    def _edited(self) -> str:
        """The input text with strip/replace edits applied."""
        if not self.edits and not self.range_edits:
            return self.text
        spans = sorted(
            [(i, i + 1, r) for i, r in self.edits.items()] + self.range_edits,
            key=lambda e: (e[0], -e[1]),
        )
        out: list[str] = []
        pos = 0
        for start, end, repl in spans:
            if start < pos:  # inside a span already edited (a char inside a stripped run)
                continue
            out += [self.text[pos:start], repl]
            pos = end
        out.append(self.text[pos:])
        return "".join(out)

    def _normalized_and_rechecked(self, edited: str, is_ascii: bool, is_latin1: bool) -> str | None:
        """Normalize, then check every form the policy names again (CWE-180), attributing
        new problems to the input characters that produce them; at most three rounds."""
        p = self.policy
        forms = [f for f in (p.normalization, p.also_check) if f is not None]
        if not forms or (is_ascii and "NFKC_CASEFOLD" not in forms):
            return edited  # ASCII is invariant under NFC and NFKC (UAX #15 §1.1)
        if is_latin1 and forms == ["NFC"] and "\ufffd" not in edited:
            return edited  # U+0000..00FF: all NFC_Quick_Check=Yes starters (UAX #15 §9)
        scan = scanner(self.compiled.dropping, p.allow_sequences)
        for _ in range(3):
            pending: dict[str, set[Category]] = {}
            values: dict[str, str] = {}
            form: str
            for form in forms:
                value = values[form] = normalize(form, edited)
                if value != edited:
                    found = {cat for cat, _ in hits(value, scan, p.allow_sequences)}
                    if found:
                        pending[form] = found
            if not pending:
                return values[p.normalization] if p.normalization else edited
            for form, cats in pending.items():
                self._attribute(form, cats)
            if self.rejected:
                return None
            edited = self._edited()
        for form, cats in pending.items():  # stripping keeps producing problems: refuse
            for cat in cats:
                self._refuse_whole(cat, form)
        return None

    def _attribute(self, form: str, cats: set[Category]) -> None:
        """Find the input characters whose ``form`` contains a character in ``cats``."""
        found = False
        chars = _ANY if form == "NFKC_CASEFOLD" else _NON_ASCII
        for m in chars.finditer(self.text):
            i, ch = m.start(), m.group()
            if i in self.edits:
                continue
            produced = normalize(form, ch)
            if produced == ch:
                continue
            for c in produced:
                cat = category_of(ord(c))
                if cat in cats:
                    act = self.acts[cat]
                    self._add(
                        Finding(cat, i, i + 1, act, codepoint=ord(ch), produced=produced, form=form)
                    )
                    if act is Action.STRIP or act is Action.REPLACE:
                        self.edits[i] = "" if act is Action.STRIP else "\ufffd"
                    found = True
                    break
        if not found:  # made by composition across characters: refuse the whole input
            for cat in cats:
                self._refuse_whole(cat, form)

    def _final_checks(self, out: str) -> str | None:
        p = self.policy
        limit = p.max_combining
        checks_runs = limit is not None and self.acts[_C.COMBINING_RUN] in DROPPING
        if checks_runs and out != self.text and not fits_latin1(out):
            if any(mark_runs(out, limit or 0)):  # a run that stripping or normalizing made
                self._refuse_whole(_C.COMBINING_RUN, p.normalization)
        if out in (".", ".."):
            self._whole(_C.DOT_SEGMENT)
        elif (
            p.also_check is not None
            and len(out) <= 2 * MAX_NFD_EXPANSION  # longer never normalizes to '..'
            and normalize(p.also_check, out) in (".", "..")
        ):
            self._whole(_C.DOT_SEGMENT, p.also_check)
        if not out:
            self._whole(_C.EMPTY)
        if p.max_code_points is not None and len(out) > p.max_code_points:
            self._whole(_C.TOO_LONG, p.normalization)
        return None if self.rejected else out

    def _finish(self) -> tuple[Finding, ...]:
        """Index findings to byte offsets (bytes input), merged in input order."""
        found = self.index_findings
        if found and self.raw is not None:
            to_byte = ByteOffsets(self.text, self.errors, self.error_index)
            found = [
                dataclasses.replace(f, start=to_byte(f.start), end=to_byte(f.end)) for f in found
            ]
        everything = found + self.findings
        everything.sort(key=lambda f: (f.start, f.end))
        return tuple(everything)
