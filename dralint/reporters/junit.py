"""``--format junit``: JUnit XML, for CI systems that show test reports (GitLab, Jenkins, Azure).

One test suite per file, one test case per Kubernetes object (plus one for the file itself
when a finding belongs to no object, such as a YAML syntax error), one ``<failure>`` per finding
that reaches ``--fail-on``. Findings below it are written to the test case's ``<system-out>``:
the JUnit verdict must agree with the exit code, and a CI page that shows a red test for an
info finding while the job passed teaches people to ignore it. An object without failures is a
passing test case, so the report also shows what was checked. A gate that fails without a
failing finding (``--min-score``) gets a failing test case of its own.
"""

from __future__ import annotations

import bisect
import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from functools import cached_property

from dralint.diagnostics import Diagnostic, Severity, Span
from dralint.k8s.objects import KubeObject
from dralint.lint.engine import FileResult, RunResult

_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(text: str) -> str:
    """Drop characters XML 1.0 cannot carry (a manifest may contain anything)."""
    return _NOT_XML.sub("\ufffd", text)


def _body(diag: Diagnostic) -> str:
    span = diag.span
    body = f"{span.path}:{span.line}:{span.column}: {diag.severity.value}: {diag.message} [{diag.rule}]"
    if diag.hint:
        body += f"\nhint: {diag.hint}"
    for related in diag.related:
        body += f"\nnote: {related.span.path}:{related.span.line}:{related.span.column}: {related.message}"
    return body


def _failure(case: ET.Element, diag: Diagnostic) -> None:
    element = ET.SubElement(
        case, "failure", type=f"{diag.rule} {diag.name}", message=_clean(f"{diag.severity.value}: {diag.message}")
    )
    element.text = _clean(_body(diag))


def _failing(fail_on: str) -> frozenset[Severity]:
    """The severities of findings that fail the run at ``fail_on`` (``--fail-on``)."""
    if fail_on == "never":
        return frozenset()
    floor = Severity(fail_on).rank
    return frozenset(severity for severity in Severity if severity.rank >= floor)


class _Owners:
    """Finds the object a finding belongs to in one file, in O(log n) per finding.

    Named by the finding (its object reference), or else the object whose text holds the
    finding's start (engine findings such as duplicate keys carry no reference).
    """

    def __init__(self, objects: list[KubeObject]):
        self.objects = objects
        self.by_ref = {obj.ref: index for index, obj in reversed(list(enumerate(objects)))}

    @cached_property
    def extents(self) -> list[tuple[Span, int]]:
        """Where each object is, in order. Locating an object expands its document (two thirds
        of a large report's time), so only a file with a finding that names no object does."""
        return sorted((obj.span(()), index) for index, obj in enumerate(self.objects))

    @cached_property
    def starts(self) -> list[tuple[int, int]]:
        return [(span.line, span.column) for span, _ in self.extents]

    def __call__(self, diag: Diagnostic) -> int | None:
        if diag.object is not None and diag.object in self.by_ref:
            return self.by_ref[diag.object]
        start = (diag.span.line, diag.span.column)
        position = bisect.bisect_right(self.starts, start) - 1
        if position < 0:
            return None
        extent, index = self.extents[position]
        return index if start < (extent.end_line, extent.end_column) else None


def _suite(
    parent: ET.Element,
    file: FileResult,
    objects: list[KubeObject],
    diagnostics: list[Diagnostic],
    failing: frozenset[Severity],
) -> tuple[int, int]:
    cases: list[tuple[str, list[Diagnostic]]] = [(obj.display, []) for obj in objects]
    loose: list[Diagnostic] = []
    owner_of = _Owners(objects)
    for diag in diagnostics:
        owner = owner_of(diag)
        (loose if owner is None else cases[owner][1]).append(diag)
    if loose or not cases:
        cases.insert(0, ("(file)", loose))
    failures = sum(1 for _, found in cases for diag in found if diag.severity in failing)
    suite = ET.SubElement(
        parent, "testsuite", name=_clean(file.path), tests=str(len(cases)), failures=str(failures), errors="0"
    )
    for name, found in cases:
        case = ET.SubElement(suite, "testcase", classname=_clean(file.path), name=_clean(name), file=_clean(file.path))
        notes = []
        for diag in found:
            if diag.severity in failing:
                _failure(case, diag)
            else:
                notes.append(_body(diag))
        if notes:
            ET.SubElement(case, "system-out").text = _clean("\n".join(notes))
    return len(cases), failures


def _gates(parent: ET.Element, gates: list[str]) -> None:
    """A failing test case for gates that no failing finding shows (``--min-score``)."""
    suite = ET.SubElement(parent, "testsuite", name="dralint gates", tests="1", failures="1", errors="0")
    case = ET.SubElement(suite, "testcase", classname="dralint", name="gates")
    ET.SubElement(case, "failure", type="gate", message=_clean("; ".join(gates))).text = _clean(
        "\n".join(f"FAILED {g}" for g in gates)
    )


def render(result: RunResult, color: bool = False) -> str:
    root = ET.Element("testsuites", name="dralint")
    tests = failures = 0
    objects: dict[str, list[KubeObject]] = defaultdict(list)
    for obj in result.context.objects:
        if obj.origin != "context":
            objects[obj.path].append(obj)
    found: dict[str, list[Diagnostic]] = defaultdict(list)
    for diag in result.diagnostics:
        found[diag.span.path].append(diag)
    failing = _failing(result.fail_on)
    for file in result.files:
        counted = _suite(root, file, objects[file.path], found[file.path], failing)
        tests, failures = tests + counted[0], failures + counted[1]
    if result.failed_gates and not failures:
        _gates(root, result.failed_gates)
        tests, failures = tests + 1, failures + 1
    root.set("tests", str(tests))
    root.set("failures", str(failures))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
