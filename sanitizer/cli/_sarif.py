"""SARIF 2.1.0 output, for GitHub code scanning and every other SARIF viewer.

One ``sarifLog`` with one ``run`` (SARIF 2.1.0, OASIS Standard), written as findings
arrive so memory stays bounded however many there are: results first, then the rules
that were used, the invocation and the run's properties (JSON object members have no
order).  Choices the specification leaves to the producer:

- ``columnKind`` is always set (§3.14.17): ``utf16CodeUnits`` unless ``--columns
  codepoints`` was asked for, since GitHub and VS Code count UTF-16 code units;
- regions carry both the text form (``startLine``, ``startColumn``, ``endLine``,
  ``endColumn``, §3.30.2, end exclusive) and the binary form (``byteOffset``,
  ``byteLength``, §3.30.3), which SARIF allows together when they agree;
- paths under the working directory are relative URIs against ``%SRCROOT%`` (code
  scanning resolves them from the repository root), others ``file:`` URIs; bytes that
  are not URI characters are percent-encoded (RFC 3986 §2.1), non-UTF-8 names included;
- ``partialFingerprints`` key ``utf8Sanitizer/v1``: a hash of the path, the rule and the
  finding's excerpt (its line around it), with a counter for repeats, so a result keeps
  its identity when lines are added above it (§3.27.17);
- ``level``: ``error`` for findings that fail the run, ``note`` for allowed ones;
- a finding silenced by a comment (``inSource``), the configuration or a baseline
  (``external``) is a result with ``suppressions`` (§3.27.23), never left out.
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.parse
from collections import Counter
from typing import Any

from .. import __version__
from .._rule_registry import rule_for
from ._locate import NEWLINES, UTF16
from ._output import Emitter, FileFinding, Place, Writer

SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
FINGERPRINT = "utf8Sanitizer/v1"
SRCROOT = "%SRCROOT%"


def _file_uri(path: str) -> str:
    """An absolute path as a ``file:`` URI (RFC 8089), bytes percent-encoded."""
    return "file://" + urllib.parse.quote(os.fsencode(path).replace(os.sep.encode(), b"/"))


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class SarifLog(Emitter):
    """Writes one SARIF log through ``writer``: a result per finding, then ``close``
    (the emitter of ``--format sarif``)."""

    def __init__(self, writer: Writer, columns: str, cwd: str | None = None) -> None:
        super().__init__(writer, columns)
        self.writer = writer
        self.cwd = os.path.abspath(cwd if cwd is not None else os.getcwd())
        self.rules: dict[str, int] = {}
        self._seen: Counter[str] = Counter()
        self._first = True
        self.notifications: list[dict[str, Any]] = []  # files not checked, and why
        self.fields: list[dict[str, Any]] = []  # the per-field summaries of records files
        writer.raw(f'{{"$schema": {_dump(SCHEMA)}, "version": "2.1.0", "runs": [{{"results": [')

    def _uri(self, path: str) -> dict[str, str]:
        if path == "-":
            return {"uri": "stdin"}
        full = os.path.abspath(path)
        rel = os.path.relpath(full, self.cwd)
        if not rel.startswith(os.pardir):
            quoted = urllib.parse.quote(os.fsencode(rel).replace(os.sep.encode(), b"/"))
            return {"uri": quoted, "uriBaseId": SRCROOT}
        return {"uri": _file_uri(full)}

    def _region(self, place: Place) -> dict[str, int]:
        region = {
            "startLine": place.line,
            "startColumn": place.column,
            "endLine": place.end_line,
            "endColumn": max(place.end_column, 1),
            "byteOffset": place.start,
            "byteLength": place.end - place.start,
        }
        return region

    def _location(self, place: Place, message: str | None = None) -> dict[str, Any]:
        if place.logical is not None:  # in a record: the line (JSON Lines), the field
            physical: dict[str, Any] = {"artifactLocation": self._uri(place.path)}
            if place.row is None:
                physical["region"] = {"startLine": place.line}
                name = f"line {place.line}: {place.logical}"
            else:
                name = f"row {place.row}: {place.logical}"
            if place.key:
                name += " (key)"
            if place.column:
                name += f" at {place.column}"
            return {
                "physicalLocation": physical,
                "logicalLocations": [
                    {"name": place.logical, "fullyQualifiedName": name, "kind": "element"}
                ],
                "message": {"text": name},
            }
        loc: dict[str, Any] = {
            "physicalLocation": {
                "artifactLocation": self._uri(place.path),
                "region": self._region(place),
            }
        }
        if message is not None:
            loc["message"] = {"text": message}
        return loc

    def _fingerprint(self, finding: FileFinding) -> str:
        key = "\0".join((os.path.normpath(finding.place.path), finding.kind, finding.excerpt))
        digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:32]
        self._seen[digest] += 1
        return f"{digest}:{self._seen[digest]}"

    def finding(self, finding: FileFinding) -> None:
        index = self.rules.setdefault(finding.kind, len(self.rules))
        what = f"{finding.what}: " if finding.what else ""  # a run or a whole value: none
        text = f"{what}{finding.reason} ({finding.action})"
        if finding.place.logical is not None:
            row = finding.place.line if finding.place.row is None else finding.place.row
            text += f" [{'line' if finding.place.row is None else 'row'} {row}"
            text += f": {finding.place.logical}]" if finding.place.logical else "]"
        result: dict[str, Any] = {
            "ruleId": finding.kind,
            "ruleIndex": index,
            "level": "error" if finding.fails else "note",
            "message": {"text": text},
            "locations": [self._location(finding.place)],
            "partialFingerprints": {FINGERPRINT: self._fingerprint(finding)},
            "properties": {"action": finding.action, "excerpt": finding.excerpt},
        }
        if finding.suppressed:  # SARIF 2.1.0 §3.27.23, §3.35: kept, marked, not failing
            inline = finding.suppressed == "inline"
            result["suppressions"] = [
                {
                    "kind": "inSource" if inline else "external",
                    "status": "accepted",
                    "justification": f"sanitizer check: suppressed ({finding.suppressed})",
                }
            ]
        if finding.related:
            result["relatedLocations"] = [
                {"id": i, **self._location(place, message)}
                for i, (place, message) in enumerate(finding.related)
            ]
        self.writer.raw(("" if self._first else ", ") + _dump(result))
        self._first = False

    def skipped(self, path: str, note: str) -> None:
        """A file not checked (a binary file skipped): a tool execution notification of
        the invocation (SARIF §3.20.21), at the file, whose rule id is the reason's
        first word (``binary``)."""
        self.notifications.append(
            {
                "level": "note",
                "message": {"text": f"skipped: {note}"},
                "descriptor": {"id": note.split(":")[0]},
                "locations": [{"physicalLocation": {"artifactLocation": self._uri(path)}}],
            }
        )

    def tally(self, label: str, fields: dict[str, list[int]]) -> None:
        """A records file's summary per field: in the run's properties (``fields``)."""
        uri = self._uri(label)["uri"]
        for name, (values, dirty, found) in fields.items():
            self.fields.append({"uri": uri, "field": name, "values": values,
                                "values_with_findings": dirty, "findings": found})  # fmt: skip

    def close(self, successful: bool, exit_code: int, summary: dict[str, Any]) -> None:
        rules = []
        for kind in self.rules:  # in index order (dicts keep insertion order)
            rule = rule_for(kind)
            rules.append(
                {
                    "id": rule.id,
                    "name": "".join(w.capitalize() for w in rule.id.split("-")),
                    "shortDescription": {"text": rule.title},
                    "fullDescription": {"text": rule.why},
                    "help": {"text": f"{rule.title}. {rule.why}"},
                    "defaultConfiguration": {"level": "error"},
                    "properties": {
                        "tags": ["security", "unicode"],
                        "security-severity": rule.severity,
                    },
                }
            )
        run_rest = {
            "tool": {
                "driver": {
                    "name": "utf8-sanitizer",
                    "semanticVersion": __version__,
                    "version": __version__,
                    "rules": rules,
                }
            },
            "columnKind": "utf16CodeUnits" if self.columns == UTF16 else "unicodeCodePoints",
            "newlineSequences": list(NEWLINES),
            "originalUriBaseIds": {SRCROOT: {"uri": _file_uri(self.cwd).rstrip("/") + "/"}},
            "invocations": [
                {
                    "executionSuccessful": successful,
                    "exitCode": exit_code,
                    "toolExecutionNotifications": self.notifications,
                }
            ],
            "properties": {"summary": summary, **({"fields": self.fields} if self.fields else {})},
        }
        self.writer.raw("], " + _dump(run_rest)[1:] + "]}\n")
