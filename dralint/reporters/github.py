"""``--format github``: GitHub Actions workflow commands, one annotation per finding.

Each line is ``::error file=...,line=...,col=...,endLine=...,endColumn=...,title=...::message``,
which the Actions runner turns into an annotation on the pull request's diff without any SARIF
upload. GitHub's ``endColumn`` is the last column of the range (inclusive), one less than
dralint's exclusive end.
"""

from __future__ import annotations

from dralint.diagnostics import Diagnostic, Severity
from dralint.lint.engine import RunResult
from dralint.lint.fingerprint import normal_path
from dralint.reporters.terminal import printable
from dralint.reporters.text import summary

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _data(text: str) -> str:
    """Escape a command's message as the runner expects (other control characters as ``\\xNN``)."""
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _property(text: str) -> str:
    """Escape a command property value (also ``:`` and ``,``, which separate properties)."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(diag: Diagnostic) -> str:
    """The workflow command for one finding."""
    span = diag.span
    props = {
        "file": normal_path(span.path),
        "line": span.line,
        "col": span.column,
        "endLine": span.end_line,
        "endColumn": max(span.column, span.end_column - 1) if span.end_line == span.line else span.end_column,
        "title": f"{diag.rule} {diag.name}",
    }
    message = diag.message + (f"\nhint: {diag.hint}" if diag.hint else "")
    joined = ",".join(f"{key}={_property(str(value))}" for key, value in props.items())
    return f"::{_COMMAND[diag.severity]} {joined}::{_data(message)}"


def render(result: RunResult, color: bool = False) -> str:
    return "".join(annotation(d) + "\n" for d in result.diagnostics) + summary(result) + "\n"
