"""Where an editor's cursor stands in a manifest: which key or value, which CEL expression,
and what a completion there would complete.

Positions here are 0-based lines and columns in characters of the text as dralint reads it;
the server converts the editor's units.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from dralint.yaml.loader import DataPath, Document, SourceText, iter_paths, load

#: ``device.attributes["domain"].name`` (or ``capacity``) around a cursor, in a CEL expression.
_FIELD_RE = re.compile(r'device\.(attributes|capacity)\[\s*"([^"]+)"\s*\]\.([A-Za-z_][A-Za-z0-9_]*)')
#: A selector typed up to a domain's opening quote, and the part of the domain typed so far.
_DOMAIN_PREFIX_RE = re.compile(r'device\.(attributes|capacity)\[\s*"([^"\s]*)$')
#: A selector typed up to a domain's field, and the part of the name typed so far.
_NAME_PREFIX_RE = re.compile(r'device\.(attributes|capacity)\[\s*"([^"]+)"\s*\]\.([A-Za-z0-9_]*)$')
#: A ``deviceClassName:`` key with the part of the value typed so far, up to the cursor.
_CLASS_PREFIX_RE = re.compile(r"""^\s*(?:-\s+)*deviceClassName:\s*["']?([A-Za-z0-9.-]*)$""")


class At(NamedTuple):
    """A string scalar under the cursor: its document, path and value, and the cursor's
    offset in the value (None when the cursor is on the key)."""

    document: Document
    path: DataPath
    value: str
    offset: int | None


def documents(path: str, text: str) -> list[Document]:
    """The YAML documents of an editor's text (whatever parses of it)."""
    return load(SourceText(path, text)).documents


def is_cel(path: DataPath) -> bool:
    return len(path) >= 2 and path[-2:] == ("cel", "expression")


def string_at(docs: list[Document], line: int, column: int) -> At | None:
    """The string scalar whose key or value holds the cursor; the deepest one wins."""
    where = (line + 1, column + 1)
    for doc in docs:
        if not _inside(doc.locate(()), where):
            continue
        found: At | None = None
        for path, value in iter_paths(doc.data):
            if not path or not isinstance(value, str):
                continue
            # The value's span first: mapping a scalar's characters to the file costs more.
            offset = doc.scalar_offset_at(path, line, column) if _inside(doc.locate(path), where) else None
            if offset is not None:
                found = At(doc, path, value, offset)
            elif isinstance(path[-1], str) and _inside(doc.locate(path, key=True), where):
                found = At(doc, path, value, None)
        if found is not None:
            return found
    return None


def _inside(span: Any, where: tuple[int, int]) -> bool:
    """Whether ``where`` is in ``span`` or just after its end (a cursor after a word)."""
    return (span.line, span.column) <= where <= (span.end_line, span.end_column)


class CelField(NamedTuple):
    """``device.<map>["<domain>"].<name>`` in a CEL expression."""

    map: str
    domain: str
    name: str


def field_at(expression: str, offset: int) -> CelField | None:
    """The attribute or capacity reference that the CEL ``offset`` falls in."""
    for match in _FIELD_RE.finditer(expression):
        if match.start() <= offset <= match.end():
            return CelField(match.group(1), match.group(2), match.group(3))
    return None


class Completing(NamedTuple):
    """What the text before a cursor asks to complete: ``domain``, ``name`` (of ``domain``
    in ``map``) or ``class``; ``typed`` is the part already typed, which the item replaces."""

    what: str
    map: str
    domain: str
    typed: str


def completing_cel(expression: str, offset: int) -> Completing | None:
    before = expression[:offset]
    if match := _NAME_PREFIX_RE.search(before):
        return Completing("name", match.group(1), match.group(2), match.group(3))
    if match := _DOMAIN_PREFIX_RE.search(before):
        return Completing("domain", match.group(1), "", match.group(2))
    return None


def completing_line(line_text: str) -> Completing | None:
    """A ``deviceClassName:`` value being typed (read from the line: it need not parse yet)."""
    if match := _CLASS_PREFIX_RE.match(line_text):
        return Completing("class", "", "", match.group(1))
    return None
