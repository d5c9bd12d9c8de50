"""CEL008, CEL010, CEL015: selectors evaluated against the ResourceSlices of ``--slices``.

The devices are the allocator's view of the snapshot (``snapshot_cel_devices``: the newest
generation of each pool of the cluster state; slices among the scanned manifests are examples,
not the fleet), so these lints and the scheduling rules never disagree about what exists. This
module only indexes them by the names each domain publishes.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Iterator

from dralint.checks.cel.sites import SELECTOR_KINDS, SelectorGroup, class_expressions, selector_groups
from dralint.checks.scheduling.simulation import snapshot_cel_devices
from dralint.diagnostics import Finding, Span
from dralint.k8s.cel import Device, Selection, check, matching_devices
from dralint.k8s.cel.lints import STANDARD_DOMAINS, lookups
from dralint.k8s.objects import KubeObject
from dralint.k8s.semver import Semver
from dralint.lint.context import Context
from dralint.lint.registry import object_check

__all__ = ["Inventory", "inventory", "uses_snapshot"]

_NO_SUCH_KEY = re.compile(r"no such key: ([A-Za-z_][A-Za-z0-9_]*)")


class Inventory:
    """Devices of the snapshot, and which names each domain publishes."""

    __slots__ = ("devices", "names", "versions", "domains_by_driver")

    def __init__(self) -> None:
        self.devices: list[Device] = []
        self.names: dict[tuple[str, str], set[str]] = defaultdict(set)  # (kind, domain)
        self.versions: set[tuple[str, str]] = set()  # (domain, name)
        self.domains_by_driver: dict[str, set[str]] = defaultdict(set)

    def add(self, device: Device) -> None:
        self.devices.append(device)
        for domain, values in device.attributes.items():
            self.names["attributes", domain].update(values)
            self.domains_by_driver[device.driver.lower()].add(domain.lower())
            self.versions.update((domain, n) for n, v in values.items() if isinstance(v, Semver))
        for domain, capacities in device.capacity.items():
            self.names["capacity", domain].update(capacities)
            self.domains_by_driver[device.driver.lower()].add(domain.lower())


def uses_snapshot(ctx: Context) -> bool:
    """Snapshot lints run only when the user passed ``--slices``."""
    return bool(ctx.options.slices)


def inventory(ctx: Context) -> Inventory:
    """The snapshot's devices (the allocator's view of ``--slices``) indexed for the lints."""

    def build() -> Inventory:
        result = Inventory()
        for device in snapshot_cel_devices(ctx):
            result.add(device)
        return result

    return ctx.memo(("dralint.checks.cel.snapshot", "inventory"), build)


def _selection(ctx: Context, expressions: tuple[str, ...], inherited: tuple[str, ...] = ()) -> Selection:
    """``expressions`` over the devices the class selectors (``inherited``) admit, once per run."""

    def build() -> Selection:
        devices = _selection(ctx, inherited).matched if inherited else inventory(ctx).devices
        return matching_devices(expressions, devices)

    return ctx.memo(("dralint.checks.cel.snapshot", "selection", expressions, inherited), build)


def _drivers(selection: Selection) -> str:
    ranked = selection.drivers.most_common()
    shown = ", ".join(f"{count} of {driver}" for driver, count in ranked[:4])
    return shown + (f" and {len(ranked) - 4} more drivers" if len(ranked) > 4 else "")


@object_check("CEL008", "CEL015", kinds=SELECTOR_KINDS)
def check_selectors_on_snapshot(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Evaluate each selector group on the snapshot devices its DeviceClass admits."""
    if not uses_snapshot(ctx) or not inventory(ctx).devices:
        return
    for group in selector_groups(obj):
        if not all(check(e).ok for e in group.expressions):
            continue  # CEL001-CEL006 already speak for it
        if obj.kind != "DeviceClass" and ctx.find("DeviceClass", None, str(group.class_name)) is None:
            continue  # without the class we do not know which devices the scheduler would try
        inherited = class_expressions(obj, group, ctx)
        if inherited and not _selection(ctx, inherited).matched:
            continue  # the class itself selects nothing: reported on the class
        selection = _selection(ctx, group.expressions, inherited)
        if selection.unsupported:
            continue
        yield from _failures(obj, group, selection)
        if not selection.matched and not selection.errors:
            yield _no_match(obj, group, selection, bool(inherited))


def _failures(obj: KubeObject, group: SelectorGroup, selection: Selection) -> Iterator[Finding]:
    by_selector: dict[int, list[tuple[Device, str]]] = defaultdict(list)
    for device, index, error in selection.errors:
        by_selector[index].append((device, error))
    for index, failures in sorted(by_selector.items()):
        names = ", ".join(d.label for d, _e in failures[:3]) + (", ..." if len(failures) > 3 else "")
        path, error = group.paths[index], failures[0][1]
        yield obj.finding(
            path,
            f"selector fails on {len(failures)} of the {selection.considered} devices it was evaluated on ({names}): "
            f"{error}; a failing selector aborts scheduling of the pod",
            rule="CEL008",
            span=_missing_name_span(obj, path, group.expressions[index], error),
            hint="guard optional attributes with has() or read them with .?name.orValue(default)",
        )


def _missing_name_span(obj: KubeObject, path: tuple, expression: str, error: str) -> Span | None:
    """Point at the read of the missing attribute when the error is "no such key: <name>"."""
    match = _NO_SUCH_KEY.match(error)
    result = check(expression)
    if not match or result.ast is None:
        return None
    for lookup in lookups(result.ast):
        if lookup.name == match.group(1) and not lookup.guarded:
            start = expression.find(lookup.name, max(lookup.node.offset, 0))
            if start >= 0:
                return obj.scalar_span(path, start, start + len(lookup.name))
    return None


def _no_match(obj: KubeObject, group: SelectorGroup, selection: Selection, filtered: bool) -> Finding:
    where = group.label if group.label != "class" else "this DeviceClass"
    pool = (
        f'the {selection.considered} devices that DeviceClass "{group.class_name}" admits'
        if filtered
        else f"all {selection.considered} devices of the snapshot"
    )
    message = f"no device matches the selectors of {where}: considered {pool} ({_drivers(selection)})"
    path, span = group.paths[0], None
    if selection.excluded_by is not None:
        index, part = selection.excluded_by
        path = group.paths[index]
        span = obj.scalar_span(path, part.start, part.end)
        message += f"; `{part.text}` is false for all of them"
    return obj.finding(
        path,
        message,
        rule="CEL015",
        span=span,
        hint="compare with the attributes the devices publish: kubectl get resourceslices -o yaml",
    )


@object_check("CEL010", kinds=SELECTOR_KINDS)
def check_attribute_names(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Attribute and capacity names no device of the snapshot publishes in that domain."""
    if not uses_snapshot(ctx) or not inventory(ctx).devices:
        return
    names = inventory(ctx).names
    domains = {domain for _kind, domain in names}
    for group in selector_groups(obj):
        for path, expression in zip(group.paths, group.expressions, strict=True):
            result = check(expression)
            if result.ast is None:
                continue
            for lookup in lookups(result.ast):
                published = names.get((lookup.kind, lookup.domain))
                if published and lookup.name not in published and lookup.domain not in STANDARD_DOMAINS:
                    message = (
                        "no device in the snapshot publishes "
                        f"{lookup.kind[:-1] if lookup.kind == 'attributes' else 'capacity'} "
                        f'"{lookup.name}" in domain "{lookup.domain}"'
                    )
                    yield _named(obj, path, expression, lookup.node.offset, lookup.name, message, sorted(published))
                elif not published and lookup.domain not in domains and lookup.domain not in STANDARD_DOMAINS:
                    # only a near-identical domain is worth suggesting: other drivers' domains
                    # are legitimately absent from a partial snapshot
                    close = difflib.get_close_matches(lookup.domain, sorted(domains), n=1, cutoff=0.9)
                    if close:
                        message = f'no device in the snapshot publishes {lookup.kind} in domain "{lookup.domain}"'
                        yield _named(obj, path, expression, lookup.domain_node.offset, lookup.domain, message, close)


def _named(
    obj: KubeObject, path: tuple, expression: str, offset: int, name: str, message: str, candidates: list[str]
) -> Finding:
    lowered = {c.lower(): c for c in candidates}
    suggestion = lowered.get(name.lower()) or next(iter(difflib.get_close_matches(name, candidates, n=1)), None)
    hint = f"names published there: {', '.join(candidates[:10])}"
    start = expression.find(name, max(offset, 0))
    span = obj.scalar_span(path, start, start + len(name)) if start >= 0 else None
    return obj.finding(
        path, message + (f'; did you mean "{suggestion}"?' if suggestion else ""), rule="CEL010", hint=hint, span=span
    )
