"""CEL007, CEL009, CEL011, CEL013, CEL014, CEL016: selector mistakes the API server accepts.

The checker types every attribute as dyn, so a version compared with a string compiles and only
fails (or silently never matches) when the scheduler runs it.  With ``--slices`` the version and
domain knowledge comes from the devices; without it, from the driver catalog for the domains it
describes, and from names and literals elsewhere. CEL009 leaves out reads of what every device a
catalog class offers has.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from dralint.checks.cel.drivers import Target, always_carried, targets
from dralint.checks.cel.sites import SELECTOR_KINDS, class_expressions, selector_groups
from dralint.checks.cel.snapshot import Inventory, inventory, uses_snapshot
from dralint.diagnostics import Finding, Severity
from dralint.k8s.cel import check
from dralint.k8s.cel.ast import Node
from dralint.k8s.cel.lints import (
    SelectorNote,
    constant_value,
    domain_mismatches,
    pinned_drivers,
    quantity_string_comparisons,
    scalar_comprehensions,
    unguarded_lookups,
    version_string_comparisons,
)
from dralint.k8s.objects import KubeObject
from dralint.lint.context import Context
from dralint.lint.drivers import catalog_versions
from dralint.lint.exemptions import enabled_rule_ids
from dralint.lint.registry import object_check


def _finding(obj: KubeObject, path: tuple, note: SelectorNote, rule: str, severity: Severity | None = None) -> Finding:
    return obj.finding(
        path,
        note.message,
        rule=rule,
        hint=note.hint,
        severity=severity,
        span=obj.scalar_span(path, note.start, note.end),
    )


#: A lint result of one expression: rule, note, severity override.
_Note = tuple[str, SelectorNote, Severity | None]


def _lint(
    expression: str, ast: Node, drivers: set[str], snapshot: Inventory | None, found: list[Target], ctx: Context
) -> list[_Note]:
    """The notes of one compiled selector, for the enabled rules only, in report order."""
    wanted = enabled_rule_ids(ctx)
    published = set().union(*(snapshot.domains_by_driver.get(d, set()) for d in drivers)) if snapshot else None
    versions = dict.fromkeys(snapshot.versions, "") if snapshot and snapshot.devices else None
    known_domains = None
    if snapshot is None:
        versions, known_domains = catalog_versions(ctx)
    notes: list[_Note] = []
    if "CEL007" in wanted:
        notes += [("CEL007", note, None) for note in domain_mismatches(expression, ast, drivers, published)]
    if snapshot is None and "CEL009" in wanted:
        carried = (lambda lookup: always_carried(found, lookup)) if found else None
        notes += [("CEL009", note, None) for note in unguarded_lookups(expression, ast, carried)]
    if "CEL011" in wanted:
        notes += [
            ("CEL011", note, None if note.fails else Severity.WARNING)
            for note in version_string_comparisons(expression, ast, versions, known_domains)
        ]
    if "CEL013" in wanted:
        notes += [("CEL013", note, None) for note in quantity_string_comparisons(expression, ast)]
    if "CEL016" in wanted:
        notes += [
            ("CEL016", note, None) for note in scalar_comprehensions(expression, ast, ctx.options.feature_gates or {})
        ]
    return notes


def _notes(
    expression: str, ast: Node, drivers: set[str], snapshot: Inventory | None, found: list[Target], ctx: Context
) -> list[_Note]:
    """``_lint`` once per run for each distinct expression text, set of pinned drivers and
    catalog targets (the rest of what the notes depend on, the snapshot and the options, is the
    run's): generated and templated manifests repeat the same few selectors in thousands of claims."""
    key = (
        __name__,
        "notes",
        expression,
        frozenset(drivers),
        tuple((t.release.label, t.kinds, t.offered) for t in found),
    )
    return ctx.memo(key, lambda: _lint(expression, ast, drivers, snapshot, found, ctx))


def _pinned(expression: str, ctx: Context) -> frozenset[str]:
    """The drivers one selector pins (none when it does not compile), once per run and text."""

    def build() -> frozenset[str]:
        ast = check(expression).ast
        return frozenset(pinned_drivers(ast)) if ast is not None else frozenset()

    return ctx.memo((__name__, "pinned", expression), build)


@object_check("CEL007", "CEL009", "CEL011", "CEL013", "CEL014", "CEL016", kinds=SELECTOR_KINDS)
def check_selector_semantics(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Lint each compiled selector's tree."""
    snapshot = inventory(ctx) if uses_snapshot(ctx) else None
    constants = "CEL014" in enabled_rule_ids(ctx)
    for group in selector_groups(obj):
        scope = class_expressions(obj, group, ctx) + group.expressions
        drivers = set().union(*(_pinned(e, ctx) for e in scope))
        compiled = all(check(e).ok for e in group.expressions)
        found = targets(obj, group, ctx) if snapshot is None and compiled else []
        for path, expression in zip(group.paths, group.expressions, strict=True):
            result = check(expression)
            if result.ast is None or result.not_checked or any(e.kind != "cost" for e in result.errors):
                continue
            notes = _notes(expression, result.ast, drivers, snapshot, found, ctx)
            if result.errors:  # over the cost limit: only a compile error under the gates comes first
                notes = [n for n in notes if n[0] == "CEL016"]
            for rule, note, severity in notes:
                yield _finding(obj, path, note, rule, severity)
            constant = (
                ctx.memo((__name__, "constant", expression), partial(constant_value, expression)) if constants else None
            )
            if constant is not None:
                outcome = {True: "always true: it selects every device", False: "always false: it selects no device"}
                text = (
                    outcome.get(constant, f"always fails: {constant}")
                    if isinstance(constant, bool)
                    else f"always fails: {constant}"
                )
                yield obj.finding(
                    path,
                    f"selector does not look at the device and is {text}",
                    rule="CEL014",
                    hint='compare a device field, e.g. device.driver == "gpu.example.com"',
                )
