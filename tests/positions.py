"""Whether a report's positions lie inside the files they name (docs/robustness.md).

A position is a 1-based line of the file and a 1-based column of that line counted in
characters; an end column is exclusive, so it may be one past the line's last character, and an
error at the end of the stream points at the last line, after its last character. The end never
comes before the start. Lines are split at LF, as editors and the reporters split them.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from urllib.parse import unquote

from dralint.yaml.sources import SourceFile, decode


def as_read(path: Path) -> str:
    """The text dralint reads from ``path`` (BOM dropped, CRLF as LF), which positions count in."""
    raw = path.read_bytes()
    read = decode(str(path), raw)
    return read.text if isinstance(read, SourceFile) else raw.decode("utf-8", "replace")


def line_lengths(text: str) -> list[int]:
    """The length of each line of ``text``; a final line break ends the last line, it starts none."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return [len(line.removesuffix("\r")) for line in lines]


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


def _places_json(output: str) -> Iterator[tuple[str, str, int, int, int, int]]:
    for diag in json.loads(output)["diagnostics"]:
        yield diag["rule"], diag["path"], diag["line"], diag["column"], diag["endLine"], diag["endColumn"]
        for related in diag.get("related", []):
            yield diag["rule"], related["path"], related["line"], related["column"], related["line"], related["column"]


def _sarif_region(uri: str, region: dict) -> tuple[str, int, int, int, int]:
    start = (region["startLine"], region.get("startColumn", 1))
    end = (region.get("endLine", start[0]), region.get("endColumn", start[1]))
    return unquote(uri.removeprefix("file://")), *start, *end


def _places_sarif(output: str) -> Iterator[tuple[str, str, int, int, int, int]]:
    """Where each result is, its related places, and the regions its fixes replace."""
    for run in json.loads(output)["runs"]:
        for result in run["results"]:
            for location in [*result["locations"], *result.get("relatedLocations", [])]:
                physical = location["physicalLocation"]
                yield result["ruleId"], *_sarif_region(physical["artifactLocation"]["uri"], physical["region"])
            for change in (change for fix in result.get("fixes", []) for change in fix["artifactChanges"]):
                for replacement in change["replacements"]:
                    uri = change["artifactLocation"]["uri"]
                    yield f"{result['ruleId']} fix", *_sarif_region(uri, replacement["deletedRegion"])


_GITHUB = re.compile(r"^::\w+ file=(.*?),line=(\d+),col=(\d+),endLine=(\d+),endColumn=(\d+),title=(\S+)", re.M)
#: ``path:line:column: severity: ...`` as the text report and JUnit's failure bodies start a finding.
_LOCATED = re.compile(r"^(?:\s*<failure [^>]*>)?(\S[^\n]*?):(\d+):(\d+): (?:error|warning|info):", re.M)


def _places_github(output: str) -> Iterator[tuple[str, str, int, int, int, int]]:
    for path, line, column, end_line, end_column, title in _GITHUB.findall(output):
        # GitHub's endColumn is inclusive: the last character, or the start for a point.
        yield title, path, int(line), int(column), int(end_line), int(end_column)


def _places_located(output: str) -> Iterator[tuple[str, str, int, int, int, int]]:
    for path, line, column in _LOCATED.findall(output):
        yield "", html.unescape(path), int(line), int(column), int(line), int(column)


PLACES = {
    "json": _places_json,
    "sarif": _places_sarif,
    "github": _places_github,
    "text": _places_located,
    "junit": _places_located,
}


def violations(fmt: str, output: str, texts: Mapping[str, str]) -> Iterator[str]:
    """Every place a ``fmt`` report names that is outside its file (``texts`` by path as the
    report spells it; a path missing there is read from disk)."""
    cache: dict[str, list[int]] = {}
    for rule, path, *span in PLACES[fmt](output):
        lengths = cache.get(path)
        if lengths is None:
            text = texts.get(path)
            if text is None:
                text = as_read(Path(path)) if Path(path).is_file() else ""
            lengths = cache[path] = line_lengths(text)
        if not lengths:
            continue  # stdin, a render, a file gone: nothing to measure against
        why = outside(lengths, *span)
        if why:
            yield f"{fmt} {rule} {path}:{span[0]}:{span[1]}-{span[2]}:{span[3]}: {why}"
