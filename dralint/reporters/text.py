"""``--format text``: findings grouped by severity then file, each with its source line.

The first line of each finding is ``path:line:col: severity: message [RULE]`` so editors and
CI problem matchers can jump to it.
"""

from __future__ import annotations

from dralint.diagnostics import Diagnostic, Severity
from dralint.lint.engine import RunResult
from dralint.reporters.terminal import printable

_COLORS = {Severity.ERROR: "\033[1;31m", Severity.WARNING: "\033[1;33m", Severity.INFO: "\033[1;36m"}
_DIM, _BOLD, _RESET = "\033[2m", "\033[1m", "\033[0m"
#: ``severity.value`` without the enum's descriptor call, once per finding.
_NAMES = {s: s.value for s in Severity}


class _Paint:
    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.enabled else text


def _snippet(diag: Diagnostic, result: RunResult, paint: _Paint) -> list[str]:
    source = result.sources.get(diag.span.path)
    if source is None:
        return []
    line = source.line_text(diag.span.line)
    if not line:
        return []
    gutter = f"{diag.span.line:>5} | "
    start = diag.span.column - 1
    end = diag.span.end_column - 1 if diag.span.end_line == diag.span.line else len(line)
    underlined = line[start:max(start, min(end, len(line)))]
    if line.isprintable():  # no tab, no control character: one column per character
        shown, shown_start, width = line, start, max(1, len(underlined))
    else:  # escaped control characters take several columns; the marker moves with them
        shown = printable(line).expandtabs(1)
        shown_start = len(printable(line[:start]).expandtabs(1))
        width = max(1, len(printable(underlined).expandtabs(1)))
    marker = " " * (len(gutter) + shown_start) + "^" + "~" * (width - 1)
    return [paint(gutter, _DIM) + shown, paint(marker, _COLORS[diag.severity])]


def _finding(diag: Diagnostic, result: RunResult, paint: _Paint, snippet: list[str]) -> list[str]:
    where = printable(f"{diag.span.path}:{diag.span.line}:{diag.span.column}")
    head = f"{paint(where, _BOLD)}: {paint(_NAMES[diag.severity], _COLORS[diag.severity])}: {printable(diag.message)} [{diag.rule}]"
    lines = [head, *snippet]
    if diag.hint:
        lines.append(f"        hint: {printable(diag.hint)}")
    if diag.rendered is not None:
        shown = result.sources[diag.rendered.path].line_text(diag.rendered.line).strip() if diag.rendered.path in result.sources else ""
        where = f"{diag.rendered.path}:{diag.rendered.line}:{diag.rendered.column}"
        lines.append(f"        {paint('rendered', _DIM)}: {where}" + (f": {printable(shown)}" if shown else ""))
    for related in diag.related:
        note = printable(f"{related.span.path}:{related.span.line}:{related.span.column}: {related.message}")
        lines.append(f"        {paint('note', _DIM)}: {note}")
    return lines


def summary(result: RunResult) -> str:
    """One line: counts, score, what was silenced, and which exit-code gate failed."""
    counts = ", ".join(f"{result.count(s)} {s.value}{'s' if result.count(s) != 1 else ''}" for s in Severity)
    line = f"{len(result.files)} files, {result.objects} objects: {counts}; score {result.score}/100"
    if result.suppressed:
        line += f"; {len(result.suppressed)} suppressed"
    if result.known:
        line += f"; {len(result.known)} known finding{'s' if len(result.known) != 1 else ''} hidden by the baseline"
    if result.failed_gates:
        line += "; FAILED " + " and ".join(result.failed_gates)
    return line


def render(result: RunResult, color: bool = False) -> str:
    paint = _Paint(color)
    out: list[str] = []
    # Several findings often share one span (rules on one key) and so one source excerpt;
    # spans shared that way are one object, and every diagnostic keeps its span alive here.
    snippets: dict[tuple[int, Severity], list[str]] = {}
    for severity in Severity:
        for diag in (d for d in result.diagnostics if d.severity is severity):
            key = (id(diag.span), severity)
            snippet = snippets.get(key)
            if snippet is None:
                snippet = snippets[key] = _snippet(diag, result, paint)
            out.extend(_finding(diag, result, paint, snippet))
            out.append("")
    out.append(summary(result))
    return "\n".join(out) + "\n"
