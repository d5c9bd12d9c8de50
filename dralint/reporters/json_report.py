"""``--format json``: the stable machine contract (version 1), documented in the README."""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as _text
from typing import Any, Iterator

from dralint import __version__
from dralint.diagnostics import Diagnostic, ObjectRef, Severity
from dralint.lint.engine import RunResult


def diagnostic_dict(diag: Diagnostic) -> dict[str, Any]:
    """One diagnostic as the contract spells it."""
    obj = diag.object
    out: dict[str, Any] = {
        "rule": diag.rule,
        "name": diag.name,
        "severity": diag.severity.value,
        "message": diag.message,
        "hint": diag.hint,
        "path": diag.span.path,
        "line": diag.span.line,
        "column": diag.span.column,
        "endLine": diag.span.end_line,
        "endColumn": diag.span.end_column,
        "object": None if obj is None else {"apiVersion": obj.api_version, "kind": obj.kind, "namespace": obj.namespace, "name": obj.name},
        "field": diag.field,
        "related": [{"path": r.span.path, "line": r.span.line, "column": r.span.column, "message": r.message} for r in diag.related],
    }
    if diag.rendered is not None:  # only for findings in a Helm or Kustomize render
        span = diag.rendered
        out["rendered"] = {"path": span.path, "line": span.line, "column": span.column, "endLine": span.end_line, "endColumn": span.end_column}
    return out


def _head(result: RunResult) -> dict[str, Any]:
    counts = {s.value: result.count(s) for s in Severity}
    return {
        "version": 1,
        "tool": {"name": "dralint", "version": __version__},
        "score": result.score,
        "summary": {"files": len(result.files), "objects": result.objects, **counts},
        "files": [
            {"path": f.path, "score": f.score, "objects": f.objects, **{s.value: f.counts[s] for s in Severity}}
            for f in result.files
        ],
    }


def document(result: RunResult) -> dict[str, Any]:
    """The whole report as plain data."""
    return {**_head(result), "diagnostics": [diagnostic_dict(d) for d in result.diagnostics]}


def chunks(result: RunResult, color: bool = False) -> Iterator[str]:
    """``json.dumps(document(result), indent=2)`` in pieces, with the diagnostics written by a
    template, one piece each.

    With ``indent`` the standard library encodes through its pure-Python encoder, one generator
    step per value; on a large run that cost about half as much as parsing the input. The
    diagnostics have a fixed shape, so each is one format string over C-encoded strings. In
    pieces, because the whole report of a large run is several times the size of its input.
    """
    yield json.dumps(_head(result), indent=2)[:-2]
    if not result.diagnostics:
        yield ',\n  "diagnostics": []\n}\n'
        return
    separator = ',\n  "diagnostics": [\n'
    objects = _ObjectTexts()
    for diag in result.diagnostics:
        yield separator + _diagnostic_text(diag, objects)
        separator = ",\n"
    yield "\n  ]\n}\n"


def render(result: RunResult, color: bool = False) -> str:
    """The report as one string (``chunks`` joined)."""
    return "".join(chunks(result, color))


#: ``severity.value`` without the enum's descriptor call, once per diagnostic.
_SEVERITY = {s: s.value for s in Severity}


def _value(value: str | int | None) -> str:
    """A scalar of a diagnostic as ``json.dumps`` writes it."""
    if value is None:
        return "null"
    return _text(value) if isinstance(value, str) else repr(value)


def _members(fields: dict[str, Any], indent: str) -> str:
    """The members of a flat JSON object, one per line at ``indent``."""
    return ",\n".join(f"{indent}{_text(k)}: {_value(v)}" for k, v in fields.items())


class _ObjectTexts:
    """The ``object`` member of each diagnostic: a large run has several findings per object in
    a row, so the last object's text is kept."""

    def __init__(self) -> None:
        self._last: ObjectRef | None = None
        self._text = "null"

    def __call__(self, obj: ObjectRef | None) -> str:
        if obj is not self._last:
            self._last = obj
            self._text = "null" if obj is None else "{\n" + _members(
                {"apiVersion": obj.api_version, "kind": obj.kind, "namespace": obj.namespace, "name": obj.name}, "        ") + "\n      }"
        return self._text


def _diagnostic_text(diag: Diagnostic, objects: _ObjectTexts) -> str:
    """One diagnostic as ``diagnostic_dict`` gives it, at the depth it has in the report (list
    item at 4 spaces)."""
    span = diag.span
    if diag.related:
        related_text = "[\n" + ",\n".join(
            "        {\n" + _members({"path": r.span.path, "line": r.span.line, "column": r.span.column, "message": r.message}, "          ")
            + "\n        }" for r in diag.related) + "\n      ]"
    else:
        related_text = "[]"
    rendered = diag.rendered
    rendered_text = "" if rendered is None else ',\n      "rendered": {\n' + _members(
        {"path": rendered.path, "line": rendered.line, "column": rendered.column, "endLine": rendered.end_line,
         "endColumn": rendered.end_column}, "        ") + "\n      }"
    return (
        f'    {{\n      "rule": {_text(diag.rule)},\n      "name": {_text(diag.name)},\n'
        f'      "severity": "{_SEVERITY[diag.severity]}",\n      "message": {_text(diag.message)},\n'
        f'      "hint": {_value(diag.hint)},\n      "path": {_text(span.path)},\n'
        f'      "line": {span.line!r},\n      "column": {span.column!r},\n'
        f'      "endLine": {span.end_line!r},\n      "endColumn": {span.end_column!r},\n'
        f'      "object": {objects(diag.object)},\n      "field": {_value(diag.field)},\n'
        f'      "related": {related_text}{rendered_text}\n    }}'
    )
