"""The progress line: only on a terminal, never in CI or with --quiet, only for long runs."""

from __future__ import annotations

import io

import pytest

from dralint.cli.progress import DELAY, ProgressLine, wanted


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    """A clock the test moves by hand, so nothing here depends on real time."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_shown_on_a_terminal_outside_ci(monkeypatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert wanted(Terminal(), quiet=False)


@pytest.mark.parametrize("ci,quiet,stream", [("true", False, Terminal()), (None, True, Terminal()), (None, False, io.StringIO())])
def test_never_in_ci_with_quiet_or_off_a_terminal(monkeypatch, ci, quiet, stream) -> None:
    monkeypatch.delenv("CI", raising=False)
    if ci:
        monkeypatch.setenv("CI", ci)
    assert not wanted(stream, quiet)


def test_quick_runs_print_nothing() -> None:
    stream, clock = Terminal(), Clock()
    line = ProgressLine(stream, clock)
    clock.now += DELAY / 2
    line(3, 30)
    line.close()
    assert stream.getvalue() == ""


def test_long_runs_show_files_documents_and_rate_then_erase_the_line() -> None:
    stream, clock = Terminal(), Clock()
    line = ProgressLine(stream, clock)
    clock.now += 4.0
    line(12, 2000)
    shown = stream.getvalue()
    assert shown == "\rdralint: 12 files, 2,000 documents, 500 documents/s"
    line.close()
    assert stream.getvalue() == shown + "\r" + " " * (len(shown) - 1) + "\r"


def test_the_line_goes_on_while_objects_are_checked() -> None:
    stream, clock = Terminal(), Clock()
    line = ProgressLine(stream, clock)
    clock.now += 3.0
    line(4, 900)
    line.checking(250, 900)  # within the update interval: not shown
    clock.now += 1.0
    line.checking(500, 900)
    shown = stream.getvalue().split("\r")
    assert shown[-1].rstrip() == "dralint: checked 500 of 900 objects"
    assert "250 of" not in stream.getvalue()


def test_a_long_run_reports_checking_progress_to_the_engine_callback(tmp_path) -> None:
    from dralint.lint.engine import run
    from dralint.lint.options import LintOptions
    from dralint.yaml.sources import SourceFile

    class Recorder:
        def __init__(self) -> None:
            self.reads: list[tuple[int, int]] = []
            self.checks: list[tuple[int, int]] = []

        def __call__(self, files: int, documents: int) -> None:
            self.reads.append((files, documents))

        def checking(self, objects: int, total: int) -> None:
            self.checks.append((objects, total))

    text = "---\n".join(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}, namespace: a}}\n" for i in range(600))
    recorder = Recorder()
    run([SourceFile("a.yaml", text), SourceFile("b.yaml", text.replace("namespace: a", "namespace: b"))], LintOptions(jobs=1), progress=recorder)
    assert recorder.reads[-1] == (2, 1200)
    assert recorder.checks == [(250, 1200), (500, 1200), (750, 1200), (1000, 1200), (1200, 1200)]


def test_cli_run_off_a_terminal_writes_no_progress(tmp_path) -> None:
    from click.testing import CliRunner

    from dralint.cli.main import main

    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n", encoding="utf-8")
    done = CliRunner().invoke(main, ["lint", "--no-config", "--format", "json", str(path)])
    assert "documents/s" not in done.output
