"""``--format json``: the stable machine contract (version 1), documented in the README."""

from __future__ import annotations

import json
from typing import Any

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


def document(result: RunResult) -> dict[str, Any]:
    """The whole report as plain data."""
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
        "diagnostics": [diagnostic_dict(d) for d in result.diagnostics],
    }


def render(result: RunResult, color: bool = False) -> str:
    return json.dumps(document(result), indent=2) + "\n"
