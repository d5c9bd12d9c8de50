"""Files finished while the checks still run (dralint.lint.assembly): the result must be
exactly what finishing every file at the end gave."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from dralint.diagnostics import Diagnostic, Severity, Span, by_file
from dralint.lint import engine
from dralint.lint.assembly import Assembly
from dralint.lint.dedup import one_file
from dralint.yaml.loader import SourceText


def _at_the_end(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Every file finished after the last check, files in path order: what Assembly must give."""
    return [diag for group in by_file(diagnostics) for diag in one_file(group)]


def _diag(path: str, rule: str, line: int, message: str, severity: Severity = Severity.WARNING) -> Diagnostic:
    return Diagnostic(rule, rule.lower(), severity, message, Span(path, line, 1, line, 5))


def _objects(*paths: str) -> list[SimpleNamespace]:
    return [SimpleNamespace(path=path) for path in paths]


def _sources(*paths: str) -> dict[str, SourceText]:
    return {path: SourceText(path, "kind: ConfigMap\n" * 9) for path in paths}


class _Finished(Assembly):
    """An Assembly that records which file it finishes and how many objects were checked then."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.files: list[tuple[str, int]] = []
        self.count = 0

    def checked(self, count: int) -> None:
        self.count = count
        super().checked(count)

    def _finish(self, path: str) -> list[Diagnostic]:
        self.files.append((path, self.count))
        return super()._finish(path)


def test_a_file_is_finished_when_its_last_object_is_checked_and_as_if_at_the_end():
    made = [_diag("b.yaml", "YAML002", 2, "duplicate key")]
    wide = [_diag("a.yaml", "REF005", 3, "no such class"), _diag("c.yaml", "SCH001", 1, "snapshot finding")]
    # The API error and the reference error on one span are one mistake (merged); the repeat is dropped.
    first = [
        _diag("a.yaml", "SEC003", 4, "root"),
        _diag("a.yaml", "API007", 3, "bad name"),
        _diag("a.yaml", "SEC003", 4, "root"),
    ]
    second = [_diag("b.yaml", "REL001", 5, "no cpu request"), _diag("b.yaml", "REL001", 1, "no cpu request")]
    assembly = _Finished(_objects("a.yaml", "a.yaml", "b.yaml"), (), made, wide, _sources("a.yaml", "b.yaml"))

    assembly.add(first)
    assembly.checked(1)
    assert assembly.files == []  # a.yaml has an object left
    assembly.checked(2)
    assembly.add(second)
    assembly.checked(3)
    assert assembly.files == [("a.yaml", 2), ("b.yaml", 3)]

    result = assembly.diagnostics(assembly.unfinished(), {"a.yaml", "b.yaml", "c.yaml"})
    assert result == _at_the_end(made + first + second + wide)
    assert [d.rule for d in result if d.span.path == "a.yaml"] == ["API007", "SEC003"]
    assert assembly.files == [("a.yaml", 2), ("b.yaml", 3)]  # none finished again at the end


def test_a_file_reported_on_after_it_was_finished_is_finished_again_at_the_end():
    assembly = _Finished(_objects("a.yaml", "b.yaml"), (), [], [], _sources("a.yaml", "b.yaml"))
    early = [_diag("a.yaml", "API007", 3, "bad name")]
    late = [
        _diag("b.yaml", "SEC003", 1, "root"),
        _diag("a.yaml", "REF005", 3, "also the class"),
    ]  # a check of b's object reports in a.yaml
    assembly.add(early)
    assembly.checked(1)
    assembly.add(late)
    assembly.checked(2)
    result = assembly.diagnostics(assembly.unfinished(), {"a.yaml", "b.yaml"})
    assert result == _at_the_end(early + late)
    assert [d.related[0].message for d in result if d.span.path == "a.yaml"] == ["also: also the class [REF005]"]
    assert [path for path, _ in assembly.files] == ["a.yaml", "b.yaml", "a.yaml"]  # a.yaml once more


def test_renders_files_without_objects_and_unreported_files_wait_for_the_end():
    made = [_diag("empty.yaml", "YAML001", 1, "syntax"), _diag("context.yaml", "REF001", 1, "not reported")]
    assembly = _Finished(_objects("chart", "plain.yaml"), ("chart",), made, [], _sources("plain.yaml"))
    rendered = [_diag("chart", "SEC003", 7, "root in a render"), _diag("plain.yaml", "SEC003", 2, "root")]
    assembly.add(rendered)
    assembly.checked(2)
    assert assembly.files == [("plain.yaml", 2)]
    rest = assembly.unfinished()
    assert rest == made + rendered[:1]  # in the order made, for the caller to move render findings
    moved = [
        dataclasses.replace(d, span=d.span._replace(path="templates/job.yaml")) if d.span.path == "chart" else d
        for d in rest
    ]
    result = assembly.diagnostics(moved, {"empty.yaml", "plain.yaml", "templates/job.yaml"})
    assert [d.span.path for d in result] == ["empty.yaml", "plain.yaml", "templates/job.yaml"]


_MANIFESTS = {
    "kept.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: kept\n  namespace: a\nspec:\n  containers:\n"
    "  - name: app\n    image: nginx:1.27\n",
    "silenced.yaml": (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: quiet\n  namespace: a\n  annotations:\n"
        "    dralint.io/ignore: SEC003\nspec:\n  containers:\n  - name: app\n    image: nginx:1.27\n"
    ),
}


def test_the_cli_prints_the_same_text_for_any_number_of_jobs_with_baselines_and_suppressions(in_tmp, monkeypatch):
    from click.testing import CliRunner

    from dralint.cli.main import main

    monkeypatch.setattr(engine, "_SLICE", 3)  # several slices, so files are finished while others are checked
    pod = _MANIFESTS["kept.yaml"]
    for index in range(8):
        (in_tmp / f"pod-{index}.yaml").write_text(pod.replace("name: kept", f"name: pod-{index}"), encoding="utf-8")
    (in_tmp / "silenced.yaml").write_text(_MANIFESTS["silenced.yaml"], encoding="utf-8")
    (in_tmp / "commented.yaml").write_text(
        "# dralint: ignore-file[REL001]\n" + pod.replace("name: kept", "name: commented"), encoding="utf-8"
    )

    def lint_text(*args: str) -> str:
        out = CliRunner().invoke(main, ["lint", "--no-config", *args, "."]).stdout
        return out + (in_tmp / "report.txt").read_text() if "--output" in args else out

    recorded = CliRunner().invoke(
        main, ["lint", "--no-config", "--select", "SEC003", "--write-baseline", "base.json", "pod-3.yaml"]
    )
    assert recorded.exit_code == 0, recorded.output
    for args in (
        (),
        ("--baseline", "base.json"),
        ("--color", "always"),
        ("--format", "text", "--output", "report.txt"),
    ):
        one, two = lint_text("--jobs", "1", *args), lint_text("--jobs", "2", *args)
        assert one == two and "pod-5.yaml" in one
    assert "1 known finding hidden by the baseline" in lint_text("--jobs", "2", "--baseline", "base.json")
    assert "2 suppressed" in lint_text("--jobs", "2")
