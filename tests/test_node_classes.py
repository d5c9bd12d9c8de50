"""Node equivalence classes: nodes that look the same to the allocator are searched once.

Every test compares against the reference walk (``same_shapes=False``: each node its own
class, searched on its own), so sharing answers may only save work, never change one.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

from allocator_fixtures import (
    DEFAULT_CLASSES,
    DRIVER,
    allocated_claim,
    claim_spec,
    device,
    device_class,
    fake_matcher,
    request,
    resource_slice,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from dralint.k8s.allocator import Outcome, Simulator, extended_resource_classes, pod_demand
from dralint.k8s.allocator.search import Search, Selection
from dralint.k8s.inventory import Inventory

CLASSES = DEFAULT_CLASSES + [device_class("h100", "is-h100", ext="example.com/gpu")]
TAINT = [{"key": "example.com/unhealthy", "effect": "NoSchedule"}]


def node(name: str, labels: dict[str, str] | None = None, kubelet: str = "", **allocatable: str) -> dict[str, Any]:
    return {
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "status": {"allocatable": allocatable, "nodeInfo": {"kubeletVersion": kubelet}},
    }


def gpus(
    name: str, count: int = 4, model: str = "H100", tainted: tuple[int, ...] = (), serial: str = ""
) -> dict[str, Any]:
    """A node's slice; ``serial`` gives each device a unique ``uuid`` attribute, as real drivers do."""
    devs = [
        device(
            f"gpu-{i}",
            model=model,
            pciRoot=f"r{i // 2}",
            **({"taints": TAINT} if i in tainted else {}),
            **({"uuid": f"{serial}-{i}"} if serial else {}),
        )
        for i in range(count)
    ]
    return resource_slice(f"{name}-gpus", devs, node=name)


def template(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "ResourceClaimTemplate", "metadata": {"name": name, "namespace": "default"}, "spec": {"spec": spec}}


def pod(*templates: str, **extra: Any) -> dict[str, Any]:
    claims = [{"name": f"c{i}", "resourceClaimTemplateName": t} for i, t in enumerate(templates)]
    return {"resourceClaims": claims, "containers": [{"name": "main"}], **extra}


def simulators(objects: list[dict[str, Any]]) -> tuple[Simulator, Simulator]:
    """(with classes, reference) over the same inventory."""
    inv = Inventory.build(objects + CLASSES)
    ext = extended_resource_classes(inv.device_classes)
    return tuple(Simulator(inv, inv.device_classes, fake_matcher, ext, same_shapes=same) for same in (True, False))  # type: ignore[return-value]


def place(
    sim: Simulator, spec: dict[str, Any], manifests: list[dict[str, Any]], replicas: int = 1, label: str = "pod"
) -> Outcome:
    by_name = {m["metadata"]["name"]: m for m in manifests}
    demand = pod_demand(label, spec, "default", lambda kind, ns, name: by_name.get(name), sim.inv, sim.ext)
    return sim.place(demand, replicas)


def answer(out: Outcome) -> tuple:
    """Everything ``dralint simulate`` prints of an outcome, devices by their full id."""
    first = [(r.claim.label, [(p.request, str(p.device.id)) for p in r.picks]) for r in out.first or ()]
    return (
        out.feasible,
        out.placed,
        out.packing,
        dict(out.reasons),
        dict(out.unplaced),
        first,
        out.fatal.message if out.fatal else None,
    )


ONE = template("one", claim_spec(request("g")))
PAIR = template("pair", claim_spec(request("g", count=2), constraints=[{"matchAttribute": f"{DRIVER}/pciRoot"}]))
QUAD = template("quad", claim_spec(request("g", count=4)))
H100 = template("h100", claim_spec(request("g", count=2, selectors=["is-h100"])))
SAME_UUID = template("same-uuid", claim_spec(request("g", count=2), constraints=[{"matchAttribute": f"{DRIVER}/uuid"}]))


def test_identical_nodes_are_one_class():
    with_classes, _ = simulators([gpus(n) for n in ("a", "b", "c")] + [node(n) for n in ("a", "b", "c")])
    assert {with_classes.node_class(n) for n in ("a", "b", "c")} == {with_classes.node_class("a")}


def test_a_taint_an_allocated_device_allocatable_or_kubelet_makes_a_class_of_its_own():
    objects = [
        gpus("a"),
        gpus("b"),
        gpus("tainted", tainted=(1,)),
        gpus("busy"),
        gpus("plugin"),
        gpus("old"),
        gpus("a100", model="A100"),
    ]
    objects += [node(n) for n in ("a", "b", "tainted", "busy", "a100")]
    objects += [
        node("plugin", **{"example.com/gpu": "2"}),
        node("old", kubelet="v1.30.0"),
        allocated_claim("held", ("busy", "gpu-0")),
    ]
    sim, _ = simulators(objects)
    assert sim.node_class("a") == sim.node_class("b")
    others = [sim.node_class(n) for n in ("tainted", "busy", "plugin", "old", "a100")]
    assert sim.node_class("a") not in others and len(set(others)) == len(others)


def test_labels_share_the_class_and_still_decide_node_selectors():
    objects = [
        gpus("a"),
        gpus("b"),
        gpus("c"),
        node("a", {"zone": "x"}),
        node("b", {"zone": "y"}),
        node("c", {"zone": "y"}),
    ]
    sim, reference = simulators(objects)
    assert sim.node_class("a") == sim.node_class("b")
    spec = pod("one", nodeSelector={"zone": "y"})
    out = place(sim, spec, [ONE], replicas=6)
    assert out.feasible == ["b", "c"] and out.reasons == {"node(s) didn't match Pod's node affinity/selector": ["a"]}
    assert answer(out) == answer(place(reference, spec, [ONE], replicas=6))


def test_identical_nodes_allocate_as_without_classes():
    objects = [gpus(n) for n in ("a", "b", "c", "d")] + [allocated_claim("held", ("a", "gpu-0"), ("a", "gpu-2"))]
    sim, reference = simulators(objects)
    for spec, manifests, replicas in (
        (pod("pair"), [PAIR], 5),
        (pod("one", "pair"), [ONE, PAIR], 3),
        (pod("pair"), [PAIR], 1),
    ):
        assert answer(place(sim, spec, manifests, replicas)) == answer(place(reference, spec, manifests, replicas))


def test_attributes_the_pod_never_reads_do_not_split_classes():
    sim, reference = simulators([gpus("a", serial="GPU-a"), gpus("b", serial="GPU-b")])
    by_name = {m["metadata"]["name"]: m for m in (ONE, SAME_UUID)}
    one, same_uuid = (
        pod_demand("p", pod(t), "default", lambda kind, ns, name: by_name.get(name), sim.inv, sim.ext)
        for t in ("one", "same-uuid")
    )
    assert sim.node_class("a") != sim.node_class("b")
    assert sim.node_class("a", one) == sim.node_class("b", one)
    assert sim.node_class("a", same_uuid) != sim.node_class("b", same_uuid)
    for spec, replicas in ((pod("one"), 6), (pod("same-uuid"), 1)):
        assert answer(place(sim, spec, [ONE, SAME_UUID], replicas)) == answer(
            place(reference, spec, [ONE, SAME_UUID], replicas)
        )


def test_a_tainted_device_splits_the_class_for_every_pod():
    sim, reference = simulators([gpus("a", serial="GPU-a"), gpus("t", serial="GPU-t", tainted=(1,))])
    demand = pod_demand("p", pod("quad"), "default", lambda kind, ns, name: QUAD, sim.inv, sim.ext)
    assert sim.node_class("a", demand) != sim.node_class("t", demand)
    out = place(sim, pod("quad"), [QUAD], replicas=2)
    assert out.feasible == ["a"] and answer(out) == answer(place(reference, pod("quad"), [QUAD], replicas=2))


def test_a_pod_that_fits_nowhere_gets_each_class_its_own_reason():
    """Reasons are explained once per class: nodes of two classes, interleaved, keep theirs."""
    objects = [
        gpus("a", tainted=(0, 1, 2)),
        gpus("b", model="A100"),
        gpus("c", tainted=(0, 1, 2)),
        gpus("d", model="A100"),
    ]
    sim, reference = simulators(objects)
    out = place(sim, pod("h100"), [H100])
    assert out.feasible == [] and out.reasons == {
        "device taint example.com/unhealthy:NoSchedule not tolerated": ["a", "c"],
        "no device of class gpu matches request g": ["b", "d"],
    }
    assert answer(out) == answer(place(reference, pod("h100"), [H100]))


def test_what_selectors_answer_splits_the_class():
    sim, reference = simulators([gpus("a", serial="GPU-a"), gpus("b", model="A100", serial="GPU-b")])
    demand = pod_demand("p", pod("h100"), "default", lambda kind, ns, name: H100, sim.inv, sim.ext)
    assert sim.node_class("a", demand) != sim.node_class("b", demand)
    out = place(sim, pod("h100"), [H100])
    assert out.feasible == ["a"] and answer(out) == answer(place(reference, pod("h100"), [H100]))


def test_answers_shared_across_templates_tell_claims_apart():
    sim, reference = simulators([gpus(n, count=2) for n in ("a", "b")])
    for name, manifest in (("one", ONE), ("quad", QUAD), ("pair", PAIR)):
        out = place(sim, pod(name), [manifest], label=name)
        assert answer(out) == answer(place(reference, pod(name), [manifest], label=name))
        assert out.schedulable == (name != "quad")


def test_replicas_take_devices_node_after_node():
    sim, _ = simulators([gpus(n) for n in ("a", "b", "c", "d")])
    out = place(sim, pod("one"), [ONE], replicas=10)
    assert out.packing == ["a"] * 4 + ["b"] * 4 + ["c"] * 2
    assert out.feasible == ["a", "b", "c", "d"]


def test_templates_with_the_same_claims_keep_their_own_labels():
    sim, _ = simulators([gpus(n) for n in ("a", "b")])
    again = template("again", claim_spec(request("g")))
    first = place(sim, pod("one"), [ONE], label="first").first
    second = place(sim, pod("again"), [again], label="second").first
    assert first is not None and second is not None
    assert [r.claim.label for r in first] != [r.claim.label for r in second]
    assert [str(p.device.id) for r in second for p in r.picks] == ["gpu.example.com/a/gpu-0"]


def test_selectors_run_once_per_device_content():
    calls: list[str] = []

    def counting(exprs: tuple[str, ...], dev: Any) -> Any:
        calls.append(str(dev.id))
        return fake_matcher(exprs, dev)

    inv = Inventory.build([gpus(n, count=2) for n in ("a", "b", "c")] + CLASSES)
    selection = Selection(inv.device_classes, counting)
    for dev in inv.all_devices():
        assert selection.evaluate(("is-h100",), dev) is True
    # Two devices per node with the same attributes (model H100, pciRoot r0): names and pools
    # are not what selectors see, so one evaluation serves all six devices.
    assert calls == ["gpu.example.com/a/gpu-0"]


# Few values per field, so that generated fleets have nodes alike in all but one respect.
NODE_FIELDS: dict[str, Any] = {
    "model": st.sampled_from(["H100", "A100"]),
    "busy": st.sampled_from([(False,) * 4, (True, False, False, False), (False, True, True, False), (True,) * 4]),
    "tainted": st.booleans(),
    "zone": st.sampled_from(["x", "y"]),
    "plugin": st.sampled_from(["", "4"]),
    "kubelet": st.sampled_from(["", "v1.30.0"]),
    "serial": st.sampled_from(["", "GPU-1", "GPU-2"]),
}
node_st = st.fixed_dictionaries(NODE_FIELDS)
pod_st = st.fixed_dictionaries(
    {
        "claims": st.lists(st.sampled_from(["one", "pair", "quad", "h100", "same-uuid"]), min_size=1, max_size=2),
        "zone": st.sampled_from([None, "x", "y"]),
        "extended": st.sampled_from([0, 0, 1, 3]),
        "replicas": st.integers(1, 6),
    }
)


@st.composite
def fleets(draw: Any) -> list[dict[str, Any]]:
    """A few node shapes, then copies of them that differ in one field each (or in none)."""
    shapes = draw(st.lists(node_st, min_size=1, max_size=3))
    fleet = list(shapes)
    for _ in range(draw(st.integers(0, 5))):
        copy = dict(draw(st.sampled_from(shapes)))
        field = draw(st.sampled_from([None, *NODE_FIELDS]))
        if field is not None:
            copy[field] = draw(NODE_FIELDS[field])
        fleet.insert(draw(st.integers(0, len(fleet))), copy)
    return fleet


@settings(max_examples=200, deadline=None)
@given(fleets(), st.lists(pod_st, min_size=1, max_size=3))
def test_classes_answer_as_searching_every_node(nodes, pods):
    """Several pods on one simulator, since answers are also shared across templates."""
    objects: list[dict[str, Any]] = []
    for n, shape in enumerate(nodes):
        name = f"n{n}"
        objects.append(
            gpus(name, model=shape["model"], tainted=(0,) if shape["tainted"] else (), serial=shape["serial"])
        )
        allocatable = {"example.com/gpu": shape["plugin"]} if shape["plugin"] else {}
        objects.append(node(name, {"zone": shape["zone"]}, shape["kubelet"], **allocatable))
        busy = [(name, f"gpu-{i}") for i, taken in enumerate(shape["busy"]) if taken]
        if busy:
            objects.append(allocated_claim(f"held-{name}", *busy))
    sim, reference = simulators(objects)
    for k, want in enumerate(pods):
        spec = pod(*want["claims"], **({"nodeSelector": {"zone": want["zone"]}} if want["zone"] else {}))
        if want["extended"]:
            spec["containers"] = [{"name": "main", "resources": {"limits": {"example.com/gpu": str(want["extended"])}}}]
        manifests, label = [ONE, PAIR, QUAD, H100, SAME_UUID], f"pod-{k}"
        expected = answer(place(reference, spec, manifests, want["replicas"], label))
        assert answer(place(sim, spec, manifests, want["replicas"], label)) == expected


def test_a_pod_that_fits_nowhere_is_searched_once_per_class_and_explained_with_its_extended_resources():
    """The walk's answers already say the search fails on each class: explaining a class does
    not search it again, and the explanation covers the special claim of extended resources."""
    sim, reference = simulators([gpus("a"), gpus("b", model="A100"), gpus("c")])
    spec = pod("quad", containers=[{"name": "main", "resources": {"limits": {"example.com/gpu": "1"}}}])
    searched: list[str] = []
    original = Search.run

    def counting(search: Search) -> Any:
        searched.append(search.view.node.name)
        return original(search)

    with mock.patch.object(Search, "run", counting):
        out = place(sim, spec, [QUAD])
    assert searched == ["a", "b"]
    assert out.reasons == {
        "not enough free devices for all requests together": ["a", "c"],
        "no device of class h100 matches request example.com/gpu of container 'main'": ["b"],
    }
    assert answer(out) == answer(place(reference, spec, [QUAD]))
