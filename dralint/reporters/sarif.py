"""``--format sarif``: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

The shape follows what GitHub reads (docs/output-formats.md, docs/ci.md): one run, a driver with
name, semanticVersion and the rules that occur (each with its full documentation in
``help``), results with a 1-based full region, a repository-relative URI against
``%SRCROOT%`` (``--sarif-root``), ``partialFingerprints`` that survive line moves, related
locations, and suppressed findings as ``suppressions`` instead of silently dropped. Peer
tools' defects this avoids: results pinned to line 1, an empty driver name, a missing
``results`` array when the run is clean, empty ``snippet`` objects.

``informationUri`` and ``helpUri`` are left out: SARIF wants absolute URIs there, dralint has
no public home page yet, and a link to a page that does not exist is worse than none. The
rule text a viewer shows comes from ``help`` (the same text as ``dralint explain``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any
from urllib.parse import quote

from dralint import __version__
from dralint.diagnostics import Diagnostic, ObjectRef, Replacement, Severity, Span, Suppressed
from dralint.lint.catalog import Rule, load_catalog
from dralint.lint.engine import RunResult
from dralint.lint.ruledocs import explain
from dralint.reporters import RepeatedTexts, joined

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
AUTOMATION_ID = "dralint/"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_PROBLEM = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "recommendation"}
#: YAML and API findings follow mechanically from the spec; the rest rest on judgement.
_VERY_HIGH = frozenset({"yaml", "api", "internal"})
_TEXT_LIMIT = 1024


def _clip(text: str, limit: int = _TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def rule_descriptor(rule: Rule) -> dict[str, Any]:
    """A reportingDescriptor from the catalog entry, within GitHub's field limits."""
    tags = [rule.category, *rule.tags]
    properties: dict[str, Any] = {
        "precision": "very-high" if rule.category in _VERY_HIGH else "high",
        "problem.severity": _PROBLEM[rule.severity],
    }
    if rule.security_severity:  # marks a security rule for GitHub, which then ranks by it
        properties["security-severity"] = rule.security_severity
        tags.append("security")
    properties["tags"] = list(dict.fromkeys(tags))[:20]
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": _clip(rule.summary)},
        "fullDescription": {"text": _clip(rule.rationale)},
        "help": {"text": f"{rule.summary}\n\n{rule.rationale}\n\nHow to fix: {rule.fix}", "markdown": explain(rule)},
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": properties,
    }


def _fallback_descriptor(diag: Diagnostic) -> dict[str, Any]:
    """A rule missing from the catalog still gets the fields GitHub requires."""
    return {
        "id": diag.rule,
        "name": diag.name,
        "shortDescription": {"text": diag.rule},
        "fullDescription": {"text": diag.rule},
        "help": {"text": diag.rule},
        "defaultConfiguration": {"level": _LEVEL[diag.severity]},
    }


def artifact_location(path: str, root: str) -> dict[str, Any]:
    """A URI relative to ``root`` under ``%SRCROOT%``, or an absolute file URI outside it."""
    if path.startswith("<"):
        return {"uri": quote(path, safe="")}
    absolute = Path(os.path.realpath(path))
    rel = os.path.relpath(absolute, os.path.realpath(root))
    if rel.startswith(".."):
        return {"uri": absolute.as_uri()}
    return {"uri": quote(Path(rel).as_posix()), "uriBaseId": SRCROOT}


def _physical(span: Span, root: str, artifacts: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if span.path not in artifacts:
        artifacts[span.path] = artifact_location(span.path, root)
    return {
        "artifactLocation": artifacts[span.path],
        "region": {
            "startLine": span.line,
            "startColumn": span.column,
            "endLine": span.end_line,
            "endColumn": span.end_column,
        },
    }


def _qualified_name(obj: ObjectRef, field: str | None) -> str:
    """The object a finding is about, as a logical location: ``Kind/namespace/name.field``."""
    name = "/".join(p for p in (obj.kind, obj.namespace, obj.name) if p)
    return name + (f".{field}" if field else "")


def _result(
    diag: Diagnostic,
    index: dict[str, int],
    fingerprint: str | None,
    root: str,
    suppression: Suppressed | None,
    artifacts: dict[str, dict[str, Any]],
    fixes: tuple[Replacement, ...] = (),
) -> dict[str, Any]:
    text = diag.message + (f"\nhint: {diag.hint}" if diag.hint else "")
    out: dict[str, Any] = {
        "ruleId": diag.rule,
        "ruleIndex": index[diag.rule],
        "level": _LEVEL[diag.severity],
        "message": {"text": text},
        "locations": [{"physicalLocation": _physical(diag.span, root, artifacts)}],
    }
    if diag.object is not None:
        out["locations"][0]["logicalLocations"] = [
            {"fullyQualifiedName": _qualified_name(diag.object, diag.field), "kind": "object"}
        ]
    related = [(r.span, r.message) for r in diag.related]
    if diag.rendered is not None:
        related.append((diag.rendered, "where the finding is in the rendered output"))
    if related:
        out["relatedLocations"] = [
            {"id": i, "physicalLocation": _physical(span, root, artifacts), "message": {"text": message}}
            for i, (span, message) in enumerate(related, 1)
        ]
    if diag.rendered is not None:
        out["properties"] = {"rendered": _physical(diag.rendered, root, artifacts)}
    if fingerprint:
        out["partialFingerprints"] = {"primaryLocationLineHash": fingerprint, "dralint/v1": fingerprint}
    if suppression is not None:
        out["suppressions"] = [
            {"kind": suppression.kind, "status": "accepted", "justification": suppression.justification}
        ]
    if fixes:
        out["fixes"] = [_fix(diag, fixes, root, artifacts)]
    return out


def _fix(
    diag: Diagnostic, replacements: tuple[Replacement, ...], root: str, artifacts: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """The edits `dralint fix` makes for ``diag``, as one SARIF fix."""
    return {
        "description": {"text": f"dralint fix --rule {diag.rule}"},
        "artifactChanges": [
            {
                "artifactLocation": _physical(diag.span, root, artifacts)["artifactLocation"],
                "replacements": [
                    {
                        "deletedRegion": _physical(r.region, root, artifacts)["region"],
                        "insertedContent": {"text": r.text},
                    }
                    for r in replacements
                ],
            }
        ],
    }


def _entries(result: RunResult) -> Iterator[tuple[Diagnostic, Suppressed | None]]:
    """Every finding of the log in order, with its suppression for silenced ones (made as
    they are read: a large run has hundreds of thousands)."""
    for diag in result.diagnostics:
        yield diag, None
    for silenced in result.suppressed:
        yield silenced.diagnostic, silenced
    for known in result.known:
        yield known, Suppressed(known, "external", "known finding, recorded in the baseline")


def _frame(
    result: RunResult, entries: Iterable[tuple[Diagnostic, Suppressed | None]]
) -> tuple[dict[str, Any], dict[str, int]]:
    """The log with an empty ``results`` list, and each rule's index among its descriptors."""
    root = result.context.options.sarif_root
    catalog = load_catalog()
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for diag, _ in entries:
        if diag.rule not in index:
            index[diag.rule] = len(rules)
            rules.append(rule_descriptor(catalog[diag.rule]) if diag.rule in catalog else _fallback_descriptor(diag))
    run = {
        "tool": {"driver": {"name": "dralint", "semanticVersion": __version__, "rules": rules}},
        "automationDetails": {"id": AUTOMATION_ID},
        "originalUriBaseIds": {SRCROOT: {"uri": Path(os.path.realpath(root)).as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [{"executionSuccessful": bool(result.sources)}],
        "results": [],
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}, index


def document(result: RunResult) -> dict[str, Any]:
    """The SARIF log as plain data (``chunks`` writes the same log faster)."""
    root = result.context.options.sarif_root
    log, index = _frame(result, _entries(result))
    artifacts: dict[str, dict[str, Any]] = {}  # one location object per file, shared by its results
    log["runs"][0]["results"] = [
        _result(d, index, result.fingerprints.get(d), root, s, artifacts, result.fixes.get(d, ()))
        for d, s in _entries(result)
    ]
    return log


#: What ``json.dumps(..., ensure_ascii=False)`` encodes strings with (in C), and the log's encoder.
_string = encode_basestring
_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
#: How the encoded log with no results ends; the results go between its brackets.
_EMPTY_RESULTS_END = "[]}]}"


def chunks(result: RunResult, color: bool = False) -> Iterator[str]:
    """``document(result)`` as compact JSON (C-speed encoding, a smaller upload: GitHub rejects
    over 10 MB gzipped), in pieces (``joined``), its results written by templates.

    Encoding the log as one tree of a dozen dicts per result took ten times as long as the JSON
    report of the same run, whose diagnostics are templates (``json_report``): a 10,000-document
    run spent 1.7 s of CPU on its SARIF log against 0.16 s on its JSON report.
    """
    log, index = _frame(result, _entries(result))
    frame = _compact(log)
    assert frame.endswith(_EMPTY_RESULTS_END)
    yield frame[: -len(_EMPTY_RESULTS_END) + 1]
    yield from joined(_result_texts(result, _entries(result), index), ",")
    yield _EMPTY_RESULTS_END[1:] + "\n"


def render(result: RunResult, color: bool = False) -> str:
    """The log as one string (``chunks`` joined)."""
    return "".join(chunks(result, color))


def _result_texts(
    result: RunResult, entries: Iterable[tuple[Diagnostic, Suppressed | None]], index: dict[str, int]
) -> Iterator[str]:
    """Each result as ``_result`` builds it, encoded as ``_compact`` encodes it.

    Only the message is encoded for every finding. The rest repeats: the rule and level per
    rule, the hint as a few values per rule (``RepeatedTexts``), the file's location per file;
    findings in a row often share a span and an object, whose texts are kept while they repeat.
    A suppression is one of a few per run too (a baseline's is the same for all its findings).
    The few results with related locations, a rendered span or fixes are built as data and
    encoded whole.
    """
    root = result.context.options.sarif_root
    prints = result.fingerprints
    fixes = result.fixes
    artifacts: dict[str, dict[str, Any]] = {}
    heads = RepeatedTexts(
        lambda key: (
            f'{{"ruleId":{_string(key[0])},"ruleIndex":{index[key[0]]},"level":"{_LEVEL[key[1]]}","message":{{"text":'
        )
    )
    hints = RepeatedTexts(lambda hint: _string(f"\nhint: {hint}")[1:] if hint else '"')
    files = RepeatedTexts(lambda path: _compact(artifact_location(path, root)))
    silenced = RepeatedTexts(
        lambda why: (
            f',"suppressions":[{{"kind":{_string(why[0])},"status":"accepted","justification":{_string(why[1])}}}]'
        )
    )
    span: Span | None = None
    place = ""
    obj: ObjectRef | None = None
    field: str | None = None
    logical = ""
    for diag, suppression in entries:
        fix = fixes.get(diag, ()) if fixes else ()
        if diag.related or diag.rendered is not None or fix:
            yield _compact(_result(diag, index, prints.get(diag), root, suppression, artifacts, fix))
            continue
        if diag.span is not span:
            span = diag.span
            place = (
                f'}},"locations":[{{"physicalLocation":{{"artifactLocation":{files[span.path]},"region":{{"startLine":{span.line!r},'
                f'"startColumn":{span.column!r},"endLine":{span.end_line!r},"endColumn":{span.end_column!r}}}}}'
            )
        if diag.object is not obj or diag.field != field:
            obj, field = diag.object, diag.field
            logical = (
                ""
                if obj is None
                else (
                    f',"logicalLocations":[{{"fullyQualifiedName":{_string(_qualified_name(obj, field))},'
                    '"kind":"object"}]'
                )
            )
        fingerprint = prints.get(diag)
        marks = (
            f',"partialFingerprints":{{"primaryLocationLineHash":{_string(fingerprint)},"dralint/v1":{_string(fingerprint)}}}'
            if fingerprint
            else ""
        )
        quiet = "" if suppression is None else silenced[suppression.kind, suppression.justification]
        head = heads[diag.rule, diag.severity]
        yield f"{head}{_string(diag.message)[:-1]}{hints[diag.hint]}{place}{logical}}}]{marks}{quiet}}}"
