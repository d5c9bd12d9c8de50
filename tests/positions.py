"""Whether a report's positions lie inside the files they name (docs/robustness.md).

A position is a 1-based line of the file and a 1-based column of that line counted in
characters; an end column is exclusive, so it may be one past the line's last character, and an
error at the end of the stream points at the last line, after its last character. The end never
comes before the start. Lines are split at LF, as editors and the reporters split them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path


def line_lengths(text: str) -> list[int]:
    """The length of each line of ``text``; a final line break ends the last line, it starts none."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return [len(line.removesuffix("\r")) + (1 if line.endswith("\r") else 0) for line in lines]


def outside(lengths: list[int], line: int, column: int, end_line: int, end_column: int) -> str | None:
    """Why a span is not inside a file of lines of ``lengths``, or None when it is."""
    for name, (at_line, at_column) in (("start", (line, column)), ("end", (end_line, end_column))):
        if not 1 <= at_line <= len(lengths):
            return f"{name} line {at_line} of {len(lengths)}"
        if not 1 <= at_column <= lengths[at_line - 1] + 1:
            return f"{name} column {at_column} of a line of {lengths[at_line - 1]} characters"
    if (end_line, end_column) < (line, column):
        return f"end {end_line}:{end_column} before start {line}:{column}"
    return None


def json_violations(report: Mapping, texts: Mapping[str, str]) -> Iterator[str]:
    """Every diagnostic (and related place) of a JSON report outside its file."""
    cache: dict[str, list[int]] = {}
    for diag in report["diagnostics"]:
        places = [(diag["path"], diag["line"], diag["column"], diag["endLine"], diag["endColumn"])]
        places += [(r["path"], r["line"], r["column"], r["line"], r["column"]) for r in diag.get("related", [])]
        for path, *span in places:
            text = texts.get(path)
            if text is None:
                text = texts[path] = Path(path).read_text(encoding="utf-8", errors="replace") if Path(path).is_file() else ""
            if not text:
                continue  # stdin, a render, a file gone: nothing to measure against
            lengths = cache.setdefault(path, line_lengths(text))
            why = outside(lengths, *span)
            if why:
                yield f"{diag['rule']} {path}:{span[0]}:{span[1]}-{span[2]}:{span[3]}: {why}"
