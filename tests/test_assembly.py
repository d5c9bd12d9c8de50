"""The run's diagnostics put together (dralint.lint.assembly): each file's findings finished in
the order they were made, files in path order, only the reported files, every span inside."""

from __future__ import annotations

from dralint.diagnostics import Diagnostic, Severity, Span
from dralint.lint.assembly import assemble
from dralint.yaml.loader import SourceText


def _diag(path: str, rule: str, line: int, message: str, end_line: int | None = None) -> Diagnostic:
    return Diagnostic(rule, rule.lower(), Severity.WARNING, message, Span(path, line, 1, end_line or line, 5))


def _sources(*paths: str) -> dict[str, SourceText]:
    return {path: SourceText(path, "kind: ConfigMap\n" * 9) for path in paths}


def test_each_file_is_finished_in_the_order_its_findings_were_made_files_in_path_order():
    made = [_diag("b.yaml", "YAML002", 2, "duplicate key")]
    # The API error and the reference error on one span are one mistake (merged); the repeat is dropped.
    checked = [
        _diag("a.yaml", "SEC003", 4, "root"),
        _diag("a.yaml", "API007", 3, "bad name"),
        _diag("b.yaml", "REL001", 5, "no cpu request"),
        _diag("a.yaml", "SEC003", 4, "root"),
    ]
    wide = [_diag("a.yaml", "REF005", 3, "no such class")]
    result = assemble(made + checked + wide, _sources("a.yaml", "b.yaml"), {"a.yaml", "b.yaml"})
    assert [(d.span.path, d.rule) for d in result] == [
        ("a.yaml", "API007"),
        ("a.yaml", "SEC003"),
        ("b.yaml", "YAML002"),
        ("b.yaml", "REL001"),
    ]
    merged = result[0]
    assert [r.message for r in merged.related] == ["also: no such class [REF005]"]


def test_only_reported_files_are_kept_and_every_span_is_inside_its_file():
    past_the_end = _diag("a.yaml", "YAML001", 40, "syntax", end_line=41)
    context = _diag("context.yaml", "REF001", 1, "not reported")
    result = assemble([context, past_the_end], _sources("a.yaml"), {"a.yaml"})
    assert [d.rule for d in result] == ["YAML001"]
    span = result[0].span
    assert (span.line, span.end_line) == (9, 9) and span.column <= len("kind: ConfigMap") + 1
