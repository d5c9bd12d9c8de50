"""Charts and overlays in a run: which settings render each one, and where findings land.

Checks see a render like any other file. Afterwards every finding in a render moves to the
file the user edits (the template, resource or patch its document came from), at the key's
line when the key is written there literally, otherwise at the document's first line in that
file; the place in the rendered text is kept in ``Diagnostic.rendered``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from typing import Any

from dralint.diagnostics import Diagnostic, Related, Span
from dralint.lint.options import LintOptions
from dralint.yaml.loader import DataPath, Document, SourceText, iter_paths
from dralint.yaml.render import (
    ChartSettings,
    Origin,
    RenderedSource,
    RenderIssue,
    RenderUnit,
    has_source_comments,
    helm_origins,
    read_files,
    render_chart,
    render_overlay,
    stream_chart_resolver,
)
from dralint.yaml.sources import SourceFile
from dralint.yaml.templates import KeyLine, document_start, locate_key, sections


def chart_settings(root: str, options: LintOptions) -> ChartSettings:
    """The run's Helm settings for the chart at ``root``: its ``charts`` entry in the config
    first, then the global ``--helm-*`` options (values files and ``--set`` pairs add up, later
    ones win in helm; a release name or namespace of the chart's own entry wins)."""
    real = os.path.realpath(root)
    own: dict[str, Any] = next((v for k, v in options.charts.items() if os.path.realpath(k) == real), {})
    return ChartSettings(
        values=tuple(own.get("values", ())) + tuple(options.helm_values),
        set=tuple(own.get("set", ())) + tuple(options.helm_set),
        release=own.get("release") or options.helm_release,
        namespace=own.get("namespace") or options.helm_namespace,
    )


def render_units(units: Iterable[RenderUnit], options: LintOptions) -> list[RenderedSource | RenderIssue]:
    """Render every chart and overlay; each yields its output or one issue."""
    return [
        render_chart(u, chart_settings(u.root, options), options.helm_command)
        if u.tool == "helm"
        else render_overlay(u)
        for u in units
    ]


def as_stream(source: SourceFile) -> SourceFile:
    """A piped-in ``helm template`` render becomes a render whose findings map to templates."""
    if not has_source_comments(source.text):
        return source
    origins = helm_origins(source.text, stream_chart_resolver())
    if not any(o.path for o in origins):
        return source
    return RenderedSource(source.path, source.text, origins, read_files(o.path for o in origins), generated=False)


# --- moving findings to the files the user edits -------------------------------------------------


def _keys(path: DataPath) -> list[str]:
    return [step for step in path if isinstance(step, str)]


def _path_at(doc: Document, line: int, column: int) -> tuple[DataPath, bool]:
    """The deepest path whose key starts at, or whose value holds, (line, column); and whether
    the point is on the key."""
    best: DataPath = ()
    on_key = False
    for path, _ in iter_paths(doc.data):
        if not path or len(path) <= len(best):
            continue
        key = doc.locate(path, key=True)
        if isinstance(path[-1], str) and (key.line, key.column) == (line, column):
            best, on_key = path, True
            continue
        value = doc.locate(path)
        if (value.line, value.column) <= (line, column) < (value.end_line, value.end_column):
            best, on_key = path, False
    return best, on_key


class Remapper:
    """Moves the findings of one run's renders to the files their documents came from."""

    def __init__(self, renders: dict[str, RenderedSource], documents: dict[str, list[Document]]):
        self.renders = renders
        self.documents = documents
        self.texts = {f.path: SourceText(f.path, f.text) for r in renders.values() for f in r.files}

    def diagnostic(self, diag: Diagnostic) -> Diagnostic:
        span = self.span(diag.span)
        if span == diag.span:
            return diag
        related = tuple(Related(self.span(r.span), r.message) for r in diag.related)
        return dataclasses.replace(diag, span=span, related=related, rendered=diag.span)

    def span(self, span: Span) -> Span:
        """``span`` in the file the user edits, or unchanged when it is in no known document."""
        render = self.renders.get(span.path)
        if render is None:
            return span
        origin = render.origin_at(span.line)
        if origin is None or origin.path is None or origin.path not in self.texts:
            return span
        doc = next((d for d in self.documents.get(span.path, ()) if _holds(d, span.line)), None)
        path, on_key = _path_at(doc, span.line, span.column) if doc is not None else ((), False)
        keys = _keys(path)
        identity = _identity(doc)
        for candidate in (*origin.patches, origin.path):
            text = self.texts.get(candidate)
            if text is None or not keys:
                continue
            found = locate_key(text.text, keys, self._section(candidate, origin, render, identity))
            if found is not None:
                return _at_key(
                    candidate, found, span, on_key, self._rendered_value(doc, path) if doc is not None else None
                )
        text = self.texts[origin.path]
        line = document_start(text.text, self._section(origin.path, origin, render, identity))
        return Span(origin.path, line, 1, line, len(text.line_text(line)) + 1)

    def _section(
        self, path: str, origin: Origin, render: RenderedSource, identity: tuple[str, str]
    ) -> tuple[int, int] | None:
        """The lines of the document of ``path`` an object came from, when the file holds
        several: for Helm the n-th part when the template renders as many documents as it
        has parts, otherwise the one part declaring the object's kind and (literal) name."""
        parts = sections(self.texts[path].text)
        if len(parts) < 2:
            return None
        if (
            path == origin.path
            and origin.part is not None
            and sum(1 for o in render.origins if o.path == path) == len(parts)
        ):
            return parts[origin.part]
        matches = [p for p in parts if _declares(self.texts[path].text, p, *identity)]
        return matches[0] if len(matches) == 1 else None

    @staticmethod
    def _rendered_value(doc: Document, path: DataPath) -> tuple[Span, str] | None:
        """The value at ``path`` in the render and its text, when it is on one line."""
        value = doc.locate(path) if path else None
        if value is None or value.line != value.end_line:
            return None
        return value, doc.source.line_text(value.line)[value.column - 1 : value.end_column - 1]


def _identity(doc: Document | None) -> tuple[str, str]:
    data = doc.data if doc is not None and isinstance(doc.data, dict) else {}
    metadata = data.get("metadata")
    name = metadata.get("name", "") if isinstance(metadata, dict) else ""
    return str(data.get("kind", "")), str(name)


def _declares(text: str, part: tuple[int, int], kind: str, name: str) -> bool:
    """Whether the document at ``part`` of a file is one of ``kind`` that may be ``name``: its
    literal name is part of the rendered one (Kustomize adds prefixes and suffixes), or is
    a template expression."""
    written_kind = locate_key(text, ["kind"], part)
    if written_kind is None or written_kind.value_text != kind:
        return False
    written_name = locate_key(text, ["metadata", "name"], part)
    shown = written_name.value_text.strip("\"'") if written_name is not None else ""
    return not shown or "{{" in shown or shown in name


def _holds(doc: Document, line: int) -> bool:
    whole = doc.locate(())
    return whole.line <= line <= whole.end_line


def _at_key(path: str, found: KeyLine, rendered: Span, on_key: bool, value: tuple[Span, str] | None) -> Span:
    """The key in the source file; or, when the rendered value is written there as is, the
    same characters of it that the rendered span covers (a CEL error inside an expression)."""
    start = found.value_column
    if not on_key and start is not None and value is not None and found.value_text == value[1]:
        where = value[0]
        if rendered.line == rendered.end_line == where.line and where.column <= rendered.column < where.end_column:
            offset = rendered.column - where.column
            width = min(rendered.end_column, where.end_column) - rendered.column
            return Span(path, found.line, start + offset, found.line, start + offset + max(1, width))
    return Span(path, found.line, found.column, found.line, found.column + len(found.key))
