"""What the server answers, worked out from a document's lint and text: code actions (fixes
and suppressions), hover text and completion items, as plain values the server wraps.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from dralint.diagnostics import Diagnostic, Replacement, Span
from dralint.lint.catalog import load_catalog
from dralint.lint.ruledocs import explain
from dralint.lint.suppress import in_string
from dralint.lsp import cursor
from dralint.lsp.devices import ClassInfo, Knowledge
from dralint.yaml.loader import SourceText

#: An ignore comment already at the end of a line: its list of rules, to add one to.
_IGNORE_LIST_RE = re.compile(r"#\s*dralint\s*:\s*ignore\[([^\]]*)\]")


class Action(NamedTuple):
    """A code action: its title and the replacements it makes in the document."""

    title: str
    replacements: tuple[Replacement, ...]
    preferred: bool


def fix_action(diag: Diagnostic, replacements: tuple[Replacement, ...]) -> Action:
    return Action(f"Fix {diag.rule} ({diag.name})", replacements, True)


def suppress_action(diag: Diagnostic, text: str) -> Action | None:
    """``# dralint: ignore[RULE]`` at the end of the finding's line, or, where that line is part
    of a string (a CEL expression in a ``|`` block, where ``#`` is text), ``ignore-file`` at the
    top. None for JSON, which has no comments."""
    if diag.span.path.endswith(".json"):
        return None
    source = SourceText(diag.span.path, text)
    number = diag.span.line
    line = source.line_text(number)
    listed = _IGNORE_LIST_RE.search(line)
    if listed is not None:
        at = Span(diag.span.path, number, listed.end(1) + 1, number, listed.end(1) + 1)
        return Action(f"Suppress {diag.rule} on this line", (Replacement(at, f",{diag.rule}"),), False)
    comment = f"  # dralint: ignore[{diag.rule}]"
    end = len(line) + 1
    # On a line without YAML (a syntax error at the end of the file) the comment would stand alone
    # and cover the line below.
    holds_yaml = bool(line.strip()) and not line.lstrip().startswith("#")
    edited = _with_line(text, number, line + comment) if holds_yaml else None
    if edited is not None and not in_string(cursor.documents(diag.span.path, edited))(number, end + 2):
        at = Span(diag.span.path, number, end, number, end)
        return Action(f"Suppress {diag.rule} on this line", (Replacement(at, comment),), False)
    top = Span(diag.span.path, 1, 1, 1, 1)
    return Action(
        f"Suppress {diag.rule} in this file" + (" (the line is inside a string)" if edited is not None else ""),
        (Replacement(top, f"# dralint: ignore-file[{diag.rule}]\n"),),
        False,
    )


def _with_line(text: str, number: int, new: str) -> str:
    lines = text.split("\n")
    lines[number - 1] = new
    return "\n".join(lines)


def rule_hover(diagnostics: list[Diagnostic]) -> str:
    """The explanation of each rule found (``dralint explain``), once per rule."""
    catalog = load_catalog()
    rules = dict.fromkeys(d.rule for d in diagnostics)
    return "\n\n---\n\n".join(explain(catalog[rule]) for rule in rules if rule in catalog)


def class_hover(name: str, knowledge: Knowledge) -> str:
    """The class ``deviceClassName`` resolves to, and what its selectors select."""
    info = knowledge.classes().get(name)
    if info is None:
        known = ", ".join(sorted(knowledge.classes())) or "none"
        return f"DeviceClass `{name}`: not defined in the workspace, the snapshot or a driver catalog (known: {known})"
    return _class_text(info, knowledge)


def _class_text(info: ClassInfo, knowledge: Knowledge) -> str:
    parts = [f"**DeviceClass `{info.name}`** ({info.where})"]
    if info.selectors:
        parts.append("Selects devices where:\n" + "\n".join(f"```cel\n{e.strip()}\n```" for e in info.selectors))
        parts.extend(f"Matches {said}" for said in knowledge.selects(info.selectors))
    else:
        parts.append("No selectors: every device of the drivers it is used with.")
    return "\n\n".join(parts)


def field_hover(expression: str, offset: int, knowledge: Knowledge) -> str | None:
    """The type of the attribute or capacity under a CEL cursor, and who publishes it."""
    found = cursor.field_at(expression, offset)
    if found is None:
        return None
    field = knowledge.field(found.map, found.domain, found.name)
    qualified = f'device.{found.map}["{found.domain}"].{found.name}'
    if field is None:
        return f"`{qualified}`: no device known here publishes it"
    return f"`{qualified}`: **{field.type}**, published by {field.publishers}"


class Item(NamedTuple):
    """A completion: what it inserts in place of what was typed, and its description."""

    label: str
    detail: str
    typed: str


def completions(at: cursor.Completing, knowledge: Knowledge) -> list[Item]:
    if at.what == "class":
        return [Item(name, info.where, at.typed) for name, info in sorted(knowledge.classes().items())]
    if at.what == "domain":
        return [
            Item(domain, f"device.{at.map} domain ({label})", at.typed) for domain, label in knowledge.domains(at.map)
        ]
    return [Item(f.name, f"{f.type}: {f.publishers}", at.typed) for f in knowledge.fields(at.map, at.domain)]
