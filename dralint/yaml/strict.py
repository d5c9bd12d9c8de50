"""YAML 1.2 errors that libyaml lets through, found in a second, token-level pass.

libyaml (behind PyYAML's C loader) is a YAML 1.1 parser and is lenient in a few places where
YAML 1.2 is strict. A manifest that relies on that leniency is read differently, or rejected,
by other tools (editors, formatters, 1.2 parsers in other languages), so dralint reports it as
a syntax error even though libyaml produced a document. The classes handled here:

* ``glued-comment``: a ``#`` comment with no whitespace before it, right after a quoted
  scalar, a flow indicator (``[ ] { } ,``), a block scalar header (``>#``) or a directive.
  libyaml starts a comment at any ``#`` between tokens; YAML 1.2 needs a space or a line start.
* ``directive``: a ``%`` directive inside an open document (after ``---`` or content) that was
  not closed with ``...``.
* ``flow-dash``: a plain ``-`` directly followed by a flow indicator (``[-]``, ``[-, -]``);
  1.2 only lets ``-`` start a plain scalar when a safe character follows it.
* ``indent``: a continuation line of a flow collection, or of a multi-line quoted or plain
  scalar, in block context that is indented no deeper than its parent block collection.
  Tabs never count as indentation, so a tab at the start of such a line is also caught.
* ``block-scalar-indent``: a block scalar (no indentation indicator) whose leading empty lines
  have more spaces than its first content line.

The pass costs about as much as the parse itself, so ``load`` runs it only when a cheap
precondition says one of these may occur: ``may_need_check`` (literal and regex searches over
the text) or the builder noticing a multi-line quoted scalar or flow collection inside a block
collection, or a block scalar that starts with an empty line.
"""

from __future__ import annotations

import bisect
import re

import yaml
from yaml.tokens import (
    BlockEndToken,
    BlockMappingStartToken,
    BlockSequenceStartToken,
    DirectiveToken,
    DocumentEndToken,
    DocumentStartToken,
    FlowEntryToken,
    FlowMappingEndToken,
    FlowMappingStartToken,
    FlowSequenceEndToken,
    FlowSequenceStartToken,
    ScalarToken,
    StreamEndToken,
    StreamStartToken,
    Token,
)

from dralint.yaml.libyaml import LOADER

#: A '#' glued to a quote, a flow indicator or a block scalar header (with its indicators).
_GLUED_COMMENT = re.compile(r"""["'\[\]{},|>][-+0-9]*#""")
#: A plain '-' right before a flow indicator.
_FLOW_DASH = re.compile(r"-[,\[\]{}]")

_FLOW_START = (FlowSequenceStartToken, FlowMappingStartToken)
_FLOW_END = (FlowSequenceEndToken, FlowMappingEndToken)
_FLOW_INDICATORS = (
    FlowSequenceStartToken,
    FlowMappingStartToken,
    FlowSequenceEndToken,
    FlowMappingEndToken,
    FlowEntryToken,
)
_NOT_CONTENT = (StreamStartToken, StreamEndToken, DirectiveToken, DocumentEndToken)

#: (character offset in the text, message)
StrictProblem = tuple[int, str]


def may_need_check(text: str, start: int = 0, stop: int | None = None) -> bool:
    """Cheap test: could ``text`` (or its stretch from ``start`` to ``stop``) hold a glued
    comment, a directive or a flow dash?

    False means the token pass would find none of those. The two other classes are noticed by
    the loader's builder instead (``_Builder.needs_strict``). Each test is a literal search or a
    regex that starts with a character set, a few milliseconds per megabyte. What they look for
    lies within a line, so stretches that start at the start of a line, or after spaces, give
    the answer of the whole text between them.
    """
    stop = len(text) if stop is None else stop
    if text.find("#", start, stop) >= 0 and _GLUED_COMMENT.search(text, start, stop):
        return True
    return (
        (start == 0 and text.startswith("%"))
        or text.find("\n%", max(start - 1, 0), stop) >= 0
        or _FLOW_DASH.search(text, start, stop) is not None
    )


def _leading_spaces(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


class _Pass:
    """State of one walk over the token stream of a text.

    Lines here are LF-separated lines of the text, found from the tokens' character offsets:
    libyaml's own line numbers also count CR, NEL, LS and PS as breaks.
    """

    def __init__(self, text: str):
        self.text = text
        self.lines = text.split("\n")
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.problems: list[StrictProblem] = []
        self.block: list[int] = []  # columns of the open block collections
        self.flow_level = 0
        self.flow_indent = 0  # spaces a flow line needs in the current flow region
        self.document_open = False
        self.previous_end_line = -1

    def required_indent(self) -> int:
        """Spaces a flow-context line needs: one more than the innermost block collection."""
        return self.block[-1] + 1 if self.block else 0

    def report(self, index: int, message: str) -> None:
        self.problems.append((index, message))

    def line_of(self, index: int) -> int:
        return bisect.bisect_right(self.starts, index) - 1

    def glued_comment(self, index: int, after: str) -> None:
        """A '#' right at ``index`` (just after a token) is a comment without whitespace."""
        if self.text[index : index + 1] == "#":
            self.report(index, f"a comment needs whitespace before '#' (it is glued to {after})")

    def check_line_indent(self, line: int, required: int, what: str) -> None:
        """A content line of a flow region must start with ``required`` spaces (tabs do not count)."""
        if not 0 <= line < len(self.lines):
            return
        text = self.lines[line].rstrip("\r")
        spaces = _leading_spaces(text)
        if spaces >= required:
            return
        rest = text[spaces:]
        if not rest.strip(" \t"):
            return  # an empty line may be indented less
        where = "a tab does not count as indentation" if rest[0] == "\t" else f"at least {required} space(s) needed"
        self.report(
            self.starts[line] + spaces, f"this line of {what} is not indented more than its parent block ({where})"
        )

    def token(self, tok: Token) -> None:
        """Take the next token: update the block/flow/document state and check the token."""
        start, end = tok.start_mark, tok.end_mark
        cls = type(tok)
        start_line = self.line_of(start.index)
        if cls is DirectiveToken:
            if self.document_open:
                self.report(
                    start.index, "a directive inside an open document: end the previous document with '...' before it"
                )
            self.glued_comment(end.index, "the directive")
        elif not isinstance(tok, _NOT_CONTENT):
            self.document_open = True
        elif cls is DocumentEndToken:
            self.document_open = False
        if cls is BlockMappingStartToken or cls is BlockSequenceStartToken:
            self.block.append(start.index - self.starts[start_line])
        elif cls is BlockEndToken and self.block:
            self.block.pop()
        elif cls is DocumentStartToken:
            self.block.clear()
        if self.flow_level == 0 and isinstance(tok, _FLOW_START):
            self.flow_indent = self.required_indent()
        first_on_line = start_line > self.previous_end_line
        if (self.flow_level or isinstance(tok, _FLOW_START)) and first_on_line:
            self.check_line_indent(start_line, self.flow_indent, "a flow collection")
        if isinstance(tok, _FLOW_START):
            self.flow_level += 1
        elif isinstance(tok, _FLOW_END):
            self.flow_level = max(self.flow_level - 1, 0)
        if isinstance(tok, _FLOW_INDICATORS):
            self.glued_comment(end.index, f"'{self.text[start.index : start.index + 1]}'")
        elif isinstance(tok, ScalarToken):
            self.scalar(tok)
        self.previous_end_line = self.line_of(end.index)

    def scalar(self, tok: ScalarToken) -> None:
        start, end = tok.start_mark, tok.end_mark
        style = tok.style
        if style in ("|", ">"):
            self.block_scalar(start.index)
            return
        if style in ('"', "'"):
            self.glued_comment(end.index, "the closing quote")
        elif (
            self.flow_level
            and self.text[start.index : start.index + 1] == "-"
            and self.text[start.index + 1 : start.index + 2] in (",", "[", "]", "{", "}")
        ):
            self.report(start.index, "a plain '-' cannot be followed by a flow indicator; quote it (\"-\")")
        first, last = self.line_of(start.index), self.line_of(end.index)
        if last > first:
            required = self.flow_indent if self.flow_level else self.required_indent()
            what = "a multi-line quoted scalar" if style else "a multi-line plain scalar"
            for line in range(first + 1, last + 1):
                self.check_line_indent(line, required, what)

    def block_scalar(self, index: int) -> None:
        """The header of a block scalar starting at ``index``, and its leading empty lines."""
        header = re.match(r"[|>]([-+1-9]{0,2})", self.text[index : index + 3])
        if header is None:
            return
        self.glued_comment(index + header.end(), "the block scalar header")
        if any(c.isdigit() for c in header.group(1)):
            return  # explicit indentation: leading empty lines may have any spaces
        parent = self.block[-1] if self.block else -1
        widest = (0, -1)  # (spaces, line) of the widest leading empty line
        for number in range(self.line_of(index) + 1, len(self.lines)):
            text = self.lines[number].rstrip("\r")
            if text.strip(" "):
                indent = _leading_spaces(text)
                if parent < indent < widest[0]:
                    self.report(
                        self.starts[widest[1]] + indent,
                        f"a leading empty line of this block scalar has {widest[0]} spaces, more than its "
                        f"first content line ({indent}); remove the extra spaces or add an indentation "
                        "indicator",
                    )
                return
            if len(text) > widest[0]:
                widest = (len(text), number)


def strict_problems(text: str, stop: int | None = None) -> list[StrictProblem]:
    """The YAML 1.2 errors in ``text`` that libyaml accepts, as (offset, message).

    Nothing at or after offset ``stop`` (the start of the line where libyaml itself failed) is
    examined. A scanner error ends the pass quietly: the loader already reports it.
    """
    walk = _Pass(text)
    loader = LOADER(text)
    try:
        while loader.check_token():
            tok = loader.get_token()
            if tok is None:  # check_token() was true, so libyaml has one; the stub allows None
                break
            if stop is not None and tok.start_mark.index >= stop:
                break
            walk.token(tok)
    except yaml.YAMLError:
        pass
    finally:
        loader.dispose()
    if stop is not None:
        return [p for p in walk.problems if p[0] < stop]
    return walk.problems
