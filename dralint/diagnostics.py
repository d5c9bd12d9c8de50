"""The records that flow out of checks: spans, related locations and diagnostics.

Everything here is immutable so that a diagnostic can be hashed, sorted, deduplicated and
fingerprinted without anyone worrying that a later stage changed it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterable, Iterator, Sequence


class Severity(str, Enum):
    """How bad a finding is; the string values are part of the JSON contract."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """Higher is worse, so thresholds compare with >=."""
        return {"info": 0, "warning": 1, "error": 2}[self.value]


@dataclass(frozen=True, order=True, slots=True)
class Span:
    """A region of a file: 1-based lines and columns, end column exclusive.

    The exclusive end matches SARIF's endColumn and makes a zero-width span at a point
    representable (end_column == column).
    """

    path: str
    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True, slots=True)
class ObjectRef:
    """Identity of the Kubernetes object a finding is about."""

    api_version: str
    kind: str
    namespace: str | None
    name: str


@dataclass(frozen=True, slots=True)
class Related:
    """Another place that explains a finding, such as the target of a broken reference."""

    span: Span
    message: str


@dataclass(frozen=True, slots=True)
class Finding:
    """What a check yields: a diagnostic before the engine attaches rule metadata.

    Checks know where and what; the catalog knows the rule's name and severity. Keeping them
    apart means a severity override never has to touch check code.
    """

    message: str
    span: Span
    hint: str | None = None
    rule: str | None = None
    field: str | None = None
    object: ObjectRef | None = None
    related: tuple[Related, ...] = ()
    severity: Severity | None = None


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One reported problem, ready for suppression, scoring and reporting."""

    rule: str
    name: str
    severity: Severity
    message: str
    span: Span
    hint: str | None = None
    object: ObjectRef | None = None
    field: str | None = None
    related: tuple[Related, ...] = ()
    #: For a finding in a Helm or Kustomize render: where it is in the rendered text, while
    #: ``span`` names the template, resource or patch the user edits.
    rendered: Span | None = None

    @property
    def sort_key(self) -> tuple:
        return (self.span.path, self.span.line, self.span.column, self.rule, self.message)


#: A diagnostic as plain values, the span's five in the middle (see ``to_rows``).
Row = tuple


def to_rows(diagnostics: Iterable[Diagnostic], known: Sequence[ObjectRef] = ()) -> list[Row]:
    """Diagnostics as tuples of plain values, for sending to another process.

    Pickling records runs Python code for every record on both sides; rows pickle in C, and
    the receiver builds each record once. A span the
    diagnostics share (several rules on one key) stays one tuple, so one ``Span`` again. An
    object among ``known``, which the receiver holds too (a forked worker's slice of the run's
    objects), travels as its index, so the receiver's diagnostics share its object identities
    instead of holding a copy each.
    """
    rows: list[Row] = []
    spans: dict[int, tuple] = {}  # by id: every span is alive until the rows are made
    indexes = {id(ref): i for i, ref in enumerate(known)}
    for diag in diagnostics:
        span = diag.span
        fields = spans.get(id(span))
        if fields is None:
            fields = spans[id(span)] = (span.path, span.line, span.column, span.end_line, span.end_column)
        obj = indexes.get(id(diag.object), diag.object)
        rows.append((diag.rule, diag.name, diag.severity, diag.message, fields, diag.hint, obj, diag.field,
                     diag.related, diag.rendered))
    return rows


def from_rows(rows: Iterable[Row], known: Sequence[ObjectRef] = ()) -> list[Diagnostic]:
    """The diagnostics ``to_rows`` encoded with the same ``known`` objects, equal to the
    originals."""
    out: list[Diagnostic] = []
    spans: dict[int, Span] = {}  # by id: the rows hold every fields tuple until the end
    for rule, name, severity, message, fields, hint, obj, field_path, related, rendered in rows:
        span = spans.get(id(fields))
        if span is None:
            path, line, column, end_line, end_column = fields
            # One int object for both ends of a one-line span, as the loader makes them.
            span = spans[id(fields)] = Span(path, line, column, line if end_line == line else end_line, end_column)
        if type(obj) is int:
            obj = known[obj]
        out.append(Diagnostic(rule, name, severity, message, span, hint, obj, field_path, related, rendered))
    return out


def by_file(diagnostics: Iterable[Diagnostic]) -> Iterator[list[Diagnostic]]:
    """The diagnostics of each file, files in path order, each list in the order given.

    A large run holds hundreds of thousands of diagnostics, and the stages that sort or
    deduplicate them file by file run at its peak of memory: only the current file's list is
    built at a time. A first pass notes the stretches of the sequence each file's diagnostics
    lie in (a run makes them file by file, so a file has few).
    """
    items = diagnostics if isinstance(diagnostics, Sequence) else list(diagnostics)
    stretches: dict[str, list[int]] = {}  # path -> start, end, start, end, ...
    path: str | None = None
    start = 0
    for index, diag in enumerate(items):
        if diag.span.path != path:
            if path is not None:
                stretches.setdefault(path, []).extend((start, index))
            path, start = diag.span.path, index
    if path is not None:
        stretches.setdefault(path, []).extend((start, len(items)))
    for path in sorted(stretches):
        bounds = stretches.pop(path)
        group: list[Diagnostic] = []
        for index in range(0, len(bounds), 2):
            group.extend(items[bounds[index] : bounds[index + 1]])
        yield group


def in_report_order(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """``sorted(diagnostics, key=sort_key)``, computed file by file (see ``by_file``)."""
    out: list[Diagnostic] = []
    for group in by_file(diagnostics):
        out.extend(sorted(group, key=lambda d: d.sort_key))
    return out


@dataclass(frozen=True, slots=True)
class Suppressed:
    """A diagnostic the user silenced, kept so SARIF can report it as suppressed, not lost.

    ``kind`` uses SARIF's words: ``inSource`` for a comment or annotation in the manifest,
    ``external`` for the config file or the baseline.
    """

    diagnostic: Diagnostic
    kind: str
    justification: str


@dataclass(frozen=True, slots=True)
class Replacement:
    """A text edit that fixes a finding: delete ``region`` (end exclusive; an empty region is
    an insertion point) and insert ``text``. SARIF carries these as ``fixes[]``."""

    region: Span
    text: str
