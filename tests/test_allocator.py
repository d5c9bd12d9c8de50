"""Allocator semantics, one feature per test class, each with a case that fits and one that does not."""

from __future__ import annotations

import pytest
from allocator_fixtures import (
    allocate,
    allocated_claim,
    claim_spec,
    device,
    picked,
    request,
    resource_slice,
)

from dralint.k8s.allocator import BudgetExceeded, Fatal, Features
from dralint.k8s.allocator.explain import explain
from dralint.k8s.allocator.view import State


def gpus(n: int, node: str = "n1", **extra) -> dict:
    return resource_slice(f"{node}-gpus", [device(f"gpu-{i}", model="H100", **extra) for i in range(n)], node=node)


def why(objects, *specs) -> str:
    results, sim, view, claims = allocate(objects, *specs)
    assert results is None
    return explain(view, claims, sim.selection, State.from_inventory(sim.inv))


class TestExactCount:
    def test_count_fits(self):
        results, *_ = allocate([gpus(2)], claim_spec(request("g", count=2)))
        assert picked(results) == [("g", "gpu-0"), ("g", "gpu-1")]

    def test_count_too_large(self):
        assert why([gpus(2)], claim_spec(request("g", count=3))) == (
            "not enough devices of class gpu (need 3, node has 2 free)"
        )

    def test_request_selectors_and_class_selectors_both_apply(self):
        objs = [resource_slice("s", [device("a", model="A100"), device("h", model="H100")])]
        results, *_ = allocate(objs, claim_spec(request("g", selectors=["is-h100"])))
        assert picked(results) == [("g", "h")]
        assert allocate(objs, claim_spec(request("g", count=2, selectors=["is-h100"])))[0] is None

    def test_two_claims_do_not_share_a_device(self):
        results, *_ = allocate([gpus(2)], claim_spec(request("a")), claim_spec(request("b")))
        assert picked(results) == [("a", "gpu-0"), ("b", "gpu-1")]
        assert allocate([gpus(1)], claim_spec(request("a")), claim_spec(request("b")))[0] is None

    def test_more_than_32_devices_is_fatal(self):
        with pytest.raises(Fatal, match="exceeds the claim limit of 32"):
            allocate([gpus(40)], claim_spec(request("g", count=33)))


class TestAllMode:
    def test_all_free_devices_are_taken(self):
        results, *_ = allocate([gpus(3)], claim_spec(request("g", allocationMode="All")))
        assert [name for _, name in picked(results)] == ["gpu-0", "gpu-1", "gpu-2"]

    def test_one_device_in_use_fails_the_request(self):
        objs = [gpus(3), allocated_claim("busy", ("n1", "gpu-1"))]
        assert allocate(objs, claim_spec(request("g", allocationMode="All")))[0] is None
        assert "needs every matching device free (1 of 3 in use)" in why(
            objs, claim_spec(request("g", allocationMode="All"))
        )
        two = [gpus(3), allocated_claim("busy", ("n1", "gpu-0"), ("n1", "gpu-2"))]
        assert "(2 of 3 in use)" in why(two, claim_spec(request("g", allocationMode="All")))

    def test_zero_matching_devices_fails(self):
        objs = [resource_slice("s", [device("a", model="A100")])]
        assert allocate(objs, claim_spec(request("g", allocationMode="All", selectors=["is-h100"])))[0] is None

    def test_incomplete_pool_is_fatal_for_all(self):
        objs = [gpus(1), resource_slice("other", [device("x")], pool="p2", count=2)]
        with pytest.raises(Fatal, match="resource pool gpu.example.com/p2 is currently being updated"):
            allocate(objs, claim_spec(request("g", allocationMode="All")))


class TestFirstAvailable:
    SPEC = claim_spec(
        {
            "name": "g",
            "firstAvailable": [
                {"name": "big", "deviceClassName": "gpu", "count": 4},
                {"name": "small", "deviceClassName": "gpu", "count": 1},
            ],
        }
    )

    def test_first_alternative_when_it_fits(self):
        results, *_ = allocate([gpus(4)], self.SPEC)
        assert {r for r, _ in picked(results)} == {"g/big"}

    def test_falls_back_to_second_alternative(self):
        results, *_ = allocate([gpus(2)], self.SPEC)
        assert picked(results) == [("g/small", "gpu-0")]

    def test_later_claim_forces_earlier_fallback(self):
        results, *_ = allocate([gpus(4)], self.SPEC, claim_spec(request("other")))
        assert picked(results) == [("g/small", "gpu-0"), ("other", "gpu-1")]

    def test_no_alternative_fits(self):
        objs = [resource_slice("s", [device("a", model="A100")])]
        spec = claim_spec(
            {
                "name": "g",
                "firstAvailable": [
                    {"name": "h", "deviceClassName": "gpu", "selectors": [{"cel": {"expression": "is-h100"}}]},
                    {"name": "two", "deviceClassName": "gpu", "count": 2},
                ],
            }
        )
        assert allocate(objs, spec)[0] is None
        assert "and no firstAvailable fallback of request g fits" in why(objs, spec)


class TestConstraints:
    def objs(self):
        devs = [device(f"gpu-{i}", model="H100", pciRoot=f"root-{i // 2}", serial=f"s{i % 2}") for i in range(4)]
        return [resource_slice("s", devs)]

    def test_match_attribute_fits_on_same_root(self):
        spec = claim_spec(request("a"), request("b"), constraints=[{"matchAttribute": "gpu.example.com/pciRoot"}])
        results, *_ = allocate(self.objs(), spec)
        assert picked(results) == [("a", "gpu-0"), ("b", "gpu-1")]

    def test_match_attribute_needs_backtracking(self):
        objs = self.objs() + [allocated_claim("busy", ("n1", "gpu-1"))]
        spec = claim_spec(request("a"), request("b"), constraints=[{"matchAttribute": "gpu.example.com/pciRoot"}])
        results, *_ = allocate(objs, spec)
        assert picked(results) == [("a", "gpu-2"), ("b", "gpu-3")]

    def test_match_attribute_cannot_be_satisfied(self):
        spec = claim_spec(request("a", count=3), constraints=[{"matchAttribute": "gpu.example.com/pciRoot"}])
        assert allocate(self.objs(), spec)[0] is None
        assert why(self.objs(), spec) == (
            "constraint matchAttribute gpu.example.com/pciRoot cannot be satisfied (claim c0)"
        )

    def test_missing_attribute_never_satisfies(self):
        spec = claim_spec(request("a"), constraints=[{"matchAttribute": "gpu.example.com/numa"}])
        assert allocate(self.objs(), spec)[0] is None

    def test_distinct_attribute_fits(self):
        spec = claim_spec(request("a", count=2), constraints=[{"distinctAttribute": "gpu.example.com/serial"}])
        results, *_ = allocate(self.objs(), spec)
        assert picked(results) == [("a", "gpu-0"), ("a", "gpu-1")]

    def test_distinct_attribute_is_pairwise(self):
        spec = claim_spec(request("a", count=3), constraints=[{"distinctAttribute": "gpu.example.com/serial"}])
        assert allocate(self.objs(), spec)[0] is None

    def test_constraint_scoped_to_one_request(self):
        spec = claim_spec(
            request("a"),
            request("b", count=2),
            constraints=[{"requests": ["b"], "distinctAttribute": "gpu.example.com/pciRoot"}],
        )
        results, *_ = allocate(self.objs(), spec)
        assert picked(results) == [("a", "gpu-0"), ("b", "gpu-1"), ("b", "gpu-2")]


def mig_node(*, allocated: bool) -> list[dict]:
    """One GPU with 80 memory slices: a full-GPU device and two 40 partitions share the counters."""
    counters = resource_slice("n1-counters", None, pool="n1", count=2, counters={"gpu-0": {"memory": "80"}})
    consume = lambda v: [{"counterSet": "gpu-0", "counters": {"memory": {"value": v}}}]  # noqa: E731
    devs = resource_slice(
        "n1-devices",
        [
            device("gpu-0", kind="gpu", consumesCounters=consume("80")),
            device("gpu-0-mig-0", kind="mig", consumesCounters=consume("40")),
            device("gpu-0-mig-1", kind="mig", consumesCounters=consume("40")),
        ],
        pool="n1",
        count=2,
    )
    objs = [counters, devs]
    if allocated:
        objs.append(allocated_claim("busy", ("n1", "gpu-0-mig-0")))
    return objs


class TestPartitionableDevices:
    def test_full_gpu_fits_when_no_partition_is_allocated(self):
        results, *_ = allocate(mig_node(allocated=False), claim_spec(request("g", "full")))
        assert picked(results) == [("g", "gpu-0")]

    def test_allocated_sibling_partition_exhausts_the_counters(self):
        objs = mig_node(allocated=True)
        spec = claim_spec(request("g", "full"))
        assert allocate(objs, spec)[0] is None
        assert why(objs, spec) == (
            "not enough devices of class full (need 1, node has 0 free: "
            "shared counters used up by allocated partitions of the same device)"
        )

    def test_remaining_partition_still_fits(self):
        results, *_ = allocate(mig_node(allocated=True), claim_spec(request("g", "mig")))
        assert picked(results) == [("g", "gpu-0-mig-1")]

    def test_partitions_in_one_attempt_share_counters(self):
        results, *_ = allocate(mig_node(allocated=False), claim_spec(request("m", "mig", count=2)))
        assert len(picked(results)) == 2
        assert (
            allocate(mig_node(allocated=False), claim_spec(request("m", "mig")), claim_spec(request("g", "full")))[0]
            is None
        )

    def test_unknown_counter_set_makes_the_pool_invalid(self):
        objs = mig_node(allocated=False)
        objs[1]["spec"]["devices"][0]["consumesCounters"][0]["counterSet"] = "gpu-9"
        results, sim, view, _ = allocate(objs, claim_spec(request("g", "mig")))
        assert results is None
        assert view.invalid == (
            ("gpu.example.com/n1", "device gpu-0 consumes counter set 'gpu-9', which the pool does not define"),
        )
        assert [p.code for p in sim.inv.problems] == ["unknown-counter"]


def nic(*, used: str | None = None) -> list[dict]:
    cap = {"bandwidth": {"value": "100", "requestPolicy": {"default": "10", "validRange": {"min": "10", "step": "10"}}}}
    objs = [resource_slice("s", [device("nic-0", capacity=cap, allowMultipleAllocations=True)])]
    if used:
        objs.append(allocated_claim("other", ("n1", "nic-0"), shared={"bandwidth": used}))
    return objs


class TestConsumableCapacity:
    def test_request_is_rounded_up_to_the_step(self):
        results, *_ = allocate(nic(used="80"), claim_spec(request("n", capacity={"requests": {"bandwidth": "15"}})))
        (pick,) = results[0].picks
        assert pick.shared and pick.consumed == {"bandwidth": 20}

    def test_rounded_request_no_longer_fits(self):
        spec = claim_spec(request("n", capacity={"requests": {"bandwidth": "25"}}))
        assert allocate(nic(used="80"), spec)[0] is None
        assert why(nic(used="80"), spec).endswith("remaining capacity too small)")

    def test_valid_values_round_a_request_up_and_refuse_one_above_them(self):
        cap = {"bandwidth": {"value": "100", "requestPolicy": {"default": "10", "validValues": ["10", "20", "40"]}}}
        objs = [resource_slice("s", [device("nic-0", capacity=cap, allowMultipleAllocations=True)])]
        results, *_ = allocate(objs, claim_spec(request("n", capacity={"requests": {"bandwidth": "15"}})))
        assert results[0].picks[0].consumed == {"bandwidth": 20}
        assert allocate(objs, claim_spec(request("n", capacity={"requests": {"bandwidth": "50"}})))[0] is None

    def test_below_minimum_uses_the_minimum(self):
        results, *_ = allocate(nic(), claim_spec(request("n", capacity={"requests": {"bandwidth": "3"}})))
        assert results[0].picks[0].consumed == {"bandwidth": 10}

    def test_shared_device_serves_two_claims(self):
        spec = claim_spec(request("n", capacity={"requests": {"bandwidth": "50"}}))
        results, *_ = allocate(nic(), spec, spec)
        assert [p.device.id.name for r in results for p in r.picks] == ["nic-0", "nic-0"]
        assert allocate(nic(), spec, spec, spec)[0] is None

    def test_two_requests_of_one_claim_share_a_device(self):
        spec = claim_spec(
            request("a", capacity={"requests": {"bandwidth": "40"}}),
            request("b", capacity={"requests": {"bandwidth": "60"}}),
        )
        results, *_ = allocate(nic(), spec)
        assert [(p.request, p.device.id.name, p.consumed) for p in results[0].picks] == [
            ("a", "nic-0", {"bandwidth": 40}),
            ("b", "nic-0", {"bandwidth": 60}),
        ]
        over = claim_spec(
            request("a", capacity={"requests": {"bandwidth": "50"}}),
            request("b", capacity={"requests": {"bandwidth": "60"}}),
        )
        assert allocate(nic(), over)[0] is None

    def test_unknown_capacity_name_skips_the_device(self):
        spec = claim_spec(request("n", capacity={"requests": {"iops": "1"}}))
        assert allocate(nic(), spec)[0] is None
        assert why(nic(), spec).endswith("node has 0 free: the devices publish no capacity 'iops')")


class TestTaints:
    TAINT = [{"key": "example.com/unhealthy", "effect": "NoSchedule"}]

    def test_untolerated_taint_blocks(self):
        objs = [gpus(1, taints=self.TAINT)]
        assert allocate(objs, claim_spec(request("g")))[0] is None
        assert why(objs, claim_spec(request("g"))) == "device taint example.com/unhealthy:NoSchedule not tolerated"

    def test_tolerated_taint_allows(self):
        tol = [{"key": "example.com/unhealthy", "operator": "Exists"}]
        results, *_ = allocate([gpus(1, taints=self.TAINT)], claim_spec(request("g", tolerations=tol)))
        assert picked(results) == [("g", "gpu-0")]

    def test_effect_none_does_not_block(self):
        results, *_ = allocate([gpus(1, taints=[{"key": "k", "effect": "None"}])], claim_spec(request("g")))
        assert results is not None

    def test_device_taint_rule_applies(self):
        rule = {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceTaintRule",
            "metadata": {"name": "drain"},
            "spec": {"deviceSelector": {"device": "gpu-0"}, "taint": {"key": "drain", "effect": "NoExecute"}},
        }
        results, *_ = allocate([gpus(2), rule], claim_spec(request("g")))
        assert picked(results) == [("g", "gpu-1")]
        assert allocate([gpus(1), rule], claim_spec(request("g")))[0] is None


class TestPools:
    def test_incomplete_pool_is_not_used(self):
        objs = [resource_slice("s", [device("gpu-0")], count=2)]
        assert allocate(objs, claim_spec(request("g")))[0] is None
        assert (
            why(objs, claim_spec(request("g")))
            == "no device of class gpu matches request g (a pool of driver gpu.example.com is incomplete)"
        )

    def test_complete_pool_of_two_slices(self):
        objs = [resource_slice("s1", [device("gpu-0")], count=2), resource_slice("s2", [device("gpu-1")], count=2)]
        results, *_ = allocate(objs, claim_spec(request("g", count=2)))
        assert len(picked(results)) == 2

    def test_old_generation_is_ignored(self):
        objs = [
            resource_slice("old", [device("gpu-old")], generation=1),
            resource_slice("new", [device("gpu-new")], generation=2),
        ]
        results, sim, *_ = allocate(objs, claim_spec(request("g")))
        assert picked(results) == [("g", "gpu-new")]
        assert allocate(objs, claim_spec(request("g", count=2)))[0] is None
        assert [p.code for p in sim.inv.problems] == ["mixed-generations"]

    def test_shared_slice_with_node_selector(self):
        sel = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}
        node = lambda n, z: {"kind": "Node", "metadata": {"name": n, "labels": {"zone": z}}}  # noqa: E731
        objs = [
            node("n1", "a"),
            node("n2", "b"),
            resource_slice("net", [device("gpu-0")], node=None, pool="net", nodeSelector=sel),
        ]
        assert allocate(objs, claim_spec(request("g")), node="n1")[0] is not None
        assert allocate(objs, claim_spec(request("g")), node="n2")[0] is None


class TestInUse:
    def test_allocated_device_is_skipped(self):
        results, *_ = allocate([gpus(2), allocated_claim("busy", ("n1", "gpu-0"))], claim_spec(request("g")))
        assert picked(results) == [("g", "gpu-1")]

    def test_all_devices_allocated(self):
        objs = [gpus(1), allocated_claim("busy", ("n1", "gpu-0"))]
        assert allocate(objs, claim_spec(request("g")))[0] is None
        assert why(objs, claim_spec(request("g"))) == "not enough devices of class gpu (need 1, node has 0 free)"

    def test_admin_access_may_use_allocated_device(self):
        objs = [gpus(1), allocated_claim("busy", ("n1", "gpu-0"))]
        results, *_ = allocate(objs, claim_spec(request("g", adminAccess=True)))
        assert picked(results) == [("g", "gpu-0")]
        assert allocate(objs, claim_spec(request("g", adminAccess=True, count=2)))[0] is None


class TestErrorsAndBudget:
    def test_cel_runtime_error_is_fatal(self):
        with pytest.raises(Fatal) as info:
            allocate([gpus(1)], claim_spec(request("g", selectors=["needs-ecc"])))
        assert info.value.cel is not None and info.value.cel.device.id.name == "gpu-0"
        assert "claim c0: selector #0 on device gpu.example.com/n1/gpu-0: CEL runtime error" in info.value.message

    def test_selector_error_not_reached_is_harmless(self):
        objs = [resource_slice("s", [device("gpu-0", ecc=True), device("gpu-1")])]
        results, *_ = allocate(objs, claim_spec(request("g", selectors=["needs-ecc"])))
        assert picked(results) == [("g", "gpu-0")]

    def test_unknown_class_is_fatal(self):
        with pytest.raises(Fatal, match="device class nope does not exist"):
            allocate([gpus(1)], claim_spec(request("g", "nope")))

    def test_budget_exceeded(self):
        # Six groups of three devices; four with one pciRoot never exist, so the search is
        # exhaustive (about 300 steps).
        devs = [device(f"gpu-{i}", pciRoot=f"r{i // 3}") for i in range(18)]
        spec = claim_spec(request("g", count=4), constraints=[{"matchAttribute": "gpu.example.com/pciRoot"}])
        with pytest.raises(BudgetExceeded):
            allocate([resource_slice("s", devs)], spec, budget=100)
        assert allocate([resource_slice("s", devs)], spec, budget=1_000)[0] is None


def test_explanation_ignores_selector_errors_on_devices_in_use():
    # gpu-0 (no ecc attribute, would error) is in use; gpu-1 has ecc=false: no match, no error.
    objs = [
        resource_slice("s", [device("gpu-0"), device("gpu-1", ecc=False)]),
        allocated_claim("busy", ("n1", "gpu-0")),
    ]
    spec = claim_spec(request("g", selectors=["needs-ecc"]))
    assert allocate(objs, spec)[0] is None
    assert why(objs, spec) == "no device of class gpu matches request g"


class TestFeatureGates:
    """--feature-gates turn 1.37 behaviour off the way the scheduler's gates do."""

    def test_device_taints_off_ignores_taints(self):
        objs = [gpus(1, taints=TestTaints.TAINT)]
        assert allocate(objs, claim_spec(request("g")))[0] is None
        assert allocate(objs, claim_spec(request("g")), features=Features(device_taints=False))[0] is not None

    def test_partitionable_off_hides_counter_devices(self):
        off = Features(partitionable_devices=False)
        assert allocate(mig_node(allocated=False), claim_spec(request("g", "mig")))[0] is not None
        results, _, view, _ = allocate(mig_node(allocated=False), claim_spec(request("g", "mig")), features=off)
        assert results is None and view.candidates == ()
        assert allocate([gpus(1)], claim_spec(request("g")), features=off)[0] is not None

    def test_consumable_capacity_off(self):
        off = Features(consumable_capacity=False)
        with pytest.raises(Fatal, match="has capacity requests, but the DRAConsumableCapacity feature is disabled"):
            allocate(nic(), claim_spec(request("n", capacity={"requests": {"bandwidth": "10"}})), features=off)
        plain = claim_spec(request("n"))
        assert allocate(nic(), plain, plain)[0] is not None  # shared, 10 + 10 of 100
        assert allocate(nic(), plain, plain, features=off)[0] is None  # dedicated without the gate

    def test_prioritized_list_off(self):
        with pytest.raises(Fatal, match="has subrequests, but the DRAPrioritizedList feature is disabled"):
            allocate([gpus(2)], TestFirstAvailable.SPEC, features=Features(prioritized_list=False))

    def test_gate_names(self):
        gates = {"DRADeviceTaints": False, "DRAExtendedResource": False}
        assert Features.from_gates(gates) == Features(device_taints=False, extended_resource=False)
