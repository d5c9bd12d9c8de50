"""``--format text``: findings grouped by severity then file, each with its source line.

The first line of each finding is ``path:line:col: severity: message [RULE]`` so editors and
CI problem matchers can jump to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

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
        underlined = line[start : max(start, min(end, len(line)))]
        shown = printable(line).expandtabs(1)
        shown_start = len(printable(line[:start]).expandtabs(1))
        width = max(1, len(printable(underlined).expandtabs(1)))
    marker = " " * (len(gutter) + shown_start) + "^" + "~" * (width - 1)
    return f"{paint.dim}{gutter}{paint.reset}{shown}\n{marker_color}{marker}{paint.reset}\n"


#: Where a hint's text starts on its line; a hint of several lines (a YAML snippet) keeps its
#: own indentation under that column.
_HINT_LEAD = "        hint: "


def _hint_line(hint: str | None) -> str:
    if not hint:
        return ""
    return _HINT_LEAD + ("\n" + " " * len(_HINT_LEAD)).join(printable(line) for line in hint.split("\n")) + "\n"


def _notes(diag: Diagnostic, sources: Mapping[str, SourceText], paint: _Paint) -> str:
    """The lines after the hint: where a rendered finding is in the render, related places."""
    lines = []
    if diag.rendered is not None:
        shown = (
            sources[diag.rendered.path].line_text(diag.rendered.line).strip() if diag.rendered.path in sources else ""
        )
        where = f"{diag.rendered.path}:{diag.rendered.line}:{diag.rendered.column}"
        lines.append(
            f"        {paint.dim}rendered{paint.reset}: {where}" + (f": {printable(shown)}" if shown else "") + "\n"
        )
    for related in diag.related:
        note = printable(f"{related.span.path}:{related.span.line}:{related.span.column}: {related.message}")
        lines.append(f"        {paint.dim}note{paint.reset}: {note}\n")
    return "".join(lines)


class _Writer:
    """Writes findings as the report shows them: each finding's lines and the blank line after it.

    Several findings in a row often share a span (rules on one key): its place and source
    excerpt are written once for them, and a file's name and text are looked up once for its
    run of findings. A hint is one of a few per rule (``RepeatedTexts``).
    """

    def __init__(self, paint: _Paint, sources: Mapping[str, SourceText]):
        self.paint = paint
        self.sources = sources
        self.hints = RepeatedTexts(_hint_line)

    def findings(self, severity: Severity, diagnostics: Iterable[Diagnostic]) -> Iterator[str]:
        """The texts of ``diagnostics``, all of ``severity``, one per finding."""
        paint, hints, sources = self.paint, self.hints, self.sources
        bold, reset = paint.bold, paint.reset
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
                    path, shown_path, source = span.path, printable(span.path), sources.get(span.path)
                place = f"{bold}{shown_path}:{span.line}:{span.column}{reset}: {label}: "
                excerpt = _excerpt(span, source, marker_color, paint) if source is not None else ""
            notes = _notes(diag, sources, paint) if diag.related or diag.rendered is not None else ""
            yield f"{place}{printable(diag.message)} [{diag.rule}]\n{excerpt}{hints[diag.hint]}{notes}\n"


def _by_severity(diagnostics: Iterable[Diagnostic]) -> dict[Severity, list[Diagnostic]]:
    """``diagnostics`` by severity, errors first (the report's order), each in the order given."""
    out: dict[Severity, list[Diagnostic]] = {severity: [] for severity in Severity}
    for diag in diagnostics:
        out[diag.severity].append(diag)
    return out


def _pieces(result: RunResult, color: bool) -> Iterator[str]:
    """The findings in pieces of a thousand (``joined``), errors first."""
    writer = _Writer(_Paint(color), result.sources)
    for severity, diagnostics in _by_severity(result.diagnostics).items():
        yield from joined(writer.findings(severity, diagnostics))


def summary(result: RunResult) -> str:
    """One line: counts, score, what was silenced, and which exit-code gate failed."""
    tally = result.tally()
    counts = ", ".join(f"{n} {s.value}{'s' if n != 1 else ''}" for s, n in tally.items())
    files, objects = len(result.files), result.objects
    line = f"{files} file{'s' if files != 1 else ''}, {objects} object{'s' if objects != 1 else ''}: {counts}"
    # Nothing read is no result (exit 2): a score would grade what was never seen.
    line += f"; score {result.score}/100" if result.sources else "; nothing could be read, so no score"
    if result.suppressed:
        line += f"; {len(result.suppressed)} suppressed"
    if result.known:
        line += f"; {len(result.known)} known finding{'s' if len(result.known) != 1 else ''} hidden by the baseline"
    if result.failed_gates:
        line += "; FAILED " + " and ".join(result.failed_gates)
    return line


def chunks(result: RunResult, color: bool = False) -> Iterator[str]:
    """The report in pieces (``joined``): a large run's report is several times the size of its
    input and is never joined whole."""
    yield from _pieces(result, color)
    yield summary(result) + "\n"


def render(result: RunResult, color: bool = False) -> str:
    """The report as one string (``chunks`` joined)."""
    return "".join(chunks(result, color))
