"""The lint run: sources -> documents -> objects -> context -> checks -> diagnostics.

Data flows one way. Reporting, suppression and exit codes happen after ``run`` returns and
never feed back into it.
"""

from __future__ import annotations

import copy
import gc
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import Any, BinaryIO, NamedTuple, Protocol, cast

from dralint.diagnostics import (
    Diagnostic,
    Finding,
    ObjectRef,
    Related,
    Replacement,
    Row,
    Severity,
    Span,
    Suppressed,
    from_rows,
    internal_error,
    to_rows,
)
from dralint.k8s.allocator.examples import PREFIX as EXAMPLE_PREFIX
from dralint.k8s.allocator.examples import example_sources
from dralint.k8s.manifests import ShapeProblem, objects_from
from dralint.k8s.objects import KubeObject
from dralint.lint.assembly import assemble
from dralint.lint.catalog import DRA_CATEGORIES, Rule, load_catalog
from dralint.lint.context import Context
from dralint.lint.environments import environments, tagged
from dralint.lint.fingerprint import fingerprints
from dralint.lint.options import LintOptions
from dralint.lint.parallel import available_cpus, chunk_size, ordered_map
from dralint.lint.registry import Check, all_checks
from dralint.lint.rendering import Remapper, as_stream, render_units
from dralint.lint.score import score
from dralint.yaml.loader import (
    THAWED,
    Document,
    Piece,
    SourceText,
    YamlProblem,
    load,
    load_piece,
    numbered_right,
    pieces,
)
from dralint.yaml.render import RenderedSource, RenderIssue, plan
from dralint.yaml.sources import FileIssue, SourceFile, UnreadFile, discover, not_a_manifest, read


class Progress(Protocol):
    """Told how far a run is, for a progress line; never affects results."""

    def read(self, files: int, documents: int) -> None:
        """Files read and documents parsed since the last call: after each file, and after
        each piece of a file read in pieces (then the file itself counts at its end)."""

    def checking(self, objects: int, total: int) -> None:
        """While per-object checks run: objects checked so far, of ``total``."""


#: Rules the engine itself reports (parsing and robustness), not any check.
ENGINE_RULES = {
    "syntax": "YAML001",
    "yaml-1.2": "YAML012",
    "duplicate-key": "YAML002",
    "tab": "YAML003",
    "not-mapping": "YAML004",
    "missing-identity": "YAML005",
    "alias-bomb": "YAML006",
    "depth": "YAML007",
    "unreadable": "YAML008",
    "too-large": "YAML008",
    "symlink-loop": "YAML008",
    "symlink-outside": "YAML008",
    "not-a-file": "YAML008",
    "binary": "YAML009",
    "encoding": "YAML009",
    "not-a-manifest": "YAML010",
    "complex-key": "YAML011",
    "renderer-missing": "YAML013",
    "render-failed": "YAML014",
    "internal": "INT001",
}


@dataclass
class FileResult:
    """Per-file figures for the report."""

    path: str
    objects: int = 0
    counts: dict[Severity, int] = field(default_factory=lambda: {s: 0 for s in Severity})

    @property
    def score(self) -> int:
        return score(self.objects, self.counts[Severity.ERROR], self.counts[Severity.WARNING])


def count_per_file(files: list[FileResult], diagnostics: Iterable[Diagnostic]) -> None:
    """Add each of ``diagnostics`` to the counts of its file among ``files`` (if there)."""
    by_path = {f.path: f for f in files}
    for diag in diagnostics:
        if diag.span.path in by_path:
            by_path[diag.span.path].counts[diag.severity] += 1


@dataclass
class RunResult:
    """Everything a reporter needs; reporters compute nothing themselves."""

    diagnostics: list[Diagnostic]
    files: list[FileResult]
    sources: dict[str, SourceText]
    context: Context
    # Filled by the stages after the run (dralint.lint.gate): what was silenced, how each finding
    # is identified across runs, and which exit-code gates failed.
    suppressed: list[Suppressed] = field(default_factory=list)
    known: list[Diagnostic] = field(default_factory=list)
    #: ``fingerprints`` once computed; the gates fill it in when a baseline needs it.
    computed_fingerprints: dict[Diagnostic, str] | None = None
    failed_gates: list[str] = field(default_factory=list)
    #: The ``--fail-on`` level the gates used, so a report can tell failures from notes.
    fail_on: str = "error"
    #: Files that hold no Kubernetes document (CI workflows, empty files): read, not reported.
    skipped: list[str] = field(default_factory=list)
    # The edits `dralint fix` would make, per diagnostic; computed only for reports that show them.
    fixes: dict[Diagnostic, tuple[Replacement, ...]] = field(default_factory=dict)
    # Helm and Kustomize renders of the run, by their display path (see dralint.lint.rendering).
    renders: dict[str, RenderedSource] = field(default_factory=dict)
    #: ``tally()``'s counts, with the list they counted and its length then: a result made by
    #: ``dataclasses.replace`` starts without them, and a list changed since is counted again.
    _tally: tuple[list[Diagnostic], int, dict[Severity, int]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @property
    def objects(self) -> int:
        return sum(f.objects for f in self.files)

    @property
    def fingerprints(self) -> dict[Diagnostic, str]:
        """How each finding is identified across runs (SARIF, baselines). Computed on first
        use: it hashes every finding, and a plain report never reads it."""
        if self.computed_fingerprints is None:
            every = self.diagnostics + self.known + [s.diagnostic for s in self.suppressed]
            self.computed_fingerprints = fingerprints(every, self.sources)
        return self.computed_fingerprints

    def tally(self) -> dict[Severity, int]:
        """Findings per severity, counted in one pass that runs in C, once per list of
        diagnostics: a large run holds hundreds of thousands, and the summary, the score, the
        gates and the JSON head each ask (five counts, 0.5% of a 10,000-document run)."""
        counted = self._tally
        if counted is None or counted[0] is not self.diagnostics or counted[1] != len(self.diagnostics):
            every = Counter(map(_SEVERITY, self.diagnostics))
            counted = self._tally = (self.diagnostics, len(self.diagnostics), {s: every[s] for s in Severity})
        return dict(counted[2])

    @property
    def score(self) -> int:
        tally = self.tally()
        return score(self.objects, tally[Severity.ERROR], tally[Severity.WARNING])


_SEVERITY = attrgetter("severity")


def rule_matches(rule: Rule, selector: str) -> bool:
    """A selector names a rule by id, id prefix (family), kebab name, category or tag."""
    return (
        rule.id == selector
        or (selector.isupper() and rule.id.startswith(selector))
        or rule.name == selector
        or rule.category == selector
        or selector in rule.tags
    )


def enabled_rules(options: LintOptions, catalog: dict[str, Rule]) -> dict[str, Rule]:
    """The rules this run reports, after profile, select and ignore."""
    out = {}
    for rule in catalog.values():
        if options.profile != "strict" and not rule.recommended:
            continue
        if options.profile == "dra" and rule.category not in DRA_CATEGORIES:
            continue
        if options.select and not any(rule_matches(rule, s) for s in options.select):
            continue
        if any(rule_matches(rule, s) for s in options.ignore):
            continue
        out[rule.id] = rule
    return out


def to_diagnostics(findings: Iterable[Finding], options: LintOptions) -> list[Diagnostic]:
    """Findings made outside the checks (config, suppressions) as diagnostics, under the
    same profile, select, ignore and severity overrides as the run's own findings."""
    collect = _Collector(options, load_catalog())
    for finding in findings:
        collect.add(finding)
    return collect.diagnostics


#: Size of the collector's table of recent repeated values.
_RECENT_VALUES = 4096


class _Collector:
    """Turns findings into diagnostics against the catalog and the enabled rules."""

    def __init__(self, options: LintOptions, catalog: dict[str, Rule]):
        self.catalog = catalog
        self.enabled = enabled_rules(options, catalog)
        overrides = {k: Severity(v) for k, v in options.severity_overrides.items()}
        #: Per enabled rule: its name, the severity the user forces on it (or None) and its
        #: default in this profile. A finding may set its own severity, between the two.
        self._rules = {
            rule_id: (rule.name, overrides.get(rule_id), rule.severity_in(options.profile))
            for rule_id, rule in self.enabled.items()
        }
        self.diagnostics: list[Diagnostic] = []
        #: One object per distinct hint, field and span among recent findings: a large run
        #: repeats them (several rules on one container's key, the same hint on every container)
        #: and holds every diagnostic. Messages name their object and are nearly all distinct.
        #: Findings arrive object by object, so a bounded table finds nearly all the repeats.
        self._values: dict[Any, Any] = {}

    def empty(self) -> _Collector:
        """A collector with this one's rules and severities and no diagnostics yet, for one
        file or one worker (working out the enabled rules again for each costs more)."""
        other = copy.copy(self)
        other.diagnostics, other._values = [], {}
        return other

    def add(self, finding: Finding, default_rule: str | None = None) -> None:
        rule_id = finding.rule or default_rule
        if rule_id is None or (known := self._rules.get(rule_id)) is None:
            return
        name, forced, default = known
        values = self._values
        if len(values) >= _RECENT_VALUES:
            values.clear()
        one = values.setdefault
        span, hint, field_path = finding.span, finding.hint, finding.field
        self.diagnostics.append(
            Diagnostic(
                rule_id,
                name,
                forced or finding.severity or default,
                finding.message,
                one(span, span),
                one(hint, hint),
                finding.object,
                one(field_path, field_path),
                finding.related,
            )
        )

    def engine(self, kind: str, message: str, span: Span, hint: str | None = None, related: tuple = ()) -> None:
        self.add(Finding(message, span, hint=hint, rule=ENGINE_RULES[kind], related=related))


_YAML_HINTS = {
    "tab": "replace the tab characters at the start of the line with spaces",
    "duplicate-key": "keep one of the two keys",
    "alias-bomb": "expand the aliases by hand or remove the recursive reference",
    "depth": "flatten the document; no Kubernetes object needs this depth",
    "complex-key": "use a plain string as the key",
    "too-large": "split the document into the objects it holds, or leave the file out of the run",
}


def _point(path: str, line: int, column: int, end_line: int | None = None, end_column: int | None = None) -> Span:
    """A 1-based span from 0-based coordinates, at least one character wide."""
    end_line = line if end_line is None else end_line
    end_column = column + 1 if end_column is None or (end_line, end_column) <= (line, column) else end_column
    return Span(path, line + 1, column + 1, end_line + 1, end_column + 1)


def _yaml_problem(problem: YamlProblem, source: SourceText, collect: _Collector) -> None:
    # libyaml reports the end of the stream (a file cut short) on the line after the last one.
    span = source.inside(_point(source.path, problem.line, problem.column, problem.end_line, problem.end_column))
    related = tuple(Related(source.inside(_point(source.path, line, col)), msg) for line, col, msg in problem.related)
    collect.engine(problem.kind, problem.message, span, _YAML_HINTS.get(problem.kind), related)


def _shape_problem(problem: ShapeProblem, collect: _Collector) -> None:
    collect.engine(problem.kind, problem.message, problem.document.locate(problem.path, key=True), problem.hint)


def _issue_span(issue: FileIssue) -> Span:
    return _point(issue.path, issue.line - 1, issue.column - 1)


@dataclass
class _Loaded:
    objects: list[KubeObject]
    sources: dict[str, SourceText]
    files: list[FileResult]
    renders: dict[str, RenderedSource] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)


#: YAML problems that do not stop a file from being read; a file with nothing but these and no
#: Kubernetes document (a CI workflow with a repeated key) is not the linter's business.
_READABLE_PROBLEMS = frozenset({"duplicate-key", "complex-key"})


def _holds_no_manifest(
    yaml_problems: list[YamlProblem], objects: list[KubeObject], problems: list[ShapeProblem]
) -> bool:
    """True for YAML that parses and has no Kubernetes document: skipped quietly.

    A document counts as Kubernetes when it has an object or names apiVersion or kind; a file
    the parser could not read through may have held one, so it is still reported.
    """
    if objects or any(p.kind not in _READABLE_PROBLEMS for p in yaml_problems):
        return False
    return not any(
        p.document.item is not None
        or (isinstance(p.document.data, dict) and ("apiVersion" in p.document.data or "kind" in p.document.data))
        for p in problems
    )


class _FileObjects:
    """Collects the objects of one file (or of a piece of it) as its documents are parsed,
    and freezes each document once its objects are known: checks run later, a group of
    objects at a time (see Document and ``_check_group``)."""

    def __init__(self, origin: str):
        self.origin = origin
        self.objects: list[KubeObject] = []
        self.problems: list[ShapeProblem] = []
        self.documents = 0

    def take(self, doc: Document) -> None:
        objects, problems = objects_from(doc, self.origin)
        self.objects.extend(objects)
        self.problems.extend(problems)
        self.documents += not doc.item  # a List read item by item counts once
        doc.freeze()

    def extend(self, other: _FileObjects) -> None:
        self.objects.extend(other.objects)
        self.problems.extend(other.problems)
        self.documents += other.documents

    def attach(self, source: SourceText) -> None:
        """Give the documents a worker sent back their file's text (see ``Document.__reduce__``):
        reporting a shape problem reads positions from it."""
        for obj in self.objects:
            obj.doc.attach(source)
        for problem in self.problems:
            problem.document.attach(source)


@dataclass
class _Parsed:
    """One file parsed (in a worker, with ``--jobs``): its objects, with documents frozen,
    and what the engine reports about its YAML."""

    objects: list[KubeObject]
    #: What the engine reports about the file's YAML, as ``to_rows`` sends diagnostics.
    diagnostics: list[Row]
    documents: int
    #: Parsed fine and holds no Kubernetes document (a CI workflow, an empty file).
    no_manifest: bool
    #: The file's text, when the task read the file itself (see ``_read_and_parse``).
    source: SourceText | None = None


class _NotParsed(NamedTuple):
    """A file its task read and did not parse: what the run reports about it (``kind`` is a
    ``FileIssue``'s, or ``not-a-manifest``), and its text when it has one to show."""

    kind: str
    issue: FileIssue
    source: SourceText | None


def _recognised(file: SourceFile) -> tuple[SourceText, FileIssue | None]:
    """A file's text, and why it is no manifest at all (None when it may be one): the one
    place that decides it, for files read in the parent and in a worker alike. A render is
    always parsed: it is a chart's or an overlay's output, named after the chart or the
    overlay, which ``not_a_manifest``'s tests by name and by template syntax would misread."""
    return SourceText(file.path, file.text), None if isinstance(file, RenderedSource) else not_a_manifest(file)


def _read_and_parse(file: UnreadFile, origin: str, collect: _Collector, report: bool) -> _Parsed | _NotParsed:
    """A file read and parsed by one task, in the process the task runs in."""
    read_file = file.read()
    if isinstance(read_file, FileIssue):
        return _NotParsed(read_file.kind, read_file, None)
    source, skip = _recognised(read_file)
    if skip is not None:
        return _NotParsed("not-a-manifest", skip, source)
    parsed = _parse(source, origin, collect, report)
    parsed.source = source
    return parsed


def _parse(source: SourceText, origin: str, collect: _Collector, report: bool) -> _Parsed:
    found = _FileObjects(origin)
    result = load(source, found.take, lists=True)
    return _kept(source, found, result.problems, collect, report)


def _kept(
    source: SourceText, found: _FileObjects, yaml_problems: list[YamlProblem], collect: _Collector, report: bool
) -> _Parsed:
    """What the run keeps of a file read into ``found``, and what it reports about the file."""
    if report and _holds_no_manifest(yaml_problems, found.objects, found.problems):
        return _Parsed([], [], found.documents, True)
    if report:
        for problem in yaml_problems:
            _yaml_problem(problem, source, collect)
        _report_shapes(found.problems, collect)
    return _Parsed(found.objects, to_rows(collect.diagnostics), found.documents, False)


class _PieceRead(NamedTuple):
    """One piece of a large file (see ``loader.pieces``), read in a worker."""

    found: _FileObjects
    #: ``load_piece``'s: documents read, or None when the fast reader declined the piece.
    documents: int | None


def _parse_piece(source: SourceText, piece: Piece, origin: str) -> _PieceRead:
    found = _FileObjects(origin)
    return _PieceRead(found, load_piece(source, piece, found.take))


def _join_pieces(
    source: SourceText, cut: list[Piece], read: list[_PieceRead], origin: str, collect: _Collector, report: bool
) -> _Parsed:
    """A file read piece by piece, as ``_parse`` would have read it whole; when the fast reader
    declined a piece (libyaml must read the file from there on), the file is read whole here,
    and what the pieces read is dropped."""
    counts = [part.documents for part in read]
    if any(count is None for count in counts) or not numbered_right(cut, cast(list[int], counts)):
        return _parse(source, origin, collect.empty(), report)
    found = _FileObjects(origin)
    for part in read:
        found.extend(part.found)
    found.attach(source)
    return _kept(source, found, [], collect.empty(), report)


#: Below this much text, parsing in worker processes costs more than it saves.
_PARALLEL_BYTES = 1 << 20
#: Below this many lines a file is parsed whole, by one process. Reading costs by the line
#: (about a microsecond and a half for a Kubernetes object's), not by the byte: 17 MiB of
#: ConfigMaps with 1 MB values (17,000 lines) reads in 0.3 s and took longer cut than whole.
#: Cut, a file's parsed lines are not in the parent's cache that checking workers inherit:
#: with two jobs, 200,000 lines of workloads took as long cut (and 9% more CPU), 500,000 lines
#: 5% less time, and the 1.1 million lines of a 10,000-node ResourceSlice snapshot 11-14% less
#: (`simulate`, for 3-7% more CPU).
_PIECE_LINES = 500_000
#: Pieces per worker a large file is cut into (see ``loader.pieces``): enough to keep the
#: workers evenly loaded to the end; none smaller than ``_PARALLEL_BYTES``.
_PIECES_PER_WORKER = 4


def _pieces(source: SourceText, workers: int) -> list[Piece] | None:
    """The pieces ``source`` is parsed in by ``workers`` processes, or None to parse it whole."""
    size = max(_PARALLEL_BYTES, len(source.text) // (workers * _PIECES_PER_WORKER), 1)
    if workers <= 1 or len(source.text) <= size or source.text.count("\n") < _PIECE_LINES:
        return None
    return pieces(source, size)


#: What ``_load_sources`` is given: files read already (stdin, renders, ``run``'s callers'),
#: files to read, and files that cannot be linted.
Item = SourceFile | UnreadFile | FileIssue


def _to_parse(work: list[Item]) -> tuple[list[SourceText | UnreadFile], dict[int, SourceText], dict[int, FileIssue]]:
    """What ``work`` gives to parse (texts, and files to read first), in order; by position in
    ``work``, the text of each file read already, and the files that are not manifests at all."""
    parse: list[SourceText | UnreadFile] = []
    texts: dict[int, SourceText] = {}
    skips: dict[int, FileIssue] = {}
    for index, item in enumerate(work):
        if isinstance(item, UnreadFile):
            parse.append(item)
        elif isinstance(item, SourceFile):
            source, skip = _recognised(item)
            texts[index] = source
            if skip is None:
                parse.append(source)
            else:
                skips[index] = skip
    return parse, texts, skips


def _register(item: Item, source: SourceText | None, loaded: _Loaded, report: bool) -> None:
    """Record an item's text (and a render's) in ``loaded``. Called in the order of the items,
    which suppressions are matched in."""
    if isinstance(item, FileIssue):
        if isinstance(item, RenderIssue) and item.text and report:
            loaded.sources[item.path] = SourceText(item.path, item.text)
        return
    if source is None:
        return
    loaded.sources[item.path] = source
    if isinstance(item, RenderedSource):
        loaded.renders[item.path] = item
        for origin_file in item.files:
            loaded.sources.setdefault(origin_file.path, SourceText(origin_file.path, origin_file.text))


def _load_sources(
    items: Iterable[Item],
    origin: str,
    collect: _Collector,
    report: bool,
    jobs: int = 1,
    progress: Progress | None = None,
) -> _Loaded:
    """Read and parse ``items``, in several processes when they are large enough."""
    loaded = _Loaded([], {}, [])
    # A file large enough to be cut into pieces is read here, where it is cut; every other is
    # read by the task that parses it.
    work = [item.read() if isinstance(item, UnreadFile) and item.size >= _PARALLEL_BYTES else item for item in items]
    parse, texts, skips = _to_parse(work)
    big = (
        sum(len(source.text) if isinstance(source, SourceText) else source.size for source in parse) >= _PARALLEL_BYTES
    )
    workers = jobs if big else 1
    cuts = [_pieces(source, workers) if isinstance(source, SourceText) else None for source in parse]
    tasks = [(source, piece) for source, cut in zip(parse, cuts, strict=True) for piece in cut or (None,)]

    def parse_one(index: int) -> _Parsed | _NotParsed | _PieceRead:
        source, piece = tasks[index]
        if isinstance(source, UnreadFile):
            return _read_and_parse(source, origin, collect.empty(), report)
        return _parse(source, origin, collect.empty(), report) if piece is None else _parse_piece(source, piece, origin)

    # A piece is a large task: handed over one at a time, as many as the workers can share.
    chunk = 1 if any(cuts) else chunk_size(len(tasks), workers)
    with closing(ordered_map(parse_one, len(tasks), workers, chunk)) as parsed:
        documents = 0  # of the item before, told when the next one starts
        cut_of = iter(cuts)
        for index, item in enumerate(work):
            if progress is not None and index:
                progress.read(1, documents)
            told = 0  # documents of a cut file's pieces, told to progress as they came
            outcome: _Parsed | _NotParsed
            if isinstance(item, FileIssue):
                outcome = _NotParsed(item.kind, item, None)
            elif index in skips:
                outcome = _NotParsed("not-a-manifest", skips[index], texts[index])
            elif (cut := next(cut_of)) is None:
                outcome = cast("_Parsed | _NotParsed", next(parsed))
            else:
                read = _read_pieces(len(cut), parsed, progress)
                outcome = _join_pieces(texts[index], cut, read, origin, collect, report)
                told = sum(part.documents or 0 for part in read)
            if isinstance(outcome, _NotParsed):
                documents = 0
                _register(item, outcome.source, loaded, report)
                if report:
                    collect.engine(outcome.kind, outcome.issue.message, _issue_span(outcome.issue))
                    loaded.files.append(FileResult(item.path))
                continue
            source = outcome.source or texts[index]
            documents = outcome.documents - told
            _register(item, source, loaded, report)
            if outcome.no_manifest:
                # CI workflows, .pre-commit-config.yaml, empty files: counted (--verbose), not reported.
                loaded.skipped.append(item.path)
                continue
            for obj in outcome.objects:
                obj.doc.attach(source)  # a worker's copy arrives without the file's text
            collect.diagnostics.extend(from_rows(outcome.diagnostics))
            if report:
                loaded.files.append(FileResult(item.path, len(outcome.objects)))
            loaded.objects.extend(outcome.objects)
    if progress is not None and work:
        progress.read(1, documents)
    return loaded


def _read_pieces(
    count: int, parsed: Iterator[_Parsed | _NotParsed | _PieceRead], progress: Progress | None
) -> list[_PieceRead]:
    """The next ``count`` results of ``parsed``, the pieces of one file, with each piece's
    documents told to ``progress`` as it arrives: one large file is most of such a run."""
    read: list[_PieceRead] = []
    for _ in range(count):
        part = cast(_PieceRead, next(parsed))
        read.append(part)
        if progress is not None and part.documents:
            progress.read(0, part.documents)
    return read


def _report_shapes(problems: list[ShapeProblem], collect: _Collector) -> None:
    """Shape problems of a file that holds Kubernetes documents; plain YAML documents among
    them get one info for the file instead of an error each."""
    identityless = [p for p in problems if p.kind == "no-identity"]
    if identityless:
        first = identityless[0]
        collect.engine(
            "not-a-manifest",
            f"{len(identityless)} document(s) in this file have no apiVersion and no kind and were not linted",
            first.document.locate(first.path),
        )
    for problem in problems:
        if problem.kind != "no-identity":
            _shape_problem(problem, collect)


def _selected_checks(kinds: Iterable[str], collect: _Collector) -> list[Check]:
    """The checks for objects of ``kinds`` (and the run-wide ones) that report an enabled rule."""
    wanted = set(collect.enabled)
    return [check for check in all_checks(kinds) if wanted.intersection(check.rules)]


def _run_wide_check(check: Check, ctx: Context, collect: _Collector) -> None:
    """One run-wide check (per-object checks run in ``_check_group``), in each environment of
    the run when it holds several: a finding made in some of them names them, one made in
    every environment (about shared objects) is reported once, as it is."""
    names = ctx.environments.names if ctx.environments.several else ()
    found: dict[tuple, tuple[Finding, list[str]]] = {}
    for view, name in [(ctx.within(frozenset({n})), n) for n in names] or [(ctx, "")]:
        try:
            for finding in check.function(view) or ():
                found.setdefault((finding.rule, finding.span, finding.message), (finding, []))[1].append(name)
        except Exception as error:  # one broken check must not stop the others
            _check_failed(check, view, collect, None, error)
    for finding, where in found.values():
        if names and len(where) < len(names):
            finding = replace(finding, message=tagged(finding.message, where))
        collect.add(finding, check.default_rule)


def _check_failed(check: Check, ctx: Context, collect: _Collector, obj: KubeObject | None, error: Exception) -> None:
    """Report a check that raised, as INT001 at the object (or the run's first file)."""
    message = f"{internal_error(f'check {check.name}', error)}; other checks still ran"
    if obj is not None:
        span = obj.span(("metadata",), key=True) if obj.get(("metadata",)) is not None else obj.span(())
    else:
        first = ctx.scanned[0] if ctx.scanned else None
        span = first.span(()) if first else _point("<dralint>", 0, 0)
    collect.add(
        Finding(
            message,
            span,
            hint="please report this with the manifest that triggers it",
            rule="INT001",
            object=obj.ref if obj else None,
        )
    )


#: Objects per slice of per-object checks handed to a worker with ``--jobs``.
_SLICE = 250
#: The smallest slice the last ones shrink to (see ``_slices``).
_LAST_SLICE = 25


def _slices(objects: list[KubeObject], jobs: int) -> list[list[KubeObject]]:
    """``objects`` cut into slices of ``_SLICE``; with several jobs, the slices shrink towards
    the end (each at most a ``2 * jobs``-th of what is left): a process that finds no slice
    left waits for the others to finish theirs, up to a whole slice's time (some 0.09 s) with
    equal slices, a fraction of that with small last ones."""
    out = []
    start = 0
    while start < len(objects):
        size = _SLICE if jobs <= 1 else min(_SLICE, max(_LAST_SLICE, (len(objects) - start) // (2 * jobs)))
        out.append(objects[start : start + size])
        start += size
    return out


#: Objects whose checks run together, one check at a time over all of them (see
#: ``_check_group``); well under ``THAWED``'s capacity, so that their documents and the ones
#: their checks look up stay expanded while the group is checked.
_GROUP = 32


def _check_group(group: list[KubeObject], checks: list[Check], ctx: Context, collect: _Collector) -> None:
    """Every per-object check on the objects of ``group``: each check runs over the whole group
    before the next starts, and the findings are reported object by object, each object's in
    the order of ``checks``, as if the objects had been checked one after the other.

    Why: the same work took 18-21% less CPU on 10,000 documents than object by object
    (paired turns, docs/performance.md), for 0.6% more instructions. An object meets some 25
    checks, each a few Python functions; one check's code run over 32 objects in a row keeps
    the processor's caches and branch predictors on it, where 25 checks taking turns did not
    (cachegrind: 11% fewer first-level data misses, 14% fewer mispredicted conditional
    branches; the rest is not countable on the machines here).
    """
    found: list[list[tuple[Finding | Exception, Check]]] = [[] for _ in group]
    by_kind: dict[str, list[int]] = {}
    for index, obj in enumerate(group):
        by_kind.setdefault(obj.kind, []).append(index)
    for check in checks:
        function = check.function
        for kind, indexes in by_kind.items():
            if check.kinds is not None and kind not in check.kinds:
                continue
            for index in indexes:
                out = found[index]
                try:
                    for finding in function(group[index], ctx) or ():
                        out.append((finding, check))
                except Exception as error:  # one broken check must not stop the others
                    out.append((error, check))
    add = collect.add if not ctx.label else _tagging(collect, ctx)
    for obj, made in zip(group, found, strict=True):
        for item, check in made:
            if isinstance(item, Exception):
                _check_failed(check, ctx, collect, obj, item)
            else:
                add(item, check.default_rule)


def _run_object_checks(
    checks: list[Check],
    objects: list[KubeObject],
    ctx: Context,
    collect: _Collector,
    jobs: int,
    progress: Progress | None,
) -> list[Diagnostic]:
    """Every per-object check on every object, a group of objects at a time (``_check_group``):
    their documents expand once, for all of them, and are frozen again when later objects push
    them out of ``THAWED``. With ``--jobs``, this process and forked workers, which inherit the
    run's index, share the slices; their findings are taken in the order of the slices."""
    slices = _slices(objects, jobs)

    def checked(batch: list[KubeObject]) -> list[Diagnostic]:
        own = collect.empty()
        for start in range(0, len(batch), _GROUP):
            group = batch[start : start + _GROUP]
            if ctx.environments.several:
                for view, members in _by_view(group, ctx).items():
                    _check_group(members, checks, view, own)
            else:
                _check_group(group, checks, ctx, own)
        return own.diagnostics

    def refs(index: int) -> list[ObjectRef]:
        return [obj.ref for obj in slices[index]]

    if jobs > 1 and len(slices) > 1:
        # Before the workers are forked, the first object of each kind is checked and its
        # findings dropped (it is checked again in its slice): what the checks import, load
        # and index over the whole run (ctx.memo) then exists once, for every process to
        # inherit, for the price of a few objects. (A whole first slice checked here kept
        # one of two CPUs idle 0.05-0.1 s longer on 500 files.)
        first_of_kind: dict[str, KubeObject] = {}
        for obj in objects:
            first_of_kind.setdefault(obj.kind, obj)
        checked(list(first_of_kind.values()))
    done = 0
    found = ordered_map(
        lambda index: checked(slices[index]),
        len(slices),
        jobs,
        send=lambda index, diagnostics: to_rows(diagnostics, refs(index)),
        receive=lambda index, rows: from_rows(rows, refs(index)),
    )
    out: list[Diagnostic] = []
    for index, diagnostics in enumerate(found):
        out.extend(diagnostics)
        done += len(slices[index])
        if progress is not None:
            progress.checking(done, len(objects))
    return out


def _tagging(collect: _Collector, ctx: Context) -> Callable[[Finding, str | None], None]:
    """``collect.add`` for findings made in one environment's Context: they name it."""

    def add(finding: Finding, rule: str | None) -> None:
        collect.add(replace(finding, message=ctx.tag(finding.message)), rule)

    return add


def _by_view(group: list[KubeObject], ctx: Context) -> dict[Context, list[KubeObject]]:
    """The objects of ``group`` by the environment's Context each is judged in."""
    out: dict[Context, list[KubeObject]] = {}
    for obj in group:
        out.setdefault(ctx.view(obj), []).append(obj)
    return out


@contextmanager
def without_cyclic_gc() -> Iterator[None]:
    """Suspend Python's cyclic garbage collector for one run (or a placement of simulate).

    Parsed manifests are trees of dicts and lists with no reference cycles, so the collector
    finds nothing in them, yet each of its full passes walks every container of every
    document: on 10,000 documents that was a third of the run. Reference counting still frees
    everything; cycles created meanwhile (rare: exception tracebacks) are collected once the
    collector is back on.

    The run's data outlives the run (reports, suppressions and fingerprints read it), so it is
    then moved out of the collector's view (``gc.freeze``): otherwise the first full pass
    after the run walks all of it again, and allocating the report's records triggers such
    passes. Frozen objects are still freed by reference counting.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def run(
    scan: Iterable[Item],
    options: LintOptions,
    context: Iterable[Item] = (),
    cluster: Iterable[Item] = (),
    progress: Progress | None = None,
    parsed: Sequence[KubeObject] = (),
) -> RunResult:
    """Lint already-read sources; ``lint`` is the same with files read from disk.

    ``parsed`` are context and cluster objects read earlier by ``parse_unreported``, indexed
    after ``context``'s and before ``cluster``'s, and not reported on.
    """
    with without_cyclic_gc():
        return _run(scan, options, context, cluster, progress, parsed)


def parse_unreported(items: Iterable[Item], options: LintOptions, origin: str = "context") -> list[KubeObject]:
    """The objects of ``items``, parsed for ``run``'s ``parsed`` and never reported on.

    A language server lints one file at every keystroke against a whole workspace: it parses
    the workspace once with this (and each file again only when it changes) instead of
    handing ``run`` the same context files to parse each time. ``origin`` is ``context`` or
    ``cluster``, as ``run`` would have set for them.
    """
    return _load_sources(items, origin, _Collector(options, load_catalog()), report=False).objects


def _run(
    scan: Iterable[Item],
    options: LintOptions,
    context: Iterable[Item],
    cluster: Iterable[Item],
    progress: Progress | None,
    parsed: Sequence[KubeObject],
) -> RunResult:
    catalog = load_catalog()
    collect = _Collector(options, catalog)
    jobs = options.jobs or available_cpus()
    scanned = _load_sources(scan, "scan", collect, report=True, jobs=jobs, progress=progress)
    extra = _load_sources(context, "context", collect, report=False, jobs=jobs, progress=progress)
    snapshot = _load_sources(cluster, "cluster", collect, report=True, jobs=jobs, progress=progress)
    # The files read for context (pre-commit's whole tree, the editor's workspace) belong to
    # environments as the linted ones do, so a reference never resolves in another cluster.
    manifests = [*scanned.objects, *extra.objects, *parsed]
    envs = environments(dict.fromkeys(obj.path for obj in manifests if obj.origin != "cluster"), options.environments)
    ctx = Context([*scanned.objects, *extra.objects, *parsed, *snapshot.objects], options, envs)
    checks = _selected_checks({obj.kind for obj in scanned.objects}, collect)
    # Run-wide checks run first: what they build in ctx.memo (the snapshot's inventory, the
    # simulation) is the run's, for the checks after them, the workers and `dralint simulate`.
    wide = collect.empty()
    for check in checks:
        if not check.per_object:
            _run_wide_check(check, ctx, wide)
    sources = {**scanned.sources, **snapshot.sources}
    checked = _run_object_checks([c for c in checks if c.per_object], scanned.objects, ctx, collect, jobs, progress)
    THAWED.freeze_all()
    reported = {f.path for f in scanned.files} | {f.path for f in snapshot.files}
    made = collect.diagnostics + checked + wide.diagnostics
    if scanned.renders:
        made, scanned.files = _from_renders(made, scanned)
        reported |= {f.path for f in scanned.files}
    diagnostics = assemble(made, sources, reported)  # findings in --context files are not reported
    files = scanned.files + [f for f in snapshot.files if any(d.span.path == f.path for d in diagnostics)]
    count_per_file(files, diagnostics)
    return RunResult(diagnostics, files, sources, ctx, renders=scanned.renders, skipped=scanned.skipped)


def _from_renders(diagnostics: list[Diagnostic], scanned: _Loaded) -> tuple[list[Diagnostic], list[FileResult]]:
    """Findings in renders moved to the files the user edits, and per-file figures for those
    files: each counts the rendered objects whose documents came from it."""
    documents: dict[str, list[Document]] = {}
    for obj in scanned.objects:
        if obj.path in scanned.renders:
            documents.setdefault(obj.path, []).append(obj.doc)  # one each: a List's items are documents of their own
    remapper = Remapper(scanned.renders, documents)
    moved = [remapper.diagnostic(d) if d.span.path in scanned.renders else d for d in diagnostics]
    by_path: dict[str, FileResult] = {}
    for result in scanned.files:
        if result.path not in scanned.renders:
            by_path.setdefault(result.path, result)
    for obj in scanned.objects:
        render = scanned.renders.get(obj.path)
        if render is not None:
            origin = render.origin_at(obj.span(()).line)
            target = origin.path if origin is not None and origin.path in remapper.texts else obj.path
            by_path.setdefault(target, FileResult(target)).objects += 1
    for diag in moved:
        if diag.rendered is not None or diag.span.path in scanned.renders:
            by_path.setdefault(diag.span.path, FileResult(diag.span.path))
    files = list(by_path.values())
    return moved, files


def find_sources(paths: list[str], options: LintOptions, stdin: BinaryIO | None = None) -> list[Item]:
    """Every file under ``paths``, to be read as it is parsed (stdin is read now); charts and
    overlays among them are rendered, and the files they own are read only through the render."""
    found = list(discover(paths, options.exclude))
    work = plan(item for item in found if isinstance(item, str) and item != "-")
    out: list[Item] = []
    for item in found:
        if isinstance(item, FileIssue):
            out.append(item)
        elif item == "-":
            read_item = read(item, stdin, options.stdin_name, options.max_file_bytes)
            out.append(as_stream(read_item) if isinstance(read_item, SourceFile) else read_item)
        elif not work.owned or os.path.realpath(item) not in work.owned:
            out.append(UnreadFile(item, options.max_file_bytes))
    out.extend(render_units(work.units, options))
    return out


class UnknownEnvironment(ValueError):
    """``--environment`` names no environment of the run."""


def in_environment(scan: list[Item], options: LintOptions) -> list[Item]:
    """The items of ``--environment`` and the shared ones (which belong to every environment)."""
    name = options.environment
    assert name is not None
    envs = environments(dict.fromkeys(item.path for item in scan), options.environments)
    if name not in envs.names:
        known = ", ".join(envs.names) or "none (see docs/environments.md)"
        raise UnknownEnvironment(f"--environment {name!r} names no environment of the run; its environments: {known}")
    return [item for item in scan if envs.includes(item.path, name)]


def lint(
    options: LintOptions,
    stdin: BinaryIO | None = None,
    progress: Progress | None = None,
) -> RunResult:
    """Lint the paths in ``options`` (with context and snapshot files) from disk.

    A context directory usually contains the files being linted (pre-commit passes the changed
    files, the config names the whole tree as context); those files are read once, as scanned,
    so no object appears twice. ``--slices example:NAME`` names a built-in snapshot.
    """
    scan = find_sources(options.paths, options, stdin)
    if options.environment is not None:
        scan = in_environment(scan, options)
    context = find_sources(options.context, options)
    if context:
        scanned = {os.path.realpath(item.path) for item in scan if isinstance(item, (SourceFile, UnreadFile))}
        context = [item for item in context if os.path.realpath(item.path) not in scanned]
    cluster = find_sources([p for p in options.slices if not p.startswith(EXAMPLE_PREFIX)], options)
    return run(
        scan,
        options,
        context=context,
        cluster=[*cluster, *example_sources(options.slices)],
        progress=progress,
    )
