"""CEL001-CEL006, CEL012: what the API server says about each selector when it is applied.

Every error points at the exact character inside the YAML scalar (block, folded, quoted),
through ``KubeObject.scalar_span``.  Each distinct expression is compiled once per process
(``dralint.k8s.cel.check`` caches), however many objects repeat it.
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.checks.cel.sites import SELECTOR_KINDS, selector_groups
from dralint.diagnostics import Finding
from dralint.k8s.cel import CelIssue, check
from dralint.k8s.cel.ast import Node
from dralint.k8s.cel.lints import SelectorNote, gated_uses, scalar_comprehensions
from dralint.k8s.objects import KubeObject
from dralint.lint.context import Context
from dralint.lint.registry import object_check

_RULE_BY_KIND = {
    "compile": "CEL001",
    "capacity": "CEL012",
    "result-type": "CEL002",
    "length": "CEL003",
    "cost": "CEL004",
}

_HINTS = {
    "CEL001": "fix the expression; kubectl apply rejects the object with this message",
    "CEL002": 'a selector must produce true or false, e.g. compare the value: device.driver == "..."',
    "CEL003": "split the logic over several selectors (they are ANDed) or simplify it",
    "CEL004": "avoid nested comprehensions over attribute maps and long string operations; apply string "
    'functions to an attribute\'s path guarded by has(), e.g. has(device.attributes["d"].uuid) && '
    'device.attributes["d"].uuid.matches("..."), not to an optional\'s orValue()',
    "CEL005": "simplify the expression so the API server's estimate stays well below the limit",
    "CEL012": 'capacities are quantities: device.capacity["d"].memory.compareTo(quantity("40Gi")) >= 0',
}


def _first_syntax_error(errors: tuple[CelIssue, ...]) -> list[CelIssue]:
    """The parser's first syntax error and every other error: after a syntax error the parser
    resynchronises and reports what follows from it (one `=` typo gives two errors)."""
    syntax = [e for e in errors if "Syntax error" in e.message]
    return [e for e in errors if e not in syntax[1:]]


def _gated_uses(expression: str, ast: Node, ctx: Context) -> list[SelectorNote]:
    """``gated_uses`` once per run and expression text (the feature gates are the run's)."""
    return ctx.memo((__name__, "gated", expression), lambda: gated_uses(expression, ast, ctx.options.feature_gates))


def _stops_before_cost(expression: str, ast: Node, gated: list[SelectorNote], ctx: Context) -> bool:
    """The server estimates the cost only of what compiles in its environment: a gated function
    or field, or a comprehension over a scalar attribute (CEL016), with its gate off fails first."""
    return bool(gated) or bool(scalar_comprehensions(expression, ast, ctx.options.feature_gates or {}))


@object_check("CEL001", "CEL002", "CEL003", "CEL004", "CEL005", "CEL006", "CEL012", kinds=SELECTOR_KINDS)
def check_selector_compiles(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Compile every selector as the API server does."""
    for group in selector_groups(obj):
        for path, expression in zip(group.paths, group.expressions, strict=True):
            result = check(expression)
            ast = result.ast if all(e.kind == "cost" for e in result.errors) else None  # compiled
            gated = _gated_uses(expression, ast, ctx) if ast is not None else []
            errors = _first_syntax_error(result.errors)
            if ast is not None and result.errors and _stops_before_cost(expression, ast, gated, ctx):
                errors = []  # only cost errors, which the server never reaches
            for issue in errors:
                rule = _RULE_BY_KIND.get(issue.kind, "CEL001")
                yield obj.finding(
                    path,
                    issue.message,
                    rule=rule,
                    hint=_HINTS[rule],
                    span=obj.scalar_span(path, issue.start, issue.end),
                )
            for issue in result.warnings:
                yield obj.finding(
                    path,
                    issue.message,
                    rule="CEL005",
                    hint=_HINTS["CEL005"],
                    span=obj.scalar_span(path, issue.start, issue.end),
                )
            for note in gated:
                yield obj.finding(
                    path,
                    note.message,
                    rule="CEL001",
                    hint=note.hint,
                    span=obj.scalar_span(path, note.start, note.end),
                )
            if result.not_checked:
                yield obj.finding(
                    path,
                    f"selector not checked by dralint: it {result.not_checked}",
                    rule="CEL006",
                    hint="the API server still checks it when the object is applied",
                )
