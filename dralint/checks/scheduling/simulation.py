"""The run's snapshot and simulator, built once per lint run through ``ctx.memo``.

Other checks (the CEL helper's "selectors match no device") use :func:`snapshot_inventory` or
:func:`snapshot_cel_devices` so there is one view of the cluster per run. ``dralint simulate`` reads
the same outcomes the SCH checks computed, so the table and the findings never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dralint.k8s.objects import KubeObject, PodTemplate
from dralint.lint.context import Context

if TYPE_CHECKING:
    from dralint.k8s.allocator import Outcome, PodDemand
    from dralint.k8s.cel import Device as CelDevice
    from dralint.k8s.inventory import DeviceId, Inventory

# The inventory, the allocator and its CEL matcher are imported where a snapshot exists: every
# run registers these checks, and most runs have no ``--slices`` (a pre-commit run of one file
# would otherwise import the whole scheduler model).

MEMO = "dralint.checks.scheduling"
#: Kinds read from the snapshot (``--slices``).
SNAPSHOT_KINDS = frozenset({"ResourceSlice", "DeviceClass", "Node", "ResourceClaim", "DeviceTaintRule"})
#: Kinds that also count when they come from the linted manifests: classes ship with workloads.
MANIFEST_KINDS = frozenset({"DeviceClass"})


def snapshot_inventory(ctx: Context) -> Inventory | None:
    """The inventory of this run, or None unless ``--slices`` gave at least one ResourceSlice.

    The fleet comes from the snapshot only: ResourceSlices, Nodes, DeviceTaintRules and
    allocated ResourceClaims in the linted manifests are examples or intent, not cluster state
    (a directory of demos may hold a rule that taints every device). DeviceClasses from the
    manifests count, since workloads usually ship with their classes.
    """

    def build() -> Inventory | None:
        if not ctx.options.slices:
            return None
        objects = [
            o for o in ctx.objects if (o.origin == "cluster" and o.kind in SNAPSHOT_KINDS) or o.kind in MANIFEST_KINDS
        ]
        if not any(o.kind == "ResourceSlice" for o in objects):
            return None
        from dralint.k8s.inventory import Inventory

        return Inventory.build(objects)

    return ctx.memo((MEMO, "inventory"), build)


def device_classes(ctx: Context) -> dict[str, KubeObject]:
    """DeviceClasses by name; a scanned class wins over the snapshot's copy of the same name."""
    out: dict[str, KubeObject] = {}
    for obj in sorted(ctx.by_kind("DeviceClass"), key=lambda o: o.origin != "scan"):
        out.setdefault(obj.name, obj)
    return out


def snapshot_cel_devices(ctx: Context) -> list[CelDevice]:
    """Every device of the snapshot as the CEL adapter sees it ([] without a snapshot).

    This is the inventory the CEL checks use for "selectors match no device", shared with the
    allocator's matcher so each device is converted once per run.
    """
    inv = snapshot_inventory(ctx)
    if inv is None:
        return []
    from dralint.k8s.celmatch import cel_view

    views: dict[DeviceId, CelDevice] = ctx.memo((MEMO, "cel-devices"), dict)
    return [cel_view(views, dev) for dev in inv.all_devices()]


class Simulation:
    """Demands and outcomes per pod template, computed on first use."""

    def __init__(self, ctx: Context, inv: Inventory) -> None:
        from dralint.k8s.allocator import Features, Simulator, extended_resource_classes
        from dralint.k8s.celmatch import cel_matcher

        self.ctx = ctx
        self.inv = inv
        self.classes = device_classes(ctx)
        data: Mapping[str, Mapping[str, Any]] = {name: obj.data for name, obj in self.classes.items()}
        self.ext = extended_resource_classes(data)
        self.features = Features.from_gates(ctx.options.feature_gates or {})
        matcher = cel_matcher(ctx.memo((MEMO, "cel-devices"), dict))
        self.simulator = Simulator(inv, data, matcher, self.ext, features=self.features)
        self._outcomes: dict[tuple[int, tuple, bool], tuple[PodDemand, Outcome]] = {}

    def _lookup(self, kind: str, namespace: str, name: str) -> KubeObject | None:
        return self.ctx.find(kind, namespace, name)

    def run(self, obj: KubeObject, tpl: PodTemplate, *, every_node: bool = False) -> tuple[PodDemand, Outcome]:
        """(demand, outcome) for one template; replicas packed as the owner asks.

        ``every_node`` lists every node one pod fits on (``dralint simulate``); the rules only
        need to know whether one does and how many replicas fit, which is cheaper.
        """
        key = (id(obj), tuple(tpl.path), every_node)
        if key not in self._outcomes:
            from dralint.k8s.allocator import Outcome, pod_demand

            namespace = obj.namespace or "default"
            demand = pod_demand(tpl.label, tpl.spec, namespace, self._lookup, self.inv, self.ext)
            if demand.unresolved or not (demand.claims or demand.containers or demand.allocated):
                outcome = Outcome(tpl.label, nodes=len(self.inv.nodes))
            else:
                outcome = self.simulator.place(demand, tpl.replicas or 1, every_node=every_node)
            self._outcomes[key] = (demand, outcome)
        return self._outcomes[key]

    @staticmethod
    def relevant(demand: PodDemand) -> bool:
        """The template asks for devices and every reference resolved."""
        return not demand.unresolved and bool(demand.claims or demand.containers or demand.allocated)


def simulation(ctx: Context) -> Simulation | None:
    """The run's Simulation, or None without a snapshot."""

    def build() -> Simulation | None:
        inv = snapshot_inventory(ctx)
        return Simulation(ctx, inv) if inv is not None else None

    return ctx.memo((MEMO, "simulation"), build)
