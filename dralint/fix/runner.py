"""Running fixes on files: lint, apply the fixes of fixable findings, re-lint, keep or reject.

A file is linted on its own, its fixable findings are fixed in one pass, and the result is
linted again. If that introduced an error that was not there before (counted per rule and
object, since positions and field paths move), the fixes are retried one at a time and each
one that introduces an error is left out and reported. A fix can uncover a finding the next
pass fixes (renaming ``Status`` to ``status`` turns it into a server-written field to remove),
so passes repeat until nothing changes, at most :data:`MAX_PASSES` times.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import errno
import os
import re
import stat
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from dralint.diagnostics import Diagnostic, Replacement, Severity, Span
from dralint.fix.document import EditableFile, LineEdit, NotEditable
from dralint.fix.fixers import FixError, Target, fixers, priority
from dralint.fix.line_migration import migration
from dralint.lint.catalog import load_catalog
from dralint.lint.engine import ENGINE_RULES, RunResult, run
from dralint.lint.options import LintOptions
from dralint.lint.parallel import available_cpus, ordered_map
from dralint.yaml.loader import DataPath, Document, SourceText, iter_paths, load
from dralint.yaml.sources import FileIssue, SourceFile, decode

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


class _Documents:
    """A file's documents as dralint reads them, found by position (by bisection: a file of
    1,500 documents has as many findings to place)."""

    __slots__ = ("documents", "_starts")

    def __init__(self, documents: list[Document]) -> None:
        self.documents = documents
        self._starts = [(start.line, start.column) for start in (d.locate(()) for d in documents)]

    def at(self, span: Span) -> Document | None:
        """The document ``span`` is in: the last one starting at or before it."""
        number = bisect.bisect_right(self._starts, (span.line, span.column)) - 1
        return self.documents[number] if number >= 0 else None


class FixPass:
    """One application of fixes to a file: the edits, the new bytes, and what each fix did."""

    __slots__ = ("edits", "fixed", "applied", "skipped", "failed")

    def __init__(self, fixed: bytes) -> None:
        self.edits: list[LineEdit] = []
        self.fixed = fixed
        self.applied: list[tuple[Diagnostic, str]] = []
        self.skipped: list[Diagnostic] = []
        self.failed: list[tuple[Diagnostic, str]] = []


def _editable(path: str, raw: bytes) -> tuple[EditableFile, _Documents]:
    """One file's bytes read for editing, and as dralint reads them (where diagnostics point).
    ruamel.yaml reads the file only when a fix is made on the whole of it (``_whole``)."""
    file = EditableFile(path, raw)
    return file, _Documents(load(SourceText(path, file.text)).documents)


def _whole(file: EditableFile, documents: _Documents) -> EditableFile:
    """``file`` read whole by ruamel.yaml, which must see the documents dralint sees."""
    if len(documents.documents) != len(file.documents):
        raise NotEditable(f"dralint sees {len(documents.documents)} documents, ruamel.yaml {len(file.documents)}")
    return file


def apply_fixes(path: str, raw: bytes, diagnostics: Iterable[Diagnostic], jobs: int = 1) -> FixPass:
    """Apply the fixes of ``diagnostics`` (found by linting ``raw``) to one file's bytes, the
    documents of a file of several on up to ``jobs`` processes.

    In a file of several documents, each document's fixes are made on the document read as
    a file of its own (``_in_documents``): made on the whole file, the printout of the whole
    file and the matching of its lines took time in the square of the documents (27 s for
    400 v1beta1 ResourceClaimTemplates, over ten minutes for 1,500).
    """
    diagnostics = list(diagnostics)
    file, documents = _editable(path, raw)
    done = _in_documents(file, documents, diagnostics, jobs)
    if done is None and len(documents.documents) == 1:
        done = _migrated(file, documents.documents[0], diagnostics)
    if done is None:
        done = _fixed(_whole(file, documents), documents, diagnostics)
        done.edits = file.edits()
    done.fixed = file.result(done.edits)
    return done


class _DocumentLines:
    """The lines of each document of a file of several (``EditableFile.document_lines``)."""

    __slots__ = ("ranges", "_starts")

    def __init__(self, file: EditableFile) -> None:
        ranges = file.document_lines()
        self.ranges = ranges if ranges is not None and len(ranges) > 1 else []
        self._starts = [start for start, _ in self.ranges]

    def of(self, document: Document) -> tuple[int, int] | None:
        """The lines ``document`` is read from; None in a file of one document, or none known."""
        if not self.ranges or document.item is not None:
            return None
        return self.ranges[bisect.bisect_right(self._starts, document.locate(()).line - 1) - 1]


def _in_documents(
    file: EditableFile, documents: _Documents, diagnostics: list[Diagnostic], jobs: int = 1
) -> FixPass | None:
    """The fixes made document by document (see ``apply_fixes``), on up to ``jobs`` processes,
    or None when some finding is in no document that reads as a file of its own."""
    ranges = _DocumentLines(file)
    by_range: dict[tuple[int, int], list[Diagnostic]] = {}
    for diag in diagnostics:
        document = documents.at(diag.span)
        lines = ranges.of(document) if document is not None else None
        if lines is None:
            return None
        by_range.setdefault(lines, []).append(diag)
    tasks = sorted(by_range.items())

    def send(index: int, made: FixPass | None) -> tuple | None:
        """A part's fixes as numbers into its findings: the receiver rebuilds them from its own."""
        if made is None:
            return None
        number = {id(diag): k for k, diag in enumerate(tasks[index][1])}
        return (
            made.edits,
            [(number[id(d)], text) for d, text in made.applied],
            [number[id(d)] for d in made.skipped],
            [(number[id(d)], why) for d, why in made.failed],
        )

    def receive(index: int, sent: tuple | None) -> FixPass | None:
        if sent is None:
            return None
        wanted = tasks[index][1]
        made = FixPass(file.raw)
        made.edits = sent[0]
        made.applied = [(wanted[k], text) for k, text in sent[1]]
        made.skipped = [wanted[k] for k in sent[2]]
        made.failed = [(wanted[k], why) for k, why in sent[3]]
        return made

    done = FixPass(file.raw)
    parts = ordered_map(
        lambda index: (
            _migrated(file, documents.at(tasks[index][1][0].span), tasks[index][1])
            or _part_fixed(file, *tasks[index][0], 0, tasks[index][1])
        ),
        len(tasks),
        min(jobs, max(1, len(tasks) // _FIXES_PER_SHARE)),
        send=send,
        receive=receive,
    )
    for made in parts:
        if made is None:
            parts.close()
            return None
        done.applied.extend(made.applied)
        done.skipped.extend(made.skipped)
        done.failed.extend(made.failed)
        done.edits.extend(made.edits)
    return done


def _migrated(file: EditableFile, document: Document | None, diagnostics: list[Diagnostic]) -> FixPass | None:
    """The fix of ``document``'s one finding when it is API012's migration and its lines can be
    moved without ruamel.yaml (``line_migration``: 0.15 ms a document against 2.7 ms); else None."""
    if document is None or len(diagnostics) != 1 or diagnostics[0].rule != "API012":
        return None
    if file.is_json or file.odd_breaks or _is_list(document):
        return None
    try:
        found = migration(file.lines, document, file.indent)
    except Exception as error:  # as in ``_fixed``: a bug here must not take the run down
        raise NotEditable(
            f"internal error in the API012 fix, please report it: {type(error).__name__}: {error}"
        ) from error
    if found is None:
        return None
    done = FixPass(file.raw)
    done.edits = found.edits
    done.applied = [(diagnostics[0], "; ".join(found.changes))]
    return done


def _part_fixed(
    file: EditableFile, start: int, stop: int, column: int, diagnostics: list[Diagnostic]
) -> FixPass | None:
    """The fixes of ``diagnostics`` made on lines ``start`` to ``stop`` of ``file`` read as a
    file of their own (``EditableFile.part``), with the edits in the lines of the whole file
    and the records naming the findings as given; None when the lines do not read as one
    document, or when an edit reaches the first line of a List item (the part holds no '-'
    there)."""
    part = file.part(start, stop, column)
    if part is None:
        return None
    read = load(SourceText(file.path, part.text)).documents
    if len(read) != 1:
        return None
    shifted = [
        dataclasses.replace(
            diag, span=diag.span._replace(line=diag.span.line - start, end_line=diag.span.end_line - start)
        )
        for diag in diagnostics
    ]
    made = _fixed(part, _Documents(read), shifted)
    edits = part.edits() if made.applied else []
    if column and any(edit.start == 0 for edit in edits):
        return None
    original = {id(moved): diag for moved, diag in zip(shifted, diagnostics, strict=True)}
    done = FixPass(file.raw)
    done.applied = [(original[id(d)], text) for d, text in made.applied]
    done.skipped = [original[id(d)] for d in made.skipped]
    done.failed = [(original[id(d)], why) for d, why in made.failed]
    done.edits = [LineEdit(edit.start + start, edit.end + start, edit.lines) for edit in edits]
    return done


def _fixed(file: EditableFile, documents: _Documents, diagnostics: Iterable[Diagnostic]) -> FixPass:
    """``file`` with the fixes of ``diagnostics`` made in its documents, and what each fix did
    (the edits and bytes are left to the caller, who may not need both)."""
    done = FixPass(file.raw)
    registry = fixers()
    for diag in sorted(diagnostics, key=lambda d: (priority(d.rule), d.span.line, d.span.column)):
        document = documents.at(diag.span)
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
    """Fix one file's content; nothing is written.

    A file whose lines end with a lone CR (old Mac style) is fixed with LF line ends and given
    its CRs back: YAML reads CR as a line end, which the printout-matching of ``EditableFile``
    does not, and it matched the whole file as one line.
    """
    wanted = fixable_rules() if rules is None else rules & fixable_rules()
    if b"\r" not in raw or b"\n" in raw:
        return _fix_passes(path, raw, options, wanted)
    outcome = _fix_passes(path, raw.replace(b"\r", b"\n"), options, wanted)
    outcome.original = raw
    outcome.fixed = outcome.fixed.replace(b"\n", b"\r")
    return outcome


def _fix_passes(path: str, raw: bytes, options: LintOptions, wanted: set[str]) -> FileFix:
    """``fix_bytes``: passes of lint, fix, lint again, until nothing changes."""
    outcome = FileFix(path, raw, raw)
    tried: set[tuple] = set()
    linted = None  # the lint of outcome.fixed, when the last pass made it
    for _ in range(MAX_PASSES):
        before = linted or _lint(path, outcome.fixed, options)
        linted = None
        candidates = _candidates(before, wanted, tried) if before is not None else []
        if before is None or not candidates:
            break
        for diag, reason in _beside_duplicate_keys(path, outcome.fixed, before, candidates):
            tried.add(_key(diag))
            outcome.rejected.append(_record(diag, "not fixed", reason))
        candidates = [d for d in candidates if _key(d) not in tried]
        if not candidates:
            break
        try:
            batch = apply_fixes(path, outcome.fixed, candidates, options.jobs or available_cpus())
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
            linted = after
            continue
        try:
            _one_by_one(outcome, [d for d, _ in batch.applied], options, tried)
        except NotEditable as error:
            outcome.problem = str(error)
            break
    return outcome


def _beside_duplicate_keys(
    path: str, raw: bytes, linted: RunResult, candidates: list[Diagnostic]
) -> list[tuple[Diagnostic, str]]:
    """The findings in a document with a duplicate key, each with why its fix is held back.

    dralint reads the last of two equal keys, as the API server does; ruamel.yaml edits the
    first. A fix made there edited the copy nobody reads, said it was fixed, and left the
    finding for a second run (which then could not fix it either).
    """
    duplicates = [d for d in linted.diagnostics if d.rule == ENGINE_RULES["duplicate-key"]]
    source = decode(path, raw) if duplicates else None
    if not isinstance(source, SourceFile):
        return []
    documents = _Documents(load(SourceText(path, source.text)).documents)
    first: dict[int, Diagnostic] = {}
    for duplicate in duplicates:
        document = documents.at(duplicate.span)
        if document is not None:
            first.setdefault(id(document), duplicate)
    held = []
    for diag in candidates:
        document = documents.at(diag.span)
        found = first.get(id(document)) if document is not None else None
        if found is not None:
            where = f"line {found.span.line}, column {found.span.column}"
            held.append((diag, f"its document has a duplicate key ({found.rule} at {where}); remove it first"))
    return held


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


def refusal(path: str, trees: Iterable[str] = ()) -> str | None:
    """Why ``path`` must not be rewritten by a fix, or None.

    A fix replaces a file by a new one (``write_atomically``), which would take it over from
    its owner, break its hard links, turn a FIFO or device into a file, or write through a
    symbolic link to wherever it leads: each of those is refused, and so is a read-only file
    (its owner said it must not change). A symbolic link is followed only to a file under the
    link's own directory, the current one, or one of ``trees`` (the directories being fixed).
    """
    real = os.path.realpath(path)
    within = map(os.path.realpath, (os.path.dirname(path) or ".", ".", *trees))
    if os.path.islink(path) and not any(os.path.commonpath([real, tree]) == tree for tree in within):
        return f"it is a symbolic link to {real}, outside the tree being fixed; name {real} to fix it"
    try:
        info = os.stat(real)
    except OSError as error:
        return f"cannot stat it: {error.strerror or error}"
    if not stat.S_ISREG(info.st_mode):
        return "it is not a regular file"
    if info.st_mode & 0o222 == 0:
        return "the file is read-only; left unchanged"
    if info.st_nlink > 1:
        return f"it has {info.st_nlink} hard links, which a rewrite would break; left unchanged"
    if info.st_uid != os.geteuid() and os.geteuid() != 0:
        return f"it belongs to user {info.st_uid}, who would lose it to a rewrite; left unchanged"
    return None


def write_atomically(path: str, content: bytes, trees: Iterable[str] = ()) -> None:
    """Replace a file's content without a window where it is half written, keeping its mode,
    owner and group (``refusal`` says which files are never replaced).

    The new content goes to a temporary file beside the file, renamed over it once complete;
    the temporary file is removed on any failure or interruption Python sees (the CLI turns
    SIGTERM and SIGHUP into one); only SIGKILL or a crash of the system can leave it.
    """
    why = refusal(path, trees)
    if why is not None:
        raise PermissionError(errno.EACCES, why, path)
    target = os.path.realpath(path)
    info = os.stat(target)
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(target) or ".", prefix=".dralint-fix-")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        mine = os.stat(temporary)
        if (mine.st_uid, mine.st_gid) != (info.st_uid, info.st_gid):
            try:
                os.chown(temporary, info.st_uid, info.st_gid)
            except PermissionError as error:
                raise PermissionError(errno.EPERM, "cannot keep its group; left unchanged", path) from error
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


# --- replacement regions for SARIF ``fixes[]`` ---------------------------------------------


class _Regions:
    """Line edits of one text as SARIF replacement regions, every one inside the file: an edit
    that reaches the end of the file ends its region at the last line, after its last
    character (the file's final line end stays, so the inserted text gives up its own), as
    every position dralint reports does. The line count and the last lines' lengths are found
    once per file: found for each fix, they cost time in the square of the file."""

    __slots__ = ("count", "_text", "_starts")

    def __init__(self, text: str) -> None:
        self._text = text
        # Where each line starts, and where the text ends as if it had a final line end.
        self._starts = [0, *(match.end() for match in re.finditer("\n", text))]
        if self._starts[-1] < len(text):
            self._starts.append(len(text) + 1)
        self.count = len(self._starts) - 1

    def _length(self, line: int) -> int:
        """The length of 1-based ``line`` as positions count it: without its line end (a CR
        before the LF included)."""
        start, stop = self._starts[line - 1], self._starts[line] - 1
        return stop - start - (self._text[stop - 1 : stop] == "\r" and stop > start)

    def of(self, path: str, edits: list[LineEdit]) -> tuple[Replacement, ...]:
        out = []
        for edit in edits:
            inserted = "".join(line + "\n" for line in edit.lines)
            if edit.end < self.count:
                region = Span(path, edit.start + 1, 1, edit.end + 1, 1)
            elif inserted or edit.start == 0:
                region = Span(path, edit.start + 1, 1, self.count, self._length(self.count) + 1)
                inserted = inserted[:-1]
            else:  # the last lines removed: from the end of the line before them
                region = Span(path, edit.start, self._length(edit.start) + 1, self.count, self._length(self.count) + 1)
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

    The file is read once. A fix is made on the part of the file it is in, read as a file of
    its own: the item of a List (``_item_lines``), else the document of a file of several;
    any other on a copy of the whole file as read (``_whole_files``).
    """
    raw = text.encode("utf-8")
    try:
        read, documents = _editable(path, raw)
    except NotEditable:
        return
    ranges = _DocumentLines(read)
    regions = _Regions(text)
    whole: Iterator[EditableFile] | None = None
    for number, diag in enumerate(diagnostics):
        try:
            made = _alone_in_part(read, documents, ranges, diag)
            if made is not None:
                edits = made.edits
            else:
                whole = whole or _whole_files(_whole(read, documents), raw, len(diagnostics))
                file = next(whole)
                edits = file.edits() if _fixed(file, documents, [diag]).applied else []
        except NotEditable:
            continue
        if edits:
            yield number, regions.of(path, edits)


def _alone_in_part(
    read: EditableFile, documents: _Documents, ranges: _DocumentLines, diag: Diagnostic
) -> FixPass | None:
    """``diag``'s fix made alone on its List item, or else on its document, read as a file of
    its own; None when it is in neither (or its fix reaches the item's first line)."""
    document = documents.at(diag.span)
    if document is None:
        return None
    migrated = _migrated(read, document, [diag])
    if migrated is not None:
        return migrated
    item = _item_lines(document, diag.span)
    made = _part_fixed(read, *item, [diag]) if item is not None else None
    lines = ranges.of(document) if made is None else None
    return _part_fixed(read, *lines, 0, [diag]) if lines is not None else made


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


def _item_lines(document: Document, span: Span) -> tuple[int, int, int] | None:
    """(start, stop, column): the lines (0-based, stop excluded) of the item of the List
    ``document`` that ``span`` is in, and the column its content starts at after its '-';
    None when the span is in no item.

    A `kubectl get -o yaml` dump committed by mistake is one List with a fixable finding in
    nearly every item (60 in one 3,400-line file of the corpus); made on the whole file each
    fix printed all of it again, a third of a second, against milliseconds for its item.
    The items' places are found once per document (``Document.derived``).
    """
    if not _is_list(document):
        return None
    places = document.derived.get(_item_lines)
    if places is None:
        found = (document.locate(("items", index)) for index in range(len(document.data["items"])))
        items = document.locate(("items",))
        # the last item ends with the items: at the start of a line (the List's next key), or mid-line
        last_stop = items.end_line - 1 if items.end_column == 1 else items.end_line
        places = ([(p.line, p.column) for p in found], last_stop, (items.end_line, items.end_column))
        document.derived[_item_lines] = places
    starts, last_stop, items_end = places
    where = (span.line, span.column)
    index = bisect.bisect_right(starts, where) - 1
    if index < 0 or where >= items_end:
        return None
    stop = starts[index + 1][0] - 1 if index + 1 < len(starts) else last_stop
    line, column = starts[index]
    return line - 1, stop, column - 1
