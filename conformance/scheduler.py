"""The real scheduler's verdict on a scenario: create it on the control plane, one pod per
replica, and read what the scheduler did (the node it bound, the devices of the claims it
allocated, its PodScheduled message when the pod stays Pending).
"""

from __future__ import annotations

import time
from typing import Any

from cluster import Api, ApiError, collection, kind_path
from scenarios import Scenario

#: How long one pod may take to be bound or marked unschedulable.
POD_TIMEOUT = 30.0
#: Order of creation: what a pod or claim refers to exists before it.
ORDER = ("Namespace", "Node", "DeviceClass", "ResourceSlice", "ResourceClaimTemplate", "ResourceClaim")


def outcome(api: Api, namespace: str, name: str, timeout: float = POD_TIMEOUT) -> dict[str, Any]:
    """Wait until the pod is bound, unschedulable or failed with a scheduler error (which the
    scheduler retries for ever); its node, or the scheduler's message and whether it is an error."""
    deadline = time.monotonic() + timeout
    while True:
        pod = api.get(f"{kind_path('Pod', namespace)}/{name}")
        if pod["spec"].get("nodeName"):
            return {"node": pod["spec"]["nodeName"], "pod": pod}
        for condition in pod.get("status", {}).get("conditions") or ():
            if (condition.get("type"), condition.get("status")) == ("PodScheduled", "False") and condition.get(
                "reason"
            ) in ("Unschedulable", "SchedulerError"):
                error = condition["reason"] == "SchedulerError"
                return {"node": None, "message": condition.get("message", ""), "error": error, "pod": pod}
        if time.monotonic() > deadline:
            return {"node": None, "message": "timeout: neither bound nor unschedulable", "pod": pod}
        time.sleep(0.1)


def _claim_devices(api: Api, namespace: str, name: str) -> list[str]:
    """driver/pool/device of an allocated claim, waiting briefly for the allocation to show."""
    for _ in range(50):
        claim = api.get(f"{kind_path('ResourceClaim', namespace)}/{name}")
        allocation = (claim.get("status") or {}).get("allocation")
        if allocation:
            results = allocation.get("devices", {}).get("results") or []
            return sorted(f"{r['driver']}/{r['pool']}/{r['device']}" for r in results)
        time.sleep(0.1)
    return []


def pod_devices(api: Api, pod: dict[str, Any]) -> list[str]:
    """Every device the pod's claims hold: named, generated from templates, or for extended resources."""
    namespace = pod["metadata"]["namespace"]
    status = pod.get("status") or {}
    names = [e["resourceClaimName"] for e in pod["spec"].get("resourceClaims") or () if e.get("resourceClaimName")]
    names += [e["resourceClaimName"] for e in status.get("resourceClaimStatuses") or () if e.get("resourceClaimName")]
    extended = status.get("extendedResourceClaimStatus") or {}
    if extended.get("resourceClaimName"):
        names.append(extended["resourceClaimName"])
    return sorted(d for name in names for d in _claim_devices(api, namespace, name))


def create_all(api: Api, objects: list[dict[str, Any]]) -> None:
    for kind in ORDER:
        for obj in objects:
            if obj["kind"] == kind:
                api.create(obj)


def run(api: Api, scenario: Scenario) -> dict[str, Any]:
    """The scheduler's verdict on every replica of the scenario, then the scenario removed."""
    namespaces = {scenario.namespace} | {
        o["metadata"]["namespace"] for o in scenario.snapshot if o["metadata"].get("namespace")
    }
    extra = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}}
        for n in sorted(namespaces - {scenario.namespace})
    ]
    workload = [o for o in scenario.workload if o["kind"] != "Deployment"]
    try:
        create_all(api, [*extra, *workload, *scenario.snapshot])
        template = scenario.deployment["spec"]["template"]
        replicas = []
        for index in range(scenario.replicas):
            name = f"work-{index}"
            api.create(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": name, "namespace": scenario.namespace, **template["metadata"]},
                    "spec": template["spec"],
                }
            )
            seen = outcome(api, scenario.namespace, name)
            found: dict[str, Any] = {"node": seen["node"]}
            if seen["node"]:
                found["devices"] = pod_devices(api, seen["pod"])
            else:
                found["message"] = seen["message"]
                found["error"] = seen.get("error", False)
            replicas.append(found)
    finally:
        remove(api, scenario)
    return {"id": scenario.id, "digest": scenario.digest, "replicas": replicas}


def remove(api: Api, scenario: Scenario) -> None:
    """Delete what could sway the next scenario: its pods, nodes, slices and classes (claims stay:
    they hold devices of pools no later scenario has)."""
    for index in range(scenario.replicas):
        api.delete(f"{kind_path('Pod', scenario.namespace)}/work-{index}")
    cluster_scoped = [o for o in scenario.snapshot if o["kind"] in ("Node", "ResourceSlice", "DeviceClass")]
    for obj in cluster_scoped:
        api.delete(f"{collection(obj)}/{obj['metadata']['name']}")
    for obj in cluster_scoped:
        for _ in range(100):
            try:
                api.get(f"{collection(obj)}/{obj['metadata']['name']}")
            except ApiError as error:
                if error.status == 404:
                    break
                raise
            time.sleep(0.05)
    time.sleep(0.3)  # the scheduler's informers see the deletions a moment after the API server
