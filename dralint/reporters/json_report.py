"""``--format json``: the stable machine contract (version 1), documented in docs/output-formats.md."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring_ascii as _text
from typing import Any

from dralint import __version__
from dralint.diagnostics import Diagnostic, ObjectRef, Severity, Span
from dralint.lint.engine import RunResult
from dralint.reporters import RepeatedTexts, joined


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
        "object": None
        if obj is None
        else {"apiVersion": obj.api_version, "kind": obj.kind, "namespace": obj.namespace, "name": obj.name},
        "field": diag.field,
        "related": [
            {"path": r.span.path, "line": r.span.line, "column": r.span.column, "message": r.message}
            for r in diag.related
        ],
    }
    if diag.rendered is not None:  # only for findings in a Helm or Kustomize render
        span = diag.rendered
        out["rendered"] = {
            "path": span.path,
            "line": span.line,
            "column": span.column,
            "endLine": span.end_line,
            "endColumn": span.end_column,
        }
    return out


def _head(result: RunResult) -> dict[str, Any]:
    counts = {s.value: n for s, n in result.tally().items()}
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
    template.

    With ``indent`` the standard library encodes through its pure-Python encoder, one generator
    step per value; on a large run that cost about half as much as parsing the input. The
    diagnostics have a fixed shape, so each is one format string over C-encoded strings. In
    pieces (``joined``), because the whole report of a large run is several times the size of
    its input.
    """
    yield json.dumps(_head(result), indent=2)[:-2]
    if not result.diagnostics:
        yield ',\n  "diagnostics": []\n}\n'
        return
    yield ',\n  "diagnostics": [\n'
    yield from joined(_diagnostic_texts(result.diagnostics), ",\n")
    yield "\n  ]\n}\n"


def render(result: RunResult, color: bool = False) -> str:
    """The report as one string (``chunks`` joined)."""
    return "".join(chunks(result, color))


def _value(value: str | int | None) -> str:
    """A scalar of a diagnostic as ``json.dumps`` writes it."""
    if value is None:
        return "null"
    return _text(value) if isinstance(value, str) else repr(value)


def _members(fields: dict[str, Any], indent: str) -> str:
    """The members of a flat JSON object, one per line at ``indent``."""
    return ",\n".join(f"{indent}{_text(k)}: {_value(v)}" for k, v in fields.items())


def _rule_text(key: tuple[str, str, Severity]) -> str:
    """A diagnostic's text up to its message: the opening brace, rule, name and severity."""
    rule, name, severity = key
    return (
        f'    {{\n      "rule": {_text(rule)},\n      "name": {_text(name)},\n'
        f'      "severity": "{severity.value}",\n      "message": '
    )


def _hint_text(hint: str | None) -> str:
    """The text between a diagnostic's message and its path."""
    return f',\n      "hint": {_value(hint)},\n      "path": '


def _span_text(span: Span) -> str:
    """The text from a diagnostic's path to its object."""
    return (
        f'{_text(span.path)},\n      "line": {span.line!r},\n      "column": {span.column!r},\n'
        f'      "endLine": {span.end_line!r},\n      "endColumn": {span.end_column!r},\n      "object": '
    )


def _object_text(obj: ObjectRef | None) -> str:
    """The value of a diagnostic's ``object`` member."""
    if obj is None:
        return "null"
    return (
        f'{{\n        "apiVersion": {_text(obj.api_version)},\n        "kind": {_text(obj.kind)},\n'
        f'        "namespace": {_value(obj.namespace)},\n        "name": {_text(obj.name)}\n      }}'
    )


def _field_text(field: str | None) -> str:
    """The text between a diagnostic's object and its related locations."""
    return f',\n      "field": {_value(field)},\n      "related": '


#: The end of a diagnostic without related locations or a rendered span, nearly every one.
_PLAIN_END = "[]\n    }"


def _end_text(diag: Diagnostic) -> str:
    """The value of ``related``, ``rendered`` when there is one, and the closing brace."""
    if diag.related:
        related_text = (
            "[\n"
            + ",\n".join(
                "        {\n"
                + _members(
                    {"path": r.span.path, "line": r.span.line, "column": r.span.column, "message": r.message},
                    "          ",
                )
                + "\n        }"
                for r in diag.related
            )
            + "\n      ]"
        )
    else:
        related_text = "[]"
    rendered = diag.rendered
    rendered_text = (
        ""
        if rendered is None
        else ',\n      "rendered": {\n'
        + _members(
            {
                "path": rendered.path,
                "line": rendered.line,
                "column": rendered.column,
                "endLine": rendered.end_line,
                "endColumn": rendered.end_column,
            },
            "        ",
        )
        + "\n      }"
    )
    return f"{related_text}{rendered_text}\n    }}"


def _diagnostic_texts(diagnostics: Iterable[Diagnostic]) -> Iterator[str]:
    """Each diagnostic as ``diagnostic_dict`` gives it, at the depth it has in the report (list
    item at 4 spaces).

    Only the message is encoded for every diagnostic. The rest repeats: rule, name and severity,
    the hint and the field are a few values per rule, kept by value (``RepeatedTexts``); several
    findings in a row share a span (rules on one key) and an object, kept while they repeat.
    """
    rules = RepeatedTexts(_rule_text)
    hints = RepeatedTexts(_hint_text)
    fields = RepeatedTexts(_field_text)
    span: Span | None = None
    obj: ObjectRef | None = None
    span_text = ""
    object_text = _object_text(None)
    for diag in diagnostics:
        if diag.span is not span:
            span = diag.span
            span_text = _span_text(span)
        if diag.object is not obj:
            obj = diag.object
            object_text = _object_text(obj)
        end = _PLAIN_END if not diag.related and diag.rendered is None else _end_text(diag)
        yield (
            f"{rules[diag.rule, diag.name, diag.severity]}{_text(diag.message)}{hints[diag.hint]}{span_text}"
            f"{object_text}{fields[diag.field]}{end}"
        )
