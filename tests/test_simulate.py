"""Placement over all nodes, grouped reasons, replica packing and DRA-backed extended resources."""

from __future__ import annotations

from typing import Any

import pytest
from allocator_fixtures import (
    DEFAULT_CLASSES,
    allocated_claim,
    claim_spec,
    device,
    device_class,
    fake_matcher,
    request,
    resource_slice,
)

from dralint.k8s.allocator import Features, Simulator, extended_resource_classes, pod_demand
from dralint.k8s.allocator.pod import IMPLICIT_PREFIX
from dralint.k8s.inventory import Inventory


def template(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"spec": spec},
    }


def fleet(sizes: dict[str, int], taint_nodes: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    out = []
    for node, n in sizes.items():
        taints = [{"key": "example.com/unhealthy", "effect": "NoSchedule"}] if node in taint_nodes else None
        devs = [device(f"gpu-{i}", model="H100", **({"taints": taints} if taints else {})) for i in range(n)]
        out.append(resource_slice(f"{node}-gpus", devs, node=node))
    return out


def simulate(objects, pod_spec, manifests=(), replicas=1, classes=None):
    inv = Inventory.build(list(objects) + (classes if classes is not None else DEFAULT_CLASSES))
    ext = extended_resource_classes(inv.device_classes)
    by_key = {(m["kind"], m["metadata"].get("namespace", "default"), m["metadata"]["name"]): m for m in manifests}
    demand = pod_demand("pod", pod_spec, "default", lambda k, ns, n: by_key.get((k, ns, n)), inv, ext)
    return Simulator(inv, inv.device_classes, fake_matcher, ext).place(demand, replicas)


POD = {"resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "four"}], "containers": [{"name": "c"}]}
FOUR = template("four", claim_spec(request("g", count=4)))


def test_feasible_nodes_and_first_assignment():
    out = simulate(fleet({"a": 2, "b": 4, "c": 8}), POD, [FOUR])
    assert out.feasible == ["b", "c"]
    assert [p.device.id.pool for p in out.first[0].picks] == ["b"] * 4


def test_reasons_are_grouped_per_node():
    out = simulate(fleet({"a": 2, "b": 2, "c": 4, "d": 1}, taint_nodes=("c",)), POD, [FOUR])
    assert not out.schedulable
    assert out.summary() == (
        "2 nodes: not enough devices of class gpu (need 4, node has 2 free); "
        "1 node: device taint example.com/unhealthy:NoSchedule not tolerated; "
        "1 node: not enough devices of class gpu (need 4, node has 1 free)"
    )


def test_replicas_are_packed_greedily():
    out = simulate(fleet({"a": 8, "b": 4, "c": 2}), POD, [FOUR], replicas=5)
    assert (out.placed, out.packing) == (3, ["a", "a", "b"])


def test_all_replicas_fit():
    out = simulate(fleet({"a": 8, "b": 8}), POD, [FOUR], replicas=4)
    assert out.placed == 4


def test_named_claim_is_allocated_once_for_all_replicas():
    claim = {
        "kind": "ResourceClaim",
        "metadata": {"name": "shared", "namespace": "default"},
        "spec": claim_spec(request("g")),
    }
    pod = {"resourceClaims": [{"name": "s", "resourceClaimName": "shared"}], "containers": [{"name": "c"}]}
    out = simulate(fleet({"a": 1, "b": 1}), pod, [claim], replicas=3)
    # All replicas share the one device on node a; node b cannot host them (the claim lives on a).
    assert out.placed == 3 and out.packing == ["a", "a", "a"]


def test_allocated_named_claim_pins_the_node():
    done = allocated_claim("shared", ("b", "gpu-0"))
    done["status"]["allocation"]["nodeSelector"] = {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["b"]}]}]
    }
    pod = {"resourceClaims": [{"name": "s", "resourceClaimName": "shared"}], "containers": [{"name": "c"}]}
    out = simulate(fleet({"a": 1, "b": 1}) + [done], pod)
    assert out.feasible == ["b"]
    assert out.reasons == {"resourceclaim not available on the node": ["a"]}


def test_unresolved_template_is_reported():
    inv = Inventory.build(fleet({"a": 1}) + DEFAULT_CLASSES)
    demand = pod_demand("pod", POD, "default", lambda *_: None, inv, {})
    assert demand.unresolved == ("ResourceClaimTemplate default/four",)


def test_pod_node_selector_filters_nodes():
    nodes = [{"kind": "Node", "metadata": {"name": n, "labels": {"pool": n}}} for n in ("a", "b")]
    pod = dict(POD, nodeSelector={"pool": "b"})
    out = simulate(fleet({"a": 4, "b": 4}) + nodes, pod, [FOUR])
    assert out.feasible == ["b"]
    assert out.reasons == {"node(s) didn't match Pod's node affinity/selector": ["a"]}


EXT_CLASSES = DEFAULT_CLASSES[:1] + [device_class("h100", "is-h100", ext="example.com/gpu")]


def ext_pod(n: int) -> dict[str, Any]:
    return {"containers": [{"name": "c", "resources": {"limits": {"example.com/gpu": str(n), "cpu": "1"}}}]}


class TestExtendedResources:
    def test_fits(self):
        out = simulate(fleet({"a": 2}), ext_pod(2), classes=EXT_CLASSES)
        assert out.feasible == ["a"]
        (result,) = out.first
        assert result.claim.extended
        # container 0, "example.com/gpu" sorts after "cpu": request index 1
        assert {p.request for p in result.picks} == {"container-0-request-1"}

    def test_too_many(self):
        out = simulate(fleet({"a": 2}), ext_pod(3), classes=EXT_CLASSES)
        assert out.summary() == "1 node: not enough devices of class h100 (need 3, node has 2 free)"

    def test_implicit_class_name(self):
        pod = {"containers": [{"name": "c", "resources": {"limits": {"deviceclass.resource.kubernetes.io/h100": "1"}}}]}
        assert simulate(fleet({"a": 1}), pod, classes=EXT_CLASSES).feasible == ["a"]

    def test_device_plugin_node_wins(self):
        node = {"kind": "Node", "metadata": {"name": "a"}, "status": {"allocatable": {"example.com/gpu": "1"}}}
        out = simulate(fleet({"a": 4}) + [node], ext_pod(2), classes=EXT_CLASSES)
        assert out.reasons == {"Insufficient example.com/gpu": ["a"]}

    def test_extended_claim_comes_after_user_claims(self):
        pod = dict(ext_pod(1), resourceClaims=POD["resourceClaims"])
        fits = simulate(fleet({"a": 5}), pod, [FOUR], classes=EXT_CLASSES)
        assert [r.claim.extended for r in fits.first] == [False, True]
        assert not simulate(fleet({"a": 4}), pod, [FOUR], classes=EXT_CLASSES).schedulable

    def test_newest_class_wins_a_name_clash(self):
        classes = {
            "old": device_class("old", ext="x.io/gpu", created="2026-01-01T00:00:00Z"),
            "new": device_class("new", ext="x.io/gpu", created="2026-02-01T00:00:00Z"),
        }
        assert extended_resource_classes(classes)["x.io/gpu"] == "new"
        same = {k: device_class(k, ext="x.io/gpu") for k in ("b", "a")}
        assert extended_resource_classes(same)["x.io/gpu"] == "a"

    def test_a_name_that_is_not_a_string_maps_nothing(self):
        # `extendedResourceName: [1]` used to reach a dict lookup: TypeError (unhashable list).
        classes = {name: device_class(name) for name in ("odd", "num")}
        classes["odd"]["spec"]["extendedResourceName"] = [1]
        classes["num"]["spec"]["extendedResourceName"] = 5
        classes["ok"] = device_class("ok", ext="x.io/gpu")
        assert extended_resource_classes(classes) == {
            IMPLICIT_PREFIX + "num": "num",
            IMPLICIT_PREFIX + "odd": "odd",
            IMPLICIT_PREFIX + "ok": "ok",
            "x.io/gpu": "ok",
        }


def test_fatal_cel_error_stops_every_node():
    spec = template("t", claim_spec(request("g", selectors=["needs-ecc"])))
    pod = {"resourceClaims": [{"name": "x", "resourceClaimTemplateName": "t"}], "containers": [{"name": "c"}]}
    out = simulate(fleet({"a": 1, "b": 1}), pod, [spec])
    assert out.fatal is not None and not out.schedulable
    assert "CEL runtime error: no such key: ecc" in out.summary()


def test_node_selector_slices_assume_unknown_labels_match():
    """Nodes known only from nodeName have no labels; a nodeSelector slice is not ruled out."""
    sel = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "rack", "operator": "In", "values": ["r1"]}]}]}
    net = resource_slice("net", [device("nic-0")], node=None, pool="net", nodeSelector=sel)
    pod = {"resourceClaims": [{"name": "n", "resourceClaimTemplateName": "one"}], "containers": [{"name": "c"}]}
    one = template("one", claim_spec(request("g", count=2)))
    assert simulate(fleet({"a": 1}) + [net], pod, [one]).feasible == ["a"]
    labelled = {"kind": "Node", "metadata": {"name": "a", "labels": {"rack": "r2"}}}
    assert simulate(fleet({"a": 1}) + [net, labelled], pod, [one]).feasible == []


def test_snapshot_without_nodes():
    net = resource_slice("net", [device("nic-0")], node=None, pool="net", allNodes=True)
    out = simulate([net], POD, [FOUR])
    assert out.nodes == 0 and out.summary().startswith("the snapshot names no node")


@pytest.mark.parametrize("replicas", [0, 1, 3, 7, 40])
def test_lazy_walk_agrees_with_the_full_one(replicas):
    inv = Inventory.build(fleet({"a": 2, "b": 8, "c": 1, "d": 4}) + DEFAULT_CLASSES)
    demand = pod_demand("pod", POD, "default", lambda *_: FOUR, inv, {})
    sim = Simulator(inv, inv.device_classes, fake_matcher)
    full, lazy = sim.place(demand, replicas), sim.place(demand, replicas, every_node=False)
    assert full.feasible == ["b", "d"]
    assert (lazy.placed, lazy.packing, lazy.schedulable) == (full.placed, full.packing, full.schedulable)
    assert full.placed == min(max(replicas, 1), 3)


def test_unmapped_extended_resource_cannot_fit():
    pod = {"containers": [{"name": "c", "resources": {"limits": {"example.com/gpu": "1", "vendor.io/fpga": "1"}}}]}
    out = simulate(fleet({"a": 2}), pod, classes=EXT_CLASSES)
    unserved = "Insufficient vendor.io/fpga (no DeviceClass maps it and the node does not advertise it)"
    assert out.reasons == {unserved: ["a"]}
    # With no mapped resource at all, too: the scheduler's NodeResourcesFit rules the node out.
    alone = {"containers": [{"name": "c", "resources": {"limits": {"vendor.io/fpga": "1"}}}]}
    assert simulate(fleet({"a": 2}), alone, classes=EXT_CLASSES).reasons == {unserved: ["a"]}
    node = {"kind": "Node", "metadata": {"name": "a"}, "status": {"allocatable": {"vendor.io/fpga": "2"}}}
    assert simulate(fleet({"a": 2}) + [node], pod, classes=EXT_CLASSES).feasible == ["a"]


def test_device_plugin_total_counts_every_container():
    node = {"kind": "Node", "metadata": {"name": "a"}, "status": {"allocatable": {"example.com/gpu": "3"}}}
    two = {"resources": {"limits": {"example.com/gpu": "2"}}}
    pod = {"containers": [dict(two, name="x"), dict(two, name="y")]}
    assert simulate(fleet({"a": 0}) + [node], pod, classes=EXT_CLASSES).reasons == {
        "Insufficient example.com/gpu": ["a"]
    }
    assert simulate(fleet({"a": 0}) + [node], {"containers": [dict(two, name="x")]}, classes=EXT_CLASSES).feasible == [
        "a"
    ]


def test_extended_resource_gate_off_skips_the_special_claim():
    inv = Inventory.build(fleet({"a": 1}) + EXT_CLASSES)
    ext = extended_resource_classes(inv.device_classes)
    demand = pod_demand("pod", ext_pod(3), "default", lambda *_: None, inv, ext)
    assert not Simulator(inv, inv.device_classes, fake_matcher, ext).place(demand).schedulable
    off = Simulator(inv, inv.device_classes, fake_matcher, ext, features=Features(extended_resource=False))
    assert off.place(demand).first == []


def test_packing_cap_is_not_a_shortfall():
    from dralint.k8s.allocator.simulate import MAX_PACKED_REPLICAS

    out = simulate(fleet({"a": 8}), POD, [FOUR], replicas=MAX_PACKED_REPLICAS + 10)
    assert out.placed == 2 and not out.all_placed
    inv = Inventory.build(fleet({"a": 1}) + DEFAULT_CLASSES)
    sim = Simulator(inv, inv.device_classes, fake_matcher)
    shared = {"resourceClaims": [{"name": "s", "resourceClaimName": "shared"}], "containers": [{"name": "c"}]}
    claim = {"kind": "ResourceClaim", "metadata": {"name": "shared"}, "spec": claim_spec(request("g"))}
    demand = pod_demand("pod", shared, "default", lambda *_: claim, inv, {})
    many = sim.place(demand, MAX_PACKED_REPLICAS + 10, every_node=False)
    assert many.placed == MAX_PACKED_REPLICAS and many.all_placed


def test_step_budget_is_reported_per_node():
    devs = [device(f"gpu-{i}", pciRoot=f"r{i // 3}") for i in range(18)]
    tmpl = template("t", claim_spec(request("g", count=4), constraints=[{"matchAttribute": "gpu.example.com/pciRoot"}]))
    pod = {"resourceClaims": [{"name": "x", "resourceClaimTemplateName": "t"}], "containers": [{"name": "c"}]}
    inv = Inventory.build([resource_slice("s", devs)] + DEFAULT_CLASSES)
    demand = pod_demand("pod", pod, "default", lambda *_: tmpl, inv, {})
    out = Simulator(inv, inv.device_classes, fake_matcher, budget=100).place(demand)
    assert out.reasons == {"timed out trying to allocate devices (search budget of 100 steps)": ["n1"]}


def _node(name: str, taints: list[dict[str, Any]] | None = None, **allocatable: str) -> dict[str, Any]:
    return {
        "kind": "Node",
        "metadata": {"name": name},
        "spec": {"taints": taints or []},
        "status": {"allocatable": allocatable},
    }


def test_node_taints_keep_a_pod_off_unless_it_tolerates_them():
    """TaintToleration, which the scheduler runs before node affinity (found against it)."""
    reserved = {"key": "example.com/reserved", "value": "true", "effect": "NoSchedule"}
    preferred = {"key": "example.com/cheap", "effect": "PreferNoSchedule"}
    nodes = [_node("a", [reserved]), _node("b", [preferred])]
    out = simulate(fleet({"a": 4, "b": 4}) + nodes, POD, [FOUR])
    assert out.feasible == ["b"] and out.reasons == {"node(s) had untolerated taint(s)": ["a"]}
    tolerant = {**POD, "tolerations": [{"key": "example.com/reserved", "operator": "Exists"}]}
    assert simulate(fleet({"a": 4, "b": 4}) + nodes, tolerant, [FOUR]).feasible == ["a", "b"]
    wrong_value = {**POD, "tolerations": [{"key": "example.com/reserved", "value": "false", "effect": "NoSchedule"}]}
    assert simulate(fleet({"a": 4, "b": 4}) + nodes, wrong_value, [FOUR]).feasible == ["b"]


def test_unmapped_extended_resource_needs_enough_of_the_device_plugin():
    pod = {"containers": [{"name": "c", "resources": {"limits": {"vendor.io/fpga": "2"}}}]}
    out = simulate(
        fleet({"a": 1, "b": 1}) + [_node("a", **{"vendor.io/fpga": "1"}), _node("b", **{"vendor.io/fpga": "2"})], pod
    )
    assert out.feasible == ["b"] and out.reasons == {"Insufficient vendor.io/fpga": ["a"]}


def test_replicas_share_what_the_device_plugin_advertises():
    """NodeResourcesFit counts the replicas already on a node (found against the scheduler)."""
    pod = {"containers": [{"name": "c", "resources": {"limits": {"vendor.io/fpga": "1"}}}]}
    out = simulate(fleet({"a": 1, "b": 1}) + [_node("a", **{"vendor.io/fpga": "2"}), _node("b")], pod, replicas=3)
    assert (out.placed, out.packing) == (2, ["a", "a"])
    assert out.unplaced == {
        "Insufficient vendor.io/fpga": ["a"],
        "Insufficient vendor.io/fpga (no DeviceClass maps it and the node does not advertise it)": ["b"],
    }
