"""The progress line: only on a terminal, never in CI or with --quiet, only for long runs."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from dralint.checks.scheduling.simulation import simulation
from dralint.cli.progress import DELAY, ProgressLine, wanted
from dralint.cli.simulate import placements
from dralint.lint import engine
from dralint.lint.engine import lint, run
from dralint.lint.options import LintOptions
from dralint.yaml.sources import SourceFile

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


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


@pytest.mark.parametrize(
    "ci,quiet,stream", [("true", False, Terminal()), (None, True, Terminal()), (None, False, io.StringIO())]
)
def test_never_in_ci_with_quiet_or_off_a_terminal(monkeypatch, ci, quiet, stream) -> None:
    monkeypatch.delenv("CI", raising=False)
    if ci:
        monkeypatch.setenv("CI", ci)
    assert not wanted(stream, quiet)


def test_quick_runs_print_nothing() -> None:
    stream, clock = Terminal(), Clock()
    line = ProgressLine(stream, clock)
    clock.now += DELAY / 2
    line.read(3, 30)
    line.close()
    assert stream.getvalue() == ""


def test_long_runs_show_files_documents_and_rate_then_erase_the_line() -> None:
    stream, clock = Terminal(), Clock()
    line = ProgressLine(stream, clock)
    clock.now += 1.0
    line.read(11, 1500)  # too early to show, but counted
    clock.now += 3.0
    line.read(1, 500)
    shown = stream.getvalue()
    assert shown == "\rdralint: 12 files, 2,000 documents, 500 documents/s"
    line.close()
    assert stream.getvalue() == shown + "\r" + " " * (len(shown) - 1) + "\r"


def test_the_line_goes_on_while_objects_are_checked() -> None:
    stream, clock = Terminal(), Clock()
    line = ProgressLine(stream, clock)
    clock.now += 3.0
    line.read(4, 900)
    line.checking(250, 900)  # within the update interval: not shown
    clock.now += 1.0
    line.checking(500, 900)
    shown = stream.getvalue().split("\r")
    assert shown[-1].rstrip() == "dralint: checked 500 of 900 objects"
    assert "250 of" not in stream.getvalue()


class Recorder:
    """What the engine tells a progress line."""

    def __init__(self) -> None:
        self.reads: list[tuple[int, int]] = []
        self.checks: list[tuple[int, int]] = []
        self.simulated: list[tuple[int, int]] = []

    def read(self, files: int, documents: int) -> None:
        self.reads.append((files, documents))

    def checking(self, objects: int, total: int) -> None:
        self.checks.append((objects, total))

    def simulating(self, templates: int, total: int) -> None:
        self.simulated.append((templates, total))


def config_maps(count: int, namespace: str) -> str:
    return "---\n".join(
        f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}, namespace: {namespace}}}\n" for i in range(count)
    )


def test_simulate_goes_on_with_the_templates_simulated() -> None:
    stream, clock = Terminal(), Clock()
    line = ProgressLine(stream, clock)
    clock.now += 3.0
    line.read(1, 80_000)
    clock.now += 1.0
    line.simulating(20, 200)
    assert stream.getvalue().split("\r")[-1].rstrip() == "dralint: simulated 20 of 200 pod templates"


def test_a_long_run_reports_checking_progress_to_the_engine_callback() -> None:
    recorder = Recorder()
    run(
        [SourceFile("a.yaml", config_maps(600, "a")), SourceFile("b.yaml", config_maps(600, "b"))],
        LintOptions(jobs=1),
        progress=recorder,
    )
    assert recorder.reads == [(1, 600), (1, 600)]
    assert recorder.checks == [(250, 1200), (500, 1200), (750, 1200), (1000, 1200), (1200, 1200)]


def test_context_and_snapshot_files_count_as_read() -> None:
    recorder = Recorder()
    run(
        [SourceFile("a.yaml", config_maps(3, "a"))],
        LintOptions(jobs=1),
        context=[SourceFile("c.yaml", config_maps(4, "c"))],
        cluster=[SourceFile("s.yaml", config_maps(5, "s")), SourceFile("t.yaml", config_maps(6, "t"))],
        progress=recorder,
    )
    assert recorder.reads == [(1, 3), (1, 4), (1, 5), (1, 6)]


def test_a_file_read_in_pieces_moves_the_line_piece_by_piece(monkeypatch) -> None:
    """One large file (a cluster dump for ``simulate``) is most of such a run: its documents
    count as each piece arrives, and the file once all have."""
    monkeypatch.setattr(engine, "_PARALLEL_BYTES", 500)
    monkeypatch.setattr(engine, "_PIECE_LINES", 100)
    recorder = Recorder()
    run([SourceFile("dump.yaml", config_maps(300, "a"))], LintOptions(jobs=2), progress=recorder)
    pieces, last = recorder.reads[:-1], recorder.reads[-1]
    assert len(pieces) > 2 and all(files == 0 and documents > 0 for files, documents in pieces)
    assert last[0] == 1 and sum(documents for _, documents in recorder.reads) == 300


def test_simulate_tells_the_line_each_pod_template_simulated() -> None:
    options = LintOptions(
        paths=[str(EXAMPLES / "scheduling")], slices=["example:h100-mig"], profile="strict", select=["SCH005"]
    )
    sim = simulation(lint(options).context)
    recorder = Recorder()
    rows = list(placements(sim, recorder))
    total = recorder.simulated[-1][1]
    assert rows and recorder.simulated == [(done, total) for done in range(1, total + 1)]


def test_cli_run_off_a_terminal_writes_no_progress(tmp_path) -> None:
    from click.testing import CliRunner

    from dralint.cli.main import main

    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n", encoding="utf-8")
    done = CliRunner().invoke(main, ["lint", "--no-config", "--format", "json", str(path)])
    assert "documents/s" not in done.output
