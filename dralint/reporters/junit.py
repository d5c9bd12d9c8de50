"""``--format junit``: JUnit XML, for CI systems that show test reports (GitLab, Jenkins, Azure).

One test suite per file, one test case per Kubernetes object (plus one for the file itself
when a finding belongs to no object, such as a YAML syntax error), one ``<failure>`` per finding.
An object without findings is a passing test case, so the report also shows what was checked.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from dralint.diagnostics import Diagnostic
from dralint.engine import FileResult, RunResult
from dralint.objects import KubeObject

_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(text: str) -> str:
    """Drop characters XML 1.0 cannot carry (a manifest may contain anything)."""
    return _NOT_XML.sub("\ufffd", text)


def _failure(case: ET.Element, diag: Diagnostic) -> None:
    span = diag.span
    body = f"{span.path}:{span.line}:{span.column}: {diag.severity.value}: {diag.message} [{diag.rule}]"
    if diag.hint:
        body += f"\nhint: {diag.hint}"
    for related in diag.related:
        body += f"\nnote: {related.span.path}:{related.span.line}:{related.span.column}: {related.message}"
    element = ET.SubElement(case, "failure", type=f"{diag.rule} {diag.name}", message=_clean(f"{diag.severity.value}: {diag.message}"))
    element.text = _clean(body)


def _owner(diag: Diagnostic, objects: list[KubeObject]) -> int | None:
    """The object a finding belongs to: named by the finding, or else the one whose text holds it."""
    for index, obj in enumerate(objects):
        if diag.object is not None and diag.object == obj.ref:
            return index
    start = (diag.span.line, diag.span.column)
    for index, obj in enumerate(objects):
        extent = obj.span(())
        if (extent.line, extent.column) <= start < (extent.end_line, extent.end_column):
            return index
    return None


def _suite(parent: ET.Element, file: FileResult, objects: list[KubeObject], diagnostics: list[Diagnostic]) -> tuple[int, int]:
    cases: list[tuple[str, list[Diagnostic]]] = [(obj.display, []) for obj in objects]
    loose: list[Diagnostic] = []
    for diag in diagnostics:
        owner = _owner(diag, objects)
        (loose if owner is None else cases[owner][1]).append(diag)
    if loose or not cases:
        cases.insert(0, ("(file)", loose))
    failures = sum(len(found) for _, found in cases)
    suite = ET.SubElement(parent, "testsuite", name=_clean(file.path), tests=str(len(cases)), failures=str(failures), errors="0")
    for name, found in cases:
        case = ET.SubElement(suite, "testcase", classname=_clean(file.path), name=_clean(name), file=_clean(file.path))
        for diag in found:
            _failure(case, diag)
    return len(cases), failures


def render(result: RunResult, color: bool = False) -> str:
    root = ET.Element("testsuites", name="dralint")
    tests = failures = 0
    for file in result.files:
        objects = [o for o in result.context.objects if o.path == file.path and o.origin != "context"]
        found = [d for d in result.diagnostics if d.span.path == file.path]
        counted = _suite(root, file, objects, found)
        tests, failures = tests + counted[0], failures + counted[1]
    root.set("tests", str(tests))
    root.set("failures", str(failures))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
