"""The command line as users and CI scripts call it: exit codes, formats, stdin, colour."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from dralint.cli.main import _exit_status, main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GOOD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: team-a\n"
DUPLICATE = GOOD + "  name: again\n"


def invoke(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


def test_clean_file_exits_zero(tmp_path):
    (tmp_path / "ok.yaml").write_text(GOOD)
    result = invoke("lint", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "score 100/100" in result.output


def test_error_exits_one_and_is_located(tmp_path):
    (tmp_path / "bad.yaml").write_text(DUPLICATE)
    result = invoke("lint", str(tmp_path / "bad.yaml"))
    assert result.exit_code == 1
    assert f"{tmp_path / 'bad.yaml'}:6:3: error: duplicate key 'name'" in result.output
    assert "[YAML002]" in result.output


def test_fail_on_never_and_warning(tmp_path):
    (tmp_path / "bad.yaml").write_text(DUPLICATE)
    assert invoke("lint", "--fail-on", "never", str(tmp_path)).exit_code == 0
    (tmp_path / "bad.yaml").unlink()
    (tmp_path / "values.yaml").write_text("replicas: 1\n")  # a Helm values file: one info finding
    assert invoke("lint", "--fail-on", "warning", str(tmp_path)).exit_code == 0
    assert invoke("lint", "--fail-on", "info", str(tmp_path)).exit_code == 1


def test_nothing_readable_exits_two(tmp_path):
    result = invoke("lint", str(tmp_path / "missing.yaml"))
    assert result.exit_code == 2
    assert "no such file" in result.output


def test_usage_error_exits_two():
    assert invoke("lint", "--format", "nope").exit_code == 2
    assert invoke("lint", "--feature-gates", "Broken").exit_code == 2


def test_stdin_uses_the_given_name():
    result = invoke("lint", "--stdin-filename", "deploy/gpu.yaml", "-", stdin=DUPLICATE)
    assert result.exit_code == 1
    assert "deploy/gpu.yaml:6:3:" in result.output


def test_json_contract(tmp_path):
    (tmp_path / "bad.yaml").write_text(DUPLICATE)
    (tmp_path / "ok.yaml").write_text(GOOD)
    result = invoke("lint", "--format", "json", str(tmp_path))
    report = json.loads(result.stdout)
    assert set(report) == {"version", "tool", "score", "summary", "files", "diagnostics"}
    assert report["version"] == 1 and report["tool"]["name"] == "dralint"
    assert report["summary"] == {"files": 2, "objects": 2, "error": 1, "warning": 0, "info": 0}
    (diag,) = report["diagnostics"]
    assert set(diag) == {
        "rule",
        "name",
        "severity",
        "message",
        "hint",
        "path",
        "line",
        "column",
        "endLine",
        "endColumn",
        "object",
        "field",
        "related",
    }
    assert (diag["rule"], diag["name"], diag["severity"]) == ("YAML002", "duplicate-key", "error")
    assert (diag["line"], diag["column"], diag["endLine"], diag["endColumn"]) == (6, 3, 6, 7)
    assert diag["related"] == [{"path": diag["path"], "line": 4, "column": 3, "message": "first defined here"}]
    scores = {Path(f["path"]).name: f["score"] for f in report["files"]}
    assert scores["ok.yaml"] == 100 and scores["bad.yaml"] < 100


def test_output_file_and_color(tmp_path):
    (tmp_path / "bad.yaml").write_text(DUPLICATE)
    out = tmp_path / "report.txt"
    invoke("lint", "--output", str(out), "--color", "always", str(tmp_path / "bad.yaml"))
    assert "\033[1;31merror" in out.read_text()
    plain = invoke("lint", "--color", "never", str(tmp_path / "bad.yaml")).output
    assert "\033[" not in plain


def test_examples_lint_without_crashing():
    result = invoke("lint", "--format", "json", str(EXAMPLES))
    report = json.loads(result.stdout)
    assert report["summary"]["objects"] >= 7
    assert all(d["rule"] != "INT001" for d in report["diagnostics"])


def test_rules_and_explain():
    listing = invoke("rules")
    assert listing.exit_code == 0 and "YAML002" in listing.output
    text = invoke("explain", "duplicate-key")
    assert text.exit_code == 0 and "## Why it matters" in text.output
    assert invoke("explain", "NOPE999").exit_code == 2


def _program(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``dralint`` as installed (``python -m dralint`` runs the console script's function)."""
    return subprocess.run(
        [sys.executable, "-m", "dralint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_the_program_ends_with_every_report_written_in_full(tmp_path):
    # The process ends without Python's shutdown (command_line): a report larger than a pipe
    # holds must still arrive whole, on stdout and in a file, with the gate's exit code.
    (tmp_path / "many.yaml").write_text(
        "---\n".join(DUPLICATE.replace("settings", f"settings-{n}") for n in range(300))
    )
    done = _program("lint", "--no-config", "--format", "json", "many.yaml", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert len(done.stdout) > 1 << 16
    assert sum(d["rule"] == "YAML002" for d in json.loads(done.stdout)["diagnostics"]) == 300
    done = _program("lint", "--no-config", "--format", "sarif", "-o", "report.sarif", "many.yaml", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert len(json.loads((tmp_path / "report.sarif").read_text())["runs"][0]["results"]) == 300
    assert "300 errors" in done.stdout


def test_the_program_exits_two_on_a_usage_error(tmp_path):
    done = _program("lint", "--select", "NOPE999", cwd=tmp_path)
    assert done.returncode == 2
    assert "'NOPE999' matches no dralint rule" in done.stderr


def test_exit_statuses_are_pythons():
    assert [_exit_status(code) for code in (None, 0, 1, 2, 256 + 3)] == [0, 0, 1, 2, 3]


def test_a_text_exit_is_printed_and_exits_one(capsys):
    assert _exit_status("dralint: cannot go on") == 1
    assert capsys.readouterr().err == "dralint: cannot go on\n"
