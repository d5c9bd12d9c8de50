"""``--format text``: findings grouped by severity then file, each with its source line.

The first line of each finding is ``path:line:col: severity: message [RULE]`` so editors and
CI problem matchers can jump to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from itertools import groupby
from operator import attrgetter, is_
from typing import NamedTuple

from dralint.diagnostics import Diagnostic, Severity, Span
from dralint.lint.assembly import Prepare
from dralint.lint.engine import RunResult
from dralint.reporters import RepeatedTexts, joined
from dralint.reporters.terminal import printable
from dralint.yaml.loader import SourceText

_COLORS = {Severity.ERROR: "\033[1;31m", Severity.WARNING: "\033[1;33m", Severity.INFO: "\033[1;36m"}
_DIM, _BOLD, _RESET = "\033[2m", "\033[1m", "\033[0m"
#: ``severity.value`` without the enum's descriptor call, once per finding.
_NAMES = {s: s.value for s in Severity}
_PATH = attrgetter("span.path")


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

    def __init__(self, paint: _Paint, sources: Mapping[str, SourceText], hints: RepeatedTexts | None = None):
        self.paint = paint
        self.sources = sources
        self.hints = RepeatedTexts(_hint_line) if hints is None else hints

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


class _Prepared(NamedTuple):
    """One file's findings written while the run's checks still ran (see ``prepare``)."""

    color: bool
    #: Per severity: the diagnostics written, and their text.
    written: dict[Severity, tuple[tuple[Diagnostic, ...], str]]


def prepare(color: bool = False) -> Prepare:
    """What the engine may call for each file it finishes while checks still run: the file's
    findings written now, per severity, for ``chunks`` to take as they are.

    A run with ``--jobs`` finishes most files while other processes check later objects; the
    report's writing of those files then overlaps the checks instead of following them, in
    one process alone. ``chunks`` writes a file again when the findings it reports for the
    file are not exactly those written here (suppressed, hidden by a baseline, or joined by
    findings of the stages after the run).
    """

    paint = _Paint(color)
    hints = RepeatedTexts(_hint_line)  # the run's, not each file's: a rule's hint recurs across files

    def written(diagnostics: list[Diagnostic], sources: Mapping[str, SourceText]) -> _Prepared:
        writer = _Writer(paint, sources, hints)
        return _Prepared(
            color,
            {
                severity: (tuple(run), "".join(writer.findings(severity, run)))
                for severity, run in _by_severity(diagnostics).items()
                if run
            },
        )

    return written


def _pieces(result: RunResult, color: bool) -> Iterator[str]:
    """The findings in pieces (``joined``), errors first; a file written while the run went on
    (``prepare``) is a piece of its own per severity, as it was written."""
    writer = _Writer(_Paint(color), result.sources)
    prepared = result.prepared
    for severity, diagnostics in _by_severity(result.diagnostics).items():
        if not prepared:  # nothing written early: pieces of a thousand findings, across files
            yield from joined(writer.findings(severity, diagnostics))
            continue
        for path, same_file in groupby(diagnostics, _PATH):
            run = list(same_file)
            early = prepared.get(path)
            made = early.written.get(severity) if isinstance(early, _Prepared) and early.color == color else None
            if made is not None and len(made[0]) == len(run) and all(map(is_, made[0], run)):
                yield made[1]
            else:
                yield from joined(writer.findings(severity, run))


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
    """The report in pieces (``joined``, and the texts ``prepare`` wrote): a large run's report
    is several times the size of its input and is never joined whole (a run prepares early only
    while its report is small, see ``engine._prepares``)."""
    yield from _pieces(result, color)
    yield summary(result) + "\n"


def render(result: RunResult, color: bool = False) -> str:
    """The report as one string (``chunks`` joined)."""
    return "".join(chunks(result, color))
