"""``--format text``: findings grouped by severity then file, each with its source line.

The first line of each finding is ``path:line:col: severity: message [RULE]`` so editors and
CI problem matchers can jump to it.
"""

from __future__ import annotations

from typing import Iterator

from dralint.diagnostics import Diagnostic, Severity, Span
from dralint.lint.engine import RunResult
from dralint.reporters import RepeatedTexts, joined
from dralint.reporters.terminal import printable
from dralint.yaml.loader import SourceText

_COLORS = {Severity.ERROR: "\033[1;31m", Severity.WARNING: "\033[1;33m", Severity.INFO: "\033[1;36m"}
_DIM, _BOLD, _RESET = "\033[2m", "\033[1m", "\033[0m"
#: ``severity.value`` without the enum's descriptor call, once per finding.
_NAMES = {s: s.value for s in Severity}


class _Paint:
    """The escape codes a report is painted with, all empty without color, so the finding
    loop writes them unconditionally (a call per painted piece cost a tenth of the report's
    time)."""

    def __init__(self, enabled: bool):
        self.dim, self.bold, self.reset = (_DIM, _BOLD, _RESET) if enabled else ("", "", "")
        self.severity = {s: code if enabled else "" for s, code in _COLORS.items()}


def _excerpt(span: Span, source: SourceText, marker_color: str, paint: _Paint) -> str:
    """The source line of ``span`` and a marker under the span, each line ended; empty when the
    line is blank."""
    line = source.line_text(span.line)
    if not line:
        return ""
    gutter = f"{span.line:>5} | "
    start = span.column - 1
    end = span.end_column - 1 if span.end_line == span.line else len(line)
    if line.isprintable():  # no tab, no control character: one column per character
        shown, shown_start, width = line, start, max(1, min(end, len(line)) - start)
    else:  # escaped control characters take several columns; the marker moves with them
        underlined = line[start:max(start, min(end, len(line)))]
        shown = printable(line).expandtabs(1)
        shown_start = len(printable(line[:start]).expandtabs(1))
        width = max(1, len(printable(underlined).expandtabs(1)))
    marker = " " * (len(gutter) + shown_start) + "^" + "~" * (width - 1)
    return f"{paint.dim}{gutter}{paint.reset}{shown}\n{marker_color}{marker}{paint.reset}\n"


def _hint_line(hint: str | None) -> str:
    return f"        hint: {printable(hint)}\n" if hint else ""


def _notes(diag: Diagnostic, result: RunResult, paint: _Paint) -> str:
    """The lines after the hint: where a rendered finding is in the render, related places."""
    lines = []
    if diag.rendered is not None:
        shown = result.sources[diag.rendered.path].line_text(diag.rendered.line).strip() if diag.rendered.path in result.sources else ""
        where = f"{diag.rendered.path}:{diag.rendered.line}:{diag.rendered.column}"
        lines.append(f"        {paint.dim}rendered{paint.reset}: {where}" + (f": {printable(shown)}" if shown else "") + "\n")
    for related in diag.related:
        note = printable(f"{related.span.path}:{related.span.line}:{related.span.column}: {related.message}")
        lines.append(f"        {paint.dim}note{paint.reset}: {note}\n")
    return "".join(lines)


def _findings(result: RunResult, paint: _Paint) -> Iterator[str]:
    """Each finding's lines and the blank line after it, errors first.

    Several findings in a row often share a span (rules on one key): its place and source
    excerpt are written once for them, and a file's name and text are looked up once for its
    run of findings. A hint is one of a few per rule (``RepeatedTexts``).
    """
    hints = RepeatedTexts(_hint_line)
    by_severity: dict[Severity, list[Diagnostic]] = {severity: [] for severity in Severity}
    for diag in result.diagnostics:
        by_severity[diag.severity].append(diag)
    bold, reset = paint.bold, paint.reset
    for severity, diagnostics in by_severity.items():
        marker_color = paint.severity[severity]
        label = f"{marker_color}{_NAMES[severity]}{reset}"
        span: Span | None = None
        path: str | None = None
        place = excerpt = shown_path = ""
        source: SourceText | None = None
        for diag in diagnostics:
            if diag.span is not span:
                span = diag.span
                if span.path != path:
                    path, shown_path, source = span.path, printable(span.path), result.sources.get(span.path)
                place = f"{bold}{shown_path}:{span.line}:{span.column}{reset}: {label}: "
                excerpt = _excerpt(span, source, marker_color, paint) if source is not None else ""
            notes = _notes(diag, result, paint) if diag.related or diag.rendered is not None else ""
            yield f"{place}{printable(diag.message)} [{diag.rule}]\n{excerpt}{hints[diag.hint]}{notes}\n"


def summary(result: RunResult) -> str:
    """One line: counts, score, what was silenced, and which exit-code gate failed."""
    tally = result.tally()
    counts = ", ".join(f"{n} {s.value}{'s' if n != 1 else ''}" for s, n in tally.items())
    line = f"{len(result.files)} files, {result.objects} objects: {counts}; score {result.score}/100"
    if result.suppressed:
        line += f"; {len(result.suppressed)} suppressed"
    if result.known:
        line += f"; {len(result.known)} known finding{'s' if len(result.known) != 1 else ''} hidden by the baseline"
    if result.failed_gates:
        line += "; FAILED " + " and ".join(result.failed_gates)
    return line


def chunks(result: RunResult, color: bool = False) -> Iterator[str]:
    """The report in pieces of findings (``joined``): a large run's report is several times the
    size of its input, and is never whole in memory."""
    yield from joined(_findings(result, _Paint(color)))
    yield summary(result) + "\n"


def render(result: RunResult, color: bool = False) -> str:
    """The report as one string (``chunks`` joined)."""
    return "".join(chunks(result, color))
