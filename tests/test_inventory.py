"""The snapshot model: pools, devices, occupancy and snapshot problems located at the slice."""

from __future__ import annotations

from datetime import date
from fractions import Fraction
from unittest import mock

import pytest
import yaml
from allocator_fixtures import allocated_claim, device, resource_slice
from conftest import CORPUS

from dralint.k8s.inventory import DeviceId, Inventory


def problems(inv: Inventory) -> list[tuple[str, tuple]]:
    return [(p.code, p.path) for p in inv.problems]


def test_devices_attributes_and_capacity():
    cap = {"memory": {"value": "80Gi"}}
    inv = Inventory.build([resource_slice("s", [device("gpu-0", model="H100", index=0, capacity=cap)])])
    dev = inv.devices[DeviceId("gpu.example.com", "n1", "gpu-0")]
    assert dev.attribute("gpu.example.com/model") == ("string", "H100")
    assert dev.attribute("gpu.example.com/index") == ("int", 0)
    assert dev.capacity["memory"].value == Fraction(80 * 1024**3)
    assert inv.node_names() == ["n1"]
    assert inv.problems == []


def test_list_documents_and_v1beta1_basic_devices():
    legacy = resource_slice("s", [{"name": "gpu-0", "basic": {"attributes": {"model": {"string": "A"}}}}])
    inv = Inventory.build([{"apiVersion": "v1", "kind": "List", "items": [legacy]}])
    (dev,) = inv.all_devices()
    assert dev.attribute("gpu.example.com/model") == ("string", "A")
    assert inv.source_of(dev, ("name",))[1] == ("items", 0, "spec", "devices", 0, "name")


def test_incomplete_pool_is_reported_at_the_slice_count():
    inv = Inventory.build([resource_slice("s", [device("a")], count=3)])
    assert problems(inv) == [("incomplete-pool", ("spec", "pool", "resourceSliceCount"))]
    assert not inv.pools[("gpu.example.com", "n1")].complete


def test_complete_pool_has_no_problem():
    inv = Inventory.build([resource_slice("s1", [device("a")], count=2), resource_slice("s2", [device("b")], count=2)])
    assert inv.problems == [] and inv.pools[("gpu.example.com", "n1")].complete


def test_duplicate_device_names_in_a_pool():
    inv = Inventory.build([resource_slice("s1", [device("a")], count=2), resource_slice("s2", [device("a")], count=2)])
    assert problems(inv) == [("duplicate-device", ("spec", "devices", 0, "name"))]
    assert "also in slice 's1'" in inv.problems[0].message


def test_unknown_counter_set_and_counter():
    consume = [{"counterSet": "missing", "counters": {"mem": {"value": "1"}}}]
    inv = Inventory.build([resource_slice("s", [device("a", consumesCounters=consume)])])
    assert problems(inv) == [("unknown-counter", ("spec", "devices", 0, "consumesCounters", 0, "counterSet"))]
    consume[0]["counterSet"] = "cs"
    slices = [
        resource_slice("c", None, count=2, counters={"cs": {"other": "4"}}),
        resource_slice("d", [device("a", consumesCounters=consume)], count=2),
    ]
    assert "counter 'mem', which counter set 'cs' does not have" in Inventory.build(slices).problems[0].message


def test_mixed_generations_point_at_the_old_slice():
    inv = Inventory.build(
        [resource_slice("old", [device("a")], generation=1), resource_slice("new", [device("a")], generation=2)]
    )
    assert problems(inv) == [("mixed-generations", ("spec", "pool", "generation"))]
    assert inv.problems[0].source["metadata"]["name"] == "old"


def test_slice_without_node_selection_is_a_problem():
    bad = resource_slice("s", [device("a")], node=None, pool="p")
    assert problems(Inventory.build([bad])) == [("slice-without-node-selection", ("spec",))]


def test_allocated_claims_build_occupancy():
    shared = allocated_claim("a", ("n1", "nic"), shared={"bw": "10"})
    again = allocated_claim("b", ("n1", "nic"), shared={"bw": "5"})
    dedicated = allocated_claim("c", ("n1", "gpu"))
    inv = Inventory.build([shared, again, dedicated])
    nic = inv.allocated[DeviceId("gpu.example.com", "n1", "nic")]
    assert not nic.dedicated and nic.consumed == {"bw": 15} and nic.claims == ("default/a", "default/b")
    assert inv.allocated[DeviceId("gpu.example.com", "n1", "gpu")].dedicated


def test_bad_input_does_not_raise():
    junk = [{"kind": "ResourceSlice"}, {"kind": "ResourceSlice", "spec": {"driver": "d", "pool": "x"}}, "text", None]
    inv = Inventory.build(junk)
    assert [p.code for p in inv.problems] == ["slice-without-pool", "slice-without-pool"]


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not present")
def test_real_captured_slices_build():
    """Every parseable corpus file with ResourceSlices builds; every named device is indexed."""
    built = 0
    for path in sorted(CORPUS.rglob("*.yaml")):
        try:
            docs = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if isinstance(d, dict)]
        except yaml.YAMLError:
            continue  # two markdown extracts are deliberately not YAML
        items = [i for d in docs for i in (d.get("items") if isinstance(d.get("items"), list) else [d])]
        slices = [i for i in items if isinstance(i, dict) and i.get("kind") == "ResourceSlice"]
        if not slices:
            continue
        inv = Inventory.build(docs)
        named = {
            (s["spec"].get("driver"), (s["spec"].get("pool") or {}).get("name"), d.get("name"))
            for s in slices
            if isinstance(s.get("spec"), dict) and isinstance(s["spec"].get("pool"), dict)
            for d in s["spec"].get("devices") or ()
            if isinstance(d, dict) and d.get("name")
        }
        assert {tuple(k) for k in inv.devices} <= named, path
        built += 1
    assert built >= 10


def test_equal_device_fields_are_shared_and_what_yaml_tells_apart_is_not():
    """A fleet repeats a few device models: equal attributes and capacity are held once. Values
    Python calls equal but a selector does not (1, True, "1") stay apart."""
    cap = {"memory": {"value": "80Gi"}}
    slices = [
        resource_slice(f"s{n}", [device(f"gpu-{i}", model="H100", capacity=dict(cap)) for i in range(2)], node=f"n{n}")
        for n in range(2)
    ]
    slices.append(
        resource_slice(
            "s2", [device("gpu-0", model=1), device("gpu-1", model=True), device("gpu-2", model="1")], node="n2"
        )
    )
    inv = Inventory.build(slices)
    same = [inv.devices[DeviceId("gpu.example.com", f"n{n}", f"gpu-{i}")] for n in range(2) for i in range(2)]
    assert len({id(d.attributes) for d in same}) == 1 and len({id(d.capacity) for d in same}) == 1
    assert len({id(d.data["attributes"]) for d in same}) == 1
    assert [d.data["name"] for d in same] == ["gpu-0", "gpu-1", "gpu-0", "gpu-1"]
    apart = [inv.devices[DeviceId("gpu.example.com", "n2", f"gpu-{i}")] for i in range(3)]
    assert [d.attribute("gpu.example.com/model") for d in apart] == [("int", 1), ("bool", True), ("string", "1")]
    assert len({id(d.attributes) for d in apart}) == 3


def test_slices_listing_equal_devices_share_what_the_entries_say_and_keep_their_own_ids_slices_and_taints():
    """Equal device lists are read once per driver; what comes from the slice (pool, node,
    per-device node selection) and from DeviceTaintRules (which name pools and devices) stays
    each device's own."""
    listed = [
        device("gpu-0", model="H100", nodeName="a"),
        {"name": "gpu-1", "basic": {"attributes": {"model": {"int": 1}}}},
    ]
    drain = {
        "kind": "DeviceTaintRule",
        "metadata": {"name": "drain"},
        "spec": {"deviceSelector": {"pool": "b", "device": "gpu-1"}, "taint": {"key": "drain", "effect": "NoExecute"}},
    }
    inv = Inventory.build(
        [
            resource_slice("s-a", [dict(d) for d in listed], node="a"),
            resource_slice("s-b", [dict(d) for d in listed], node="b"),
            resource_slice("s-nic", [dict(d) for d in listed], node="a", driver="nic.example.com"),
            resource_slice("s-per", [dict(d) for d in listed], node=None, pool="per", perDeviceNodeSelection=True),
            drain,
        ]
    )
    devs = {(d.id.driver, d.id.pool, d.id.name): d for d in inv.all_devices()}
    a0, a1, b0, b1 = (devs[("gpu.example.com", pool, name)] for pool in "ab" for name in ("gpu-0", "gpu-1"))
    assert a0.data is b0.data and a0.attributes is b0.attributes and a1.selector_key == b1.selector_key
    assert [(d.slice.name, d.index, str(d.id)) for d in (a0, a1, b0, b1)] == [
        ("s-a", 0, "gpu.example.com/a/gpu-0"),
        ("s-a", 1, "gpu.example.com/a/gpu-1"),
        ("s-b", 0, "gpu.example.com/b/gpu-0"),
        ("s-b", 1, "gpu.example.com/b/gpu-1"),
    ]
    assert [[str(t) for t in d.taints] for d in (a0, a1, b0, b1)] == [[], [], [], ["drain:NoExecute"]]
    assert a1.attribute("gpu.example.com/model") == ("int", 1)
    nic = devs[("nic.example.com", "a", "gpu-0")]
    assert (
        nic.attribute("nic.example.com/model") == ("string", "H100") and nic.attribute("gpu.example.com/model") is None
    )
    per = devs[("gpu.example.com", "per", "gpu-0")]
    assert per.selection is not None and per.selection.node_name == "a" and a0.selection is None
    assert inv.problems == []


def test_device_lists_that_marshal_cannot_write_are_read_device_by_device():
    """PyYAML reads a timestamp as a date, which has no content key: such a list is not shared."""
    listed = [{"name": "gpu-0", "published": date(2024, 1, 1)}]
    inv = Inventory.build([resource_slice(f"s{n}", [dict(d) for d in listed], node=f"n{n}") for n in range(2)])
    assert [str(d.id) for d in inv.all_devices()] == ["gpu.example.com/n0/gpu-0", "gpu.example.com/n1/gpu-0"]


class _Lazy:
    """A pipeline-like object: knows its kind; its data is read only when asked for."""

    def __init__(self, data: dict, events: list):
        self.kind = data["kind"]
        self._data = data
        self.events = events

    @property
    def data(self) -> dict:
        self.events.append(("read", self._data["metadata"]["name"]))
        return self._data


def test_slices_are_read_one_at_a_time_in_their_order():
    """Each ResourceSlice is read when it is indexed, in order: no pass holds the data of every
    slice of a large fleet at once."""
    events: list = []
    items = [_Lazy(resource_slice(f"s{n}", [device("gpu-0")], node=f"n{n}"), events) for n in (2, 0, 1)]
    original = Inventory._add_slice

    def add_slice(inv, data, source, base):
        events.append(("index", data["metadata"]["name"]))
        original(inv, data, source, base)

    with mock.patch.object(Inventory, "_add_slice", add_slice):
        inv = Inventory.build(items)
    assert events == [(what, name) for name in ("s2", "s0", "s1") for what in ("read", "index")]
    assert list(inv.local_slices) == ["n2", "n0", "n1"]
