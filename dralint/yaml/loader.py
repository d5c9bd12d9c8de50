"""YAML documents with exact source positions, built from libyaml's event stream.

Why events instead of ``yaml.load``: composing from events with an explicit stack gives every
key, value and item its position at almost the cost of a plain load, catches duplicate keys (which
PyYAML silently drops and the API server rejects), and bounds alias expansion and nesting depth
without recursion, so hostile input cannot exhaust the stack or memory.

Scalars resolve the way Kubernetes' decoder (go-yaml v2 inside sigs.k8s.io/yaml) does:
``yes``/``on``/``y`` are booleans, ``0755`` is octal, and base-60 numbers and timestamps stay
strings.
"""

from __future__ import annotations

import bisect
import json
import marshal
import operator
import pickle
import re
import sys
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator
from functools import partial
from itertools import accumulate, repeat
from typing import Any, NamedTuple

import yaml
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

from dralint.diagnostics import Span
from dralint.yaml import blockfast
from dralint.yaml.libyaml import LOADER
from dralint.yaml.positions import Pos, entry_key_pos, mapping_entry
from dralint.yaml.scalars import key_text, out_of_range, resolve_plain, resolve_tagged
from dralint.yaml.strict import may_need_check, strict_problems

#: Nodes aliases may add to a document before it counts as an alias bomb. Only those count: the
#: nodes written out are bounded by the file's size (a ``kubectl get -o yaml`` dump of a large
#: cluster is one document of millions), the ones aliases repeat are not. Kubernetes' YAML
#: decoder (go-yaml) likewise limits only the share of nodes decoded through aliases.
MAX_EXPANDED_NODES = 1_000_000
#: Characters of scalars (keys and values) aliases may add to a document. Counting nodes alone
#: lets one long string anchored once and aliased a few thousand times through: a handful of
#: nodes, gigabytes of text for anything that copies the data (the schema validator, JSON).
#: Real manifests alias labels and small blocks: the corpus's largest is far below (see
#: docs/robustness.md), and 4 Mi characters is a quarter of ``MAX_DOCUMENT_CHARS``.
MAX_EXPANDED_CHARS = 4 * 1024 * 1024
#: The API server's YAML decoder (sigs.k8s.io/yaml v1.6.0 on go.yaml.in/yaml/v2 v2.4.4,
#: decode.go ``allowedAliasRatio``) refuses a document with "excessive aliasing": once it has
#: decoded more than 1,000 nodes, over 100 of them through aliases, the share of those may be
#: at most 99% up to 400,000 nodes, falling to 10% at 4,000,000. Its counts are the builder's:
#: every node, keys and alias nodes included, in document order; the share only grows while one
#: alias expands, so checking after each alias gives its verdict.
_ALIAS_RATIO_LOW, _ALIAS_RATIO_HIGH = 400_000, 4_000_000


def _allowed_alias_share(decoded: int) -> float:
    """The share of ``decoded`` nodes go-yaml lets come from aliases."""
    if decoded <= _ALIAS_RATIO_LOW:
        return 0.99
    if decoded >= _ALIAS_RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decoded - _ALIAS_RATIO_LOW) / (_ALIAS_RATIO_HIGH - _ALIAS_RATIO_LOW)


#: Nesting levels a document may have; Kubernetes objects rarely pass 30.
MAX_DEPTH = 256
#: Pickler calls per nesting level of a document frozen with its positions: the value's
#: container, and in the positions tree a mapping's table, the entry and the value's tuple.
_PICKLE_CALLS_PER_LEVEL = 4


def _freeze_tree(data: Any, positions: Pos) -> bytes:
    """``data`` and its ``positions`` as one pickle, however deep the loader let them be.

    The pickler recurses once per container, and Python stops it at its recursion limit
    (1,000 frames): a document nested 240 levels, within ``MAX_DEPTH``, would raise
    RecursionError. The limit is raised for the call to what ``MAX_DEPTH`` needs.
    """
    limit = sys.getrecursionlimit()
    needed = limit + _PICKLE_CALLS_PER_LEVEL * MAX_DEPTH
    sys.setrecursionlimit(needed)
    try:
        return pickle.dumps((data, positions), 5)
    finally:
        sys.setrecursionlimit(limit)


#: Characters a document, or an item of a List, may have before it is skipped unread. No
#: Kubernetes object comes near it: the API server refuses request bodies over 3 MiB
#: (k8s.io/apiserver, MaxRequestBodyBytes). Reading a document takes about 20 times its size
#: in memory, so this bounds a run's memory whatever a file holds. A List larger than this is
#: read, since its items are read one at a time.
MAX_DOCUMENT_CHARS = 16 * 1024 * 1024
#: A root ``kind:`` line naming a List, found in the text of a large document before it is read.
_LIST_KIND = re.compile(r"""(?m)^kind: *(["']?)\w*List\1 *(?: #.*)?\r?$""")

PathKey = str | int
DataPath = tuple[PathKey, ...]


class YamlProblem(NamedTuple):
    """A problem found while reading YAML, before any object exists."""

    kind: str  # syntax | yaml-1.2 | tab | duplicate-key | complex-key | alias-bomb | depth | not-mapping
    message: str
    line: int  # 0-based
    column: int  # 0-based
    end_line: int
    end_column: int
    related: tuple[tuple[int, int, str], ...] = ()


#: Characters of text split into lines at a time when indexing lines (see ``_line_starts``).
_INDEX_SLICE = 1 << 18


def _line_starts(text: str) -> array[int]:
    """Offsets where the lines of ``text`` start.

    Splitting a slice of the text and summing the lengths of its lines runs in C, a match
    object per line does not: half the time of ``re.finditer``, and the text report indexes
    every file it quotes. By slices, so the lines split at once are never a copy of a large file.
    """
    starts = array("I" if len(text) < 2**32 else "q", [0])
    for base in range(0, len(text), _INDEX_SLICE):
        lines = text[base : base + _INDEX_SLICE].split("\n")
        lines.pop()  # what follows the slice's last line break, or the whole slice if it has none
        ends = accumulate(map(operator.add, map(len, lines), repeat(1)), initial=base)
        next(ends)  # ``base``: a line start only when the slice before ended a line, and counted there
        starts.extend(ends)
    return starts


class SourceText:
    """The decoded text of one file plus a line index, shared by all its documents."""

    __slots__ = ("path", "text", "_line_starts")

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self._line_starts: array[int] | None = None

    @property
    def line_starts(self) -> array[int]:
        """Offsets where lines start; machine integers, a tenth of the size of a list of ints
        (a run keeps the line index of every file it reports on)."""
        if self._line_starts is None:
            self._line_starts = _line_starts(self.text)
        return self._line_starts

    def offset(self, line: int, column: int) -> int:
        """Character offset of a 0-based line/column pair."""
        starts = self.line_starts
        line = min(max(line, 0), len(starts) - 1)
        return starts[line] + column

    def line_col(self, offset: int) -> tuple[int, int]:
        """0-based line/column of a character offset."""
        line = bisect.bisect_right(self.line_starts, offset) - 1
        return line, offset - self.line_starts[line]

    def inside(self, span: Span) -> Span:
        """``span`` with both ends inside the text: a line past the last (libyaml ends a block
        collection at the start of the line after it, which at the end of the file is no line)
        is the last line, after its last character; a column past its line's end is after the
        line's last character; an end before the start is the start. A report's reader (an
        editor, a SARIF consumer) rejects or misplaces anything else."""
        starts = self.line_starts
        lines = len(starts) - (1 if self.text.endswith("\n") else 0)
        if not lines:
            return span
        start = self._inside(span.line, span.column, lines)
        end = self._inside(span.end_line, span.end_column, lines)
        end = max(start, end)
        if (*start, *end) == span[1:]:
            return span
        return Span(span.path, *start, *end)

    def _inside(self, line: int, column: int, lines: int) -> tuple[int, int]:
        if line > lines:
            return lines, self._line_length(lines) + 1
        if line < 1:
            return 1, 1
        if column <= 1:
            return line, 1
        return line, min(column, self._line_length(line) + 1)

    def _line_length(self, line: int) -> int:
        """``len(self.line_text(line))`` of a line of the text, without slicing it: every finding
        of a run is checked to lie inside its file (``lint.assembly``)."""
        starts = self.line_starts
        begin = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        while end > begin and self.text[end - 1] == "\r":
            end -= 1
        return end - begin

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its line break."""
        starts = self.line_starts
        if not 1 <= line <= len(starts):
            return ""
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[starts[line - 1] : end].rstrip("\r")


class Document:
    """One YAML document: its plain data plus a tree of positions beside it (see ``Pos``).

    Positions live beside the data rather than in wrapper objects, so checks and the schema
    validator work on plain dicts and lists.

    A run over a large repository cannot keep every parsed tree, so the engine ``freeze``s
    each document once its objects are known: data and positions become one blob, a fraction
    of the size. Reading ``data`` (or asking for a span) expands it again; only the
    most recently expanded documents stay expanded (see ``THAWED``), so memory stays flat
    however many documents the run holds.

    A document read by the fast reader (``dralint.yaml.blockfast``) holds a ``Segment`` in
    place of its positions, and the first span asked for reads them from the text again: most
    documents of a large snapshot are never pointed at, and their frozen blobs shrink fourfold.

    ``finite`` is True when the reader resolved no scalar to NaN or an infinity, which JSON
    cannot carry, nor to an integer past int64, which no Kubernetes field holds
    (``scalars.out_of_range``): the API validation searches every object for one unless it is
    known to hold none.

    ``item`` is set when the document is one item of a ``kind: List`` read as a document of its
    own (``load``'s ``lists``): its number in ``items``. Data and positions are then the item's,
    and ``index`` is the List's.
    """

    __slots__ = ("source", "index", "finite", "item", "_data", "_root", "_frozen", "_derived", "_expanded")

    def __init__(
        self, source: SourceText, index: int, data: Any, root: Pos, finite: bool = False, item: int | None = None
    ):
        self.source = source
        self.index = index
        self.finite = finite
        self.item = item
        self._data = data
        self._root = root
        self._frozen: bytes | None = None
        self._derived: dict[Any, Any] | None = None
        self._expanded = True

    @property
    def data(self) -> Any:
        if not self._expanded:
            self._thaw()
        return self._data

    @property
    def derived(self) -> dict[Any, Any]:
        """Values computed from the tree (pod templates), dropped with it when it is frozen."""
        if not self._expanded:
            self._thaw()
        if self._derived is None:
            self._derived = {}
        return self._derived

    def freeze(self) -> None:
        """Keep the document as a compact blob until it is read again (see the class doc)."""
        if self._frozen is None:
            root = self._root
            if type(root) is blockfast.Segment:
                # A Segment goes in as plain numbers: unpickling a named tuple looks its class
                # up by name each time, which cost as much as unpickling the document's data.
                # Data alone (strings mostly) marshals smaller than it pickles, and expands in
                # three quarters of the time; a positions tree, all small numbers, pickles a
                # quarter smaller.
                self._frozen = marshal.dumps((self._data, root.start, root.stop, root.line, *root.end, root.item))
            else:
                self._frozen = _freeze_tree(self._data, root)
        self._data, self._root, self._derived, self._expanded = None, (), None, False

    def _thaw(self) -> None:
        frozen = self._frozen
        assert frozen is not None
        # A pickle starts with its protocol marker, 0x80; a marshal blob with a type code (an
        # ASCII letter, with the 0x80 bit when marshal marks it shared), never 0x80 itself.
        payload = pickle.loads(frozen) if frozen[0] == 0x80 else marshal.loads(frozen)
        if len(payload) == 2:
            self._data, self._root = payload
        else:
            self._data, start, stop, line, end_line, end_column, item = payload
            self._root = blockfast.Segment(start, stop, line, (end_line, end_column), item)
        self._expanded = True
        THAWED.add(self)

    def __reduce__(self) -> tuple:
        """Worker processes send documents frozen and without their file's text (the parent
        has it): the receiving side attaches the source again with ``attach``."""
        self.freeze()
        return (_frozen_document, (self.source.path, self.index, self._frozen, self.finite, self.item))

    def attach(self, source: SourceText) -> None:
        self.source = source

    @property
    def path(self) -> str:
        return self.source.path

    def _walk(self, path: DataPath) -> tuple[Pos, tuple | None, int]:
        """Follow ``path``; return (value pos, the mapping entry of the last element matched if
        that is a key, how many elements matched).

        The positions have the shape of the data (a mapping's entries by key, a list's by
        index), so the walk follows them alone. The entry becomes a key position
        (``entry_key_pos``) only for the few callers that want one.

        Each step is a subscript that fails where the path leaves the tree: a scalar's position
        has no children (IndexError), a mapping's keys are all strings (KeyError for an index),
        a list takes only indexes in range (TypeError, IndexError). A finding locates a path of
        five to eight steps, and testing the kinds first was most of the walk.
        """
        if not self._expanded:
            self._thaw()
        value_pos: Pos = self._root
        if type(value_pos) is blockfast.Segment:  # read by the fast reader: positions on demand
            value_pos = self._root = blockfast.positions(self.source.text, value_pos)
        entry: tuple | None = None
        for depth, step in enumerate(path):
            try:
                children = value_pos[5]
                found = children[step]
            except (IndexError, KeyError, TypeError):
                return value_pos, entry, depth
            if type(children) is dict:
                entry, value_pos = found, found[-1]
            else:
                entry, value_pos = None, found
        return value_pos, entry, len(path)

    def has_path(self, path: DataPath) -> bool:
        return self._walk(path)[2] == len(path)

    def locate(self, path: DataPath, key: bool = False) -> Span:
        """Span of the key or value at ``path``.

        A path that does not exist (a missing field) resolves to the deepest existing
        ancestor's key, which is where a user adds the missing field.
        """
        value_pos, entry, matched = self._walk(path)
        if entry is not None and (key or matched < len(path)):
            # The step that found an entry is one of the mapping's keys, all strings.
            return self._span(entry_key_pos(path[matched - 1], entry))  # type: ignore[arg-type]
        return self._span(value_pos)

    def value_style(self, path: DataPath) -> str | None:
        """The YAML style of the scalar at ``path`` ('' plain, '|', '>', "'", '"')."""
        value_pos, _, matched = self._walk(path)
        return value_pos[4] if matched == len(path) else None

    def _span(self, pos: Pos) -> Span:
        line, col, end_line, end_col = pos[0], pos[1], pos[2], pos[3]
        if end_line < line or (end_line == line and end_col <= col):
            # One character wide, unless nothing follows on the line (an empty value after
            # ``key:``): then a point, after the line's last character.
            end_line, end_col = line, col + 1 if col < len(self.source.line_text(line + 1)) else col
        first = line + 1
        # One int object for both ends of a one-line span (numbers past 256 are not shared).
        span = Span(self.source.path, first, col + 1, first if end_line == line else end_line + 1, end_col + 1)
        if end_line + 1 >= len(self.source.line_starts) - 1:
            # At the last line: libyaml ends a block collection or scalar at the start of the
            # line after it, which at the end of the file is no line.
            return self.source.inside(span)
        return span

    def scalar_offset_span(self, path: DataPath, start: int, end: int | None = None) -> Span:
        """Map 0-based offsets inside a string scalar's value to the file.

        Used to point at the exact character of a CEL error inside ``expression: |``. When the
        scalar cannot be mapped faithfully the whole value is returned rather than a wrong spot.
        """
        value_pos, _, matched = self._walk(path)
        value: Any = self.data
        for step in path[:matched]:
            value = value[step]
        if matched < len(path) or not isinstance(value, str):
            return self.locate(path)
        table = scalar_source_map(self.source, value_pos, value)
        if table is None:
            return self._span(value_pos)
        if end is None or end <= start:
            end = start + 1
        last = len(table) - 1
        if last < 0:
            return self._span(value_pos)
        src_start = table[min(max(start, 0), last)]
        src_last = table[min(max(end - 1, start, 0), last)]
        line, col = self.source.line_col(src_start)
        end_line, end_col = self.source.line_col(src_last)
        # The end is the column after the last character, on that character's line, so a
        # reporter underlines a single line; a line break ends its line, so nothing comes after it.
        after = 1 if self.source.text[src_last : src_last + 1] in ("\n", "\r") else 2
        return Span(self.source.path, line + 1, col + 1, end_line + 1, end_col + after)

    def scalar_offset_at(self, path: DataPath, line: int, column: int) -> int | None:
        """The offset inside the string scalar at ``path`` of the 0-based ``line`` and ``column``
        of the file: ``scalar_offset_span`` the other way, for an editor's cursor in a CEL
        expression. A cursor after the last character gives the value's length; a cursor
        outside the value, or in a scalar that cannot be mapped faithfully, gives None."""
        value_pos, _, matched = self._walk(path)
        value: Any = self.data
        for step in path[:matched]:
            value = value[step]
        if matched < len(path) or not isinstance(value, str):
            return None
        table = scalar_source_map(self.source, value_pos, value)
        if not table:
            return None
        offset = self.source.offset(line, column)
        index = bisect.bisect_left(table, offset)
        if index < len(table) and table[index] == offset:
            return index
        after_last = index == len(table) and offset == table[-1] + 1 and value[-1:] != "\n"
        return len(value) if after_last else None


def _frozen_document(path: str, index: int, frozen: bytes, finite: bool, item: int | None) -> Document:
    """A document as a worker sent it (see ``Document.__reduce__``)."""
    document = Document(SourceText(path, ""), index, None, (), finite, item)
    document._frozen, document._expanded = frozen, False
    return document


class _ThawedDocuments:
    """The frozen documents expanded at the moment, least recently expanded first.

    Checks reach documents in any order (a reference check reads its target), so frozen
    documents expand on demand; this bounds how many stay expanded at once.
    """

    def __init__(self, capacity: int):
        self.capacity = capacity
        self._documents: OrderedDict[int, Document] = OrderedDict()

    def add(self, document: Document) -> None:
        self._documents[id(document)] = document
        while len(self._documents) > self.capacity:
            _, oldest = self._documents.popitem(last=False)
            oldest.freeze()

    def freeze_all(self) -> None:
        """Freeze every document expanded now: once the checks are done none needs to be, and
        what follows (deduplication, reports) is where a large run peaks in memory."""
        while self._documents:
            self._documents.popitem()[1].freeze()


#: Expanded frozen documents; 64 holds the objects the engine checks together (32 at a time)
#: and the documents their checks look up (targets of references).
THAWED = _ThawedDocuments(64)


class LoadResult(NamedTuple):
    """The documents of one file and the problems met while reading it."""

    source: SourceText
    documents: list[Document]
    problems: list[YamlProblem]


# --- the event-driven builder ---------------------------------------------------------


class _Abort(Exception):
    """Stops building one document; the reason is already recorded as a problem."""


class _Frame:
    __slots__ = ("container", "positions", "key", "key_pos", "anchor", "size", "chars", "merges", "start", "flow")

    def __init__(self, container: Any, positions: Any, anchor: str | None, start: Any, flow: bool):
        self.container = container
        self.flow = flow
        self.positions = positions
        self.key: Any = _NO_KEY
        self.key_pos: Pos | None = None
        self.anchor = anchor
        self.size = 1
        self.chars = 0  # of the scalars below, keys included: what an alias of it repeats
        self.merges: list[tuple[Any, Pos]] = []
        self.start = start


_NO_KEY = object()


class _Spill:
    """The items of a List libyaml is reading, each pickled as a frozen document as soon as it
    is built (see ``load``'s ``lists``), so that the List is never held whole.

    Whether the document is a List is known only at its end (kubectl writes ``kind`` after
    ``items``): until then any root ``items`` sequence spills, and a document that turns out
    to be no List gets its items back (``restore``).
    """

    def __init__(self, where: _Relocate):
        self.where = where
        #: Position tables already moved to file positions (see ``_Relocate.tree``).
        self.moved: set[int] = set()
        self.frame: _Frame | None = None  # the sequence whose items spill
        self.items: list[bytes] = []
        self.anchors: dict[str, tuple[Any, int, int, Pos | None]] = {}  # the builder's (see ``take``)

    def take(self, value: Any, pos: Pos) -> None:
        where = self.where
        if where.identity:
            self.items.append(_freeze_tree(value, pos))
            return
        self.items.append(_freeze_tree(value, where.tree(pos, self.moved)))
        # The item's tables are freed once it is frozen, and a later item's may then get their
        # ids: ``moved`` would take them for moved already, and that item's positions would stay
        # where libyaml put them (a line early after a syntax error). Only a table an anchor
        # holds (alive, and shared by the aliases of later items) stays moved.
        self.moved &= {id(anchored[5]) for *_, anchored in self.anchors.values() if anchored and len(anchored) > 5}

    def restore(self) -> None:
        assert self.frame is not None
        for value, pos in map(pickle.loads, self.items):
            self.frame.container.append(value)
            self.frame.positions.append(pos)
        self.items = []


class _Builder:
    """Turns one document's events into data plus a position table."""

    def __init__(self, problems: list[YamlProblem], spill: _Spill | None = None, start: int = 0):
        self.problems = problems
        self.spill = spill
        self.start = start  # offset of the document's first event, for the written size
        #: Anchored nodes: (value, nodes, characters, position).
        self.anchors: dict[str, tuple[Any, int, int, Pos | None]] = {}
        if spill is not None:
            spill.anchors = self.anchors
        self.incomplete: set[str] = set()
        self.stack: list[_Frame] = []
        self.root: Any = None
        self.root_pos: Pos = (0, 0, 0, 1, None)
        self.done = False
        #: Nodes and scalar characters the document's aliases added so far, each alias counted
        #: with everything under its anchor.
        self.aliased = 0
        self.aliased_chars = 0
        #: Nodes written out (alias nodes included), for go-yaml's share (``_allowed_alias_share``).
        self.written = 0
        #: Set when the document has a shape whose YAML 1.2 rules libyaml does not check: a
        #: multi-line quoted scalar or flow collection inside a block collection, or a block
        #: scalar that starts with an empty line (see dralint.yaml.strict).
        self.needs_strict = False
        #: Set when a scalar resolves to NaN, an infinity or an integer past int64 (see ``Document.finite``).
        self.out_of_range = False

    def _pos(self, event: Any) -> Pos:
        start, end = event.start_mark, event.end_mark
        return (start.line, start.column, end.line, end.column, getattr(event, "style", None))

    def _problem(self, kind: str, message: str, pos: Pos, related: tuple = ()) -> None:
        self.problems.append(YamlProblem(kind, message, pos[0], pos[1], pos[2], pos[3], related))

    def _add(self, value: Any, pos: Pos, size: int, chars: int, node_is_key_ok: bool) -> None:
        """Attach a finished node to its parent (or make it the root)."""
        if not self.stack:
            self.root, self.root_pos, self.done = value, pos, True
            return
        frame = self.stack[-1]
        frame.size += size
        frame.chars += chars
        container = frame.container
        if isinstance(container, list):
            if self.spill is not None and frame is self.spill.frame:
                self.spill.take(value, pos)
            else:
                container.append(value)
                frame.positions.append(pos)
            return
        if frame.key is _NO_KEY:
            if not node_is_key_ok:
                self._problem(
                    "complex-key",
                    "a mapping or list used as a key cannot be represented in a Kubernetes object",
                    pos,
                )
                frame.key, frame.key_pos = _SKIP_ENTRY, pos
                return
            frame.key, frame.key_pos = value, pos
            return
        key, key_pos = frame.key, frame.key_pos
        frame.key = _NO_KEY
        if key is _SKIP_ENTRY:
            return
        if key == "<<" and key_pos is not None and key_pos[4] in (None, ""):
            frame.merges.append((value, pos))
            return
        if not isinstance(key, str):
            key = key_text(key)
        if key in container:
            first = entry_key_pos(key, frame.positions[key])
            self._problem(
                "duplicate-key",
                f"duplicate key '{key}': kubectl converts the YAML to JSON on the client and keeps the last "
                "value without a word, so the API server never sees the duplicate and the first value is lost",
                key_pos,  # type: ignore[arg-type]
                ((first[0], first[1], "first defined here"),),
            )
        container[key] = value
        frame.positions[key] = mapping_entry(key, key_pos, pos)  # type: ignore[arg-type]

    def _past_budget(self, written_chars: int) -> str | None:
        """Why the aliases so far take the document past its budget, or None."""
        aliased, decoded = self.aliased, self.written + self.aliased
        if aliased > MAX_EXPANDED_NODES:
            return (
                f"aliases make this document expand by {aliased:,} nodes (the limit is "
                f"{MAX_EXPANDED_NODES:,}), {decoded / self.written:,.0f} times the {self.written:,} nodes written"
            )
        if aliased > 100 and decoded > 1000 and aliased / decoded > _allowed_alias_share(decoded):
            return (
                f"aliases make {aliased:,} of the {decoded:,} nodes this document expands to "
                f"({decoded / self.written:,.0f} times the {self.written:,} nodes written), past the "
                f"{_allowed_alias_share(decoded):.0%} the API server's YAML decoder accepts "
                "('document contains excessive aliasing')"
            )
        if self.aliased_chars > MAX_EXPANDED_CHARS:
            ratio = (written_chars + self.aliased_chars) / max(written_chars, 1)
            return (
                f"aliases make this document expand by {self.aliased_chars:,} characters of text (the "
                f"limit is {MAX_EXPANDED_CHARS:,}), {ratio:,.0f} times the {written_chars:,} characters "
                "written up to here"
            )
        return None

    def event(self, ev: Any) -> None:
        cls = type(ev)
        if cls is ScalarEvent:
            value = ev.value
            tag = ev.tag
            if tag and tag != "!":
                value = resolve_tagged(value, tag)
            elif not ev.style and ev.implicit[0]:
                value = resolve_plain(value)
            if out_of_range(value):
                self.out_of_range = True
            pos = self._pos(ev)
            if pos[0] != pos[2]:
                style = ev.style
                if (
                    style in ('"', "'")
                    and self.stack
                    and not self.stack[-1].flow
                    or style in ("|", ">")
                    and ev.value[:1] in ("", "\n")
                ):
                    self.needs_strict = True
            self.written += 1
            chars = len(ev.value)
            if ev.anchor:
                self.anchors[ev.anchor] = (value, 1, chars, pos)
            self._add(value, pos, 1, chars, True)
        elif cls is MappingStartEvent or cls is SequenceStartEvent:
            self.written += 1
            if len(self.stack) >= MAX_DEPTH:
                pos = self._pos(ev)
                self._problem(
                    "depth",
                    f"the document nests deeper than {MAX_DEPTH} levels; it was skipped",
                    pos,
                )
                raise _Abort()
            container: Any = {} if cls is MappingStartEvent else []
            positions: Any = {} if cls is MappingStartEvent else []
            if ev.anchor:
                self.incomplete.add(ev.anchor)
                self.anchors[ev.anchor] = (container, 0, 0, None)
            frame = _Frame(container, positions, ev.anchor, ev.start_mark, bool(ev.flow_style))
            if (
                self.spill is not None
                and len(self.stack) == 1
                and self.stack[0].key == "items"
                and not ev.anchor
                and cls is SequenceStartEvent
                and self.spill.frame is None
            ):
                self.spill.frame = frame  # the root's items: perhaps a List's (see ``_Spill``)
            self.stack.append(frame)
        elif cls is MappingEndEvent or cls is SequenceEndEvent:
            frame = self.stack.pop()
            if frame.merges:
                self._merge(frame)
            start = frame.start
            pos = (start.line, start.column, ev.end_mark.line, ev.end_mark.column, None, frame.positions)
            if frame.flow and pos[0] != pos[2] and self.stack and not self.stack[-1].flow:
                self.needs_strict = True
            if frame.anchor:
                self.incomplete.discard(frame.anchor)
                self.anchors[frame.anchor] = (frame.container, frame.size, frame.chars, pos)
            self._add(frame.container, pos, frame.size, frame.chars, False)
        elif cls is AliasEvent:
            pos = self._pos(ev)
            if ev.anchor in self.incomplete:
                self._problem(
                    "alias-bomb",
                    f"alias *{ev.anchor} refers to a node that contains it (a recursive "
                    "structure no Kubernetes object can hold); the document was skipped",
                    pos,
                )
                raise _Abort()
            if ev.anchor not in self.anchors:
                self._problem("syntax", f"found undefined alias *{ev.anchor}", pos)
                raise _Abort()
            value, size, chars, anchored = self.anchors[ev.anchor]
            self.written += 1
            self.aliased += max(size, 1)
            self.aliased_chars += chars
            why = self._past_budget(ev.start_mark.index - self.start)
            if why is not None:
                self._problem("alias-bomb", f"{why} (a 'billion laughs' pattern); it was skipped", pos)
                raise _Abort()
            if anchored is not None and len(anchored) > 5:
                pos = pos[:5] + anchored[5:]
            self._add(value, pos, max(size, 1), chars, not isinstance(value, (dict, list)))

    def _merge(self, frame: _Frame) -> None:
        """Apply ``<<`` merge keys: explicit keys win, earlier sources win over later ones."""
        container, positions = frame.container, frame.positions
        sources: list[tuple[Any, Any]] = []
        for value, pos in frame.merges:
            if isinstance(value, list):
                item_positions = pos[5] if len(pos) > 5 else []
                items = [(item, item_positions[i] if i < len(item_positions) else pos) for i, item in enumerate(value)]
            else:
                items = [(value, pos)]
            for item, item_pos in items:
                if not isinstance(item, dict):
                    self._problem("syntax", "a merge key '<<' must refer to a mapping", pos)
                    continue
                sources.append((item, item_pos[5] if len(item_pos) > 5 else {}))
        for source, source_positions in sources:
            for key, value in source.items():
                if key not in container:
                    container[key] = value
                    if key in source_positions:
                        positions[key] = source_positions[key]


_SKIP_ENTRY = object()


# --- reading a whole stream, with recovery after syntax errors ---------------------------


def _plain_reason(error: yaml.MarkedYAMLError, at_char: str) -> tuple[str, str]:
    """Return (kind, message) for a libyaml error in words a manifest author knows."""
    problem = (error.problem or str(error)).strip()
    context = (error.context or "").strip()
    if at_char == "\t" or "tab" in problem:
        return "tab", "a tab character is used for indentation; YAML allows only spaces there"
    if problem.startswith("exceeded maximum nesting depth"):  # libyaml's own bound, while scanning
        return "depth", "the document nests deeper than the parser allows; it was skipped"
    hints = {
        "mapping values are not allowed": "a ':' appears where no mapping can start "
        "(check the indentation, or quote a value that contains ': ')",
        "could not find expected ':'": "a key is missing its ':' (or the previous line is indented wrongly)",
        "did not find expected key": "this line is not indented like its siblings",
        "did not find expected '-' indicator": "a list item is not indented like the others",
        "found unexpected end of stream": "the file ends inside an unfinished value (an unclosed quote or bracket)",
        "found undefined alias": "an alias refers to an anchor that was never defined",
        "did not find expected <document start>": "the document has already ended here (its "
        "one root value is complete), so more content must start a new document with '---'",
    }
    for needle, text in hints.items():
        if problem.startswith(needle):
            detail = f"{problem}" + (f" ({context})" if context else "")
            return "syntax", f"{text}: {detail}"
    return "syntax", problem + (f" ({context})" if context else "")


def _after_end_marker(source: SourceText, error: yaml.MarkedYAMLError, line: int, column: int) -> YamlProblem | None:
    """Content after a '...' line (often meant as an ellipsis): say so and point at the marker."""
    problem = (error.problem or "").strip()
    if not problem.startswith("did not find expected <document start>"):
        return None
    for number in range(line - 1, -1, -1):
        marker = re.match(r"(\.\.\.|---)(?:[ \t]|$)", source.line_text(number + 1))
        if marker:  # the nearest marker: '...' ended the document, '---' means something else did
            if marker.group(1) == "---":
                return None
            message = (
                "content after a document end marker ('...' ends a YAML document; it is not an "
                f"ellipsis) must start a new document with '---': {problem}"
            )
            return YamlProblem(
                "syntax", message, line, column, line, column + 1, ((number, 0, "the previous document ends here"),)
            )
    return None


#: The line breaks libyaml counts: LF, CRLF, and a lone CR, NEL, LS or PS.
_LIBYAML_BREAKS = re.compile("\r\n|[\n\r\x85\u2028\u2029]")


class _Relocate:
    """Turns libyaml's (line, column) inside a parsed stretch of the file into file positions.

    Usually that only adds the lines before the stretch. But libyaml also breaks lines at a
    lone CR, NEL, LS and PS, where SourceText (like editors, grep and the reporters) breaks only
    at LF; in a file with such a character every later line number would drift, so positions
    there are translated through character offsets instead.
    """

    def __init__(self, source: SourceText, base_offset: int, end_offset: int, odd_breaks: bool):
        self.source = source
        self.lines = source.line_col(base_offset)[0] if base_offset else 0
        self.starts: list[int] | None = None
        if odd_breaks:
            breaks = _LIBYAML_BREAKS.finditer(source.text, base_offset, end_offset)
            self.starts = [base_offset] + [m.end() for m in breaks]

    @property
    def identity(self) -> bool:
        return self.starts is None and not self.lines

    def point(self, line: int, column: int) -> tuple[int, int]:
        if self.starts is None:
            return line + self.lines, column
        line = min(max(line, 0), len(self.starts) - 1)
        return self.source.line_col(min(self.starts[line] + column, len(self.source.text)))

    def pos(self, pos: Pos) -> Pos:
        line, column = self.point(pos[0], pos[1])
        end_line, end_column = self.point(pos[2], pos[3])
        return (line, column, end_line, end_column, pos[4])

    def tree(self, pos: Pos, moved: set[int]) -> Pos:
        """``pos`` and every position below it, moved; entries an alias shares move once."""
        out = self.pos(pos)
        if len(pos) < 6:
            return out
        children = pos[5]
        if id(children) not in moved:
            moved.add(id(children))
            if isinstance(children, dict):
                for key, entry in children.items():
                    children[key] = mapping_entry(key, self.pos(entry_key_pos(key, entry)), self.tree(entry[-1], moved))
            else:
                children[:] = [self.tree(p, moved) for p in children]
        return out + (children,)

    def problem(self, problem: YamlProblem) -> YamlProblem:
        line, column, end_line, end_column, _ = self.pos(
            (problem.line, problem.column, problem.end_line, problem.end_column, None)
        )
        related = tuple((*self.point(r_line, r_column), message) for r_line, r_column, message in problem.related)
        return YamlProblem(problem.kind, problem.message, line, column, end_line, end_column, related)


def load(source: SourceText, sink: Callable[[Document], None] | None = None, *, lists: bool = False) -> LoadResult:
    """Parse every document of ``source``; keep going after a broken document when possible.

    With a ``sink``, each document goes to it as soon as it is built and the result's list
    stays empty, so a caller can check and drop documents while a large file is still being
    read.

    With ``lists``, each item of a ``kind: List`` document is a document of its own (see
    ``Document.item``): ``kubectl get -o yaml`` writes a whole cluster as one List, and a run
    that checks objects one by one then holds one expanded object, not the whole List. Both
    readers freeze each item as soon as it is read (the fast reader item by item, libyaml's
    builder through ``_Spill``); a List the fast reader reads whole is cut after it is read.

    The fast reader (``dralint.yaml.blockfast``) takes the documents it can from the start of
    the file; libyaml parses the rest, from the first document the reader declines. A file the
    YAML 1.2 pass may have to look at is left to libyaml whole.

    libyaml parses in one go. After a syntax error, parsing resumes at the next "---" line,
    one document at a time from then on, so that a file of many broken documents costs linear
    time (each restart would otherwise re-read the whole rest of the file).

    Each parsed stretch also gets the YAML 1.2 strictness pass when its cheap precondition
    holds (see dralint.yaml.strict): libyaml alone accepts a few invalid inputs.
    """
    problems: list[YamlProblem] = []
    documents: list[Document] = []
    out = _Documents(documents.append if sink is None else sink, lists)
    text = source.text
    prefiltered = may_need_check(text)
    too_large = _too_large(text)
    base = 0
    if not prefiltered:  # finite: the fast reader declines a document with NaN or an infinity
        base, _ = blockfast.read(
            text,
            partial(out.add_read, source),
            max_depth=MAX_DEPTH,
            add_items=partial(out.add_items, source) if lists else None,
            until=next(iter(too_large), None),
        )
        if base == len(text):
            return LoadResult(source, documents, problems)
    odd_breaks = (
        "\x85" in text
        or "\u2028" in text
        or "\u2029" in text
        or ("\r" in text and blockfast.LONE_CR.search(text) is not None)
    )
    end = len(text)
    while True:
        while base in too_large:  # skipped unread, counted as a document; libyaml reads on
            skipped = too_large[base]
            problems.append(_too_large_problem(source, base, *skipped))
            out.count += 1
            base, end = skipped[0], len(text)
        if base >= len(text):
            break
        end = min([end, *(start for start in too_large if start > base)])
        error, needs_strict = _parse_segment(source, base, end, out, problems, odd_breaks)
        if prefiltered or needs_strict:
            stop = None if error is None else source.offset(error, 0) - base
            for offset, message in strict_problems(text[base:end], stop):
                line, column = source.line_col(base + offset)
                problems.append(YamlProblem("yaml-1.2", message, line, column, line, column + 1))
        if error is None:
            restart = end if end < len(text) else None
        else:
            restart = blockfast.next_document_start(text, source.offset(error, 0))
            if restart is not None and restart <= base:  # the error is on the "---" line itself
                restart = blockfast.next_document_start(text, base + 1)
        if restart is None:
            break
        base = restart
        end = blockfast.next_document_start(text, base + 1) or len(text)
    return LoadResult(source, documents, problems)


Piece = blockfast.DocumentRun | blockfast.ItemRun


def pieces(source: SourceText, size: int) -> list[Piece] | None:
    """``source`` cut into pieces of about ``size`` characters that ``load_piece`` reads apart
    (in worker processes: a 200 MiB ``kubectl get -A -o yaml`` dump is one file, often one
    List); None when the file is not larger than that, or holds a document too large to read
    (``load`` then reads it whole).

    Read piece by piece with ``lists``, a file gives the documents ``load`` gives, so long as
    the fast reader takes every piece: ``load_piece`` says when it does not, and when a piece
    holds text that makes ``load`` leave the file to libyaml.
    """
    text = source.text
    if len(text) <= size or _too_large(text):
        return None
    found = blockfast.stretches(text, size, MAX_DEPTH)
    return found if found is not None and len(found) > 1 else None


def load_piece(source: SourceText, piece: Piece, sink: Callable[[Document], None]) -> int | None:
    """Read ``piece`` of ``source`` (see ``pieces``), handing each document, or List item, to
    ``sink`` as ``load(..., lists=True)`` would; return how many documents it read (a List
    counts in the piece with its first item), or None when the fast reader declined part of
    it, having handed over some or none: ``load`` must then read the whole file.

    The piece first checks its ``cover`` of the text as ``load`` checks the whole file before
    the fast reader may read it.
    """
    text = source.text
    if may_need_check(text, *piece.cover) or blockfast.eligible(text, *piece.cover) is not None:
        return None
    out = _Documents(sink, lists=True)
    out.count = piece.document
    if isinstance(piece, blockfast.ItemRun):
        try:
            out.add_items(source, blockfast.read_items(text, piece.items, MAX_DEPTH), piece.first)
        except blockfast.Declined:
            return None
        return 1 if piece.first == 0 else 0
    stopped, _ = blockfast.read_documents(
        text,
        piece.starts,
        piece.stops,
        piece.line,
        partial(out.add_read, source),
        max_depth=MAX_DEPTH,
        add_items=partial(out.add_items, source),
    )
    return out.count - piece.document if stopped == piece.stops[-1] else None


def numbered_right(cut: list[Piece], counts: list[int]) -> bool:
    """Whether the documents of the pieces ``cut`` got the numbers ``load`` gives them: the
    planner numbers a piece by the documents before it, and each piece read (``counts``) tells
    how many there were."""
    following = 0  # the number of the next document
    for piece, count in zip(cut, counts, strict=True):
        within_list = isinstance(piece, blockfast.ItemRun) and piece.first > 0
        if piece.document != (following - 1 if within_list else following):
            return False
        following += count
    return True


def _too_large(text: str) -> dict[int, tuple[int, bool]]:
    """Each document of ``text`` too large to read (see ``MAX_DOCUMENT_CHARS``), in order: its
    start, and its stop with whether it is a List (one with an item, or a rest, over the limit)."""
    if len(text) <= MAX_DOCUMENT_CHARS:
        return {}
    out = {}
    for start, stop in zip(*blockfast.document_bounds(text), strict=True):
        if stop - start <= MAX_DOCUMENT_CHARS:
            continue
        layout = _list_layout(text, start, stop)
        if layout is None:
            out[start] = (stop, False)
        elif (
            max(b - a for a, b in zip(layout.items, [*layout.items[1:], layout.stop], strict=True)) > MAX_DOCUMENT_CHARS
        ):
            out[start] = (stop, True)
    return out


def _list_layout(text: str, start: int, stop: int) -> blockfast.ListLayout | None:
    """The layout of the document from ``start`` to ``stop`` if its text reads as a List whose
    part outside the items is within the limit."""
    layout = blockfast.list_layout(text, start, stop)
    if layout is None:
        return _json_list_layout(text, start, stop)
    if (layout.key_end - start) + (stop - layout.stop) > MAX_DOCUMENT_CHARS:
        return None
    return layout if _LIST_KIND.search(text[start : layout.key_end] + "\n" + text[layout.stop : stop]) else None


_JSON_SPACE = re.compile(r"[ \t\r\n]*")
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_JSON_SCALAR = re.compile(r"[^,\]}\s]+")
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def _after_space(text: str, at: int) -> int:
    found = _JSON_SPACE.match(text, at)
    return found.end() if found is not None else at


def _json_value_end(text: str, at: int) -> int:
    """Where the JSON value at ``at`` ends, found without building it (memory stays flat
    whatever its size); ValueError when it does not end."""
    if text.startswith(("{", "["), at):
        depth = 0
        for token in _JSON_TOKEN.finditer(text, at):
            mark = token.group()
            if mark in ("{", "["):
                depth += 1
            elif mark in ("}", "]"):
                depth -= 1
                if depth == 0:
                    return token.end()
        raise ValueError("unterminated JSON value")
    found = (_JSON_STRING if text.startswith('"', at) else _JSON_SCALAR).match(text, at)
    if found is None:
        raise ValueError("no JSON value")
    return found.end()


def _json_list_layout(text: str, start: int, stop: int) -> blockfast.ListLayout | None:
    """The layout of a `kubectl get -o json` List from ``start`` to ``stop``: a JSON object
    with a root ``"kind"`` ending in List and an ``"items"`` array, whose part outside the
    items is within the limit; None for anything else (libyaml then says what it is).

    Values are skipped by their brackets and strings, never built, so a 31 MiB dump costs
    about a second here whatever its items hold; libyaml then reads it item by item like the
    YAML form (``_Spill``). ``column`` is unused for JSON.
    """
    at = _after_space(text, start)
    if not text.startswith("{", at):
        return None
    items: list[int] = []
    key_end = items_stop = -1
    kind = None
    at += 1
    try:
        while at < stop:
            at = _after_space(text, at)
            if text.startswith("}", at):
                break
            key_stop = _json_value_end(text, at)
            key = json.loads(text[at:key_stop])
            at = _after_space(text, key_stop)
            if not text.startswith(":", at):
                return None
            at = _after_space(text, at + 1)
            if key == "items" and text.startswith("[", at) and key_end < 0:
                key_end = at + 1
                at = _after_space(text, key_end)
                while not text.startswith("]", at) and at < stop:
                    items.append(at)
                    at = _after_space(text, _json_value_end(text, at))
                    if text.startswith(",", at):
                        at = _after_space(text, at + 1)
                items_stop = at
                at += 1
            else:
                value_stop = _json_value_end(text, at)
                if key == "kind" and text.startswith('"', at):
                    kind = json.loads(text[at:value_stop])
                at = value_stop
            at = _after_space(text, at)
            if text.startswith(",", at):
                at += 1
    except ValueError:
        return None
    if key_end < 0 or items_stop > stop or not isinstance(kind, str) or not kind.endswith("List"):
        return None
    if (key_end - start) + (stop - items_stop) > MAX_DOCUMENT_CHARS:
        return None
    return blockfast.ListLayout(key_end, items, items_stop, 0)


def _too_large_problem(source: SourceText, start: int, stop: int, is_list: bool) -> YamlProblem:
    line, _ = source.line_col(start)
    what = ", a List with an item over the limit" if is_list else ""
    return YamlProblem(
        "too-large",
        f"this document is {(stop - start) / 2**20:.1f} MiB{what}; a document or List item may have "
        f"{MAX_DOCUMENT_CHARS // 2**20} MiB (the API server accepts objects of up to 3 MiB), so it was skipped unread",
        line,
        0,
        line,
        len(source.line_text(line + 1)),
    )


class _Documents:
    """Where finished documents go, and how many went (a document's index in its file)."""

    def __init__(self, sink: Callable[[Document], None], lists: bool):
        self.sink = sink
        self.lists = lists  # send a List's items as documents (see ``load``)
        self.count = 0

    def add(self, document: Document, spill: _Spill | None = None) -> None:
        if spill is not None and spill.items:
            if _is_list(document.data) and document.data["items"] is spill.frame.container:  # type: ignore[union-attr]
                self._add_frozen(document, spill.items)
                return
            spill.restore()
        items = _cut_list(document) if self.lists else None
        self.count += 1
        if items is None:
            self.sink(document)
        for item in items or ():
            self.sink(item)

    def add_read(self, source: SourceText, data: Any, segment: blockfast.Segment) -> None:
        """A document the fast reader read (it declines NaN and infinities: finite)."""
        self.add(Document(source, self.count, data, segment, True))

    def _add_frozen(self, document: Document, items: list[bytes]) -> None:
        """A List's items, pickled by a ``_Spill``, as frozen documents."""
        self.count += 1
        for number, frozen in enumerate(items):
            item = _frozen_document(document.path, document.index, frozen, document.finite, number)
            item.attach(document.source)
            self.sink(item)

    def add_items(self, source: SourceText, items: Iterator[tuple[Any, blockfast.Segment]], first: int = 0) -> None:
        """The items of a List from the fast reader (numbered from ``first``), each frozen as
        soon as it is read; none goes on before the reader has taken them all (it may decline
        one, and libyaml then reads the whole List again)."""
        read = []
        for number, (data, segment) in enumerate(items, first):
            document = Document(source, self.count, data, segment, True, number)
            document.freeze()
            read.append(document)
        self.count += 1
        for document in read:
            self.sink(document)


def _is_list(data: Any) -> bool:
    """A ``kind: List`` (or ``PodList`` and the like) with a sequence of items."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("items"), list)
        and isinstance(data.get("kind"), str)
        and data["kind"].endswith("List")
    )


def _cut_list(document: Document) -> list[Document] | None:
    """The items of a ``kind: List`` document as documents (see ``Document.item``), or None."""
    data = document.data
    if not (_is_list(data) and data["items"]):
        return None
    entry = document._walk(("items",))[0]
    return [
        Document(document.source, document.index, item, pos, document.finite, number)
        for number, (item, pos) in enumerate(zip(data["items"], entry[5], strict=True))
    ]


def _parse_segment(
    source: SourceText,
    base_offset: int,
    end_offset: int,
    documents: _Documents,
    problems: list[YamlProblem],
    odd_breaks: bool,
) -> tuple[int | None, bool]:
    """Parse the file from ``base_offset`` to ``end_offset``.

    Returns the 0-based file line of a fatal error (None when the text parsed to the end) and
    whether a builder saw a shape that needs the strictness pass.
    """
    text = source.text[base_offset:end_offset]
    where = _Relocate(source, base_offset, end_offset, odd_breaks)
    loader = LOADER(text)
    builder: _Builder | None = None
    skipping = False
    needs_strict = False
    builder_problems: list[YamlProblem] = []  # in libyaml's coordinates of this stretch
    try:
        next_event = loader.get_event  # None after the stream's end; one C call per event
        while (ev := next_event()) is not None:
            cls = type(ev)
            if cls is DocumentStartEvent:
                spill = _Spill(where) if documents.lists else None
                start = ev.start_mark.index if ev.start_mark is not None else 0
                builder, skipping = _Builder(builder_problems, spill, start), False
            elif cls is DocumentEndEvent:
                if builder is not None:
                    needs_strict = needs_strict or builder.needs_strict
                    if builder.done and not skipping:
                        documents.add(_finish(source, builder, where, documents.count), builder.spill)
                builder = None
            elif builder is not None and not skipping:
                try:
                    builder.event(ev)
                except _Abort:
                    skipping = True
        return None, needs_strict
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, column = where.point(mark.line, mark.column) if mark else where.point(0, 0)
        offset = mark.index if mark else 0
        kind, message = _plain_reason(error, text[offset : offset + 1])
        problems.append(
            _after_end_marker(source, error, line, column) or YamlProblem(kind, message, line, column, line, column + 1)
        )
        return line, needs_strict or (builder is not None and builder.needs_strict)
    except yaml.YAMLError as error:  # reader errors: control characters and the like
        # libyaml reads UTF-8, so the reader reports a byte offset: count characters instead.
        position = len(
            text.encode("utf-8", "surrogatepass")[: getattr(error, "position", 0) or 0].decode("utf-8", "ignore")
        )
        line, column = source.line_col(base_offset + position)
        problems.append(YamlProblem("syntax", str(error).splitlines()[0], line, column, line, column + 1))
        return line, needs_strict or (builder is not None and builder.needs_strict)
    finally:
        loader.dispose()
        problems.extend(where.problem(p) for p in builder_problems)


def _finish(source: SourceText, builder: _Builder, where: _Relocate, index: int) -> Document:
    """Make a Document, moving positions from libyaml's coordinates to file positions."""
    root = (
        builder.root_pos
        if where.identity
        else where.tree(builder.root_pos, set() if builder.spill is None else builder.spill.moved)
    )
    return Document(source, index, builder.root, root, not builder.out_of_range)


def iter_paths(data: Any, prefix: DataPath = ()) -> Iterator[tuple[DataPath, Any]]:
    """Every (path, value) pair below ``data``, depth first, without recursion."""
    stack: list[tuple[DataPath, Any]] = [(prefix, data)]
    while stack:
        path, value = stack.pop()
        yield path, value
        if isinstance(value, dict):
            stack.extend((path + (k,), v) for k, v in reversed(list(value.items())))
        elif isinstance(value, list):
            stack.extend((path + (i,), v) for i, v in reversed(list(enumerate(value))))


# --- mapping offsets inside a scalar back to the file ------------------------------------


def scalar_source_map(source: SourceText, pos: Pos, value: str) -> list[int] | None:
    """For each character of ``value``, the file offset it was read from.

    Returns None when the reconstruction does not reproduce the parsed value, so a caller
    never reports a position that might be wrong.
    """
    start = source.offset(pos[0], pos[1])
    end = source.offset(pos[2], pos[3])
    raw = source.text[start:end]
    style = pos[4]
    if style in ("|", ">"):
        chars, offsets = _block_scalar(raw, start, folded=style == ">")
    elif style == "'":
        chars, offsets = _flow_scalar(raw[1:-1] if raw.endswith("'") else raw[1:], start + 1, "'")
    elif style == '"':
        chars, offsets = _flow_scalar(raw[1:-1] if raw.endswith('"') else raw[1:], start + 1, '"')
    else:
        chars, offsets = _flow_scalar(raw, start, "")
    rebuilt = "".join(chars)
    if rebuilt.rstrip("\n") != value.rstrip("\n"):
        return None
    # Trailing line breaks a block scalar keeps (clip: one, keep: all) map to the breaks.
    return offsets[: len(value)] or offsets[:1]


def _block_scalar(raw: str, base: int, folded: bool) -> tuple[list[str], list[int]]:
    """Rebuild a literal (``|``) or folded (``>``) scalar's content with source offsets."""
    header_end = raw.find("\n")
    if header_end < 0:
        return [], []
    header = raw[:header_end].split("#", 1)[0]
    explicit = next((int(c) for c in header if c.isdigit()), None)
    lines: list[tuple[str, int]] = []
    offset = base + header_end + 1
    for line in raw[header_end + 1 :].split("\n"):
        lines.append((line.rstrip("\r"), offset))
        offset += len(line) + 1
    indent = explicit
    if indent is None:
        indent = next((len(t) - len(t.lstrip(" ")) for t, _ in lines if t.strip()), 0)
    chars: list[str] = []
    offsets: list[int] = []
    pending: list[int] = []  # offsets of line breaks not yet emitted
    previous_normal: bool | None = None
    for text, start in lines:
        content = text[indent:] if len(text) > indent else ""
        line_break = start + len(text)
        if not content:
            pending.append(line_break)
            continue
        normal = content[0] not in " \t"
        if folded and previous_normal and normal:
            if len(pending) > 1:
                chars.extend("\n" * (len(pending) - 1))
                offsets.extend(pending[1:])
            else:
                chars.append(" ")
                offsets.append(pending[0])
        else:
            chars.extend("\n" * len(pending))
            offsets.extend(pending)
        chars.extend(content)
        offsets.extend(range(start + indent, start + indent + len(content)))
        pending = [line_break]
        previous_normal = normal
    chars.extend("\n" * len(pending))
    offsets.extend(pending)
    return chars, offsets


_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_LEN = {"x": 2, "u": 4, "U": 8}


def _escapes_next(text: str, index: int) -> bool:
    """Whether the character at ``index`` is escaped: an odd run of backslashes precedes it."""
    run = len(text[:index]) - len(text[:index].rstrip("\\"))
    return run % 2 == 1


def _flow_scalar(raw: str, base: int, quote: str) -> tuple[list[str], list[int]]:
    """Unfold a plain or quoted scalar, remembering where each character came from."""
    chars: list[str] = []
    offsets: list[int] = []
    lines = raw.split("\n")
    offset = 0
    continued = False
    empty_breaks: list[int] = []
    for number, line in enumerate(lines):
        line_base = offset
        offset += len(line) + 1
        text = line.rstrip("\r")
        lead = 0
        if number:
            lead = len(text) - len(text.lstrip(" \t"))
        body_end = len(text)
        if number < len(lines) - 1:
            body_end = len(text.rstrip(" \t"))
            if quote == '"' and body_end < len(text) and _escapes_next(text, body_end):
                body_end += 1  # "\ " or "\<tab>" before the break is content, not trailing space
        body = text[lead:body_end]
        if number and not body and number < len(lines) - 1:
            empty_breaks.append(base + line_base + len(text))  # the empty line's own break
            continue
        if number:
            if empty_breaks:
                chars.extend("\n" * len(empty_breaks))
                offsets.extend(empty_breaks)
            elif not continued:
                chars.append(" ")
                offsets.append(base + line_base - 1)
            empty_breaks = []
        continued = False
        i = 0
        while i < len(body):
            ch = body[i]
            src = base + line_base + lead + i
            if quote == "'" and ch == "'" and body[i + 1 : i + 2] == "'":
                chars.append("'")
                offsets.append(src)
                i += 2
                continue
            if quote == '"' and ch == "\\":
                if i + 1 >= len(body):
                    continued = True
                    i += 1
                    continue
                code = body[i + 1]
                if code in _HEX_LEN:
                    width = _HEX_LEN[code]
                    try:
                        chars.append(chr(int(body[i + 2 : i + 2 + width], 16)))
                    except ValueError:
                        chars.append("?")
                    offsets.append(src)
                    i += 2 + width
                    continue
                chars.append(_ESCAPES.get(code, code))
                offsets.append(src)
                i += 2
                continue
            chars.append(ch)
            offsets.append(src)
            i += 1
    return chars, offsets
