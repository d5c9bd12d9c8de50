"""Finding a rendered key in the file it came from (a Helm template, a Kustomize resource or patch).

A template is not YAML (``{{ ... }}`` lines, keys produced by ``include``), so it is read as
lines: a key is located when exactly one line in the file holds it literally under the same
chain of parent keys as in the rendered document. Anything less certain returns None, and the
caller falls back to the document's first line; a wrong line would be worse than a coarse one.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_KEY_RE = re.compile(
    r"""^(?P<indent>\s*)(?P<dashes>(?:-\s+)*)(?P<quote>["']?)(?P<key>[^\s"'#{}:][^"'#{}]*?)(?P=quote)\s*:(?:\s|$)"""
)


class KeyLine(NamedTuple):
    """A key's place in a file: 1-based line, 1-based column of the key, and the line's text."""

    line: int
    column: int
    key: str
    text: str

    @property
    def value_column(self) -> int | None:
        """1-based column where the key's inline value starts, None when it has none."""
        rest = self.text[self.column - 1 + len(self.key) :]
        colon = rest.find(":")
        value = rest[colon + 1 :] if colon >= 0 else ""
        if not value.strip() or value.strip().startswith("#"):
            return None
        return self.column + len(self.key) + colon + 1 + (len(value) - len(value.lstrip()))

    @property
    def value_text(self) -> str:
        start = self.value_column
        return self.text[start - 1 :].split(" #")[0].rstrip() if start else ""


def _key_at(text: str) -> tuple[int, int, str] | None:
    """(column of the first dash or the key, 0-based column of the key, key) on one line."""
    match = _KEY_RE.match(text)
    if match is None:
        return None
    start = len(match.group("indent"))
    key_column = match.start("key") - len(match.group("quote"))
    return start, key_column, match.group("key").strip()


def _ancestors(lines: list[str], index: int, column: int) -> list[str]:
    """Parent keys of the key at ``lines[index]``/``column``, nearest first, up to the
    document start; template-only lines (``{{ ... }}``) and comments are passed over.

    A parent key sits left of its child; inside a list item (``- ``) the list's own key may
    share the dash's column, so after a dash the next parent may be at that column too.
    """
    out: list[str] = []
    limit, strict = column, True
    for text in reversed(lines[:index]):
        stripped = text.strip()
        if stripped.startswith("---"):
            break
        if not stripped or stripped.startswith(("#", "{{")):
            continue
        indent = len(text) - len(text.lstrip())
        found = _key_at(text)
        if found is not None and (found[1] < limit or (not strict and found[1] <= limit)):
            out.append(found[2])
            limit, strict = found[1], True
        if stripped.startswith("-") and indent < limit:
            limit, strict = indent, False
    return out


def sections(text: str) -> list[tuple[int, int]]:
    """1-based (first, last) lines of each ``---``-separated part of ``text`` that holds a
    top-level key, in order: the documents a template or a multi-document file renders."""
    out: list[tuple[int, int]] = []
    lines = text.split("\n")
    start, has_key = 1, False
    for number, line in enumerate(lines + ["---"], 1):
        if line.startswith("---"):
            if has_key:
                out.append((start, number - 1))
            start, has_key = number + 1, False
        elif _key_at(line) is not None and not line[:1].isspace() and not line.startswith("-"):
            has_key = True
    return out


def locate_key(text: str, keys: list[str], within: tuple[int, int] | None = None) -> KeyLine | None:
    """The one line of ``text`` holding the last of ``keys`` under the others as its parents.

    ``keys`` is the rendered path's mapping keys, outermost first (list indexes left out);
    ``within`` limits the search to a range of lines (one document of the file).
    A line matches when its chain of parent keys in the file is exactly ``keys[:-1]``; a key
    that reaches the document through ``include`` or ``toYaml`` is not in the file literally
    and is not found.
    """
    if not keys:
        return None
    lines = text.split("\n")
    candidates: list[KeyLine] = []
    first, last = within if within is not None else (1, len(lines))
    for index, line in enumerate(lines[first - 1 : last], first - 1):
        found = _key_at(line)
        if found is None or found[2] != keys[-1]:
            continue
        parents = _ancestors(lines, index, found[1])
        if parents == list(reversed(keys[:-1])):
            candidates.append(KeyLine(index + 1, found[1] + 1, keys[-1], line))
    return candidates[0] if len(candidates) == 1 else None


def document_start(text: str, within: tuple[int, int] | None = None) -> int:
    """1-based first line of the document holding the file's top-level ``kind:`` key (of the
    document ``within`` those lines, if given), blank lines and comments passed over; 1 when
    no single document fits."""
    lines = text.split("\n")
    kind = locate_key(text, ["kind"], within)
    if kind is None:
        return within[0] if within is not None else 1
    start = kind.line - 1
    while start > 0 and not lines[start - 1].startswith("---"):
        start -= 1
    while start < kind.line - 1 and (not lines[start].strip() or lines[start].lstrip().startswith("#")):
        start += 1
    return start + 1
