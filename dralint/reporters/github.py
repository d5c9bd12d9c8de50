"""``--format github``: GitHub Actions workflow commands, one annotation per finding.

Each line is ``::error file=...,line=...,col=...,endLine=...,endColumn=...,title=...::message``,
which the Actions runner turns into an annotation on the pull request's diff without any SARIF
upload. GitHub's ``endColumn`` is the last column of the range (inclusive), one less than
dralint's exclusive end.
"""

from __future__ import annotations

from typing import Mapping

from dralint.diagnostics import Diagnostic, Severity
from dralint.lint.engine import RunResult
from dralint.lint.fingerprint import normal_path
from dralint.reporters import RepeatedTexts
from dralint.reporters.terminal import printable
from dralint.reporters.text import summary

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _data(text: str) -> str:
    """Escape a command's message as the runner expects (other control characters as ``\\xNN``)."""
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _property(text: str) -> str:
    """Escape a command property value (also ``:`` and ``,``, which separate properties)."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _file(path: str) -> str:
    """The ``file`` property of the findings in ``path``."""
    return _property(normal_path(path))


def annotation(diag: Diagnostic, files: Mapping[str, str]) -> str:
    """The workflow command for one finding.

    ``files`` maps a path to its ``file`` property (``_file``): a report names each file for
    many findings, and normalising the path took half the time of writing a command.
    """
    span = diag.span
    props = {
        "line": span.line,
        "col": span.column,
        "endLine": span.end_line,
        "endColumn": max(span.column, span.end_column - 1) if span.end_line == span.line else span.end_column,
        "title": f"{diag.rule} {diag.name}",
    }
    message = diag.message + (f"\nhint: {diag.hint}" if diag.hint else "")
    joined = ",".join(f"{key}={_property(str(value))}" for key, value in props.items())
    return f"::{_COMMAND[diag.severity]} file={files[span.path]},{joined}::{_data(message)}"


def render(result: RunResult, color: bool = False) -> str:
    files = RepeatedTexts(_file)
    return "".join(annotation(d, files) + "\n" for d in result.diagnostics) + summary(result) + "\n"
