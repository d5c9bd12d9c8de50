"""The positions tree kept beside a document's data, shared by both YAML readers.

A position is ``(line, column, end_line, end_column, style)``: 0-based, as libyaml reports
them. A mapping's or a list's position has a sixth element, the positions of its entries: for a
list, one position per item; for a mapping, key -> an entry made by ``mapping_entry``.
Positions so form a tree beside the data, which ``pickle`` stores and restores in one C call
each way.
"""

from __future__ import annotations

from typing import Any

Pos = tuple[Any, ...]


def mapping_entry(key: str, key_pos: Pos, value_pos: Pos) -> tuple:
    """A mapping entry's positions: ``(key position, value position)``, or for the usual key, a
    plain one-line scalar whose text is the key itself, ``(key line, key column, value
    position)``: its end follows from its text. That takes a sixth off a frozen document and
    leaves fewer objects to expand."""
    line, column, end_line, end_column, style = key_pos
    if style == "" and end_line == line and end_column - column == len(key):
        return (line, column, value_pos)
    return (key_pos, value_pos)


def entry_key_pos(key: str, entry: tuple) -> Pos:
    """The key position of an entry made by ``mapping_entry``; the value's is ``entry[-1]``."""
    if len(entry) == 2:
        return entry[0]
    line, column = entry[0], entry[1]
    return (line, column, line, column + len(key), "")
