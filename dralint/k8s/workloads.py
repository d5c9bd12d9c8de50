"""Which pods run forever and which containers keep running: what probes and sizing apply to.

Peers flag missing probes on Jobs and on init containers, where the kubelet never runs them,
and miss native sidecars (init containers with ``restartPolicy: Always``), where it does. The
answers live here once so reliability checks agree with each other.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dralint.k8s.objects import PodTemplate
from dralint.yaml.loader import DataPath

#: Kinds whose pods run to completion (batch): liveness/readiness probes and replicas do not apply.
RUN_TO_COMPLETION_KINDS = frozenset(
    {
        "Job",
        "CronJob",
        "JobSet",
        "MPIJob",
        "PyTorchJob",
        "TFJob",
        "XGBoostJob",
        "PaddleJob",
        "JAXJob",
        "Workflow",
        "WorkflowTemplate",
        "ClusterWorkflowTemplate",
        "CronWorkflow",
    }
)
#: Kinds whose operator injects its own probes into the pods it creates (KubeRay does).
OPERATOR_PROBED_KINDS = frozenset({"RayCluster", "RayJob", "RayService"})


def runs_to_completion(template: PodTemplate) -> bool:
    """True for batch pods: Job-like owners, and bare Pods that are not restarted on success."""
    if template.owner.kind in RUN_TO_COMPLETION_KINDS:
        return True
    if template.owner.kind == "Pod":
        return template.spec.get("restartPolicy") in ("Never", "OnFailure")
    return False


def is_sidecar(container: dict[str, Any]) -> bool:
    """A native sidecar: an init container that keeps running beside the main containers."""
    return container.get("restartPolicy") == "Always"


def running_containers(template: PodTemplate) -> Iterator[tuple[DataPath, dict[str, Any]]]:
    """Containers that run for the pod's lifetime: regular ones and native sidecars.

    Plain init containers finish before the app starts and ephemeral containers have no
    resources or probes, so sizing and probe checks skip them. Found once per template: five
    checks ask.
    """
    return iter(template.memo(__name__, lambda: list(_running(template))))


def _running(template: PodTemplate) -> Iterator[tuple[DataPath, dict[str, Any]]]:
    for path, container in template.containers():
        field_name = next((s for s in reversed(path) if isinstance(s, str)), "")
        if field_name == "ephemeralContainers":
            continue
        if field_name == "initContainers" and not is_sidecar(container):
            continue
        yield path, container
