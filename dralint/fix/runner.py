"""Running fixes on files: lint, apply the fixes of fixable findings, re-lint, keep or reject.

A file is linted on its own, its fixable findings are fixed in one pass, and the result is
linted again. If that introduced an error that was not there before (counted per rule and
object, since positions and field paths move), the fixes are retried one at a time and each
one that introduces an error is left out and reported. A fix can uncover a finding the next
pass fixes (renaming ``Status`` to ``status`` turns it into a server-written field to remove),
so passes repeat until nothing changes, at most :data:`MAX_PASSES` times.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from dralint.diagnostics import Diagnostic, Replacement, Severity, Span
from dralint.fix.document import EditableFile, LineEdit, NotEditable
from dralint.fix.fixers import FixError, Target, fixers, priority
from dralint.lint.catalog import load_catalog
from dralint.lint.engine import RunResult, run
from dralint.lint.options import LintOptions
from dralint.lint.parallel import available_cpus, ordered_map
from dralint.yaml.loader import DataPath, Document, SourceText, iter_paths, load
from dralint.yaml.sources import FileIssue, decode

MAX_PASSES = 4


class FixRecord(NamedTuple):
    """A fix that was applied, or was not and why (``reason``)."""

    rule: str
    line: int
    column: int
    description: str
    reason: str | None = None


class FileFix:
    """The outcome of fixing one file."""

    __slots__ = ("path", "original", "fixed", "applied", "rejected", "problem")

    def __init__(self, path: str, original: bytes, fixed: bytes) -> None:
        self.path = path
        self.original = original
        self.fixed = fixed
        self.applied: list[FixRecord] = []
        self.rejected: list[FixRecord] = []
        self.problem: str | None = None

    @property
    def changed(self) -> bool:
        return self.fixed != self.original


def fixable_rules() -> set[str]:
    """Rules that have both a fix and ``fixable: true`` in the catalog."""
    catalog = load_catalog()
    return {rule for rule in fixers() if rule in catalog and catalog[rule].fixable}


def _lint(path: str, raw: bytes, options: LintOptions) -> RunResult | None:
    source = decode(path, raw)
    if isinstance(source, FileIssue):
        return None
    return run([source], options)


def _key(diag: Diagnostic) -> tuple:
    """Identity of a finding across re-lints (positions move when a fix edits lines above)."""
    ref = diag.object
    return (diag.rule, ref.kind if ref else None, ref.namespace if ref else None, ref.name if ref else None, diag.field)


def _group(diag: Diagnostic) -> tuple:
    ref = diag.object
    return (diag.rule, ref.kind if ref else None, ref.namespace if ref else None, ref.name if ref else None)


def new_errors(before: RunResult, after: RunResult, resolved: Iterable[Diagnostic] = ()) -> list[Diagnostic]:
    """Errors in ``after`` beyond what ``before`` had, per rule and object (not per position).

    ``resolved`` are the findings the fixes were for: they are expected to be gone, so a fix
    that removes one unknown field and adds another on the same object still counts as adding
    an error.
    """
    had = Counter(_group(d) for d in before.diagnostics if d.severity is Severity.ERROR)
    had.subtract(_group(d) for d in resolved if d.severity is Severity.ERROR)
    out = []
    for diag in after.diagnostics:
        if diag.severity is Severity.ERROR:
            key = _group(diag)
            if had[key] > 0:
                had[key] -= 1
            else:
                out.append(diag)
    return out


def path_at(document: Document, span: Span) -> DataPath | None:
    """The data path whose key (preferred) or value starts where ``span`` starts."""
    where = (span.line, span.column)
    best_key: DataPath | None = None
    best_value: DataPath | None = None
    for path, _ in iter_paths(document.data):
        if path and document.has_path(path):
            key_span = document.locate(path, key=True)
            if (key_span.line, key_span.column) == where and isinstance(path[-1], str):
                if best_key is None or len(path) > len(best_key):
                    best_key = path
                continue
        value_span = document.locate(path)
        if (value_span.line, value_span.column) == where and (best_value is None or len(path) > len(best_value)):
            best_value = path
    return best_key if best_key is not None else best_value


def _is_list(document: Document) -> bool:
    data = document.data
    return isinstance(data, dict) and str(data.get("kind", "")).endswith("List") and isinstance(data.get("items"), list)


def _object_base(document: Document, path: DataPath) -> DataPath:
    return tuple(path[:2]) if _is_list(document) and len(path) >= 2 and path[0] == "items" else ()


def _document_for(documents: list[Document], span: Span) -> Document | None:
    found = None
    for document in documents:
        start = document.locate(())
        if (start.line, start.column) <= (span.line, span.column):
            found = document
    return found


class FixPass:
    """One application of fixes to a file: the edits, the new bytes, and what each fix did."""

    __slots__ = ("edits", "fixed", "applied", "skipped", "failed")

    def __init__(self, fixed: bytes) -> None:
        self.edits: list[LineEdit] = []
        self.fixed = fixed
        self.applied: list[tuple[Diagnostic, str]] = []
        self.skipped: list[Diagnostic] = []
        self.failed: list[tuple[Diagnostic, str]] = []


def _editable(path: str, raw: bytes) -> tuple[EditableFile, list[Document]]:
    """One file's bytes read for editing, and as dralint reads them (where diagnostics point)."""
    file = EditableFile(path, raw)
    documents = load(SourceText(path, file.text)).documents
    if len(documents) != len(file.documents):
        raise NotEditable(f"dralint sees {len(documents)} documents, ruamel.yaml {len(file.documents)}")
    return file, documents


def apply_fixes(path: str, raw: bytes, diagnostics: Iterable[Diagnostic]) -> FixPass:
    """Apply the fixes of ``diagnostics`` (found by linting ``raw``) to one file's bytes."""
    file, documents = _editable(path, raw)
    done = _fixed(file, documents, diagnostics)
    done.edits = file.edits()
    done.fixed = file.result(done.edits)
    return done


def _fixed(file: EditableFile, documents: list[Document], diagnostics: Iterable[Diagnostic]) -> FixPass:
    """``file`` with the fixes of ``diagnostics`` made in its documents, and what each fix did
    (the edits and bytes are left to the caller, who may not need both)."""
    done = FixPass(file.raw)
    registry = fixers()
    for diag in sorted(diagnostics, key=lambda d: (priority(d.rule), d.span.line, d.span.column)):
        document = _document_for(documents, diag.span)
        target_path = path_at(document, diag.span) if document is not None else None
        if document is None or target_path is None:
            done.skipped.append(diag)
            continue
        target = Target(file, document, target_path, _object_base(document, target_path), diag)
        try:
            description = registry[diag.rule](target)
        except FixError as error:
            done.failed.append((diag, str(error)))
            continue
        except Exception as error:  # a fix that broke half-way may have left a partial edit
            raise NotEditable(
                f"internal error in the {diag.rule} fix, please report it: {type(error).__name__}: {error}"
            ) from error
        if description is None:
            done.skipped.append(diag)
        else:
            done.applied.append((diag, description))
    return done


def _candidates(result: RunResult, rules: set[str], tried: set[tuple]) -> list[Diagnostic]:
    return [d for d in result.diagnostics if d.rule in rules and _key(d) not in tried]


def _record(diag: Diagnostic, description: str, reason: str | None = None) -> FixRecord:
    return FixRecord(diag.rule, diag.span.line, diag.span.column, description, reason)


def fix_bytes(path: str, raw: bytes, options: LintOptions, rules: set[str] | None = None) -> FileFix:
    """Fix one file's content; nothing is written."""
    wanted = fixable_rules() if rules is None else rules & fixable_rules()
    outcome = FileFix(path, raw, raw)
    tried: set[tuple] = set()
    for _ in range(MAX_PASSES):
        before = _lint(path, outcome.fixed, options)
        candidates = _candidates(before, wanted, tried) if before is not None else []
        if before is None or not candidates:
            break
        try:
            batch = apply_fixes(path, outcome.fixed, candidates)
        except NotEditable as error:
            outcome.problem = str(error)
            break
        tried.update(_key(d) for d in batch.skipped)
        tried.update(_key(d) for d, _ in batch.applied)
        for diag, reason in batch.failed:
            tried.add(_key(diag))
            outcome.rejected.append(_record(diag, "not fixed", reason))
        if batch.fixed == outcome.fixed:
            break
        after = _lint(path, batch.fixed, options)
        if after is not None and not new_errors(before, after, [d for d, _ in batch.applied]):
            outcome.fixed = batch.fixed
            outcome.applied.extend(_record(d, text) for d, text in batch.applied)
            continue
        try:
            _one_by_one(outcome, [d for d, _ in batch.applied], options, tried)
        except NotEditable as error:
            outcome.problem = str(error)
            break
    return outcome


def _one_by_one(outcome: FileFix, wanted: list[Diagnostic], options: LintOptions, tried: set[tuple]) -> None:
    """Apply fixes singly, keeping each one that adds no error and reporting the others."""
    for original in wanted:
        before = _lint(outcome.path, outcome.fixed, options)
        current = (
            next((d for d in before.diagnostics if _key(d) == _key(original)), None) if before is not None else None
        )
        if before is None or current is None:
            continue
        single = apply_fixes(outcome.path, outcome.fixed, [current])
        tried.add(_key(original))
        if not single.applied or single.fixed == outcome.fixed:
            continue
        after = _lint(outcome.path, single.fixed, options)
        added = new_errors(before, after, [current]) if after is not None else []
        description = single.applied[0][1]
        if after is None or added:
            why = f"{added[0].rule} {added[0].message}" if added else "the result is not readable"
            outcome.rejected.append(_record(current, description, f"it would introduce an error: {why}"))
            continue
        outcome.fixed = single.fixed
        outcome.applied.append(_record(current, description))


def write_atomically(path: str, content: bytes) -> None:
    """Replace a file's content without a window where it is half written; keep its mode.

    A read-only file (no write bit for anyone) is refused even where the rename would succeed
    (a writable directory, or root): its owner said it must not change.
    """
    target = os.path.realpath(path)
    if os.stat(target).st_mode & 0o222 == 0:
        raise PermissionError(errno.EACCES, "the file is read-only; left unchanged", path)
    directory = os.path.dirname(target) or "."
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".dralint-fix-")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
        shutil.copymode(target, temporary)
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


# --- replacement regions for SARIF ``fixes[]`` ---------------------------------------------


def _replacements(path: str, text: str, edits: list[LineEdit]) -> tuple[Replacement, ...]:
    lines = text.split("\n")
    partial_last = not text.endswith("\n")
    count = len(lines) if partial_last else len(lines) - 1
    out = []
    for edit in edits:
        inserted = "".join(line + "\n" for line in edit.lines)
        if partial_last and edit.end >= count:
            region = Span(path, edit.start + 1, 1, count, len(lines[count - 1]) + 1)
            inserted = inserted[:-1]
        else:
            region = Span(path, edit.start + 1, 1, edit.end + 1, 1)
        out.append(Replacement(region, inserted))
    return tuple(out)


def fix_replacements(result: RunResult) -> dict[Diagnostic, tuple[Replacement, ...]]:
    """For each fixable diagnostic of a lint run, the text replacements its fix makes alone.

    Regions are in the coordinates of the diagnostics (1-based lines and columns of the text
    as linted: BOM removed, CRLF read as LF). A diagnostic whose fix does not apply (no single
    did-you-mean, not a convertible object, a conflict) or whose file cannot be edited has no
    entry. Fixes are not re-linted here; ``dralint fix`` does that before writing.
    """
    wanted = fixable_rules()
    by_path: dict[str, list[Diagnostic]] = {}
    for diag in result.diagnostics:
        # a finding in a render: its fix would edit the render, not the template or patch
        if diag.rule in wanted and diag.span.path in result.sources and diag.rendered is None:
            by_path.setdefault(diag.span.path, []).append(diag)
    jobs = result.context.options.jobs or available_cpus()
    tasks = [(path, part) for path, diagnostics in by_path.items() for part in _shares(diagnostics, jobs)]

    def fix_task(index: int) -> list[tuple[int, tuple[Replacement, ...]]]:
        path, diagnostics = tasks[index]
        return list(_each_alone(path, result.sources[path].text, diagnostics))

    out: dict[Diagnostic, tuple[Replacement, ...]] = {}
    for (_, diagnostics), found in zip(tasks, ordered_map(fix_task, len(tasks), jobs), strict=True):
        out.update((diagnostics[number], replacements) for number, replacements in found)
    return out


#: Fewest fixes of one file handed to a worker: each worker reads the file for itself first.
_FIXES_PER_SHARE = 4


def _shares(diagnostics: list[Diagnostic], jobs: int) -> list[list[Diagnostic]]:
    """One file's fixable findings cut into as many shares as the workers can take at once:
    each fix costs a copy and a print of its file (a third of a second for 3,400 lines), or a
    read and prints of its List item."""
    count = max(1, min(jobs, len(diagnostics) // _FIXES_PER_SHARE))
    size = -(-len(diagnostics) // count)
    return [diagnostics[start : start + size] for start in range(0, len(diagnostics), size)]


def _each_alone(path: str, text: str, diagnostics: list[Diagnostic]) -> Iterator[tuple[int, tuple[Replacement, ...]]]:
    """The replacements of each diagnostic's fix made alone on ``text``, by the diagnostic's
    place in ``diagnostics`` (a worker's copies are not the caller's objects).

    The file is read once. A fix inside an item of a List is made on that item read as a file
    of its own (``_item_edits``); any other on a copy of what was read (``_whole_files``).
    """
    raw = text.encode("utf-8")
    try:
        read, documents = _editable(path, raw)
    except NotEditable:
        return
    whole = _whole_files(read, raw, len(diagnostics))
    for number, diag in enumerate(diagnostics):
        try:
            document = _document_for(documents, diag.span)
            edits = _item_edits(read, document, diag) if document is not None else None
            if edits is None:
                file = next(whole)
                edits = file.edits() if _fixed(file, documents, [diag]).applied else []
        except NotEditable:
            continue
        if edits:
            yield number, _replacements(path, text, edits)


def _whole_files(read: EditableFile, raw: bytes, fixes: int) -> Iterator[EditableFile]:
    """An unedited ``read`` of the file for each fix made on the whole file.

    Copies of ``read``: reading a file for editing costs ten times what copying it does.
    ruamel.yaml's copies drop some comments (one above the first key of a nested mapping), so
    a file whose copy does not print as the file does is read again for each fix instead;
    whether it does is asked at the first fix, and not at all for a file's only fix.
    """
    if fixes > 1 and read.copies_faithfully():
        while True:
            yield read.copy()
    yield read
    while True:
        yield EditableFile(read.path, raw)


def _item_edits(read: EditableFile, document: Document, diag: Diagnostic) -> list[LineEdit] | None:
    """The edits of ``diag``'s fix made on the item of the List ``document`` it is in, read as a
    file of its own (``EditableFile.item``), in the lines of the whole file; None when the
    finding is in no such item, or when its fix reaches the item's first line (the part holds
    no '-' there): the fix is then made on the whole file.

    A `kubectl get -o yaml` dump committed by mistake is one List with a fixable finding in
    nearly every item (60 in one 3,400-line file of the corpus); made on the whole file each
    fix printed all of it again, a third of a second, against milliseconds for its item.
    """
    if not _is_list(document):  # spare the walk over its paths: _fixed walks them for the fix
        return None
    found = path_at(document, diag.span)
    base = _object_base(document, found) if found is not None else ()
    if len(base) != 2 or not isinstance(base[1], int):
        return None
    index = base[1]
    item = document.locate(base)
    if document.has_path(("items", index + 1)):
        stop = document.locate(("items", index + 1)).line - 1
    else:  # the last item ends with the items: at the start of a line (the List's next key), or mid-line
        items = document.locate(("items",))
        stop = items.end_line - 1 if items.end_column == 1 else items.end_line
    start = item.line - 1
    part = read.item(start, stop, item.column - 1)
    if part is None:
        return None
    documents = load(SourceText(read.path, part.text)).documents
    if len(documents) != 1:
        return None
    span = diag.span._replace(line=diag.span.line - start, end_line=diag.span.end_line - start)
    if not _fixed(part, documents, [dataclasses.replace(diag, span=span)]).applied:
        return []
    edits = part.edits()
    if any(edit.start == 0 for edit in edits):
        return None
    return [LineEdit(edit.start + start, edit.end + start, edit.lines) for edit in edits]
