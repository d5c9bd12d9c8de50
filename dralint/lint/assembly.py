"""The run's diagnostics put together: file by file, every mistake once in report order
(``dedup.one_file``), every span inside its file.

Each file's findings are taken in the order they were made (reading the file, the per-object
checks of its objects, the run-wide checks), which is the order ``one_file`` keeps among
findings it merges. Files were once finished one by one as their last object was checked,
while later objects still were; measured at 1.04x the wall time of the 500-file row without
it and no gain elsewhere, it was removed (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace

from dralint.diagnostics import Diagnostic, Span, by_file
from dralint.lint.dedup import one_file
from dralint.yaml.loader import SourceText


def assemble(
    diagnostics: Iterable[Diagnostic], sources: Mapping[str, SourceText], reported: Collection[str]
) -> list[Diagnostic]:
    """The diagnostics of the files in ``reported``, each file's finished, files in path order."""
    out: list[Diagnostic] = []
    for group in by_file(diagnostics):
        if group[0].span.path in reported:
            out.extend(one_file(_inside(group, sources)))
    return out


def _inside(diagnostics: list[Diagnostic], sources: Mapping[str, SourceText]) -> list[Diagnostic]:
    """One file's diagnostics with every span inside the file (``SourceText.inside``): the
    places that make spans keep them inside, and this is the guarantee behind them."""
    out = []
    for diag in diagnostics:
        span = _span_inside(diag.span, sources)
        related = tuple(r._replace(span=_span_inside(r.span, sources)) for r in diag.related)
        if span != diag.span or related != diag.related:
            diag = replace(diag, span=span, related=related)
        out.append(diag)
    return out


def _span_inside(span: Span, sources: Mapping[str, SourceText]) -> Span:
    """``span`` inside its own file (a related place may be in another file than its finding)."""
    source = sources.get(span.path)
    return span if source is None else source.inside(span)
