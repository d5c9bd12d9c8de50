"""PodDisruptionBudgets that allow no voluntary disruption at all, let unready pods block
drains, or are missing for a multi-replica workload.

A budget with ``maxUnavailable: 0``, ``minAvailable: 100%``, or a ``minAvailable`` that reaches
the replica count of every workload it selects blocks node drains forever: cluster upgrades and
GPU-node maintenance stall on it. The workloads are matched with the budget's label selector
(``matchExpressions`` included) in its own namespace.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dralint.diagnostics import Finding
from dralint.k8s.autoscaling import autoscaler_of, min_replicas
from dralint.k8s.labels import selector_matches
from dralint.k8s.namespaces import by_namespace
from dralint.k8s.objects import KubeObject, pod_templates
from dralint.lint.context import Context
from dralint.lint.registry import object_check

_SCALED_KINDS = ("Deployment", "StatefulSet", "ReplicaSet")


def _is_zero(value: Any) -> bool:
    return value == 0 or (isinstance(value, str) and value.strip() in ("0", "0%"))


def selected_workloads(ctx: Context, pdb: KubeObject) -> list[tuple[KubeObject, int]]:
    """(workload, replicas) of the run's scaled workloads whose pods the budget selects; for a
    workload an autoscaler scales, its ``minReplicas``, the count it may be scaled down to."""
    selector = pdb.get(("spec", "selector"))
    out = []
    for kind in _SCALED_KINDS:
        for workload in by_namespace(ctx, kind).get(pdb.namespace, []):
            for template in pod_templates(workload):
                labels = template.metadata.get("labels")
                if template.replicas is not None and selector_matches(
                    selector, labels if isinstance(labels, dict) else {}
                ):
                    hpa = autoscaler_of(ctx, workload)
                    out.append((workload, template.replicas if hpa is None else min_replicas(hpa)))
    return out


@object_check("REL009", kinds={"PodDisruptionBudget"})
def check_budget(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Budgets that leave no room for a single eviction."""
    hint = "leave room for one disruption, e.g. `spec: {maxUnavailable: 1}`"
    max_unavailable = obj.get(("spec", "maxUnavailable"))
    min_available = obj.get(("spec", "minAvailable"))
    if _is_zero(max_unavailable):
        yield obj.finding(
            ("spec", "maxUnavailable"),
            f"{obj.display} sets maxUnavailable to {max_unavailable}: no pod it covers can ever be evicted, "
            "so node drains never finish",
            hint=hint,
        )
    elif isinstance(min_available, str) and min_available.strip() == "100%":
        yield obj.finding(
            ("spec", "minAvailable"),
            f"{obj.display} requires 100% of its pods available: node drains never finish",
            hint=hint,
        )
    elif isinstance(min_available, int) and not isinstance(min_available, bool):
        workloads = selected_workloads(ctx, obj)
        blocked = [(w, n) for w, n in workloads if min_available >= n]
        if workloads and len(blocked) == len(workloads):
            workload, replicas = blocked[0]
            hpa = autoscaler_of(ctx, workload)
            runs = f"runs {replicas}" if hpa is None else f"may be scaled down to {replicas} by {hpa.display}"
            related = (
                workload.related(
                    ("spec", "replicas") if workload.get(("spec", "replicas")) is not None else ("spec",),
                    "the selected workload's replicas",
                    key=True,
                ),
            )
            if hpa is not None:
                related = (
                    hpa.related(
                        ("spec", "minReplicas") if hpa.get(("spec", "minReplicas")) is not None else ("spec",),
                        "the autoscaler's minimum",
                        key=True,
                    ),
                )
            yield obj.finding(
                ("spec", "minAvailable"),
                f"{obj.display} requires {min_available} available pods but {workload.display} {runs}: no "
                "pod can be evicted",
                hint=hint,
                related=related,
            )


@object_check("REL023", kinds={"PodDisruptionBudget"})
def check_unhealthy_eviction(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Budgets that let pods which are not ready block node drains."""
    if not isinstance(obj.get(("spec",)), dict) or obj.get(("spec", "unhealthyPodEvictionPolicy")) is not None:
        return
    yield obj.finding(
        ("spec",),
        f"{obj.display} sets no unhealthyPodEvictionPolicy: with the default IfHealthyBudget, pods that are "
        "running but not ready "
        "cannot be evicted while the budget is exhausted, so a crash-looping release blocks node drains",
        hint="set `spec: {unhealthyPodEvictionPolicy: AlwaysAllow}`",
        rule="REL023",
        key=True,
    )


def _budgeted(ctx: Context, template_labels: dict[str, Any], namespace: str | None) -> bool:
    return any(
        selector_matches(pdb.get(("spec", "selector")), template_labels)
        for pdb in by_namespace(ctx, "PodDisruptionBudget").get(namespace, [])
    )


@object_check("REL024", kinds=_SCALED_KINDS)
def check_missing_budget(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Multi-replica workloads that no PodDisruptionBudget of the run protects."""
    hpa = autoscaler_of(ctx, obj)
    for template in pod_templates(obj):
        replicas = min_replicas(hpa) if hpa is not None else template.replicas
        labels = template.metadata.get("labels")
        if (
            replicas is None
            or replicas < 2
            or _budgeted(ctx, labels if isinstance(labels, dict) else {}, obj.namespace)
        ):
            continue
        yield obj.finding(
            ("spec", "replicas") if obj.get(("spec", "replicas")) is not None else ("spec",),
            f"{obj.display} runs {replicas} replicas but no PodDisruptionBudget of the run selects its pods: "
            "a node drain may evict all of them at once",
            hint="add `kind: PodDisruptionBudget` with `spec: {maxUnavailable: 1, selector: {matchLabels: <pod "
            "labels>}}`; "
            "if budgets are applied from elsewhere, pass them with --context",
            rule="REL024",
            key=True,
        )
