"""SCH007: a pod template that fits only on nodes whose kubelet is too old for what it uses.

In a pool upgraded node by node, the allocator may find devices only on nodes that still run an
older kubelet; the scheduler would place the pod there and the kubelet would fail to run it (or
the pod waits for a node that never qualifies). The simulation already rules such nodes out; this
check names them with their versions.
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.checks.scheduling.simulation import simulation
from dralint.diagnostics import Finding
from dralint.k8s.kubelet import is_version_reason
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, pod_templates
from dralint.lint.context import Context
from dralint.lint.registry import object_check


@object_check("SCH007", kinds=POD_TEMPLATE_KINDS)
def check_kubelet_versions(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """One finding per template that no node takes but some would, except for their kubelet."""
    sim = simulation(ctx)
    if sim is None:
        return
    for tpl in pod_templates(obj):
        demand, outcome = sim.run(obj, tpl)
        if not sim.relevant(demand) or outcome.schedulable or outcome.fatal is not None:
            continue
        old = sorted(
            (name, reason) for reason, names in outcome.reasons.items() if is_version_reason(reason) for name in names
        )
        if not old:
            continue
        nodes = ", ".join(f"{name} ({sim.inv.nodes[name].kubelet})" for name, _ in old[:10])
        more = f" and {len(old) - 10} more" if len(old) > 10 else ""
        yield obj.finding(
            tpl.path + ("resourceClaims",) if tpl.spec.get("resourceClaims") else tpl.path,
            f"{tpl.label} fits only on node(s) whose kubelet is too old for it: {nodes}{more}: {old[0][1]}",
            hint="upgrade the kubelet of those nodes (or cordon them and add capacity on upgraded nodes); "
            "the kubelet must support every DRA feature the pod's devices use",
            key=True,
        )
