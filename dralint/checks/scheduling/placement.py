"""SCH checks: would the pod templates schedule on the snapshot, and is the snapshot sound?

All of them are silent without a snapshot (``--slices``): without the fleet there is nothing
to allocate from, and guessing would only produce noise.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import TYPE_CHECKING

from dralint.checks.scheduling.simulation import MEMO, Simulation, simulation, snapshot_inventory
from dralint.diagnostics import Finding, Related
from dralint.k8s.claims import pod_claim_entries
from dralint.k8s.kubelet import is_version_reason
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, PodTemplate, pod_templates
from dralint.lint.context import Context
from dralint.lint.registry import context_check, object_check

if TYPE_CHECKING:
    from dralint.k8s.allocator import Outcome, PodDemand
    from dralint.k8s.allocator.search import CelFailure

# Only runs with a snapshot reach the allocator: its modules are imported there (see
# dralint.checks.scheduling.simulation).

SIMULATE_HINT = "run `dralint simulate` with the same --slices to see every node's reason"

#: Snapshot problem code -> rule.
PROBLEM_RULES = {
    "incomplete-pool": "SCH004",
    "duplicate-device": "SCH005",
    "duplicate-counter-set": "SCH005",
    "unknown-counter": "SCH005",
    "number-out-of-range": "SCH005",
    "mixed-generations": "SCH006",
    "slice-without-node-selection": "SCH006",
    "slice-without-pool": "SCH006",
}
PROBLEM_HINTS = {
    "SCH004": "wait for the driver to publish every slice of the pool, or fix resourceSliceCount",
    "SCH005": "report it to the driver: the scheduler ignores the whole pool until it is fixed",
    "SCH006": "delete the stale slice or let the driver republish it",
}


def _claim_related(demand: PodDemand) -> tuple[Related, ...]:
    out = []
    for claim in demand.claims:
        if isinstance(claim.source, KubeObject):
            out.append(claim.source.related(claim.base + ("devices",), f"claim {claim.label} is defined here"))
    return tuple(out)


def _where(tpl: PodTemplate) -> tuple:
    """The pod's resourceClaims list when it has one, else the pod spec."""
    return tpl.path + ("resourceClaims",) if tpl.spec.get("resourceClaims") else tpl.path


def _replicas_field(obj: KubeObject, tpl: PodTemplate) -> tuple:
    """Where the owner sets how many pods run (replicas, Job parallelism), else the claims."""
    owner = tpl.path[:-2]
    for name in ("replicas", "parallelism"):
        if obj.get(owner + (name,)) is not None:
            return owner + (name,)
    return _where(tpl)


def _cel_related(sim: Simulation, failure: CelFailure) -> list[Related]:
    """The failing selector and the device it failed on, as related locations of SCH001.

    The selector itself is CEL008's finding (every device it fails on); SCH001 says which pod
    the failure actually stops, because the scheduler reaches that device for it.
    """
    owner: object = None
    path: tuple = ()
    if failure.class_name is not None:
        owner = sim.classes.get(failure.class_name)
        path = ("spec", "selectors", failure.index, "cel", "expression")
    elif failure.claim is not None and failure.alternative is not None:  # always both, for a claim's selector
        owner = failure.claim.source
        path = failure.claim.base + failure.alternative.path + ("selectors", failure.index, "cel", "expression")
    out = []
    if isinstance(owner, KubeObject):
        out.append(owner.related(path, f"selector #{failure.index} fails here"))
    source, where = sim.inv.source_of(failure.device, ("name",))
    if isinstance(source, KubeObject):
        out.append(source.related(where, f"on device {failure.device.id}"))
    return out


def _extended_too_large(sim: Simulation, demand: PodDemand, tpl: PodTemplate) -> Iterator[Finding]:
    """SCH003: the special claim asks more devices of a class than any node has at all."""
    if not sim.features.extended_resource:
        return
    from dralint.k8s.allocator.pod import extended_requests
    from dralint.k8s.inventory import Node, amount

    special, _ = extended_requests(demand.containers, Node("", {}, {}), sim.ext)
    if special is None:
        return
    need: dict[str, int] = defaultdict(int)
    for req in special.requests:
        need[req.alternatives[0].class_name] += req.alternatives[0].count
    best = sim.ctx.memo((MEMO, "class-max"), dict)
    sel = sim.simulator.selection
    for cls, count in need.items():
        if cls not in best:
            exprs = sel.class_selectors(cls)
            best[cls] = max(
                (
                    sum(1 for d in sim.simulator.view(node).candidates if sel.evaluate(exprs, d) is True)
                    for node in sim.inv.nodes.values()
                ),
                default=0,
            )
        resources = sorted({r for c in demand.containers for r in c.wanted if sim.ext.get(r) == cls})
        plugin = any((amount(n.allocatable.get(r)) or 0) >= count for n in sim.inv.nodes.values() for r in resources)
        if count <= best[cls] or plugin:
            continue
        container = next(c for c in demand.containers if any(sim.ext.get(r) == cls for r in c.wanted))
        resource = next(r for r in sorted(container.wanted) if sim.ext.get(r) == cls)
        resources_path = tpl.path + container.path + ("resources",)
        section = "limits" if resource in (tpl.owner.get(resources_path + ("limits",)) or {}) else "requests"
        most = best[cls]
        if most:
            have = f"no node of the snapshot has more than {most} such device{'s' if most > 1 else ''}"
            hint = f"ask for at most {most} per pod and split the work over more pods"
        else:
            have = "no node of the snapshot has any device of that class"
            hint = f"check DeviceClass {cls}'s selectors against the snapshot's devices, or add nodes that have them"
        yield tpl.owner.finding(
            resources_path + (section, resource),
            f"{tpl.label} asks for {count} device(s) of DeviceClass {cls} through extended resource "
            f"{resource}, but {have}",
            hint=hint,
            rule="SCH003",
        )


def _unplaceable(
    sim: Simulation,
    obj: KubeObject,
    where: tuple,
    label: str,
    outcome: Outcome,
    related: tuple[Related, ...],
    verb: str,
) -> Finding | None:
    """SCH001 when the simulation fails everywhere (an error on every node, or no node fits)."""
    fatal = outcome.fatal
    if fatal is not None:
        if fatal.cel is not None:
            related += tuple(_cel_related(sim, fatal.cel))
        return obj.finding(
            where,
            f"{label}: scheduling would fail with an error on every node: {fatal.message}",
            hint=SIMULATE_HINT,
            rule="SCH001",
            related=related,
            key=True,
        )
    from dralint.k8s.allocator.pod import is_unserved_reason

    if (
        not outcome.schedulable
        and not all(map(is_unserved_reason, outcome.reasons))
        and not any(map(is_version_reason, outcome.reasons))
    ):
        # (an extended resource nothing serves anywhere is EXT001's finding; nodes ruled out
        # only by their kubelet version are SCH007's)
        return obj.finding(
            where,
            f"{label} cannot be {verb} on any of the {outcome.nodes} node(s) of the snapshot: {outcome.summary()}",
            hint=SIMULATE_HINT,
            rule="SCH001",
            related=related,
            key=True,
        )
    return None


def _claims_in_pods(ctx: Context) -> set[tuple[str | None, str]]:
    """(namespace, name) of every ResourceClaim a scanned pod template names."""

    def build() -> set[tuple[str | None, str]]:
        return {
            (obj.namespace, str(entry["resourceClaimName"]))
            for obj in ctx.objects
            if obj.origin == "scan"
            for tpl in pod_templates(obj)
            for _, entry in pod_claim_entries(tpl.spec)
            if entry.get("resourceClaimName")
        }

    return ctx.memo((MEMO, "claims-in-pods"), build)


@object_check("SCH001", kinds=("ResourceClaim",))
def check_standalone_claim(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """A ResourceClaim no scanned pod uses is placed as a pod holding only that claim would be:
    its pods (created elsewhere) can only run where the claim can be allocated."""
    sim = simulation(ctx)
    if (
        sim is None
        or obj.get(("status", "allocation")) is not None
        or (obj.namespace, obj.name) in _claims_in_pods(ctx)
    ):
        return
    spec = {
        "resourceClaims": [{"name": "claim", "resourceClaimName": obj.name}],
        "containers": [{"name": "user", "resources": {"claims": [{"name": "claim"}]}}],
    }
    demand, outcome = sim.run(obj, PodTemplate(obj, spec, ("spec",)))
    if not sim.relevant(demand) or not outcome.nodes:
        return
    fatal = outcome.fatal
    if fatal is not None and (
        fatal.missing_class is not None or (fatal.cel is not None and fatal.cel.kind != "runtime")
    ):
        return  # a missing class is a reference finding, a compile error the CEL checks'
    finding = _unplaceable(sim, obj, ("spec", "devices", "requests"), obj.display, outcome, (), "allocated")
    if finding is not None:
        yield finding


@object_check("SCH001", "SCH002", "SCH003", kinds=POD_TEMPLATE_KINDS)
def check_placement(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Simulate every pod template of a workload against the snapshot."""
    sim = simulation(ctx)
    if sim is None:
        return
    for tpl in pod_templates(obj):
        demand, outcome = sim.run(obj, tpl)
        if not sim.relevant(demand) or not outcome.nodes:
            continue  # nothing asked, or a snapshot without any node to place on
        too_large = list(_extended_too_large(sim, demand, tpl))
        yield from too_large
        fatal = outcome.fatal
        if fatal is not None and fatal.cel is not None and fatal.cel.kind != "runtime":
            continue  # compile errors are the CEL checks' findings; unsupported: no verdict
        if too_large or (fatal is not None and fatal.missing_class is not None):
            continue  # a missing DeviceClass is a reference finding, not a scheduling one
        related = _claim_related(demand)
        unplaceable = _unplaceable(sim, obj, _where(tpl), tpl.label, outcome, related, "scheduled")
        if unplaceable is not None:
            yield unplaceable
        elif outcome.schedulable and tpl.replicas is not None and not outcome.all_placed:
            yield obj.finding(
                _replicas_field(obj, tpl),
                f"only {outcome.placed} of {tpl.replicas} replicas of {tpl.label} fit at once on the snapshot "
                f"(each placed pod takes its devices); the rest would stay Pending",
                hint="reduce replicas, ask for fewer devices per pod, or add capacity; " + SIMULATE_HINT,
                rule="SCH002",
                related=related,
            )


@context_check("SCH004", "SCH005", "SCH006")
def check_snapshot(ctx: Context) -> Iterator[Finding]:
    """Problems of the snapshot itself, at the slice that causes them."""
    inv = snapshot_inventory(ctx)
    if inv is None:
        return
    for problem in inv.problems:
        rule = PROBLEM_RULES[problem.code]
        if isinstance(problem.source, KubeObject):
            yield problem.source.finding(problem.path, problem.message, hint=PROBLEM_HINTS[rule], rule=rule)
