"""HorizontalPodAutoscaler ``scaleTargetRef`` -> the workload it scales.

An autoscaler whose target does not exist scales nothing (its status says ``FailedGetScale``).
A target that also writes ``spec.replicas`` fights the autoscaler: every ``kubectl apply``
resets the replica count to the manifest's number until the autoscaler corrects it again.
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.diagnostics import Finding
from dralint.k8s.autoscaling import autoscaler_of
from dralint.k8s.objects import KubeObject
from dralint.lint.context import Context
from dralint.lint.refs import reference_finding, resolve
from dralint.lint.registry import object_check

NOT_IN_SCOPE = "REF012"


@object_check("REF012", "REF017", kinds={"HorizontalPodAutoscaler"})
def check_scale_target(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """The scale target exists in the autoscaler's namespace."""
    ref = obj.get(("spec", "scaleTargetRef"))
    if (
        not isinstance(ref, dict)
        or not isinstance(ref.get("kind"), str)
        or not isinstance(ref.get("name"), str)
        or not ref["name"]
    ):
        return
    resolution = resolve(ctx, ref["kind"], obj.namespace, ref["name"], referrer=obj)
    finding = reference_finding(
        obj,
        ("spec", "scaleTargetRef", "name"),
        resolution,
        "scaleTargetRef",
        missing_rule="REF017",
        scope_rule=NOT_IN_SCOPE,
    )
    if finding:
        yield finding


@object_check("REF018", kinds=None)
def check_pinned_replicas(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """A workload an autoscaler of the run scales does not also write ``spec.replicas``."""
    if obj.get(("spec", "replicas")) is None:
        return
    hpa = autoscaler_of(ctx, obj)
    if hpa is not None:
        yield obj.finding(
            ("spec", "replicas"),
            f"{obj.display} sets replicas although {hpa.display} scales it: every apply resets the replica count",
            hint="remove `spec.replicas` from the manifest and let the autoscaler's minReplicas set the floor",
            rule="REF018",
            key=True,
            related=(hpa.related(("spec", "scaleTargetRef"), f"{hpa.display} scales it", key=True),),
        )
