"""Files finished while the checks still run (dralint.lint.assembly) and the text report's use
of what was written for them then: the result must be exactly what finishing every file at the
end gave."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from dralint.diagnostics import Diagnostic, Severity, Span, by_file
from dralint.lint import engine
from dralint.lint.assembly import Assembly
from dralint.lint.dedup import one_file
from dralint.lint.gate import lint_with_config
from dralint.lint.options import LintOptions
from dralint.reporters import text
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


class _Calls:
    """A ``prepare`` that records the files it is given and when."""

    def __init__(self) -> None:
        self.files: list[tuple[str, int]] = []
        self.checked = 0

    def __call__(self, diagnostics, sources):
        self.files.append((diagnostics[0].span.path, self.checked))
        return list(diagnostics)


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
    calls = _Calls()
    assembly = Assembly(_objects("a.yaml", "a.yaml", "b.yaml"), (), made, wide, _sources("a.yaml", "b.yaml"), calls)

    assembly.add(first)
    calls.checked = 1
    assembly.checked(1)
    assert calls.files == []  # a.yaml has an object left
    calls.checked = 2
    assembly.checked(2)
    assembly.add(second)
    calls.checked = 3
    assembly.checked(3)
    assert calls.files == [("a.yaml", 2), ("b.yaml", 3)]

    result = assembly.diagnostics(assembly.unfinished(), {"a.yaml", "b.yaml", "c.yaml"})
    assert result == _at_the_end(made + first + second + wide)
    assert [d.rule for d in result if d.span.path == "a.yaml"] == ["API007", "SEC003"]
    assert assembly.prepared == {path: [d for d in result if d.span.path == path] for path in ("a.yaml", "b.yaml")}


def test_a_file_reported_on_after_it_was_finished_is_finished_again_at_the_end():
    calls = _Calls()
    assembly = Assembly(_objects("a.yaml", "b.yaml"), (), [], [], _sources("a.yaml", "b.yaml"), calls)
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
    assert set(assembly.prepared) == {"b.yaml"}  # what was prepared for a.yaml no longer holds


def test_renders_files_without_objects_and_unreported_files_wait_for_the_end():
    calls = _Calls()
    made = [_diag("empty.yaml", "YAML001", 1, "syntax"), _diag("context.yaml", "REF001", 1, "not reported")]
    assembly = Assembly(_objects("chart", "plain.yaml"), ("chart",), made, [], _sources("plain.yaml"), calls)
    rendered = [_diag("chart", "SEC003", 7, "root in a render"), _diag("plain.yaml", "SEC003", 2, "root")]
    assembly.add(rendered)
    assembly.checked(2)
    assert calls.files == [("plain.yaml", 0)]
    rest = assembly.unfinished()
    assert rest == made + rendered[:1]  # in the order made, for the caller to move render findings
    moved = [
        dataclasses.replace(d, span=d.span._replace(path="templates/job.yaml")) if d.span.path == "chart" else d
        for d in rest
    ]
    result = assembly.diagnostics(moved, {"empty.yaml", "plain.yaml", "templates/job.yaml"})
    assert [d.span.path for d in result] == ["empty.yaml", "plain.yaml", "templates/job.yaml"]


def test_only_a_run_with_other_processes_and_a_small_report_prepares_early(monkeypatch):
    small = engine._Loaded([], {"a.yaml": SourceText("a.yaml", "x" * 100)}, [])
    assert engine._prepares(small, jobs=2)
    assert not engine._prepares(small, jobs=1)  # nothing else checks meanwhile: preparing early only holds memory
    monkeypatch.setattr(engine, "_PREPARE_BYTES", 99)
    assert not engine._prepares(small, jobs=2)


_MANIFESTS = {
    "kept.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: kept\n  namespace: a\nspec:\n  containers:\n"
    "  - name: app\n    image: nginx:1.27\n",
    "silenced.yaml": (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: quiet\n  namespace: a\n  annotations:\n"
        "    dralint.io/ignore: SEC003\nspec:\n  containers:\n  - name: app\n    image: nginx:1.27\n"
    ),
}


def _run_with_prepared(tmp_path, color: bool):
    paths = []
    for name, manifest in _MANIFESTS.items():
        (tmp_path / name).write_text(manifest, encoding="utf-8")
        paths.append(str(tmp_path / name))
    return lint_with_config(LintOptions(paths=paths, jobs=2), prepare=text.prepare(color))


def test_the_text_report_takes_what_was_written_early_and_writes_a_changed_file_again(tmp_path):
    result = _run_with_prepared(tmp_path, color=False)
    kept, silenced = (str(tmp_path / name) for name in _MANIFESTS)
    assert set(result.prepared) == {kept, silenced}
    assert result.suppressed and all(s.diagnostic.span.path == silenced for s in result.suppressed)
    plain = text.render(dataclasses.replace(result, prepared={}))
    assert text.render(result) == plain

    # Mark what was written early: the untouched file's text is taken as it is, the file that
    # lost a finding to its suppression is written again.
    for path, early in result.prepared.items():
        early.written[Severity.WARNING] = (early.written[Severity.WARNING][0], f"EARLY {path}\n")
    marked = text.render(result)
    assert f"EARLY {kept}\n" in marked and f"EARLY {silenced}" not in marked
    assert "quiet" in plain and "quiet" in marked  # the silenced file's other findings are still reported


def test_a_hint_is_written_once_for_all_the_files_prepared_early(monkeypatch):
    written: list[str | None] = []
    monkeypatch.setattr(text, "_hint_line", lambda hint: written.append(hint) or f"hint: {hint}\n")
    prepare = text.prepare()
    sources = _sources("a.yaml", "b.yaml")
    for path in ("a.yaml", "b.yaml"):
        diag = dataclasses.replace(_diag(path, "REL001", 2, "no cpu request"), hint="set resources.requests.cpu")
        assert "hint: set resources.requests.cpu\n" in prepare([diag], sources).written[Severity.WARNING][1]
    assert written == ["set resources.requests.cpu"]


def test_what_was_written_early_in_one_color_is_not_taken_for_the_other(tmp_path):
    result = _run_with_prepared(tmp_path, color=True)
    assert result.prepared
    assert text.render(result, color=False) == text.render(dataclasses.replace(result, prepared={}), color=False)
    assert text.render(result, color=True) == text.render(dataclasses.replace(result, prepared={}), color=True)


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
