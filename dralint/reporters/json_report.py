"""``--format json``: the stable machine contract (version 1), documented in the README."""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as _text
from typing import Any, Iterator

from dralint import __version__
from dralint.diagnostics import Diagnostic, Severity
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
    for diag in result.diagnostics:
        yield separator + _diagnostic_text(diagnostic_dict(diag))
        separator = ",\n"
    yield "\n  ]\n}\n"


def render(result: RunResult, color: bool = False) -> str:
    """The report as one string (``chunks`` joined)."""
    return "".join(chunks(result, color))


def _value(value: Any) -> str:
    """A scalar of a diagnostic record as ``json.dumps`` writes it."""
    if value is None:
        return "null"
    return _text(value) if isinstance(value, str) else json.dumps(value)


def _diagnostic_text(record: dict[str, Any]) -> str:
    """One record of ``diagnostic_dict`` at the depth it has in the report (list item at 4 spaces)."""
    obj = record["object"]
    if obj is None:
        object_text = "null"
    else:
        object_text = "{\n" + ",\n".join(f"        {_text(k)}: {_value(v)}" for k, v in obj.items()) + "\n      }"
    if record["related"]:
        related_text = "[\n" + ",\n".join(
            "        {\n" + ",\n".join(f"          {_text(k)}: {_value(v)}" for k, v in item.items()) + "\n        }"
            for item in record["related"]) + "\n      ]"
    else:
        related_text = "[]"
    return (
        f'    {{\n      "rule": {_value(record["rule"])},\n      "name": {_value(record["name"])},\n'
        f'      "severity": {_value(record["severity"])},\n      "message": {_value(record["message"])},\n'
        f'      "hint": {_value(record["hint"])},\n      "path": {_value(record["path"])},\n'
        f'      "line": {record["line"]!r},\n      "column": {record["column"]!r},\n'
        f'      "endLine": {record["endLine"]!r},\n      "endColumn": {record["endColumn"]!r},\n'
        f'      "object": {object_text},\n      "field": {_value(record["field"])},\n'
        f'      "related": {related_text}\n    }}'
    )
