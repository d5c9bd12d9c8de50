"""A line-by-line reader for the block-style YAML that kubectl, Helm and YAML dumpers write.

Why: reading YAML through libyaml's event stream costs a Python call per event (a few million
for a 10,000-node ``kubectl get resourceslices -o yaml``), more than the rest of a lint run.
Machine-written YAML uses a small, regular subset: block mappings and sequences, one scalar per
line, little that spans lines. In that subset every line is understood by one regular
expression, and machine output repeats lines massively (the same ``model: H100`` on every
device), so each distinct line is parsed once (``_LINES``) and later occurrences cost a dict
lookup.

Taken: block mappings and sequences (indentless ones too), plain and quoted scalars on one line
(no escapes), plain scalars going on over more indented lines (Go's encoder, behind
``kubectl -o yaml``, folds long strings that way), one-line flow collections of scalars, literal
block scalars (``|``, ``|-``), comments, CRLF, ``---``. The reader must give exactly what
``dralint.yaml.loader`` builds from libyaml's events: the same data (scalars resolved with the
same ``resolve_plain``), the same positions tree, the same problems (none: a document that would
have any is declined). Whatever it is not sure about it declines, and the loader reads that
document, and every later one in the file, with libyaml. Declined: anchors, aliases, tags,
folded and ``|+`` block scalars, multi-line quoted scalars, plain ones with a blank line or with
``: `` or `` #`` in a later line, escapes, nested flow collections, tabs, odd line breaks and
characters libyaml refuses, directives, ``...``, ``---`` with content, duplicate, merge and
complex keys, NaN and infinite numbers, empty documents, scalar roots, and anything indented in
a way the reader does not model. Files where the YAML 1.2 strictness pass would look for
problems (``strict.may_need_check``) are left to libyaml whole by the loader.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from dralint.yaml.positions import Pos, mapping_entry
from dralint.yaml.scalars import key_text, out_of_range, resolve_plain

#: Characters that send a file to libyaml: controls (tab included), DEL and the C1 controls
#: (NEL included), LS, PS, surrogates, the BOM and the non-characters U+FFFE and U+FFFF; that is,
#: what libyaml refuses or breaks lines at besides LF and CRLF (a CR must end a CRLF, see
#: ``LONE_CR``), and the tab, which only libyaml's errors describe well.
_OUTSIDE = re.compile("[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
#: A CR that is not part of a CRLF: libyaml breaks a line there, editors and reports do not.
LONE_CR = re.compile("\r(?!\n)")
#: Where documents start: "---" at the start of a line (the loader also resumes there after a
#: syntax error), found from the line break before it (see ``next_document_start``).
_DOCUMENT_START = re.compile(r"\n---(?=[ \t\r\n]|\Z)")
_FIRST_DOCUMENT_START = re.compile(r"---(?=[ \t\r\n]|\Z)")
#: What may follow "---" on its line in a document the reader takes: nothing but a comment.
_MARKER_LINE = re.compile(r"--- *(?: #.*)?")

# A plain scalar on one line in block context: no indicator first ("-" only before a non-space),
# then no ": ", no " #" and no trailing spaces. Written as runs of ordinary characters between
# the characters that need a look ahead (a ':', spaces), not as one alternation per character:
# the same matches, and a run is a single step for the regular expression engine, which this
# reader's parse of a new line mostly is.
_PLAIN = r"""(?:[^ \-?:,\[\]{}\#&*!|>'"%@`]|-(?=[^ ]))[^ :]*(?:(?::(?=[^ ])|\ +(?=[^ \#:]|:[^ ]))[^ :]*)*"""
_SINGLE = r"'[^']*(?:''[^']*)*'"
_DOUBLE = r'"[^"\\]*"'
# Flow collections on one line holding only scalars ("{app: web, tier: "gpu"}", "[a, b]"): a
# plain scalar in them also stops at flow indicators, and may hold no ':' at all (libyaml
# versions disagree about ':' inside flow plain scalars).
_FLOW_PLAIN = (
    r"""(?:[^ \-?:,\[\]{}\#&*!|>'"%@`]|-(?=[^ ,\[\]{}]))[^ :,\[\]{}]*(?:\ +(?=[^ \#:,\[\]{}])[^ :,\[\]{}]*)*"""
)
_FLOW_SCALAR = rf"(?:{_FLOW_PLAIN}|{_SINGLE}|{_DOUBLE})"
_FLOW_ENTRY = rf"{_FLOW_SCALAR}\ *:\ +{_FLOW_SCALAR}"
_FLOW_MAP = rf"\{{\ *(?:{_FLOW_ENTRY}\ *(?:,\ *{_FLOW_ENTRY}\ *)*)?\}}"
_FLOW_SEQ = rf"\[\ *(?:{_FLOW_SCALAR}\ *(?:,\ *{_FLOW_SCALAR}\ *)*)?\]"
_MAP_ENTRY = re.compile(rf"(?P<key>{_FLOW_SCALAR})\ *:\ +(?P<value>{_FLOW_SCALAR})")
_SEQ_ITEM = re.compile(_FLOW_SCALAR)
_LINE = re.compile(
    rf"""(?P<indent>\ *)
    (?P<dashes>(?:-(?:\ +|$))*)
    (?:(?P<key>{_PLAIN}|{_SINGLE}|{_DOUBLE})\ *:(?:\ +|$))?
    (?P<value>{_PLAIN}|{_SINGLE}|{_DOUBLE}|{_FLOW_MAP}|{_FLOW_SEQ}|\|-?)?
    \ *(?:(?<=\ )\#.*)?""",
    re.X,
)
_DASH = re.compile(r"- *")

#: What a line with no content (blank or a comment) parses to.
_SKIP: tuple[Any, ...] = ()
#: Value kinds of a parsed line.
_NONE, _SCALAR, _FLOW_LIST, _FLOW_DICT, _LITERAL = 0, 1, 2, 3, 4
#: Longest implicit key libyaml accepts is 1024 characters; stay clear of the edge.
_MAX_KEY = 1000
#: Parsed lines by their text, shared by every read (a line's parse depends on nothing else):
#: machine-written YAML repeats lines across documents and files, and reading positions again
#: meets the same lines. Kept in two generations of at most ``_CACHE_LIMIT`` lines (see
#: ``_parsed``): ``_LINES`` holds the lines met since the last turn, ``_OLDER`` the turn before.
_LINES: dict[str, tuple[Any, ...]] = {}
_OLDER: dict[str, tuple[Any, ...]] = {}
_CACHE_LIMIT = 2048


def _parsed(text: str) -> tuple[Any, ...]:
    """The parse of a line not met since the cache's last turn.

    Most distinct lines of a large run occur once (names, uids, timestamps), and a few occur
    in every document (``apiVersion: v1``, ``  - name: main``). A cache emptied when full
    dropped the few with the many, and holding every line of a 50,000-document run until then
    took 21 MiB. With two generations a line met again in the older one moves up, so the
    repeated lines stay while lines met once age out at the next turn. A line costs some 650
    bytes here, and the cache is full at a large run's peak of memory: 2,048 lines per
    generation parse as many lines of the generated benchmark as 16,384 did, 28% more of the
    corpus's lines (4,424 against 3,455), and hold 5 MiB less.
    """
    global _LINES, _OLDER
    parsed = _OLDER.get(text)
    if parsed is None:
        parsed = _parse_line(text[:-1] if text.endswith("\r") else text)
    if len(_LINES) >= _CACHE_LIMIT:
        _LINES, _OLDER = {}, _LINES
    _LINES[text] = parsed
    return parsed


class Declined(Exception):
    """A document (or file) outside the subset; ``str(error)`` says why, for tests and debugging."""


def _scalar(raw: str) -> tuple[Any, str]:
    """(value, style) of a one-line scalar as written: quoted ones are taken as they are.
    Declined for NaN or an infinity, so that no document read here holds one (the API
    validation then skips its search for them; such a number is a mistake in any manifest)."""
    first = raw[0]
    if first == "'":
        return raw[1:-1].replace("''", "'"), "'"
    if first == '"':
        return raw[1:-1], '"'
    value = resolve_plain(raw)
    if out_of_range(value):
        raise Declined("a NaN, infinite or out-of-range number")
    return value, ""


def _key(raw: str) -> tuple[str, str]:
    """(text, style) of a mapping key as the loader files it; declined for a merge key."""
    value, style = _scalar(raw)
    if style == "" and raw == "<<":
        raise Declined("a merge key")
    return (value if type(value) is str else key_text(value)), style


def _flow(line: str, start: int, end: int) -> tuple[int, tuple[tuple[Any, ...], ...]]:
    """(kind, entries) of the one-line flow collection at ``line[start:end]``: for a mapping,
    (key, style, start, end, value, style, start, end) per entry, for a list (value, style,
    start, end) per item."""
    if line[start] == "[":
        return _FLOW_LIST, tuple(
            (*_scalar(m.group()), m.start(), m.end()) for m in _SEQ_ITEM.finditer(line, start + 1, end - 1)
        )
    entries = []
    seen: set[str] = set()
    for m in _MAP_ENTRY.finditer(line, start + 1, end - 1):
        key, key_style = _key(m.group("key"))
        if key in seen:
            raise Declined("a duplicate key")
        if m.start("value") - m.start() > _MAX_KEY:
            raise Declined("a key longer than libyaml's limit")
        seen.add(key)
        entries.append((key, key_style, *m.span("key"), *_scalar(m.group("value")), *m.span("value")))
    return _FLOW_DICT, tuple(entries)


def _flow_value(
    kind: int, entries: tuple[tuple[Any, ...], ...], line: int, start: int, end: int, positions: bool
) -> Any:
    """A fresh container for a flow collection ``_flow`` parsed or, with ``positions``, its position."""
    if kind == _FLOW_LIST:
        if not positions:
            return [value for value, _, _, _ in entries]
        return (line, start, line, end, None, [(line, s, line, e, style) for _, style, s, e in entries])
    if not positions:
        return {key: value for key, _, _, _, value, _, _, _ in entries}
    children = {
        key: mapping_entry(key, (line, ks, line, ke, kstyle), (line, vs, line, ve, vstyle))
        for key, kstyle, ks, ke, _, vstyle, vs, ve in entries
    }
    return (line, start, line, end, None, children)


def _parse_line(line: str) -> tuple[Any, ...]:
    """What a line holds, as (whether it is a ``key: scalar`` line without '-', indent, dash
    columns, key, key start, key end, key style, whether the key is the usual plain one
    ``mapping_entry`` files by its start alone, end of the ':', value kind, value, value start,
    value end, value style); ``_SKIP`` for a blank or comment line. Raises Declined for a line
    outside the subset."""
    stripped = line.lstrip(" ")
    if not stripped or stripped[0] == "#":
        return _SKIP
    if line.startswith("..."):
        raise Declined("a '...' line")
    match = _LINE.fullmatch(line)
    if match is None:
        raise Declined(f"a line outside the subset: {line[:60]!r}")
    indent = len(line) - len(stripped)
    dashes = tuple(m.start() for m in _DASH.finditer(line, indent, match.end("dashes"))) if stripped[0] == "-" else ()
    key = key_start = key_end = key_style = colon_end = None
    short_key = False
    raw_key = match.group("key")
    if raw_key is not None:
        key_start, key_end = match.span("key")
        key, key_style = _key(raw_key)
        short_key = key_style == "" and key_end - key_start == len(key)
        colon_end = line.index(":", key_end) + 1
        if colon_end - key_start > _MAX_KEY:
            raise Declined("a key longer than libyaml's limit")
    kind, start, end, style = _NONE, None, None, None
    value: Any = None
    raw = match.group("value")
    if raw is not None:
        start, end = match.span("value")
        if raw[0] in "[{":
            kind, value = _flow(line, start, end)
        elif raw[0] == "|":
            kind, value = _LITERAL, raw == "|-"  # the value: whether the final line break is stripped
        else:
            kind = _SCALAR
            value, style = _scalar(raw)
    simple = kind == _SCALAR and key is not None and not dashes
    return (
        simple,
        indent,
        dashes,
        key,
        key_start,
        key_end,
        key_style,
        short_key,
        colon_end,
        kind,
        value,
        start,
        end,
        style,
    )


# An open block mapping or sequence is a list (this loop runs once per line of a 100 MB
# snapshot, and list indexing is the cheapest access Python has):
# [is a mapping, column, container, start line, start column, indentless, key of the open slot,
#  its entry head, pending], where ``pending`` is the mark of the open slot (where libyaml puts
# an empty value: after the ':' or the '-'), or None when no slot is open. A read builds either
# the data or the positions (``_document(..., positions=True)``), never both: the container
# holds values, or their positions (a mapping's ``mapping_entry``s, a list's positions). The
# entry head, with positions, is what precedes the value's position in the slot's entry
# (``_entry_head``); without, it stays None.
_IS_MAP, _COL, _CONTAINER, _START_LINE, _START_COL, _INDENTLESS, _KEY, _KEY_HEAD, _PENDING = range(9)


def _entry_head(line: int, key_start: int, key_end: int, key_style: str, short_key: bool) -> tuple[Any, ...]:
    """What precedes the value's position in the ``mapping_entry`` of a key on ``line``: the
    key's start for the usual plain key, else its position; known before the value is."""
    return (line, key_start) if short_key else ((line, key_start, line, key_end, key_style),)


def _put(frame: list[Any], item: Any) -> None:
    """Fill the open slot of ``frame`` with a value or, when positions are read, its position."""
    if frame[_IS_MAP]:
        head = frame[_KEY_HEAD]
        frame[_CONTAINER][frame[_KEY]] = item if head is None else (*head, item)
    else:
        frame[_CONTAINER].append(item)
    frame[_PENDING] = None


def _put_empty(frame: list[Any], positions: bool) -> None:
    """Fill the open slot of ``frame`` with null, which libyaml places, zero-width, at the slot's
    mark: a key or a '-' with nothing after it before the next line of the collection."""
    line, mark = frame[_PENDING]
    _put(frame, (line, mark, line, mark, "") if positions else None)


class _Literal:
    """A literal block scalar (``|`` or ``|-``) being read, line by line, until a non-empty line
    less indented than its content. Declined: leading empty lines (the YAML 1.2 pass looks at
    those), lines of spaces only (they may be content), and an empty scalar."""

    __slots__ = ("frame", "line", "col", "strip", "parent", "indent", "lines", "blank", "last")

    def __init__(self, frame: list[Any], line: int, col: int, strip: bool):
        self.frame = frame  # whose open slot the scalar fills
        self.line, self.col = line, col  # of the '|'
        self.strip = strip
        self.parent = frame[_COL]  # content must be indented deeper than the collection
        self.indent = -1  # spaces before the content, from its first line
        self.lines: list[str] = []
        self.blank = 0  # empty lines since the last content line
        self.last = (line, 0)  # file line and width of the last content line

    def take(self, text: str, number: int) -> bool:
        """Whether line ``number`` (``text``, without a CR) belongs to the scalar."""
        if not text:
            if self.indent < 0:
                raise Declined("a block scalar that starts with an empty line")
            self.blank += 1
            return True
        spaces = len(text) - len(text.lstrip(" "))
        if spaces == len(text):
            raise Declined("a line of spaces in a block scalar")
        if self.indent < 0:
            if spaces <= self.parent:
                raise Declined("an empty block scalar")
            self.indent = spaces
        elif spaces < self.indent:
            return False
        if self.blank:
            self.lines.extend([""] * self.blank)
            self.blank = 0
        self.lines.append(text[self.indent :])
        self.last = (number, len(text))
        return True

    def finish(self, end: tuple[int, int], broken: bool, positions: bool) -> None:
        """Fill the slot: the scalar ends at ``end``; ``broken``: a line break follows its last line."""
        if self.indent < 0:
            raise Declined("an empty block scalar")
        if positions:
            _put(self.frame, (self.line, self.col, *end, "|"))
        else:
            _put(self.frame, "\n".join(self.lines) + ("\n" if broken and not self.strip else ""))


def _continue_plain(lines: list[str], index: int, first: int, stack: list[list[Any]], positions: bool) -> int:
    """How many lines from ``lines[index]`` on go on with the plain scalar the line before
    ended, now folded into it; 0 when that line does not go on with one.

    Go's YAML encoder, which ``kubectl -o yaml`` uses, folds strings longer than 80 columns at
    a space: a CEL expression or a description then goes on, more indented, on the next lines.
    libyaml joins such lines with single spaces while they are more indented than the
    collection the scalar is in. What it might read otherwise is declined: a ': ' or ' #' in a
    line (an error or a comment for libyaml), a blank line inside (a line break), a comment on
    the scalar's first line.
    """
    if index == 0 or not stack:
        return 0
    frame = stack[-1]
    container = frame[_CONTAINER]
    if not container:
        return 0
    slot = next(reversed(container)) if frame[_IS_MAP] else -1  # where the scalar went
    last = container[slot]
    if positions:  # a mapping holds entries, whose last part is the value's position
        last = last[-1] if frame[_IS_MAP] else last
        collection = len(last) != 5  # a collection's position has its children
    else:
        collection = isinstance(last, (dict, list))
    if collection:  # lines were closed before the decline: the scalar's collection is gone
        return 0
    before = lines[index - 1].removesuffix("\r")
    try:
        parsed = _parse_line(before)
    except Declined:
        return 0
    if not parsed:
        return 0
    *_, kind, _, start, stop, style = parsed
    if kind != _SCALAR or style != "" or before[stop:].strip(" "):  # not plain, or a comment after it
        return 0
    limit = frame[_COL] + 1
    words = [before[start:stop]]
    end_line = end_column = 0
    for at in range(index, len(lines)):  # not a slice: a dump's List is one document of a million lines
        text = lines[at].removesuffix("\r")
        stripped = text.lstrip(" ")
        word = stripped.rstrip(" ")
        if not word or word[0] == "#" or len(text) - len(stripped) < limit:
            break
        if ": " in word or word[-1] == ":" or " #" in word:
            raise Declined("a line of a plain scalar that libyaml may read otherwise")
        words.append(word)
        end_line, end_column = at + first, len(text) - len(stripped) + len(word)
    if len(words) == 1:
        return 0
    value = resolve_plain(" ".join(words))
    if out_of_range(value):
        raise Declined("a NaN, infinite or out-of-range number")
    line = index - 1 + first
    if positions:
        value = (line, start, end_line, end_column, "")
        if frame[_IS_MAP]:
            value = (*container[slot][:-1], value)
    container[slot] = value
    return len(words) - 1


def _document(lines: list[str], first: int, end: tuple[int, int], max_depth: int, positions: bool) -> Any:
    """Read the lines of one document (``first`` is the file line of ``lines[0]``): its data
    or, with ``positions``, its positions tree; None when it has no content.

    Each content line either continues the innermost open collection (its column is the
    collection's), opens the block an open slot waits for (deeper, or a '-' at the column of a
    key: an indentless sequence), or closes collections first (shallower). A collection ends at
    libyaml's mark for it: the first token after it, or ``end``. Whether a document is declined
    never depends on ``positions``.
    """
    stack: list[list[Any]] = []
    root: Any = None

    def close(line: int, col: int) -> None:
        nonlocal root
        frame = stack.pop()
        item = (
            (frame[_START_LINE], frame[_START_COL], line, col, None, frame[_CONTAINER])
            if positions
            else frame[_CONTAINER]
        )
        if stack:
            _put(stack[-1], item)
        else:
            root = item

    literal: _Literal | None = None
    rows = enumerate(lines, first)
    for number, text in rows:
        if literal is not None:
            if literal.take(text[:-1] if text.endswith("\r") else text, number):
                continue
            literal.finish((number, 0), True, positions)
            literal = None
        try:
            parsed = _LINES.get(text)
            if parsed is None:
                parsed = _parsed(text)
            if not parsed:
                continue
            (
                simple,
                col,
                dashes,
                key,
                key_start,
                key_end,
                key_style,
                short_key,
                colon_end,
                kind,
                value,
                start,
                stop,
                style,
            ) = parsed
            item = value  # what a scalar puts in its collection
            if positions and kind == _SCALAR:
                item = (number, start, number, stop, style)
                if key is not None:  # "key: value": its ``mapping_entry``, whichever way it is filed
                    item = (
                        (number, key_start, item)
                        if short_key
                        else ((number, key_start, number, key_end, key_style), item)
                    )
            top = stack[-1] if stack else None
            if simple and top is not None and top[_COL] == col and top[_PENDING] is None and top[_IS_MAP]:
                # The usual line, "key: value" going on with the mapping above it, in one step
                # (what the general case below comes to for it).
                if key in top[_CONTAINER]:
                    raise Declined("a duplicate key")
                top[_CONTAINER][key] = item
                continue
            if (
                top is not None
                and top[_PENDING] is not None
                and (col > top[_COL] or (col == top[_COL] and dashes and top[_IS_MAP]))
            ):
                opens, with_key, indentless = dashes, True, col == top[_COL]  # the block an open slot waits for
            else:
                if top is not None:
                    if top[_PENDING] is not None:
                        _put_empty(top, positions)
                    while stack and (
                        stack[-1][_COL] > col or (stack[-1][_INDENTLESS] and stack[-1][_COL] == col and not dashes)
                    ):
                        close(number, col)
                    top = stack[-1] if stack else None
                indentless = False
                if top is None:
                    if root is not None:
                        raise Declined("content after the document's root")
                    opens, with_key = dashes, True
                elif top[_COL] != col:
                    raise Declined("indentation the reader does not model")
                elif top[_IS_MAP]:
                    if dashes or key is None:
                        raise Declined("a mapping line without a key")
                    if key in top[_CONTAINER]:
                        raise Declined("a duplicate key")
                    if kind == _SCALAR:  # the usual line, "key: value", in one step
                        top[_CONTAINER][key] = item
                        continue
                    top[_KEY], top[_PENDING] = key, (number, colon_end)
                    if positions:
                        top[_KEY_HEAD] = _entry_head(number, key_start, key_end, key_style, short_key)
                    opens, with_key = (), False
                else:
                    if not dashes:
                        raise Declined("a sequence line without '-'")
                    top[_PENDING] = (number, col + 1)
                    opens, with_key = dashes[1:], True
            if len(stack) + len(opens) + 1 >= max_depth:
                raise Declined("deep nesting")
            for dash in opens:
                stack.append([False, dash, [], number, dash, indentless, None, None, (number, dash + 1)])
                indentless = False
            if with_key and key is not None:
                if kind == _SCALAR:  # a mapping that starts with "key: value" (often "- name: x"), in one step
                    stack.append([True, key_start, {key: item}, number, key_start, False, key, None, None])
                    continue
                stack.append(
                    [
                        True,
                        key_start,
                        {},
                        number,
                        key_start,
                        False,
                        key,
                        _entry_head(number, key_start, key_end, key_style, short_key) if positions else None,
                        (number, colon_end),
                    ]
                )
            if kind:
                if not stack:
                    raise Declined("a scalar or flow root")
                if kind == _SCALAR:
                    _put(stack[-1], item)
                elif kind == _LITERAL:
                    literal = _Literal(stack[-1], number, start, value)
                else:
                    _put(stack[-1], _flow_value(kind, value, number, start, stop, positions))
        except Declined:
            # Every line that goes on with a plain scalar is declined above (it is deeper than
            # the collection the scalar is in), before anything changed.
            taken = _continue_plain(lines, number - first, first, stack, positions)
            if not taken:
                raise
            for _ in range(taken - 1):
                next(rows)
    if literal is not None:
        line, width = literal.last
        broken = line < first + len(lines) - 1
        # libyaml ends a broken scalar at the start of the line after it: column 0 of ``end``'s
        # line (a List item's ``end`` is the next item's '-', which may be indented).
        literal.finish((end[0], 0) if broken else (line, width), broken, positions)
    if stack and stack[-1][_PENDING] is not None:
        _put_empty(stack[-1], positions)
    while stack:
        close(*end)
    return root


class Segment(NamedTuple):
    """Where a document read here lies in its file: enough to read its positions again.

    A document read here keeps this in place of its positions tree (a tenth of its size when
    frozen); ``positions`` rebuilds the tree, the same one, if a span is ever asked for.
    """

    start: int  # offset of the document's first line (its "---", if any)
    stop: int  # offset after its last line
    line: int  # file line of ``start``
    end: tuple[int, int]  # libyaml's mark after the document: the next "---" or the end of the file
    #: The lines are one item of a List ("- ..."), read as a document of its own (see
    #: ``list_items``); ``end`` is then where libyaml ends the item: the next item's '-'.
    item: bool = False


def eligible(text: str, start: int = 0, stop: int | None = None) -> str | None:
    """Why the whole file is left to libyaml, or None when its documents may be read here.

    ``start`` and ``stop`` limit the search to a stretch (see ``stretches``): what it looks for
    lies within one line, and a CR's line break is never cut from it, since stretches start at
    the start of a line or at an item's '-'.
    """
    stop = len(text) if stop is None else stop
    if _OUTSIDE.search(text, start, stop):
        return "a tab, an odd line break or a character libyaml refuses"
    if text.find("\r", start, stop) >= 0 and LONE_CR.search(text, start, stop):
        return "a lone CR"
    return None


def _lines(text: str, start: int, stop: int) -> list[str]:
    """The lines of a document, its "---" line blanked (declined when it holds more)."""
    lines = text[start:stop].split("\n")
    if text.startswith("---", start):
        if not _MARKER_LINE.fullmatch(lines[0].removesuffix("\r")):
            raise Declined("content on the '---' line")
        lines[0] = ""
    return lines


#: Levels below the loader's depth limit at which the reader declines a document: one that may
#: reach the limit is left to the loader, which reports it.
_DEPTH_MARGIN = 8


def read(
    text: str,
    add: Callable[[Any, Segment], None],
    *,
    max_depth: int,
    add_items: Callable[[Iterator[tuple[Any, Segment]]], None] | None = None,
    until: int | None = None,
) -> tuple[int, str | None]:
    """Read the documents of ``text`` from the start, handing the data and ``Segment`` of each
    to ``add``, until one is declined or the document at ``until`` is reached. Returns (offset
    where libyaml must take over, why), or (len(text), None) when every document was read.

    With ``add_items``, a ``kind: List`` document (what ``kubectl get -o yaml`` writes) goes to
    it instead, as an iterator over its items' data and segments, read one at a time: a
    snapshot of a large cluster is one such document, and reading it whole would hold every
    object at once. The iterator raises ``Declined`` at an item the reader does not take;
    ``add_items`` lets that through, and the whole document goes to libyaml as any other.

    Documents are split at "---" lines; a declined document is read again by libyaml from its
    "---", where libyaml itself starts a fresh document. ``max_depth`` is the loader's limit: a
    document that may reach it is declined, so the loader reports it. The loader's other limit,
    on nodes made through aliases, cannot be reached here: aliases are declined.
    Positions are not built here (see ``Segment``): most documents never need them.
    """
    why = eligible(text)
    if why is not None:
        return 0, why
    starts, stops = document_bounds(text)
    return read_documents(text, starts, stops, 0, add, max_depth=max_depth, add_items=add_items, until=until)


def read_documents(
    text: str,
    starts: list[int],
    stops: list[int],
    line: int,
    add: Callable[[Any, Segment], None],
    *,
    max_depth: int,
    add_items: Callable[[Iterator[tuple[Any, Segment]]], None] | None = None,
    until: int | None = None,
) -> tuple[int, str | None]:
    """``read`` over the documents with these bounds, a stretch of ``text`` (``eligible``)
    whose first line is file line ``line``: the loader reads the stretches of a large file in
    several processes (``dralint.yaml.loader.pieces``). Returns (offset where the reader
    stopped, why), or (the stretch's end, None) when every document was read."""
    for start, stop in zip(starts, stops, strict=True):
        if start == until:
            return start, "the loader reads the rest"
        next_line = line + text.count("\n", start, stop)
        segment = Segment(start, stop, line, _document_end(text, stop, next_line))
        try:
            if add_items is not None and (items := list_items(text, segment, max_depth)) is not None:
                add_items(read_items(text, items, max_depth))
            else:
                document = _document(_lines(text, start, stop), line, segment.end, max_depth - _DEPTH_MARGIN, False)
                if document is None and text.startswith("---", start):
                    raise Declined("an empty document")
                if document is not None:  # only comments before the first "---": no document
                    add(document, segment)
        except Declined as declined:
            return start, str(declined)
        line = next_line
    return stops[-1] if stops else len(text), None


def _document_end(text: str, stop: int, next_line: int) -> tuple[int, int]:
    """libyaml's mark after the document that stops at ``stop``, whose next line is
    ``next_line``: past the last line of the text, a line of its own only when the text does
    not end with a line break."""
    return (next_line, 0) if stop < len(text) else (next_line + (1 if text and not text.endswith("\n") else 0), 0)


class DocumentRun(NamedTuple):
    """Documents of a file that a worker reads on its own (see ``stretches``)."""

    starts: list[int]
    stops: list[int]
    line: int  # file line of the first
    document: int  # the number of the first in the file, as ``read`` counts documents
    #: The text this stretch answers for, in the checks ``read`` makes of the whole text first:
    #: from its start (the file's, for the first) to the next stretch's (the file's end).
    cover: tuple[int, int]


class ItemRun(NamedTuple):
    """A run of one List's items that a worker reads on its own (see ``stretches``)."""

    items: ListItems
    first: int  # the number of its first item in the List
    document: int  # the List's number among the file's documents
    cover: tuple[int, int]  # as a DocumentRun's


#: A line with content, from the line break before it: in the text before a file's first
#: "---", such a line makes a document (``read`` hands over none for comments alone).
_CONTENT_LINE = re.compile(r"(?:\A|\n) *[^ #\r\n]")


def stretches(text: str, size: int, max_depth: int) -> list[DocumentRun | ItemRun] | None:
    """``text`` cut at document boundaries into stretches of about ``size`` characters, and each
    List longer than that at item boundaries, for workers to read apart with
    ``read_documents`` and ``read_items``; None when the header of such a List is declined.

    Reading the stretches gives what ``read`` gives, up to where ``read`` would stop: a
    document, or a List item, is read from its own lines alone. The caller checks that each
    stretch's ``cover`` is ``eligible``, as ``read`` checks the whole text (in the workers:
    that search is a third of the time a large List takes to read), and that each stretch's
    ``document``, which assumes every document before it is read, is what was read.
    """
    starts, stops = document_bounds(text)
    # 1 when the text before the first "---" is no document: later documents' numbers are one less.
    empty_prelude = 1 if not text.startswith("---") and _CONTENT_LINE.search(text, 0, stops[0]) is None else 0
    whole = (0, len(text))  # each stretch's cover until the stretches are all known
    out: list[DocumentRun | ItemRun] = []
    first = line = first_line = 0  # the documents being gathered: the first's number and line

    def gather(last: int) -> None:
        if last > first:
            out.append(
                DocumentRun(starts[first:last], stops[first:last], first_line, max(first - empty_prelude, 0), whole)
            )

    for number, (start, stop) in enumerate(zip(starts, stops, strict=True)):
        next_line = line + text.count("\n", start, stop)
        items = None
        if stop - start > size:
            try:
                items = list_items(text, Segment(start, stop, line, _document_end(text, stop, next_line)), max_depth)
            except Declined:
                return None
        if items is not None:  # the documents before it, then its items in runs
            gather(number)
            parts = -(-(stop - start) // size)  # rounded up
            out.extend(
                ItemRun(run, item, number - empty_prelude, whole) for item, run in split_items(text, items, parts)
            )
            first, first_line = number + 1, next_line
        elif number == len(starts) - 1 or stop - starts[first] >= size:
            gather(number + 1)
            first, first_line = number + 1, next_line
        line = next_line
    covers = [0, *(_start(run) for run in out[1:]), len(text)]
    return [run._replace(cover=(covers[index], covers[index + 1])) for index, run in enumerate(out)]


def _start(run: DocumentRun | ItemRun) -> int:
    return run.starts[0] if isinstance(run, DocumentRun) else run.items.bounds[0]


def document_bounds(text: str) -> tuple[list[int], list[int]]:
    """Where each document of ``text`` starts and stops: at "---" lines, and at the start and end."""
    starts = [0, *(m.start() + 1 for m in _DOCUMENT_START.finditer(text))]
    return starts, starts[1:] + [len(text)]


def next_document_start(text: str, offset: int) -> int | None:
    """Offset of the first "---" line that starts at or after ``offset``.

    The pattern starts with the line break before the marker: the regular expression engine
    searches for that at C speed, where "^" in MULTILINE mode is tried at every character (ten
    times the time, over a file of 20 MiB).
    """
    if offset == 0 and _FIRST_DOCUMENT_START.match(text):
        return 0
    found = _DOCUMENT_START.search(text, max(offset - 1, 0))
    return found.start() + 1 if found else None


def positions(text: str, segment: Segment) -> Pos:
    """The positions tree of the document (or List item) ``read`` took from ``segment`` of ``text``."""
    document = _document(_lines(text, segment.start, segment.stop), segment.line, segment.end, sys.maxsize, True)
    if document is None:
        raise RuntimeError(f"the text of a document changed after it was read ({segment})")
    return document[5][0] if segment.item else document


#: A List's ``items:`` line at the root of a document: the items are on the lines below.
_ITEMS_KEY = re.compile(r"items: *(?: #.*)?\r?$", re.M)
#: The first content line (not blank, not a comment) after the search's start, from its line
#: break. The patterns here start with a line break, not with "^": the regular expression
#: engine then searches for the break at C speed instead of trying a match at every character.
_CONTENT = re.compile(r"\n *[^ #\r\n]")
#: Per column of a List's items: the '-' starting each, and the first content line after
#: them (less indented, or as indented without a '-'), both from the line break before them.
_ITEM_LINES: dict[int, tuple[re.Pattern[str], re.Pattern[str]]] = {}


def _item_lines(column: int) -> tuple[re.Pattern[str], re.Pattern[str]]:
    found = _ITEM_LINES.get(column)
    if found is None:
        item = rf" {{{column}}}-(?:[ \r\n]|\Z)"  # an item's line after its line break
        found = _ITEM_LINES[column] = (
            re.compile("\n" + item),
            re.compile(rf"\n(?!{item})(?= {{0,{column}}}[^ #\r\n])"),
        )
    return found


class ListLayout(NamedTuple):
    """Where the parts of a document that may be a List lie, found in its text alone."""

    key_end: int  # offset after the root ``items:`` line's text
    items: list[int]  # offset of each item's '-'
    stop: int  # offset after the last item: the first line after the items, or the document's end
    column: int  # of the items' '-'


def list_layout(text: str, start: int, stop: int) -> ListLayout | None:
    """The layout of the document from ``start`` to ``stop`` if it has a root ``items:`` with
    block items below it; None otherwise. Says nothing about ``kind``."""
    if start == 0 and text.startswith("items:"):
        at = 0
    else:  # a plain search: it costs every other document next to nothing
        at = text.find("\nitems:", max(start - 1, 0), stop) + 1
        if not at:
            return None
    key = _ITEMS_KEY.match(text, at, stop)
    content = None if key is None else _CONTENT.search(text, key.end(), stop)
    if key is None or content is None:
        return None
    offset = content.start() + 1
    column = content.end() - 1 - offset
    dash, after = _item_lines(column)
    if dash.match(text, offset - 1) is None:
        return None
    closing = after.search(text, offset - 1, stop)
    region_stop = stop if closing is None else closing.start() + 1
    if text.startswith(" ", region_stop, stop):  # an indented line ends the items: no List layout
        return None
    starts = [m.start() + 1 for m in dash.finditer(text, offset - 1, region_stop)]
    return ListLayout(key.end(), starts, region_stop, column)


class ListItems(NamedTuple):
    """Items of a List, or a run of them, as the reader cuts them apart."""

    bounds: list[int]  # offset of each item's '-', then the offset after the last item
    line: int  # file line of the first item
    column: int  # of the items' '-'
    closed: tuple[int, int]  # libyaml's mark after the last item: the next item's '-', or past the items


def list_items(text: str, segment: Segment, max_depth: int) -> ListItems | None:
    """The items of the ``kind: List`` document at ``segment``; None when the document is not a
    List whose items this can cut apart (it is then read whole). ``max_depth`` is the loader's.

    An item is the lines from its '-' to the next item's. Read alone, as a sequence of one,
    it gives what the whole document gives: a line inside an item never depends on the lines
    of another, and the item's collections end where they would in the whole (``closed``: the
    next item's '-', or the first line after the items). The rest of the document (apiVersion,
    kind, metadata) is read apart here, to make sure it is a List.
    """
    start, stop = segment.start, segment.stop
    layout = list_layout(text, start, stop)
    if layout is None:
        return None
    header = _document(
        _lines(text, start, layout.key_end) + text[layout.stop : stop].split("\n"),
        segment.line,
        segment.end,
        max_depth - _DEPTH_MARGIN,
        False,
    )
    kind = header.get("kind") if isinstance(header, dict) else None
    if not (isinstance(kind, str) and kind.endswith("List") and header["items"] is None):
        return None
    closed = (segment.line + text.count("\n", start, layout.stop), 0) if layout.stop < stop else segment.end
    return ListItems(
        layout.items + [layout.stop], segment.line + text.count("\n", start, layout.items[0]), layout.column, closed
    )


def split_items(text: str, items: ListItems, parts: int) -> list[tuple[int, ListItems]]:
    """``items`` cut into up to ``parts`` runs of about equal text, each with the number of its
    first item: ``read_items`` of the runs gives what ``read_items`` of the whole does."""
    bounds = items.bounds
    count = len(bounds) - 1
    size = (bounds[-1] - bounds[0]) / parts
    runs: list[tuple[int, ListItems]] = []
    first, line = 0, items.line
    for index in range(1, count + 1):
        if index < count and bounds[index] - bounds[first] < size:
            continue
        next_line = line + text.count("\n", bounds[first], bounds[index])
        closed = items.closed if index == count else (next_line, items.column)
        runs.append((first, ListItems(bounds[first : index + 1], line, items.column, closed)))
        first, line = index, next_line
    return runs


def read_items(text: str, items: ListItems, max_depth: int) -> Iterator[tuple[Any, Segment]]:
    """The data and segment of each of ``items``, read one at a time (``max_depth`` is the
    loader's; an item is read as a sequence of one, a level deeper than in its document)."""
    bounds, line, column = items.bounds, items.line, items.column
    last = len(bounds) - 2
    for index in range(last + 1):
        item_start, item_stop = bounds[index], bounds[index + 1]
        next_line = line + text.count("\n", item_start, item_stop)
        item = Segment(item_start, item_stop, line, items.closed if index == last else (next_line, column), True)
        yield (
            _document(_lines(text, item_start, item_stop), line, item.end, max_depth - _DEPTH_MARGIN - 1, False)[0],
            item,
        )
        line = next_line
