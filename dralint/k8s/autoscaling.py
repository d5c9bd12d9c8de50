"""HorizontalPodAutoscalers and the workloads they scale.

An autoscaler owns its target's replica count: between ``minReplicas`` (default 1) and
``maxReplicas``. Checks that reason about how many pods a workload runs (disruption budgets,
single replicas) ask here instead of reading ``spec.replicas``.
"""

from __future__ import annotations

from typing import Any

from dralint.k8s.namespaces import by_namespace
from dralint.k8s.objects import KubeObject, ObjectIndex


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def autoscaler_of(ctx: ObjectIndex, obj: KubeObject) -> KubeObject | None:
    """A HorizontalPodAutoscaler of the run that scales ``obj``."""
    for hpa in by_namespace(ctx, "HorizontalPodAutoscaler").get(obj.namespace, []):
        ref = hpa.get(("spec", "scaleTargetRef"))
        if isinstance(ref, dict) and ref.get("kind") == obj.kind and ref.get("name") == obj.name:
            return hpa
    return None


def min_replicas(hpa: KubeObject) -> int:
    """The fewest replicas the autoscaler leaves (``minReplicas``, 1 when unset)."""
    value = _count(hpa.get(("spec", "minReplicas")))
    return 1 if value is None else value
