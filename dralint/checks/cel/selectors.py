"""CEL007, CEL009, CEL011, CEL013, CEL014, CEL016: selector mistakes the API server accepts.

The checker types every attribute as dyn, so a version compared with a string compiles and only
fails (or silently never matches) when the scheduler runs it.  With ``--slices`` the version and domain knowledge comes from the
devices; without it, from names and literals.
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.k8s.cel import check
from dralint.k8s.cel.lints import (SelectorNote, constant_value, domain_mismatches, pinned_drivers,
                               quantity_string_comparisons, scalar_comprehensions, unguarded_lookups,
                               version_string_comparisons)
from dralint.checks.cel.sites import SELECTOR_KINDS, class_expressions, selector_groups
from dralint.checks.cel.snapshot import inventory, uses_snapshot
from dralint.lint.context import Context
from dralint.diagnostics import Finding, Severity
from dralint.k8s.objects import KubeObject
from dralint.lint.registry import object_check


def _finding(obj: KubeObject, path: tuple, note: SelectorNote, rule: str, severity: Severity | None = None) -> Finding:
    return obj.finding(path, note.message, rule=rule, hint=note.hint, severity=severity,
                       span=obj.scalar_span(path, note.start, note.end))


@object_check("CEL007", "CEL009", "CEL011", "CEL013", "CEL014", "CEL016", kinds=SELECTOR_KINDS)
def check_selector_semantics(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Lint each compiled selector's tree."""
    snapshot = inventory(ctx) if uses_snapshot(ctx) else None
    versions = snapshot.versions if snapshot and snapshot.devices else None
    for group in selector_groups(obj):
        scope = class_expressions(obj, group, ctx) + group.expressions
        drivers = set().union(*(pinned_drivers(r.ast) for e in scope if (r := check(e)).ast is not None))
        published = set().union(*(snapshot.domains_by_driver.get(d, set()) for d in drivers)) if snapshot else None
        for path, expression in zip(group.paths, group.expressions):
            result = check(expression)
            if not result.ok or result.ast is None:
                continue
            ast = result.ast
            for note in domain_mismatches(expression, ast, drivers, published):
                yield _finding(obj, path, note, "CEL007")
            if snapshot is None:
                for note in unguarded_lookups(expression, ast):
                    yield _finding(obj, path, note, "CEL009")
            for note in version_string_comparisons(expression, ast, versions):
                yield _finding(obj, path, note, "CEL011", None if note.fails else Severity.WARNING)
            for note in quantity_string_comparisons(expression, ast):
                yield _finding(obj, path, note, "CEL013")
            for note in scalar_comprehensions(expression, ast, ctx.options.feature_gates or {}):
                yield _finding(obj, path, note, "CEL016")
            constant = constant_value(expression)
            if constant is not None:
                outcome = {True: "always true: it selects every device", False: "always false: it selects no device"}
                text = outcome.get(constant, f"always fails: {constant}") if isinstance(constant, bool) else f"always fails: {constant}"
                yield obj.finding(path, f"selector does not look at the device and is {text}", rule="CEL014",
                                  hint="compare a device field, e.g. device.driver == \"gpu.example.com\"")
