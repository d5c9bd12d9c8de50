"""The records that flow out of checks: spans, related locations and diagnostics.

Everything here is immutable so that a diagnostic can be hashed, sorted, deduplicated and
fingerprinted without anyone worrying that a later stage changed it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import MISSING, dataclass, fields
from enum import StrEnum
from itertools import chain, compress, count, islice
from operator import attrgetter, ne
from traceback import extract_tb
from typing import Any, NamedTuple, TypeVar


class Severity(StrEnum):
    """How bad a finding is; the string values are part of the JSON contract."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """Higher is worse, so thresholds compare with >=."""
        return _RANKS[self._value_]


_RANKS = {"info": 0, "warning": 1, "error": 2}


R = TypeVar("R")


def _built_in_one_call(cls: type[R]) -> type[R]:
    """Give the frozen, slotted dataclass ``cls`` a constructor that fills its fields at the
    cost of a plain class, and leave everything else (equality, hashing, order, ``replace``,
    the refusal to change a field) as ``dataclass`` made it.

    A frozen dataclass's ``__init__`` sets every field through ``object.__setattr__``, around
    its own ``__setattr__`` that refuses changes; a run builds a few records per finding, and
    that was a twentieth of it. Here ``__new__`` fills an instance of a twin class with the
    same slots (fast, ordinary attribute stores) and then makes it a ``cls``: the two share one
    memory layout, so Python allows the change of class. ``__init__`` is left to ``object``,
    which ignores the arguments once ``__new__`` is ours; pickling and ``copy`` call ``cls``
    again with the fields.
    """
    every = fields(cls)  # type: ignore[arg-type]
    names = [f.name for f in every]
    twin = type(f"_{cls.__name__}Fields", (), {"__slots__": tuple(names)})
    defaults = {f"_default_{f.name}": f.default for f in every if f.default is not MISSING}
    params = ", ".join(name if f"_default_{name}" not in defaults else f"{name}=_default_{name}" for name in names)
    stores = "".join(f"    self.{name} = {name}\n" for name in names)
    namespace: dict[str, Any] = {"_twin": twin, "_new": object.__new__, **defaults}
    exec(
        f"def __new__(cls, {params}):\n    self = _new(_twin)\n{stores}    self.__class__ = cls\n    return self\n",
        namespace,
    )
    namespace["__new__"].__qualname__ = f"{cls.__qualname__}.__new__"
    cls.__new__ = staticmethod(namespace["__new__"])  # type: ignore[method-assign]
    del cls.__init__
    values = attrgetter(*names)
    cls.__reduce__ = lambda self: (type(self), values(self))  # type: ignore[method-assign]
    return cls


class Span(NamedTuple):
    """A region of a file: 1-based lines and columns, end column exclusive.

    The exclusive end matches SARIF's endColumn and makes a zero-width span at a point
    representable (end_column == column).

    A named tuple rather than a dataclass: a run hashes and compares spans for every finding
    (sharing, deduplication, sorting), which a tuple does in C, and defining it compiles one
    small constructor at start-up where a frozen, ordered dataclass compiled ten methods.
    """

    path: str
    line: int
    column: int
    end_line: int
    end_column: int


class ObjectRef(NamedTuple):
    """Identity of the Kubernetes object a finding is about (a named tuple, like ``Span``)."""

    api_version: str
    kind: str
    namespace: str | None
    name: str


class Related(NamedTuple):
    """Another place that explains a finding, such as the target of a broken reference (a
    named tuple, like ``Span``)."""

    span: Span
    message: str


@_built_in_one_call
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


@_built_in_one_call
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
        rows.append(
            (
                diag.rule,
                diag.name,
                diag.severity,
                diag.message,
                fields,
                diag.hint,
                obj,
                diag.field,
                diag.related,
                diag.rendered,
            )
        )
    return rows


def from_rows(rows: Iterable[Row], known: Sequence[ObjectRef] = ()) -> list[Diagnostic]:
    """The diagnostics ``to_rows`` encoded with the same ``known`` objects, equal to the
    originals."""
    out: list[Diagnostic] = []
    spans: dict[int, Span] = {}  # by id: the rows hold every place tuple until the end
    for rule, name, severity, message, place, hint, obj, field_path, related, rendered in rows:
        span = spans.get(id(place))
        if span is None:
            path, line, column, end_line, end_column = place
            # One int object for both ends of a one-line span, as the loader makes them.
            span = spans[id(place)] = Span(path, line, column, line if end_line == line else end_line, end_column)
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


def _place(diag: Diagnostic) -> int:
    """Line and column as one number, ordered as the pair is (no line holds 2**32 characters)."""
    return (diag.span.line << 32) | diag.span.column


_RULE_AND_MESSAGE = attrgetter("rule", "message")


def sort_one_file(diagnostics: list[Diagnostic]) -> None:
    """Sort the diagnostics of one file by ``sort_key``, in place and stably.

    By place first, then each run of findings at one place by rule and message: this runs for
    the largest file at the run's peak of memory, where a key tuple per finding took 6 MiB for
    64,000 findings and an int takes 2.
    """
    diagnostics.sort(key=_place)
    places = list(map(_place, diagnostics))
    start = 0
    # Where the place changes, a run ends (the comparisons run in C; the loop once per place).
    for end in chain(compress(count(1), map(ne, islice(places, 1, None), places)), (len(places),)):
        if end - start > 1:
            diagnostics[start:end] = sorted(diagnostics[start:end], key=_RULE_AND_MESSAGE)
        start = end


def in_report_order(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """``sorted(diagnostics, key=sort_key)``, computed file by file (see ``by_file``)."""
    out: list[Diagnostic] = []
    for group in by_file(diagnostics):
        sort_one_file(group)
        out.extend(group)
    return out


class Suppressed(NamedTuple):
    """A diagnostic the user silenced, kept so SARIF can report it as suppressed, not lost.

    ``kind`` uses SARIF's words: ``inSource`` for a comment or annotation in the manifest,
    ``external`` for the config file or the baseline.
    """

    diagnostic: Diagnostic
    kind: str
    justification: str


class Replacement(NamedTuple):
    """A text edit that fixes a finding: delete ``region`` (end exclusive; an empty region is
    an insertion point) and insert ``text``. SARIF carries these as ``fixes[]``."""

    region: Span
    text: str


def internal_error(what: str, error: Exception) -> str:
    """The words for a bug of dralint's met while doing ``what`` (a check, a pod's diagnosis, a
    template's simulation), with the line that raised, so that a report can name it; the
    caller carries on with the next piece of work."""
    where = extract_tb(error.__traceback__)[-1]
    return (
        f"internal error in {what}: {type(error).__name__}: {error} "
        f"(at {where.filename.rsplit('/', 1)[-1]}:{where.lineno})"
    )
