"""A device plugin and a DRA driver advertising the same devices on the same nodes.

This is the most common migration failure: the device plugin keeps advertising ``nvidia.com/gpu``
in node allocatable while the DRA driver publishes the same GPUs in ResourceSlices. The
scheduler then lets the device plugin win for extended-resource pods on that node, while DRA
claims allocate the same physical GPUs again.
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.diagnostics import Finding, Severity
from dralint.k8s.labels import NodeSelection, Requirement
from dralint.k8s.migration import (
    NodeAgent,
    device_plugins,
    dra_drivers,
    is_extended_resource_name,
    node_allocatable,
    provides,
    slice_selection,
)
from dralint.k8s.objects import KubeObject
from dralint.lint.context import Context
from dralint.lint.registry import context_check
from dralint.yaml.scalars import flow_scalar


class _Overlap:
    """DRA evidence that shares nodes with a device plugin."""

    __slots__ = ("drivers", "source", "nodes", "selection")

    def __init__(self, drivers: set[str], source: KubeObject, nodes: set[str], selection: NodeSelection | None) -> None:
        self.drivers = drivers
        self.source = source
        self.nodes = nodes
        self.selection = selection


def _nodes(ctx: Context, selection: NodeSelection | None) -> set[str]:
    return {n.name for n in ctx.by_kind("Node") if selection is None or selection.matches(n.labels, n.name)}


def _overlaps(ctx: Context, plugin: NodeAgent, by_nodes: bool = True) -> list[_Overlap]:
    """Where a DRA driver serves the plugin's devices: on the run's Nodes when it has any (and
    ``by_nodes``), else wherever both node selections may run."""
    known_nodes = by_nodes and bool(ctx.by_kind("Node"))
    plugin_nodes = _nodes(ctx, plugin.selection)
    found: list[_Overlap] = []
    for agent in dra_drivers(ctx):
        drivers = {
            d for d in agent.names if agent.obj is not plugin.obj and any(provides(ctx, r, d) for r in plugin.names)
        }
        if not drivers:
            continue
        if known_nodes:
            common = plugin_nodes & _nodes(ctx, agent.selection)
            if common:
                found.append(_Overlap(drivers, agent.obj, common, agent.selection))
        elif plugin.selection.may_overlap(agent.selection):
            found.append(_Overlap(drivers, agent.obj, set(), agent.selection))
    by_driver: dict[str, _Overlap] = {}
    for resource_slice in ctx.by_kind("ResourceSlice"):
        driver = resource_slice.get(("spec", "driver"))
        if not isinstance(driver, str) or not any(provides(ctx, r, driver) for r in plugin.names):
            continue
        selection = slice_selection(resource_slice)
        if known_nodes and selection is not None and selection.node_name is not None:
            common = plugin_nodes & {selection.node_name}  # most slices: skip matching every node
        elif known_nodes:
            common = plugin_nodes & _nodes(ctx, selection)
        elif (
            selection is None
            or plugin.selection.unrestricted
            or selection.node_name is None
            and plugin.selection.may_overlap(selection)
        ):
            common = set()
        else:
            continue  # a slice for a named node whose labels are unknown: cannot tell
        if known_nodes and not common:
            continue
        entry = by_driver.setdefault(driver, _Overlap({driver}, resource_slice, set(), selection))
        entry.nodes |= common
    return found + list(by_driver.values())


def _dra_label(plugin: NodeAgent, overlaps: list[_Overlap]) -> Requirement | None:
    """A label requirement the DRA side relies on and the device plugin's own nodes do not, to
    invert in the device plugin's affinity. One both require (``nvidia.com/gpu.present``)
    would take the device plugin off every GPU node, the pools still on it too."""
    own = {r for r in plugin.selection.required} | {r for t in plugin.selection.terms for r in t.labels}
    own_keys = {r.key for r in own}
    for overlap in overlaps:
        selection = overlap.selection
        if selection is None:
            continue
        candidates = [
            r
            for r in list(selection.required) + [r for t in selection.terms[:1] for r in t.labels]
            if r.operator in ("In", "Exists") and r not in own
        ]
        candidates.sort(key=lambda r: r.key in own_keys)  # a key the plugin does not select on first
        if candidates:
            return candidates[0]
    return None


def _affinity_hint(plugin: NodeAgent, overlaps: list[_Overlap]) -> str:
    label = _dra_label(plugin, overlaps)
    if label is None:
        term = "{key: dra.example/managed, operator: DoesNotExist}"
        lead = (
            "label the nodes of the DRA pool (for example `dra.example/managed=true`) and exclude them from the "
            "device plugin"
        )
    elif label.operator == "Exists":
        term = f"{{key: {flow_scalar(label.key)}, operator: DoesNotExist}}"
        lead = "exclude the DRA pool from the device plugin"
    else:
        values = ", ".join(flow_scalar(v) for v in label.values)
        term = f"{{key: {flow_scalar(label.key)}, operator: NotIn, values: [{values}]}}"
        lead = "exclude the DRA pool from the device plugin"
    existing = " (add the expression to every existing term)" if plugin.selection.terms else ""
    return (
        f"{lead} with required node affinity in spec.template.spec{existing}:\n"
        "affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n"
        f"      nodeSelectorTerms:\n      - matchExpressions:\n        - {term}"
    )


@context_check("EXT005")
def check_device_plugin_dra_overlap(ctx: Context) -> Iterator[Finding]:
    """Report each device-plugin DaemonSet (scanned or in the cluster state) whose nodes a DRA
    driver also serves; context files are only read, never reported on."""
    for plugin in device_plugins(ctx):
        if plugin.obj.origin == "context":
            continue
        overlaps = _overlaps(ctx, plugin)
        if not overlaps:
            unjudged = _unjudged(ctx, plugin)
            if unjudged is not None:
                yield unjudged
            continue
        drivers = sorted({d for o in overlaps for d in o.drivers})
        nodes = sorted({n for o in overlaps for n in o.nodes})
        if nodes:
            where = f" on node{'s' if len(nodes) > 1 else ''} {', '.join(nodes)}"
        else:
            scopes = sorted({o.selection.describe() if o.selection else "every node" for o in overlaps})
            where = f" on nodes both can run on (the DRA side covers {'; '.join(scopes)})"
        template = plugin.template
        path = template.path + ("affinity",) if isinstance(template.spec.get("affinity"), dict) else template.path
        yield plugin.obj.finding(
            path,
            f"device plugin {plugin.obj.display} advertises {', '.join(sorted(plugin.names))} and DRA driver "
            f"{', '.join(drivers)} publishes the same devices{where}: both hand them out, so one device can "
            "be given to two pods",
            hint=_affinity_hint(plugin, overlaps),
            key=True,
            related=tuple(
                o.source.related(("metadata", "name"), f"{o.source.display} provides the devices through DRA")
                for o in overlaps[:5]
            ),
        )


def _unjudged(ctx: Context, plugin: NodeAgent) -> Finding | None:
    """Why no overlap could be judged on the snapshot's Nodes although the node selections may
    overlap: the DaemonSets match no Node of it (a snapshot of another cluster, or labels the
    snapshot's Nodes do not carry). An info, so the silence is explained, never a verdict."""
    nodes = ctx.by_kind("Node")
    if not nodes or _nodes(ctx, plugin.selection):
        return None
    possible = [o for o in _overlaps(ctx, plugin, by_nodes=False) if o.source.kind != "ResourceSlice"]
    if not possible:
        return None
    drivers = ", ".join(sorted({d for o in possible for d in o.drivers}))
    template = plugin.template
    return plugin.obj.finding(
        template.path,
        f"device plugin {plugin.obj.display} and DRA driver {drivers} may run on the same nodes, but the "
        f"device plugin's node selection ({plugin.selection.describe() or 'every node'}) matches none of the "
        f"{len(nodes)} Node(s) of the snapshot, so whether they share nodes cannot be judged on it",
        hint="give a snapshot of the cluster these DaemonSets run on (`kubectl get nodes -o yaml`), or lint "
        "without --slices to judge the node selections alone",
        key=True,
        severity=Severity.INFO,
        related=tuple(
            o.source.related(("metadata", "name"), f"{o.source.display} runs the DRA driver") for o in possible[:3]
        ),
    )


def _node_slices(ctx: Context) -> dict[str, list[KubeObject]]:
    """Node name -> ResourceSlices published for that node."""
    out: dict[str, list[KubeObject]] = {}
    for resource_slice in ctx.by_kind("ResourceSlice"):
        node = resource_slice.get(("spec", "nodeName"))
        if isinstance(node, str) and node:
            out.setdefault(node, []).append(resource_slice)
    return out


@context_check("EXT005")
def check_node_with_both(ctx: Context) -> Iterator[Finding]:
    """The same overlap seen in the cluster state alone: a Node advertises the extended
    resource (a device plugin runs there) and has ResourceSlices of a DRA driver for the same
    devices. Reported on the Node when no device-plugin DaemonSet for it is in the run (that
    DaemonSet gets the finding otherwise)."""
    slices = _node_slices(ctx)
    covered = {name for plugin in device_plugins(ctx) for name in plugin.names}
    for node in ctx.by_kind("Node"):
        allocatable = node.get(("status", "allocatable"))
        if node.origin == "context" or not isinstance(allocatable, dict):
            continue
        for resource in sorted(str(k) for k in allocatable):
            if resource in covered or not is_extended_resource_name(resource) or not node_allocatable(node, resource):
                continue
            drivers = sorted(
                {
                    str(s.get(("spec", "driver")))
                    for s in slices.get(node.name, [])
                    if provides(ctx, resource, str(s.get(("spec", "driver"))))
                }
            )
            if not drivers:
                continue
            first = next(s for s in slices[node.name] if s.get(("spec", "driver")) in drivers)
            yield node.finding(
                ("status", "allocatable", resource),
                f"node {node.name} advertises {resource} through a device plugin, and DRA driver {', '.join(drivers)} "
                "publishes the same devices on it: both hand them out, so one device can be given to two pods",
                hint="keep the device plugin off the nodes of the DRA pool (required node affinity in its DaemonSet), "
                "or stop the DRA driver on this node",
                key=True,
                related=(
                    first.related(
                        ("spec", "driver"),
                        f"{first.display} publishes devices of {first.get(('spec', 'driver'))} on {node.name}",
                    ),
                ),
            )
