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


def test_cli_run_off_a_terminal_writes_no_progress(tmp_path) -> None:
    from click.testing import CliRunner

    from dralint.cli.main import main

    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n", encoding="utf-8")
    done = CliRunner().invoke(main, ["lint", "--no-config", "--format", "json", str(path)])
    assert "documents/s" not in done.output
