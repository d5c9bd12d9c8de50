"""dralint doctor on hand-written dumps, one per failure mode, plus the bundled example."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from dralint.cli.main import main
from dralint.k8s.doctor import diagnose, load_dump
from dralint.k8s.doctor.diagnose import PROBLEM, WARNING

ROOT = Path(__file__).resolve().parent.parent
DRIVER = "gpu.example.com"


def node(name: str, kubelet: str = "v1.37.0", **allocatable: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": "8", **allocatable}, "nodeInfo": {"kubeletVersion": kubelet}},
    }


def device_class(ext: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": f"device.driver == '{DRIVER}'"}}]}
    if ext:
        spec["extendedResourceName"] = ext
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}, "spec": spec}


def slice_(
    node_name: str, gpus: int, *, count: int = 1, name: str | None = None, generation: int = 1
) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name or f"{node_name}-gpus"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": generation, "resourceSliceCount": count},
            "devices": [{"name": f"gpu-{i}"} for i in range(gpus)],
        },
    }


def claim(
    name: str,
    *,
    owner: tuple[str, str] | None = None,
    pod_claim: str | None = None,
    devices: tuple[tuple[str, str], ...] = (),
    reserved: tuple[tuple[str, str], ...] = (),
    extended: bool = False,
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "ml"}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": owner[0], "uid": owner[1]}]
    annotations = {}
    if pod_claim:
        annotations["resource.kubernetes.io/pod-claim-name"] = pod_claim
    if extended:
        annotations["resource.kubernetes.io/extended-resource-claim"] = "true"
    if annotations:
        meta["annotations"] = annotations
    data: dict[str, Any] = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": meta,
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}},
    }
    if devices:
        data["status"] = {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": "gpu", "driver": DRIVER, "pool": pool, "device": dev} for pool, dev in devices
                    ]
                }
            }
        }
        if reserved:
            data["status"]["reservedFor"] = [{"resource": "pods", "name": n, "uid": u} for n, u in reserved]
    return data


def pod(
    name: str,
    *,
    claims: list[dict[str, Any]] | None = None,
    node_name: str | None = None,
    gpus: int = 0,
    image: str = "registry.example.com/app:1.0",
    status: dict[str, Any] | None = None,
) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "app", "image": image}
    if gpus:
        container["resources"] = {"limits": {"example.com/gpu": gpus}}
    spec: dict[str, Any] = {"containers": [container]}
    if claims:
        spec["resourceClaims"] = claims
    if node_name:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "ml", "uid": f"uid-{name}"},
        "spec": spec,
        "status": {"phase": "Pending", **(status or {})},
    }


def doctor(*objects: dict[str, Any]) -> dict[str, Any]:
    """Diagnoses keyed by pod name: (stuck message or None, [(check, status, message)])."""
    text = yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": list(objects)}, sort_keys=False)
    return {
        d.name: (d.stuck.message if d.stuck else None, [(s.check, s.status, s.message) for s in d.steps])
        for d in diagnose(load_dump(text, "dump.yaml"))
    }


BASE = [device_class(), node("n0"), slice_(("n0"), 2)]


def test_no_driver_publishes_devices_for_the_class():
    found = doctor(device_class(), node("n0"), pod("p", claims=[{"name": "gpu", "resourceClaimName": "c"}]), claim("c"))
    stuck, _ = found["p"]
    assert (
        stuck
        == "no ResourceSlice publishes a device that DeviceClass gpu matches: is its driver installed and running?"
    )


def test_driver_publishes_for_other_nodes_only():
    found = doctor(
        device_class(),
        node("n0"),
        node("n1"),
        slice_("n1", 1),
        pod("p", node_name="n0", claims=[{"name": "gpu", "resourceClaimName": "c"}]),
        claim("c"),
    )
    stuck, _ = found["p"]
    assert stuck == "gpu.example.com publishes no usable device of class gpu for node n0"


def test_incomplete_pool_is_named():
    found = doctor(
        device_class(),
        node("n0"),
        slice_("n0", 1, count=2),
        pod("p", claims=[{"name": "gpu", "resourceClaimName": "c"}]),
        claim("c"),
    )
    stuck, steps = found["p"]
    assert stuck.startswith("pool gpu.example.com/n0 incomplete")
    assert ("allocation", PROBLEM) in [(c, s) for c, s, _ in steps]


def test_old_generation_slices_are_noted():
    found = doctor(
        device_class(),
        node("n0"),
        slice_("n0", 1, generation=2),
        slice_("n0", 1, generation=1, name="old"),
        pod("p", claims=[{"name": "gpu", "resourceClaimName": "c"}]),
        claim("c"),
    )
    _, steps = found["p"]
    assert any("still has slices of generation 1 beside the current 2" in m for _, _, m in steps)


def test_missing_named_claim():
    found = doctor(*BASE, pod("p", claims=[{"name": "gpu", "resourceClaimName": "shared"}]))
    stuck, steps = found["p"]
    assert stuck == "claim gpu: ResourceClaim shared does not exist; the pod waits until it is created"
    assert ("allocation", "note", "not simulated: ResourceClaim ml/shared not in the dump") in steps


def test_claim_not_generated_from_template():
    found = doctor(*BASE, pod("p", claims=[{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]))
    stuck, _ = found["p"]
    assert stuck.startswith("claim gpu: no ResourceClaim was generated from template one-gpu")


def test_generated_claim_not_recorded_in_pod_status():
    found = doctor(
        *BASE,
        claim("p-gpu-x", owner=("p", "uid-p"), pod_claim="gpu"),
        pod("p", claims=[{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]),
    )
    stuck, steps = found["p"]
    assert stuck == (
        "the pod status does not record generated claim(s) gpu -> p-gpu-x: the scheduler and kubelet "
        "look claims up there"
    )
    # The claim itself was found through its owner and annotation, and the allocator would place it.
    assert ("allocation", "ok") in [(c, s) for c, s, _ in steps]


def test_allocated_devices_of_other_claims_are_taken():
    busy = claim("busy", devices=(("n0", "gpu-0"), ("n0", "gpu-1")), reserved=(("other", "uid-other"),))
    found = doctor(*BASE, busy, claim("c"), pod("p", claims=[{"name": "gpu", "resourceClaimName": "c"}]))
    stuck, _ = found["p"]
    assert stuck == (
        "does not fit on the free devices: 1 node: not enough devices of class gpu (need 1, node has 0 free)"
    )


def test_free_devices_fit_and_the_pod_is_not_stuck_for_devices():
    found = doctor(*BASE, claim("c"), pod("p", claims=[{"name": "gpu", "resourceClaimName": "c"}]))
    stuck, steps = found["p"]
    assert stuck is None
    assert any(c == "allocation" and s == "ok" and m.startswith("fits now on node n0") for c, s, m in steps)


def test_scheduled_pod_with_unreserved_claim():
    found = doctor(
        *BASE,
        claim("c", devices=(("n0", "gpu-0"),)),
        pod("p", node_name="n0", claims=[{"name": "gpu", "resourceClaimName": "c"}]),
    )
    stuck, _ = found["p"]
    assert stuck.startswith("claim gpu: ResourceClaim c is allocated on gpu.example.com/n0/gpu-0")
    assert stuck.endswith("but not reserved for this pod; the kubelet will not prepare it")


def test_old_kubelet_rules_the_node_out():
    found = doctor(
        device_class(),
        node("old", kubelet="v1.33.4"),
        slice_("old", 2),
        claim("c"),
        pod("p", claims=[{"name": "gpu", "resourceClaimName": "c"}]),
    )
    stuck, _ = found["p"]
    assert stuck == (
        "does not fit on the free devices: 1 node: kubelet v1.33.4 is older than 1.34, the first "
        "release with DynamicResourceAllocation on by default (ResourceClaims)"
    )


def test_old_kubelet_for_extended_resources_on_a_scheduled_pod():
    ext = claim("p-ext", owner=("p", "uid-p"), devices=(("n0", "gpu-0"),), reserved=(("p", "uid-p"),), extended=True)
    status = {
        "extendedResourceClaimStatus": {
            "resourceClaimName": "p-ext",
            "requestMappings": [
                {"containerName": "app", "resourceName": "example.com/gpu", "requestName": "container-0-request-0"}
            ],
        }
    }
    found = doctor(
        device_class("example.com/gpu"),
        node("n0", kubelet="v1.35.1"),
        slice_("n0", 2),
        ext,
        pod("p", node_name="n0", gpus=1, status=status),
    )
    stuck, steps = found["p"]
    assert stuck == (
        "node n0: kubelet v1.35.1 is older than 1.36, the first release with DRAExtendedResource on "
        "by default (extended resources backed by DRA)"
    )
    assert any(c == "claims" and s == "ok" and "p-ext allocated on gpu.example.com/n0/gpu-0" in m for c, s, m in steps)


def test_device_plugin_and_driver_on_one_node_is_a_warning():
    found = doctor(
        device_class("example.com/gpu"),
        node("n0", **{"example.com/gpu": "2"}),
        slice_("n0", 2),
        pod(
            "p",
            node_name="n0",
            gpus=1,
            image="app:${TAG}",
            status={"containerStatuses": [{"name": "app", "state": {"waiting": {"reason": "InvalidImageName"}}}]},
        ),
    )
    stuck, steps = found["p"]
    assert (
        stuck == "container app: image 'app:${TAG}' is invalid: '${TAG}' is an unrendered template placeholder "
        "(characters 5-10)"
    )
    warning = [m for c, s, m in steps if s == WARNING]
    assert warning and warning[0].startswith("node n0 advertises example.com/gpu: 2 in status.allocatable")


def test_scheduled_without_extended_claim_on_a_node_without_plugin():
    found = doctor(device_class("example.com/gpu"), node("n0"), slice_("n0", 2), pod("p", node_name="n0", gpus=1))
    stuck, _ = found["p"]
    assert stuck.startswith("no extended-resource claim was generated although the pod is scheduled")


def test_healthy_and_device_free_pods_are_skipped():
    running = pod("run", claims=[{"name": "gpu", "resourceClaimName": "c"}], status={"phase": "Running"})
    running["status"]["phase"] = "Running"
    plain = pod("plain")
    assert doctor(*BASE, claim("c"), running, plain) == {}


def _cli(args: list[str], stdin: str | None = None):
    return CliRunner().invoke(main, ["doctor", *args], input=stdin)


def test_bundled_example_has_three_stuck_pods():
    result = _cli([str(ROOT / "examples" / "doctor" / "dump.yaml"), "--format", "json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    stuck = {p["name"]: p["stuck"] for p in data["pods"]}
    assert data["stuck"] == 3 and set(stuck) == {"inference-7f9c", "gpu-smoke-test", "notebook"}
    assert stuck["inference-7f9c"].startswith("pool gpu.nvidia.com/gpu-node-1 incomplete")
    assert "'<tag>' is an unrendered template placeholder" in stuck["gpu-smoke-test"]
    assert stuck["notebook"] == "claim gpu: ResourceClaim shared-gpu does not exist; the pod waits until it is created"


def test_text_output_shows_commands_and_reads_stdin():
    text = (ROOT / "examples" / "doctor" / "dump.yaml").read_text()
    result = _cli(["-"], stdin=text)
    assert result.exit_code == 1
    assert "Pod ml/notebook: Pending\n  STUCK: claim gpu: ResourceClaim shared-gpu does not exist" in result.output
    assert "$ kubectl get resourceclaim -n ml shared-gpu" in result.output


def test_exit_0_when_nothing_is_stuck(tmp_path):
    dump = tmp_path / "dump.yaml"
    dump.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "List",
                "items": [*BASE, claim("c"), pod("p", claims=[{"name": "gpu", "resourceClaimName": "c"}])],
            }
        )
    )
    result = _cli([str(dump)])
    assert result.exit_code == 0, result.output
    assert "no cause found in the dump" in result.output


def test_unreadable_input_is_a_usage_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("items: [unclosed\n")
    for args in ([str(bad)], [str(tmp_path / "missing.yaml")]):
        result = _cli(args)
        assert result.exit_code == 2 and "Traceback" not in result.output
    empty = tmp_path / "empty.yaml"
    empty.write_text("# nothing\n")
    result = _cli([str(empty)])
    assert result.exit_code == 2 and "no Kubernetes object" in result.output


def test_malformed_objects_give_answers_not_tracebacks():
    dump = """\
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml, uid: [1]}
spec: {resourceClaims: [{name: 1, resourceClaimTemplateName: [x]}, "bad", {resourceClaimName: {a: 1}}], nodeName: 5}
status: {phase: 3, resourceClaimStatuses: "x", extendedResourceClaimStatus: {resourceClaimName: [1]},
  containerStatuses: [{name: a, state: {waiting: {reason: InvalidImageName}}}], conditions: [1]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ml, ownerReferences: "x", annotations: [1]}
spec: {devices: {requests: "x"}}
status: {allocation: {devices: {results: [1, {driver: [1]}]}}, reservedFor: [1, "x"]}
---
apiVersion: v1
kind: Node
metadata: {name: n}
status: {nodeInfo: {kubeletVersion: [1]}, allocatable: "x"}
"""
    found = diagnose(load_dump(dump))
    assert [d.name for d in found] == ["p"] and found[0].stuck is not None


def test_the_walk_through_shows_the_current_output():
    result = _cli([str(ROOT / "examples" / "doctor" / "dump.yaml")])
    assert result.output in (ROOT / "docs" / "doctor.md").read_text()


def test_running_pod_in_crash_loop_points_at_the_logs():
    status = {
        "phase": "Running",
        "containerStatuses": [
            {"name": "app", "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}}}
        ],
    }
    crashing = pod("p", node_name="n0", claims=[{"name": "gpu", "resourceClaimName": "c"}], status=status)
    crashing["status"]["phase"] = "Running"
    text = yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [*BASE, claim("c", devices=(("n0", "gpu-0"),), reserved=(("p", "uid-p"),)), crashing],
        }
    )
    (found,) = diagnose(load_dump(text))
    assert found.stuck is not None
    assert (found.stuck.message, found.stuck.command) == (
        "container app: waiting, CrashLoopBackOff: back-off 5m0s",
        "kubectl logs -n ml p -c app --previous",
    )
    assert (found.steps[2].check, found.steps[2].status) == ("claims", "ok")


def test_unscheduled_extended_resource_pod_runs_through_the_allocator():
    busy = claim("busy", devices=(("n0", "gpu-0"), ("n0", "gpu-1")), reserved=(("other", "uid-other"),))
    found = doctor(device_class("example.com/gpu"), node("n0"), slice_("n0", 2), busy, pod("p", gpus=1))
    stuck, steps = found["p"]
    assert ("claims", "ok", "example.com/gpu: the scheduler generates the claim when it binds the pod") in steps
    assert (
        stuck == "does not fit on the free devices: 1 node: not enough devices of class gpu (need 1, node has 0 free)"
    )
    fits = doctor(device_class("example.com/gpu"), node("n0"), slice_("n0", 2), pod("p", gpus=1))
    assert fits["p"][0] is None


def test_extended_resource_without_a_mapping_class_is_the_cause():
    """The migration guide's first cause: the class lacks extendedResourceName, no device plugin."""
    unscheduled = {
        "conditions": [
            {
                "type": "PodScheduled",
                "status": "False",
                "reason": "Unschedulable",
                "message": "0/2 nodes are available: 2 Insufficient example.com/gpu.",
            }
        ]
    }
    found = doctor(device_class(), node("n0"), node("n1"), slice_("n0", 2), pod("p", gpus=1, status=unscheduled))
    stuck, steps = found["p"]
    assert stuck == (
        "example.com/gpu: no DeviceClass maps it (spec.extendedResourceName) and no node advertises it in "
        "status.allocatable (no device plugin), so the scheduler reports Insufficient example.com/gpu; "
        "DeviceClass gpu selects that vendor's devices: set its spec.extendedResourceName: example.com/gpu "
        "to serve the pod through DRA"
    )
    assert steps[0][0] == "scheduler"
    # A device plugin advertising the name provides it: not this cause.
    assert "p" not in doctor(device_class(), node("n0", **{"example.com/gpu": "1"}), pod("p", gpus=1))


def test_class_selector_naming_the_wrong_driver_points_at_the_expression():
    wrong = device_class()
    wrong["spec"]["selectors"] = [{"cel": {"expression": 'device.driver == "example.com"'}}]
    found = doctor(
        wrong, node("n0"), slice_("n0", 2), claim("c"), pod("p", claims=[{"name": "gpu", "resourceClaimName": "c"}])
    )
    stuck, _ = found["p"]
    assert stuck == (
        "DeviceClass gpu matches none of the 2 published devices (2 of gpu.example.com): "
        '`device.driver == "example.com"` in spec.selectors[0] is false for all of them; '
        "compare the selector with what the driver publishes"
    )
