"""dralint's records as the protocol's: spans as ranges, diagnostics, replacements as edits.

A ``Span`` is 1-based with an exclusive end column, in characters; a protocol ``Range`` is
0-based, in the code units the client and server agreed on (UTF-16 unless told otherwise),
which ``Units`` converts with the document's lines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from dralint.diagnostics import Diagnostic, Replacement, Severity, Span

_SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}

#: Counts the client's code units in a piece of a line (pygls's codec for the agreed encoding).
Units = Callable[[str], int]


def uri_of(path: str) -> str:
    return from_fs_path(str(Path(path).resolve())) or path


class Lines:
    """A document's lines, to turn character columns into the client's units."""

    def __init__(self, text: str, units: Units) -> None:
        self._lines: Sequence[str] = text.split("\n")
        self._units = units

    def position(self, line: int, column: int) -> types.Position:
        """A 0-based line and character column as the client counts."""
        text = self._lines[line] if 0 <= line < len(self._lines) else ""
        if text.isascii():
            return types.Position(line, column)
        return types.Position(line, self._units(text[:column]))

    def range(self, span: Span) -> types.Range:
        return types.Range(
            self.position(span.line - 1, span.column - 1), self.position(span.end_line - 1, span.end_column - 1)
        )


def rule_anchor(diag: Diagnostic) -> str:
    """The heading of the rule in docs/rules.md, as the generated table links it."""
    return f"{diag.rule.lower()}-{diag.name}"


def diagnostic(
    diag: Diagnostic, lines: Lines, docs: str | None, other: Callable[[Span], types.Range]
) -> types.Diagnostic:
    """``diag`` for the editor: the message with its hint, the rule as code and a link to its
    docs when there is a page to link to (``docs``), notes as related information (``other``
    makes the range of a span in another file)."""
    message = diag.message + (f"\nhint: {diag.hint}" if diag.hint else "")
    related = [
        types.DiagnosticRelatedInformation(
            types.Location(
                uri_of(note.span.path), lines.range(note.span) if note.span.path == diag.span.path else other(note.span)
            ),
            note.message,
        )
        for note in diag.related
    ]
    return types.Diagnostic(
        range=lines.range(diag.span),
        message=message,
        severity=_SEVERITIES[diag.severity],
        code=diag.rule,
        code_description=types.CodeDescription(href=f"{docs}#{rule_anchor(diag)}") if docs else None,
        source="dralint",
        related_information=related or None,
    )


def plain_range(span: Span) -> types.Range:
    """A span in a file the server holds no lines of: columns as characters."""
    return types.Range(
        types.Position(span.line - 1, span.column - 1), types.Position(span.end_line - 1, span.end_column - 1)
    )


def edits(replacements: Sequence[Replacement], lines: Lines) -> list[types.TextEdit]:
    return [types.TextEdit(lines.range(r.region), r.text) for r in replacements]
