"""The run's diagnostics gathered file by file, each file finished (``dedup.one_file``: every
mistake once, in report order) as soon as no check can add to it.

A file read as it is (not a render) gets its findings from the parsing of the file, from the
per-object checks of its own objects and from the run-wide checks. The run-wide checks run
before the per-object ones, so once the last object of a file is checked the file is complete
and is finished there and then, while the checks of later objects go on (in other processes,
with ``--jobs``): what used to wait for the end of the checks, one process alone, now mostly
overlaps them.

Every other file (a render and the templates its findings move to, a snapshot, a file with
no object) is finished at the end from its findings in the order they were made, as is a
file that a check of another file's object reported on after it was finished. So the result
is exactly what finishing every file at the end gave.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from itertools import groupby
from operator import attrgetter

from dralint.diagnostics import Diagnostic, Span, by_file
from dralint.k8s.objects import KubeObject
from dralint.lint.dedup import one_file
from dralint.yaml.loader import SourceText

_PATH = attrgetter("span.path")


class Assembly:
    """Diagnostics in, by file; the run's diagnostics out, unique and in report order.

    ``made`` are the findings made before the per-object checks (reading the files), ``wide``
    the run-wide checks' findings: a file's findings are taken in that order, those of the
    per-object checks between the two, as one list of the run would hold them.
    """

    def __init__(
        self,
        objects: Sequence[KubeObject],
        renders: Collection[str],
        made: Iterable[Diagnostic],
        wide: Iterable[Diagnostic],
        sources: Mapping[str, SourceText],
    ):
        last: dict[str, int] = {}
        for index, obj in enumerate(objects):
            last[obj.path] = index
        for path in renders:
            last.pop(path, None)
        #: (index of its last object, path) of each file finished early, in the order of the objects.
        self._ends = sorted((index, path) for path, index in last.items())
        self._next_end = 0
        self._early: dict[str, list[Diagnostic]] = {path: [] for path in last}
        self._rest: list[Diagnostic] = []
        self._finished: dict[str, list[Diagnostic]] = {}
        #: Files finished early that a check reported on afterwards: finished again at the end.
        self._late: set[str] = set()
        self._wide_early: dict[str, list[Diagnostic]] = {}
        self._wide_rest: list[Diagnostic] = []
        for path, run in groupby(wide, _PATH):
            if path in self._early:
                self._wide_early.setdefault(path, []).extend(run)
            else:
                self._wide_rest.extend(run)
        self._sources = sources
        self.add(made)

    def add(self, diagnostics: Iterable[Diagnostic]) -> None:
        """Findings of per-object checks (or of reading), in the order they were made."""
        early, finished = self._early, self._finished
        for path, run in groupby(diagnostics, _PATH):  # a check's findings come a file at a time
            same_file = early.get(path)
            if same_file is None:
                self._rest.extend(run)
                continue
            same_file.extend(run)
            if path in finished:
                self._late.add(path)

    def checked(self, count: int) -> None:
        """The first ``count`` objects have been checked: finish the files they complete."""
        ends = self._ends
        while self._next_end < len(ends) and ends[self._next_end][0] < count:
            path = ends[self._next_end][1]
            self._next_end += 1
            self._finished[path] = self._finish(path)

    def _finish(self, path: str) -> list[Diagnostic]:
        made, wide = self._early[path], self._wide_early.get(path)
        return one_file(self._inside(made + wide if wide else made))

    def _inside(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        """One file's diagnostics with every span inside the file (``SourceText.inside``): the
        places that make spans keep them inside, and this is the guarantee behind them."""
        out = []
        for diag in diagnostics:
            span = self._span_inside(diag.span)
            related = tuple(r._replace(span=self._span_inside(r.span)) for r in diag.related)
            if span != diag.span or related != diag.related:
                diag = replace(diag, span=span, related=related)
            out.append(diag)
        return out

    def _span_inside(self, span: Span) -> Span:
        """``span`` inside its own file (a related place may be in another file than its finding)."""
        source = self._sources.get(span.path)
        return span if source is None else source.inside(span)

    def unfinished(self) -> list[Diagnostic]:
        """After the last check: finish what is left of the files finished early, and return the
        findings of every other file, in the order they were made (for ``diagnostics``, once the
        findings of renders are moved to the files they came from)."""
        if self._ends:
            self.checked(self._ends[-1][0] + 1)
        for path in self._late:
            self._finished[path] = self._finish(path)
        self._early.clear()
        rest = self._rest + self._wide_rest
        self._rest, self._wide_rest = [], []
        return rest

    def diagnostics(self, rest: list[Diagnostic], reported: Collection[str]) -> list[Diagnostic]:
        """The run's diagnostics: the files finished early and those of ``rest`` (see
        ``unfinished``) that are in ``reported``, each file's finished, files in path order."""
        files = self._finished
        # A render's findings move to the files the render reads, which a run never reads as
        # files of their own (``yaml.render.plan``), so no group here is a file finished early.
        for group in by_file(rest):
            if group[0].span.path in reported:
                files[group[0].span.path] = one_file(self._inside(group))
        out: list[Diagnostic] = []
        for path in sorted(files):
            out.extend(files.pop(path))
        return out
