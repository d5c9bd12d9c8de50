"""An editable manifest file whose untouched bytes survive an edit exactly.

YAML files are loaded with ruamel.yaml's round-trip loader (comments, key order, quoting,
flow/block style); JSON files with the json module (key order), so they stay JSON. Neither
serializer reproduces a file byte for byte: ruamel re-indents some sequences, drops a leading
comment before ``---``, writes ``~`` as an empty value; json re-spaces everything. So the new
text is never written as the serializer prints it. Instead the serializer prints the document
twice, before the edit and after it, and only the lines that differ between those two printouts
are carried into the original text (see :func:`merge`). Lines the edit did not touch keep their
exact bytes, and an edit that changes nothing leaves the file identical.

Line endings (LF, CRLF or mixed) and a UTF-8 byte-order mark are kept.
"""

from __future__ import annotations

import copy
import functools
import io
import json
import re
import warnings
from collections import Counter
from difflib import SequenceMatcher
from itertools import pairwise
from typing import Any, NamedTuple

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from dralint.yaml.loader import DataPath, SourceText, load

BOM = "\ufeff"


class NotEditable(ValueError):
    """The file cannot be loaded for editing (the message says why)."""


class TooLarge(NotEditable):
    """The text holds more nodes than ruamel.yaml edits in bounded time (``MAX_EDITED_NODES``)."""


#: Most nodes (mappings, their keys, lists, scalars) of a text ruamel.yaml reads for a fix. Its
#: read and two printouts take some 25 µs a node (8 s of `fix` for a one-line list of 100,000
#: numbers), and `--max-file-size` lets a hostile file hold millions. The corpus's largest
#: document has 6,942 nodes (a ResourceSlice dump), so the budget is seven times that.
MAX_EDITED_NODES = 50_000


def _nodes(documents: list[Any], limit: int) -> int:
    """How many nodes the documents hold, counted up to just past ``limit``."""
    count = 0
    stack = list(documents)
    while stack and count <= limit:
        node = stack.pop()
        count += 1
        if isinstance(node, dict):
            count += len(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return count


class LineEdit(NamedTuple):
    """Replace original lines [start, end) (0-based) by ``lines`` (without line endings)."""

    start: int
    end: int
    lines: tuple[str, ...]


def _line_map(matcher: SequenceMatcher) -> dict[int, int]:
    """Left line index -> right line index for the lines a matcher found in both sequences."""
    return {block.a + k: block.b + k for block in matcher.get_matching_blocks() for k in range(block.size)}


def merge_edits(original: list[str], before: list[str], after: list[str]) -> list[LineEdit]:
    """The edits that carry ``before`` -> ``after`` changes into ``original``.

    ``before`` and ``after`` are the serializer's printouts without and with the edit;
    ``original`` differs from ``before`` only by serializer noise (re-indented or dropped
    lines). Each changed run of ``before`` lines replaces the original lines it was printed
    from. A run next to noise lines (printout lines with no verbatim original) is widened over
    them, and their new form is taken from ``after``. An insertion goes after the original of
    the line it follows, or before the original of the line after it. Lines away from changes
    are never taken from the printout.
    """
    to_original = _line_map(SequenceMatcher(None, before, original, autojunk=False))
    changes = SequenceMatcher(None, before, after, autojunk=False)
    to_after = _line_map(changes)
    edits: list[list[int]] = []  # [original start, original end, after start, after end]
    for tag, i1, i2, j1, j2 in changes.get_opcodes():
        if tag == "equal":
            continue
        if i1 == i2 and i1 - 1 in to_original:
            window = [to_original[i1 - 1] + 1] * 2 + [j1, j2]
        elif i1 == i2 and i1 in to_original:
            window = [to_original[i1]] * 2 + [j1, j2]
        else:
            # A run whose first or last line is noise grows over the noise lines next to it
            # that the edit left alone, so their original text is replaced as a whole.
            low, high = i1, i2
            if low not in to_original:
                while low > 0 and low - 1 not in to_original and low - 1 in to_after:
                    low -= 1
            if high - 1 not in to_original:
                while high < len(before) and high not in to_original and high in to_after:
                    high += 1
            start = to_original[low] if low in to_original else _original_before(to_original, low)
            end = (
                to_original[high - 1] + 1
                if high - 1 in to_original
                else _original_after(to_original, high, len(original))
            )
            window = [start, end, to_after[low] if low < i1 else j1, to_after[high - 1] + 1 if high > i2 else j2]
        if edits and window[0] < edits[-1][1]:
            edits[-1][1] = max(edits[-1][1], window[1])
            edits[-1][3] = max(edits[-1][3], window[3])
        else:
            edits.append(window)
    return [LineEdit(start, end, tuple(after[j1:j2])) for start, end, j1, j2 in edits]


def _original_before(to_original: dict[int, int], index: int) -> int:
    """The original line after the nearest printout line before ``index`` that has an original."""
    previous = [to_original[b] for b in to_original if b < index]
    return max(previous) + 1 if previous else 0


def _original_after(to_original: dict[int, int], index: int, total: int) -> int:
    """The original line of the nearest printout line at or after ``index`` that has one."""
    following = [to_original[b] for b in to_original if b >= index]
    return min(following) if following else total


def _detect_indent(lines: list[str]) -> tuple[int, int, int]:
    """(mapping indent, dash offset, spaces after the dash) most used in a block YAML file.

    The serializer is set up with these, so the lines an edit adds look like their neighbours
    and the untouched lines print as they are written (which keeps edits narrow).
    """
    mapping: Counter[int] = Counter()
    dash: Counter[int] = Counter()
    gap: Counter[int] = Counter()
    content = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    for line in content:
        body = line.lstrip(" ")
        if body.startswith("- ") and body[1:].strip():
            gap[len(body) - 1 - len(body[1:].lstrip(" "))] += 1
    for parent, child in pairwise(content):
        if not parent.rstrip().endswith(":"):
            continue
        parent_indent = len(parent) - len(parent.lstrip(" "))
        if parent.lstrip().startswith("- "):
            parent_indent += 1 + (gap.most_common(1)[0][0] if gap else 1)
        child_indent = len(child) - len(child.lstrip(" "))
        if child.lstrip().startswith("- "):
            dash[child_indent - parent_indent] += 1
        elif child_indent > parent_indent:
            mapping[child_indent - parent_indent] += 1
    indent = mapping.most_common(1)[0][0] if mapping else 2
    offset = max(dash.most_common(1)[0][0], 0) if dash else 0
    return indent, offset, gap.most_common(1)[0][0] if gap else 1


def _margin(lines: list[str]) -> int:
    """Spaces every non-blank line starts with: a document indented as a whole block."""
    indents = [len(line) - len(line.lstrip(" ")) for line in lines if line.strip()]
    return min(indents) if indents else 0


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def _split(text: str) -> list[str]:
    """Lines without their endings; a final newline does not make an extra empty line."""
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


#: Where a line ends in the original bytes, as dralint's positions count lines (``sources.decode``
#: turns CR LF into LF, so CR CR LF is one line end): LF, CR LF or CR CR LF. Splitting at LF
#: alone left a CR at the end of each line of a CR CR LF file, so no line matched the printout
#: and edits took the printout's lines for the whole file. (A lone CR ends no line here, as in
#: dralint's positions; ``runner.fix_bytes`` fixes a CR-only file as LF.)
_LINE_END = re.compile(r"\r\r\n|\r\n|\n")
_ENDING = re.compile(r"(?:\r\r\n|\r\n|\n)\Z")
#: Breaks libyaml also counts, which no split here models: a file holding one is never cut
#: into parts by line (``EditableFile.part``).
_OTHER_BREAKS = ("\r", "\x85", "\u2028", "\u2029")


def _keep_ends(text: str) -> list[str]:
    """Lines with their endings (``_LINE_END``)."""
    out = []
    start = 0
    for end in _LINE_END.finditer(text):
        out.append(text[start : end.end()])
        start = end.end()
    if start < len(text):
        out.append(text[start:])
    return out


def _bare(line: str) -> str:
    ending = _ENDING.search(line)
    return line[: ending.start()] if ending else line


def tree_copy(node: Any, memo: dict[int, Any] | None = None) -> Any:
    """A deep copy of a ruamel.yaml round-trip tree, shared nodes (aliases) shared again.

    ruamel.yaml's own ``CommentedSeq.__deepcopy__`` copies the sequence's attributes again after
    each item, its line-and-column table of every item included: time in the square of the
    sequence's length (215 s of SARIF for a 16 KB file holding an 8,000-item list). Containers are
    copied here as its ``CommentedMap.__deepcopy__`` copies a mapping, attributes once; anything
    else goes to ``copy.deepcopy`` with the same memo.
    """
    memo = {} if memo is None else memo
    if not isinstance(node, (CommentedMap, CommentedSeq, list)):
        return copy.deepcopy(node, memo)
    found = memo.get(id(node))
    if found is not None:
        return found
    twin: Any = type(node)()
    memo[id(node)] = twin
    if isinstance(node, CommentedMap):
        for key in node:
            twin[key] = tree_copy(node[key], memo)
    else:
        twin.extend(tree_copy(item, memo) for item in node)
    if isinstance(node, (CommentedMap, CommentedSeq)):
        node.copy_attributes(twin, memo=memo)
    return twin


class EditableFile:
    """One manifest file loaded for editing: documents, format facts, and the printer.

    ``documents`` are ruamel.yaml round-trip nodes (or plain JSON data) in file order, indexed
    like :class:`dralint.yaml.loader.Document.index`.
    """

    def __init__(self, path: str, raw: bytes, layout: tuple[int, int, int] | None = None):
        """``layout``: the (mapping indent, dash offset, dash gap) to print with instead of the
        ones the text shows, for a part of a larger file (``item``)."""
        self.path = path
        self.raw = raw
        try:
            decoded = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise NotEditable(f"not UTF-8 ({error.reason})") from error
        self.bom = decoded.startswith(BOM)
        decoded = decoded[1:] if self.bom else decoded
        # Original lines keep their own endings; matching and printing use LF.
        self.original = _keep_ends(decoded)
        endings = Counter(line[len(_bare(line)) :] for line in self.original)
        endings.pop("", None)
        self.newline = endings.most_common(1)[0][0] if endings else "\n"
        self.text = "".join(_bare(line) + "\n" for line in self.original)
        if self.original and not _ENDING.search(self.original[-1]):
            self.text = self.text[:-1]
        self.is_json = self._looks_like_json()
        self.json_indent = self._json_indent() if self.is_json else None
        self.indent, self.dash_offset, self.dash_gap = (
            (2, 0, 1) if self.is_json else layout or _detect_indent(_split(self.text))
        )
        self.margin = 0 if self.is_json else _margin(_split(self.text))
        self._yaml = self._yaml_printer()

    @functools.cached_property
    def documents(self) -> list[Any]:
        """The documents, read when first asked: when a fix is made on a part of the file
        (``part``), ruamel.yaml never reads the whole of it (4 ms a document). Their printout
        as read (``_before``) is made at once, before anything can edit them."""
        loaded = self._load()
        self._before = self._printout(loaded)
        return loaded

    @functools.cached_property
    def lines(self) -> list[str]:
        """The text's lines, without their LF."""
        return self.text.split("\n")

    @functools.cached_property
    def odd_breaks(self) -> bool:
        """Whether the text holds a line break that dralint's positions count and the lines
        here do not (``_OTHER_BREAKS``): lines of such a file are never edited apart."""
        return any(other in self.text for other in _OTHER_BREAKS)

    def copy(self) -> EditableFile:
        """A twin to edit apart from this file: the documents copied, everything read from the
        bytes shared (fixing a finding alone, for each finding of a file read once). Check
        ``copies_faithfully`` first."""
        documents = self.documents
        twin = copy.copy(self)
        twin.documents = tree_copy(documents)
        return twin

    def document_lines(self) -> list[tuple[int, int]] | None:
        """The lines between this YAML file's '---' lines (0-based, stop excluded), the lines of
        one document each (or of none: comments before the first '---'). None for JSON, and
        where a line at column 0 could make the split wrong: a directive ('%'), a '...', or a
        '---' followed by content.

        A '---' at column 0 always starts a document (YAML forbids it inside any scalar), so
        the split needs no parse."""
        if self.is_json:
            return None
        ranges = []
        start = 0
        for number, line in enumerate(self.lines):
            if line.startswith(("%", "...")):
                return None
            if line.startswith("---") and (len(line) == 3 or line[3] in " \t\r"):
                rest = line[3:].strip()
                if rest and not rest.startswith("#"):
                    return None
                ranges.append((start, number))
                start = number + 1
        ranges.append((start, len(_split(self.text))))
        return ranges

    def part(self, start: int, stop: int, column: int = 0) -> EditableFile | None:
        """Lines ``start`` to ``stop`` (0-based, ``stop`` excluded) of this YAML file as a file
        of their own, printed with this file's indentation: one of its ``document_lines``
        (``column`` 0), or one item of a block sequence whose content starts at ``column``
        (0-based) after its '-' (the '-' blanked, a mapping indented as a block). None when
        the lines do not read as one document so."""
        if self.odd_breaks:
            return None
        lines = self.lines[start:stop]
        if column:
            first = lines[0] if lines else ""
            marker = first[:column]
            if self.is_json or marker.strip() != "-" or not first[column:].strip():
                return None
            lines[0] = " " * column + first[column:]
            if _margin(lines) != column:
                return None
        try:
            part = EditableFile(
                self.path, "\n".join(lines).encode("utf-8") + b"\n", (self.indent, self.dash_offset, self.dash_gap)
            )
            return part if not part.is_json and len(part.documents) == 1 else None
        except TooLarge:
            raise  # the whole file is larger still
        except NotEditable:
            return None

    def copies_faithfully(self) -> bool:
        """Whether a ``copy`` prints as this file does: ruamel.yaml's copies lose some comments
        (one above the first key of a nested mapping)."""
        return self.copy().render_text() == self._before

    def _looks_like_json(self) -> bool:
        if not self.text.lstrip().startswith(("{", "[")):
            return False
        try:
            json.loads(self.text)
        except ValueError:
            return False
        return True

    def _json_indent(self) -> str | None:
        """The indentation unit of a pretty-printed JSON file (None: one line)."""
        for line in _split(self.text)[1:]:
            unit = line[: len(line) - len(line.lstrip(" \t"))]
            if unit:
                return unit
        return None

    def _yaml_printer(self) -> YAML:
        printer = YAML(typ="rt")
        printer.preserve_quotes = True
        printer.allow_duplicate_keys = True
        printer.width = 1 << 16
        printer.indent(mapping=self.indent, sequence=self.dash_offset + 1 + self.dash_gap, offset=self.dash_offset)
        return printer

    def _load(self) -> list[Any]:
        if self.is_json:
            return [json.loads(self.text)]
        nodes = _nodes([d.data for d in load(SourceText(self.path, self.text)).documents], MAX_EDITED_NODES)
        if nodes > MAX_EDITED_NODES:
            raise TooLarge(
                f"it holds more than {MAX_EDITED_NODES:,} YAML nodes, more than a fix edits in bounded time; "
                "fix it by hand"
            )
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return list(self._yaml.load_all(self.text))
        except Exception as error:  # ruamel raises YAMLError and also assertion/type errors on exotic input
            raise NotEditable(f"ruamel.yaml cannot load it: {_first_line(error)}") from error

    def render_text(self) -> str:
        """The serializer's printout of the current documents (LF line endings)."""
        return self._printout(self.documents)

    def _printout(self, documents: list[Any]) -> str:
        if self.is_json:
            compact = self.json_indent is None and '": ' not in self.text and ", " not in self.text
            text = json.dumps(
                documents[0],
                indent=self.json_indent,
                ensure_ascii=False,
                separators=(",", ":") if compact else None,
            )
            return text + "\n"
        out = io.StringIO()
        try:
            self._yaml.dump_all(documents, out)
        except Exception as error:  # e.g. comments ruamel cannot place again
            raise NotEditable(f"ruamel.yaml cannot print it back: {_first_line(error)}") from error
        return out.getvalue()

    def node(self, index: int, path: DataPath) -> Any:
        """The node at ``path`` in document ``index``; KeyError/IndexError when it is gone."""
        node = self.documents[index]
        for step in path:
            if isinstance(step, int) and not isinstance(node, list):
                raise KeyError(step)
            node = node[step]
        return node

    def edits(self) -> list[LineEdit]:
        """Line edits of the original text that carry the document changes made so far."""
        after = self.render_text()
        if after == self._before:
            return []
        # The serializer prints a document indented as a block at column 0: match the original
        # without that margin, and give the margin back to the lines an edit brings in.
        original = [_bare(line)[self.margin :] for line in self.original]
        edits = merge_edits(original, _split(self._before), _split(after))
        if not self.margin:
            return edits
        pad = " " * self.margin
        return [LineEdit(e.start, e.end, tuple(pad + line if line else line for line in e.lines)) for e in edits]

    def result(self, edits: list[LineEdit] | None = None) -> bytes:
        """The file's new bytes (``edits``: what ``edits()`` just gave); the original bytes when
        nothing changed."""
        edits = self.edits() if edits is None else edits
        if not edits:
            return self.raw
        kept = self.original
        out: list[str] = []
        position = 0
        for edit in edits:
            out.extend(kept[position : edit.start])
            out.extend(line + self.newline for line in edit.lines)
            position = edit.end
        out.extend(kept[position:])
        if out and position >= len(kept) and not self.text.endswith("\n"):
            out[-1] = _bare(out[-1])
        return ((BOM if self.bom else "") + "".join(out)).encode("utf-8")
