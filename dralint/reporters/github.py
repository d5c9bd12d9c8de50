"""``--format github``: GitHub Actions workflow commands, one annotation per finding.

Each line is ``::error file=...,line=...,col=...,endLine=...,endColumn=...,title=...::message``,
which the Actions runner turns into an annotation on the pull request's diff without any SARIF
upload. GitHub's ``endColumn`` is the last column of the range (inclusive), one less than
dralint's exclusive end.
"""

from __future__ import annotations

from collections.abc import Mapping

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


def annotation(
    diag: Diagnostic, files: Mapping[str, str], titles: Mapping[tuple[str, str], str], hints: Mapping[str | None, str]
) -> str:
    """The workflow command for one finding.

    The texts a report repeats are escaped once each (``RepeatedTexts``): ``files`` maps a path
    to its ``file`` property (``_file``), ``titles`` a rule's id and name to its ``title``, and
    ``hints`` a hint to its escaped line after the message (escaping works character by
    character, so the message and its hint are escaped apart). Line and column numbers need
    no escaping.
    """
    span = diag.span
    end_column = max(span.column, span.end_column - 1) if span.end_line == span.line else span.end_column
    return (
        f"::{_COMMAND[diag.severity]} "
        f"file={files[span.path]},line={span.line},col={span.column},endLine={span.end_line},"
        f"endColumn={end_column},title={titles[diag.rule, diag.name]}::{_data(diag.message)}{hints[diag.hint]}"
    )


def render(result: RunResult, color: bool = False) -> str:
    files = RepeatedTexts(_file)
    titles = RepeatedTexts(lambda rule: _property(f"{rule[0]} {rule[1]}"))
    hints = RepeatedTexts(lambda hint: _data(f"\nhint: {hint}") if hint else "")
    return "".join(annotation(d, files, titles, hints) + "\n" for d in result.diagnostics) + summary(result) + "\n"
