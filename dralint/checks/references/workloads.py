"""Multi-pod workloads and their devices: shared claims and partial starts.

A ResourceClaim named by ``resourceClaimName`` is one object; every pod of a Deployment or a
DaemonSet that names it shares the same allocated devices (and the pods must all land where
those devices are). A template gives each pod its own claim. Separately, a multi-pod training
job whose pods each hold devices can start partially and sit on GPUs waiting for peers unless
something schedules the pods as a gang.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dralint.diagnostics import Finding
from dralint.k8s.claims import pod_claim_entries
from dralint.k8s.migration import template_extended_requests
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, PodTemplate, pod_templates
from dralint.lint.context import Context
from dralint.lint.registry import object_check
from dralint.yaml.plain import as_list

#: Schedulers that place a group of pods all-or-nothing.
GANG_SCHEDULERS = frozenset(
    {"volcano", "kai-scheduler", "scheduler-plugins-scheduler", "yunikorn", "koord-scheduler", "coscheduling"}
)
#: Pod labels/annotations by which gang schedulers and pod groupers tie pods together.
GANG_MARKERS = frozenset(
    {
        "scheduling.k8s.io/group-name",
        "scheduling.x-k8s.io/pod-group",
        "pod-group.scheduling.sigs.k8s.io",
        "pod-group.scheduling.sigs.k8s.io/name",
        "kai.scheduler/podgroup",
    }
)
#: Kinds whose pods run together as one job.
JOB_KINDS = frozenset(
    {"Job", "JobSet", "MPIJob", "PyTorchJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob", "TrainJob"}
)


def pods_of(template: PodTemplate) -> str:
    return "one pod per node" if template.replicas is None else f"{template.replicas} pods"


@object_check("REF006", kinds=POD_TEMPLATE_KINDS)
def check_shared_claim_in_workload(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """resourceClaimName in a template that stands for several pods."""
    for template in pod_templates(obj):
        if template.replicas is not None and template.replicas <= 1:
            continue
        for index, entry in pod_claim_entries(template.spec):
            name = entry.get("resourceClaimName")
            if not isinstance(name, str) or not name:
                continue
            claim = ctx.find("ResourceClaim", obj.namespace, name)
            related = (
                (claim.related(("metadata", "name"), f"the one ResourceClaim all {pods_of(template)} share"),)
                if claim
                else ()
            )
            yield obj.finding(
                template.path + ("resourceClaims", index, "resourceClaimName"),
                f"{template.label} makes {pods_of(template)} that all use the single ResourceClaim {name!r}: "
                "they share the same devices and can only run where those devices are",
                hint="use `resourceClaimTemplateName:` with a ResourceClaimTemplate so each pod gets its own devices, "
                "unless sharing one allocation is intended",
                related=related,
            )


def needs_devices(template: PodTemplate) -> bool:
    """Whether the pods hold devices: DRA claims or device-plugin/DRA extended resources."""
    if as_list(template.spec.get("resourceClaims")):
        return True
    return any(template_extended_requests(template, implicit=implicit) for implicit in (False, True))


def _has_marker(meta: Any) -> bool:
    if not isinstance(meta, dict):
        return False
    for field_name in ("labels", "annotations"):
        keys = meta.get(field_name)
        if isinstance(keys, dict) and not GANG_MARKERS.isdisjoint(keys):
            return True
    return False


def _gang(obj: KubeObject, ctx: Context, templates: list[PodTemplate]) -> bool:
    """Evidence that the pods are scheduled together."""
    if obj.get(("spec", "runPolicy", "schedulingPolicy")) or _has_marker(obj.get(("metadata",))):
        return True
    for template in templates:
        spec = template.spec
        scheduler = spec.get("schedulerName")
        if (
            spec.get("schedulingGroup")
            or spec.get("workloadRef")
            or (isinstance(scheduler, str) and scheduler in GANG_SCHEDULERS)
        ):
            return True
        if _has_marker(template.metadata):
            return True
    return any(ctx.find(kind, obj.namespace, obj.name) for kind in ("Workload", "PodGroup"))


@object_check("REF007", kinds=JOB_KINDS)
def check_gang_scheduling(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """A multi-pod job that holds devices without gang scheduling."""
    templates = pod_templates(obj)
    with_devices = [t for t in templates if needs_devices(t)]
    device_pods = sum(t.replicas or 1 for t in with_devices)
    if device_pods <= 1 or _gang(obj, ctx, templates):
        return
    yield obj.finding(
        with_devices[0].path,
        f"{obj.display} runs {device_pods} pods that hold devices, and nothing schedules them as a gang: "
        "a partial set can start and keep its devices while the rest stay Pending",
        hint="schedule the pods together: in Kubernetes v1.37 create a scheduling.k8s.io Workload/PodGroup with a gang "
        "policy (minCount) and set `schedulingGroup: {podGroupName: ...}` in the pod template (alpha, behind a feature "
        "gate), or use a gang-capable scheduler (Volcano, KAI, scheduler-plugins coscheduling)",
        key=True,
    )
