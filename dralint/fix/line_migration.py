"""The v1 migration (API012's fix) made as line edits at dralint's own positions.

ruamel.yaml's round-trip read of a document and its two printouts (``document.EditableFile``)
cost some 2.7 ms of CPU, against 60 µs for dralint to read, validate and check the same
12-line template: on a file of 1,500 v1beta1 ResourceClaimTemplates, SARIF's fixes and
``dralint fix`` took 19 times what a JSON report did. Most migrations are two kinds of line
edit: ``apiVersion``'s value changes, and a request's device fields move, lines and all, one
indentation step deeper under a new ``exactly:``. This module makes those on block-style
YAML, where each key of a request starts its own line, and declines (None) anything else,
which ruamel.yaml then edits as before.

What the result must be is not decided twice: ``convert.convert_in_place`` runs on the plain
data, and the edited lines are kept only when dralint's reader reads them back as exactly the
data it gave. Untouched lines keep their bytes; moved lines keep theirs after the new
indentation, end-of-line and full-line comments included.
"""

from __future__ import annotations

import copy
from itertools import pairwise
from typing import Any, NamedTuple

from dralint.fix import convert
from dralint.fix.document import LineEdit
from dralint.yaml.loader import DataPath, Document, SourceText, load


class Migration(NamedTuple):
    """The line edits of one document's migration, and what it changed (as ``convert`` says)."""

    edits: list[LineEdit]
    changes: list[str]


def migration(lines: list[str], document: Document, indent: int) -> Migration | None:
    """``document`` migrated to resource.k8s.io/v1 as edits of ``lines`` (the file's lines,
    in the document's coordinates), or None when the edit is not a matter of moving lines
    (a v1beta1 ResourceSlice's device fields leave ``basic``: the read-back tells)."""
    data = document.data
    if document.item is not None or not convert.convertible(data):
        return None
    converted = copy.deepcopy(data)
    try:
        changes = convert.convert_in_place(converted, indent)
    except convert.ConversionError:
        return None  # the ruamel.yaml path reports the reason
    edits = [_value_edit(lines, document, ("apiVersion",), data["apiVersion"], convert.TARGET)]
    old_requests, new_requests = _requests(data), _requests(converted)
    for index, (old, new) in enumerate(zip(old_requests, new_requests, strict=True)):
        if old != new:
            edits.append(_request_edit(lines, document, _requests_path(data) + (index,), old, new, indent))
    if any(edit is None for edit in edits):
        return None
    kept = sorted(edit for edit in edits if edit is not None)
    return Migration(kept, changes) if _reads_as(lines, document, kept, converted) else None


def _requests_path(obj: dict[str, Any]) -> DataPath:
    spec = ("spec", "spec") if obj.get("kind") == "ResourceClaimTemplate" else ("spec",)
    return spec + ("devices", "requests")


def _requests(obj: dict[str, Any]) -> list[Any]:
    """The object's claim requests (none for other kinds or shapes)."""
    if obj.get("kind") not in ("ResourceClaim", "ResourceClaimTemplate"):
        return []
    node: Any = obj
    for step in _requests_path(obj):
        node = node.get(step) if isinstance(node, dict) else None
    return node if isinstance(node, list) else []


def _value_edit(lines: list[str], document: Document, path: DataPath, old: str, new: str) -> LineEdit | None:
    """The one-line scalar at ``path`` rewritten from ``old`` to ``new`` in its own quoting."""
    span = document.locate(path)
    if span.end_line != span.line:
        return None
    line = lines[span.line - 1]
    start, end = span.column - 1, span.end_column - 1
    written = line[start:end]
    if written.count(old) != 1:
        return None  # an escape inside quotes, or the text is not where the reader put it
    return LineEdit(span.line - 1, span.line, (line[:start] + written.replace(old, new) + line[end:],))


class _Block(NamedTuple):
    """A block mapping's lines: the column of its keys, what is before its first key on that
    line ("- " for a sequence item), and the lines each key's entry spans."""

    column: int
    prefix: str
    start: int
    stop: int
    entries: dict[str, list[str]]


def _block(lines: list[str], document: Document, path: DataPath, keys: list[str]) -> _Block | None:
    """The lines of the mapping at ``path``, when each of its keys starts a line of its own at
    one column and no tab indents them."""
    if not keys:
        return None
    key_spans = [document.locate(path + (key,), key=True) for key in keys]
    column = key_spans[0].column - 1
    starts = [span.line - 1 for span in key_spans]
    if any(span.column - 1 != column for span in key_spans) or any(b <= a for a, b in pairwise(starts)):
        return None
    prefix = lines[starts[0]][:column]
    if prefix.strip() not in ("", "-") or "\t" in prefix:
        return None
    last = document.locate(path + (keys[-1],))
    if last.end_line > len(lines):
        return None
    # A value that ends mid-line ends on its line; a block value ends where the next line starts.
    stop = last.end_line if lines[last.end_line - 1][: last.end_column - 1].strip() else last.end_line - 1
    if stop <= starts[-1]:
        return None
    region = [" " * column + lines[starts[0]][column:], *lines[starts[0] + 1 : stop]]
    if any("\t" in line[: len(line) - len(line.lstrip())] for line in region):
        return None
    bounds = [start - starts[0] for start in starts] + [stop - starts[0]]
    entries = {key: region[a:b] for key, (a, b) in zip(keys, pairwise(bounds), strict=True)}
    return _Block(column, prefix, starts[0], stop, entries)


def _deeper(line: str, column: int, indent: int) -> str:
    """A line of an entry moved one level deeper (blank lines and comments left of the
    mapping stay as they are)."""
    return " " * indent + line if line.strip() and len(line) - len(line.lstrip(" ")) >= column else line


def _request_edit(
    lines: list[str], document: Document, path: DataPath, old: Any, new: Any, indent: int
) -> LineEdit | None:
    """The request's lines rearranged into ``new``'s key order: its own entries where they
    stay, a new mapping's entries one step deeper under its key, dropped entries gone."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return None
    block = _block(lines, document, path, list(old))
    if block is None:
        return None
    out: list[str] = []
    for key, value in new.items():
        if key in old:
            out.extend(block.entries[key])
        elif isinstance(value, dict) and value and all(inner in old for inner in value):
            out.append(" " * block.column + f"{key}:")
            for inner in value:
                out.extend(_deeper(line, block.column, indent) for line in block.entries[inner])
        else:
            return None
    out[0] = block.prefix + out[0][block.column :]
    return LineEdit(block.start, block.stop, tuple(out))


def _reads_as(lines: list[str], document: Document, edits: list[LineEdit], expected: Any) -> bool:
    """Whether the document's lines with ``edits`` made read, to dralint, as ``expected``."""
    root = document.locate(())
    if root.column != 1 or root.end_line > len(lines):
        return False
    stop = root.end_line if lines[root.end_line - 1][: root.end_column - 1].strip() else root.end_line - 1
    start = root.line - 1
    if any(edit.start < start or edit.end > stop for edit in edits):
        return False
    edited: list[str] = []
    position = start
    for edit in edits:
        edited.extend(lines[position : edit.start])
        edited.extend(edit.lines)
        position = edit.end
    edited.extend(lines[position:stop])
    read = load(SourceText(document.path, "".join(line + "\n" for line in edited)))
    return not read.problems and len(read.documents) == 1 and read.documents[0].data == expected
